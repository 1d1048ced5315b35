//! The pgmcc receiver's loss-rate estimator: a first-order low-pass (EWMA) filter in fixed point.
//!
//! pgmcc paper §3.2.2: each receiver reads the arrival pattern as a binary signal, x = 1 for a lost packet and
//! x = 0 for a received one, and filters it with
//!
//! ```text
//! Y_i = W·Y_{i-1} + (1 − W)·x_i,        W = 65000/65536
//! ```
//!
//! "computations are done in fixed point arithmetic with 16 fractional bits". draft-ietf-rmt-bb-pgmcc-03 §2.6
//! states the same filter; its constant "500/65536" is the weight of the *new* sample, i.e. W = 65036/65536
//! (the draft's formula names the old-sample weight c_p but quotes the new-sample value; we follow the value).
//! The filter output is reported on the wire as a u16, 0 = no loss, 65535 = 100 % (draft §2.1.3,
//! docs/wire-format.md §1.4).
//!
//! # Arithmetic and rounding
//!
//! The weight `w` is an integer out of 65536 and the update is done in integers only, with u64 intermediates,
//! so it is exact and identical on every platform. With the state `y` scaled by 2^F (F fractional bits):
//!
//! ```text
//! y' = (w·y + (65536 − w)·x·2^F) >> 16          (truncating shift = round toward zero)
//! ```
//!
//! Truncation makes a lossless receiver decay to exactly 0 and keeps `y ≤ 2^F` (the value 1.0) for every input
//! sequence; under uninterrupted loss the climb stops within 65536/(65536 − w) units of 2^−F below 1.0 (123 units
//! for the paper's W). Its cost is a downward drift of about half a unit of the last place per packet, i.e. a steady-state
//! bias of about −0.5·65536/(65536 − w) units of 2^−F (≈ −61 units for the paper's W). With F = 16 — the paper's
//! literal precision, available as [`LossFilter::with_paper_precision`] — that is −61/65536 ≈ −0.09 percentage
//! points, a 9 % underestimate at 1 % loss and far worse below 0.1 %. The default filter ([`LossFilter::new`])
//! therefore keeps F = 32 internally (the same recurrence with 16 more fractional bits, bias ≈ 1.4·10⁻⁸) and
//! still exposes the paper's 16.16 value through [`LossFilter::value_fixed`], rounded to nearest.

/// Weights are expressed out of this denominator (2^16): `W = weight / 65536` (paper §3.2.2).
pub const WEIGHT_ONE: u32 = 65536;

/// Fractional bits of the paper-precision state (paper §3.2.2: "16 fractional bits").
const PAPER_FRAC_BITS: u32 = 16;
/// Fractional bits of the default, extended-precision state.
const EXTENDED_FRAC_BITS: u32 = 32;

/// pgmcc's EWMA loss estimator (paper §3.2.2, draft §2.6).
///
/// Feed it one call per packet in sequence order: [`record_received`](Self::record_received) or
/// [`record_lost`](Self::record_lost). Read it as 16.16 fixed point ([`value_fixed`](Self::value_fixed)), as the
/// wire's u16 ([`value_u16`](Self::value_u16)) or as an `f64` ([`value`](Self::value)). The estimate starts at 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LossFilter {
    /// Old-sample weight W, out of [`WEIGHT_ONE`], already clamped to `0..=65536`.
    weight: u32,
    /// Fractional bits of `y`: 16 (paper precision) or 32 (default).
    frac_bits: u32,
    /// The filter state Y scaled by 2^frac_bits; always `0..=2^frac_bits`.
    y: u64,
}

impl LossFilter {
    /// The paper's old-sample weight, W = 65000/65536 (paper §3.2.2), i.e. new-sample weight 536/65536: a time
    /// constant of about 65536/536 ≈ 122 packets, corner frequency ≈ 0.0013 packets⁻¹.
    pub const PAPER_WEIGHT: u32 = 65000;

    /// The draft's value, new-sample weight 500/65536, i.e. W = 65036/65536 (draft §2.6).
    pub const DRAFT_WEIGHT: u32 = WEIGHT_ONE - 500;

