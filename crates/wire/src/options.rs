//! Option extensions, RFC 3208 §9: the TLV walk ([`RawOptions`]), typed options ([`PgmOption`]; the
//! congestion-control schemes' own in [`crate::cc`]) and the option type codes ([`opt`]).
//!
//! Rules (also in the crate documentation):
//! * the options start right after the type-specific header when OPT_PRESENT is set, and the
//!   first option must be OPT_LENGTH, of length 4, whose u16 total (≥ 4) counts all options
//!   including itself and must fit in the packet;
//! * every other option has a length byte ≥ 4 that keeps it within the OPT_LENGTH total;
//! * the END bit (0x80 of the type byte) ends the list: the option carrying it must end exactly
//!   at the OPT_LENGTH total, and the option that reaches the total must carry it. The END bit
//!   on OPT_LENGTH itself is ignored (OpenPGM, Wireshark and tcpdump skip OPT_LENGTH before
//!   looking for END);
//! * at most [`MAX_OPTIONS`] options, counting OPT_LENGTH;
//! * option byte 2 (reserved/F/OPX) is ignored (Convoy writes F only on a parity packet's OPT_FRAGMENT);
//!   byte 3 is ignored except by OPT_RST;
//! * known options must have their exact length, and a known option appearing twice is an error
//!   ([`crate::ParseErrorKind::DuplicateOption`]); unknown options (any other type, e.g.
//!   OPT_NAK_BO_IVL, OPT_REDIRECT, OPT_CR, OPT_INVALID 0x7F, Convoy's reserved 0x3D–0x3F) are
//!   skipped and may repeat;
//! * OPT_PARITY_PRM must set P or O, and OPT_PARITY_GRP's group number must not be 0 (RFC 3208 §11.8).

use crate::cc::{CcOption, CcOptions};
use crate::field::{be16, be32, byte, option as field};
use crate::field::{MAX_NAK_LIST, MAX_NEEDS, MAX_OPTIONS};
use crate::{
    AuthOption, FragmentOption, LeaveOption, PacketType, ParityParams, ParseError, ParseErrorKind,
    ReceiverStatus,
};

/// OPT_PARITY_PRM byte 3: P, pro-active parity (RFC 3208 §11.8.1; docs/wire-format.md §1.9 D3).
pub const PARITY_PRM_PRO: u8 = 0x02;
/// OPT_PARITY_PRM byte 3: O, on-demand parity.
pub const PARITY_PRM_OND: u8 = 0x01;

