//! What travels through the simulated network.

use crate::ids::{AgentId, FlowId, GroupId, NodeId};
use crate::tcp::TcpSegment;
use std::rc::Rc;

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
    Pgm(Rc<[u8]>),
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
