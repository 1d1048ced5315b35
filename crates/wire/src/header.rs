//! The 16-byte PGM common header (RFC 3208 §8, docs/wire-format.md §1.1).

use crate::field::{be16, be32, byte, header as field};
use crate::packet_type::PacketType;
use crate::session_id::Gsi;
use crate::{ParseError, ParseErrorKind};

/// Bits of the header options byte (byte 5), as OpenPGM, Wireshark and tcpdump use them
/// (docs/wire-format.md §1.9 D11; the literal RFC 3208 §8 bit numbering would reverse them).
pub mod flags {
    /// One or more option extensions follow the type-specific header.
    pub const OPT_PRESENT: u8 = 0x01;
    /// One or more options are network-significant (here: OPT_NAK_LIST).
    pub const OPT_NETWORK: u8 = 0x02;
    /// Parity packet of a transmission group with variable-size packets.
    pub const OPT_VAR_PKTLEN: u8 = 0x40;
    /// Parity (FEC) packet.
    pub const OPT_PARITY: u8 = 0x80;
}

/// A view of the 16-byte common header at the start of `buffer`.
///
/// [`Header::new_checked`] only checks that 16 bytes are present; the type byte is decoded by
/// [`Header::packet_type`]. For a whole, validated packet use [`crate::Packet`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Header<T> {
    /// Wrap `buffer`, checking that it holds at least the 16-byte common header.
    pub fn new_checked(buffer: T) -> Result<Self, ParseError> {
        let have = buffer.as_ref().len();
        if have < field::LEN {
            return Err(ParseError::truncated(
                None,
                "common header",
                0,
                field::LEN,
                have,
            ));
        }
        Ok(Self { buffer })
    }

    /// Wrap `buffer` without checking its length. Accessors never panic: on a short buffer
    /// they read missing bytes as 0.
    pub fn new_unchecked(buffer: T) -> Self {
        Self { buffer }
    }

    /// The wrapped buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    fn b(&self) -> &[u8] {
        self.buffer.as_ref()
    }

    /// Source port (bytes 0–1).
    pub fn source_port(&self) -> u16 {
        be16(self.b(), field::SOURCE_PORT.start)
    }

    /// Destination port (bytes 2–3).
    pub fn dest_port(&self) -> u16 {
        be16(self.b(), field::DEST_PORT.start)
    }

    /// The whole type byte (byte 4).
    pub fn type_byte(&self) -> u8 {
        byte(self.b(), field::TYPE)
    }

    /// Version (bits 7–6 of byte 4); 0 for RFC 3208.
    pub fn version(&self) -> u8 {
        self.type_byte() >> 6
    }

    /// Reserved bits 5–4 of byte 4 (tolerated, not interpreted).
    pub fn reserved_type_bits(&self) -> u8 {
        (self.type_byte() >> 4) & 0x03
    }

    /// Packet type code (bits 3–0 of byte 4).
    pub fn type_code(&self) -> u8 {
        self.type_byte() & 0x0F
    }

    /// The packet type: checks that the version is 0 and the code is known.
    pub fn packet_type(&self) -> Result<PacketType, ParseError> {
        let version = self.version();
        if version != 0 {
            return Err(ParseError::new(
                None,
                "type",
                field::TYPE,
                ParseErrorKind::BadVersion { version },
            ));
        }
        let code = self.type_code();
        PacketType::from_code(code).ok_or(ParseError::new(
            None,
            "type",
            field::TYPE,
            ParseErrorKind::UnknownPacketType { code },
        ))
    }

    /// Options byte (byte 5); see [`flags`].
    pub fn options_flags(&self) -> u8 {
        byte(self.b(), field::OPTIONS)
    }

    /// True if OPT_PRESENT is set: options follow the type-specific header.
    pub fn has_options(&self) -> bool {
        self.options_flags() & flags::OPT_PRESENT != 0
    }

    /// Checksum as carried (bytes 6–7); 0 means "no checksum".
    pub fn checksum(&self) -> u16 {
        be16(self.b(), field::CHECKSUM.start)
    }

    /// Global source identifier (bytes 8–13).
    pub fn gsi(&self) -> Gsi {
        let mut g = [0u8; 6];
        if let Some(s) = self.b().get(field::GSI) {
            g.copy_from_slice(s);
        }
        Gsi(g)
    }

    /// TSDU length (bytes 14–15): the payload length.
    pub fn tsdu_length(&self) -> u16 {
        be16(self.b(), field::TSDU_LENGTH.start)
    }

    /// The 32-bit sequence number that opens the type-specific part — SPM_SQN, DATA_SQN of ODATA and RDATA,
    /// the requested SQN of NAK, NNAK and NCF, RX_MAX of an ACK — when the type is one of those and the buffer
    /// holds it. A look at a packet without validating the rest of it, for code that handles only bytes the
    /// engine emitted itself (the simulator's accounting and network elements); anything else parses with
    /// [`crate::Packet::new_checked`].
    pub fn leading_sqn(&self) -> Option<u32> {
        use crate::field::{ack, data, nak, spm};
        let at = match self.packet_type().ok()? {
            PacketType::Spm => spm::SQN,
            PacketType::Odata | PacketType::Rdata => data::SQN,
            PacketType::Nak | PacketType::Nnak | PacketType::Ncf => nak::SQN,
            PacketType::Ack => ack::RX_MAX,
            _ => return None,
        };
        self.b().get(at).map(|b| be32(b, 0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leading_sqn_reads_the_type_specific_sequence_number() {
        let mut b = [0u8; 20];
        b[4] = PacketType::Rdata.code();
        b[16..20].copy_from_slice(&7u32.to_be_bytes());
        assert_eq!(Header::new_unchecked(&b[..]).leading_sqn(), Some(7));
        assert_eq!(
            Header::new_unchecked(&b[..19]).leading_sqn(),
            None,
            "too short"
        );
        b[4] = PacketType::Spmr.code();
        assert_eq!(
            Header::new_unchecked(&b[..]).leading_sqn(),
            None,
            "SPMR has none"
        );
    }

    #[test]
    fn codes_round_trip() {
        for t in PacketType::ALL {
            assert_eq!(PacketType::from_code(t.code()), Some(t));
            assert_eq!(PacketType::try_from(u8::from(t)), Ok(t));
        }
        for code in [0x03, 0x06, 0x07, 0x0B, 0x0E, 0x0F, 0x10] {
            assert_eq!(PacketType::from_code(code), None);
        }
    }

    #[test]
    fn orientation() {
        let up: Vec<_> = PacketType::ALL
            .iter()
            .filter(|t| t.is_upstream())
            .map(|t| t.name())
            .collect();
        assert_eq!(up, ["POLR", "NAK", "NNAK", "SPMR", "ACK"]);
    }

    #[test]
    fn header_fields() {
        let spm = [
            0x04, 0x45, 0x1d, 0x4c, 0x00, 0x00, 0xf2, 0xce, 0x65, 0xaa, 0xce, 0xce, 0xac, 0xc1,
            0x00, 0x00,
        ];
        let h = Header::new_checked(&spm[..]).unwrap();
        assert_eq!(h.source_port(), 0x0445);
        assert_eq!(h.dest_port(), 0x1d4c);
        assert_eq!(h.packet_type(), Ok(PacketType::Spm));
        assert_eq!(h.checksum(), 0xf2ce);
        assert_eq!(h.gsi(), Gsi([0x65, 0xaa, 0xce, 0xce, 0xac, 0xc1]));
        assert_eq!(h.tsdu_length(), 0);
        assert!(!h.has_options());
        let e = Header::new_checked(&spm[..15]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "common header at offset 0: truncated: need 16 bytes, have 15"
        );
    }

    #[test]
    fn bad_type_byte() {
        let mut p = [0u8; 16];
        p[4] = 0x40;
        let e = Header::new_checked(&p[..])
            .unwrap()
            .packet_type()
            .unwrap_err();
        assert_eq!(e.kind, ParseErrorKind::BadVersion { version: 1 });
        p[4] = 0x0B;
        let e = Header::new_checked(&p[..])
            .unwrap()
            .packet_type()
            .unwrap_err();
        assert_eq!(e.to_string(), "type at offset 4: unknown packet type 0x0b");
        p[4] = 0x30 | 0x0D; // reserved bits tolerated
        assert_eq!(
            Header::new_checked(&p[..]).unwrap().packet_type(),
            Ok(PacketType::Ack)
        );
    }
}
