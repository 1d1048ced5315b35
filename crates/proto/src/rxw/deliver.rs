//! In-order delivery (RFC 3208 §6.1, "Contiguous data") and APDU reassembly (RFC 3208 §9.2.3).

#[cfg(test)]
use super::NakState;
use super::{ReceiveWindow, Slot};
use crate::payload::Payload;

/// A decided delivery waiting for [`ReceiveWindow::poll_delivery`]; lost runs are kept in extended indices so
/// that consecutive runs merge.
#[derive(Clone, Debug)]
pub(super) enum Ready {
    Apdu {
        first_sqn: u32,
        last_sqn: u32,
        data: Payload,
    },
    Lost {
        first: u64,
        last: u64,
    },
}

/// How far the APDU at the front of the window has been received.
enum Scan {
    /// The first `n` slots make the whole APDU.
    Complete(usize),
    /// The first `n` slots are its fragments, then a missing slot or the end of the window.
    Incomplete(usize),
    /// The first `n` slots are its fragments, then a lost slot: it can never complete.
    Broken(usize),
}

impl ReceiveWindow {
    fn pop_front(&mut self) -> Option<Slot> {
        let slot = self.slots.pop_front()?;
        self.commit_ext += 1;
        self.scan = (0, 0);
        Some(slot)
    }

    /// Queues a lost run, merged with the previous one when they touch.
    pub(super) fn push_lost(&mut self, first: u64, last: u64) {
        if let Some(Ready::Lost { first: f, last: l }) = self.ready.back_mut() {
            if *l + 1 == first && last - *f < 1 << 31 {
                *l = last;
                return;
            }
        }
        self.ready.push_back(Ready::Lost { first, last });
    }

    /// Pops the front slot and forgets its payload, if any.
    fn discard_front(&mut self) {
        if let Some(Slot::Received { data, .. }) = self.pop_front() {
            self.held.discarded(data.len());
        }
    }

    /// Drops the first `n` slots into a lost run.
    fn drop_front(&mut self, n: usize) {
        self.push_lost(self.commit_ext, self.commit_ext + n as u64 - 1);
        for _ in 0..n {
            self.discard_front();
        }
        self.prev_piece = None;
    }

    /// Moves everything decidable at the front into the ready queue (RFC 3208 §6.1, contiguous data in order;
    /// §9.2.3, reassembly). The front APDU is dropped rather than waited for while the delivery point is before
    /// `force`.
    pub(super) fn deliver(&mut self, force: u64) {
        while let Some(front) = self.slots.front() {
            let piece = match front {
                Slot::Missing(_) => break,
                Slot::Lost => {
                    self.drop_front(1);
                    continue;
                }
                Slot::Received { piece, .. } => *piece,
            };
            if !piece.fragmented {
                self.deliver_front(1);
                continue;
            }
            if piece.is_continuation() {
                // Its APDU began before the delivery point: before the start (a late join, skipped silently),
                // or at a sequence number already lost or dropped.
                let first_ext = self.ext(piece.first_sqn);
                if first_ext < self.start_ext {
                    if self.discarding != Some(first_ext) {
                        self.stats.partial_apdus_skipped += 1;
                    }
                    self.discarding = Some(first_ext);
                    self.discard_front();
                    self.prev_piece = Some(piece);
                } else {
                    if self.discarding != Some(first_ext) {
                        self.stats.apdus_dropped += 1;
                    }
                    self.discarding = Some(first_ext);
                    self.drop_front(1);
                }
                continue;
            }
            match self.scan_front() {
                Scan::Complete(n) => self.deliver_front(n),
                Scan::Broken(n) => self.drop_front_apdu(n),
                Scan::Incomplete(n) if self.commit_ext < force => self.drop_front_apdu(n),
                Scan::Incomplete(_) => break,
            }
        }
    }

    fn drop_front_apdu(&mut self, n: usize) {
        self.stats.apdus_dropped += 1;
        self.discarding = Some(self.commit_ext);
        self.drop_front(n);
    }

