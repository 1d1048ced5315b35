//! The TFRC loss-event-rate estimator: loss events, loss intervals and their weighted average (RFC 5348 §5).
//!
//! pgmcc receivers may use it instead of the EWMA filter (draft §2.6); TFMCC receivers use it as their loss
//! measurement (RFC 4654 §5, "identical in substance to RFC 5348 §5", docs/tfmcc-rules.md §1).
//!
//! * **Loss events (§5.2).** A lost packet whose (interpolated) time is within one RTT of the first loss of the
//!   current loss event, T_old + R ≥ T_new, belongs to that event; otherwise it starts a new one.
//! * **Loss intervals (§5.3).** The interval of an event starting with packet S_A and followed by an event
//!   starting with S_B holds S_B − S_A packets. The current (open) interval I_0 counts the packets from S_A to the
//!   latest one, S_C − S_A + 1.
//! * **Average (§5.4).** With weights 1, 1, 1, 1, 0.8, 0.6, 0.4, 0.2 (n = 8) and k ≤ n closed intervals
//!   I_1..I_k: I_mean = max(Σ_{i=0}^{k−1} w_i·I_i, Σ_{i=1}^{k} w_{i−1}·I_i) / Σ_{i=0}^{k−1} w_i, and p = 1/I_mean,
//!   so the open interval counts only when it raises the average. p = 0 before the first loss.
//! * **History discounting (§5.5, optional).** When I_0 exceeds twice the average of the closed intervals, the
//!   older intervals are discounted by DF = max(2·I_mean/I_0, THRESHOLD), so that p falls faster after
//!   congestion ends. THRESHOLD is 0.25 in RFC 5348 and 0.5 in RFC 4654 §5.5.
//! * **First interval (§6.3.1).** The interval before the first loss event defaults to the number of packets
//!   recorded before it; TFRC and TFMCC replace it with a synthetic interval derived from the receive rate
//!   ([`TfrcLossHistory::set_first_interval`], see [`crate::throughput::loss_rate_for_throughput`]).
//!
//! # Input model
//!
//! The estimator counts packets; it does not see sequence numbers. Call [`TfrcLossHistory::record_received`] or
//! [`TfrcLossHistory::record_lost`] once per packet, in sequence order, after the caller's loss detection
//! (§5.1: a packet is lost once three later ones have arrived; a late arrival may still fill the hole). The
//! `now` given with a lost packet should be its nominal arrival time interpolated between its neighbours
//! (§5.2); the detection time is an acceptable stand-in when the detection delay is roughly constant. ECN-marked
//! packets are reported as lost (§5.1). Losses within one event are counted in the open interval like received
//! packets (so I_0 counts every packet from S_A on, the RFC's S_C − S_A + 1 once S_C is received).
//!
//! All arithmetic is plain IEEE-754 on a fixed-size history (no allocation), hence deterministic.

use std::time::Duration;

use crate::time::Instant;

/// Number of closed loss intervals kept, n (RFC 5348 §5.4: "RECOMMENDED to set the value n to 8").
pub const N_INTERVALS: usize = 8;

/// Interval weights w_0..w_7 for n = 8: w_i = 1 for i < n/2, else 2(n − i)/(n + 2) (RFC 5348 §5.4).
pub const WEIGHTS: [f64; N_INTERVALS] = [1.0, 1.0, 1.0, 1.0, 0.8, 0.6, 0.4, 0.2];

/// THRESHOLD of the history discounting of RFC 5348 §5.5 ("We recommend a THRESHOLD of 0.25").
pub const RFC5348_DISCOUNT_THRESHOLD: f64 = 0.25;

/// THRESHOLD of the history discounting of RFC 4654 §5.5 (TFMCC uses 0.5; docs/tfmcc-rules.md §1).
pub const RFC4654_DISCOUNT_THRESHOLD: f64 = 0.5;

