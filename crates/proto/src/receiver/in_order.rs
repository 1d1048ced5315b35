//! Header prediction for ODATA (RFC 3208 §6.1's common case, as Jacobson's for TCP): the packet the receive
//! window waits for, whole, of the session already joined, with nothing else pending. A driver that hands one
//! packet to many receivers offers it here first and gets the delivery back at once, skipping the payload's
//! storage, the delivery queue and the event polls that [`Receiver::handle_parsed`] would go through.

use super::Receiver;
use crate::cc::OdataOutcome;
#[cfg(doc)]
use crate::payload::Payload;
use crate::time::Instant;
use convoy_wire::{BodyRepr, DetachedRepr, Tsi};

/// What [`Receiver::take_in_order`] did with a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InOrder {
    /// Not the common case: nothing changed, and the driver goes on with [`Receiver::handle_parsed`].
    NotTaken,
    /// Delivered: the packet's payload is the delivery. The driver polls as after any input
    /// ([`Receiver::poll_transmit`], [`Receiver::poll_event`], [`Receiver::poll_timeout`]).
    Delivered,
    /// Delivered, and nothing else to do: at the packet's instant [`Receiver::poll_transmit`] and
    /// [`Receiver::poll_event`] would return `None` and change nothing, and [`Receiver::poll_timeout`] returns
    /// what it returned before the packet, so the driver may skip all three. The controller said the packet
    /// left it nothing to poll ([`OdataOutcome::Quiet`]), the receive window has none after this path (no
    /// delivery, NAK or deadline: [`crate::rxw::ReceiveWindow::take_in_order`]), and the receiver has no
    /// status report waiting and no end of session to announce.
    DeliveredQuietly,
}

impl Receiver {
    /// An ODATA packet its driver parsed already, handled in one step when it is the common case; otherwise
    /// [`InOrder::NotTaken`], having changed nothing: the driver then calls [`Receiver::handle_parsed`].
    ///
    /// The common case: an unauthenticated ODATA packet without OPT_FRAGMENT, in a session without parity, of
    /// the session this receiver follows, its controller settled ([`super::ReceiverConfig::follow_source`]), with the source's address known, no event waiting for [`Receiver::poll_event`], and the packet
    /// the one the receive window waits for ([`crate::rxw::ReceiveWindow::take_in_order`]).
    ///
    /// Taken: the receiver is exactly as [`Receiver::handle_parsed`] would leave it once
    /// [`Receiver::poll_event`] had returned this packet as [`super::ReceiverEvent::Data`] — same counters,
    /// same controller state, same packets to send — and the packet's payload, `datagram[parsed.payload_at..]`,
    /// is that delivery (`handle_parsed` would give it as [`Payload::shared`]). It comes first here, where
    /// `handle_parsed` would queue it after the controller's events from this packet; those, and
    /// [`super::ReceiverEvent::Finished`] if this packet completed a closed session, stay for `poll_event`.
    /// The driver that needs only the delivery's length, as the simulator, makes no payload at all; when the
    /// packet left nothing else ([`InOrder::DeliveredQuietly`]), it need not poll either.
    pub fn take_in_order(
        &mut self,
        now: Instant,
        parsed: &DetachedRepr,
        datagram: &[u8],
    ) -> InOrder {
        let packet = &parsed.header;
        let BodyRepr::Odata { sqn, trail } = packet.body else {
            return InOrder::NotTaken;
        };
        let tsi = Tsi {
            gsi: packet.gsi,
            source_port: packet.source_port,
        };
        // With parity, every packet is kept for its group's decoding (module `parity_groups`): not this path.
        let predicted = !self.follow_pending
            && self.opener.is_none()
            && self.parity.is_none()
            && packet.options.auth.is_none()
            && packet.options.fragment.is_none()
            && packet.options.leave.is_none()
            && packet.dest_port == self.dest_port
            && self.tsi == Some(tsi)
            && self.upstream.is_some()
            && self.events.is_empty();
        if !predicted {
            return InOrder::NotTaken;
        }
        let len = datagram.len() - parsed.payload_at;
        // The window decides without the controller, and the controller draws nothing from the window: taking
        // the packet first and telling the controller after is the general order's result.
        if !self.rxw.take_in_order(now, sqn, trail, len) {
            return InOrder::NotTaken;
        }
        // The packet is at the delivery point, so the window has room for it (`Room::Plenty`).
        self.stats.odata += 1;
        self.stats.apdus += 1;
        self.stats.bytes += len as u64;
        let size = crate::cc::packet_size(len);
        let outcome = self
            .cc
            .on_odata(now, &mut self.rng, sqn, size, &packet.options);
        if outcome == OdataOutcome::Quiet && self.status_out.is_none() && !self.finish_due() {
            return InOrder::DeliveredQuietly;
        }
        self.drain(now);
        InOrder::Delivered
    }
}
