//! The pgmcc window W and token count T (paper §3.4, draft §2.2).

/// Window and tokens, both fractional (draft §2.2 asks for ≥ 16 fractional bits; f64 has more).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TokenWindow {
    /// Window W in packets: how fast the window opens, and an estimate of packets in flight.
    pub w: f64,
    /// Tokens T: packets that may be sent now. T ≤ W; T may go negative after a reduction.
    pub t: f64,
    /// Fixed slow-start threshold.
    pub ssthresh: f64,
}

impl TokenWindow {
    /// W = T = 1 (paper §3.4 "on session restart", draft §2.2 INITIALIZATION).
    pub fn new(ssthresh: f64) -> Self {
        TokenWindow {
            w: 1.0,
            t: 1.0,
            ssthresh,
        }
    }

    /// Back to W = T = 1 after a timeout (draft §2.2, §3 "on timeout expiration").
    pub fn restart(&mut self) {
        self.w = 1.0;
        self.t = 1.0;
    }

    /// The timeout of the pgmcc code Wang and Fahmy ran (WF §IV-A): W = 1 and T = −1/(2W), so that nothing is
    /// sent until ACKs return tokens ([`super::TimeoutRestart::WangFahmy`]).
    pub fn restart_waiting(&mut self) {
        self.w = 1.0;
        self.t = -1.0 / (2.0 * self.w);
    }

    /// Whether a packet may be sent: one whole token is needed (paper §3.4).
    pub fn can_send(&self) -> bool {
        self.t >= 1.0
    }

    /// A packet was sent: T −= 1 (draft §2.2 PACKET TRANSMISSION).
    pub fn on_send(&mut self) {
        self.t -= 1.0;
    }

    /// `n` new packets acknowledged and no loss (draft §2.2): exponential opening below SSTHRESH
    /// (T += 2D, W += D with D = min(N, SSTHRESH − W)), then T += N(1 + 1/W), W += N/W. T stays ≤ W.
    pub fn on_ack(&mut self, n: u32) {
        let mut n = f64::from(n);
        if self.w < self.ssthresh {
            let d = n.min(self.ssthresh - self.w);
            n -= d;
            self.t += 2.0 * d;
            self.w += d;
        }
        if n > 0.0 {
            self.t += n * (1.0 + 1.0 / self.w);
            self.w += n / self.w;
        }
        self.t = self.t.min(self.w);
    }

    /// `n` packets acknowledged while window changes are suspended after a loss (draft §2.2): each gives back
    /// its token but the window does not grow. T stays ≤ W.
    pub fn on_ack_suspended(&mut self, n: u32) {
        self.t = (self.t + f64::from(n)).min(self.w);
    }

    /// Loss reaction (paper §3.4, draft §2.2): realign W to the `in_flight` packets beyond RX_MAX when it has
    /// grown larger than that ("to avoid that errors accumulate over time, leading to window estimates which are
    /// much larger than reality"), halve it (not below 1), and set T = W − in_flight so the next ACKs refill the
    /// pipe only to the new window (the paper's "ignore the next W/2 ACKs"; equal to the draft's T −= W/2 when
    /// the window was full). A loss never enlarges the window. Returns W before the reduction.
    pub fn on_loss(&mut self, in_flight: u32) -> f64 {
        let before = self.w;
        let realigned = f64::from(in_flight).max(1.0).min(self.w);
        self.w = (realigned / 2.0).max(1.0);
        self.t = self.w - f64::from(in_flight);
        before
    }

    /// `n` packets acknowledged under [`super::LossReaction::NsCode`]: while T < 0 (after a reduction) they
    /// return tokens only, else they open the window as [`TokenWindow::on_ack`] does (Rizzo's ns code:
    /// `deltaW = 0` when `token_ < 0`).
    pub fn on_ack_ns(&mut self, n: u32) {
        if self.t < 0.0 {
            self.t = (self.t + f64::from(n)).min(self.w);
        } else {
            self.on_ack(n);
        }
    }

