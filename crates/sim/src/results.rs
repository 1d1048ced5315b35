//! What a run produced, in the shape of `convoy sim`'s summary.json (issue: flows, receivers, switches, links).

use crate::agents::pgm::PgmSenderAgent;
use crate::agents::tcp::TcpSenderAgent;
use crate::agents::udp::UdpSourceAgent;
use crate::agents::Agent;
use crate::ids::{AgentId, LinkId};
use crate::network::{Flow, FlowKind, Network};
use crate::observe::Bins;
use convoy_proto::Instant;

/// One multicast receiver's outcome.
#[derive(Clone, Debug, PartialEq)]
pub struct ReceiverResult {
    /// Scenario name.
    pub name: String,
    /// Mean goodput over its membership, bits per second of delivered APDU bytes.
    pub goodput_bps: f64,
    /// Fraction of original data packets that did not arrive as ODATA.
    pub loss_rate: f64,
    /// APDU bytes delivered.
    pub delivered_bytes: u64,
    /// Goodput per interval, bits per second.
    pub goodput_series_bps: Vec<f64>,
    /// NAK packets it sent (repair requests and pgmcc's election NAKs).
    pub naks_sent: u64,
    /// Of them, those that reached the source: fewer when network elements suppress NAKs (RFC 3208 §7.3; what
    /// hides the worst receiver's reports, pgmcc paper §3.7, Wang and Fahmy §III).
    pub naks_at_source: u64,
}

/// One flow's outcome.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowResult {
    /// Scenario name.
    pub name: String,
    /// `pgmcc`, `fixed`, `tcp-newreno`, `cbr`, ...
    pub kind: String,
    /// Sender-side payload throughput per interval, bits per second.
    pub throughput_bps: Vec<f64>,
    /// Interval of `throughput_bps`, seconds.
    pub interval_s: f64,
    /// Mean goodput over the active time (multicast: the slowest receiver), bits per second.
    pub goodput_bps: f64,
    /// Multicast receivers.
    pub receivers: Vec<ReceiverResult>,
    /// Acker / CLR / agent changes: time and the new receiver's name (`None`: election requested).
    pub switches: Vec<(f64, Option<String>)>,
    /// Receivers shed for a rate below the session's minimum (`min_rate`).
    pub sheds: Vec<ShedResult>,
    /// Feedback timeouts.
    pub timeouts: u64,
}

/// A receiver the source shed (`min_rate`).
#[derive(Clone, Debug, PartialEq)]
pub struct ShedResult {
    /// When, seconds.
    pub t: f64,
    /// The receiver's name.
    pub receiver: String,
    /// The rate it was credited with, bit/s.
    pub rate_bps: f64,
    /// How long its reports had been below the minimum, seconds.
    pub below_s: f64,
}

/// One link direction's outcome.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkResult {
    /// Scenario name (`name` or `name:rev`).
    pub name: String,
    /// Busy time within the run / run time (what is still queued at the end is not counted).
    pub utilization: f64,
    /// Packets transmitted.
    pub packets: u64,
    /// Packets dropped (queue and random loss).
    pub drops: u64,
    /// Time-average of waiting packets.
    pub mean_queue_pkts: f64,
}

impl LinkResult {
    /// The fraction of the packets offered to the direction that it dropped.
    pub fn loss(&self) -> f64 {
        let offered = self.packets + self.drops;
        if offered == 0 {
            0.0
        } else {
            self.drops as f64 / offered as f64
        }
    }
}

/// A run's outcome.
#[derive(Clone, Debug, PartialEq)]
pub struct RunResult {
    /// Simulated seconds.
    pub duration_s: f64,
    /// Flows in scenario order.
    pub flows: Vec<FlowResult>,
    /// Link directions in scenario order.
    pub links: Vec<LinkResult>,
}

fn active_secs(start: Instant, stop: Option<Instant>, end: Instant) -> f64 {
    let stop = stop.map_or(end, |s| s.min(end));
    (stop - start).as_secs_f64()
}

/// `bytes` over `secs` seconds in bits per second (0 when `secs` is not positive).
fn bits_per_s(bytes: u64, secs: f64) -> f64 {
    if secs > 0.0 {
        bytes as f64 * 8.0 / secs
    } else {
        0.0
    }
}

/// What a flow's kind contributes to its [`FlowResult`]; the sending bins not yet extended to the end.
struct FlowOutcome {
    /// `pgmcc`, `tcp-newreno`, `cbr`, ...
    kind: String,
    /// Sender-side payload bytes per interval.
    bins: Bins,
    /// Mean goodput over the active time, bits per second.
    goodput: f64,
    /// Multicast receivers.
    receivers: Vec<ReceiverResult>,
    /// Acker / CLR / agent changes.
    switches: Vec<(f64, Option<String>)>,
    /// Receivers shed.
    sheds: Vec<ShedResult>,
    /// Feedback or retransmission timeouts.
    timeouts: u64,
}

