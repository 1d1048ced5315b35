//! The metrics a sweep keeps from each run's summary.json (docs/sweep.md): one row per run × object × metric.

use crate::simrun::summary::Summary;

/// Every metric, by the name grid files and results use. Flows: `goodput_bps` (multicast: the slowest receiver),
/// `timeouts`, `switches` (acker, CLR or agent changes); receivers: `receiver_goodput_bps`, `loss_rate`,
/// `delivered_bytes`, `naks_sent`, `naks_at_source`; link directions: `utilization`, `drops`, `mean_queue_pkts`.
pub const METRICS: [&str; 11] = [
    "goodput_bps",
    "timeouts",
    "switches",
    "receiver_goodput_bps",
    "loss_rate",
    "delivered_bytes",
    "naks_sent",
    "naks_at_source",
    "utilization",
    "drops",
    "mean_queue_pkts",
];

/// One value of a run: what it is about (`flow`, `receiver` or `link`), its id (`S1`, `S1/R2`, `L1:rev`), the
/// metric and the value.
#[derive(Clone, Debug, PartialEq)]
pub struct MetricRow {
    /// `flow`, `receiver` or `link`.
    pub kind: &'static str,
    /// The flow's, receiver's (`flow/receiver`) or link direction's id.
    pub id: String,
    /// A name of [`METRICS`].
    pub metric: &'static str,
    /// The value.
    pub value: f64,
}

/// The rows of `summary` for the metrics in `keep`, in summary order.
pub fn rows(summary: &Summary, keep: &[String]) -> Vec<MetricRow> {
    let mut out = Vec::new();
    let mut push = |kind: &'static str, id: &str, metric: &'static str, value: f64| {
        if keep.iter().any(|k| k == metric) {
            out.push(MetricRow {
                kind,
                id: id.to_string(),
                metric,
                value,
            });
        }
    };
    for f in &summary.flows {
        push("flow", &f.id, "goodput_bps", f.goodput_bps);
        push("flow", &f.id, "timeouts", f.timeouts as f64);
        push("flow", &f.id, "switches", f.switches.len() as f64);
        for r in &f.receivers {
            let id = format!("{}/{}", f.id, r.id);
            push("receiver", &id, "receiver_goodput_bps", r.goodput_bps);
            push("receiver", &id, "loss_rate", r.loss_rate);
            push("receiver", &id, "delivered_bytes", r.delivered_bytes as f64);
            push("receiver", &id, "naks_sent", r.naks_sent as f64);
            push("receiver", &id, "naks_at_source", r.naks_at_source as f64);
        }
    }
    for l in &summary.links {
        push("link", &l.id, "utilization", l.utilization);
        push("link", &l.id, "drops", l.drops as f64);
        push("link", &l.id, "mean_queue_pkts", l.mean_queue_pkts);
    }
    out
}
