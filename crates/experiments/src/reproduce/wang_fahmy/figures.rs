//! Figures of the Wang–Fahmy experiments beyond each run's own plots: their Table II beside Convoy's numbers,
//! and their Fig. 11 (data sent and ACKs received at the sender around the first acker switches) with the window
//! below it.

use super::common::{receiving_rates, Ctx, SESSION};
use super::switch_inflation::{switch_episodes, SwitchEpisode};
use crate::reproduce::data::SessionData;
use crate::simrun::plots::{chart, legend, Axes, Chart};
use convoy_sim::observe::SeqMark;
use plotters::prelude::*;
use std::fmt::Write as _;
use std::path::Path;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A plain SVG table: header row and body rows, first column left-aligned.
fn svg_table(title: &str, header: &[String], rows: &[Vec<String>], note: &str) -> String {
    let cols = header.len().max(1);
    let first_w = 330.0;
    let col_w = 92.0;
    let row_h = 24.0;
    let width = first_w + col_w * (cols - 1) as f64 + 20.0;
    let height = 60.0 + row_h * (rows.len() + 1) as f64 + 30.0;
    let mut s = String::new();
    let _ = write!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         font-family=\"sans-serif\" font-size=\"13\"><rect width=\"100%\" height=\"100%\" fill=\"white\"/>\
         <text x=\"10\" y=\"24\" font-size=\"16\">{}</text>",
        esc(title)
    );
    let x_of = |c: usize| {
        if c == 0 {
            10.0
        } else {
            first_w + col_w * (c - 1) as f64 + col_w - 8.0
        }
    };
    let mut y = 54.0;
    for (c, h) in header.iter().enumerate() {
        let anchor = if c == 0 { "start" } else { "end" };
        let _ = write!(
            s,
            "<text x=\"{}\" y=\"{y}\" font-weight=\"bold\" text-anchor=\"{anchor}\">{}</text>",
            x_of(c),
            esc(h)
        );
    }
    let _ = write!(
        s,
        "<line x1=\"10\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#888\"/>",
        y + 7.0,
        width - 10.0,
        y + 7.0
    );
    for (k, row) in rows.iter().enumerate() {
        y += row_h;
        if k % 2 == 1 {
            let _ = write!(
                s,
                "<rect x=\"8\" y=\"{}\" width=\"{}\" height=\"{row_h}\" fill=\"#f3f3f3\"/>",
                y - 17.0,
                width - 16.0
            );
        }
        for (c, v) in row.iter().enumerate() {
            let anchor = if c == 0 { "start" } else { "end" };
            let _ = write!(
                s,
                "<text x=\"{}\" y=\"{y}\" text-anchor=\"{anchor}\">{}</text>",
                x_of(c),
                esc(v)
            );
        }
    }
    let _ = write!(
        s,
        "<text x=\"10\" y=\"{}\" font-size=\"11\" fill=\"#555\">{}</text></svg>",
        y + 28.0,
        esc(note)
    );
    s
}

fn pct(v: f64) -> String {
    format!("{}%", super::common::trim(100.0 * v))
}

/// `table2.svg`: Table II's "Highly Congested" row beside the receiving rates of the fixed-timeout and adaptive
/// runs.
pub fn table2_congested(ctx: &Ctx<'_>, dir: &Path) -> Result<Vec<String>, String> {
    let fixed = ctx.run("").ok_or("run missing")?;
    let adaptive = ctx.run("adaptive").ok_or("run `adaptive` missing")?;
    let (rf, ra) = (receiving_rates(fixed)?, receiving_rates(adaptive)?);
    let mut header = vec!["receiving rate".to_string()];
    header.extend(rf.iter().map(|r| r.name.clone()));
    let paper = ["100%", "100%", "100%", "97%", "92.5%"];
    let rows = vec![
        {
            let mut r = vec!["Wang and Fahmy, Table II, Highly Congested".to_string()];
            r.extend(paper.iter().take(rf.len()).map(|s| s.to_string()));
            r
        },
        {
            let mut r = vec!["Convoy, fixed timeout: ODATA received / sent".to_string()];
            r.extend(rf.iter().map(|x| pct(x.odata)));
            r
        },
        {
            let mut r = vec!["Convoy, fixed timeout: data delivered / sent".to_string()];
            r.extend(rf.iter().map(|x| pct(x.delivered)));
            r
        },
        {
            let mut r = vec!["Convoy, adaptive: ODATA received / sent".to_string()];
            r.extend(ra.iter().map(|x| pct(x.odata)));
            r
        },
        {
            let mut r = vec!["Convoy, adaptive: data delivered / sent".to_string()];
            r.extend(ra.iter().map(|x| pct(x.delivered)));
            r
        },
    ];
    let svg = svg_table(
        &format!("wf-congested: per-receiver receiving rate (seed {})", ctx.seed),
        &header,
        &rows,
        "Delivered counts original data and repairs handed to the application in order by the end of the \
         900 s run.",
    );
    let name = "table2.svg";
    std::fs::write(dir.join(name), svg).map_err(|e| format!("{name}: {e}"))?;
    Ok(vec![name.to_string()])
}

