//! Grid files (docs/sweep.md): a scenario, axes of `--set` values, optional sub-grids, seeds and metrics; and the
//! plan they expand to.
//!
//! The plan is the union over sub-grids of the cartesian product of the top-level axes with the sub-grid's own
//! (without sub-grids, the product of the top-level axes), times the seeds. Axes are taken in key order and the
//! product varies the last axis fastest, so the plan's order depends on the file's content only. Every axis
//! value is checked against the scenario, alone and then in each combination of the plan, before anything runs;
//! an error names the grid file, the line of the value and the axis key.

use super::metrics::METRICS;
use crate::scenario;
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};
use toml::Spanned;

/// Most runs one grid may plan.
pub const MAX_RUNS: usize = 1_000_000;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GridFile {
    scenario: Spanned<String>,
    seeds: Option<Spanned<Seeds>>,
    metrics: Option<Spanned<Vec<String>>>,
    #[serde(default)]
    time_bins: bool,
    #[serde(default)]
    axes: BTreeMap<String, Spanned<Vec<Spanned<toml::Value>>>>,
    #[serde(default)]
    subgrid: Vec<SubGridFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SubGridFile {
    axes: BTreeMap<String, Spanned<Vec<Spanned<toml::Value>>>>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Seeds {
    Range(String),
    List(Vec<u64>),
}

/// A grid file's error: the file, the line (1-based; 0 when the whole file is at fault), the key, what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GridError {
    /// The grid file.
    pub file: String,
    /// The line, 0 for the whole file.
    pub line: usize,
    /// The key at fault, if any.
    pub key: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for GridError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if self.line > 0 {
            write!(f, ":{}", self.line)?;
        }
        if let Some(k) = &self.key {
            write!(f, ": `{k}`")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for GridError {}

/// One value of an axis: the `--set` it makes and the label results carry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AxisValue {
    /// `key=value`, the value written as a TOML literal.
    pub set: String,
    /// The value as results show it (strings without quotes).
    pub label: String,
}

/// One run of the plan: an axis value per axis (the grid's axis order; `None` where its sub-grid lacks the axis)
/// and a seed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlannedRun {
    /// Per axis of [`Grid::axes`].
    pub values: Vec<Option<AxisValue>>,
    /// The seed.
    pub seed: u64,
}

impl PlannedRun {
    /// The `--set` arguments of this run, the seed's last.
    pub fn sets(&self) -> Vec<String> {
        let mut sets: Vec<String> = self
            .values
            .iter()
            .flatten()
            .map(|v| v.set.clone())
            .collect();
        sets.push(format!("run.seed={}", self.seed));
        sets
    }
}

/// A validated grid.
#[derive(Clone, Debug)]
pub struct Grid {
    /// The grid file.
    pub path: PathBuf,
    /// The scenario file, resolved against the grid file's directory.
    pub scenario_path: PathBuf,
    /// The scenario's text.
    pub scenario_text: String,
    /// Every axis key, in order: the top-level ones, then those only sub-grids have.
    pub axes: Vec<String>,
    /// The metrics to keep (names of [`METRICS`]).
    pub metrics: Vec<String>,
    /// Also write every flow's throughput per time bin (results-bins.csv and .parquet).
    pub time_bins: bool,
    /// The runs, in plan order, without duplicates.
    pub runs: Vec<PlannedRun>,
}

/// Line (1-based) of byte `offset` in `text`.
fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

fn parse_seeds(spec: &Seeds) -> Result<Vec<u64>, String> {
    match spec {
        Seeds::List(v) if v.is_empty() => Err("no seeds".into()),
        Seeds::List(v) => Ok(v.clone()),
        Seeds::Range(r) => {
            let (a, b) = r.split_once("..").ok_or_else(|| {
                format!("`{r}`: expected FIRST..LAST (inclusive), e.g. \"1..20\", or a list")
            })?;
            let first: u64 = a
                .trim()
                .parse()
                .map_err(|_| format!("`{a}` is not a seed"))?;
            let last: u64 = b
                .trim()
                .parse()
                .map_err(|_| format!("`{b}` is not a seed"))?;
            if last < first {
                return Err(format!("`{r}`: the last seed is below the first"));
            }
            Ok((first..=last).collect())
        }
    }
}

fn axis_value(key: &str, v: &toml::Value) -> AxisValue {
    let label = match v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    AxisValue {
        set: format!("{key}={v}"),
        label,
    }
}

type Axes = BTreeMap<String, Spanned<Vec<Spanned<toml::Value>>>>;

/// Checked axes: each axis's index in the grid's axis order, with its values.
type AxisGroup = Vec<(usize, Vec<AxisValue>)>;

/// The product of `axes` (key, values), last varying fastest.
fn product(axes: &[(usize, Vec<AxisValue>)], width: usize) -> Vec<Vec<Option<AxisValue>>> {
    let mut out = vec![vec![None; width]];
    for (index, values) in axes {
        out = out
            .into_iter()
            .flat_map(|row| {
                values.iter().map(move |v| {
                    let mut r = row.clone();
                    r[*index] = Some(v.clone());
                    r
                })
            })
            .collect();
    }
    out
}

impl Grid {
    /// Read and check the grid at `path`.
    pub fn load(path: &Path) -> Result<Grid, GridError> {
        let file = path.display().to_string();
        let whole = |message: String| GridError {
            file: file.clone(),
            line: 0,
            key: None,
            message,
        };
        let text = std::fs::read_to_string(path).map_err(|e| whole(format!("cannot read: {e}")))?;
        Grid::parse(path, &text)
    }

    /// Check grid text; `path` names it and anchors the scenario's relative path.
    pub fn parse(path: &Path, text: &str) -> Result<Grid, GridError> {
        let file = path.display().to_string();
        let src = GridText { file: &file, text };
        let g: GridFile = toml::from_str(text).map_err(|e| {
            src.error_at(
                e.span().map_or(0, |s| s.start),
                None,
                e.message().to_string(),
            )
        })?;
        let dir = path.parent().unwrap_or(Path::new("."));
        let scenario_path = dir.join(g.scenario.get_ref());
        let scenario_text = std::fs::read_to_string(&scenario_path).map_err(|e| {
            let msg = format!("cannot read {}: {e}", scenario_path.display());
            src.error_at(g.scenario.span().start, Some("scenario"), msg)
        })?;
        let seeds = grid_seeds(&g, &src)?;
        let metrics = grid_metrics(&g, &src)?;
        let axes = axis_order(&g);
        let check = Checker {
            file: &file,
            text,
            scenario_path: &scenario_path,
            scenario_text: &scenario_text,
        };
        check.scenario(&[]).map_err(|e| {
            let msg = format!("the scenario itself is wrong: {e}");
            src.error_at(g.scenario.span().start, Some("scenario"), msg)
        })?;
        let groups = check.groups(&axes, &g)?;
        let runs = plan(&groups, axes.len(), &seeds, &src)?;
        check.combinations(&runs)?;
        Ok(Grid {
            path: path.to_path_buf(),
            scenario_path,
            scenario_text,
            axes,
            metrics,
            time_bins: g.time_bins,
            runs,
        })
    }
}

/// A grid file's name and text, to place errors.
struct GridText<'a> {
    file: &'a str,
    text: &'a str,
}

