//! A token-bucket rate limiter with exact integer arithmetic.
//!
//! PGM sources transmit through a rate limiter (RFC 3208 leaves its design to the implementation); with pgmcc
//! "the PGM rate limiter only serves to limit the maximum data rate of the session" (pgmcc paper §3.1), and
//! repairs are sent "only subject to the throughput of the rate limiter" (paper §3.8). The same bucket paces any
//! rate-based sender (e.g. TFMCC's computed rate, RFC 4654 §3.7).
//!
//! # Model
//!
//! Tokens are bytes. They accrue at `rate` bytes per second up to `burst` bytes; sending `n` bytes takes `n`
//! tokens. The bucket starts full.
//!
//! * **Exactness.** The fill level is kept in *nanobytes* (bytes × 10⁹) as an integer, and each refill adds
//!   `rate × elapsed_ns` nanobytes — an exact product. Nothing is ever rounded, so over any run the bytes
//!   admitted equal `burst + rate × elapsed` to the byte, minus what the cap discarded: no drift, however long
//!   the run and whatever the rate.
//! * **Whole-nanosecond slack.** Send times are whole nanoseconds, so a sender waking at
//!   [`TokenBucket::available_at`] (rounded up) may arrive up to 1 ns after the bucket filled. To keep that
//!   rounding from discarding tokens — a steady drift of about half a nanosecond per packet when the burst is
//!   exactly one packet — the level may exceed `burst` by less than one nanosecond of refill (`rate − 1`
//!   nanobytes, under one byte for rates below 10⁹ B/s). A sender that always waits for `available_at` is then
//!   admitted exactly `burst + rate × elapsed` bytes.
//! * **Packets larger than the burst.** A request for `n` bytes is admitted once the bucket holds
//!   `min(n, burst)` bytes; it then takes all `n`, and the level may go negative (a debt repaid by later
//!   refills). So a packet above the burst size waits for a full bucket instead of blocking forever, and the
//!   long-run rate is still exact. With `burst = 0` the bucket is a pure pacer: each packet is admitted when the
//!   previous debt is repaid.
//! * **Time.** `now` values are the driver's [`Instant`]s; a `now` earlier than one already seen is treated
//!   as that earlier-seen instant (no refill, no rewind).

use std::time::Duration;

use crate::time::Instant;

/// Nanobytes per byte: the fill level is `bytes × NANO`.
const NANO: i128 = 1_000_000_000;

/// A token bucket in bytes (pgmcc paper §3.1: PGM's maximum-rate limiter), or an unlimited pass-through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TokenBucket {
    /// Bytes per second; `None` means unlimited.
    rate: Option<u64>,
    /// Bucket size in bytes.
    burst: u64,
    /// Fill level in nanobytes, at most `burst × NANO`, possibly negative (debt).
    level: i128,
    /// Time of the last refill.
    last: Instant,
}

impl TokenBucket {
    /// A bucket admitting `rate_bytes_per_s` bytes per second on average and bursts of up to `burst_bytes`,
    /// starting full at `now`. A rate of 0 admits nothing more once the initial burst is spent.
    pub fn new(rate_bytes_per_s: u64, burst_bytes: u64, now: Instant) -> Self {
        TokenBucket {
            rate: Some(rate_bytes_per_s),
            burst: burst_bytes,
            level: Self::cap_of(burst_bytes),
            last: now,
        }
    }

    /// A limiter that admits everything at once (no maximum rate configured).
    pub fn unlimited() -> Self {
        TokenBucket {
            rate: None,
            burst: 0,
            level: 0,
            last: Instant::ZERO,
        }
    }

    fn cap_of(burst: u64) -> i128 {
        i128::from(burst) * NANO
    }

    /// The highest level: the burst plus less than one nanosecond of refill (module docs).
    fn ceiling(&self, rate: u64) -> i128 {
        Self::cap_of(self.burst) + i128::from(rate.saturating_sub(1))
    }

    /// The rate in bytes per second, `None` if unlimited.
    pub fn rate(&self) -> Option<u64> {
        self.rate
    }

    /// The bucket size in bytes (0 for an unlimited bucket).
    pub fn burst(&self) -> u64 {
        self.burst
    }

    /// Whether this limiter is unlimited.
    pub fn is_unlimited(&self) -> bool {
        self.rate.is_none()
    }

