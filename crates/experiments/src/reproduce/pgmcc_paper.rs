//! The pgmcc paper's experiments (Rizzo, SIGCOMM 2000; shared/seeds/000_e258d047b3112df4.txt) and their verdicts.
//! Ranges come from shared/experiments.md, section "pgmcc paper".

use super::data::RunData;
use super::experiment::{Ctx, Experiment, RunPlan};
use super::filter_figure;
use super::measure::{acker_share, kbps, mean, sample_mean, window_means};
use super::verdict::{trim, Check};
use convoy_proto::throughput::tcp_throughput;

const EXP: &str = "experiments.md";

fn flow_mean(run: &RunData, flow: &str, from: f64, to: f64) -> Result<f64, String> {
    let f = run
        .flow(flow)
        .ok_or_else(|| format!("no flow `{flow}` in {}", run.dir.display()))?;
    Ok(mean(&f.throughput_bps, f.interval_s, from, to))
}

fn need<'a>(ctx: &'a Ctx<'_>, variant: &str) -> Result<&'a RunData, String> {
    ctx.run(variant)
        .ok_or_else(|| format!("run `{variant}` missing"))
}

/// Non-lossy bottleneck payload capacity reference: the link rate (500 kbit/s).
const NONLOSSY: f64 = 500_000.0;

fn fig3_nonlossy(ctx: &Ctx<'_>) -> Result<Vec<Check>, String> {
    let r = need(ctx, "")?;
    let alone = flow_mean(r, "S1", 15.0, 100.0)?;
    let s1 = flow_mean(r, "S1", 115.0, 400.0)?;
    let s2 = flow_mean(r, "S2", 115.0, 400.0)?;
    Ok(vec![
        Check::at_least(
            "S1 alone (15–100 s) / link rate",
            alone / NONLOSSY,
            0.85,
            "",
            EXP,
        ),
        Check::range(
            "S1 / S2 while both run (115–400 s)",
            s1 / s2.max(1.0),
            0.67,
            1.5,
            "",
            EXP,
        ),
    ])
}

fn tcp_rate_bps(rtt_s: f64, p: f64) -> f64 {
    tcp_throughput(1400.0, rtt_s, p) * 8.0
}

fn fig3_lossy(ctx: &Ctx<'_>) -> Result<Vec<Check>, String> {
    let r = need(ctx, "")?;
    let before = flow_mean(r, "S1", 15.0, 100.0)?;
    let after = flow_mean(r, "S1", 115.0, 400.0)?;
    let mut checks = vec![Check::range(
        "S1 after S2 starts / before",
        after / before.max(1.0),
        0.8,
        1.25,
        "",
        EXP,
    )];
    for (name, from) in [("S1", 15.0), ("S2", 115.0)] {
        let rate = flow_mean(r, name, from, 400.0)?;
        let rtt = r
            .session(name)
            .and_then(|s| sample_mean(&s.srtt, from, 400.0))
            .ok_or_else(|| format!("no RTT samples for {name}"))?;
        let eq = tcp_rate_bps(rtt, 0.03);
        let mut c = Check::range(
            &format!(
                "{name} / TCP-equation rate (p = 3%, measured RTT {} s)",
                trim(rtt)
            ),
            rate / eq,
            1.0 / 1.5,
            1.5,
            "",
            "experiments.md; equation of shared/spec/tfmcc.md §1",
        );
        c.measured = format!("{} ({} vs {})", c.measured, kbps(rate), kbps(eq));
        checks.push(c);
    }
    Ok(checks)
}

fn fig4_ratio(r: &RunData) -> Result<(f64, f64, f64), String> {
    let p = flow_mean(r, "pgmcc", 115.0, 300.0)?;
    let t = flow_mean(r, "tcp", 115.0, 300.0)?;
    Ok((p / t.max(1.0), p, t))
}