/// Option type codes (the low 7 bits of the option's first byte), RFC 3208 §9,
/// docs/wire-format.md §1.3–1.4, and Convoy's own (0x30–0x3F).
pub mod opt {
    /// OPT_END: set in the type byte of the last option.
    pub const END: u8 = 0x80;
    /// Mask of the 7-bit option type.
    pub const TYPE_MASK: u8 = 0x7F;
    /// OPT_LENGTH (first option; total options length).
    pub const LENGTH: u8 = 0x00;
    /// OPT_FRAGMENT.
    pub const FRAGMENT: u8 = 0x01;
    /// OPT_NAK_LIST (network-significant).
    pub const NAK_LIST: u8 = 0x02;
    /// OPT_JOIN.
    pub const JOIN: u8 = 0x03;
    /// OPT_NAK_BO_IVL (skipped).
    pub const NAK_BO_IVL: u8 = 0x04;
    /// OPT_NAK_BO_RNG (skipped).
    pub const NAK_BO_RNG: u8 = 0x05;
    /// OPT_REDIRECT (skipped).
    pub const REDIRECT: u8 = 0x07;
    /// OPT_PARITY_PRM (network-significant).
    pub const PARITY_PRM: u8 = 0x08;
    /// OPT_PARITY_GRP.
    pub const PARITY_GRP: u8 = 0x09;
    /// OPT_CURR_TGSIZE (network-significant except on ODATA).
    pub const CURR_TGSIZE: u8 = 0x0A;
    /// OPT_NBR_UNREACH (skipped).
    pub const NBR_UNREACH: u8 = 0x0B;
    /// OPT_PATH_NLA (skipped).
    pub const PATH_NLA: u8 = 0x0C;
    /// OPT_SYN.
    pub const SYN: u8 = 0x0D;
    /// OPT_FIN.
    pub const FIN: u8 = 0x0E;
    /// OPT_RST.
    pub const RST: u8 = 0x0F;
    /// OPT_CR (skipped).
    pub const CR: u8 = 0x10;
    /// OPT_CRQST (skipped).
    pub const CRQST: u8 = 0x11;
    /// First type code reserved for Convoy.
    pub const CONVOY_FIRST: u8 = 0x30;
    /// OPT_CONVOY_RECEIVER_STATUS: an application status report from a receiver (on SPMR).
    pub const CONVOY_RECEIVER_STATUS: u8 = 0x33;
    /// OPT_CONVOY_NEEDS: the blocks of a transfer a receiver still lacks (on SPMR, beside the status).
    pub const CONVOY_NEEDS: u8 = 0x3B;
    /// OPT_CONVOY_AUTH: the authentication tag of a keyed session's packet ([`crate::AuthOption`]).
    pub const CONVOY_AUTH: u8 = 0x3C;
    /// OPT_CONVOY_PARITY_CODE: the code of the source's parity packets, on SPMs beside OPT_PARITY_PRM
    /// ([`crate::ParityOptions::code`]).
    pub const CONVOY_PARITY_CODE: u8 = 0x3D;
    /// OPT_CONVOY_LEAVE: the source asks a receiver below the session's minimum rate to leave
    /// ([`crate::LeaveOption`]; on ODATA and SPMs).
    pub const CONVOY_LEAVE: u8 = 0x3E;
    /// Last type code reserved for Convoy.
    pub const CONVOY_LAST: u8 = 0x3F;
    /// OPT_INVALID: written by a network element that invalidates an option (skipped).
    pub const INVALID: u8 = 0x7F;

    /// The name of an option type, e.g. `"OPT_NAK_LIST"`, including the congestion-control schemes' options
    /// ([`crate::cc`]); `"unknown option"` for others.
    pub fn name(option_type: u8) -> &'static str {
        match option_type & TYPE_MASK {
            LENGTH => "OPT_LENGTH",
            FRAGMENT => "OPT_FRAGMENT",
            NAK_LIST => "OPT_NAK_LIST",
            JOIN => "OPT_JOIN",
            NAK_BO_IVL => "OPT_NAK_BO_IVL",
            NAK_BO_RNG => "OPT_NAK_BO_RNG",
            REDIRECT => "OPT_REDIRECT",
            PARITY_PRM => "OPT_PARITY_PRM",
            PARITY_GRP => "OPT_PARITY_GRP",
            CURR_TGSIZE => "OPT_CURR_TGSIZE",
            NBR_UNREACH => "OPT_NBR_UNREACH",
            PATH_NLA => "OPT_PATH_NLA",
            SYN => "OPT_SYN",
            FIN => "OPT_FIN",
            RST => "OPT_RST",
            CR => "OPT_CR",
            CRQST => "OPT_CRQST",
            CONVOY_RECEIVER_STATUS => "OPT_CONVOY_RECEIVER_STATUS",
            CONVOY_NEEDS => "OPT_CONVOY_NEEDS",
            CONVOY_AUTH => "OPT_CONVOY_AUTH",
            CONVOY_PARITY_CODE => "OPT_CONVOY_PARITY_CODE",
            CONVOY_LEAVE => "OPT_CONVOY_LEAVE",
            INVALID => "OPT_INVALID",
            t => match crate::cc::CcOptions::type_name(t) {
                Some(name) => name,
                None => "unknown option",
            },
        }
    }
}

