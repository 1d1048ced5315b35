//! The TFMCC receiver (RFC 4654 §4, §5; docs/tfmcc-rules.md §1, §3 "Receiver").

use crate::cc::wire_clock::{from_bps, since, stamp, to_bps};
use super::timer::timer_delay;
use super::TfmccConfig;
use crate::cc::{
    FeedbackPacket, OdataOutcome, ReceiverCcEvent, ReceiverCcSnapshot, ReceiverController,
    UpstreamPath,
};
use crate::seq;
use crate::tfrc_loss::{TfrcLossHistory, RFC4654_DISCOUNT_THRESHOLD};
use crate::throughput::{loss_rate_for_throughput, tcp_throughput};
use crate::time::Instant;
use convoy_wire::cc::tfmcc::{TfmccData, TfmccFeedback, WireRate};
use convoy_wire::{BodyRepr, OptionsRepr};
use rand_core::RngCore;
use std::collections::VecDeque;
use std::net::IpAddr;
use std::time::Duration;

/// Minimum RTT value (§4.3.2).
const MIN_RTT: Duration = Duration::from_millis(1);
/// A packet is lost once this many later ones have arrived (§5.1).
const LOSS_THRESHOLD: u32 = 3;
/// Fewest arrivals a receive-rate measurement spans (see [`TfmccReceiver::receive_rate`]).
pub const MIN_RATE_PACKETS: usize = 4;
/// Holes tracked at once; a larger jump is a resynchronisation.
const MAX_HOLES: usize = 1 << 12;
/// R_max periods without data after which have_loss is cleared (§4.3.1: "10 consecutive RTTs").
const IDLE_R_MAX: u32 = 10;
/// How long the calculated rate may stay below the reported floor while the sender is faster (§4.4).
const LEAVE_AFTER: Duration = Duration::from_secs(120);
/// The weight the smoothed one-way-delay estimate keeps per packet (the paper §2.4.3: adjustments are smoothed
/// "albeit with a smaller decay factor", since one comes with every packet; RFC 4654 §4.3.2's q for the CLR, whose
/// samples are also frequent).
const OWD_Q: f64 = 0.9;

/// What the receiver knows about its round-trip time (§4.3.2, §4.3.3).
#[derive(Clone, Copy, Debug)]
struct RttState {
    /// R, smoothed.
    r: Duration,
    /// Whether R comes from a real sample (have_RTT).
    measured: bool,
    /// The one-way-delay baseline of the last sample: its R_sample and tr_arr_i − ts_i (µs, wrapping).
    sample: Option<(Duration, i64)>,
    /// R', the one-way-delay adjusted RTT smoothed over the packets since the last sample (the paper §2.4.3), used
    /// instead of R until the next sample (§4.3.3).
    adjusted: Option<Duration>,
}

/// TFMCC receiver: loss history, RTT, receive rate, desired rate, feedback timer and reports.
#[derive(Debug)]
pub struct TfmccReceiver {
    config: TfmccConfig,
    local: IpAddr,
    history: TfrcLossHistory,
    rtt: RttState,
    /// Highest sequence number and the holes below it with their detection count and time (§5.1).
    rx_max: Option<u32>,
    holes: VecDeque<(u32, u32, Instant)>,
    /// Bitmap of the 32 packets up to rx_max (the ACK's, for observers).
    bitmap: u32,
    /// Arrivals (time, bytes) for the receive rate (§4.3.4).
    arrivals: VecDeque<(Instant, usize)>,
    /// Mean packet size s, bytes, of the data packets that arrived (0 before the first): the sender's s (§2.1).
    s: f64,
    /// The last data packet's fields and when it arrived (for ts_i' and R_max).
    last_data: Option<(TfmccData, Instant)>,
    /// The instant from which the sender counts as silent (the last arrival plus [`TfmccReceiver::quiet_after`]),
    /// kept with `last_data` so that `poll_timeout` does no arithmetic per call.
    quiet_from: Option<Instant>,
    /// The receive rate X_recv (bytes/s) the first loss interval was seeded from while R was still R_max: the
    /// interval is seeded again for the first RTT sample (§5.6).
    seeded_with_r_max: Option<f64>,
    is_clr: bool,
    /// The current round, X_fbr, and the pending feedback deadline (§4.5).
    fb_nr: Option<u16>,
    x_fbr: f64,
    deadline: Option<Instant>,
    /// When the round began here, and the R_max the deadline was drawn with (rescaled on a change, §4.5).
    round_start: Instant,
    timer_r_max: Duration,
    /// have_loss (§4.3.1): a loss event was seen since the last idle period.
    have_loss: bool,
    /// Since when the calculated rate has been below the floor while the sender was faster (§4.4).
    below_floor_since: Option<Instant>,
    /// The 120 s leave rule fired (§4.4).
    must_leave: bool,
    /// The CLR's next report (once per RTT).
    clr_due: Option<Instant>,
    /// Data arrived since this receiver's last report: the CLR reports only then (§3.3, last paragraph: a CLR
    /// whose data stopped falls silent, so that the sender slows; RFC 5348 §6.2).
    fresh_data: bool,
    /// A report is to be sent now.
    report_now: bool,
    leaving: bool,
    reports: u64,
    events: VecDeque<ReceiverCcEvent>,
}

