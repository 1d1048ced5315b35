//! RFC 3208 §6.1's common case: the packet the delivery point waits for arrives whole, with nothing else in
//! the window. Storing it and sliding the window past it is all the general steps of `accept` would do, and
//! [`ReceiveWindow::take_in_order`] goes further: it hands the packet straight to the caller, as the next
//! [`ReceiveWindow::poll_delivery`] would have (header prediction, as Jacobson's for TCP).

use super::deliver::Ready;
use super::fragment::{self, Piece};
use super::ReceiveWindow;
use crate::payload::Payload;
use crate::time::Instant;

impl ReceiveWindow {
    /// Whether the packet at `ext` is the one the delivery point waits for, whole, with nothing else in the
    /// window and RXW_TRAIL not beyond it: RFC 3208 §6.1's common case, in which storing it and sliding the
    /// window ([`ReceiveWindow::deliver_waited_for`]) give what the general steps of `accept` would (`span` is
    /// at least 1, so the packet always fits).
    pub(super) fn waited_for_alone(&self, ext: u64, piece: &Piece) -> bool {
        #[cfg(test)]
        if super::GENERAL_STEPS_ONLY.get() {
            return false;
        }
        self.slots.is_empty()
            && ext == self.commit_ext
            && !piece.fragmented
            && self.trail_ext <= ext + 1
    }

    /// Delivers the packet [`ReceiveWindow::waited_for_alone`] admitted, with the same effects as storing it
    /// and running `accept`'s general steps: room and lead need nothing (the window is empty and the packet at
    /// its delivery point), the trail sweep finds nothing missing and only records how far it swept, and
    /// delivery moves the one packet to the ready queue. Tidying is needed only if a timer is left: with no
    /// slot missing none is live, and the last input's `tidy` removed them all.
    pub(super) fn deliver_waited_for(&mut self, piece: Piece, data: Payload) {
        let first_sqn = self.slide_past(piece);
        self.held.delivered(data.len());
        self.ready.push_back(Ready::Apdu {
            first_sqn,
            last_sqn: first_sqn,
            data,
        });
        if !(self.backoff.is_empty() && self.waits.is_empty()) {
            self.tidy();
        }
    }

    /// Moves the delivery point past the waited-for packet `piece`; returns its sequence number.
    fn slide_past(&mut self, piece: Piece) -> u32 {
        self.swept_ext = self.swept_ext.max(self.trail_ext);
        let first_sqn = self.commit_ext as u32;
        self.commit_ext += 1;
        self.scan = (0, 0);
        self.prev_piece = Some(piece);
        self.discarding = None;
        first_sqn
    }

