//! The pgmcc sender half (draft §3 "Procedures – Sender"; paper §3.4–3.6).

use super::{
    AckTracker, AckerElection, ElectionOutcome, Feedback, FeedbackKind, LosslessAcker, OldAckerAcks, PgmccConfig,
    LossReaction, OpeningPace, RepairTokens, RttMethod, StartUpExit, TailProbe, TimeoutPolicy,
    TimeoutRestart, TokenWindow,
};
use crate::cc::event_queue::EventQueue;
use crate::cc::{CcEvent, CcSnapshot, Permit, ReductionCause, SenderController};
use crate::rtt::{RttConfig, RttEstimator};
use crate::throughput::tcp_throughput;
use crate::seq;
use crate::time::Instant;
use convoy_wire::{OptionsRepr, PacketRepr, PgmccData};
use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

/// Round-trip time samples above this are treated as garbage (wrapped or forged timestamps).
const MAX_PLAUSIBLE_RTT_S: f64 = 120.0;

/// pgmcc sender: window and tokens, ACK bitmaps, acker election, feedback timeout.
#[derive(Debug)]
pub struct PgmccSender {
    pub(super) config: PgmccConfig,
    pub(super) window: TokenWindow,
    pub(super) tracker: AckTracker,
    election: AckerElection,
    rtt: RttEstimator,
    /// After a loss, window changes wait for feedback on a packet sent after this one (draft §2.2).
    recovery_point: Option<u32>,
    /// The last packet sent before the last reduction: losses of it and of earlier packets never cause another
    /// one (paper §3.4, draft §2.2: losses of packets sent before the reduction are ignored). Unlike
    /// `recovery_point` it outlives the suspension, because losses surface a few packets late (the dupack
    /// threshold) and may arrive on the very ACK that ends the suspension.
    reaction_point: Option<u32>,
    /// The feedback timer (draft §2.7).
    pub(super) deadline: Option<Instant>,
    consecutive_timeouts: u32,
    /// Tokens lent to repairs charged to the window (module `repair_tokens`).
    repair_tokens: RepairTokens,
    /// Under [`PgmccConfig::early_loss`], the probe that ends a stall at the tail (module `tail_probe`).
    probe: TailProbe,
    /// Whether the exponential opening of [`super::StartUp::UntilCongestion`] still runs.
    start_up: StartUpExit,
    /// The opening's pace on paths with RTTs below its shortest round (module `startup`).
    pace: OpeningPace,
    /// The last smoothed RTT measured, of this acker or an earlier one (module `repair_tokens`'s fallback).
    last_srtt: Option<Duration>,
    /// The last original packet sent, and its size (bytes the controllers count, [`crate::cc::packet_size`]).
    last_sent: Option<u32>,
    last_len: usize,
    /// Address family of the "no acker" NLA in data packets.
    no_acker: IpAddr,
    events: EventQueue,
}

impl PgmccSender {
    /// A sender with W = T = 1 and no acker (draft §3 initialization).
    pub fn new(config: PgmccConfig, _now: Instant) -> Self {
        let rtt = match config.timeout {
            TimeoutPolicy::Adaptive { initial, min, max } => RttEstimator::new(RttConfig {
                initial_rto: initial,
                min_rto: min,
                max_rto: max,
                ..RttConfig::PGMCC
            }),
            TimeoutPolicy::Fixed(d) => RttEstimator::new(RttConfig {
                initial_rto: d,
                min_rto: d,
                max_rto: d,
                ..RttConfig::PGMCC
            }),
        };
        let start_up = StartUpExit::new(config.start, config.opening_round_min);
        PgmccSender {
            window: TokenWindow::new(start_up.initial_ssthresh(config.ssthresh)),
            start_up,
            pace: OpeningPace::default(),
            tracker: AckTracker::new(config.dupack_threshold),
            election: AckerElection::new(config.c, config.model),
            rtt,
            recovery_point: None,
            reaction_point: None,
            deadline: None,
            consecutive_timeouts: 0,
            repair_tokens: RepairTokens::default(),
            probe: TailProbe::default(),
            last_srtt: None,
            last_sent: None,
            last_len: 0,
            no_acker: IpAddr::V4(Ipv4Addr::UNSPECIFIED),
            events: EventQueue::default(),
            config,
        }
    }

    /// The window controller's state.
    pub fn window(&self) -> TokenWindow {
        self.window
    }

    /// Acker switches so far.
    pub fn switches(&self) -> u64 {
        self.election.switches()
    }