impl Network {
    fn receiver_result(
        &self,
        agent: AgentId,
        source: &crate::agents::pgm::PgmSenderAgent,
        end: Instant,
    ) -> Option<ReceiverResult> {
        let Agent::PgmReceiver(r) = &self.agents[agent.index()] else {
            return None;
        };
        let rec = &r.record;
        let secs = rec.joined.map_or(0.0, |j| active_secs(j, rec.left, end));
        let mut bins = rec.delivered_bins.clone();
        bins.extend_to(end);
        Some(ReceiverResult {
            name: r.name.to_string(),
            goodput_bps: if secs > 0.0 {
                rec.delivered_bytes as f64 * 8.0 / secs
            } else {
                0.0
            },
            loss_rate: r.loss_rate(),
            delivered_bytes: rec.delivered_bytes,
            goodput_series_bps: bins.rates().iter().map(|b| b * 8.0).collect(),
            naks_sent: rec.naks_sent,
            naks_at_source: source.naks_from(r.node),
        })
    }

    /// Collect the results at the current time.
    pub fn results(&self) -> RunResult {
        let end = self.now;
        let interval_s = self.interval.as_secs_f64();
        let flows = self
            .flows
            .iter()
            .filter_map(|f| self.flow_result(f, end, interval_s))
            .collect();
        RunResult {
            duration_s: end.as_secs_f64(),
            flows,
            links: self.link_results(end),
        }
    }

    /// Flow `f`'s outcome at `end` (`None` when its kind and its source agent do not match).
    fn flow_result(&self, f: &Flow, end: Instant, interval_s: f64) -> Option<FlowResult> {
        let secs = active_secs(f.start, f.stop, end);
        let mut outcome = match (&f.kind, &self.agents[f.source.index()]) {
            (FlowKind::Multicast(k), Agent::PgmSender(s)) => self.multicast_outcome(f, k, s, end),
            (FlowKind::Tcp(k), Agent::TcpSender(s)) => self.tcp_outcome(f, k, s, secs),
            (FlowKind::Udp(k), Agent::Udp(s)) => self.udp_outcome(f, k, s, secs),
            _ => return None,
        };
        outcome.bins.extend_to(end);
        Some(FlowResult {
            name: f.name.clone(),
            kind: outcome.kind,
            throughput_bps: outcome.bins.rates().iter().map(|b| b * 8.0).collect(),
            interval_s,
            goodput_bps: outcome.goodput,
            receivers: outcome.receivers,
            switches: outcome.switches,
            sheds: outcome.sheds,
            timeouts: outcome.timeouts,
        })
    }

    /// A multicast session's outcome: its receivers', the slowest one's goodput, the acker changes.
    fn multicast_outcome(
        &self,
        f: &Flow,
        kind: &str,
        s: &PgmSenderAgent,
        end: Instant,
    ) -> FlowOutcome {
        let receivers: Vec<ReceiverResult> = f
            .sinks
            .iter()
            .filter_map(|a| self.receiver_result(*a, s, end))
            .collect();
        let slowest = receivers
            .iter()
            .map(|r| r.goodput_bps)
            .fold(f64::INFINITY, f64::min);
        let switches = s
            .record
            .switches
            .iter()
            .map(|(t, i)| {
                (
                    t.as_secs_f64(),
                    i.map(|i| receivers.get(i).map_or(String::new(), |r| r.name.clone())),
                )
            })
            .collect();
        let sheds = s
            .record
            .sheds
            .iter()
            .map(|(t, i, shed)| ShedResult {
                t: t.as_secs_f64(),
                receiver: i
                    .and_then(|i| receivers.get(i))
                    .map_or(String::new(), |r| r.name.clone()),
                rate_bps: shed.rate_bps * 8.0,
                below_s: shed.below_for.as_secs_f64(),
            })
            .collect();
        let goodput = if receivers.is_empty() { 0.0 } else { slowest };
        FlowOutcome {
            kind: kind.to_string(),
            bins: s.record.data_bins.clone(),
            goodput,
            receivers,
            switches,
            sheds,
            timeouts: s.record.timeouts,
        }
    }

    /// A TCP flow's outcome: the bytes its sink delivered over its `secs` of activity.
    fn tcp_outcome(&self, f: &Flow, kind: &str, s: &TcpSenderAgent, secs: f64) -> FlowOutcome {
        let delivered = match &self.agents[f.sinks[0].index()] {
            Agent::TcpSink(k) => k.delivered_bytes(),
            _ => 0,
        };
        FlowOutcome {
            kind: kind.to_string(),
            bins: s.sent_bins.clone(),
            goodput: bits_per_s(delivered, secs),
            receivers: Vec::new(),
            switches: Vec::new(),
            sheds: Vec::new(),
            timeouts: s.tcp().map_or(0, |t| t.stats().timeouts),
        }
    }

