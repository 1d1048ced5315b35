//! The source's elimination of duplicate NAKs: after it confirmed (NCF) or repaired (RDATA) a sequence number,
//! NAKs for that number within an interval get neither again. The interval is twice the controller's smoothed
//! RTT when it has one, capped by the configured interval: a NAK that crossed the answer on its way arrives
//! within about one RTT of it, while a NAK arriving later means the answer was lost and is answered again.
//!
//! RFC 3208 gives network elements this duty (§7.4, NAK_ELIM_IVL: "discard duplicates of that NAK for
//! NAK_ELIM_IVL"); a source whose receivers sit behind plain multicast routers hears every receiver's NAK for
//! a packet lost upstream of them all. Answering each with its own NCF and, once the first repair has left,
//! another RDATA multiplies the repair traffic by the number of receivers exactly when the path is congested
//! (NAK implosion, pgmcc paper §3.1). Eliminating them is safe for liveness as long as the interval is shorter
//! than the receivers' NAK_RPT_IVL and NAK_RDATA_IVL (RFC 3208 §6.3; 2 s by default): a receiver whose NAK
//! was eliminated either gets the repair already on its way (multicast to the whole group), or NAKs again
//! after one of those intervals, outside the elimination interval, and is answered.

use crate::time::Instant;
use std::collections::{BTreeMap, VecDeque};
use std::time::Duration;

/// What was recently answered for one sequence number.
#[derive(Clone, Copy, Debug, Default)]
struct Answered {
    ncf: Option<Instant>,
    rdata: Option<Instant>,
}

/// Recently confirmed and repaired sequence numbers.
#[derive(Debug)]
pub struct RecentRepairs {
    interval: Duration,
    by_sqn: BTreeMap<u32, Answered>,
    /// (when, sqn) in time order, to forget entries older than the interval.
    order: VecDeque<(Instant, u32)>,
}

impl RecentRepairs {
    /// Eliminate duplicates for `interval` (zero: never).
    pub fn new(interval: Duration) -> Self {
        RecentRepairs {
            interval,
            by_sqn: BTreeMap::new(),
            order: VecDeque::new(),
        }
    }

    fn forget_old(&mut self, now: Instant) {
        while let Some(&(at, sqn)) = self.order.front() {
            if now.saturating_duration_since(at) < self.interval {
                break;
            }
            self.order.pop_front();
            if let Some(a) = self.by_sqn.get(&sqn) {
                let stale = |t: Option<Instant>| {
                    t.is_none_or(|t| now.saturating_duration_since(t) >= self.interval)
                };
                if stale(a.ncf) && stale(a.rdata) {
                    self.by_sqn.remove(&sqn);
                }
            }
        }
    }

    fn recent(now: Instant, t: Option<Instant>, within: Duration) -> bool {
        t.is_some_and(|t| now.saturating_duration_since(t) < within)
    }

    fn note(&mut self, now: Instant, sqn: u32, set: impl FnOnce(&mut Answered)) {
        if self.interval.is_zero() {
            return;
        }
        set(self.by_sqn.entry(sqn).or_default());
        self.order.push_back((now, sqn));
    }

    /// Whether an NCF for `sqn` should go out now, none having gone out `within` (at most the interval)
    /// before; if so, it is noted as sent.
    pub fn confirm(&mut self, now: Instant, sqn: u32, within: Duration) -> bool {
        self.forget_old(now);
        let ncf = self.by_sqn.get(&sqn).and_then(|a| a.ncf);
        if Self::recent(now, ncf, within.min(self.interval)) {
            return false;
        }
        self.note(now, sqn, |a| a.ncf = Some(now));
        true
    }

    /// Whether `sqn` was repaired (RDATA sent) `within` (at most the interval) before `now`.
    pub fn recently_repaired(&mut self, now: Instant, sqn: u32, within: Duration) -> bool {
        self.forget_old(now);
        let rdata = self.by_sqn.get(&sqn).and_then(|a| a.rdata);
        Self::recent(now, rdata, within.min(self.interval))
    }

    /// RDATA for `sqn` left now.
    pub fn repaired(&mut self, now: Instant, sqn: u32) {
        self.forget_old(now);
        self.note(now, sqn, |a| a.rdata = Some(now));
    }

    /// Sequence numbers remembered (bounded by what is answered within one interval).
    pub fn len(&self) -> usize {
        self.by_sqn.len()
    }

    /// Whether none are remembered.
    pub fn is_empty(&self) -> bool {
        self.by_sqn.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAX: Duration = Duration::MAX;

    #[test]
    fn a_shorter_window_answers_sooner() {
        let mut r = RecentRepairs::new(Duration::from_millis(100));
        r.repaired(ms(0), 3);
        let rtt_based = Duration::from_millis(20);
        assert!(r.recently_repaired(ms(19), 3, rtt_based));
        assert!(!r.recently_repaired(ms(20), 3, rtt_based));
        assert!(
            r.recently_repaired(ms(20), 3, MAX),
            "the interval still bounds it"
        );
    }

    fn ms(n: u64) -> Instant {
        Instant::from_millis(n)
    }

    #[test]
    fn rfc3208_7_4_one_ncf_per_interval_then_again() {
        let mut r = RecentRepairs::new(Duration::from_millis(100));
        assert!(r.confirm(ms(0), 7, MAX));
        assert!(!r.confirm(ms(50), 7, MAX), "duplicate within the interval");
        assert!(
            r.confirm(ms(0) + Duration::from_millis(100), 7, MAX),
            "answered again after it"
        );
        assert!(r.confirm(ms(60), 8, MAX), "other numbers are independent");
    }

    #[test]
    fn a_repair_suppresses_repeats_for_the_interval_only() {
        let mut r = RecentRepairs::new(Duration::from_millis(100));
        assert!(!r.recently_repaired(ms(0), 3, MAX));
        r.repaired(ms(10), 3);
        assert!(r.recently_repaired(ms(20), 3, MAX));
        assert!(r.recently_repaired(ms(109), 3, MAX));
        assert!(!r.recently_repaired(ms(110), 3, MAX));
    }

    #[test]
    fn zero_interval_eliminates_nothing_and_remembers_nothing() {
        let mut r = RecentRepairs::new(Duration::ZERO);
        for t in 0..10 {
            assert!(r.confirm(ms(t), 1, MAX));
            r.repaired(ms(t), 1);
            assert!(!r.recently_repaired(ms(t), 1, MAX));
        }
        assert!(r.is_empty());
    }

    #[test]
    fn memory_is_bounded_by_one_interval() {
        let mut r = RecentRepairs::new(Duration::from_millis(10));
        for i in 0..10_000u32 {
            let now = ms(u64::from(i));
            r.confirm(now, i, MAX);
            r.repaired(now, i);
        }
        assert!(r.len() <= 11, "{} remembered", r.len());
    }
}
