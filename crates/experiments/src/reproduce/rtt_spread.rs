//! The verdict of pgmcc-fig6-rtt-spread (pgmcc paper §4.4, Fig. 6): which receiver becomes the acker when the
//! receivers' round-trip times spread on both sides of a competing TCP flow's, and, in the variant, when the
//! competition happens on the longest path only.
//!
//! Receivers' RTTs are the unloaded ones of the scenario's topology (the sum of the link delays on the path from
//! the source and back), as experiments.md states them; queueing adds to all alike on the shared bottleneck.

use super::data::RunData;
use super::experiment::Ctx;
use super::measure::{acker_share, kbps};
use super::verdict::{trim, Check};
use std::collections::VecDeque;

const EXP: &str = "experiments.md";
/// The session and the TCP flow of both scenarios.
const SESSION: &str = "pgmcc";
const TCP: &str = "tcp";
/// Shares and means are taken over [SETTLE_S, end) (experiments.md: "30–300 s").
const SETTLE_S: f64 = 30.0;

/// Each receiver of `session` with its unloaded round-trip time in seconds, in the scenario's order.
pub fn unloaded_rtts(run: &RunData, session: &str) -> Result<Vec<(String, f64)>, String> {
    let s = &run.scenario;
    let sess = s
        .sessions
        .iter()
        .find(|x| x.name == session)
        .ok_or_else(|| format!("no session `{session}`"))?;
    // Breadth-first over the duplex links from the source: (round-trip delay so far) per node.
    let n = s.nodes.len();
    let mut adjacent: Vec<Vec<(usize, f64)>> = vec![Vec::new(); n];
    for l in &s.links {
        let both = (l.forward.delay + l.backward.delay).as_secs_f64();
        adjacent[l.a].push((l.b, both));
        adjacent[l.b].push((l.a, both));
    }
    let mut rtt: Vec<Option<f64>> = vec![None; n];
    let source = sess.source.index();
    rtt[source] = Some(0.0);
    let mut queue = VecDeque::from([source]);
    while let Some(u) = queue.pop_front() {
        for &(next, both) in &adjacent[u] {
            if rtt[next].is_none() {
                rtt[next] = Some(rtt[u].unwrap_or(0.0) + both);
                queue.push_back(next);
            }
        }
    }
    sess.receivers
        .iter()
        .map(|r| {
            rtt[r.node.index()]
                .map(|t| (r.name.clone(), t))
                .ok_or_else(|| format!("receiver `{}` unreachable", r.name))
        })
        .collect()
}

/// The acker's time share per receiver over [from, to), as "PR1 12%, …".
fn shares(
    run: &RunData,
    rtts: &[(String, f64)],
    from: f64,
    to: f64,
) -> Result<(Vec<f64>, String), String> {
    let f = run.flow(SESSION).ok_or("no pgmcc flow")?;
    let v: Vec<f64> = rtts
        .iter()
        .map(|(n, _)| acker_share(&f.switches, n, false, from, to))
        .collect();
    let text = rtts
        .iter()
        .zip(&v)
        .map(|((n, rtt), s)| format!("{n} ({} ms) {}%", trim(rtt * 1000.0), trim(100.0 * s)))
        .collect::<Vec<_>>()
        .join(", ");
    Ok((v, text))
}

/// The pgmcc/TCP throughput ratio over [from, to), with both rates.
fn ratio(run: &RunData, from: f64, to: f64) -> Result<(f64, String), String> {
    let (p, t) = (
        run.flow_mean(SESSION, from, to)?,
        run.flow_mean(TCP, from, to)?,
    );
    Ok((p / t.max(1.0), format!("{} vs {}", kbps(p), kbps(t))))
}

/// The longest-path variant with both sources on 1 ms access links (reported): identical paths phase-lock to the
/// drop-tail bottleneck.
pub(super) const LONGEST_IDENTICAL: &str = "longest-path-identical-paths";

