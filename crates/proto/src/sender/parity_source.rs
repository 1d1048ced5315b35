//! The source's parity (RFC 3208 §11.4): transmission groups over the sequence space, pro-active parity after
//! each group's data, on-demand parity for parity NAKs, consolidated so that each loss costs one repair.
//!
//! # Groups
//!
//! A group is the k sequence numbers from a multiple of k (§11.2: TG_SQN in the high bits, PKT_SQN in the low
//! log2(k)). Convoy never ends a group early while the session runs (a group waits for more data rather than
//! skipping sequence numbers): only the session's last group may be shorter, and the source says so with
//! OPT_CURR_TGSIZE on its last ODATA when it knows then, and on every SPM once closing (§11.4).
//!
//! # Parity numbers
//!
//! Pro-active parity takes numbers 0…h−1; on-demand parity the numbers after them, "new, previously unused"
//! (§11.4). The code is built for twice as many parity packets as the group has data packets
//! ([`crate::parity`]); numbers from k on carry OPT_PARITY_GRP (§11.2: the number is PKT_SQN + k × the
//! parity group). After the last number they start again at 0: a receiver that lost more than half of all
//! that was sent to it may then receive a parity packet it has, and asks again.
//!
//! # One repair per loss
//!
//! §11.4 consolidates requests: a parity NAK asking for no more than the group's pending parity is confirmed
//! and otherwise ignored; one asking for more raises the pending count to its own. Convoy counts the parity
//! sent for the group within the NAKers' round trip ([`ParitySource::on_nak`]'s `within`, the elimination
//! interval of module `repair_elim`) as pending too: a NAK that crossed that parity on its way is answered by
//! it, as a duplicate selective NAK is.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::time::Duration;

use convoy_wire::{FragmentOption, ParityParams};

use super::txw::TxPacket;
use crate::parity::{self, ShardLayout, FRAGMENT_PREFIX, MAX_GROUP};
use crate::seq;
use crate::time::Instant;

/// The parity a source offers (RFC 3208 §11.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParityConfig {
    /// k, the transmission group size (PARITY_PRM_TGS): a power of 2 from 2 to [`MAX_GROUP`].
    pub group_size: u32,
    /// h, the pro-active parity packets sent after each group's data (0: none), at most k.
    pub proactive: u32,
    /// Whether parity NAKs are answered with on-demand parity.
    pub on_demand: bool,
}

impl ParityConfig {
    /// On-demand parity over groups of `k`, no pro-active parity.
    pub fn on_demand(k: u32) -> Self {
        ParityConfig {
            group_size: k,
            proactive: 0,
            on_demand: true,
        }
    }

    /// Why this configuration cannot run, if it cannot.
    pub fn check(&self) -> Result<(), String> {
        let k = self.group_size;
        if !k.is_power_of_two() || k < 2 || k as usize > MAX_GROUP {
            return Err(format!(
                "transmission group size {k}: a power of 2 from 2 to {MAX_GROUP} (RFC 3208 §11.2)"
            ));
        }
        if self.proactive > k {
            return Err(format!(
                "{} pro-active parity packets per group of {k}: at most {k}",
                self.proactive
            ));
        }
        if self.proactive == 0 && !self.on_demand {
            return Err("parity neither pro-active nor on demand".into());
        }
        Ok(())
    }

    /// Parse `k` (on-demand parity over groups of k) or `k+h` (h pro-active parity packets per group as well),
    /// checked as [`ParityConfig::check`] does.
    pub fn parse(s: &str) -> Result<Self, String> {
        let (k, h) = match s.trim().split_once('+') {
            Some((k, h)) => (k, Some(h)),
            None => (s.trim(), None),
        };
        let number = |x: &str, what: &str| {
            x.trim().parse::<u32>().map_err(|_| {
                format!("parity `{s}`: {what} `{x}` is not a whole number (write k or k+h, e.g. \"16\" or \"16+2\")")
            })
        };
        let config = ParityConfig {
            group_size: number(k, "the group size")?,
            proactive: h.map_or(Ok(0), |h| number(h, "the pro-active count"))?,
            on_demand: true,
        };
        config.check().map_err(|e| format!("parity `{s}`: {e}"))?;
        Ok(config)
    }

