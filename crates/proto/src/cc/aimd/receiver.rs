//! The receiver half of `aimd` (the agent-based rate AIMD scheme of Shi and Waldvogel 2000, docs/papers.md):
//! capacity, congestion notifications, and the agent's feedback (paper §5.1–5.4).

use super::capacity::{capacity, LossWindow};
use super::AimdConfig;
use crate::cc::wire_clock::{micros, since, stamp};
use crate::cc::{
    FeedbackPacket, OdataOutcome, ReceiverCcEvent, ReceiverCcSnapshot, ReceiverController,
    UpstreamPath,
};
use crate::seq;
use crate::time::Instant;
use convoy_wire::cc::aimd::{AimdData, AimdReport, ReportKind, WireRate};
use convoy_wire::{BodyRepr, OptionsRepr};
use rand_core::RngCore;
use std::collections::VecDeque;
use std::net::IpAddr;
use std::time::Duration;

/// Minimum RTT value.
const MIN_RTT: Duration = Duration::from_millis(1);
/// A sequence jump beyond this is a resynchronisation, not a loss burst.
const MAX_GAP: u32 = 1 << 12;
/// SRM's request-timer constants C1 = C2 = 2 (Floyd et al., SIGCOMM 1995, §3): the timer is drawn uniformly from
/// [C1·d, (C1 + C2)·d], d the one-way distance to the source; the paper adopts "the random timer based suppression
/// method of SRM to send CNs" (§6). With d = RTT/2 that is [RTT, 2·RTT].
const SRM_C1: f64 = 2.0;
const SRM_C2: f64 = 2.0;
/// After a notification, none for this many RTTs: the sender's answer (a new agent, an echo) needs one.
const NOTIFY_HOLDOFF_RTTS: u32 = 2;
/// The RTT estimate's gain for a new sample (TCP's 1/8, RFC 6298 §2; the paper: "maintain an average", §5.4).
const RTT_GAIN: f64 = 0.125;
/// The agent reports once per RTT (§5.3), but not more often than a host's timer granularity (RFC 4654 §3.7's
/// ts_gran, 10 ms): a LAN's RTT of microseconds would otherwise ask for a report after nearly every packet.
const MIN_FEEDBACK_INTERVAL: Duration = Duration::from_millis(10);

/// The receiver half of `aimd`.
#[derive(Debug)]
pub struct AimdReceiver {
    config: AimdConfig,
    local: IpAddr,
    window: LossWindow,
    rx_max: Option<u32>,
    bitmap: u32,
    /// The RTT estimate and whether it comes from a sample (else the initial RTT, §5.4).
    rtt: Duration,
    has_rtt: bool,
    /// The last data packet's fields and its arrival (for the timestamp echo).
    last_data: Option<(AimdData, Instant)>,
    /// The agent the sender advertises and its capacity, packets/s.
    agent: Option<(IpAddr, f64)>,
    is_agent: bool,
    /// The agent's next feedback, and the last packet missed since its previous one (§5.3).
    next_feedback: Option<Instant>,
    missed_since_feedback: Option<u32>,
    /// A pending notification, and no new one before this instant.
    notify_at: Option<Instant>,
    quiet_until: Option<Instant>,
    reports: u64,
    events: VecDeque<ReceiverCcEvent>,
}

impl AimdReceiver {
    /// A receiver that has seen nothing.
    pub fn new(config: AimdConfig, local: IpAddr) -> Self {
        AimdReceiver {
            window: LossWindow::new(config.loss_window),
            rtt: config.initial_rtt.max(MIN_RTT),
            config,
            local,
            rx_max: None,
            bitmap: 0,
            has_rtt: false,
            last_data: None,
            agent: None,
            is_agent: false,
            next_feedback: None,
            missed_since_feedback: None,
            notify_at: None,
            quiet_until: None,
            reports: 0,
            events: VecDeque::new(),
        }
    }

    /// The RTT estimate (the initial RTT before a sample).
    pub fn rtt(&self) -> Duration {
        self.rtt
    }

