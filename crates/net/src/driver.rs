//! The clock and the single-threaded event loop that drives a convoy-proto endpoint over UDP.
//!
//! One [`Driver::turn`]:
//! 1. if the endpoint's deadline (`poll_timeout`) has passed, `handle_timeout(now)`;
//! 2. drain `poll_transmit` into a batch of buffers and hand them to the kernel with `sendmmsg` (runs of packets
//!    for the same socket go in one call, up to [`crate::sys::MAX_BATCH`]); runs of equal-size packets to the
//!    group (ODATA at full TSDU) go as one UDP GSO send each (`UDP_SEGMENT`), where the kernel allows it;
//! 3. sleep in `ppoll` until a datagram arrives, the endpoint's next deadline, or the caller's limit, whichever
//!    is first — with the thread's timer slack set to 1 µs, so pacing deadlines are met to within a few
//!    microseconds of scheduler latency instead of the default 50 µs slack; deadlines closer than
//!    [`SPIN_BELOW`] are not slept for at all;
//! 4. read everything waiting with `recvmmsg` (a bounded number of batches, so transmits are not starved;
//!    with `UDP_GRO` a message may hold a run of datagrams from one source, which are split again),
//!    feed each datagram to `handle_datagram(now, from, bytes)`, handle the deadline if it has come meanwhile,
//!    and drain `poll_transmit` again.
//!
//! Events are left in the endpoint for the caller to poll: the loop itself knows nothing of the application.

use crate::burst::BurstSizer;
use crate::packet_trace::PacketTrace;
use crate::sys;
use convoy_proto::{Destination, Instant, Receiver, Sender, Transmit};
use socket2::{SockAddr, Socket};
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::os::fd::{AsRawFd, RawFd};
use std::time::Duration;

/// Deadlines closer than this are not slept for (the loop turns again at once).
pub const SPIN_BELOW: Duration = Duration::from_micros(20);

/// Batches of input read per turn before transmits are flushed again.
const READ_BATCHES_PER_TURN: usize = 4;

/// Receive buffers with `UDP_GRO` (65,536 bytes each, up to 64 datagrams in one).
const GRO_BUFFERS: usize = 16;

/// Maps `std::time::Instant` to convoy-proto's [`Instant`] (nanoseconds since the clock was made).
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    epoch: std::time::Instant,
}

impl Default for Clock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock {
    /// A clock whose epoch is now.
    pub fn new() -> Self {
        Clock {
            epoch: std::time::Instant::now(),
        }
    }

    /// The current time.
    pub fn now(&self) -> Instant {
        let ns = self.epoch.elapsed().as_nanos();
        Instant::from_nanos(u64::try_from(ns).unwrap_or(u64::MAX))
    }

    /// The `std` instant of a convoy instant.
    pub fn to_std(&self, t: Instant) -> std::time::Instant {
        self.epoch + Duration::from_nanos(t.as_nanos())
    }
}

/// What the loop needs from an endpoint: the inputs and outputs of convoy-proto's call order.
pub trait Endpoint {
    /// A datagram arrived, in bytes the endpoint may change (a keyed one opens the packet where it lies).
    fn handle_datagram(&mut self, now: Instant, from: IpAddr, bytes: &mut [u8]);
    /// The deadline passed.
    fn handle_timeout(&mut self, now: Instant);
    /// The next packet to send.
    fn poll_transmit(&mut self, now: Instant, buf: &mut [u8]) -> Option<Transmit>;
    /// The next deadline.
    fn poll_timeout(&self) -> Option<Instant>;
}

impl Endpoint for Sender {
    fn handle_datagram(&mut self, now: Instant, from: IpAddr, bytes: &mut [u8]) {
        Sender::handle_datagram_in_place(self, now, from, bytes)
    }
    fn handle_timeout(&mut self, now: Instant) {
        Sender::handle_timeout(self, now)
    }
    fn poll_transmit(&mut self, now: Instant, buf: &mut [u8]) -> Option<Transmit> {
        Sender::poll_transmit(self, now, buf)
    }
    fn poll_timeout(&self) -> Option<Instant> {
        Sender::poll_timeout(self)
    }
}

impl Endpoint for Receiver {
    fn handle_datagram(&mut self, now: Instant, from: IpAddr, bytes: &mut [u8]) {
        Receiver::handle_datagram_in_place(self, now, from, bytes)
    }
    fn handle_timeout(&mut self, now: Instant) {
        Receiver::handle_timeout(self, now)
    }
    fn poll_transmit(&mut self, now: Instant, buf: &mut [u8]) -> Option<Transmit> {
        Receiver::poll_transmit(self, now, buf)
    }
    fn poll_timeout(&self) -> Option<Instant> {
        Receiver::poll_timeout(self)
    }
}