/// Length of OPT_LENGTH, and the minimum length of any option.
pub const OPT_LENGTH_LEN: usize = 4;

/// OPT_CONVOY_PARITY_CODE byte 3: Convoy's parity code, Reed–Solomon over GF(2^16) as the `reed-solomon-simd`
/// crate builds it for 2k parity packets of a group of k (convoy-proto's `parity` module). A receiver decodes parity
/// only from a source that names this code: OpenPGM's parity (GF(2^8)) is another code.
pub const PARITY_CODE_RS16: u8 = 1;

/// OPT_CONVOY_AUTH byte 3: the payload is encrypted.
pub const AUTH_ENCRYPTED: u8 = 0x01;

/// OPT_CONVOY_AUTH byte 3: the AEAD suite is its high nibble (`byte >> AUTH_SUITE_SHIFT`; the suites are named in
/// docs/keyed-sessions.md).
pub const AUTH_SUITE_SHIFT: u8 = 4;

/// OPT_CONVOY_AUTH byte 3 for a suite (0–15) and the encrypted bit.
pub(crate) fn auth_specific_byte(suite: u8, encrypted: bool) -> u8 {
    (suite << AUTH_SUITE_SHIFT) | if encrypted { AUTH_ENCRYPTED } else { 0 }
}

/// Option byte 2: F (OP_ENCODED), written on a parity packet's OPT_FRAGMENT, whose value is the parity of the
/// group's fragment options (RFC 3208 §9.1 and §11.2 "Payload-specific options"; 0x04 as the RFC and Wireshark
/// have it, OpenPGM writes 0x08: docs/wire-format.md §1.9 D2). Ignored on receipt: a parity packet's OPT_FRAGMENT is
/// always encoded.
pub const OP_ENCODED: u8 = 0x04;

/// OPT_RST byte 3: the N bit.
pub const RST_N_BIT: u8 = 0x40;
/// OPT_RST byte 3: the error code bits.
pub const RST_ERROR_MASK: u8 = 0x3F;

/// One option as it sits in the packet (TLV level, before typed decoding).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawOption<'a> {
    offset: usize,
    bytes: &'a [u8],
}

impl<'a> RawOption<'a> {
    /// Offset of the option from the start of the PGM header.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The whole option, TLV header included (at least 4 bytes after validation).
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The 7-bit option type.
    pub fn option_type(&self) -> u8 {
        byte(self.bytes, field::TYPE) & opt::TYPE_MASK
    }

    /// True if the OPT_END bit is set.
    pub fn is_end(&self) -> bool {
        byte(self.bytes, field::TYPE) & opt::END != 0
    }

    /// The option length byte (total option length).
    pub fn length(&self) -> usize {
        usize::from(byte(self.bytes, field::LENGTH))
    }

    /// Byte 2: reserved, F and OPX bits (ignored by Convoy; OpenPGM may leave it uninitialised).
    pub fn opx_byte(&self) -> u8 {
        byte(self.bytes, field::OPX)
    }

    /// Byte 3: U bit and option-specific bits.
    pub fn specific_byte(&self) -> u8 {
        byte(self.bytes, field::SPECIFIC)
    }

    /// The option value (bytes from offset 4 on).
    pub fn value(&self) -> &'a [u8] {
        self.bytes.get(field::VALUE..).unwrap_or(&[])
    }

    /// The option's name, e.g. `"OPT_FIN"`.
    pub fn name(&self) -> &'static str {
        opt::name(self.option_type())
    }
}

/// Walks the option TLVs of a packet, validating the TLV structure (see the module docs).
/// Yields OPT_LENGTH first. After an error it yields nothing more.
#[derive(Clone, Debug)]
pub struct RawOptions<'a> {
    packet: &'a [u8],
    packet_type: Option<PacketType>,
    pos: usize,
    end: usize,
    count: usize,
    done: bool,
}

