//! The pgmcc receiver half (draft §4 "Procedures – Receiver"; paper §3.2–3.3, §3.6).

use super::dispersion::{rate_from_wire, rate_to_wire, ReceiveRateProbe};
use super::{ElectionTimer, LossEstimator, PgmccConfig};
use crate::cc::{
    FeedbackPacket, OdataOutcome, ReceiverCcEvent, ReceiverCcSnapshot, ReceiverController,
    UpstreamPath,
};
use crate::loss_filter::LossFilter;
use crate::seq;
use crate::tfrc_loss::TfrcLossHistory;
use crate::time::Instant;
use convoy_wire::{BodyRepr, OptionsRepr, PgmccFeedback};
use rand_core::RngCore;
use std::collections::VecDeque;
use std::net::IpAddr;
use std::time::Duration;

/// Longest gap whose packets are each fed to the loss estimator (a jump beyond is a resynchronisation).
const MAX_GAP_FED: i64 = 1 << 16;

/// Bound on queued feedback packets.
const MAX_QUEUED_FEEDBACK: usize = 1024;

/// A feedback packet the pgmcc receiver sends.
#[derive(Clone, Debug, PartialEq)]
pub enum ReceiverFeedback {
    /// A PGMCC ACK with these fields and options (draft §2.1.2).
    Ack {
        /// Highest ODATA sequence number received.
        rx_max: u32,
        /// Receive bitmap, LSB = RX_MAX.
        bitmap: u32,
        /// OPT_PGMCC_FEEDBACK and Convoy options.
        options: OptionsRepr,
    },
    /// A report-only NAK that asks the sender to elect an acker (paper §3.6, draft §2.3.1).
    ElectionNak {
        /// Sequence number of the data packet that asked for the election.
        sqn: u32,
        /// The receiver report options.
        options: OptionsRepr,
    },
}

impl ReceiverFeedback {
    /// The upstream packet: an ACK, or a NAK marked OPT_CONVOY_ELECTION (draft §2.3.1: a NAK that asks for no
    /// repair) towards `path`.
    pub fn into_packet(self, path: &UpstreamPath) -> FeedbackPacket {
        match self {
            ReceiverFeedback::Ack {
                rx_max,
                bitmap,
                options,
            } => FeedbackPacket {
                body: BodyRepr::Ack { rx_max, bitmap },
                options,
            },
            ReceiverFeedback::ElectionNak { sqn, mut options } => {
                options.cc.pgmcc.election = true;
                FeedbackPacket {
                    body: BodyRepr::Nak {
                        sqn,
                        source_nla: path.source_nla,
                        group_nla: path.group_nla,
                    },
                    options,
                }
            }
        }
    }
}

#[derive(Debug)]
enum Estimator {
    Ewma(LossFilter),
    Tfrc {
        history: TfrcLossHistory,
        rtt_hint: Duration,
    },
}

impl Estimator {
    fn received(&mut self) {
        match self {
            Estimator::Ewma(f) => f.record_received(),
            Estimator::Tfrc { history, .. } => history.record_received(),
        }
    }

    fn lost(&mut self, now: Instant) {
        match self {
            Estimator::Ewma(f) => f.record_lost(),
            Estimator::Tfrc { history, rtt_hint } => {
                history.record_lost(now, *rtt_hint);
            }
        }
    }

    fn value(&self) -> f64 {
        match self {
            Estimator::Ewma(f) => f.value(),
            Estimator::Tfrc { history, .. } => history.loss_event_rate(),
        }
    }

    fn wire(&self) -> u16 {
        match self {
            Estimator::Ewma(f) => f.value_u16(),
            Estimator::Tfrc { history, .. } => {
                (history.loss_event_rate().clamp(0.0, 1.0) * 65535.0).round() as u16
            }
        }
    }
}