    /// A UDP source's outcome: the bytes its sink received over its `secs` of activity.
    fn udp_outcome(&self, f: &Flow, kind: &str, s: &UdpSourceAgent, secs: f64) -> FlowOutcome {
        let received = match &self.agents[f.sinks[0].index()] {
            Agent::UdpSink(k) => k.received,
            _ => 0,
        };
        FlowOutcome {
            kind: kind.to_string(),
            bins: s.sent_bins.clone(),
            goodput: bits_per_s(received, secs),
            receivers: Vec::new(),
            switches: Vec::new(),
            sheds: Vec::new(),
            timeouts: 0,
        }
    }

    /// Every link direction's outcome at `end`, in scenario order.
    fn link_results(&self, end: Instant) -> Vec<LinkResult> {
        let run = end.as_secs_f64().max(1e-12);
        self.links
            .iter()
            .enumerate()
            .map(|(i, l)| LinkResult {
                name: self.link_name(LinkId(i as u32)),
                utilization: (l.busy_until(end).as_secs_f64() / run).min(1.0),
                packets: l.stats.tx_packets,
                drops: l.stats.queue_drops + l.stats.loss_drops,
                mean_queue_pkts: l.stats.queue_integral / run,
            })
            .collect()
    }

    /// The sender agent of flow `name`, for multicast sessions.
    pub fn session_sender(&self, name: &str) -> Option<&crate::agents::pgm::PgmSenderAgent> {
        let f = self.flows.iter().find(|f| f.name == name)?;
        match &self.agents[f.source.index()] {
            Agent::PgmSender(s) => Some(s),
            _ => None,
        }
    }

    /// The TCP sender of flow `name`.
    pub fn tcp_sender(&self, name: &str) -> Option<&crate::tcp::TcpSender> {
        let f = self.flows.iter().find(|f| f.name == name)?;
        match &self.agents[f.source.index()] {
            Agent::TcpSender(s) => s.tcp(),
            _ => None,
        }
    }

    /// The receiver agents of multicast session `name`, in scenario order.
    pub fn session_receivers(&self, name: &str) -> Vec<&crate::agents::pgm::PgmReceiverAgent> {
        let Some(f) = self.flows.iter().find(|f| f.name == name) else {
            return Vec::new();
        };
        f.sinks
            .iter()
            .filter_map(|a| match &self.agents[a.index()] {
                Agent::PgmReceiver(r) => Some(r.as_ref()),
                _ => None,
            })
            .collect()
    }

    /// Queue-length samples of the observed links: (link name, samples).
    pub fn queue_samples(&self) -> Vec<(String, &[(Instant, u32)])> {
        self.observed_links
            .iter()
            .zip(&self.queue_samples)
            .map(|(l, s)| (self.link_name(*l), s.as_slice()))
            .collect()
    }

    /// Packets dropped so far on all link directions (queue overflow, early drops and link loss).
    pub fn drops_so_far(&self) -> u64 {
        self.links
            .iter()
            .map(|l| l.stats.queue_drops + l.stats.loss_drops)
            .sum()
    }

    /// Per observed link direction (named as in results), its drops (queue and loss) so far at each queue
    /// sample: the same instants as [`Network::queue_samples`].
    pub fn drop_samples(&self) -> Vec<(String, &[u64])> {
        self.observed_links
            .iter()
            .zip(&self.drop_samples)
            .map(|(l, s)| (self.link_name(*l), s.as_slice()))
            .collect()
    }

    /// Packets whose transmission ended by now, over all link directions: every hop of every packet counts
    /// once (ns-3's `PhyTxEnd` on all devices).
    pub fn packets_transmitted(&self) -> u64 {
        self.links.iter().map(|l| l.transmitted(self.now)).sum()
    }

    /// Packets on links now: queued, being transmitted or propagating, over all link directions.
    pub fn packets_in_flight(&self) -> usize {
        self.links.iter().map(|l| l.in_flight()).sum()
    }

    /// Bytes the event queue holds allocated for pending events and reuse (a memory diagnostic).
    pub fn event_queue_bytes(&self) -> usize {
        self.queue.allocated_bytes()
    }

    /// Events scheduled and not yet run (including timers cancelled lazily, which stay until their time).
    pub fn pending_events(&self) -> usize {
        self.queue.len()
    }

    /// The counters of every PGM network element: (node name, counters), in node order.
    pub fn ne_stats(&self) -> Vec<(String, crate::ne::NeStats)> {
        self.nodes
            .iter()
            .filter_map(|n| n.ne.as_ref().map(|e| (n.name.to_string(), e.stats.clone())))
            .collect()
    }

    /// Packets that had no route.
    pub fn unroutable(&self) -> u64 {
        self.unroutable
    }
}
