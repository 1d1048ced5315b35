//! An in-memory network with virtual time that drives one [`Sender`] and N [`Receiver`]s, for tests and
//! demonstrations (in the manner of quinn-proto's `tests/util.rs`). It is not the simulator: each receiver has its
//! own path from the sender (delay, Bernoulli loss, optional rate and drop-tail queue), feedback travels back
//! over the same delay, and there is no shared bottleneck.
//!
//! Everything is a pure function of the configuration and seed: events are ordered by (time, insertion
//! counter), and each path draws its losses from its own ChaCha8 stream.

use crate::cc::{CcEvent, CcSnapshot, ReductionCause};
use crate::receiver::{Receiver, ReceiverConfig, ReceiverEvent};
use crate::sender::{Sender, SenderConfig, SenderEvent};
use crate::time::Instant;
use crate::transmit::Destination;
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};
use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

/// One receiver's path from the sender.
#[derive(Clone, Debug, PartialEq)]
pub struct PathConfig {
    /// One-way propagation delay, both directions.
    pub delay: Duration,
    /// Probability that a downstream packet is lost.
    pub loss: f64,
    /// Downstream link rate in bits per second; `None` = infinitely fast.
    pub rate_bps: Option<u64>,
    /// Drop-tail queue limit in packets (with a rate).
    pub queue_packets: usize,
    /// Probability that an upstream packet (NAK, ACK) is lost.
    pub upstream_loss: f64,
}

impl Default for PathConfig {
    fn default() -> Self {
        PathConfig {
            delay: Duration::from_millis(10),
            loss: 0.0,
            rate_bps: None,
            queue_packets: 50,
            upstream_loss: 0.0,
        }
    }
}

/// What the harness runs.
#[derive(Clone, Debug)]
pub struct HarnessConfig {
    /// Seed for every random stream (paths and endpoints).
    pub seed: u64,
    /// The source.
    pub sender: SenderConfig,
    /// The receivers and their paths.
    pub receivers: Vec<(ReceiverConfig, PathConfig)>,
    /// Size of each APDU the application writes.
    pub apdu_size: usize,
    /// APDUs to send (the sender closes after the last).
    pub apdus: u64,
    /// Keep a human-readable trace of every packet and event.
    pub record_trace: bool,
}

impl HarnessConfig {
    /// A sender at 10.0.0.1 and receivers at 10.0.1.1, 10.0.1.2, … with the given paths, group 239.1.1.1.
    pub fn new(seed: u64, paths: Vec<PathConfig>, apdus: u64) -> Self {
        let group = IpAddr::V4(Ipv4Addr::new(239, 1, 1, 1));
        let sender = SenderConfig::new(IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)), group);
        let receivers = paths
            .into_iter()
            .enumerate()
            .map(|(i, p)| (ReceiverConfig::new(Self::receiver_addr(i), group), p))
            .collect();
        HarnessConfig {
            seed,
            sender,
            receivers,
            apdu_size: 1400,
            apdus,
            record_trace: false,
        }
    }

    /// The address given to receiver `i` by [`HarnessConfig::new`].
    pub fn receiver_addr(i: usize) -> IpAddr {
        IpAddr::V4(Ipv4Addr::new(10, 0, 1, (i + 1) as u8))
    }
}

/// The deterministic content of APDU `index`: its index, then a pattern derived from it.
pub fn apdu_content(index: u64, size: usize) -> Vec<u8> {
    let mut v: Vec<u8> = (0..size)
        .map(|j| (index.wrapping_mul(31).wrapping_add(j as u64)) as u8)
        .collect();
    for (k, b) in index.to_be_bytes().iter().enumerate().take(size) {
        v[k] = *b;
    }
    v
}

/// A node of the harness network.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Node {
    Sender,
    Receiver(usize),
}

#[derive(Debug)]
struct InFlight {
    at: Instant,
    order: u64,
    to: Node,
    from: IpAddr,
    bytes: Vec<u8>,
}

impl PartialEq for InFlight {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.order) == (other.at, other.order)
    }
}
impl Eq for InFlight {}
impl PartialOrd for InFlight {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for InFlight {
    /// Reversed, so the max-heap pops the earliest (time, insertion order) first.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.at, other.order).cmp(&(self.at, self.order))
    }
}

