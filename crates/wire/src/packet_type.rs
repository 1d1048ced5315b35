//! PGM packet type codes (RFC 3208 §8, header byte 4's low nibble; OpenPGM's ACK code).

use core::fmt;

/// PGM packet type codes (header byte 4, low nibble).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum PacketType {
    /// Source Path Message, RFC 3208 §8.1.
    Spm = 0x00,
    /// POLL, RFC 3208 §14.7.1.
    Poll = 0x01,
    /// POLL response, RFC 3208 §14.7.2.
    Polr = 0x02,
    /// Original data, RFC 3208 §8.2.
    Odata = 0x04,
    /// Repair data, RFC 3208 §8.2.
    Rdata = 0x05,
    /// Negative acknowledgement, RFC 3208 §8.3.
    Nak = 0x08,
    /// Null NAK, RFC 3208 §8.3.
    Nnak = 0x09,
    /// NAK confirmation, RFC 3208 §8.3.
    Ncf = 0x0A,
    /// SPM request, RFC 3208 §13.6.
    Spmr = 0x0C,
    /// PGMCC ACK (OpenPGM and Wireshark code 0x0D).
    Ack = 0x0D,
}

impl PacketType {
    /// All packet types, in code order.
    pub const ALL: [PacketType; 10] = [
        Self::Spm,
        Self::Poll,
        Self::Polr,
        Self::Odata,
        Self::Rdata,
        Self::Nak,
        Self::Nnak,
        Self::Ncf,
        Self::Spmr,
        Self::Ack,
    ];

    /// The type for a type code (the low nibble of header byte 4), if known.
    /// 0x0B (the ACK code of Rizzo's code and old tcpdump, docs/wire-format.md §1.9 D1) is not accepted.
    pub const fn from_code(code: u8) -> Option<Self> {
        Some(match code {
            0x00 => Self::Spm,
            0x01 => Self::Poll,
            0x02 => Self::Polr,
            0x04 => Self::Odata,
            0x05 => Self::Rdata,
            0x08 => Self::Nak,
            0x09 => Self::Nnak,
            0x0A => Self::Ncf,
            0x0C => Self::Spmr,
            0x0D => Self::Ack,
            _ => return None,
        })
    }

    /// The type code.
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// The name used in RFC 3208 and in error messages ("SPM", "ODATA", …).
    pub const fn name(self) -> &'static str {
        match self {
            Self::Spm => "SPM",
            Self::Poll => "POLL",
            Self::Polr => "POLR",
            Self::Odata => "ODATA",
            Self::Rdata => "RDATA",
            Self::Nak => "NAK",
            Self::Nnak => "NNAK",
            Self::Ncf => "NCF",
            Self::Spmr => "SPMR",
            Self::Ack => "ACK",
        }
    }

    /// True for packets sent by receivers towards the source (NAK, NNAK, SPMR, POLR, ACK).
    /// Their source port is the data-destination port and their destination port is the
    /// data-source port (docs/wire-format.md §1.1). SPM, POLL, ODATA, RDATA and NCF are downstream.
    pub const fn is_upstream(self) -> bool {
        matches!(
            self,
            Self::Nak | Self::Nnak | Self::Spmr | Self::Polr | Self::Ack
        )
    }

    /// True for ODATA and RDATA, the only packets that carry a payload and the only ones on
    /// which the checksum is mandatory.
    pub const fn is_data(self) -> bool {
        matches!(self, Self::Odata | Self::Rdata)
    }
}

impl TryFrom<u8> for PacketType {
    type Error = u8;

    /// Convert a type code; the error returns the unknown code.
    fn try_from(code: u8) -> Result<Self, u8> {
        Self::from_code(code).ok_or(code)
    }
}

impl From<PacketType> for u8 {
    fn from(t: PacketType) -> u8 {
        t.code()
    }
}

impl fmt::Display for PacketType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
