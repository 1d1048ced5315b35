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
/// The receiver count of the paper's largest point.
const PAPER_N_MAX: usize = 10_000;


/// The equation's rate (bit/s) for the first receiver's path: its link's Bernoulli loss as p, the unloaded RTT,
/// the session's payload as s (experiments.md: "~300 kbit/s for 1000-byte packets").
fn equation_rate(r: &RunData) -> Result<(f64, f64, f64), String> {
    let rtts = super::super::rtt_spread::unloaded_rtts(r, SESSION)?;
    let (name, rtt) = rtts.first().cloned().ok_or("no receivers")?;
    let s = &r.scenario;
    let session = session_spec(r)?;
    let node = session.receivers.first().ok_or("no receivers")?.node.index();
    let p = s
        .links
        .iter()
        .find(|l| l.b == node)
        .and_then(|l| match l.forward.impairment {
            ImpairmentConfig::Bernoulli { p } => Some(p),
            _ => None,
        })
        .ok_or_else(|| format!("no Bernoulli loss on the link into `{name}`"))?;
    Ok((8.0 * tcp_throughput(session.apdu_size as f64, rtt, p), p, rtt))
}

/// tfmcc-fig7-scaling: the rate falls with N; N = 1 within ±25% of the equation rate; N = 10000 / N = 1 in
/// [0.08, 0.3] (the largest N run is reported when 10,000 is not among the variants).
pub fn fig7(ctx: &Ctx<'_>) -> Result<Vec<Check>, String> {
    let mut points: Vec<(usize, f64)> = Vec::new();
    for r in ctx.runs.values() {
        points.push((receiver_count(r), r.flow_mean(SESSION, SETTLE_S, r.end_s())?));
    }
    points.sort_by_key(|p| p.0);
    let (&(n1, x1), &(n_max, x_max)) = (
        points.first().ok_or("no runs")?,
        points.last().ok_or("no runs")?,
    );
    let one = ctx
        .runs
        .values()
        .find(|r| receiver_count(r) == n1)
        .ok_or("no run")?;
    let end = one.end_s();
    let text = points
        .iter()
        .map(|(n, x)| format!("N={n}: {}", kbps(*x)))
        .collect::<Vec<_>>()
        .join(", ");
    let falls = points.windows(2).all(|w| w[1].1 < w[0].1);
    let (eq, p, rtt) = equation_rate(one)?;
    let mut c1 = Check::range(
        &format!("N = {n1}: rate / the equation's rate, {}", span(SETTLE_S, end)),
        x1 / eq,
        0.75,
        1.25,
        "",
        EXP,
    );
    c1.measured = format!(
        "{} ({} vs {} for p = {}, R = {} ms)",
        c1.measured,
        kbps(x1),
        kbps(eq),
        trim(p),
        trim(rtt * 1000.0)
    );
    let ratio = x_max / x1.max(1.0);
    let c3 = if n_max >= PAPER_N_MAX {
        Check::range(&format!("N = {n_max} / N = {n1}"), ratio, 0.08, 0.3, "", "experiments.md (paper: 16%)")
    } else {
        Check::holds(
            &format!("N = {PAPER_N_MAX} / N = {n1}"),
            false,
            "[0.08, 0.3] (experiments.md; paper: 16%)",
            format!("not run (see the note); N = {n_max} / N = {n1}: {}", trim(ratio)),
        )
    };
    Ok(vec![
        Check::holds("the rate falls as N grows", falls, "strictly falling (experiments.md)", text),
        c1,
        c3,
    ])
}
