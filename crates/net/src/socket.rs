//! UDP sockets for PGM over UDP (docs/wire-format.md §1.6 and §2): one port for unicast and multicast.
//!
//! * The **source** binds one socket to `local_address:port`. It sends SPM/ODATA/RDATA/NCF to `group:port`
//!   through the chosen interface (`IP_MULTICAST_IF` / `IPV6_MULTICAST_IF`, TTL or hop limit, loopback on or
//!   off) and receives the receivers' unicast NAKs, ACKs and status reports on the same socket and port. No
//!   `SO_REUSEPORT`: Linux would load-balance unicast feedback between processes bound to the port (§2).
//! * A **receiver** binds a data socket to `group:port` (with `SO_REUSEADDR`, so several receivers on one
//!   host each get every packet, and `IP_MULTICAST_ALL` off, so it hears only the group it joined) and joins
//!   the group on the chosen interface. It sends its unicast feedback to `source:port` from a second socket
//!   bound to `local_address:0`, so the source sees the receiver's own address.
//!
//! The interface is chosen by name (`eth0`) or by address (`10.0.0.2`); the address then also becomes the
//! endpoint's identity (its NLA): receivers on one host need distinct addresses (e.g. 127.0.0.2, 127.0.0.3 on
//! loopback) for pgmcc to tell them apart.

use crate::sys;
use socket2::{Domain, InterfaceIndexOrAddress, Protocol, SockAddr, Socket, Type};
use std::fmt;
use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV6};
use std::os::fd::{AsRawFd, RawFd};
use std::str::FromStr;

/// Which interface to use for the group.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Interface {
    /// Whatever the routing table picks for the group (the source address of a route lookup).
    #[default]
    Default,
    /// By name, e.g. `eth0` or `lo`.
    Name(String),
    /// By one of its addresses (also the endpoint's identity). An address inside an interface's subnet that is
    /// local, like 127.0.0.2 on `lo`, counts as that interface's.
    Addr(IpAddr),
}

impl FromStr for Interface {
    type Err = std::convert::Infallible;
    /// An IP address gives [`Interface::Addr`], anything else [`Interface::Name`].
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s.parse::<IpAddr>() {
            Ok(a) => Interface::Addr(a),
            Err(_) => Interface::Name(s.to_string()),
        })
    }
}

impl fmt::Display for Interface {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Interface::Default => write!(f, "default"),
            Interface::Name(n) => write!(f, "{n}"),
            Interface::Addr(a) => write!(f, "{a}"),
        }
    }
}

/// How to attach to a multicast group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupOptions {
    /// The group and the UDP port (used for unicast feedback too).
    pub group: SocketAddr,
    /// The interface.
    pub interface: Interface,
    /// Multicast TTL (IPv4) or hop limit (IPv6). Default 1: the local network only.
    pub ttl: u32,
    /// Whether this host's own receivers hear the source (`IP_MULTICAST_LOOP`). Default on.
    pub loopback: bool,
    /// Socket receive buffer in bytes (best effort). Default 8 MiB.
    pub recv_buffer: usize,
    /// Socket send buffer in bytes (best effort). Default 4 MiB.
    pub send_buffer: usize,
}

impl GroupOptions {
    /// Defaults for `group` (a multicast `address:port`).
    pub fn new(group: SocketAddr) -> Self {
        GroupOptions {
            group,
            interface: Interface::Default,
            ttl: 1,
            loopback: true,
            recv_buffer: 8 << 20,
            send_buffer: 4 << 20,
        }
    }
}

/// An interface resolved to its index and the address used as this endpoint's identity.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResolvedInterface {
    /// Interface index (0 = let the kernel choose).
    pub index: u32,
    /// Interface name, when known.
    pub name: Option<String>,
    /// The local unicast address: SPM path NLA at a source, reporter identity at a receiver.
    pub local: IpAddr,
}

