//! [`OptionsRepr`]: collecting decoded options, and emitting them in Convoy's order.
//!
//! Emission order: OPT_LENGTH, then the network-significant OPT_NAK_LIST, OPT_PARITY_PRM and
//! OPT_CURR_TGSIZE (RFC 3208 §9.1: they come before receiver-only options; OPT_CURR_TGSIZE is
//! receiver-only on ODATA, and early there too), then OPT_PARITY_GRP, OPT_CONVOY_PARITY_CODE, OPT_FRAGMENT, OPT_JOIN, OPT_SYN,
//! OPT_FIN, OPT_RST,
//! the congestion-control schemes' options ([`crate::cc`]: schemes in registration order) and
//! OPT_CONVOY_RECEIVER_STATUS, OPT_CONVOY_NEEDS, OPT_CONVOY_LEAVE and OPT_CONVOY_AUTH (last, so its tag sits at the end of
//! the options). The END bit is set
//! on the last option; bytes 2 and 3 are zero except OPT_RST's byte 3. An empty `nak_list` is
//! not emitted.

use crate::cc::CcOptions;
use crate::field::{option as field, put16, put32, MAX_NAK_LIST, MAX_NEEDS, MAX_OPTIONS};
use crate::nla;
use crate::option_values::{
    AuthOption, BlockRange, FragmentOption, LeaveOption, ParityOptions, ReceiverStatus,
};
use crate::options::{opt, Options, PgmOption, OP_ENCODED, PARITY_PRM_OND, PARITY_PRM_PRO};
use crate::packet_type::PacketType;
use crate::{EmitError, EmitErrorKind};

/// Length of OPT_CONVOY_RECEIVER_STATUS.
const RECEIVER_STATUS_LEN: usize = 16;

/// All options of a packet that Convoy understands. Unknown options are skipped on parse;
/// OPT_LENGTH is implied (written whenever any option is set).
#[derive(Clone, Debug, PartialEq, Eq, Default, Hash)]
pub struct OptionsRepr {
    /// OPT_FRAGMENT.
    pub fragment: Option<FragmentOption>,
    /// OPT_NAK_LIST: extra requested sequence numbers, at most [`crate::MAX_NAK_LIST`]; empty
    /// means the option is absent.
    pub nak_list: Vec<u32>,
    /// OPT_JOIN: minimum sequence number a late joiner may request.
    pub join: Option<u32>,
    /// OPT_SYN: the first packet of the session.
    pub syn: bool,
    /// OPT_FIN: the session is ending.
    pub fin: bool,
    /// OPT_RST: the session is reset; the whole option byte 3 (N bit 0x40, error code 0x3F).
    pub rst: Option<u8>,
    /// 0x33 OPT_CONVOY_RECEIVER_STATUS: an application status report from a receiver, carried on an SPMR
    /// sent unicast to the source.
    pub receiver_status: Option<ReceiverStatus>,
    /// 0x3B OPT_CONVOY_NEEDS: block ranges a receiver lacks, at most [`crate::MAX_NEEDS`], beside its status
    /// report; empty means the option is absent.
    pub needs: Vec<BlockRange>,
    /// 0x3E OPT_CONVOY_LEAVE: the source asks this receiver to leave (on ODATA and SPMs).
    pub leave: Option<LeaveOption>,
    /// 0x3C OPT_CONVOY_AUTH: a keyed session's authentication, always the last option.
    pub auth: Option<AuthOption>,
    /// The congestion-control schemes' options ([`crate::cc`]).
    pub cc: CcOptions,
    /// The parity options (RFC 3208 §11.8).
    pub parity: ParityOptions,
}

impl OptionsRepr {
    /// True when no option is set (then the packet has no options at all, not even
    /// OPT_LENGTH, and OPT_PRESENT is clear).
    pub fn is_empty(&self) -> bool {
        self.count() == 0
    }

