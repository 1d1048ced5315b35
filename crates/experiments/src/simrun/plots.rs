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
use std::ops::Range;
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
    let caption = format!(
        "{}: throughput per {} s",
        s.name,
        fmt_s(s.interval.as_secs_f64())
    );
    let y_desc = format!("throughput ({unit})");
    let axes = Axes {
        x: 0.0..end,
        y: 0.0..upper(max / div),
        x_desc: "time (s)",
        y_desc: &y_desc,
    };
    let mut chart = chart(&root, &caption, axes, 70)?;
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

/// What a chart shows on its axes: the ranges and their descriptions.
pub struct Axes<'s> {
    /// The x range (time, seconds, in most figures).
    pub x: Range<f64>,
    /// The y range.
    pub y: Range<f64>,
    /// The x axis' description.
    pub x_desc: &'s str,
    /// The y axis' description.
    pub y_desc: &'s str,
}

/// A chart on `area` in the style of every figure of the crate: a caption, a light grid, tick labels without a
/// useless ".0", `y_label_width` pixels for the y axis' labels.
pub fn chart<'a, 'b>(
    area: &'a DrawingArea<SVGBackend<'b>, Shift>,
    caption: &str,
    axes: Axes<'_>,
    y_label_width: u32,
) -> Result<Chart<'a, 'b>, Box<dyn Error>> {
    let mut chart = ChartBuilder::on(area)
        .caption(caption, (FONT, 20))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(y_label_width)
        .build_cartesian_2d(axes.x, axes.y)?;
    chart
        .configure_mesh()
        .x_desc(axes.x_desc)
        .y_desc(axes.y_desc)
        .axis_desc_style((FONT, 15))
        .light_line_style(TRANSPARENT)
        .bold_line_style(RGBColor(225, 225, 225))
        .x_label_formatter(&tick)
        .y_label_formatter(&tick)
        .draw()?;
    Ok(chart)
}

/// A legend entry for series drawn as vertical grey lines (acker switches).
fn switch_legend<'a, 'b: 'a>(chart: &mut Chart<'a, 'b>, grey: RGBColor) -> Res {
    chart
        .draw_series(std::iter::empty::<PathElement<(f64, f64)>>())?
        .label("acker switch")
        .legend(move |(x, y)| {
            PathElement::new(vec![(x + 10, y - 6), (x + 10, y + 6)], grey.stroke_width(1))
        });
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
    let caption = format!("{}: session {} window and tokens", s.name, sess.name);
    let axes = Axes {
        x: 0.0..end,
        y: 0.0..upper(max),
        x_desc: "time (s)",
        y_desc: "packets",
    };
    let mut chart = chart(&root, &caption, axes, 60)?;
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
        switch_legend(&mut chart, grey)?;
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
    let marks = SeqMarks::new(trace, sess.apdu_size as f64, (from, to));
    let (y0, y1) = marks.y_range();
    let root = canvas(path)?;
    let caption = format!(
        "{}: session {} time–sequence at the source",
        s.name, sess.name
    );
    let y_desc = format!("sequence number ({} of payload)", marks.unit);
    let axes = Axes {
        x: from..to,
        y: y0..y1,
        x_desc: "time (s)",
        y_desc: &y_desc,
    };
    let mut chart = chart(&root, &caption, axes, 80)?;
    let grey = RGBColor(150, 150, 150);
    let names: Vec<&str> = sess.receivers.iter().map(|r| r.name.as_str()).collect();
    marks.draw_switches(&mut chart, &names, (y0, y1), grey)?;
    marks.draw_data_and_acks(&mut chart)?;
    marks.draw_repairs_and_naks(&mut chart)?;
    switch_legend(&mut chart, grey)?;
    legend(&mut chart, SeriesLabelPosition::UpperLeft)?;
    root.present()?;
    Ok(())
}

/// The marks of a time–sequence trace within a time window, with the y scale they are drawn on.
struct SeqMarks {
    marks: Vec<(f64, SeqMark)>,
    /// The first data sequence number (y = 0).
    base: u32,
    payload: f64,
    /// Bytes per y unit, and the unit's name.
    div: f64,
    unit: &'static str,
    /// Every `stride`-th data and ACK mark is drawn ([`MAX_MARKS`]).
    stride: usize,
}

impl SeqMarks {
    fn new(trace: &SeqTrace, payload: f64, (from, to): (f64, f64)) -> Self {
        let marks: Vec<(f64, SeqMark)> = trace
            .marks
            .iter()
            .map(|(t, m)| (t.as_secs_f64(), *m))
            .filter(|(t, _)| *t >= from && *t <= to)
            .collect();
        let bulk = marks
            .iter()
            .filter(|(_, m)| matches!(m, SeqMark::Data(_) | SeqMark::Ack(_)))
            .count();
        let mut m = SeqMarks {
            marks,
            base: super::series::first_data(trace),
            payload,
            div: 1e3,
            unit: "kB",
            stride: bulk.div_ceil(MAX_MARKS).max(1),
        };
        if m.extent().1 >= 20e6 {
            (m.div, m.unit) = (1e6, "MB");
        }
        m
    }

