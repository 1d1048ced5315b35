//! `convoy reproduce`: run the seed papers' experiments on the simulator, judge each claim on measured numbers,
//! and write verdicts.json and an HTML report (issue 4).
//!
//! Every experiment of docs/experiments.md has an entry in [`registry`]: the scenario files it runs, and a
//! verdict that turns the paper's claim into checks of measured numbers against the ranges of experiments.md.
//! Runs execute in parallel across threads (each simulation is single-threaded and self-contained); with
//! `--seeds K` every run is repeated with seeds 1..K and a verdict passes only if it passes for every seed.

pub mod data;
pub mod experiment;
pub mod filter_figure;
pub mod measure;
pub mod registry;
pub mod report;
pub mod rtt_spread;
pub mod verdict;

/// Declares the papers' modules, each with its `experiments()`, and lists their experiments in report order.
macro_rules! papers {
    ($($module:ident),* $(,)?) => {
        $( pub mod $module; )*

        /// Every paper's experiments, in report order.
        fn papers_experiments() -> Vec<Experiment> {
            let mut v = Vec::new();
            $( v.extend($module::experiments()); )*
            v
        }
    };
}

papers!(pgmcc_paper, wang_fahmy, tfmcc_paper, aimd_paper, compare);

pub mod paths;

use crate::scenario;
use crate::simrun;
use data::RunData;
use experiment::{Ctx, Experiment};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use verdict::Check;
pub use verdict::{SeedCount, Status, Verdict};

/// What `convoy reproduce` was asked to do.
#[derive(Clone, Debug)]
pub struct ReproduceOptions {
    /// Experiment ids (all when empty).
    pub ids: Vec<String>,
    /// Output directory.
    pub out: PathBuf,
    /// Seeds 1..=seeds.
    pub seeds: u64,
    /// Parallel jobs.
    pub jobs: usize,
    /// Where the scenario files are.
    pub scenarios: PathBuf,
}

/// One simulation of a reproduction finished (for progress lines).
#[derive(Clone, Debug)]
pub struct RunDone<'a> {
    /// Runs finished so far, this one included.
    pub done: usize,
    /// Runs in all.
    pub total: usize,
    /// The experiment.
    pub id: &'a str,
    /// The run's variant (empty for an experiment's only run).
    pub variant: &'a str,
    /// The seed.
    pub seed: u64,
    /// Wall seconds it took.
    pub seconds: f64,
}

struct Job {
    exp: usize,
    run: usize,
    seed: u64,
}

/// The directory of one run's files.
fn run_dir(out: &Path, exp: &Experiment, variant: &str, seed: u64) -> PathBuf {
    let mut d = out.join(exp.id);
    if seed != 1 {
        d = d.join("seeds").join(seed.to_string());
    }
    if !variant.is_empty() {
        d = d.join(variant);
    }
    d
}

fn run_job(opts: &ReproduceOptions, exp: &Experiment, job: &Job) -> Result<RunData, String> {
    let plan = &exp.runs[job.run];
    let path = opts.scenarios.join(plan.scenario);
    let mut sets: Vec<String> = plan.sets.iter().map(|s| s.to_string()).collect();
    sets.push(format!("run.seed={}", job.seed));
    let s = scenario::load(&path, &sets).map_err(|e| e.to_string())?;
    let dir = run_dir(&opts.out, exp, plan.variant, job.seed);
    let (report, net) = simrun::run_scenario(&s, &dir, None, &mut ()).map_err(|e| e.to_string())?;
    Ok(RunData::extract(
        &s,
        plan.variant,
        job.seed,
        dir,
        &net,
        report.summary.events,
    ))
}

