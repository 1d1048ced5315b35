//! Verdict of the agent scheme while cross traffic moves the bottleneck (Shi and Waldvogel §6.3, Figs 5–6): per
//! phase, the source's rate against the worst path's available bandwidth, and how soon the agent moves behind the
//! new bottleneck. Everything is read from the run's scenario: the phases from the CBR flows' start and stop times,
//! each receiver's path from the topology, a path's available bandwidth as its narrowest link's rate less the CBR
//! traffic crossing that link in the same direction.

use super::super::data::RunData;
use super::super::experiment::Ctx;
use super::super::measure::kbps;
use super::super::verdict::{trim, Check};
use super::{span, EXP, SESSION};
use super::super::paths::{available, cbr_flows, path, Cross, Path};

/// Rates are judged from this long after a phase starts (the rate moves by one packet per RTT).
const PHASE_SETTLE_S: f64 = 5.0;
/// The agent must move behind a new bottleneck within this (experiments.md).
const MOVE_WITHIN_S: f64 = 2.0;

/// Per receiver of the session: (name, its path from the source).
fn receiver_paths(r: &RunData) -> Result<Vec<(String, Path)>, String> {
    let sc = &r.scenario;
    let s = sc
        .sessions
        .iter()
        .find(|x| x.name == SESSION)
        .ok_or_else(|| format!("no session `{SESSION}` in scenario {}", sc.name))?;
    Ok(s.receivers
        .iter()
        .map(|x| (x.name.clone(), path(sc, s.source.index(), x.node.index())))
        .collect())
}

/// The phases: [0, first change), …, [last change, end).
fn phases(r: &RunData, cbr: &[Cross]) -> Vec<(f64, f64)> {
    let end = r.end_s();
    let mut cuts: Vec<f64> = cbr
        .iter()
        .flat_map(|c| [c.start, c.stop])
        .filter(|t| *t > 0.0 && *t < end)
        .collect();
    cuts.push(0.0);
    cuts.push(end);
    cuts.sort_by(f64::total_cmp);
    cuts.dedup();
    cuts.windows(2).map(|w| (w[0], w[1])).collect()
}

/// The agent at `t` (the last change at or before it) and the changes after it.
fn agent_at(switches: &[(f64, Option<String>)], t: f64) -> Option<&str> {
    switches
        .iter()
        .take_while(|(at, _)| *at <= t)
        .last()
        .and_then(|(_, to)| to.as_deref())
}

/// One run's checks: per phase the rate against the worst path's available bandwidth, and at each change of the
/// worst paths the delay until the agent is behind one of them.
fn judge_run(r: &RunData, label: &str) -> Result<Vec<Check>, String> {
    let sc = &r.scenario;
    let receivers = receiver_paths(r)?;
    let cbr = cbr_flows(r);
    let switches = &r.flow(SESSION).ok_or("no session flow")?.switches;
    let mut checks = Vec::new();
    let mut previous_worst: Vec<&str> = Vec::new();
    for (from, to) in phases(r, &cbr) {
        let mid = (from + to) / 2.0;
        let avail: Vec<(&str, f64)> =
            receivers.iter().map(|(n, p)| (n.as_str(), available(sc, p, &cbr, mid))).collect();
        let worst = avail.iter().map(|(_, a)| *a).fold(f64::INFINITY, f64::min);
        let worst_set: Vec<&str> = avail.iter().filter(|(_, a)| *a <= worst * (1.0 + 1e-9)).map(|(n, _)| *n).collect();
        let rate = r.flow_mean(SESSION, from + PHASE_SETTLE_S, to)?;
        let mut c = Check::range(
            &format!("{label}{}: source rate / the worst path's available bandwidth", span(from, to)),
            rate / worst,
            0.7,
            1.3,
            "",
            EXP,
        );
        c.measured = format!("{} ({} vs {}, from {} s)", c.measured, kbps(rate), kbps(worst), trim(from + PHASE_SETTLE_S));
        checks.push(c);
        let moved = worst_set.len() < receivers.len() && worst_set != previous_worst && from > 0.0;
        if moved {
            let delay = if agent_at(switches, from).is_some_and(|a| worst_set.contains(&a)) {
                0.0
            } else {
                switches
                    .iter()
                    .find(|(at, to)| *at > from && to.as_deref().is_some_and(|a| worst_set.contains(&a)))
                    .map_or(f64::INFINITY, |(at, _)| at - from)
            };
            checks.push(Check::at_most(
                &format!("{label}{} s: delay until the agent is behind the new bottleneck", trim(from)),
                delay,
                MOVE_WITHIN_S,
                "s",
                EXP,
            ));
        }
        previous_worst = worst_set;
    }
    Ok(checks)
}

/// sw-fig6-dynamics: drop-tail and RED.
pub fn fig6(ctx: &Ctx<'_>) -> Result<Vec<Check>, String> {
    let mut checks = Vec::new();
    for (variant, r) in ctx.runs {
        let label = if variant.is_empty() { String::new() } else { format!("{variant}: ") };
        checks.extend(judge_run(r, &label)?);
    }
    Ok(checks)
}
