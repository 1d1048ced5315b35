//! Small conversions between durations, rates and sizes.

use std::time::Duration;

/// A duration in seconds.
pub fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

/// Serialisation time of `bytes` at `rate_bps` bits per second, rounded up to the nanosecond.
pub fn tx_time(bytes: u32, rate_bps: u64) -> Duration {
    Duration::from_nanos(tx_nanos(bytes, rate_bps))
}

/// [`tx_time`] in nanoseconds (saturating at `u64::MAX`), for arithmetic on nanosecond counts.
pub fn tx_nanos(bytes: u32, rate_bps: u64) -> u64 {
    // In 64 bits whenever the product fits (every packet size below 2.3 GB): a 128-bit division is a library
    // call, and links compute this twice per packet. Same result either way.
    if let Some(bits) = u64::from(bytes).checked_mul(8_000_000_000) {
        return bits.div_ceil(rate_bps.max(1));
    }
    let bits = u128::from(bytes) * 8 * 1_000_000_000;
    let rate = u128::from(rate_bps.max(1));
    u64::try_from(bits.div_ceil(rate)).unwrap_or(u64::MAX)
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
        // Beyond 64 bits of bit-nanoseconds: the 128-bit path, the same rounding.
        assert_eq!(
            tx_time(u32::MAX, 8_000_000_000),
            Duration::from_nanos(u64::from(u32::MAX))
        );
        assert_eq!(
            tx_time(u32::MAX, 3),
            Duration::from_nanos(11_453_246_120_000_000_000)
        );
    }
}
