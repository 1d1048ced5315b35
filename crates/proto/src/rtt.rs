//! Round-trip-time smoothing and retransmission timeout, after RFC 6298.
//!
//! pgmcc's sender arms a timeout for every transmitted packet so that lost ACKs or a vanished acker cannot
//! stall the session (draft §2.7). The draft computes it "by accumulating statistics (SRTT and RTTVAR) on RTT
//! samples, starting from a default initial value (3s)", as TCP does; that is RFC 6298 §2:
//!
//! * before any sample, RTO = the initial value (RFC 6298 §2.1 says 1 s; pgmcc draft §2.7 says 3 s, our default);
//! * first sample R: SRTT = R, RTTVAR = R/2, RTO = SRTT + max(G, K·RTTVAR) with K = 4 (§2.2);
//! * later samples R′: RTTVAR = (1 − β)·RTTVAR + β·|SRTT − R′|, then SRTT = (1 − α)·SRTT + α·R′, with
//!   α = 1/8 and β = 1/4, RTTVAR being updated with the *old* SRTT (§2.3);
//! * RTO below the minimum is rounded up to it (§2.4, 1 s) and may be capped by a maximum of at least 60 s (§2.5);
//! * each expiry doubles the RTO (§5.5), up to the maximum; the next sample recomputes it from SRTT/RTTVAR.
//!
//! The draft also requires the statistics to restart when the acker changes ([`RttEstimator::reset`]) and a new
//! election after two successive timeouts ([`RttEstimator::consecutive_backoffs`] lets the sender count them).
//!
//! Arithmetic is on integer nanoseconds (u128 intermediates), so it is exact and deterministic. The α and β
//! updates are computed as steps, SRTT += (R′ − SRTT)/8 and RTTVAR += (|SRTT − R′| − RTTVAR)/4, each step
//! rounded away from zero to a whole nanosecond (an error below 1 ns per update, in the direction of the new
//! sample, so a constant RTT is reached exactly instead of stalling a few nanoseconds short as truncation
//! would); the first-sample R/2 is truncated.

use std::time::Duration;

/// Parameters of an [`RttEstimator`] (RFC 6298 §2, pgmcc draft §2.7).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RttConfig {
    /// RTO before the first sample and after [`RttEstimator::reset`]: 1 s in RFC 6298 §2.1, 3 s in pgmcc
    /// draft §2.7 (the default here). It is clamped to `[min_rto, max_rto]` like every RTO.
    pub initial_rto: Duration,
    /// Lower bound on the RTO: RFC 6298 §2.4 rounds anything below 1 s up to 1 s (the default). Simulations of
    /// fast paths may lower it; the draft does not set one.
    pub min_rto: Duration,
    /// Upper bound on the RTO, also capping back-off (RFC 6298 §2.5: "at least 60 seconds"; default 60 s).
    /// If it is below `min_rto` it is raised to `min_rto`.
    pub max_rto: Duration,
    /// Clock granularity G in RTO = SRTT + max(G, 4·RTTVAR) (RFC 6298 §2). The default, 1 ms, is the timestamp
    /// resolution pgmcc draft §2.5.1 suggests.
    pub granularity: Duration,
}

impl RttConfig {
    /// RFC 6298's own values: initial RTO 1 s (§2.1), minimum 1 s (§2.4), maximum 60 s (§2.5), G = 1 ms.
    pub const RFC6298: RttConfig = RttConfig {
        initial_rto: Duration::from_secs(1),
        min_rto: Duration::from_secs(1),
        max_rto: Duration::from_secs(60),
        granularity: Duration::from_millis(1),
    };

    /// pgmcc's values: as [`RttConfig::RFC6298`] but with the 3 s initial RTO of draft §2.7.
    pub const PGMCC: RttConfig = RttConfig {
        initial_rto: Duration::from_secs(3),
        ..RttConfig::RFC6298
    };
}

impl Default for RttConfig {
    /// [`RttConfig::PGMCC`]: initial RTO 3 s (draft §2.7), minimum 1 s, maximum 60 s, G = 1 ms (RFC 6298 §2).
    fn default() -> Self {
        RttConfig::PGMCC
    }
}

