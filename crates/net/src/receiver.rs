//! [`NetReceiver`]: a PGM receiver on a UDP multicast group.

use crate::driver::{Clock, Driver, IoStats};
use crate::packet_trace::PacketTrace;
use crate::sender::random_u64;
use crate::socket::{self, GroupOptions, ResolvedInterface};
use convoy_proto::{Instant, Receiver, ReceiverConfig, ReceiverEvent};
use convoy_wire::{BlockRange, ReceiverStatus};
use std::io;
use std::path::Path;
use std::time::Duration;

/// Largest datagram a receiver reads whole (jumbo frames); longer ones arrive truncated and count as malformed.
pub const MAX_DATAGRAM: usize = 9216;

/// A PGM receiver joined to a multicast group, driven by a single-threaded loop inside its methods.
///
/// ```no_run
/// use convoy_net::{GroupOptions, NetReceiver};
/// use convoy_proto::ReceiverEvent;
/// use std::time::Duration;
/// let opts = GroupOptions::new("239.192.0.1:7500".parse().unwrap());
/// let mut rx = NetReceiver::open(&opts, |_config| {})?;
/// while let Some(event) = rx.recv(Duration::from_secs(5))? {
///     match event {
///         ReceiverEvent::Data(apdu) => println!("{} bytes", apdu.len()),
///         ReceiverEvent::Finished => break,
///         _ => {}
///     }
/// }
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct NetReceiver {
    driver: Driver,
    receiver: Receiver,
    sockets_interface: ResolvedInterface,
    /// When the session's source was last heard (any packet of the session).
    last_heard: Option<Instant>,
    heard_count: u64,
}

impl std::fmt::Debug for NetReceiver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NetReceiver")
            .field("receiver", &self.receiver)
            .field("interface", &self.sockets_interface)
            .finish()
    }
}

/// Sequence numbers a receiver on a real network lets await a repair at once. After a burst loss (a start-up
/// overshoot, a late join) a receiver otherwise asks for up to 100 NAKs × 63 sequence numbers a second,
/// whatever its path carries: behind a 20 Mbit/s link most repairs were lost and asked for again (2.7 × the
/// lost packets in `scenarios/examples/pgmcc-startup-overshoot.toml`, 1.07 × with 128). Under pgmcc a
/// receiver awaits about one repair per RTT, so 128 binds only after bursts; it allows the NAK pacer's
/// 6300 sequence numbers a second on paths up to 20 ms of RTT.
pub const MAX_AWAITED_REPAIRS: u32 = 128;

impl NetReceiver {
    /// Join `group` and receive. The configuration starts from [`ReceiverConfig::new`] with this host's address
    /// on the interface as identity and [`ReceiverConfig::batched_reads`] on (a pgmcc receiver acknowledges a
    /// batch of packets read in one system call with one ACK); `configure` may change anything: the controller
    /// (it must match the source's, or set [`ReceiverConfig::follow_source`]), the late-join policy, the
    /// receive window. Unless `configure` sets one, at most [`MAX_AWAITED_REPAIRS`] sequence numbers await a
    /// repair at once ([`convoy_proto::rxw::RxwConfig::max_awaited`]).
    pub fn open(
        group: &GroupOptions,
        configure: impl FnOnce(&mut ReceiverConfig),
    ) -> io::Result<Self> {
        let socks = socket::open_receiver(group)?;
        let mut config = ReceiverConfig::new(socks.interface.local, group.group.ip());
        config.rxw.max_awaited = MAX_AWAITED_REPAIRS;
        config.batched_reads = true;
        configure(&mut config);
        let interface = socks.interface.clone();
        let driver = Driver::new(
            socks.data,
            Some(socks.feedback),
            group.group,
            interface.index,
            MAX_DATAGRAM,
        )?;
        Ok(NetReceiver {
            driver,
            receiver: Receiver::new(config, random_u64()),
            sockets_interface: interface,
            last_heard: None,
            heard_count: 0,
        })
    }