    /// The agent's reporting interval: its RTT, at least [`MIN_FEEDBACK_INTERVAL`].
    fn feedback_interval(&self) -> Duration {
        self.rtt.max(MIN_FEEDBACK_INTERVAL)
    }

    /// Whether, at `now`, the agent's periodic feedback is due (§5.3) and whether this receiver's notification
    /// timer has expired (§5.1).
    fn due(&self, now: Instant) -> (bool, bool) {
        let feedback = self.is_agent && self.next_feedback.is_some_and(|t| now >= t);
        let notify = self.notify_at.is_some_and(|t| now >= t);
        (feedback, notify)
    }

    /// The loss rate over the window ([`LossWindow::rate`]).
    pub fn loss_rate(&self) -> f64 {
        self.window.rate()
    }

    /// This receiver's capacity, packets/s (§5.2).
    pub fn capacity(&self) -> f64 {
        capacity(self.rtt.as_secs_f64(), self.window.rate())
    }

    /// Whether this receiver would notify now: there is no agent ("initially when no agent is selected, all …
    /// receivers are eligible for sending CNs", §5.1), or its capacity is below (1 − margin) times the agent's.
    fn worse_than_agent(&self) -> bool {
        if self.is_agent {
            return false;
        }
        match self.agent {
            None => true,
            Some((_, c)) => self.capacity() < (1.0 - self.config.margin) * c,
        }
    }

    /// Count ODATA `sqn` in the window: a jump counts the packets it skips as lost at once.
    fn record(&mut self, sqn: u32, received: bool) {
        let Some(max) = self.rx_max else {
            self.rx_max = Some(sqn);
            self.bitmap = u32::from(received);
            self.count(sqn, received);
            return;
        };
        if seq::le(sqn, max) {
            // Late or duplicate: its hole was already counted (reordering is rare on the paths this runs on).
            return;
        }
        let gap = seq::diff(sqn, max) as u32;
        if gap <= MAX_GAP {
            for k in 1..gap {
                self.count(max.wrapping_add(k), false);
            }
        }
        self.bitmap = if gap >= 32 { 0 } else { self.bitmap << gap };
        self.bitmap |= u32::from(received);
        self.rx_max = Some(sqn);
        self.count(sqn, received);
    }

    fn count(&mut self, sqn: u32, received: bool) {
        self.window.record(!received);
        if !received {
            self.missed_since_feedback = Some(sqn);
        }
    }

    /// The sender's fields: the echo of this receiver's report (an RTT sample), the agent and its capacity.
    fn after_odata(&mut self, now: Instant, rng: &mut dyn RngCore, options: &OptionsRepr) {
        let Some(data) = options.cc.aimd.data else {
            return;
        };
        self.last_data = Some((data, now));
        if let Some(echo) = options.cc.aimd.echo.filter(|e| e.receiver == self.local) {
            if let Some(sample) = since(stamp(now), echo.tr_echo) {
                let sample = sample.max(MIN_RTT);
                let first = !self.has_rtt;
                self.rtt = if first {
                    sample
                } else {
                    self.rtt.mul_f64(1.0 - RTT_GAIN) + sample.mul_f64(RTT_GAIN)
                };
                self.has_rtt = true;
                if first {
                    self.events.push_back(ReceiverCcEvent::RttMeasured);
                }
                // An agent that became one before its first sample planned its next report an initial RTT
                // away; once per RTT (§5.3) means at most one measured RTT from now.
                let due = now + self.feedback_interval();
                self.next_feedback = self.next_feedback.map(|t| t.min(due));
            }
        }
        self.agent = data.agent.map(|(a, c)| (a, f64::from(c.0)));
        let agent_now = self.agent.is_some_and(|(a, _)| a == self.local);
        if agent_now != self.is_agent {
            self.is_agent = agent_now;
            self.events.push_back(ReceiverCcEvent::AckerRole(agent_now));
            // §5.3: the agent reports once per RTT from now on, about what it sees from now on.
            self.next_feedback = agent_now.then(|| now + self.feedback_interval());
            self.missed_since_feedback = None;
        }
        if !self.worse_than_agent() {
            // Suppressed: the advertised agent is no better (as an NCF cancels a NAK).
            self.notify_at = None;
        } else if self.notify_at.is_none() && self.quiet_until.is_none_or(|t| now >= t) {
            let d = self.rtt.as_secs_f64() / 2.0;
            let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
            self.notify_at = Some(now + Duration::from_secs_f64((SRM_C1 + SRM_C2 * u) * d));
        }
    }

