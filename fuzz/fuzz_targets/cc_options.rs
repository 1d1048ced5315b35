//! What every scheme's option fuzz target checks: arbitrary option bytes on an ACK, a NAK and an ODATA never make
//! the parser panic, and whatever parses re-emits to options that parse the same.

use convoy_wire::{checksum, flags, CcOptions, PacketRepr, PacketType};

/// A packet of type `packet_type` with an all-zero type-specific part of `body_len` bytes (NAKs get AFI 1 in both
/// NLAs, since AFI 0 is rejected) followed by `options`.
fn packet(packet_type: PacketType, body_len: usize, options: &[u8]) -> Vec<u8> {
    let mut b = vec![0u8; 16 + body_len];
    b[4] = packet_type.code();
    b[5] = flags::OPT_PRESENT;
    if packet_type == PacketType::Nak {
        b[21] = 1;
        b[29] = 1;
    }
    b.extend_from_slice(options);
    if packet_type == PacketType::Odata {
        checksum::fill(&mut b);
    }
    b
}

/// Run the check on `data`, comparing the part of the congestion-control options `scheme` selects.
pub fn check<T: PartialEq + std::fmt::Debug>(data: &[u8], scheme: impl Fn(&CcOptions) -> &T) {
    for (t, body) in [
        (PacketType::Ack, 8),
        (PacketType::Nak, 20),
        (PacketType::Odata, 8),
    ] {
        let bytes = packet(t, body, data);
        let Ok(repr) = PacketRepr::parse(&bytes) else {
            continue;
        };
        let mut out = vec![0u8; repr.buffer_len()];
        let n = repr.emit(&mut out).expect("a parsed repr emits");
        let again = PacketRepr::parse(&out[..n]).expect("our own emission parses");
        assert_eq!(scheme(&again.options.cc), scheme(&repr.options.cc));
    }
}
