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

use crate::seq;
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

/// RFC 9406 §4.3: RTT samples a round needs before its delay test (N_RTT_SAMPLE).
const DELAY_SAMPLES_MIN: u32 = 8;
/// RFC 9406 §4.3: the bounds on the delay threshold η (MIN_RTT_THRESH, MAX_RTT_THRESH).
const DELAY_ETA_MIN: Duration = Duration::from_millis(4);
const DELAY_ETA_MAX: Duration = Duration::from_millis(16);

/// Whether the exponential opening of [`StartUp::UntilCongestion`] still runs, and its delay test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StartUpExit {
    running: bool,
    /// The round ends when this packet is acknowledged (the highest sent when it began).
    round_end: Option<u32>,
    last_round_min: Option<Duration>,
    round_min: Option<Duration>,
    samples: u32,
}

impl StartUpExit {
    /// Running under [`StartUp::UntilCongestion`]; never running under the paper's fixed threshold.
    pub fn new(mode: StartUp) -> Self {
        StartUpExit {
            running: mode == StartUp::UntilCongestion,
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
        std::mem::replace(&mut self.running, false)
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
        let mut s = StartUpExit::new(StartUp::FixedThreshold);
        assert_eq!(s.initial_ssthresh(6.0), 6.0);
        assert!(!s.on_congestion());
        assert!(!s.on_rtt_sample(ms(500), 1, Some(2)));
    }

    #[test]
    fn until_congestion_has_no_threshold_until_the_first_sign() {
        let mut s = StartUpExit::new(StartUp::UntilCongestion);
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
        let mut s = StartUpExit::new(StartUp::UntilCongestion);
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
            let mut s = StartUpExit::new(StartUp::UntilCongestion);
            round(&mut s, 0, 8, base, 8);
            round(&mut s, 8, 8, next, 16)
        };
        assert!(!run(1, 4), "1 ms path: η = 4 ms");
        assert!(run(1, 5));
        assert!(!run(400, 415), "400 ms path: η = 16 ms");
        assert!(run(400, 416));
    }

    #[test]
    fn a_new_acker_restarts_the_delay_test() {
        let mut s = StartUpExit::new(StartUp::UntilCongestion);
        round(&mut s, 0, 8, 1, 8);
        s.on_new_acker();
        // The new acker's 40 ms path is not a delay increase over the old one's 1 ms.
        assert!(!round(&mut s, 8, 8, 40, 16));
        assert!(!round(&mut s, 16, 8, 40, 24));
        assert!(s.running());
    }
}
