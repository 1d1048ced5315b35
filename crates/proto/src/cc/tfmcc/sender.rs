//! The TFMCC sender (RFC 4654 §3; docs/tfmcc-rules.md §1, §3 "Sender").

use crate::cc::wire_clock::{from_bps, micros, since, stamp, to_bps};
use super::TfmccConfig;
use crate::cc::event_queue::EventQueue;
use crate::cc::pacer::{self, RatePacer};
use crate::cc::{CcEvent, CcSnapshot, Permit, ReductionCause, SenderController};
use crate::time::Instant;
use convoy_wire::cc::tfmcc::{TfmccData, TfmccEcho, TfmccFeedback, WireRate};
use convoy_wire::{OptionsRepr, PacketRepr};
use std::collections::VecDeque;
use std::net::IpAddr;
use std::time::Duration;

/// Round-trip samples above this are taken for garbage (wrapped or forged timestamps).
const MAX_PLAUSIBLE_RTT: Duration = Duration::from_secs(120);
/// Minimum RTT value (§3.2).
const MIN_RTT: Duration = Duration::from_millis(1);
/// Receivers whose echo waits (§3.5); beyond it the oldest is dropped.
const MAX_PENDING_ECHOES: usize = 64;

/// The current limiting receiver.
#[derive(Clone, Copy, Debug)]
struct Clr {
    addr: IpAddr,
    /// When it became the CLR.
    since: Instant,
    /// Its last report's arrival.
    last_report: Instant,
    /// Its RTT as the sender measured it.
    rtt: Duration,
    /// Its last report said it is leaving (§4.2).
    leaving: bool,
    /// Its last report's tr_r and when it arrived (for the echo).
    tr: u32,
    /// The feedback round in which a data packet last echoed it.
    echoed_round: Option<u16>,
}

/// A receiver waiting for its timestamp echo (§3.5).
#[derive(Clone, Copy, Debug)]
struct PendingEcho {
    addr: IpAddr,
    tr: u32,
    arrived: Instant,
    /// 1 (highest) … 3 (§3.5: a new CLR or a CLR without RTT; receivers without RTT; other non-CLRs).
    priority: u8,
    /// The feedback round its report answered: within a priority the oldest round goes first (§3.5).
    fb_nr: u16,
    rate: f64,
}

/// TFMCC sender: the rate, the CLR, feedback rounds, R_max and X_supp.
#[derive(Debug)]
pub struct TfmccSender {
    config: TfmccConfig,
    /// X, bytes/s.
    pub(super) x: f64,
    /// Mean packet size s, bytes.
    s: f64,
    /// The nominal send time of the next packet (§3.7).
    pacer: RatePacer,
    /// R_max (§3.2).
    pub(super) r_max: Duration,
    /// R_max without its packet-interval floor: the initial value (§3.1), raised at once by a larger RTT and
    /// decayed to the round's peak (§3.2). The RTT of the increase limit ([`TfmccSender::increase_rtt`]).
    rtt_bound: Duration,
    /// The round's largest RTT, and whether an RTT above R_max was seen in it.
    r_peak: Duration,
    r_max_raised: bool,
    /// fb_nr, its start, and whether non-CLR feedback for it arrived (§3.4).
    pub(super) fb_nr: u16,
    round_start: Instant,
    round_feedback: bool,
    /// X_supp, bytes/s (infinite = "maximum").
    pub(super) x_supp: f64,
    clr: Option<Clr>,
    /// No increase above this before this instant (case 3 of §3.3).
    hold_until: Option<Instant>,
    /// X when the last data packet was sent (X', recorded when the sender stops, §3.6).
    x_at_last_send: Option<f64>,
    /// Slowstart after an idle period ends at this rate (X', §3.6).
    restart_to: Option<f64>,
    /// Slowstart until the first report with have_loss (§3.6).
    pub(super) slowstart: bool,
    /// Slowstart's target for this feedback round, and the reports that make the next one: the lowest of the other
    /// receivers' and the CLR's latest (see [`TfmccSender::slowstart_target`]).
    ss_target: f64,
    ss_others: f64,
    ss_clr_latest: f64,
    /// The last rate increase (the 8s/R_max per R_max cap, §3.3).
    last_raise: Instant,
    /// The last report from anyone, and the last halving for silence (§3.3).
    last_feedback: Instant,
    last_halving: Instant,
    pending: VecDeque<PendingEcho>,
    events: EventQueue,
}