/// One receiver's downstream link state.
#[derive(Debug)]
struct Link {
    config: PathConfig,
    rng: ChaCha8Rng,
    busy_until: Instant,
    departures: VecDeque<Instant>,
    drops: u64,
}

/// What one receiver got.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReceiverOutcome {
    /// APDUs delivered, all checked against [`apdu_content`] in order.
    pub delivered: u64,
    /// The first delivered APDU that did not match (index), if any.
    pub mismatch: Option<u64>,
    /// Sequence numbers reported unrecoverable.
    pub lost_sqns: u64,
    /// The source's FIN was seen and everything delivered.
    pub finished: bool,
    /// Packets the path dropped.
    pub path_drops: u64,
    /// When the source shed it ([`ReceiverEvent::Shed`]).
    pub shed_at: Option<Instant>,
}

/// A sender event with its time and the controller state right after it.
#[derive(Clone, Debug, PartialEq)]
pub struct TimedEvent {
    /// When.
    pub t: Instant,
    /// What.
    pub event: SenderEvent,
    /// Controller state right after.
    pub snapshot: CcSnapshot,
}

/// The harness.
pub struct Harness {
    config: HarnessConfig,
    now: Instant,
    order: u64,
    sender: Sender,
    receivers: Vec<Receiver>,
    links: Vec<Link>,
    up_rng: Vec<ChaCha8Rng>,
    heap: BinaryHeap<InFlight>,
    written: u64,
    outcomes: Vec<ReceiverOutcome>,
    events: Vec<TimedEvent>,
    /// Window before and after each datagram that switched the acker (and did not also reduce the window).
    switch_windows: Vec<(f64, f64)>,
    acker_time: Vec<Duration>,
    acker_since: Option<(IpAddr, Instant)>,
    trace: Vec<String>,
    buf: Vec<u8>,
}

fn derive_seed(seed: u64, stream: u64) -> u64 {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(stream);
    rng.next_u64()
}

impl Harness {
    /// Build the network; nothing runs until [`Harness::run_until`].
    pub fn new(config: HarnessConfig) -> Self {
        let now = Instant::ZERO;
        let sender = Sender::new(config.sender.clone(), now);
        let n = config.receivers.len();
        let receivers = config
            .receivers
            .iter()
            .enumerate()
            .map(|(i, (rc, _))| {
                Receiver::new(rc.clone(), derive_seed(config.seed, 1000 + i as u64))
            })
            .collect();
        let links = config
            .receivers
            .iter()
            .enumerate()
            .map(|(i, (_, p))| Link {
                config: p.clone(),
                rng: ChaCha8Rng::seed_from_u64(derive_seed(config.seed, 2000 + i as u64)),
                busy_until: now,
                departures: VecDeque::new(),
                drops: 0,
            })
            .collect();
        let up_rng = (0..n)
            .map(|i| ChaCha8Rng::seed_from_u64(derive_seed(config.seed, 3000 + i as u64)))
            .collect();
        Harness {
            now,
            order: 0,
            sender,
            receivers,
            links,
            up_rng,
            heap: BinaryHeap::new(),
            written: 0,
            outcomes: vec![ReceiverOutcome::default(); n],
            events: Vec::new(),
            switch_windows: Vec::new(),
            acker_time: vec![Duration::ZERO; n],
            acker_since: None,
            trace: Vec::new(),
            buf: vec![0; 65536],
            config,
        }
    }

    /// Current virtual time.
    pub fn now(&self) -> Instant {
        self.now
    }

    /// The source.
    pub fn sender(&self) -> &Sender {
        &self.sender
    }

    /// Receiver `i`.
    pub fn receiver(&self, i: usize) -> &Receiver {
        &self.receivers[i]
    }

    /// What receiver `i` got so far.
    pub fn outcome(&self, i: usize) -> &ReceiverOutcome {
        &self.outcomes[i]
    }

    /// Sender events (except `TokensAvailable`) with times and controller state.
    pub fn events(&self) -> &[TimedEvent] {
        &self.events
    }

    /// Window (before, after) around every datagram that changed the acker without a loss reduction.
    pub fn switch_windows(&self) -> &[(f64, f64)] {
        &self.switch_windows
    }

    /// How long receiver `i` has been the acker.
    pub fn acker_time(&self, i: usize) -> Duration {
        let mut t = self.acker_time[i];
        if let Some((ip, since)) = self.acker_since {
            if ip == HarnessConfig::receiver_addr(i) || self.config.receivers[i].0.local_nla == ip {
                t += self.now - since;
            }
        }
        t
    }

