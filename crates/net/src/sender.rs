//! [`NetSender`]: a PGM source on a UDP multicast group.

use crate::driver::{Clock, Driver, IoStats};
use crate::feedback_watch::FeedbackWatch;
use crate::packet_trace::PacketTrace;
use crate::socket::{self, GroupOptions, ResolvedInterface};
use convoy_proto::{Instant, Sender, SenderConfig, SenderEvent, WriteError};
use std::collections::VecDeque;
use std::hash::{BuildHasher, Hasher};
use std::io;
use std::path::Path;
use std::time::Duration;

/// Where a [`NetSender`] gets repairs the transmit window no longer holds (see
/// [`convoy_proto::Sender::set_repair_floor`]): given a sequence number, the whole APDU it belongs to and the
/// sequence number of that APDU's first packet.
pub trait RepairSource {
    /// The APDU containing `sqn` and its first sequence number, or `None` if it cannot be produced (the
    /// receivers will then eventually report the data lost).
    fn apdu_for(&mut self, sqn: u32) -> Option<(u32, Vec<u8>)>;
}

/// A write sends queued data at once when the last send is older than this (else it waits for a batch).
pub const FLUSH_AFTER: Duration = Duration::from_micros(500);

/// Bound on events waiting for the application.
const MAX_EVENTS: usize = 1 << 16;

/// A random 64-bit value from the standard library's per-process hash keys (OS randomness); used for the
/// session identity, never for anything the protocol's determinism depends on.
pub(crate) fn random_u64() -> u64 {
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(std::process::id().into());
    h.finish()
}

/// A PGM source sending to a multicast group over UDP, driven by a single-threaded loop inside its methods.
///
/// ```no_run
/// use convoy_net::{GroupOptions, NetSender};
/// use std::time::Duration;
/// let opts = GroupOptions::new("239.192.0.1:7500".parse().unwrap());
/// let mut tx = NetSender::open(&opts, |_config| {})?;
/// tx.write(b"hello, group")?;
/// tx.close(Duration::from_secs(10))?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct NetSender {
    driver: Driver,
    sender: Sender,
    events: VecDeque<SenderEvent>,
    repair_source: Option<Box<dyn RepairSource>>,
    interface: ResolvedInterface,
    feedback_watch: Option<FeedbackWatch>,
}

impl std::fmt::Debug for NetSender {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NetSender")
            .field("sender", &self.sender)
            .field("interface", &self.interface)
            .finish()
    }
}

impl NetSender {
    /// Open a source on `group`. The configuration starts from [`SenderConfig::new`] with this host's address
    /// on the interface as path NLA, a random GSI and data-source port; `configure` may change anything
    /// (controller, rates, window).
    pub fn open(
        group: &GroupOptions,
        configure: impl FnOnce(&mut SenderConfig),
    ) -> io::Result<Self> {
        let sock = socket::open_source(group)?;
        let mut config = SenderConfig::new(sock.interface.local, group.group.ip());
        let r = random_u64().to_be_bytes();
        config.gsi = convoy_wire::Gsi([r[0], r[1], r[2], r[3], r[4], r[5]]);
        config.source_port = u16::from_be_bytes([r[6], r[7]]).max(1);
        let default_tsdu = config.max_tsdu;
        configure(&mut config);
        // Data packets fit the interface's MTU with the options of the scheme in use, so that IP never fragments
        // them (a lost fragment loses the packet): 1400-byte TSDUs fit IPv4 on Ethernet under pgmcc, IPv6 needs
        // 1372. A TSDU `configure` chose is kept.
        if let Some(mtu) = sock
            .interface
            .name
            .as_deref()
            .and_then(socket::interface_mtu)
            .filter(|_| config.max_tsdu == default_tsdu)
        {
            let fit = socket::tsdu_for_mtu(mtu, group.group.is_ipv6(), config.cc.name());
            // A keyed session's packets carry OPT_CONVOY_AUTH too.
            let auth = config
                .auth
                .as_ref()
                .map_or(0, |_| convoy_proto::auth::AUTH_OVERHEAD);
            config.max_tsdu = config.max_tsdu.min(fit.saturating_sub(auth).max(256));
        }
        let packet_len = config.max_tsdu + 512;
        let interface = sock.interface.clone();
        let driver = Driver::new(sock.socket, None, group.group, interface.index, packet_len)?;
        let sender = Sender::new(config, driver.now());
        Ok(NetSender {
            driver,
            sender,
            events: VecDeque::new(),
            repair_source: None,
            interface,
            feedback_watch: None,
        })
    }

    /// The protocol engine (statistics, controller state, window edges).
    pub fn sender(&self) -> &Sender {
        &self.sender
    }

    /// The protocol engine, mutably (e.g. to set a repair floor).
    pub fn sender_mut(&mut self) -> &mut Sender {
        &mut self.sender
    }

    /// The interface and local address in use.
    pub fn interface(&self) -> &ResolvedInterface {
        &self.interface
    }

