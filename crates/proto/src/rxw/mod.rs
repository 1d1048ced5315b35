//! The PGM receive window of one transport session: loss detection, the per-sequence-number NAK state machine,
//! NAK pacing, APDU reassembly and in-order delivery. No congestion control lives here.
//!
//! Sources, by section:
//! - RFC 3208 §3.4 (receive window, RXW_TRAIL / RXW_LEAD), §6.1 (data reception: accept data in the window,
//!   discard duplicates, deliver only contiguous data in sequence order), §6.2 (SPM lead and trail), §6.3 (data
//!   recovery by NAK: detection, NAK_RB_IVL back-off over NAK_BO_IVL, WAIT_NCF with NAK_RPT_IVL and
//!   NAK_NCF_RETRIES, WAIT_DATA with NAK_RDATA_IVL and NAK_DATA_RETRIES, suppression by NCFs, cancellation when
//!   the trailing edge passes a sequence number = unrecoverable data loss);
//! - RFC 3208 §9.2 (OPT_FRAGMENT: APDU reassembly) and §9.3 (OPT_NAK_LIST: up to 62 more sequence numbers in one
//!   NAK, so a NAK names at most [`MAX_NAK_SQNS`]);
//! - pgmcc paper (Rizzo 2000, docs/papers.md) §3.8: receivers needing many repairs (late join, burst loss) pace
//!   their NAKs.
//!
//! # Driving it
//!
//! The window is sans-IO and deterministic: every input takes `now`, randomness comes from the caller's
//! generator, and no hash map is iterated. After any input (`on_data`, `on_spm`, `on_ncf`, `handle_timeout`)
//! the caller should drain, in this order, [`ReceiveWindow::poll_nak`] (until `None`),
//! [`ReceiveWindow::poll_delivery`] (until `None`), then ask [`ReceiveWindow::poll_timeout`] when to call
//! [`ReceiveWindow::handle_timeout`] next.
//!
//! # Sequence numbers
//!
//! Sequence numbers wrap (RFC 3208 §4); every comparison goes through [`crate::seq`]. Internally each sequence
//! number in the window is also given a 64-bit *extended* index that never wraps, which orders timers and the
//! set of NAKs due.

mod budget;
mod deliver;
mod fragment;
mod groups;
mod in_order;
mod timer;
mod types;

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;

use std::collections::{BTreeSet, VecDeque};
use std::time::Duration;

use rand_core::RngCore;

use crate::payload::Payload;
use crate::seq;
use crate::time::Instant;
use budget::HeldBytes;
pub use budget::Room;
use deliver::Ready;
use fragment::Piece;
use timer::{Pacer, Timer, TimerQueue};

pub use fragment::{Fragment, FragmentField, RxwError, RxwErrorKind};
pub use types::{Arrival, Delivery, RxwConfig, RxwStats, MAX_NAK_SQNS};