impl TfmccReceiver {
    /// A receiver with identity `local`.
    pub fn new(config: TfmccConfig, local: IpAddr) -> Self {
        let mut history = TfrcLossHistory::new().with_discounting(config.discounting);
        if config.discounting {
            history = history.with_discount_threshold(RFC4654_DISCOUNT_THRESHOLD);
        }
        TfmccReceiver {
            rtt: RttState {
                r: config.initial_rtt,
                measured: false,
                sample: None,
                adjusted: None,
            },
            local,
            history,
            rx_max: None,
            holes: VecDeque::new(),
            bitmap: 0,
            arrivals: VecDeque::new(),
            s: 0.0,
            last_data: None,
            quiet_from: None,
            seeded_with_r_max: None,
            is_clr: false,
            fb_nr: None,
            x_fbr: 0.0,
            deadline: None,
            round_start: Instant::ZERO,
            timer_r_max: config.initial_rtt,
            have_loss: false,
            below_floor_since: None,
            must_leave: false,
            clr_due: None,
            fresh_data: false,
            report_now: false,
            leaving: false,
            reports: 0,
            events: VecDeque::new(),
            config,
        }
    }

    /// The RTT in use: R' between samples (§4.3.3), else R.
    pub fn rtt(&self) -> Duration {
        self.rtt.adjusted.unwrap_or(self.rtt.r)
    }

    /// have_loss (§4.3.1): a loss event was seen since the receiver started or was last idle.
    pub fn have_loss(&self) -> bool {
        self.have_loss
    }

    /// The pending feedback timer's deadline (§4.5), as drawn and rescaled.
    #[cfg(test)]
    pub(super) fn feedback_deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// The loss event rate p (§5.4).
    pub fn loss_event_rate(&self) -> f64 {
        self.history.loss_event_rate()
    }