    /// OPT_PARITY_PRM as SPMs carry it (§11.8.1).
    pub fn params(&self) -> ParityParams {
        ParityParams {
            proactive: self.proactive > 0,
            on_demand: self.on_demand,
            tg_size: self.group_size,
        }
    }
}

/// A parity packet ready to go: its options and payload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParityPacket {
    /// DATA_SQN: the group's TG_SQN plus the parity number modulo k.
    pub sqn: u32,
    /// OPT_PARITY_GRP: the parity number divided by k, when not 0 (§11.2).
    pub group_number: Option<u32>,
    /// OPT_CURR_TGSIZE: the group's size when shorter than k.
    pub curr_tg_size: Option<u32>,
    /// OPT_VAR_PKTLEN.
    pub var_len: bool,
    /// The encoded OPT_FRAGMENT when the group's packets carry fragment options.
    pub fragment: Option<FragmentOption>,
    /// The parity bytes.
    pub payload: Vec<u8>,
    /// Pro-active (ODATA) rather than on-demand (RDATA).
    pub proactive: bool,
}

/// A group's parity, coded once.
#[derive(Debug)]
struct Coded {
    /// The group's data packets: k, or fewer for the short last group.
    size: u32,
    layout: ShardLayout,
    with_fragments: bool,
    shards: Vec<Vec<u8>>,
}

/// What the source remembers of a group it sent parity for or owes parity to.
#[derive(Debug, Default)]
struct GroupState {
    /// On-demand parity owed.
    pending: u32,
    /// The next parity number to use.
    next_index: u32,
    /// When each recent parity packet left.
    sent: VecDeque<Instant>,
}

/// Coded groups kept (the rest are coded again when asked for): the parity of 64 groups of 64 packets of 1,400
/// bytes is 11.5 MB.
const CODED_GROUPS: usize = 64;

/// Where a packet of a group to be coded is, as the sender sees it.
#[derive(Clone, Copy, Debug)]
pub enum Held<'a> {
    /// In the transmit window, or already fetched from the application.
    Here(&'a TxPacket),
    /// Out of the window but the application can supply it (module `app_repair`).
    Fetchable,
    /// Nowhere: the group cannot be coded.
    Gone,
}

/// What the next parity packet needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NextParity {
    /// The group from `group` is coded: the next packet's payload is `len` bytes.
    Ready {
        /// TG_SQN.
        group: u32,
        /// Payload length.
        len: usize,
    },
    /// The on-demand parity owed to the group from this TG_SQN needs packets the application must supply; it
    /// waits (not counted by [`ParitySource::has_owed`]) until [`ParitySource::resume_waiting`].
    Fetch(u32),
}

/// What a parity NAK led to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParityNak {
    /// More parity is owed to the group: this many packets.
    Queued(u32),
    /// Pending or just-sent parity covers it.
    Covered,
    /// The group is not complete, or no longer in the transmit window.
    Unavailable,
}

/// Why a group could not be coded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Uncoded {
    /// Some of its packets must come from the application first.
    Fetchable,
    /// Incomplete, or a packet is nowhere.
    Gone,
}

/// The source's parity state (module docs).
#[derive(Debug)]
pub struct ParitySource {
    config: ParityConfig,
    groups: BTreeMap<u32, GroupState>,
    /// Groups owing on-demand parity, oldest request first.
    owed: VecDeque<u32>,
    /// Groups owing on-demand parity whose packets the application is fetching.
    waiting: BTreeSet<u32>,
    /// Pro-active parity to send: (group, parity number).
    proactive: VecDeque<(u32, u32)>,
    coded: BTreeMap<u32, Coded>,
    coded_order: VecDeque<u32>,
    /// The session's last sequence number once the source is closing and sent it: its group may be short.
    last_sqn: Option<u32>,
    /// The group of the transmit window's trail when groups were last forgotten.
    trail_group: u32,
}

