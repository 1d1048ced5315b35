//! One event for a multicast fan-out's arrivals.
//!
//! A router that copies a packet onto K idle out-links with the same rate and delay gives each copy the same
//! arrival instant, and each link, idle until then, an arrival event of its own: K events pushed one after
//! another for one instant, which run one after another with nothing between them. [`FanOutArrivals`] makes
//! them one event that, when it runs, does for each link in turn exactly what that link's own event would
//! have done (the simulator's `Action::ArriveAll`).
//!
//! # Why the order of events is unchanged
//!
//! The event queue runs events in (time, insertion counter) order. While a router offers a packet to its
//! out-links nothing else is scheduled, so the arrival events the old way pushed are consecutive insertions;
//! those of one instant that follow one another are consecutive in the queue's order too, and run back to
//! back. [`FanOutArrivals::schedule`] pushes, in the order of the links, one event per maximal stretch of
//! consecutive links due at the same instant, where the first link's event was: every event outside the
//! fan-out keeps its place relative to every arrival. An event scheduled while the stretch runs (an agent's
//! reply, a link's next arrival) gets a later counter than all of the stretch's old events, and runs after
//! all of its links either way.
//!
//! Each link keeps its packet in its pipe as before: a link offered another packet before the fan-out's
//! arrives sees a busy link, exactly as it did, and the stretch's event takes the link's front packet and
//! schedules its next arrival as the link's own event would.

use crate::event::EventQueue;
use crate::ids::LinkId;
use convoy_proto::Instant;

/// Fan-outs whose arrivals are pending, each as its links in order.
#[derive(Debug, Default)]
pub(crate) struct FanOutArrivals {
    /// Per stretch id, its links (empty once taken).
    stretches: Vec<Vec<LinkId>>,
    /// Ids whose stretch ran.
    free: Vec<u32>,
    /// The fan-out being offered: each idle link that took the packet, with its arrival instant.
    offered: Vec<(Instant, LinkId)>,
}

impl FanOutArrivals {
    /// Starts a fan-out; returns the list to fill with `(arrival, link)` for each idle link that took the
    /// packet, in the order offered.
    pub(crate) fn begin(&mut self) -> Vec<(Instant, LinkId)> {
        std::mem::take(&mut self.offered)
    }

    /// Schedules the arrivals of a fan-out begun with [`FanOutArrivals::begin`]: one event per maximal stretch
    /// of consecutive links due at the same instant, `arrive(link)` for a stretch of one (the simulator's
    /// `Action::Arrive`), `arrive_all(id)` for a longer one (`Action::ArriveAll`, whose links
    /// [`FanOutArrivals::take`] gives).
    // Out of line: the event queue's push is inlined here, and a fan-out is rare beside the deliveries that
    // share its caller (`Network::multicast`).
    #[inline(never)]
    pub(crate) fn schedule<E>(
        &mut self,
        mut offered: Vec<(Instant, LinkId)>,
        queue: &mut EventQueue<E>,
        arrive: impl Fn(LinkId) -> E,
        arrive_all: impl Fn(u32) -> E,
    ) {
        let mut rest = &offered[..];
        while let Some(&(at, first)) = rest.first() {
            let n = rest.iter().take_while(|(t, _)| *t == at).count();
            #[cfg(test)]
            let n = if tests::ONE_EVENT_PER_LINK.get() {
                1
            } else {
                n
            };
            if n == 1 {
                queue.push(at, arrive(first));
            } else {
                let id = self.new_stretch(rest[..n].iter().map(|&(_, l)| l));
                queue.push(at, arrive_all(id));
            }
            rest = &rest[n..];
        }
        offered.clear();
        self.offered = offered;
    }

    fn new_stretch(&mut self, links: impl Iterator<Item = LinkId>) -> u32 {
        let id = match self.free.pop() {
            Some(id) => id,
            None => {
                self.stretches.push(Vec::new());
                (self.stretches.len() - 1) as u32
            }
        };
        self.stretches[id as usize].extend(links);
        id
    }

    /// The links of stretch `id`, whose event is running; hand the list back with [`FanOutArrivals::done`].
    pub(crate) fn take(&mut self, id: u32) -> Vec<LinkId> {
        std::mem::take(&mut self.stretches[id as usize])
    }

    /// Stretch `id` ran; its list is kept for a later stretch.
    pub(crate) fn done(&mut self, id: u32, mut links: Vec<LinkId>) {
        links.clear();
        self.stretches[id as usize] = links;
        self.free.push(id);
    }
}

#[cfg(test)]
mod tests {
    use crate::agents::udp::UdpPattern;
    use crate::impairment::ImpairmentConfig;
    use crate::link::LinkConfig;
    use crate::ne::NeConfig;
    use crate::queue::{Limit, QueueConfig};
    use crate::{LinkChange, Network, NodeKind, SessionReceiver, SessionSpec};
    use convoy_proto::cc::CcConfig;
    use convoy_proto::{Instant, RepairPacing};
    use std::time::Duration;

