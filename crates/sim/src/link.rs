//! One direction of a point-to-point link: rate, propagation delay, queue discipline, random loss.
//!
//! FIFO timing is computed when a packet is admitted: it leaves the transmitter at
//! `departure = max(now, previous departure) + size / rate` and reaches the far node at `departure + delay`.
//! Packets in flight wait in the link's `pipe` in arrival order, each with its departure and arrival instants,
//! and the simulator keeps one arrival event per link direction — for the pipe's oldest packet — rather than one
//! per packet: a packet on a link costs the link 32 bytes, not a pending event as well.
//!
//! A link's rate and delay may change during a run ([`Link::set_rate_and_delay`]): packets already admitted keep
//! the timing they were given, later ones get the new values, and a packet never overtakes the one before it
//! (a shorter delay holds it behind the last packet still on the wire), so the link stays FIFO. Queue occupancy at any
//! instant is the number of admitted packets whose transmission has not started yet, which is exactly what a
//! device queue holds.

use crate::ids::NodeId;
use crate::impairment::{Impairment, ImpairmentConfig};
use crate::packet::Packet;
use crate::queue::{Limit, Queue, QueueConfig, Verdict};
use crate::time_util::{tx_time, TxTimes};
use convoy_proto::Instant;
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;
use std::rc::Rc;
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
    /// Total serialisation time of the admitted packets (busy time), in nanoseconds.
    pub busy_ns: u64,
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

/// What every link direction needs to know of its configuration.
#[derive(Debug)]
struct LinkParams {
    /// The rate and the serialisation times at it.
    tx: TxTimes,
    /// The propagation delay in nanoseconds (saturating: the arithmetic of [`Instant`]).
    delay_ns: u64,
    limit: Limit,
}

impl LinkParams {
    fn new(rate_bps: u64, delay_ns: u64, limit: Limit) -> Self {
        LinkParams {
            tx: TxTimes::new(rate_bps),
            delay_ns,
            limit,
        }
    }

    fn rate_bps(&self) -> u64 {
        self.tx.rate_bps()
    }
}

/// Equal configurations.
impl PartialEq for LinkParams {
    fn eq(&self, other: &Self) -> bool {
        (self.rate_bps(), self.delay_ns, self.limit)
            == (other.rate_bps(), other.delay_ns, other.limit)
    }
}

/// A duration in nanoseconds, saturating at `u64::MAX` (as [`Instant`]'s arithmetic does).
fn saturating_nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// What only a RED queue or a lossy link needs: the discipline's state and the link's random stream.
#[derive(Debug)]
struct Discipline {
    queue: Queue,
    impairment: Impairment,
    rng: ChaCha8Rng,
}

/// A packet admitted to a link: when its transmission ends and when it reaches the far end.
#[derive(Debug)]
struct InFlight {
    departure: Instant,
    arrival: Instant,
    packet: Rc<Packet>,
    /// The packet's size, beside its timing: the backlog's accounting reads it without reaching the packet.
    size: u32,
}

/// One link direction with its state.
///
/// Kept small, as a 10,000-receiver star has 20,000 of them: a plain drop-tail link without random loss
/// keeps its rate, delay and limit and nothing else of its configuration, no discipline state and no random
/// stream.
///
/// Aligned to a cache line: a link is two lines, not three (a fan-out touches thousands of them per packet).
#[derive(Debug)]
#[repr(align(64))]
pub struct Link {
    /// Sending node.
    pub from: NodeId,
    /// Receiving node.
    pub to: NodeId,
    /// Rate, delay and drop-tail limit, shared by the identical directions of a fan-out.
    params: Rc<LinkParams>,
    /// RED and random-loss configuration and state (`None`: drop-tail without loss).
    discipline: Option<Box<Discipline>>,
    /// Admitted packets not yet fully transmitted (as of the last purge): the newest `backlog` packets of
    /// `pipe`.
    backlog: u32,
    backlog_bytes: u64,
    last_departure: Instant,
    /// Packets on their way to `to` with their arrival instants, in arrival order. Shared: a multicast
    /// fan-out puts the same packet on every out-link, so each link holds a pointer.
    pipe: VecDeque<InFlight>,
    /// Counters.
    pub stats: LinkStats,
}