impl TfmccSender {
    /// A sender at X = 1 packet per R_max (§3.1), in slowstart, without a CLR.
    pub fn new(config: TfmccConfig, now: Instant) -> Self {
        let s = 1400.0;
        let r_max = config.initial_rtt.max(MIN_RTT);
        TfmccSender {
            x: s / r_max.as_secs_f64(),
            s,
            pacer: RatePacer::new(now),
            r_max,
            rtt_bound: r_max,
            r_peak: Duration::ZERO,
            r_max_raised: false,
            fb_nr: 0,
            round_start: now,
            round_feedback: false,
            x_supp: f64::INFINITY,
            clr: None,
            hold_until: None,
            x_at_last_send: None,
            restart_to: None,
            slowstart: true,
            ss_target: 2.0 * s / r_max.as_secs_f64(),
            ss_others: f64::INFINITY,
            ss_clr_latest: f64::INFINITY,
            last_raise: now,
            last_feedback: now,
            last_halving: now,
            pending: VecDeque::new(),
            events: EventQueue::default(),
            config,
        }
    }

    fn push(&mut self, e: CcEvent) {
        self.events.push(e);
    }

    /// The rate floor ([`pacer::rate_floor`]).
    fn floor(&self) -> f64 {
        pacer::rate_floor(self.s)
    }

    /// The interval between packets at the current rate.
    fn ipi(&self) -> Duration {
        pacer::interval(self.s, self.x)
    }

    /// R_max in seconds.
    fn r_max_s(&self) -> f64 {
        self.r_max.as_secs_f64()
    }

    /// The RTT of the increase limit: R_max without the floor ([`TfmccSender::rtt_bound`]). RFC 4654 §3.3 limits
    /// increases to "8s/R_max bits/s every R_max", one packet per RTT, TCP's additive increase (the paper §2.2:
    /// "we impose a rate increase limit of one packet per RTT"). The floor §3.2 puts under R_max, one packet
    /// interval plus ts_gran, is there so that a feedback round holds packets; applied to the increase, it made
    /// TFMCC at start-up rates (6–50 kbit/s, intervals of 0.2–2 s) climb by one packet per packet interval
    /// squared: ~3 kbit/s per second beside TCP at a 130 ms RTT, 10–100 times slower than one packet per RTT.
    ///
    /// R_max's initial value and its decay stay: R_max speaks for the receivers not heard from yet (they get their
    /// RTTs measured about one a feedback round, the paper §4.3). The largest RTT *measured* (UFTP's grtt, used here
    /// before) ramped a LAN session with 1 ms RTTs to 134 Mbit/s within 0.1 s of slowstart's end, before a
    /// receiver behind 10 Mbit/s had its turn to report; it lost 20–30% of the data, and its loss history held
    /// the session near 0.1 Mbit/s for 20 s after (scenarios/examples/tfmcc-lan-fleet.toml).
    fn increase_rtt(&self) -> f64 {
        self.rtt_bound.max(MIN_RTT).as_secs_f64()
    }

    /// Raise X towards `target`, by at most s/R per R since the last raise, R = R_max without its floor (§3.3
    /// cases 1 and 4, [`TfmccSender::increase_rtt`]); in slowstart by at most a doubling per RTT (§3.6). Lowering
    /// is immediate. While an increase is held (case 3), no increase credit builds up.
    fn move_to(&mut self, now: Instant, target: f64, rtt: Duration) {
        let target = if self.slowstart {
            target.min(self.slowstart_target())
        } else {
            target
        };
        if target <= self.x {
            self.x = target.max(self.floor());
            self.last_raise = now;
            return;
        }
        if self.hold_until.is_some_and(|t| now < t) {
            return;
        }
        // §3.3 case 3: "do not increase for one round"; the limit counts from the hold's end, not from before it
        // (six packets per R_max at once after a round's hold otherwise).
        let from = self.hold_until.map_or(self.last_raise, |t| t.max(self.last_raise));
        let elapsed = now.saturating_duration_since(from).as_secs_f64();
        let r = self.increase_rtt();
        let linear = self.s / r * (elapsed / r);
        let step = if self.slowstart {
            (self.x * elapsed / rtt.max(MIN_RTT).as_secs_f64()).max(linear)
        } else {
            linear
        };
        self.x = (self.x + step).min(target);
        self.last_raise = now;
        if self.restart_to.is_some_and(|x_before| self.x >= x_before) {
            // §3.6: the slowstart after idle ends as soon as X' is reached.
            self.slowstart = false;
            self.restart_to = None;
        }
    }

