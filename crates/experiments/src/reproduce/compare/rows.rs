//! A scenario row of compare-matrix: its name as shown, and its metrics per controller summarised over the seeds.

use super::metrics::Metrics;

/// A scenario row: its name and, per controller, every seed's metrics.
pub type Row<'a> = (&'a str, Vec<(&'a str, Vec<Metrics>)>);

/// A row's name as the table shows it (without its ordering letter).
pub fn label(row: &str) -> &str {
    row.split_once('-').map_or(row, |(_, l)| l)
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