impl GridText<'_> {
    /// An error at byte `offset` of the text, about `key` if any.
    fn error_at(&self, offset: usize, key: Option<&str>, message: String) -> GridError {
        GridError {
            file: self.file.to_string(),
            line: line_of(self.text, offset),
            key: key.map(str::to_string),
            message,
        }
    }
}

/// The grid's seeds (default: seed 1).
fn grid_seeds(g: &GridFile, src: &GridText<'_>) -> Result<Vec<u64>, GridError> {
    Ok(match &g.seeds {
        None => vec![1],
        Some(s) => {
            parse_seeds(s.get_ref()).map_err(|m| src.error_at(s.span().start, Some("seeds"), m))?
        }
    })
}

/// The metrics to keep (default: all of [`METRICS`]); an unknown name is an error.
fn grid_metrics(g: &GridFile, src: &GridText<'_>) -> Result<Vec<String>, GridError> {
    Ok(match &g.metrics {
        None => METRICS.iter().map(|m| m.to_string()).collect(),
        Some(m) => {
            for name in m.get_ref() {
                if !METRICS.contains(&name.as_str()) {
                    let msg = format!("no metric `{name}` (metrics: {})", METRICS.join(", "));
                    return Err(src.error_at(m.span().start, Some("metrics"), msg));
                }
            }
            m.get_ref().clone()
        }
    })
}

