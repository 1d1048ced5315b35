//! `convoy bench sweep`: what `convoy sweep`'s machinery costs per run — planning and checking the grid, content
//! ids, a thread per job, summary.json and run.json per run, the results table — against running the same
//! scenarios one by one in this process (issue 17: under 5% on runs of one second, all cores busy).
//!
//! The runs are scenarios/bench/dumbbell-10.toml (compiled in) with its duration scaled so that one run takes
//! about `run_seconds` here (timed first), and seeds 1..N. Figures:
//! - one by one: the runs in sequence, each simulated alone (the baseline, Σ Tᵢ; measured before and after the
//!   sweeps, the faster kept);
//! - sweep, one job: `convoy sweep --jobs 1` on the same grid; its overhead is its wall time over Σ Tᵢ, minus 1;
//! - sweep, all cores: `--jobs J`, against the ideal Σ Tᵢ / J. On few cores the simulations themselves slow down
//!   when they share the memory bus, which this figure includes and the one-job figure does not.

use crate::scenario;
use crate::simrun::summarize_run;
use crate::sweep::{self, SweepOptions};
use serde::Serialize;
use std::time::Instant;

const SCENARIO: &str = include_str!("../../../../scenarios/bench/dumbbell-10.toml");

/// The benchmark's figures.
#[derive(Clone, Debug, Serialize)]
pub struct SweepBench {
    /// Runs.
    pub runs: usize,
    /// Simulated seconds per run.
    pub simulated_s: f64,
    /// Σ of the runs' wall times, one by one, seconds.
    pub one_by_one_s: f64,
    /// `--jobs 1` wall time, seconds.
    pub sweep_one_job_s: f64,
    /// Its overhead over one by one.
    pub one_job_overhead: f64,
    /// Jobs of the parallel sweep.
    pub jobs: usize,
    /// Its wall time, seconds.
    pub sweep_all_cores_s: f64,
    /// Its overhead over Σ Tᵢ / jobs.
    pub all_cores_overhead: f64,
}

fn scratch() -> Result<std::path::PathBuf, String> {
    let dir = std::env::temp_dir().join(format!("convoy-bench-sweep-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(dir)
}

/// Run the benchmark with `runs` runs of about `run_seconds` each and `jobs` jobs for the parallel sweep.
pub fn run(runs: usize, run_seconds: f64, jobs: usize) -> Result<SweepBench, String> {
    let dir = scratch()?;
    let scenario_path = dir.join("dumbbell-10.toml");
    std::fs::write(&scenario_path, SCENARIO).map_err(|e| e.to_string())?;
    let parse = |sets: &[String]| {
        scenario::parse("dumbbell-10.toml", "dumbbell-10", SCENARIO, sets)
            .map_err(|e| e.to_string())
    };
    // Calibrate: one run of the file's duration.
    let base = parse(&[])?;
    let t = Instant::now();
    summarize_run(&base).map_err(|e| e.to_string())?;
    let per_sim_s = t.elapsed().as_secs_f64() / base.duration.as_secs_f64();
    let simulated_s = (run_seconds / per_sim_s).round().max(1.0);
    let duration = format!("run.duration={simulated_s}s");
    let one_by_one = || -> Result<f64, String> {
        let mut total = 0.0;
        for seed in 1..=runs {
            let s = parse(&[duration.clone(), format!("run.seed={seed}")])?;
            let t = Instant::now();
            summarize_run(&s).map_err(|e| e.to_string())?;
            total += t.elapsed().as_secs_f64();
        }
        Ok(total)
    };
    let before = one_by_one()?;
    let grid = dir.join("grid.toml");
    let text = format!(
        "scenario = \"dumbbell-10.toml\"\nseeds = \"1..{runs}\"\n[axes]\n\"run.duration\" = [\"{simulated_s}s\"]\n"
    );
    std::fs::write(&grid, text).map_err(|e| e.to_string())?;
    let sweep_with = |jobs: usize, out: &str| -> Result<f64, String> {
        let opts = SweepOptions {
            grid: grid.clone(),
            out: Some(dir.join(out)),
            jobs,
            task: None,
        };
        let t = Instant::now();
        let report = sweep::run(&opts, &mut ()).map_err(|e| e.to_string())?;
        if report.ran != runs || !report.failed.is_empty() {
            return Err(format!(
                "the sweep ran {} of {runs} runs, {} failed",
                report.ran,
                report.failed.len()
            ));
        }
        Ok(t.elapsed().as_secs_f64())
    };
    let sweep_one_job_s = sweep_with(1, "one")?;
    let sweep_all_cores_s = sweep_with(jobs, "all")?;
    // The baseline again, and the faster of the two: the machine's speed drifts (clock, caches), and the
    // benchmark must not flatter the sweep.
    let one_by_one_s = before.min(one_by_one()?);
    let _ = std::fs::remove_dir_all(&dir);
    let ideal = one_by_one_s / jobs.min(runs) as f64;
    Ok(SweepBench {
        runs,
        simulated_s,
        one_by_one_s,
        sweep_one_job_s,
        one_job_overhead: sweep_one_job_s / one_by_one_s - 1.0,
        jobs,
        sweep_all_cores_s,
        all_cores_overhead: sweep_all_cores_s / ideal - 1.0,
    })
}

/// The figures as text.
pub fn table(b: &SweepBench) -> String {
    format!(
        "{} runs of dumbbell-10 for {} simulated s (about 1 s each here)\n\
         one by one:          {:>8.2} s\n\
         sweep, 1 job:        {:>8.2} s   overhead {:+.1}%\n\
         sweep, {} jobs:       {:>8.2} s   overhead {:+.1}% against one by one / {}\n",
        b.runs,
        b.simulated_s,
        b.one_by_one_s,
        b.sweep_one_job_s,
        100.0 * b.one_job_overhead,
        b.jobs,
        b.sweep_all_cores_s,
        100.0 * b.all_cores_overhead,
        b.jobs
    )
}
