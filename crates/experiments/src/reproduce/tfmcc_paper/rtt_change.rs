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

/// tfmcc-fig13-rtt-change: for each receiver-set size, the delay until the receiver whose RTT rose is the CLR, per
/// change time; later changes are found no slower than earlier ones (experiments.md), and every change is found
/// within the run.
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
        let found = delays.iter().all(|(_, d, _)| d.is_some());
        let never_slower = delays
            .windows(2)
            .all(|w| matches!((w[0].1, w[1].1), (Some(a), Some(b)) if b <= a));
        checks.push(Check::holds(
            &format!("{n} receivers: the receiver whose RTT rose becomes CLR after every change"),
            found,
            "within the run (experiments.md)",
            text.clone(),
        ));
        checks.push(Check::holds(
            &format!("{n} receivers: later changes are found no slower than earlier ones"),
            found && never_slower,
            "delay non-increasing in t (experiments.md; paper: it decreases as more receivers have an RTT)",
            text,
        ));
    }
    Ok(checks)
}
