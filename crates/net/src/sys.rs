//! The few system calls socket2 does not wrap: batched send and receive (`sendmmsg`, `recvmmsg`), waiting with
//! nanosecond timeouts (`ppoll`), the thread's timer slack (`prctl`), `IP_MULTICAST_IF` by interface index
//! (`ip_mreqn`), and the interface list (`getifaddrs`).
//!
//! This is the only module of the crate allowed `unsafe` (crate lints: `unsafe_code = "deny"`). Every block
//! says why it is sound. The common pattern: the kernel reads or writes memory through raw pointers that we
//! build from live Rust values (slices, arrays on the stack) which outlive the call, with lengths taken from
//! those same values.

#![allow(unsafe_code)]

use std::ffi::CStr;
use std::io;
use std::mem::{size_of, zeroed};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::os::fd::RawFd;
use std::time::Duration;

use socket2::SockAddr;

/// Most datagrams one `sendmmsg` or `recvmmsg` call handles.
pub const MAX_BATCH: usize = 64;

/// Send `packets` (destination, bytes) with as few `sendmmsg` calls as the kernel allows; a `None` destination
/// uses the socket's connected peer. Returns how many were handed to the kernel; stops at the first error,
/// which is returned only if nothing was sent.
pub fn send_batch(fd: RawFd, packets: &[(Option<&SockAddr>, &[u8])]) -> io::Result<usize> {
    let mut sent = 0;
    while sent < packets.len() {
        let chunk = &packets[sent..packets.len().min(sent + MAX_BATCH)];
        // SAFETY: iovec and mmsghdr are plain C structs for which all-zero bytes are a valid value.
        let mut iovecs: [libc::iovec; MAX_BATCH] = unsafe { zeroed() };
        // SAFETY: as above.
        let mut msgs: [libc::mmsghdr; MAX_BATCH] = unsafe { zeroed() };
        for (i, (addr, bytes)) in chunk.iter().enumerate() {
            // The kernel only reads through iov_base for a send; the cast to *mut is what the C type requires.
            iovecs[i].iov_base = bytes.as_ptr() as *mut libc::c_void;
            iovecs[i].iov_len = bytes.len();
            if let Some(addr) = addr {
                msgs[i].msg_hdr.msg_name = addr.as_ptr() as *mut libc::c_void;
                msgs[i].msg_hdr.msg_namelen = addr.len();
            }
            msgs[i].msg_hdr.msg_iov = &mut iovecs[i];
            msgs[i].msg_hdr.msg_iovlen = 1;
        }
        // SAFETY: `msgs[..chunk.len()]` are initialised headers whose pointers (iovecs on this stack frame, the
        // caller's byte slices and socket addresses, or null names for a connected socket) stay valid for the
        // whole call; the kernel writes only
        // `msg_len` fields inside `msgs`, which we own mutably. `chunk.len() ≤ MAX_BATCH` fits in c_uint.
        let n = unsafe { libc::sendmmsg(fd, msgs.as_mut_ptr(), chunk.len() as libc::c_uint, 0) };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return if sent > 0 { Ok(sent) } else { Err(e) };
        }
        if n == 0 {
            break;
        }
        sent += n as usize;
    }
    Ok(sent)
}

/// Receive up to `bufs.len()` (at most [`MAX_BATCH`]) datagrams without blocking. For each, `out` gets the
/// length and the sender's address. Returns the number received; 0 when nothing is waiting. Datagrams longer
/// than their buffer are truncated (and reported with the truncated length).
pub fn recv_batch(
    fd: RawFd,
    bufs: &mut [Vec<u8>],
    out: &mut Vec<(usize, Option<SocketAddr>)>,
) -> io::Result<usize> {
    out.clear();
    let count = bufs.len().min(MAX_BATCH);
    // SAFETY: plain C structs, all-zero is valid.
    let mut iovecs: [libc::iovec; MAX_BATCH] = unsafe { zeroed() };
    // SAFETY: as above.
    let mut msgs: [libc::mmsghdr; MAX_BATCH] = unsafe { zeroed() };
    // SAFETY: as above.
    let mut names: [libc::sockaddr_storage; MAX_BATCH] = unsafe { zeroed() };
    for i in 0..count {
        iovecs[i].iov_base = bufs[i].as_mut_ptr() as *mut libc::c_void;
        iovecs[i].iov_len = bufs[i].len();
        msgs[i].msg_hdr.msg_name =
            &mut names[i] as *mut libc::sockaddr_storage as *mut libc::c_void;
        msgs[i].msg_hdr.msg_namelen = size_of::<libc::sockaddr_storage>() as libc::socklen_t;
        msgs[i].msg_hdr.msg_iov = &mut iovecs[i];
        msgs[i].msg_hdr.msg_iovlen = 1;
    }
    let n = loop {
        // SAFETY: every header points at a buffer of `iov_len` bytes owned by `bufs[i]` (mutably borrowed for
        // this call) and at a `sockaddr_storage` on this stack frame with its true size; the kernel writes at
        // most those lengths. MSG_DONTWAIT makes the call non-blocking; a null timeout is allowed.
        let n = unsafe {
            libc::recvmmsg(
                fd,
                msgs.as_mut_ptr(),
                count as libc::c_uint,
                libc::MSG_DONTWAIT,
                std::ptr::null_mut(),
            )
        };
        if n >= 0 {
            break n as usize;
        }
        let e = io::Error::last_os_error();
        match e.kind() {
            io::ErrorKind::Interrupted => continue,
            io::ErrorKind::WouldBlock => return Ok(0),
            _ => return Err(e),
        }
    };
    for (msg, name) in msgs.iter().zip(names.iter()).take(n) {
        // SAFETY: the kernel filled `name` with an address of `msg_namelen` bytes (at most the storage size).
        let addr = unsafe { SockAddr::new(*name, msg.msg_hdr.msg_namelen) };
        out.push((msg.msg_len as usize, addr.as_socket()));
    }
    Ok(n)
}

