//! [`OptionsRepr`]: collecting decoded options, and emitting them in Convoy's order.
//!
//! Emission order: OPT_LENGTH, then the network-significant OPT_NAK_LIST (RFC 3208 §9.1: they
//! come before receiver-only options), then OPT_FRAGMENT, OPT_JOIN, OPT_SYN, OPT_FIN, OPT_RST,
//! the congestion-control schemes' options ([`crate::cc`]: schemes in registration order) and
//! OPT_CONVOY_RECEIVER_STATUS, OPT_CONVOY_NEEDS and OPT_CONVOY_AUTH (last, so its tag sits at the end of
//! the options). The END bit is set
//! on the last option; bytes 2 and 3 are zero except OPT_RST's byte 3. An empty `nak_list` is
//! not emitted.

use crate::field::{option as field, put16, put32};
use crate::options::{opt, Options, PgmOption, MAX_NAK_LIST, MAX_NEEDS, MAX_OPTIONS};
use crate::{EmitError, EmitErrorKind, OptionsRepr, PacketType};

/// Length of OPT_CONVOY_RECEIVER_STATUS.
const RECEIVER_STATUS_LEN: usize = 16;

impl OptionsRepr {
    /// True when no option is set (then the packet has no options at all, not even
    /// OPT_LENGTH, and OPT_PRESENT is clear).
    pub fn is_empty(&self) -> bool {
        self.count() == 0
    }

    /// True when a network-significant option (OPT_NAK_LIST with at least one entry) is set;
    /// the header then carries OPT_NETWORK.
    pub fn is_network_significant(&self) -> bool {
        !self.nak_list.is_empty()
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
        len +=
            4 * (usize::from(self.syn) + usize::from(self.fin) + usize::from(self.rst.is_some()));
        len += self.receiver_status.map_or(0, |_| RECEIVER_STATUS_LEN);
        if !self.needs.is_empty() {
            len += 4 + field::CONVOY_NEEDS_ENTRY_LEN * self.needs.len();
        }
        len += self.auth.map_or(0, |_| field::AUTH_LEN);
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
                PgmOption::Syn => r.syn = true,
                PgmOption::Fin => r.fin = true,
                PgmOption::Rst(b) => r.rst = Some(b),
                PgmOption::ReceiverStatus(s) => r.receiver_status = Some(s),
                PgmOption::Needs(l) => r.needs = l.iter().collect(),
                PgmOption::Auth(a) => r.auth = Some(a),
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
        if let Some(f) = self.fragment {
            let at = w.header(opt::FRAGMENT, field::FRAGMENT_LEN);
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
        if let Some(a) = self.auth {
            let at = w.header(opt::CONVOY_AUTH, field::AUTH_LEN);
            if a.encrypted {
                w.buf[at + field::SPECIFIC] = crate::options::AUTH_ENCRYPTED;
            }
            let o = &mut w.buf[at..at + field::AUTH_LEN];
            o[field::AUTH_SENDER].copy_from_slice(&a.sender);
            o[field::AUTH_COUNTER].copy_from_slice(&a.counter.to_be_bytes());
            o[field::AUTH_TAG].copy_from_slice(&a.tag);
        }
        w.buf[w.last + field::TYPE] |= opt::END;
        w.pos
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
