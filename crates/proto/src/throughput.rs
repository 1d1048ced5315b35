//! TCP throughput equations and the pgmcc acker-selection metric.
//!
//! * [`tcp_throughput`]: the TCP throughput equation of RFC 5348 §3.1 with b = 1 and t_RTO = 4R, exactly as
//!   RFC 4654 §2.1 eq. 1 writes it (docs/tfmcc-rules.md §1), in bytes per second.
//! * [`mathis_throughput`]: the simple square-root model, X = s·√(3/2)/(R·√p) (Mathis et al.; the paper's
//!   eq. 1 up to a constant).
//! * [`ThroughputModel`]: pgmcc's inverse-throughput metric M used to compare receivers (paper §3.5,
//!   draft §2.4) and the acker switch rule T_cand < c·T_acker (paper §3.5, draft §2.3).
//! * [`loss_rate_for_throughput`]: the inverse of [`tcp_throughput`] in p, for seeding the first loss interval
//!   (RFC 5348 §6.3.1); [`mathis_loss_rate_for_throughput`] is RFC 4654 §5.6's closed-form variant.
//!
//! Units: sizes in bytes, times in seconds, rates in bytes per second, loss rates as fractions in `[0, 1]`
//! (values above 1 are treated as 1, negative values as 0). All functions are plain IEEE-754 arithmetic
//! (`sqrt` included, which IEEE rounds exactly), so results are identical on every platform.

use crate::named::Named;

/// √(3/2), the constant of the simple TCP model (Mathis et al.).
const SQRT_3_2: f64 = 1.224_744_871_391_589;

/// Clamps a loss rate into `[0, 1]` (NaN passes through and makes the results NaN).
fn clamp_p(p: f64) -> f64 {
    p.clamp(0.0, 1.0)
}

/// f(p) = √(2p/3) + 12·√(3p/8)·p·(1 + 32p²): the denominator of RFC 5348 §3.1 divided by R, with b = 1 and
/// t_RTO = 4R (RFC 5348 §8.1 writes the equation as X = s/(R·f(p)); RFC 4654 §2.1 eq. 1 is the same).
fn f_of_p(p: f64) -> f64 {
    (2.0 * p / 3.0).sqrt() + 12.0 * (3.0 * p / 8.0).sqrt() * p * (1.0 + 32.0 * p * p)
}

/// The TCP throughput equation, in bytes per second (RFC 5348 §3.1; RFC 4654 §2.1 eq. 1; docs/tfmcc-rules.md §1):
///
/// ```text
/// X = s / ( R·√(2bp/3) + t_RTO·3·√(3bp/8)·p·(1 + 32p²) ),   b = 1, t_RTO = 4R
///   = s / ( R·(√(2p/3) + 12·√(3p/8)·p·(1 + 32p²)) )
/// ```
///
/// `s_bytes` is the packet size in bytes, `rtt_s` the round-trip time R in seconds, `p` the loss event rate.
/// RFC 4654 expresses X in bit/s (8s in the numerator); this function returns bytes/s.
///
/// Edge cases: `p = 0` (no loss) or `rtt_s = 0` gives `f64::INFINITY` — the equation sets no limit.
pub fn tcp_throughput(s_bytes: f64, rtt_s: f64, p: f64) -> f64 {
    let p = clamp_p(p);
    s_bytes / (rtt_s * f_of_p(p))
}

/// The simple square-root TCP model of Mathis et al., X = s·√(3/2)/(R·√p), in bytes per second.
///
/// This is the first term of [`tcp_throughput`] alone, so it never returns less than the full equation; they
/// agree within about 9 % at p = 1 % and diverge above a few percent (paper §3.5, footnote 3).
/// `p = 0` or `rtt_s = 0` gives `f64::INFINITY`.
pub fn mathis_throughput(s_bytes: f64, rtt_s: f64, p: f64) -> f64 {
    let p = clamp_p(p);
    s_bytes * SQRT_3_2 / (rtt_s * p.sqrt())
}