    fn set_clr(&mut self, now: Instant, addr: IpAddr, rtt: Duration, tr: u32, leaving: bool) {
        let from = self.clr.map(|c| c.addr);
        if from != Some(addr) {
            self.push(CcEvent::AckerChanged {
                from,
                to: Some(addr),
            });
            // §3.5: a new CLR's echo comes first; a former CLR still waiting for its echo is a receiver like the
            // others again.
            for p in self.pending.iter_mut().filter(|p| p.priority == 1) {
                p.priority = 2;
            }
            self.queue_echo(PendingEcho {
                addr,
                tr,
                arrived: now,
                priority: 1,
                fb_nr: self.fb_nr,
                rate: 0.0,
            });
        }
        let (since, echoed_round) = match self.clr {
            Some(c) if c.addr == addr => (c.since, c.echoed_round),
            _ => (now, None),
        };
        self.clr = Some(Clr {
            addr,
            since,
            last_report: now,
            rtt,
            leaving,
            tr,
            echoed_round,
        });
    }

    fn queue_echo(&mut self, e: PendingEcho) {
        self.pending.retain(|p| p.addr != e.addr);
        if self.pending.len() >= MAX_PENDING_ECHOES {
            self.pending.pop_front();
        }
        self.pending.push_back(e);
    }

    /// The echo of this packet (§3.5): a new CLR's first; then the CLR's once per feedback round; then the highest
    /// priority, within it the report of the oldest feedback round ("receivers [...] with the oldest fb_nr
    /// first"), the lowest rate among equals; else the CLR's.
    ///
    /// Once per round (RFC 4654's packet scheduling: "include the CLR at least once per round") is what lets a
    /// CLR that lost the packet naming it learn its role: with thousands of receivers reporting, their echoes
    /// fill every packet at low rates. Traced at 10,000 receivers with 10% loss and one packet per second: a CLR
    /// whose one echo was lost never reported, was dropped after 10 R_max of silence (§3.3) and the rate halved,
    /// again and again, down to the floor.
    fn take_echo(&mut self, now: Instant) -> Option<TfmccEcho> {
        let clr = self.clr.map(|c| c.addr);
        let age = |p: &PendingEcho| self.fb_nr.wrapping_sub(p.fb_nr);
        let best = (0..self.pending.len()).min_by(|&a, &b| {
            let (p, q) = (&self.pending[a], &self.pending[b]);
            p.priority
                .cmp(&q.priority)
                .then(age(q).cmp(&age(p)))
                .then(p.rate.total_cmp(&q.rate))
        });
        let new_clr = best.filter(|&i| self.pending[i].priority == 1);
        let clr_due = self
            .clr
            .is_some_and(|c| c.echoed_round != Some(self.fb_nr));
        let pick = if clr_due { new_clr } else { best };
        let (addr, tr, arrived) = match pick.and_then(|i| self.pending.remove(i)) {
            Some(p) => (p.addr, p.tr, p.arrived),
            None => {
                let c = self.clr?;
                (c.addr, c.tr, c.last_report)
            }
        };
        let fb_nr = self.fb_nr;
        if let Some(c) = self.clr.as_mut().filter(|c| c.addr == addr) {
            c.echoed_round = Some(fb_nr);
        }
        Some(TfmccEcho {
            receiver: addr,
            tr_echo: tr.wrapping_add(micros(now.saturating_duration_since(arrived))),
            is_clr: clr == Some(addr),
        })
    }

