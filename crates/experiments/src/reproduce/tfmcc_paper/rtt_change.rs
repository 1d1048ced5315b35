//! Verdict of the TFMCC paper's RTT-change experiment (§4.3, Fig. 13): how long after one receiver's RTT rises the
//! sender makes it the CLR, for three receiver-set sizes and four change times.

use super::super::data::RunData;
use super::super::experiment::Ctx;
use super::super::verdict::{trim, Check};
use super::{receiver_count, session_spec, SESSION};
use std::collections::BTreeMap;

/// The change of a run (its scenario's only `[[link_change]]`): when, and the receiver behind the changed link.
fn change(r: &RunData) -> Result<(f64, String), String> {
    let s = &r.scenario;
    let c = s
        .link_changes
        .first()
        .ok_or("the scenario changes no link")?;
    let node = s.links[c.link].b;
    let session = session_spec(r)?;
    let receiver = session
        .receivers
        .iter()
        .find(|x| x.node.index() == node)
        .ok_or_else(|| format!("no receiver behind link `{}`", s.links[c.link].name))?;
    Ok((c.at.as_secs_f64(), receiver.name.clone()))
}

/// Whether the changed receiver had its first RTT sample before the change (then its one-way-delay adjustment
/// shows the rise with the next packet, RFC 4654 §4.3.3; without one it computes with R_max and sees nothing until
/// an echo reaches it).
fn had_rtt_before(r: &RunData) -> Result<bool, String> {
    let (at, name) = change(r)?;
    let s = r.session(SESSION).ok_or("no TFMCC session data")?;
    Ok(s
        .rtt_measured
        .iter()
        .any(|(n, t)| *n == name && t.is_some_and(|t| t < at)))
}

/// Seconds from the change until the changed receiver is first chosen as CLR (`None`: not within the run; 0 when
/// it already was the CLR at the change).
fn delay_to_clr(r: &RunData) -> Result<Option<f64>, String> {
    let (at, name) = change(r)?;
    let f = r.flow(SESSION).ok_or("no TFMCC flow")?;
    let clr_at_change = f.switches.iter().rev().find(|(t, _)| *t < at);
    if clr_at_change.is_some_and(|(_, to)| to.as_deref() == Some(name.as_str())) {
        return Ok(Some(0.0));
    }
    Ok(f
        .switches
        .iter()
        .find(|(t, to)| *t >= at && to.as_deref() == Some(name.as_str()))
        .map(|(t, _)| t - at))
}

/// This experiment's id, to find its runs of every seed.
const ID: &str = "tfmcc-fig13-rtt-change";
/// The earliest and the latest change time of the paper's Fig. 13.
const FIRST_T: f64 = 20.0;
const LAST_T: f64 = 140.0;
/// Slack of the trend check (experiments.md: "no larger than at t = 20 s (+1 s)").
const SLACK_S: f64 = 1.0;

/// The delay of a run, a change not found within the run counted as the time the run had left after it (a lower
/// bound).
fn delay_or_rest(r: &RunData) -> Result<f64, String> {
    let (at, _) = change(r)?;
    Ok(delay_to_clr(r)?.unwrap_or(r.end_s() - at))
}

/// The mean over every seed run of the delay at change time `t` with `n` receivers, and how many runs it covers.
fn mean_over_seeds(ctx: &Ctx<'_>, n: usize, t: f64) -> Result<(f64, usize), String> {
    let variant = format!("n{n}-t{}", trim(t));
    let mut delays = Vec::new();
    for runs in ctx.by_seed.values() {
        if let Some(r) = runs.get(&(ID.to_string(), variant.clone())) {
            delays.push(delay_or_rest(r)?);
        }
    }
    if delays.is_empty() {
        return Err(format!("no runs of `{variant}`"));
    }
    Ok((delays.iter().sum::<f64>() / delays.len() as f64, delays.len()))
}

/// tfmcc-fig13-rtt-change: for each receiver-set size, the delay until the receiver whose RTT rose is the CLR, per
/// change time. The paper claims a trend ("the expected time [...] decreases"): judged per group size on the mean
/// over the seeds run, the delay at t = 140 s no larger than at t = 20 s (+1 s); this seed's runs are reported.
pub fn fig13(ctx: &Ctx<'_>) -> Result<Vec<Check>, String> {
    // Receiver count → (change time, delay, whether the receiver had an RTT sample), in time order.
    let mut by_n: BTreeMap<usize, Vec<(f64, Option<f64>, bool)>> = BTreeMap::new();
    for r in ctx.runs.values() {
        let (at, _) = change(r)?;
        by_n
            .entry(receiver_count(r))
            .or_default()
            .push((at, delay_to_clr(r)?, had_rtt_before(r)?));
    }
    let mut checks = Vec::new();
    for (n, mut delays) in by_n {
        delays.sort_by(|a, b| a.0.total_cmp(&b.0));
        let text = delays
            .iter()
            .map(|(at, d, measured)| {
                let delay = d.map_or("not within the run".to_string(), |d| format!("{} s", trim(d)));
                let rtt = if *measured { "" } else { " (no RTT sample yet)" };
                format!("t = {} s: {delay}{rtt}", trim(*at))
            })
            .collect::<Vec<_>>()
            .join(", ");
        let (early, runs) = mean_over_seeds(ctx, n, FIRST_T)?;
        let (late, _) = mean_over_seeds(ctx, n, LAST_T)?;
        let mut c = Check::at_most(
            &format!(
                "{n} receivers: mean delay at t = {} s minus that at t = {} s, over {runs} seed(s)",
                trim(LAST_T),
                trim(FIRST_T)
            ),
            late - early,
            SLACK_S,
            " s",
            "experiments.md (paper: the expected time decreases)",
        );
        c.measured = format!("{} ({} s against {} s)", c.measured, trim(late), trim(early));
        checks.push(c);
        checks.push(Check::report(&format!("{n} receivers: this seed's delays"), text, "Fig. 13"));
    }
    Ok(checks)
}