    /// Use IPv6 "::" as the no-acker NLA (sessions whose receivers are IPv6).
    pub fn set_ipv6(&mut self, v6: bool) {
        self.no_acker = if v6 {
            IpAddr::V6(std::net::Ipv6Addr::UNSPECIFIED)
        } else {
            IpAddr::V4(Ipv4Addr::UNSPECIFIED)
        };
    }

    fn push(&mut self, e: CcEvent) {
        self.events.push(e);
    }

    fn rto(&self) -> Duration {
        match self.config.timeout {
            TimeoutPolicy::Fixed(d) => d,
            TimeoutPolicy::Adaptive { .. } => self.rtt.rto(),
        }
    }

    /// RTT of a report for acker selection, per the configured method.
    fn report_rtt(&self, now: Instant, feedback: &Feedback) -> Option<f64> {
        match self.config.rtt_method {
            RttMethod::Timestamp => {
                let report = feedback.report?;
                let unit = self.config.tstamp_unit;
                let now_ticks = unit.ticks(now.as_nanos());
                let ticks = now_ticks.wrapping_sub(report.tstamp_echo);
                let secs = f64::from(ticks) / unit.per_second() as f64;
                // A zero sample (sub-tick RTT) is kept at half a tick so RTT² · p still orders receivers.
                let secs = secs.max(0.5 / unit.per_second() as f64);
                (secs <= MAX_PLAUSIBLE_RTT_S).then_some(secs)
            }
            RttMethod::SequenceNumber => {
                let lead = match feedback.kind {
                    FeedbackKind::Ack { rx_max, .. } => Some(rx_max),
                    _ => feedback.report.and_then(|r| r.rxw_lead),
                }?;
                let snd_max = self.tracker.snd_max()?;
                let d = seq::diff(snd_max, lead);
                (d >= 0).then(|| d.max(1) as f64)
            }
        }
    }

    fn election_step(&mut self, now: Instant, feedback: &Feedback) {
        let Some(report) = feedback.report else {
            return;
        };
        let rtt = self.report_rtt(now, feedback);
        let loss = f64::from(report.loss_rate) / 65535.0;
        if self.config.report_events {
            // The election's measure as a rate: the TCP equation at the receiver's loss and RTT (draft §2.4),
            // unbounded while it has lost nothing; RTTs in packets (`RttMethod::SequenceNumber`) give none.
            let rate_bps = rtt
                .filter(|r| *r > 0.0 && loss > 0.0 && self.config.rtt_method == RttMethod::Timestamp)
                .map(|r| tcp_throughput(self.last_len as f64, r, loss));
            self.push(CcEvent::Report {
                receiver: report.reporter,
                loss: Some(loss),
                rtt_s: rtt,
                rate_bps,
            });
        }
        // The rate a lossless acker receives at, when the election is to count it (`LosslessAcker`): W / SRTT,
        // comparable with the equation's throughput only with RTTs in seconds.
        let lossless_floor = match (self.config.lossless_acker, self.config.rtt_method, self.rtt.srtt()) {
            (LosslessAcker::AtSendingRate, RttMethod::Timestamp, Some(srtt)) if !srtt.is_zero() => {
                Some(self.window.w / srtt.as_secs_f64())
            }
            _ => None,
        };
        let before = self.election.acker();
        let outcome = self.election.on_report(report.reporter, rtt, loss, lossless_floor);
        self.on_election_outcome(outcome, before, report.reporter);
    }

    fn on_election_outcome(&mut self, outcome: ElectionOutcome, before: Option<IpAddr>, reporter: IpAddr) {
        match outcome {
            ElectionOutcome::Elected => {
                self.window.on_first_acker();
                self.start_up.on_new_acker();
                self.push(CcEvent::AckerChanged {
                    from: before,
                    to: Some(reporter),
                });
            }
            ElectionOutcome::Switched { from } => {
                // A move, not congestion (paper §3.5): the window is untouched. The timeout state restarts
                // for the new acker's path (draft §2.7).
                if matches!(self.config.timeout, TimeoutPolicy::Adaptive { .. }) {
                    self.rtt.reset();
                }
                self.start_up.on_new_acker();
                self.push(CcEvent::AckerChanged {
                    from: Some(from),
                    to: Some(reporter),
                });
            }
            ElectionOutcome::Refreshed | ElectionOutcome::Kept => {}
        }
    }