/// Validate OPT_LENGTH at `start` of `packet` and return the end offset of the options.
pub(crate) fn options_end(
    packet: &[u8],
    start: usize,
    packet_type: Option<PacketType>,
) -> Result<usize, ParseError> {
    let have = packet.len();
    let need = start.saturating_add(OPT_LENGTH_LEN);
    if have < need {
        return Err(ParseError::truncated(
            packet_type,
            "OPT_LENGTH",
            start,
            need,
            have,
        ));
    }
    let t = byte(packet, start + field::TYPE) & opt::TYPE_MASK;
    if t != opt::LENGTH {
        return Err(ParseError::new(
            packet_type,
            "OPT_LENGTH",
            start,
            ParseErrorKind::OptLengthNotFirst { found: t },
        ));
    }
    let len = usize::from(byte(packet, start + field::LENGTH));
    if len != OPT_LENGTH_LEN {
        return Err(ParseError::new(
            packet_type,
            "OPT_LENGTH",
            start,
            ParseErrorKind::OptionLength { len, expected: "4" },
        ));
    }
    let total = usize::from(be16(packet, start + field::TOTAL_LENGTH.start));
    if total < OPT_LENGTH_LEN {
        return Err(ParseError::new(
            packet_type,
            "OPT_LENGTH",
            start,
            ParseErrorKind::OptionsTotalTooSmall { total },
        ));
    }
    let end = start + total;
    if end > have {
        return Err(ParseError::truncated(
            packet_type,
            "options",
            start,
            end,
            have,
        ));
    }
    Ok(end)
}

impl<'a> RawOptions<'a> {
    /// Walk the options of `packet` that start at offset `start` (the end of the type-specific
    /// header). Fails if OPT_LENGTH is missing or its total does not fit in the packet.
    pub fn new(
        packet: &'a [u8],
        start: usize,
        packet_type: Option<PacketType>,
    ) -> Result<Self, ParseError> {
        let end = options_end(packet, start, packet_type)?;
        Ok(Self {
            packet,
            packet_type,
            pos: start,
            end,
            count: 0,
            done: false,
        })
    }

    /// An iterator that yields nothing (a packet without options).
    pub fn empty() -> Self {
        Self {
            packet: &[],
            packet_type: None,
            pos: 0,
            end: 0,
            count: 0,
            done: true,
        }
    }

    /// Offset (from the start of the PGM header) where the options end.
    pub fn end(&self) -> usize {
        self.end
    }

    fn err(&self, field: &'static str, offset: usize, kind: ParseErrorKind) -> ParseError {
        ParseError::new(self.packet_type, field, offset, kind)
    }

    fn next_option(&mut self) -> Result<Option<RawOption<'a>>, ParseError> {
        if self.done || self.pos >= self.end {
            return Ok(None);
        }
        let at = self.pos;
        let first = self.count == 0;
        self.count += 1;
        if self.count > MAX_OPTIONS {
            return Err(self.err(
                "options",
                at,
                ParseErrorKind::TooManyOptions { count: self.count },
            ));
        }
        if first {
            // OPT_LENGTH, already validated by `options_end`.
            self.pos = at + OPT_LENGTH_LEN;
            return Ok(Some(RawOption {
                offset: at,
                bytes: self.packet.get(at..self.pos).unwrap_or(&[]),
            }));
        }
        let type_byte = byte(self.packet, at + field::TYPE);
        let name = opt::name(type_byte);
        if self.end - at < 2 {
            return Err(self.err(
                name,
                at,
                ParseErrorKind::OptionOverrun {
                    end: at + 2,
                    options_end: self.end,
                },
            ));
        }
        let len = usize::from(byte(self.packet, at + field::LENGTH));
        if len < OPT_LENGTH_LEN {
            return Err(self.err(
                name,
                at,
                ParseErrorKind::OptionLength {
                    len,
                    expected: "at least 4",
                },
            ));
        }
        let opt_end = at + len;
        if opt_end > self.end {
            return Err(self.err(
                name,
                at,
                ParseErrorKind::OptionOverrun {
                    end: opt_end,
                    options_end: self.end,
                },
            ));
        }
        let is_end = type_byte & opt::END != 0;
        if is_end && opt_end != self.end {
            return Err(self.err(
                name,
                at,
                ParseErrorKind::EndBeforeTotal {
                    end: opt_end,
                    options_end: self.end,
                },
            ));
        }
        if !is_end && opt_end == self.end {
            return Err(self.err(name, at, ParseErrorKind::MissingEnd));
        }
        self.pos = opt_end;
        Ok(Some(RawOption {
            offset: at,
            bytes: self.packet.get(at..opt_end).unwrap_or(&[]),
        }))
    }
}