/// RFC 6298 §2 SRTT/RTTVAR estimator with RTO back-off (§5.5), restartable on an acker change (draft §2.7).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RttEstimator {
    config: RttConfig,
    /// SRTT and RTTVAR in nanoseconds, `None` until the first sample.
    smoothed: Option<(u64, u64)>,
    latest: Option<Duration>,
    /// Current RTO, including any back-off.
    rto: Duration,
    /// Timer expiries since the last sample or reset.
    backoffs: u32,
}

fn nanos(d: Duration) -> u128 {
    d.as_nanos()
}

/// `old + (sample − old)/div`, the step rounded away from zero (module docs).
fn ewma_step(old: u128, sample: u128, div: u128) -> u128 {
    if sample >= old {
        old + (sample - old).div_ceil(div)
    } else {
        old - (old - sample).div_ceil(div)
    }
}

fn from_nanos(n: u128) -> Duration {
    Duration::from_nanos(u64::try_from(n).unwrap_or(u64::MAX))
}

impl RttEstimator {
    /// An estimator with no samples yet; [`rto`](Self::rto) is the configured initial RTO (RFC 6298 §2.1).
    pub fn new(config: RttConfig) -> Self {
        let config = RttConfig {
            max_rto: config.max_rto.max(config.min_rto),
            ..config
        };
        RttEstimator {
            config,
            smoothed: None,
            latest: None,
            rto: config.initial_rto.clamp(config.min_rto, config.max_rto),
            backoffs: 0,
        }
    }

    /// The configuration in use (with `max_rto` raised to `min_rto` if it was lower).
    pub fn config(&self) -> &RttConfig {
        &self.config
    }

    /// Takes one RTT measurement (RFC 6298 §2.2 for the first, §2.3 afterwards) and recomputes the RTO, which
    /// also cancels any back-off (§5.5 doubles the RTO only until a new value is computed from a sample).
    ///
    /// Callers should follow Karn's rule (RFC 6298 §3): no samples from ambiguous (retransmitted) packets.
    pub fn on_sample(&mut self, rtt: Duration) {
        let r = nanos(rtt);
        let (srtt, rttvar) = match self.smoothed {
            None => (r, r / 2),
            Some((srtt, rttvar)) => {
                let (srtt, rttvar) = (u128::from(srtt), u128::from(rttvar));
                let delta = srtt.abs_diff(r);
                (ewma_step(srtt, r, 8), ewma_step(rttvar, delta, 4))
            }
        };
        let clamp64 = |n: u128| u64::try_from(n).unwrap_or(u64::MAX);
        self.smoothed = Some((clamp64(srtt), clamp64(rttvar)));
        self.latest = Some(rtt);
        self.backoffs = 0;
        let rto = srtt + (4 * rttvar).max(nanos(self.config.granularity));
        self.rto = from_nanos(rto).clamp(self.config.min_rto, self.config.max_rto);
    }

    /// The smoothed RTT, `None` before the first sample (RFC 6298 §2).
    pub fn srtt(&self) -> Option<Duration> {
        self.smoothed.map(|(s, _)| Duration::from_nanos(s))
    }

    /// The RTT variation, `None` before the first sample (RFC 6298 §2).
    pub fn rttvar(&self) -> Option<Duration> {
        self.smoothed.map(|(_, v)| Duration::from_nanos(v))
    }

    /// The most recent sample, `None` before the first one.
    pub fn latest(&self) -> Option<Duration> {
        self.latest
    }

    /// The current retransmission timeout: SRTT + max(G, 4·RTTVAR) clamped to `[min_rto, max_rto]`
    /// (RFC 6298 §2.2–2.5), or the initial RTO before any sample, times 2 per back-off since (§5.5), capped at
    /// `max_rto`.
    pub fn rto(&self) -> Duration {
        self.rto
    }

    /// The retransmission timer expired: double the RTO, capped at `max_rto` (RFC 6298 §5.5 and §2.5).
    /// The next [`on_sample`](Self::on_sample) replaces the backed-off value.
    pub fn backoff(&mut self) {
        self.rto = self
            .rto
            .checked_mul(2)
            .unwrap_or(Duration::MAX)
            .min(self.config.max_rto);
        self.backoffs = self.backoffs.saturating_add(1);
    }

