//! How pgmcc's window opens at the start of a session ([`StartUp`]), and the state that ends the exponential
//! opening ([`StartUpExit`]).
//!
//! The paper (§3.4) and the draft (§2.2) open the window exponentially only up to a fixed threshold (6 packets
//! in the paper, 4 in the draft) and linearly after it: safe with many receivers, but a 100 Mbit/s path with a
//! 40 ms RTT then takes about 13 s to fill (`scenarios/examples/pgmcc-startup-fat-path.toml`), where a TCP flow's
//! slow start takes 0.3 s.
//!
//! [`StartUp::UntilCongestion`] opens exponentially (one packet per acknowledged packet, draft §2.2's opening
//! below SSTHRESH) until the first sign of congestion on any receiver's path, then freezes the threshold at the
//! window reached, and pgmcc goes on as the paper says:
//! - a loss at the acker (the window also halves, paper §3.4);
//! - a NAK from any receiver: a receiver that is not the acker has lost data, and its path is the one a fast
//!   acker could drive the window past (paper §3.6 elects the slowest receiver only once it reports);
//! - the acker's RTT rising, as TCP's HyStart++ detects a queue building before it overflows (RFC 9406 §4.2):
//!   a round lasts until the packets sent when it began are acknowledged; once a round has 8 RTT samples, its
//!   smallest one exceeding the previous round's smallest by η = that RTT / 8, clamped to 4–16 ms, ends the
//!   opening. Minima per round, not single samples: within a round the opening's own bursts queue for a moment.
//! - a feedback timeout (the threshold becomes half the window before it, at least the paper's threshold).
//!
//! Afterwards every loss at the acker and every timeout lower the threshold to half the window, as TCP's do
//! (RFC 5681 §3.1), never below the paper's: the threshold is where the opening stopped, not the paper's small
//! constant, and a window halved below it would otherwise open exponentially again up to the overshoot.
//!
//! **Many receivers.** A window clocked by one acker opens on that acker's path only. When a receiver on a fast
//! path is elected first (the first answer wins, paper §3.6), the window doubles per fast RTT while a receiver
//! behind a slow link loses what overflows its queue, and its first NAK comes only after the packets behind the
//! lost ones have crossed that full queue. TFMCC's slowstart bounds its rate by twice the lowest receive rate
//! the receivers report (RFC 4654 §4.3); pgmcc's start-up does the same, in its own terms:
//! - receivers whose path spreads the source's packets out measure and report the rate they receive at
//!   (module `dispersion`, OPT_CONVOY_RX_RATE on an ACK, which the source reads as a report only unless it
//!   comes from the acker, as OpenPGM's receivers answer election requests); the source echoes the
//!   lowest rate reported (OPT_CONVOY_START_UP) so that only a lower one is sent (RFC 4654 §4.4);
//! - the receiver reporting the lowest rate becomes the acker at once ([`StartUpExit::on_rate_report`]): before
//!   any loss the throughput comparison of paper §3.5 has no loss rate to compare, and the receive rate measures
//!   the path directly. Its ACKs then clock the window — TCP's slow start on the slowest path known — and the
//!   delay test above watches its RTT;
//! - the window is kept within twice that rate times that receiver's RTT ([`StartUpExit::window_cap`]), so the
//!   ACKs of the acker it replaced (paper §3.5: they count for the packets that named it) cannot carry it past
//!   the slow path, and never below the paper's fixed threshold, which the paper's start-up reaches blind.
//!
//! A report bounds the window for [`REPORT_LIFETIME_RTTS`] of its receiver's RTTs, then lapses unless the receiver
//! reported again (RFC 4654 §4.3 bounds by the reports of the current feedback round): by then the slow
//! receiver's ACKs clock the window, and a rate measured low by accident (cross traffic for a moment, a receiver
//! that read its socket late) cannot hold the opening back for ever. With the bound gone the echo returns to 0,
//! so a path still slower than the sender reports again at its next spread train; the lapsed rate still stands
//! against other receivers' reports, so that a faster one does not take the acker role back.
//!
//! **Sub-millisecond RTTs.** An acker's ACK clock on a LAN turns every ~100 µs: a window of 6 packets is then
//! already 60,000 packets per second, and it doubles 40 times in the 4 ms the delay test needs to see a queue
//! (η is at least 4 ms, RFC 9406 §4.3's MIN_RTT_THRESH), or in the few milliseconds a receiver behind a slower
//! link needs before its path spreads a train ([`super::dispersion::PROBE_PACKETS`] packets at its rate). The
//! opening outruns both of its signals and sends most of a small file past the slow path's queue before that
//! receiver can say anything (measured on the wire: 300–570 of 1,430 packets lost behind a 2 Mbit/s bottleneck
//! with a 64 KB queue). So while the opening runs the source also paces its data ([`OpeningPace`]) when the
//! acker's smoothed RTT is shorter than [`PgmccConfig::opening_round_min`] (default [`OPENING_ROUND_MIN`], that
//! same 4 ms): ln 2 · W packets per round, so that the window, opened by one packet per ACK, doubles once per
//! round — TCP's slow start on a path whose RTT is that floor. Paths with longer RTTs are not paced: their ACK
//! clock is already slow enough for the signals. On such paths the bound counts the RTT as the round too
//! ([`StartUpExit::window_cap`]), so that it bounds the paced rate at twice the reported one, and a report's
//! lifetime lasts at least two rounds. When the opening ends while the pace held tokens back, the window is
//! realigned to the packets in flight (the sender's `end_start_up`), so they do not leave as one burst.
//!
//! [`PgmccConfig::opening_round_min`]: super::PgmccConfig::opening_round_min
//!
//! What remains is what the slow receiver's first report takes to come: [`super::dispersion::PROBE_PACKETS`]
//! packets at its path's rate plus its path's delay back; what the source sends beyond the slow path's queue
//! meanwhile is lost, as the first overshoot of a TCP slow start on that path is.

