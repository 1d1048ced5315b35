//! Timer bookkeeping for the receive window: an ordered deadline queue with lazy cancellation, and the token
//! bucket that paces NAK packets (pgmcc paper §3.8).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::time::Instant;

/// One armed timer: fires at `at` for the sequence number with extended index `ext`.
///
/// `id` is unique per arming (a counter owned by the window). A missing sequence number remembers the id of its
/// live timer, so an entry whose id no longer matches is stale and is dropped when it reaches the top (lazy
/// cancellation, as in ns-3's scheduler). Ordering by `(at, id)` makes equal deadlines fire in arming order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Timer {
    pub at: Instant,
    pub id: u64,
    pub ext: u64,
}

/// A min-queue of [`Timer`]s.
#[derive(Clone, Debug, Default)]
pub(super) struct TimerQueue {
    heap: BinaryHeap<Reverse<Timer>>,
}

impl TimerQueue {
    /// Arms a timer.
    pub fn push(&mut self, timer: Timer) {
        self.heap.push(Reverse(timer));
    }

    /// The earliest entry, live or stale.
    pub fn peek(&self) -> Option<Timer> {
        self.heap.peek().map(|r| r.0)
    }

    /// Removes the earliest entry if it is due at `now`.
    pub fn pop_due(&mut self, now: Instant) -> Option<Timer> {
        if self.peek()?.at <= now {
            self.heap.pop().map(|r| r.0)
        } else {
            None
        }
    }

    /// Drops stale entries from the top so that [`TimerQueue::peek`] shows a live timer, and rebuilds the heap
    /// when stale entries outnumber live ones by far (bounds memory under heavy cancellation).
    pub fn tidy(&mut self, live: usize, is_live: impl Fn(&Timer) -> bool) {
        while let Some(top) = self.peek() {
            if is_live(&top) {
                break;
            }
            self.heap.pop();
        }
        if self.heap.len() > 2 * live + 1024 {
            self.heap.retain(|r| is_live(&r.0));
        }
    }

    /// Number of entries, stale ones included.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether it holds no entry, live or stale.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

/// Nanoseconds in a second: one token is worth this many credit units.
const TOKEN: u128 = 1_000_000_000;

/// Token bucket over NAK packets: `rate` packets per second, at most `burst` back to back (pgmcc paper §3.8:
/// "appropriately pacing the generation of NAKs when a large number of repairs is needed").
///
/// Credit is kept in exact integer units (one token = 10⁹ units, `rate` units accrue per nanosecond), so pacing
/// is a pure function of the instants passed in. A `rate` of zero disables pacing.
#[derive(Clone, Debug)]
pub(super) struct Pacer {
    rate: u128,
    cap: u128,
    credit: u128,
    last: Option<Instant>,
}

impl Pacer {
    /// A full bucket.
    pub fn new(rate_per_s: u32, burst: u32) -> Self {
        let cap = u128::from(burst.max(1)) * TOKEN;
        Pacer {
            rate: u128::from(rate_per_s),
            cap,
            credit: cap,
            last: None,
        }
    }

    fn refill(&mut self, now: Instant) {
        match self.last {
            None => self.last = Some(now),
            Some(last) if now > last => {
                let elapsed = (now - last).as_nanos();
                self.credit = self.cap.min(
                    self.credit
                        .saturating_add(elapsed.saturating_mul(self.rate)),
                );
                self.last = Some(now);
            }
            Some(_) => {}
        }
    }

    /// Takes one token at `now` if one is available.
    pub fn try_take(&mut self, now: Instant) -> bool {
        if self.rate == 0 {
            return true;
        }
        self.refill(now);
        if self.credit >= TOKEN {
            self.credit -= TOKEN;
            true
        } else {
            false
        }
    }

    /// When the next token is (or was) available; `None` when one is available right away and the bucket has
    /// not been used yet, or pacing is off.
    pub fn next_token_at(&self) -> Option<Instant> {
        if self.rate == 0 || self.credit >= TOKEN {
            return self.last;
        }
        let last = self.last?;
        let wait_ns = (TOKEN - self.credit).div_ceil(self.rate);
        Some(last + std::time::Duration::from_nanos(u64::try_from(wait_ns).unwrap_or(u64::MAX)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pacer_refills_exactly() {
        let mut p = Pacer::new(100, 2);
        let t0 = Instant::from_millis(1_000);
        assert!(p.try_take(t0));
        assert!(p.try_take(t0));
        assert!(!p.try_take(t0));
        assert_eq!(p.next_token_at(), Some(Instant::from_millis(1_010)));
        assert!(!p.try_take(Instant::from_millis(1_009)));
        assert!(p.try_take(Instant::from_millis(1_010)));
        // Long idle refills only up to the burst.
        assert!(p.try_take(Instant::from_millis(9_000)));
        assert!(p.try_take(Instant::from_millis(9_000)));
        assert!(!p.try_take(Instant::from_millis(9_000)));
    }

    #[test]
    fn queue_orders_by_deadline_then_id() {
        let mut q = TimerQueue::default();
        q.push(Timer {
            at: Instant::from_millis(5),
            id: 2,
            ext: 10,
        });
        q.push(Timer {
            at: Instant::from_millis(5),
            id: 1,
            ext: 11,
        });
        q.push(Timer {
            at: Instant::from_millis(3),
            id: 3,
            ext: 12,
        });
        let now = Instant::from_millis(5);
        let order: Vec<u64> = std::iter::from_fn(|| q.pop_due(now))
            .map(|t| t.ext)
            .collect();
        assert_eq!(order, vec![12, 11, 10]);
        q.push(Timer {
            at: Instant::from_millis(9),
            id: 4,
            ext: 1,
        });
        assert!(q.pop_due(now).is_none());
        q.tidy(0, |_| false);
        assert_eq!(q.len(), 0);
    }
}