/// Select experiments by id (with those they compare against), failing on unknown ids.
fn select(all: &[Experiment], ids: &[String]) -> Result<Vec<usize>, String> {
    if ids.is_empty() {
        return Ok((0..all.len()).collect());
    }
    let mut chosen = Vec::new();
    for id in ids {
        let Some(i) = all.iter().position(|e| e.id == id) else {
            let known: Vec<&str> = all.iter().map(|e| e.id).collect();
            return Err(format!(
                "unknown experiment `{id}`; known: {}",
                known.join(", ")
            ));
        };
        chosen.push(i);
    }
    let mut k = 0;
    while k < chosen.len() {
        for need in all[chosen[k]].needs {
            if let Some(j) = all.iter().position(|e| e.id == *need) {
                if !chosen.contains(&j) {
                    chosen.push(j);
                }
            }
        }
        k += 1;
    }
    chosen.sort_unstable();
    Ok(chosen)
}

/// Run the selected experiments and write the report. Returns the verdicts.
pub fn reproduce(
    opts: &ReproduceOptions,
    on_run: &mut dyn FnMut(&RunDone<'_>),
) -> Result<Vec<Verdict>, String> {
    let all = papers_experiments();
    let chosen = select(&all, &opts.ids)?;
    let mut jobs = Vec::new();
    for seed in 1..=opts.seeds.max(1) {
        for &e in &chosen {
            for r in 0..all[e].runs.len() {
                jobs.push(Job {
                    exp: e,
                    run: r,
                    seed,
                });
            }
        }
    }
    // Longest scenarios first keeps the cores busy to the end.
    jobs.sort_by_key(|j| std::cmp::Reverse(all[j.exp].runs.len()));
    let total = jobs.len();
    let queue = Arc::new(Mutex::new(
        jobs.into_iter().collect::<std::collections::VecDeque<_>>(),
    ));
    let (tx, rx) = mpsc::channel::<(usize, usize, u64, Result<RunData, String>, f64)>();
    let started = std::time::Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..opts.jobs.max(1) {
            let queue = Arc::clone(&queue);
            let tx = tx.clone();
            let all = &all;
            scope.spawn(move || loop {
                let job = match queue.lock() {
                    Ok(mut q) => q.pop_front(),
                    Err(_) => None,
                };
                let Some(job) = job else { break };
                let t0 = std::time::Instant::now();
                let res = run_job(opts, &all[job.exp], &job);
                let _ = tx.send((job.exp, job.run, job.seed, res, t0.elapsed().as_secs_f64()));
            });
        }
        drop(tx);
    });
    let mut runs: BTreeMap<u64, BTreeMap<(String, String), RunData>> = BTreeMap::new();
    let mut errors = Vec::new();
    for (done, (e, r, seed, res, secs)) in rx.iter().enumerate() {
        let exp = &all[e];
        let variant = exp.runs[r].variant;
        match res {
            Ok(data) => {
                on_run(&RunDone {
                    done: done + 1,
                    total,
                    id: exp.id,
                    variant,
                    seed,
                    seconds: secs,
                });
                runs.entry(seed)
                    .or_default()
                    .insert((exp.id.to_string(), variant.to_string()), data);
            }
            Err(msg) => errors.push(format!(
                "{}{} seed {seed}: {msg}",
                exp.id,
                if variant.is_empty() { "" } else { variant }
            )),
        }
    }
    if !errors.is_empty() {
        return Err(errors.join("\n"));
    }
    let mut verdicts = Vec::new();
    for &e in &chosen {
        verdicts.push(judge(opts, &all[e], &runs)?);
    }
    report::write(
        &opts.out,
        &verdicts,
        started.elapsed().as_secs_f64(),
        opts.seeds.max(1),
    )?;
    Ok(verdicts)
}