use super::dispersion::{rate_to_wire, REPORT_BELOW};
use crate::named::Named;
use crate::seq;
use crate::time::Instant;
use std::net::IpAddr;
use std::time::Duration;

/// How the window opens at the start of a session.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StartUp {
    /// Paper §3.4, draft §2.2: exponential opening up to the fixed `ssthresh`, then one packet per RTT.
    #[default]
    FixedThreshold,
    /// Exponential opening until the first sign of congestion (module docs).
    UntilCongestion,
}

impl Named for StartUp {
    /// Scenario key `start` and `convoy send --pgmcc-start`.
    const CHOICES: &'static [(&'static str, Self)] = &[
        ("paper", StartUp::FixedThreshold),
        ("until-congestion", StartUp::UntilCongestion),
    ];
}

/// RFC 9406 §4.3: RTT samples a round needs before its delay test (N_RTT_SAMPLE).
const DELAY_SAMPLES_MIN: u32 = 8;
/// RFC 9406 §4.3: the bounds on the delay threshold η (MIN_RTT_THRESH, MAX_RTT_THRESH).
const DELAY_ETA_MIN: Duration = Duration::from_millis(4);
const DELAY_ETA_MAX: Duration = Duration::from_millis(16);

/// The receiver with the lowest receive rate reported during the opening (module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
struct SlowestPath {
    receiver: IpAddr,
    /// Packets per second.
    rate: f64,
    /// Its RTT when it reported, if measurable in seconds.
    rtt: Option<Duration>,
    /// When it last reported.
    at: Instant,
    /// Whether its report still bounds the window (module docs: it lapses).
    live: bool,
}

/// A report bounds the window for this many of its receiver's RTTs, unless renewed.
pub const REPORT_LIFETIME_RTTS: u32 = 2;

/// The shortest round the opening assumes (module docs): RFC 9406 §4.3's MIN_RTT_THRESH, the smallest delay
/// rise the delay test acts on.
pub const OPENING_ROUND_MIN: Duration = Duration::from_millis(4);

/// When the opening's next data packet may leave, on paths whose RTT is shorter than its shortest round
/// (module docs, "Sub-millisecond RTTs").
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct OpeningPace {
    /// When the last data packet left.
    last: Option<Instant>,
}

impl OpeningPace {
    /// The earliest instant the next data packet may leave with the window at `window` packets and the
    /// acker's smoothed RTT `srtt`: `round_min / (window · ln 2)` after the last one when the RTT is shorter
    /// than `round_min` (or not known yet); `None` (at once) otherwise. The window counts as it is now, so the
    /// pace quickens with every ACK that opens it; an idle sender earns no burst.
    ///
    /// Why ln 2: on such a path each packet's ACK is back long before the next leaves, and each opens the
    /// window by one, so the window grows at the pace's rate: dW/dt = ln 2 · W / round_min, one doubling per
    /// round, as TCP's slow start doubles once per RTT. At W per round the window would grow e-fold per round
    /// instead (one doubling per 0.69 rounds).
    pub fn earliest(&self, window: f64, srtt: Option<Duration>, round_min: Duration) -> Option<Instant> {
        let last = self.last?;
        if srtt.is_some_and(|r| r >= round_min) {
            return None;
        }
        let per_second = std::f64::consts::LN_2 * window.max(1.0) / round_min.as_secs_f64();
        Some(last + Duration::from_secs_f64(1.0 / per_second))
    }