/// The MTU of interface `name` (from `/sys/class/net/NAME/mtu`), if it can be read.
pub fn interface_mtu(name: &str) -> Option<usize> {
    if name.is_empty() || name.contains('/') {
        return None;
    }
    std::fs::read_to_string(format!("/sys/class/net/{name}/mtu"))
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// The largest TSDU whose data packets fit in one IP datagram of `mtu` bytes towards a group of this
/// family: the MTU less the IP header (20 or 40 bytes), UDP's 8 and PGM's data overhead with the options of
/// the scheme called `scheme` ([`convoy_wire::PacketRepr::data_overhead`]), at least 256.
pub fn tsdu_for_mtu(mtu: usize, ipv6: bool, scheme: &str) -> usize {
    let ip = if ipv6 { 40 } else { 20 };
    mtu.saturating_sub(ip + 8 + convoy_wire::PacketRepr::data_overhead(scheme, ipv6))
        .max(256)
}

fn invalid(msg: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, msg)
}

fn in_subnet(a: IpAddr, net: IpAddr, prefix: u8) -> bool {
    match (a, net) {
        (IpAddr::V4(a), IpAddr::V4(n)) => {
            let mask = u32::MAX
                .checked_shl(32 - u32::from(prefix.min(32)))
                .unwrap_or(0);
            u32::from(a) & mask == u32::from(n) & mask
        }
        (IpAddr::V6(a), IpAddr::V6(n)) => {
            let mask = u128::MAX
                .checked_shl(128 - u32::from(prefix.min(128)))
                .unwrap_or(0);
            u128::from(a) & mask == u128::from(n) & mask
        }
        _ => false,
    }
}

fn usable_v6(a: &Ipv6Addr) -> bool {
    // Prefer addresses that need no scope id.
    (a.segments()[0] & 0xffc0) != 0xfe80
}

/// Resolve `interface` for a group of `group`'s address family.
pub fn resolve_interface(interface: &Interface, group: IpAddr) -> io::Result<ResolvedInterface> {
    let addrs = sys::interface_addrs()?;
    let same_family = |a: &IpAddr| a.is_ipv4() == group.is_ipv4();
    match interface {
        Interface::Addr(local) => {
            if !same_family(local) {
                return Err(invalid(format!(
                    "interface address {local} and group {group} are of different address families"
                )));
            }
            let found = addrs
                .iter()
                .find(|i| i.addr == *local)
                .or_else(|| {
                    addrs
                        .iter()
                        .find(|i| i.addr.is_loopback() && in_subnet(*local, i.addr, i.prefix_len))
                })
                .ok_or_else(|| invalid(format!("no interface has the address {local}")))?;
            Ok(ResolvedInterface {
                index: found.index,
                name: Some(found.name.clone()),
                local: *local,
            })
        }
        Interface::Name(name) => {
            let mut candidates: Vec<_> = addrs
                .iter()
                .filter(|i| &i.name == name && same_family(&i.addr))
                .collect();
            if candidates.is_empty() {
                return Err(invalid(format!(
                    "interface {name} does not exist or has no {} address",
                    if group.is_ipv4() { "IPv4" } else { "IPv6" }
                )));
            }
            candidates.sort_by_key(|i| match i.addr {
                IpAddr::V6(a) => !usable_v6(&a),
                IpAddr::V4(_) => false,
            });
            Ok(ResolvedInterface {
                index: candidates[0].index,
                name: Some(name.clone()),
                local: candidates[0].addr,
            })
        }
        Interface::Default => {
            // A connected UDP socket reveals the source address the kernel would use; nothing is sent.
            let domain = Domain::for_address(SocketAddr::new(group, 9));
            let probe = Socket::new(domain, Type::DGRAM, Some(Protocol::UDP))?;
            probe.connect(&SockAddr::from(SocketAddr::new(group, 9)))?;
            let local = probe
                .local_addr()?
                .as_socket()
                .map(|s| s.ip())
                .ok_or_else(|| invalid("no local address for the group".into()))?;
            let found = addrs.iter().find(|i| i.addr == local);
            Ok(ResolvedInterface {
                index: found.map_or(0, |i| i.index),
                name: found.map(|i| i.name.clone()),
                local,
            })
        }
    }
}

