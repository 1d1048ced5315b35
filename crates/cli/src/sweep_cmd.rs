//! `convoy sweep`: a grid file's runs on all cores, with a progress bar and the long table (docs/sweep.md).

use convoy_experiments::sweep::{self, SweepOptions, SweepProgress};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `convoy sweep`.
#[derive(clap::Args, Debug)]
pub struct SweepArgs {
    /// The grid file (TOML: a scenario, axes of `--set` values, seeds, metrics; docs/sweep.md).
    grid: PathBuf,
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
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let opts = SweepOptions {
        grid: args.grid.clone(),
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
