//! The few system calls socket2 does not wrap: batched send and receive (`sendmmsg`, `recvmmsg`), UDP
//! segmentation offload on both sides (`UDP_SEGMENT` sends, `UDP_GRO` receives: one system call and one trip
//! through the stack for up to 64 equal-size datagrams), waiting with nanosecond timeouts (`ppoll`), the
//! thread's timer slack (`prctl`), `IP_MULTICAST_IF` by interface index (`ip_mreqn`), and the interface list
//! (`getifaddrs`).
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

/// Most datagrams one UDP GSO send may carry (the kernel's `UDP_MAX_SEGMENTS`).
pub const MAX_SEGMENTS: usize = 64;

/// Most payload bytes one UDP GSO send may carry (an IPv4 datagram's 65,535 bytes less IP and UDP headers).
pub const MAX_SEGMENTED_BYTES: usize = 65_507;

/// Room for one control message carrying an `int` (`CMSG_SPACE(sizeof(int))` is 24 on 64-bit Linux), as
/// `u64`s so that the buffer is aligned for `cmsghdr`.
const CMSG_WORDS: usize = 4;

/// Send `segments` to `addr` (`None`: the connected peer) with UDP segmentation offload: the kernel cuts each
/// send back into one datagram per segment, as if they had been sent one by one. Every segment but the last
/// must be as long as the first (the segment size); the last may be shorter. Sends as many system calls as
/// [`MAX_SEGMENTS`] and [`MAX_SEGMENTED_BYTES`] require. Returns the segments handed to the kernel; an error
/// only if none was (`EIO`, `EINVAL` or `ENOPROTOOPT` mean the path cannot segment: send one by one).
pub fn send_segmented(fd: RawFd, addr: Option<&SockAddr>, segments: &[&[u8]]) -> io::Result<usize> {
    let Some(first) = segments.first() else {
        return Ok(0);
    };
    let size = first.len();
    if size == 0 || size > usize::from(u16::MAX) {
        return Err(io::Error::from(io::ErrorKind::InvalidInput));
    }
    if segments[..segments.len() - 1]
        .iter()
        .any(|s| s.len() != size)
        || segments.last().is_some_and(|s| s.len() > size)
    {
        return Err(io::Error::from(io::ErrorKind::InvalidInput));
    }
    let per_call = (MAX_SEGMENTED_BYTES / size).clamp(1, MAX_SEGMENTS);
    let mut sent = 0;
    while sent < segments.len() {
        let chunk = &segments[sent..segments.len().min(sent + per_call)];
        // SAFETY: plain C structs, all-zero is a valid value.
        let mut iovecs: [libc::iovec; MAX_SEGMENTS] = unsafe { zeroed() };
        for (iov, seg) in iovecs.iter_mut().zip(chunk) {
            // The kernel only reads through iov_base for a send.
            iov.iov_base = seg.as_ptr() as *mut libc::c_void;
            iov.iov_len = seg.len();
        }
        let mut control = [0u64; CMSG_WORDS];
        // SAFETY: all-zero is a valid msghdr.
        let mut msg: libc::msghdr = unsafe { zeroed() };
        if let Some(addr) = addr {
            msg.msg_name = addr.as_ptr() as *mut libc::c_void;
            msg.msg_namelen = addr.len();
        }
        msg.msg_iov = iovecs.as_mut_ptr();
        msg.msg_iovlen = chunk.len();
        msg.msg_control = control.as_mut_ptr() as *mut libc::c_void;
        // SAFETY: CMSG_SPACE only computes a size.
        msg.msg_controllen = unsafe { libc::CMSG_SPACE(size_of::<u16>() as u32) } as usize;
        // SAFETY: `msg_control` points at `control` (32 bytes, 8-aligned, at least CMSG_SPACE(2) = 24 bytes),
        // so CMSG_FIRSTHDR returns a pointer inside it, and CMSG_DATA the 2 bytes after the header, which are
        // within the CMSG_SPACE we declared.
        unsafe {
            let cmsg = libc::CMSG_FIRSTHDR(&msg);
            (*cmsg).cmsg_level = libc::SOL_UDP;
            (*cmsg).cmsg_type = libc::UDP_SEGMENT;
            (*cmsg).cmsg_len = libc::CMSG_LEN(size_of::<u16>() as u32) as usize;
            std::ptr::write_unaligned(libc::CMSG_DATA(cmsg) as *mut u16, size as u16);
        }
        // SAFETY: `msg` points at the iovecs and control buffer on this stack frame and at the caller's
        // segments and address, all alive for the call; the kernel only reads them for a send.
        let n = unsafe { libc::sendmsg(fd, &msg, 0) };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return if sent > 0 { Ok(sent) } else { Err(e) };
        }
        sent += chunk.len();
    }
    Ok(sent)
}

