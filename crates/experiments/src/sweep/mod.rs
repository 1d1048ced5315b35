//! `convoy sweep`: a grid of scenario variants × seeds (docs/sweep.md), run on all cores, resumable, with the
//! results as one long table.
//!
//! * [`grid`] — grid files and the plan they expand to, checked against the scenario before anything runs.
//! * [`metrics`] — what a run's summary.json contributes to the table.
//! * [`plot`] — a metric against an axis from the table, mean and 95% interval over seeds, as SVG.
//! * [`table`] — the long table, as CSV and Parquet.
//! * [`slurm`] — the same plan as a Slurm job array packed into tasks of minutes, and the collection of its
//!   results.
//!
//! Each run is stored under `OUT/runs/<id>/` (summary.json, run.json, or error.txt when it failed). Its id is
//! a hash of the build of Convoy running it, the scenario's text and the run's `--set` arguments with its seed
//! ([`run_id`]): a sweep started again runs only what has no summary yet, and results of another build are
//! never mixed in (their ids differ). The table, `OUT/results.csv`, has one row per run × flow, receiver or link
//! direction × metric, with every axis and the seed as columns, in plan order.

pub mod grid;
pub mod metrics;
pub mod plot;
pub mod slurm;
pub mod table;

use crate::scenario;
use crate::simrun::{self, summary::Summary};
use grid::{Grid, PlannedRun};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, OnceLock};

/// What `convoy sweep` was asked to do.
#[derive(Clone, Debug)]
pub struct SweepOptions {
    /// The grid file.
    pub grid: PathBuf,
    /// Output directory (default `out/sweep/<grid stem>`).
    pub out: Option<PathBuf>,
    /// Runs at once (at least 1).
    pub jobs: usize,
    /// Run only the plan indices this file lists (one per line: a Slurm array task's share, written by
    /// [`slurm::prepare`]), and write their rows to `OUT/shards/<file stem>.csv` instead of results.csv.
    pub task: Option<PathBuf>,
}

/// Told how a sweep advances (the `convoy` command draws a progress bar from it).
pub trait SweepProgress {
    /// `total` runs planned, `to_run` of them without a result yet.
    fn planned(&mut self, total: usize, to_run: usize);
    /// One more run ended, with an error or not.
    fn run_done(&mut self, failed: bool);
}

impl SweepProgress for () {
    fn planned(&mut self, _: usize, _: usize) {}
    fn run_done(&mut self, _: bool) {}
}

/// What a sweep did.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepReport {
    /// The output directory.
    pub out: PathBuf,
    /// Runs in the plan.
    pub total: usize,
    /// Runs made now.
    pub ran: usize,
    /// Runs whose results were there already.
    pub reused: usize,
    /// Runs that failed: (id, error), in plan order.
    pub failed: Vec<(String, String)>,
    /// The long table.
    pub results: PathBuf,
    /// Rows in it.
    pub rows: usize,
}

/// Why a sweep could not run at all.
#[derive(Debug)]
pub enum SweepError {
    /// The grid file is wrong.
    Grid(grid::GridError),
    /// Writing or reading the output directory.
    Io(String),
}

impl std::fmt::Display for SweepError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SweepError::Grid(e) => write!(f, "{e}"),
            SweepError::Io(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for SweepError {}

fn io(context: impl std::fmt::Display) -> impl FnOnce(std::io::Error) -> SweepError {
    move |e| SweepError::Io(format!("{context}: {e}"))
}

static BUILD_ID: OnceLock<String> = OnceLock::new();

/// Name this build for [`run_id`] when the running executable is not Convoy's: the Python package passes the
/// hash of its extension module, as the interpreter's would not change with Convoy. Takes effect only before the
/// first run id is made; returns whether it did.
pub fn set_build_id(id: String) -> bool {
    BUILD_ID.set(id).is_ok()
}

/// This build of Convoy: a hash of the running executable (so that a rebuild, even of the same version, starts
/// new runs), or the package version when the executable cannot be read; or what [`set_build_id`] set.
pub fn build_id() -> &'static str {
    BUILD_ID.get_or_init(|| {
        let exe = std::env::current_exe().and_then(std::fs::read);
        match exe {
            Ok(bytes) => blake3::hash(&bytes).to_hex()[..16].to_string(),
            Err(_) => format!("v{}", env!("CARGO_PKG_VERSION")),
        }
    })
}

/// A run's id: the hash of the build, the scenario's text and the run's `--set` arguments (its seed last).
pub fn run_id(scenario_text: &str, sets: &[String]) -> String {
    let mut h = blake3::Hasher::new();
    h.update(build_id().as_bytes());
    h.update(&[0]);
    h.update(scenario_text.as_bytes());
    for s in sets {
        h.update(&[0]);
        h.update(s.as_bytes());
    }
    h.finalize().to_hex()[..16].to_string()
}

/// The ids of the grid's runs, in plan order ([`run_id`]).
pub fn plan_ids(grid: &Grid) -> Vec<String> {
    grid.runs
        .iter()
        .map(|r| run_id(&grid.scenario_text, &r.sets()))
        .collect()
}

/// The indices in `among` whose run has no summary in `runs_dir` yet.
pub(crate) fn without_summary(
    ids: &[String],
    among: impl Iterator<Item = usize>,
    runs_dir: &Path,
) -> Vec<usize> {
    // summary.json appears whole or not at all (`run_one` renames it into place): its presence is enough, and
    // the tables read each summary once.
    among
        .filter(|&i| !runs_dir.join(&ids[i]).join("summary.json").is_file())
        .collect()
}