impl<'a> Iterator for RawOptions<'a> {
    type Item = Result<RawOption<'a>, ParseError>;

    fn next(&mut self) -> Option<Self::Item> {
        match self.next_option() {
            Ok(Some(o)) => Some(Ok(o)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

impl core::iter::FusedIterator for RawOptions<'_> {}

/// The sequence numbers of an OPT_NAK_LIST, as a view over the packet bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NakList<'a> {
    bytes: &'a [u8],
}

impl<'a> NakList<'a> {
    /// Number of sequence numbers.
    pub fn len(&self) -> usize {
        self.bytes.len() / 4
    }

    /// True if the list is empty (an OPT_NAK_LIST of length 4).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The i-th sequence number.
    pub fn get(&self, i: usize) -> Option<u32> {
        (i < self.len()).then(|| be32(self.bytes, i * 4))
    }

    /// The sequence numbers in packet order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = u32> + 'a {
        self.bytes.chunks_exact(4).map(|c| be32(c, 0))
    }
}

/// A decoded option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PgmOption<'a> {
    /// OPT_LENGTH with the total options length.
    Length(u16),
    /// OPT_FRAGMENT.
    Fragment(FragmentOption),
    /// OPT_NAK_LIST.
    NakList(NakList<'a>),
    /// OPT_JOIN with the minimum sequence number.
    Join(u32),
    /// OPT_PARITY_PRM.
    ParityPrm(ParityParams),
    /// OPT_PARITY_GRP with the parity group number.
    ParityGrp(u32),
    /// OPT_CURR_TGSIZE with the actual transmission group size.
    CurrTgsize(u32),
    /// 0x3D OPT_CONVOY_PARITY_CODE with its code byte.
    ParityCode(u8),
    /// OPT_SYN.
    Syn,
    /// OPT_FIN.
    Fin,
    /// OPT_RST with its whole byte 3 (N bit 0x40, error code 0x3F).
    Rst(u8),
    /// 0x33 OPT_CONVOY_RECEIVER_STATUS: an application status report from a receiver.
    ReceiverStatus(ReceiverStatus),
    /// An option of a congestion-control scheme ([`crate::cc`]).
    Cc(CcOption),
    /// Any other option type; skipped by [`crate::OptionsRepr`].
    Unknown(RawOption<'a>),
    /// 0x3B OPT_CONVOY_NEEDS: block ranges a receiver lacks.
    Needs(NeedList<'a>),
    /// 0x3C OPT_CONVOY_AUTH: a keyed session's authentication tag.
    Auth(crate::AuthOption),
    /// 0x3E OPT_CONVOY_LEAVE: a receiver asked to leave.
    Leave(crate::LeaveOption),
}

/// The value of OPT_CONVOY_NEEDS: `(first, count)` pairs of big-endian u32s.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NeedList<'a> {
    bytes: &'a [u8],
}

impl<'a> NeedList<'a> {
    /// The ranges in packet order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = crate::BlockRange> + 'a {
        self.bytes
            .chunks_exact(field::CONVOY_NEEDS_ENTRY_LEN)
            .map(|c| crate::BlockRange {
                first: be32(c, field::CONVOY_NEEDS_FIRST.start),
                count: be32(c, field::CONVOY_NEEDS_COUNT.start),
            })
    }
}

fn exact_len(
    raw: &RawOption<'_>,
    pt: Option<PacketType>,
    len: usize,
    expected: &'static str,
) -> Result<(), ParseError> {
    if raw.length() == len {
        Ok(())
    } else {
        Err(ParseError::new(
            pt,
            raw.name(),
            raw.offset(),
            ParseErrorKind::OptionLength {
                len: raw.length(),
                expected,
            },
        ))
    }
}

fn bad_field(
    raw: &RawOption<'_>,
    pt: Option<PacketType>,
    field: &'static str,
    value: u32,
    expected: &'static str,
) -> ParseError {
    ParseError::new(
        pt,
        raw.name(),
        raw.offset(),
        ParseErrorKind::BadField {
            field,
            value,
            expected,
        },
    )
}

/// OPT_NAK_LIST (RFC 3208 §9.3): 4 + 4N bytes, N ≤ [`MAX_NAK_LIST`].
fn decode_nak_list<'a>(
    raw: &RawOption<'a>,
    pt: Option<PacketType>,
) -> Result<NakList<'a>, ParseError> {
    list_len(raw, pt, (4, 0, MAX_NAK_LIST), "4+4N with N ≤ 62")?;
    Ok(NakList { bytes: raw.value() })
}