/// TFRC loss history and loss event rate (RFC 5348 §5; RFC 4654 §5; pgmcc draft §2.6).
#[derive(Clone, Debug, PartialEq)]
pub struct TfrcLossHistory {
    /// Whether history discounting (RFC 5348 §5.5) is applied.
    discounting: bool,
    /// THRESHOLD, the floor of the general discount factor DF (§5.5).
    threshold: f64,
    /// Closed intervals I_1..I_k, most recent first (`closed[0]` is I_1); only `closed[..len]` is valid.
    closed: [f64; N_INTERVALS],
    /// Discount factors DF_1..DF_k of the closed intervals (§5.5); all 1 without discounting.
    discount: [f64; N_INTERVALS],
    /// k, the number of valid closed intervals.
    len: usize,
    /// Packets recorded before the first loss event.
    before_first: u64,
    /// I_0 in packets, counting the first lost packet of the current event; meaningful once `events > 0`.
    open: u64,
    /// Time of the first lost packet of the current loss event (T_old in §5.2).
    event_start: Option<Instant>,
    /// Loss events seen so far.
    events: u64,
}

impl Default for TfrcLossHistory {
    /// [`TfrcLossHistory::new`].
    fn default() -> Self {
        TfrcLossHistory::new()
    }
}

impl TfrcLossHistory {
    /// An empty history, without history discounting (RFC 5348 §5.5 makes it OPTIONAL).
    pub fn new() -> Self {
        TfrcLossHistory {
            discounting: false,
            threshold: RFC5348_DISCOUNT_THRESHOLD,
            closed: [0.0; N_INTERVALS],
            discount: [1.0; N_INTERVALS],
            len: 0,
            before_first: 0,
            open: 0,
            event_start: None,
            events: 0,
        }
    }

    /// Enables or disables history discounting (RFC 5348 §5.5), with the THRESHOLD in use (0.25 unless changed
    /// by [`with_discount_threshold`](Self::with_discount_threshold)). Meant for configuration before use.
    pub fn with_discounting(mut self, enabled: bool) -> Self {
        self.discounting = enabled;
        self
    }

    /// Sets THRESHOLD, the lower bound of the discount factor (RFC 5348 §5.5: 0.25, the default; RFC 4654
    /// §5.5: 0.5). Values are clamped to `[0, 1]`; NaN is ignored.
    pub fn with_discount_threshold(mut self, threshold: f64) -> Self {
        if !threshold.is_nan() {
            self.threshold = threshold.clamp(0.0, 1.0);
        }
        self
    }

    /// Whether history discounting (RFC 5348 §5.5) is enabled.
    pub fn discounting(&self) -> bool {
        self.discounting
    }

    /// One packet received (RFC 5348 §5.3: it extends the open interval I_0, or, before the first loss, the
    /// run that becomes the first interval).
    pub fn record_received(&mut self) {
        if self.events == 0 {
            self.before_first = self.before_first.saturating_add(1);
        } else {
            self.open = self.open.saturating_add(1);
        }
    }

    /// One packet lost (or ECN-marked), at its nominal arrival time `now`, with the receiver's current RTT
    /// estimate `rtt` (RFC 5348 §5.2).
    ///
    /// If `T_old + rtt ≥ now`, where T_old is the time of the lost packet that started the current loss event,
    /// the packet joins that event and only lengthens I_0. Otherwise it starts a new loss event: I_0 is closed
    /// (becoming I_1; the oldest interval beyond n = 8 is forgotten), discount factors are folded in when
    /// discounting (§5.5), and the new I_0 holds this packet. The first loss event closes the interval of
    /// packets recorded before it (see [`set_first_interval`](Self::set_first_interval)). Returns `true` if the
    /// packet started a new loss event.
    pub fn record_lost(&mut self, now: Instant, rtt: Duration) -> bool {
        if let Some(t_old) = self.event_start {
            if t_old + rtt >= now {
                self.open = self.open.saturating_add(1);
                return false;
            }
        }
        let finished = if self.events == 0 {
            // RFC 5348 §6.3.1: "the number of packets sent until the first loss"; a null interval (the very
            // first packet lost) is stored as 1 packet, the smallest length keeping p ≤ 1.
            self.before_first.max(1) as f64
        } else {
            self.open as f64
        };
        if self.discounting && self.events > 0 {
            // §5.5: DF_i ← DF·DF_i for the closed intervals, with DF as of the last packet before this event.
            let df = self.general_discount();
            for d in &mut self.discount[..self.len] {
                *d *= df;
            }
        }
        // Shift I_i → I_(i+1) and DF_i → DF_(i+1); I_n is forgotten.
        self.closed.copy_within(0..N_INTERVALS - 1, 1);
        self.discount.copy_within(0..N_INTERVALS - 1, 1);
        self.closed[0] = finished;
        self.discount[0] = 1.0;
        self.len = (self.len + 1).min(N_INTERVALS);
        self.open = 1;
        self.event_start = Some(now);
        self.events = self.events.saturating_add(1);
        true
    }