    /// A data packet left at `now`.
    pub fn on_sent(&mut self, now: Instant) {
        self.last = Some(now);
    }

    /// The opening is over: no more pacing.
    pub fn stop(&mut self) {
        self.last = None;
    }
}

/// Whether the exponential opening of [`StartUp::UntilCongestion`] still runs, its delay test and its bound.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StartUpExit {
    running: bool,
    slowest: Option<SlowestPath>,
    /// The round ends when this packet is acknowledged (the highest sent when it began).
    round_end: Option<u32>,
    last_round_min: Option<Duration>,
    round_min: Option<Duration>,
    samples: u32,
    /// The shortest round the opening assumes ([`OPENING_ROUND_MIN`] by default): shorter RTTs count as this
    /// long for a report's lifetime.
    shortest_round: Duration,
}

impl StartUpExit {
    /// Running under [`StartUp::UntilCongestion`]; never running under the paper's fixed threshold. RTTs below
    /// `shortest_round` count as that long (module docs, "Sub-millisecond RTTs").
    pub fn new(mode: StartUp, shortest_round: Duration) -> Self {
        StartUpExit {
            running: mode == StartUp::UntilCongestion,
            shortest_round,
            slowest: None,
            round_end: None,
            last_round_min: None,
            round_min: None,
            samples: 0,
        }
    }

    /// The slow-start threshold the window starts with: the configured one, or none while the opening runs.
    pub fn initial_ssthresh(&self, configured: f64) -> f64 {
        if self.running {
            f64::INFINITY
        } else {
            configured
        }
    }

    /// Whether the exponential opening still runs.
    pub fn running(&self) -> bool {
        self.running
    }

    /// A sign of congestion (a loss, a NAK, a timeout): true when this ends the opening.
    pub fn on_congestion(&mut self) -> bool {
        self.slowest = None;
        std::mem::replace(&mut self.running, false)
    }

    /// `receiver`, whose RTT is `rtt`, reports receiving at `rate` packets per second while the source sends at
    /// `sending_rate`: true when it is now the slowest path known, and should be the acker (module docs). A rate
    /// must be [`REPORT_BELOW`] times the slowest one's to replace it, so that receivers of equal paths do not
    /// take turns; the slowest receiver's own reports update its rate. Once the slowest one's report has lapsed,
    /// its rate stands only until the source sends faster than it: then a report must be below the sending
    /// rate instead (RFC 4654 §4.4: feedback below the current sending rate), so that a rate once measured low
    /// by accident does not shut out the receiver whose path is really the slowest.
    pub fn on_rate_report(
        &mut self,
        now: Instant,
        receiver: IpAddr,
        rate: f64,
        rtt: Option<Duration>,
        sending_rate: f64,
    ) -> bool {
        if !self.running || rate.is_nan() || rate <= 0.0 {
            return false;
        }
        match &mut self.slowest {
            Some(s) if s.receiver == receiver => {
                s.rate = rate;
                s.rtt = rtt.or(s.rtt);
                s.at = now;
                s.live = true;
                false
            }
            Some(s) if s.live && rate >= REPORT_BELOW * s.rate => false,
            Some(s) if rate >= REPORT_BELOW * s.rate.max(sending_rate) => false,
            _ => {
                self.slowest = Some(SlowestPath {
                    receiver,
                    rate,
                    rtt,
                    at: now,
                    live: true,
                });
                true
            }
        }
    }

    /// The slowest path's report stops bounding the window once [`REPORT_LIFETIME_RTTS`] of its RTTs —
    /// `holder_srtt` when it is the acker, else its RTT when it reported, at least the shortest round — passed
    /// without another (module docs). Its rate still stands against other receivers' reports while the source
    /// sends slower than it ([`StartUpExit::on_rate_report`]): a faster receiver does not take the acker role
    /// back when the bound lapses.
    pub fn expire(&mut self, now: Instant, holder_srtt: Option<Duration>) {
        let Some(s) = &mut self.slowest else { return };
        let Some(rtt) = holder_srtt.or(s.rtt) else {
            return;
        };
        let rtt = rtt.max(self.shortest_round);
        if now > s.at + REPORT_LIFETIME_RTTS * rtt {
            s.live = false;
        }
    }