    /// True when a network-significant option is set on a packet of `packet_type`: OPT_NAK_LIST with at
    /// least one entry, OPT_PARITY_PRM, or OPT_CURR_TGSIZE on anything but ODATA (RFC 3208 §9, §11.8); the
    /// header then carries OPT_NETWORK.
    pub fn is_network_significant(&self, packet_type: PacketType) -> bool {
        !self.nak_list.is_empty()
            || self.parity.params.is_some()
            || (self.parity.curr_tg_size.is_some() && packet_type != PacketType::Odata)
    }

    /// Number of options emitted, counting OPT_LENGTH; 0 when [`OptionsRepr::is_empty`].
    pub fn count(&self) -> usize {
        let n = usize::from(!self.nak_list.is_empty())
            + usize::from(self.fragment.is_some())
            + usize::from(self.join.is_some())
            + usize::from(self.syn)
            + usize::from(self.fin)
            + usize::from(self.rst.is_some())
            + usize::from(self.receiver_status.is_some())
            + usize::from(!self.needs.is_empty())
            + usize::from(self.auth.is_some())
            + usize::from(self.leave.is_some())
            + self.parity.count()
            + self.cc.iter().count();
        if n == 0 {
            0
        } else {
            n + 1
        }
    }

    /// Encoded length of all options, OPT_LENGTH included; 0 when [`OptionsRepr::is_empty`].
    /// With a `nak_list` longer than [`MAX_NAK_LIST`] this is the length it would need.
    pub fn buffer_len(&self) -> usize {
        if self.is_empty() {
            return 0;
        }
        let mut len = 4;
        if !self.nak_list.is_empty() {
            len += 4 + 4 * self.nak_list.len();
        }
        len += self.fragment.map_or(0, |_| field::FRAGMENT_LEN);
        len += self.join.map_or(0, |_| 8);
        len += field::PARITY_OPTION_LEN
            * (self.parity.count() - usize::from(self.parity.code.is_some()));
        len += self.parity.code.map_or(0, |_| 4);
        len +=
            4 * (usize::from(self.syn) + usize::from(self.fin) + usize::from(self.rst.is_some()));
        len += self.receiver_status.map_or(0, |_| RECEIVER_STATUS_LEN);
        if !self.needs.is_empty() {
            len += 4 + field::CONVOY_NEEDS_ENTRY_LEN * self.needs.len();
        }
        len += self.auth.map_or(0, |_| field::AUTH_LEN);
        len += self
            .leave
            .map_or(0, |l| field::CONVOY_LEAVE_NLA + nla::nla_len(&l.receiver));
        len + self.cc.iter().map(|c| c.wire_len()).sum::<usize>()
    }

    /// Check that these options can be encoded.
    pub fn check(&self, packet_type: PacketType) -> Result<(), EmitError> {
        if self.nak_list.len() > MAX_NAK_LIST {
            return Err(EmitError {
                packet_type,
                field: "options.nak_list",
                kind: EmitErrorKind::NakListTooLong {
                    len: self.nak_list.len(),
                },
            });
        }
        if self.needs.len() > MAX_NEEDS {
            return Err(EmitError {
                packet_type,
                field: "options.needs",
                kind: EmitErrorKind::NeedsTooLong {
                    len: self.needs.len(),
                },
            });
        }
        let bad = |field, value, expected| {
            Err(EmitError {
                packet_type,
                field,
                kind: EmitErrorKind::BadField { value, expected },
            })
        };
        if self
            .parity
            .params
            .is_some_and(|p| !p.proactive && !p.on_demand)
        {
            return bad(
                "options.parity.params",
                0,
                "pro-active or on-demand set (RFC 3208 §11.8.1)",
            );
        }
        if self.parity.group == Some(0) {
            return bad(
                "options.parity.group",
                0,
                "a group number above 0 (RFC 3208 §11.8.2)",
            );
        }
        let count = self.count();
        if count > MAX_OPTIONS {
            return Err(EmitError {
                packet_type,
                field: "options",
                kind: EmitErrorKind::TooManyOptions { count },
            });
        }
        Ok(())
    }