    /// The receive rate over the last k RTTs, bytes/s (§4.3.4). When fewer than `MIN_RATE_PACKETS` (4) arrived in
    /// that window (an RTT far below the packet spacing: a LAN, or slowstart at one packet per R_max), the rate
    /// is taken over the span of the last `MIN_RATE_PACKETS` (4) arrivals instead, so that one packet more or less
    /// in a tiny window does not swing the estimate between zero and many times the real rate.
    ///
    /// Over the last arrivals, the span is the time between the oldest and the newest, and the time up to now
    /// only once the next packet is overdue: counting the time since the newest arrival read the rate of slowstart's
    /// one packet per R_max up to a quarter low between packets, and halved or doubled what slowstart reports.
    ///
    /// The RTT is taken as at least the timestamp granularity ts_gran (§3.7, 10 ms): on a LAN the RTT is a fraction
    /// of a millisecond, below the time one packet takes at tens of Mbit/s, and a driver that reads several
    /// datagrams per system call stamps them with one instant; over such a window the "rate" of a burst is many
    /// times the path's (a 20 Mbit/s tbf in the namespace lab read as hundreds of Mbit/s, and slowstart followed
    /// it until every packet needed a repair).
    pub fn receive_rate(&self, now: Instant) -> f64 {
        let window = self.rate_window();
        let recent = self
            .arrivals
            .iter()
            .filter(|(t, _)| now.saturating_duration_since(*t) <= window);
        let (count, bytes) = recent.fold((0, 0), |(n, b), (_, x)| (n + 1, b + x));
        if count >= MIN_RATE_PACKETS {
            return bytes as f64 / window.as_secs_f64().max(1e-6);
        }
        // The bytes after the oldest of the last arrivals, over the time they took to come; the time since the
        // newest counts only once the next packet is overdue (beyond the mean gap between them).
        let last = || self.arrivals.iter().rev().take(MIN_RATE_PACKETS);
        let (n, newest, oldest) = (last().count(), last().next(), last().next_back());
        match (newest, oldest) {
            (Some(newest), Some(oldest)) if n >= 2 => {
                let arrived = newest.0.saturating_duration_since(oldest.0);
                let gap = arrived / (n as u32 - 1);
                let waited = now.saturating_duration_since(oldest.0).saturating_sub(gap);
                let span = arrived.max(waited).max(self.config.ts_gran);
                let bytes: usize = last().take(n - 1).map(|(_, b)| b).sum();
                bytes as f64 / span.as_secs_f64().max(1e-6)
            }
            _ => 0.0,
        }
    }

    /// The receive rate's window: k RTTs, the RTT at least ts_gran (see [`TfmccReceiver::receive_rate`]).
    fn rate_window(&self) -> Duration {
        let k = f64::from(self.config.receive_rate_rtts.max(1));
        self.rtt().max(self.config.ts_gran).mul_f64(k)
    }

    /// X_calc, the rate to report, bytes/s (§4.4): the throughput equation once a loss was seen (have_loss),
    /// twice the receive rate before and after an idle period (slowstart, §3.6, §4.3.1); at least one packet per
    /// 8 s.
    pub fn desired_rate(&self, now: Instant) -> f64 {
        self.calculated_rate(now).max(self.floor())
    }

    /// X_calc before the floor of one packet per 8 s.
    fn calculated_rate(&self, now: Instant) -> f64 {
        let p = self.loss_event_rate();
        if self.have_loss && p > 0.0 {
            tcp_throughput(self.s, self.rtt().as_secs_f64(), p)
        } else {
            2.0 * self.receive_rate(now)
        }
    }

    /// The lowest rate a receiver reports: one packet per 8 s (§4.4).
    fn floor(&self) -> f64 {
        self.s / 8.0
    }

    /// Whether this receiver has a rate to report: a loss event was seen (the equation applies), or at least two
    /// packets arrived, so that a receive rate exists (§4.3.4). Before that its slowstart report would read as
    /// "twice nothing", the rate floor, and a receiver that reports it becomes the CLR at once (§3.3 case 2)
    /// and holds the session near one packet per 8 s, since its receive rate is then measured at that rate
    /// (traced with 1000 receivers: one of them always reports within a second of the start).
    fn has_rate(&self, now: Instant) -> bool {
        self.have_loss || self.receive_rate(now) > 0.0
    }

    /// R_max as the sender last announced it.
    fn r_max(&self) -> Duration {
        self.last_data
            .map_or(self.config.initial_rtt, |(d, _)| Duration::from_micros(u64::from(d.r_max_us)))
            .max(MIN_RTT)
    }

    /// A data packet of `bytes` arrived: the receive rate's sample (§4.3.4) and the mean packet size s, measured
    /// as the sender measures it (§2.1; [`crate::cc::packet_size`]).
    fn note_arrival(&mut self, now: Instant, bytes: usize) {
        self.note_size(bytes);
        self.arrivals.push_back((now, bytes));
        let keep = self.rate_window() + self.rtt().max(self.config.ts_gran);
        while self.arrivals.len() > MIN_RATE_PACKETS
            && self
                .arrivals
                .front()
                .is_some_and(|(t, _)| now.saturating_duration_since(*t) > keep)
        {
            self.arrivals.pop_front();
        }
    }

