//! tfmcc's options (`convoy_wire::cc::tfmcc`) decoded from arbitrary option bytes on an ACK, a NAK and an
//! ODATA: never a panic, and whatever decodes re-emits to options that decode the same.

#![no_main]

use convoy_wire::{checksum, flags, PacketRepr, PacketType};
use libfuzzer_sys::fuzz_target;

/// A packet of type `packet_type` with an all-zero type-specific part of `body_len` bytes (IPv4 NLAs read as
/// AFI 0 and are rejected, so NAKs get AFI 1 written) followed by `options`.
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

fuzz_target!(|data: &[u8]| {
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
        assert_eq!(again.options.cc.tfmcc, repr.options.cc.tfmcc);
    }
});
