//! A sweep on a Slurm cluster (docs/sweep.md, "On a Slurm cluster"): the plan as one job array whose tasks each
//! run a share of the runs sized to take minutes, and the collection of what the tasks wrote.
//!
//! [`prepare`] times one run here (its result is kept), packs the runs still without a result into tasks of
//! about `task_minutes` each (schedulers handle thousands of tiny jobs badly), and writes into the shared
//! directory `DIR`: `tasks/task-K.txt` (the plan indices of task K), `sweep.json` (the grid and the build) and
//! `sweep.sbatch` (`#SBATCH --array=0-(M−1)%P`), each task running `convoy sweep GRID --out DIR --task
//! DIR/tasks/task-$SLURM_ARRAY_TASK_ID.txt --jobs 1`. Tasks write their runs under `DIR/runs/` and their rows to
//! `DIR/shards/task-K.csv`. [`collect`] reads every run of the plan, writes `DIR/results.csv` — the very table a
//! local sweep of the grid writes, since both come from the same per-run summaries (and results.parquet) — and
//! reports the runs missing or failed, with each failure's error; asked to, it writes `resubmit.sbatch` for those runs only.

use super::{grid::Grid, plan_ids, read_summary, run_one, table, SweepError};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// How to write the job array.
#[derive(Clone, Debug)]
pub struct SlurmOptions {
    /// The grid file.
    pub grid: PathBuf,
    /// The directory the cluster's nodes share (runs, shards, tasks, scripts).
    pub dir: PathBuf,
    /// Wall time one task should take, minutes.
    pub task_minutes: f64,
    /// Tasks running at once (`%P` of `--array`).
    pub parallel: usize,
    /// The `convoy` executable the tasks run (on the shared file system).
    pub convoy: PathBuf,
}

/// What [`prepare`] wrote.
#[derive(Clone, Debug, PartialEq)]
pub struct SlurmPlan {
    /// Runs in the plan.
    pub total: usize,
    /// Runs left to the cluster.
    pub to_run: usize,
    /// Seconds the timed run took.
    pub seconds_per_run: f64,
    /// Runs per task.
    pub runs_per_task: usize,
    /// Array tasks.
    pub tasks: usize,
    /// The script to `sbatch`.
    pub script: PathBuf,
}

/// What [`collect`] found.
#[derive(Clone, Debug, PartialEq)]
pub struct Collected {
    /// Runs in the plan.
    pub total: usize,
    /// Runs with a result.
    pub complete: usize,
    /// Runs that failed: (id, error).
    pub failed: Vec<(String, String)>,
    /// Runs with neither a result nor an error: their ids.
    pub missing: Vec<String>,
    /// results.csv.
    pub results: PathBuf,
    /// The resubmission script, when asked for and needed.
    pub resubmit: Option<PathBuf>,
}

fn io(context: impl std::fmt::Display) -> impl FnOnce(std::io::Error) -> SweepError {
    move |e| SweepError::Io(format!("{context}: {e}"))
}

fn absolute(p: &Path) -> Result<PathBuf, SweepError> {
    std::path::absolute(p).map_err(io(format!("resolving {}", p.display())))
}

/// Time one run here, pack the rest into tasks and write the job array (module docs).
pub fn prepare(opts: &SlurmOptions) -> Result<SlurmPlan, SweepError> {
    let grid = Grid::load(&opts.grid).map_err(SweepError::Grid)?;
    let dir = absolute(&opts.dir)?;
    let runs_dir = dir.join("runs");
    std::fs::create_dir_all(&runs_dir).map_err(io(format!("creating {}", runs_dir.display())))?;
    let ids = plan_ids(&grid);
    let mut todo = super::without_summary(&ids, 0..ids.len(), &runs_dir);
    let mut seconds_per_run = 0.0;
    if let Some(&first) = todo.first() {
        let started = std::time::Instant::now();
        // A failed run is the cluster's to retry; its time still sizes the tasks.
        let _ = run_one(&grid, &grid.runs[first], &runs_dir.join(&ids[first]));
        seconds_per_run = started.elapsed().as_secs_f64();
        todo = super::without_summary(&ids, todo.into_iter(), &runs_dir);
    }
    let runs_per_task = ((opts.task_minutes * 60.0 / seconds_per_run.max(1e-3)) as usize).max(1);
    let script = write_array(&grid, &dir, &todo, runs_per_task, opts, "sweep")?;
    let about = serde_json::json!({
        "grid": absolute(&opts.grid)?.display().to_string(),
        "build": super::build_id(),
        "runs": ids.len(),
        "runs_per_task": runs_per_task,
    });
    let about_path = dir.join("sweep.json");
    std::fs::write(&about_path, format!("{about:#}\n"))
        .map_err(io(format!("writing {}", about_path.display())))?;
    Ok(SlurmPlan {
        total: ids.len(),
        to_run: todo.len(),
        seconds_per_run,
        runs_per_task,
        tasks: todo.len().div_ceil(runs_per_task),
        script,
    })
}

