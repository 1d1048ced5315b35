//! The receive window's memory bound: how many payload bytes one receiver holds, and which packets it refuses.
//!
//! A receiver holds two kinds of payload: packets received but not yet deliverable (they wait behind a missing
//! sequence number at the delivery point), and APDUs delivered but not yet taken by the application
//! ([`super::ReceiveWindow::poll_delivery`]). Both grow without limit when a receiver falls behind: a repair
//! that takes seconds while the source runs at gigabits, or an application slower than the network. RFC 3208
//! bounds the window in sequence numbers only (§3.3), and sliding it (the only remedy it offers) declares the
//! oldest data lost, which a file transfer cannot afford.
//!
//! Convoy bounds the bytes instead ([`super::RxwConfig::max_buffered_bytes`]) and tells congestion control
//! before the bound is reached, as a router's active queue management marks packets before its queue overflows
//! (ECN, RFC 3168 §5: a congestion mark is answered as a loss, §6.1.2):
//!
//! - **[`Room::Plenty`]**, below half the bound: the packet is stored and counts as received.
//! - **[`Room::Tight`]**, past half the bound: the packet is stored, but the receiver tells its congestion
//!   controller it was lost (pgmcc's ACK bitmap and loss rate, paper §3.2 and §3.4). No repair is needed: the data
//!   is here. To congestion control a receiver short of memory looks like a receiver behind a congested link: it
//!   becomes the acker and the session slows to what it can absorb, the role pgmcc gives the slowest receiver
//!   (paper §3.5). Half the bound leaves the other half for what arrives in the RTT before the source reacts.
//! - **[`Room::Full`]**, at the bound: the packet is refused as if the path had dropped it. It changes nothing in
//!   the window, counts as lost for congestion control too, and is NAKed when its gap shows.
//!
//! A receiver also reports [`Room::Tight`] when it is **behind**: its delivery point waits in the older half of the
//! source's transmit window, which has moved past where the receiver started. The source is about to drop what
//! the receiver still needs (RFC 3208 §6.3, cancellation), and a stream cannot be repaired from anywhere else;
//! the marks slow the session before that happens.
//!
//! Two kinds of packet are always admitted, because refusing them could never free memory: duplicates and
//! packets before the delivery point (they are discarded anyway), and the fragments of the APDU at the
//! delivery point (without them nothing can ever be delivered). The bound therefore holds to within one APDU:
//! held bytes ≤ `max_buffered_bytes` + `max_apdu_len`.

/// How much room a window has for one more packet (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Room {
    /// Below half the bound (or no bound): store, count as received.
    Plenty,
    /// Past half the bound: store, but count as lost for congestion control (a congestion mark).
    Tight,
    /// At the bound: refuse, as if lost on the path.
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

    /// The room for `len` more bytes.
    pub fn room(&self, len: usize) -> Room {
        let after = self.total().saturating_add(len as u64);
        if self.max == 0 || after <= self.max / 2 {
            Room::Plenty
        } else if after <= self.max {
            Room::Tight
        } else {
            Room::Full
        }
    }

    /// A packet of `len` bytes was stored in a slot.
    pub fn stored(&mut self, len: usize) {
        self.in_slots += len as u64;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_move_from_slots_to_ready_to_nothing() {
        let mut h = HeldBytes::new(10);
        h.stored(4);
        h.stored(4);
        assert_eq!((h.room(2), h.room(3)), (Room::Tight, Room::Full));
        h.delivered(8);
        assert_eq!(h.total(), 8, "delivered but not taken still counts");
        h.taken(8);
        assert_eq!(h.total(), 0);
        h.stored(3);
        h.discarded(3);
        assert_eq!(h.total(), 0);
    }

    #[test]
    fn zero_means_unbounded() {
        let mut h = HeldBytes::new(0);
        h.stored(usize::MAX / 2);
        assert_eq!(h.room(usize::MAX / 2), Room::Plenty);
    }

    #[test]
    fn marks_start_past_half_the_bound() {
        let mut h = HeldBytes::new(100);
        assert_eq!(h.room(50), Room::Plenty);
        h.stored(50);
        assert_eq!(h.room(0), Room::Plenty);
        assert_eq!(h.room(1), Room::Tight);
        assert_eq!(h.room(50), Room::Tight);
        assert_eq!(h.room(51), Room::Full);
    }
}