impl ParitySource {
    /// Parity as `config` says (checked by the caller).
    pub fn new(config: ParityConfig) -> Self {
        ParitySource {
            config,
            groups: BTreeMap::new(),
            owed: VecDeque::new(),
            waiting: BTreeSet::new(),
            proactive: VecDeque::new(),
            coded: BTreeMap::new(),
            coded_order: VecDeque::new(),
            last_sqn: None,
            trail_group: 0,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &ParityConfig {
        &self.config
    }

    /// TG_SQN of the group `sqn` belongs to.
    pub fn group_of(&self, sqn: u32) -> u32 {
        sqn & !(self.config.group_size - 1)
    }

    /// The size of the group from `tg`, once all its data was sent up to `lead`: k, or less for the session's
    /// last group; `None` while it is incomplete.
    fn size_of(&self, tg: u32, lead: u32) -> Option<u32> {
        let k = self.config.group_size;
        let end = tg.wrapping_add(k - 1);
        if seq::le(end, lead) {
            return Some(k);
        }
        let last = self.last_sqn?;
        (self.group_of(last) == tg).then(|| last.wrapping_sub(tg) + 1)
    }

    /// OPT_CURR_TGSIZE for the group of `sqn` when it is the session's short last group (for SPMs and the
    /// last ODATA).
    pub fn curr_tg_size(&self, sqn: u32) -> Option<u32> {
        let last = self.last_sqn?;
        let tg = self.group_of(sqn);
        let n = last.wrapping_sub(tg).wrapping_add(1);
        (self.group_of(last) == tg && n < self.config.group_size).then_some(n)
    }

    /// ODATA `sqn` left, `last` when it is the session's last (the source is closing with nothing queued), the
    /// transmit window trailing at `trail`. A group complete with it gets its pro-active parity queued.
    pub fn data_sent(&mut self, sqn: u32, last: bool, trail: u32) {
        if self.group_of(trail) != self.trail_group {
            self.trail_group = self.group_of(trail);
            self.forget_before(trail);
        }
        if last {
            self.last_sqn = Some(sqn);
        }
        self.queue_proactive(sqn);
    }

    /// The source closed with `lead` its last sequence number sent: a short last group is complete now.
    pub fn closed_at(&mut self, lead: u32) {
        if self.last_sqn.is_none() {
            self.last_sqn = Some(lead);
            self.queue_proactive(lead);
        }
    }

    /// Pro-active parity for the group `sqn` completes, if it does.
    fn queue_proactive(&mut self, sqn: u32) {
        let tg = self.group_of(sqn);
        let Some(n) = self.size_of(tg, sqn) else {
            return;
        };
        if sqn != tg.wrapping_add(n - 1) {
            return;
        }
        let h = self.config.proactive.min(n);
        self.proactive.extend((0..h).map(|j| (tg, j)));
        if h > 0 {
            self.groups.entry(tg).or_default().next_index = h;
        }
    }

    /// A parity NAK with NAK_SQN `nak_sqn` (the group's TG_SQN plus NAK_PKT_CNT) at `now`, the transmit window
    /// leading at `lead` and the oldest repairable packet `trail` (the window's trail, or the application's
    /// repair floor when older); parity sent for the group `within` before counts as answering
    /// it (module docs).
    pub fn on_nak(
        &mut self,
        now: Instant,
        nak_sqn: u32,
        window: (u32, u32),
        within: Duration,
    ) -> ParityNak {
        let (trail, lead) = window;
        let k = self.config.group_size;
        let tg = self.group_of(nak_sqn);
        if !self.config.on_demand || seq::lt(tg, trail) {
            return ParityNak::Unavailable;
        }
        let Some(n) = self.size_of(tg, lead) else {
            return ParityNak::Unavailable;
        };
        // §11.4: a receiver asks as if the group were whole; a short group needs that many fewer.
        let asked = (nak_sqn & (k - 1)) + 1;
        let wanted = asked.saturating_sub(k - n).clamp(1, n);
        let g = self.groups.entry(tg).or_default();
        while g
            .sent
            .front()
            .is_some_and(|&t| now.saturating_duration_since(t) >= within)
        {
            g.sent.pop_front();
        }
        let covered = g.pending + g.sent.len() as u32;
        if wanted <= covered {
            return ParityNak::Covered;
        }
        let extra = wanted - covered;
        if g.pending == 0 && !self.waiting.contains(&tg) {
            self.owed.push_back(tg);
        }
        g.pending += extra;
        ParityNak::Queued(extra)
    }

    /// Whether a parity packet waits: pro-active ones first (§11.4: before any on-demand parity).
    pub fn has_proactive(&self) -> bool {
        !self.proactive.is_empty()
    }

    /// Whether on-demand parity is owed.
    pub fn has_owed(&self) -> bool {
        !self.owed.is_empty()
    }

    /// Whether waiting groups ([`NextParity::Fetch`]) are owed parity.
    pub fn has_waiting(&self) -> bool {
        !self.waiting.is_empty()
    }

    /// Packets arrived from the application: the groups waiting for them try again, before the others.
    pub fn resume_waiting(&mut self) {
        for tg in std::mem::take(&mut self.waiting).into_iter().rev() {
            self.owed.push_front(tg);
        }
    }

    /// What the next parity packet of the kind asked (`proactive` or on demand) needs, coding its group if
    /// needed from the packets `packet` finds. A group with a packet [`Held::Gone`] is dropped; an on-demand
    /// group with one [`Held::Fetchable`] waits and is returned as [`NextParity::Fetch`] (pro-active parity
    /// for it is dropped: it follows its data, which left the window).
    pub fn next_len<'a>(
        &mut self,
        proactive: bool,
        packet: impl Fn(u32) -> Held<'a>,
        lead: u32,
    ) -> Option<NextParity> {
        loop {
            let tg = if proactive {
                self.proactive.front()?.0
            } else {
                *self.owed.front()?
            };
            match self.code(tg, &packet, lead) {
                Ok(c) => {
                    let prefix = if c.with_fragments { FRAGMENT_PREFIX } else { 0 };
                    let len = c.layout.shard_len - prefix;
                    return Some(NextParity::Ready { group: tg, len });
                }
                Err(Uncoded::Fetchable) if !proactive => {
                    self.owed.pop_front();
                    self.waiting.insert(tg);
                    return Some(NextParity::Fetch(tg));
                }
                Err(_) if proactive => {
                    self.proactive.pop_front();
                }
                Err(_) => {
                    self.owed.pop_front();
                    if let Some(g) = self.groups.get_mut(&tg) {
                        g.pending = 0;
                    }
                }
            }
        }
    }

    /// The group from `tg`'s sequence numbers up to `lead`: k of them, or fewer for the session's short last
    /// group; `None` while incomplete.
    pub fn members(&self, tg: u32, lead: u32) -> Option<impl Iterator<Item = u32>> {
        let n = self.size_of(tg, lead)?;
        Some((0..n).map(move |i| tg.wrapping_add(i)))
    }

    /// The next parity packet of the kind asked, after [`ParitySource::next_len`] returned its length.
    pub fn take(&mut self, now: Instant, proactive: bool) -> Option<ParityPacket> {
        let (tg, index) = if proactive {
            self.proactive.pop_front()?
        } else {
            let tg = *self.owed.front()?;
            let numbers = self.coded.get(&tg)?.shards.len() as u32;
            let g = self.groups.entry(tg).or_default();
            let index = g.next_index % numbers;
            g.next_index = (index + 1) % numbers;
            g.pending = g.pending.saturating_sub(1);
            if g.pending == 0 {
                self.owed.pop_front();
            }
            (tg, index)
        };
        self.groups.entry(tg).or_default().sent.push_back(now);
        let c = self.coded.get(&tg)?;
        let shard = c.shards.get(index as usize)?;
        let (n, k) = (c.size, self.config.group_size);
        let (fragment, payload) = if c.with_fragments {
            let (prefix, rest) = shard.split_at(FRAGMENT_PREFIX);
            // An encoded option of zeros is still the option: the receiver needs its bytes.
            let f = parity::fragment_of_prefix(prefix).unwrap_or(FragmentOption {
                first_sqn: 0,
                offset: 0,
                apdu_len: 0,
            });
            (Some(f), rest.to_vec())
        } else {
            (None, shard.clone())
        };
        Some(ParityPacket {
            sqn: tg.wrapping_add(index % k),
            group_number: Some(index / k).filter(|&m| m > 0),
            curr_tg_size: (n < self.config.group_size).then_some(n),
            var_len: c.layout.var_len,
            fragment,
            payload,
            proactive,
        })
    }

    /// The group from `tg` coded, from the cache or the packets `packet` finds.
    fn code<'a>(
        &mut self,
        tg: u32,
        packet: &impl Fn(u32) -> Held<'a>,
        lead: u32,
    ) -> Result<&Coded, Uncoded> {
        if !self.coded.contains_key(&tg) {
            let n = self.size_of(tg, lead).ok_or(Uncoded::Gone)?;
            let mut packets = Vec::with_capacity(n as usize);
            let mut fetchable = false;
            for i in 0..n {
                match packet(tg.wrapping_add(i)) {
                    Held::Here(p) => packets.push(p),
                    Held::Fetchable => fetchable = true,
                    Held::Gone => return Err(Uncoded::Gone),
                }
            }
            if fetchable {
                return Err(Uncoded::Fetchable);
            }
            let with_fragments = packets.iter().any(|p| p.fragment.is_some());
            let tsdus: Vec<Vec<u8>> = packets
                .iter()
                .map(|p| parity::coded_tsdu(&p.payload, p.fragment, with_fragments))
                .collect();
            let refs: Vec<&[u8]> = tsdus.iter().map(Vec::as_slice).collect();
            let (layout, shards) = parity::encode(&refs).map_err(|_| Uncoded::Gone)?;
            if self.coded_order.len() >= CODED_GROUPS {
                if let Some(old) = self.coded_order.pop_front() {
                    self.coded.remove(&old);
                }
            }
            self.coded_order.push_back(tg);
            self.coded.insert(
                tg,
                Coded {
                    size: n,
                    layout,
                    with_fragments,
                    shards,
                },
            );
        }
        self.coded.get(&tg).ok_or(Uncoded::Gone)
    }

