//! Fairness dynamics (Wang and Fahmy §IV, Figs 8–15, Tables I–II): congested, medium and uncongested
//! scale, and the fixed timeout's effect on the window.

use super::common::*;

/// "PGM a–b kbit/s, TCP flow 4 c kbit/s, N timeouts, W = 1 x% of the time".
fn dyn_summary(run: &RunData) -> Result<String, String> {
    let (_, _, range) = receiver_range(run)?;
    let s = session(run)?;
    Ok(format!(
        "PGM receivers {range}, TCP flow 4 {} kbit/s; {} timeouts, W = 1 for {}% of the run",
        trim(tcp_goodput(run, TCP4)? / 1000.0),
        s.timeouts,
        trim(100.0 * window_at_one(s, 0.0, run.end_s()))
    ))
}

fn table2_row(run: &RunData) -> Result<String, String> {
    Ok(receiving_rates(run)?
        .iter()
        .map(|r| {
            format!(
                "{} {}% ({}%)",
                r.name,
                trim(100.0 * r.odata),
                trim(100.0 * r.delivered)
            )
        })
        .collect::<Vec<_>>()
        .join(", "))
}

/// The short-RTT TCP flows the paper says get ~2/3 of "the link bandwidth", with the link each crosses.
const SHORT_FLOWS: [(&str, &str); 3] = [("tcp7", "Link1"), ("tcp11", "Link3"), ("tcp21", "Link4")];

/// wf-congested's id, for its runs on the other seeds.
pub(super) const CONGESTED: &str = "wf-congested";

/// The session's goodput (slowest receiver) with the fixed and the adaptive timeout, each the mean over the seeds
/// run, and how many seeds that is.
fn goodput_over_seeds(ctx: &Ctx<'_>, id: &str) -> Result<(f64, f64, usize), String> {
    let mut sums = (0.0, 0.0, 0);
    for runs in ctx.by_seed.values() {
        let get = |v: &str| runs.get(&(id.to_string(), v.to_string()));
        if let (Some(f), Some(a)) = (get(""), get("adaptive")) {
            sums = (
                sums.0 + pgm(f)?.goodput_bps,
                sums.1 + pgm(a)?.goodput_bps,
                sums.2 + 1,
            );
        }
    }
    if sums.2 == 0 {
        return Err(format!("no runs of `{id}`"));
    }
    let n = sums.2 as f64;
    Ok((sums.0 / n, sums.1 / n, sums.2))
}

/// wf-congested: the fixed timeout keeps the window at 1 and times out far more often than the adaptive one,
/// which gets more goodput; Table II's receiving rates and the paper's numbers beside ours.
pub(super) fn congested(ctx: &Ctx<'_>) -> Result<Vec<Check>, String> {
    let fixed = need(ctx, "")?;
    let adaptive = need(ctx, "adaptive")?;
    let (sf, sa) = (session(fixed)?, session(adaptive)?);
    let mut checks = vec![
        window_at_one_check(sf, fixed.end_s(), sa, adaptive.end_s()),
        timeouts_check(sf, sa),
        adaptive_goodput_check(ctx, fixed, adaptive)?,
    ];
    checks.extend(table2_checks(fixed, adaptive)?);
    checks.extend(goodput_reports(ctx, fixed, adaptive)?);
    checks.push(ack_delay_report(sf, fixed.end_s(), sa, adaptive.end_s()));
    checks.push(report(
        "acker changes, fixed timeout",
        acker_sequence(&pgm(fixed)?.switches, 8),
        "PR1, then PR4 at 50.2 s, then PR5 (§IV-A)",
    ));
    checks.push(short_flows_report(fixed)?);
    Ok(checks)
}

/// Judged: with the fixed timeout the window is at 1 for most of the run (`sf` over [0, `fixed_end`)); the
/// adaptive run's (`sa`) beside it.
fn window_at_one_check(
    sf: &SessionData,
    fixed_end: f64,
    sa: &SessionData,
    adaptive_end: f64,
) -> Check {
    let mut c = Check::at_least(
        "fixed timeout: fraction of the run with the window at 1 (\"most of the run\")",
        window_at_one(sf, 0.0, fixed_end),
        0.5,
        "",
        EXP,
    );
    c.measured = format!(
        "{} (adaptive: {})",
        c.measured,
        trim(window_at_one(sa, 0.0, adaptive_end))
    );
    c
}

/// Judged: the fixed timeout fires at least ten times as often as the adaptive one.
fn timeouts_check(sf: &SessionData, sa: &SessionData) -> Check {
    let mut c = Check::at_least(
        "timeouts, fixed / adaptive",
        sf.timeouts as f64 / (sa.timeouts.max(1)) as f64,
        10.0,
        "",
        EXP,
    );
    c.measured = format!("{} ({} vs {})", c.measured, sf.timeouts, sa.timeouts);
    c
}