    /// The most slowstart may raise X to in this feedback round: the lowest slowstart report of the round before
    /// (the CLR's latest, every other receiver's), twice the initial rate in the first round.
    ///
    /// RFC 4654 §3.6 limits the increase "to the minimum of the rates included in the receiver reports" and lets
    /// the sender approach its target over an RTT; the CLR reports once per RTT, every other receiver once per
    /// round at most. Following the CLR's reports as they come let a CLR behind a fast path double the rate every
    /// RTT while a receiver behind a slow path waited for its feedback timer (up to a round, 6·R_max): on a LAN
    /// (RTT 1 ms, rounds of 3 s) the simulator and the namespace lab both saw the rate reach many times a 20 Mbit/s
    /// receiver's path before its report arrived, and that receiver needed a repair for most packets. The TFMCC
    /// paper (§2.6) describes the behaviour this rule gives: "the target sending rate is increased only when
    /// feedback of a new feedback round is received, thus doubling is possible not every RTT but every feedback
    /// delay". Reports below X still lower it at once (§3.3 case 2).
    fn slowstart_target(&self) -> f64 {
        self.ss_target.min(self.restart_to.unwrap_or(f64::INFINITY))
    }

    /// §3.6, idle restart: "When the sender stops sending data packets, it records the current sending rate
    /// X' = X. Every 10 RTTs, the allowed sending rate will be halved due to lack of receiver feedback [...]. When
    /// the sender resumes, it may perform a slowstart from the current allowed rate up to the recorded rate X'.
    /// Slowstart ends after the first packet loss by any of the receivers or as soon as X' is reached."
    ///
    /// The halvings are counted again here, on the first packet after a pause (the time beyond the instant pacing
    /// allowed it), as a floor under the silence rules (the CLR falls silent without data, and
    /// [`SenderController::on_timeout`] halves then): those stretch as R_max's floor grows with the packet
    /// interval. The receivers have cleared have_loss after 10 R_max without data (§4.3.1) and report twice their
    /// receive rate, which drives the slowstart.
    fn resume_after_idle(&mut self, now: Instant) {
        let Some(x_before) = self.x_at_last_send else {
            return;
        };
        // Idle is the time beyond the instant pacing allowed this packet (a rate just cut has long intervals).
        let idle = now.saturating_duration_since(self.pacer.next()).as_secs_f64();
        let halvings = (idle / (10.0 * self.r_max_s())).floor();
        if halvings < 1.0 {
            return;
        }
        let allowed = (x_before * 0.5f64.powf(halvings.min(64.0))).max(self.floor());
        if allowed < self.x {
            let before = self.x;
            self.x = allowed;
            self.push(CcEvent::Reduced {
                before,
                after: allowed,
                cause: ReductionCause::Timeout,
            });
        }
        if self.x < x_before {
            self.slowstart = true;
            self.restart_to = Some(x_before);
            self.ss_target = 2.0 * self.x;
            self.last_raise = now;
        }
    }

    /// End the feedback round (§3.4): next fb_nr, X_supp back to the maximum, R_max decay (§3.2).
    pub(super) fn end_round(&mut self, now: Instant) {
        self.fb_nr = self.fb_nr.wrapping_add(1);
        let reported = self.ss_others.min(self.ss_clr_latest);
        if reported.is_finite() {
            self.ss_target = reported;
        }
        self.ss_others = f64::INFINITY;
        self.ss_clr_latest = f64::INFINITY;
        self.push(CcEvent::Milestone {
            what: super::ROUND_ENDED,
            value: f64::from(self.fb_nr),
        });
        self.x_supp = f64::INFINITY;
        if !self.r_max_raised && self.r_peak > Duration::ZERO {
            self.r_max = self.r_max.mul_f64(0.9).max(self.r_peak);
        }
        if self.r_peak > Duration::ZERO {
            // The peak is at least any sample that raised the bound in this round.
            self.rtt_bound = self.rtt_bound.mul_f64(0.9).max(self.r_peak);
        }
        // §3.2: R_max ≥ 8s/X + ts_gran, so that a round holds packets.
        self.r_max = self.r_max.max(self.ipi() + self.config.ts_gran);
        self.r_peak = Duration::ZERO;
        self.r_max_raised = false;
        self.round_feedback = false;
        self.round_start = now;
    }

    /// The CLR `addr` is gone (silent, §3.3, or shed): no CLR, and no increase for a round (case 3).
    fn clr_gone(&mut self, now: Instant, addr: IpAddr) {
        self.clr = None;
        self.hold_until = Some(now + self.round_len());
        self.push(CcEvent::AckerChanged {
            from: Some(addr),
            to: None,
        });
    }

    fn round_len(&self) -> Duration {
        self.r_max.mul_f64(self.config.round_rtts)
    }