/// `fig11.svg`: Wang and Fahmy's Fig. 11 — data packets sent (circles) and ACKs received (crosses) at the sender,
/// sequence number modulo 50, around the first acker switches, ACKs of packets sent before a switch (the old
/// acker's) in red; below, the window W with the switches as vertical lines.
pub fn fig11(ctx: &Ctx<'_>, dir: &Path) -> Result<Vec<String>, String> {
    let run = ctx.run("").ok_or("run missing")?;
    let s = run.session(SESSION).ok_or("no session series")?;
    let f = run.flow(SESSION).ok_or("no session")?;
    let end = run.result.duration_s;
    let eps = switch_episodes(s, &f.switches, end);
    let (from, to) = match (eps.first(), eps.get(1)) {
        (Some(a), Some(b)) => ((a.t - 10.0).max(0.0), (b.until + 5.0).min(end)),
        (Some(a), None) => ((a.t - 10.0).max(0.0), (a.until + 10.0).min(end)),
        _ => (0.0, end),
    };
    let switches: Vec<(f64, String)> = f
        .switches
        .iter()
        .filter_map(|(t, n)| n.clone().map(|n| (*t, n)))
        .filter(|(t, _)| *t >= from && *t <= to)
        .collect();
    let name = "fig11.svg";
    let path = dir.join(name);
    let res = (|| -> Result<(), Box<dyn std::error::Error>> {
        let root = SVGBackend::new(&path, (1000, 760)).into_drawing_area();
        root.fill(&WHITE)?;
        let (top, bottom) = root.split_vertically(460);
        let view = Fig11View { from, to, switches: &switches };
        view.sequence(&top, s, &eps)?;
        view.window(&bottom, s)?;
        root.present()?;
        Ok(())
    })();
    res.map_err(|e| format!("drawing {name}: {e}"))?;
    Ok(vec![name.to_string()])
}

/// The time window of Fig. 11 and the acker switches in it (time, new acker).
struct Fig11View<'a> {
    from: f64,
    to: f64,
    switches: &'a [(f64, String)],
}

type Area<'b> = DrawingArea<SVGBackend<'b>, plotters::coord::Shift>;
type Drawn = Result<(), Box<dyn std::error::Error>>;

const GREY: RGBColor = RGBColor(150, 150, 150);
const BLUE: RGBColor = RGBColor(31, 119, 180);

impl Fig11View<'_> {
    fn in_range(&self, t: f64) -> bool {
        t >= self.from && t <= self.to
    }

    /// Vertical lines at the switches, from `y0` to `y1`.
    fn switch_lines<'a, 'b: 'a>(&self, chart: &mut Chart<'a, 'b>, (y0, y1): (f64, f64)) -> Drawn {
        let line = |t: f64| PathElement::new(vec![(t, y0), (t, y1)], GREY.stroke_width(1));
        chart.draw_series(self.switches.iter().map(|(t, _)| line(*t)))?;
        Ok(())
    }

    /// Data sent and ACKs received, sequence number modulo 50; the old acker's ACKs in red.
    fn sequence(&self, area: &Area<'_>, s: &SessionData, eps: &[SwitchEpisode]) -> Drawn {
        let caption = format!(
            "wf-switch-inflation: data sent and ACKs received at the sender, {}–{} s (WF Fig. 11)",
            super::common::trim(self.from),
            super::common::trim(self.to)
        );
        let axes = Axes {
            x: self.from..self.to,
            y: -1.0..51.0,
            x_desc: "time (s)",
            y_desc: "packet number mod 50",
        };
        let mut chart = chart(area, &caption, axes, 55)?;
        self.switch_lines(&mut chart, (-1.0, 51.0))?;
        let label = |(t, n): &(f64, String)| {
            Text::new(format!("→{n}"), (*t, 50.0), ("sans-serif", 12).into_font().color(&BLACK))
        };
        chart.draw_series(self.switches.iter().map(label))?;
        let marks = || s.trace.iter().filter(|(t, _)| self.in_range(*t));
        let at = |t: f64, q: u32| (t, f64::from(q % 50));
        chart
            .draw_series(marks().filter_map(|(t, m)| match m {
                SeqMark::Data(q) => Some(Circle::new(at(*t, *q), 2, BLUE.stroke_width(1))),
                _ => None,
            }))?
            .label("data sent")
            .legend(move |(x, y)| Circle::new((x + 8, y), 3, BLUE.stroke_width(1)));
        // An ACK is the old acker's when it acknowledges a packet sent before the latest switch.
        let old = |t: f64, rx: u32| {
            eps.iter()
                .rev()
                .find(|e| e.t <= t)
                .and_then(|e| e.first_new)
                .is_some_and(|first| (rx.wrapping_sub(first) as i32) < 0)
        };
        let acks: Vec<(f64, u32, bool)> = marks()
            .filter_map(|(t, m)| match m {
                SeqMark::Ack(rx) => Some((*t, *rx, old(*t, *rx))),
                _ => None,
            })
            .collect();
        for (is_old, style, text) in [
            (false, RGBColor(44, 160, 44).stroke_width(1), "ACK from the current acker"),
            (true, RGBColor(214, 39, 40).stroke_width(2), "ACK of a packet sent before the switch (old acker)"),
        ] {
            let crosses = acks.iter().filter(|a| a.2 == is_old);
            chart
                .draw_series(crosses.map(|(t, rx, _)| Cross::new(at(*t, *rx), 3, style)))?
                .label(text)
                .legend(move |(x, y)| Cross::new((x + 8, y), 3, style));
        }
        legend(&mut chart, SeriesLabelPosition::LowerRight)
    }

    /// The window W, with the switches as vertical lines.
    fn window(&self, area: &Area<'_>, s: &SessionData) -> Drawn {
        let w: Vec<(f64, f64)> = s.window.iter().copied().filter(|(t, _)| self.in_range(*t)).collect();
        let wmax = w.iter().map(|x| x.1).fold(1.0f64, f64::max) * 1.1;
        let axes = Axes {
            x: self.from..self.to,
            y: 0.0..wmax,
            x_desc: "time (s)",
            y_desc: "W",
        };
        let mut chart = chart(area, "window W (packets)", axes, 55)?;
        self.switch_lines(&mut chart, (0.0, wmax))?;
        chart.draw_series(LineSeries::new(w, BLUE.stroke_width(2)))?;
        Ok(())
    }
}