/// Every axis key: the top-level ones in key order, then those only sub-grids have, in order of appearance.
fn axis_order(g: &GridFile) -> Vec<String> {
    let mut axes: Vec<String> = g.axes.keys().cloned().collect();
    for sub in &g.subgrid {
        for k in sub.axes.keys() {
            if !axes.contains(k) {
                axes.push(k.clone());
            }
        }
    }
    axes
}

/// The runs of `groups` (each the product of its axes, `width` of them in all) times `seeds`, in plan order
/// without duplicates; more than [`MAX_RUNS`] is an error.
fn plan(
    groups: &[AxisGroup],
    width: usize,
    seeds: &[u64],
    src: &GridText<'_>,
) -> Result<Vec<PlannedRun>, GridError> {
    let mut runs: Vec<PlannedRun> = Vec::new();
    // Membership only (the plan keeps its own order): a run planned twice runs once.
    let mut planned: BTreeSet<Vec<String>> = BTreeSet::new();
    for group in groups {
        for values in product(group, width) {
            for &seed in seeds {
                let run = PlannedRun {
                    values: values.clone(),
                    seed,
                };
                if planned.insert(run.sets()) {
                    runs.push(run);
                }
                if runs.len() > MAX_RUNS {
                    return Err(src.error_at(0, None, format!("more than {MAX_RUNS} runs")));
                }
            }
        }
    }
    Ok(runs)
}

/// Checks axis values against the scenario.
struct Checker<'a> {
    file: &'a str,
    text: &'a str,
    scenario_path: &'a Path,
    scenario_text: &'a str,
}