    /// A sequence number's height in bytes of payload from the first data packet.
    fn bytes(&self, seq: u32) -> f64 {
        f64::from(seq.wrapping_sub(self.base) as i32) * self.payload
    }

    /// The lowest and highest mark in bytes (at least one packet apart).
    fn extent(&self) -> (f64, f64) {
        let (lo, hi) = self
            .marks
            .iter()
            .filter_map(|(_, m)| match *m {
                SeqMark::Data(q) | SeqMark::Repair(q) | SeqMark::Ack(q) | SeqMark::Nak(q) => {
                    Some(self.bytes(q))
                }
                SeqMark::Switch(_) => None,
            })
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), y| {
                (a.min(y), b.max(y))
            });
        if lo.is_finite() {
            (lo, hi.max(lo + self.payload))
        } else {
            (0.0, self.payload)
        }
    }

    /// The y axis' range in its unit, with a 3% margin.
    fn y_range(&self) -> (f64, f64) {
        let (lo, hi) = self.extent();
        let pad = (hi - lo) * 0.03;
        ((lo - pad) / self.div, (hi + pad) / self.div)
    }

    /// The marks `pick` selects, as points.
    fn points(&self, mut pick: impl FnMut(&SeqMark) -> Option<u32>) -> Vec<(f64, f64)> {
        self.marks
            .iter()
            .filter_map(|(t, m)| pick(m).map(|q| (*t, self.bytes(q) / self.div)))
            .collect()
    }

    /// Acker switches: vertical bars, labelled with the new acker.
    fn draw_switches<'a, 'b: 'a>(
        &self,
        chart: &mut Chart<'a, 'b>,
        names: &[&str],
        (y0, y1): (f64, f64),
        grey: RGBColor,
    ) -> Res {
        for (t, m) in &self.marks {
            if let SeqMark::Switch(i) = m {
                let bar = PathElement::new(vec![(*t, y0), (*t, y1)], grey.stroke_width(1));
                chart.draw_series(std::iter::once(bar))?;
                let who = names.get(*i as usize).copied().unwrap_or("?");
                let style = (FONT, 11).into_font().color(&grey);
                chart.draw_series(std::iter::once(Text::new(who.to_string(), (*t, y1), style)))?;
            }
        }
        Ok(())
    }

    /// Data sent as dots and ACKs as ticks, every `stride`-th of them (counted over both).
    fn draw_data_and_acks<'a, 'b: 'a>(&self, chart: &mut Chart<'a, 'b>) -> Res {
        let (black, blue) = (RGBColor(0, 0, 0), RGBColor(31, 119, 180));
        // One count over the data marks, then on over the ACKs: every `stride`-th of each is drawn.
        let mut k = 0usize;
        let mut every = |q: u32| {
            k += 1;
            k.is_multiple_of(self.stride).then_some(q)
        };
        let data = self.points(|m| match m {
            SeqMark::Data(q) => every(*q),
            _ => None,
        });
        let acks = self.points(|m| match m {
            SeqMark::Ack(q) => every(*q),
            _ => None,
        });
        let label = match self.stride {
            1 => "data sent".to_string(),
            n => format!("data sent (every {n}th)"),
        };
        chart
            .draw_series(data.iter().map(|c| Circle::new(*c, 1, black.filled())))?
            .label(label)
            .legend(move |(x, y)| Circle::new((x + 10, y), 2, black.filled()));
        let tick = |c: &(f64, f64)| {
            EmptyElement::at(*c) + PathElement::new(vec![(-3, 0), (3, 0)], blue.stroke_width(1))
        };
        chart
            .draw_series(acks.iter().map(tick))?
            .label("ACK received (RX_MAX)")
            .legend(move |(x, y)| {
                PathElement::new(vec![(x + 6, y), (x + 14, y)], blue.stroke_width(2))
            });
        Ok(())
    }

    /// Repairs sent as crosses (when any) and NAKs received as diamonds, all of them.
    fn draw_repairs_and_naks<'a, 'b: 'a>(&self, chart: &mut Chart<'a, 'b>) -> Res {
        let (red, orange) = (RGBColor(214, 39, 40), RGBColor(255, 127, 14));
        let repairs = self.points(|m| match m {
            SeqMark::Repair(q) => Some(*q),
            _ => None,
        });
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
        let naks = self.points(|m| match m {
            SeqMark::Nak(q) => Some(*q),
            _ => None,
        });
        chart
            .draw_series(
                naks.iter().map(|c| {
                    EmptyElement::at(*c) + PathElement::new(diamond(), red.stroke_width(1))
                }),
            )?
            .label("NAK received")
            .legend(move |(x, y)| {
                EmptyElement::at((x + 10, y)) + PathElement::new(diamond(), red.stroke_width(1))
            });
        Ok(())
    }
}

/// A NAK's diamond mark, 8 pixels across, as offsets from its centre.
fn diamond() -> Vec<(i32, i32)> {
    vec![(0, -4), (4, 0), (0, 4), (-4, 0), (0, -4)]
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
    let caption = format!("{}: queue length", s.name);
    let axes = Axes {
        x: 0.0..end,
        y: 0.0..upper(max),
        x_desc: "time (s)",
        y_desc: "packets waiting",
    };
    let mut chart = chart(&root, &caption, axes, 60)?;
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