    /// A filter with old-sample weight `weight`/65536 and extended (32-fractional-bit) internal precision.
    ///
    /// Rule for out-of-range weights: `weight > 65536` is clamped to 65536 (W = 1: the estimate never moves).
    /// `weight = 0` makes the estimate equal to the last sample.
    pub const fn new(weight: u32) -> Self {
        Self::with_frac_bits(weight, EXTENDED_FRAC_BITS)
    }

    /// A filter computing exactly as the paper describes (§3.2.2): state in 16.16 fixed point, integer multiply
    /// and truncating shift. Its ≈ −61/65536 bias (see the module docs) is kept on purpose, to reproduce the
    /// paper's arithmetic. Weight rule as in [`new`](Self::new).
    pub const fn with_paper_precision(weight: u32) -> Self {
        Self::with_frac_bits(weight, PAPER_FRAC_BITS)
    }

    const fn with_frac_bits(weight: u32, frac_bits: u32) -> Self {
        let weight = if weight > WEIGHT_ONE {
            WEIGHT_ONE
        } else {
            weight
        };
        LossFilter {
            weight,
            frac_bits,
            y: 0,
        }
    }

    /// The old-sample weight in use, out of 65536 (after clamping).
    pub const fn weight(&self) -> u32 {
        self.weight
    }

    /// Whether this filter uses the paper's literal 16-fractional-bit state (paper §3.2.2).
    pub const fn is_paper_precision(&self) -> bool {
        self.frac_bits == PAPER_FRAC_BITS
    }

    /// Forget all history: the estimate returns to 0.
    pub fn reset(&mut self) {
        self.y = 0;
    }

    /// One packet received: x = 0 (paper §3.2.2).
    pub fn record_received(&mut self) {
        self.record(false);
    }

    /// One packet lost: x = 1 (paper §3.2.2).
    pub fn record_lost(&mut self) {
        self.record(true);
    }

    /// One packet, lost (`true`, x = 1) or received (`false`, x = 0): Y ← W·Y + (1 − W)·x (paper §3.2.2,
    /// draft §2.6), rounded toward zero as described in the module docs.
    pub fn record(&mut self, lost: bool) {
        let w = u64::from(self.weight);
        // w ≤ 2^16 and y ≤ 2^32, so every product below is ≤ 2^48: no overflow in u64.
        let mut acc = w * self.y;
        if lost {
            acc += (u64::from(WEIGHT_ONE) - w) << self.frac_bits;
        }
        self.y = acc >> 16;
    }

    /// The estimate Y × 65536, in `0..=65536` (the paper's Fig. 2 plots this quantity).
    ///
    /// In paper precision this is the state itself; in extended precision it is the state rounded to the
    /// nearest 1/65536 (ties upward), which stays within `0..=65536`.
    pub const fn value_fixed(&self) -> u32 {
        let shift = self.frac_bits - PAPER_FRAC_BITS;
        if shift == 0 {
            self.y as u32
        } else {
            ((self.y + (1u64 << (shift - 1))) >> shift) as u32
        }
    }

    /// The loss rate as carried on the wire: u16, 0 = none, 65535 = 100 % (draft §2.1.3).
    ///
    /// Saturating: a fixed-point value of 65536 (100 %) maps to 65535. (OpenPGM casts the 16.16 value to u16,
    /// so 100 % wraps to 0; see docs/wire-format.md §1.4.)
    pub const fn value_u16(&self) -> u16 {
        let v = self.value_fixed();
        if v > u16::MAX as u32 {
            u16::MAX
        } else {
            v as u16
        }
    }

    /// The estimate as a fraction in `[0, 1]`, at the filter's full internal precision.
    pub fn value(&self) -> f64 {
        self.y as f64 / (1u64 << self.frac_bits) as f64
    }
}

impl Default for LossFilter {
    /// [`LossFilter::new`] with the paper's weight [`LossFilter::PAPER_WEIGHT`] (paper §3.2.2).
    fn default() -> Self {
        LossFilter::new(LossFilter::PAPER_WEIGHT)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::ChaCha8Rng;
    use rand_core::{RngCore, SeedableRng};

    /// A Bernoulli(p) draw from 32 random bits: lost iff u < p·2^32.
    fn bernoulli(rng: &mut ChaCha8Rng, p: f64) -> bool {
        (rng.next_u32() as f64) < p * 4_294_967_296.0
    }

    /// Runs `filter` over a Bernoulli(p) sequence: `warm` packets of warm-up, then `n` packets during which it
    /// returns (time-average of the filter output, fraction of packets actually lost).
    fn run_bernoulli(
        filter: &mut LossFilter,
        p: f64,
        seed: u64,
        warm: usize,
        n: usize,
    ) -> (f64, f64) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for _ in 0..warm {
            filter.record(bernoulli(&mut rng, p));
        }
        let (mut sum, mut lost) = (0.0, 0usize);
        for _ in 0..n {
            let x = bernoulli(&mut rng, p);
            lost += usize::from(x);
            filter.record(x);
            sum += filter.value();
        }
        (sum / n as f64, lost as f64 / n as f64)
    }