impl Link {
    /// A link from `from` to `to`; `rng` makes its own random stream (loss, RED), called only if the link
    /// needs one.
    pub fn new(
        from: NodeId,
        to: NodeId,
        config: LinkConfig,
        rng: impl FnOnce() -> ChaCha8Rng,
    ) -> Self {
        let plain = matches!(config.queue, QueueConfig::DropTail(_))
            && config.impairment == ImpairmentConfig::None;
        Link {
            from,
            to,
            discipline: (!plain).then(|| {
                Box::new(Discipline {
                    queue: Queue::new(config.queue),
                    impairment: Impairment::new(config.impairment),
                    rng: rng(),
                })
            }),
            params: Rc::new(LinkParams::new(
                config.rate_bps,
                saturating_nanos(config.delay),
                config.queue.limit(),
            )),
            backlog: 0,
            backlog_bytes: 0,
            last_departure: Instant::ZERO,
            pipe: VecDeque::new(),
            stats: LinkStats::default(),
        }
    }

    /// Its configuration.
    pub fn config(&self) -> LinkConfig {
        LinkConfig {
            rate_bps: self.params.rate_bps(),
            delay: self.delay(),
            queue: self
                .discipline
                .as_ref()
                .map_or(QueueConfig::DropTail(self.params.limit), |d| {
                    *d.queue.config()
                }),
            impairment: self
                .discipline
                .as_ref()
                .map_or(ImpairmentConfig::None, |d| d.impairment.config()),
        }
    }

    /// Rate in bits per second.
    pub fn rate_bps(&self) -> u64 {
        self.params.rate_bps()
    }

    /// One-way propagation delay.
    pub fn delay(&self) -> Duration {
        Duration::from_nanos(self.params.delay_ns)
    }

    /// From `now` on, transmit at `rate_bps` and propagate in `delay` (each `None`: unchanged). Packets
    /// admitted before keep their departure and arrival instants; the next packet starts its transmission once
    /// the one on the transmitter has left (at the old rate), and arrives no earlier than the packet ahead of
    /// it.
    pub fn set_rate_and_delay(&mut self, rate_bps: Option<u64>, delay: Option<Duration>) {
        self.params = Rc::new(LinkParams::new(
            rate_bps.unwrap_or(self.params.rate_bps()).max(1),
            delay.map_or(self.params.delay_ns, saturating_nanos),
            self.params.limit,
        ));
    }

    /// Share `other`'s rate, delay and limit if they equal this link's (links keep them behind a shared
    /// pointer, so that a 10,000-way fan-out stores them once).
    pub fn share_params_with(&mut self, other: &Link) {
        if self.params == other.params {
            self.params = Rc::clone(&other.params);
        }
    }

    /// Departure instant and size of the oldest packet still in the backlog.
    fn backlog_head(&self) -> Option<(Instant, u32)> {
        // Index `pipe.len()` (an empty backlog) is past the end.
        let f = self.pipe.get(self.pipe.len() - self.backlog as usize)?;
        Some((f.departure, f.size))
    }

    /// Forget packets whose transmission has ended.
    fn purge(&mut self, now: Instant) {
        // The last packet admitted has left, so has every other (most links, most of the time).
        if self.last_departure <= now {
            self.backlog = 0;
            self.backlog_bytes = 0;
            return;
        }
        while let Some((dep, size)) = self.backlog_head() {
            if dep > now {
                break;
            }
            self.backlog -= 1;
            self.backlog_bytes -= u64::from(size);
        }
    }

    /// Packets and bytes waiting (not yet being transmitted) at `now`.
    pub fn waiting(&mut self, now: Instant) -> (u32, u64) {
        self.purge(now);
        match self.backlog_head() {
            None => (0, 0),
            // The head is on the transmitter once its transmission started.
            Some((dep, size)) => {
                let start_ns = dep.as_nanos().saturating_sub(self.params.tx.nanos(size));
                let head_started = start_ns <= now.as_nanos();
                if head_started {
                    (self.backlog - 1, self.backlog_bytes - u64::from(size))
                } else {
                    (self.backlog, self.backlog_bytes)
                }
            }
        }
    }

