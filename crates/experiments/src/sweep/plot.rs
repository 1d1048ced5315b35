//! `convoy sweep plot`: one metric of a sweep's results.csv against one axis, one line per value of the other
//! axes (and per flow, receiver or link when several carry the metric), each point the mean over the seeds with
//! its 95% confidence interval (Student's t with n − 1 degrees of freedom), as SVG.

use plotters::prelude::*;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// What to draw.
#[derive(Clone, Debug)]
pub struct PlotRequest {
    /// A sweep's results.csv, or its output directory.
    pub results: PathBuf,
    /// The metric (a name of [`super::metrics::METRICS`]).
    pub metric: String,
    /// The axis along x.
    pub x: String,
    /// Only this flow, receiver (`flow/receiver`) or link direction.
    pub id: Option<String>,
    /// The SVG file.
    pub out: PathBuf,
}

/// One point: the mean over the seeds and the half-width of its 95% interval (0 with one seed).
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    /// The x axis value.
    pub x: String,
    /// Seeds averaged.
    pub n: usize,
    /// Their mean.
    pub mean: f64,
    /// Half-width of the 95% confidence interval.
    pub half_width: f64,
}

/// One line of the plot.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// The other axes' values and the id, e.g. `session.S1.pgmcc.c=0.5 pgmcc`.
    pub name: String,
    /// In the x axis's order.
    pub points: Vec<Point>,
}

/// Student's t quantile 0.975 for 1–30 degrees of freedom; 1.96 beyond.
const T975: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
    2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
    2.052, 2.048, 2.045, 2.042,
];

fn interval(values: &[f64]) -> (f64, f64) {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    if values.len() < 2 {
        return (mean, 0.0);
    }
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    let t = T975.get(values.len() - 2).copied().unwrap_or(1.96);
    (mean, t * (var / n).sqrt())
}

/// Fields of one line of results.csv (quoted fields as written by the sweep).
fn fields(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// The series of `req` from the table's text.
pub fn series(table: &str, req: &PlotRequest) -> Result<Vec<Series>, String> {
    let mut lines = table.lines();
    let header = fields(lines.next().ok_or("empty results table")?);
    let col = |name: &str| header.iter().position(|h| h == name);
    let (seed, id, metric, value) = match (col("seed"), col("id"), col("metric"), col("value")) {
        (Some(a), Some(b), Some(c), Some(d)) => (a, b, c, d),
        _ => return Err("not a sweep's results.csv (no seed, id, metric, value columns)".into()),
    };
    let axes: Vec<usize> = (1..seed).collect();
    let x = axes
        .iter()
        .copied()
        .find(|&i| header[i] == req.x)
        .ok_or_else(|| {
            let names: Vec<&str> = axes.iter().map(|&i| header[i].as_str()).collect();
            format!("no axis `{}` (axes: {})", req.x, names.join(", "))
        })?;
    let mut xs: Vec<String> = Vec::new();
    let mut groups: BTreeMap<String, BTreeMap<String, Vec<f64>>> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    for (n, line) in lines.enumerate() {
        let f = fields(line);
        if f.len() != header.len() {
            return Err(format!(
                "line {}: {} fields, the header has {}",
                n + 2,
                f.len(),
                header.len()
            ));
        }
        if f[metric] != req.metric || req.id.as_ref().is_some_and(|i| *i != f[id]) {
            continue;
        }
        let v: f64 = f[value]
            .parse()
            .map_err(|_| format!("line {}: `{}` is not a number", n + 2, f[value]))?;
        let mut name: Vec<String> = axes
            .iter()
            .filter(|&&i| i != x && !f[i].is_empty())
            .map(|&i| format!("{}={}", header[i], f[i]))
            .collect();
        name.push(f[id].clone());
        let name = name.join(" ");
        if !xs.contains(&f[x]) {
            xs.push(f[x].clone());
        }
        if !order.contains(&name) {
            order.push(name.clone());
        }
        groups
            .entry(name)
            .or_default()
            .entry(f[x].clone())
            .or_default()
            .push(v);
    }
    if order.is_empty() {
        return Err(format!("no `{}` values in the table", req.metric));
    }
    Ok(order
        .into_iter()
        .map(|name| {
            let by_x = &groups[&name];
            let points = xs
                .iter()
                .filter_map(|xv| {
                    let vals = by_x.get(xv)?;
                    let (mean, half_width) = interval(vals);
                    Some(Point {
                        x: xv.clone(),
                        n: vals.len(),
                        mean,
                        half_width,
                    })
                })
                .collect();
            Series { name, points }
        })
        .collect())
}

/// Read the table, draw the SVG; returns the series (for a text summary).
pub fn plot(req: &PlotRequest) -> Result<Vec<Series>, String> {
    let path = if req.results.is_dir() {
        req.results.join("results.csv")
    } else {
        req.results.clone()
    };
    let table = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let series = series(&table, req).map_err(|e| format!("{}: {e}", path.display()))?;
    draw(&req.out, req, &series).map_err(|e| format!("drawing {}: {e}", req.out.display()))?;
    Ok(series)
}

fn draw(
    path: &Path,
    req: &PlotRequest,
    series: &[Series],
) -> Result<(), Box<dyn std::error::Error>> {
    let mut xs: Vec<&str> = Vec::new();
    for p in series.iter().flat_map(|s| &s.points) {
        if !xs.contains(&p.x.as_str()) {
            xs.push(&p.x);
        }
    }
    let top = series
        .iter()
        .flat_map(|s| &s.points)
        .map(|p| p.mean + p.half_width)
        .fold(0.0, f64::max);
    let top = if top > 0.0 && top.is_finite() {
        top * 1.08
    } else {
        1.0
    };
    let root = SVGBackend::new(path, (1000, 550)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!("{}: mean over seeds, 95% interval", req.metric),
            ("sans-serif", 20),
        )
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(90)
        .build_cartesian_2d(-0.5f64..xs.len() as f64 - 0.5, 0.0..top)?;
    let label = |v: &f64| {
        let i = v.round();
        if (v - i).abs() < 1e-6 && i >= 0.0 {
            xs.get(i as usize).map_or(String::new(), |s| s.to_string())
        } else {
            String::new()
        }
    };
    chart
        .configure_mesh()
        .x_desc(req.x.as_str())
        .y_desc(req.metric.as_str())
        .x_labels(xs.len().max(2) * 2 + 1)
        .x_label_formatter(&label)
        .draw()?;
    let index = |x: &str| xs.iter().position(|v| *v == x).unwrap_or(0) as f64;
    for (k, s) in series.iter().enumerate() {
        let c = crate::simrun::plots::colour(k);
        let pts: Vec<(f64, f64)> = s.points.iter().map(|p| (index(&p.x), p.mean)).collect();
        chart
            .draw_series(LineSeries::new(pts.clone(), c.stroke_width(2)))?
            .label(s.name.clone())
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 18, y)], c.stroke_width(2)));
        chart.draw_series(s.points.iter().map(|p| {
            let x = index(&p.x);
            ErrorBar::new_vertical(
                x,
                p.mean - p.half_width,
                p.mean,
                p.mean + p.half_width,
                c.filled(),
                8,
            )
        }))?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperRight)
        .draw()?;
    root.present()?;
    Ok(())
}