    /// s, the mean size of the packets that arrived: the first packet's size, then a moving average with the
    /// sender's weight ([`super::mean_packet_size`]). RFC 4654 §2.1: "the same value of s is used by the sender and receivers"; §4.3.4: the
    /// receive rate counts the bits received. A fixed s at the receiver scales every reported rate by its ratio to
    /// the real size (1400 against 1064-byte packets: 1.32×).
    fn note_size(&mut self, bytes: usize) {
        self.s = super::mean_packet_size(self.s, bytes);
    }

    /// The mean packet size s (§2.1), bytes: 0 before the first packet.
    pub fn packet_size(&self) -> f64 {
        self.s
    }

    /// Record ODATA `sqn` (received or not) in the holes, the history and the bitmap (§5.1–5.2).
    fn record(&mut self, now: Instant, sqn: u32, received: bool, bytes: usize) {
        if received {
            self.note_arrival(now, bytes);
        }
        let Some(max) = self.rx_max else {
            self.rx_max = Some(sqn);
            self.bitmap = u32::from(received);
            self.count(now, received);
            return;
        };
        if seq::le(sqn, max) {
            // A late packet fills its hole (§5.1).
            if let Some(i) = self.holes.iter().position(|h| h.0 == sqn) {
                self.holes.remove(i);
                if received {
                    self.history.record_received();
                }
            }
            return;
        }
        let gap = seq::diff(sqn, max);
        if gap as usize > MAX_HOLES {
            self.holes.clear();
        } else {
            for k in 1..gap as u32 {
                self.holes.push_back((max.wrapping_add(k), 0, now));
            }
        }
        self.bitmap = if gap >= 32 { 0 } else { self.bitmap << gap };
        self.bitmap |= u32::from(received);
        self.rx_max = Some(sqn);
        // Every hole below a new arrival is one arrival closer to being a loss.
        for h in &mut self.holes {
            h.1 += 1;
        }
        while self.holes.front().is_some_and(|h| h.1 >= LOSS_THRESHOLD) {
            if let Some((_, _, t)) = self.holes.pop_front() {
                self.on_loss(now, t);
            }
        }
        self.count(now, received);
    }

    /// Count the newest packet in the history: received, or lost at once (a congestion mark, §5.1).
    fn count(&mut self, now: Instant, received: bool) {
        if received {
            self.history.record_received();
        } else {
            self.on_loss(now, now);
        }
    }

    /// A packet is lost (nominal time `at`); on the first loss event, seed the history from the receive rate
    /// ([`TfmccReceiver::seed_first_interval`], §5.6).
    fn on_loss(&mut self, now: Instant, at: Instant) {
        let first = self.history.loss_events() == 0;
        let x_recv = self.receive_rate(now);
        let new_event = self.history.record_lost(at, self.rtt());
        // §4.3.1: have_loss is set on a loss event (again after an idle period cleared it).
        self.have_loss |= new_event;
        if new_event && first {
            let x_recv = x_recv.max(self.floor());
            self.seed_first_interval(x_recv);
            self.seeded_with_r_max = (!self.rtt.measured).then_some(x_recv);
        }
    }

    /// Seed the first loss interval l_0 with the interval that makes the calculated rate equal `x_recv` at the
    /// current R (§5.6: "the loss interval that would be required to produce the receive rate X_recv").
    ///
    /// §5.6 obtains l_0 by inverting the simplified equation, l_0 = (X_recv·R/(√1.5·8s))², and when the first RTT
    /// sample R replaces R_max it rescales l_0 by (R/R_max)², which re-inverts the simplified equation at the new
    /// R. The receiver evaluates the full equation (1), though, and the two part where the seed matters most:
    /// at a receive rate below about one packet per RTT (a first loss during slowstart's one packet per R_max) the
    /// simplified inverse is below one packet (p clamped to 1), and the rescale by (R/R_max)² shrinks it further.
    /// Traced in tfmcc-fig14-slowstart beside TCP: X_recv = 16 kbit/s seeded at R_max = 0.5 s, rescaled for
    /// R = 0.13 s to l_0 < 1, reported 3 kbit/s; the sender then crept back for 40 s. Here l_0 inverts equation (1)
    /// itself (as RFC 5348 §6.3.1 does for TFRC), at R_max and again at the first sample, so that the calculated
    /// rate right after the first loss is X_recv, the rate §5.6 says is correct, whatever the loss rate.
    fn seed_first_interval(&mut self, x_recv: f64) {
        let p = loss_rate_for_throughput(self.s, self.rtt().as_secs_f64(), x_recv);
        if p > 0.0 {
            self.history.set_first_interval(1.0 / p);
        }
    }

