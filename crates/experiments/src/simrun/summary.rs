//! summary.json: the run's outcome in one object (issue 3, "Command").
//!
//! Deterministic byte for byte for a (scenario, seed) apart from `wall_s`: fields in a fixed order, lists in
//! scenario order, no hash maps, floats printed by serde_json's shortest round-trip formatting.

use crate::scenario::Scenario;
use convoy_sim::results::RunResult;
use serde::{Deserialize, Serialize};

/// summary.json.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Summary {
    /// Scenario name (file stem).
    pub scenario: String,
    /// Seed of the run.
    pub seed: u64,
    /// Simulated seconds.
    pub duration_s: f64,
    /// Events processed.
    pub events: u64,
    /// Wall-clock seconds of the run (the only field that differs between identical runs).
    pub wall_s: f64,
    /// Flows in scenario order: sessions, TCP, CBR, on/off.
    pub flows: Vec<FlowSummary>,
    /// Link directions in scenario order (`name`, then `name:rev`).
    pub links: Vec<LinkSummary>,
    /// Packets that found no route (should be 0).
    pub unroutable: u64,
}

/// One flow.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FlowSummary {
    /// Name in the scenario.
    pub id: String,
    /// `pgmcc`, `fixed`, `tcp-reno`, `tcp-newreno`, `tcp-sack`, `cbr`, `onoff`.
    pub kind: String,
    /// When the application starts, seconds.
    pub start_s: f64,
    /// When it stops (`null`: runs to the end).
    pub stop_s: Option<f64>,
    /// Sender-side payload throughput per interval.
    pub throughput: Throughput,
    /// Mean goodput over the active time, bit/s (multicast: the slowest receiver).
    pub goodput_bps: f64,
    /// Multicast receivers.
    pub receivers: Vec<ReceiverSummary>,
    /// Acker changes.
    pub switches: Vec<Switch>,
    /// Receivers shed for a rate below the session's `min_rate` (absent when none was).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sheds: Vec<ShedSummary>,
    /// Feedback (pgmcc) or retransmission (TCP) timeouts.
    pub timeouts: u64,
}

/// A receiver shed (`min_rate`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ShedSummary {
    /// When, seconds.
    pub t: f64,
    /// The receiver.
    pub id: String,
    /// The rate it was credited with, bit/s.
    pub rate_bps: f64,
    /// How long its reports had been below the minimum, seconds.
    pub below_s: f64,
}

/// A throughput series.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Throughput {
    /// Bin width, seconds.
    pub interval_s: f64,
    /// Bit/s per bin, from t = 0.
    pub bps: Vec<f64>,
}

/// One multicast receiver.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ReceiverSummary {
    /// Name in the scenario.
    pub id: String,
    /// Mean goodput over its membership, bit/s.
    pub goodput_bps: f64,
    /// Fraction of original data that did not arrive as ODATA.
    pub loss_rate: f64,
    /// Payload bytes delivered.
    pub delivered_bytes: u64,
    /// NAK packets it sent.
    #[serde(default)]
    pub naks_sent: u64,
    /// Of them, those that reached the source (network elements may suppress the rest).
    #[serde(default)]
    pub naks_at_source: u64,
}

/// An acker switch.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Switch {
    /// When, seconds.
    pub t: f64,
    /// The new acker (`null`: an election was requested).
    pub to: Option<String>,
}

/// One link direction.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LinkSummary {
    /// `name` or `name:rev`.
    pub id: String,
    /// Busy time / run time.
    pub utilization: f64,
    /// Packets transmitted.
    #[serde(default)]
    pub packets: u64,
    /// Packets dropped by the queue or the loss model.
    pub drops: u64,
    /// Time-average number of packets waiting.
    pub mean_queue_pkts: f64,
}

/// Assemble the summary.
pub fn summarize(
    s: &Scenario,
    r: &RunResult,
    events: u64,
    wall_s: f64,
    unroutable: u64,
) -> Summary {
    let mut times = Vec::new();
    let since = |t: convoy_proto::Instant| std::time::Duration::from_nanos(t.as_nanos());
    times.extend(
        s.sessions
            .iter()
            .map(|x| (since(x.start), x.stop.map(since))),
    );
    times.extend(s.tcp.iter().map(|x| (x.start, x.stop)));
    times.extend(s.udp.iter().map(|x| (x.start, x.stop)));
    let flows = r
        .flows
        .iter()
        .zip(times)
        .map(|(f, (start, stop))| FlowSummary {
            id: f.name.clone(),
            kind: f.kind.clone(),
            start_s: start.as_secs_f64(),
            stop_s: stop.map(|t| t.as_secs_f64()),
            throughput: Throughput {
                interval_s: f.interval_s,
                bps: f.throughput_bps.clone(),
            },
            goodput_bps: f.goodput_bps,
            receivers: f
                .receivers
                .iter()
                .map(|x| ReceiverSummary {
                    id: x.name.clone(),
                    goodput_bps: x.goodput_bps,
                    loss_rate: x.loss_rate,
                    delivered_bytes: x.delivered_bytes,
                    naks_sent: x.naks_sent,
                    naks_at_source: x.naks_at_source,
                })
                .collect(),
            switches: f
                .switches
                .iter()
                .map(|(t, to)| Switch {
                    t: *t,
                    to: to.clone(),
                })
                .collect(),
            sheds: f
                .sheds
                .iter()
                .map(|x| ShedSummary {
                    t: x.t,
                    id: x.receiver.clone(),
                    rate_bps: x.rate_bps,
                    below_s: x.below_s,
                })
                .collect(),
            timeouts: f.timeouts,
        })
        .collect();
    let links = r
        .links
        .iter()
        .map(|l| LinkSummary {
            id: l.name.clone(),
            utilization: l.utilization,
            drops: l.drops,
            mean_queue_pkts: l.mean_queue_pkts,
            packets: l.packets,
        })
        .collect();
    Summary {
        scenario: s.name.clone(),
        seed: s.seed,
        duration_s: r.duration_s,
        events,
        wall_s,
        flows,
        links,
        unroutable,
    }
}
