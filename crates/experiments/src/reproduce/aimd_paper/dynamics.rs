//! Verdict of `aimd`, the agent-based rate AIMD scheme of Shi and Waldvogel 2000 (docs/papers.md), while cross
//! traffic moves the bottleneck (§6.3, Figs 5–6): per phase, the source's rate against the worst path's available
//! bandwidth, and how soon the agent moves behind the new bottleneck. Everything is read from the run's scenario:
//! the phases from the CBR flows' start and stop times, each receiver's path from the topology, a path's available
//! bandwidth as its narrowest link's rate less the CBR traffic crossing that link in the same direction.

use super::super::data::RunData;
use super::super::experiment::Ctx;
use super::super::measure::kbps;
use super::super::verdict::{trim, Check};
use super::{span, EXP, SESSION};
use super::super::paths::{available, cbr_flows, narrowest, path, Cross, Path};

/// Rates are judged from this long after a phase starts (the rate moves by one packet per RTT).
const PHASE_SETTLE_S: f64 = 5.0;
/// The agent must move behind a new bottleneck within this many of its RTTs, counted from the first drop there
/// (experiments.md; the paper: the mistaken period "lasts about 1 seconds, or about 20 RTT", §6.3).
const MOVE_WITHIN_RTTS: f64 = 40.0;

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
            let mut bottlenecks: Vec<String> = receivers
                .iter()
                .filter(|(n, _)| worst_set.contains(&n.as_str()))
                .filter_map(|(_, p)| narrowest(sc, p, &cbr, mid).map(|(l, _)| l))
                .collect();
            bottlenecks.sort();
            bottlenecks.dedup();
            checks.push(move_check(r, &format!("{label}{} s", trim(from)), from, &worst_set, &bottlenecks)?);
        }
        previous_worst = worst_set;
    }
    Ok(checks)
}

/// The agent's move behind a new bottleneck, in its RTTs from the first drop on that bottleneck after the change
/// at `from` (from `from` itself if nothing drops there; zero if the agent already sits behind it).
fn move_check(r: &RunData, label: &str, from: f64, worst: &[&str], bottlenecks: &[String]) -> Result<Check, String> {
    let switches = &r.flow(SESSION).ok_or("no session flow")?.switches;
    let moved_at = if agent_at(switches, from).is_some_and(|a| worst.contains(&a)) {
        Some(from)
    } else {
        switches
            .iter()
            .find(|(at, to)| *at > from && to.as_deref().is_some_and(|a| worst.contains(&a)))
            .map(|(at, _)| *at)
    };
    let first_drop = bottlenecks.iter().filter_map(|l| r.first_drop_after(l, from)).reduce(f64::min);
    let counted_from = first_drop.unwrap_or(from);
    let srtt = &r.session(SESSION).ok_or("no session series")?.srtt;
    let (rtts, how) = match moved_at {
        None => (f64::INFINITY, "never".to_string()),
        Some(at) if at <= counted_from => (0.0, format!("at {} s, before the first drop", trim(at))),
        Some(at) => {
            let rtt = agent_rtt(srtt, counted_from, at).ok_or("no RTT sample of the agent")?;
            (
                (at - counted_from) / rtt,
                format!("{} s after it, the agent's RTT {} ms", trim(at - counted_from), trim(rtt * 1000.0)),
            )
        }
    };
    let mut c = Check::at_most(
        &format!("{label}: the agent behind the new bottleneck ({}), in the agent's RTTs from the first drop there", bottlenecks.join(", ")),
        rtts,
        MOVE_WITHIN_RTTS,
        " RTTs",
        EXP,
    );
    c.measured = format!(
        "{} ({}; {})",
        c.measured,
        first_drop.map_or("no drop there: counted from the change".to_string(), |t| format!("first drop at {} s", trim(t))),
        how
    );
    Ok(c)
}

/// The median of the agent's RTT samples in [from, to], else the last one before `from`.
fn agent_rtt(srtt: &[(f64, f64)], from: f64, to: f64) -> Option<f64> {
    let mut v: Vec<f64> = srtt.iter().filter(|(t, _)| *t >= from && *t <= to).map(|(_, x)| *x).collect();
    if v.is_empty() {
        return srtt.iter().take_while(|(t, _)| *t < from).last().map(|(_, x)| *x);
    }
    v.sort_by(f64::total_cmp);
    Some(v[v.len() / 2])
}

/// sw-fig6-dynamics: drop-tail and RED judged; the controls (variants `control-…`) reported in a line each.
pub fn fig6(ctx: &Ctx<'_>) -> Result<Vec<Check>, String> {
    let mut checks = Vec::new();
    for (variant, r) in ctx.runs {
        if let Some(control) = variant.strip_prefix("control-") {
            checks.push(Check::report(
                &format!("control, {control}: rate / available bandwidth per phase; the agent's moves"),
                control_line(&judge_run(r, "")?),
                "the paper's rule gated on single RTT samples (the judged runs above); this control is not in the paper",
            ));
            continue;
        }
        let label = if variant.is_empty() { String::new() } else { format!("{variant}: ") };
        checks.extend(judge_run(r, &label)?);
    }
    Ok(checks)
}

/// "0–20 s 0.85, …; moves at 20 s 2.2 RTTs, …" from a run's checks.
fn control_line(checks: &[Check]) -> String {
    let (moves, rates): (Vec<&Check>, Vec<&Check>) = checks.iter().partition(|c| c.what.contains("agent"));
    let short = |c: &Check| {
        let when = c.what.split(':').next().unwrap_or_default();
        let value = c.measured.split(' ').next().unwrap_or_default();
        format!("{when} {value}")
    };
    format!(
        "{}; moves at {} RTTs",
        rates.iter().map(|c| short(c)).collect::<Vec<_>>().join(", "),
        moves.iter().map(|c| short(c)).collect::<Vec<_>>().join(", ")
    )
}
