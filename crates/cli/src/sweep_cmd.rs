//! `convoy sweep`: a grid file's runs on all cores, with a progress bar and the long table (docs/sweep.md).

use convoy_experiments::sweep::{self, SweepOptions, SweepProgress};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `convoy sweep`.
#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct SweepArgs {
    #[command(subcommand)]
    command: Option<SweepCommand>,
    /// The grid file (TOML: a scenario, axes of `--set` values, seeds, metrics; docs/sweep.md).
    #[arg(required = true)]
    grid: Option<PathBuf>,
    /// Output directory: runs/ID/ per run and results.csv (default out/sweep/GRID_STEM).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Runs at once (default: the number of cores).
    #[arg(long)]
    jobs: Option<usize>,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    /// Do not run here: write a Slurm job array into this shared directory (tasks, sweep.sbatch), after timing
    /// one run to size the tasks; submit with `sbatch DIR/sweep.sbatch`, then `convoy sweep collect DIR`.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["task", "out"])]
    slurm: Option<PathBuf>,
    /// With --slurm: wall time one array task should take, minutes (runs are packed to fill it).
    #[arg(long, default_value_t = 5.0, requires = "slurm")]
    task_minutes: f64,
    /// With --slurm: array tasks running at once (`--array=0-M%P`).
    #[arg(long, default_value_t = 64, requires = "slurm")]
    slurm_parallel: usize,
    /// Run only the plan indices this file lists (an array task's share; written by --slurm).
    #[arg(long, value_name = "FILE")]
    task: Option<PathBuf>,
}

/// What else `convoy sweep` does.
#[derive(clap::Subcommand, Debug)]
enum SweepCommand {
    /// Draw a metric of a sweep's results against one axis: one line per value of the other axes, the mean over
    /// seeds with its 95% interval (SVG), and print the points.
    Plot {
        /// The sweep's output directory or its results.csv.
        results: PathBuf,
        /// The metric (goodput_bps, drops, ...; docs/sweep.md).
        #[arg(long)]
        metric: String,
        /// The axis along x (a grid axis key, e.g. link.L1.rate).
        #[arg(long)]
        x: String,
        /// Only this flow, receiver (flow/receiver) or link direction.
        #[arg(long)]
        id: Option<String>,
        /// The SVG file (default: METRIC-vs-AXIS.svg beside results.csv).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Gather a Slurm sweep's runs (convoy sweep GRID --slurm DIR) into DIR/results.csv, the table a local run of
    /// the grid writes; name the runs missing or failed (exit 2 if any).
    Collect {
        /// The sweep's shared directory.
        dir: PathBuf,
        /// Also write DIR/resubmit.sbatch for the runs missing or failed.
        #[arg(long)]
        resubmit: bool,
        /// With --resubmit: array tasks running at once.
        #[arg(long, default_value_t = 64)]
        slurm_parallel: usize,
    },
}

/// A bar of runs on standard error with an ETA.
struct RunsBar(Option<ProgressBar>);

impl SweepProgress for RunsBar {
    fn planned(&mut self, total: usize, to_run: usize) {
        let Some(bar) = &self.0 else { return };
        eprintln!(
            "{total} runs planned, {} done before, {to_run} to run",
            total - to_run
        );
        bar.set_length(to_run as u64);
        bar.set_style(
            ProgressStyle::with_template(
                "[{bar:30}] {pos}/{len} runs, {elapsed} (ETA {eta}) {msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        bar.set_draw_target(ProgressDrawTarget::stderr());
    }

    fn run_done(&mut self, failed: bool) {
        let Some(bar) = &self.0 else { return };
        bar.inc(1);
        if failed {
            bar.set_message("(some failed)");
        }
    }
}

/// Run `convoy sweep`: exit 0 when every run has a result, 2 when some failed, 1 when the grid is wrong.
pub fn run(args: &SweepArgs) -> ExitCode {
    if let Some(SweepCommand::Plot {
        results,
        metric,
        x,
        id,
        out,
    }) = &args.command
    {
        return plot(results, metric, x, id.clone(), out.clone());
    }
    if let Some(SweepCommand::Collect {
        dir,
        resubmit,
        slurm_parallel,
    }) = &args.command
    {
        return collect(dir, *resubmit, *slurm_parallel);
    }
    let Some(grid) = &args.grid else {
        eprintln!("convoy sweep: a grid file is needed");
        return ExitCode::from(1);
    };
    if let Some(dir) = &args.slurm {
        return slurm(grid, dir, args.task_minutes, args.slurm_parallel);
    }
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let opts = SweepOptions {
        grid: grid.clone(),
        out: args.out.clone(),
        jobs,
        task: args.task.clone(),
    };
    let mut bar = RunsBar(
        (!args.quiet).then(|| ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden())),
    );
    let report = match sweep::run(&opts, &mut bar) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("convoy sweep: {e}");
            return ExitCode::from(1);
        }
    };
    if let Some(b) = &bar.0 {
        b.finish_and_clear();
    }
    for (id, error) in &report.failed {
        eprintln!("run {id} failed: {error}");
    }
    println!(
        "{} runs: {} run now, {} reused, {} failed; {} rows in {}",
        report.total,
        report.ran,
        report.reused,
        report.failed.len(),
        report.rows,
        report.results.display()
    );
    if report.failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
    }
}