    thread_local! {
        /// Set by a test to schedule one event per link, as before stretches.
        pub(super) static ONE_EVENT_PER_LINK: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }

    fn link(rate_bps: u64, delay_ms: u64, loss: f64) -> LinkConfig {
        LinkConfig {
            rate_bps,
            delay: Duration::from_millis(delay_ms),
            queue: QueueConfig::DropTail(Limit::Packets(20)),
            impairment: match loss {
                0.0 => ImpairmentConfig::None,
                p => ImpairmentConfig::Bernoulli { p },
            },
        }
    }

    /// S — R1 (a PGM network element) — {R2 — six hosts, two hosts}: equal links to most hosts, one with a
    /// longer delay and one lossy among them, cross traffic onto one, receivers joining and leaving at
    /// different times, and a link that slows down half-way.
    fn tree(cc: CcConfig) -> Network {
        let mut net = Network::new(3, Duration::from_secs(1), Duration::from_millis(100));
        let s = net.add_node("S", NodeKind::Host).unwrap();
        let r1 = net
            .add_node("R1", NodeKind::PgmRouter(NeConfig::default()))
            .unwrap();
        let r2 = net.add_node("R2", NodeKind::Router).unwrap();
        net.add_link(
            "S-R1",
            s,
            r1,
            link(10_000_000, 2, 0.0),
            link(10_000_000, 2, 0.0),
        );
        net.add_link(
            "R1-R2",
            r1,
            r2,
            link(10_000_000, 2, 0.0),
            link(10_000_000, 2, 0.0),
        );
        let mut receivers = Vec::new();
        for i in 0..8 {
            let name = format!("H{i}");
            let h = net.add_node(&name, NodeKind::Host).unwrap();
            let (up, delay, loss) = match i {
                0..=5 => (
                    r2,
                    if i == 3 { 3 } else { 2 },
                    if i == 4 { 0.02 } else { 0.0 },
                ),
                _ => (r1, 2, 0.0),
            };
            net.add_link(
                &format!("R-{name}"),
                up,
                h,
                link(10_000_000, delay, loss),
                link(10_000_000, delay, 0.0),
            );
            receivers.push(SessionReceiver {
                name,
                node: h,
                join: Instant::from_millis(300 * i),
                leave: (i == 2).then(|| Instant::from_secs_f64(6.0)),
            });
            if i == 1 {
                let pattern = UdpPattern::Cbr {
                    rate_bps: 3_000_000,
                    jitter: 0.3,
                };
                net.add_udp(
                    "cross",
                    r2,
                    h,
                    700,
                    pattern,
                    Instant::from_millis(500),
                    None,
                );
            }
        }
        let change = LinkChange {
            link: net
                .links
                .iter()
                .position(|l| l.from == r2)
                .map(|i| crate::LinkId(i as u32))
                .unwrap(),
            rate_bps: Some(2_000_000),
            delay: None,
        };
        net.change_link_at(Instant::from_secs_f64(4.0), change);
        net.add_session(SessionSpec {
            name: "pgm".into(),
            source: s,
            receivers,
            cc,
            apdu_size: 1000,
            start: Instant::ZERO,
            stop: None,
            bytes: None,
            trace: true,
            record_arrivals: true,
            rate_max: None,
            nak_elim_ivl: None,
            parity: None,
            min_rate: None,
            repair_pacing: RepairPacing::RateLimit,
            rxw: None,
            keyed: None,
        })
        .unwrap();
        net
    }

    /// A stretch's one event does what its links' own events did, in the same order: the same events in the
    /// same order (a stretch's as its arrivals), the same results, for every scheme, with stretches used.
    #[test]
    fn stretches_give_the_results_of_one_event_per_link() {
        for name in CcConfig::NAMES {
            let run = |one_per_link: bool| {
                ONE_EVENT_PER_LINK.set(one_per_link);
                let mut net = tree(CcConfig::by_name(name).unwrap());
                let events = net.run(Instant::from_secs_f64(10.0));
                ONE_EVENT_PER_LINK.set(false);
                let trace = std::mem::take(&mut net.event_trace);
                (events, net.results(), net.fan_out.stretches.len(), trace)
            };
            let (events, results, stretches, trace) = run(false);
            let (events_before, results_before, none, trace_before) = run(true);
            assert_eq!(events, events_before, "{name}");
            assert_eq!(events as usize, trace.len());
            assert!(trace == trace_before, "{name}: events ran in another order");
            assert_eq!(results, results_before, "{name}");
            assert_eq!(none, 0);
            assert!(stretches > 0, "{name}: no stretch was made");
        }
    }
}
