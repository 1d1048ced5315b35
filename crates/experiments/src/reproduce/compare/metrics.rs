//! What compare-matrix measures on one run of one controller (docs/experiments.md#compare-matrix; issue 15).

use super::super::data::RunData;
use super::super::measure::mean_and_cov;
use super::super::paths::{available, cbr_flows, path};
use super::SESSION;
use convoy_proto::sender::SenderStats;
use convoy_sim::packet::UDP_IP_OVERHEAD;

/// Means and variation are taken from here on (every controller has left its start-up by then).
pub const SETTLE_S: f64 = 30.0;
/// A reaction is complete at the first 1 s bin at most this many times the new worst path's available bandwidth.
pub const REACTED_WITHIN: f64 = 1.3;

/// One run's figures.
#[derive(Clone, Copy, Debug)]
pub struct Metrics {
    /// The session's mean rate, bit/s.
    pub rate_bps: f64,
    /// The session's mean rate over the TCP flows' mean, when the run has TCP flows.
    pub tcp_ratio: Option<f64>,
    /// The coefficient of variation of the session's rate in 1 s bins.
    pub cov: f64,
    /// Seconds from the change (a receiver's join, or cross traffic starting on another path) until the rate is
    /// down to the new worst path's (within [`REACTED_WITHIN`]), when the run has such a change; infinity if never.
    pub reaction_s: Option<f64>,
    /// Feedback packets (ACKs, NAKs, receiver statuses) reaching the source per original data packet.
    pub feedback_per_data: f64,
    /// Bytes on the source's link, both ways, per payload byte the median receiver delivered: every packet the
    /// source sent (ODATA, RDATA, SPM, NCF) and every feedback packet that reached it, whole (PGM headers and
    /// options, and the IP and UDP headers around them).
    pub wire_bytes_per_delivered: f64,
    /// The receivers' mean loss rate of original data.
    pub receiver_loss: f64,
}

/// The change a run has, and the rate (bit/s) the worst path offers after it.
fn change(r: &RunData) -> Option<(f64, f64)> {
    let sc = &r.scenario;
    let s = sc.sessions.iter().find(|x| x.name == SESSION)?;
    let join = s.receivers.iter().map(|x| x.join.as_secs_f64()).fold(0.0, f64::max);
    let cbr = cbr_flows(r);
    let t0 = cbr.iter().map(|c| c.start).fold(join, f64::max);
    if t0 <= 0.0 {
        return None;
    }
    let at = t0 + 1e-3;
    let worst = s
        .receivers
        .iter()
        .filter(|x| x.join.as_secs_f64() <= at && x.leave.is_none_or(|l| l.as_secs_f64() > at))
        .map(|x| available(sc, &path(sc, s.source.index(), x.node.index()), &cbr, at))
        .fold(f64::INFINITY, f64::min);
    Some((t0, worst))
}

/// The figures of one run.
pub fn measure(r: &RunData) -> Result<Metrics, String> {
    let end = r.end_s();
    let flow = r.flow(SESSION).ok_or("no session `m`")?;
    let (mean, cov) =
        mean_and_cov(&flow.throughput_bps, flow.interval_s, SETTLE_S, end).ok_or("no rate samples")?;
    let tcps: Vec<f64> = r
        .result
        .flows
        .iter()
        .filter(|f| f.kind.starts_with("tcp"))
        .map(|f| r.flow_mean(&f.name, SETTLE_S, end))
        .collect::<Result<_, _>>()?;
    let tcp_ratio = (!tcps.is_empty()).then(|| mean / (tcps.iter().sum::<f64>() / tcps.len() as f64).max(1.0));
    let reaction_s = change(r).map(|(t0, worst)| {
        flow.throughput_bps
            .iter()
            .enumerate()
            .map(|(i, bps)| (i as f64 * flow.interval_s, *bps))
            .find(|(t, bps)| *t >= t0 && *bps <= REACTED_WITHIN * worst)
            .map_or(f64::INFINITY, |(t, _)| t + flow.interval_s - t0)
    });
    let stats = &r.session(SESSION).ok_or("no session data")?.stats;
    let mut delivered: Vec<u64> = flow.receivers.iter().map(|x| x.delivered_bytes).collect();
    delivered.sort_unstable();
    let median = delivered.get(delivered.len() / 2).copied().unwrap_or(0).max(1) as f64;
    Ok(Metrics {
        rate_bps: mean,
        tcp_ratio,
        cov,
        reaction_s,
        feedback_per_data: (stats.acks + stats.naks + stats.receiver_statuses) as f64
            / stats.odata_packets.max(1) as f64,
        wire_bytes_per_delivered: source_link_bytes(stats) as f64 / median,
        receiver_loss: flow.receivers.iter().map(|x| x.loss_rate).sum::<f64>() / flow.receivers.len().max(1) as f64,
    })
}

/// Bytes the session put on its source's link, both ways, IP and UDP headers included.
fn source_link_bytes(s: &SenderStats) -> u64 {
    let sent = s.odata_packets + s.rdata_packets + s.parity_packets + s.spms + s.ncfs;
    let overhead = u64::from(UDP_IP_OVERHEAD);
    s.pgm_bytes_sent + sent * overhead + s.pgm_bytes_received + s.datagrams_received * overhead
}
