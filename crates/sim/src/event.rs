//! The event queue, ordered by (time, insertion counter), so events at equal times run in the order they were
//! scheduled and a run is a pure function of its inputs (ns-3's `Simulator`, NeXosim's ordering).
//!
//! Events scheduled one after another for the same instant — a router copying a multicast packet onto its
//! 1000 identical out-links — form one *run*: a FIFO bucket that takes one place in a binary heap keyed by the
//! run's (time, first counter). An event joins the run created last if it is due at the same instant, else it
//! starts a new run. Every run holds consecutive insertions, so popping runs in (time, first counter) order
//! and each run front to back yields exactly the (time, counter) order of a heap of single events, with the
//! heap as large as the number of runs rather than of events. Buckets are reused; the few that grew large (a
//! fan-out) are kept apart for the next large run, so that the many one-event runs (timers) stay small.

use convoy_proto::Instant;
use std::collections::VecDeque;

/// A run's place in the heap: its (time, first order) as one 128-bit key, the time in the high half, so that
/// the heap compares one integer instead of a pair.
#[derive(Clone, Copy, PartialEq, Eq)]
struct RunKey {
    key: u128,
    bucket: u32,
}

impl RunKey {
    fn new(at: Instant, order: u64, bucket: u32) -> Self {
        RunKey {
            key: (u128::from(at.as_nanos()) << 64) | u128::from(order),
            bucket,
        }
    }

    fn at(&self) -> Instant {
        Instant::from_nanos((self.key >> 64) as u64)
    }
}

/// A binary min-heap of run keys (keys are unique: every order is used once).
///
/// Not `std`'s `BinaryHeap`: that one moves an entry through a hole written and read back at different
/// widths, and on the dumbbell benchmark `perf annotate` showed its reads waiting on store forwarding. Here each
/// sift holds the moving key in registers until its place is found.
struct RunHeap {
    keys: Vec<RunKey>,
}

impl RunHeap {
    fn new() -> Self {
        RunHeap { keys: Vec::new() }
    }

    fn len(&self) -> usize {
        self.keys.len()
    }

    fn peek(&self) -> Option<&RunKey> {
        self.keys.first()
    }

    // Inlined: a key passed through memory is written field by field and read back whole, which waits on
    // store forwarding.
    #[inline(always)]
    fn push(&mut self, key: RunKey) {
        let mut i = self.keys.len();
        self.keys.push(key);
        while i > 0 {
            let parent = (i - 1) / 2;
            if self.keys[parent].key < key.key {
                break;
            }
            self.keys[i] = self.keys[parent];
            i = parent;
        }
        self.keys[i] = key;
    }

    /// Removes the least key: the last key sifts down from the root.
    fn pop(&mut self) -> Option<RunKey> {
        let last = self.keys.pop()?;
        let Some(&top) = self.keys.first() else {
            return Some(last);
        };
        let n = self.keys.len();
        let mut i = 0;
        loop {
            let mut child = 2 * i + 1;
            if child >= n {
                break;
            }
            if child + 1 < n && self.keys[child + 1].key < self.keys[child].key {
                child += 1;
            }
            if last.key < self.keys[child].key {
                break;
            }
            self.keys[i] = self.keys[child];
            i = child;
        }
        self.keys[i] = last;
        Some(top)
    }
}

/// A bucket that grew beyond this many events is not handed to the next run when freed (most runs are one
/// timer), but kept as a spare for the next run that grows large, or released.
const SMALL_RUN: usize = 16;
/// Large buckets kept for reuse (about the multicast copies in flight at once); the rest are released.
const MAX_SPARES: usize = 32;

/// A deterministic priority queue of events.
pub struct EventQueue<E> {
    heap: RunHeap,
    /// Runs' events; a bucket is reused once its run is over.
    buckets: Vec<VecDeque<E>>,
    free: Vec<u32>,
    /// Emptied large buckets, swapped in when a run outgrows a small one.
    spares: Vec<VecDeque<E>>,
    /// The run created last, while it is pending: (its instant, its bucket).
    last: Option<(Instant, u32)>,
    order: u64,
}

