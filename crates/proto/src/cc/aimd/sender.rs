//! The sender half of `aimd` (the agent-based rate AIMD scheme of Shi and Waldvogel 2000, docs/papers.md): the
//! paced rate, the agent, and the rate's AIMD rules (paper §5.1, §5.3, §6.3).

use super::capacity::capacity;
use super::AimdConfig;
use crate::cc::wire_clock::{micros, since, stamp, to_bps};
use crate::cc::event_queue::EventQueue;
use crate::cc::pacer::{self, RatePacer};
use crate::cc::{CcEvent, CcSnapshot, Permit, ReductionCause, SenderController};
use crate::seq;
use crate::time::Instant;
use convoy_wire::cc::aimd::{AimdData, AimdEcho, AimdReport, ReportKind, WireRate};
use convoy_wire::{OptionsRepr, PacketRepr};
use std::collections::VecDeque;
use std::net::IpAddr;
use std::time::Duration;

/// Round-trip samples above this are taken for garbage (wrapped or forged timestamps).
const MAX_PLAUSIBLE_RTT: Duration = Duration::from_secs(120);
/// Minimum RTT value.
const MIN_RTT: Duration = Duration::from_millis(1);
/// Reports waiting for their echo; beyond it the oldest is dropped.
const MAX_PENDING_ECHOES: usize = 64;
/// The agent's silence, in its RTTs, after which the rate halves, and after which it is dropped. The paper has no
/// rule for a silent agent; these are TFMCC's for a silent CLR (RFC 4654 §3.3: halve after 4 RTTs, the CLR is
/// gone after 10).
const SILENCE_HALVE_RTTS: u32 = 4;
const SILENCE_GONE_RTTS: u32 = 10;
/// How far an RTT sample must move from the gate's reference to count as a change of the agent's RTT: what the
/// wire's clock cannot resolve. A sample is the difference of two microsecond stamps (and the agent's hold time,
/// also in microseconds), so two samples of one RTT differ by up to 2 µs; without this, rounding alone would close
/// the gate on about every other PF. Slower drifts still count: the reference stays put until the samples have
/// left it by more.
const GATE_RTT_TOLERANCE: Duration = Duration::from_micros(2);
/// The packet size assumed before the first packet, bytes.
const INITIAL_PACKET: f64 = 1400.0;
/// The granularity of the hosts' timers (RFC 4654 §3.7's ts_gran, 10 ms): the agent's silence is measured in units
/// of at least one packet interval plus this, as TFMCC bounds R_max (RFC 4654 §3.2), so that a LAN's RTT of
/// microseconds does not declare an agent silent between two packets.
const TIMER_GRANULARITY: Duration = Duration::from_millis(10);

/// The current agent, as the sender knows it.
#[derive(Clone, Copy, Debug)]
struct Agent {
    addr: IpAddr,
    /// Its capacity, packets/s, from its last report.
    capacity: f64,
    /// Its RTT: the one it reports (§5.3), else the sender's sample.
    rtt: Duration,
    /// The RTT the increase gate compares: the one the sender measured on the agent's last report, moved only
    /// when a sample leaves it by more than [`GATE_RTT_TOLERANCE`] ([`AimdSender::on_agent_report`]).
    gate_rtt: Duration,
    /// Its loss rate, from its last report.
    loss: f64,
    last_report: Instant,
    /// Whether it has sent positive or negative feedback, i.e. clocked the rate.
    clocked: bool,
    /// Whether a data packet naming it as the agent has left (see [`AimdSender::silence_due`]).
    announced: bool,
    /// Whether its last report carried its own RTT: without one it still reports at its initial RTT's pace
    /// ([`AimdSender::silence_unit`]).
    measured: bool,
}

/// The sender half of `aimd`.
#[derive(Debug)]
pub struct AimdSender {
    config: AimdConfig,
    /// The rate, bytes/s.
    x: f64,
    /// Mean packet size, bytes.
    s: f64,
    pacer: RatePacer,
    /// When the last data packet left (the next one is due one interval later, at the current rate).
    last_send: Option<Instant>,
    agent: Option<Agent>,
    /// The first packet sent after the last decrease, and whether none has been sent since it (§5.3's
    /// freshness rule, [`AimdSender::fresh`]).
    first_after_decrease: Option<u32>,
    decrease_unsent: bool,
    /// The last report from anyone, and the last halving for silence.
    last_feedback: Instant,
    last_halving: Instant,
    /// Reports whose timestamp is to be echoed: reporter, its tr, arrival.
    echoes: VecDeque<(IpAddr, u32, Instant)>,
    events: EventQueue,
}