    /// Number of [`backoff`](Self::backoff) calls since the last sample or reset. pgmcc draft §2.7 asks the
    /// sender to force a new acker election after a number of successive timeouts (two recommended).
    pub fn consecutive_backoffs(&self) -> u32 {
        self.backoffs
    }

    /// Forget all samples and back-off: the state of [`new`](Self::new) with the same configuration. pgmcc
    /// draft §2.7: "upon ACKER changes ... the computation of SRTT and RTTVAR must be restarted from the
    /// beginning".
    pub fn reset(&mut self) {
        *self = RttEstimator::new(self.config);
    }
}

impl Default for RttEstimator {
    /// [`RttEstimator::new`] with [`RttConfig::default`] (pgmcc draft §2.7 values).
    fn default() -> Self {
        RttEstimator::new(RttConfig::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// A configuration with a low floor so the RFC 6298 formulas are visible at millisecond RTTs.
    fn fine() -> RttConfig {
        RttConfig {
            min_rto: ms(1),
            ..RttConfig::PGMCC
        }
    }

    #[test]
    fn rfc6298_2_1_and_draft_2_7_initial_rto() {
        let e = RttEstimator::default();
        assert_eq!(e.rto(), Duration::from_secs(3), "pgmcc draft §2.7: 3 s");
        assert_eq!(e.srtt(), None);
        assert_eq!(e.rttvar(), None);
        assert_eq!(e.latest(), None);
        assert_eq!(
            RttEstimator::new(RttConfig::RFC6298).rto(),
            Duration::from_secs(1)
        );
    }

    #[test]
    fn rfc6298_2_2_first_sample_rule() {
        let mut e = RttEstimator::new(fine());
        e.on_sample(ms(100));
        assert_eq!(e.srtt(), Some(ms(100)), "SRTT = R");
        assert_eq!(e.rttvar(), Some(ms(50)), "RTTVAR = R/2");
        assert_eq!(e.latest(), Some(ms(100)));
        // RTO = SRTT + max(G, 4·RTTVAR) = 100 + 200 = 300 ms.
        assert_eq!(e.rto(), ms(300));
    }

    #[test]
    fn rfc6298_2_3_subsequent_updates() {
        let mut e = RttEstimator::new(fine());
        e.on_sample(ms(100));
        // R' = 200: RTTVAR = 3/4·50 + 1/4·|100 − 200| = 37.5 + 25 = 62.5 ms (old SRTT used),
        // SRTT = 7/8·100 + 1/8·200 = 112.5 ms, RTO = 112.5 + 4·62.5 = 362.5 ms.
        e.on_sample(ms(200));
        assert_eq!(e.rttvar(), Some(Duration::from_micros(62_500)));
        assert_eq!(e.srtt(), Some(Duration::from_micros(112_500)));
        assert_eq!(e.rto(), Duration::from_micros(362_500));
        assert_eq!(e.latest(), Some(ms(200)));
        // R' = 112.5 exactly: RTTVAR = 3/4·62.5 = 46.875 ms, SRTT unchanged.
        e.on_sample(Duration::from_micros(112_500));
        assert_eq!(e.rttvar(), Some(Duration::from_nanos(46_875_000)));
        assert_eq!(e.srtt(), Some(Duration::from_micros(112_500)));
    }

    #[test]
    fn rfc6298_2_3_converges_on_constant_rtt() {
        let mut e = RttEstimator::new(fine());
        e.on_sample(ms(10));
        for _ in 0..200 {
            e.on_sample(ms(40));
        }
        assert_eq!(e.srtt(), Some(ms(40)));
        assert_eq!(e.rttvar(), Some(Duration::ZERO));
        // 4·RTTVAR = 0 < G = 1 ms: RTO = SRTT + G.
        assert_eq!(e.rto(), ms(41));
    }

    #[test]
    fn rfc6298_2_4_and_2_5_clamping() {
        // Default floor 1 s: a 10 ms path still gets RTO = 1 s.
        let mut e = RttEstimator::default();
        e.on_sample(ms(10));
        assert_eq!(e.rto(), Duration::from_secs(1));
        // A 100 s sample is capped at the 60 s maximum.
        e.on_sample(Duration::from_secs(100));
        assert_eq!(e.rto(), Duration::from_secs(60));
        // Initial RTO outside the bounds is clamped as well; max below min is raised to min.
        let odd = RttEstimator::new(RttConfig {
            initial_rto: Duration::from_secs(500),
            min_rto: Duration::from_secs(2),
            max_rto: Duration::from_secs(1),
            granularity: ms(1),
        });
        assert_eq!(odd.config().max_rto, Duration::from_secs(2));
        assert_eq!(odd.rto(), Duration::from_secs(2));
    }

    #[test]
    fn rfc6298_2_granularity_term() {
        // Zero variance: RTO = SRTT + G. With G = 100 ms and samples of 50 ms: RTO = 150 ms.
        let mut e = RttEstimator::new(RttConfig {
            granularity: ms(100),
            ..fine()
        });
        e.on_sample(ms(50));
        // First sample: RTTVAR = 25, 4·RTTVAR = 100 = G: RTO = 150 ms either way.
        assert_eq!(e.rto(), ms(150));
        for _ in 0..200 {
            e.on_sample(ms(50));
        }
        assert_eq!(e.rto(), ms(150));
    }

    #[test]
    fn rfc6298_5_5_backoff_doubles_caps_and_resets_on_sample() {
        let mut e = RttEstimator::default();
        e.backoff();
        assert_eq!(e.rto(), Duration::from_secs(6));
        assert_eq!(e.consecutive_backoffs(), 1);
        for _ in 0..10 {
            e.backoff();
        }
        assert_eq!(e.rto(), Duration::from_secs(60), "capped at max_rto (§2.5)");
        assert_eq!(e.consecutive_backoffs(), 11);
        // The next sample recomputes the RTO from SRTT/RTTVAR.
        e.on_sample(ms(400));
        assert_eq!(e.rto(), Duration::from_millis(1200));
        assert_eq!(e.consecutive_backoffs(), 0);
        e.backoff();
        assert_eq!(e.rto(), Duration::from_millis(2400));
        // Huge maximum: doubling saturates instead of overflowing.
        let mut big = RttEstimator::new(RttConfig {
            max_rto: Duration::MAX,
            ..RttConfig::PGMCC
        });
        for _ in 0..200 {
            big.backoff();
        }
        assert_eq!(big.rto(), Duration::MAX);
    }

    #[test]
    fn draft_2_7_reset_restarts_statistics() {
        let mut e = RttEstimator::new(fine());
        e.on_sample(ms(100));
        e.backoff();
        e.reset();
        assert_eq!(e.srtt(), None);
        assert_eq!(e.rttvar(), None);
        assert_eq!(e.latest(), None);
        assert_eq!(e.consecutive_backoffs(), 0);
        assert_eq!(e.rto(), Duration::from_secs(3));
        assert_eq!(e.config(), &fine());
        // The next sample is treated as the first (§2.2).
        e.on_sample(ms(20));
        assert_eq!(e.srtt(), Some(ms(20)));
        assert_eq!(e.rttvar(), Some(ms(10)));
    }

    #[test]
    fn rfc6298_2_3_rounding_steps_away_from_zero() {
        let mut e = RttEstimator::new(fine());
        e.on_sample(Duration::from_nanos(3));
        // RTTVAR = 3/2 → 1 ns (truncated).
        assert_eq!(e.rttvar(), Some(Duration::from_nanos(1)));
        e.on_sample(Duration::from_nanos(4));
        // SRTT = 3 + (4 − 3)/8 → step rounded up to 1 → 4; RTTVAR = 1 + (|3 − 4| − 1)/4 = 1.
        assert_eq!(e.srtt(), Some(Duration::from_nanos(4)));
        assert_eq!(e.rttvar(), Some(Duration::from_nanos(1)));
        e.on_sample(Duration::from_nanos(0));
        // SRTT = 4 − 4/8 → step rounded to −1 → 3; RTTVAR = 1 + (4 − 1)/4 → step +1 → 2.
        assert_eq!(e.srtt(), Some(Duration::from_nanos(3)));
        assert_eq!(e.rttvar(), Some(Duration::from_nanos(2)));
    }
}
