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
    /// Output directory: runs/<id>/ per run and results.csv (default out/sweep/<grid stem>).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Runs at once (default: the number of cores).
    #[arg(long)]
    jobs: Option<usize>,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
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
        /// The SVG file (default: <metric>-vs-<axis>.svg beside results.csv).
        #[arg(long)]
        out: Option<PathBuf>,
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
    let Some(grid) = &args.grid else {
        eprintln!("convoy sweep: a grid file is needed");
        return ExitCode::from(1);
    };
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let opts = SweepOptions {
        grid: grid.clone(),
        out: args.out.clone(),
        jobs,
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