    #[test]
    fn paper_3_2_2_filter_converges_to_bernoulli_rate() {
        for (i, &p) in [0.001, 0.01, 0.05, 0.10, 0.30].iter().enumerate() {
            let mut f = LossFilter::default();
            let (mean, empirical) = run_bernoulli(&mut f, p, 1000 + i as u64, 5_000, 1_000_000);
            // The time-average of an EWMA equals the time-average of its input up to a boundary term
            // (Y_end − Y_start)/(n(1 − W)) and the rounding bias (≈ 1.4e-8 here): tight agreement.
            assert!(
                (mean - empirical).abs() < 0.01 * empirical + 2e-6,
                "p = {p}: mean output {mean}, empirical loss {empirical}"
            );
            // And the input itself is within sampling noise of p (≤ 3.2 % relative sd at p = 0.001).
            assert!((mean - p).abs() < 0.1 * p, "p = {p}: mean output {mean}");
            // The instantaneous estimate is near p too (sd of the EWMA ≈ sqrt(p(1−p)(1−W)/(1+W))).
            let sd = (p * (1.0 - p) * 536.0 / (2.0 * 65536.0 - 536.0)).sqrt();
            assert!(
                (f.value() - p).abs() < 5.0 * sd,
                "p = {p}: final {}",
                f.value()
            );
        }
    }

    #[test]
    fn paper_3_2_2_paper_precision_has_documented_negative_bias() {
        // With 16 fractional bits and truncation every update loses on average half a unit of 2^-16, so the
        // output sits ≈ 0.5·65536/536 ≈ 61 units below the exact filter (module docs). Same input to both.
        let p = 0.05;
        let mut paper = LossFilter::with_paper_precision(LossFilter::PAPER_WEIGHT);
        let mut ext = LossFilter::default();
        assert!(paper.is_paper_precision() && !ext.is_paper_precision());
        let (m_paper, e1) = run_bernoulli(&mut paper, p, 7, 5_000, 400_000);
        let (m_ext, e2) = run_bernoulli(&mut ext, p, 7, 5_000, 400_000);
        assert_eq!(e1, e2);
        let gap = (m_ext - m_paper) * 65536.0;
        assert!((55.0..67.0).contains(&gap), "bias {gap} units of 2^-16");
    }

    #[test]
    fn paper_3_2_2_step_response_time_constant() {
        // From 0, all packets lost: Y_n = 1 − W^n, which crosses 1 − 1/e at n ≈ −1/ln W = 121.8 packets
        // (≈ 65536/536 = 122.3, the paper's corner frequency 0.0013 packets⁻¹ ≈ 1/(2π·122)).
        for f0 in [
            LossFilter::default(),
            LossFilter::with_paper_precision(LossFilter::PAPER_WEIGHT),
        ] {
            let mut f = f0;
            let target = 1.0 - (-1.0f64).exp();
            let mut n = 0;
            while f.value() < target {
                f.record_lost();
                n += 1;
            }
            assert!((120..=124).contains(&n), "rise time constant {n} packets");
            // And the decay back toward 0 has the same constant.
            let mut f = f0;
            for _ in 0..100_000 {
                f.record_lost();
            }
            let start = f.value();
            let mut n = 0;
            while f.value() > start / 1f64.exp() {
                f.record_received();
                n += 1;
            }
            assert!((120..=124).contains(&n), "decay time constant {n} packets");
        }
    }

