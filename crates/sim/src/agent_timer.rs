//! An agent's timer in the event queue, re-armed lazily.
//!
//! Agents re-arm their timers far more often than the timers fire: a TCP sender moves its retransmission
//! deadline later with every ACK, a PGM source its next SPM or token. Pushing an event per re-arming and
//! ignoring the stale ones when they come up (cancellation by generation) fills the heap with events that do
//! nothing: hundreds per TCP flow, each paid for twice, at push and at pop.
//!
//! Here an agent has at most one live event. When its deadline moves *later* while the live event is still
//! pending, nothing is pushed: the deadline's place in the order is reserved instead
//! ([`EventQueue::reserve`]), and when the earlier event comes up it re-queues itself at the new deadline under
//! the reserved order ([`EventQueue::push_reserved`]). When the deadline moves *earlier*, a new event is pushed
//! and the old one goes stale (its generation no longer matches). Either way the agent's timer fires at
//! exactly the instant, and in exactly the order among equal instants, of a queue that pushed one event per
//! re-arming: results are unchanged, only the count of events popped falls.

use crate::event::EventQueue;
use convoy_proto::Instant;

/// `u64::MAX` nanoseconds (585 years) stands for "none".
const NONE: u64 = u64::MAX;

/// One agent's timer: its deadline, and the event that stands for it in the queue (32 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct AgentTimer {
    /// The deadline the agent asked for, as it asked ([`NONE`]: no timer).
    deadline_ns: u64,
    /// The instant of the live event ([`NONE`]: none pending).
    queued_ns: u64,
    /// The order reserved for the deadline while the live event is earlier than it.
    reserved: u64,
    /// The live event's generation; events of other generations are stale.
    generation: u32,
}

fn ns(t: Option<Instant>) -> u64 {
    t.map_or(NONE, Instant::as_nanos)
}

impl AgentTimer {
    /// No timer, no event.
    pub const IDLE: AgentTimer = AgentTimer {
        deadline_ns: NONE,
        queued_ns: NONE,
        reserved: 0,
        generation: 0,
    };

    /// The deadline the agent asked for.
    #[cfg(test)]
    pub fn deadline(&self) -> Option<Instant> {
        (self.deadline_ns != NONE).then(|| Instant::from_nanos(self.deadline_ns))
    }

    /// The agent wants its timer at `next` (`None`: no timer); a deadline in the past fires at `now`.
    /// `event` makes the queue's event for a generation (the simulator's `Action::Timer` of this agent).
    // Inlined where agents are handled: most calls leave the deadline as it was.
    #[inline(always)]
    pub fn arm<E>(
        &mut self,
        next: Option<Instant>,
        now: Instant,
        queue: &mut EventQueue<E>,
        event: impl FnOnce(u32) -> E,
    ) {
        if ns(next) != self.deadline_ns {
            self.move_deadline(next, now, queue, event);
        }
    }

    /// [`AgentTimer::arm`] with a deadline that changed.
    #[inline(never)]
    fn move_deadline<E>(
        &mut self,
        next: Option<Instant>,
        now: Instant,
        queue: &mut EventQueue<E>,
        event: impl FnOnce(u32) -> E,
    ) {
        self.deadline_ns = ns(next);
        let Some(at) = next.map(|t| t.max(now)) else {
            // The live event, if any, finds no deadline when it comes up.
            return;
        };
        // Strictly earlier: a live event at the deadline itself holds an older order than a new deadline's.
        if self.queued_ns < at.as_nanos() {
            self.reserved = queue.reserve();
        } else {
            self.generation = self.generation.wrapping_add(1);
            self.queued_ns = at.as_nanos();
            queue.push(at, event(self.generation));
        }
    }

    /// The event of generation `generation` came up at `now`. Returns whether the agent's timer fires (its
    /// deadline is then cleared: the agent re-arms it afterwards); a deadline that moved later is re-queued
    /// under its reserved order instead, as `event` makes it.
    pub fn on_event<E>(
        &mut self,
        generation: u32,
        now: Instant,
        queue: &mut EventQueue<E>,
        event: impl FnOnce(u32) -> E,
    ) -> bool {
        if generation != self.generation || self.queued_ns != now.as_nanos() {
            return false;
        }
        self.queued_ns = NONE;
        if self.deadline_ns == NONE {
            return false;
        }
        if self.deadline_ns > now.as_nanos() {
            self.queued_ns = self.deadline_ns;
            queue.push_reserved(
                Instant::from_nanos(self.deadline_ns),
                self.reserved,
                event(self.generation),
            );
            return false;
        }
        self.deadline_ns = NONE;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// The queue's events in these tests: a timer's generation, or another event.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    enum Ev {
        Timer(u32),
        Other(u8),
    }