/// Counters of the socket layer.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct IoStats {
    /// Datagrams handed to the kernel.
    pub datagrams_sent: u64,
    /// Their UDP payload bytes.
    pub bytes_sent: u64,
    /// `sendmmsg` calls.
    pub send_calls: u64,
    /// Datagrams the kernel refused (e.g. ENOBUFS); UDP, so they are simply lost.
    pub send_errors: u64,
    /// Datagrams received.
    pub datagrams_received: u64,
    /// Their bytes.
    pub bytes_received: u64,
    /// `recvmmsg` calls that returned data.
    pub recv_calls: u64,
    /// Loop turns.
    pub turns: u64,
    /// UDP GSO sends (each carries several of `datagrams_sent`, and counts once in `send_calls`).
    pub segmented_sends: u64,
    /// Received messages that held several datagrams (UDP GRO).
    pub coalesced_receives: u64,
}

/// Sockets, buffers and clock of one endpoint.
#[derive(Debug)]
pub struct Driver {
    clock: Clock,
    /// The socket datagrams arrive on; also sends to the group.
    recv: Socket,
    /// Sends unicast (a receiver's feedback socket); `None`: `recv` does.
    unicast: Option<Socket>,
    group: SockAddr,
    port: u16,
    /// Scope for link-local IPv6 unicast destinations.
    scope_id: u32,
    tx_bufs: Vec<Vec<u8>>,
    tx_meta: Vec<(usize, Destination)>,
    rx_bufs: Vec<Vec<u8>>,
    rx_meta: Vec<sys::Received>,
    /// Whether group sends use UDP segmentation offload (cleared for good if the kernel refuses it).
    gso: bool,
    /// Sizes segmented sends from the rate sent to the group.
    burst: BurstSizer,
    unicast_cache: Vec<(IpAddr, SockAddr)>,
    /// The address the unicast socket is connected to.
    unicast_peer: Option<IpAddr>,
    last_flush: Instant,
    stats: IoStats,
    /// `--packet-trace`: every datagram sent and read ([`crate::packet_trace`]).
    packet_trace: Option<PacketTrace>,
}

impl Driver {
    /// A driver reading from `recv` (which also sends to `group`), sending unicast through `unicast` (or `recv`)
    /// to `port`, with send buffers of `packet_len` bytes (at least 2048) and receive buffers of at least 9216.
    pub fn new(
        recv: Socket,
        unicast: Option<Socket>,
        group: SocketAddr,
        scope_id: u32,
        packet_len: usize,
    ) -> io::Result<Self> {
        recv.set_nonblocking(false)?;
        sys::set_timer_slack(Duration::from_micros(1));
        let packet_len = packet_len.max(2048);
        // Coalesced runs need whole-datagram-sized buffers (65,535 bytes); fewer of them per batch.
        let (rx_count, rx_len) = if sys::enable_gro(recv.as_raw_fd()) {
            (GRO_BUFFERS, 65_536)
        } else {
            (sys::MAX_BATCH, packet_len.max(9216))
        };
        Ok(Driver {
            clock: Clock::new(),
            recv,
            unicast,
            group: SockAddr::from(group),
            port: group.port(),
            scope_id,
            tx_bufs: vec![vec![0; packet_len]; sys::MAX_BATCH],
            tx_meta: Vec::with_capacity(sys::MAX_BATCH),
            rx_bufs: vec![vec![0; rx_len]; rx_count],
            rx_meta: Vec::with_capacity(rx_count),
            gso: true,
            burst: BurstSizer::new(Instant::ZERO),
            unicast_cache: Vec::new(),
            unicast_peer: None,
            last_flush: Instant::ZERO,
            stats: IoStats::default(),
            packet_trace: None,
        })
    }

    /// The clock.
    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// The current time.
    pub fn now(&self) -> Instant {
        self.clock.now()
    }

    /// Socket-layer counters.
    pub fn stats(&self) -> &IoStats {
        &self.stats
    }

    /// Record every datagram sent and read from now on in `trace`.
    pub fn set_packet_trace(&mut self, trace: PacketTrace) {
        self.packet_trace = Some(trace);
    }

    /// Stop recording and hand back the trace (to finish it).
    pub fn take_packet_trace(&mut self) -> Option<PacketTrace> {
        self.packet_trace.take()
    }

    /// The receiving socket's local address.
    pub fn local_addr(&self) -> Option<SocketAddr> {
        self.recv.local_addr().ok().and_then(|a| a.as_socket())
    }

    fn unicast_addr(&mut self, ip: IpAddr) -> SockAddr {
        if let Some((_, a)) = self.unicast_cache.iter().find(|(i, _)| *i == ip) {
            return a.clone();
        }
        let sa = match ip {
            IpAddr::V6(v6) if (v6.segments()[0] & 0xffc0) == 0xfe80 => {
                SocketAddr::V6(std::net::SocketAddrV6::new(v6, self.port, 0, self.scope_id))
            }
            _ => SocketAddr::new(ip, self.port),
        };
        let a = SockAddr::from(sa);
        if self.unicast_cache.len() >= 64 {
            self.unicast_cache.remove(0);
        }
        self.unicast_cache.push((ip, a.clone()));
        a
    }

