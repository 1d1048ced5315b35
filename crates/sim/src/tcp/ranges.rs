//! [`RangeSet`]: a sorted set of disjoint, non-adjacent byte ranges `[start, end)`.
//!
//! Both the sink's out-of-order queue and the sender's SACK scoreboard are sets of ranges above a cumulative
//! point that only moves forward. Ranges are kept merged in a `VecDeque` sorted by start, so lookups are binary
//! searches, trimming below a cumulative ACK pops from the front (amortised O(1) per range), and inserting a
//! block touches only the ranges it overlaps. New data usually arrives at the high end, where insertion is
//! cheap. No per-byte or per-segment state is kept.

use std::collections::VecDeque;

/// Disjoint, non-adjacent ranges `[start, end)` sorted by start, with their total length.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct RangeSet {
    ranges: VecDeque<(u64, u64)>,
    total: u64,
}

impl RangeSet {
    /// An empty set.
    pub fn new() -> Self {
        RangeSet::default()
    }

    /// Number of (maximal) ranges.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.ranges.len()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// Total bytes covered.
    #[cfg(test)]
    pub fn total(&self) -> u64 {
        self.total
    }

    /// The ranges in increasing order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (u64, u64)> + '_ {
        self.ranges.iter().copied()
    }

    /// The lowest range.
    #[cfg(test)]
    pub fn first(&self) -> Option<(u64, u64)> {
        self.ranges.front().copied()
    }

    /// The highest range.
    pub fn last(&self) -> Option<(u64, u64)> {
        self.ranges.back().copied()
    }

    /// Index of the first range starting after `x`.
    fn first_starting_after(&self, x: u64) -> usize {
        self.ranges.partition_point(|&(s, _)| s <= x)
    }

    /// The range containing byte `x`, if any.
    pub fn containing(&self, x: u64) -> Option<(u64, u64)> {
        let i = self.first_starting_after(x);
        let (s, e) = *self.ranges.get(i.checked_sub(1)?)?;
        (s <= x && x < e).then_some((s, e))
    }

    /// The smallest byte `>= x` not covered by the set.
    pub fn next_uncovered(&self, x: u64) -> u64 {
        // Ranges are non-adjacent, so the end of the range holding x is uncovered.
        self.containing(x).map_or(x, |(_, e)| e)
    }

    /// Start of the first range starting after `x`, if any.
    pub fn next_start_after(&self, x: u64) -> Option<u64> {
        self.ranges
            .get(self.first_starting_after(x))
            .map(|&(s, _)| s)
    }

    /// Bytes of `[a, b)` covered by the set. O(log n + ranges overlapping).
    pub fn covered_in(&self, a: u64, b: u64) -> u64 {
        if a >= b {
            return 0;
        }
        let mut i = self.first_starting_after(a).saturating_sub(1);
        let mut sum = 0;
        while let Some(&(s, e)) = self.ranges.get(i) {
            if s >= b {
                break;
            }
            sum += e.min(b).saturating_sub(s.max(a));
            i += 1;
        }
        sum
    }

    /// Adds `[start, end)`, merging it with the ranges it overlaps or touches. Returns the number of bytes that
    /// were not covered before and the (merged) range now holding `start`; `None` for an empty range.
    pub fn insert(&mut self, start: u64, end: u64) -> Option<(u64, (u64, u64))> {
        if start >= end {
            return None;
        }
        // Ranges [i, j) overlap or touch [start, end]: the first whose end reaches start, up to the first whose
        // start lies beyond end.
        let i = self.ranges.partition_point(|&(_, e)| e < start);
        let j = self.first_starting_after(end);
        let mut covered = 0;
        let (mut lo, mut hi) = (start, end);
        for &(s, e) in self.ranges.range(i..j) {
            covered += e.min(end).saturating_sub(s.max(start));
            lo = lo.min(s);
            hi = hi.max(e);
        }
        let new = (end - start) - covered;
        self.total += new;
        if j > i {
            self.ranges[i] = (lo, hi);
            self.ranges.drain(i + 1..j);
        } else {
            self.ranges.insert(i, (lo, hi));
        }
        Some((new, (lo, hi)))
    }

    /// Forgets every byte below `x`. Returns the bytes removed.
    pub fn remove_below(&mut self, x: u64) -> u64 {
        let mut removed = 0;
        while let Some(&(s, e)) = self.ranges.front() {
            if e <= x {
                removed += e - s;
                self.ranges.pop_front();
            } else {
                if s < x {
                    removed += x - s;
                    self.ranges[0].0 = x;
                }
                break;
            }
        }
        self.total -= removed;
        removed
    }

    /// Removes the lowest range if it starts at or below `x`, returning it.
    pub fn pop_first_if_starts_by(&mut self, x: u64) -> Option<(u64, u64)> {
        let &(s, e) = self.ranges.front()?;
        if s > x {
            return None;
        }
        self.ranges.pop_front();
        self.total -= e - s;
        Some((s, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(rs: &[(u64, u64)]) -> RangeSet {
        let mut s = RangeSet::new();
        for &(a, b) in rs {
            s.insert(a, b);
        }
        s
    }

    #[test]
    fn insert_merges_overlapping_and_adjacent() {
        let mut s = RangeSet::new();
        assert_eq!(s.insert(10, 20), Some((10, (10, 20))));
        assert_eq!(s.insert(30, 40), Some((10, (30, 40))));
        assert_eq!(s.insert(20, 25), Some((5, (10, 25))), "touching merges");
        assert_eq!(s.insert(5, 50), Some((45 - 25, (5, 50))), "swallows both");
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![(5, 50)]);
        assert_eq!(s.total(), 45);
        assert_eq!(s.insert(7, 9), Some((0, (5, 50))), "duplicate adds nothing");
        assert_eq!(s.insert(9, 9), None);
        assert_eq!(s.insert(0, 2), Some((2, (0, 2))), "insert before");
        assert_eq!(s.len(), 2);
    }

    #[test]
    fn lookups() {
        let s = set(&[(10, 20), (30, 40), (50, 60)]);
        assert_eq!(s.containing(10), Some((10, 20)));
        assert_eq!(s.containing(19), Some((10, 20)));
        assert_eq!(s.containing(20), None);
        assert_eq!(s.containing(5), None);
        assert_eq!(s.next_uncovered(12), 20);
        assert_eq!(s.next_uncovered(25), 25);
        assert_eq!(s.next_start_after(10), Some(30));
        assert_eq!(s.next_start_after(5), Some(10));
        assert_eq!(s.next_start_after(50), None);
        assert_eq!(s.covered_in(15, 55), 5 + 10 + 5);
        assert_eq!(s.covered_in(0, 100), 30);
        assert_eq!(s.covered_in(20, 30), 0);
        assert_eq!(s.covered_in(40, 10), 0);
        assert_eq!(s.first(), Some((10, 20)));
        assert_eq!(s.last(), Some((50, 60)));
    }

    #[test]
    fn remove_below_and_pop() {
        let mut s = set(&[(10, 20), (30, 40)]);
        assert_eq!(s.remove_below(15), 5);
        assert_eq!(s.first(), Some((15, 20)));
        assert_eq!(s.remove_below(35), 5 + 5);
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![(35, 40)]);
        assert_eq!(s.total(), 5);
        assert_eq!(s.pop_first_if_starts_by(34), None);
        assert_eq!(s.pop_first_if_starts_by(35), Some((35, 40)));
        assert!(s.is_empty());
        assert_eq!(s.total(), 0);
    }

    #[test]
    fn matches_a_bitmap_model() {
        // Deterministic pseudo-random inserts/trims checked against a per-byte model.
        let mut s = RangeSet::new();
        let mut bits = [false; 300];
        let mut x: u64 = 12345;
        let mut floor = 0;
        for step in 0..2000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let a = (x >> 33) % 290;
            let b = a + (x >> 20) % 12;
            if step % 97 == 96 {
                floor = (floor + 7).min(299);
                let expect = bits[..floor as usize].iter().filter(|&&v| v).count() as u64;
                assert_eq!(s.remove_below(floor), expect);
                bits[..floor as usize].iter_mut().for_each(|v| *v = false);
                continue;
            }
            let (a, b) = (a.max(floor), b.max(floor));
            let expect = (a..b).filter(|&i| !bits[i as usize]).count() as u64;
            let got = s.insert(a, b).map_or(0, |(n, _)| n);
            assert_eq!(got, expect);
            (a..b).for_each(|i| bits[i as usize] = true);
            assert_eq!(s.total(), bits.iter().filter(|&&v| v).count() as u64);
            let mut prev_end = None;
            for (rs, re) in s.iter() {
                assert!(rs < re);
                if let Some(pe) = prev_end {
                    assert!(rs > pe, "disjoint and non-adjacent");
                }
                prev_end = Some(re);
                assert!((rs..re).all(|i| bits[i as usize]));
            }
        }
    }
}