/// Write `DIR/<name>-tasks/task-K.txt` for `todo` in chunks of `per_task`, and `DIR/<name>.sbatch`.
fn write_array(
    grid: &Grid,
    dir: &Path,
    todo: &[usize],
    per_task: usize,
    opts: &SlurmOptions,
    name: &str,
) -> Result<PathBuf, SweepError> {
    let tasks_dir = dir.join(format!("{name}-tasks"));
    let _ = std::fs::remove_dir_all(&tasks_dir);
    std::fs::create_dir_all(&tasks_dir).map_err(io(format!("creating {}", tasks_dir.display())))?;
    std::fs::create_dir_all(dir.join("logs")).map_err(io("creating logs"))?;
    let chunks: Vec<&[usize]> = todo.chunks(per_task).collect();
    for (k, chunk) in chunks.iter().enumerate() {
        let text: String = chunk.iter().map(|i| format!("{i}\n")).collect();
        let path = tasks_dir.join(format!("task-{k}.txt"));
        std::fs::write(&path, text).map_err(io(format!("writing {}", path.display())))?;
    }
    let grid_path = absolute(&grid.path)?;
    let convoy = absolute(&opts.convoy)?;
    let mut s = String::from("#!/bin/bash\n");
    let _ = writeln!(
        s,
        "# convoy sweep {} as a Slurm job array: `sbatch {name}.sbatch`,",
        grid_path.display()
    );
    let _ = writeln!(s, "# then `convoy sweep collect {}`.", dir.display());
    let _ = writeln!(s, "#SBATCH --job-name=convoy-sweep");
    if !chunks.is_empty() {
        let last = chunks.len() - 1;
        let _ = writeln!(s, "#SBATCH --array=0-{last}%{}", opts.parallel.max(1));
    }
    let _ = writeln!(s, "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1");
    let _ = writeln!(s, "#SBATCH --output={}/logs/{name}-%a.out", dir.display());
    let _ = writeln!(s, "set -euo pipefail");
    let _ = writeln!(
        s,
        "exec '{}' sweep '{}' --out '{}' --task '{}/task-'\"$SLURM_ARRAY_TASK_ID\"'.txt' --jobs 1 --quiet",
        convoy.display(),
        grid_path.display(),
        dir.display(),
        tasks_dir.display()
    );
    let path = dir.join(format!("{name}.sbatch"));
    std::fs::write(&path, s).map_err(io(format!("writing {}", path.display())))?;
    Ok(path)
}

/// Read every run of the sweep in `dir`, write `dir/results.csv`, and with `resubmit` write a job array for the
/// runs missing or failed (module docs). The grid comes from `dir/sweep.json`.
pub fn collect(dir: &Path, resubmit: Option<&SlurmOptions>) -> Result<Collected, SweepError> {
    let about_path = dir.join("sweep.json");
    let about: serde_json::Value = std::fs::read_to_string(&about_path)
        .map_err(io(format!("reading {}", about_path.display())))
        .and_then(|t| {
            serde_json::from_str(&t)
                .map_err(|e| SweepError::Io(format!("{}: {e}", about_path.display())))
        })?;
    let grid_path = about["grid"]
        .as_str()
        .ok_or_else(|| SweepError::Io(format!("{}: no `grid`", about_path.display())))?;
    let grid = Grid::load(Path::new(grid_path)).map_err(SweepError::Grid)?;
    let ids = plan_ids(&grid);
    let runs_dir = dir.join("runs");
    let (mut failed, mut missing, mut redo) = (Vec::new(), Vec::new(), Vec::new());
    for (i, id) in ids.iter().enumerate() {
        let run = runs_dir.join(id);
        if read_summary(&run).is_some() {
            continue;
        }
        redo.push(i);
        match std::fs::read_to_string(run.join("error.txt")) {
            Ok(e) => failed.push((id.clone(), e.trim().to_string())),
            Err(_) => missing.push(id.clone()),
        }
    }
    let all: Vec<usize> = (0..ids.len()).collect();
    let (results, _) = table::write_tables(dir, &grid, &ids, &all, &runs_dir)?;
    let resubmit = match resubmit {
        Some(opts) if !redo.is_empty() => {
            let per_task = about["runs_per_task"]
                .as_u64()
                .map_or(redo.len(), |n| n as usize)
                .max(1);
            Some(write_array(
                &grid,
                &absolute(dir)?,
                &redo,
                per_task,
                opts,
                "resubmit",
            )?)
        }
        _ => None,
    };
    Ok(Collected {
        total: ids.len(),
        complete: ids.len() - redo.len(),
        failed,
        missing,
        results,
        resubmit,
    })
}