    /// The echo for this receiver (§4.3.2): a new sample, smoothed with q = 0.9 (CLR) or 0.5; the first seeds a
    /// first loss interval seeded with R_max again for R (§5.6, [`TfmccReceiver::seed_first_interval`]).
    fn on_echo(&mut self, now: Instant, data: &TfmccData, tr_echo: u32, is_clr: bool) {
        let Some(sample) = since(stamp(now), tr_echo) else {
            return;
        };
        let sample = sample.max(MIN_RTT);
        let first = !self.rtt.measured;
        self.rtt.r = if first {
            sample
        } else {
            let q = if is_clr { 0.9 } else { 0.5 };
            self.rtt.r.mul_f64(q) + sample.mul_f64(1.0 - q)
        };
        if first {
            self.events.push_back(ReceiverCcEvent::RttMeasured);
        }
        self.rtt.measured = true;
        // The one-way-delay baseline: tr_arr_i − ts_i (docs/tfmcc-rules.md §1: the RFC's printed sign corrected).
        let offset = i64::from(stamp(now).wrapping_sub(data.ts) as i32);
        self.rtt.sample = Some((self.rtt.r, offset));
        self.rtt.adjusted = None;
        if let Some(x_recv) = self.seeded_with_r_max.take() {
            if self.history.first_interval().is_some() {
                self.seed_first_interval(x_recv);
            }
        }
    }

    /// R' for a packet without this receiver's echo (§4.3.3, corrected sign): R' = R + (tr_now − ts_j) − offset,
    /// smoothed over the packets since the sample with [`OWD_Q`], starting from R. The paper (§2.4.3): "the
    /// modified RTT estimates are smoothed with an EWMA like normal RTT measurements, albeit with a smaller decay
    /// factor for the EWMA since one-way delay adjustments are possible with every new data packet". Unsmoothed,
    /// one packet's queueing delay moved a receiver's rate, and four equally lossy receivers behind one queue
    /// traded the CLR role 136 times in 200 s.
    fn adjust_rtt(&mut self, now: Instant, data: &TfmccData) {
        if let Some((r, offset)) = self.rtt.sample {
            let one_way = i64::from(stamp(now).wrapping_sub(data.ts) as i32);
            let us = r.as_micros() as i64 + one_way - offset;
            let instant = Duration::from_micros(us.max(0) as u64).max(MIN_RTT);
            let before = self.rtt.adjusted.unwrap_or(r);
            self.rtt.adjusted = Some((before.mul_f64(OWD_Q) + instant.mul_f64(1.0 - OWD_Q)).max(MIN_RTT));
        }
    }

    /// The round's start and the feedback timer (§4.5): t = max(T·(1 + ln x / ln N), 0), T = 6·R_max.
    fn new_round(&mut self, now: Instant, rng: &mut dyn RngCore, fb_nr: u16) {
        self.fb_nr = Some(fb_nr);
        self.x_fbr = self.desired_rate(now);
        self.deadline = None;
        self.round_start = now;
        self.timer_r_max = self.r_max();
        if self.is_clr {
            return;
        }
        let x = ((rng.next_u64() >> 11) + 1) as f64 / (1u64 << 53) as f64;
        let t = self.r_max().mul_f64(self.config.round_rtts);
        let sending = self.last_data.map_or(0.0, |(d, _)| from_bps(d.x.bps()));
        // §2.5 of the paper: X_calc / X; in slowstart the receive rate over X (twice it is the report).
        let mine = if self.have_loss {
            self.x_fbr
        } else {
            self.receive_rate(now)
        };
        let ratio = if sending > 0.0 { mine / sending } else { 1.0 };
        let delay = timer_delay(self.config.feedback_timer, t, self.config.receivers_max, x, ratio);
        self.deadline = Some(now + delay);
    }

