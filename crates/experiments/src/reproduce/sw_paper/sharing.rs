//! Verdicts of the agent scheme's sharing experiments (Shi and Waldvogel §6.1–6.2): twenty sessions among
//! themselves (Fig. 2), and sessions beside as many TCP flows (Fig. 4).

use super::super::data::RunData;
use super::super::experiment::Ctx;
use super::super::measure::kbps;
use super::super::verdict::{trim, Check};
use super::{span, EXP, SETTLE_S};

/// The bottleneck's link name in both scenarios.
const BOTTLENECK: &str = "bottleneck";

/// Means over [SETTLE_S, end) of the flows whose kind is `kind` (prefix match).
fn means(r: &RunData, kind: &str) -> Result<Vec<f64>, String> {
    let names: Vec<&str> = r
        .result
        .flows
        .iter()
        .filter(|f| f.kind.starts_with(kind))
        .map(|f| f.name.as_str())
        .collect();
    names.iter().map(|n| r.flow_mean(n, SETTLE_S, r.end_s())).collect()
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

/// The RTT class of a run: twice the one-way delay from the first session's source to its first receiver.
fn rtt_ms(r: &RunData) -> Result<f64, String> {
    let s = r.scenario.sessions.first().ok_or("no session")?;
    let to = s.receivers.first().ok_or("a session without receivers")?;
    let hops = super::super::paths::path(&r.scenario, s.source.index(), to.node.index());
    let one_way: f64 = hops
        .iter()
        .map(|&(l, fwd)| {
            let link = &r.scenario.links[l];
            if fwd { link.forward.delay } else { link.backward.delay }.as_secs_f64()
        })
        .sum();
    Ok(2000.0 * one_way)
}

/// sw-fig2-intra: per run (RTT class, queue) the bottleneck's utilization, the max/min throughput ratio among the
/// sessions, and the highest loss rate of any receiver.
pub fn fig2(ctx: &Ctx<'_>) -> Result<Vec<Check>, String> {
    let mut checks = Vec::new();
    for (variant, r) in ctx.runs {
        let label = format!("RTT {} ms{}", trim(rtt_ms(r)?), if variant.contains("red") { ", RED" } else { "" });
        let util = r
            .result
            .links
            .iter()
            .find(|l| l.name == BOTTLENECK)
            .ok_or("no bottleneck in the results")?
            .utilization;
        checks.push(Check::at_least(&format!("{label}: the bottleneck's utilization"), util, 0.9, "", EXP));
        let m = means(r, "aimd")?;
        let (lo, hi) = m.iter().fold((f64::INFINITY, 0.0f64), |(a, b), x| (a.min(*x), b.max(*x)));
        let mut c = Check::at_most(
            &format!("{label}: max / min throughput of the {} sessions, {}", m.len(), span(SETTLE_S, r.end_s())),
            hi / lo.max(1.0),
            2.5,
            "",
            EXP,
        );
        c.measured = format!("{} ({} / {})", c.measured, kbps(hi), kbps(lo));
        checks.push(c);
        let worst = r
            .result
            .flows
            .iter()
            .flat_map(|f| f.receivers.iter())
            .map(|x| x.loss_rate)
            .fold(0.0, f64::max);
        checks.push(Check::report(
            &format!("{label}: the highest loss rate of any receiver"),
            format!("{}%", trim(worst * 100.0)),
            "\"around 3%\" (§6.1)",
        ));
    }
    Ok(checks)
}

/// sw-fig4-tcp-fairness: per point (flow count, queue) the sessions' mean throughput over the TCP flows'.
pub fn fig4(ctx: &Ctx<'_>) -> Result<Vec<Check>, String> {
    let mut checks = Vec::new();
    for (variant, r) in ctx.runs {
        let (m, t) = (means(r, "aimd")?, means(r, "tcp")?);
        let queue = if variant.contains("red") { "RED" } else { "drop-tail" };
        let mut c = Check::range(
            &format!("{} flows, {queue}: multicast / TCP mean throughput, {}", m.len() + t.len(), span(SETTLE_S, r.end_s())),
            mean(&m) / mean(&t).max(1.0),
            0.5,
            2.5,
            "",
            EXP,
        );
        c.measured = format!("{} ({} vs {})", c.measured, kbps(mean(&m)), kbps(mean(&t)));
        checks.push(c);
    }
    Ok(checks)
}