/// The loss event rate p at which [`tcp_throughput`]`(s_bytes, rtt_s, p)` equals `x_target` bytes/s.
///
/// Used to synthesize the first loss interval as 1/p from a target rate (RFC 5348 §6.3.1, which asks for a p
/// giving a rate within 5 % of the target; this one is accurate to the last bit or two). Since X(p) is strictly
/// decreasing in p, p is found by bisection on a bracket derived from the equation itself: with
/// p_s = (3/2)·(s/(R·X))² (the first term alone), the root lies in [p_s/298², p_s] because
/// 1 ≤ f(p)/√(2p/3) = 1 + 9p(1 + 32p²) ≤ 298 on [0, 1]. The iteration count is bounded and the result is
/// deterministic.
///
/// Edge cases: a target at or below X(p = 1) = s/(243.3·R) returns 1.0; an infinite target, a zero `s_bytes`
/// or a zero (or negative) `rtt_s` (X is infinite or zero for every p) returns 0.0; a target ≤ 0 returns 1.0. NaN in gives NaN.
pub fn loss_rate_for_throughput(s_bytes: f64, rtt_s: f64, x_target: f64) -> f64 {
    if s_bytes.is_nan() || rtt_s.is_nan() || x_target.is_nan() {
        return f64::NAN;
    }
    if x_target <= 0.0 {
        return 1.0;
    }
    if rtt_s <= 0.0 {
        return 0.0;
    }
    if x_target >= tcp_throughput(s_bytes, rtt_s, f64::MIN_POSITIVE) {
        return 0.0;
    }
    if x_target <= tcp_throughput(s_bytes, rtt_s, 1.0) {
        return 1.0;
    }
    let ratio = s_bytes / (rtt_s * x_target);
    let p_simple = 1.5 * ratio * ratio;
    // Invariant: X(lo) ≥ x_target > X(hi) (checked above for the clamped ends).
    let mut hi = p_simple.min(1.0);
    let mut lo = (p_simple / (298.0 * 298.0)).min(hi);
    if tcp_throughput(s_bytes, rtt_s, lo) < x_target {
        lo = 0.0;
    }
    if tcp_throughput(s_bytes, rtt_s, hi) >= x_target {
        return hi;
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if tcp_throughput(s_bytes, rtt_s, mid) >= x_target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    hi
}

/// RFC 4654 §5.6's closed-form inversion of the simple model: p = (3/2)·(s/(R·X))², so that
/// [`mathis_throughput`]`(s, R, p) = X` (its l_0 = 1/p = (X·R/(√1.5·s))², with X in bytes/s here).
/// The result is clamped to `[0, 1]`; a target ≤ 0 gives 1.0.
pub fn mathis_loss_rate_for_throughput(s_bytes: f64, rtt_s: f64, x_target: f64) -> f64 {
    if x_target <= 0.0 {
        return 1.0;
    }
    let ratio = s_bytes / (rtt_s * x_target);
    clamp_p(1.5 * ratio * ratio)
}

/// Which throughput model pgmcc's sender uses to compare receivers when electing the acker.
///
/// Both yield an *inverse* throughput M = 1/T up to a constant factor, so receivers are compared by M alone
/// (a larger M means a slower receiver). The draft's model is the default (docs/pgmcc-rules.md, "throughput model").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ThroughputModel {
    /// The paper's simplified model T ∝ 1/(RTT·√p) (paper §3.5 eq. 1): M = RTT·√p. The paper compares the
    /// equivalent RTT²·p "as this is cheaper to compute".
    Paper,
    /// The draft's full model with RTO = 4·RTT (draft §2.4): M = RTT·√p·(1 + 9p(1 + 32p²)).
    ///
    /// It is proportional to R·f(p) of [`tcp_throughput`] (12·√(3/8)/√(2/3) = 9), i.e.
    /// `tcp_throughput(s, R, p) = s/(√(2/3)·M)`.
    #[default]
    Draft,
}

impl Named for ThroughputModel {
    /// Scenario key `model`.
    const CHOICES: &'static [(&'static str, Self)] = &[
        ("draft", ThroughputModel::Draft),
        ("paper", ThroughputModel::Paper),
    ];
}