    /// Replaces the first loss interval — the one ending at the first loss event — with a synthetic length in
    /// packets (RFC 5348 §6.3.1: 1/p for the p at which the throughput equation gives the target rate; RFC 4654
    /// §5.6: l_0, later rescaled by (R/R_max)²). Lengths below 1 packet are raised to 1.
    ///
    /// Returns `false`, changing nothing, if there has been no loss event yet, if that interval has already
    /// left the n = 8 history, or if `packets` is NaN.
    pub fn set_first_interval(&mut self, packets: f64) -> bool {
        match self.first_interval_index() {
            Some(i) if !packets.is_nan() => {
                self.closed[i] = packets.max(1.0);
                true
            }
            _ => false,
        }
    }

    /// The first loss interval while it is still in the history (see
    /// [`set_first_interval`](Self::set_first_interval)), `None` otherwise.
    pub fn first_interval(&self) -> Option<f64> {
        self.first_interval_index().map(|i| self.closed[i])
    }

    fn first_interval_index(&self) -> Option<usize> {
        match self.events {
            0 => None,
            e if e <= N_INTERVALS as u64 => Some(e as usize - 1),
            _ => None,
        }
    }

    /// Number of loss events seen (RFC 5348 §5.2).
    pub fn loss_events(&self) -> u64 {
        self.events
    }

    /// The open interval I_0 in packets (RFC 5348 §5.3), 0 before the first loss event.
    pub fn open_interval(&self) -> u64 {
        self.open
    }

    /// The closed intervals I_1..I_k in packets, most recent first, k ≤ 8 (RFC 5348 §5.3–5.4).
    pub fn closed_intervals(&self) -> &[f64] {
        &self.closed[..self.len]
    }

    /// The general discount factor DF of RFC 5348 §5.5 for the current state: with
    /// I_mean = Σ_{i=1}^{k} w_{i−1}·DF_i·I_i / Σ w_{i−1}·DF_i, DF = max(2·I_mean/I_0, THRESHOLD) if
    /// I_0 > 2·I_mean, else 1. Always 1 without discounting or before the first loss event. §5.5 updates DF on
    /// every packet arrival; as DF depends only on I_0 and the history, computing it on demand is equivalent.
    pub fn general_discount(&self) -> f64 {
        if !self.discounting || self.len == 0 {
            return 1.0;
        }
        let k = self.len;
        let (mut i_tot, mut w_tot) = (0.0, 0.0);
        for ((&interval, &df_i), &w) in self.closed[..k]
            .iter()
            .zip(&self.discount[..k])
            .zip(&WEIGHTS)
        {
            let w = w * df_i;
            i_tot += interval * w;
            w_tot += w;
        }
        let i_mean = i_tot / w_tot;
        let i0 = self.open as f64;
        if i0 > 2.0 * i_mean {
            (2.0 * i_mean / i0).max(self.threshold)
        } else {
            1.0
        }
    }

