//! compare-matrix's table over the seeds run, and its generated reading.

use super::super::experiment::Ctx;
use super::super::verdict::Check;
use super::metrics::{measure, Metrics};
use super::{CONTROLLERS, RUNS};

/// This experiment's id, as its runs are keyed.
const ID: &str = "compare-matrix";

/// A scenario row: its name and, per controller, every seed's metrics.
type Row<'a> = (&'a str, Vec<(&'a str, Vec<Metrics>)>);

/// The rows' names, in order (variant names without the controller).
pub fn rows() -> Vec<&'static str> {
    let mut rows: Vec<&str> = Vec::new();
    for plan in RUNS {
        let row = plan.variant.rsplit_once('-').map_or(plan.variant, |(r, _)| r);
        if !rows.contains(&row) {
            rows.push(row);
        }
    }
    rows
}

/// A row's name as the table shows it (without its ordering letter).
pub fn label(row: &str) -> &str {
    row.split_once('-').map_or(row, |(_, l)| l)
}

/// Every seed's metrics of `row` run with `cc`, in seed order.
pub fn seeds_of(ctx: &Ctx<'_>, row: &str, cc: &str) -> Result<Vec<Metrics>, String> {
    let variant = format!("{row}-{cc}");
    ctx.by_seed
        .values()
        .filter_map(|runs| runs.get(&(ID.to_string(), variant.clone())))
        .map(measure)
        .collect()
}

/// Mean, min and max of `v` (NaN-free), or `None` when empty.
pub fn spread(v: &[f64]) -> Option<(f64, f64, f64)> {
    if v.is_empty() {
        return None;
    }
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    let (lo, hi) = v.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| (a.min(*x), b.max(*x)));
    Some((mean, lo, hi))
}

fn cell(v: &[f64], unit: &str) -> String {
    match spread(v) {
        None => "—".into(),
        Some((m, _, _)) if v.len() == 1 => format!("{}{unit}", num(m)),
        Some((m, lo, hi)) => format!("{}{unit} [{}–{}]", num(m), num(lo), num(hi)),
    }
}

fn num(x: f64) -> String {
    if x.is_infinite() {
        "never".into()
    } else if x.abs() >= 100.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.3}").trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// One table line's figures.
fn line(m: &[Metrics]) -> String {
    let col = |f: fn(&Metrics) -> Option<f64>| m.iter().filter_map(f).collect::<Vec<f64>>();
    format!(
        "rate {} kbit/s; multicast/TCP {}; CoV {}; reaction {}; feedback/data {}; source bytes/delivered byte {}",
        cell(&col(|x| Some(x.rate_bps / 1000.0)), ""),
        cell(&col(|x| x.tcp_ratio), ""),
        cell(&col(|x| Some(x.cov)), ""),
        cell(&col(|x| x.reaction_s), " s"),
        cell(&col(|x| Some(x.feedback_per_data)), ""),
        cell(&col(|x| Some(x.source_bytes_per_delivered)), ""),
    )
}

/// The controller in `cands` (name, value) with the least (`least`) or greatest value; ties go to table order.
fn best<'a>(cands: &[(&'a str, f64)], least: bool) -> Option<&'a str> {
    cands
        .iter()
        .copied()
        .filter(|(_, v)| v.is_finite())
        .fold(None, |acc: Option<(&str, f64)>, (n, v)| match acc {
            Some((_, b)) if (least && b <= v) || (!least && b >= v) => acc,
            _ => Some((n, v)),
        })
        .map(|(n, _)| n)
}