    /// One receiver report (§3.3, §3.4, §3.6).
    pub fn on_report(&mut self, now: Instant, f: &TfmccFeedback) {
        let Some(rtt) = since(stamp(now), f.ts_echo).filter(|r| *r <= MAX_PLAUSIBLE_RTT) else {
            return;
        };
        let rtt = rtt.max(MIN_RTT);
        self.last_feedback = now;
        let x_r = from_bps(f.x.bps());
        // §3.3: a receiver with a loss but no RTT computed its rate with R_max, the one the sender advertised:
        // X_r' = X_r·R_max/R_r, with R_max as it was before this report raised it (else a receiver whose RTT is
        // above R_max gets the factor 1 and is not made CLR by its first report).
        let x_adj = if f.have_loss && !f.have_rtt {
            x_r * self.r_max_s() / rtt.as_secs_f64()
        } else {
            x_r
        };
        // Before its first loss a receiver reports twice its receive rate (the slowstart report, §3.6, RFC 4654
        // §4.4): the session's own pace, not what its path allows, so it is credited with no rate yet.
        self.push(CcEvent::Report {
            receiver: f.reporter,
            loss: None,
            rtt_s: Some(rtt.as_secs_f64()),
            rate_bps: f.have_loss.then_some(x_adj),
        });
        self.r_peak = self.r_peak.max(rtt);
        self.rtt_bound = self.rtt_bound.max(rtt);
        if rtt > self.r_max {
            self.r_max = rtt;
            self.r_max_raised = true;
        }
        let is_clr = self.clr.is_some_and(|c| c.addr == f.reporter);

        if !is_clr && f.fb_nr == self.fb_nr {
            // §3.4: X_supp = (1 − g)·X_r with the raw rate.
            if self.x_supp > x_r {
                self.x_supp = (1.0 - self.config.g) * x_r;
            }
            self.round_feedback = true;
        }
        if f.have_loss && self.slowstart {
            self.slowstart = false;
            self.restart_to = None;
            self.push(CcEvent::Milestone {
                what: crate::cc::STARTUP_ENDED,
                value: self.x,
            });
        }
        match self.clr {
            None => {
                // Case 1.
                self.set_clr(now, f.reporter, rtt, f.tr, f.leaving);
                self.move_to(now, x_adj, rtt);
            }
            Some(c) if c.addr == f.reporter => {
                // Case 4: X = min(X_r, X + 8s/R_max) per R_max.
                self.set_clr(now, f.reporter, rtt, f.tr, f.leaving);
                self.move_to(now, x_adj, rtt);
            }
            Some(c) if c.leaving => {
                // Case 3: the CLR is leaving; no increase for one round.
                self.set_clr(now, f.reporter, rtt, f.tr, f.leaving);
                if x_adj > self.x {
                    self.hold_until = Some(now + self.round_len());
                }
                self.move_to(now, x_adj, rtt);
            }
            Some(_) if x_adj < self.x && !f.leaving => {
                // Case 2: a slower receiver becomes the CLR at once.
                self.set_clr(now, f.reporter, rtt, f.tr, f.leaving);
                self.x = x_adj.max(self.floor());
                self.last_raise = now;
            }
            Some(_) => {}
        }
        if self.slowstart && !f.have_loss {
            if self.clr.is_some_and(|c| c.addr == f.reporter) {
                self.ss_clr_latest = x_r;
            } else {
                self.ss_others = self.ss_others.min(x_r);
            }
        }
        if !is_clr && self.clr.is_some_and(|c| c.addr != f.reporter) {
            let priority = if f.have_rtt { 3 } else { 2 };
            self.queue_echo(PendingEcho {
                addr: f.reporter,
                tr: f.tr,
                arrived: now,
                priority,
                fb_nr: f.fb_nr,
                rate: x_r,
            });
        }
        if !is_clr && now >= self.round_start + self.round_len() {
            // §3.4: after T the round ends at the first non-CLR report.
            self.end_round(now);
        }
    }

    /// Halve X (CLR silence, no feedback; §3.3), not below the floor.
    fn halve(&mut self, now: Instant) {
        let before = self.x;
        self.x = (self.x / 2.0).max(self.floor());
        self.last_halving = now;
        self.last_raise = now;
        self.push(CcEvent::Reduced {
            before,
            after: self.x,
            cause: ReductionCause::Timeout,
        });
    }

