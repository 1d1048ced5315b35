//! A sender controller's notifications waiting for the session ([`crate::cc::SenderController::poll_event`]):
//! oldest first, and the oldest dropped beyond a bound, so that a session nobody polls cannot grow without limit.

use super::CcEvent;
use std::collections::VecDeque;

/// The notifications a controller keeps at most.
const MAX_EVENTS: usize = 4096;

/// Pending [`CcEvent`]s, at most 4096.
#[derive(Clone, Debug, Default)]
pub struct EventQueue(VecDeque<CcEvent>);

impl EventQueue {
    /// Queue `e`, dropping the oldest when full.
    pub fn push(&mut self, e: CcEvent) {
        if self.0.len() >= MAX_EVENTS {
            self.0.pop_front();
        }
        self.0.push_back(e);
    }

    /// The oldest pending notification.
    pub fn pop(&mut self) -> Option<CcEvent> {
        self.0.pop_front()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oldest_goes_first_and_is_dropped_beyond_the_bound() {
        let mut q = EventQueue::default();
        for n in 0..(MAX_EVENTS as u32 + 2) {
            q.push(CcEvent::Timeout { consecutive: n });
        }
        assert_eq!(q.pop(), Some(CcEvent::Timeout { consecutive: 2 }));
        assert_eq!(q.pop(), Some(CcEvent::Timeout { consecutive: 3 }));
    }
}
