//! Parse and emit errors.
//!
//! A [`ParseError`] always says which packet type it concerns (when the type byte could be read),
//! which field, at which byte offset from the start of the PGM header, and what was wrong. An
//! [`EmitError`] names the packet type and the field of the [`crate::PacketRepr`] that cannot be
//! encoded.

use core::fmt;

use crate::PacketType;

/// What was wrong with a received packet. See [`ParseError`] for where.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// The packet ends before the field does.
    Truncated {
        /// Bytes (from the start of the PGM header) needed to hold the field.
        need: usize,
        /// Bytes the packet has.
        have: usize,
    },
    /// Version bits (byte 4, bits 7–6) are not 0.
    BadVersion {
        /// The version found (0–3).
        version: u8,
    },
    /// The packet type (byte 4, low nibble) is not one Convoy knows.
    UnknownPacketType {
        /// The type nibble found.
        code: u8,
    },
    /// The options byte has OPT_PARITY on a packet type without a parity form, or OPT_VAR_PKTLEN without
    /// OPT_PARITY or on other than ODATA and RDATA (RFC 3208 §11.3).
    UnsupportedFlags {
        /// The whole options byte (header byte 5).
        flags: u8,
    },
    /// The checksum does not match the packet.
    ChecksumMismatch {
        /// The checksum computed over the packet (0 already mapped to 0xFFFF).
        computed: u16,
        /// The checksum the packet carries.
        found: u16,
    },
    /// An ODATA or RDATA packet has checksum 0 ("no checksum"), which RFC 3208 §8 forbids on
    /// data packets and OpenPGM rejects.
    MissingChecksum,
    /// A network-layer address has an address family other than 1 (IPv4) or 2 (IPv6).
    UnknownAfi {
        /// The AFI found.
        afi: u16,
    },
    /// The TSDU length does not match the bytes that follow the header and options.
    TsduLength {
        /// The TSDU length the header declares.
        declared: usize,
        /// The bytes that follow the header and options.
        actual: usize,
    },
    /// A packet type other than ODATA/RDATA declares a payload (TSDU length > 0).
    PayloadNotAllowed {
        /// The TSDU length found.
        len: usize,
    },
    /// OPT_PRESENT is set but the first option is not OPT_LENGTH.
    OptLengthNotFirst {
        /// The option type found instead (without the END bit).
        found: u8,
    },
    /// OPT_LENGTH declares a total options length below 4 (it counts itself).
    OptionsTotalTooSmall {
        /// The total found.
        total: usize,
    },
    /// An option has the wrong length for its type.
    OptionLength {
        /// The option length byte found.
        len: usize,
        /// What the length must be, in words (e.g. `"4+4N with N ≤ 62"`).
        expected: &'static str,
    },
    /// An option runs past the end of the options declared by OPT_LENGTH.
    OptionOverrun {
        /// Where the option would end (offset from the start of the PGM header).
        end: usize,
        /// Where the options end according to OPT_LENGTH.
        options_end: usize,
    },
    /// An option carries the OPT_END bit but OPT_LENGTH says more options follow.
    EndBeforeTotal {
        /// Where the END option ends.
        end: usize,
        /// Where the options end according to OPT_LENGTH.
        options_end: usize,
    },
    /// The option that reaches the end of the options does not carry the OPT_END bit.
    MissingEnd,
    /// More than 16 options (counting OPT_LENGTH), RFC 3208 §9.
    TooManyOptions {
        /// Options counted so far.
        count: usize,
    },
    /// A known option appears twice.
    DuplicateOption,
    /// A field holds a value its definition does not allow.
    BadField {
        /// The field's name.
        field: &'static str,
        /// The value found.
        value: u32,
        /// What the value must be.
        expected: &'static str,
    },
}

impl fmt::Display for ParseErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Truncated { need, have } => {
                write!(f, "truncated: need {need} bytes, have {have}")
            }
            Self::BadVersion { version } => write!(f, "version {version}, only 0 is defined"),
            Self::UnknownPacketType { code } => write!(f, "unknown packet type 0x{code:02x}"),
            Self::UnsupportedFlags { flags } => write!(
                f,
                "options byte 0x{flags:02x} sets a parity flag this packet type cannot carry (OPT_PARITY 0x80 on ODATA, RDATA, NAK, NNAK and NCF only; OPT_VAR_PKTLEN 0x40 beside it on ODATA and RDATA only)"
            ),
            Self::ChecksumMismatch { computed, found } => {
                write!(f, "computed 0x{computed:04x}, packet has 0x{found:04x}")
            }
            Self::MissingChecksum => f.write_str("0 (no checksum) is not allowed on data packets"),
            Self::UnknownAfi { afi } => {
                write!(f, "address family {afi}, expected 1 (IPv4) or 2 (IPv6)")
            }
            Self::TsduLength { declared, actual } => write!(
                f,
                "TSDU length {declared}, but {actual} bytes follow the header and options"
            ),
            Self::PayloadNotAllowed { len } => {
                write!(f, "TSDU length {len}, but only ODATA and RDATA carry a payload")
            }
            Self::OptLengthNotFirst { found } => write!(
                f,
                "first option has type 0x{found:02x}, OPT_LENGTH (0x00) must come first"
            ),
            Self::OptionsTotalTooSmall { total } => write!(
                f,
                "total options length {total} is below 4 (OPT_LENGTH counts itself)"
            ),
            Self::OptionLength { len, expected } => write!(f, "length {len} is not {expected}"),
            Self::OptionOverrun { end, options_end } => write!(
                f,
                "option ends at offset {end}, past the options end {options_end} set by OPT_LENGTH"
            ),
            Self::EndBeforeTotal { end, options_end } => write!(
                f,
                "OPT_END set on the option ending at offset {end}, but OPT_LENGTH says options end at {options_end}"
            ),
            Self::MissingEnd => {
                f.write_str("last option (reaching the OPT_LENGTH total) lacks the OPT_END bit")
            }
            Self::TooManyOptions { count } => {
                write!(f, "{count} options, at most 16 are allowed")
            }
            Self::DuplicateOption => f.write_str("appears more than once"),
            Self::BadField {
                field,
                value,
                expected,
            } => write!(f, "field {field} is {value}, expected {expected}"),
        }
    }
}

