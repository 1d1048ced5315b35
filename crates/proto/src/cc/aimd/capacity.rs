//! A receiver's capacity (Shi and Waldvogel §5.2): "Capacity = 1/(RTT·√lossrate)", "a function of both measured
//! loss rate over a recent period and measured round-trip time" (§4.2), in packets per second when RTT is in
//! seconds and the loss rate a fraction. Capacities are only compared with each other (who is worse than the
//! agent, §5.1; whether the agent's capacity fell, §5.3), so the TCP model's constant √(3/2) and the packet size
//! are left out, as the paper leaves them out.
//!
//! # The loss rate over a recent period
//!
//! The paper leaves the period open ("if the time is too long … the flow will be unresponsive … if the time is too
//! short, the receiver does not have sufficient information", §5.2). [`LossWindow`] counts the fates of the last
//! W packets (default 500: about 8 s at the 62 packets/s of the paper's fair shares), p = lost/n over the n ≤ W
//! packets it holds.
//!
//! Before the first loss p = 0 and every capacity is infinite: no loss-free receiver could be worse than another
//! and an agent chosen among them would keep its role however far away it sits. The estimate is therefore floored
//! at half a loss in a full window, p ≥ 1/(2W), below anything the window can measure (1/W): loss-free receivers
//! then compare by RTT alone, the farthest being the worst, and a receiver that sees its first loss ranks below
//! every loss-free one at the same RTT. The floor biases p upwards only while fewer than half a loss is in view.

use std::collections::VecDeque;

/// The fates (lost or received) of the last W packets, oldest first.
#[derive(Clone, Debug)]
pub struct LossWindow {
    fates: VecDeque<bool>,
    len: usize,
    lost: usize,
}

impl LossWindow {
    /// An empty window of `len` packets (at least 1).
    pub fn new(len: u32) -> Self {
        let len = (len as usize).max(1);
        LossWindow {
            fates: VecDeque::with_capacity(len),
            len,
            lost: 0,
        }
    }

    /// One more packet, `lost` or received; the oldest leaves a full window.
    pub fn record(&mut self, lost: bool) {
        if self.fates.len() == self.len && self.fates.pop_front() == Some(true) {
            self.lost -= 1;
        }
        self.fates.push_back(lost);
        self.lost += usize::from(lost);
    }

    /// Packets in the window.
    pub fn packets(&self) -> usize {
        self.fates.len()
    }

    /// Lost packets in the window.
    pub fn lost(&self) -> usize {
        self.lost
    }

    /// The loss rate p = lost/n, floored at 1/(2W) (module docs).
    pub fn rate(&self) -> f64 {
        let floor = 0.5 / self.len as f64;
        if self.fates.is_empty() {
            return floor;
        }
        (self.lost as f64 / self.fates.len() as f64).max(floor)
    }
}

/// Capacity = 1/(RTT·√p) in packets per second (paper §5.2), `rtt_s` in seconds; a zero RTT or loss rate gives
/// infinity.
pub fn capacity(rtt_s: f64, p: f64) -> f64 {
    1.0 / (rtt_s * p.clamp(0.0, 1.0).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shi_waldvogel_5_2_capacity_is_one_over_rtt_times_the_root_of_the_loss_rate() {
        // 100 ms and 25 %: 1/(0.1·0.5) = 20 packets/s; 4 % at 50 ms: 1/(0.05·0.2) = 100.
        assert!((capacity(0.1, 0.25) - 20.0).abs() < 1e-12);
        assert!((capacity(0.05, 0.04) - 100.0).abs() < 1e-9);
        assert_eq!(capacity(0.1, 0.0), f64::INFINITY);
    }

    #[test]
    fn shi_waldvogel_5_2_the_loss_rate_covers_the_last_w_packets_only() {
        let mut w = LossWindow::new(4);
        for lost in [false, true, false, false] {
            w.record(lost);
        }
        assert_eq!((w.packets(), w.lost()), (4, 1));
        assert!((w.rate() - 0.25).abs() < 1e-12);
        // Four more received packets push the loss out: the floor, half a loss in a full window.
        for _ in 0..4 {
            w.record(false);
        }
        assert_eq!(w.lost(), 0);
        assert!((w.rate() - 0.125).abs() < 1e-12);
    }

    #[test]
    fn loss_free_receivers_compare_by_rtt() {
        let w = LossWindow::new(500);
        assert!((w.rate() - 0.001).abs() < 1e-15, "the floor before any packet");
        assert!(capacity(0.2, w.rate()) < capacity(0.1, w.rate()), "the farther one is worse");
        let mut lossy = LossWindow::new(500);
        lossy.record(true);
        for _ in 0..9 {
            lossy.record(false);
        }
        assert!(capacity(0.1, lossy.rate()) < capacity(0.1, w.rate()), "a first loss ranks below loss-free");
    }
}