    /// Offer a packet at `now`.
    pub fn offer(&mut self, now: Instant, packet: Rc<Packet>) -> Offer {
        if let Some(d) = &mut self.discipline {
            if d.impairment.is_lossy() && d.impairment.lose(&mut d.rng) {
                self.stats.loss_drops += 1;
                return Offer::Lost;
            }
        }
        // An empty pipe has an empty backlog: nothing to purge, nothing waiting.
        let (pkts, bytes) = if self.pipe.is_empty() {
            (0, 0)
        } else {
            self.waiting(now)
        };
        let verdict = match &mut self.discipline {
            Some(d) => {
                // RED's idle-time correction counts typical (1000-byte) packets.
                let typical_tx = tx_time(1000, self.params.rate_bps());
                d.queue
                    .admit(now, packet.size, pkts, bytes, typical_tx, &mut d.rng)
            }
            None if self.params.limit.is_full(packet.size, pkts, bytes) => Verdict::Overflow,
            None => Verdict::Admit,
        };
        match verdict {
            Verdict::Admit => {}
            Verdict::Overflow | Verdict::EarlyDrop => {
                self.stats.queue_drops += 1;
                return Offer::QueueDrop;
            }
        }
        // In nanoseconds: the same saturating arithmetic as `Instant + Duration`, without the conversions.
        let tx_ns = self.params.tx.nanos(packet.size);
        let start = self.last_departure.max(now);
        let departure = start.saturating_add_nanos(tx_ns);
        self.last_departure = departure;
        self.backlog += 1;
        self.backlog_bytes += u64::from(packet.size);
        self.stats.tx_packets += 1;
        self.stats.tx_bytes += u64::from(packet.size);
        self.stats.busy_ns += tx_ns;
        // Only a packet that waits adds to the integral (a sum of non-negative terms, which adding zero leaves
        // as it is).
        if start > now {
            self.stats.queue_integral += (start - now).as_secs_f64();
        }
        // FIFO: after a delay change a packet still arrives after the one ahead of it.
        let arrival = departure
            .saturating_add_nanos(self.params.delay_ns)
            .max(self.pipe.back().map_or(Instant::ZERO, |f| f.arrival));
        let size = packet.size;
        self.pipe.push_back(InFlight {
            departure,
            arrival,
            packet,
            size,
        });
        Offer::Arrives(arrival)
    }

    /// Packets whose transmission has ended by `now` (admitted packets still waiting or on the transmitter
    /// are not counted; ns-3's `PhyTxEnd`).
    pub fn transmitted(&self, now: Instant) -> u64 {
        let pending = self
            .pipe
            .iter()
            .rev()
            .take(self.backlog as usize)
            .take_while(|f| f.departure > now)
            .count();
        self.stats.tx_packets - pending as u64
    }

    /// Time the transmitter was busy in `[0, now]`: the admitted packets' serialisation times minus what is
    /// still to come after `now` (the backlog keeps the transmitter busy without a gap until the last
    /// departure).
    pub fn busy_until(&self, now: Instant) -> Duration {
        Duration::from_nanos(self.stats.busy_ns)
            .saturating_sub(self.last_departure.saturating_duration_since(now))
    }

    /// Take the packet arriving at the far end at `now` (the earliest in the pipe, due by `now`).
    pub fn take_arrival(&mut self, now: Instant) -> Option<Rc<Packet>> {
        if self.pipe.front().is_none_or(|f| f.arrival > now) {
            return None;
        }
        // Its transmission ended (by `now` − delay). The backlog, the pipe's newest `backlog` packets, holds
        // it only if it holds the whole pipe: then it leaves the backlog with it. The backlog's other packets
        // whose transmission ended stay until the next purge (`waiting`), which counts the same whenever it
        // runs.
        let in_backlog = self.backlog as usize == self.pipe.len();
        let f = self.pipe.pop_front()?;
        if in_backlog {
            self.backlog -= 1;
            self.backlog_bytes -= u64::from(f.size);
        }
        Some(f.packet)
    }