    #[test]
    fn paper_3_2_2_first_loss_adds_one_minus_w() {
        // Y_1 = W·0 + (1 − W)·1 = 536/65536.
        let mut f = LossFilter::default();
        f.record_lost();
        assert_eq!(f.value_fixed(), 536);
        let mut g = LossFilter::with_paper_precision(LossFilter::PAPER_WEIGHT);
        g.record_lost();
        assert_eq!(g.value_fixed(), 536);
        // Then one received packet: floor(65000·536/65536) = floor(531.6) = 531 in paper precision; the extended
        // state holds 531.6… and rounds to 532.
        g.record_received();
        assert_eq!(g.value_fixed(), 531);
        f.record_received();
        assert_eq!(f.value_fixed(), 532);
    }

    #[test]
    fn paper_3_2_2_never_exceeds_bounds() {
        let mut rng = ChaCha8Rng::seed_from_u64(42);
        for weight in [
            0,
            1,
            536,
            32768,
            65000,
            65036,
            65535,
            65536,
            70000,
            u32::MAX,
        ] {
            for mut f in [
                LossFilter::new(weight),
                LossFilter::with_paper_precision(weight),
            ] {
                for i in 0..20_000 {
                    // Long runs of each kind plus random stretches.
                    let lost = match i / 5000 {
                        0 => true,
                        1 => false,
                        _ => rng.next_u32() & 1 == 1,
                    };
                    f.record(lost);
                    assert!(f.value_fixed() <= 65536);
                    assert!((0.0..=1.0).contains(&f.value()));
                }
            }
        }
    }

    #[test]
    fn paper_3_2_2_lossless_decays_to_exactly_zero_and_full_loss_to_one() {
        for f0 in [
            LossFilter::default(),
            LossFilter::with_paper_precision(LossFilter::PAPER_WEIGHT),
        ] {
            let mut f = f0;
            for _ in 0..10_000 {
                f.record_lost();
            }
            // Truncation stops the climb once (1 − W)·(1 − Y) < 1 unit: within 123 units of 1.0. In paper
            // precision that is visible (≥ 99.8 %); the extended state rounds to exactly 65536 (below).
            assert!(f.value_fixed() >= 65536 - 123);
            for _ in 0..10_000 {
                f.record_received();
            }
            assert_eq!(f.value_fixed(), 0);
            assert_eq!(f.value(), 0.0);
        }
        // Extended precision reads 100 % (the state converges to within 123 units of 2^-32 of 1.0).
        let mut f = LossFilter::default();
        for _ in 0..10_000 {
            f.record_lost();
        }
        assert_eq!(f.value_fixed(), 65536);
        assert_eq!(f.value_u16(), 65535);
    }

    #[test]
    fn draft_2_1_3_wire_value_saturates_instead_of_wrapping() {
        // W = 0: the estimate is the last sample, so one loss gives exactly 65536 (100 %).
        let mut f = LossFilter::new(0);
        f.record_lost();
        assert_eq!(f.value_fixed(), 65536);
        assert_eq!(
            f.value_u16(),
            65535,
            "100 % saturates; OpenPGM's cast would give 0"
        );
        assert_eq!(f.value(), 1.0);
        f.record_received();
        assert_eq!(f.value_u16(), 0);
    }

    #[test]
    fn draft_2_6_weight_constant_and_clamping_rule() {
        assert_eq!(LossFilter::DRAFT_WEIGHT, 65036);
        let mut f = LossFilter::new(LossFilter::DRAFT_WEIGHT);
        f.record_lost();
        assert_eq!(
            f.value_fixed(),
            500,
            "draft §2.6: new-sample weight 500/65536"
        );
        // Weights above 65536 clamp to 65536: the filter is frozen.
        let mut g = LossFilter::new(100_000);
        assert_eq!(g.weight(), 65536);
        g.record_lost();
        assert_eq!(g.value_fixed(), 0);
        assert_eq!(LossFilter::default().weight(), LossFilter::PAPER_WEIGHT);
    }

    #[test]
    fn filter_is_deterministic_and_resettable() {
        let run = || {
            let mut f = LossFilter::default();
            let mut rng = ChaCha8Rng::seed_from_u64(3);
            for _ in 0..10_000 {
                f.record(bernoulli(&mut rng, 0.02));
            }
            f
        };
        let (a, b) = (run(), run());
        assert_eq!(a, b);
        let mut c = a;
        c.reset();
        assert_eq!(c.value_fixed(), 0);
        assert_eq!(c.weight(), a.weight());
    }
}
