//! The receive window's memory bound: how many payload bytes one receiver holds, and which packets it refuses.
//!
//! A receiver holds two kinds of payload: packets received but not yet deliverable (they wait behind a missing
//! sequence number at the delivery point), and APDUs delivered but not yet taken by the application
//! ([`super::ReceiveWindow::poll_delivery`]). Both grow without limit when a receiver falls behind: a repair
//! that takes seconds while the source runs at gigabits, or an application slower than the network. RFC 3208
//! bounds the window in sequence numbers only (§3.3), and sliding it (the only remedy it offers) declares the
//! oldest data lost, which a file transfer cannot afford.
//!
//! Convoy bounds the bytes instead ([`super::RxwConfig::max_buffered_bytes`]), as TCP's receive window does: the
//! window reaches at most as many packets past the delivery point as the bound holds at the largest packet seen,
//! after the delivered APDUs the application has not taken yet. Everything the receiver stores, asks for or
//! learns of from SPMs lies inside that reach, so the bytes held never exceed the bound, and a repair it asked for
//! always has room when it comes. Congestion control hears of a shortage before it bites, as a router's active
//! queue management marks packets before its queue overflows (ECN, RFC 3168 §5; a mark is answered as a loss,
//! §6.1.2):
//!
//! - **[`Room::Plenty`]**, in the nearer half of the reach: the packet is stored and counts as received.
//! - **[`Room::Tight`]**, in the farther half, for one packet in four: the packet is stored, but the receiver
//!   tells its congestion controller it was lost (pgmcc's ACK bitmap and loss rate, paper §3.2 and §3.4). No
//!   repair is needed: the data is here. To congestion control a receiver short of memory looks like a receiver
//!   behind a congested link: it becomes the acker and the session slows to what it can absorb, the role pgmcc
//!   gives the slowest receiver (paper §3.5). The nearer half is left for what arrives in the RTT before the
//!   source reacts.
//! - **[`Room::Full`]**, beyond the reach: the packet is refused as if the path had dropped it. It changes nothing,
//!   counts as lost for congestion control too, and is NAKed once the window reaches it.
//!
//! A receiver also reports [`Room::Tight`] when it is **behind**: its delivery point waits in the older half of the
//! source's transmit window, which has moved past where the receiver started. The source is about to drop what
//! the receiver still needs (RFC 3208 §6.3, cancellation), and a stream cannot be repaired from anywhere else;
//! the marks slow the session before that happens.
//!
//! The fragments of the APDU at the delivery point are always admitted (without them nothing can ever be
//! delivered), so the bound holds to within one APDU: held bytes ≤ `max_buffered_bytes` + `max_apdu_len`.

use super::{Piece, ReceiveWindow, Slot};
use crate::rxw::Fragment;

/// In the farther half of the reach, one packet in this many (by sequence number) is marked. Marking every one
/// would acknowledge nothing: pgmcc detects a loss only when later packets are acknowledged (three duplicate
/// ACKs, paper §3.4), and a sender with no ACKed packet stalls into timeouts instead of halving. One in four
/// reports a loss rate of a quarter, higher than a competing path's in practice, so the marking receiver becomes
/// the acker (paper §3.5), and its ACKs halve the window once per RTT while it stays short of room.
const MARK_ONE_IN: u32 = 4;

/// How much room a window has for one more packet (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Room {
    /// In the nearer half of the reach (or no bound): store, count as received.
    Plenty,
    /// In the farther half (one packet in four), or behind the source's window: store, but count as lost for
    /// congestion control (a congestion mark).
    Tight,
    /// Beyond the reach: refuse, as if lost on the path.
    Full,
}

/// Payload bytes held by one window, and its bound.
#[derive(Clone, Debug, Default)]
pub(super) struct HeldBytes {
    /// The bound; 0 means none.
    max: u64,
    /// Bytes in received slots of the window.
    in_slots: u64,
    /// Bytes in delivered APDUs not yet taken.
    in_ready: u64,
    /// The largest packet payload stored so far.
    largest: u64,
}

impl HeldBytes {
    /// A counter with bound `max` (0: unbounded).
    pub fn new(max: u64) -> Self {
        HeldBytes {
            max,
            ..HeldBytes::default()
        }
    }

    /// Bytes held now.
    pub fn total(&self) -> u64 {
        self.in_slots + self.in_ready
    }

    /// How many packets past the delivery point the window may reach: what the bound holds, after the delivered
    /// APDUs not yet taken, at the largest packet seen; at least 1 (the delivery point itself). Unbounded without
    /// a bound.
    pub fn span(&self) -> u64 {
        if self.max == 0 {
            return u64::MAX / 2;
        }
        (self.max.saturating_sub(self.in_ready) / self.largest.max(1)).max(1)
    }