impl AimdSender {
    /// A sender at its initial rate, without an agent.
    pub fn new(config: AimdConfig, now: Instant) -> Self {
        let rtt = config.initial_rtt.max(MIN_RTT).as_secs_f64();
        AimdSender {
            x: config.initial_rate.unwrap_or(INITIAL_PACKET / rtt),
            s: INITIAL_PACKET,
            pacer: RatePacer::new(now),
            last_send: None,
            agent: None,
            first_after_decrease: None,
            decrease_unsent: false,
            last_feedback: now,
            last_halving: now,
            echoes: VecDeque::new(),
            events: EventQueue::default(),
            config,
        }
    }

    /// The sending rate, bytes/s.
    pub fn rate(&self) -> f64 {
        self.x
    }

    fn push(&mut self, e: CcEvent) {
        self.events.push(e);
    }

    /// The rate floor ([`pacer::rate_floor`]).
    /// The agent `addr` is gone (silent or shed): no agent until the next notification.
    fn agent_gone(&mut self, addr: IpAddr) {
        self.agent = None;
        self.push(CcEvent::AckerChanged {
            from: Some(addr),
            to: None,
        });
    }

    fn floor(&self) -> f64 {
        pacer::rate_floor(self.s)
    }

    /// The interval between packets at the current rate.
    fn ipi(&self) -> Duration {
        pacer::interval(self.s, self.x)
    }

    /// A new rate.
    fn set_rate(&mut self, x: f64) {
        self.x = x.max(self.floor());
        // The next packet is due one interval at the new rate after the last: at one packet per 8 s a raise
        // would otherwise wait out the old interval, and the feedback that validates it with it (§5.3).
        if let Some(last) = self.last_send {
            self.pacer.reschedule(last + self.ipi());
        }
    }

    /// Halve the rate (§5.3 negative feedback, §6.3 agent switch, or the agent's silence).
    fn halve(&mut self, cause: ReductionCause) {
        let before = self.x;
        self.set_rate(self.x / 2.0);
        // §5.3: feedback about packets sent before the decrease is ignored from now on.
        self.decrease_unsent = true;
        self.push(CcEvent::Reduced {
            before,
            after: self.x,
            cause,
        });
    }

    /// Whether feedback about `sqn` is about packets sent after the last decrease. §5.3: "the source only adapts
    /// to PF/NF with the sequence number higher than that of the first data packet sent after last rate
    /// adjustment. This delay in action ensures that the source only adapts to newly experienced congestion."
    /// The rule is read as guarding against congestion already answered, so the adjustment it counts from is a
    /// decrease: applied after increases too, it would void the PF that follows every raise (that PF leaves the
    /// agent before the first packet at the new rate arrives) and the rate would rise one packet every second RTT
    /// against the same section's "increased one packet every RTT"; it would also void every loss of a packet
    /// sent in the RTT before each raise. TCP, which §5.3 emulates, does the same: one reduction per window of
    /// losses, an increase on every ACK.
    fn fresh(&self, sqn: u32) -> bool {
        !self.decrease_unsent && self.first_after_decrease.is_none_or(|first| seq::gt(sqn, first))
    }

    fn queue_echo(&mut self, addr: IpAddr, tr: u32, now: Instant) {
        self.echoes.retain(|(a, _, _)| *a != addr);
        if self.echoes.len() >= MAX_PENDING_ECHOES {
            self.echoes.pop_front();
        }
        self.echoes.push_back((addr, tr, now));
    }

    /// One report (§5.1, §5.3).
    pub fn on_report(&mut self, now: Instant, r: &AimdReport) {
        let Some(sample) = since(stamp(now), r.ts_echo).filter(|d| *d <= MAX_PLAUSIBLE_RTT) else {
            return;
        };
        let rtt = if r.rtt_us > 0 {
            Duration::from_micros(u64::from(r.rtt_us))
        } else {
            sample
        }
        .max(MIN_RTT);
        let loss = f64::from(r.loss.0).clamp(0.0, 1.0);
        let c = capacity(rtt.as_secs_f64(), loss);
        self.last_feedback = now;
        self.queue_echo(r.reporter, r.tr, now);
        self.push(CcEvent::Report {
            receiver: r.reporter,
            loss: Some(loss),
            rtt_s: Some(rtt.as_secs_f64()),
            rate_bps: Some(c * self.s).filter(|r| r.is_finite()),
        });
        let heard = Agent {
            addr: r.reporter,
            capacity: c,
            gate_rtt: sample.max(MIN_RTT),
            rtt,
            loss,
            last_report: now,
            clocked: false,
            announced: false,
            measured: r.rtt_us > 0,
        };
        match (self.agent, r.kind) {
            (Some(a), _) if a.addr == r.reporter => self.on_agent_report(a, heard, r),
            (None, ReportKind::Congestion) => {
                // §5.1: "the sender selects the worst among all receivers who send a CN, as a new agent".
                self.agent = Some(heard);
                self.push(CcEvent::AckerChanged {
                    from: None,
                    to: Some(r.reporter),
                });
            }
            (Some(a), ReportKind::Congestion) if c < a.capacity => {
                self.agent = Some(heard);
                self.push(CcEvent::AckerChanged {
                    from: Some(a.addr),
                    to: Some(r.reporter),
                });
                if self.config.halve_on_switch && a.clocked {
                    // §6.3: "When sender switches agent, it drops its transmission rate to half." An agent that has
                    // sent no feedback yet never clocked the rate: replacing it is still the election, "the
                    // sender selects the worst among all receivers who send a CN" (§5.1), not a switch. (At the
                    // start every receiver notifies within one back-off; halving on each would take the rate
                    // to its floor before the first feedback.)
                    self.halve(ReductionCause::Loss);
                }
            }
            // A notification no worse than the agent, or feedback from a former agent.
            _ => {}
        }
    }