    /// Cancellation (§4.5): X_supp below what this receiver would report (or its rate at round start) while its
    /// RTT is within R_max.
    fn maybe_cancel(&mut self, now: Instant, data: &TfmccData) {
        let x_supp = from_bps(data.x_supp.bps());
        let mine = self.desired_rate(now).max(self.x_fbr);
        if x_supp < mine && self.r_max() >= self.rtt() {
            self.deadline = None;
        }
    }

    fn after_odata(&mut self, now: Instant, rng: &mut dyn RngCore, options: &OptionsRepr) {
        let Some(data) = options.cc.tfmcc.data else {
            return;
        };
        let mine = data.echo.filter(|e| e.receiver == self.local);
        match mine {
            Some(e) => self.on_echo(now, &data, e.tr_echo, e.is_clr),
            None => self.adjust_rtt(now, &data),
        }
        if let Some(e) = data.echo.filter(|e| e.is_clr) {
            let me = e.receiver == self.local;
            if me != self.is_clr {
                self.is_clr = me;
                self.events.push_back(ReceiverCcEvent::AckerRole(me));
                self.clr_due = me.then_some(now);
                if me {
                    self.deadline = None;
                }
            }
        }
        if self.rtt.sample.is_none() && !self.rtt.measured {
            // §4.1: R = R_max until a sample.
            self.rtt.r = Duration::from_micros(u64::from(data.r_max_us)).max(MIN_RTT);
        }
        self.last_data = Some((data, now));
        self.fresh_data = true;
        self.quiet_from = Some(now + self.quiet_after());
        let newer = self
            .fb_nr
            .is_none_or(|f| data.fb_nr != f && (data.fb_nr.wrapping_sub(f) as i16) > 0);
        if newer {
            self.new_round(now, rng, data.fb_nr);
        } else {
            self.rescale_timer();
            self.maybe_cancel(now, &data);
        }
        self.leave_rule(now, &data);
    }

    /// Before data packet `sqn` is counted: what the time since the previous one means (§4.3.1, §4.5), when the
    /// sender was silent in it — the packet follows the previous one without a missing sequence number. A gap
    /// that lost packets is this receiver's loss, not the sender's silence, and changes nothing (a receiver behind
    /// a link losing 90% of the data would otherwise forget its losses and slowstart the session). R_max is at
    /// least the sender's packet interval plus ts_gran (§3.2), so a session that is sending never trips these.
    ///
    /// - After more than 10 R_max of silence the sender was idle: have_loss is cleared, and the receiver reports
    ///   twice its receive rate again until its next loss event, so that the sender can slowstart (§3.6, §4.3.1).
    ///   The RFC's "10 consecutive RTTs" is read as R_max: a receiver's own RTT can be far below the packet
    ///   interval at low rates, where every gap would look like an idle period.
    /// - A pending feedback timer is extended by the part of the gap beyond R_max:
    ///   t ← t + max(tr_now − tr_i − R_max, 0), "to prevent a feedback implosion (e.g., in case the sender
    ///   crashed)" (§4.5), R_max at least two packet intervals ([`TfmccReceiver::quiet_after`]).
    fn note_gap(&mut self, now: Instant, sqn: u32) {
        let Some((_, last)) = self.last_data else {
            return;
        };
        if self.rx_max.is_none_or(|m| sqn != m.wrapping_add(1)) {
            return;
        }
        let gap = now.saturating_duration_since(last);
        if gap > self.r_max() * IDLE_R_MAX {
            self.have_loss = false;
        }
        let quiet_after = self.quiet_after();
        if let Some(t) = self.deadline.as_mut() {
            *t += gap.saturating_sub(quiet_after);
        }
    }