    /// A receive rate reported during the opening (module `startup`): the slowest path known becomes the
    /// acker, and the window is kept within its bound.
    fn start_up_rate_step(&mut self, now: Instant, feedback: &Feedback) {
        let Some(report) = feedback.report else {
            return;
        };
        let Some(rate) = report.rx_rate else {
            return;
        };
        let rtt = match self.config.rtt_method {
            RttMethod::Timestamp => self.report_rtt(now, feedback).map(Duration::from_secs_f64),
            RttMethod::SequenceNumber => None,
        };
        let loss = f64::from(report.loss_rate) / 65535.0;
        if self
            .start_up
            .on_rate_report(now, report.reporter, rate, rtt, self.sending_rate())
            && self.election.acker() != Some(report.reporter)
        {
            let before = self.election.acker();
            let outcome = self.election.appoint(report.reporter, rtt.map(|d| d.as_secs_f64()), loss);
            self.on_election_outcome(outcome, before, report.reporter);
            if let Some(rtt) = rtt {
                // The report's RTT is the new acker's first sample (RFC 6298 §2.2): when the slow path's full
                // queue drops the first packets that name it, the timeout comes after its RTT, not the initial
                // 3 s.
                self.rtt.on_sample(rtt);
            }
        }
        self.bound_start_up(now);
    }

    /// The rate the window allows, packets per second: W per smoothed RTT, an RTT shorter than the opening's
    /// shortest round (or none yet) counting as that round (module `startup`).
    fn sending_rate(&self) -> f64 {
        let round = self
            .rtt
            .srtt()
            .map_or(self.config.opening_round_min, |r| r.max(self.config.opening_round_min));
        if round.is_zero() {
            return f64::INFINITY;
        }
        self.window.w / round.as_secs_f64()
    }

    /// The smoothed RTT of the slowest path reported, when it is the acker's.
    fn slowest_srtt(&self) -> Option<Duration> {
        match self.election.acker() {
            Some(a) if self.start_up.slowest() == Some(a) => self.rtt.srtt(),
            _ => None,
        }
    }

    /// Keep the window within the opening's bound while its report lasts (module `startup`).
    fn bound_start_up(&mut self, now: Instant) {
        let srtt = self.slowest_srtt();
        self.start_up.expire(now, srtt);
        if let Some(cap) = self.start_up.window_cap(srtt, self.config.ssthresh) {
            self.window.cap(cap);
        }
    }

    fn ack_counts_for_window(&self, from: IpAddr, rx_max: u32) -> bool {
        if self.election.acker() == Some(from) {
            return true;
        }
        // One acker per data packet (paper §3.5): an ACK elicited by a packet that named its sender is that
        // packet's ACK, even after a switch — unless the configuration says otherwise (WF §IV-A).
        match self.config.old_acker_acks {
            OldAckerAcks::Ignore => false,
            OldAckerAcks::Count | OldAckerAcks::TokensOnly => {
                self.tracker.acker_of(rx_max) == Some(Some(from))
            }
        }
    }

    /// Restart the feedback timer after progress. It stays armed while packets are unacknowledged, and also
    /// while the sender is out of tokens: when lost packets took tokens that no ACK will return, only the
    /// timeout restarts the session (paper §3.6 "after a stall").
    fn rearm(&mut self, now: Instant) {
        let waiting = self.tracker.has_unacked() || !self.window.can_send();
        self.deadline = waiting.then(|| now + self.rto());
        self.rearm_probe(now);
    }

    /// Arm the tail loss probe when packets are out and no token is left for another (module `tail_probe`).
    fn rearm_probe(&mut self, now: Instant) {
        if !self.config.early_loss {
            return;
        }
        // Runs after every ODATA: the timeout is worked out only when the probe is to be armed. Without an acker
        // nobody acknowledges a probe: it would only spend a token that never comes back, and the acker elected
        // next would find the window shut with nothing of its own to acknowledge (namespace lab: a killed acker
        // left the session stalled until the finish timeout).
        let waits = self.tracker.has_unacked() && !self.window.can_send() && self.election.acker().is_some();
        let pto = match (waits, self.rtt.srtt().or(self.last_srtt)) {
            (false, _) => Duration::ZERO,
            (true, Some(srtt)) => TailProbe::timeout(srtt, self.rto()),
            (true, None) => self.rto(),
        };
        self.probe.rearm(now, waits, pto);
    }

