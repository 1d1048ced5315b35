//! The rate-based schemes' timestamps on the wire: microseconds modulo 2^32 (convoy-wire `cc::tfmcc`,
//! `cc::aimd`), and the rate conversions between the wire's bit/s and the engine's bytes/s (RFC 4654 counts rates
//! in bit/s, §2.1).

use crate::time::Instant;
use std::time::Duration;

/// The 32-bit microsecond timestamp of `t`.
pub fn stamp(t: Instant) -> u32 {
    (t.as_nanos() / 1_000) as u32
}

/// `later − earlier` for two stamps, assuming less than 2^31 µs (36 minutes) between them; `None` when negative.
pub fn since(later: u32, earlier: u32) -> Option<Duration> {
    let d = later.wrapping_sub(earlier) as i32;
    (d >= 0).then(|| Duration::from_micros(d as u64))
}

/// A duration in whole microseconds, saturating at u32::MAX (71 minutes).
pub fn micros(d: Duration) -> u32 {
    u32::try_from(d.as_micros()).unwrap_or(u32::MAX)
}

/// Bytes/s to the wire's bit/s.
pub fn to_bps(bytes_per_s: f64) -> f64 {
    bytes_per_s * 8.0
}

/// The wire's bit/s to bytes/s.
pub fn from_bps(bps: f64) -> f64 {
    bps / 8.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_wrap_and_differences_survive_the_wrap() {
        let a = Instant::from_nanos((u64::from(u32::MAX) - 10) * 1_000);
        let b = a + Duration::from_micros(25);
        assert!(stamp(b) < stamp(a), "wrapped");
        assert_eq!(since(stamp(b), stamp(a)), Some(Duration::from_micros(25)));
        assert_eq!(since(stamp(a), stamp(b)), None);
    }

    #[test]
    fn rfc4654_2_1_rates_on_the_wire_are_bits_per_second() {
        assert_eq!(to_bps(125_000.0), 1_000_000.0);
        assert_eq!(from_bps(to_bps(1234.5)), 1234.5);
    }
}