fn plot(
    results: &Path,
    metric: &str,
    x: &str,
    id: Option<String>,
    out: Option<PathBuf>,
) -> ExitCode {
    let dir = if results.is_dir() {
        results
    } else {
        results.parent().unwrap_or(Path::new("."))
    };
    let file = format!("{metric}-vs-{x}.svg").replace(['/', ':'], "_");
    let req = sweep::plot::PlotRequest {
        results: results.to_path_buf(),
        metric: metric.to_string(),
        x: x.to_string(),
        id,
        out: out.unwrap_or_else(|| dir.join(file)),
    };
    match sweep::plot::plot(&req) {
        Ok(series) => {
            print!("{}", sweep::plot::table(&series));
            println!("wrote {}", req.out.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("convoy sweep plot: {e}");
            ExitCode::from(1)
        }
    }
}

fn convoy_exe() -> PathBuf {
    std::env::current_exe().unwrap_or_else(|_| PathBuf::from("convoy"))
}

fn slurm(grid: &Path, dir: &Path, task_minutes: f64, parallel: usize) -> ExitCode {
    let opts = sweep::slurm::SlurmOptions {
        grid: grid.to_path_buf(),
        dir: dir.to_path_buf(),
        task_minutes,
        parallel,
        convoy: convoy_exe(),
    };
    match sweep::slurm::prepare(&opts) {
        Ok(p) => {
            println!(
                "{} runs, {} left for the cluster: one run took {:.2} s here, so {} runs per task, {} array tasks",
                p.total, p.to_run, p.seconds_per_run, p.runs_per_task, p.tasks
            );
            println!("submit: sbatch {}", p.script.display());
            println!("then:   convoy sweep collect {}", dir.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("convoy sweep: {e}");
            ExitCode::from(1)
        }
    }
}

fn collect(dir: &Path, resubmit: bool, parallel: usize) -> ExitCode {
    let opts = sweep::slurm::SlurmOptions {
        grid: PathBuf::new(),
        dir: dir.to_path_buf(),
        task_minutes: 0.0,
        parallel,
        convoy: convoy_exe(),
    };
    match sweep::slurm::collect(dir, resubmit.then_some(&opts)) {
        Ok(c) => {
            for (id, e) in &c.failed {
                eprintln!("run {id} failed: {e}");
            }
            for id in &c.missing {
                eprintln!(
                    "run {id} missing (no result, no error: its task did not run or was killed)"
                );
            }
            println!(
                "{} runs: {} complete, {} failed, {} missing; wrote {}",
                c.total,
                c.complete,
                c.failed.len(),
                c.missing.len(),
                c.results.display()
            );
            if let Some(script) = &c.resubmit {
                println!("resubmit: sbatch {}", script.display());
            }
            if c.complete == c.total {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(2)
            }
        }
        Err(e) => {
            eprintln!("convoy sweep collect: {e}");
            ExitCode::from(1)
        }
    }
}
