//! What an endpoint asks its driver to send.

use convoy_wire::PacketType;
use std::net::IpAddr;

/// Where a packet goes. PGM sends downstream packets (SPM, ODATA, RDATA, NCF) to the session's group and
/// upstream packets (NAK, ACK, SPMR) unicast to the source's path NLA (RFC 3208 §5, docs/wire-format.md §1.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Destination {
    /// The session's multicast group.
    Group,
    /// A unicast address (the sender's NLA, as learnt from SPMs).
    Unicast(IpAddr),
}

/// One packet written into the caller's buffer by `poll_transmit`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transmit {
    /// Where to send it.
    pub destination: Destination,
    /// Bytes written at the start of the buffer (the whole PGM packet, checksum included).
    pub len: usize,
    /// The PGM packet type, for drivers and observers that classify traffic without parsing.
    pub packet_type: PacketType,
}
