//! SVG figures in the style of the pgmcc paper: throughput of every flow, the pgmcc window and tokens, the
//! time–sequence plot (data as dots, ACKs as small ticks, NAKs as diamonds, vertical lines at acker switches)
//! and queue lengths.
//!
//! plotters draws text as SVG `<text>` elements, so no font is read or fetched: the viewer renders them with
//! its own sans-serif font (plotters only estimates text extents for layout).

use crate::scenario::{Scenario, SessionSpec};
use convoy_sim::observe::{CcSample, SeqMark, SeqTrace};
use convoy_sim::results::RunResult;
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::error::Error;
use std::path::Path;

type Res = Result<(), Box<dyn Error>>;

const SIZE: (u32, u32) = (1000, 500);
/// Legend entries at most; further series are summed up in one entry.
const MAX_LEGEND: usize = 12;
const FONT: &str = "sans-serif";

/// Distinguishable colours (Tableau 10).
const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

pub(crate) fn colour(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// A rate axis unit that keeps tick labels short.
fn rate_unit(max_bps: f64) -> (f64, &'static str) {
    if max_bps >= 2e9 {
        (1e9, "Gbit/s")
    } else if max_bps >= 2e6 {
        (1e6, "Mbit/s")
    } else {
        (1e3, "kbit/s")
    }
}

fn canvas(path: &Path) -> Result<DrawingArea<SVGBackend<'_>, Shift>, Box<dyn Error>> {
    let root = SVGBackend::new(path, SIZE).into_drawing_area();
    root.fill(&WHITE)?;
    Ok(root)
}

fn upper(max: f64) -> f64 {
    if max > 0.0 && max.is_finite() {
        max * 1.08
    } else {
        1.0
    }
}

/// throughput.svg: every flow's sender-side throughput per interval.
pub fn throughput(path: &Path, s: &Scenario, r: &RunResult) -> Res {
    let root = canvas(path)?;
    let max = r
        .flows
        .iter()
        .flat_map(|f| f.throughput_bps.iter().copied())
        .fold(0.0, f64::max);
    let (div, unit) = rate_unit(max);
    let end = r.duration_s.max(1e-9);
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!(
                "{}: throughput per {} s",
                s.name,
                fmt_s(s.interval.as_secs_f64())
            ),
            (FONT, 20),
        )
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..end, 0.0..upper(max / div))?;
    chart
        .configure_mesh()
        .x_desc("time (s)")
        .y_desc(format!("throughput ({unit})"))
        .axis_desc_style((FONT, 15))
        .light_line_style(TRANSPARENT)
        .bold_line_style(RGBColor(225, 225, 225))
        .x_label_formatter(&tick)
        .y_label_formatter(&tick)
        .draw()?;
    for (i, f) in r.flows.iter().enumerate() {
        let c = colour(i);
        let pts = f
            .throughput_bps
            .iter()
            .enumerate()
            .map(|(k, v)| ((k as f64 + 0.5) * f.interval_s, v / div));
        let series = chart.draw_series(LineSeries::new(pts, c.stroke_width(2)))?;
        match i.cmp(&MAX_LEGEND) {
            std::cmp::Ordering::Less => series.label(format!("{} ({})", f.name, f.kind)),
            std::cmp::Ordering::Equal => {
                series.label(format!("… {} more", r.flows.len() - MAX_LEGEND))
            }
            std::cmp::Ordering::Greater => continue,
        }
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2)));
    }
    legend(&mut chart, SeriesLabelPosition::UpperRight)?;
    root.present()?;
    Ok(())
}

/// A chart with `f64` axes drawn into an SVG file, as every figure of the crate is.
pub type Chart<'a, 'b> =
    ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// The series' legend at `position`, in the style of every figure of the crate.
pub fn legend<'a, 'b: 'a>(chart: &mut Chart<'a, 'b>, position: SeriesLabelPosition) -> Res {
    chart
        .configure_series_labels()
        .position(position)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font((FONT, 14))
        .draw()?;
    Ok(())
}

fn fmt_s(v: f64) -> String {
    format!("{v}")
}

/// Tick labels without a useless ".0".
fn tick(v: &f64) -> String {
    let s = format!("{v:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".to_string()
    } else {
        s.to_string()
    }
}

