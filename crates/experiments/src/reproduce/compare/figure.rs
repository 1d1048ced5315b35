//! compare-matrix's figure: per scenario, each controller's multicast/TCP ratio and coefficient of variation, the
//! mean over the seeds as a bar and their range as a whisker.

use super::super::experiment::Ctx;
use super::metrics::Metrics;
use super::rows::{label, spread};
use super::table::seeds_of;
use super::{controllers, rows};
use crate::simrun::plots::legend;
use plotters::prelude::*;
use std::path::Path;

const COLOURS: [RGBColor; 3] = [RGBColor(31, 119, 180), RGBColor(214, 39, 40), RGBColor(44, 160, 44)];

/// One panel: `value` per scenario and controller.
fn panel(
    area: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    title: &str,
    data: &[(String, Vec<Vec<Metrics>>)],
    value: fn(&Metrics) -> Option<f64>,
) -> Result<(), Box<dyn std::error::Error>> {
    let spreads: Vec<Vec<Option<(f64, f64, f64)>>> = data
        .iter()
        .map(|(_, per_cc)| per_cc.iter().map(|m| spread(&m.iter().filter_map(value).collect::<Vec<_>>())).collect())
        .collect();
    let ymax = spreads.iter().flatten().flatten().map(|s| s.2).filter(|v| v.is_finite()).fold(0.1f64, f64::max) * 1.2;
    let n = data.len() as f64;
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(0.0..n, 0.0..ymax)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_label_style(("sans-serif", 12))
        .draw()?;
    // Each scenario's name above its group of bars.
    chart.draw_series(
        data.iter()
            .enumerate()
            .map(|(i, (name, _))| Text::new(name.clone(), (i as f64 + 0.08, ymax * 0.97), ("sans-serif", 12))),
    )?;
    for (k, cc) in controllers().iter().enumerate() {
        let colour = COLOURS[k % COLOURS.len()];
        let x0 = |i: usize| i as f64 + 0.15 + 0.25 * k as f64;
        chart
            .draw_series(spreads.iter().enumerate().filter_map(|(i, s)| {
                s[k].map(|(m, _, _)| Rectangle::new([(x0(i), 0.0), (x0(i) + 0.2, m)], colour.filled()))
            }))?
            .label(*cc)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], colour.filled()));
        chart.draw_series(spreads.iter().enumerate().filter_map(|(i, s)| {
            s[k].map(|(_, lo, hi)| PathElement::new(vec![(x0(i) + 0.1, lo), (x0(i) + 0.1, hi)], BLACK.stroke_width(1)))
        }))?;
    }
    legend(&mut chart, SeriesLabelPosition::MiddleRight)
}

/// Draw `compare.svg` into `dir`.
pub fn draw(ctx: &Ctx<'_>, dir: &Path) -> Result<Vec<String>, String> {
    let mut data = Vec::new();
    for row in rows() {
        let per_cc = controllers().iter().map(|cc| seeds_of(ctx, row, cc)).collect::<Result<Vec<_>, _>>()?;
        data.push((label(row).to_string(), per_cc));
    }
    let file = "compare.svg";
    let path = dir.join(file);
    let root = SVGBackend::new(&path, (1100, 760)).into_drawing_area();
    let draw = || -> Result<(), Box<dyn std::error::Error>> {
        root.fill(&WHITE)?;
        let halves = root.split_evenly((2, 1));
        panel(&halves[0], "multicast / TCP throughput (mean, range over seeds)", &data, |m| m.tcp_ratio)?;
        panel(&halves[1], "coefficient of variation of the rate, 1 s bins", &data, |m| Some(m.cov))?;
        root.present()?;
        Ok(())
    };
    draw().map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(vec![file.to_string()])
}