/// Whether an error from [`send_segmented`] means the socket or path cannot segment these datagrams at all
/// (as opposed to a transient failure such as a full buffer): no GSO support (`ENOPROTOOPT`, `EOPNOTSUPP`), a
/// device without checksum offload (`EIO`), or segments larger than the path MTU, which only fragmentation
/// can carry (`EINVAL`; IPv6 says `EMSGSIZE`).
pub fn segmentation_unsupported(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EIO | libc::EINVAL | libc::EMSGSIZE | libc::ENOPROTOOPT | libc::EOPNOTSUPP)
    )
}

/// Ask the kernel to hand this socket runs of equal-size datagrams from one source coalesced into one
/// buffer (`UDP_GRO`); [`recv_batch`] reports the segment size. Returns whether the kernel accepted.
pub fn enable_gro(fd: RawFd) -> bool {
    set_option(fd, libc::SOL_UDP, libc::UDP_GRO, &(1 as libc::c_int)).is_ok()
}

/// `setsockopt` with a plain C value of type `T`.
fn set_option<T>(fd: RawFd, level: libc::c_int, name: libc::c_int, value: &T) -> io::Result<()> {
    // SAFETY: `value` is a live reference: we pass its address and exact size, and the kernel only reads it.
    let rc = unsafe {
        libc::setsockopt(
            fd,
            level,
            name,
            value as *const T as *const libc::c_void,
            size_of::<T>() as libc::socklen_t,
        )
    };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// One received message: its length, sender, and with `UDP_GRO` the size of the datagrams it holds back to
/// back (the last may be shorter).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Received {
    /// Bytes in the buffer.
    pub len: usize,
    /// The sender.
    pub from: Option<SocketAddr>,
    /// Coalesced datagrams' size, if the kernel coalesced several.
    pub segment: Option<usize>,
}

impl Received {
    /// The datagrams in `buf[..len]`.
    pub fn datagrams<'a>(&self, buf: &'a [u8]) -> impl Iterator<Item = &'a [u8]> {
        let bytes = &buf[..self.len.min(buf.len())];
        bytes.chunks(self.segment.unwrap_or(bytes.len()).max(1))
    }

    /// [`Received::datagrams`], writable: for an endpoint that opens a keyed packet where it lies.
    pub fn datagrams_mut<'a>(&self, buf: &'a mut [u8]) -> impl Iterator<Item = &'a mut [u8]> {
        let len = self.len.min(buf.len());
        let bytes = &mut buf[..len];
        bytes.chunks_mut(self.segment.unwrap_or(len).max(1))
    }
}

/// Receive up to `bufs.len()` (at most [`MAX_BATCH`]) messages without blocking. For each, `out` gets the
/// length, the sender's address and, on a socket with [`enable_gro`], the coalesced datagrams' size. Returns
/// the number received; 0 when nothing is waiting. Datagrams longer than their buffer are truncated (and
/// reported with the truncated length): with GRO, buffers must hold 65,535 bytes.
pub fn recv_batch(fd: RawFd, bufs: &mut [Vec<u8>], out: &mut Vec<Received>) -> io::Result<usize> {
    out.clear();
    let count = bufs.len().min(MAX_BATCH);
    // SAFETY: plain C structs, all-zero is valid.
    let mut iovecs: [libc::iovec; MAX_BATCH] = unsafe { zeroed() };
    // SAFETY: as above.
    let mut msgs: [libc::mmsghdr; MAX_BATCH] = unsafe { zeroed() };
    // SAFETY: as above.
    let mut names: [libc::sockaddr_storage; MAX_BATCH] = unsafe { zeroed() };
    let mut controls = [[0u64; CMSG_WORDS]; MAX_BATCH];
    for i in 0..count {
        msgs[i].msg_hdr.msg_control = controls[i].as_mut_ptr() as *mut libc::c_void;
        msgs[i].msg_hdr.msg_controllen = size_of::<[u64; CMSG_WORDS]>();
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
        // this call), at a `sockaddr_storage` and a control buffer on this stack frame with their true sizes;
        // the kernel writes at most those lengths. MSG_DONTWAIT makes the call non-blocking; a null timeout is allowed.
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
        out.push(Received {
            len: msg.msg_len as usize,
            from: addr.as_socket(),
            segment: gro_segment(&msg.msg_hdr),
        });
    }
    Ok(n)
}

