//! `convoy sweep --slurm` on a real single-node Slurm that the test starts and stops: munge (unless one already
//! answers), slurmctld and slurmd in the foreground as the test's children, with a configuration of its own
//! (its own ports, state and spool directories, no cgroups, no accounting). A small grid runs locally and as a
//! job array (`sbatch --wait`); `convoy sweep collect` must give the local results.csv byte for byte. Then a
//! run's result is removed and `collect --resubmit` writes a job array for it alone.
//!
//! Needs root and Slurm (`slurm-wlm`, `munge`; the README's test command installs them); otherwise SKIPPED.

mod common;

use common::{Guard, Scratch, BIN};
use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const SCENARIO: &str = include_str!("../../experiments/tests/fixtures/sweep-scenario.toml");

const GRID: &str = r#"
scenario = "scenario.toml"
seeds = "1..3"

[axes]
"link.slow.rate" = ["500kbit", "1Mbit"]
"#;

fn found(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn sh(cmd: &str) -> String {
    let out = Command::new("sh").args(["-c", cmd]).output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn munge_answers() -> bool {
    sh("munge -n 2>/dev/null | unmunge 2>/dev/null | grep -c 'STATUS: *Success'") == "1"
}

/// The configuration of a one-node cluster on this host, everything under `dir`.
fn slurm_conf(dir: &Path) -> String {
    let host = sh("hostname -s");
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mem_kib: u64 = sh("awk '/MemTotal/ {print $2}' /proc/meminfo")
        .parse()
        .unwrap_or(1 << 20);
    let d = dir.display();
    format!(
        "ClusterName=convoytest\nSlurmctldHost={host}\nSlurmctldPort=16917\nSlurmdPort=16918\n\
         AuthType=auth/munge\nSlurmUser=root\nSlurmdUser=root\nStateSaveLocation={d}/state\n\
         SlurmdSpoolDir={d}/spool\nSlurmctldPidFile={d}/slurmctld.pid\nSlurmdPidFile={d}/slurmd.pid\n\
         ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nMpiDefault=none\n\
         SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\nReturnToService=2\n\
         SlurmctldLogFile={d}/slurmctld.log\nSlurmdLogFile={d}/slurmd.log\n\
         NodeName={host} CPUs={cpus} RealMemory={} State=UNKNOWN\n\
         PartitionName=debug Nodes={host} Default=YES MaxTime=INFINITE State=UP\n",
        mem_kib / 1024 * 9 / 10
    )
}

/// The daemons the test started; dropped, they stop.
struct Cluster {
    _daemons: Vec<Guard>,
    conf: String,
}

impl Drop for Cluster {
    fn drop(&mut self) {
        self.stop();
    }
}

impl Cluster {
    fn start(dir: &Path) -> Option<Cluster> {
        if sh("id -u") != "0"
            || !["sbatch", "slurmctld", "slurmd", "munged", "setpriv"]
                .iter()
                .all(|p| found(p))
        {
            eprintln!("SKIPPED: needs root and Slurm (slurm-wlm, munge)");
            return None;
        }
        let mut daemons = Vec::new();
        if !munge_answers() {
            // Debian's munge package created the key; munged runs as its own user, in the foreground.
            sh("mkdir -p /run/munge /var/log/munge /var/lib/munge && chown munge:munge /run/munge /var/log/munge /var/lib/munge");
            let child = Command::new("setpriv")
                .args([
                    "--reuid=munge",
                    "--regid=munge",
                    "--init-groups",
                    "/usr/sbin/munged",
                    "-F",
                ])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            daemons.push(Guard(Some(child)));
            let t = Instant::now();
            while !munge_answers() && t.elapsed() < Duration::from_secs(10) {
                std::thread::sleep(Duration::from_millis(100));
            }
        }
        for sub in ["state", "spool"] {
            fs::create_dir_all(dir.join(sub)).unwrap();
        }
        let conf = dir.join("slurm.conf");
        fs::write(&conf, slurm_conf(dir)).unwrap();
        let conf = conf.display().to_string();
        for daemon in ["slurmctld", "slurmd"] {
            let child = Command::new(daemon)
                .arg("-D")
                .env("SLURM_CONF", &conf)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            daemons.push(Guard(Some(child)));
            std::thread::sleep(Duration::from_millis(500));
        }
        let cluster = Cluster {
            _daemons: daemons,
            conf,
        };
        let t = Instant::now();
        while cluster.run("sinfo -h -o %T") != "idle" {
            assert!(
                t.elapsed() < Duration::from_secs(30),
                "the node never became idle"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
        Some(cluster)
    }

    /// Stop the daemons the test started, newest first: SIGTERM, so that slurmctld stops its own helpers, then
    /// SIGKILL after 10 s (the guards).
    fn stop(&mut self) {
        for guard in self._daemons.iter_mut().rev() {
            let Some(child) = guard.0.as_mut() else {
                continue;
            };
            sh(&format!("kill -TERM {}", child.id()));
            let t = Instant::now();
            while child.try_wait().ok().flatten().is_none() && t.elapsed() < Duration::from_secs(10)
            {
                std::thread::sleep(Duration::from_millis(100));
            }
            guard.kill();
        }
    }

    fn run(&self, cmd: &str) -> String {
        let out = Command::new("sh")
            .args(["-c", cmd])
            .env("SLURM_CONF", &self.conf)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }
}

fn convoy(args: &[&str], dir: &Path) -> std::process::Output {
    let out = Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success() || args[1] == "collect",
        "convoy {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

#[test]
fn a_job_array_on_a_real_slurm_gives_the_local_results_row_for_row() {
    let dir = Scratch::new("slurm");
    let Some(cluster) = Cluster::start(&dir.0) else {
        return;
    };
    fs::write(dir.0.join("scenario.toml"), SCENARIO).unwrap();
    fs::write(dir.0.join("grid.toml"), GRID).unwrap();
    convoy(&["sweep", "grid.toml", "--out", "local", "--quiet"], &dir.0);

    // Tasks of one run each: the timed run stays here, five array tasks go to the cluster.
    let prepared = convoy(
        &[
            "sweep",
            "grid.toml",
            "--slurm",
            "shared",
            "--task-minutes",
            "0.00001",
        ],
        &dir.0,
    );
    let text = String::from_utf8_lossy(&prepared.stdout);
    assert!(text.contains("6 runs, 5 left for the cluster"), "{text}");
    let script = fs::read_to_string(dir.0.join("shared/sweep.sbatch")).unwrap();
    assert!(script.contains("#SBATCH --array=0-4%64"), "{script}");
    let submitted = cluster.run(&format!(
        "sbatch --wait {}/shared/sweep.sbatch",
        dir.0.display()
    ));
    assert!(submitted.starts_with("Submitted batch job"), "{submitted}");
    for k in 0..5 {
        assert!(
            dir.0.join(format!("shared/shards/task-{k}.csv")).exists(),
            "task {k} wrote no shard"
        );
    }
    let collected = convoy(&["sweep", "collect", "shared"], &dir.0);
    assert!(
        collected.status.success(),
        "{}",
        String::from_utf8_lossy(&collected.stderr)
    );
    let local = fs::read_to_string(dir.0.join("local/results.csv")).unwrap();
    let merged = fs::read_to_string(dir.0.join("shared/results.csv")).unwrap();
    assert_eq!(merged, local, "merged results differ from the local run's");
    assert_eq!(
        fs::read(dir.0.join("shared/results.parquet")).unwrap(),
        fs::read(dir.0.join("local/results.parquet")).unwrap(),
        "results.parquet"
    );
    // 6 runs × (3 flow metrics + 2 receivers × 5 + 6 link directions × 3), and the header.
    assert_eq!(local.lines().count(), 1 + 6 * 31);

    // A lost result: collect names it and writes a job array for it alone.
    let first = merged.lines().nth(1).unwrap().split(',').next().unwrap();
    fs::remove_file(dir.0.join("shared/runs").join(first).join("summary.json")).unwrap();
    let again = convoy(&["sweep", "collect", "shared", "--resubmit"], &dir.0);
    assert_eq!(again.status.code(), Some(2));
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(err.contains(&format!("run {first} missing")), "{err}");
    let tasks = fs::read_dir(dir.0.join("shared/resubmit-tasks"))
        .unwrap()
        .count();
    assert_eq!(tasks, 1);
    let resubmitted = cluster.run(&format!(
        "sbatch --wait {}/shared/resubmit.sbatch",
        dir.0.display()
    ));
    assert!(
        resubmitted.starts_with("Submitted batch job"),
        "{resubmitted}"
    );
    assert!(convoy(&["sweep", "collect", "shared"], &dir.0)
        .status
        .success());
    assert_eq!(
        fs::read_to_string(dir.0.join("shared/results.csv")).unwrap(),
        local
    );
}
