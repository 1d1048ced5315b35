//! The canonical TCP dumbbell, built in code: used by the TCP validation tests and by `convoy bench sim`
//! (the same topology as the ns-3 reference program in bench/ns3/).

use crate::impairment::ImpairmentConfig;
use crate::link::LinkConfig;
use crate::queue::{Limit, QueueConfig};
use crate::seed::{component_rng, unit};
use crate::tcp::{TcpConfig, TcpVariant};
use crate::{LinkId, Network, NodeKind};
use convoy_proto::Instant;
use std::time::Duration;

/// Dumbbell parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct Dumbbell {
    /// Number of TCP flows.
    pub flows: usize,
    /// Access links (rate, one-way delay).
    pub access: (u64, Duration),
    /// Bottleneck (rate, one-way delay).
    pub bottleneck: (u64, Duration),
    /// Queue limit of every link, packets.
    pub queue_pkts: u32,
    /// Random loss on the bottleneck (forward direction).
    pub bottleneck_loss: f64,
    /// TCP parameters.
    pub tcp: TcpConfig,
    /// Flows start uniformly at random within this span.
    pub start_spread: Duration,
    /// Seed.
    pub seed: u64,
}

impl Dumbbell {
    /// The benchmark dumbbell of issue 3: 100 Mbit/s 1 ms access, 10 Mbit/s 20 ms bottleneck, 100-packet
    /// drop-tail queues, NewReno with SACK, 1000-byte segments, IW 2, an ACK per segment, min RTO 0.2 s,
    /// starts in the first second, a 128 KiB receive window (ns-3's default socket buffers).
    pub fn benchmark(flows: usize, seed: u64) -> Self {
        Dumbbell {
            flows,
            access: (100_000_000, Duration::from_millis(1)),
            bottleneck: (10_000_000, Duration::from_millis(20)),
            queue_pkts: 100,
            bottleneck_loss: 0.0,
            tcp: TcpConfig {
                variant: TcpVariant::Sack,
                mss: 1000,
                initial_window: 2,
                min_rto: Duration::from_millis(200),
                delayed_ack: false,
                // ns-3's default socket buffers (128 KiB) cap the window; modelled as a receiver window so the
                // comparison with bench/ns3 holds at N = 1, where that cap, not the queue, limits the flow.
                max_cwnd: Some(131_072),
                ..TcpConfig::default()
            },
            start_spread: Duration::from_secs(1),
            seed,
        }
    }

    /// Build it; returns the network and the bottleneck's forward link.
    pub fn build(&self) -> (Network, LinkId) {
        let mut net = Network::new(self.seed, Duration::from_secs(1), Duration::ZERO);
        let link = |(rate, delay): (u64, Duration), loss: f64| LinkConfig {
            rate_bps: rate,
            delay,
            queue: QueueConfig::DropTail(Limit::Packets(self.queue_pkts)),
            impairment: if loss > 0.0 {
                ImpairmentConfig::Bernoulli { p: loss }
            } else {
                ImpairmentConfig::None
            },
        };
        let l = net.add_node("L", NodeKind::Router).expect("fresh name");
        let r = net.add_node("R", NodeKind::Router).expect("fresh name");
        let (bottleneck, _) = net.add_link(
            "bottleneck",
            l,
            r,
            link(self.bottleneck, self.bottleneck_loss),
            link(self.bottleneck, 0.0),
        );
        let mut starts = component_rng(self.seed, "dumbbell:starts");
        for i in 0..self.flows {
            let s = net
                .add_node(&format!("S{i}"), NodeKind::Host)
                .expect("fresh name");
            let d = net
                .add_node(&format!("D{i}"), NodeKind::Host)
                .expect("fresh name");
            net.add_link(
                &format!("S{i}-L"),
                s,
                l,
                link(self.access, 0.0),
                link(self.access, 0.0),
            );
            net.add_link(
                &format!("R-D{i}"),
                r,
                d,
                link(self.access, 0.0),
                link(self.access, 0.0),
            );
            let start = Instant::from_secs_f64(unit(&mut starts) * self.start_spread.as_secs_f64());
            net.add_tcp(&format!("tcp{i}"), s, d, self.tcp, start, None, None);
        }
        (net, bottleneck)
    }
}

/// Jain's fairness index of `xs`: (Σx)² / (n·Σx²).
pub fn jain(xs: &[f64]) -> f64 {
    let sum: f64 = xs.iter().sum();
    let sq: f64 = xs.iter().map(|x| x * x).sum();
    if sq == 0.0 {
        1.0
    } else {
        sum * sum / (xs.len() as f64 * sq)
    }
}
