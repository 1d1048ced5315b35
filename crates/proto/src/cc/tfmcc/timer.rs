//! The receivers' feedback timer (RFC 4654 §4.5) and its bias towards low-rate receivers (the TFMCC paper §2.5).
//!
//! RFC 4654 sets t = max(T·(1 + ln x / ln N), 0) with x uniform on (0, 1], T = 6·R_max and N = 10,000: most of N
//! receivers draw a delay near T, a few answer early, and the first answer's echo (X_supp) suppresses the rest.
//! The RFC has no rate term. The paper (§2.5.1) biases the timers so that receivers with a low calculated rate
//! answer first: of its three methods it keeps the *offset*, a part δ of T spent in proportion to the receiver's
//! rate relative to the sending rate, the rest exponential as before; it truncates the ratio to the likely values
//! ("start biasing feedback for receivers with a rate less than 90% of the sender's rate, [...] saturate the bias
//! for receivers with a rate of 50% of the sender's rate") and normalises it to [0, 1]. The seed text loses the
//! value of δ; the constants here are NORM's implementation of the same method (docs/tfmcc-rules.md §6):
//! t = δ·r·T + (1 − δ)·max(T·(1 + ln x / ln N), 0), δ = 1/4, r = (clamp(X_calc/X, 0.5, 0.9) − 0.5)/0.4.
//! The worst-case delay stays T, and the exponential part keeps (1 − δ)·T for suppression.

use crate::named::Named;
use std::time::Duration;

/// Which feedback timer a receiver runs (scenario key `tfmcc.feedback_timer`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FeedbackBias {
    /// RFC 4654 §4.5: the exponential timer alone.
    Unbiased,
    /// The TFMCC paper §2.5: the offset bias towards receivers whose rate is low relative to the sending rate.
    #[default]
    RateOffset,
}

impl Named for FeedbackBias {
    /// Scenario key `feedback_timer`.
    const CHOICES: &'static [(&'static str, Self)] = &[
        ("exponential", FeedbackBias::Unbiased),
        ("rate-offset", FeedbackBias::RateOffset),
    ];
}

/// δ, the share of the round spent on the rate offset (NORM's value; see the module docs).
pub const OFFSET_SHARE: f64 = 0.25;
/// X_calc / X at and below which the bias saturates (paper §2.5.1: 50% of the sender's rate).
pub const BIAS_FULL: f64 = 0.5;
/// X_calc / X from which on there is no bias (paper §2.5.1: 90% of the sender's rate).
pub const BIAS_NONE: f64 = 0.9;

/// The exponentially biased feedback delay of §4.5, t = max(T·(1 + ln x / ln N), 0), for x uniform on (0, 1].
pub fn feedback_delay(round: Duration, receivers_max: u32, x: f64) -> Duration {
    let n = f64::from(receivers_max.max(2));
    let f = (1.0 + x.clamp(f64::MIN_POSITIVE, 1.0).ln() / n.ln()).max(0.0);
    round.mul_f64(f)
}

/// r, the normalised rate ratio of the offset: 0 at X_calc/X ≤ 0.5, 1 at ≥ 0.9, linear between.
pub fn rate_offset(ratio: f64) -> f64 {
    if ratio.is_nan() {
        return 1.0;
    }
    (ratio.clamp(BIAS_FULL, BIAS_NONE) - BIAS_FULL) / (BIAS_NONE - BIAS_FULL)
}

/// The delay a receiver draws at the start of a round: `round` is T, `x` uniform on (0, 1], `ratio` its rate
/// over the sending rate (X_calc / X; the receive rate over X in slowstart).
pub fn timer_delay(bias: FeedbackBias, round: Duration, receivers_max: u32, x: f64, ratio: f64) -> Duration {
    let exponential = feedback_delay(round, receivers_max, x);
    match bias {
        FeedbackBias::Unbiased => exponential,
        FeedbackBias::RateOffset => {
            round.mul_f64(OFFSET_SHARE * rate_offset(ratio)) + exponential.mul_f64(1.0 - OFFSET_SHARE)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paper_2_5_1_the_offset_starts_below_ninety_percent_and_saturates_at_fifty() {
        assert_eq!(rate_offset(1.2), 1.0);
        assert_eq!(rate_offset(0.9), 1.0);
        assert!((rate_offset(0.7) - 0.5).abs() < 1e-12);
        assert_eq!(rate_offset(0.5), 0.0);
        assert_eq!(rate_offset(0.1), 0.0);
    }

    #[test]
    fn paper_2_5_1_a_slow_receiver_answers_earlier_and_the_worst_case_stays_t() {
        let t = Duration::from_secs(3);
        let slow = timer_delay(FeedbackBias::RateOffset, t, 10_000, 0.5, 0.4);
        let fast = timer_delay(FeedbackBias::RateOffset, t, 10_000, 0.5, 0.95);
        assert!(slow + t.mul_f64(OFFSET_SHARE) == fast, "{slow:?} vs {fast:?}");
        assert!(timer_delay(FeedbackBias::RateOffset, t, 10_000, 1.0, 1.0) == t);
        assert_eq!(timer_delay(FeedbackBias::Unbiased, t, 10_000, 1.0, 0.1), t);
    }
}