/// `window-<session>.svg`: pgmcc's window and tokens (packets), with the acker's switches as vertical lines.
pub fn window(
    path: &Path,
    s: &Scenario,
    sess: &SessionSpec,
    samples: &[CcSample],
    switches: &[(f64, Option<String>)],
) -> Res {
    let root = canvas(path)?;
    let max = samples
        .iter()
        .flat_map(|x| [x.window, x.tokens])
        .flatten()
        .fold(0.0, f64::max);
    let end = s.duration.as_secs_f64();
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!("{}: session {} window and tokens", s.name, sess.name),
            (FONT, 20),
        )
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..end, 0.0..upper(max))?;
    chart
        .configure_mesh()
        .x_desc("time (s)")
        .y_desc("packets")
        .axis_desc_style((FONT, 15))
        .light_line_style(TRANSPARENT)
        .bold_line_style(RGBColor(225, 225, 225))
        .x_label_formatter(&tick)
        .y_label_formatter(&tick)
        .draw()?;
    let top = upper(max);
    let grey = RGBColor(170, 170, 170);
    chart.draw_series(
        switches
            .iter()
            .map(|(t, _)| PathElement::new(vec![(*t, 0.0), (*t, top)], grey.stroke_width(1))),
    )?;
    let w = samples
        .iter()
        .filter_map(|x| x.window.map(|v| (x.t.as_secs_f64(), v)));
    let c0 = colour(0);
    chart
        .draw_series(LineSeries::new(w, c0.stroke_width(2)))?
        .label("window W")
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c0.stroke_width(2)));
    let tk = samples
        .iter()
        .filter_map(|x| x.tokens.map(|v| (x.t.as_secs_f64(), v)));
    let c1 = colour(1);
    chart
        .draw_series(LineSeries::new(tk, c1.stroke_width(1)))?
        .label("tokens T")
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c1.stroke_width(1)));
    if !switches.is_empty() {
        chart
            .draw_series(std::iter::empty::<PathElement<(f64, f64)>>())?
            .label("acker switch")
            .legend(move |(x, y)| {
                PathElement::new(vec![(x + 10, y - 6), (x + 10, y + 6)], grey.stroke_width(1))
            });
    }
    legend(&mut chart, SeriesLabelPosition::UpperRight)?;
    root.present()?;
    Ok(())
}

/// Most data and ACK marks drawn in one time–sequence plot; beyond, every k-th is drawn (NAKs and switches
/// always are).
const MAX_MARKS: usize = 60_000;