/// How often each controller is best, as "pgmcc in 3 (a, b, c), …", and the rows of `all` none won.
fn tally(wins: &[(&str, &str)], all: &[&str]) -> String {
    let mut parts = Vec::new();
    for cc in CONTROLLERS {
        let rows: Vec<&str> = wins.iter().filter(|(_, w)| *w == cc).map(|(r, _)| label(r)).collect();
        if !rows.is_empty() {
            parts.push(format!("{cc} in {} ({})", rows.len(), rows.join(", ")));
        }
    }
    let open: Vec<&str> = all.iter().filter(|r| !wins.iter().any(|(w, _)| w == *r)).map(|r| label(r)).collect();
    if !open.is_empty() {
        parts.push(format!("none in {} ({})", open.len(), open.join(", ")));
    }
    parts.join("; ")
}

/// The generated reading: which controller serves bulk transfer (the highest rate within a factor of two of TCP's,
/// where TCP runs beside it), smooth streams (the lowest coefficient of variation) and changes (the fastest reaction)
/// best, scenario by scenario, from the seeds' means.
fn reading(table: &[Row<'_>]) -> Vec<Check> {
    let mean = |m: &[Metrics], f: fn(&Metrics) -> Option<f64>| {
        spread(&m.iter().filter_map(f).collect::<Vec<_>>()).map(|(x, _, _)| x)
    };
    let (mut bulk, mut smooth, mut quick) = (Vec::new(), Vec::new(), Vec::new());
    let all: Vec<&str> = table.iter().map(|(row, _)| *row).collect();
    let changing: Vec<&str> = table
        .iter()
        .filter(|(_, per_cc)| per_cc.iter().any(|(_, m)| m.iter().any(|x| x.reaction_s.is_some())))
        .map(|(row, _)| *row)
        .collect();
    for (row, per_cc) in table {
        let friendly: Vec<(&str, f64)> = per_cc
            .iter()
            .filter(|(_, m)| mean(m, |x| x.tcp_ratio).is_none_or(|q| (0.5..=2.0).contains(&q)))
            .filter_map(|(cc, m)| mean(m, |x| Some(x.rate_bps)).map(|r| (*cc, r)))
            .collect();
        if let Some(w) = best(&friendly, false) {
            bulk.push((*row, w));
        }
        let covs: Vec<(&str, f64)> =
            per_cc.iter().filter_map(|(cc, m)| mean(m, |x| Some(x.cov)).map(|c| (*cc, c))).collect();
        if let Some(w) = best(&covs, true) {
            smooth.push((*row, w));
        }
        let reacts: Vec<(&str, f64)> =
            per_cc.iter().filter_map(|(cc, m)| mean(m, |x| x.reaction_s).map(|c| (*cc, c))).collect();
        if let Some(w) = best(&reacts, true) {
            quick.push((*row, w));
        }
    }
    vec![
        Check::report(
            "reading, bulk transfer: the fastest controller within a factor of two of TCP's rate",
            tally(&bulk, &all),
            "generated from the table",
        ),
        Check::report(
            "reading, smooth streams: the lowest coefficient of variation of the rate",
            tally(&smooth, &all),
            "generated from the table",
        ),
        Check::report(
            "reading, changes: the fastest reaction",
            tally(&quick, &changing),
            "generated from the table",
        ),
    ]
}

/// compare-matrix's checks: one line per scenario and controller, over every seed run, and the reading.
pub fn judge(ctx: &Ctx<'_>) -> Result<Vec<Check>, String> {
    let mut table = Vec::new();
    for row in rows() {
        let mut per_cc = Vec::new();
        for cc in CONTROLLERS {
            per_cc.push((cc, seeds_of(ctx, row, cc)?));
        }
        table.push((row, per_cc));
    }
    let seeds = ctx.by_seed.len();
    let mut checks = Vec::new();
    for (row, per_cc) in &table {
        for (cc, m) in per_cc {
            if m.is_empty() {
                return Err(format!("no run of {row}-{cc}"));
            }
            checks.push(Check::report(
                &format!("{}, {cc}", label(row)),
                line(m),
                &format!("mean [range] over {seeds} seed(s)"),
            ));
        }
    }
    checks.extend(reading(&table));
    Ok(checks)
}