    /// Collect decoded options. Unknown options are skipped; OPT_LENGTH carries nothing the
    /// repr keeps. Duplicates were rejected by validation; should one slip through, the last
    /// one wins.
    pub(crate) fn from_options(options: Options<'_>) -> Self {
        let mut r = Self::default();
        for o in options {
            match o {
                PgmOption::Length(_) | PgmOption::Unknown(_) => {}
                PgmOption::Fragment(f) => r.fragment = Some(f),
                PgmOption::NakList(l) => r.nak_list = l.iter().collect(),
                PgmOption::Join(j) => r.join = Some(j),
                PgmOption::ParityPrm(p) => r.parity.params = Some(p),
                PgmOption::ParityGrp(g) => r.parity.group = Some(g),
                PgmOption::CurrTgsize(n) => r.parity.curr_tg_size = Some(n),
                PgmOption::ParityCode(c) => r.parity.code = Some(c),
                PgmOption::Syn => r.syn = true,
                PgmOption::Fin => r.fin = true,
                PgmOption::Rst(b) => r.rst = Some(b),
                PgmOption::ReceiverStatus(s) => r.receiver_status = Some(s),
                PgmOption::Needs(l) => r.needs = l.iter().collect(),
                PgmOption::Auth(a) => r.auth = Some(a),
                PgmOption::Leave(l) => r.leave = Some(l),
                PgmOption::Cc(c) => r.cc.insert(c),
            }
        }
        r
    }

    /// Write the options at the start of `buf`, which must hold [`OptionsRepr::buffer_len`]
    /// bytes, after [`OptionsRepr::check`] passed. Returns the bytes written.
    pub(crate) fn emit(&self, buf: &mut [u8]) -> usize {
        if self.is_empty() {
            return 0;
        }
        let total = self.buffer_len();
        let mut w = OptWriter {
            buf,
            pos: 0,
            last: 0,
        };
        // OPT_LENGTH never carries END: another option always follows it here.
        w.header(opt::LENGTH, 4);
        // `check` bounds the total far below u16::MAX (16 options of at most 255 bytes).
        put16(w.buf, field::TOTAL_LENGTH.start, total as u16);
        if !self.nak_list.is_empty() {
            let at = w.header(opt::NAK_LIST, 4 + 4 * self.nak_list.len());
            for (i, sqn) in self.nak_list.iter().enumerate() {
                put32(w.buf, at + field::VALUE + 4 * i, *sqn);
            }
        }
        self.emit_parity(&mut w);
        if let Some(f) = self.fragment {
            let at = w.header(opt::FRAGMENT, field::FRAGMENT_LEN);
            if self.parity.parity {
                w.buf[at + field::OPX] = OP_ENCODED;
            }
            put32(w.buf, at + field::FRAG_FIRST_SQN.start, f.first_sqn);
            put32(w.buf, at + field::FRAG_OFFSET.start, f.offset);
            put32(w.buf, at + field::FRAG_APDU_LEN.start, f.apdu_len);
        }
        if let Some(j) = self.join {
            let at = w.header(opt::JOIN, 8);
            put32(w.buf, at + field::JOIN_MIN_SQN.start, j);
        }
        if self.syn {
            w.header(opt::SYN, 4);
        }
        if self.fin {
            w.header(opt::FIN, 4);
        }
        if let Some(b) = self.rst {
            let at = w.header(opt::RST, 4);
            w.buf[at + field::SPECIFIC] = b;
        }
        for c in self.cc.iter() {
            let at = w.header(c.option_type(), c.wire_len());
            c.emit_value(&mut w.buf[at..at + c.wire_len()]);
        }
        if let Some(s) = self.receiver_status {
            let at = w.header(opt::CONVOY_RECEIVER_STATUS, RECEIVER_STATUS_LEN);
            put32(w.buf, at + field::CONVOY_STATUS_TOKEN.start, s.token);
            put32(w.buf, at + field::CONVOY_STATUS_STATE.start, s.state);
            put32(w.buf, at + field::CONVOY_STATUS_DETAIL.start, s.detail);
        }
        if !self.needs.is_empty() {
            let len = 4 + field::CONVOY_NEEDS_ENTRY_LEN * self.needs.len();
            let at = w.header(opt::CONVOY_NEEDS, len) + field::VALUE;
            for (i, r) in self.needs.iter().enumerate() {
                let e = at + field::CONVOY_NEEDS_ENTRY_LEN * i;
                put32(w.buf, e + field::CONVOY_NEEDS_FIRST.start, r.first);
                put32(w.buf, e + field::CONVOY_NEEDS_COUNT.start, r.count);
            }
        }
        if let Some(l) = self.leave {
            let len = field::CONVOY_LEAVE_NLA + nla::nla_len(&l.receiver);
            let at = w.header(opt::CONVOY_LEAVE, len);
            put32(
                w.buf,
                at + field::CONVOY_LEAVE_MIN_RATE.start,
                l.min_rate_kbps,
            );
            put32(w.buf, at + field::CONVOY_LEAVE_RATE.start, l.rate_kbps);
            nla::emit(w.buf, at + field::CONVOY_LEAVE_NLA, &l.receiver);
        }
        if let Some(a) = self.auth {
            let at = w.header(opt::CONVOY_AUTH, field::AUTH_LEN);
            w.buf[at + field::SPECIFIC] = crate::options::auth_specific_byte(a.suite, a.encrypted);
            let o = &mut w.buf[at..at + field::AUTH_LEN];
            o[field::AUTH_SENDER].copy_from_slice(&a.sender);
            o[field::AUTH_COUNTER].copy_from_slice(&a.counter.to_be_bytes());
            o[field::AUTH_TAG].copy_from_slice(&a.tag);
        }
        w.buf[w.last + field::TYPE] |= opt::END;
        w.pos
    }
}

