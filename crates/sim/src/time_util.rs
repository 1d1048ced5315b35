//! Small conversions between durations, rates and sizes.

use std::time::Duration;

/// A duration in seconds.
pub fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

/// Serialisation time of `bytes` at `rate_bps` bits per second, rounded up to the nanosecond.
pub fn tx_time(bytes: u32, rate_bps: u64) -> Duration {
    let bits = u128::from(bytes) * 8 * 1_000_000_000;
    let rate = u128::from(rate_bps.max(1));
    Duration::from_nanos(u64::try_from(bits.div_ceil(rate)).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialisation_time() {
        // 1500 bytes at 10 Mbit/s: 1.2 ms.
        assert_eq!(tx_time(1500, 10_000_000), Duration::from_micros(1200));
        // 1 byte at 3 bit/s rounds up.
        assert_eq!(tx_time(1, 3), Duration::from_nanos(2_666_666_667));
    }
}
