//! The receive window seen by transmission group (RFC 3208 §11.5): what a group lacks, and a parity NAK's
//! effect on every missing sequence number of its group at once.

use super::{NakState, ReceiveWindow, Slot, Timer};
use crate::time::Instant;
use rand_core::RngCore;

impl ReceiveWindow {
    /// The latest instant any input brought.
    pub fn latest(&self) -> Instant {
        self.latest
    }

    /// The missing sequence numbers among the `count` from `first` (those the window holds; none before the
    /// delivery point or beyond the lead).
    pub fn missing_in(&self, first: u32, count: u32) -> Vec<u32> {
        let from = self.ext(first);
        (from..from + u64::from(count))
            .filter(|&ext| {
                matches!(
                    self.index(ext).map(|i| &self.slots[i]),
                    Some(Slot::Missing(_))
                )
            })
            .map(|ext| ext as u32)
            .collect()
    }

    /// A parity NAK went out for the group of `count` from `first` (§11.5: one NAK asks for all its losses):
    /// every missing sequence number of the group not already awaiting a repair moves to WAIT_NCF for
    /// NAK_RPT_IVL, as if NAKed itself. Returns how many of the group are missing.
    pub fn nak_sent_for_group(&mut self, now: Instant, first: u32, count: u32) -> usize {
        self.touch(now);
        let at = now + self.config.nak_rpt_ivl;
        let from = self.ext(first);
        let mut missing = 0;
        for ext in from..from + u64::from(count) {
            let Some(idx) = self.index(ext) else { continue };
            let id = self.next_timer_id;
            let Slot::Missing(m) = &mut self.slots[idx] else {
                continue;
            };
            missing += 1;
            if m.state.is_awaiting() {
                continue;
            }
            if m.state == NakState::Due {
                self.due.remove(&ext);
            }
            m.state = NakState::WaitNcf;
            m.timer_id = id;
            self.next_timer_id += 1;
            self.awaited += 1;
            self.waits.push(Timer { at, id, ext });
        }
        self.tidy();
        missing
    }
}

impl ReceiveWindow {
    /// `n` repairs are held that fill no sequence number yet: parity packets of groups that need more before
    /// they decode. [`RxwConfig::max_awaited`](super::RxwConfig::max_awaited) counts them as repairs arrived, as
    /// it counts each selective repair that fills a sequence number: a window of awaited repairs is clocked by the
    /// repairs its path delivers (pgmcc paper §3.8), and a group asking for its losses in one parity NAK would
    /// otherwise hold all of them awaited until the last of its parity came. Namespace lab (pgmcc, 5
    /// receivers, parity 64, the receiver behind the 10 Mbit/s tbf losing about 2,800 packets in the session's
    /// first second): with 128 awaited, two or three groups were asked for at a time, every round lacked a
    /// packet or two, and the receiver asked again only when NAK_RDATA_IVL (2 s) expired: 75 s for 30 MB.
    pub fn set_repairs_held(&mut self, n: usize) {
        self.repairs_held = n;
    }

    /// Every missing sequence number of the group of `count` from `first` waiting to be NAKed (BACK_OFF or due)
    /// waits until `at` instead, all together (§11.5: a group's parity NAK back-off).
    pub fn rearm_group(&mut self, now: Instant, first: u32, count: u32, at: Instant) {
        self.touch(now);
        let from = self.ext(first);
        for ext in from..from + u64::from(count) {
            let Some(idx) = self.index(ext) else { continue };
            let id = self.next_timer_id;
            let Slot::Missing(m) = &mut self.slots[idx] else {
                continue;
            };
            if m.state.is_awaiting() {
                continue;
            }
            if m.state == NakState::Due {
                self.due.remove(&ext);
            }
            m.state = NakState::BackOff;
            m.timer_id = id;
            self.next_timer_id += 1;
            self.backoff.push(Timer { at, id, ext });
        }
        self.tidy();
    }

    /// NAKs [`ReceiveWindow::poll_nak`] returned that were not sent after all — their group was not whole yet
    /// (§11.5: "loss detection occurs at transmission group boundaries") — go back to BACK_OFF with a fresh
    /// random back-off. `all` when none of that poll's NAK was sent.
    pub fn defer_naks(&mut self, now: Instant, rng: &mut impl RngCore, sqns: &[u32], all: bool) {
        self.touch(now);
        for &sqn in sqns {
            let ext = self.ext(sqn);
            let Some(idx) = self.index(ext) else { continue };
            let Slot::Missing(m) = &self.slots[idx] else {
                continue;
            };
            if m.state == NakState::WaitNcf {
                self.awaited -= 1;
                self.stats.nak_sqns_sent = self.stats.nak_sqns_sent.saturating_sub(1);
                self.arm_backoff(now, rng, ext);
            }
        }
        if all {
            self.stats.naks_sent = self.stats.naks_sent.saturating_sub(1);
        }
        self.tidy();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rxw::RxwConfig;
    use rand_chacha::rand_core::SeedableRng;
    use rand_chacha::ChaCha8Rng;
    use std::time::Duration;

    #[test]
    fn rfc3208_11_5_a_parity_nak_puts_the_whole_group_in_wait_ncf() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut w = ReceiveWindow::new(RxwConfig::default(), 0);
        let t0 = Instant::from_millis(0);
        for sqn in [0u32, 1, 3, 6, 8] {
            w.on_data(t0, &mut rng, sqn, 0, None, b"x").unwrap();
        }
        assert_eq!(w.missing_in(0, 8), vec![2, 4, 5, 7]);
        assert_eq!(
            w.missing_in(8, 8),
            Vec::<u32>::new(),
            "beyond the lead: unknown"
        );
        assert_eq!(w.nak_sent_for_group(t0, 0, 8), 4);
        assert_eq!(w.awaited_count(), 4);
        // Nothing of the group is due any more: the back-offs were superseded.
        assert_eq!(w.poll_nak(t0 + Duration::from_secs(1)), None);
        // Again: already awaiting, nothing changes.
        assert_eq!(w.nak_sent_for_group(t0, 0, 8), 4);
        assert_eq!(w.awaited_count(), 4);
    }
}