impl<E> std::fmt::Debug for EventQueue<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventQueue")
            .field("len", &self.len())
            .field("runs", &self.heap.len())
            .finish()
    }
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    /// Empty.
    pub fn new() -> Self {
        EventQueue {
            heap: RunHeap::new(),
            buckets: Vec::new(),
            free: Vec::new(),
            spares: Vec::new(),
            last: None,
            order: 0,
        }
    }

    /// Schedule `event` at `at`.
    // Inlined for the same reason as `RunHeap::push`: the event comes in registers.
    #[inline(always)]
    pub fn push(&mut self, at: Instant, event: E) {
        self.order += 1;
        if let Some((last_at, bucket)) = self.last {
            if last_at == at {
                let b = &mut self.buckets[bucket as usize];
                if b.len() == SMALL_RUN && b.capacity() <= SMALL_RUN {
                    if let Some(mut spare) = self.spares.pop() {
                        spare.extend(b.drain(..));
                        *b = spare;
                    }
                }
                if b.len() == b.capacity() && b.len() >= SMALL_RUN {
                    // Grow a fan-out's bucket by a quarter, not by doubling: a 10,000-way fan-out would
                    // otherwise hold room for 16,384 events in every bucket it ever used.
                    b.reserve_exact(b.len() / 4);
                }
                b.push_back(event);
                return;
            }
        }
        let bucket = self.new_run(at, self.order, event);
        self.last = Some((at, bucket));
    }

    /// Reserve an insertion order now for an event that will be pushed later with
    /// [`EventQueue::push_reserved`], and sort as if it had been pushed now. A timer whose deadline moves later
    /// while its earlier event is still pending reserves its place instead of pushing a second event: the
    /// pending one re-queues itself under the reserved order when it comes up, so the heap holds one event per
    /// timer instead of one per re-arming, and the order of events is exactly the same.
    pub fn reserve(&mut self) -> u64 {
        self.order += 1;
        // A later push must not join the run created before the reservation: an event pushed under the
        // reserved order may come between them.
        self.last = None;
        self.order
    }

    /// Schedule `event` at `at` under an order from [`EventQueue::reserve`] (each order used once).
    pub fn push_reserved(&mut self, at: Instant, order: u64, event: E) {
        // Alone in its run: a later push at the same instant may belong before it or after events that
        // sort between them.
        self.new_run(at, order, event);
        self.last = None;
    }

    /// A new run of one event; returns its bucket.
    // Inlined for the same reason as `RunHeap::push`: the event comes in registers.
    #[inline(always)]
    fn new_run(&mut self, at: Instant, order: u64, event: E) -> u32 {
        let bucket = match self.free.pop() {
            Some(b) => b,
            None => {
                self.buckets.push(VecDeque::new());
                (self.buckets.len() - 1) as u32
            }
        };
        self.buckets[bucket as usize].push_back(event);
        self.heap.push(RunKey::new(at, order, bucket));
        bucket
    }

    /// The earliest event's time.
    pub fn peek_time(&self) -> Option<Instant> {
        self.heap.peek().map(RunKey::at)
    }

    /// Remove the earliest event.
    pub fn pop(&mut self) -> Option<(Instant, E)> {
        let run = *self.heap.peek()?;
        let bucket = &mut self.buckets[run.bucket as usize];
        let event = bucket.pop_front().expect("a pending run is never empty");
        if bucket.is_empty() {
            self.heap.pop();
            if bucket.capacity() > 4 * SMALL_RUN {
                let large = std::mem::take(bucket);
                if self.spares.len() < MAX_SPARES {
                    self.spares.push(large);
                }
            }
            self.free.push(run.bucket);
            if self.last.is_some_and(|(_, b)| b == run.bucket) {
                self.last = None;
            }
        }
        Some((run.at(), event))
    }

    /// Bytes each pending event takes in the queue (its slot in a run's bucket; runs add a heap key each).
    pub const ENTRY_BYTES: usize = std::mem::size_of::<E>();

    /// Bytes the queue's buckets hold allocated (for tests of its memory).
    pub fn allocated_bytes(&self) -> usize {
        let cap = |b: &VecDeque<E>| b.capacity() * std::mem::size_of::<E>();
        self.buckets.iter().map(cap).sum::<usize>() + self.spares.iter().map(cap).sum::<usize>()
    }

    /// Events pending (counted when asked: the queue keeps no count, whose update beside `order` cost the
    /// hot path a store-forwarding stall).
    pub fn len(&self) -> usize {
        let events = |k: &RunKey| self.buckets[k.bucket as usize].len();
        self.heap.keys.iter().map(events).sum()
    }

    /// Whether none are pending (a pending run is never empty).
    pub fn is_empty(&self) -> bool {
        self.heap.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BinaryHeap;

    #[test]
    fn time_then_fifo() {
        let mut q = EventQueue::new();
        q.push(Instant::from_millis(2), "c");
        q.push(Instant::from_millis(1), "a");
        q.push(Instant::from_millis(1), "b");
        q.push(Instant::from_millis(2), "d");
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).map(|(_, e)| e).collect();
        assert_eq!(order, vec!["a", "b", "c", "d"]);
    }

    /// The runs give exactly the order of a heap of single (time, counter) entries, for random schedules with
    /// many equal instants, pushes interleaved with pops, and events scheduled for the instant being run.
    #[test]
    fn runs_match_a_heap_of_single_events() {
        use rand_chacha::ChaCha8Rng;
        use rand_core::{RngCore, SeedableRng};
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        for _ in 0..200 {
            let mut q = EventQueue::new();
            let mut reference: BinaryHeap<std::cmp::Reverse<(Instant, u64)>> = BinaryHeap::new();
            let mut counter = 0u64;
            let mut now = Instant::ZERO;
            for _ in 0..400 {
                if rng.next_u32() % 3 == 0 {
                    let got = q.pop();
                    let want = reference.pop().map(|std::cmp::Reverse(x)| x);
                    assert_eq!(got, want);
                    if let Some((t, _)) = got {
                        now = t;
                    }
                } else {
                    let at = now + std::time::Duration::from_nanos(u64::from(rng.next_u32() % 4));
                    for _ in 0..1 + rng.next_u32() % 3 {
                        counter += 1;
                        q.push(at, counter);
                        reference.push(std::cmp::Reverse((at, counter)));
                    }
                }
                assert_eq!(q.len(), reference.len());
            }
            while let Some(want) = reference.pop() {
                assert_eq!(q.pop(), Some(want.0));
            }
            assert!(q.pop().is_none() && q.is_empty());
        }
    }

    /// Events pushed under reserved orders sort exactly as if they had been pushed at the reservation,
    /// whatever runs were built meanwhile, provided each is pushed before its turn comes (as the simulator's
    /// timers do: the earlier pending event re-queues the later deadline).
    #[test]
    fn reserved_orders_sort_as_if_pushed_at_the_reservation() {
        use rand_chacha::ChaCha8Rng;
        use rand_core::{RngCore, SeedableRng};
        let mut rng = ChaCha8Rng::seed_from_u64(12);
        for _ in 0..200 {
            let mut q = EventQueue::new();
            let mut reference: BinaryHeap<std::cmp::Reverse<(Instant, u64)>> = BinaryHeap::new();
            let mut reserved: Vec<(Instant, u64)> = Vec::new();
            let mut now = Instant::ZERO;
            for _ in 0..400 {
                let later =
                    |now: Instant, r: u32| now + std::time::Duration::from_nanos(u64::from(r % 4));
                match rng.next_u32() % 4 {
                    0 => {
                        // Reservations due by the next event's instant go in first.
                        let next = q.peek_time();
                        let (due, keep): (Vec<_>, Vec<_>) = reserved
                            .iter()
                            .partition(|(at, _)| next.is_none_or(|n| *at <= n));
                        reserved = keep;
                        for (at, order) in due {
                            q.push_reserved(at, order, order);
                        }
                        let got = q.pop();
                        let want = reference.pop().map(|std::cmp::Reverse(x)| x);
                        assert_eq!(got, want);
                        if let Some((t, _)) = got {
                            now = t;
                        }
                    }
                    1 => {
                        let at = later(now, rng.next_u32());
                        let order = q.reserve();
                        reserved.push((at, order));
                        reference.push(std::cmp::Reverse((at, order)));
                    }
                    _ => {
                        let at = later(now, rng.next_u32());
                        for _ in 0..1 + rng.next_u32() % 3 {
                            let order = q.order + 1;
                            q.push(at, order);
                            reference.push(std::cmp::Reverse((at, order)));
                        }
                    }
                }
            }
            for (at, order) in reserved.drain(..) {
                q.push_reserved(at, order, order);
            }
            while let Some(want) = reference.pop() {
                assert_eq!(q.pop(), Some(want.0));
            }
            assert!(q.pop().is_none() && q.is_empty());
        }
    }

    /// Fan-outs of 1000 copies interleaved with 2000 pending one-event runs: the one-event runs keep small
    /// buckets, so the memory stays near what the events need rather than a fan-out per pending run.
    #[test]
    fn one_event_runs_do_not_inherit_fan_out_buckets() {
        let mut q = EventQueue::new();
        let mut now = Instant::ZERO;
        for k in 0..200u64 {
            // A fan-out at now + 1 ms, then ten timers at distinct later instants.
            for c in 0..1000 {
                q.push(now + std::time::Duration::from_millis(1), (k, c));
            }
            for t in 0..10 {
                q.push(
                    now + std::time::Duration::from_secs(10 + k * 10 + t),
                    (k, 5000 + t),
                );
            }
            // Run the fan-out.
            while q.peek_time() == Some(now + std::time::Duration::from_millis(1)) {
                q.pop();
            }
            now += std::time::Duration::from_millis(1);
        }
        assert_eq!(q.len(), 2000);
        let per_event = std::mem::size_of::<(u64, u64)>();
        // 2000 pending one-event runs in buckets of a few slots each, plus a few fan-out spares.
        let bound = 2000 * 8 * per_event + MAX_SPARES * 2048 * per_event;
        assert!(
            q.allocated_bytes() < bound,
            "{} bytes allocated for {} pending events",
            q.allocated_bytes(),
            q.len()
        );
    }
}