/// A received packet could not be parsed.
///
/// Displayed as `"<TYPE>: <field> at offset <n>: <what>"`, for example
/// `"NAK: OPT_NAK_LIST at offset 40: length 6 is not 4+4N with N ≤ 62"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// The packet type, if the type byte could be read and is known.
    pub packet_type: Option<PacketType>,
    /// The field at fault, e.g. `"checksum"`, `"source NLA"`, `"OPT_NAK_LIST"`.
    pub field: &'static str,
    /// Byte offset of the field from the start of the PGM header.
    pub offset: usize,
    /// What was wrong.
    pub kind: ParseErrorKind,
}

impl ParseError {
    /// Build an error.
    pub const fn new(
        packet_type: Option<PacketType>,
        field: &'static str,
        offset: usize,
        kind: ParseErrorKind,
    ) -> Self {
        Self {
            packet_type,
            field,
            offset,
            kind,
        }
    }

    /// A [`ParseErrorKind::Truncated`] error.
    pub(crate) const fn truncated(
        packet_type: Option<PacketType>,
        field: &'static str,
        offset: usize,
        need: usize,
        have: usize,
    ) -> Self {
        Self::new(
            packet_type,
            field,
            offset,
            ParseErrorKind::Truncated { need, have },
        )
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(t) = self.packet_type {
            write!(f, "{t}: ")?;
        }
        write!(f, "{} at offset {}: {}", self.field, self.offset, self.kind)
    }
}

impl std::error::Error for ParseError {}

/// Why a [`crate::PacketRepr`] could not be emitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum EmitErrorKind {
    /// The output buffer is too small.
    BufferTooSmall {
        /// Bytes needed ([`crate::PacketRepr::buffer_len`]).
        need: usize,
        /// Bytes available.
        have: usize,
    },
    /// More sequence numbers than OPT_NAK_LIST can carry.
    NakListTooLong {
        /// Sequence numbers in the list.
        len: usize,
    },
    /// More block ranges than OPT_CONVOY_NEEDS can carry.
    NeedsTooLong {
        /// Ranges in the list.
        len: usize,
    },
    /// More than 16 options (counting OPT_LENGTH).
    TooManyOptions {
        /// Options that would be written.
        count: usize,
    },
    /// A payload on a packet type other than ODATA/RDATA.
    PayloadNotAllowed {
        /// Payload length.
        len: usize,
    },
    /// A payload longer than the 16-bit TSDU length field (or than fits with the headers).
    PayloadTooLong {
        /// Payload length.
        len: usize,
    },
    /// A field set to a value its definition does not allow (what a parser would refuse).
    BadField {
        /// The value given.
        value: u32,
        /// What the value must be.
        expected: &'static str,
    },
}

impl fmt::Display for EmitErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::BufferTooSmall { need, have } => {
                write!(f, "buffer too small: need {need} bytes, have {have}")
            }
            Self::NakListTooLong { len } => write!(
                f,
                "{len} sequence numbers, at most {} fit",
                crate::field::MAX_NAK_LIST
            ),
            Self::NeedsTooLong { len } => {
                write!(
                    f,
                    "{len} block ranges, at most {} fit",
                    crate::field::MAX_NEEDS
                )
            }
            Self::TooManyOptions { count } => {
                write!(
                    f,
                    "{count} options, at most {} are allowed",
                    crate::field::MAX_OPTIONS
                )
            }
            Self::PayloadNotAllowed { len } => write!(
                f,
                "{len} payload bytes, but only ODATA and RDATA carry a payload"
            ),
            Self::PayloadTooLong { len } => {
                write!(f, "{len} payload bytes do not fit the 16-bit TSDU length")
            }
            Self::BadField { value, expected } => write!(f, "{value}, expected {expected}"),
        }
    }
}

/// A [`crate::PacketRepr`] could not be emitted.
///
/// Displayed as `"<TYPE>: <field>: <what>"`, e.g. `"NAK: OPT_NAK_LIST: 63 sequence numbers, at
/// most 62 fit"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EmitError {
    /// The packet type of the repr.
    pub packet_type: PacketType,
    /// The repr field at fault, e.g. `"payload"`, `"options.nak_list"`, `"buffer"`.
    pub field: &'static str,
    /// What was wrong.
    pub kind: EmitErrorKind,
}

impl fmt::Display for EmitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}: {}", self.packet_type, self.field, self.kind)
    }
}

impl std::error::Error for EmitError {}
