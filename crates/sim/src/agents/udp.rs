//! UDP cross traffic: constant bit rate with optional jitter, and Pareto on/off.

use super::Outbox;
use crate::ids::{AgentId, FlowId, NodeId};
use crate::observe::Bins;
use crate::packet::{Body, Dest, Packet};
use crate::seed::unit;
use convoy_proto::Instant;
use rand_chacha::ChaCha8Rng;
use std::time::Duration;

/// How a UDP source sends.
#[derive(Clone, Debug, PartialEq)]
pub enum UdpPattern {
    /// Constant bit rate; each inter-packet gap is scaled by a uniform factor in [1 − jitter, 1 + jitter].
    Cbr {
        /// Bits per second.
        rate_bps: u64,
        /// Relative jitter of the gap, in [0, 1).
        jitter: f64,
    },
    /// Pareto on/off (ns-2's POO_Traffic): bursts at `rate_bps` whose on and off durations are Pareto-distributed
    /// with the given means and shape.
    ParetoOnOff {
        /// Rate during bursts.
        rate_bps: u64,
        /// Mean burst duration.
        mean_on: Duration,
        /// Mean idle duration.
        mean_off: Duration,
        /// Pareto shape (ns-2 default 1.5).
        shape: f64,
    },
}

/// A UDP source.
#[derive(Debug)]
pub struct UdpSourceAgent {
    /// Node.
    pub node: NodeId,
    /// Flow.
    pub flow: FlowId,
    dst_node: NodeId,
    dst_agent: AgentId,
    size: u32,
    pattern: UdpPattern,
    rng: ChaCha8Rng,
    active: bool,
    next_send: Option<Instant>,
    /// On/off: end of the current burst.
    burst_end: Option<Instant>,
    seq: u64,
    /// Bytes sent per interval.
    pub sent_bins: Bins,
}

impl UdpSourceAgent {
    /// A source of `size`-byte packets (IP size) to `dst_agent` at `dst_node`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        node: NodeId,
        flow: FlowId,
        dst_node: NodeId,
        dst_agent: AgentId,
        size: u32,
        pattern: UdpPattern,
        rng: ChaCha8Rng,
        interval: Duration,
    ) -> Self {
        UdpSourceAgent {
            node,
            flow,
            dst_node,
            dst_agent,
            size,
            pattern,
            rng,
            active: false,
            next_send: None,
            burst_end: None,
            seq: 0,
            sent_bins: Bins::new(interval),
        }
    }

    fn gap(&self, rate_bps: u64) -> Duration {
        crate::time_util::tx_time(self.size, rate_bps)
    }

    fn pareto(&mut self, mean: Duration, shape: f64) -> Duration {
        let scale = mean.as_secs_f64() * (shape - 1.0) / shape;
        let u = 1.0 - unit(&mut self.rng); // (0, 1]
        Duration::from_secs_f64(scale / u.powf(1.0 / shape))
    }

    /// Start sending.
    pub fn start(&mut self, now: Instant, out: &mut Outbox) {
        self.active = true;
        self.next_send = Some(now);
        if let UdpPattern::ParetoOnOff { mean_on, shape, .. } = self.pattern {
            let on = self.pareto(mean_on, shape);
            self.burst_end = Some(now + on);
        }
        self.on_timer(now, out);
    }

    /// Stop sending.
    pub fn stop(&mut self) {
        self.active = false;
        self.next_send = None;
    }

    /// Next deadline.
    pub fn next_timer(&self) -> Option<Instant> {
        self.next_send
    }

    /// Send what is due.
    pub fn on_timer(&mut self, now: Instant, out: &mut Outbox) {
        while self.active && self.next_send.is_some_and(|t| t <= now) {
            let at = self.next_send.unwrap_or(now);
            match self.pattern.clone() {
                UdpPattern::Cbr { rate_bps, jitter } => {
                    self.emit(at, out);
                    let factor = 1.0 + jitter * (2.0 * unit(&mut self.rng) - 1.0);
                    self.next_send = Some(at + self.gap(rate_bps).mul_f64(factor.max(0.0)));
                }
                UdpPattern::ParetoOnOff {
                    rate_bps,
                    mean_off,
                    mean_on,
                    shape,
                } => {
                    let end = self.burst_end.unwrap_or(at);
                    if at < end {
                        self.emit(at, out);
                        self.next_send = Some(at + self.gap(rate_bps));
                    } else {
                        let off = self.pareto(mean_off, shape);
                        let on = self.pareto(mean_on, shape);
                        let start = end + off;
                        self.burst_end = Some(start + on);
                        self.next_send = Some(start);
                    }
                }
            }
        }
    }

    fn emit(&mut self, now: Instant, out: &mut Outbox) {
        self.sent_bins.add(now, f64::from(self.size));
        out.packets.push(Packet {
            size: self.size,
            src: self.node,
            dst: Dest::Node(self.dst_node),
            flow: self.flow,
            to_agent: Some(self.dst_agent),
            body: Body::Udp { seq: self.seq },
        });
        self.seq += 1;
    }
}

/// Counts what arrives.
#[derive(Debug)]
pub struct UdpSinkAgent {
    /// Node.
    pub node: NodeId,
    /// Bytes received per interval.
    pub received_bins: Bins,
    /// Bytes received.
    pub received: u64,
}

impl UdpSinkAgent {
    /// A sink at `node`.
    pub fn new(node: NodeId, interval: Duration) -> Self {
        UdpSinkAgent {
            node,
            received_bins: Bins::new(interval),
            received: 0,
        }
    }

    /// Count a packet.
    pub fn on_packet(&mut self, now: Instant, packet: &Packet) {
        self.received += u64::from(packet.size);
        self.received_bins.add(now, f64::from(packet.size));
    }
}