/// pgmcc receiver: loss estimate, RX_MAX and the ACK bitmap, timestamp echo, ACKs when named acker, reports on
/// NAKs, election NAKs when the sender asks for an acker, ACKER_LEAVING on close.
#[derive(Debug)]
pub struct PgmccReceiver {
    config: PgmccConfig,
    local: IpAddr,
    estimator: Estimator,
    /// Highest ODATA sequence number received (rxw_lead / RX_MAX).
    rx_max: Option<u32>,
    /// Receive status of RX_MAX−31 … RX_MAX, LSB = RX_MAX (draft §2.1.3).
    bitmap: u32,
    /// Last data timestamp and when it arrived (draft §2.5.1).
    last_tstamp: Option<(u32, Instant)>,
    is_acker: bool,
    /// A pending election answer: when, and for which data packet.
    election: Option<(Instant, u32)>,
    feedback: VecDeque<ReceiverFeedback>,
    events: VecDeque<ReceiverCcEvent>,
    acks_sent: u64,
    /// RX_MAX of the last ACK that left the feedback queue (for [`PgmccConfig::ack_per_batch`]).
    last_ack_out: Option<u32>,
    /// When the last congestion report was scheduled ([`PgmccConfig::congestion_report_ivl`]).
    last_congestion_report: Option<Instant>,
    /// The dispersion measurement while the source's start-up runs (module `dispersion`).
    probe: ReceiveRateProbe,
    /// A receive rate to report (OPT_CONVOY_RX_RATE, packets per 1000 s).
    rx_rate_due: Option<u32>,
}

impl PgmccReceiver {
    /// A receiver whose identity (acker NLA) is `local`.
    pub fn new(config: PgmccConfig, local: IpAddr) -> Self {
        let estimator = match config.loss_estimator {
            LossEstimator::Ewma { weight } => Estimator::Ewma(LossFilter::new(weight)),
            LossEstimator::Tfrc { rtt_hint } => Estimator::Tfrc {
                history: TfrcLossHistory::new(),
                rtt_hint,
            },
        };
        PgmccReceiver {
            config,
            local,
            estimator,
            rx_max: None,
            bitmap: 0,
            last_tstamp: None,
            is_acker: false,
            election: None,
            feedback: VecDeque::new(),
            events: VecDeque::new(),
            acks_sent: 0,
            last_ack_out: None,
            last_congestion_report: None,
            probe: ReceiveRateProbe::default(),
            rx_rate_due: None,
        }
    }

    /// The 32-bit ACK bitmap (LSB = RX_MAX).
    pub fn bitmap(&self) -> u32 {
        self.bitmap
    }

    /// The timestamp echo for feedback sent now: last timestamp plus the time held (draft §2.5.1).
    fn tstamp_echo(&self, now: Instant) -> u32 {
        match self.last_tstamp {
            Some((ts, at)) => {
                let held = self.config.tstamp_unit.ticks((now - at).as_nanos() as u64);
                ts.wrapping_add(held)
            }
            None => 0,
        }
    }

    fn report(&self, now: Instant) -> PgmccFeedback {
        PgmccFeedback {
            tstamp: self.tstamp_echo(now),
            loss_rate: self.estimator.wire(),
            reporter: self.local,
        }
    }

    fn report_options(&self, now: Instant) -> OptionsRepr {
        let mut options = OptionsRepr::default();
        options.cc.pgmcc.feedback = Some(self.report(now));
        options.cc.pgmcc.rxw_lead = self.rx_max;
        options
    }

    fn queue(&mut self, fb: ReceiverFeedback) {
        if self.feedback.len() >= MAX_QUEUED_FEEDBACK {
            self.feedback.pop_front();
        }
        self.feedback.push_back(fb);
    }

    fn queue_ack(&mut self, now: Instant, leaving: bool) {
        let Some(rx_max) = self.rx_max else { return };
        let mut options = OptionsRepr::default();
        options.cc.pgmcc.feedback = Some(self.report(now));
        options.cc.pgmcc.acker_leaving = leaving;
        options.cc.pgmcc.rx_rate = self.rx_rate_due.take();
        let ack = ReceiverFeedback::Ack {
            rx_max,
            bitmap: self.bitmap,
            options,
        };
        if !leaving && self.supersedes_queued_ack(rx_max) {
            if let Some(last) = self.feedback.back_mut() {
                let mut ack = ack;
                if let (ReceiverFeedback::Ack { options: old, .. }, ReceiverFeedback::Ack { options, .. }) =
                    (&*last, &mut ack)
                {
                    // A receive rate the replaced ACK carried still goes.
                    options.cc.pgmcc.rx_rate = options.cc.pgmcc.rx_rate.or(old.cc.pgmcc.rx_rate);
                }
                *last = ack;
                return;
            }
        }
        self.acks_sent += 1;
        self.queue(ack);
    }