    /// The loss event rate p (RFC 5348 §5.4, or §5.5 with discounting): 0.0 before the first loss event.
    ///
    /// Without discounting, p = W_tot / max(I_tot0, I_tot1) with I_tot0 = Σ_{i=0}^{k−1} w_i·I_i (open interval
    /// included), I_tot1 = Σ_{i=1}^{k} w_{i−1}·I_i (closed intervals only) and W_tot = Σ_{i=0}^{k−1} w_i. With
    /// discounting, p = min(W_tot0/I_tot0, W_tot1/I_tot1) where the older terms of the first sum carry
    /// w_i·DF_i·DF and those of the second w_{i−1}·DF_i (§5.5).
    pub fn loss_event_rate(&self) -> f64 {
        if self.events == 0 || self.len == 0 {
            return 0.0;
        }
        let k = self.len;
        let i0 = self.open as f64;
        let df = self.general_discount();
        // With discounting off all DF_i and DF are 1 and both forms coincide; keep the §5.4 form exact.
        // I_tot0: I_0·w_0 + Σ_{i=1}^{k−1} I_i·w_i·DF_i·DF (closed[i−1] is I_i, discount[i−1] is DF_i).
        let (mut i_tot0, mut w_tot0) = (i0 * WEIGHTS[0], WEIGHTS[0]);
        let older = self.closed[..k - 1].iter().zip(&self.discount[..k - 1]);
        for ((&interval, &df_i), &w) in older.zip(&WEIGHTS[1..]) {
            let w = w * df_i * df;
            i_tot0 += interval * w;
            w_tot0 += w;
        }
        // I_tot1: Σ_{i=1}^{k} I_i·w_{i−1}·DF_i.
        let (mut i_tot1, mut w_tot1) = (0.0, 0.0);
        for ((&interval, &df_i), &w) in self.closed[..k]
            .iter()
            .zip(&self.discount[..k])
            .zip(&WEIGHTS)
        {
            let w = w * df_i;
            i_tot1 += interval * w;
            w_tot1 += w;
        }
        if self.discounting {
            (w_tot0 / i_tot0).min(w_tot1 / i_tot1)
        } else {
            // §5.4: W_tot = Σ_{i=0}^{k−1} w_i = w_tot0 = w_tot1 here.
            w_tot0 / i_tot0.max(i_tot1)
        }
    }