    /// ODATA or RDATA `sqn` without OPT_FRAGMENT, with TXW_TRAIL `trail` and a payload of `len` bytes, taken
    /// and delivered in one step when it is the common case: the packet the delivery point waits for, whole
    /// and valid, with the window empty, RXW_TRAIL (with `trail`) not beyond it, no timer left, no NAK due and
    /// no delivery waiting. Then the window ends exactly as after [`ReceiveWindow::on_data`] followed by a
    /// [`ReceiveWindow::poll_delivery`] that returns this packet as [`super::Delivery::Apdu`] (same counters,
    /// same bytes held), and the caller keeps the payload: it is the delivery. The window is then left with
    /// nothing to poll: no delivery, no NAK ([`ReceiveWindow::poll_nak`] returns `None`), no deadline
    /// ([`ReceiveWindow::poll_timeout`] returns `None`, as it did before). Otherwise nothing changes and
    /// `false` says to use [`ReceiveWindow::on_data`].
    ///
    /// For a driver that hands each packet to many receivers, this skips storing the payload and queueing the
    /// delivery, which are most of a receiver's work when nothing is lost.
    pub fn take_in_order(&mut self, now: Instant, sqn: u32, trail: u32, len: usize) -> bool {
        let ext = self.ext(sqn);
        let max_packets = self.span as u32;
        let Ok(piece) = fragment::validate(sqn, None, len, self.max_apdu_len, max_packets) else {
            return false;
        };
        // `check_consistency` for a whole packet at the delivery point of an empty window: its one received
        // neighbour is the packet before it, which must end its APDU (RFC 3208 §9.2.3).
        let predicted = self.ready.is_empty()
            && self.backoff.is_empty()
            && self.waits.is_empty()
            && self.due.is_empty()
            && self.waited_for_alone(ext, &piece)
            && self.ext(trail) <= ext + 1
            && self.prev_piece.is_none_or(|prev| prev.ends_apdu());
        if !predicted {
            return false;
        }
        // `accept`: arrival of a new packet in the window.
        self.touch(now);
        self.stats.packets_received += 1;
        self.note_trail(trail);
        self.held.stored(len);
        self.stats.peak_held_bytes = self.stats.peak_held_bytes.max(self.held.total());
        // `deliver_waited_for`, then `poll_delivery` taking it at once.
        self.slide_past(piece);
        self.held.delivered(len);
        self.stats.apdus_delivered += 1;
        self.stats.bytes_delivered += len as u64;
        self.held.taken(len);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::rng;
    use super::super::{Delivery, RxwConfig};
    use super::*;

    fn ms(x: u64) -> Instant {
        Instant::from_millis(x)
    }

    #[test]
    fn waited_for_packets_are_taken_and_counted_as_delivered() {
        let mut w = ReceiveWindow::new(RxwConfig::default(), 10);
        for sqn in 10..20 {
            assert!(w.take_in_order(ms(sqn.into()), sqn, 5, 100));
            assert_eq!(w.poll_timeout(), None, "no deadline after {sqn}");
            assert_eq!(w.poll_nak(ms(sqn.into())), None, "no NAK after {sqn}");
        }
        assert_eq!((w.commit(), w.missing_count(), w.held_bytes()), (20, 0, 0));
        assert_eq!(w.poll_delivery(), None, "the caller holds the deliveries");
        let stats = w.stats();
        assert_eq!(
            (
                stats.packets_received,
                stats.apdus_delivered,
                stats.bytes_delivered
            ),
            (10, 10, 1000)
        );
        assert_eq!(stats.peak_held_bytes, 100);
    }

    #[test]
    fn a_packet_beyond_the_delivery_point_is_left_to_on_data() {
        let mut w = ReceiveWindow::new(RxwConfig::default(), 10);
        assert!(!w.take_in_order(ms(1), 11, 5, 100));
        assert!(!w.take_in_order(ms(1), 9, 5, 100), "before the window");
        assert_eq!((w.commit(), w.stats().packets_received), (10, 0));
    }

    #[test]
    fn a_delivery_waiting_in_the_queue_is_not_overtaken() {
        let mut w = ReceiveWindow::new(RxwConfig::default(), 10);
        let mut r = rng(1);
        w.on_data(ms(1), &mut r, 10, 5, None, &[1; 100]).unwrap();
        assert!(!w.take_in_order(ms(2), 11, 5, 100));
        assert!(matches!(
            w.poll_delivery(),
            Some(Delivery::Apdu { first_sqn: 10, .. })
        ));
        assert!(w.take_in_order(ms(3), 11, 5, 100));
    }

    #[test]
    fn a_hole_in_the_window_or_a_trail_beyond_leaves_the_packet_to_on_data() {
        let mut w = ReceiveWindow::new(RxwConfig::default(), 10);
        let mut r = rng(1);
        w.on_data(ms(1), &mut r, 12, 5, None, &[1; 100]).unwrap();
        assert!(
            !w.take_in_order(ms(2), 10, 5, 100),
            "11 is missing, 12 waits"
        );
        let mut w = ReceiveWindow::new(RxwConfig::default(), 10);
        assert!(
            !w.take_in_order(ms(2), 10, 12, 100),
            "RXW_TRAIL 12 makes 11 lost"
        );
    }

    /// RFC 3208 §9.2.3: a whole packet must follow one that ends its APDU. A late join skips the fragments of
    /// an APDU begun before the start; the last one skipped is the whole packet's neighbour.
    #[test]
    fn a_whole_packet_after_a_fragment_that_does_not_end_its_apdu_is_left_to_on_data() {
        use super::super::{Fragment, RxwErrorKind};
        let mut w = ReceiveWindow::new(RxwConfig::default(), 11);
        let mut r = rng(1);
        let middle = Fragment {
            first_sqn: 10,
            offset: 100,
            apdu_len: 300,
        };
        w.on_data(ms(1), &mut r, 11, 5, Some(middle), &[1; 100])
            .unwrap();
        assert_eq!(
            (w.commit(), w.poll_delivery()),
            (12, None),
            "skipped: begun before the start"
        );
        assert!(!w.take_in_order(ms(2), 12, 5, 100));
        let refused = w
            .on_data(ms(2), &mut r, 12, 5, None, &[1; 100])
            .unwrap_err();
        assert!(
            matches!(refused.kind, RxwErrorKind::Inconsistent { .. }),
            "{refused:?}"
        );
    }

    #[test]
    fn a_payload_longer_than_an_apdu_may_be_is_left_to_on_data() {
        let config = RxwConfig {
            max_apdu_len: 50,
            ..RxwConfig::default()
        };
        let mut w = ReceiveWindow::new(config, 10);
        assert!(!w.take_in_order(ms(1), 10, 5, 51));
        assert!(w.take_in_order(ms(1), 10, 5, 50));
    }
}
