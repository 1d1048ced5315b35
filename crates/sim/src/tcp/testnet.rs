//! A test-only network: N TCP flows through one bottleneck link.
//!
//! Data segments queue at a single link (rate, propagation delay, drop-tail queue counted in packets waiting,
//! the one in transmission not included — as ns-2's DropTail), optionally after a Bernoulli loss drawn from a
//! seeded ChaCha8 generator; ACKs return over a delay-only path. Event-driven: a binary heap ordered by (time,
//! insertion counter), so ties resolve in insertion order and runs are reproducible.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::time::Duration;

use convoy_proto::Instant;
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

use super::{TcpConfig, TcpSegment, TcpSender, TcpSink};

/// The bottleneck.
#[derive(Clone, Copy, Debug)]
pub struct LinkConfig {
    pub rate_bps: u64,
    /// One-way propagation delay of the bottleneck (data direction).
    pub delay: Duration,
    /// Packets that may wait (besides the one being sent).
    pub queue_packets: usize,
    /// Bernoulli loss probability applied to each data packet before it is queued.
    pub loss: f64,
    pub seed: u64,
}

/// One TCP flow.
#[derive(Clone, Copy, Debug)]
pub struct FlowSpec {
    pub config: TcpConfig,
    pub start: Instant,
    /// Delay of the ACK path back to the sender.
    pub ack_delay: Duration,
}

pub struct Flow {
    pub spec: FlowSpec,
    pub sender: TcpSender,
    pub sink: TcpSink,
    started: bool,
    sender_timer: Option<Instant>,
    sink_timer: Option<Instant>,
}

enum Kind {
    Start(usize),
    TxDone,
    Data(usize, TcpSegment),
    Ack(usize, TcpSegment),
    SenderTimer(usize),
    SinkTimer(usize),
}

struct Event {
    at: Instant,
    n: u64,
    kind: Kind,
}

impl PartialEq for Event {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.n) == (other.at, other.n)
    }
}
impl Eq for Event {}
impl PartialOrd for Event {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Event {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.at, self.n).cmp(&(other.at, other.n))
    }
}

pub struct Net {
    link: LinkConfig,
    rng: ChaCha8Rng,
    now: Instant,
    heap: BinaryHeap<Reverse<Event>>,
    counter: u64,
    queue: VecDeque<(usize, TcpSegment)>,
    in_service: Option<(usize, TcpSegment)>,
    pub flows: Vec<Flow>,
    /// Events processed.
    pub events: u64,
    /// Time the link spent transmitting, in nanoseconds.
    pub busy_ns: u64,
    pub queue_drops: u64,
    pub random_drops: u64,
}

impl Net {
    pub fn new(link: LinkConfig, flows: &[FlowSpec]) -> Self {
        let mut net = Net {
            link,
            rng: ChaCha8Rng::seed_from_u64(link.seed),
            now: Instant::ZERO,
            heap: BinaryHeap::new(),
            counter: 0,
            queue: VecDeque::new(),
            in_service: None,
            flows: Vec::new(),
            events: 0,
            busy_ns: 0,
            queue_drops: 0,
            random_drops: 0,
        };
        for (i, spec) in flows.iter().enumerate() {
            net.flows.push(Flow {
                spec: *spec,
                sender: TcpSender::new(spec.config, spec.start),
                sink: TcpSink::new(&spec.config),
                started: false,
                sender_timer: None,
                sink_timer: None,
            });
            net.schedule(spec.start, Kind::Start(i));
        }
        net
    }

    fn schedule(&mut self, at: Instant, kind: Kind) {
        self.counter += 1;
        self.heap.push(Reverse(Event {
            at,
            n: self.counter,
            kind,
        }));
    }

    /// Processes every event up to and including `t`, then sets the clock to `t`.
    pub fn run_until(&mut self, t: Instant) {
        while self.heap.peek().is_some_and(|Reverse(e)| e.at <= t) {
            let Reverse(e) = self.heap.pop().unwrap();
            self.now = e.at;
            self.events += 1;
            self.dispatch(e.kind);
        }
        self.now = t;
    }

    fn dispatch(&mut self, kind: Kind) {
        let now = self.now;
        match kind {
            Kind::Start(f) => {
                self.flows[f].started = true;
                self.pump_sender(f);
            }
            Kind::TxDone => {
                let (f, seg) = self.in_service.take().expect("a packet in service");
                self.schedule(now + self.link.delay, Kind::Data(f, seg));
                if let Some((f, seg)) = self.queue.pop_front() {
                    self.transmit(f, seg);
                }
            }
            Kind::Data(f, seg) => {
                self.flows[f].sink.on_segment(now, &seg);
                self.pump_sink(f);
            }
            Kind::Ack(f, seg) => {
                self.flows[f].sender.on_ack(now, &seg);
                self.pump_sender(f);
            }
            Kind::SenderTimer(f) => {
                if self.flows[f].sender_timer == Some(now) {
                    self.flows[f].sender_timer = None;
                }
                self.flows[f].sender.handle_timeout(now);
                self.pump_sender(f);
            }
            Kind::SinkTimer(f) => {
                if self.flows[f].sink_timer == Some(now) {
                    self.flows[f].sink_timer = None;
                }
                self.flows[f].sink.handle_timeout(now);
                self.pump_sink(f);
            }
        }
    }

