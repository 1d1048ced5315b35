//! compare-matrix's generated reading: what the table shows for bulk transfer, smooth streams and changes.

use super::super::verdict::Check;
use super::metrics::Metrics;
use super::rows::{label, spread, Row};
use super::{controllers, PARITY, PARITY_WIRE_MAX, REPAIRS_BESIDE};

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
    for &cc in controllers() {
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
pub fn reading(table: &[Row<'_>]) -> Vec<Check> {
    let variant = |row: &str| row.ends_with(REPAIRS_BESIDE) || row.ends_with(PARITY);
    let (scenarios, variants): (Vec<Row<'_>>, Vec<Row<'_>>) =
        table.iter().cloned().partition(|(row, _)| !variant(row));
    let mut checks = winners(&scenarios);
    for v in &variants {
        if v.0.ends_with(PARITY) {
            checks.extend(parity_checks(v, &scenarios));
        } else {
            checks.extend(repairs_reading(v, &scenarios));
        }
    }
    checks
}

/// A parity row against its scenario's own row (selective repairs), per controller, and the judged target: at most
/// [`PARITY_WIRE_MAX`] bytes on the source's link per delivered byte, the mean over the seeds.
fn parity_checks(parity: &Row<'_>, scenarios: &[Row<'_>]) -> Vec<Check> {
    let Some(base) = parity.0.strip_suffix(PARITY) else {
        return Vec::new();
    };
    let Some((_, selective)) = scenarios.iter().find(|(row, _)| label(row) == label(base)) else {
        return Vec::new();
    };
    let mut checks = vec![Check::figure(
        &format!("reading, {}: parity repairs against selective repairs", label(base)),
        against(&parity.1, selective),
    )];
    for (cc, m) in &parity.1 {
        let wire = mean(m, |x| Some(x.wire_bytes_per_delivered)).unwrap_or(f64::INFINITY);
        checks.push(Check::at_most(
            &format!("{}, {cc}: bytes on the source's link per delivered byte with parity", label(base)),
            wire,
            PARITY_WIRE_MAX,
            "",
            "Convoy's target for parity repairs (issue: one parity packet repairs a different loss at every receiver)",
        ));
    }
    checks
}

/// The mean over the seeds of one figure.
fn mean(m: &[Metrics], f: fn(&Metrics) -> Option<f64>) -> Option<f64> {
    spread(&m.iter().filter_map(f).collect::<Vec<_>>()).map(|(x, _, _)| x)
}

/// What charging repairs to the controller changes: an ablation row (its scenario with repairs beside the
/// controller) against the scenario's own row, per controller.
fn repairs_reading(ablation: &Row<'_>, scenarios: &[Row<'_>]) -> Option<Check> {
    let base = ablation.0.strip_suffix(REPAIRS_BESIDE)?;
    let (_, charged) = scenarios.iter().find(|(row, _)| label(row) == label(base))?;
    Some(Check::figure(
        &format!("reading, {}: repairs charged to the controller against repairs beside it", label(base)),
        against(charged, &ablation.1),
    ))
}

/// Per controller, the first row's bytes on the source's link per delivered byte, receivers' loss and rate
/// against the second's (means over the seeds), joined.
fn against(first: &[(&str, Vec<Metrics>)], second: &[(&str, Vec<Metrics>)]) -> String {
    let figures = |m: &[Metrics]| {
        Some((
            mean(m, |x| Some(x.wire_bytes_per_delivered))?,
            mean(m, |x| Some(100.0 * x.receiver_loss))?,
            mean(m, |x| Some(x.rate_bps / 1000.0))?,
        ))
    };
    let parts: Vec<String> = first
        .iter()
        .zip(second)
        .filter_map(|((cc, a), (_, b))| {
            let ((aw, al, ar), (bw, bl, br)) = (figures(a)?, figures(b)?);
            Some(format!(
                "{cc} {aw:.2} against {bw:.2} bytes on the source's link per delivered byte, receivers' loss \
                 {al:.1}% against {bl:.1}%, rate {ar:.0} against {br:.0} kbit/s"
            ))
        })
        .collect();
    parts.join("; ")
}

/// Which controller is best per scenario for bulk transfer, smooth streams and changes.
fn winners(table: &[Row<'_>]) -> Vec<Check> {
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
        Check::figure(
            "reading, bulk transfer: the fastest controller within a factor of two of TCP's rate",
            tally(&bulk, &all),
        ),
        Check::figure(
            "reading, smooth streams: the lowest coefficient of variation of the rate",
            tally(&smooth, &all),
        ),
        Check::figure(
            "reading, changes: the fastest reaction",
            tally(&quick, &changing),
        ),
    ]
}

