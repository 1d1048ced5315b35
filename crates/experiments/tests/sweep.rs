//! `convoy sweep`'s library half: a small grid run, resumed, and run again with another number of jobs.

use convoy_experiments::sweep::{self, SweepOptions};
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("convoy-sweep-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const SCENARIO: &str = include_str!("fixtures/sweep-scenario.toml");

const GRID: &str = r#"
scenario = "scenario.toml"
seeds = "1..2"
metrics = ["goodput_bps", "drops"]
time_bins = true

[axes]
"link.slow.rate" = ["500kbit", "1Mbit"]
"#;

fn setup(name: &str) -> PathBuf {
    let dir = scratch(name);
    std::fs::write(dir.join("scenario.toml"), SCENARIO).unwrap();
    std::fs::write(dir.join("grid.toml"), GRID).unwrap();
    dir
}

fn sweep(dir: &Path, out: &str, jobs: usize) -> sweep::SweepReport {
    let opts = SweepOptions {
        grid: dir.join("grid.toml"),
        out: Some(dir.join(out)),
        jobs,
        task: None,
    };
    sweep::run(&opts, &mut ()).unwrap()
}

#[test]
fn a_grid_runs_resumes_and_gives_the_same_table_whatever_the_jobs() {
    let dir = setup("runs");
    let first = sweep(&dir, "a", 2);
    assert_eq!((first.total, first.ran, first.reused), (4, 4, 0));
    assert!(first.failed.is_empty(), "{:?}", first.failed);
    let table = std::fs::read_to_string(&first.results).unwrap();
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines[0], "run,link.slow.rate,seed,kind,id,metric,value");
    // Per run: goodput of the flow, drops of 3 links × 2 directions.
    assert_eq!(first.rows, 4 * (1 + 6));
    assert_eq!(lines.len(), 1 + first.rows);
    assert!(
        lines[1].contains(",500kbit,1,flow,S1,goodput_bps,"),
        "{}",
        lines[1]
    );
    let slow_goodput = |rate: &str| -> f64 {
        lines
            .iter()
            .filter(|l| l.contains(&format!(",{rate},")) && l.contains(",goodput_bps,"))
            .map(|l| l.rsplit(',').next().unwrap().parse::<f64>().unwrap())
            .sum::<f64>()
    };
    assert!(
        slow_goodput("500kbit") < slow_goodput("1Mbit"),
        "the session follows its slowest path"
    );

    // Time bins: 3 s in 500 ms bins, one flow, 4 runs.
    let bins = std::fs::read_to_string(dir.join("a/results-bins.csv")).unwrap();
    assert_eq!(
        bins.lines().next(),
        Some("run,link.slow.rate,seed,id,t_s,throughput_bps")
    );
    assert_eq!(bins.lines().count(), 1 + 4 * 6);
    assert!(dir.join("a/results.parquet").exists() && dir.join("a/results-bins.parquet").exists());

    // Resumed: nothing runs again, the table is the same.
    let again = sweep(&dir, "a", 2);
    assert_eq!((again.ran, again.reused), (0, 4));
    assert_eq!(std::fs::read_to_string(&again.results).unwrap(), table);

    // A run whose summary went missing runs again, alone.
    let run = lines[1].split(',').next().unwrap();
    std::fs::remove_file(dir.join("a/runs").join(run).join("summary.json")).unwrap();
    let partial = sweep(&dir, "a", 2);
    assert_eq!((partial.ran, partial.reused), (1, 3));
    assert_eq!(std::fs::read_to_string(&partial.results).unwrap(), table);

    // One job, another directory: the same table, row for row.
    let serial = sweep(&dir, "b", 1);
    assert_eq!(std::fs::read_to_string(&serial.results).unwrap(), table);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_wrong_grid_runs_nothing_and_names_the_line() {
    let dir = setup("wrong");
    std::fs::write(
        dir.join("grid.toml"),
        "scenario = \"scenario.toml\"\n[axes]\n\"link.slow.rate\" = [\"1Mbit\", \"fast\"]\n",
    )
    .unwrap();
    let opts = SweepOptions {
        grid: dir.join("grid.toml"),
        out: Some(dir.join("out")),
        jobs: 2,
        task: None,
    };
    let e = sweep::run(&opts, &mut ()).unwrap_err().to_string();
    assert!(
        e.contains("grid.toml:3: `link.slow.rate`: value \"fast\""),
        "{e}"
    );
    assert!(!dir.join("out").exists(), "nothing ran");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_job_array_run_task_by_task_collects_into_the_local_table() {
    use convoy_experiments::sweep::slurm::{collect, prepare, SlurmOptions};
    let dir = setup("array");
    let local = sweep(&dir, "local", 2);
    let opts = SlurmOptions {
        grid: dir.join("grid.toml"),
        dir: dir.join("shared"),
        task_minutes: 1e-6,
        parallel: 8,
        convoy: PathBuf::from("/usr/local/bin/convoy"),
    };
    let plan = prepare(&opts).unwrap();
    assert_eq!(
        (plan.total, plan.to_run, plan.runs_per_task, plan.tasks),
        (4, 3, 1, 3)
    );
    let script = std::fs::read_to_string(&plan.script).unwrap();
    assert!(script.contains("#SBATCH --array=0-2%8"), "{script}");
    assert!(script.contains("'/usr/local/bin/convoy' sweep"), "{script}");
    // Before the tasks: three runs missing.
    let early = collect(&dir.join("shared"), None).unwrap();
    assert_eq!((early.complete, early.missing.len()), (1, 3));
    for k in 0..3 {
        let opts = SweepOptions {
            grid: dir.join("grid.toml"),
            out: Some(dir.join("shared")),
            jobs: 1,
            task: Some(dir.join(format!("shared/sweep-tasks/task-{k}.txt"))),
        };
        let r = sweep::run(&opts, &mut ()).unwrap();
        assert_eq!((r.total, r.ran), (1, 1));
        assert!(r.results.ends_with(format!("shards/task-{k}.csv")));
    }
    let done = collect(&dir.join("shared"), Some(&opts)).unwrap();
    assert_eq!((done.complete, done.resubmit), (4, None));
    assert_eq!(
        std::fs::read_to_string(&done.results).unwrap(),
        std::fs::read_to_string(&local.results).unwrap(),
        "the collected table is the local one"
    );
    for f in [
        "results.parquet",
        "results-bins.csv",
        "results-bins.parquet",
    ] {
        let a = std::fs::read(dir.join("local").join(f)).unwrap();
        assert_eq!(a, std::fs::read(dir.join("shared").join(f)).unwrap(), "{f}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_failed_run_is_reported_with_its_error_and_the_others_finish() {
    let dir = setup("failing");
    // Find the plan's ids, then make one run's directory impossible to create: a file stands in its place.
    let first = sweep(&dir, "probe", 1);
    let table = std::fs::read_to_string(&first.results).unwrap();
    let victim = table
        .lines()
        .nth(1)
        .unwrap()
        .split(',')
        .next()
        .unwrap()
        .to_string();
    std::fs::create_dir_all(dir.join("out/runs")).unwrap();
    std::fs::write(dir.join("out/runs").join(&victim), "not a directory").unwrap();
    let report = sweep(&dir, "out", 2);
    assert_eq!((report.total, report.ran), (4, 4));
    assert_eq!(report.failed.len(), 1, "{:?}", report.failed);
    assert_eq!(report.failed[0].0, victim);
    assert!(
        report.failed[0].1.contains("creating"),
        "{}",
        report.failed[0].1
    );
    let rows = std::fs::read_to_string(&report.results).unwrap();
    assert_eq!(
        rows.lines().count(),
        1 + 3 * 7,
        "the three other runs are in the table"
    );
    assert!(!rows.contains(&victim));
    let _ = std::fs::remove_dir_all(&dir);
}