    /// Whether an ACK for `rx_max` may replace the ACK waiting at the tail of the queue
    /// ([`PgmccConfig::ack_per_batch`]): its bitmap must cover every packet after the RX_MAX the sender will
    /// have heard before it (the ACK queued before the tail, or else the last ACK that left).
    fn supersedes_queued_ack(&self, rx_max: u32) -> bool {
        if !self.config.ack_per_batch {
            return false;
        }
        let mut queued = self.feedback.iter().rev();
        match queued.next() {
            Some(ReceiverFeedback::Ack { options, .. }) if !options.cc.pgmcc.acker_leaving => {}
            _ => return false,
        }
        let heard_before = queued
            .find_map(|fb| match fb {
                ReceiverFeedback::Ack { rx_max, .. } => Some(*rx_max),
                _ => None,
            })
            .or(self.last_ack_out);
        heard_before.is_some_and(|before| (0..32).contains(&seq::diff(rx_max, before)))
    }

    /// Record ODATA `sqn` in RX_MAX, the bitmap and the loss estimate (paper §3.2.2, draft §2.6); a packet not
    /// `received` (a congestion mark, [`ReceiverController::on_odata_congested`]) advances RX_MAX but counts as
    /// lost and leaves its bitmap bit clear.
    fn record(&mut self, now: Instant, sqn: u32, received: bool) {
        let note = |estimator: &mut Estimator| {
            if received {
                estimator.received();
            } else {
                estimator.lost(now);
            }
        };
        match self.rx_max {
            None => {
                // Like OpenPGM, report packets before the first as received: a receiver that joins late must
                // not look as if it lost the session's past.
                self.bitmap = u32::MAX - u32::from(!received);
                self.rx_max = Some(sqn);
                note(&mut self.estimator);
            }
            Some(max) if seq::gt(sqn, max) => {
                let gap = seq::diff(sqn, max);
                for _ in 1..gap.min(MAX_GAP_FED) {
                    self.estimator.lost(now);
                }
                note(&mut self.estimator);
                self.bitmap = if gap >= 32 { 0 } else { self.bitmap << gap };
                self.bitmap |= u32::from(received);
                self.rx_max = Some(sqn);
            }
            Some(max) => {
                // Late (reordered) original data: mark it received if the bitmap still covers it. The loss
                // estimate already counted it lost; the filter is not rewound.
                let back = seq::diff(max, sqn);
                if received && (0..32).contains(&back) {
                    self.bitmap |= 1 << back;
                }
            }
        }
    }

    /// What any ODATA teaches besides its sequence number: the timestamp to echo, the acker role, elections.
    fn after_odata(
        &mut self,
        now: Instant,
        rng: &mut dyn RngCore,
        sqn: u32,
        options: &OptionsRepr,
    ) {
        let Some(data) = options.cc.pgmcc.data else {
            return;
        };
        self.last_tstamp = Some((data.tstamp, now));
        self.probe_start_up(now, sqn, data.tstamp, options.cc.pgmcc.start_up);
        let named = data.acker == self.local;
        if named != self.is_acker {
            self.is_acker = named;
            self.events.push_back(ReceiverCcEvent::AckerRole(named));
        }
        if named {
            // Draft §4: the acker ACKs every data packet naming it, immediately.
            self.election = None;
            self.queue_ack(now, false);
        } else if data.acker.is_unspecified() {
            // Paper §3.6, draft §2.3.1: answer an election request after a short random back-off.
            if self.election.is_none() {
                let max = self.config.election_backoff;
                let delay = match self.config.election_timer {
                    // As before the biased option existed: the same draws, the same runs.
                    ElectionTimer::Uniform => {
                        let max = max.as_nanos() as u64;
                        let d = if max == 0 {
                            0
                        } else {
                            rng.next_u64() % (max + 1)
                        };
                        Duration::from_nanos(d)
                    }
                    biased => {
                        // x uniform on (0, 1].
                        let x = ((rng.next_u64() >> 11) + 1) as f64 / (1u64 << 53) as f64;
                        biased.delay(max, x)
                    }
                };
                self.election = Some((now + delay, sqn));
            }
        } else {
            // Someone else is acker: the election is over.
            self.election = None;
        }
        if self.rx_rate_due.is_some() {
            // Not the acker: the receive rate goes at once on an ACK, which the source reads as a report and
            // not as the acker's (module `dispersion`). Not on a report-only NAK: network elements forward one
            // of those per sequence number (RFC 3208 §7.1), and a fast receiver's report may carry the same.
            self.queue_ack(now, false);
        }
    }