impl OptionsRepr {
    /// OPT_PARITY_PRM and OPT_CURR_TGSIZE (network-significant), then OPT_PARITY_GRP and
    /// OPT_CONVOY_PARITY_CODE.
    fn emit_parity(&self, w: &mut OptWriter<'_>) {
        let len = field::PARITY_OPTION_LEN;
        if let Some(p) = self.parity.params {
            let at = w.header(opt::PARITY_PRM, len);
            w.buf[at + field::SPECIFIC] = if p.proactive { PARITY_PRM_PRO } else { 0 }
                | if p.on_demand { PARITY_PRM_OND } else { 0 };
            put32(w.buf, at + field::PARITY_PRM_TGS.start, p.tg_size);
        }
        if let Some(n) = self.parity.curr_tg_size {
            let at = w.header(opt::CURR_TGSIZE, len);
            put32(w.buf, at + field::CURR_TGSIZE.start, n);
        }
        if let Some(g) = self.parity.group {
            let at = w.header(opt::PARITY_GRP, len);
            put32(w.buf, at + field::PARITY_GRP_NUMBER.start, g);
        }
        if let Some(c) = self.parity.code {
            let at = w.header(opt::CONVOY_PARITY_CODE, 4);
            w.buf[at + field::SPECIFIC] = c;
        }
    }
}

/// Appends option TLV headers, remembering where the last option starts.
struct OptWriter<'b> {
    buf: &'b mut [u8],
    pos: usize,
    last: usize,
}

impl OptWriter<'_> {
    /// Write type, length and zero bytes 2–3 (and zero the value); return the option's start.
    fn header(&mut self, option_type: u8, len: usize) -> usize {
        let at = self.pos;
        let o = &mut self.buf[at..at + len];
        o.fill(0);
        o[field::TYPE] = option_type;
        // Every option length here is ≤ 252.
        o[field::LENGTH] = len as u8;
        self.last = at;
        self.pos = at + len;
        at
    }
}