    fn ms(v: u64) -> Instant {
        Instant::from_millis(v)
    }

    /// Pops every event up to `until`, returning the instants at which the timer fired.
    fn run(t: &mut AgentTimer, q: &mut EventQueue<Ev>, until: Instant) -> Vec<(Instant, Ev)> {
        let mut fired = Vec::new();
        while q.peek_time().is_some_and(|at| at <= until) {
            let (at, e) = q.pop().unwrap();
            match e {
                Ev::Timer(g) => {
                    if t.on_event(g, at, q, Ev::Timer) {
                        fired.push((at, e));
                    }
                }
                other => fired.push((at, other)),
            }
        }
        fired
    }

    #[test]
    fn a_deadline_moved_later_fires_once_at_the_new_instant_with_one_event_pending() {
        let (mut t, mut q) = (AgentTimer::IDLE, EventQueue::new());
        t.arm(Some(ms(10)), ms(0), &mut q, Ev::Timer);
        for k in 1..100 {
            t.arm(Some(ms(10 + k)), ms(0), &mut q, Ev::Timer);
        }
        assert_eq!(q.len(), 1);
        let fired = run(&mut t, &mut q, ms(1000));
        assert_eq!(fired, vec![(ms(109), Ev::Timer(1))]);
        assert_eq!(t.deadline(), None);
    }

    #[test]
    fn a_deadline_moved_earlier_fires_early_and_the_old_event_is_stale() {
        let (mut t, mut q) = (AgentTimer::IDLE, EventQueue::new());
        t.arm(Some(ms(50)), ms(0), &mut q, Ev::Timer);
        t.arm(Some(ms(20)), ms(0), &mut q, Ev::Timer);
        let fired = run(&mut t, &mut q, ms(1000));
        assert_eq!(fired.len(), 1);
        assert_eq!(fired[0].0, ms(20));
    }

    #[test]
    fn a_cleared_timer_never_fires_and_a_past_deadline_fires_now() {
        let (mut t, mut q) = (AgentTimer::IDLE, EventQueue::new());
        t.arm(Some(ms(5)), ms(0), &mut q, Ev::Timer);
        t.arm(None, ms(1), &mut q, Ev::Timer);
        assert!(run(&mut t, &mut q, ms(100)).is_empty());
        t.arm(Some(ms(3)), ms(100), &mut q, Ev::Timer);
        assert_eq!(run(&mut t, &mut q, ms(100)).len(), 1);
    }

    /// A deadline moved back onto the instant of the pending event sorts after events pushed in between, as a
    /// new event would.
    #[test]
    fn a_deadline_moved_onto_the_pending_instant_takes_a_new_place() {
        let (mut t, mut q) = (AgentTimer::IDLE, EventQueue::new());
        t.arm(Some(ms(10)), ms(0), &mut q, Ev::Timer);
        q.push(ms(10), Ev::Other(1));
        t.arm(Some(ms(20)), ms(0), &mut q, Ev::Timer);
        t.arm(Some(ms(10)), ms(0), &mut q, Ev::Timer);
        let kinds: Vec<_> = run(&mut t, &mut q, ms(100))
            .into_iter()
            .map(|(_, a)| a)
            .collect();
        assert_eq!(kinds, vec![Ev::Other(1), Ev::Timer(2)]);
    }

    /// Ties: a timer re-armed later keeps the place among equal instants that its re-arming gave it, before
    /// an event pushed after the re-arming for the same instant and after one pushed before it.
    #[test]
    fn equal_instants_keep_the_order_of_the_re_arming() {
        let (mut t, mut q) = (AgentTimer::IDLE, EventQueue::new());
        t.arm(Some(ms(10)), ms(0), &mut q, Ev::Timer);
        q.push(ms(30), Ev::Other(1));
        t.arm(Some(ms(30)), ms(0), &mut q, Ev::Timer);
        q.push(ms(30), Ev::Other(2));
        let fired = run(&mut t, &mut q, ms(30) + Duration::from_nanos(1));
        let kinds: Vec<_> = fired.iter().map(|(_, a)| *a).collect();
        assert_eq!(kinds, vec![Ev::Other(1), Ev::Timer(1), Ev::Other(2)]);
    }
}