    /// A report of `kind` about `sqn` (§5.1, §5.3), on an ACK.
    fn report(&mut self, now: Instant, kind: ReportKind, sqn: u32) -> Option<FeedbackPacket> {
        let (data, arrived) = self.last_data?;
        let hold = now.saturating_duration_since(arrived);
        let mut options = OptionsRepr::default();
        options.cc.aimd.report = Some(AimdReport {
            reporter: self.local,
            kind,
            tr: stamp(now),
            ts_echo: data.ts.wrapping_add(micros(hold)),
            loss: WireRate(self.window.rate() as f32),
            rtt_us: if self.has_rtt { micros(self.rtt) } else { 0 },
            sqn,
        });
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

impl ReceiverController for AimdReceiver {
    /// [`OdataOutcome::Quiet`] when the packet moved no timer and left no feedback due: most packets of a
    /// receiver that is not the agent and has nothing to notify.
    fn on_odata(
        &mut self,
        now: Instant,
        rng: &mut dyn RngCore,
        sqn: u32,
        _len: usize,
        options: &OptionsRepr,
    ) -> OdataOutcome {
        let before = self.poll_timeout();
        self.record(sqn, true);
        self.after_odata(now, rng, options);
        let (feedback, notify) = self.due(now);
        let nothing_due = self.events.is_empty() && !feedback && !notify;
        OdataOutcome::judge(before, self.poll_timeout(), nothing_due)
    }

    /// Counted lost, as a congestion mark.
    fn on_odata_congested(&mut self, now: Instant, rng: &mut dyn RngCore, sqn: u32, _len: usize, options: &OptionsRepr) {
        self.record(sqn, false);
        self.after_odata(now, rng, options);
    }

    /// Repairs say nothing about the path this controller measures (paper §3.3).
    fn on_rdata(&mut self, _now: Instant, _len: usize) {}

    fn add_nak_report(&mut self, _now: Instant, _options: &mut OptionsRepr) {}

    /// The agent's feedback when its RTT has passed; a notification when its timer fired and it is still worse
    /// than the agent the sender shows.
    fn poll_feedback(&mut self, now: Instant, _path: &UpstreamPath) -> Option<FeedbackPacket> {
        let (feedback, notify) = self.due(now);
        if feedback {
            // §5.3: "if there are multiple losses over one RTT, it only sends one NF. An NF has precedence over a
            // PF, so the source receives one PF or NF every RTT."
            self.next_feedback = Some(now + self.feedback_interval());
            let (kind, sqn) = match self.missed_since_feedback.take() {
                Some(missed) => (ReportKind::Negative, missed),
                None => (ReportKind::Positive, self.rx_max?),
            };
            return self.report(now, kind, sqn);
        }
        if notify {
            self.notify_at = None;
            if self.worse_than_agent() {
                self.quiet_until = Some(now + self.rtt * NOTIFY_HOLDOFF_RTTS);
                let sqn = self.rx_max?;
                return self.report(now, ReportKind::Congestion, sqn);
            }
        }
        None
    }

    fn poll_timeout(&self) -> Option<Instant> {
        let feedback = self.next_feedback.filter(|_| self.is_agent);
        Instant::earliest(self.notify_at, feedback)
    }

    fn on_timeout(&mut self, _now: Instant) {}

    fn close(&mut self, _now: Instant) {}

    fn poll_event(&mut self) -> Option<ReceiverCcEvent> {
        self.events.pop_front()
    }

    fn snapshot(&self) -> ReceiverCcSnapshot {
        ReceiverCcSnapshot {
            loss: self.window.lost() as f64 / self.window.packets().max(1) as f64,
            rx_max: self.rx_max,
            is_acker: self.is_agent,
            acks_sent: self.reports,
        }
    }
}