    /// The fill level at `now` in nanobytes, without changing the bucket.
    fn level_at(&self, now: Instant) -> i128 {
        let Some(rate) = self.rate else {
            return 0;
        };
        let cap = self.ceiling(rate);
        let elapsed = now.saturating_duration_since(self.last).as_nanos();
        // rate < 2^64 and elapsed < 2^64 (Instant is u64 ns), so the product fits in u128.
        let add = u128::from(rate) * elapsed;
        // cap ≥ level always, and cap − level < 2^128: the wrapped i128 difference read as u128 is exact.
        let room = cap.wrapping_sub(self.level) as u128;
        if add >= room {
            cap
        } else {
            // level + add lies in [level, cap]: the wrapping sum is the exact result.
            self.level.wrapping_add(add as i128)
        }
    }

    /// Brings the stored level up to `now` (never moving `last` backwards).
    fn refill(&mut self, now: Instant) {
        if now > self.last {
            self.level = self.level_at(now);
            self.last = now;
        }
    }

    /// Whole bytes available at `now` (0 while in debt; 0 for an unlimited bucket, which needs none). At most
    /// `burst` plus the sub-nanosecond slack of the module docs, which is under one byte below 10⁹ B/s.
    pub fn available(&self, now: Instant) -> u64 {
        let level = self.level_at(now.max(self.last));
        u64::try_from(level / NANO).unwrap_or(0)
    }

    /// The level needed to admit `bytes`: `min(bytes, burst)` bytes, in nanobytes.
    fn threshold(&self, bytes: u64) -> i128 {
        Self::cap_of(bytes.min(self.burst))
    }

    /// Takes `bytes` tokens if the bucket allows it at `now` (it holds at least `min(bytes, burst)` bytes) and
    /// returns whether it did. Unlimited buckets always allow.
    pub fn try_consume(&mut self, now: Instant, bytes: u64) -> bool {
        if self.rate.is_none() {
            return true;
        }
        self.refill(now);
        if self.level >= self.threshold(bytes) {
            self.level -= Self::cap_of(bytes);
            true
        } else {
            false
        }
    }

    /// Takes `bytes` tokens unconditionally at `now`, going into debt if needed (e.g. to account for traffic
    /// that must go out regardless, so that it delays what follows). No effect on an unlimited bucket.
    pub fn consume(&mut self, now: Instant, bytes: u64) {
        if self.rate.is_none() {
            return;
        }
        self.refill(now);
        self.level = self.level.saturating_sub(Self::cap_of(bytes));
    }

    /// The earliest instant at or after `now` at which [`try_consume`](Self::try_consume)`(_, bytes)` will
    /// succeed, if nothing else is consumed meanwhile: `now` itself if it already would.
    ///
    /// The wait is rounded *up* to a whole nanosecond, so `try_consume` at the returned instant always succeeds.
    /// With a rate of 0 and too few tokens the answer is "never", returned as the last representable instant
    /// (`Instant::from_nanos(u64::MAX)`).
    pub fn available_at(&self, now: Instant, bytes: u64) -> Instant {
        let Some(rate) = self.rate else {
            return now;
        };
        let at = now.max(self.last);
        let (threshold, level) = (self.threshold(bytes), self.level_at(at));
        if level >= threshold {
            return now;
        }
        if rate == 0 {
            return Instant::from_nanos(u64::MAX);
        }
        // 0 < threshold − level < 2^128: exact as u128. The wait in ns is ceil(deficit / rate).
        let deficit = threshold.wrapping_sub(level) as u128;
        let wait = deficit.div_ceil(u128::from(rate));
        at + Duration::from_nanos(u64::try_from(wait).unwrap_or(u64::MAX))
    }

    /// Changes the rate at `now`: tokens accrued until `now` count at the old rate, later ones at the new one.
    /// An unlimited bucket becomes limited, starting full at `now` (with its burst, 0 unless set).
    pub fn set_rate(&mut self, now: Instant, rate_bytes_per_s: u64) {
        if self.rate.is_none() {
            *self = TokenBucket::new(rate_bytes_per_s, self.burst, now);
            return;
        }
        self.refill(now);
        self.rate = Some(rate_bytes_per_s);
    }

    /// Changes the bucket size at `now`, after accruing tokens until `now`; a level above the new size is cut to
    /// it. For an unlimited bucket this only records the size for a later [`set_rate`](Self::set_rate).
    pub fn set_burst(&mut self, now: Instant, burst_bytes: u64) {
        if self.rate.is_some() {
            self.refill(now);
            self.level = self.level.min(Self::cap_of(burst_bytes));
        }
        self.burst = burst_bytes;
    }

    /// Makes the bucket unlimited (no maximum rate).
    pub fn set_unlimited(&mut self) {
        let burst = self.burst;
        *self = TokenBucket::unlimited();
        self.burst = burst;
    }
}

