//! Small conversions between durations, rates and sizes.

use std::cell::Cell;
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

/// Bit-nanoseconds per second: a byte at `rate_bps` takes `BYTE_NS / rate_bps` nanoseconds.
const BYTE_NS: u64 = 8_000_000_000;

/// Serialisation times at one rate: [`tx_nanos`], without its division where it can do without. A rate that
/// divides 8·10⁹ takes a whole number of nanoseconds per byte (every rate of whole megabits per second that
/// divides 8000 — 1, 2, 5, 10, 100 Mbit/s, 1 Gbit/s — and many more), and a multiplication is exact; otherwise
/// the last size asked and its time are kept (a fan-out's links share one `TxTimes` and carry packets of one
/// size, so a division per link becomes one per packet).
#[derive(Debug)]
pub struct TxTimes {
    rate_bps: u64,
    /// `BYTE_NS / rate_bps`, when that is a whole number.
    ns_per_byte: Option<u64>,
    /// The last size asked without a whole number of nanoseconds per byte, and its time.
    last: Cell<(u32, u64)>,
}

impl TxTimes {
    /// Serialisation times at `rate_bps` bits per second.
    pub fn new(rate_bps: u64) -> Self {
        let rate = rate_bps.max(1);
        TxTimes {
            rate_bps,
            ns_per_byte: BYTE_NS.is_multiple_of(rate).then_some(BYTE_NS / rate),
            last: Cell::new((0, tx_nanos(0, rate_bps))),
        }
    }

    /// The rate, bits per second.
    pub fn rate_bps(&self) -> u64 {
        self.rate_bps
    }

    /// [`tx_nanos`] of `bytes` at this rate.
    pub fn nanos(&self, bytes: u32) -> u64 {
        if let Some(ns) = self
            .ns_per_byte
            .and_then(|k| u64::from(bytes).checked_mul(k))
        {
            return ns;
        }
        let (size, ns) = self.last.get();
        if size == bytes {
            return ns;
        }
        let ns = tx_nanos(bytes, self.rate_bps);
        self.last.set((bytes, ns));
        ns
    }
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

    proptest::proptest! {
        /// Whatever the rate and the sizes asked before, a size's time is `tx_nanos`'s: by a whole number of
        /// nanoseconds per byte, from the size remembered, or by division.
        #[test]
        fn tx_times_are_tx_nanos(
            rate_bps in proptest::prop_oneof![
                proptest::sample::select(vec![1u64, 3, 1_000_000, 1_500_000, 10_000_000, 100_000_000, 8_000_000_000, 10_000_000_000]),
                1..20_000_000_000u64,
            ],
            sizes in proptest::collection::vec(proptest::prop_oneof![0..2000u32, proptest::num::u32::ANY], 1..20),
        ) {
            let times = TxTimes::new(rate_bps);
            for &size in sizes.iter().chain(sizes.iter().rev()) {
                proptest::prop_assert_eq!(times.nanos(size), tx_nanos(size, rate_bps), "{} bytes", size);
            }
        }
    }
}