    /// When the earliest packet in the pipe reaches the far end (the one arrival event a link keeps).
    pub fn next_arrival(&self) -> Option<Instant> {
        self.pipe.front().map(|f| f.arrival)
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
    use crate::queue::RedConfig;
    use crate::seed::component_rng;

    fn pkt(size: u32) -> Rc<Packet> {
        Rc::new(Packet {
            size,
            src: NodeId(0),
            dst: Dest::Node(NodeId(1)),
            flow: FlowId(0),
            to_agent: None,
            body: Body::Udp { seq: 0 },
        })
    }

    fn link(limit: u32) -> Link {
        let cfg = LinkConfig {
            rate_bps: 8_000_000,
            delay: Duration::from_millis(10),
            queue: QueueConfig::DropTail(Limit::Packets(limit)),
            impairment: ImpairmentConfig::None,
        };
        Link::new(NodeId(0), NodeId(1), cfg, || component_rng(1, "l"))
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
    fn a_delay_change_times_later_packets_and_keeps_the_link_fifo() {
        let mut l = link(10);
        assert_eq!(
            l.offer(Instant::ZERO, pkt(1000)),
            Offer::Arrives(Instant::from_millis(11))
        );
        l.set_rate_and_delay(None, Some(Duration::from_millis(50)));
        // Admitted after the change: 1 ms behind the first on the transmitter, then 50 ms.
        assert_eq!(
            l.offer(Instant::ZERO, pkt(1000)),
            Offer::Arrives(Instant::from_millis(52))
        );
        assert_eq!(l.waiting(Instant::ZERO), (1, 1000));
        assert_eq!(l.transmitted(Instant::from_millis(1)), 1);
        assert_eq!(l.transmitted(Instant::from_millis(2)), 2);
        // Shorter again: the next would arrive at 3 + 1 ms, but not before the packet ahead of it.
        l.set_rate_and_delay(Some(4_000_000), Some(Duration::from_millis(1)));
        assert_eq!(
            l.offer(Instant::from_millis(2), pkt(1000)),
            Offer::Arrives(Instant::from_millis(52))
        );
        // At the new rate, 1000 bytes take 2 ms.
        assert_eq!(
            l.offer(Instant::from_millis(100), pkt(1000)),
            Offer::Arrives(Instant::from_millis(103))
        );
        let order: Vec<_> = std::iter::from_fn(|| {
            let t = l.next_arrival()?;
            l.take_arrival(t).map(|_| t)
        })
        .collect();
        assert!(order.windows(2).all(|w| w[0] <= w[1]), "{order:?}");
        assert_eq!(order.len(), 4);
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
    fn configuration_is_kept_whatever_is_stored() {
        let plain = link(10);
        assert_eq!(
            plain.config().queue,
            QueueConfig::DropTail(Limit::Packets(10))
        );
        assert_eq!(plain.config().impairment, ImpairmentConfig::None);
        let cfg = LinkConfig {
            rate_bps: 1_000_000,
            delay: Duration::from_millis(5),
            queue: QueueConfig::Red(
                Limit::Bytes(30_000),
                RedConfig {
                    min_th: 5_000.0,
                    max_th: 15_000.0,
                    weight: 0.002,
                    max_p: 0.1,
                    gentle: true,
                },
            ),
            impairment: ImpairmentConfig::Bernoulli { p: 0.01 },
        };
        let red = Link::new(NodeId(0), NodeId(1), cfg.clone(), || component_rng(1, "r"));
        assert_eq!(red.config(), cfg);
        assert_eq!(
            (red.rate_bps(), red.delay()),
            (1_000_000, Duration::from_millis(5))
        );
    }

    #[test]
    fn shared_parameters_time_every_size_as_their_own() {
        let mut a = link(10);
        let mut b = link(10);
        // Different sizes asked first: still equal parameters, so shared.
        a.offer(Instant::ZERO, pkt(1000));
        b.offer(Instant::ZERO, pkt(40));
        b.share_params_with(&a);
        assert!(Rc::ptr_eq(&a.params, &b.params));
        // Each link times each size as it would alone, whatever the other asked last (idle each time).
        let t = Instant::from_millis(100);
        let mut links = [a, b];
        for (k, (i, size)) in [(0, 40), (1, 1500), (0, 1500), (1, 40)]
            .into_iter()
            .enumerate()
        {
            let t = t + Duration::from_millis(100) * k as u32;
            let Offer::Arrives(at) = links[i].offer(t, pkt(size)) else {
                panic!("an empty link admits")
            };
            let expected = t + tx_time(size, 8_000_000) + Duration::from_millis(10);
            assert_eq!(at, expected, "{size} bytes");
            links[i].take_arrival(at);
        }
    }

    #[test]
    fn transmitted_and_busy_count_only_what_has_left() {
        let mut l = link(10);
        // Three 1 ms packets at t = 0: the first leaves at 1 ms, the last at 3 ms.
        for _ in 0..3 {
            l.offer(Instant::ZERO, pkt(1000));
        }
        let at = Instant::from_micros(1500);
        assert_eq!(l.transmitted(at), 1);
        assert_eq!(l.busy_until(at), Duration::from_micros(1500));
        assert_eq!(l.transmitted(Instant::from_millis(3)), 3);
        assert_eq!(
            l.busy_until(Instant::from_millis(5)),
            Duration::from_millis(3)
        );
    }

    #[test]
    fn arrivals_come_out_in_order() {
        let mut l = link(10);
        for i in 0..3 {
            let mut p = Packet::clone(&pkt(100));
            p.body = Body::Udp { seq: i };
            l.offer(Instant::ZERO, Rc::new(p));
        }
        let seqs: Vec<u64> = std::iter::from_fn(|| l.take_arrival(Instant::from_secs_f64(1.0)))
            .map(|p| match &p.body {
                Body::Udp { seq } => *seq,
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(seqs, vec![0, 1, 2]);
    }

    #[test]
    fn only_due_packets_leave_and_the_next_arrival_is_known() {
        let mut l = link(10);
        assert_eq!(l.next_arrival(), None);
        l.offer(Instant::ZERO, pkt(1000));
        l.offer(Instant::ZERO, pkt(1000));
        // 1 ms + 10 ms, then 1 ms later.
        assert_eq!(l.next_arrival(), Some(Instant::from_millis(11)));
        assert!(l.take_arrival(Instant::from_millis(10)).is_none());
        assert!(l.take_arrival(Instant::from_millis(11)).is_some());
        assert_eq!(l.next_arrival(), Some(Instant::from_millis(12)));
        assert_eq!(l.in_flight(), 1);
        assert!(l.take_arrival(Instant::from_millis(12)).is_some());
        assert_eq!(l.next_arrival(), None);
    }

    /// One step of [`occupancy_follows_each_packets_own_timing`]: time passes, then the link is offered a
    /// packet, delivers what is due, or changes its delay.
    #[derive(Clone, Debug)]
    enum Step {
        Offer { gap_us: u64, size: u32 },
        Arrivals { gap_us: u64 },
        Delay { gap_us: u64, delay_us: u64 },
    }

    fn step() -> impl proptest::strategy::Strategy<Value = Step> {
        use proptest::prelude::*;
        prop_oneof![
            4 => (0..3000u64, 40..1500u32).prop_map(|(gap_us, size)| Step::Offer { gap_us, size }),
            3 => (0..3000u64).prop_map(|gap_us| Step::Arrivals { gap_us }),
            1 => (0..3000u64, 0..5000u64).prop_map(|(gap_us, delay_us)| Step::Delay { gap_us, delay_us }),
        ]
    }

    proptest::proptest! {
        /// The link's counts (waiting packets and bytes, packets transmitted) are those of the admitted packets'
        /// own timing, whenever packets leave the pipe and however lazily the backlog is purged: a packet waits
        /// while its transmission has not started, and is transmitted once it has ended.
        #[test]
        fn occupancy_follows_each_packets_own_timing(
            limit in 1..6u32,
            steps in proptest::collection::vec(step(), 1..120),
        ) {
            let mut l = link(limit);
            // Every admitted packet: (transmission start, departure, size).
            let mut admitted: Vec<(Instant, Instant, u32)> = Vec::new();
            let mut now = Instant::ZERO;
            for s in steps {
                let gap = match s {
                    Step::Offer { gap_us, .. } | Step::Arrivals { gap_us } | Step::Delay { gap_us, .. } => gap_us,
                };
                now += Duration::from_micros(gap);
                let waiting = |admitted: &[(Instant, Instant, u32)]| {
                    let w = admitted.iter().filter(|p| p.0 > now);
                    (w.clone().count() as u32, w.map(|p| u64::from(p.2)).sum::<u64>())
                };
                let (pkts, _) = waiting(&admitted);
                match s {
                    Step::Offer { size, .. } => match l.offer(now, pkt(size)) {
                        Offer::Arrives(_) => {
                            proptest::prop_assert!(pkts < limit);
                            let start = admitted.last().map_or(now, |p| p.1.max(now));
                            admitted.push((start, start + tx_time(size, l.rate_bps()), size));
                        }
                        other => {
                            proptest::prop_assert_eq!(other, Offer::QueueDrop);
                            proptest::prop_assert!(pkts >= limit);
                        }
                    },
                    Step::Arrivals { .. } => while l.take_arrival(now).is_some() {},
                    Step::Delay { delay_us, .. } => {
                        l.set_rate_and_delay(None, Some(Duration::from_micros(delay_us)));
                    }
                }
                proptest::prop_assert_eq!(l.waiting(now), waiting(&admitted));
                let done = admitted.iter().filter(|p| p.1 <= now).count() as u64;
                proptest::prop_assert_eq!(l.transmitted(now), done);
            }
        }
    }
}