    /// `rtts` R_max of silence, at least two packet intervals: RFC 5348 §4.4's nofeedback timer, max(4R, 2s/X),
    /// leaves room for a receiver that reports only after new data (RFC 4654 §3.3) when packets are further apart
    /// than R_max (X just cut within a round, before §3.2's floor raises R_max at the round's end).
    fn silence(&self, rtts: u32) -> Duration {
        (self.r_max * rtts).max(self.ipi() * 2)
    }

    /// When the silence rules next act.
    fn silence_due(&self) -> Instant {
        let quiet = self.last_halving.max(self.last_feedback);
        match self.clr {
            Some(c) => {
                let gone = c.last_report + self.silence(10);
                let halve = (c.last_report.max(self.last_halving)) + self.silence(4);
                gone.min(halve)
            }
            None => quiet + self.silence(10),
        }
    }
}

impl SenderController for TfmccSender {
    fn permit(&self, now: Instant) -> Permit {
        // §3.7: send when now > t_n − delta, delta = min(ipi, ts_gran)/2.
        let delta = self.ipi().min(self.config.ts_gran) / 2;
        self.pacer.permit(now, delta)
    }

    fn on_data_sent(&mut self, now: Instant, _sqn: u32, len: usize, options: &mut OptionsRepr) {
        self.resume_after_idle(now);
        self.x_at_last_send = Some(self.x);
        self.s = super::mean_packet_size(self.s, len);
        // An idle sender does not bank credit beyond one interval.
        self.pacer.sent(now, self.ipi(), self.ipi());
        let echo = self.take_echo(now);
        options.cc.tfmcc.data = Some(TfmccData {
            ts: stamp(now),
            x_supp: WireRate::from_bps(to_bps(self.x_supp)),
            x: WireRate::from_bps(to_bps(self.x)),
            r_max_us: micros(self.r_max),
            fb_nr: self.fb_nr,
            echo,
        });
    }

    /// A repair takes its share of the rate: the next packet waits `len / X` longer (RFC 4654 §3 paces all the
    /// sender's packets at X; Shi–Waldvogel §5.4).
    fn on_repair_sent(&mut self, now: Instant, len: usize) {
        let spacing = Duration::from_secs_f64(len as f64 / self.x.max(self.floor()));
        self.pacer.sent(now, spacing, self.ipi());
    }

    fn on_feedback(&mut self, now: Instant, _from: IpAddr, packet: &PacketRepr<'_>) {
        if let Some(f) = packet.options.cc.tfmcc.feedback {
            self.on_report(now, &f);
        }
    }

    /// A shed CLR goes as a silent one does (§3.3), without the halving: the next report takes over, with no
    /// increase for a round.
    fn forget(&mut self, now: Instant, receiver: IpAddr) {
        if self.clr.is_some_and(|c| c.addr == receiver) {
            self.clr_gone(now, receiver);
        }
    }

    fn on_timeout(&mut self, now: Instant) {
        let t = self.round_len();
        if now >= self.round_start + t * 2 || (now >= self.round_start + t && self.round_feedback) {
            self.end_round(now);
        }
        if now < self.silence_due() {
            return;
        }
        match self.clr {
            Some(c) if now >= c.last_report + self.silence(10) => {
                // §3.3: the CLR is gone; the next report takes over (case 3: no increase for a round).
                self.clr_gone(now, c.addr);
                self.halve(now);
            }
            Some(c) => {
                // §3.3: halve after 4 RTTs of CLR silence, unless the CLR is younger than 10 RTTs.
                if now >= c.since + self.r_max * 10 {
                    self.halve(now);
                } else {
                    self.last_halving = now;
                }
            }
            None => self.halve(now),
        }
    }

    fn poll_timeout(&self) -> Option<Instant> {
        let t = self.round_len();
        let round = if self.round_feedback {
            self.round_start + t
        } else {
            self.round_start + t * 2
        };
        Some(round.min(self.silence_due()))
    }

    fn poll_event(&mut self) -> Option<CcEvent> {
        self.events.pop()
    }

    fn snapshot(&self) -> CcSnapshot {
        CcSnapshot {
            window: None,
            tokens: None,
            rate_bps: Some(self.x),
            acker: self.clr.map(|c| c.addr),
            srtt_s: self.clr.map(|c| c.rtt.as_secs_f64()),
            acker_loss: None,
            consecutive_timeouts: 0,
        }
    }
}
