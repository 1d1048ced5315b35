//! [`ReplayWindow`]: RFC 4303 §3.4.3's anti-replay window, one per sending endpoint of a keyed session.

/// Width of the replay window in packets.
pub const REPLAY_WINDOW: u64 = 1024;

/// RFC 4303 §3.4.3's anti-replay window for one sending endpoint: the highest counter accepted and which of the
/// [`REPLAY_WINDOW`] counters below it were.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReplayWindow {
    highest: u64,
    seen: [u64; (REPLAY_WINDOW / 64) as usize],
}

impl ReplayWindow {
    fn bit(counter: u64) -> (usize, u64) {
        let i = counter % REPLAY_WINDOW;
        ((i / 64) as usize, 1 << (i % 64))
    }

    /// Whether `counter` may be accepted (not seen, not too old); counters start at 1.
    pub fn check(&self, counter: u64) -> bool {
        if counter == 0 {
            return false;
        }
        if counter > self.highest {
            return true;
        }
        if self.highest - counter >= REPLAY_WINDOW {
            return false;
        }
        let (w, b) = Self::bit(counter);
        self.seen[w] & b == 0
    }

    /// Record `counter` (after [`ReplayWindow::check`] and the tag passed).
    pub fn accept(&mut self, counter: u64) {
        if counter > self.highest {
            let advance = counter - self.highest;
            if advance >= REPLAY_WINDOW {
                self.seen = Default::default();
            } else {
                for c in self.highest + 1..counter {
                    let (w, b) = Self::bit(c);
                    self.seen[w] &= !b;
                }
            }
            self.highest = counter;
        }
        let (w, b) = Self::bit(counter);
        self.seen[w] |= b;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_forgets_what_slid_out_of_it() {
        let mut w = ReplayWindow::default();
        for c in [1, 3, 2, 1000, 1024] {
            assert!(w.check(c), "{c}");
            w.accept(c);
            assert!(!w.check(c), "{c} again");
        }
        assert!(!w.check(0));
        assert!(w.check(500));
        w.accept(5000);
        assert!(!w.check(1024) && !w.check(3976) && w.check(3977) && w.check(4999));
    }
}
