//! One direction of a point-to-point link: rate, propagation delay, queue discipline, random loss.
//!
//! FIFO timing is computed when a packet is admitted: it leaves the transmitter at
//! `departure = max(now, previous departure) + size / rate` and reaches the far node at `departure + delay`.
//! Packets in flight wait in the link's `pipe` in arrival order, so the simulator needs one event per hop (the
//! arrival), not two. Queue occupancy at any instant is the number of admitted packets whose transmission has
//! not started yet, which is exactly what a device queue holds.

use crate::ids::NodeId;
use crate::impairment::{Impairment, ImpairmentConfig};
use crate::packet::Packet;
use crate::queue::{Queue, QueueConfig, Verdict};
use crate::time_util::tx_time;
use convoy_proto::Instant;
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;
use std::time::Duration;

/// Parameters of one link direction.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkConfig {
    /// Rate in bits per second.
    pub rate_bps: u64,
    /// One-way propagation delay.
    pub delay: Duration,
    /// Queue discipline.
    pub queue: QueueConfig,
    /// Random loss.
    pub impairment: ImpairmentConfig,
}

/// Counters of one link direction.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LinkStats {
    /// Packets transmitted.
    pub tx_packets: u64,
    /// Bytes transmitted.
    pub tx_bytes: u64,
    /// Packets dropped by the queue (overflow or RED).
    pub queue_drops: u64,
    /// Packets lost to the random-loss model.
    pub loss_drops: u64,
    /// Total serialisation time (busy time).
    pub busy: Duration,
    /// ∫ waiting packets dt, in packet-seconds (for the mean queue).
    pub queue_integral: f64,
}

/// Outcome of offering a packet to a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offer {
    /// Accepted; it arrives at the far end at this instant.
    Arrives(Instant),
    /// Dropped by the queue.
    QueueDrop,
    /// Lost to the random-loss model.
    Lost,
}

/// One link direction with its state.
#[derive(Debug)]
pub struct Link {
    /// Sending node.
    pub from: NodeId,
    /// Receiving node.
    pub to: NodeId,
    /// Scenario name.
    pub name: String,
    config: LinkConfig,
    queue: Queue,
    impairment: Impairment,
    rng: ChaCha8Rng,
    /// Departure instants and sizes of admitted packets not yet fully transmitted.
    backlog: VecDeque<(Instant, u32)>,
    backlog_bytes: u64,
    last_departure: Instant,
    typical_tx: Duration,
    /// Packets on their way to `to`, in arrival order.
    pipe: VecDeque<(Instant, Packet)>,
    /// Counters.
    pub stats: LinkStats,
}

impl Link {
    /// A link from `from` to `to`; `rng` is its own random stream (loss, RED).
    pub fn new(
        from: NodeId,
        to: NodeId,
        name: String,
        config: LinkConfig,
        rng: ChaCha8Rng,
    ) -> Self {
        Link {
            from,
            to,
            name,
            queue: Queue::new(config.queue),
            impairment: Impairment::new(config.impairment),
            typical_tx: tx_time(1000, config.rate_bps),
            config,
            rng,
            backlog: VecDeque::new(),
            backlog_bytes: 0,
            last_departure: Instant::ZERO,
            pipe: VecDeque::new(),
            stats: LinkStats::default(),
        }
    }

    /// Its configuration.
    pub fn config(&self) -> &LinkConfig {
        &self.config
    }

    /// Forget packets whose transmission has ended.
    fn purge(&mut self, now: Instant) {
        while let Some(&(dep, size)) = self.backlog.front() {
            if dep > now {
                break;
            }
            self.backlog.pop_front();
            self.backlog_bytes -= u64::from(size);
        }
    }

    /// Packets and bytes waiting (not yet being transmitted) at `now`.
    pub fn waiting(&mut self, now: Instant) -> (u32, u64) {
        self.purge(now);
        match self.backlog.front() {
            None => (0, 0),
            // The head is on the transmitter once its transmission started.
            Some(&(dep, size)) => {
                let head_started = dep - tx_time(size, self.config.rate_bps) <= now;
                if head_started {
                    (
                        self.backlog.len() as u32 - 1,
                        self.backlog_bytes - u64::from(size),
                    )
                } else {
                    (self.backlog.len() as u32, self.backlog_bytes)
                }
            }
        }
    }