    /// Loss reaction of Rizzo's ns code ([`super::LossReaction::NsCode`]): W realigned to the `in_flight`
    /// packets; then T += 1 if T < 0, T = 1 if W < 4, else W /= 2 and T = 1 − W. Returns W before the reduction.
    pub fn on_loss_ns(&mut self, in_flight: u32) -> f64 {
        let before = self.w;
        self.w = f64::from(in_flight).max(1.0);
        if self.t < 0.0 {
            self.t += 1.0;
        } else if self.w < 4.0 {
            self.t = 1.0;
        } else {
            self.w /= 2.0;
            self.t = 1.0 - self.w;
        }
        before
    }

    /// Lower W to `max` if above, taking the tokens of the difference (T = W − packets in flight stays true,
    /// paper §3.4): the start-up's bound on the window (module `startup`).
    pub fn cap(&mut self, max: f64) {
        if self.w > max {
            self.t -= self.w - max;
            self.w = max;
        }
    }

    /// Realign W to the packets in flight plus one when tokens were left unspent (T > 1): the window is
    /// what is really in the pipe (paper §3.4's realignment, "window estimates which are much larger than
    /// reality"), and the unspent tokens cannot leave as one burst. Used when the start-up's pace, which held
    /// packets back while ACKs opened the window, stops (module `startup`).
    pub fn realign_unspent(&mut self) {
        if self.t > 1.0 {
            self.w = (self.w - (self.t - 1.0)).max(1.0);
            self.t = 1.0;
        }
    }