impl ThroughputModel {
    /// The inverse-throughput metric M for a receiver with round-trip time `rtt_s` (any consistent unit: the
    /// value is only compared, paper §3.5) and loss rate `p` (paper §3.5 eq. 1, draft §2.4).
    ///
    /// `p = 0` gives M = 0 (infinite throughput), as the draft notes for its equation (§2.4).
    pub fn inverse_throughput(&self, rtt_s: f64, p: f64) -> f64 {
        let p = clamp_p(p);
        let base = rtt_s * p.sqrt();
        match self {
            ThroughputModel::Paper => base,
            ThroughputModel::Draft => base * (1.0 + 9.0 * p * (1.0 + 32.0 * p * p)),
        }
    }

    /// The inverse-throughput metric M of a receiver known to receive at `packets_per_s`, on the scale of
    /// [`ThroughputModel::inverse_throughput`] with the RTT in seconds: T = 1/(√(2/3)·M) packets per second
    /// for both models (the paper's is the draft's first term, and both are that as p → 0).
    pub fn inverse_of_rate(packets_per_s: f64) -> f64 {
        1.0 / ((2.0f64 / 3.0).sqrt() * packets_per_s)
    }

    /// The acker switch rule: should a receiver with `candidate = (rtt, p)` replace the current acker with
    /// `acker = (rtt, p)`? True iff T_cand < c·T_acker (paper §3.5, draft §2.3), with c in (0, 1] biasing the
    /// choice toward the current acker (c = 0.75 suggested).
    ///
    /// With T = 1/M this is evaluated as **c·M_cand > M_acker**, which needs no division and states the p = 0
    /// cases of draft §2.4 exactly (M = 0 means T = ∞):
    ///
    /// * a lossless candidate (M_cand = 0) never wins, not even against a lossless acker (∞ < ∞ is false);
    /// * any lossy candidate with a nonzero RTT beats a lossless acker (finite < ∞);
    /// * `c ≤ 0` never switches; `c > 1` is allowed (hysteresis against the acker); NaN anywhere gives false.
    ///
    /// Comparing M² instead (the draft's remark, saving the square root) orders identically for c > 0; we keep
    /// M because `sqrt` is exact and cheap.
    pub fn prefers(&self, candidate: (f64, f64), acker: (f64, f64), c: f64) -> bool {
        let m_cand = self.inverse_throughput(candidate.0, candidate.1);
        let m_acker = self.inverse_throughput(acker.0, acker.1);
        c * m_cand > m_acker
    }