fn fig4_nonlossy(ctx: &Ctx<'_>) -> Result<Vec<Check>, String> {
    let r = need(ctx, "")?;
    let (ratio, p, t) = fig4_ratio(r)?;
    let mut c1 = Check::range(
        "pgmcc / TCP while both run (115–300 s)",
        ratio,
        0.5,
        2.0,
        "",
        EXP,
    );
    c1.measured = format!("{} ({} vs {})", c1.measured, kbps(p), kbps(t));
    let f = r.flow("pgmcc").ok_or("no pgmcc flow")?;
    let regain = (0..=25)
        .map(|k| 300.0 + f64::from(k))
        .find(|t0| mean(&f.throughput_bps, f.interval_s, *t0, t0 + 5.0) >= 0.85 * NONLOSSY)
        .map(|t0| t0 + 5.0 - 300.0);
    let c2 = Check::holds(
        "pgmcc regains ≥ 85% of the link after TCP ends",
        regain.is_some_and(|d| d <= 30.0),
        "within 30 s (a 5 s mean ≥ 85% of 500 kbit/s ending by 330 s; experiments.md)",
        regain.map_or("not within 30 s".to_string(), |d| {
            format!("after {} s", trim(d))
        }),
    );
    let session_mean = mean(&f.throughput_bps, f.interval_s, 10.0, 400.0);
    let bins = window_means(&f.throughput_bps, f.interval_s, 10.0, 400.0, 10.0);
    let (t_min, min) =
        bins.iter()
            .copied()
            .fold((0.0, f64::INFINITY), |a, b| if b.1 < a.1 { b } else { a });
    let mut c3 = Check::at_least(
        "lowest 10 s bin / session mean (acker switches do not cut the rate)",
        min / session_mean.max(1.0),
        0.5,
        "",
        EXP,
    );
    let switches = f.switches.len().saturating_sub(1);
    c3.measured = format!(
        "{} (bin at {} s; {switches} acker switches)",
        c3.measured,
        trim(t_min)
    );
    let mut checks = vec![c1, c2, c3];
    // Control: the same run with c = 0.75, where the paper says the switches disappear (§3.5).
    if let Some(control) = ctx.run("c075").and_then(|r| r.flow("pgmcc")) {
        let other = window_means(
            &control.throughput_bps,
            control.interval_s,
            10.0,
            400.0,
            10.0,
        );
        let worst = bins
            .iter()
            .zip(&other)
            .map(|(a, b)| (a.1 - b.1).abs())
            .fold(0.0f64, f64::max);
        checks.push(Check::report(
            "control run with c = 0.75: acker switches, largest difference of a 10 s bin from the c = 1 run",
            format!("{} switches; {}", control.switches.len().saturating_sub(1), kbps(worst)),
            "\"Using c = 0.75 on the same experiment removes all (unnecessary) acker switches\" (§3.5)",
        ));
    }
    Ok(checks)
}

fn fig4_lossy(ctx: &Ctx<'_>) -> Result<Vec<Check>, String> {
    let r = need(ctx, "")?;
    let (ratio, p, t) = fig4_ratio(r)?;
    let mut c = Check::range(
        "pgmcc / TCP while both run (115–300 s)",
        ratio,
        0.5,
        2.0,
        "",
        EXP,
    );
    c.measured = format!("{} ({} vs {})", c.measured, kbps(p), kbps(t));
    Ok(vec![c])
}

/// The phase means of Fig. 5: (0–100, 100–200, 200–400, 400–550), skipping 15 s after each change.
fn fig5_phases(r: &RunData) -> Result<[f64; 4], String> {
    Ok([
        flow_mean(r, "pgmcc", 15.0, 100.0)?,
        flow_mean(r, "pgmcc", 115.0, 200.0)?,
        flow_mean(r, "pgmcc", 215.0, 400.0)?,
        flow_mean(r, "pgmcc", 415.0, 550.0)?,
    ])
}

