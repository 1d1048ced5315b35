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
    /// A TCP segment (header fields only; payload bytes are not simulated). Boxed: a segment with its SACK
    /// blocks is larger than everything else a packet holds, and packets in flight are the bulk of a large
    /// simulation's memory.
    Tcp(Box<TcpSegment>),
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