    /// The receiver with the lowest receive rate reported, while the opening runs.
    pub fn slowest(&self) -> Option<IpAddr> {
        self.slowest.map(|s| s.receiver)
    }

    /// OPT_CONVOY_START_UP's value while the opening runs: the lowest rate reported, 0 before any.
    pub fn echo(&self) -> Option<u32> {
        let live = self.slowest.filter(|s| s.live);
        self.running
            .then(|| live.map_or(0, |s| rate_to_wire(s.rate)))
    }

    /// The most the window may be while the opening runs: twice the slowest receive rate reported times that
    /// receiver's RTT — `acker_srtt` when it is the acker, else its RTT when it reported, at least the shortest
    /// round, as the pace counts it — and at least `floor` (RFC 4654 §4.3's bound on the rate as a window;
    /// module docs). `None`: no bound.
    pub fn window_cap(&self, acker_srtt: Option<Duration>, floor: f64) -> Option<f64> {
        let slowest = self.slowest.filter(|s| self.running && s.live)?;
        let rtt = acker_srtt.or(slowest.rtt)?.max(self.shortest_round);
        Some((2.0 * slowest.rate * rtt.as_secs_f64()).max(floor))
    }

    /// An RTT sample of the acker from an ACK up to `rx_max`, the highest packet sent being `snd_max`: true when
    /// it ends the opening (module docs, RFC 9406 §4.2).
    pub fn on_rtt_sample(&mut self, rtt: Duration, rx_max: u32, snd_max: Option<u32>) -> bool {
        if !self.running {
            return false;
        }
        if self.round_end.is_none_or(|end| !seq::lt(rx_max, end)) {
            self.last_round_min = self.round_min.or(self.last_round_min);
            self.round_min = None;
            self.samples = 0;
            self.round_end = snd_max;
        }
        self.samples += 1;
        let min = self.round_min.map_or(rtt, |m| m.min(rtt));
        self.round_min = Some(min);
        let Some(last) = self.last_round_min else {
            return false;
        };
        let eta = (last / 8).clamp(DELAY_ETA_MIN, DELAY_ETA_MAX);
        if self.samples >= DELAY_SAMPLES_MIN && min >= last + eta {
            return self.on_congestion();
        }
        false
    }

