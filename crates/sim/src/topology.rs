//! Addresses of simulated nodes and groups.
//!
//! Node `i` is 10.x.y.z with x.y.z = i + 1 in base 256 (so up to 16 million nodes); group `g` is 239.1.y.z
//! with y.z = g + 1. These are the addresses the Convoy engine sees (its identities in acker election, the
//! source NLA in SPMs).

use crate::ids::{GroupId, NodeId};
use std::net::{IpAddr, Ipv4Addr};

/// The address of node `n`.
pub fn node_address(n: NodeId) -> IpAddr {
    let v = n.0 + 1;
    IpAddr::V4(Ipv4Addr::new(10, (v >> 16) as u8, (v >> 8) as u8, v as u8))
}

/// The node with address `ip`.
pub fn address_node(ip: IpAddr) -> Option<NodeId> {
    match ip {
        IpAddr::V4(a) => {
            let o = a.octets();
            if o[0] != 10 {
                return None;
            }
            let v = (u32::from(o[1]) << 16) | (u32::from(o[2]) << 8) | u32::from(o[3]);
            v.checked_sub(1).map(NodeId)
        }
        IpAddr::V6(_) => None,
    }
}

/// The address of group `g`.
pub fn group_address(g: GroupId) -> IpAddr {
    let v = g.0 + 1;
    IpAddr::V4(Ipv4Addr::new(239, 1, (v >> 8) as u8, v as u8))
}

/// The group with address `ip`.
pub fn address_group(ip: IpAddr) -> Option<GroupId> {
    match ip {
        IpAddr::V4(a) => {
            let o = a.octets();
            if o[0] != 239 || o[1] != 1 {
                return None;
            }
            let v = (u32::from(o[2]) << 8) | u32::from(o[3]);
            v.checked_sub(1).map(GroupId)
        }
        IpAddr::V6(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        for n in [0u32, 1, 254, 255, 256, 70_000] {
            assert_eq!(address_node(node_address(NodeId(n))), Some(NodeId(n)));
        }
        for g in [0u32, 255, 1000] {
            assert_eq!(address_group(group_address(GroupId(g))), Some(GroupId(g)));
        }
        assert_eq!(node_address(NodeId(0)).to_string(), "10.0.0.1");
    }
}