fn fig5(ctx: &Ctx<'_>) -> Result<Vec<Check>, String> {
    let r = need(ctx, "")?;
    let ph = fig5_phases(r)?;
    let f = r.flow("pgmcc").ok_or("no pgmcc flow")?;
    let pr2 = acker_share(&f.switches, "PR2", false, 215.0, 400.0);
    let pr1 = acker_share(&f.switches, "PR1", false, 415.0, 550.0);
    let k = 1000.0;
    Ok(vec![
        Check::at_least("0–100 s mean", ph[0] / k, 425.0, " kbit/s", EXP),
        Check::range(
            "100–200 s mean (PR1 joined)",
            ph[1] / k,
            340.0,
            440.0,
            " kbit/s",
            EXP,
        ),
        Check::range(
            "200–400 s mean (TCP on L2; paper: 220)",
            ph[2] / k,
            160.0,
            300.0,
            " kbit/s",
            EXP,
        ),
        Check::at_least(
            "PR2's share of the acker role, 200–400 s",
            pr2,
            0.7,
            "",
            EXP,
        ),
        Check::range(
            "400–550 s mean (TCP gone)",
            ph[3] / k,
            340.0,
            440.0,
            " kbit/s",
            EXP,
        ),
        Check::at_least(
            "PR1's share of the acker role, 400–550 s",
            pr1,
            0.7,
            "",
            EXP,
        ),
    ])
}

fn fig5_x10(ctx: &Ctx<'_>) -> Result<Vec<Check>, String> {
    let r = need(ctx, "")?;
    let base = ctx
        .other("pgmcc-fig5-acker", "")
        .ok_or("pgmcc-fig5-acker did not run")?;
    let (a, b) = (fig5_phases(r)?, fig5_phases(base)?);
    let names = ["0–100 s", "100–200 s", "200–400 s", "400–550 s"];
    let mut checks: Vec<Check> = (0..4)
        .map(|i| {
            let mut c = Check::range(
                &format!("{} mean / pgmcc-fig5-acker's", names[i]),
                a[i] / b[i].max(1.0),
                0.85,
                1.15,
                "",
                EXP,
            );
            c.measured = format!("{} ({} vs {})", c.measured, kbps(a[i]), kbps(b[i]));
            c
        })
        .collect();
    if let Some(plain) = ctx.run("plain-routers") {
        let p = fig5_phases(plain)?;
        checks.push(Check::report(
            "variant without PGM network elements: phase means",
            p.iter().map(|x| kbps(*x)).collect::<Vec<_>>().join(", "),
            "(the paper does not say whether its NS run had them)",
        ));
    }
    Ok(checks)
}

fn fig7(ctx: &Ctx<'_>) -> Result<Vec<Check>, String> {
    let r = need(ctx, "")?;
    let first = flow_mean(r, "pgmcc", 50.0, 300.0)?;
    let second = flow_mean(r, "pgmcc", 350.0, 600.0)?;
    let t1 = flow_mean(r, "tcp", 50.0, 300.0)?;
    let t2 = flow_mean(r, "tcp", 350.0, 600.0)?;
    let mut c1 = Check::at_least(
        "pgmcc 350–600 s / 50–300 s (90 receivers joined at 300 s)",
        second / first.max(1.0),
        0.8,
        "",
        EXP,
    );
    c1.measured = format!("{} ({} vs {})", c1.measured, kbps(second), kbps(first));
    let mut c2 = Check::range(
        "pgmcc / TCP, 50–300 s (10 receivers)",
        first / t1.max(1.0),
        0.5,
        2.0,
        "",
        EXP,
    );
    c2.measured = format!("{} ({} vs {})", c2.measured, kbps(first), kbps(t1));
    let mut c3 = Check::range(
        "pgmcc / TCP, 350–600 s (100 receivers)",
        second / t2.max(1.0),
        0.5,
        2.0,
        "",
        EXP,
    );
    c3.measured = format!("{} ({} vs {})", c3.measured, kbps(second), kbps(t2));
    let mut checks = vec![c1, c2, c3];
    if let Some(plain) = ctx.run("plain-routers") {
        let (a, b) = (
            flow_mean(plain, "pgmcc", 50.0, 300.0)?,
            flow_mean(plain, "pgmcc", 350.0, 600.0)?,
        );
        let repairs = plain.session("pgmcc").map_or(0, |s| s.odata_sent);
        checks.push(Check::report(
            "variant without PGM network elements: pgmcc 350–600 s / 50–300 s",
            format!(
                "{} ({} vs {}; {} original packets sent)",
                trim(b / a.max(1.0)),
                kbps(b),
                kbps(a),
                repairs
            ),
            "(the paper does not say whether its NS run had them)",
        ));
    }
    Ok(checks)
}