/// The plan indices a task file lists.
fn read_task(path: &Path, runs: usize) -> Result<Vec<usize>, SweepError> {
    let text = std::fs::read_to_string(path).map_err(io(format!("reading {}", path.display())))?;
    let mut out = Vec::new();
    for (n, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        match line.trim().parse::<usize>() {
            Ok(i) if i < runs => out.push(i),
            _ => {
                let msg = format!(
                    "{}:{}: `{line}` is not a run of the plan (0..{runs})",
                    path.display(),
                    n + 1
                );
                return Err(SweepError::Io(msg));
            }
        }
    }
    Ok(out)
}

/// Run the grid (or a task's share of it): every run without a summary, `jobs` at once; then write the table
/// (a task: its shard).
pub fn run(
    opts: &SweepOptions,
    progress: &mut dyn SweepProgress,
) -> Result<SweepReport, SweepError> {
    let grid = Grid::load(&opts.grid).map_err(SweepError::Grid)?;
    run_grid(&grid, opts, progress)
}

/// [`run`] on a grid already loaded (the Python package's `convoy.sweep` takes one as text or a dict, parsed with
/// [`Grid::parse`]); `opts.grid` then only names the default output directory.
pub fn run_grid(
    grid: &Grid,
    opts: &SweepOptions,
    progress: &mut dyn SweepProgress,
) -> Result<SweepReport, SweepError> {
    let out = opts.out.clone().unwrap_or_else(|| {
        let stem = opts
            .grid
            .file_stem()
            .map_or("grid".into(), |s| s.to_string_lossy());
        Path::new("out").join("sweep").join(stem.as_ref())
    });
    let runs_dir = out.join("runs");
    std::fs::create_dir_all(&runs_dir).map_err(io(format!("creating {}", runs_dir.display())))?;
    let ids = plan_ids(grid);
    let share: Vec<usize> = match &opts.task {
        Some(task) => read_task(task, ids.len())?,
        None => (0..ids.len()).collect(),
    };
    let todo = without_summary(&ids, share.iter().copied(), &runs_dir);
    progress.planned(share.len(), todo.len());
    let outcomes = execute(grid, &ids, &todo, &runs_dir, opts.jobs.max(1), progress);
    let failed = todo
        .iter()
        .filter_map(|&i| match &outcomes[i] {
            Some(Err(e)) => Some((ids[i].clone(), e.clone())),
            _ => None,
        })
        .collect();
    let (results, rows) = match &opts.task {
        Some(task) => {
            let shards = out.join("shards");
            std::fs::create_dir_all(&shards)
                .map_err(io(format!("creating {}", shards.display())))?;
            let stem = task
                .file_stem()
                .map_or("task".into(), |s| s.to_string_lossy());
            let path = shards.join(format!("{stem}.csv"));
            let rows = table::rows(grid, &ids, &share, &runs_dir);
            let csv = table::to_csv(&grid.axes, &rows);
            std::fs::write(&path, csv).map_err(io(format!("writing {}", path.display())))?;
            (path, rows.len())
        }
        None => table::write_tables(&out, grid, &ids, &share, &runs_dir)?,
    };
    Ok(SweepReport {
        out,
        total: share.len(),
        ran: todo.len(),
        reused: share.len() - todo.len(),
        failed,
        results,
        rows,
    })
}

/// The runs `todo` (indices into the plan) on `jobs` threads; each writes its own directory. Outcomes by index.
pub(crate) fn execute(
    grid: &Grid,
    ids: &[String],
    todo: &[usize],
    runs_dir: &Path,
    jobs: usize,
    progress: &mut dyn SweepProgress,
) -> Vec<Option<Result<(), String>>> {
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<(usize, Result<(), String>)>();
    let mut outcomes = vec![None; ids.len()];
    std::thread::scope(|scope| {
        for _ in 0..jobs.min(todo.len()) {
            let tx = tx.clone();
            let next = &next;
            scope.spawn(move || loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                let Some(&i) = todo.get(k) else { break };
                let outcome = run_one(grid, &grid.runs[i], &runs_dir.join(&ids[i]));
                if tx.send((i, outcome)).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        for (i, outcome) in rx {
            progress.run_done(outcome.is_err());
            outcomes[i] = Some(outcome);
        }
    });
    outcomes
}

/// One run into `dir`: run.json first, then summary.json, or error.txt.
pub(crate) fn run_one(grid: &Grid, run: &PlannedRun, dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    let sets = run.sets();
    let about = serde_json::json!({
        "scenario": grid.scenario_path.display().to_string(),
        "sets": sets,
        "seed": run.seed,
        "build": build_id(),
    });
    let write = |name: &str, body: String| {
        std::fs::write(dir.join(name), body).map_err(|e| format!("writing {name}: {e}"))
    };
    write("run.json", format!("{about:#}\n"))?;
    let _ = std::fs::remove_file(dir.join("error.txt"));
    let outcome = (|| {
        let file = grid.scenario_path.display().to_string();
        let name = grid
            .scenario_path
            .file_stem()
            .map_or("scenario".into(), |s| s.to_string_lossy());
        let s =
            scenario::parse(&file, &name, &grid.scenario_text, &sets).map_err(|e| e.to_string())?;
        let summary = simrun::summarize_run(&s).map_err(|e| e.to_string())?;
        let json = serde_json::to_string_pretty(&summary).map_err(|e| e.to_string())?;
        write("summary.json.tmp", json + "\n")?;
        std::fs::rename(dir.join("summary.json.tmp"), dir.join("summary.json"))
            .map_err(|e| format!("renaming summary.json.tmp: {e}"))
    })();
    if let Err(e) = &outcome {
        write("error.txt", format!("{e}\n"))?;
    }
    outcome
}

pub(crate) fn read_summary(dir: &Path) -> Option<Summary> {
    let text = std::fs::read_to_string(dir.join("summary.json")).ok()?;
    serde_json::from_str(&text).ok()
}
