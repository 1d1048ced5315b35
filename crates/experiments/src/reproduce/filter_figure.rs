//! pgmcc-fig2-filter: the receiver's loss filter (pgmcc paper §3.2.2) replayed on loss patterns, drawn as the
//! paper's Fig. 2: filter output × 2^16 against packet number, losses marked.

use super::data::RunData;
use super::experiment::Ctx;
use crate::simrun::plots::{chart, legend, Axes};
use convoy_proto::loss_filter::LossFilter;
use plotters::prelude::*;
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use std::path::Path;

/// The filter weights compared (out of 65536): the paper's, and two others (experiments.md).
pub const WEIGHTS: [u32; 3] = [65000, 64000, 65500];

/// The first receiver's loss pattern of the run's first session: `true` = that sequence number never arrived
/// as original data.
pub fn arrival_pattern(run: &RunData) -> Result<Vec<bool>, String> {
    let (_, arrivals) = run
        .sessions
        .first()
        .and_then(|s| s.arrivals.first())
        .ok_or("the scenario records no arrivals (`arrivals = true` in its [[session]])")?;
    let (Some(&lo), Some(&hi)) = (arrivals.iter().min(), arrivals.iter().max()) else {
        return Err("no data arrived".into());
    };
    let mut got = vec![false; (hi - lo + 1) as usize];
    for s in arrivals {
        got[(s - lo) as usize] = true;
    }
    Ok(got.into_iter().map(|g| !g).collect())
}

/// `n` packets each lost with probability `p`, from a ChaCha8 stream seeded by `seed`.
pub fn bernoulli_pattern(seed: u64, n: usize, p: f64) -> Vec<bool> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x6669_6732);
    (0..n)
        .map(|_| ((rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64) < p)
        .collect()
}

/// The filter's output × 2^16 after each packet.
pub fn outputs(pattern: &[bool], weight: u32) -> Vec<f64> {
    let mut f = LossFilter::with_paper_precision(weight);
    pattern
        .iter()
        .map(|lost| {
            f.record(*lost);
            f64::from(f.value_fixed())
        })
        .collect()
}

/// The filter's mean estimate over the run, as a fraction.
pub fn mean_estimate(pattern: &[bool], weight: u32) -> f64 {
    let o = outputs(pattern, weight);
    o.iter().sum::<f64>() / o.len().max(1) as f64 / 65536.0
}

fn panel(
    area: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    title: &str,
    pattern: &[bool],
) -> Result<(), Box<dyn std::error::Error>> {
    let curves: Vec<Vec<f64>> = WEIGHTS.iter().map(|w| outputs(pattern, *w)).collect();
    let ymax = curves
        .iter()
        .flatten()
        .fold(0.0f64, |a, b| a.max(*b))
        .max(100.0)
        * 1.1;
    let n = pattern.len() as f64;
    let axes = Axes {
        x: 0.0..n,
        y: 0.0..ymax,
        x_desc: "packet number",
        y_desc: "filter output × 2^16",
    };
    let mut chart = chart(area, title, axes, 70)?;
    // Losses as short vertical bars at the bottom.
    let tick = ymax * 0.04;
    chart.draw_series(
        pattern
            .iter()
            .enumerate()
            .filter(|(_, l)| **l)
            .map(|(i, _)| {
                PathElement::new(vec![(i as f64, 0.0), (i as f64, tick)], BLACK.mix(0.5))
            }),
    )?;
    let colours = [
        RGBColor(214, 39, 40),
        RGBColor(31, 119, 180),
        RGBColor(44, 160, 44),
    ];
    for (k, c) in curves.iter().enumerate() {
        let colour = colours[k];
        let width = if WEIGHTS[k] == 65000 { 2 } else { 1 };
        chart
            .draw_series(LineSeries::new(
                c.iter().enumerate().map(|(i, v)| (i as f64, *v)),
                colour.stroke_width(width),
            ))?
            .label(format!("W = {}/65536", WEIGHTS[k]))
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 18, y)], colour.stroke_width(2))
            });
    }
    legend(&mut chart, SeriesLabelPosition::MiddleRight)
}

/// Draw `filter.svg` into `dir`.
pub fn draw(ctx: &Ctx<'_>, dir: &Path) -> Result<Vec<String>, String> {
    let run = ctx.run("").ok_or("run missing")?;
    let a = arrival_pattern(run)?;
    let b = bernoulli_pattern(ctx.seed, a.len().clamp(2000, 20_000), 0.05);
    let path = dir.join("filter.svg");
    let res = (|| -> Result<(), Box<dyn std::error::Error>> {
        let root = SVGBackend::new(&path, (1000, 800)).into_drawing_area();
        root.fill(&WHITE)?;
        let (top, bottom) = root.split_vertically(400);
        panel(
            &top,
            "(a) losses of one session on a 60 kbit/s link (bars: lost packets)",
            &a,
        )?;
        panel(&bottom, "(b) 5% Bernoulli loss", &b)?;
        root.present()?;
        Ok(())
    })();
    res.map_err(|e| format!("drawing filter.svg: {e}"))?;
    Ok(vec!["filter.svg".to_string()])
}