/// Judged: the adaptive timeout's PGM goodput above the fixed one's, on the mean over the seeds run.
fn adaptive_goodput_check(
    ctx: &Ctx<'_>,
    fixed: &RunData,
    adaptive: &RunData,
) -> Result<Check, String> {
    let (gf, ga, seeds) = goodput_over_seeds(ctx, CONGESTED)?;
    Ok(Check::holds(
        "adaptive timeout: more PGM goodput than the fixed one (slowest receiver), mean over the seeds run",
        ga > gf,
        "adaptive > fixed (experiments.md, on the mean over the seeds run)",
        format!(
            "adaptive {} vs fixed {} kbit/s over {seeds} seed(s); this seed {} vs {}",
            trim(ga / 1000.0),
            trim(gf / 1000.0),
            trim(pgm(adaptive)?.goodput_bps / 1000.0),
            trim(pgm(fixed)?.goodput_bps / 1000.0)
        ),
    ))
}

/// Table II ("Highly Congested"): each receiver's receiving rate in both runs beside the paper's.
fn table2_checks(fixed: &RunData, adaptive: &RunData) -> Result<Vec<Check>, String> {
    let paper = [100.0, 100.0, 100.0, 97.0, 92.5];
    let (rf, ra) = (receiving_rates(fixed)?, receiving_rates(adaptive)?);
    Ok(rf
        .iter()
        .zip(&ra)
        .enumerate()
        .map(|(i, (a, b))| {
            report(
                &format!(
                    "Table II: {} receiving rate, ODATA received (data delivered) / sent",
                    a.name
                ),
                format!(
                    "fixed {}% ({}%); adaptive {}% ({}%)",
                    trim(100.0 * a.odata),
                    trim(100.0 * a.delivered),
                    trim(100.0 * b.odata),
                    trim(100.0 * b.delivered)
                ),
                &format!(
                    "{}% (Table II, \"Highly Congested\")",
                    trim(*paper.get(i).unwrap_or(&f64::NAN))
                ),
            )
        })
        .collect())
}

/// Goodputs of the fixed and adaptive runs, and of the `fixed-draft` variant when it ran.
fn goodput_reports(
    ctx: &Ctx<'_>,
    fixed: &RunData,
    adaptive: &RunData,
) -> Result<Vec<Check>, String> {
    let mut checks = vec![
        report(
            "goodput, fixed timeout",
            dyn_summary(fixed)?,
            "PGM receivers 3.95–4.26 kbit/s, TCP flow 4 1.39 kbit/s (§IV-A)",
        ),
        report(
            "goodput, adaptive timeout",
            dyn_summary(adaptive)?,
            "(not in the paper: they propose it)",
        ),
    ];
    if let Some(draft) = ctx.run("fixed-draft") {
        checks.push(report(
            "goodput, fixed timeout with the draft's restart (W = T = 1 and send, draft §3)",
            format!(
                "{}; PGM goodput {} kbit/s",
                dyn_summary(draft)?,
                trim(pgm(draft)?.goodput_bps / 1000.0)
            ),
            "(not in the paper: Convoy's default rule under their timer)",
        ));
    }
    Ok(checks)
}

/// The median ACK delay at the sender in both runs, over each run's length.
fn ack_delay_report(
    sf: &SessionData,
    fixed_end: f64,
    sa: &SessionData,
    adaptive_end: f64,
) -> Check {
    let delay = |x: &SessionData, end: f64| {
        median_ack_delay(x, 0.0, end).map_or("no ACK".to_string(), |d| format!("{} s", trim(d)))
    };
    report(
        "median ACK delay at the sender (ACK arrival − sending of the acknowledged packet)",
        format!(
            "fixed {}; adaptive {}",
            delay(sf, fixed_end),
            delay(sa, adaptive_end)
        ),
        "\"the RTT of the current acker itself is sometimes simply longer than the timeout interval\" (§IV-A)",
    )
}

/// The short-RTT TCP flows' goodput as a share of their link's rate, in the fixed run.
fn short_flows_report(fixed: &RunData) -> Result<Check, String> {
    let short: Vec<String> = SHORT_FLOWS
        .iter()
        .map(|(f, l)| {
            let rate = fixed.link_rate_bps(l)?;
            tcp_goodput(fixed, f).map(|g| {
                format!(
                    "flow {} on {l}: {} kbit/s = {}%",
                    &f[3..],
                    trim(g / 1000.0),
                    trim(100.0 * g / rate)
                )
            })
        })
        .collect::<Result<_, _>>()?;
    Ok(report(
        "goodput of the short-RTT TCP flows 7, 11, 21 / their link's rate (fixed run)",
        short.join("; "),
        "\"almost 2/3 of the link bandwidth\" (§IV)",
    ))
}

