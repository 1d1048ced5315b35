//! compare-matrix's table over the seeds run: an HTML table for the report (`table.html`, shown in place), every
//! figure of every seed as a long CSV (`table.csv`), and the checks (the generated reading).

use super::super::experiment::Ctx;
use super::super::verdict::Check;
use super::metrics::{measure, Metrics};
use super::reading::reading;
use super::rows::{label, spread, Row};
use super::{controllers, rows};
use std::fmt::Write as _;
use std::path::Path;

/// This experiment's id, as its runs are keyed.
const ID: &str = "compare-matrix";

/// A scenario row with each seed's metrics, per controller.
type SeededRow = (&'static str, Vec<(&'static str, Vec<(u64, Metrics)>)>);

/// A column: heading, unit, and the figure (absent where the run has nothing to measure, e.g. no TCP flow).
type Column = (&'static str, &'static str, fn(&Metrics) -> Option<f64>);

/// The table's columns, in order.
const COLUMNS: [Column; 7] = [
    ("rate", "kbit/s", |m| Some(m.rate_bps / 1000.0)),
    ("multicast / TCP", "", |m| m.tcp_ratio),
    ("CoV of the rate (1 s bins)", "", |m| Some(m.cov)),
    ("reaction to the change", "s", |m| m.reaction_s),
    ("feedback packets per data packet", "", |m| Some(m.feedback_per_data)),
    ("bytes on the source's link per delivered byte", "", |m| Some(m.wire_bytes_per_delivered)),
    ("receivers' loss", "%", |m| Some(100.0 * m.receiver_loss)),
];

/// Every seed's metrics of `row` run with `cc`, in seed order, with the seed.
fn seeded(ctx: &Ctx<'_>, row: &str, cc: &str) -> Result<Vec<(u64, Metrics)>, String> {
    let variant = format!("{row}-{cc}");
    let mut out = Vec::new();
    for (seed, runs) in ctx.by_seed {
        if let Some(r) = runs.get(&(ID.to_string(), variant.clone())) {
            out.push((*seed, measure(r).map_err(|e| format!("{variant}, seed {seed}: {e}"))?));
        }
    }
    if out.is_empty() {
        return Err(format!("no run of {variant}"));
    }
    Ok(out)
}

/// Every seed's metrics of `row` run with `cc`, in seed order.
pub fn seeds_of(ctx: &Ctx<'_>, row: &str, cc: &str) -> Result<Vec<Metrics>, String> {
    Ok(seeded(ctx, row, cc)?.into_iter().map(|(_, m)| m).collect())
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

/// One cell: the mean over the seeds and, below it, their range.
fn html_cell(m: &[Metrics], value: fn(&Metrics) -> Option<f64>) -> String {
    let v: Vec<f64> = m.iter().filter_map(value).collect();
    match spread(&v) {
        None => "—".into(),
        Some((mean, _, _)) if v.len() == 1 => num(mean),
        Some((mean, lo, hi)) => format!("{}<br><span class=\"small\">{}–{}</span>", num(mean), num(lo), num(hi)),
    }
}

/// Every row's metrics, per controller.
/// Every row's metrics, per controller, each with its seed.
fn collect_seeded(ctx: &Ctx<'_>) -> Result<Vec<SeededRow>, String> {
    let mut table = Vec::new();
    for row in rows() {
        let per_cc = controllers()
            .iter()
            .map(|cc| Ok((*cc, seeded(ctx, row, cc)?)))
            .collect::<Result<Vec<_>, String>>()?;
        table.push((row, per_cc));
    }
    Ok(table)
}

/// The rows without the seeds.
fn unseeded(table: &[SeededRow]) -> Vec<Row<'static>> {
    table
        .iter()
        .map(|(row, per_cc)| (*row, per_cc.iter().map(|(cc, m)| (*cc, m.iter().map(|(_, x)| *x).collect())).collect()))
        .collect()
}

/// Every row's metrics, per controller.
fn collect(ctx: &Ctx<'_>) -> Result<Vec<Row<'static>>, String> {
    Ok(unseeded(&collect_seeded(ctx)?))
}

/// The table as an HTML fragment the report shows in place.
fn html(table: &[Row<'_>], seeds: usize) -> String {
    let mut h = format!(
        "<p>Mean over {seeds} seed(s); below it, the range (lowest–highest). Every figure of every seed: \
         <a href=\"{ID}/table.csv\">table.csv</a>.</p><table><tr><th>scenario</th><th>controller</th>"
    );
    for (head, unit, _) in COLUMNS {
        let unit = if unit.is_empty() { String::new() } else { format!(" ({unit})") };
        let _ = write!(h, "<th>{head}{unit}</th>");
    }
    h.push_str("</tr>");
    for (row, per_cc) in table {
        for (k, (cc, m)) in per_cc.iter().enumerate() {
            h.push_str("<tr>");
            if k == 0 {
                let _ = write!(h, "<td rowspan=\"{}\">{}</td>", per_cc.len(), label(row));
            }
            let _ = write!(h, "<td>{cc}</td>");
            for (_, _, value) in COLUMNS {
                let _ = write!(h, "<td>{}</td>", html_cell(m, value));
            }
            h.push_str("</tr>");
        }
    }
    h.push_str("</table>\n");
    h
}

/// Write `table.html` (shown in the report) and `table.csv` (scenario, controller, seed, metric, value; one line
/// per figure) into `dir`; returns the name of the fragment.
pub fn write(ctx: &Ctx<'_>, dir: &Path) -> Result<Vec<String>, String> {
    let seeded_table = collect_seeded(ctx)?;
    let mut csv = String::from("scenario,controller,seed,metric,unit,value\n");
    for (row, per_cc) in &seeded_table {
        for (cc, runs) in per_cc {
            for (seed, m) in runs {
                for (head, unit, value) in COLUMNS {
                    if let Some(v) = value(m) {
                        let _ = writeln!(csv, "{},{cc},{seed},\"{head}\",{unit},{v}", label(row));
                    }
                }
            }
        }
    }
    let table = unseeded(&seeded_table);
    let put = |name: &str, text: &str| {
        std::fs::write(dir.join(name), text).map_err(|e| format!("{}: {e}", dir.join(name).display()))
    };
    put("table.csv", &csv)?;
    put("table.html", &html(&table, ctx.by_seed.len()))?;
    Ok(vec!["table.html".to_string()])
}

/// compare-matrix's checks: that the table could be computed for every scenario and controller, and the reading.
pub fn judge(ctx: &Ctx<'_>) -> Result<Vec<Check>, String> {
    let table = collect(ctx)?;
    let mut checks = vec![Check::figure(
        "the table (below, and table.csv)",
        format!("{} scenarios × {} controllers over {} seed(s)", table.len(), controllers().len(), ctx.by_seed.len()),
    )];
    checks.extend(reading(&table));
    Ok(checks)
}