    /// Forget groups that left the transmit window (trailing at `trail`).
    pub fn forget_before(&mut self, trail: u32) {
        let k = self.config.group_size;
        let gone = |tg: &u32| seq::lt(tg.wrapping_add(k - 1), trail);
        self.groups.retain(|tg, _| !gone(tg));
        self.owed.retain(|tg| !gone(tg));
        self.waiting.retain(|tg| !gone(tg));
        self.proactive.retain(|(tg, _)| !gone(tg));
        self.coded.retain(|tg, _| !gone(tg));
        self.coded_order.retain(|tg| !gone(tg));
    }

    /// Groups remembered (bounded by the transmit window's groups).
    pub fn remembered(&self) -> usize {
        self.groups.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(n: u32) -> Vec<TxPacket> {
        (0..n)
            .map(|i| TxPacket {
                payload: vec![i as u8; 100],
                fragment: None,
            })
            .collect()
    }

    fn source(h: u32) -> ParitySource {
        ParitySource::new(ParityConfig {
            group_size: 8,
            proactive: h,
            on_demand: true,
        })
    }

    fn held(w: &[TxPacket], q: u32) -> Held<'_> {
        w.get(q as usize).map_or(Held::Gone, Held::Here)
    }

    const NOW: Instant = Instant::ZERO;
    const RTT: Duration = Duration::from_millis(100);