pub(super) fn medium(ctx: &Ctx<'_>) -> Result<Vec<Check>, String> {
    let mut checks = Vec::new();
    let rows = [
        (
            "",
            "×2.5, fixed timeout",
            "PGM receivers 4.77–4.91 kbit/s, TCP flow 4 4.97 kbit/s (§IV-B)",
        ),
        (
            "x2.5-adaptive",
            "×2.5, adaptive timeout",
            "(not in the paper)",
        ),
        (
            "x3.5",
            "×3.5, fixed timeout",
            "PGM receivers 22–22.4 kbit/s, TCP flow 4 7.24 kbit/s (§IV-B)",
        ),
        (
            "x3.5-adaptive",
            "×3.5, adaptive timeout",
            "(not in the paper)",
        ),
    ];
    for (v, what, paper) in rows {
        let r = need(ctx, v)?;
        checks.push(report(&format!("goodput, {what}"), dyn_summary(r)?, paper));
    }
    let x25 = need(ctx, "")?;
    let (p25, t25) = (pgm(x25)?.goodput_bps, tcp_goodput(x25, TCP4)?);
    let mut c = Check::range(
        "×2.5, fixed timeout: PGM / TCP flow 4",
        p25 / t25.max(1.0),
        0.5,
        2.0,
        "",
        EXP,
    );
    c.measured = format!(
        "{} ({} vs {} kbit/s; theirs 4.77–4.91 vs 4.97)",
        c.measured,
        trim(p25 / 1e3),
        trim(t25 / 1e3)
    );
    checks.push(c);
    checks.push(pgm_above_tcp(
        need(ctx, "x3.5")?,
        "×3.5, fixed timeout",
        "22–22.4 vs 7.24",
    )?);
    let r = x25;
    checks.push(report(
        "Table II: receiving rate, ODATA received (data delivered) / sent, ×2.5 fixed",
        table2_row(r)?,
        "100%, 100%, 99.48%, 100%, 97.14% (Table II, \"Medium Congestion\")",
    ));
    checks.push(report(
        "acker changes, ×3.5 fixed",
        acker_sequence(&pgm(need(ctx, "x3.5")?)?.switches, 8),
        "\"the acker was switched from PR3 to PR5 several times\" (§IV-B)",
    ));
    Ok(checks)
}

/// Judged: the session's goodput (slowest receiver) above TCP flow 4's in `r`.
fn pgm_above_tcp(r: &RunData, what: &str, theirs: &str) -> Result<Check, String> {
    let (p, t) = (pgm(r)?.goodput_bps, tcp_goodput(r, TCP4)?);
    Ok(Check::holds(
        &format!("{what}: PGM goodput above TCP flow 4's"),
        p > t,
        &format!("PGM > TCP flow 4 (experiments.md; theirs {theirs} kbit/s)"),
        format!("{} vs {} kbit/s", trim(p / 1e3), trim(t / 1e3)),
    ))
}

pub(super) fn uncongested(ctx: &Ctx<'_>) -> Result<Vec<Check>, String> {
    let x10 = need(ctx, "")?;
    let f = pgm(x10)?;
    let end = x10.end_s();
    let (pr3, pr5) = (
        acker_seconds(&f.switches, "PR3", end) / end,
        acker_seconds(&f.switches, "PR5", end) / end,
    );
    let mut split = Check::at_least(
        "×10, fixed timeout: the smaller of PR3's and PR5's share of the acker role",
        pr3.min(pr5),
        0.1,
        "",
        "experiments.md (theirs: PR3 736 s, PR5 173 s of 900)",
    );
    split.measured = format!("{} (PR3 {}, PR5 {})", split.measured, trim(pr3), trim(pr5));
    let mut checks = vec![
        split,
        pgm_above_tcp(x10, "×10, fixed timeout", "74.15–76.56 vs ~7.8")?,
        pgm_above_tcp(
            need(ctx, "x80")?,
            "×80, fixed timeout",
            "74.15–76.56 vs ~7.8",
        )?,
    ];
    let rows = [
        ("", "×10, fixed timeout"),
        ("x10-adaptive", "×10, adaptive timeout"),
        ("x80", "×80, fixed timeout"),
        ("x80-adaptive", "×80, adaptive timeout"),
    ];
    for (v, what) in rows {
        let r = need(ctx, v)?;
        let f = pgm(r)?;
        let fixed = !v.ends_with("adaptive");
        let secs: Vec<String> = ["PR1", "PR2", "PR3", "PR4", "PR5"]
            .iter()
            .map(|n| (n, acker_seconds(&f.switches, n, r.end_s())))
            .filter(|(_, s)| *s > 0.0)
            .map(|(n, s)| format!("{n} {} s", trim(s)))
            .collect();
        checks.push(report(
            &format!("acker time, {what}"),
            format!(
                "{}; {} switches between PR3 and PR5",
                secs.join(", "),
                switch_count(&f.switches, 0.0, r.end_s(), Some(("PR3", "PR5")))
            ),
            if fixed {
                "PR3 736 s, PR5 173 s, switching back and forth (§IV-C)"
            } else {
                "(not in the paper)"
            },
        ));
        checks.push(report(
            &format!("goodput, {what}"),
            dyn_summary(r)?,
            if fixed {
                "PGM receivers 74.15–76.56 kbit/s, TCP flow 4 ~7.8 kbit/s (§IV-C)"
            } else {
                "(not in the paper)"
            },
        ));
    }
    checks.push(report(
        "Table II: receiving rate, ODATA received (data delivered) / sent, ×10 fixed",
        table2_row(need(ctx, "")?)?,
        "100%, 99.9%, 98.39%, 99.9%, 98.03% (Table II, \"Uncongested\")",
    ));
    Ok(checks)
}
