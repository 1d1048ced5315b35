//! Verdict of the TFMCC paper's scaling experiment (§3, Fig. 7): the session's rate against the number of
//! receivers that each see independent loss on their own link.

use super::super::data::RunData;
use super::super::experiment::Ctx;
use super::super::measure::kbps;
use super::super::verdict::{trim, Check};
use super::{receiver_count, session_spec, span, EXP, SESSION};
use convoy_proto::throughput::tcp_throughput;
use convoy_sim::impairment::ImpairmentConfig;

/// Means are taken over [SETTLE_S, end): slowstart and the first loss intervals of every receiver are over.
const SETTLE_S: f64 = 50.0;
/// The variant with the heterogeneous loss distribution.
pub const HETEROGENEOUS: &str = "heterogeneous";
/// The receiver count of the paper's largest point.
const PAPER_N_MAX: usize = 10_000;

/// The equation's rate (bit/s) for the session's worst receiver: the highest Bernoulli loss on the link into a
/// receiver's host as p (the first such receiver on a tie), its unloaded RTT, the session's payload as s
/// (experiments.md: "~300 kbit/s for 1000-byte packets"). Returns the rate, p, the RTT and the receiver's name.
fn worst_equation_rate(r: &RunData) -> Result<(f64, f64, f64, String), String> {
    let s = &r.scenario;
    let session = session_spec(r)?;
    let mut loss_into = vec![None; s.nodes.len()];
    for l in &s.links {
        if let ImpairmentConfig::Bernoulli { p } = l.forward.impairment {
            loss_into[l.b] = Some(p);
        }
    }
    let mut worst: Option<(usize, f64)> = None;
    for (i, rcv) in session.receivers.iter().enumerate() {
        let p = loss_into[rcv.node.index()]
            .ok_or_else(|| format!("no Bernoulli loss on the link into `{}`", rcv.name))?;
        if worst.is_none_or(|(_, q)| p > q) {
            worst = Some((i, p));
        }
    }
    let (i, p) = worst.ok_or("no receivers")?;
    let rtts = super::super::rtt_spread::unloaded_rtts(r, SESSION)?;
    let (name, rtt) = rtts.get(i).cloned().ok_or("no RTT for the worst receiver")?;
    Ok((8.0 * tcp_throughput(session.apdu_size as f64, rtt, p), p, rtt, name))
}

/// The median of a run's 1 s throughput bins over [SETTLE_S, end), bit/s.
fn median_rate(r: &RunData) -> Result<f64, String> {
    let f = r.flow(SESSION).ok_or("no TFMCC flow")?;
    let mut v: Vec<f64> = f
        .throughput_bps
        .iter()
        .enumerate()
        .filter(|(i, _)| *i as f64 * f.interval_s >= SETTLE_S)
        .map(|(_, x)| *x)
        .collect();
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().ok_or_else(|| "no throughput bins".to_string())
}

/// tfmcc-fig7-scaling, judged on the median of each run's 1 s bins (experiments.md: the means are lifted by spells
/// in which receivers without an RTT suppress measured ones, RFC 4654 §3.4): the rate falls with N; N = 1 within
/// ±25% of the equation rate; N = 10000 / N = 1 in [0.08, 0.3]; the means reported.
pub fn fig7(ctx: &Ctx<'_>) -> Result<Vec<Check>, String> {
    let mut points: Vec<(usize, f64, f64)> = Vec::new();
    for (variant, r) in ctx.runs {
        if variant != HETEROGENEOUS {
            let mean = r.flow_mean(SESSION, SETTLE_S, r.end_s())?;
            points.push((receiver_count(r), median_rate(r)?, mean));
        }
    }
    points.sort_by_key(|p| p.0);
    let (&(n1, x1, _), &(n_max, x_max, _)) = (
        points.first().ok_or("no runs")?,
        points.last().ok_or("no runs")?,
    );
    let one = ctx
        .runs
        .values()
        .find(|r| receiver_count(r) == n1)
        .ok_or("no run")?;
    let end = one.end_s();
    let listed = |pick: fn(&(usize, f64, f64)) -> f64| {
        points
            .iter()
            .map(|p| format!("N={}: {} ({})", p.0, kbps(pick(p)), trim(pick(p) / pick(&points[0]).max(1.0))))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let falls = points.windows(2).all(|w| w[1].1 < w[0].1);
    let (nominal, p, rtt, _) = worst_equation_rate(one)?;
    // The equation at the loss the run's link delivered (a Bernoulli draw: seed 3 lost 9.4% of 10%), so that the
    // check judges the controller, not the draw; the nominal rate is shown beside.
    let delivered = one
        .flow(SESSION)
        .and_then(|f| f.receivers.first())
        .map_or(p, |x| x.loss_rate);
    let eq = 8.0 * tcp_throughput(session_spec(one)?.apdu_size as f64, rtt, delivered);
    let mut c1 = Check::range(
        &format!(
            "N = {n1}: median rate / the equation's rate at the loss delivered, {}",
            span(SETTLE_S, end)
        ),
        x1 / eq,
        0.75,
        1.25,
        "",
        EXP,
    );
    c1.measured = format!(
        "{} ({} vs {} for p = {} delivered, R = {} ms; {} for the nominal p = {})",
        c1.measured,
        kbps(x1),
        kbps(eq),
        trim(delivered),
        trim(rtt * 1000.0),
        kbps(nominal),
        trim(p)
    );
    let ratio = x_max / x1.max(1.0);
    let c3 = if n_max >= PAPER_N_MAX {
        Check::range(
            &format!("median rate, N = {n_max} / N = {n1}"),
            ratio,
            0.08,
            0.3,
            "",
            "experiments.md (paper: 16%)",
        )
    } else {
        Check::holds(
            &format!("median rate, N = {PAPER_N_MAX} / N = {n1}"),
            false,
            "[0.08, 0.3] (experiments.md; paper: 16%)",
            format!("not run (see the note); N = {n_max} / N = {n1}: {}", trim(ratio)),
        )
    };
    let mut checks = vec![
        Check::holds(
            &format!("the median rate falls as N grows, {}", span(SETTLE_S, end)),
            falls,
            "strictly falling (experiments.md)",
            listed(|p| p.1),
        ),
        c1,
        c3,
        Check::report(
            &format!("mean rate per N, {} (share of N = {n1})", span(SETTLE_S, end)),
            listed(|p| p.2),
            "Fig. 7 (16% at 10,000)",
        ),
    ];
    if let Some(h) = ctx.run(HETEROGENEOUS) {
        checks.push(heterogeneous(h)?);
    }
    Ok(checks)
}

/// The heterogeneous loss distribution: the rate over the equation rate of the worst receiver, at least 0.55
/// (experiments.md; the paper: about 30% below it).
fn heterogeneous(r: &RunData) -> Result<Check, String> {
    let end = r.end_s();
    let x = r.flow_mean(SESSION, SETTLE_S, end)?;
    let (eq, p, rtt, name) = worst_equation_rate(r)?;
    let mut c = Check::at_least(
        &format!(
            "heterogeneous loss, N = {}: rate / the worst receiver's equation rate, {}",
            receiver_count(r),
            span(SETTLE_S, end)
        ),
        x / eq,
        0.55,
        "",
        "experiments.md (paper: ~0.7)",
    );
    c.measured = format!(
        "{} ({} vs {} for {name}: p = {}, R = {} ms)",
        c.measured,
        kbps(x),
        kbps(eq),
        trim(p),
        trim(rtt * 1000.0)
    );
    Ok(c)
}