    /// How long without data counts as the sender's silence for the feedback timer: R_max (§4.5), but at least
    /// two packet intervals at the sender's announced rate. The sender keeps R_max ≥ one packet interval plus
    /// ts_gran (§3.2), which leaves 10 ms for the network's jitter; a queue that varies by more (a 40-packet queue
    /// at 1 Mbit/s by up to 0.45 s) made every other packet late at slowstart's one packet per R_max, and held the
    /// feedback timers for up to a packet interval: traced on the dumbbell of tests/tfmcc_sessions.rs, whose
    /// session then overshot to 1.8 Mbit/s and filled the link at 0.70 instead of 0.90 Mbit/s.
    fn quiet_after(&self) -> Duration {
        let interval = self.last_data.map_or(Duration::ZERO, |(d, _)| {
            let x = from_bps(d.x.bps());
            if x > 0.0 {
                Duration::from_secs_f64((self.s / x).min(3600.0))
            } else {
                Duration::ZERO
            }
        });
        self.r_max().max(interval * 2)
    }

    /// §4.5: "When the maximum RTT changes significantly during one feedback round, it is necessary to reschedule
    /// the feedback timer in proportion to the change": t ← t·R_max/R_max', t counted from the round's start.
    fn rescale_timer(&mut self) {
        let r_max = self.r_max();
        if r_max == self.timer_r_max {
            return;
        }
        let ratio = r_max.as_secs_f64() / self.timer_r_max.as_secs_f64();
        if let Some(t) = self.deadline.as_mut() {
            let offset = t.saturating_duration_since(self.round_start);
            *t = self.round_start + offset.mul_f64(ratio);
        }
        self.timer_r_max = r_max;
    }

    /// §4.4: a receiver "must leave the multicast group if for more than 120 seconds, the calculated rate falls
    /// below the reported rate [the floor of one packet per 8 s] and the current sending rate is higher than the
    /// receiver's calculated rate". Raises [`ReceiverCcEvent::MustLeave`] once.
    fn leave_rule(&mut self, now: Instant, data: &TfmccData) {
        let calculated = self.calculated_rate(now);
        let starved = self.have_loss
            && calculated < self.floor()
            && from_bps(data.x.bps()) > calculated;
        if !starved {
            self.below_floor_since = None;
            return;
        }
        let since = *self.below_floor_since.get_or_insert(now);
        if !self.must_leave && now.saturating_duration_since(since) > LEAVE_AFTER {
            self.must_leave = true;
            self.events.push_back(ReceiverCcEvent::MustLeave);
        }
    }

    /// Whether, at `now`, the feedback timer has expired and whether the CLR's once-per-RTT report is due
    /// (both §4.5).
    fn due(&self, now: Instant) -> (bool, bool) {
        let timer = self.live(self.deadline).is_some_and(|t| now >= t);
        let clr = self.clr_deadline().is_some_and(|t| now >= t);
        (timer, clr)
    }

    /// When the CLR's next report goes: once per RTT (§4.5), and only once data arrived since its last report.
    /// RFC 4654 §3.3 (last paragraph) has the sender halve its rate after 4 RTTs without a CLR report, which
    /// relies on a CLR falling silent when the data stops reaching it (a broken forward path, an idle sender), as
    /// a TFRC receiver sends no feedback without new data (RFC 5348 §6.2).
    fn clr_deadline(&self) -> Option<Instant> {
        self.clr_due.filter(|_| self.is_clr && self.fresh_data)
    }

    /// The feedback timer may fire: not once data has been missing for more than R_max (§4.5: the next packet
    /// extends the timer by the gap beyond R_max if the sender was silent, [`TfmccReceiver::note_gap`], and lets it
    /// fire at once if packets were lost). The CLR's reports once per RTT are not held (§4.5: "never suppressed").
    fn live(&self, at: Option<Instant>) -> Option<Instant> {
        at.filter(|t| self.quiet_from.is_none_or(|q| *t <= q))
    }