fn fig2(ctx: &Ctx<'_>) -> Result<Vec<Check>, String> {
    let r = need(ctx, "")?;
    let pattern = filter_figure::arrival_pattern(r)?;
    let lossy_a = pattern.iter().filter(|l| **l).count() as f64 / pattern.len().max(1) as f64;
    let bern = filter_figure::bernoulli_pattern(ctx.seed, pattern.len().max(20_000), 0.05);
    let mut checks = vec![Check::report(
        "(a) 60 kbit/s session: packets, measured loss, mean filter output at W = 65000/65536",
        format!(
            "{} packets, loss {}%, mean estimate {}%",
            pattern.len(),
            trim(lossy_a * 100.0),
            trim(filter_figure::mean_estimate(&pattern, 65000) * 100.0)
        ),
        "sparse losses, low loss rate (Fig. 2 top)",
    )];
    for w in filter_figure::WEIGHTS {
        let m = filter_figure::mean_estimate(&bern, w);
        let what = format!("(b) 5% Bernoulli: mean estimate at W = {w}/65536");
        checks.push(if w == 65000 {
            Check::range(
                &what,
                m * 100.0,
                4.25,
                5.75,
                "%",
                "experiments.md: within ±15% of 5%",
            )
        } else {
            Check::report(
                &what,
                format!("{}%", trim(m * 100.0)),
                "other values of W (Fig. 2 bottom)",
            )
        });
    }
    Ok(checks)
}

const FIG5: &[RunPlan] = &[RunPlan {
    variant: "",
    scenario: "pgmcc-fig5-acker.toml",
    sets: &[],
}];