    /// The protocol engine (statistics, session, controller state).
    pub fn receiver(&self) -> &Receiver {
        &self.receiver
    }

    /// The name of the congestion controller in use (`pgmcc`, `fixed`; it may change once when following the
    /// source's, [`ReceiverConfig::follow_source`]).
    pub fn cc_name(&self) -> &'static str {
        self.receiver.cc_name()
    }

    /// The interface and local address (this receiver's identity).
    pub fn interface(&self) -> &ResolvedInterface {
        &self.sockets_interface
    }

    /// Record every datagram sent and read from now on in a CSV file at `path` ([`crate::packet_trace`]).
    pub fn trace_packets(&mut self, path: &Path) -> io::Result<()> {
        let trace = PacketTrace::create(path, self.sockets_interface.local)?;
        self.driver.set_packet_trace(trace);
        Ok(())
    }

    /// Stop tracing and flush the file: the rows written, or the first error (naming the file); `None` when no
    /// trace was open.
    pub fn finish_packet_trace(&mut self) -> Option<io::Result<u64>> {
        self.driver.take_packet_trace().map(PacketTrace::finish)
    }

    /// Socket-layer counters.
    pub fn io_stats(&self) -> &IoStats {
        self.driver.stats()
    }

    /// The clock of the loop.
    pub fn clock(&self) -> &Clock {
        self.driver.clock()
    }

    /// How long since the session's source was last heard (`None` before it was ever heard).
    pub fn silence(&self) -> Option<Duration> {
        self.last_heard
            .map(|t| self.driver.now().saturating_duration_since(t))
    }

    /// Send an application status report to the source (see [`Receiver::send_status`]); it leaves as soon as
    /// the source is known.
    pub fn send_status(&mut self, status: ReceiverStatus) -> io::Result<()> {
        self.send_status_with_needs(status, Vec::new())
    }

    /// [`NetReceiver::send_status`] with the blocks this receiver lacks (see
    /// [`convoy_proto::Receiver::send_status_with_needs`]).
    pub fn send_status_with_needs(
        &mut self,
        status: ReceiverStatus,
        needs: Vec<BlockRange>,
    ) -> io::Result<()> {
        self.receiver.send_status_with_needs(status, needs);
        let now = self.driver.now();
        self.driver.flush(&mut self.receiver, now);
        Ok(())
    }

    fn turn(&mut self, until: Instant) -> io::Result<()> {
        self.driver.turn(&mut self.receiver, until)?;
        let s = self.receiver.stats();
        let heard = s.odata + s.rdata + s.spms + s.ncfs;
        if heard != self.heard_count {
            self.heard_count = heard;
            self.last_heard = Some(self.driver.now());
        }
        Ok(())
    }

    /// The next event, running the loop for at most `timeout` to get one; `None` if none came. Deliveries wait
    /// in the engine's receive window, whose memory is bounded
    /// ([`convoy_proto::rxw::RxwConfig::max_buffered_bytes`]): an application that reads slowly makes this
    /// receiver refuse new data, which its congestion control reports as loss, slowing the session.
    pub fn recv(&mut self, timeout: Duration) -> io::Result<Option<ReceiverEvent>> {
        let until = self.driver.now() + timeout;
        loop {
            if let Some(e) = self.receiver.poll_event() {
                return Ok(Some(e));
            }
            if self.driver.now() >= until {
                return Ok(None);
            }
            self.turn(until)?;
        }
    }

    /// Run the loop for at most `timeout` without taking any event: deliveries wait in the receive window (an
    /// application that cannot take data now keeps the protocol running this way).
    pub fn drive(&mut self, timeout: Duration) -> io::Result<()> {
        let until = self.driver.now() + timeout;
        self.turn(until)
    }

    /// Leave the session: an acker says goodbye (draft §2.3.2), then the sockets close (leaving the group).
    pub fn close(mut self) -> io::Result<()> {
        let now = self.driver.now();
        self.receiver.close(now);
        self.driver.flush(&mut self.receiver, now);
        Ok(())
    }
}