    /// Sends every owed parity packet of `s` over `w` at `now`; returns their sequence numbers.
    fn send_owed(s: &mut ParitySource, w: &[TxPacket], now: Instant) -> Vec<u32> {
        let lead = w.len() as u32 - 1;
        let mut sent = Vec::new();
        while s.next_len(false, |q| held(w, q), lead).is_some() {
            sent.push(s.take(now, false).unwrap().sqn);
        }
        sent
    }

    #[test]
    fn rfc3208_11_4_a_nak_asking_no_more_than_is_pending_is_only_confirmed() {
        let mut s = source(0);
        let w = window(16);
        assert_eq!(
            s.on_nak(NOW, 8 + 2, (0, 15), Duration::ZERO),
            ParityNak::Queued(3)
        );
        assert_eq!(
            s.on_nak(NOW, 8 + 1, (0, 15), Duration::ZERO),
            ParityNak::Covered
        );
        assert_eq!(
            s.on_nak(NOW, 8 + 4, (0, 15), Duration::ZERO),
            ParityNak::Queued(2)
        );
        assert_eq!(send_owed(&mut s, &w, NOW), vec![8, 9, 10, 11, 12]);
    }

    #[test]
    fn parity_sent_within_the_round_trip_answers_a_nak_that_crossed_it() {
        let mut s = source(0);
        let w = window(8);
        s.on_nak(NOW, 1, (0, 7), RTT);
        assert_eq!(send_owed(&mut s, &w, NOW), vec![0, 1]);
        let soon = NOW + RTT / 2;
        assert_eq!(s.on_nak(soon, 1, (0, 7), RTT), ParityNak::Covered);
        assert_eq!(
            s.on_nak(soon, 2, (0, 7), RTT),
            ParityNak::Queued(1),
            "asks for one more"
        );
        assert_eq!(send_owed(&mut s, &w, soon), vec![2]);
        let later = NOW + RTT * 2;
        assert_eq!(
            s.on_nak(later, 0, (0, 7), RTT),
            ParityNak::Queued(1),
            "the round trip passed: lost"
        );
    }