/// `exp`'s verdict over every seed asked for: seed 1's checks (or the first seed's), the seeds whose checks
/// failed, and its figures.
fn judge(
    opts: &ReproduceOptions,
    exp: &Experiment,
    runs: &BTreeMap<u64, BTreeMap<(String, String), RunData>>,
) -> Result<Verdict, String> {
    let mut first: Option<Vec<Check>> = None;
    let mut by_seed = Vec::new();
    let mut failures = Vec::new();
    let mut passed = 0;
    let mut figures = Vec::new();
    let none = BTreeMap::new();
    // Every seed asked for, also when this experiment has no simulation of its own (a model, such as
    // tfmcc-feedback).
    for seed in 1..=opts.seeds.max(1) {
        let all = runs.get(&seed).unwrap_or(&none);
        let mine = runs_of(exp, all);
        let ctx = Ctx {
            seed,
            runs: &mine,
            all,
            by_seed: runs,
        };
        let checks = checks_of(exp, &ctx);
        match seed_failure(seed, &checks) {
            None => passed += 1,
            Some(failure) => failures.push(failure),
        }
        if seed == 1 || first.is_none() {
            figures.extend(draw_figures(opts, exp, &ctx)?);
            first = Some(checks.clone());
        }
        by_seed.push((seed, checks));
    }
    let checks = first.unwrap_or_default();
    let status = Status::of(failures.len(), &checks);
    add_run_figures(opts, exp, &mut figures);
    Ok(Verdict {
        id: exp.id.to_string(),
        source: exp.source.to_string(),
        claim: exp.claim.to_string(),
        expected: checks
            .iter()
            .map(|c| format!("{}: {}", c.what, c.expected))
            .collect(),
        measured: checks
            .iter()
            .map(|c| format!("{}: {}", c.what, c.measured))
            .collect(),
        pass: status == Status::Pass,
        status,
        seeds: SeedCount {
            run: opts.seeds.max(1),
            passed,
        },
        checks,
        failures,
        note: exp.note.to_string(),
        figures,
        by_seed,
    })
}

/// `exp`'s runs among `all` (one seed's), by variant.
fn runs_of(
    exp: &Experiment,
    all: &BTreeMap<(String, String), RunData>,
) -> BTreeMap<String, RunData> {
    all.iter()
        .filter(|((id, _), _)| id == exp.id)
        .map(|((_, v), d)| (v.clone(), d.clone()))
        .collect()
}

/// `exp`'s checks on `ctx`; when they cannot be computed, one failed check that says why.
fn checks_of(exp: &Experiment, ctx: &Ctx<'_>) -> Vec<Check> {
    (exp.judge)(ctx).unwrap_or_else(|msg| {
        vec![Check::holds(
            "the verdict could be computed",
            false,
            "measurements available",
            msg,
        )]
    })
}

/// The failed checks of `seed`, as one line ("seed N: what: measured; …"), or `None` when all passed.
fn seed_failure(seed: u64, checks: &[Check]) -> Option<String> {
    if checks.iter().all(|c| c.pass) {
        return None;
    }
    let bad: Vec<String> = checks
        .iter()
        .filter(|c| !c.pass)
        .map(|c| format!("{}: {}", c.what, c.measured))
        .collect();
    Some(format!("seed {seed}: {}", bad.join("; ")))
}

/// Draw `exp`'s own figures (if it has any) into its directory under the output; their paths relative to it.
fn draw_figures(
    opts: &ReproduceOptions,
    exp: &Experiment,
    ctx: &Ctx<'_>,
) -> Result<Vec<String>, String> {
    let mut figures = Vec::new();
    if let Some(draw) = exp.figures {
        let dir = opts.out.join(exp.id);
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for f in draw(ctx, &dir)? {
            figures.push(format!("{}/{f}", exp.id));
        }
    }
    Ok(figures)
}

/// Add the SVG files of `exp`'s seed-1 run directories to `figures`, each in name order.
fn add_run_figures(opts: &ReproduceOptions, exp: &Experiment, figures: &mut Vec<String>) {
    for plan in exp.runs {
        let dir = run_dir(Path::new(""), exp, plan.variant, 1);
        let base = opts.out.join(&dir);
        if let Ok(rd) = std::fs::read_dir(&base) {
            let mut names: Vec<String> = rd
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().to_string())
                .filter(|n| n.ends_with(".svg"))
                .collect();
            names.sort();
            // An experiment's own figures may sit in its run directory: list each file once.
            for name in names.into_iter().map(|n| format!("{}/{n}", dir.display())) {
                if !figures.contains(&name) {
                    figures.push(name);
                }
            }
        }
    }
}