    /// [`ThroughputModel::prefers`] against an acker known only to receive at `packets_per_s` (an acker that has
    /// lost nothing, whose equation throughput is infinite, receives at least what the session sends):
    /// T_cand < c·rate, evaluated as c·M_cand > M of that rate.
    pub fn prefers_over_rate(&self, candidate: (f64, f64), packets_per_s: f64, c: f64) -> bool {
        c * self.inverse_throughput(candidate.0, candidate.1) > Self::inverse_of_rate(packets_per_s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs()
    }

    #[test]
    fn rfc5348_3_1_equation_hand_computed() {
        // s = 1000 B, R = 0.1 s, p = 0.01:
        //   √(2p/3) = √0.0066667 = 0.0816497
        //   12·√(3p/8)·p·(1 + 32p²) = 12 · 0.0612372 · 0.01 · 1.0032 = 0.0073720
        //   f = 0.0890217, X = 1000/(0.1 · 0.0890217) = 112 332 B/s.
        assert!(close(tcp_throughput(1000.0, 0.1, 0.01), 112_332.2, 1e-5));
        // p = 0.1: f = 0.2581989 + 12·0.1936492·0.1·1.32 = 0.2581989 + 0.3067403 = 0.5649392,
        //   X = 1000/0.05649392 = 17 701.0 B/s.
        assert!(close(tcp_throughput(1000.0, 0.1, 0.1), 17_701.0, 1e-5));
        // p = 1: f = 0.8164966 + 12·0.6123724·33 = 243.3160, X = 1000/24.33160 = 41.0988 B/s.
        assert!(close(tcp_throughput(1000.0, 0.1, 1.0), 41.0988, 1e-5));
        // RFC 4654 §2.1 eq. 1 gives bit/s with 8s: the same value times 8.
        let x_bits = 8.0 * 1000.0
            / (0.1
                * ((2.0 * 0.01 / 3.0f64).sqrt()
                    + 12.0 * (3.0 * 0.01 / 8.0f64).sqrt() * 0.01 * 1.0032));
        assert!(close(
            8.0 * tcp_throughput(1000.0, 0.1, 0.01),
            x_bits,
            1e-12
        ));
    }

    #[test]
    fn rfc5348_3_1_general_form_with_b_1_and_t_rto_4r() {
        // The general form s/(R√(2bp/3) + t_RTO·3√(3bp/8)·p(1+32p²)) with b = 1, t_RTO = 4R.
        for &(s, r, p) in &[
            (1400.0, 0.05, 0.002),
            (500.0, 0.3, 0.04),
            (1000.0, 1.0, 0.5),
        ] {
            let b: f64 = 1.0;
            let t_rto = 4.0 * r;
            let general = s
                / (r * (2.0 * b * p / 3.0).sqrt()
                    + t_rto * (3.0 * (3.0 * b * p / 8.0).sqrt()) * p * (1.0 + 32.0 * p * p));
            assert!(close(tcp_throughput(s, r, p), general, 1e-12));
        }
    }

    #[test]
    fn rfc5348_3_1_monotone_in_p_and_rtt() {
        let mut prev = f64::INFINITY;
        for i in 1..=1000 {
            let p = i as f64 / 1000.0;
            let x = tcp_throughput(1000.0, 0.1, p);
            assert!(x < prev, "X must decrease with p (p = {p})");
            prev = x;
        }
        assert!(tcp_throughput(1000.0, 0.2, 0.01) < tcp_throughput(1000.0, 0.1, 0.01));
        assert!(close(
            tcp_throughput(1000.0, 0.2, 0.01),
            tcp_throughput(1000.0, 0.1, 0.01) / 2.0,
            1e-12
        ));
    }

    #[test]
    fn rfc5348_3_1_edge_cases() {
        assert_eq!(tcp_throughput(1000.0, 0.1, 0.0), f64::INFINITY);
        assert_eq!(tcp_throughput(1000.0, 0.0, 0.01), f64::INFINITY);
        assert_eq!(mathis_throughput(1000.0, 0.1, 0.0), f64::INFINITY);
        // Loss rates outside [0, 1] are clamped.
        assert_eq!(
            tcp_throughput(1000.0, 0.1, 2.0),
            tcp_throughput(1000.0, 0.1, 1.0)
        );
        assert_eq!(tcp_throughput(1000.0, 0.1, -1.0), f64::INFINITY);
    }

    #[test]
    fn mathis_hand_computed_and_agrees_with_full_equation_at_one_percent() {
        // s·√1.5/(R·√p) = 1000 · 1.2247449 / (0.1 · 0.1) = 122 474.5 B/s.
        assert!(close(
            mathis_throughput(1000.0, 0.1, 0.01),
            122_474.49,
            1e-6
        ));
        // At p = 1 %: 122 474 vs 112 332, ratio 1.090 — within 15 %.
        let ratio = mathis_throughput(1000.0, 0.1, 0.01) / tcp_throughput(1000.0, 0.1, 0.01);
        assert!((1.0..1.15).contains(&ratio), "ratio {ratio}");
        // At p = 10 % the simple model overestimates by 2.19× (paper §3.5, footnote 3).
        let ratio10 = mathis_throughput(1000.0, 0.1, 0.1) / tcp_throughput(1000.0, 0.1, 0.1);
        assert!(close(ratio10, 38_729.83 / 17_701.02, 1e-5));
        // The simple model is never below the full equation.
        for i in 1..=100 {
            let p = i as f64 / 100.0;
            assert!(mathis_throughput(1000.0, 0.1, p) >= tcp_throughput(1000.0, 0.1, p));
        }
    }

    #[test]
    fn paper_3_5_and_draft_2_4_metrics_hand_computed() {
        // Paper: M = RTT·√p = 0.1 · 0.1 = 0.01.
        assert!(close(
            ThroughputModel::Paper.inverse_throughput(0.1, 0.01),
            0.01,
            1e-12
        ));
        // Draft: M = 0.1 · 0.1 · (1 + 9·0.01·(1 + 32·0.0001)) = 0.01 · 1.090288 = 0.01090288.
        assert!(close(
            ThroughputModel::Draft.inverse_throughput(0.1, 0.01),
            0.010_902_88,
            1e-12
        ));
        // p = 0 gives M = 0 for both (draft §2.4).
        assert_eq!(ThroughputModel::Paper.inverse_throughput(0.1, 0.0), 0.0);
        assert_eq!(ThroughputModel::Draft.inverse_throughput(0.1, 0.0), 0.0);
        assert_eq!(ThroughputModel::default(), ThroughputModel::Draft);
    }

    #[test]
    fn draft_2_4_metric_is_inverse_of_rfc5348_equation() {
        // 12·√(3/8)/√(2/3) = 9, so tcp_throughput = s/(√(2/3)·M_draft).
        for &(r, p) in &[(0.01, 1e-4), (0.1, 0.01), (0.25, 0.2), (1.0, 1.0)] {
            let m = ThroughputModel::Draft.inverse_throughput(r, p);
            assert!(close(
                tcp_throughput(1000.0, r, p),
                1000.0 / ((2.0f64 / 3.0).sqrt() * m),
                1e-12
            ));
        }
    }

    #[test]
    fn paper_3_5_switch_rule_with_hysteresis() {
        let c = 0.75;
        for model in [ThroughputModel::Paper, ThroughputModel::Draft] {
            // Same p, candidate RTT 1.5× the acker's: T_cand = T_acker/1.5 < 0.75·T_acker → switch.
            assert!(model.prefers((0.15, 0.01), (0.1, 0.01), c));
            // Candidate only 1.2× slower: T_cand = 0.833·T_acker, not < 0.75·T_acker → keep the acker.
            assert!(!model.prefers((0.12, 0.01), (0.1, 0.01), c));
            // With c = 1 any slower receiver wins; an identical one does not.
            assert!(model.prefers((0.12, 0.01), (0.1, 0.01), 1.0));
            assert!(!model.prefers((0.1, 0.01), (0.1, 0.01), 1.0));
            // c ≤ 0 never switches.
            assert!(!model.prefers((10.0, 0.5), (0.1, 0.01), 0.0));
        }
        // Paper: 4× the loss at equal RTT is 2× slower under T ∝ 1/(RTT√p): switch at c = 0.75.
        assert!(ThroughputModel::Paper.prefers((0.1, 0.04), (0.1, 0.01), c));
    }

    #[test]
    fn draft_2_4_zero_loss_edge_cases() {
        for model in [ThroughputModel::Paper, ThroughputModel::Draft] {
            // A lossless candidate never wins, whatever the RTTs.
            assert!(!model.prefers((10.0, 0.0), (0.001, 0.5), 1.0));
            assert!(!model.prefers((10.0, 0.0), (0.001, 0.0), 1.0));
            // Any lossy candidate beats a lossless acker.
            assert!(model.prefers((0.001, 1e-6), (10.0, 0.0), 0.75));
            // NaN gives false.
            assert!(!model.prefers((f64::NAN, 0.1), (0.1, 0.1), 0.75));
        }
    }

    #[test]
    fn draft_2_4_full_model_fixes_paper_footnote_3_misorder() {
        // Paper §3.5 footnote 3: above ~5 % loss the simple model overestimates throughput, so a high-loss,
        // low-RTT receiver may lose the election to a low-loss, high-RTT one. A: RTT 20 ms, p = 20 %;
        // B: RTT 100 ms, p = 1 %. Full equation: X_A = 1000/(0.02·f(0.2)) with f(0.2) = 0.3651 + 12·0.2739·0.2·2.28
        // = 1.8637 → 26 828 B/s; X_B = 112 332 B/s, so A is the slower one.
        assert!(close(tcp_throughput(1000.0, 0.02, 0.2), 26_828.1, 1e-5));
        assert!(tcp_throughput(1000.0, 0.02, 0.2) < tcp_throughput(1000.0, 0.1, 0.01));
        // Paper metric: M_A = 0.02·0.447 = 0.00894 < M_B = 0.01 → B looks slower (wrong).
        assert!(ThroughputModel::Paper.prefers((0.1, 0.01), (0.02, 0.2), 1.0));
        // Draft metric: M_A = 0.00894·(1 + 1.8·2.28) = 0.04565 > M_B = 0.01090 → A is slower (right).
        assert!(ThroughputModel::Draft.prefers((0.02, 0.2), (0.1, 0.01), 1.0));
    }

    #[test]
    fn rfc5348_6_3_1_inverse_recovers_p() {
        for &p in &[1e-9, 1e-6, 1e-4, 0.001, 0.01, 0.05, 0.2, 0.5, 0.99] {
            for &(s, r) in &[(1000.0, 0.1), (1400.0, 0.002), (64.0, 2.0)] {
                let x = tcp_throughput(s, r, p);
                let q = loss_rate_for_throughput(s, r, x);
                assert!(close(q, p, 1e-9), "p = {p}, s = {s}, r = {r}: got {q}");
                // RFC 5348 §6.3.1 only asks for a rate within 5 % of the target.
                assert!(close(tcp_throughput(s, r, q), x, 1e-9));
            }
        }
    }

    #[test]
    fn rfc5348_6_3_1_inverse_edge_cases_and_monotonicity() {
        // Below X(1) = 41.10 B/s (s = 1000, R = 0.1) no loss rate suffices: 1.0.
        assert_eq!(loss_rate_for_throughput(1000.0, 0.1, 41.0), 1.0);
        assert_eq!(loss_rate_for_throughput(1000.0, 0.1, 0.0), 1.0);
        assert_eq!(loss_rate_for_throughput(1000.0, 0.1, f64::INFINITY), 0.0);
        assert_eq!(loss_rate_for_throughput(1000.0, 0.0, 1e6), 0.0);
        assert!(loss_rate_for_throughput(f64::NAN, 0.1, 1e6).is_nan());
        // Higher targets need lower loss rates.
        let mut prev = 1.0;
        for i in 1..200 {
            let x = 50.0 * 1.1f64.powi(i);
            let p = loss_rate_for_throughput(1000.0, 0.1, x);
            assert!(p < prev, "x = {x}");
            prev = p;
        }
        // The 0.5/R packets/s floor of RFC 5348 §6.3.1 (first packet lost) with R = 0.1 s, s = 1000 B is
        // 5 packets/s = 5000 B/s, i.e. f(p) = s/(R·X) = 2, reached at p = 0.20643 (first interval ≈ 4.84).
        let p = loss_rate_for_throughput(1000.0, 0.1, 0.5 / 0.1 * 1000.0);
        assert!(close(p, 0.206_428_9, 1e-6));
        assert!(close(tcp_throughput(1000.0, 0.1, p), 5000.0, 1e-9));
    }

    #[test]
    fn rfc4654_5_6_closed_form_inverse() {
        // X = 122 474.49 B/s at R = 0.1, s = 1000 is the Mathis rate for p = 0.01: l_0 = 100.
        let p = mathis_loss_rate_for_throughput(1000.0, 0.1, 122_474.487_139_158_9);
        assert!(close(p, 0.01, 1e-12));
        assert!(close(
            1.0 / p,
            (122_474.487_139_158_9f64 * 0.1 / (1.5f64.sqrt() * 1000.0)).powi(2),
            1e-12
        ));
        assert_eq!(mathis_loss_rate_for_throughput(1000.0, 0.1, 1.0), 1.0);
        assert_eq!(mathis_loss_rate_for_throughput(1000.0, 0.1, 0.0), 1.0);
    }
}