    /// A packet of `len` bytes was stored in a slot.
    pub fn stored(&mut self, len: usize) {
        self.in_slots += len as u64;
        self.largest = self.largest.max(len as u64);
    }

    /// A stored packet of `len` bytes was discarded (its APDU lost or skipped).
    pub fn discarded(&mut self, len: usize) {
        self.in_slots -= len as u64;
    }

    /// Stored packets totalling `len` bytes became one delivered APDU.
    pub fn delivered(&mut self, len: usize) {
        self.in_slots -= len as u64;
        self.in_ready += len as u64;
    }

    /// Bytes in slots and in delivered APDUs (for invariant checks).
    #[cfg(test)]
    pub fn parts(&self) -> (u64, u64) {
        (self.in_slots, self.in_ready)
    }

    /// The application took a delivered APDU of `len` bytes.
    pub fn taken(&mut self, len: usize) {
        self.in_ready -= len as u64;
    }
}

impl ReceiveWindow {
    /// How many packets past the delivery point this window may reach under
    /// [`super::RxwConfig::max_buffered_bytes`] (module documentation).
    pub(super) fn reach_packets(&self) -> u64 {
        self.held.span()
    }

    /// The room [`ReceiveWindow::on_data`] has for data packet `sqn` with OPT_FRAGMENT `fragment` under
    /// [`super::RxwConfig::max_buffered_bytes`] (module documentation). A receiver asks before telling its
    /// congestion controller that the packet arrived, and reports it lost unless the room is [`Room::Plenty`].
    /// Duplicates, packets before the delivery point and the fragments of the APDU at the delivery point have
    /// plenty: they are always admitted.
    pub fn room_for(&self, sqn: u32, fragment: Option<Fragment>) -> Room {
        let ext = self.ext(sqn);
        let first_sqn = fragment.map_or(sqn, |f| f.first_sqn);
        let always = ext < self.commit_ext
            || self.ext(first_sqn) == self.commit_ext
            || matches!(
                self.index(ext).map(|i| &self.slots[i]),
                Some(Slot::Received { .. })
            );
        let offset = ext - self.commit_ext.min(ext);
        let span = self.reach_packets();
        if always {
            Room::Plenty
        } else if offset >= span {
            Room::Full
        } else if (offset >= span.div_ceil(2) || self.is_behind())
            && sqn.is_multiple_of(MARK_ONE_IN)
        {
            Room::Tight
        } else {
            Room::Plenty
        }
    }

    /// Whether the delivery point waits in the older half of the source's transmit window (RXW_TRAIL to the
    /// lead) while that window has moved past where this receiver started: the source will soon drop the data
    /// this receiver still waits for (RFC 3208 §6.3, cancellation). A source that repairs from a floor (a file)
    /// advertises that floor as its trail, which never moves past the start: its receivers are never behind.
    fn is_behind(&self) -> bool {
        let span = (self.lead_ext() + 1).saturating_sub(self.trail_ext);
        self.trail_ext > self.start_ext && self.commit_ext < self.trail_ext + span / 2
    }

    /// Whether a new or repairing packet at `ext` whose fragment information was validated may be stored.
    pub(super) fn admits(&self, ext: u64, piece: &Piece) -> bool {
        ext < self.commit_ext + self.reach_packets() || self.ext(piece.first_sqn) == self.commit_ext
    }

    /// Payload bytes held now: received packets waiting in the window plus delivered APDUs not yet taken
    /// (bounded by [`super::RxwConfig::max_buffered_bytes`] to within one APDU).
    pub fn held_bytes(&self) -> u64 {
        self.held.total()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_move_from_slots_to_ready_to_nothing() {
        let mut h = HeldBytes::new(10);
        h.stored(4);
        h.stored(4);
        h.delivered(8);
        assert_eq!(h.total(), 8, "delivered but not taken still counts");
        h.taken(8);
        assert_eq!(h.total(), 0);
        h.stored(3);
        h.discarded(3);
        assert_eq!(h.total(), 0);
    }

    #[test]
    fn the_span_is_what_the_bound_holds_after_untaken_deliveries() {
        let mut h = HeldBytes::new(10_000);
        assert!(
            h.span() >= 10_000,
            "nothing seen yet: no packet limit below the bound"
        );
        h.stored(1_000);
        assert_eq!(h.span(), 10);
        h.delivered(1_000);
        assert_eq!(
            h.span(),
            9,
            "an APDU the application has not taken holds its bytes"
        );
        h.stored(3_000);
        assert_eq!(h.span(), 3, "at the largest packet seen");
        h.taken(1_000);
        h.discarded(3_000);
        assert_eq!(h.span(), 3);
        let full = HeldBytes {
            in_ready: 20_000,
            ..HeldBytes::new(10_000)
        };
        assert_eq!(full.span(), 1, "the delivery point always fits");
        assert!(HeldBytes::new(0).span() > 1 << 40, "zero means unbounded");
    }
}