/// The `UDP_GRO` segment size among a received message's control messages.
fn gro_segment(hdr: &libc::msghdr) -> Option<usize> {
    // SAFETY: `hdr` is a header the kernel has just filled: `msg_control` points at our control buffer and
    // `msg_controllen` says how much of it the kernel wrote, so the CMSG_* walk stays inside it; the data of a
    // UDP_GRO message is one int, read unaligned.
    unsafe {
        let mut cmsg = libc::CMSG_FIRSTHDR(hdr);
        while !cmsg.is_null() {
            if (*cmsg).cmsg_level == libc::SOL_UDP && (*cmsg).cmsg_type == libc::UDP_GRO {
                let size = std::ptr::read_unaligned(libc::CMSG_DATA(cmsg) as *const libc::c_int);
                return usize::try_from(size).ok().filter(|s| *s > 0);
            }
            cmsg = libc::CMSG_NXTHDR(hdr, cmsg);
        }
    }
    None
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
    set_option(fd, libc::IPPROTO_IP, libc::IP_MULTICAST_IF, &mreqn)
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
            for (i, r) in out.iter().enumerate().take(n) {
                assert_eq!(r.from, Some(tx.local_addr().unwrap()));
                got.push(bufs[i][..r.len].to_vec());
            }
        }
        assert_eq!(got, payloads);
        assert_eq!(recv_batch(rx.as_raw_fd(), &mut bufs, &mut out).unwrap(), 0);
        assert!(!wait_readable(&[rx.as_raw_fd()], Some(Duration::from_millis(1))).unwrap());
    }

    /// 100 datagrams of 1000 bytes then one of 300, sent with segmentation offload: a plain socket receives
    /// them one by one, a GRO socket in coalesced runs; either way the same datagrams in order.
    #[test]
    fn segmented_send_arrives_as_datagrams_with_and_without_gro() {
        let payloads: Vec<Vec<u8>> = (0..101u32)
            .map(|i| {
                let len = if i == 100 { 300 } else { 1000 };
                (0..len).map(|j| (i * 7 + j) as u8).collect()
            })
            .collect();
        for (gro, local) in [
            (false, "127.0.0.1:0"),
            (true, "127.0.0.1:0"),
            (false, "[::1]:0"),
            (true, "[::1]:0"),
        ] {
            let rx = UdpSocket::bind(local).unwrap();
            assert!(!gro || enable_gro(rx.as_raw_fd()), "UDP_GRO refused");
            let tx = UdpSocket::bind(local).unwrap();
            let to = SockAddr::from(rx.local_addr().unwrap());
            let segs: Vec<&[u8]> = payloads.iter().map(|p| p.as_slice()).collect();
            match send_segmented(tx.as_raw_fd(), Some(&to), &segs) {
                Ok(n) => assert_eq!(n, 101),
                // A kernel without UDP GSO: the driver falls back to one datagram per packet.
                Err(e) if segmentation_unsupported(&e) => {
                    eprintln!("UDP GSO unsupported here ({e}): nothing to check");
                    return;
                }
                Err(e) => panic!("{e}"),
            }
            let mut bufs = vec![vec![0u8; 65_536]; 8];
            let mut out = Vec::new();
            let mut got: Vec<Vec<u8>> = Vec::new();
            let mut messages = 0;
            while got.len() < 101 {
                assert!(wait_readable(&[rx.as_raw_fd()], Some(Duration::from_secs(2))).unwrap());
                let n = recv_batch(rx.as_raw_fd(), &mut bufs, &mut out).unwrap();
                for (i, r) in out.iter().enumerate().take(n) {
                    messages += 1;
                    got.extend(r.datagrams(&bufs[i]).map(<[u8]>::to_vec));
                }
            }
            assert_eq!(got, payloads, "gro {gro}");
            if !gro {
                assert_eq!(messages, 101);
            } else {
                assert!(messages < 101, "GRO coalesced nothing");
            }
        }
    }

    #[test]
    fn segmented_send_refuses_unequal_segments() {
        let tx = UdpSocket::bind("127.0.0.1:0").unwrap();
        let to = SockAddr::from(tx.local_addr().unwrap());
        let (a, b) = (vec![0u8; 100], vec![0u8; 200]);
        let e = send_segmented(tx.as_raw_fd(), Some(&to), &[&a, &b]).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
    }
}