    fn on_ack(&mut self, now: Instant, from: IpAddr, rx_max: u32, bitmap: u32) {
        if !self.ack_counts_for_window(from, rx_max) {
            return;
        }
        // A reaction point half the sequence space behind could no longer be compared: forget it.
        if self
            .reaction_point
            .is_some_and(|rp| seq::diff(rx_max, rp) > 1 << 30)
        {
            self.reaction_point = None;
        }
        // Repairs sent before an acknowledged packet have left the pipe: their tokens come back.
        let repaired = self.repair_tokens.acknowledged(rx_max);
        if repaired > 0 {
            self.window.on_ack_suspended(repaired);
        }
        let is_current = self.election.acker() == Some(from);
        let tokens_only = !is_current && self.config.old_acker_acks == OldAckerAcks::TokensOnly;
        let mut outcome = self.tracker.on_ack(now, rx_max, bitmap, |named| {
            !tokens_only || named == Some(from)
        });
        if let Some(sample) = outcome.rtt_sample {
            if is_current {
                self.rtt.on_sample(sample);
                self.last_srtt = self.rtt.srtt();
                if self.start_up.on_rtt_sample(sample, rx_max, self.tracker.snd_max()) {
                    self.end_start_up(self.window.w);
                }
            }
        }
        if outcome.newly_acked > 0 {
            self.consecutive_timeouts = 0;
            // Feedback for a packet sent after the loss ends the suspension (draft §2.2).
            if let (Some(rp), Some(hi)) = (self.recovery_point, outcome.highest_newly_acked) {
                if seq::gt(hi, rp) {
                    self.recovery_point = None;
                }
            }
            if tokens_only {
                self.window.on_ack_suspended(outcome.newly_acked);
            } else if self.config.loss_reaction == LossReaction::NsCode {
                self.window.on_ack_ns(outcome.newly_acked);
                self.bound_start_up(now);
            } else if self.recovery_point.is_some() {
                self.window.on_ack_suspended(outcome.newly_acked);
            } else {
                self.window.on_ack(outcome.newly_acked);
                self.bound_start_up(now);
            }
        }
        if self.config.early_loss && !self.window.can_send() {
            let early = self.tracker.tail_seen_holes_lost();
            outcome.lost += early.lost;
            if let Some(h) = early.highest_lost {
                outcome.highest_lost = Some(outcome.highest_lost.map_or(h, |o| seq::max(o, h)));
            }
        }
        if outcome.newly_acked > 0 || outcome.lost > 0 {
            self.probe.on_feedback();
            self.rearm(now);
        }
        if let Some(lost) = outcome.highest_lost {
            let reacts = self.reaction_point.is_none_or(|rp| seq::gt(lost, rp));
            if !reacts {
                // A loss within the suspended RTT: no second reduction (draft §2.2), but the packet has left the
                // network without an ACK to return its token. Counting it out keeps T = W − packets in flight,
                // the realignment principle of paper §3.4; otherwise every further loss in that RTT shrinks the
                // effective window until only a timeout restarts the session.
                // (Rizzo's ns code counts it as acknowledged.)
                match self.config.loss_reaction {
                    LossReaction::Draft => self.window.on_ack_suspended(outcome.lost),
                    LossReaction::NsCode => self.window.on_ack_ns(outcome.lost),
                }
            } else {
                // Repairs whose tokens are still out are in flight too (module `repair_tokens`).
                let in_flight = self.tracker.in_flight_after(rx_max) + self.repair_tokens.outstanding();
                let before = match self.config.loss_reaction {
                    LossReaction::Draft => self.window.on_loss(in_flight),
                    LossReaction::NsCode => self.window.on_loss_ns(in_flight),
                };
                if self.start_up.on_congestion() || self.tcp_threshold() {
                    self.end_start_up(self.window.w);
                }
                self.recovery_point = self.tracker.snd_max();
                self.reaction_point = self.recovery_point;
                let after = self.window.w;
                self.push(CcEvent::Reduced {
                    before,
                    after,
                    cause: ReductionCause::Loss,
                });
            }
        }
    }

    /// The acker `from` is gone (draft §2.3.2: it said so, or the session shed it): the next report elects.
    fn acker_left(&mut self, from: IpAddr) {
        self.election.clear();
        self.push(CcEvent::AckerChanged {
            from: Some(from),
            to: None,
        });
    }

