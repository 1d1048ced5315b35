//! The event queue: a binary heap keyed by (time, insertion counter), so events at equal times run in the order
//! they were scheduled and a run is a pure function of its inputs (ns-3's `Simulator`, NeXosim's ordering).

use convoy_proto::Instant;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

struct Entry<E> {
    at: Instant,
    order: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.at == other.at && self.order == other.order
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    /// Reversed: the max-heap yields the earliest (time, order).
    fn cmp(&self, other: &Self) -> Ordering {
        (other.at, other.order).cmp(&(self.at, self.order))
    }
}

/// A deterministic priority queue of events.
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    order: u64,
}

impl<E> std::fmt::Debug for EventQueue<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventQueue")
            .field("len", &self.heap.len())
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
            heap: BinaryHeap::new(),
            order: 0,
        }
    }

    /// Schedule `event` at `at`.
    pub fn push(&mut self, at: Instant, event: E) {
        self.order += 1;
        self.heap.push(Entry {
            at,
            order: self.order,
            event,
        });
    }

    /// The earliest event's time.
    pub fn peek_time(&self) -> Option<Instant> {
        self.heap.peek().map(|e| e.at)
    }

    /// Remove the earliest event.
    pub fn pop(&mut self) -> Option<(Instant, E)> {
        self.heap.pop().map(|e| (e.at, e.event))
    }

    /// Bytes each pending event takes in the queue.
    pub const ENTRY_BYTES: usize = std::mem::size_of::<Entry<E>>();

    /// Events pending.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether none are pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