    /// Offer a packet at `now`.
    pub fn offer(&mut self, now: Instant, packet: Packet) -> Offer {
        if self.impairment.is_lossy() && self.impairment.lose(&mut self.rng) {
            self.stats.loss_drops += 1;
            return Offer::Lost;
        }
        let (pkts, bytes) = self.waiting(now);
        match self.queue.admit(
            now,
            packet.size,
            pkts,
            bytes,
            self.typical_tx,
            &mut self.rng,
        ) {
            Verdict::Admit => {}
            Verdict::Overflow | Verdict::EarlyDrop => {
                self.stats.queue_drops += 1;
                return Offer::QueueDrop;
            }
        }
        let tx = tx_time(packet.size, self.config.rate_bps);
        let start = self.last_departure.max(now);
        let departure = start + tx;
        self.last_departure = departure;
        self.backlog.push_back((departure, packet.size));
        self.backlog_bytes += u64::from(packet.size);
        self.stats.tx_packets += 1;
        self.stats.tx_bytes += u64::from(packet.size);
        self.stats.busy += tx;
        self.stats.queue_integral += (start - now).as_secs_f64();
        let arrival = departure + self.config.delay;
        self.pipe.push_back((arrival, packet));
        Offer::Arrives(arrival)
    }

    /// Take the packet arriving at the far end now (the earliest in the pipe).
    pub fn take_arrival(&mut self) -> Option<Packet> {
        self.pipe.pop_front().map(|(_, p)| p)
    }

    /// Packets in flight or queued.
    pub fn in_flight(&self) -> usize {
        self.pipe.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::FlowId;
    use crate::packet::{Body, Dest};
    use crate::queue::Limit;
    use crate::seed::component_rng;

    fn pkt(size: u32) -> Packet {
        Packet {
            size,
            src: NodeId(0),
            dst: Dest::Node(NodeId(1)),
            flow: FlowId(0),
            to_agent: None,
            body: Body::Udp { seq: 0 },
        }
    }

    fn link(limit: u32) -> Link {
        let cfg = LinkConfig {
            rate_bps: 8_000_000,
            delay: Duration::from_millis(10),
            queue: QueueConfig::DropTail(Limit::Packets(limit)),
            impairment: ImpairmentConfig::None,
        };
        Link::new(NodeId(0), NodeId(1), "l".into(), cfg, component_rng(1, "l"))
    }

    #[test]
    fn serialisation_plus_propagation() {
        let mut l = link(10);
        // 1000 bytes at 8 Mbit/s = 1 ms, then 10 ms of propagation.
        assert_eq!(
            l.offer(Instant::ZERO, pkt(1000)),
            Offer::Arrives(Instant::from_millis(11))
        );
        // Back to back: the second waits for the first.
        assert_eq!(
            l.offer(Instant::ZERO, pkt(1000)),
            Offer::Arrives(Instant::from_millis(12))
        );
        // After an idle gap it starts at once.
        assert_eq!(
            l.offer(Instant::from_millis(100), pkt(500)),
            Offer::Arrives(Instant::from_micros(110_500))
        );
    }

    #[test]
    fn drop_tail_counts_waiting_packets_only() {
        let mut l = link(2);
        let now = Instant::ZERO;
        assert!(matches!(l.offer(now, pkt(1000)), Offer::Arrives(_))); // on the transmitter
        assert!(matches!(l.offer(now, pkt(1000)), Offer::Arrives(_))); // waiting 1
        assert!(matches!(l.offer(now, pkt(1000)), Offer::Arrives(_))); // waiting 2
        assert_eq!(l.offer(now, pkt(1000)), Offer::QueueDrop);
        assert_eq!(l.waiting(now), (2, 2000));
        // After 1 ms the first has left and the second is being sent: one waits.
        assert_eq!(l.waiting(Instant::from_micros(1000)), (1, 1000));
        assert_eq!(l.stats.queue_drops, 1);
    }

    #[test]
    fn arrivals_come_out_in_order() {
        let mut l = link(10);
        for i in 0..3 {
            let mut p = pkt(100);
            p.body = Body::Udp { seq: i };
            l.offer(Instant::ZERO, p);
        }
        let seqs: Vec<u64> = std::iter::from_fn(|| l.take_arrival())
            .map(|p| match p.body {
                Body::Udp { seq } => seq,
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(seqs, vec![0, 1, 2]);
    }
}