    /// Initial election: the first reporter becomes acker and T += 1 (draft §3, "on ACK/NAK reception").
    pub fn on_first_acker(&mut self) {
        self.t = (self.t + 1.0).min(self.w.max(1.0));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draft_2_2_initialization_w_t_one() {
        let w = TokenWindow::new(6.0);
        assert_eq!((w.w, w.t), (1.0, 1.0));
        assert!(w.can_send());
    }

    #[test]
    fn wf_4_a_their_timeout_leaves_minus_half_a_token_and_one_ack_sends_again() {
        let mut w = TokenWindow::new(6.0);
        w.w = 8.0;
        w.t = 0.0;
        w.restart_waiting();
        assert_eq!((w.w, w.t), (1.0, -0.5));
        assert!(!w.can_send());
        w.on_ack(1);
        // Below ssthresh one ACK returns two tokens and opens W by one: T = 1.5, W = 2.
        assert_eq!((w.w, w.t), (2.0, 1.5));
        assert!(w.can_send());
    }

    #[test]
    fn draft_2_2_transmission_consumes_one_token() {
        let mut w = TokenWindow::new(6.0);
        w.on_send();
        assert_eq!(w.t, 0.0);
        assert!(!w.can_send());
    }

    #[test]
    fn draft_2_2_exponential_opening_below_ssthresh() {
        let mut w = TokenWindow::new(4.0);
        w.on_send();
        w.on_ack(1);
        // D = 1: T = 0 + 2, W = 2.
        assert_eq!((w.w, w.t), (2.0, 2.0));
        w.on_send();
        w.on_send();
        w.on_ack(2);
        // D = 2: T = 0 + 4, W = 4 (T capped at W).
        assert_eq!((w.w, w.t), (4.0, 4.0));
    }

    #[test]
    fn draft_2_2_mixed_exponential_then_linear() {
        let mut w = TokenWindow::new(4.0);
        w.w = 3.0;
        w.t = 0.0;
        w.on_ack(3);
        // D = 1: T = 2, W = 4; then N = 2: T += 2(1 + 1/4) = 2.5 -> 4.5 capped to W = 4.5.
        assert!((w.w - 4.5).abs() < 1e-12);
        assert!((w.t - 4.5).abs() < 1e-12);
    }

    #[test]
    fn paper_3_4_linear_increase_one_packet_per_window() {
        let mut w = TokenWindow::new(6.0);
        w.w = 10.0;
        w.t = 0.0;
        for _ in 0..10 {
            w.on_send();
            w.on_ack(1);
        }
        assert!(
            (w.w - 10.0 - 1.0).abs() < 0.06,
            "W grew by ~1 per window: {}",
            w.w
        );
    }

    #[test]
    fn draft_2_2_t_bounded_by_w() {
        let mut w = TokenWindow::new(6.0);
        w.on_ack(100);
        assert!(w.t <= w.w);
    }

    #[test]
    fn paper_3_4_loss_realigns_then_halves() {
        let mut w = TokenWindow::new(6.0);
        w.w = 20.0;
        w.t = 0.0;
        // Only 12 packets really in flight: realign to 12, halve to 6, T = 6 − 12 = −6.
        let before = w.on_loss(12);
        assert_eq!(before, 20.0);
        assert_eq!((w.w, w.t), (6.0, -6.0));
        // Six ACKs repay the debt without sending; the seventh allows a packet.
        w.on_ack_suspended(6);
        assert!(!w.can_send());
        w.on_ack_suspended(1);
        assert!(w.can_send());
    }

    #[test]
    fn draft_2_2_full_window_loss_equals_t_minus_w_half() {
        let mut w = TokenWindow::new(6.0);
        w.w = 16.0;
        w.t = 0.0;
        w.on_loss(16);
        assert_eq!((w.w, w.t), (8.0, -8.0));
    }

    #[test]
    fn paper_3_4_loss_never_enlarges_the_window() {
        let mut w = TokenWindow::new(6.0);
        w.w = 2.0;
        w.t = 0.0;
        // 30 packets beyond RX_MAX (e.g. sent before a timeout): the window halves from 2, it is not realigned up.
        w.on_loss(30);
        assert_eq!(w.w, 1.0);
        assert_eq!(w.t, 1.0 - 30.0);
    }

    #[test]
    fn paper_3_4_unspent_tokens_realign_the_window_to_the_pipe() {
        let mut w = TokenWindow::new(6.0);
        w.w = 40.0;
        w.t = 25.0;
        // 15 packets in flight: W = 16, one token left.
        w.realign_unspent();
        assert_eq!((w.w, w.t), (16.0, 1.0));
        w.t = 0.5;
        w.realign_unspent();
        assert_eq!((w.w, w.t), (16.0, 0.5), "nothing unspent: unchanged");
    }

    #[test]
    fn loss_never_below_one() {
        let mut w = TokenWindow::new(6.0);
        w.on_loss(0);
        assert_eq!(w.w, 1.0);
        assert_eq!(w.t, 1.0);
    }

    #[test]
    fn ns_code_loss_halves_from_four_and_acks_grow_the_window_once_tokens_are_repaid() {
        let mut w = TokenWindow::new(6.0);
        w.w = 10.0;
        w.t = 0.0;
        // A full window of 10 in flight: W = 5, T = 1 − 5.
        assert_eq!(w.on_loss_ns(10), 10.0);
        assert_eq!((w.w, w.t), (5.0, -4.0));
        // While T < 0 the ACKs repay tokens and W holds …
        w.on_ack_ns(4);
        assert_eq!((w.w, w.t), (5.0, 0.0));
        // … then, still within the RTT after the loss, they grow it (Rizzo's `deltaW = 0` only for T < 0).
        w.on_ack_ns(1);
        assert_eq!(w.w, 6.0, "below SSTHRESH 6: one packet per ACK");
        w.on_ack_ns(1);
        assert!((w.w - (6.0 + 1.0 / 6.0)).abs() < 1e-12);
    }

    #[test]
    fn ns_code_loss_below_four_or_during_a_reduction_does_not_halve() {
        let mut w = TokenWindow::new(6.0);
        w.w = 3.0;
        w.t = 0.0;
        w.on_loss_ns(3);
        assert_eq!((w.w, w.t), (3.0, 1.0), "W < 4: realigned, T = 1");
        w.w = 12.0;
        w.t = -3.0;
        w.on_loss_ns(8);
        assert_eq!((w.w, w.t), (8.0, -2.0), "T < 0: realigned to the pipe, T += 1");
        w.on_loss_ns(0);
        assert_eq!(w.w, 1.0, "never below one");
    }
}