#[cfg(test)]
thread_local! {
    /// Set by tests to turn the in-order fast path off ([`with_general_steps_only`]).
    static GENERAL_STEPS_ONLY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` with the in-order fast path of `accept` turned off on this thread, so that a test can hold the
/// fast path to the general steps' results.
#[cfg(test)]
fn with_general_steps_only<T>(f: impl FnOnce() -> T) -> T {
    GENERAL_STEPS_ONLY.set(true);
    let out = f();
    GENERAL_STEPS_ONLY.set(false);
    out
}

/// Where a missing sequence number is in the NAK state machine of RFC 3208 §6.3.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NakState {
    /// Waiting NAK_RB_IVL (timer in `backoff`).
    BackOff,
    /// NAK_RB_IVL passed; waiting for [`ReceiveWindow::poll_nak`] (in `due`, no timer).
    Due,
    /// NAK sent, waiting NAK_RPT_IVL for an NCF (timer in `waits`).
    WaitNcf,
    /// NCF heard, waiting NAK_RDATA_IVL for the data (timer in `waits`).
    WaitData,
}

impl NakState {
    /// WAIT_NCF or WAIT_DATA: a repair is awaited.
    fn is_awaiting(self) -> bool {
        matches!(self, NakState::WaitNcf | NakState::WaitData)
    }
}

#[derive(Clone, Debug)]
struct Missing {
    state: NakState,
    /// Id of the live timer (0: none).
    timer_id: u64,
    ncf_retries: u32,
    data_retries: u32,
}

/// A data packet's header fields, as [`ReceiveWindow::on_data`] takes them, and its payload's length.
struct DataPacket {
    sqn: u32,
    trail: u32,
    fragment: Option<Fragment>,
    len: usize,
}

#[derive(Clone, Debug)]
enum Slot {
    Missing(Missing),
    Received { piece: Piece, data: Payload },
    Lost,
}

/// The receive side of one PGM transport session (RFC 3208 §3.4, §6).
///
/// The window runs from the delivery point ([`ReceiveWindow::commit`]) to the lead ([`ReceiveWindow::lead`]);
/// every sequence number in it is received, missing (with its NAK state) or lost (waiting to be reported in
/// order). See the [module documentation](self) for the polling order.
// The fields every packet reads come first, in declaration order (`repr(C)`), the counters of losses after the
// counters every packet updates, so that an in-order packet touches five cache lines of the window rather than
// all ten: with 10,000 receivers in one process the windows do not fit in a core's cache, and each line
// touched is a miss.
#[derive(Clone, Debug)]
#[repr(C)]
pub struct ReceiveWindow {
    /// Extended index of `slots[0]`, the delivery point.
    commit_ext: u64,
    /// `max_packets` clamped to `[1, 2³¹ − 1]`.
    span: u64,
    /// RXW_TRAIL: the latest TXW_TRAIL heard, never before the start (RFC 3208 §3.4, §6.1).
    trail_ext: u64,
    /// No missing slot lies before this index (every earlier one was declared lost).
    swept_ext: u64,
    latest: Instant,
    /// `config.max_apdu_len`, kept with the fields every packet reads.
    max_apdu_len: u32,
    /// Progress of the walk over the front APDU's fragments: slots verified, bytes covered.
    scan: (usize, u32),
    slots: VecDeque<Slot>,
    ready: VecDeque<Ready>,
    backoff: TimerQueue,
    waits: TimerQueue,
    /// First index of the APDU whose remaining fragments are being skipped or dropped.
    discarding: Option<u64>,
    /// The packet just before the delivery point, when it was delivered or skipped (for consistency checks).
    prev_piece: Option<Piece>,
    due: BTreeSet<u64>,
    /// Payload bytes held, against [`RxwConfig::max_buffered_bytes`].
    held: HeldBytes,
    stats: RxwStats,
    missing: usize,
    /// Missing sequence numbers in WAIT_NCF or WAIT_DATA (see [`RxwConfig::max_awaited`]).
    awaited: usize,
    /// Repairs received that have not filled a sequence number yet (parity packets of groups not yet decoded,
    /// module `groups`): they count against `awaited` as repairs arrived.
    repairs_held: usize,
    config: RxwConfig,
    start_ext: u64,
    next_timer_id: u64,
    pacer: Pacer,
}

impl ReceiveWindow {
    /// A window whose first delivery will be `start_sqn` (RXW_TRAIL_INIT, RFC 3208 §6.1; the late-join policy
    /// is the caller's). Nothing before `start_sqn` is ever requested or delivered.
    pub fn new(config: RxwConfig, start_sqn: u32) -> Self {
        let start_ext = (1u64 << 32) + u64::from(start_sqn);
        let config_max_bytes = config.max_buffered_bytes;
        ReceiveWindow {
            span: u64::from(config.max_packets.clamp(1, i32::MAX as u32)),
            max_apdu_len: config.max_apdu_len,
            pacer: Pacer::new(config.nak_packets_per_s, config.nak_burst),
            config,
            start_ext,
            commit_ext: start_ext,
            slots: VecDeque::new(),
            trail_ext: start_ext,
            swept_ext: start_ext,
            missing: 0,
            awaited: 0,
            repairs_held: 0,
            backoff: TimerQueue::default(),
            waits: TimerQueue::default(),
            due: BTreeSet::new(),
            next_timer_id: 1,
            latest: Instant::ZERO,
            prev_piece: None,
            scan: (0, 0),
            discarding: None,
            ready: VecDeque::new(),
            held: HeldBytes::new(config_max_bytes),
            stats: RxwStats::default(),
        }
    }

    /// An ODATA or RDATA packet `sqn` with the sender's TXW_TRAIL `trail`, its OPT_FRAGMENT if any, and its
    /// payload.
    ///
    /// A packet beyond the lead makes every sequence number in between missing, each with a random back-off
    /// (RFC 3208 §6.3, "Detecting missing data packets"); one that fills a hole ends that hole's NAK state
    /// ("Completion of NAK generation"). More than `max_packets` ahead of the delivery point, the window slides
    /// and missing sequence numbers left behind are lost. Missing sequence numbers before `trail` can no
    /// longer be repaired and are lost at once (§6.3, "Cancellation").
    ///
    /// Duplicates and packets before the delivery point change nothing (their `trail` is ignored too). A
    /// packet whose fragment information is invalid or contradicts received packets is refused with an
    /// [`RxwError`] and changes nothing either.
    pub fn on_data(
        &mut self,
        now: Instant,
        rng: &mut impl RngCore,
        sqn: u32,
        trail: u32,
        fragment: Option<Fragment>,
        payload: &[u8],
    ) -> Result<Arrival, RxwError> {
        let packet = DataPacket {
            sqn,
            trail,
            fragment,
            len: payload.len(),
        };
        self.accept(now, rng, packet, || Payload::from(payload))
    }

    /// [`ReceiveWindow::on_data`] with the payload in a shared datagram ([`Payload::shared`]): stored by
    /// reference, without a copy.
    pub fn on_shared_data(
        &mut self,
        now: Instant,
        rng: &mut impl RngCore,
        sqn: u32,
        trail: u32,
        fragment: Option<Fragment>,
        payload: Payload,
    ) -> Result<Arrival, RxwError> {
        let packet = DataPacket {
            sqn,
            trail,
            fragment,
            len: payload.len(),
        };
        self.accept(now, rng, packet, || payload)
    }

    /// A data packet; its payload is made only if it is stored.
    fn accept(
        &mut self,
        now: Instant,
        rng: &mut impl RngCore,
        packet: DataPacket,
        payload: impl FnOnce() -> Payload,
    ) -> Result<Arrival, RxwError> {
        let DataPacket {
            sqn,
            trail,
            fragment,
            len,
        } = packet;
        self.touch(now);
        let max_packets = self.span as u32;
        let checked = fragment::validate(sqn, fragment, len, self.max_apdu_len, max_packets);
        let piece = match checked {
            Ok(piece) => piece,
            Err(e) => {
                self.stats.errors += 1;
                return Err(e);
            }
        };
        let ext = self.ext(sqn);
        if ext < self.commit_ext {
            self.stats.before_window += 1;
            return Ok(Arrival::BeforeWindow);
        }
        let arrival = match self.index(ext).map(|i| &self.slots[i]) {
            Some(Slot::Received { .. }) => {
                self.stats.duplicates += 1;
                return Ok(Arrival::Duplicate);
            }
            Some(_) => Arrival::Repaired,
            None => Arrival::New,
        };
        if !self.admits(ext, &piece) {
            self.stats.overflow_refused += 1;
            return Ok(Arrival::Overflow);
        }
        if let Err(e) = self.check_consistency(ext, &piece) {
            self.stats.errors += 1;
            return Err(e);
        }
        self.stats.packets_received += 1;
        self.note_trail(trail);
        self.held.stored(len);
        self.stats.peak_held_bytes = self.stats.peak_held_bytes.max(self.held.total());
        if self.waited_for_alone(ext, &piece) {
            self.deliver_waited_for(piece, payload());
            return Ok(Arrival::New);
        }
        let slot = Slot::Received {
            piece,
            data: payload(),
        };
        if arrival == Arrival::New {
            self.make_room(ext);
            self.grow(now, rng, ext - 1);
            self.slots.push_back(slot);
        } else {
            self.stats.repaired += 1;
            let idx = (ext - self.commit_ext) as usize;
            if let Slot::Missing(m) = std::mem::replace(&mut self.slots[idx], slot) {
                self.missing -= 1;
                self.awaited -= usize::from(m.state.is_awaiting());
                if m.state == NakState::Due {
                    self.due.remove(&ext);
                }
            }
        }
        self.enforce_trail(now, rng);
        self.deliver(self.commit_ext);
        self.tidy();
        Ok(arrival)
    }

    /// An SPM advertising the sender's TXW_TRAIL `trail` and TXW_LEAD `lead` (RFC 3208 §6.2). Values behind
    /// what the window already knows are ignored. A lead beyond ours makes the sequence numbers up to it missing
    /// (§6.3, "Detecting missing data packets"); a trail beyond missing ones makes them lost. The caller
    /// sequences SPMs (SPM_SQN) and discards out-of-order ones.
    pub fn on_spm(&mut self, now: Instant, rng: &mut impl RngCore, trail: u32, lead: u32) {
        self.touch(now);
        self.note_trail(trail);
        // Only as far as the memory bound lets this window reach (module `budget`).
        let lead_ext = self
            .ext(lead)
            .min(self.commit_ext + self.reach_packets() - 1);
        if lead_ext > self.lead_ext() {
            self.grow(now, rng, lead_ext);
        }
        self.enforce_trail(now, rng);
        self.deliver(self.commit_ext);
        self.tidy();
    }

    /// An NCF heard for `sqns` (its NCF_SQN and any OPT_NAK_LIST entries). Missing sequence numbers in
    /// BACK_OFF (NAK suppression) or WAIT_NCF move to WAIT_DATA for NAK_RDATA_IVL; in WAIT_DATA the timer
    /// restarts (RFC 3208 §6.3). NCFs for anything else are ignored ("Receiving NCFs and multicast NAKs").
    pub fn on_ncf(&mut self, now: Instant, sqns: &[u32]) {
        self.touch(now);
        self.stats.ncfs_heard += 1;
        let at = now + self.config.nak_rdata_ivl;
        for &sqn in sqns {
            let ext = self.ext(sqn);
            let Some(idx) = self.index(ext) else { continue };
            let id = self.next_timer_id;
            let Slot::Missing(m) = &mut self.slots[idx] else {
                continue;
            };
            if m.state == NakState::Due {
                self.due.remove(&ext);
            }
            self.awaited += usize::from(!m.state.is_awaiting());
            m.state = NakState::WaitData;
            m.timer_id = id;
            self.next_timer_id += 1;
            self.waits.push(Timer { at, id, ext });
        }
        self.tidy();
    }

    /// Runs the timers due at `now`: expired back-offs become due for [`ReceiveWindow::poll_nak`]; an expired
    /// WAIT_NCF or WAIT_DATA counts a retry and goes back to BACK_OFF with a fresh random back-off, or, beyond
    /// NAK_NCF_RETRIES / NAK_DATA_RETRIES, declares the data lost (RFC 3208 §6.3).
    pub fn handle_timeout(&mut self, now: Instant, rng: &mut impl RngCore) {
        self.touch(now);
        self.expire_backoffs(now);
        while let Some(t) = self.waits.pop_due(now) {
            let Some(idx) = self.index(t.ext) else {
                continue;
            };
            let Slot::Missing(m) = &mut self.slots[idx] else {
                continue;
            };
            if m.timer_id != t.id {
                continue;
            }
            let exhausted = match m.state {
                NakState::WaitNcf => {
                    self.stats.ncf_timeouts += 1;
                    m.ncf_retries += 1;
                    m.ncf_retries > self.config.nak_ncf_retries
                }
                NakState::WaitData => {
                    self.stats.data_timeouts += 1;
                    m.data_retries += 1;
                    m.data_retries > self.config.nak_data_retries
                }
                NakState::BackOff | NakState::Due => continue,
            };
            self.awaited -= 1;
            if exhausted {
                self.slots[idx] = Slot::Lost;
                self.missing -= 1;
            } else {
                self.arm_backoff(now, rng, t.ext);
            }
        }
        self.deliver(self.commit_ext);
        self.tidy();
    }

    /// The next NAK to send, if any sequence number's back-off has expired and pacing allows a NAK packet now:
    /// up to [`MAX_NAK_SQNS`] sequence numbers, oldest first (RFC 3208 §6.3 asks for oldest to most recent; the
    /// first is the NAK's NAK_SQN, the rest go in OPT_NAK_LIST, §9.3). They move to WAIT_NCF for NAK_RPT_IVL.
    /// Due sequence numbers that do not fit stay due; call again until `None`.
    pub fn poll_nak(&mut self, now: Instant) -> Option<Vec<u32>> {
        self.touch(now);
        // Nearly always, when nothing is missing, there is no back-off to expire.
        if !self.backoff.is_empty() {
            self.expire_backoffs(now);
        }
        if self.due.is_empty() {
            return None;
        }
        let room = self.nak_room();
        if room == 0 || !self.pacer.try_take(now) {
            return None;
        }
        let at = now + self.config.nak_rpt_ivl;
        let most = MAX_NAK_SQNS.min(room);
        let mut sqns = Vec::with_capacity(self.due.len().min(most));
        let reach = self.commit_ext.saturating_add(self.reach_packets());
        while sqns.len() < most {
            let Some(ext) = self.due.first().copied().filter(|&e| e < reach) else {
                break;
            };
            self.due.remove(&ext);
            let id = self.next_timer_id;
            self.next_timer_id += 1;
            if let Some(Slot::Missing(m)) = self.index(ext).map(|i| &mut self.slots[i]) {
                m.state = NakState::WaitNcf;
                m.timer_id = id;
                self.awaited += 1;
            }
            self.waits.push(Timer { at, id, ext });
            sqns.push(ext as u32);
        }
        self.stats.naks_sent += 1;
        self.stats.nak_sqns_sent += sqns.len() as u64;
        self.tidy();
        Some(sqns)
    }

    /// When [`ReceiveWindow::handle_timeout`] or [`ReceiveWindow::poll_nak`] next has work: the earliest
    /// back-off or wait deadline, or, while NAKs are due, when pacing next lets one go (possibly already past).
    pub fn poll_timeout(&self) -> Option<Instant> {
        // With no room for more awaited repairs, the next NAK waits for a repair (an input) or a wait's expiry.
        let timers = Instant::earliest(
            self.backoff.peek().map(|t| t.at),
            self.waits.peek().map(|t| t.at),
        );
        if self.due.is_empty() || self.nak_room() == 0 {
            return timers;
        }
        Instant::earliest(
            timers,
            Some(self.pacer.next_token_at().unwrap_or(self.latest)),
        )
    }

    /// The next delivery, strictly in sequence order.
    pub fn poll_delivery(&mut self) -> Option<Delivery> {
        Some(match self.ready.pop_front()? {
            Ready::Apdu {
                first_sqn,
                last_sqn,
                data,
            } => {
                self.stats.apdus_delivered += 1;
                self.stats.bytes_delivered += data.len() as u64;
                self.held.taken(data.len());
                Delivery::Apdu {
                    first_sqn,
                    last_sqn,
                    data,
                }
            }
            Ready::Lost { first, last } => {
                self.stats.sqns_lost += last - first + 1;
                Delivery::Lost {
                    first_sqn: first as u32,
                    last_sqn: last as u32,
                }
            }
        })
    }

    /// RXW_LEAD: the latest sequence number known to exist (from data or SPMs); `start_sqn − 1` before any.
    pub fn lead(&self) -> u32 {
        self.lead_ext() as u32
    }

    /// RXW_TRAIL: the latest TXW_TRAIL heard, or the start sequence number if that is later.
    pub fn trail(&self) -> u32 {
        self.trail_ext as u32
    }

    /// The delivery point: the first sequence number not yet decided. Everything before it has been queued for
    /// [`ReceiveWindow::poll_delivery`].
    pub fn commit(&self) -> u32 {
        self.commit_ext as u32
    }

    /// The sequence number this window started at.
    pub fn start_sqn(&self) -> u32 {
        self.start_ext as u32
    }

    /// How many due sequence numbers may be NAKed now: [`ReceiveWindow::awaiting_room`], and none while the
    /// oldest due one lies beyond the memory bound's reach (module `budget`: its repair would be refused).
    fn nak_room(&self) -> usize {
        let reach = self.commit_ext.saturating_add(self.reach_packets());
        if self.due.first().is_some_and(|&e| e >= reach) {
            0
        } else {
            self.awaiting_room()
        }
    }

    /// How many more sequence numbers may be NAKed now under [`RxwConfig::max_awaited`].
    fn awaiting_room(&self) -> usize {
        match self.config.max_awaited {
            0 => usize::MAX,
            max => (max as usize + self.repairs_held).saturating_sub(self.awaited),
        }
    }

    /// Sequence numbers awaiting a repair (NAKed, or confirmed by an NCF), as [`RxwConfig::max_awaited`]
    /// counts them.
    pub fn awaited_count(&self) -> usize {
        self.awaited
    }

    /// Sequence numbers currently missing (in some NAK state).
    pub fn missing_count(&self) -> usize {
        self.missing
    }

    /// The counters.
    pub fn stats(&self) -> &RxwStats {
        &self.stats
    }

    /// The configuration.
    pub fn config(&self) -> &RxwConfig {
        &self.config
    }

    fn touch(&mut self, now: Instant) {
        self.latest = self.latest.max(now);
    }

    /// Extended index of `sqn`, read relative to the delivery point (within ±2³¹).
    fn ext(&self, sqn: u32) -> u64 {
        self.commit_ext
            .wrapping_add_signed(seq::diff(sqn, self.commit_ext as u32))
    }

    /// Extended index of the lead (`commit_ext − 1` when the window is empty).
    fn lead_ext(&self) -> u64 {
        self.commit_ext + self.slots.len() as u64 - 1
    }

    fn index(&self, ext: u64) -> Option<usize> {
        let idx = ext.checked_sub(self.commit_ext)?;
        (idx < self.slots.len() as u64).then_some(idx as usize)
    }

    /// The received packet at `ext`, or the packet just delivered when `ext` is just before the delivery point.
    fn received_piece(&self, ext: u64) -> Option<Piece> {
        if ext + 1 == self.commit_ext {
            return self.prev_piece;
        }
        match self.slots.get(self.index(ext)?) {
            Some(Slot::Received { piece, .. }) => Some(*piece),
            _ => None,
        }
    }

    /// RFC 3208 §9.2: the new packet must fit with its received neighbours and its APDU's first fragment.
    fn check_consistency(&self, ext: u64, piece: &Piece) -> Result<(), RxwError> {
        if let Some(prev) = self.received_piece(ext - 1) {
            fragment::check_neighbour(piece, &prev)?;
        }
        if let Some(next) = self.received_piece(ext + 1) {
            fragment::check_neighbour(piece, &next)?;
        }
        if piece.is_continuation() {
            let first_ext = self.ext(piece.first_sqn);
            if let Some(first) = self
                .index(first_ext)
                .and_then(|_| self.received_piece(first_ext))
            {
                fragment::check_first(piece, &first)?;
            }
        }
        Ok(())
    }

    fn note_trail(&mut self, trail: u32) {
        self.trail_ext = self.trail_ext.max(self.ext(trail));
    }

    /// Everything before RXW_TRAIL that is missing is lost (RFC 3208 §6.3, "Cancellation of NAK generation"),
    /// including sequence numbers never seen between our lead and the trail.
    fn enforce_trail(&mut self, now: Instant, rng: &mut impl RngCore) {
        if self.trail_ext > self.lead_ext() + 1 {
            self.grow(now, rng, self.trail_ext - 1);
        }
        self.mark_lost_before(self.trail_ext);
    }

    /// Slides the window so that `upto` is at most `span − 1` past the delivery point: missing sequence numbers
    /// left behind are lost, and the APDU at the front is dropped if it still cannot complete.
    fn make_room(&mut self, upto: u64) {
        if upto < self.commit_ext + self.span {
            return;
        }
        let new_low = upto + 1 - self.span;
        self.mark_lost_before(new_low);
        self.deliver(new_low);
        if self.slots.is_empty() && self.commit_ext < new_low {
            self.push_lost(self.commit_ext, new_low - 1);
            self.commit_ext = new_low;
            self.prev_piece = None;
            self.scan = (0, 0);
        }
    }

    /// Extends the lead to `upto`: new sequence numbers before RXW_TRAIL are lost, the others missing with a
    /// random back-off (or lost too when the window does not ask for repairs, [`RxwConfig::request_repairs`]).
    fn grow(&mut self, now: Instant, rng: &mut impl RngCore, upto: u64) {
        if upto <= self.lead_ext() {
            return;
        }
        self.make_room(upto);
        if self.slots.is_empty() && upto < self.trail_ext {
            self.push_lost(self.commit_ext, upto);
            self.commit_ext = upto + 1;
            self.prev_piece = None;
            self.scan = (0, 0);
            return;
        }
        for ext in self.lead_ext() + 1..=upto {
            if ext < self.trail_ext || !self.config.request_repairs {
                self.slots.push_back(Slot::Lost);
            } else {
                self.slots.push_back(Slot::Missing(Missing {
                    state: NakState::BackOff,
                    timer_id: 0,
                    ncf_retries: 0,
                    data_retries: 0,
                }));
                self.missing += 1;
                self.arm_backoff(now, rng, ext);
            }
        }
    }

    /// Puts the missing sequence number `ext` into BACK_OFF with NAK_RB_IVL uniform in `[0, NAK_BO_IVL]`.
    fn arm_backoff(&mut self, now: Instant, rng: &mut impl RngCore, ext: u64) {
        let max = u64::try_from(self.config.nak_bo_ivl.as_nanos()).unwrap_or(u64::MAX);
        let delay = if max == 0 {
            0
        } else {
            ((u128::from(rng.next_u64()) * (u128::from(max) + 1)) >> 64) as u64
        };
        let id = self.next_timer_id;
        self.next_timer_id += 1;
        if let Some(Slot::Missing(m)) = self.index(ext).map(|i| &mut self.slots[i]) {
            m.state = NakState::BackOff;
            m.timer_id = id;
            self.backoff.push(Timer {
                at: now + Duration::from_nanos(delay),
                id,
                ext,
            });
        }
    }

    fn expire_backoffs(&mut self, now: Instant) {
        while let Some(t) = self.backoff.pop_due(now) {
            let Some(idx) = self.index(t.ext) else {
                continue;
            };
            if let Slot::Missing(m) = &mut self.slots[idx] {
                if m.timer_id == t.id && m.state == NakState::BackOff {
                    m.state = NakState::Due;
                    m.timer_id = 0;
                    self.due.insert(t.ext);
                }
            }
        }
    }

    /// Declares every missing sequence number before `bound` lost.
    fn mark_lost_before(&mut self, bound: u64) {
        let from = self.swept_ext.max(self.commit_ext);
        for ext in from..bound.min(self.lead_ext() + 1) {
            let idx = (ext - self.commit_ext) as usize;
            if let Slot::Missing(m) = &self.slots[idx] {
                if m.state == NakState::Due {
                    self.due.remove(&ext);
                }
                self.awaited -= usize::from(m.state.is_awaiting());
                self.slots[idx] = Slot::Lost;
                self.missing -= 1;
            }
        }
        self.swept_ext = self.swept_ext.max(bound);
    }

    /// Drops stale timers from the queue tops so that [`ReceiveWindow::poll_timeout`] is exact.
    fn tidy(&mut self) {
        let (slots, commit) = (&self.slots, self.commit_ext);
        let is_live = |t: &Timer| match t
            .ext
            .checked_sub(commit)
            .and_then(|i| slots.get(i as usize))
        {
            Some(Slot::Missing(m)) => m.timer_id == t.id,
            _ => false,
        };
        self.backoff.tidy(self.missing, is_live);
        self.waits.tidy(self.missing, is_live);
    }
}