    /// Send the queued batch.
    fn send_queued(&mut self) {
        if self.tx_meta.is_empty() {
            return;
        }
        let meta = std::mem::take(&mut self.tx_meta);
        let addrs: Vec<SockAddr> = meta
            .iter()
            .map(|(_, d)| match d {
                Destination::Group => self.group.clone(),
                Destination::Unicast(ip) => self.unicast_addr(*ip),
            })
            .collect();
        // Runs of packets for the same destination kind (and, on a dedicated unicast socket, the same address)
        // go out in one call.
        let mut start = 0;
        while start < meta.len() {
            let dest = meta[start].1;
            let same = |d: &Destination| match (self.unicast.is_some(), dest) {
                (true, Destination::Unicast(_)) => *d == dest,
                (_, Destination::Unicast(_)) => matches!(d, Destination::Unicast(_)),
                (_, Destination::Group) => *d == Destination::Group,
            };
            let mut end = start + 1;
            while end < meta.len() && same(&meta[end].1) {
                end += 1;
            }
            // A receiver's feedback socket talks to one source: connect it, so the kernel keeps the route and
            // the datagrams need no address (a connected send skips the per-packet route lookup).
            let connected = match (&self.unicast, dest) {
                (Some(u), Destination::Unicast(ip)) => {
                    if self.unicast_peer != Some(ip) && u.connect(&addrs[start]).is_ok() {
                        self.unicast_peer = Some(ip);
                    }
                    self.unicast_peer == Some(ip)
                }
                _ => false,
            };
            let fd: RawFd = match (&self.unicast, dest) {
                (Some(u), Destination::Unicast(_)) => u.as_raw_fd(),
                _ => self.recv.as_raw_fd(),
            };
            if dest == Destination::Group && self.gso {
                let now = self.clock.now();
                let bufs = &self.tx_bufs[start..end];
                send_group_segmented(
                    bufs,
                    &meta[start..end],
                    fd,
                    &self.group,
                    (&mut self.gso, &mut self.burst),
                    now,
                    &mut self.stats,
                );
            } else {
                let packets: Vec<(Option<&SockAddr>, &[u8])> = (start..end)
                    .map(|i| {
                        let to = (!connected).then_some(&addrs[i]);
                        (to, &self.tx_bufs[i][..meta[i].0])
                    })
                    .collect();
                send_one_by_one(&mut self.stats, fd, &packets);
            }
            start = end;
        }
        self.tx_meta = meta;
        self.tx_meta.clear();
    }

    /// When [`Driver::flush`] last ran.
    pub fn last_flush(&self) -> Instant {
        self.last_flush
    }

    /// Drain the endpoint's transmits into batches and send them.
    pub fn flush<E: Endpoint>(&mut self, ep: &mut E, now: Instant) {
        self.last_flush = now;
        loop {
            let i = self.tx_meta.len();
            let Some(t) = ep.poll_transmit(now, &mut self.tx_bufs[i]) else {
                break;
            };
            if let Some(trace) = &mut self.packet_trace {
                let dst = match t.destination {
                    Destination::Group => self.group.as_socket().map(|a| a.ip()),
                    Destination::Unicast(ip) => Some(ip),
                };
                if let Some(dst) = dst {
                    trace.sent(now, dst, &self.tx_bufs[i][..t.len]);
                }
            }
            self.tx_meta.push((t.len, t.destination));
            if self.tx_meta.len() == sys::MAX_BATCH {
                self.send_queued();
            }
        }
        self.send_queued();
    }

    /// Read what is waiting and feed it to the endpoint. Returns the number of datagrams.
    fn read<E: Endpoint>(&mut self, ep: &mut E) -> io::Result<usize> {
        let mut total = 0;
        for _ in 0..READ_BATCHES_PER_TURN {
            let n = sys::recv_batch(self.recv.as_raw_fd(), &mut self.rx_bufs, &mut self.rx_meta)?;
            if n == 0 {
                break;
            }
            self.stats.recv_calls += 1;
            let now = self.clock.now();
            for (i, r) in self.rx_meta.iter().enumerate() {
                let Some(from) = r.from else { continue };
                if r.segment.is_some_and(|s| s < r.len) {
                    self.stats.coalesced_receives += 1;
                }
                for datagram in r.datagrams_mut(&mut self.rx_bufs[i]) {
                    self.stats.datagrams_received += 1;
                    self.stats.bytes_received += datagram.len() as u64;
                    if let Some(trace) = &mut self.packet_trace {
                        trace.received(now, from.ip(), datagram);
                    }
                    ep.handle_datagram(now, from.ip(), datagram);
                }
            }
            total += n;
            if n < self.rx_bufs.len().min(sys::MAX_BATCH) {
                break;
            }
        }
        Ok(total)
    }