    #[test]
    fn rfc3208_11_4_a_short_group_needs_what_it_lacks_of_k_fewer() {
        let mut s = source(0);
        let w = window(11); // groups 0–7 and 8–10 (3 of 8)
        assert_eq!(
            s.on_nak(NOW, 8 + 5, (0, 10), Duration::ZERO),
            ParityNak::Unavailable,
            "not closed yet"
        );
        s.closed_at(10);
        assert_eq!(s.curr_tg_size(10), Some(3));
        // The receiver lacks 1 of the 3 and asks as if the group were 8 long: 1 + (8 − 3) = 6.
        assert_eq!(
            s.on_nak(NOW, 8 + 5, (0, 10), Duration::ZERO),
            ParityNak::Queued(1)
        );
        let p = {
            s.next_len(false, |q| held(&w, q), 10).unwrap();
            s.take(NOW, false).unwrap()
        };
        assert_eq!((p.sqn, p.curr_tg_size), (8, Some(3)));
    }

    /// Sends every owed parity packet of `s` over `w` at `now`; returns their parity numbers (PKT_SQN within
    /// the group plus k times OPT_PARITY_GRP).
    fn numbers_owed(s: &mut ParitySource, w: &[TxPacket], now: Instant) -> Vec<u32> {
        let lead = w.len() as u32 - 1;
        let k = s.config.group_size;
        let mut sent = Vec::new();
        while s.next_len(false, |q| held(w, q), lead).is_some() {
            let p = s.take(now, false).unwrap();
            assert_ne!(p.group_number, Some(0), "OPT_PARITY_GRP only when not 0");
            sent.push((p.sqn & (k - 1)) + k * p.group_number.unwrap_or(0));
        }
        sent
    }