impl Checker<'_> {
    fn scenario(&self, sets: &[String]) -> Result<(), scenario::ScenarioError> {
        let name = self
            .scenario_path
            .file_stem()
            .map_or("scenario".into(), |s| s.to_string_lossy());
        let file = self.scenario_path.display().to_string();
        scenario::parse(&file, &name, self.scenario_text, sets).map(|_| ())
    }

    /// Each value of each axis, alone on the scenario: (axis index, values).
    fn axes(&self, order: &[String], axes: &Axes) -> Result<AxisGroup, GridError> {
        let mut out = Vec::new();
        for (key, values) in axes {
            let index = order
                .iter()
                .position(|k| k == key)
                .expect("every axis is in the order");
            if values.get_ref().is_empty() {
                return Err(GridError {
                    file: self.file.to_string(),
                    line: line_of(self.text, values.span().start),
                    key: Some(key.clone()),
                    message: "an axis needs at least one value".into(),
                });
            }
            let mut list = Vec::new();
            for v in values.get_ref() {
                let value = axis_value(key, v.get_ref());
                self.scenario(std::slice::from_ref(&value.set))
                    .map_err(|e| GridError {
                        file: self.file.to_string(),
                        line: line_of(self.text, v.span().start),
                        key: Some(key.clone()),
                        message: format!("value {}: {e}", v.get_ref()),
                    })?;
                list.push(value);
            }
            out.push((index, list));
        }
        Ok(out)
    }

    /// The axis groups of the plan, each checked: the top-level axes, or per sub-grid the top-level axes with
    /// the sub-grid's own (which replace those of the same key), in axis order.
    fn groups(&self, order: &[String], g: &GridFile) -> Result<Vec<AxisGroup>, GridError> {
        let top = self.axes(order, &g.axes)?;
        if g.subgrid.is_empty() {
            return Ok(vec![top]);
        }
        let mut groups = Vec::new();
        for sub in &g.subgrid {
            let mut group = top.clone();
            for (i, values) in self.axes(order, &sub.axes)? {
                group.retain(|(j, _)| *j != i);
                group.push((i, values));
            }
            group.sort_by_key(|(i, _)| *i);
            groups.push(group);
        }
        Ok(groups)
    }

    /// Every combination of the plan (seeds aside), on the scenario.
    fn combinations(&self, runs: &[PlannedRun]) -> Result<(), GridError> {
        let mut seen: BTreeSet<Vec<String>> = BTreeSet::new();
        for run in runs {
            let sets: Vec<String> = run.values.iter().flatten().map(|v| v.set.clone()).collect();
            if !seen.insert(sets.clone()) {
                continue;
            }
            self.scenario(&sets).map_err(|e| GridError {
                file: self.file.to_string(),
                line: 0,
                key: None,
                message: format!("the combination {}: {e}", sets.join(" ")),
            })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `text` as a grid file beside a small scenario (s.toml) and a wrong one (bad.toml), in a directory of the
    /// test's own (tests run in parallel).
    fn grid(text: &str) -> Result<Grid, GridError> {
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("convoy-grid-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let scenario = "[run]\nduration = \"1s\"\n[[link]]\nname = \"L\"\nbetween = [\"S\", \"A\"]\nrate = \"1Mbit\"\ndelay = \"1ms\"\n\
                        [[session]]\nname = \"S1\"\nsource = \"S\"\nreceivers = [{ node = \"A\" }]\n";
        std::fs::write(dir.join("s.toml"), scenario).unwrap();
        std::fs::write(
            dir.join("bad.toml"),
            "[run]\nduration = \"1s\"\n[[link]]\nbetween = [\"S\", \"A\"]\n",
        )
        .unwrap();
        let grid = Grid::parse(&dir.join("g.toml"), text);
        let _ = std::fs::remove_dir_all(&dir);
        grid
    }

    #[test]
    fn the_plan_is_the_product_of_the_axes_times_the_seeds_last_axis_fastest() {
        let g = grid(
            "scenario = \"s.toml\"\nseeds = \"1..2\"\n[axes]\n\"link.L.rate\" = [\"1Mbit\", \"2Mbit\"]\n\
             \"link.L.delay\" = [\"5ms\", \"10ms\"]\n",
        )
        .unwrap();
        assert_eq!(g.axes, ["link.L.delay", "link.L.rate"]);
        assert_eq!(g.runs.len(), 8);
        assert_eq!(
            g.runs[0].sets(),
            [
                "link.L.delay=\"5ms\"",
                "link.L.rate=\"1Mbit\"",
                "run.seed=1"
            ]
        );
        assert_eq!(g.runs[1].seed, 2);
        assert_eq!(g.runs[2].values[1].as_ref().unwrap().label, "2Mbit");
        assert_eq!(g.metrics.len(), METRICS.len());
    }

    #[test]
    fn sub_grids_union_with_the_top_level_axes_and_duplicates_go() {
        let g = grid(
            "scenario = \"s.toml\"\nseeds = [3]\n[axes]\n\"link.L.rate\" = [\"1Mbit\"]\n\
             [[subgrid]]\naxes = { \"session.S1.cc\" = [\"tfmcc\", \"aimd\"] }\n\
             [[subgrid]]\naxes = { \"session.S1.cc\" = [\"aimd\"], \"link.L.rate\" = [\"1Mbit\", \"3Mbit\"] }\n",
        )
        .unwrap();
        let labels: Vec<String> = g
            .runs
            .iter()
            .map(|r| {
                r.values
                    .iter()
                    .map(|v| v.as_ref().unwrap().label.clone())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        assert_eq!(labels, ["1Mbit tfmcc", "1Mbit aimd", "3Mbit aimd"]);
    }

    #[test]
    fn a_bad_value_is_named_with_its_line_and_axis() {
        let e = grid(
            "scenario = \"s.toml\"\n[axes]\n\"link.L.rate\" = [\n  \"1Mbit\",\n  \"2Mbt\",\n]\n",
        )
        .unwrap_err();
        assert_eq!((e.line, e.key.as_deref()), (5, Some("link.L.rate")), "{e}");
        assert!(e.to_string().contains("2Mbt"), "{e}");
        let e = grid("scenario = \"s.toml\"\n[axes]\n\"link.X.rate\" = [\"1Mbit\"]\n").unwrap_err();
        assert_eq!(e.line, 3, "{e}");
        let e = grid("scenario = \"s.toml\"\nseeds = \"5..1\"\n").unwrap_err();
        assert_eq!((e.line, e.key.as_deref()), (2, Some("seeds")));
        let e = grid("scenario = \"s.toml\"\nmetrics = [\"speed\"]\n").unwrap_err();
        assert!(e.to_string().contains("no metric `speed`"), "{e}");
        let e = grid("scenario = \"s.toml\"\nsurprise = 1\n").unwrap_err();
        assert_eq!(e.line, 2, "{e}");
        let e = grid("scenario = \"bad.toml\"\n").unwrap_err();
        assert!(
            e.to_string().contains("the scenario itself is wrong"),
            "{e}"
        );
        let e = grid("scenario = \"missing.toml\"\n").unwrap_err();
        assert_eq!((e.line, e.key.as_deref()), (1, Some("scenario")));
    }
}