fn check_group(group: &SocketAddr) -> io::Result<()> {
    if !group.ip().is_multicast() {
        return Err(invalid(format!(
            "{} is not a multicast address",
            group.ip()
        )));
    }
    if group.port() == 0 {
        return Err(invalid("the group needs a port".into()));
    }
    Ok(())
}

fn new_udp(addr: &SocketAddr) -> io::Result<Socket> {
    Socket::new(Domain::for_address(*addr), Type::DGRAM, Some(Protocol::UDP))
}

fn local_sockaddr(local: IpAddr, port: u16, iface: &ResolvedInterface) -> SocketAddr {
    match local {
        IpAddr::V4(a) => SocketAddr::new(IpAddr::V4(a), port),
        IpAddr::V6(a) => {
            let scope = if usable_v6(&a) { 0 } else { iface.index };
            SocketAddr::V6(SocketAddrV6::new(a, port, 0, scope))
        }
    }
}

fn set_buffers(s: &Socket, opts: &GroupOptions) {
    // Best effort: the kernel caps these at net.core.{r,w}mem_max.
    let _ = s.set_recv_buffer_size(opts.recv_buffer);
    let _ = s.set_send_buffer_size(opts.send_buffer);
}

fn set_multicast_out(s: &Socket, opts: &GroupOptions, iface: &ResolvedInterface) -> io::Result<()> {
    match (opts.group.ip(), iface.local) {
        (IpAddr::V4(_), IpAddr::V4(local)) => {
            if iface.index != 0 {
                sys::set_multicast_if_v4(s.as_raw_fd(), local, iface.index)?;
            } else {
                s.set_multicast_if_v4(&local)?;
            }
            s.set_multicast_ttl_v4(opts.ttl)?;
            s.set_multicast_loop_v4(opts.loopback)?;
        }
        (IpAddr::V6(_), IpAddr::V6(_)) => {
            s.set_multicast_if_v6(iface.index)?;
            s.set_multicast_hops_v6(opts.ttl)?;
            s.set_multicast_loop_v6(opts.loopback)?;
        }
        _ => return Err(invalid("address family mismatch".into())),
    }
    Ok(())
}

/// The source's socket: sends to the group, receives unicast feedback on the same port.
#[derive(Debug)]
pub struct SourceSocket {
    /// The socket, bound to `local:port`.
    pub socket: Socket,
    /// The group destination.
    pub group: SockAddr,
    /// The interface and the local address (the SPM path NLA).
    pub interface: ResolvedInterface,
}

/// Open the source's socket.
pub fn open_source(opts: &GroupOptions) -> io::Result<SourceSocket> {
    check_group(&opts.group)?;
    let iface = resolve_interface(&opts.interface, opts.group.ip())?;
    let bind = local_sockaddr(iface.local, opts.group.port(), &iface);
    let s = new_udp(&bind)?;
    if bind.is_ipv6() {
        s.set_only_v6(true)?;
    }
    set_buffers(&s, opts);
    set_multicast_out(&s, opts, &iface)?;
    s.bind(&SockAddr::from(bind)).map_err(|e| {
        io::Error::new(
            e.kind(),
            format!(
                "cannot bind the source to {bind}: {e} (another source on this address and port?)"
            ),
        )
    })?;
    Ok(SourceSocket {
        socket: s,
        group: SockAddr::from(opts.group),
        interface: iface,
    })
}

/// A receiver's sockets: the group data socket and the unicast feedback socket.
#[derive(Debug)]
pub struct ReceiverSockets {
    /// Bound to `group:port`, joined on the interface.
    pub data: Socket,
    /// Bound to `local:0`; sends NAKs, ACKs and status reports to the source.
    pub feedback: Socket,
    /// The UDP port of the session (the source listens on it for feedback).
    pub port: u16,
    /// The interface and the local address (the receiver's identity).
    pub interface: ResolvedInterface,
    group: IpAddr,
}

