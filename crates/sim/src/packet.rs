//! What travels through the simulated network.

use crate::ids::{AgentId, FlowId, GroupId, NodeId};
use crate::tcp::TcpSegment;
use convoy_wire::DetachedRepr;
use std::cell::OnceCell;
use std::rc::Rc;
use std::sync::Arc;

/// Where a packet is going.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dest {
    /// A unicast destination host.
    Node(NodeId),
    /// A multicast group: forwarded along the group's distribution tree.
    Group(GroupId),
}

/// The contents, as the endpoints see them.
#[derive(Clone, Debug)]
pub enum Body {
    /// A TCP segment (header fields only; payload bytes are not simulated). Held inline: a packet is already
    /// one allocation behind its `Rc` (the links' pipes hold pointers), so a boxed segment would be a second
    /// allocation and free per TCP packet for no saving in flight (a PGM fan-out shares one packet).
    Tcp(TcpSegment),
    /// A whole PGM packet (UDP payload): the real bytes the Convoy engine emitted, shared between the copies
    /// that multicast replication makes.
    Pgm(Rc<PgmDatagram>),
    /// A UDP datagram of cross traffic (CBR, on/off), numbered.
    Udp {
        /// Sequence number within its flow.
        seq: u64,
    },
}

/// One simulated packet.
#[derive(Clone, Debug)]
pub struct Packet {
    /// Size on the wire in bytes (IP header included), for serialisation and queue accounting.
    pub size: u32,
    /// The sending host.
    pub src: NodeId,
    /// Destination.
    pub dst: Dest,
    /// The scenario flow it belongs to.
    pub flow: FlowId,
    /// For unicast packets: the agent at the destination host that receives it.
    pub to_agent: Option<AgentId>,
    /// Contents.
    pub body: Body,
}

/// IPv4 + UDP header bytes around a PGM packet.
pub const UDP_IP_OVERHEAD: u32 = 28;

/// The bytes of one PGM packet, shared by every copy a multicast fan-out makes, with their parse made once
/// for all the receivers (a 1000-receiver fan-out would otherwise parse the same bytes 1000 times).
///
/// Dereferences to the bytes.
#[derive(Debug)]
pub struct PgmDatagram {
    /// Shared with the receive windows that keep a payload by reference.
    bytes: Arc<[u8]>,
    /// The parse, on first use: `None` inside if the bytes do not parse.
    parsed: OnceCell<Option<Box<DetachedRepr>>>,
}

impl PgmDatagram {
    /// A copy of `bytes`.
    pub fn new(bytes: &[u8]) -> Self {
        PgmDatagram {
            bytes: bytes.into(),
            parsed: OnceCell::new(),
        }
    }

    /// The bytes, shared.
    pub fn shared(&self) -> &Arc<[u8]> {
        &self.bytes
    }

    /// The packet, parsed on the first call ([`DetachedRepr::parse_without_checksum`]: the simulator carries
    /// the bytes the engine checksummed, unchanged); `None` if they do not parse.
    pub fn parsed(&self) -> Option<&DetachedRepr> {
        self.parsed
            .get_or_init(|| {
                DetachedRepr::parse_without_checksum(&self.bytes)
                    .ok()
                    .map(Box::new)
            })
            .as_deref()
    }
}

impl std::ops::Deref for PgmDatagram {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.bytes
    }
}

/// Delivered packets' allocations, kept for the next packets an agent sends: a TCP flow would otherwise
/// allocate and free one `Rc<Packet>` per segment and per ACK. Only packets no link or agent still shares
/// are kept, and only a few (the packets a call sends at once), so the pool holds no memory of note.
#[derive(Debug, Default)]
pub(crate) struct PacketPool {
    spare: Vec<Rc<Packet>>,
}

impl PacketPool {
    /// Spare allocations kept at most.
    const MAX_SPARE: usize = 64;

    /// `packet` behind an `Rc`, in a spare allocation when there is one.
    pub(crate) fn wrap(&mut self, packet: Packet) -> Rc<Packet> {
        if let Some(mut rc) = self.spare.pop() {
            if let Some(slot) = Rc::get_mut(&mut rc) {
                *slot = packet;
                return rc;
            }
        }
        Rc::new(packet)
    }

    /// Keep `packet`'s allocation if nothing else holds it (its contents are dropped when it is reused). A
    /// fan-out's copies but the last are still shared: they are let go at the cost of one comparison.
    #[inline]
    pub(crate) fn recycle(&mut self, packet: Rc<Packet>) {
        if Rc::strong_count(&packet) == 1 {
            self.keep(packet);
        }
    }

    fn keep(&mut self, mut packet: Rc<Packet>) {
        if self.spare.len() < Self::MAX_SPARE && Rc::get_mut(&mut packet).is_some() {
            self.spare.push(packet);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn udp(seq: u64) -> Packet {
        Packet {
            size: 100,
            src: NodeId(0),
            dst: Dest::Node(NodeId(1)),
            flow: FlowId(0),
            to_agent: None,
            body: Body::Udp { seq },
        }
    }

    #[test]
    fn a_recycled_packet_is_reused_with_the_new_contents() {
        let mut pool = PacketPool::default();
        let first = pool.wrap(udp(1));
        let at = Rc::as_ptr(&first);
        pool.recycle(first);
        let second = pool.wrap(udp(2));
        assert_eq!(Rc::as_ptr(&second), at);
        assert!(matches!(second.body, Body::Udp { seq: 2 }));
    }

    #[test]
    fn a_packet_still_shared_is_not_kept() {
        let mut pool = PacketPool::default();
        let copy = pool.wrap(udp(1));
        let kept_by_a_link = Rc::clone(&copy);
        pool.recycle(copy);
        let next = pool.wrap(udp(2));
        assert_ne!(Rc::as_ptr(&next), Rc::as_ptr(&kept_by_a_link));
        assert!(matches!(kept_by_a_link.body, Body::Udp { seq: 1 }));
    }

    #[test]
    fn the_pool_keeps_a_bounded_number_of_spares() {
        let mut pool = PacketPool::default();
        let packets: Vec<_> = (0..200).map(|i| pool.wrap(udp(i))).collect();
        for p in packets {
            pool.recycle(p);
        }
        assert_eq!(pool.spare.len(), PacketPool::MAX_SPARE);
    }
}
