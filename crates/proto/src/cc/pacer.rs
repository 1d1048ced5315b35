//! The pacer of the rate-based controllers (fixed rate, TFMCC, aimd): when the next packet may leave.
//!
//! A rate controller spaces its packets by their size over its rate (RFC 4654 §3.7: "the sender schedules the
//! transmission of the next packet" one inter-packet interval after the last; Shi–Waldvogel §5.4 and the fixed
//! rate alike). The controller decides the rate, the interval each packet takes and how much credit an idle
//! sender may bank (`lag`); the pacer keeps the schedule, the one instant all three share.

use super::Permit;
use crate::time::Instant;
use std::time::Duration;

/// The lowest rate of the rate-based schemes, bytes per second, for packets of `s` bytes: one packet per 8 s
/// (RFC 4654 §3.3, §4.4; aimd keeps the same floor, as Shi and Waldvogel let the rate fall "possibly \[to\]
/// zero" within a range the application sets, §4.1, and a floor keeps the agent's feedback, and with it any
/// recovery, alive).
pub fn rate_floor(s: f64) -> f64 {
    s / 8.0
}

/// The interval between packets of `s` bytes at `x` bytes per second, the rate held at [`rate_floor`] at least.
pub fn interval(s: f64, x: f64) -> Duration {
    Duration::from_secs_f64(s / x.max(rate_floor(s)))
}

/// The next instant a rate controller lets a packet leave.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RatePacer {
    next: Instant,
}

impl RatePacer {
    /// A pacer that lets a packet leave at once.
    pub fn new(now: Instant) -> Self {
        RatePacer { next: now }
    }

    /// When the next packet is due.
    pub fn next(&self) -> Instant {
        self.next
    }

    /// A packet may leave from `early` before its instant on (RFC 4654 §3.7: "when now > t_n − delta", delta
    /// the scheduler's granularity; zero for a strict schedule).
    pub fn permit(&self, now: Instant, early: Duration) -> Permit {
        let at = self.next - early;
        if now >= at {
            Permit::Now
        } else {
            Permit::At(at)
        }
    }

    /// A packet left at `now` and takes `interval` of the schedule. The schedule lags `now` by at most `lag`,
    /// so that an idle sender does not bank unlimited credit and then leave in a burst.
    pub fn sent(&mut self, now: Instant, interval: Duration, lag: Duration) {
        self.next = self.next.max(now - lag) + interval;
    }

    /// The next packet is due at `at` (a new rate takes effect one interval after the last packet).
    pub fn reschedule(&mut self, at: Instant) {
        self.next = at;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn t(n: u64) -> Instant {
        Instant::ZERO + ms(n)
    }

    #[test]
    fn packets_leave_one_interval_apart() {
        let mut p = RatePacer::new(t(0));
        assert_eq!(p.permit(t(0), ms(0)), Permit::Now);
        p.sent(t(0), ms(10), ms(10));
        assert_eq!(p.permit(t(5), ms(0)), Permit::At(t(10)));
        p.sent(t(10), ms(10), ms(10));
        assert_eq!(p.next(), t(20));
    }

    #[test]
    fn an_idle_sender_banks_at_most_the_lag() {
        let mut p = RatePacer::new(t(0));
        p.sent(t(1000), ms(10), ms(30));
        assert_eq!(
            p.next(),
            t(980),
            "three packets may follow at once, no more"
        );
        for _ in 0..2 {
            assert_eq!(p.permit(t(1000), ms(0)), Permit::Now);
            p.sent(t(1000), ms(10), ms(30));
        }
        assert_eq!(p.permit(t(1000), ms(0)), Permit::Now);
        p.sent(t(1000), ms(10), ms(30));
        assert_eq!(p.permit(t(1000), ms(0)), Permit::At(t(1010)));
    }

    #[test]
    fn a_packet_may_leave_early_by_the_granularity() {
        let mut p = RatePacer::new(t(0));
        p.sent(t(0), ms(10), ms(10));
        assert_eq!(p.permit(t(8), ms(2)), Permit::Now);
        assert_eq!(p.permit(t(7), ms(2)), Permit::At(t(8)));
    }
}