/// `seq-<session>.svg`: the pgmcc paper's time–sequence plot (§4.1) over `[from, to]` seconds. Sequence numbers
/// are in payload bytes (PGM counts packets: seq × payload), so slopes compare with TCP's.
pub fn sequence(
    path: &Path,
    s: &Scenario,
    sess: &SessionSpec,
    trace: &SeqTrace,
    (from, to): (f64, f64),
) -> Res {
    let base = super::series::first_data(trace);
    let payload = sess.apdu_size as f64;
    let y_of = |seq: u32| f64::from(seq.wrapping_sub(base) as i32) * payload;
    let in_window: Vec<(f64, SeqMark)> = trace
        .marks
        .iter()
        .map(|(t, m)| (t.as_secs_f64(), *m))
        .filter(|(t, _)| *t >= from && *t <= to)
        .collect();
    let ys: Vec<f64> = in_window
        .iter()
        .filter_map(|(_, m)| match *m {
            SeqMark::Data(q) | SeqMark::Repair(q) | SeqMark::Ack(q) | SeqMark::Nak(q) => {
                Some(y_of(q))
            }
            SeqMark::Switch(_) => None,
        })
        .collect();
    let (lo, hi) = ys
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), y| {
            (a.min(*y), b.max(*y))
        });
    let (lo, hi) = if lo.is_finite() {
        (lo, hi.max(lo + payload))
    } else {
        (0.0, payload)
    };
    let (div, unit) = if hi >= 20e6 { (1e6, "MB") } else { (1e3, "kB") };
    let pad = (hi - lo) * 0.03;
    let (y0, y1) = ((lo - pad) / div, (hi + pad) / div);
    let root = canvas(path)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!(
                "{}: session {} time–sequence at the source",
                s.name, sess.name
            ),
            (FONT, 20),
        )
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(80)
        .build_cartesian_2d(from..to, y0..y1)?;
    chart
        .configure_mesh()
        .x_desc("time (s)")
        .y_desc(format!("sequence number ({unit} of payload)"))
        .axis_desc_style((FONT, 15))
        .light_line_style(TRANSPARENT)
        .bold_line_style(RGBColor(225, 225, 225))
        .x_label_formatter(&tick)
        .y_label_formatter(&tick)
        .draw()?;
    let bulk = in_window
        .iter()
        .filter(|(_, m)| matches!(m, SeqMark::Data(_) | SeqMark::Ack(_)))
        .count();
    let stride = bulk.div_ceil(MAX_MARKS).max(1);
    let grey = RGBColor(150, 150, 150);
    let names: Vec<&str> = sess.receivers.iter().map(|r| r.name.as_str()).collect();
    // Acker switches: vertical bars, labelled with the new acker.
    for (t, m) in &in_window {
        if let SeqMark::Switch(i) = m {
            chart.draw_series(std::iter::once(PathElement::new(
                vec![(*t, y0), (*t, y1)],
                grey.stroke_width(1),
            )))?;
            let who = names.get(*i as usize).copied().unwrap_or("?");
            chart.draw_series(std::iter::once(Text::new(
                who.to_string(),
                (*t, y1),
                (FONT, 11).into_font().color(&grey),
            )))?;
        }
    }
    let black = RGBColor(0, 0, 0);
    let blue = RGBColor(31, 119, 180);
    let red = RGBColor(214, 39, 40);
    let orange = RGBColor(255, 127, 14);
    let mut k = 0usize;
    let mut keep = || {
        k += 1;
        k.is_multiple_of(stride)
    };
    let data: Vec<(f64, f64)> = in_window
        .iter()
        .filter_map(|(t, m)| match m {
            SeqMark::Data(q) if keep() => Some((*t, y_of(*q) / div)),
            _ => None,
        })
        .collect();
    chart
        .draw_series(data.iter().map(|c| Circle::new(*c, 1, black.filled())))?
        .label(if stride > 1 {
            format!("data sent (every {stride}th)")
        } else {
            "data sent".to_string()
        })
        .legend(move |(x, y)| Circle::new((x + 10, y), 2, black.filled()));
    let acks: Vec<(f64, f64)> = in_window
        .iter()
        .filter_map(|(t, m)| match m {
            SeqMark::Ack(q) if keep() => Some((*t, y_of(*q) / div)),
            _ => None,
        })
        .collect();
    chart
        .draw_series(acks.iter().map(|c| {
            EmptyElement::at(*c) + PathElement::new(vec![(-3, 0), (3, 0)], blue.stroke_width(1))
        }))?
        .label("ACK received (RX_MAX)")
        .legend(move |(x, y)| {
            PathElement::new(vec![(x + 6, y), (x + 14, y)], blue.stroke_width(2))
        });
    let repairs: Vec<(f64, f64)> = in_window
        .iter()
        .filter_map(|(t, m)| {
            if let SeqMark::Repair(q) = m {
                Some((*t, y_of(*q) / div))
            } else {
                None
            }
        })
        .collect();
    if !repairs.is_empty() {
        chart
            .draw_series(
                repairs
                    .iter()
                    .map(|c| Cross::new(*c, 2, orange.stroke_width(1))),
            )?
            .label("repair (RDATA) sent")
            .legend(move |(x, y)| Cross::new((x + 10, y), 3, orange.stroke_width(1)));
    }
    let diamond = |c: (f64, f64)| {
        EmptyElement::at(c)
            + PathElement::new(
                vec![(0, -4), (4, 0), (0, 4), (-4, 0), (0, -4)],
                red.stroke_width(1),
            )
    };
    let naks: Vec<(f64, f64)> = in_window
        .iter()
        .filter_map(|(t, m)| {
            if let SeqMark::Nak(q) = m {
                Some((*t, y_of(*q) / div))
            } else {
                None
            }
        })
        .collect();
    chart
        .draw_series(naks.iter().map(|c| diamond(*c)))?
        .label("NAK received")
        .legend(move |(x, y)| {
            EmptyElement::at((x + 10, y))
                + PathElement::new(
                    vec![(0, -4), (4, 0), (0, 4), (-4, 0), (0, -4)],
                    red.stroke_width(1),
                )
        });
    chart
        .draw_series(std::iter::empty::<PathElement<(f64, f64)>>())?
        .label("acker switch")
        .legend(move |(x, y)| {
            PathElement::new(vec![(x + 10, y - 6), (x + 10, y + 6)], grey.stroke_width(1))
        });
    legend(&mut chart, SeriesLabelPosition::UpperLeft)?;
    root.present()?;
    Ok(())
}

/// queue.svg: packets waiting in each observed link direction.
pub fn queues(
    path: &Path,
    s: &Scenario,
    cols: &[(String, &[(convoy_proto::Instant, u32)])],
) -> Res {
    let root = canvas(path)?;
    let max = cols
        .iter()
        .flat_map(|(_, v)| v.iter().map(|(_, q)| f64::from(*q)))
        .fold(0.0, f64::max);
    let end = s.duration.as_secs_f64();
    let mut chart = ChartBuilder::on(&root)
        .caption(format!("{}: queue length", s.name), (FONT, 20))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..end, 0.0..upper(max))?;
    chart
        .configure_mesh()
        .x_desc("time (s)")
        .y_desc("packets waiting")
        .axis_desc_style((FONT, 15))
        .light_line_style(TRANSPARENT)
        .bold_line_style(RGBColor(225, 225, 225))
        .x_label_formatter(&tick)
        .y_label_formatter(&tick)
        .draw()?;
    for (i, (name, v)) in cols.iter().enumerate() {
        let c = colour(i);
        let pts = v.iter().map(|(t, q)| (t.as_secs_f64(), f64::from(*q)));
        let series = chart.draw_series(LineSeries::new(pts, c.stroke_width(1)))?;
        match i.cmp(&MAX_LEGEND) {
            std::cmp::Ordering::Less => series.label(name.clone()),
            std::cmp::Ordering::Equal => {
                series.label(format!("… {} more", cols.len() - MAX_LEGEND))
            }
            std::cmp::Ordering::Greater => continue,
        }
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2)));
    }
    legend(&mut chart, SeriesLabelPosition::UpperRight)?;
    root.present()?;
    Ok(())
}
