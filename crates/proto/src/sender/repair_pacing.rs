//! Whether repairs (RDATA) leave under the congestion controller or beside it, and how fast beside it.

use crate::cc::CcSnapshot;
use crate::named::Named;
use crate::time::Instant;
use crate::token_bucket::TokenBucket;

/// How the source paces repairs (RDATA).
///
/// All keep `rate_max` and `repair_rate_max`, the PGM rate limiters (RFC 3208 §3.2), on top.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RepairPacing {
    /// Only the rate limiters pace repairs; the controller sees original data only. The pgmcc paper's rule
    /// (§3.8: "as soon as a NAK comes in, we sent the RDATA packet only subject to the throughput of the rate
    /// limiter"), which its experiments assume. With many receivers losing different packets the repairs can
    /// then far exceed the controlled rate on the source's own links.
    #[default]
    RateLimit,
    /// Beside the controller as with `RateLimit`, but no faster than the controller's own rate (this module's
    /// `RepairPace`): a burst of repairs (a parity NAK asks for up to a group's worth) takes about as long as as
    /// much data.
    ControllerRate,
    /// A repair needs the controller's permit and is charged to it like original data (Shi–Waldvogel §5.4:
    /// "the source should account for the retransmissions as part of its original data transmissions"). Repairs
    /// go first but, while original data also waits, take at most [`super::REPAIRS_PER_ODATA`] permits in a row,
    /// so a burst of NAKs (a late joiner recovering the session's start, paper §3.8's NAK storm) cannot starve the
    /// data that clocks the controller.
    Controller,
}

impl Named for RepairPacing {
    /// Scenario key `repairs` and `convoy send --repairs`.
    const CHOICES: &'static [(&'static str, Self)] = &[
        ("rate-limit", RepairPacing::RateLimit),
        ("controller-rate", RepairPacing::ControllerRate),
        ("controller", RepairPacing::Controller),
    ];
}

/// Repairs beside the controller at its rate ([`RepairPacing::ControllerRate`]) leave no faster than the
/// controller's own rate: its allowed rate (rate controllers), or its window per smoothed round trip (pgmcc),
/// with a burst of [`REPAIR_PACE_BURST_PACKETS`].
///
/// The pgmcc paper sends a repair "as soon as a NAK comes in … only subject to the throughput of the rate
/// limiter" (§3.8) and leaves the regulation of repairs open (§6: "we definitely need some technique to avoid
/// that NAK storms result in bursts of retransmission without any form of regulation"). A rate limiter sized for
/// the source's own link (100 Mbit/s by default in `convoy send`) lets a burst of repairs leave at once: one
/// parity NAK asks for up to a group's worth, and 63 parity packets left within a millisecond into a 10 Mbit/s
/// tbf whose 64 KB queue already held the window's data (namespace lab, pgmcc, 5 receivers: 3.0 Mbit/s and 1.36
/// bytes on the wire per byte of the file; paced, 8.5 Mbit/s and 1.07). Paced at the controller's rate, a burst
/// of repairs takes about as long as as much data would: single repairs still leave at once, and the repairs stay
/// beside the window, as §3.8 has them. The simulator's reproductions keep the paper's `RateLimit`. Pacing spreads
/// a burst; it does not make room: at a bottleneck whose queue the window keeps full, repairs beside the window
/// are still dropped there (docs/parity.md, "pgmcc and parity").
#[derive(Debug)]
pub(super) struct RepairPace {
    bucket: TokenBucket,
    /// Bytes of a full packet on the wire: the window's unit.
    packet_bytes: u64,
}

/// Packets a burst of repairs beside the controller may hold ([`RepairPace`]).
pub(super) const REPAIR_PACE_BURST_PACKETS: u64 = 2;

impl RepairPace {
    /// Unpaced until the controller has a rate; `packet_bytes` is a full packet's size on the wire.
    pub(super) fn new(packet_bytes: usize) -> Self {
        let packet_bytes = packet_bytes as u64;
        let mut bucket = TokenBucket::unlimited();
        bucket.set_burst(Instant::ZERO, REPAIR_PACE_BURST_PACKETS * packet_bytes);
        RepairPace {
            bucket,
            packet_bytes,
        }
    }

    /// Follow the controller's state at `now`.
    pub(super) fn follow(&mut self, now: Instant, cc: &CcSnapshot) {
        match controller_rate(cc, self.packet_bytes) {
            Some(rate) => self.bucket.set_rate(now, rate.max(1)),
            None => self.bucket.set_unlimited(),
        }
    }

    /// When a repair of `len` bytes may leave.
    pub(super) fn available_at(&self, now: Instant, len: u64) -> Instant {
        self.bucket.available_at(now, len)
    }

    /// A repair of `len` bytes left.
    pub(super) fn consume(&mut self, now: Instant, len: u64) {
        self.bucket.consume(now, len);
    }
}

/// The controller's rate in bytes per second: its allowed rate, or its window of full packets per smoothed
/// round trip; `None` while it has neither.
fn controller_rate(cc: &CcSnapshot, packet_bytes: u64) -> Option<u64> {
    if let Some(r) = cc.rate_bps {
        return Some(r as u64);
    }
    let (w, rtt) = (cc.window?, cc.srtt_s?);
    (rtt > 0.0).then(|| (w.max(1.0) * packet_bytes as f64 / rtt) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    const PACKET: usize = 1464;

    fn at_ms(ms: u64) -> Instant {
        Instant::ZERO + Duration::from_millis(ms)
    }

    #[test]
    fn paper_3_8_a_window_paces_repairs_at_its_packets_per_round_trip() {
        // pgmcc with W = 10 and a 50 ms round trip sends 10 packets per 50 ms: repairs beside it one per 5 ms
        // after a burst of two.
        let mut p = RepairPace::new(PACKET);
        let snapshot = CcSnapshot {
            window: Some(10.0),
            srtt_s: Some(0.05),
            ..CcSnapshot::default()
        };
        p.follow(Instant::ZERO, &snapshot);
        let len = PACKET as u64;
        for _ in 0..REPAIR_PACE_BURST_PACKETS {
            assert_eq!(p.available_at(Instant::ZERO, len), Instant::ZERO);
            p.consume(Instant::ZERO, len);
        }
        assert_eq!(p.available_at(Instant::ZERO, len), at_ms(5));
    }

    #[test]
    fn a_rate_controller_paces_repairs_at_its_rate_and_none_before_it_has_one() {
        let mut p = RepairPace::new(PACKET);
        let len = PACKET as u64;
        p.follow(Instant::ZERO, &CcSnapshot::default());
        for _ in 0..100 {
            p.consume(Instant::ZERO, len);
        }
        assert_eq!(
            p.available_at(Instant::ZERO, len),
            Instant::ZERO,
            "no window, no rate: only the rate limiters"
        );
        let rate = CcSnapshot {
            rate_bps: Some(PACKET as f64 * 100.0),
            ..CcSnapshot::default()
        };
        p.follow(Instant::ZERO, &rate);
        for _ in 0..REPAIR_PACE_BURST_PACKETS {
            p.consume(Instant::ZERO, len);
        }
        assert_eq!(p.available_at(Instant::ZERO, len), at_ms(10));
    }
}