    /// Measure the path's dispersion while the source says its start-up runs (OPT_CONVOY_START_UP, echoing
    /// the lowest rate reported), and note a receive rate to report (module `dispersion`).
    fn probe_start_up(&mut self, now: Instant, sqn: u32, tstamp: u32, start_up: Option<u32>) {
        let Some(echo) = start_up else {
            self.probe.reset();
            return;
        };
        let ticks = self.config.tstamp_unit.per_second();
        if let Some(rate) = self.probe.on_odata(now, sqn, tstamp, ticks, rate_from_wire(echo)) {
            self.rx_rate_due = Some(rate_to_wire(rate));
        }
    }

    /// The next feedback packet due now: an election answer whose back-off ended, else the oldest queued ACK.
    pub fn next_feedback(&mut self, now: Instant) -> Option<ReceiverFeedback> {
        if let Some((at, sqn)) = self.election {
            if now >= at {
                self.election = None;
                let options = self.report_options(now);
                self.queue(ReceiverFeedback::ElectionNak { sqn, options });
            }
        }
        let fb = self.feedback.pop_front();
        if let Some(ReceiverFeedback::Ack { rx_max, .. }) = &fb {
            self.last_ack_out = Some(*rx_max);
        }
        fb
    }
}

impl ReceiverController for PgmccReceiver {
    /// [`OdataOutcome::Quiet`] for a receiver that is not the acker, with no election answer pending or due
    /// and nothing queued: most receivers of a session, most of the time.
    fn on_odata(
        &mut self,
        now: Instant,
        rng: &mut dyn RngCore,
        sqn: u32,
        _len: usize,
        options: &OptionsRepr,
    ) -> OdataOutcome {
        let before = self.poll_timeout();
        self.record(now, sqn, true);
        self.after_odata(now, rng, sqn, options);
        let nothing_due = self.events.is_empty()
            && self.feedback.is_empty()
            && self.election.is_none_or(|(at, _)| now < at);
        OdataOutcome::judge(before, self.poll_timeout(), nothing_due)
    }

    fn on_odata_congested(
        &mut self,
        now: Instant,
        rng: &mut dyn RngCore,
        sqn: u32,
        _len: usize,
        options: &OptionsRepr,
    ) {
        self.record(now, sqn, false);
        self.after_odata(now, rng, sqn, options);
        // Not the acker: nothing else carries this loss to the sender (no hole to NAK), so report it on a
        // report-only NAK, at most once per `congestion_report_ivl`.
        let due = self
            .last_congestion_report
            .is_none_or(|t| now >= t + self.config.congestion_report_ivl);
        if !self.is_acker && self.election.is_none() && due && self.rx_max.is_some() {
            self.last_congestion_report = Some(now);
            self.election = Some((now, sqn));
        }
    }

    /// Repairs say nothing about the path this controller measures (paper §3.3).
    fn on_rdata(&mut self, _now: Instant, _len: usize) {}

    fn add_nak_report(&mut self, now: Instant, options: &mut OptionsRepr) {
        options.cc.pgmcc.feedback = Some(self.report(now));
        options.cc.pgmcc.rxw_lead = self.rx_max;
    }

    fn poll_feedback(&mut self, now: Instant, path: &UpstreamPath) -> Option<FeedbackPacket> {
        self.next_feedback(now).map(|fb| fb.into_packet(path))
    }

    fn poll_timeout(&self) -> Option<Instant> {
        if !self.feedback.is_empty() {
            return None;
        }
        self.election.map(|(at, _)| at)
    }

    fn on_timeout(&mut self, _now: Instant) {}

    fn close(&mut self, now: Instant) {
        if self.is_acker {
            // Draft §2.3.2: tell the sender so it re-elects at once.
            self.queue_ack(now, true);
            self.is_acker = false;
            self.events.push_back(ReceiverCcEvent::AckerRole(false));
        }
        self.election = None;
    }

    fn poll_event(&mut self) -> Option<ReceiverCcEvent> {
        self.events.pop_front()
    }

    fn snapshot(&self) -> ReceiverCcSnapshot {
        ReceiverCcSnapshot {
            loss: self.estimator.value(),
            rx_max: self.rx_max,
            is_acker: self.is_acker,
            acks_sent: self.acks_sent,
        }
    }
}