/// Fail unless `raw` is its 4-byte header and N entries of `entry` bytes, `min` ≤ N ≤ `max`.
fn list_len(
    raw: &RawOption<'_>,
    pt: Option<PacketType>,
    (entry, min, max): (usize, usize, usize),
    expected: &'static str,
) -> Result<(), ParseError> {
    let len = raw.length();
    let entries = len.saturating_sub(4) / entry;
    if len < 4 || !(len - 4).is_multiple_of(entry) || entries < min || entries > max {
        return Err(ParseError::new(
            pt,
            raw.name(),
            raw.offset(),
            ParseErrorKind::OptionLength { len, expected },
        ));
    }
    Ok(())
}

/// OPT_PARITY_PRM (RFC 3208 §11.8.1): P or O set.
fn decode_parity_prm(
    raw: &RawOption<'_>,
    pt: Option<PacketType>,
) -> Result<ParityParams, ParseError> {
    exact_len(raw, pt, field::PARITY_OPTION_LEN, "8")?;
    let bits = raw.specific_byte() & (PARITY_PRM_PRO | PARITY_PRM_OND);
    if bits == 0 {
        return Err(bad_field(
            raw,
            pt,
            "P/O bits",
            0,
            "P (0x02) or O (0x01) set",
        ));
    }
    Ok(ParityParams {
        proactive: bits & PARITY_PRM_PRO != 0,
        on_demand: bits & PARITY_PRM_OND != 0,
        tg_size: be32(raw.bytes(), field::PARITY_PRM_TGS.start),
    })
}

/// 0x3C OPT_CONVOY_AUTH (docs/keyed-sessions.md): 44 bytes.
fn decode_auth(raw: &RawOption<'_>, pt: Option<PacketType>) -> Result<AuthOption, ParseError> {
    exact_len(raw, pt, field::AUTH_LEN, "44")?;
    let b = raw.bytes();
    let mut sender = [0u8; 16];
    sender.copy_from_slice(&b[field::AUTH_SENDER]);
    let mut tag = [0u8; 16];
    tag.copy_from_slice(&b[field::AUTH_TAG]);
    let mut counter = [0u8; 8];
    counter.copy_from_slice(&b[field::AUTH_COUNTER]);
    Ok(AuthOption {
        encrypted: raw.specific_byte() & AUTH_ENCRYPTED != 0,
        suite: raw.specific_byte() >> AUTH_SUITE_SHIFT,
        sender,
        counter: u64::from_be_bytes(counter),
        tag,
    })
}