    /// One turn of the loop (module docs), waiting at most until `until`. Returns the datagrams read.
    pub fn turn<E: Endpoint>(&mut self, ep: &mut E, until: Instant) -> io::Result<usize> {
        self.stats.turns += 1;
        let now = self.clock.now();
        if ep.poll_timeout().is_some_and(|t| t <= now) {
            ep.handle_timeout(now);
            self.flush(ep, now);
            // The timeout may have produced events or ended the session: let the caller look before sleeping.
            return Ok(0);
        }
        self.flush(ep, now);
        let now = self.clock.now();
        let wake = ep.poll_timeout().map_or(until, |t| t.min(until));
        let wait = wake.saturating_duration_since(now);
        let fd = self.recv.as_raw_fd();
        let readable = if wait < SPIN_BELOW {
            sys::wait_readable(&[fd], Some(Duration::ZERO))?
        } else {
            sys::wait_readable(&[fd], Some(wait))?
        };
        // Woken by input or by the deadline: either way, serve both before returning.
        let n = if readable { self.read(ep)? } else { 0 };
        let now = self.clock.now();
        if ep.poll_timeout().is_some_and(|t| t <= now) {
            ep.handle_timeout(now);
        }
        self.flush(ep, now);
        Ok(n)
    }
}

/// Hand `packets` to the kernel with `sendmmsg`, counting what went and what was refused.
fn send_one_by_one(stats: &mut IoStats, fd: RawFd, packets: &[(Option<&SockAddr>, &[u8])]) {
    stats.send_calls += 1;
    let sent = sys::send_batch(fd, packets).unwrap_or(0);
    for (_, bytes) in &packets[..sent] {
        stats.datagrams_sent += 1;
        stats.bytes_sent += bytes.len() as u64;
    }
    stats.send_errors += (packets.len() - sent) as u64;
}

/// Send a run of packets to `group` (`bufs[k][..meta[k].0]`) at `now`: each stretch of equal-size packets
/// (a shorter one may end it) as UDP GSO sends of at most what `burst` allows while `gso` holds; what cannot
/// be segmented with `sendmmsg`. Clears `gso` for good if the kernel cannot segment on this path.
fn send_group_segmented(
    bufs: &[Vec<u8>],
    meta: &[(usize, Destination)],
    fd: RawFd,
    group: &SockAddr,
    (gso, burst): (&mut bool, &mut BurstSizer),
    now: Instant,
    stats: &mut IoStats,
) {
    let datagram = |k: usize| &bufs[k][..meta[k].0];
    let mut i = 0;
    while i < meta.len() {
        let size = meta[i].0;
        let max_segments = if *gso {
            burst.max_segments(size, sys::MAX_SEGMENTS)
        } else {
            1
        };
        if max_segments == 1 {
            // Slow, or no GSO: the rest one datagram per message, in one sendmmsg.
            let packets: Vec<(Option<&SockAddr>, &[u8])> = (i..meta.len())
                .map(|k| (Some(group), datagram(k)))
                .collect();
            send_one_by_one(stats, fd, &packets);
            burst.record(now, packets.iter().map(|(_, p)| p.len() as u64).sum());
            return;
        }
        let mut j = i + 1;
        while j < meta.len() && meta[j].0 == size && j - i < max_segments {
            j += 1;
        }
        if j < meta.len() && meta[j].0 < size && j - i < max_segments {
            j += 1;
        }
        let segments: Vec<&[u8]> = (i..j).map(datagram).collect();
        let bytes: u64 = segments.iter().map(|s| s.len() as u64).sum();
        if segments.len() == 1 {
            send_one_by_one(stats, fd, &[(Some(group), segments[0])]);
            burst.record(now, bytes);
            i = j;
            continue;
        }
        stats.send_calls += 1;
        match sys::send_segmented(fd, Some(group), &segments) {
            Ok(sent) => {
                stats.datagrams_sent += sent as u64;
                stats.bytes_sent += segments[..sent].iter().map(|s| s.len() as u64).sum::<u64>();
                stats.send_errors += (segments.len() - sent) as u64;
                stats.segmented_sends += 1;
                burst.record(now, bytes);
                i = j;
            }
            // This path cannot segment: send these and everything after one by one.
            Err(e) if sys::segmentation_unsupported(&e) => *gso = false,
            // Transient (e.g. a full socket buffer): the datagrams are lost, as UDP datagrams are.
            Err(_) => {
                stats.send_errors += segments.len() as u64;
                i = j;
            }
        }
    }
}