    /// The report (§2.2.2), sent on an ACK.
    fn report(&mut self, now: Instant) -> Option<FeedbackPacket> {
        let (data, arrived) = self.last_data?;
        let hold = now.saturating_duration_since(arrived);
        let feedback = TfmccFeedback {
            reporter: self.local,
            have_rtt: self.rtt.measured,
            have_loss: self.have_loss,
            leaving: self.leaving,
            tr: stamp(now),
            ts_echo: data.ts.wrapping_add(crate::cc::wire_clock::micros(hold)),
            x: WireRate::from_bps(to_bps(self.desired_rate(now))),
            fb_nr: data.fb_nr,
        };
        let mut options = OptionsRepr::default();
        options.cc.tfmcc.feedback = Some(feedback);
        self.reports += 1;
        Some(FeedbackPacket {
            body: BodyRepr::Ack {
                rx_max: self.rx_max?,
                bitmap: self.bitmap,
            },
            options,
        })
    }
}

impl ReceiverController for TfmccReceiver {
    /// [`OdataOutcome::Quiet`] when the packet moved no timer and left no report due: most packets of a
    /// receiver that is not the CLR, between its feedback rounds' timers.
    fn on_odata(
        &mut self,
        now: Instant,
        rng: &mut dyn RngCore,
        sqn: u32,
        len: usize,
        options: &OptionsRepr,
    ) -> OdataOutcome {
        let before = self.poll_timeout();
        self.note_gap(now, sqn);
        self.record(now, sqn, true, len);
        self.after_odata(now, rng, options);
        let (timer, clr) = self.due(now);
        let nothing_due = self.events.is_empty() && !(timer || clr || self.report_now);
        OdataOutcome::judge(before, self.poll_timeout(), nothing_due)
    }

    fn on_odata_congested(
        &mut self,
        now: Instant,
        rng: &mut dyn RngCore,
        sqn: u32,
        len: usize,
        options: &OptionsRepr,
    ) {
        // Counted lost at once, as an ECN mark (§5.1).
        self.note_size(len);
        self.note_gap(now, sqn);
        self.record(now, sqn, false, 0);
        self.after_odata(now, rng, options);
    }

    /// A repair counts in the receive rate, as any data arriving (§4.3.4), and is data reaching the CLR: its
    /// once-per-RTT report goes on (`clr_deadline`). A source charging repairs to its rate
    /// ([`crate::RepairPacing::Controller`]) sends only repairs after a file's last packet; a CLR silent then
    /// read as gone, and the rate halved every 4 RTTs to its floor (namespace lab, 20 receivers, parity: one
    /// parity packet per 5 s for two minutes, until the receiver behind the 10 Mbit/s tbf gave up).
    fn on_rdata(&mut self, now: Instant, len: usize) {
        self.note_arrival(now, len);
        self.fresh_data = true;
    }

    fn add_nak_report(&mut self, _now: Instant, _options: &mut OptionsRepr) {}

    /// Reports go on an ACK to the source; the path is not needed (no NAK-shaped report).
    fn poll_feedback(&mut self, now: Instant, _path: &UpstreamPath) -> Option<FeedbackPacket> {
        let (timer, clr) = self.due(now);
        if !(timer || clr || self.report_now) {
            return None;
        }
        if timer {
            self.deadline = None;
            if !(clr || self.report_now || self.has_rate(now)) {
                return None;
            }
        }
        if clr {
            // §4.5: the CLR reports once per RTT.
            self.clr_due = Some(now + self.rtt());
        }
        self.report_now = false;
        self.fresh_data = false;
        self.report(now)
    }

    fn poll_timeout(&self) -> Option<Instant> {
        Instant::earliest(self.live(self.deadline), self.clr_deadline())
    }

    fn on_timeout(&mut self, _now: Instant) {}

    fn close(&mut self, _now: Instant) {
        // §4.2: say so in a report before leaving.
        self.leaving = true;
        self.report_now = self.last_data.is_some();
    }

    fn poll_event(&mut self) -> Option<ReceiverCcEvent> {
        self.events.pop_front()
    }

    fn snapshot(&self) -> ReceiverCcSnapshot {
        ReceiverCcSnapshot {
            loss: self.loss_event_rate(),
            rx_max: self.rx_max,
            is_acker: self.is_clr,
            acks_sent: self.reports,
        }
    }
}