    /// The average loss interval I_mean = 1/p in packets (RFC 5348 §5.4), `None` before the first loss event.
    pub fn average_loss_interval(&self) -> Option<f64> {
        if self.events == 0 {
            None
        } else {
            Some(1.0 / self.loss_event_rate())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RTT: Duration = Duration::from_millis(100);

    /// Feeds `n` packets, one per millisecond from `*t`, losing those for which `lost(i)` holds.
    fn feed(h: &mut TfrcLossHistory, t: &mut u64, n: u64, lost: impl Fn(u64) -> bool) {
        for i in 0..n {
            *t += 1;
            if lost(i) {
                h.record_lost(Instant::from_millis(*t), RTT);
            } else {
                h.record_received();
            }
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs().max(1e-300)
    }

    #[test]
    fn rfc5348_5_4_no_loss_means_zero_rate() {
        let mut h = TfrcLossHistory::new();
        let mut t = 0;
        feed(&mut h, &mut t, 10_000, |_| false);
        assert_eq!(h.loss_event_rate(), 0.0);
        assert_eq!(h.loss_events(), 0);
        assert_eq!(h.average_loss_interval(), None);
        assert_eq!(h.first_interval(), None);
        assert!(!h.set_first_interval(10.0));
    }

    #[test]
    fn rfc5348_5_4_periodic_loss_gives_one_over_k() {
        for k in [2u64, 10, 37, 100, 1000] {
            for discounting in [false, true] {
                let mut h = TfrcLossHistory::new().with_discounting(discounting);
                let mut t = 0;
                // One loss every k packets; packets 1 s apart so every loss is its own event (RTT 100 ms).
                // The first interval (before the first loss) is k − 1 and leaves the 8-interval history.
                for i in 0..(20 * k) {
                    t += 1000;
                    if i % k == k - 1 {
                        h.record_lost(Instant::from_millis(t), RTT);
                    } else {
                        h.record_received();
                    }
                }
                // Right after a loss event I_0 = 1 does not count, every closed interval is exactly k.
                assert_eq!(h.loss_events(), 20);
                assert!(h.closed_intervals().iter().all(|&i| i == k as f64));
                assert!(close(h.loss_event_rate(), 1.0 / k as f64), "k = {k}");
                // Mid-interval the rate stays 1/k: I_0 < k never raises the mean.
                feed(&mut h, &mut t, k - 1, |_| false);
                assert!(close(h.loss_event_rate(), 1.0 / k as f64), "k = {k}");
            }
        }
    }

    #[test]
    fn rfc5348_5_2_losses_within_one_rtt_are_one_event() {
        let mut h = TfrcLossHistory::new();
        let mut t = 0;
        feed(&mut h, &mut t, 50, |_| false);
        // A burst: 5 losses 10 ms apart (all within 100 ms of the first), then more packets.
        let t0 = t;
        for j in 0..5 {
            assert_eq!(
                h.record_lost(Instant::from_millis(t0 + 10 * j), RTT),
                j == 0
            );
        }
        assert_eq!(h.loss_events(), 1);
        assert_eq!(h.open_interval(), 5);
        // Exactly at T_old + R the loss still belongs to the event (T_old + R ≥ T_new).
        assert!(!h.record_lost(Instant::from_millis(t0 + 100), RTT));
        assert_eq!(h.loss_events(), 1);
        // 1 ns later it starts a new one.
        assert!(h.record_lost(
            Instant::from_millis(t0 + 100) + Duration::from_nanos(1),
            RTT
        ));
        assert_eq!(h.loss_events(), 2);
        // The closed interval covers the whole first event: 6 packets (S_B − S_A).
        assert_eq!(h.closed_intervals(), &[6.0, 50.0]);
        // A longer RTT merges what a short one separates.
        let mut a = TfrcLossHistory::new();
        let mut b = TfrcLossHistory::new();
        for (h, rtt) in [
            (&mut a, Duration::from_millis(10)),
            (&mut b, Duration::from_secs(1)),
        ] {
            for j in 0..10 {
                h.record_received();
                h.record_lost(Instant::from_millis(100 * j), rtt);
            }
        }
        assert_eq!(a.loss_events(), 10);
        assert_eq!(b.loss_events(), 1);
    }

    #[test]
    fn rfc5348_5_3_interval_lengths_and_first_interval() {
        let mut h = TfrcLossHistory::new();
        let mut t = 0;
        feed(&mut h, &mut t, 99, |_| false);
        t += 1000;
        h.record_lost(Instant::from_millis(t), RTT);
        // §6.3.1: the first interval is the number of packets before the first loss.
        assert_eq!(h.closed_intervals(), &[99.0]);
        assert_eq!(h.first_interval(), Some(99.0));
        assert_eq!(h.open_interval(), 1);
        // I_0 = S_C − S_A + 1: after 9 more received packets it is 10.
        feed(&mut h, &mut t, 9, |_| false);
        assert_eq!(h.open_interval(), 10);
        // With one closed interval: p = 1/max(I_0, I_1).
        assert!(close(h.loss_event_rate(), 1.0 / 99.0));
        feed(&mut h, &mut t, 190, |_| false);
        assert_eq!(h.open_interval(), 200);
        assert!(close(h.loss_event_rate(), 1.0 / 200.0));
        // A lost first packet gives a null interval, stored as 1.
        let mut g = TfrcLossHistory::new();
        g.record_lost(Instant::ZERO, RTT);
        assert_eq!(g.closed_intervals(), &[1.0]);
        assert_eq!(g.loss_event_rate(), 1.0);
    }

    /// A history whose 8 closed intervals are all `len` packets, with I_0 = 1 (just after a loss event).
    fn uniform_history(len: u64, discounting: bool) -> (TfrcLossHistory, u64) {
        let mut h = TfrcLossHistory::new().with_discounting(discounting);
        let mut t = 0;
        for _ in 0..9 {
            feed(&mut h, &mut t, len - 1, |_| false);
            t += 1000;
            h.record_lost(Instant::from_millis(t), RTT);
        }
        assert_eq!(h.closed_intervals(), &[len as f64; 8]);
        (h, t)
    }

    #[test]
    fn rfc5348_5_4_open_interval_counts_only_when_it_raises_the_mean() {
        let (mut h, mut t) = uniform_history(100, false);
        // I_0 = 50 < 100: the closed-only average wins, p = 1/100.
        feed(&mut h, &mut t, 49, |_| false);
        assert_eq!(h.open_interval(), 50);
        assert!(close(h.loss_event_rate(), 0.01));
        // I_0 = 1000: I_tot0 = 1000·1 + 100·(1+1+1+0.8+0.6+0.4+0.2) = 1500, W_tot = 6 → I_mean = 250, p = 0.004.
        feed(&mut h, &mut t, 950, |_| false);
        assert_eq!(h.open_interval(), 1000);
        assert!(close(h.loss_event_rate(), 6.0 / 1500.0));
        assert!(close(h.average_loss_interval().unwrap(), 250.0));
    }

    #[test]
    fn rfc5348_5_4_weights_and_history_length() {
        // Weights per §5.4: w_i = 1 for i < 4, else 2(8 − i)/10.
        for (i, &w) in WEIGHTS.iter().enumerate() {
            let expect = if i < 4 {
                1.0
            } else {
                2.0 * (8 - i) as f64 / 10.0
            };
            assert!(close(w, expect));
        }
        // Intervals 10, 20, ..., 90 (oldest first); only the 8 most recent stay.
        let mut h = TfrcLossHistory::new();
        let mut t = 0;
        for j in 1..=9u64 {
            feed(&mut h, &mut t, 10 * j - 1, |_| false);
            t += 1000;
            h.record_lost(Instant::from_millis(t), RTT);
        }
        assert_eq!(h.loss_events(), 9);
        assert_eq!(
            h.closed_intervals(),
            &[90.0, 80.0, 70.0, 60.0, 50.0, 40.0, 30.0, 20.0]
        );
        assert_eq!(
            h.first_interval(),
            None,
            "the first interval (9 packets) has left the history"
        );
        // I_tot1 = 90+80+70+60 + 0.8·50 + 0.6·40 + 0.4·30 + 0.2·20 = 300 + 40 + 24 + 12 + 4 = 380; W = 6.
        assert!(close(h.loss_event_rate(), 6.0 / 380.0));
    }

    #[test]
    fn rfc5348_5_5_discounting_lowers_rate_after_congestion_ends() {
        let (mut plain, mut t1) = uniform_history(10, false);
        let (mut disc, mut t2) = uniform_history(10, true);
        assert!(disc.discounting() && !plain.discounting());
        // While I_0 ≤ 2·I_mean = 20 nothing is discounted: same rate.
        feed(&mut plain, &mut t1, 19, |_| false);
        feed(&mut disc, &mut t2, 19, |_| false);
        assert_eq!(disc.general_discount(), 1.0);
        assert!(close(disc.loss_event_rate(), plain.loss_event_rate()));
        // I_0 = 1000: DF = max(2·10/1000, 0.25) = 0.25.
        feed(&mut plain, &mut t1, 980, |_| false);
        feed(&mut disc, &mut t2, 980, |_| false);
        assert_eq!(disc.open_interval(), 1000);
        assert!(close(disc.general_discount(), 0.25));
        // Plain: 6/(1000 + 10·5) = 0.0057143.
        assert!(close(plain.loss_event_rate(), 6.0 / 1050.0));
        // Discounted: W_tot0 = 1 + 5·0.25 = 2.25, I_tot0 = 1000 + 50·0.25 = 1012.5 → 0.0022222;
        // W_tot1/I_tot1 = 6/60 = 0.1; p = min = 0.0022222.
        assert!(close(disc.loss_event_rate(), 2.25 / 1012.5));
        // Between the two thresholds: I_0 = 40 → DF = 2·10/40 = 0.5.
        let (mut mid, mut t3) = uniform_history(10, true);
        feed(&mut mid, &mut t3, 39, |_| false);
        assert!(close(mid.general_discount(), 0.5));
        // RFC 4654's THRESHOLD of 0.5 floors the factor higher.
        let mut tfmcc = uniform_history(10, true)
            .0
            .with_discount_threshold(RFC4654_DISCOUNT_THRESHOLD);
        let mut t4 = 0;
        feed(&mut tfmcc, &mut t4, 999, |_| false);
        assert!(close(tfmcc.general_discount(), 0.5));
    }

    #[test]
    fn rfc5348_5_5_discount_factors_fold_into_history_on_new_event() {
        let (mut h, mut t) = uniform_history(10, true);
        feed(&mut h, &mut t, 999, |_| false);
        assert!(close(h.general_discount(), 0.25));
        // New loss event: the old intervals keep DF_i = 0.25, the closed I_1 = 1000 gets DF_1 = 1.
        t += 1000;
        h.record_lost(Instant::from_millis(t), RTT);
        assert_eq!(h.closed_intervals()[0], 1000.0);
        assert_eq!(h.general_discount(), 1.0, "I_0 = 1 is small");
        // History: I_1 = 1000 (DF_1 = 1), I_2..I_8 = 10 (DF_i = 0.25); I_0 = 1, DF = 1.
        // I_tot1 = 1000·1 + 10·0.25·(w_1..w_7 = 1+1+1+0.8+0.6+0.4+0.2 = 5) = 1012.5, W_tot1 = 1 + 0.25·5 = 2.25;
        // I_tot0 = 1·w_0 + 1000·w_1 + 10·0.25·(w_2..w_7 = 4) = 1011, W_tot0 = 1 + 1 + 0.25·4 = 3.
        // p = min(3/1011, 2.25/1012.5) = 2.25/1012.5 = 0.0022222.
        assert!(close(h.loss_event_rate(), 2.25 / 1012.5));
        // Without discounting the same history would give p = 6/(1000 + 10·5) = 0.005714 (I_tot1 branch).
        assert!(h.loss_event_rate() < 6.0 / 1050.0);
    }

    #[test]
    fn rfc5348_6_3_1_synthetic_first_interval() {
        let mut h = TfrcLossHistory::new();
        let mut t = 0;
        feed(&mut h, &mut t, 9, |_| false);
        t += 1000;
        h.record_lost(Instant::from_millis(t), RTT);
        assert_eq!(h.first_interval(), Some(9.0));
        // Seed from the equation: a target rate needing p = 0.004 gives a first interval of 250.
        assert!(h.set_first_interval(250.0));
        assert_eq!(h.first_interval(), Some(250.0));
        assert!(close(h.loss_event_rate(), 1.0 / 250.0));
        // RFC 4654 §5.6: l_0 ← l_0·(R/R_max)², e.g. R = 0.25 s, R_max = 0.5 s: 62.5.
        let l0 = h.first_interval().unwrap();
        assert!(h.set_first_interval(l0 * (0.25f64 / 0.5).powi(2)));
        assert_eq!(h.first_interval(), Some(62.5));
        // Below 1 packet is raised to 1; NaN is refused.
        assert!(h.set_first_interval(0.1));
        assert_eq!(h.first_interval(), Some(1.0));
        assert!(!h.set_first_interval(f64::NAN));
        // It tracks the interval as it ages, until it leaves the history.
        for j in 2..=8u64 {
            feed(&mut h, &mut t, 20, |_| false);
            t += 1000;
            h.record_lost(Instant::from_millis(t), RTT);
            assert_eq!(h.first_interval(), Some(1.0), "event {j}");
        }
        assert!(h.set_first_interval(300.0));
        assert_eq!(h.closed_intervals()[7], 300.0);
        t += 1000;
        h.record_lost(Instant::from_millis(t), RTT);
        assert_eq!(h.first_interval(), None);
        assert!(!h.set_first_interval(5.0));
    }

    #[test]
    fn rfc5348_5_estimator_is_deterministic() {
        let run = || {
            let mut h = TfrcLossHistory::new().with_discounting(true);
            let mut t = 0;
            feed(&mut h, &mut t, 100_000, |i| (i * 2_654_435_761) % 997 < 7);
            (h.loss_event_rate(), h.loss_events(), h.clone())
        };
        let (a, b) = (run(), run());
        assert_eq!(a.0.to_bits(), b.0.to_bits());
        assert_eq!(a.1, b.1);
        assert_eq!(a.2, b.2);
        assert!(a.0 > 0.0 && a.0 < 1.0);
    }
}