/// The verdict: main run (acker's RTT below the median receiver RTT for ≥ 50% of the time) and the
/// `longest-path` variant (the longest-RTT receiver holds the acker ≥ 70%, pgmcc/TCP in [0.5, 2]).
pub fn judge(ctx: &Ctx<'_>) -> Result<Vec<Check>, String> {
    let r = ctx.run("").ok_or("run `` missing")?;
    let mut checks = main_run_checks(r)?;
    let Some(v6) = ctx.run("longest-path") else {
        return Ok(checks);
    };
    checks.extend(longest_path_checks(v6)?);
    if let Some(same) = ctx.run(LONGEST_IDENTICAL) {
        let (q, rates) = ratio(same, SETTLE_S, same.end_s())?;
        checks.push(Check::report(
            "variant longest-path-identical-paths (both sources on 1 ms access links): pgmcc / TCP",
            format!("{} ({rates})", trim(q)),
            "drop-tail runs, where identical paths phase-lock to the queue (experiments.md)",
        ));
    }
    Ok(checks)
}

/// The median of `values`.
fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    if sorted.len().is_multiple_of(2) {
        (sorted[sorted.len() / 2 - 1] + sorted[sorted.len() / 2]) / 2.0
    } else {
        sorted[sorted.len() / 2]
    }
}

/// The main run `r`: the short-RTT receivers' share of the acker role (judged), NAK suppression and the
/// pgmcc/TCP ratio (reported).
fn main_run_checks(r: &RunData) -> Result<Vec<Check>, String> {
    let end = r.end_s();
    let rtts = unloaded_rtts(r, SESSION)?;
    let rtt_values: Vec<f64> = rtts.iter().map(|(_, t)| *t).collect();
    let median = median(&rtt_values);
    let (v, text) = shares(r, &rtts, SETTLE_S, end)?;
    let short: f64 = rtts
        .iter()
        .zip(&v)
        .filter(|((_, t), _)| *t < median)
        .map(|(_, s)| s)
        .sum();
    let mut c1 = Check::at_least(
        &format!(
            "share of {}–{} s with the acker's RTT below the median receiver RTT ({} ms)",
            trim(SETTLE_S),
            trim(end),
            trim(median * 1000.0)
        ),
        short,
        0.5,
        "",
        "experiments.md, after \"the selected acker will likely be one of the receivers with the shortest RTTs\" (§4.4)",
    );
    c1.measured = format!("{} (acker time: {text})", c1.measured);
    let (q, rates) = ratio(r, SETTLE_S, end)?;
    Ok(vec![
        c1,
        Check::report(
            "NAK suppression at the network element",
            ne_suppression(r),
            "\"in presence of suppression from the network elements\" (§4.4)",
        ),
        Check::report(
            &format!("pgmcc / TCP, {}–{} s", trim(SETTLE_S), trim(end)),
            format!("{} ({rates})", trim(q)),
            "(Fig. 6 shows the setup only)",
        ),
    ])
}

/// What each network element of `r` forwarded and suppressed.
fn ne_suppression(r: &RunData) -> String {
    r.ne_stats
        .iter()
        .map(|(n, s)| {
            format!(
                "{n} forwarded {} NAKs, suppressed {}",
                s.naks_forwarded, s.naks_suppressed
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The `longest-path` variant `v6`: the longest-RTT receiver's share of the acker role and the pgmcc/TCP
/// ratio, both judged.
fn longest_path_checks(v6: &RunData) -> Result<Vec<Check>, String> {
    let rtts6 = unloaded_rtts(v6, SESSION)?;
    let (longest, longest_rtt) = rtts6
        .iter()
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .cloned()
        .ok_or("no receivers")?;
    let end6 = v6.end_s();
    let (v, text) = shares(v6, &rtts6, SETTLE_S, end6)?;
    let held = rtts6
        .iter()
        .zip(&v)
        .find(|((n, _), _)| *n == longest)
        .map_or(0.0, |(_, s)| *s);
    let mut c3 = Check::at_least(
        &format!(
            "longest-path: {longest}'s ({} ms, the longest RTT) share of the acker role, {}–{} s",
            trim(longest_rtt * 1000.0),
            trim(SETTLE_S),
            trim(end6)
        ),
        held,
        0.7,
        "",
        EXP,
    );
    c3.measured = format!("{} (acker time: {text})", c3.measured);
    let (q6, rates6) = ratio(v6, SETTLE_S, end6)?;
    let mut c4 = Check::range(
        &format!(
            "longest-path: pgmcc / TCP, {}–{} s",
            trim(SETTLE_S),
            trim(end6)
        ),
        q6,
        0.5,
        2.0,
        "",
        EXP,
    );
    c4.measured = format!("{} ({rates6})", c4.measured);
    Ok(vec![c3, c4])
}