impl Default for TokenBucket {
    /// [`TokenBucket::unlimited`].
    fn default() -> Self {
        TokenBucket::unlimited()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOUR_NS: u64 = 3_600_000_000_000;

    /// Sends `size`-byte packets as early as the bucket allows from t = 0 until `end_ns`; returns the count.
    fn saturate(bucket: &mut TokenBucket, size: u64, end_ns: u64) -> u64 {
        let mut t = Instant::ZERO;
        let mut count = 0;
        loop {
            t = bucket.available_at(t, size);
            if t.as_nanos() > end_ns {
                return count;
            }
            assert!(
                bucket.try_consume(t, size),
                "admitted at the promised instant {t}"
            );
            count += 1;
        }
    }

    #[test]
    fn paper_3_1_one_hour_at_10_mbit_s_has_no_drift() {
        // 10 Mbit/s = 1 250 000 B/s; 1400-byte packets leave every 1400/1.25e6 s = 1.12 ms. Bucket of one
        // packet, starting full: packets at 0, 1.12 ms, ..., so floor(3600/0.00112) + 1 = 3 214 286 in 1 h.
        let mut b = TokenBucket::new(1_250_000, 1400, Instant::ZERO);
        assert_eq!(saturate(&mut b, 1400, HOUR_NS), 3_214_286);
    }

    #[test]
    fn paper_3_1_awkward_rate_is_exact_over_an_hour() {
        // A rate whose packet spacing is not a whole number of ns (1400e9/1_000_003 = 1_399_995.8 ns).
        // Packet i (i ≥ 1) needs i·1400 bytes of refill: it leaves at ceil(i·1400e9/r) ns, so the count in
        // T ns is floor(r·T/1400e9) + 1 — computed here independently in integers.
        let r = 1_000_003u64;
        let mut b = TokenBucket::new(r, 1400, Instant::ZERO);
        let expected = (u128::from(r) * u128::from(HOUR_NS) / 1_400_000_000_000) as u64 + 1;
        assert_eq!(expected, 2_571_437);
        assert_eq!(saturate(&mut b, 1400, HOUR_NS), expected);
        // A two-packet burst sends one more packet at t = 0 and is otherwise identical.
        let mut b2 = TokenBucket::new(r, 2800, Instant::ZERO);
        assert_eq!(saturate(&mut b2, 1400, HOUR_NS), expected + 1);
    }

    #[test]
    fn paper_3_1_burst_then_rate() {
        // 1000 B/s, burst 5000: five 1000-byte packets at once, then one per second.
        let mut b = TokenBucket::new(1000, 5000, Instant::ZERO);
        for _ in 0..5 {
            assert!(b.try_consume(Instant::ZERO, 1000));
        }
        assert!(!b.try_consume(Instant::ZERO, 1000));
        assert_eq!(
            b.available_at(Instant::ZERO, 1000),
            Instant::from_millis(1000)
        );
        assert!(!b.try_consume(Instant::from_millis(999), 1000));
        assert!(b.try_consume(Instant::from_millis(1000), 1000));
        // Idle for an hour: the bucket holds at most the burst.
        assert_eq!(b.available(Instant::from_millis(3_600_000)), 5000);
        assert_eq!(
            b.available_at(Instant::from_millis(3_600_000), 5000),
            Instant::from_millis(3_600_000)
        );
    }

    #[test]
    fn available_at_rounds_up_and_is_exact() {
        // 3 B/s: 1 byte takes 333 333 333.3 ns, rounded up to 333 333 334.
        let mut b = TokenBucket::new(3, 1, Instant::ZERO);
        assert!(b.try_consume(Instant::ZERO, 1));
        let t = b.available_at(Instant::ZERO, 1);
        assert_eq!(t, Instant::from_nanos(333_333_334));
        assert!(!b.try_consume(Instant::from_nanos(333_333_333), 1));
        assert!(b.try_consume(t, 1));
        // Three bytes in exactly one second: the rounding does not accumulate.
        let t2 = b.available_at(t, 1);
        assert!(b.try_consume(t2, 1));
        let t3 = b.available_at(t2, 1);
        assert_eq!(t3, Instant::from_nanos(1_000_000_000));
        // Asking with an earlier `now` than the last use answers from the last use.
        assert!(b.available_at(Instant::ZERO, 1) >= t2);
    }

    #[test]
    fn packets_larger_than_burst_wait_for_full_bucket_and_leave_debt() {
        let mut b = TokenBucket::new(1000, 500, Instant::ZERO);
        // 2000 bytes > burst 500: admitted with a full bucket, leaving a 1500-byte debt.
        assert!(b.try_consume(Instant::ZERO, 2000));
        assert_eq!(b.available(Instant::ZERO), 0);
        // The next 2000-byte packet waits for the debt plus a full bucket: 1.5 s + 0.5 s.
        assert_eq!(
            b.available_at(Instant::ZERO, 2000),
            Instant::from_millis(2000)
        );
        // Long-run rate stays exact: 2000 bytes per 2 s = 1000 B/s.
        assert_eq!(
            saturate(
                &mut TokenBucket::new(1000, 500, Instant::ZERO),
                2000,
                3_600_000_000_000
            ),
            1801
        );
    }

    #[test]
    fn zero_burst_is_a_pure_pacer() {
        let mut b = TokenBucket::new(1_000_000, 0, Instant::ZERO);
        assert!(b.try_consume(Instant::ZERO, 1000));
        assert_eq!(b.available_at(Instant::ZERO, 1000), Instant::from_millis(1));
        assert!(!b.try_consume(Instant::from_micros(999), 1000));
        assert!(b.try_consume(Instant::from_millis(1), 1000));
    }

    #[test]
    fn unlimited_admits_everything() {
        let mut b = TokenBucket::unlimited();
        assert!(b.is_unlimited());
        assert_eq!(b.rate(), None);
        assert_eq!(TokenBucket::default(), b);
        for _ in 0..1000 {
            assert!(b.try_consume(Instant::ZERO, u64::MAX));
        }
        b.consume(Instant::ZERO, u64::MAX);
        assert_eq!(
            b.available_at(Instant::from_millis(7), u64::MAX),
            Instant::from_millis(7)
        );
        // Turning a limit on starts full at that instant.
        b.set_burst(Instant::ZERO, 3000);
        b.set_rate(Instant::from_secs_f64(10.0), 1000);
        assert_eq!(b.rate(), Some(1000));
        assert_eq!(b.available(Instant::from_secs_f64(10.0)), 3000);
        b.set_unlimited();
        assert!(b.is_unlimited());
        assert_eq!(b.burst(), 3000);
    }

    #[test]
    fn set_rate_splits_accrual_at_the_change() {
        let mut b = TokenBucket::new(1000, 10_000, Instant::ZERO);
        assert!(b.try_consume(Instant::ZERO, 10_000));
        // 2 s at 1000 B/s, then 3 s at 2000 B/s: 2000 + 6000 = 8000 bytes.
        b.set_rate(Instant::from_millis(2000), 2000);
        assert_eq!(b.available(Instant::from_millis(5000)), 8000);
        // Zero rate: nothing more ever accrues.
        b.set_rate(Instant::from_millis(5000), 0);
        assert_eq!(b.available(Instant::from_millis(1_000_000)), 8000);
        assert_eq!(
            b.available_at(Instant::from_millis(5000), 9000),
            Instant::from_nanos(u64::MAX)
        );
        assert_eq!(
            b.available_at(Instant::from_millis(5000), 8000),
            Instant::from_millis(5000)
        );
    }

    #[test]
    fn set_burst_caps_the_level() {
        let mut b = TokenBucket::new(1000, 10_000, Instant::ZERO);
        b.set_burst(Instant::ZERO, 1500);
        assert_eq!(b.burst(), 1500);
        assert_eq!(b.available(Instant::ZERO), 1500);
        assert!(b.try_consume(Instant::ZERO, 1500));
        assert_eq!(b.available(Instant::from_millis(500)), 500);
    }

    #[test]
    fn forced_consumption_delays_later_packets() {
        let mut b = TokenBucket::new(1000, 1000, Instant::ZERO);
        b.consume(Instant::ZERO, 3000);
        assert_eq!(b.available(Instant::ZERO), 0);
        // 2000 bytes of debt plus 1000 for the packet: 3 s.
        assert_eq!(
            b.available_at(Instant::ZERO, 1000),
            Instant::from_millis(3000)
        );
    }

    #[test]
    fn time_never_runs_backwards() {
        let mut b = TokenBucket::new(1000, 1000, Instant::ZERO);
        assert!(b.try_consume(Instant::from_millis(5000), 1000));
        // An earlier `now` neither refills nor rewinds.
        assert!(!b.try_consume(Instant::from_millis(1000), 1));
        assert_eq!(
            b.available_at(Instant::from_millis(1000), 1000),
            Instant::from_millis(6000)
        );
        // Extreme values do not overflow.
        let mut big = TokenBucket::new(u64::MAX, u64::MAX, Instant::ZERO);
        assert!(big.try_consume(Instant::from_nanos(u64::MAX), u64::MAX));
        // What is left is the slack: under one nanosecond of refill, (2^64 − 2) nanobytes.
        assert_eq!(
            big.available(Instant::from_nanos(u64::MAX)),
            (u64::MAX - 1) / 1_000_000_000
        );
    }
}