    /// Walks the fragments of the APDU starting at the front, resuming where the last walk stopped.
    fn scan_front(&mut self) -> Scan {
        let Some(Slot::Received { piece: head, .. }) = self.slots.front() else {
            return Scan::Incomplete(0);
        };
        let head = *head;
        let (mut n, mut covered) = self.scan;
        loop {
            match self.slots.get(n) {
                None | Some(Slot::Missing(_)) => {
                    self.scan = (n, covered);
                    return Scan::Incomplete(n);
                }
                Some(Slot::Lost) => return Scan::Broken(n),
                Some(Slot::Received { piece, .. }) => {
                    let fits = piece.fragmented
                        && piece.first_sqn == head.first_sqn
                        && piece.apdu_len == head.apdu_len
                        && piece.offset == covered;
                    if !fits {
                        return Scan::Broken(n);
                    }
                    covered = piece.end;
                    n += 1;
                    if covered == head.apdu_len {
                        return Scan::Complete(n);
                    }
                }
            }
        }
    }

    /// Delivers the first `n` slots (all received) as one APDU: a lone packet's payload as it is, fragments
    /// reassembled into one vector.
    fn deliver_front(&mut self, n: usize) {
        let first_sqn = self.commit_ext as u32;
        let mut whole: Option<Payload> = None;
        let mut joined: Vec<u8> = Vec::new();
        for i in 0..n {
            if let Some(Slot::Received { piece, data: part }) = self.pop_front() {
                if n == 1 {
                    whole = Some(part);
                } else if i == 0 {
                    joined = part.into_vec();
                    joined.reserve_exact((piece.apdu_len - piece.end) as usize);
                } else {
                    joined.extend_from_slice(&part);
                }
                self.prev_piece = Some(piece);
            }
        }
        let data = whole.unwrap_or_else(|| Payload::from(joined));
        self.discarding = None;
        self.held.delivered(data.len());
        self.ready.push_back(Ready::Apdu {
            first_sqn,
            last_sqn: first_sqn.wrapping_add(n as u32 - 1),
            data,
        });
    }

    /// Panics if internal bookkeeping disagrees with the slots (tests only).
    #[cfg(test)]
    pub(crate) fn check_invariants(&self) {
        assert!(
            self.slots.len() as u64 <= self.span,
            "window spans {} > {}",
            self.slots.len(),
            self.span
        );
        let (mut missing, mut awaited) = (0, 0);
        for (i, slot) in self.slots.iter().enumerate() {
            let ext = self.commit_ext + i as u64;
            if let Slot::Missing(m) = slot {
                missing += 1;
                awaited += usize::from(m.state.is_awaiting());
                assert!(
                    ext >= self.trail_ext && ext >= self.swept_ext,
                    "missing {ext} before trail"
                );
                assert_eq!(
                    m.state == NakState::Due,
                    self.due.contains(&ext),
                    "due set disagrees at {ext}"
                );
                assert_eq!(
                    m.state == NakState::Due,
                    m.timer_id == 0,
                    "timer of {ext} in {:?}",
                    m.state
                );
            }
        }
        assert_eq!(missing, self.missing);
        let in_slots: usize = self
            .slots
            .iter()
            .map(|s| match s {
                Slot::Received { data, .. } => data.len(),
                _ => 0,
            })
            .sum();
        let in_ready: usize = self
            .ready
            .iter()
            .map(|r| match r {
                Ready::Apdu { data, .. } => data.len(),
                Ready::Lost { .. } => 0,
            })
            .sum();
        assert_eq!(
            self.held.parts(),
            (in_slots as u64, in_ready as u64),
            "held bytes"
        );
        assert_eq!(awaited, self.awaited, "awaited count");
        assert!(self.due.iter().all(|&e| self.index(e).is_some()));
        assert!(
            !matches!(self.slots.front(), Some(Slot::Lost)),
            "lost slot left at the front"
        );
        for t in self.backoff.peek().into_iter().chain(self.waits.peek()) {
            let slot = self.index(t.ext).map(|i| &self.slots[i]);
            assert!(
                matches!(slot, Some(Slot::Missing(m)) if m.timer_id == t.id),
                "stale timer on top"
            );
        }
    }
}