    #[test]
    fn rfc3208_11_4_on_demand_parity_numbers_follow_the_proactive_ones_then_start_again() {
        let mut s = source(2);
        let w = window(8);
        for q in 0..8 {
            s.data_sent(q, false, 0);
        }
        let lead = 7;
        let mut proactive = Vec::new();
        while s.next_len(true, |q| held(&w, q), lead).is_some() {
            proactive.push(s.take(NOW, true).unwrap().sqn);
        }
        assert_eq!(proactive, vec![0, 1]);
        s.on_nak(NOW, 5, (0, 7), Duration::ZERO);
        assert_eq!(numbers_owed(&mut s, &w, NOW), vec![2, 3, 4, 5, 6, 7]);
        // §11.2: past k − 1 the numbers go on with OPT_PARITY_GRP, to 2k − 1, and only then start again.
        s.on_nak(NOW, 7, (0, 7), Duration::ZERO);
        assert_eq!(numbers_owed(&mut s, &w, NOW), (8..16).collect::<Vec<_>>());
        s.on_nak(NOW, 1, (0, 7), Duration::ZERO);
        assert_eq!(
            numbers_owed(&mut s, &w, NOW),
            vec![0, 1],
            "after 2k, from 0 again"
        );
    }

    #[test]
    fn k_or_k_plus_h_parses_and_bad_values_say_why() {
        assert_eq!(ParityConfig::parse("16"), Ok(ParityConfig::on_demand(16)));
        let c = ParityConfig::parse(" 32 + 4 ").unwrap();
        assert_eq!((c.group_size, c.proactive, c.on_demand), (32, 4, true));
        assert!(ParityConfig::parse("12")
            .unwrap_err()
            .contains("a power of 2"));
        assert!(ParityConfig::parse("16+17")
            .unwrap_err()
            .contains("at most 16"));
        assert!(ParityConfig::parse("16+x")
            .unwrap_err()
            .contains("`x` is not a whole number"));
    }

    #[test]
    fn groups_that_left_the_window_are_forgotten_and_not_answered() {
        let mut s = source(0);
        s.on_nak(NOW, 3, (0, 15), Duration::ZERO);
        assert_eq!(s.remembered(), 1);
        s.forget_before(8);
        assert_eq!(s.remembered(), 0);
        assert_eq!(
            s.on_nak(NOW, 3, (8, 15), Duration::ZERO),
            ParityNak::Unavailable
        );
        let w = window(16);
        assert!(send_owed(&mut s, &w, NOW).is_empty());
    }

    #[test]
    fn a_group_out_of_the_window_waits_for_the_application_then_is_coded() {
        let mut s = source(0);
        let w = window(16);
        // The window trails at 8; the application's floor (0) still covers group 0.
        assert_eq!(
            s.on_nak(NOW, 1, (0, 15), Duration::ZERO),
            ParityNak::Queued(2)
        );
        s.on_nak(NOW, 8, (0, 15), Duration::ZERO);
        let fetchable = |q: u32| if q < 8 { Held::Fetchable } else { held(&w, q) };
        assert_eq!(s.next_len(false, fetchable, 15), Some(NextParity::Fetch(0)));
        assert!(s.has_waiting());
        assert_eq!(
            s.next_len(false, fetchable, 15),
            Some(NextParity::Ready { group: 8, len: 100 }),
            "the other group goes meanwhile"
        );
        assert_eq!(s.take(NOW, false).unwrap().sqn, 8);
        assert!(!s.has_owed(), "the waiting group is not owed until resumed");
        assert_eq!(
            s.on_nak(NOW, 1, (0, 15), Duration::ZERO),
            ParityNak::Covered,
            "a repeat NAK while fetching is covered"
        );
        s.resume_waiting();
        assert_eq!(send_owed(&mut s, &w, NOW), vec![0, 1]);
        let mut s = source(0);
        s.on_nak(NOW, 0, (0, 15), Duration::ZERO);
        let gone = |q: u32| if q < 8 { Held::Gone } else { held(&w, q) };
        assert_eq!(s.next_len(false, gone, 15), None, "dropped");
        assert!(!s.has_owed() && !s.has_waiting());
    }
}