    fn pump_sender(&mut self, f: usize) {
        if !self.flows[f].started {
            return;
        }
        let now = self.now;
        while let Some(seg) = self.flows[f].sender.poll_segment(now) {
            self.enqueue(f, seg);
        }
        // Lazy timers: one event per deadline that moved earlier; a stale event just re-checks.
        if let Some(d) = self.flows[f].sender.poll_timeout() {
            if self.flows[f].sender_timer.is_none_or(|s| d < s) {
                self.flows[f].sender_timer = Some(d);
                self.schedule(d, Kind::SenderTimer(f));
            }
        }
    }

    fn pump_sink(&mut self, f: usize) {
        let now = self.now;
        let delay = self.flows[f].spec.ack_delay;
        while let Some(ack) = self.flows[f].sink.poll_ack(now) {
            self.schedule(now + delay, Kind::Ack(f, ack));
        }
        if let Some(d) = self.flows[f].sink.poll_timeout() {
            if self.flows[f].sink_timer.is_none_or(|s| d < s) {
                self.flows[f].sink_timer = Some(d);
                self.schedule(d, Kind::SinkTimer(f));
            }
        }
    }

    fn enqueue(&mut self, f: usize, seg: TcpSegment) {
        if self.link.loss > 0.0 {
            let u = (self.rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
            if u < self.link.loss {
                self.random_drops += 1;
                return;
            }
        }
        if self.in_service.is_none() {
            self.transmit(f, seg);
        } else if self.queue.len() < self.link.queue_packets {
            self.queue.push_back((f, seg));
        } else {
            self.queue_drops += 1;
        }
    }

    fn transmit(&mut self, f: usize, seg: TcpSegment) {
        let bits = u128::from(seg.wire_bytes()) * 8;
        let ns = (bits * 1_000_000_000).div_ceil(u128::from(self.link.rate_bps)) as u64;
        self.busy_ns += ns;
        self.in_service = Some((f, seg));
        self.schedule(self.now + Duration::from_nanos(ns), Kind::TxDone);
    }

    pub fn delivered(&self) -> Vec<u64> {
        self.flows
            .iter()
            .map(|f| f.sink.delivered_bytes())
            .collect()
    }
}

/// Jain's fairness index (Σx)²/(n·Σx²).
pub fn jain(xs: &[f64]) -> f64 {
    let s: f64 = xs.iter().sum();
    let s2: f64 = xs.iter().map(|x| x * x).sum();
    s * s / (xs.len() as f64 * s2)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link() -> LinkConfig {
        LinkConfig {
            rate_bps: 10_000_000,
            delay: Duration::from_millis(20),
            queue_packets: 100,
            loss: 0.0,
            seed: 1,
        }
    }

    #[test]
    fn one_segment_round_trip_timing() {
        // 1500 bytes at 10 Mbit/s = 1.2 ms; + 20 ms each way: the first ACK arrives at 41.2 ms.
        let cfg = TcpConfig {
            initial_window: 1,
            ..TcpConfig::default()
        };
        let spec = FlowSpec {
            config: cfg,
            start: Instant::ZERO,
            ack_delay: Duration::from_millis(20),
        };
        let mut net = Net::new(link(), &[spec]);
        net.run_until(Instant::from_micros(41_199));
        assert_eq!(net.flows[0].sender.snd_una(), 0);
        net.run_until(Instant::from_micros(41_200));
        assert_eq!(net.flows[0].sender.snd_una(), 1460);
        assert_eq!(
            net.flows[0].sender.srtt(),
            Some(Duration::from_micros(41_200))
        );
    }

    #[test]
    fn deterministic_and_jain() {
        let spec = FlowSpec {
            config: TcpConfig::default(),
            start: Instant::ZERO,
            ack_delay: Duration::from_millis(20),
        };
        let run = || {
            let mut net = Net::new(
                LinkConfig {
                    loss: 0.02,
                    ..link()
                },
                &[spec, spec],
            );
            net.run_until(Instant::from_millis(3000));
            (net.delivered(), net.events)
        };
        assert_eq!(run(), run());
        assert!((jain(&[1.0, 1.0, 1.0]) - 1.0).abs() < 1e-12);
        assert!((jain(&[1.0, 0.0]) - 0.5).abs() < 1e-12);
    }
}