    /// The agent's report: its positive or negative feedback moves the rate (§5.3).
    ///
    /// §5.3: "the rate is increased one packet every RTT, where the RTT is reported by the agent", and "it
    /// increases its rate only if a PF indicates an increasing capacity. In other words, if there is queue building
    /// up in the network resulting in an increasing RTT and decreasing capacity, the source anticipates it and does
    /// not increase its rate." The step uses the agent's reported (smoothed) RTT; the capacity that gates it uses
    /// the RTT the sender measures on this very PF (§5.4: the agents "send feedback frequently to the source, thus
    /// allowing the sender to measure the RTT"). A smoothed RTT with TCP's gain of 1/8 and one sample per RTT
    /// lags a queue by about eight RTTs, longer than a whole AIMD cycle at the fair shares of §6.1: it still falls
    /// from the last drain while the queue refills, the gate never closes, and the rate-based source, which has no
    /// ACK clock to slow it, overshoots until the loss comes back (sw-fig2 at 60 ms, drop-tail: 12% of the packets
    /// lost against the paper's "around 3%" and 1.4% for 20 TCP flows in its place; gated on the fresh sample
    /// 2.4%). The price is the paper's too: a gate on single samples closes whenever queueing jitter lifts the
    /// RTT, so beside a loss-driven TCP that keeps a queue, or on a jittery path, the rate grows more slowly
    /// (sw-fig6, compare-matrix). [`AimdConfig::gate_on_sampled_rtt`] = false restores the smoothed gate.
    fn on_agent_report(&mut self, before: Agent, mut now_known: Agent, r: &AimdReport) {
        now_known.clocked = before.clocked || r.kind != ReportKind::Congestion;
        now_known.announced = before.announced;
        if now_known.gate_rtt.abs_diff(before.gate_rtt) <= GATE_RTT_TOLERANCE {
            now_known.gate_rtt = before.gate_rtt;
        }
        self.agent = Some(now_known);
        if !self.fresh(r.sqn) {
            return;
        }
        match r.kind {
            ReportKind::Negative => self.halve(ReductionCause::Loss),
            ReportKind::Positive if self.capacity_held(&before, &now_known) => {
                self.set_rate(self.x + self.increase_step(now_known.rtt));
            }
            _ => {}
        }
    }

    /// The additive increase on one PF, bytes/s: one packet per RTT (§5.3), the RTT at least the timer
    /// granularity. The agent reports once per RTT but not more often than every 10 ms (the receiver's
    /// `MIN_FEEDBACK_INTERVAL`), so the loop cannot correct the rate sooner than that. On a LAN (RTTs of a tenth
    /// of a millisecond, taken as [`MIN_RTT`]) s/RTT added 11 Mbit/s per PF, every 10 ms: with an agent behind an
    /// unshaped link the session went far past a 10 Mbit/s bottleneck between two agent switches (namespace lab:
    /// 19–21% of the packets dropped at its tbf; 2–4% with this bound). RFC 4654 §3.7 bounds TFMCC's RTTs by the
    /// same ts_gran.
    fn increase_step(&self, rtt: Duration) -> f64 {
        self.s / rtt.max(TIMER_GRANULARITY).as_secs_f64()
    }

    /// Whether the agent's capacity did not fall between two reports: with the RTTs the sender measured on them,
    /// or, if so configured, with the RTTs the agent reported ([`AimdConfig::gate_on_sampled_rtt`]).
    fn capacity_held(&self, before: &Agent, now: &Agent) -> bool {
        if self.config.gate_on_sampled_rtt {
            capacity(now.gate_rtt.as_secs_f64(), now.loss) >= capacity(before.gate_rtt.as_secs_f64(), before.loss)
        } else {
            now.capacity >= before.capacity
        }
    }