    /// The trace, when enabled.
    pub fn trace(&self) -> &[String] {
        &self.trace
    }

    /// Loss reductions seen by the sender.
    pub fn loss_reductions(&self) -> usize {
        self.events
            .iter()
            .filter(|e| {
                matches!(
                    e.event,
                    SenderEvent::Cc(CcEvent::Reduced {
                        cause: ReductionCause::Loss,
                        ..
                    })
                )
            })
            .count()
    }

    /// Whether every receiver delivered every APDU.
    pub fn all_delivered(&self) -> bool {
        self.outcomes
            .iter()
            .all(|o| o.delivered == self.config.apdus && o.mismatch.is_none())
    }

    fn log(&mut self, line: impl FnOnce() -> String) {
        if self.config.record_trace {
            let l = line();
            self.trace.push(format!("{} {}", self.now, l));
        }
    }

    fn schedule(&mut self, at: Instant, to: Node, from: IpAddr, bytes: Vec<u8>) {
        self.order += 1;
        self.heap.push(InFlight {
            at,
            order: self.order,
            to,
            from,
            bytes,
        });
    }

    /// Send `bytes` from the sender down receiver `i`'s path.
    fn downstream(&mut self, i: usize, bytes: Vec<u8>) {
        let now = self.now;
        let link = &mut self.links[i];
        if link.config.loss > 0.0
            && (link.rng.next_u64() as f64 / u64::MAX as f64) < link.config.loss
        {
            link.drops += 1;
            return;
        }
        let arrive = match link.config.rate_bps {
            None => now + link.config.delay,
            Some(rate) => {
                while link.departures.front().is_some_and(|&d| d <= now) {
                    link.departures.pop_front();
                }
                if link.departures.len() >= link.config.queue_packets.max(1) {
                    link.drops += 1;
                    return;
                }
                let tx = Duration::from_nanos(
                    (bytes.len() as u64 * 8).saturating_mul(1_000_000_000) / rate.max(1),
                );
                let start = link.busy_until.max(now);
                link.busy_until = start + tx;
                link.departures.push_back(link.busy_until);
                link.busy_until + link.config.delay
            }
        };
        let from = self.config.sender.local_nla;
        self.schedule(arrive, Node::Receiver(i), from, bytes);
    }

    fn flush_sender(&mut self) {
        // Application: keep the queue filled while there is data left.
        while self.written < self.config.apdus && self.sender.queue_space() >= self.config.apdu_size
        {
            let data = apdu_content(self.written, self.config.apdu_size);
            if self.sender.write(&data).is_err() {
                break;
            }
            self.written += 1;
            if self.written == self.config.apdus {
                self.sender.close(self.now);
            }
        }
        let mut buf = std::mem::take(&mut self.buf);
        while let Some(t) = self.sender.poll_transmit(self.now, &mut buf) {
            let bytes = buf[..t.len].to_vec();
            self.log(|| format!("S tx {:?} {}B -> {:?}", t.packet_type, t.len, t.destination));
            match t.destination {
                Destination::Group => {
                    for i in 0..self.receivers.len() {
                        self.downstream(i, bytes.clone());
                    }
                }
                Destination::Unicast(ip) => {
                    if let Some(i) = self.receivers.iter().position(|r| r.local_nla() == ip) {
                        self.downstream(i, bytes);
                    }
                }
            }
        }
        self.buf = buf;
        while let Some(e) = self.sender.poll_event() {
            if e == SenderEvent::TokensAvailable {
                continue;
            }
            if let SenderEvent::Cc(CcEvent::AckerChanged { to, .. }) = &e {
                self.note_acker(*to);
            }
            self.log(|| format!("S event {e:?}"));
            let snapshot = self.sender.cc_snapshot();
            self.events.push(TimedEvent {
                t: self.now,
                event: e,
                snapshot,
            });
        }
    }

    fn note_acker(&mut self, to: Option<IpAddr>) {
        if let Some((ip, since)) = self.acker_since.take() {
            if let Some(i) = self.receivers.iter().position(|r| r.local_nla() == ip) {
                self.acker_time[i] += self.now - since;
            }
        }
        self.acker_since = to.map(|ip| (ip, self.now));
    }