/// Wait until one of `fds` is readable or `timeout` passes (`None`: forever). Returns whether one is readable.
pub fn wait_readable(fds: &[RawFd], timeout: Option<Duration>) -> io::Result<bool> {
    let mut pollfds: Vec<libc::pollfd> = fds
        .iter()
        .map(|&fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    let ts = timeout.map(|d| libc::timespec {
        tv_sec: d.as_secs().min(i32::MAX as u64) as libc::time_t,
        tv_nsec: d.subsec_nanos() as libc::c_long,
    });
    let ts_ptr = ts
        .as_ref()
        .map_or(std::ptr::null(), |t| t as *const libc::timespec);
    // SAFETY: `pollfds` is a live, correctly sized array of pollfd (the kernel writes `revents`); `ts_ptr` is
    // null or points at a timespec on this stack frame; a null signal mask leaves the mask unchanged.
    let n = unsafe {
        libc::ppoll(
            pollfds.as_mut_ptr(),
            pollfds.len() as libc::nfds_t,
            ts_ptr,
            std::ptr::null(),
        )
    };
    if n < 0 {
        let e = io::Error::last_os_error();
        if e.kind() == io::ErrorKind::Interrupted {
            return Ok(false);
        }
        return Err(e);
    }
    Ok(n > 0)
}

/// Ask for timer expiries of this thread to be at most `slack` late (the default is 50 µs), so pacing sleeps
/// wake on time. Best effort: errors are ignored.
pub fn set_timer_slack(slack: Duration) {
    let ns = slack.as_nanos().clamp(1, u64::MAX as u128) as libc::c_ulong;
    // SAFETY: PR_SET_TIMERSLACK takes an integer argument by value and touches no memory of ours.
    unsafe {
        libc::prctl(
            libc::PR_SET_TIMERSLACK,
            ns,
            0 as libc::c_ulong,
            0 as libc::c_ulong,
            0 as libc::c_ulong,
        );
    }
}

/// CPU time consumed by the calling thread (for benchmarks).
pub fn thread_cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec into `ts`, which lives on this stack frame.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc < 0 {
        return Duration::ZERO;
    }
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Set `IP_MULTICAST_IF` with an `ip_mreqn`: outgoing multicast leaves through interface `index`, with source
/// address `local` (socket2 only offers the address form).
pub fn set_multicast_if_v4(fd: RawFd, local: Ipv4Addr, index: u32) -> io::Result<()> {
    let mreqn = libc::ip_mreqn {
        imr_multiaddr: libc::in_addr { s_addr: 0 },
        imr_address: libc::in_addr {
            s_addr: u32::from_ne_bytes(local.octets()),
        },
        imr_ifindex: index as libc::c_int,
    };
    // SAFETY: the option value points at an `ip_mreqn` on this stack frame and its exact size is passed; the
    // kernel only reads it.
    let rc = unsafe {
        libc::setsockopt(
            fd,
            libc::IPPROTO_IP,
            libc::IP_MULTICAST_IF,
            &mreqn as *const libc::ip_mreqn as *const libc::c_void,
            size_of::<libc::ip_mreqn>() as libc::socklen_t,
        )
    };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// One address of a network interface.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InterfaceAddr {
    /// Interface name, e.g. `eth0`.
    pub name: String,
    /// Interface index.
    pub index: u32,
    /// The address.
    pub addr: IpAddr,
    /// Prefix length of its subnet.
    pub prefix_len: u8,
}

fn ip_of(sa: *const libc::sockaddr) -> Option<IpAddr> {
    if sa.is_null() {
        return None;
    }
    // SAFETY: getifaddrs gives valid sockaddr pointers (or null, checked above); we read the family first and
    // then reinterpret as the matching concrete struct, as the family says it is.
    unsafe {
        match i32::from((*sa).sa_family) {
            libc::AF_INET => {
                let sin = &*(sa as *const libc::sockaddr_in);
                Some(IpAddr::V4(Ipv4Addr::from(u32::from_be(
                    sin.sin_addr.s_addr,
                ))))
            }
            libc::AF_INET6 => {
                let sin6 = &*(sa as *const libc::sockaddr_in6);
                Some(IpAddr::V6(Ipv6Addr::from(sin6.sin6_addr.s6_addr)))
            }
            _ => None,
        }
    }
}

fn prefix_len(mask: Option<IpAddr>) -> u8 {
    match mask {
        Some(IpAddr::V4(m)) => u32::from(m).count_ones() as u8,
        Some(IpAddr::V6(m)) => u128::from(m).count_ones() as u8,
        None => 0,
    }
}

/// Every IPv4 and IPv6 address of every interface (`getifaddrs`).
pub fn interface_addrs() -> io::Result<Vec<InterfaceAddr>> {
    let mut head: *mut libc::ifaddrs = std::ptr::null_mut();
    // SAFETY: getifaddrs writes a list head into `head`, which we free below with freeifaddrs.
    if unsafe { libc::getifaddrs(&mut head) } < 0 {
        return Err(io::Error::last_os_error());
    }
    let mut out = Vec::new();
    let mut cur = head;
    while !cur.is_null() {
        // SAFETY: `cur` is a node of the list getifaddrs returned, not yet freed.
        let ifa = unsafe { &*cur };
        if let Some(addr) = ip_of(ifa.ifa_addr) {
            // SAFETY: ifa_name is a NUL-terminated string owned by the list.
            let name = unsafe { CStr::from_ptr(ifa.ifa_name) }
                .to_string_lossy()
                .into_owned();
            // SAFETY: `ifa_name` is a valid NUL-terminated C string, as above.
            let index = unsafe { libc::if_nametoindex(ifa.ifa_name) };
            out.push(InterfaceAddr {
                name,
                index,
                addr,
                prefix_len: prefix_len(ip_of(ifa.ifa_netmask)),
            });
        }
        cur = ifa.ifa_next;
    }
    // SAFETY: `head` came from a successful getifaddrs and is freed exactly once; no reference into the list
    // survives (names were copied).
    unsafe { libc::freeifaddrs(head) };
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::UdpSocket;
    use std::os::fd::AsRawFd;

    #[test]
    fn loopback_is_listed() {
        let addrs = interface_addrs().unwrap();
        assert!(addrs
            .iter()
            .any(|a| a.addr == IpAddr::V4(Ipv4Addr::LOCALHOST)
                && a.prefix_len == 8
                && a.index > 0));
    }

    #[test]
    fn batched_send_and_receive_over_loopback() {
        let rx = UdpSocket::bind("127.0.0.1:0").unwrap();
        let tx = UdpSocket::bind("127.0.0.1:0").unwrap();
        let to = SockAddr::from(rx.local_addr().unwrap());
        let payloads: Vec<Vec<u8>> = (0..100u8).map(|i| vec![i; 10 + i as usize]).collect();
        let packets: Vec<(Option<&SockAddr>, &[u8])> =
            payloads.iter().map(|p| (Some(&to), p.as_slice())).collect();
        assert_eq!(send_batch(tx.as_raw_fd(), &packets).unwrap(), 100);
        let mut bufs = vec![vec![0u8; 2048]; MAX_BATCH];
        let mut out = Vec::new();
        let mut got = Vec::new();
        while got.len() < 100 {
            assert!(wait_readable(&[rx.as_raw_fd()], Some(Duration::from_secs(2))).unwrap());
            let n = recv_batch(rx.as_raw_fd(), &mut bufs, &mut out).unwrap();
            for (i, (len, from)) in out.iter().enumerate().take(n) {
                assert_eq!(*from, Some(tx.local_addr().unwrap()));
                got.push(bufs[i][..*len].to_vec());
            }
        }
        assert_eq!(got, payloads);
        assert_eq!(recv_batch(rx.as_raw_fd(), &mut bufs, &mut out).unwrap(), 0);
        assert!(!wait_readable(&[rx.as_raw_fd()], Some(Duration::from_millis(1))).unwrap());
    }
}
