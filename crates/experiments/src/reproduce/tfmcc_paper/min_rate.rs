//! The session's minimum rate on the TFMCC paper's late join: §1's "applications using a single-rate scheme would
//! use application-specific thresholds at which a receiver is compelled to leave", shown on §4.5's receiver behind
//! 200 kbit/s joining a session at its 1 Mbit/s fair rate (Figs 15–16), with and without such a threshold
//! (`min_rate`, docs/transfer.md "Shedding a slow receiver").

use super::super::data::RunData;
use super::super::experiment::{Ctx, Experiment, RunPlan};
use super::super::measure::kbps;
use super::super::verdict::{trim, Check};
use super::sharing::late_receiver;
use super::{need, session_spec, span, EXP, SESSION};

/// The run without a threshold.
const NO_THRESHOLD: &str = "no-threshold";
/// The threshold: 80% of the 1 Mbit/s fair rate (the note says why not lower).
const MIN_RATE: &str = "session.tfmcc.min_rate=800kbit";
/// Where the rates compared start after the shed: the 20 s tfmcc-fig15-late-join gives the session to return to
/// its fair rate after the receiver's own leave.
const RETURN_S: f64 = 20.0;

/// docs/experiments.md#tfmcc-min-rate.
pub const TFMCC_MIN_RATE: Experiment = Experiment {
    id: "tfmcc-min-rate",
    section: "TFMCC paper",
    source: "Widmer and Handley 2001, §1 (thresholds) on §4.5's late join (Figs 15–16)",
    claim: "A single-rate session runs at its slowest receiver's pace, so applications set \"thresholds at which \
            a receiver is compelled to leave\": with a minimum rate between the slow path's and the fair rate, \
            the receiver behind 200 kbit/s is shed once its rate has stayed below the minimum for the grace \
            period, and the session returns to its fair rate while that receiver would still be there; without \
            the threshold it runs at the slow receiver's pace until the receiver leaves.",
    runs: &[
        RunPlan { variant: "", scenario: "tfmcc-fig15-late-join.toml", sets: &[MIN_RATE] },
        RunPlan { variant: NO_THRESHOLD, scenario: "tfmcc-fig15-late-join.toml", sets: &[] },
    ],
    needs: &[],
    judge,
    figures: None,
    note: NOTE,
};

const NOTE: &str = "Not a paper figure: the paper names the remedy (§1) without a threshold of its own; the late join is \
    its §4.5 setup, run as tfmcc-fig15-late-join runs it, with min_rate = 800 kbit/s and the default 10 s grace. \
    The joining receiver's credited rate is the rate it reports as CLR (RFC 4654 §3.3), and behind its 200 kbit/s \
    link that rate saws between about 150 and 700 kbit/s with a period of about 14 s (traced, seeds 1–3: TFRC's \
    estimate climbs while no loss comes, the sender follows slowly, the queue overflows, the estimate falls), so a \
    threshold of 500 kbit/s restarts the clock every cycle before 10 s pass and sheds it on some seeds only; 800 \
    kbit/s, below every rate the eight fast receivers report, sheds it about 12 s after the join on every seed \
    tried (1–5). The return to 800 kbit/s after the shed is reported, not judged: it is TFMCC's own return after \
    its CLR goes, slow for the reason tfmcc-fig15-late-join's note traces (R_max keeps the departed receiver's \
    RTT and forgets it by 10% a round).";

fn judge(ctx: &Ctx<'_>) -> Result<Vec<Check>, String> {
    let r = need(ctx, "")?;
    let bare = need(ctx, NO_THRESHOLD)?;
    let (late, join, leave) = late_receiver(r)?;
    let spec = session_spec(r)?;
    let policy = spec.min_rate.ok_or("the run has no min_rate")?;
    let grace = policy.grace.as_secs_f64();
    let f = r.flow(SESSION).ok_or("no TFMCC flow")?;
    let of_late: Vec<_> = f.sheds.iter().filter(|s| s.receiver == late).collect();
    let others = f.sheds.len() - of_late.len();
    let mut checks = vec![
        Check::range(&format!("times {late} was shed"), of_late.len() as f64, 1.0, 1.0, "", EXP),
        Check::at_most("other receivers shed", others as f64, 0.0, "", EXP),
    ];
    let Some(shed) = of_late.first() else {
        return Ok(checks);
    };
    checks.push(Check::range(
        &format!("how long {late}'s rate had been below {} when shed", kbps(policy.rate_bps * 8.0)),
        shed.below_s,
        grace,
        grace + 1.5,
        " s",
        "the grace period, then its next report (one per RTT)",
    ));
    checks.push(Check::report(
        &format!("{late} shed at, after its join at {} s", trim(join)),
        format!("{} s, credited with {}", trim(shed.t), kbps(shed.rate_bps)),
        "(none: the paper has no threshold)",
    ));
    let w = f.interval_s;
    let bin = |t: f64| f.throughput_bps.get((t / w) as usize).copied().unwrap_or(0.0);
    let back = (0..)
        .map(|k| shed.t + k as f64 * w)
        .take_while(|t| *t < leave)
        .find(|t| bin(*t) >= 800e3)
        .map_or(f64::INFINITY, |t| t - shed.t);
    checks.push(Check::report(
        "time from the shed to a 1 s bin ≥ 800 kbit/s",
        format!("{} s", trim(back)),
        "return to the fair rate after the leave (tfmcc-fig15-late-join judges it)",
    ));
    checks.extend(compare_before_leave(r, bare, shed.t + RETURN_S, leave)?);
    Ok(checks)
}

/// The session's mean rate from `from` to the late receiver's leave, with the threshold and without.
fn compare_before_leave(r: &RunData, bare: &RunData, from: f64, leave: f64) -> Result<Vec<Check>, String> {
    if from >= leave {
        return Ok(vec![Check::report(
            "rates before the leave",
            format!("not compared: the shed came within {RETURN_S} s of the leave"),
            "(none)",
        )]);
    }
    let with = r.flow_mean(SESSION, from, leave)?;
    let without = bare.flow_mean(SESSION, from, leave)?;
    Ok(vec![
        Check::at_least(
            &format!("TFMCC with the threshold, {}", span(from, leave)),
            with / 1e3,
            800.0,
            " kbit/s",
            EXP,
        ),
        Check::at_most(
            &format!("variant {NO_THRESHOLD}: TFMCC, {}", span(from, leave)),
            without / 1e3,
            300.0,
            " kbit/s",
            "experiments.md (paper Fig. 15: the slow receiver sets the pace until it leaves)",
        ),
    ])
}
