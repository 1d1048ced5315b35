//! Verdicts of the sharing experiments of `aimd`, the agent-based rate AIMD scheme of Shi and Waldvogel 2000
//! (docs/papers.md; §6.1–6.2): twenty sessions among themselves (Fig. 2), and sessions beside as many TCP flows
//! (Fig. 4).

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

/// The highest loss rate any receiver of the run saw.
fn worst_loss(r: &RunData) -> f64 {
    r.result
        .flows
        .iter()
        .flat_map(|f| f.receivers.iter())
        .map(|x| x.loss_rate)
        .fold(0.0, f64::max)
}

/// sw-fig2-intra, as experiments.md reads §6.1: per run (RTT class, queue) the max/min throughput ratio among the
/// sessions ≤ 2.5 and the highest loss rate of any receiver ≤ 6% (the paper: "around 3%"); per queue, the
/// dispersion growing with RTT (the ratio at the longest RTT above the ratio at the shortest); the bottleneck's
/// utilization reported (the paper gives no aggregate throughput).
pub fn fig2(ctx: &Ctx<'_>) -> Result<Vec<Check>, String> {
    let mut checks = Vec::new();
    // Queue kind → (RTT, max/min) per run, in RTT order.
    let mut spread: [Vec<(f64, f64)>; 2] = [Vec::new(), Vec::new()];
    for (variant, r) in ctx.runs.iter().filter(|(v, _)| !v.starts_with(CONTROL)) {
        let red = variant.contains("red");
        let rtt = rtt_ms(r)?;
        let label = format!("RTT {} ms{}", trim(rtt), if red { ", RED" } else { "" });
        let util = r
            .result
            .links
            .iter()
            .find(|l| l.name == BOTTLENECK)
            .ok_or("no bottleneck in the results")?
            .utilization;
        checks.push(Check::report(
            &format!("{label}: the bottleneck's utilization"),
            trim(util),
            "(the paper gives no aggregate throughput)",
        ));
        let m = means(r, "aimd")?;
        let (lo, hi) = m.iter().fold((f64::INFINITY, 0.0f64), |(a, b), x| (a.min(*x), b.max(*x)));
        let ratio = hi / lo.max(1.0);
        let mut c = Check::at_most(
            &format!("{label}: max / min throughput of the {} sessions, {}", m.len(), span(SETTLE_S, r.end_s())),
            ratio,
            2.5,
            "",
            EXP,
        );
        c.measured = format!("{} ({} / {})", c.measured, kbps(hi), kbps(lo));
        checks.push(c);
        checks.push(Check::at_most(
            &format!("{label}: the highest loss rate of any receiver"),
            worst_loss(r) * 100.0,
            6.0,
            "%",
            "experiments.md (the paper: \"around 3%\", §6.1)",
        ));
        spread[usize::from(red)].push((rtt, ratio));
    }
    for (runs, queue) in spread.iter_mut().zip(["drop-tail", "RED"]) {
        runs.sort_by(|a, b| a.0.total_cmp(&b.0));
        if let (Some(short), Some(long)) = (runs.first(), runs.last()) {
            if long.0 > short.0 {
                checks.push(Check::holds(
                    &format!("{queue}: the dispersion grows with RTT (max / min at {} ms above {} ms)", trim(long.0), trim(short.0)),
                    long.1 > short.1,
                    "experiments.md (the paper: sharing is more equal at low RTT, §6.1)",
                    format!("{} against {}", trim(long.1), trim(short.1)),
                ));
            }
        }
    }
    for queue in ["", "-red"] {
        if let Some(c) = loss_controls(ctx, queue)? {
            checks.push(c);
        }
    }
    Ok(checks)
}

/// The variants that are controls, reported beside the judged runs.
const CONTROL: &str = "control-";

/// The bottleneck's loss at 60 ms, the sessions' beside their controls': twenty TCP flows in their place, and the
/// sessions with increases gated on the agent's smoothed RTT.
fn loss_controls(ctx: &Ctx<'_>, queue: &str) -> Result<Option<Check>, String> {
    let link_loss = |r: &RunData| -> Result<f64, String> {
        Ok(r.result
            .links
            .iter()
            .find(|l| l.name == BOTTLENECK)
            .ok_or("no bottleneck in the results")?
            .loss())
    };
    let (Some(main), Some(tcp)) = (
        ctx.run(&format!("rtt060{queue}")),
        ctx.run(&format!("{CONTROL}tcp-rtt060{queue}")),
    ) else {
        return Ok(None);
    };
    let pct = |x: f64| format!("{}%", trim(100.0 * x));
    let mut measured = format!(
        "sessions {} (highest receiver {}); twenty TCP flows in their place {}",
        pct(link_loss(main)?),
        pct(worst_loss(main)),
        pct(link_loss(tcp)?)
    );
    if let Some(g) = ctx.run(&format!("{CONTROL}smoothed-gate-rtt060{queue}")) {
        measured.push_str(&format!(
            "; sessions gated on the agent's smoothed RTT {} (highest receiver {})",
            pct(link_loss(g)?),
            pct(worst_loss(g))
        ));
    }
    Ok(Some(Check::report(
        &format!(
            "RTT {} ms{}: the bottleneck's loss, beside its controls",
            trim(rtt_ms(main)?),
            if queue.is_empty() { "" } else { ", RED" }
        ),
        measured,
        "\"around 3%\" for the sessions alone (§6.1); the controls are not in the paper",
    )))
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