/// Open a receiver's sockets and join the group.
pub fn open_receiver(opts: &GroupOptions) -> io::Result<ReceiverSockets> {
    check_group(&opts.group)?;
    let iface = resolve_interface(&opts.interface, opts.group.ip())?;
    let data = new_udp(&opts.group)?;
    data.set_reuse_address(true)?;
    set_buffers(&data, opts);
    match opts.group.ip() {
        IpAddr::V4(g) => {
            data.set_multicast_all_v4(false)?;
            let how = if iface.index != 0 {
                InterfaceIndexOrAddress::Index(iface.index)
            } else {
                match iface.local {
                    IpAddr::V4(a) => InterfaceIndexOrAddress::Address(a),
                    IpAddr::V6(_) => InterfaceIndexOrAddress::Address(Ipv4Addr::UNSPECIFIED),
                }
            };
            data.join_multicast_v4_n(&g, &how)?;
        }
        IpAddr::V6(g) => {
            data.set_only_v6(true)?;
            data.set_multicast_all_v6(false)?;
            data.join_multicast_v6(&g, iface.index)?;
        }
    }
    data.bind(&SockAddr::from(opts.group))?;
    let fb_addr = local_sockaddr(iface.local, 0, &iface);
    let feedback = new_udp(&fb_addr)?;
    feedback.bind(&SockAddr::from(fb_addr))?;
    Ok(ReceiverSockets {
        data,
        feedback,
        port: opts.group.port(),
        interface: iface,
        group: opts.group.ip(),
    })
}

impl ReceiverSockets {
    /// Leave the group (also done implicitly when the socket closes).
    pub fn leave(&self) -> io::Result<()> {
        match self.group {
            IpAddr::V4(g) => self
                .data
                .leave_multicast_v4_n(&g, &InterfaceIndexOrAddress::Index(self.interface.index)),
            IpAddr::V6(g) => self.data.leave_multicast_v6(&g, self.interface.index),
        }
    }
}

/// The raw descriptor of a socket.
pub fn fd(s: &Socket) -> RawFd {
    s.as_raw_fd()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tsdus_fit_the_mtu() {
        // Ethernet: the default 1400 bytes fit IPv4 (1404 would, with OPT_CONVOY_START_UP), IPv6 needs 1372.
        assert_eq!(tsdu_for_mtu(1500, false, "pgmcc"), 1404);
        assert_eq!(tsdu_for_mtu(1500, true, "pgmcc"), 1372);
        assert_eq!(tsdu_for_mtu(1500, false, "tfmcc"), 1392);
        assert_eq!(tsdu_for_mtu(100, true, "pgmcc"), 256);
        assert!(interface_mtu("lo").is_some_and(|m| m >= 1500));
        assert_eq!(interface_mtu("../lo"), None);
    }

    #[test]
    fn interfaces_parse_by_address_or_name() {
        assert_eq!(
            "127.0.0.2".parse::<Interface>().unwrap(),
            Interface::Addr("127.0.0.2".parse().unwrap())
        );
        assert_eq!(
            "lo".parse::<Interface>().unwrap(),
            Interface::Name("lo".into())
        );
    }

    #[test]
    fn loopback_addresses_resolve_to_lo() {
        let g: IpAddr = "239.255.1.1".parse().unwrap();
        let r = resolve_interface(&Interface::Addr("127.0.0.3".parse().unwrap()), g).unwrap();
        assert_eq!(r.local, "127.0.0.3".parse::<IpAddr>().unwrap());
        assert_eq!(r.name.as_deref(), Some("lo"));
        let by_name = resolve_interface(&Interface::Name("lo".into()), g).unwrap();
        assert_eq!(by_name.index, r.index);
        assert!(resolve_interface(&Interface::Name("nosuchif0".into()), g).is_err());
        assert!(resolve_interface(&Interface::Addr("::1".parse().unwrap()), g).is_err());
    }

    #[test]
    fn non_multicast_groups_are_refused() {
        let opts = GroupOptions::new("127.0.0.1:4000".parse().unwrap());
        let e = open_source(&opts).unwrap_err();
        assert!(e.to_string().contains("not a multicast address"), "{e}");
    }
}
