//! Tokens lent to repairs when the session charges repairs to the controller
//! ([`crate::RepairPacing::Controller`]).
//!
//! The paper sends repairs outside the window, "only subject to the throughput of the rate limiter" (§3.8), and
//! that stays the default. Shi and Waldvogel (§5.4) ask instead that "the source should account for the
//! retransmissions as part of its original data transmissions": then a repair needs a token like an ODATA packet
//! (T −= 1, paper §3.4). An ODATA packet's token comes back with its ACK, but the acker acknowledges original
//! data only (paper §3.3: "for each data packet (but not for retransmissions)"). A repair's token comes back with
//! the ACK of the first original packet sent after it instead: packets leave a FIFO path in order, so once the
//! acker has a later packet the repair has left the pipe too. That keeps repairs ACK-clocked: when the receivers
//! fall behind, so do the tokens. Over an RTT the source sends at most W packets, original and repair together,
//! which is what the window means (paper §3.4: W estimates the packets in flight). A returned token does not open
//! the window: repairs carry no news of the path.
//!
//! A repair may not travel the acker's path, and no original packet may follow it (the end of a transfer): then
//! its token comes back at a fallback instant, twice the smoothed RTT after it left (right after an acker switch,
//! before the new acker's first sample, the last smoothed RTT measured stands in). While a repair's token is out
//! the repair counts as in flight, so the loss reaction (T = W − in flight) does not give its token out twice. A
//! timeout writes the outstanding loans off with everything else (draft §3).

use crate::seq;
use crate::time::Instant;
use std::collections::VecDeque;

/// One repair's token, out.
#[derive(Clone, Copy, Debug)]
struct Loan {
    /// The first original packet sent after the repair: its acknowledgement returns the token.
    next_sqn: u32,
    /// When the token comes back without that acknowledgement.
    fallback: Instant,
}

/// Repairs sent under the window whose tokens have not come back yet, in the order they left.
#[derive(Clone, Debug, Default)]
pub struct RepairTokens {
    loans: VecDeque<Loan>,
}

impl RepairTokens {
    /// A repair took a token; original data from `next_sqn` on follows it; without their acknowledgement the
    /// token comes back at `fallback`.
    pub fn lend(&mut self, next_sqn: u32, fallback: Instant) {
        // Keep the fallbacks in lending order (an RTT that shrank would otherwise put a later loan first); a
        // token that comes back a little later than it might is the safe side.
        let fallback = self.loans.back().map_or(fallback, |l| l.fallback.max(fallback));
        self.loans.push_back(Loan { next_sqn, fallback });
    }

    /// The acker acknowledged packets up to `rx_max`: tokens of the repairs an acknowledged packet followed,
    /// removed from the loans.
    pub fn acknowledged(&mut self, rx_max: u32) -> u32 {
        let mut n = 0;
        while self.loans.front().is_some_and(|l| seq::ge(rx_max, l.next_sqn)) {
            self.loans.pop_front();
            n += 1;
        }
        n
    }

    /// Tokens whose fallback is due by `now`, removed from the loans.
    pub fn take_due(&mut self, now: Instant) -> u32 {
        let mut n = 0;
        while self.loans.front().is_some_and(|l| l.fallback <= now) {
            self.loans.pop_front();
            n += 1;
        }
        n
    }

    /// Repairs whose tokens are still out (they count as packets in flight).
    pub fn outstanding(&self) -> u32 {
        u32::try_from(self.loans.len()).unwrap_or(u32::MAX)
    }

    /// When the next token comes back unless an acknowledgement brings it first.
    pub fn next_return(&self) -> Option<Instant> {
        self.loans.front().map(|l| l.fallback)
    }

    /// A timeout restarts the session: the loans are written off (draft §3 "on timeout expiration").
    pub fn write_off(&mut self) {
        self.loans.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn at(ms: u64) -> Instant {
        Instant::ZERO + Duration::from_millis(ms)
    }

    #[test]
    fn sw_5_4_a_repair_token_comes_back_with_the_ack_of_the_next_original_packet() {
        let mut r = RepairTokens::default();
        r.lend(10, at(500));
        r.lend(10, at(500));
        r.lend(12, at(520));
        assert_eq!(r.acknowledged(9), 0, "packets sent before the repairs say nothing of them");
        assert_eq!(r.acknowledged(10), 2);
        assert_eq!(r.outstanding(), 1);
        assert_eq!(r.acknowledged(13), 1);
        assert_eq!(r.next_return(), None);
    }

    #[test]
    fn without_that_ack_the_token_comes_back_at_the_fallback() {
        let mut r = RepairTokens::default();
        r.lend(10, at(100));
        r.lend(11, at(120));
        assert_eq!(r.take_due(at(99)), 0);
        assert_eq!(r.take_due(at(100)), 1);
        assert_eq!(r.next_return(), Some(at(120)));
        assert_eq!(r.take_due(at(500)), 1);
        assert_eq!(r.outstanding(), 0);
    }

    #[test]
    fn fallbacks_stay_in_lending_order_when_the_rtt_shrinks() {
        let mut r = RepairTokens::default();
        r.lend(10, at(300));
        r.lend(11, at(200));
        assert_eq!(r.take_due(at(250)), 0, "the later loan does not come back before the earlier one");
        assert_eq!(r.take_due(at(300)), 2);
    }

    #[test]
    fn draft_3_a_timeout_writes_the_loans_off() {
        let mut r = RepairTokens::default();
        r.lend(10, at(100));
        r.write_off();
        assert_eq!(r.outstanding(), 0);
        assert_eq!(r.take_due(at(1000)), 0);
        assert_eq!(r.acknowledged(100), 0);
    }
}
