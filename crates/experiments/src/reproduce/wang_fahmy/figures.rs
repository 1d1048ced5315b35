//! Figures of the Wang–Fahmy experiments beyond each run's own plots: their Table II beside Convoy's numbers,
//! and their Fig. 11 (data sent and ACKs received at the sender around the first acker switches) with the window
//! below it.

use super::common::{receiving_rates, Ctx, SESSION};
use super::switch_inflation::switch_episodes;
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
    let name = "fig11.svg";
    let path = dir.join(name);
    let res = (|| -> Result<(), Box<dyn std::error::Error>> {
        let root = SVGBackend::new(&path, (1000, 760)).into_drawing_area();
        root.fill(&WHITE)?;
        let (top, bottom) = root.split_vertically(460);
        let mut chart = ChartBuilder::on(&top)
            .caption(
                format!(
                    "wf-switch-inflation: data sent and ACKs received at the sender, {}–{} s (WF Fig. 11)",
                    super::common::trim(from),
                    super::common::trim(to)
                ),
                ("sans-serif", 17),
            )
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(55)
            .build_cartesian_2d(from..to, -1.0..51.0)?;
        chart
            .configure_mesh()
            .x_desc("time (s)")
            .y_desc("packet number mod 50")
            .label_style(("sans-serif", 12))
            .light_line_style(TRANSPARENT)
            .draw()?;
        let grey = RGBColor(150, 150, 150);
        let named: Vec<(f64, String)> = f
            .switches
            .iter()
            .filter_map(|(t, n)| n.clone().map(|n| (*t, n)))
            .filter(|(t, _)| *t >= from && *t <= to)
            .collect();
        chart.draw_series(
            named
                .iter()
                .map(|(t, _)| PathElement::new(vec![(*t, -1.0), (*t, 51.0)], grey.stroke_width(1))),
        )?;
        chart.draw_series(named.iter().map(|(t, n)| {
            Text::new(
                format!("→{n}"),
                (*t, 50.0),
                ("sans-serif", 12).into_font().color(&BLACK),
            )
        }))?;
        let blue = RGBColor(31, 119, 180);
        let red = RGBColor(214, 39, 40);
        let green = RGBColor(44, 160, 44);
        let in_range = |t: &f64| *t >= from && *t <= to;
        chart
            .draw_series(s.trace.iter().filter(|(t, _)| in_range(t)).filter_map(
                |(t, m)| match m {
                    SeqMark::Data(q) => Some(Circle::new(
                        (*t, f64::from(q % 50)),
                        2,
                        blue.stroke_width(1),
                    )),
                    _ => None,
                },
            ))?
            .label("data sent")
            .legend(move |(x, y)| Circle::new((x + 8, y), 3, blue.stroke_width(1)));
        // An ACK is the old acker's when it acknowledges a packet sent before the latest switch.
        let old = |t: f64, rx: u32| {
            eps.iter()
                .rev()
                .find(|e| e.t <= t)
                .and_then(|e| e.first_new)
                .is_some_and(|first| (rx.wrapping_sub(first) as i32) < 0)
        };
        let acks: Vec<(f64, u32, bool)> = s
            .trace
            .iter()
            .filter(|(t, _)| in_range(t))
            .filter_map(|(t, m)| match m {
                SeqMark::Ack(rx) => Some((*t, *rx, old(*t, *rx))),
                _ => None,
            })
            .collect();
        chart
            .draw_series(
                acks.iter().filter(|a| !a.2).map(|(t, rx, _)| {
                    Cross::new((*t, f64::from(rx % 50)), 3, green.stroke_width(1))
                }),
            )?
            .label("ACK from the current acker")
            .legend(move |(x, y)| Cross::new((x + 8, y), 3, green.stroke_width(1)));
        chart
            .draw_series(
                acks.iter()
                    .filter(|a| a.2)
                    .map(|(t, rx, _)| Cross::new((*t, f64::from(rx % 50)), 3, red.stroke_width(2))),
            )?
            .label("ACK of a packet sent before the switch (old acker)")
            .legend(move |(x, y)| Cross::new((x + 8, y), 3, red.stroke_width(2)));
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK)
            .label_font(("sans-serif", 12))
            .draw()?;
        let w: Vec<(f64, f64)> = s
            .window
            .iter()
            .copied()
            .filter(|(t, _)| in_range(t))
            .collect();
        let wmax = w.iter().map(|x| x.1).fold(1.0f64, f64::max) * 1.1;
        let mut wc = ChartBuilder::on(&bottom)
            .caption("window W (packets)", ("sans-serif", 15))
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(55)
            .build_cartesian_2d(from..to, 0.0..wmax)?;
        wc.configure_mesh()
            .x_desc("time (s)")
            .y_desc("W")
            .label_style(("sans-serif", 12))
            .light_line_style(TRANSPARENT)
            .draw()?;
        wc.draw_series(
            named
                .iter()
                .map(|(t, _)| PathElement::new(vec![(*t, 0.0), (*t, wmax)], grey.stroke_width(1))),
        )?;
        wc.draw_series(LineSeries::new(w, blue.stroke_width(2)))?;
        root.present()?;
        Ok(())
    })();
    res.map_err(|e| format!("drawing {name}: {e}"))?;
    Ok(vec![name.to_string()])
}
