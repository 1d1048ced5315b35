//! Feedback aggregation (Wang and Fahmy §III, Figs 5–7): network elements forward only the first NAK per
//! packet, so the sender may hear the wrong receiver.

use super::common::*;

/// PR4's share of the acker role is judged after this many seconds (experiments.md, wf-aggregation-fixed:
/// "after 10 s").
const SETTLE_S: f64 = 10.0;

/// The network elements' NAK counters: "NE1 forwarded a, suppressed b (c for a higher loss); NE2 …".
fn ne_summary(run: &RunData) -> String {
    run.ne_stats
        .iter()
        .map(|(n, s)| {
            let mut t = format!(
                "{n} forwarded {} NAKs, suppressed {}",
                s.naks_forwarded, s.naks_suppressed
            );
            if s.naks_forwarded_for_loss > 0 {
                t.push_str(&format!(
                    " ({} forwarded for a higher rx_loss)",
                    s.naks_forwarded_for_loss
                ));
            }
            t
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The receiver whose acker role the verdicts follow: the longest path and the highest loss (Wang and Fahmy §III).
const WORST: &str = "PR4";

/// PR4's NAKs that reached the sender: (share, "r of s NAKs").
fn worst_reach(run: &RunData) -> Result<(f64, String), String> {
    let r = pgm(run)?
        .receivers
        .iter()
        .find(|r| r.name == WORST)
        .ok_or_else(|| format!("no receiver {WORST} in {}", run.dir.display()))?;
    let share = if r.naks_sent > 0 {
        r.naks_at_source as f64 / r.naks_sent as f64
    } else {
        0.0
    };
    Ok((
        share,
        format!("{} of {} NAKs", r.naks_at_source, r.naks_sent),
    ))
}

/// One run in a line: the switches away from PR4, PR4's time as acker, its reports that got through, the NEs.
fn agg_summary(run: &RunData) -> Result<String, String> {
    let f = pgm(run)?;
    let end = run.end_s();
    let (share, of) = worst_reach(run)?;
    Ok(format!(
        "{} switches away from {WORST} ({} in all), {WORST} acker {}% of {}–{} s, {WORST}'s NAKs at the sender \
         {}% ({of}); {}",
        switches_away(&f.switches, WORST, 0.0, end),
        switch_count(&f.switches, 0.0, end, None),
        trim(100.0 * acker_share(&f.switches, WORST, false, SETTLE_S, end)),
        trim(SETTLE_S),
        trim(end),
        trim(100.0 * share),
        ne_summary(run)
    ))
}

pub(super) fn aggregation(ctx: &Ctx<'_>) -> Result<Vec<Check>, String> {
    let r = need(ctx, "")?;
    let f = pgm(r)?;
    let end = r.end_s();
    let away = switches_away(&f.switches, WORST, 0.0, end);
    let mut c1 = Check::at_least(
        &format!("acker switches away from {WORST} in {} s", trim(end)),
        away as f64,
        4.0,
        "",
        &format!("{EXP} (a switch to PR1 or PR2 alike: they sit in identical places)"),
    );
    c1.measured = format!(
        "{} (all changes: {})",
        c1.measured,
        acker_sequence(&f.switches, 14)
    );
    let worst = f
        .receivers
        .iter()
        .max_by(|a, b| a.loss_rate.total_cmp(&b.loss_rate))
        .map(|r| r.name.clone())
        .unwrap_or_default();
    let losses: Vec<String> = f
        .receivers
        .iter()
        .map(|r| format!("{} {}%", r.name, trim(100.0 * r.loss_rate)))
        .collect();
    let c2 = Check::holds(
        &format!("{WORST} has the lowest throughput: the highest loss rate, on the longest path"),
        worst == WORST,
        "PR4's measured loss rate the highest (experiments.md; WF §III: \"the acker should … always be PR4\")",
        format!("loss rates: {}", losses.join(", ")),
    );
    let mut checks = vec![
        c1,
        c2,
        report(
            "this run",
            agg_summary(r)?,
            "\"the acker should (on a larger time scale) always be PR4\" (§III)",
        ),
    ];
    if let Some(ns) = ctx.run("no-suppression") {
        checks.push(report(
            "control: the same run with NAK suppression off at NE1 and NE2",
            agg_summary(ns)?,
            "(not in the paper: if suppression caused the switches, they would vanish here)",
        ));
    }
    if let Some(ts) = ctx.run("timestamp-rtt") {
        checks.push(report(
            "control: the same run with the RTT from timestamps instead of packet counts",
            agg_summary(ts)?,
            "(not in the paper: if the packet-count RTT caused the switches, they would vanish here)",
        ));
    }
    convoy_variant(ctx, &mut checks)?;
    Ok(checks)
}

pub(super) fn aggregation_fixed(ctx: &Ctx<'_>) -> Result<Vec<Check>, String> {
    let r = need(ctx, "")?;
    let f = pgm(r)?;
    let base = ctx
        .other("wf-aggregation", "")
        .ok_or("wf-aggregation did not run")?;
    let bf = pgm(base)?;
    let (reach, reach_of) = worst_reach(r)?;
    let (base_reach, base_of) = worst_reach(base)?;
    let c1 = Check::holds(
        &format!("{WORST}'s reports (NAKs carrying its loss) that reach the sender: a higher share with the fix"),
        reach > base_reach,
        "higher than wf-aggregation's, same seed (experiments.md; pgmcc paper §3.7: the fix lets the worst \
         receiver's reports through)",
        format!(
            "{}% ({reach_of}) against wf-aggregation's {}% ({base_of})",
            trim(100.0 * reach),
            trim(100.0 * base_reach)
        ),
    );
    let (end, base_end) = (r.end_s(), base.end_s());
    let share = acker_share(&f.switches, WORST, false, SETTLE_S, end);
    let mut c2 = Check::at_least(
        &format!("{WORST}'s share of the acker role after {} s", trim(SETTLE_S)),
        share,
        0.9,
        "",
        EXP,
    );
    c2.measured = format!(
        "{} (wf-aggregation: {})",
        c2.measured,
        trim(acker_share(&bf.switches, WORST, false, SETTLE_S, base_end))
    );
    let mut checks = vec![
        c1,
        c2,
        report(
            &format!("acker switches away from {WORST}, beside wf-aggregation's"),
            format!(
                "{} ({}); wf-aggregation: {}",
                switches_away(&f.switches, WORST, 0.0, end),
                acker_sequence(&f.switches, 10),
                switches_away(&bf.switches, WORST, 0.0, base_end)
            ),
            "(not in the paper)",
        ),
        report(
            "NAKs at the network elements",
            format!("{} (wf-aggregation: {})", ne_summary(r), ne_summary(base)),
            "(not in the paper)",
        ),
    ];
    convoy_variant(ctx, &mut checks)?;
    Ok(checks)
}

/// The report of the run with Convoy's defaults, when the experiment has one.
fn convoy_variant(ctx: &Ctx<'_>, checks: &mut Vec<Check>) -> Result<(), String> {
    if let Some(cv) = ctx.run("convoy") {
        checks.push(report(
            "variant with Convoy's defaults (timestamp RTT, the draft's formula, adaptive timeout, the draft's loss reaction)",
            agg_summary(cv)?,
            "(not in the paper)",
        ));
    }
    Ok(())
}