    fn flush_receiver(&mut self, i: usize) {
        let mut buf = std::mem::take(&mut self.buf);
        while let Some(t) = self.receivers[i].poll_transmit(self.now, &mut buf) {
            self.log(|| format!("R{i} tx {:?} {}B", t.packet_type, t.len));
            let lost = self.links[i].config.upstream_loss > 0.0
                && (self.up_rng[i].next_u64() as f64 / u64::MAX as f64)
                    < self.links[i].config.upstream_loss;
            if !lost && t.destination == Destination::Unicast(self.config.sender.local_nla) {
                let at = self.now + self.links[i].config.delay;
                let from = self.receivers[i].local_nla();
                self.schedule(at, Node::Sender, from, buf[..t.len].to_vec());
            }
        }
        self.buf = buf;
        while let Some(e) = self.receivers[i].poll_event() {
            let size = self.config.apdu_size;
            let out = &mut self.outcomes[i];
            match e {
                ReceiverEvent::Data(data) => {
                    if out.mismatch.is_none() && data != apdu_content(out.delivered, size) {
                        out.mismatch = Some(out.delivered);
                    }
                    out.delivered += 1;
                    if self.config.record_trace {
                        let n = out.delivered;
                        self.trace.push(format!("{} R{i} delivered #{n}", self.now));
                    }
                }
                ReceiverEvent::Lost {
                    first_sqn,
                    last_sqn,
                } => {
                    out.lost_sqns += u64::from(last_sqn.wrapping_sub(first_sqn)) + 1;
                    self.log(|| format!("R{i} lost {first_sqn}..={last_sqn}"));
                }
                ReceiverEvent::Finished => out.finished = true,
                ReceiverEvent::Shed(_) => out.shed_at = out.shed_at.or(Some(self.now)),
                other => self.log(|| format!("R{i} event {other:?}")),
            }
        }
        self.outcomes[i].path_drops = self.links[i].drops;
    }

    fn next_time(&self) -> Option<Instant> {
        let mut next = self.heap.peek().map(|f| f.at);
        let mut consider = |t: Option<Instant>| {
            if let Some(t) = t {
                next = Some(next.map_or(t, |n: Instant| n.min(t)));
            }
        };
        consider(self.sender.poll_timeout());
        for r in &self.receivers {
            consider(r.poll_timeout());
        }
        next
    }

    /// Run until virtual time `until` (or until nothing is left to do).
    pub fn run_until(&mut self, until: Instant) {
        self.flush_sender();
        for i in 0..self.receivers.len() {
            self.flush_receiver(i);
        }
        while let Some(t) = self.next_time() {
            if t > until {
                break;
            }
            self.now = self.now.max(t);
            while self.heap.peek().is_some_and(|f| f.at <= self.now) {
                let Some(f) = self.heap.pop() else { break };
                match f.to {
                    Node::Sender => {
                        let before = self.sender.cc_snapshot();
                        let n_events = self.events.len();
                        self.sender.handle_datagram(self.now, f.from, &f.bytes);
                        self.flush_sender();
                        self.note_switch(before, n_events);
                    }
                    Node::Receiver(i) => {
                        self.receivers[i].handle_datagram(self.now, f.from, &f.bytes);
                        self.flush_receiver(i);
                    }
                }
            }
            if self.sender.poll_timeout().is_some_and(|d| d <= self.now) {
                self.sender.handle_timeout(self.now);
                self.flush_sender();
            }
            for i in 0..self.receivers.len() {
                if self.receivers[i]
                    .poll_timeout()
                    .is_some_and(|d| d <= self.now)
                {
                    self.receivers[i].handle_timeout(self.now);
                    self.flush_receiver(i);
                }
            }
            if self.sender.is_closed() && self.heap.is_empty() {
                break;
            }
        }
        self.now = self.now.max(until);
    }

    fn note_switch(&mut self, before: CcSnapshot, first_event: usize) {
        let new = &self.events[first_event..];
        let switched = new.iter().any(|e| {
            matches!(
                e.event,
                SenderEvent::Cc(CcEvent::AckerChanged {
                    from: Some(_),
                    to: Some(_)
                })
            )
        });
        let reduced = new
            .iter()
            .any(|e| matches!(e.event, SenderEvent::Cc(CcEvent::Reduced { .. })));
        if switched && !reduced {
            let after = self.sender.cc_snapshot();
            self.switch_windows
                .push((before.window.unwrap_or(0.0), after.window.unwrap_or(0.0)));
        }
    }
}