/// 0x3B OPT_CONVOY_NEEDS: 4 + 8N bytes, 1 ≤ N ≤ [`MAX_NEEDS`].
fn decode_needs<'a>(
    raw: &RawOption<'a>,
    pt: Option<PacketType>,
) -> Result<NeedList<'a>, ParseError> {
    let entry = (field::CONVOY_NEEDS_ENTRY_LEN, 1, MAX_NEEDS);
    list_len(raw, pt, entry, "4+8N with 1 ≤ N ≤ 31")?;
    Ok(NeedList { bytes: raw.value() })
}

/// 0x3E OPT_CONVOY_LEAVE: 12 bytes then the receiver's NLA, which ends the option (20 or 32 bytes).
fn decode_leave(raw: &RawOption<'_>, pt: Option<PacketType>) -> Result<LeaveOption, ParseError> {
    let view = crate::cc::SchemeOption {
        bytes: raw.bytes(),
        offset: raw.offset(),
        packet_type: pt,
        name: raw.name(),
    };
    let receiver = view.nla_at(field::CONVOY_LEAVE_NLA, "20 (IPv4 NLA) or 32 (IPv6 NLA)")?;
    Ok(LeaveOption {
        min_rate_kbps: view.u32_at(field::CONVOY_LEAVE_MIN_RATE),
        rate_kbps: view.u32_at(field::CONVOY_LEAVE_RATE),
        receiver,
    })
}

impl<'a> PgmOption<'a> {
    /// Decode a raw option. Known options must have their exact length (and a known AFI);
    /// unknown types decode as [`PgmOption::Unknown`].
    pub fn decode(raw: RawOption<'a>, packet_type: Option<PacketType>) -> Result<Self, ParseError> {
        let pt = packet_type;
        let b = raw.bytes();
        Ok(match raw.option_type() {
            opt::LENGTH => {
                exact_len(&raw, pt, 4, "4")?;
                Self::Length(be16(b, field::TOTAL_LENGTH.start))
            }
            opt::FRAGMENT => {
                exact_len(&raw, pt, 16, "16")?;
                Self::Fragment(FragmentOption {
                    first_sqn: be32(b, field::FRAG_FIRST_SQN.start),
                    offset: be32(b, field::FRAG_OFFSET.start),
                    apdu_len: be32(b, field::FRAG_APDU_LEN.start),
                })
            }
            opt::NAK_LIST => Self::NakList(decode_nak_list(&raw, pt)?),
            opt::JOIN => {
                exact_len(&raw, pt, 8, "8")?;
                Self::Join(be32(b, field::JOIN_MIN_SQN.start))
            }
            opt::PARITY_PRM => Self::ParityPrm(decode_parity_prm(&raw, pt)?),
            opt::PARITY_GRP => {
                exact_len(&raw, pt, field::PARITY_OPTION_LEN, "8")?;
                let group = be32(b, field::PARITY_GRP_NUMBER.start);
                if group == 0 {
                    return Err(bad_field(&raw, pt, "PRM_GROUP", 0, "not 0"));
                }
                Self::ParityGrp(group)
            }
            opt::CURR_TGSIZE => {
                exact_len(&raw, pt, field::PARITY_OPTION_LEN, "8")?;
                Self::CurrTgsize(be32(b, field::CURR_TGSIZE.start))
            }
            opt::SYN => {
                exact_len(&raw, pt, 4, "4")?;
                Self::Syn
            }
            opt::FIN => {
                exact_len(&raw, pt, 4, "4")?;
                Self::Fin
            }
            opt::RST => {
                exact_len(&raw, pt, 4, "4")?;
                Self::Rst(raw.specific_byte())
            }
            opt::CONVOY_RECEIVER_STATUS => {
                exact_len(&raw, pt, 16, "16")?;
                Self::ReceiverStatus(ReceiverStatus {
                    token: be32(b, field::CONVOY_STATUS_TOKEN.start),
                    state: be32(b, field::CONVOY_STATUS_STATE.start),
                    detail: be32(b, field::CONVOY_STATUS_DETAIL.start),
                })
            }
            opt::CONVOY_PARITY_CODE => {
                exact_len(&raw, pt, 4, "4")?;
                Self::ParityCode(raw.specific_byte())
            }
            opt::CONVOY_AUTH => Self::Auth(decode_auth(&raw, pt)?),
            opt::CONVOY_NEEDS => Self::Needs(decode_needs(&raw, pt)?),
            opt::CONVOY_LEAVE => Self::Leave(decode_leave(&raw, pt)?),
            _ => match CcOptions::decode(raw.bytes(), raw.offset(), pt) {
                Some(cc) => Self::Cc(cc?),
                None => Self::Unknown(raw),
            },
        })
    }