    /// Record every datagram sent and read from now on in a CSV file at `path` ([`crate::packet_trace`]).
    pub fn trace_packets(&mut self, path: &Path) -> io::Result<()> {
        let trace = PacketTrace::create(path, self.interface.local)?;
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

    /// Answer [`SenderEvent::RepairRequested`] from `source` inside the loop (those events then no longer
    /// reach the application).
    pub fn set_repair_source(&mut self, source: Box<dyn RepairSource>) {
        self.repair_source = Some(source);
    }

    fn collect_events(&mut self) {
        while let Some(e) = self.sender.poll_event() {
            if let (SenderEvent::RepairRequested { sqn }, Some(src)) =
                (&e, self.repair_source.as_mut())
            {
                if let Some((first, apdu)) = src.apdu_for(*sqn) {
                    self.sender.supply_repair(*sqn, first, &apdu);
                }
                continue;
            }
            if self.events.len() >= MAX_EVENTS {
                self.events.pop_front();
            }
            self.events.push_back(e);
        }
    }

    /// Fail every later call that runs the loop with [`NoFeedback`](crate::feedback_watch::NoFeedback) when no receiver has clocked the session
    /// `limit` after the first data packet (module [`crate::feedback_watch`]). For controllers that need
    /// feedback: a fixed rate never has a receiver clocking it.
    pub fn set_feedback_limit(&mut self, limit: Duration) {
        self.feedback_watch = Some(FeedbackWatch::new(limit));
    }

    fn turn(&mut self, until: Instant) -> io::Result<()> {
        self.driver.turn(&mut self.sender, until)?;
        self.collect_events();
        if let Some(w) = self.feedback_watch.as_mut() {
            w.check(&self.sender, self.driver.now())
                .map_err(io::Error::other)?;
        }
        if self.sender.pending_app_repairs() == 0 {
            return Ok(());
        }
        // Repairs supplied just now: send them without waiting for the next input.
        let now = self.driver.now();
        self.driver.flush(&mut self.sender, now);
        Ok(())
    }

    /// Run the loop for at most `timeout`, returning early once an event is waiting.
    pub fn drive(&mut self, timeout: Duration) -> io::Result<()> {
        let until = self.driver.now() + timeout;
        while self.events.is_empty() && self.driver.now() < until {
            self.turn(until)?;
        }
        Ok(())
    }

    /// Run the loop until `until` (a time of [`NetSender::clock`]), whatever happens.
    pub fn drive_until(&mut self, until: Instant) -> io::Result<()> {
        while self.driver.now() < until {
            self.turn(until)?;
        }
        Ok(())
    }

    /// The next event, if any (run the loop with [`NetSender::drive`]).
    pub fn poll_event(&mut self) -> Option<SenderEvent> {
        self.events.pop_front()
    }

    /// Queue one APDU, running the loop while the send queue is full. Data leaves in batches (a batch's worth
    /// queued, or [`FLUSH_AFTER`] since the last send); [`NetSender::flush`] and [`NetSender::drive`] send at
    /// once. Fails only when the session is closed (or the APDU exceeds 4 GiB).
    pub fn write(&mut self, apdu: &[u8]) -> io::Result<()> {
        loop {
            match self.sender.write(apdu) {
                Ok(()) => {
                    // Let data leave in batches: once a batch's worth is queued, or when the last flush is
                    // getting old; otherwise the next write, `drive` or `flush` sends it.
                    let now = self.driver.now();
                    let batch = crate::sys::MAX_BATCH * self.sender.config().max_tsdu;
                    if self.sender.queued_bytes() >= batch
                        || now.saturating_duration_since(self.driver.last_flush()) >= FLUSH_AFTER
                    {
                        self.driver.flush(&mut self.sender, now);
                    }
                    return Ok(());
                }
                Err(WriteError::QueueFull { .. }) => {
                    let until = self.driver.now() + Duration::from_millis(50);
                    self.turn(until)?;
                }
                Err(e) => return Err(io::Error::other(e)),
            }
        }
    }

    /// Send what the controller allows now, without waiting.
    pub fn flush(&mut self) {
        let now = self.driver.now();
        self.driver.flush(&mut self.sender, now);
    }

    /// Queue one APDU if there is room, without running the loop.
    pub fn try_write(&mut self, apdu: &[u8]) -> Result<(), WriteError> {
        self.sender.write(apdu)
    }

    /// Close: send what is queued, then SPMs with OPT_FIN, then linger for repairs (the engine's `linger`).
    /// Runs the loop until the session ended or `timeout` passed; returns whether it ended.
    pub fn close(&mut self, timeout: Duration) -> io::Result<bool> {
        let now = self.driver.now();
        self.sender.close(now);
        let until = now + timeout;
        while !self.sender.is_closed() && self.driver.now() < until {
            self.turn(until)?;
        }
        Ok(self.sender.is_closed())
    }
}