    /// The unit of the agent's silence: the RTT it paces its reports by (§5.3), at least one packet interval plus
    /// the timer granularity. An agent whose reports carry no RTT has no sample yet and reports once per initial
    /// RTT: judged by the sender's own sample instead (a tenth of it on the 40 ms paths of compare-matrix), it
    /// was declared silent, and the rate halved, before its first report could come (with parity, seed 2: the
    /// rate spiralled to 6.7 kbit/s within 9 s).
    fn silence_unit(&self, a: &Agent) -> Duration {
        let paced_by = if a.measured { a.rtt } else { a.rtt.max(self.config.initial_rtt) };
        paced_by.max(self.ipi() + TIMER_GRANULARITY)
    }

    /// When the silence rules next act. An agent learns its role from the data packets that name it (§5.1), so
    /// its silence counts from the first of them that leaves, not from its notification: under repairs charged
    /// to the rate, up to three repairs go before that packet (`REPAIRS_PER_ODATA`), four packet intervals,
    /// as long as the four silence units themselves, and an agent switch at a low rate could be followed by a
    /// halving for a silence the agent could not have avoided (traced on compare-matrix's parity row, seed 2).
    fn silence_due(&self) -> Option<Instant> {
        match self.agent {
            Some(a) if !a.announced => None,
            Some(a) => {
                let unit = self.silence_unit(&a);
                let gone = a.last_report + unit * SILENCE_GONE_RTTS;
                let halve = a.last_report.max(self.last_halving) + unit * SILENCE_HALVE_RTTS;
                Some(gone.min(halve))
            }
            None => Some(self.last_feedback.max(self.last_halving) + self.config.initial_rtt * SILENCE_GONE_RTTS),
        }
    }
}

impl SenderController for AimdSender {
    fn permit(&self, now: Instant) -> Permit {
        self.pacer.permit(now, Duration::ZERO)
    }

    fn on_data_sent(&mut self, now: Instant, sqn: u32, len: usize, options: &mut OptionsRepr) {
        self.s = 0.9 * self.s + 0.1 * len as f64;
        // An idle sender does not bank credit beyond one interval.
        self.pacer.sent(now, self.ipi(), self.ipi());
        self.last_send = Some(now);
        if self.decrease_unsent {
            self.first_after_decrease = Some(sqn);
            self.decrease_unsent = false;
        }
        if let Some(a) = self.agent.as_mut().filter(|a| !a.announced) {
            // Its silence counts from here ([`AimdSender::silence_due`]).
            a.announced = true;
            a.last_report = now;
        }
        options.cc.aimd.data = Some(AimdData {
            ts: stamp(now),
            x: WireRate::from_bps(to_bps(self.x)),
            agent: self.agent.map(|a| (a.addr, WireRate(a.capacity.min(f64::from(f32::MAX)) as f32))),
        });
        options.cc.aimd.echo = self.echoes.pop_front().map(|(receiver, tr, arrived)| AimdEcho {
            receiver,
            tr_echo: tr.wrapping_add(micros(now.saturating_duration_since(arrived))),
        });
    }

    /// A repair takes its share of the rate: the next packet waits `len / X` longer (§5.4).
    fn on_repair_sent(&mut self, now: Instant, len: usize) {
        let spacing = Duration::from_secs_f64(len as f64 / self.x.max(self.floor()));
        self.pacer.sent(now, spacing, self.ipi());
        self.last_send = Some(now);
    }

    fn on_feedback(&mut self, now: Instant, _from: IpAddr, packet: &PacketRepr<'_>) {
        if let Some(r) = packet.options.cc.aimd.report {
            self.on_report(now, &r);
        }
    }

    /// A shed agent goes as a silent one does (§5.1), without the halving: every receiver may notify again,
    /// and the first to do so takes over.
    fn forget(&mut self, _now: Instant, receiver: IpAddr) {
        if self.agent.is_some_and(|a| a.addr == receiver) {
            self.agent_gone(receiver);
        }
    }

    fn on_timeout(&mut self, now: Instant) {
        if self.silence_due().is_none_or(|due| now < due) {
            return;
        }
        self.last_halving = now;
        if let Some(a) = self.agent.filter(|a| now >= a.last_report + self.silence_unit(a) * SILENCE_GONE_RTTS) {
            // The agent is gone: every receiver may notify again (§5.1), and the first to do so takes over.
            self.agent_gone(a.addr);
        }
        self.halve(ReductionCause::Timeout);
    }

    fn poll_timeout(&self) -> Option<Instant> {
        self.silence_due()
    }

    fn poll_event(&mut self) -> Option<CcEvent> {
        self.events.pop()
    }

    fn snapshot(&self) -> CcSnapshot {
        CcSnapshot {
            window: None,
            tokens: None,
            rate_bps: Some(self.x),
            acker: self.agent.map(|a| a.addr),
            srtt_s: self.agent.map(|a| a.rtt.as_secs_f64()),
            acker_loss: self.agent.map(|a| a.loss),
            consecutive_timeouts: 0,
        }
    }
}