/// The pgmcc paper's experiments.
pub fn experiments() -> Vec<Experiment> {
    let one = |file: &'static str| -> &'static [RunPlan] {
        Box::leak(Box::new([RunPlan {
            variant: "",
            scenario: file,
            sets: &[],
        }]))
    };
    vec![
        Experiment {
            id: "pgmcc-fig2-filter",
            section: "pgmcc paper",
            source: "000_e258d047b3112df4.txt, §3.2.2, Fig. 2",
            claim: "The receiver's low-pass loss filter (W = 65000/65536, 16 fractional bits) gives reasonable \
                    smoothing at the loss rates of interest; its mean tracks the loss rate.",
            runs: one("pgmcc-fig2-filter.toml"),
            needs: &[],
            judge: fig2,
            figures: Some(filter_figure::draw),
            note: "The filters here use the paper's arithmetic: 16 fractional bits with truncation. At W = 65500/65536 \
                   the decay term of a 5% estimate is under two units per packet, so truncation removes a large part \
                   of it and the mean settles near 2.7% instead of 5% (a bias of the 16-bit arithmetic, not of the \
                   filter). Convoy's receivers run the same recurrence with 32 fractional bits internally (unbiased; \
                   see crates/proto/src/loss_filter.rs) and report it as the wire's 16-bit value.",
        },
        Experiment {
            id: "pgmcc-fig3-nonlossy",
            section: "pgmcc paper",
            source: "000_e258d047b3112df4.txt, §4.2, Fig. 3 (top)",
            claim: "On the non-lossy link the first session reduces its throughput when the second one starts, \
                    and then both share the link evenly.",
            runs: one("pgmcc-fig3-nonlossy.toml"),
            needs: &[],
            judge: fig3_nonlossy,
            figures: None,
            note: "",
        },
        Experiment {
            id: "pgmcc-fig3-lossy",
            section: "pgmcc paper",
            source: "000_e258d047b3112df4.txt, §4.2, Fig. 3 (bottom)",
            claim: "On the lossy link the second session does not appreciably change the first one's rate; the \
                    throughput is determined by the loss rate.",
            runs: one("pgmcc-fig3-lossy.toml"),
            needs: &[],
            judge: fig3_lossy,
            figures: None,
            note: "",
        },
        Experiment {
            id: "pgmcc-fig4-nonlossy",
            section: "pgmcc paper",
            source: "000_e258d047b3112df4.txt, §4.3, Fig. 4 (top)",
            claim: "pgmcc and TCP share the non-lossy bottleneck at about the same rate; pgmcc regains its rate \
                    when TCP ends; acker switches among receivers on one subnet do not influence the rate.",
            runs: &[
                RunPlan { variant: "", scenario: "pgmcc-fig4-nonlossy.toml", sets: &[] },
                RunPlan { variant: "c075", scenario: "pgmcc-fig4-nonlossy.toml", sets: &["session.pgmcc.pgmcc.c=0.75"] },
            ],
            needs: &[],
            judge: fig4_nonlossy,
            figures: None,
            note: "The rate-cut criterion fails, and not because of acker switches. The lowest 10 s bins all fall in \
                   100–300 s, where pgmcc shares the 500 kbit/s, 30-packet bottleneck with TCP: pgmcc's 10 s means \
                   there range from about 130 to 260 kbit/s around a phase mean near 210 kbit/s (pgmcc/TCP about \
                   0.8), while the whole-run mean is about 340 kbit/s, so the 50% line (about 170 kbit/s) sits \
                   inside the normal fluctuation of two window-based flows on so small a pipe. The control run \
                   with c = 0.75 has no acker switch after the first election instead of about 150, and its 10 s \
                   bins are identical to the c = 1 run's (the check above reports the largest difference): the three \
                   receivers share one path, so a switch moves the acker without changing the ACK clock, which is \
                   the paper's point. The criterion of experiments.md is kept as written and reported failing.",
        },
        Experiment {
            id: "pgmcc-fig4-lossy",
            section: "pgmcc paper",
            source: "000_e258d047b3112df4.txt, §4.3, Fig. 4 (bottom)",
            claim: "On the lossy bottleneck pgmcc and TCP proceed at approximately the same rate.",
            runs: one("pgmcc-fig4-lossy.toml"),
            needs: &[],
            judge: fig4_lossy,
            figures: None,
            note: "",
        },
        Experiment {
            id: "pgmcc-fig5-acker",
            section: "pgmcc paper",
            source: "000_e258d047b3112df4.txt, §4.4, Fig. 5",
            claim: "The session takes the full 500 kbit/s, reduces to 400 kbit/s when PR1 joins, to 220 kbit/s \
                    while TCP shares L2, and settles back to L1's bandwidth when TCP ends, the acker following \
                    the slowest path.",
            runs: FIG5,
            needs: &[],
            judge: fig5,
            figures: None,
            note: "",
        },
        Experiment {
            id: "pgmcc-fig5-acker-x10",
            section: "pgmcc paper",
            source: "000_e258d047b3112df4.txt, §4.4",
            claim: "Identical results with up to 10 receivers at each of PR1 and PR2 (c = 0.75).",
            runs: &[
                RunPlan { variant: "", scenario: "pgmcc-fig5-acker-x10.toml", sets: &[] },
                RunPlan {
                    variant: "plain-routers",
                    scenario: "pgmcc-fig5-acker-x10.toml",
                    sets: &["node.R1.kind=router", "node.R2.kind=router"],
                },
            ],
            needs: &["pgmcc-fig5-acker"],
            judge: fig5_x10,
            figures: None,
            note: "",
        },
        Experiment {
            id: "pgmcc-fig7-uncorrelated",
            section: "pgmcc paper",
            source: "000_e258d047b3112df4.txt, §4.5, Fig. 7",
            claim: "With 100 receivers behind independent 1%-loss links, the 90 receivers joining at 300 s do not \
                    influence appreciably the session's throughput, which stays comparable to TCP's.",
            runs: &[
                RunPlan { variant: "", scenario: "pgmcc-fig7-uncorrelated.toml", sets: &[] },
                RunPlan { variant: "plain-routers", scenario: "pgmcc-fig7-uncorrelated.toml", sets: &["node.R.kind=router"] },
            ],
            needs: &[],
            judge: fig7,
            figures: None,
            note: "",
        },
    ]
}