    /// The acker changed: its RTTs are another path's, the delay test starts again.
    pub fn on_new_acker(&mut self) {
        self.round_end = None;
        self.last_round_min = None;
        self.round_min = None;
        self.samples = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn paper_3_4_fixed_threshold_never_runs_the_opening() {
        let mut s = StartUpExit::new(StartUp::FixedThreshold, OPENING_ROUND_MIN);
        assert_eq!(s.initial_ssthresh(6.0), 6.0);
        assert!(!s.on_congestion());
        assert!(!s.on_rtt_sample(ms(500), 1, Some(2)));
    }

    #[test]
    fn until_congestion_has_no_threshold_until_the_first_sign() {
        let mut s = StartUpExit::new(StartUp::UntilCongestion, OPENING_ROUND_MIN);
        assert_eq!(s.initial_ssthresh(6.0), f64::INFINITY);
        assert!(s.on_congestion(), "the first sign ends it");
        assert!(!s.on_congestion(), "only once");
        assert!(!s.running());
    }

    /// A round of `n` samples of `rtt`, acknowledging `first..first + n` while `snd_max` was sent.
    fn round(s: &mut StartUpExit, first: u32, n: u32, rtt: u64, snd_max: u32) -> bool {
        (first..first + n).any(|rx| s.on_rtt_sample(ms(rtt), rx, Some(snd_max)))
    }

    #[test]
    fn rfc9406_4_2_a_round_minimum_above_the_last_by_eta_ends_it() {
        let mut s = StartUpExit::new(StartUp::UntilCongestion, OPENING_ROUND_MIN);
        // Rounds of a 40 ms path: η = 5 ms.
        assert!(!round(&mut s, 0, 8, 40, 16));
        assert!(!round(&mut s, 16, 16, 44, 48), "44 ms is within 40 + η");
        // One high sample does not end it: the round's minimum counts.
        assert!(!s.on_rtt_sample(ms(80), 48, Some(96)));
        assert!(!round(&mut s, 49, 31, 40, 96));
        assert!(round(&mut s, 96, 8, 46, 200), "46 ms ≥ 40 + η after 8 samples");
    }

    #[test]
    fn rfc9406_4_3_eta_is_clamped_to_4_and_16_ms() {
        let run = |base: u64, next: u64| {
            let mut s = StartUpExit::new(StartUp::UntilCongestion, OPENING_ROUND_MIN);
            round(&mut s, 0, 8, base, 8);
            round(&mut s, 8, 8, next, 16)
        };
        assert!(!run(1, 4), "1 ms path: η = 4 ms");
        assert!(run(1, 5));
        assert!(!run(400, 415), "400 ms path: η = 16 ms");
        assert!(run(400, 416));
    }

    fn ip(n: u8) -> IpAddr {
        IpAddr::from([10, 0, 0, n])
    }

    #[test]
    fn rfc4654_4_3_the_window_stays_within_twice_the_slowest_rate_times_its_rtt() {
        let mut s = StartUpExit::new(StartUp::UntilCongestion, OPENING_ROUND_MIN);
        assert_eq!(s.echo(), Some(0), "no report yet");
        assert_eq!(s.window_cap(None, 4.0), None);
        assert!(s.on_rate_report(Instant::ZERO, ip(1), 1000.0, Some(ms(50)), 0.0));
        assert_eq!(s.slowest(), Some(ip(1)));
        assert_eq!(s.echo(), Some(1_000_000));
        assert_eq!(s.window_cap(None, 4.0), Some(100.0));
        assert_eq!(s.window_cap(Some(ms(80)), 4.0), Some(160.0), "its RTT as acker");
        assert_eq!(s.window_cap(Some(ms(1)), 4.0), Some(8.0), "a 1 ms RTT counts as the 4 ms round");
        assert_eq!(s.window_cap(Some(ms(1)), 10.0), Some(10.0), "never below the paper's threshold");
    }

    #[test]
    fn only_a_clearly_lower_rate_replaces_the_slowest_path() {
        let mut s = StartUpExit::new(StartUp::UntilCongestion, OPENING_ROUND_MIN);
        s.on_rate_report(Instant::ZERO, ip(1), 1000.0, Some(ms(50)), 0.0);
        assert!(!s.on_rate_report(Instant::ZERO, ip(2), 900.0, Some(ms(50)), 0.0), "within 1/8: no turn-taking");
        assert!(!s.on_rate_report(Instant::ZERO, ip(1), 1200.0, None, 0.0), "the slowest one's own report updates it");
        assert_eq!(s.window_cap(None, 4.0), Some(120.0));
        assert!(s.on_rate_report(Instant::ZERO, ip(2), 500.0, Some(ms(10)), 0.0));
        assert_eq!(s.slowest(), Some(ip(2)));
    }

    #[test]
    fn rfc4654_4_3_a_report_lapses_after_two_rtts_unless_renewed() {
        let mut s = StartUpExit::new(StartUp::UntilCongestion, OPENING_ROUND_MIN);
        let t = |n: u64| Instant::from_millis(n);
        s.on_rate_report(t(0), ip(1), 1000.0, Some(ms(50)), 0.0);
        s.expire(t(100), None);
        assert_eq!(s.slowest(), Some(ip(1)), "within 2 RTTs");
        s.on_rate_report(t(90), ip(1), 1000.0, None, 0.0);
        s.expire(t(150), None);
        assert_eq!(s.slowest(), Some(ip(1)), "renewed at 90 ms");
        s.expire(t(150), Some(ms(20)));
        assert_eq!(s.window_cap(None, 4.0), None, "2 of its current 20 ms RTTs passed");
        assert_eq!(s.echo(), Some(0), "the echo invites reports again");
        assert!(!s.on_rate_report(t(151), ip(2), 5000.0, Some(ms(1)), 0.0), "a faster path does not take over");
        assert_eq!(s.slowest(), Some(ip(1)));
        s.on_rate_report(t(152), ip(1), 800.0, None, 0.0);
        assert_eq!(s.window_cap(None, 4.0), Some(2.0 * 800.0 * 0.05), "renewed by its next report");
    }

    #[test]
    fn rfc4654_4_4_a_lapsed_rate_stands_only_until_the_source_sends_faster() {
        let mut s = StartUpExit::new(StartUp::UntilCongestion, OPENING_ROUND_MIN);
        let t = |n: u64| Instant::from_millis(n);
        // A receiver on a 200 µs path measured 300 packets/s once (it read its socket late).
        s.on_rate_report(t(0), ip(1), 300.0, Some(Duration::from_micros(200)), 100.0);
        s.expire(t(7), None);
        assert_eq!(s.window_cap(None, 4.0), Some(4.0), "its RTT counts as 4 ms: live for 8 ms");
        s.expire(t(9), None);
        assert_eq!(s.window_cap(None, 4.0), None, "lapsed");
        assert!(
            !s.on_rate_report(t(10), ip(2), 450.0, Some(ms(100)), 200.0),
            "the source is still slower than the lapsed rate: it stands"
        );
        assert!(
            s.on_rate_report(t(20), ip(2), 450.0, Some(ms(100)), 3000.0),
            "the source sends faster: a path below its rate takes over"
        );
        assert_eq!(s.slowest(), Some(ip(2)));
        assert!(
            !s.on_rate_report(t(21), ip(3), 5000.0, Some(ms(1)), 3000.0),
            "not a report above the sending rate"
        );
    }

    #[test]
    fn the_bound_ends_with_the_opening() {
        let mut s = StartUpExit::new(StartUp::UntilCongestion, OPENING_ROUND_MIN);
        s.on_rate_report(Instant::ZERO, ip(1), 1000.0, Some(ms(50)), 0.0);
        s.on_congestion();
        assert_eq!(s.echo(), None);
        assert_eq!(s.window_cap(None, 4.0), None);
        assert!(!s.on_rate_report(Instant::ZERO, ip(2), 10.0, Some(ms(50)), 0.0));
        let paper = StartUpExit::new(StartUp::FixedThreshold, OPENING_ROUND_MIN);
        assert_eq!(paper.echo(), None, "the paper's start-up sends no option");
    }

    #[test]
    fn sub_ms_rtt_the_window_doubles_once_per_round_min() {
        let mut p = OpeningPace::default();
        let t = |us: u64| Instant::from_nanos(us * 1000);
        let lan = Some(Duration::from_micros(100));
        // ln 2 · W packets per 4 ms: a gap of 4 ms / (W ln 2).
        let gap = |w: f64| Duration::from_secs_f64(1.0 / (std::f64::consts::LN_2 * w / 0.004));
        assert_eq!(p.earliest(8.0, lan, OPENING_ROUND_MIN), None, "nothing sent yet");
        p.on_sent(t(0));
        assert_eq!(p.earliest(8.0, lan, OPENING_ROUND_MIN), Some(t(0) + gap(8.0)));
        assert!((gap(8.0).as_secs_f64() - 721.3e-6).abs() < 1e-7);
        assert_eq!(p.earliest(16.0, lan, OPENING_ROUND_MIN), Some(t(0) + gap(16.0)), "the window opened: sooner");
        assert_eq!(p.earliest(16.0, None, OPENING_ROUND_MIN), Some(t(0) + gap(16.0)), "no RTT yet counts as short");
        assert_eq!(
            p.earliest(16.0, Some(OPENING_ROUND_MIN), OPENING_ROUND_MIN),
            None,
            "an RTT of the floor or more: the ACK clock paces"
        );
        p.on_sent(t(3000));
        assert_eq!(p.earliest(16.0, lan, OPENING_ROUND_MIN), Some(t(3000) + gap(16.0)), "idle time earns no burst");
        p.stop();
        assert_eq!(p.earliest(16.0, lan, OPENING_ROUND_MIN), None);
    }

    #[test]
    fn sub_ms_rtt_one_ack_per_packet_doubles_the_window_per_round_min() {
        // Every packet's ACK returns before the next leaves and opens the window by one.
        let mut p = OpeningPace::default();
        let (mut w, mut now) = (4.0, Instant::ZERO);
        p.on_sent(now);
        while now < Instant::from_millis(12) {
            now = p.earliest(w, Some(Duration::from_micros(100)), OPENING_ROUND_MIN).unwrap();
            p.on_sent(now);
            w += 1.0;
        }
        // Three rounds of 4 ms: 4 · 2³ = 32, less the lag of growing in whole packets (29), not e³ · 4 = 80.
        assert!((26.0..=33.0).contains(&w), "W = {w}");
    }

    #[test]
    fn a_new_acker_restarts_the_delay_test() {
        let mut s = StartUpExit::new(StartUp::UntilCongestion, OPENING_ROUND_MIN);
        round(&mut s, 0, 8, 1, 8);
        s.on_new_acker();
        // The new acker's 40 ms path is not a delay increase over the old one's 1 ms.
        assert!(!round(&mut s, 8, 8, 40, 16));
        assert!(!round(&mut s, 16, 8, 40, 24));
        assert!(s.running());
    }
}