/// The series as a text table: one line per point.
pub fn table(series: &[Series]) -> String {
    let mut out = String::new();
    for s in series {
        for p in &s.points {
            let _ = writeln!(
                out,
                "{:<40} {:>12} n={:<3} {:>14.6} ± {:.6}",
                s.name, p.x, p.n, p.mean, p.half_width
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLE: &str = "run,a,b,seed,kind,id,metric,value\n\
        r1,1M,x,1,flow,S1,goodput_bps,10\n\
        r2,1M,x,2,flow,S1,goodput_bps,14\n\
        r1,1M,x,1,link,L,drops,3\n\
        r3,2M,x,1,flow,S1,goodput_bps,20\n\
        r4,2M,x,2,flow,S1,goodput_bps,20\n\
        r5,1M,y,1,flow,S1,goodput_bps,5\n";

    fn req(x: &str) -> PlotRequest {
        PlotRequest {
            results: PathBuf::new(),
            metric: "goodput_bps".into(),
            x: x.into(),
            id: None,
            out: PathBuf::new(),
        }
    }

    #[test]
    fn one_line_per_other_axis_value_mean_and_student_t_interval_over_seeds() {
        let s = series(TABLE, &req("a")).unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].name, "b=x S1");
        assert_eq!(
            s[0].points[0],
            Point {
                x: "1M".into(),
                n: 2,
                mean: 12.0,
                half_width: 12.706 * 2.0
            }
        );
        assert_eq!(s[0].points[1].half_width, 0.0, "equal values");
        assert_eq!(s[1].points.len(), 1, "b=y has only 1M");
        assert_eq!(s[1].points[0].half_width, 0.0, "one seed: no interval");
    }

    #[test]
    fn errors_name_the_axis_and_the_metric() {
        assert!(series(TABLE, &req("c"))
            .unwrap_err()
            .contains("no axis `c` (axes: a, b)"));
        let mut r = req("a");
        r.metric = "loss_rate".into();
        assert!(series(TABLE, &r)
            .unwrap_err()
            .contains("no `loss_rate` values"));
        assert!(series("x,y\n", &req("a"))
            .unwrap_err()
            .contains("not a sweep's results.csv"));
    }

    #[test]
    fn quoted_fields_keep_their_commas() {
        assert_eq!(fields("a,\"b,c\",\"d\"\"e\""), ["a", "b,c", "d\"e"]);
    }
}