    /// Feedback from a receiver: an ACK, a NAK or an election NAK, with or without its report.
    pub fn on_report(&mut self, now: Instant, feedback: &Feedback) {
        let from = feedback.receiver();
        if feedback.acker_leaving && self.election.acker() == Some(from) {
            // Draft §2.3.2: the acker leaves; elect again at once. Its goodbye is an ACK (or a duplicate): the
            // packets it acknowledges still return their tokens.
            if let FeedbackKind::Ack { rx_max, bitmap } = feedback.kind {
                self.on_ack(now, from, rx_max, bitmap);
            }
            self.acker_left(from);
            return;
        }
        if self.election.acker() == Some(from) {
            // Draft §2.7: the count of successive timeouts restarts on any ACK or NAK from the acker: an acker
            // that still answers is alive, however slow, and is not replaced for its timeouts.
            self.consecutive_timeouts = 0;
        }
        self.election_step(now, feedback);
        self.start_up_rate_step(now, feedback);
        if matches!(feedback.kind, FeedbackKind::Nak { .. }) && self.start_up.on_congestion() {
            // A receiver lost data: its path is full, whoever the acker is (module `startup`).
            self.end_start_up(self.window.w);
        }
        if let FeedbackKind::Ack { rx_max, bitmap } = feedback.kind {
            self.on_ack(now, from, rx_max, bitmap);
        }
    }

    /// Whether a loss or a timeout lowers the threshold as TCP's do (RFC 5681 §3.1, ssthresh = half the window),
    /// after the opening as at its end: under [`super::StartUp::UntilCongestion`], whose threshold is not the
    /// paper's constant but where the opening stopped; left there, every halving below it would open
    /// exponentially again up to the overshoot's window (module `startup`).
    fn tcp_threshold(&self) -> bool {
        self.config.start == super::StartUp::UntilCongestion
    }

    /// The exponential opening ends: from now on the window opens by one packet per RTT above `ssthresh`
    /// (paper §3.4), never above the paper's threshold's floor. When the opening's pace held packets back
    /// (module `startup`), the window is first realigned to what the pace let into the pipe and the threshold
    /// goes no higher: the unspent tokens would otherwise leave as one burst, into the queue whose overflow
    /// ended the opening.
    fn end_start_up(&mut self, ssthresh: f64) {
        let paced = self.pace.earliest(self.window.w, self.rtt.srtt(), self.config.opening_round_min);
        let mut ssthresh = ssthresh;
        if paced.is_some() {
            self.window.realign_unspent();
            ssthresh = ssthresh.min(self.window.w);
        }
        self.pace.stop();
        self.window.ssthresh = ssthresh.max(self.config.ssthresh);
    }

    /// How long an ACK may still come after its packet was sent: RFC 6298's SRTT + 4·RTTVAR of the acker's
    /// samples (kept under a fixed timer too), or the timer's interval before any sample.
    fn ack_wait_bound(&self) -> Duration {
        match (self.rtt.srtt(), self.rtt.rttvar()) {
            (Some(srtt), Some(var)) => srtt + 4 * var,
            _ => self.rto(),
        }
    }
}

impl SenderController for PgmccSender {
    /// Original data needs a token (paper §3.4), or the tail loss probe (module `tail_probe`).
    fn permit(&self, now: Instant) -> Permit {
        if self.probe.is_due() {
            return Permit::Now;
        }
        self.permit_repair(now)
    }

    /// A repair needs a token like any packet; the tail loss probe is original data's alone.
    fn permit_repair(&self, now: Instant) -> Permit {
        if !self.window.can_send() {
            return Permit::Blocked;
        }
        let pace = self.start_up.running().then(|| {
            self.pace
                .earliest(self.window.w, self.rtt.srtt(), self.config.opening_round_min)
        });
        match pace.flatten() {
            Some(at) if at > now => Permit::At(at),
            _ => Permit::Now,
        }
    }

    fn on_data_sent(&mut self, now: Instant, sqn: u32, len: usize, options: &mut OptionsRepr) {
        let acker = self.election.acker();
        self.last_sent = Some(sqn);
        self.last_len = len;
        self.window.on_send();
        self.tracker.on_sent(now, sqn, acker);
        if self.deadline.is_none() {
            self.deadline = Some(now + self.rto());
        }
        self.probe.on_data_sent();
        self.rearm_probe(now);
        options.cc.pgmcc.data = Some(PgmccData {
            tstamp: self.config.tstamp_unit.ticks(now.as_nanos()),
            acker: acker.unwrap_or(self.no_acker),
        });
        let srtt = self.slowest_srtt();
        self.start_up.expire(now, srtt);
        options.cc.pgmcc.start_up = self.start_up.echo();
        if self.start_up.running() {
            self.pace.on_sent(now);
        } else {
            self.pace.stop();
        }
    }