    /// The option type code (without the END bit).
    pub fn option_type(&self) -> u8 {
        match self {
            Self::Length(_) => opt::LENGTH,
            Self::Fragment(_) => opt::FRAGMENT,
            Self::NakList(_) => opt::NAK_LIST,
            Self::Join(_) => opt::JOIN,
            Self::ParityPrm(_) => opt::PARITY_PRM,
            Self::ParityGrp(_) => opt::PARITY_GRP,
            Self::CurrTgsize(_) => opt::CURR_TGSIZE,
            Self::ParityCode(_) => opt::CONVOY_PARITY_CODE,
            Self::Syn => opt::SYN,
            Self::Fin => opt::FIN,
            Self::Rst(_) => opt::RST,
            Self::ReceiverStatus(_) => opt::CONVOY_RECEIVER_STATUS,
            Self::Needs(_) => opt::CONVOY_NEEDS,
            Self::Auth(_) => opt::CONVOY_AUTH,
            Self::Leave(_) => opt::CONVOY_LEAVE,
            Self::Cc(c) => c.option_type(),
            Self::Unknown(raw) => raw.option_type(),
        }
    }
}

/// Typed option iterator of a validated [`crate::Packet`]: decodes each option and stops at the
/// end of the options. It also stops silently at the first malformed option, which cannot
/// happen after [`crate::Packet::new_checked`] succeeded; use [`validate`] (or
/// [`RawOptions`] with [`PgmOption::decode`]) to see errors.
#[derive(Clone, Debug)]
pub struct Options<'a> {
    raw: RawOptions<'a>,
}

impl<'a> Options<'a> {
    pub(crate) fn new(raw: RawOptions<'a>) -> Self {
        Self { raw }
    }
}

impl<'a> Iterator for Options<'a> {
    type Item = PgmOption<'a>;

    fn next(&mut self) -> Option<Self::Item> {
        let pt = self.raw.packet_type;
        match self.raw.next()? {
            Ok(raw) => match PgmOption::decode(raw, pt) {
                Ok(o) => Some(o),
                Err(_) => {
                    self.raw.done = true;
                    None
                }
            },
            Err(_) => None,
        }
    }
}

impl core::iter::FusedIterator for Options<'_> {}

/// Walk and decode every option of `raw`, checking the TLV rules, the known options' lengths,
/// and that no known option appears twice. Returns the number of options (OPT_LENGTH included).
pub fn validate(raw: RawOptions<'_>) -> Result<usize, ParseError> {
    let pt = raw.packet_type;
    let mut seen: u128 = 0;
    let mut count = 0;
    for r in raw {
        let r = r?;
        let o = PgmOption::decode(r, pt)?;
        count += 1;
        if !matches!(o, PgmOption::Unknown(_)) {
            let bit = 1u128 << o.option_type();
            if seen & bit != 0 {
                return Err(ParseError::new(
                    pt,
                    r.name(),
                    r.offset(),
                    ParseErrorKind::DuplicateOption,
                ));
            }
            seen |= bit;
        }
    }
    Ok(count)
}
