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

fn agg_summary(run: &RunData) -> Result<String, String> {
    let f = pgm(run)?;
    let end = run.end_s();
    Ok(format!(
        "{} PR1↔PR4 switches, {} switches in all, PR4 acker {}% of {}–{} s; {}",
        switch_count(&f.switches, 0.0, end, Some(("PR1", "PR4"))),
        switch_count(&f.switches, 0.0, end, None),
        trim(100.0 * acker_share(&f.switches, "PR4", false, SETTLE_S, end)),
        trim(SETTLE_S),
        trim(end),
        ne_summary(run)
    ))
}

pub(super) fn aggregation(ctx: &Ctx<'_>) -> Result<Vec<Check>, String> {
    let r = need(ctx, "")?;
    let f = pgm(r)?;
    let end = r.end_s();
    let n14 = switch_count(&f.switches, 0.0, end, Some(("PR1", "PR4")));
    let mut c1 = Check::at_least(
        &format!("acker switches between PR1 and PR4 in {} s", trim(end)),
        n14 as f64,
        4.0,
        "",
        EXP,
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
        "PR4 has the lowest throughput: the highest loss rate, on the longest path",
        worst == "PR4",
        "PR4's measured loss rate the highest (experiments.md; WF §III: \"the acker should … always be PR4\")",
        format!("loss rates: {}", losses.join(", ")),
    );
    let mut checks = vec![
        c1,
        c2,
        report(
            &format!(
                "PR4's share of the acker role after {} s; NAK suppression at the network elements",
                trim(SETTLE_S)
            ),
            format!(
                "{}%; {}",
                trim(100.0 * acker_share(&f.switches, "PR4", false, SETTLE_S, end)),
                ne_summary(r)
            ),
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
    let (end, base_end) = (r.end_s(), base.end_s());
    let share = acker_share(&f.switches, "PR4", false, SETTLE_S, end);
    let mut c1 = Check::at_least(
        &format!("PR4's share of the acker role after {} s", trim(SETTLE_S)),
        share,
        0.9,
        "",
        EXP,
    );
    c1.measured = format!(
        "{} (wf-aggregation: {})",
        c1.measured,
        trim(acker_share(&bf.switches, "PR4", false, SETTLE_S, base_end))
    );
    let n = switch_count(&f.switches, 0.0, end, None) as f64;
    let nb = switch_count(&bf.switches, 0.0, base_end, None) as f64;
    let mut c2 = Check::at_most(
        &format!(
            "acker switches in {} s, at most half of wf-aggregation's",
            trim(end)
        ),
        n,
        nb / 2.0,
        "",
        &format!("{EXP}: half of wf-aggregation's {}", trim(nb)),
    );
    c2.measured = format!("{} ({})", c2.measured, acker_sequence(&f.switches, 10));
    let mut checks = vec![
        c1,
        c2,
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
            "variant with Convoy's defaults (timestamp RTT, the draft's formula, adaptive timeout)",
            agg_summary(cv)?,
            "(not in the paper)",
        ));
    }
    Ok(())
}