    /// A shed acker goes as a leaving one does (draft §2.3.2): the next report elects another.
    fn forget(&mut self, _now: Instant, receiver: IpAddr) {
        if self.election.acker() == Some(receiver) {
            self.acker_left(receiver);
        }
    }

    fn on_feedback(&mut self, now: Instant, from: IpAddr, packet: &PacketRepr<'_>) {
        if let Some(feedback) = Feedback::read(from, packet) {
            self.on_report(now, &feedback);
        }
    }

    /// A repair takes a token like any packet (paper §3.4, T −= 1); it comes back with the ACK of the next
    /// original packet, or twice the smoothed RTT later (module `repair_tokens`: the acker does not acknowledge
    /// repairs).
    fn on_repair_sent(&mut self, now: Instant, _len: usize) {
        self.window.on_send();
        let wait = self.rtt.srtt().or(self.last_srtt).map_or_else(|| self.rto(), |srtt| 2 * srtt);
        let next_sqn = self.last_sent.map_or(0, |s| s.wrapping_add(1));
        self.repair_tokens.lend(next_sqn, now + wait);
    }

    fn on_timeout(&mut self, now: Instant) {
        self.probe.on_timer(now);
        let returned = self.repair_tokens.take_due(now);
        if returned > 0 {
            self.window.on_ack_suspended(returned);
            if !self.tracker.has_unacked() && self.window.can_send() {
                // Nothing to wait for: the timer was armed only because the repairs held the tokens.
                self.deadline = None;
            }
        }
        let Some(deadline) = self.deadline else {
            return;
        };
        if now < deadline {
            return;
        }
        self.deadline = None;
        self.probe.cancel();
        self.consecutive_timeouts += 1;
        let before = self.window.w;
        if self.start_up.on_congestion() || self.tcp_threshold() {
            self.end_start_up(before / 2.0);
        }
        let wang_fahmy = self.config.timeout_restart == TimeoutRestart::WangFahmy;
        if wang_fahmy {
            // Packets older than the ACK wait bound were lost (or their ACKs were): waiting for them would stall
            // the sender for ever, since no other packet can bring tokens back.
            let bound = self.ack_wait_bound();
            self.tracker
                .abandon_sent_before(Instant::from_nanos(now.as_nanos().saturating_sub(bound.as_nanos() as u64)));
        }
        let waits_for_acks = wang_fahmy && self.tracker.has_unacked();
        if waits_for_acks {
            // WF §IV-A: T = −1/(2W); the outstanding packets' ACKs bring the tokens back, and their losses were
            // answered by this timeout already (paper §3.4).
            self.window.restart_waiting();
            self.repair_tokens.write_off();
            self.recovery_point = None;
            self.reaction_point = self.tracker.snd_max();
        } else {
            // Draft §3: W = T = 1 and send; what is outstanding is written off.
            self.window.restart();
            self.repair_tokens.write_off();
            self.tracker.abandon_outstanding();
            self.recovery_point = None;
            self.reaction_point = None;
        }
        if matches!(self.config.timeout, TimeoutPolicy::Adaptive { .. }) {
            self.rtt.backoff();
        }
        self.push(CcEvent::Timeout {
            consecutive: self.consecutive_timeouts,
        });
        self.push(CcEvent::Reduced {
            before,
            after: 1.0,
            cause: ReductionCause::Timeout,
        });
        if waits_for_acks {
            // Nothing will be sent to arm the timer again: it keeps running while the sender waits.
            self.rearm(now);
        }
        if self.consecutive_timeouts >= self.config.reelect_after_timeouts {
            // Draft §2.7: after repeated timeouts the acker is presumed gone.
            if let Some(old) = self.election.clear() {
                self.push(CcEvent::AckerChanged {
                    from: Some(old),
                    to: None,
                });
            }
        }
    }

    fn poll_timeout(&self) -> Option<Instant> {
        [self.deadline, self.repair_tokens.next_return(), self.probe.deadline()]
            .into_iter()
            .flatten()
            .min()
    }

    fn poll_event(&mut self) -> Option<CcEvent> {
        self.events.pop()
    }

    fn snapshot(&self) -> CcSnapshot {
        CcSnapshot {
            window: Some(self.window.w),
            tokens: Some(self.window.t),
            rate_bps: None,
            acker: self.election.acker(),
            srtt_s: self.rtt.srtt().map(|d| d.as_secs_f64()),
            acker_loss: self.election.acker_loss(),
            consecutive_timeouts: self.consecutive_timeouts,
        }
    }
}
