//! `convoy sim`: run a scenario and write its results (summary.json, CSV series, SVG plots, optional pcap).

pub mod pcap;
pub mod plots;
pub mod series;
pub mod summary;

use crate::scenario::{self, Scenario};
use convoy_proto::Instant;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What `convoy sim` was asked to do.
#[derive(Clone, Debug, Default)]
pub struct SimOptions {
    /// The scenario file.
    pub scenario: PathBuf,
    /// Output directory (default `out/<scenario stem>`).
    pub out: Option<PathBuf>,
    /// Seed overriding `run.seed`.
    pub seed: Option<u64>,
    /// `--set key=value` overrides, in order.
    pub sets: Vec<String>,
    /// Link direction to capture (`name` or `name:rev`).
    pub pcap: Option<String>,
}

/// Told how a run advances (the `convoy` command draws a progress bar from it); `()` ignores it.
pub trait RunProgress {
    /// Scenario `scenario` has simulated `simulated` of `end`, in `events` events so far.
    fn advanced(&mut self, scenario: &str, simulated: Duration, end: Duration, events: u64);
    /// The run is over.
    fn finished(&mut self) {}
}

impl RunProgress for () {
    fn advanced(&mut self, _: &str, _: Duration, _: Duration, _: u64) {}
}

/// A failed `convoy sim`.
#[derive(Debug)]
pub enum SimError {
    /// The scenario is invalid.
    Scenario(scenario::ScenarioError),
    /// Something else (building, writing).
    Other(String),
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::Scenario(e) => write!(f, "{e}"),
            SimError::Other(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for SimError {}

impl From<scenario::ScenarioError> for SimError {
    fn from(e: scenario::ScenarioError) -> Self {
        SimError::Scenario(e)
    }
}

fn other(context: impl fmt::Display) -> impl FnOnce(std::io::Error) -> SimError {
    move |e| SimError::Other(format!("{context}: {e}"))
}

/// What a run wrote.
#[derive(Clone, Debug)]
pub struct SimReport {
    /// The output directory.
    pub dir: PathBuf,
    /// Files written, relative to `dir`.
    pub files: Vec<String>,
    /// The summary.
    pub summary: summary::Summary,
}

/// Load, run and write. `--seed` becomes one more `--set run.seed=N` (after the others).
pub fn run(opts: &SimOptions, progress: &mut dyn RunProgress) -> Result<SimReport, SimError> {
    let mut sets = opts.sets.clone();
    if let Some(seed) = opts.seed {
        sets.push(format!("run.seed={seed}"));
    }
    let s = scenario::load(&opts.scenario, &sets)?;
    let dir = opts
        .out
        .clone()
        .unwrap_or_else(|| Path::new("out").join(&s.name));
    let (report, _net) = run_scenario(&s, &dir, opts.pcap.as_deref(), progress)?;
    Ok(report)
}

/// Build and run a loaded scenario and write its outputs into `dir`; also hand back the network, for callers that
/// read more than the files (`convoy reproduce`).
pub fn run_scenario(
    s: &Scenario,
    dir: &Path,
    pcap: Option<&str>,
    progress: &mut dyn RunProgress,
) -> Result<(SimReport, convoy_sim::Network), SimError> {
    let Simulated {
        summary,
        result,
        net,
    } = simulate(s, pcap, progress)?;
    std::fs::create_dir_all(dir).map_err(other(format!("creating {}", dir.display())))?;
    let mut files = Vec::new();
    let json =
        serde_json::to_string_pretty(&summary).map_err(|e| SimError::Other(e.to_string()))? + "\n";
    std::fs::write(dir.join("summary.json"), json).map_err(other("writing summary.json"))?;
    files.push("summary.json".to_string());
    files.extend(series::write_all(dir, s, &result, &net).map_err(other("writing CSV series"))?);
    files.extend(write_plots(dir, s, &result, &net)?);
    if let Some(name) = pcap {
        let file = format!("{name}.pcap").replace(':', "-");
        let mut w =
            std::io::BufWriter::new(std::fs::File::create(dir.join(&file)).map_err(other(&file))?);
        pcap::write(&mut w, net.captured()).map_err(other(&file))?;
        std::io::Write::flush(&mut w).map_err(other(&file))?;
        files.push(file);
        let file = format!("{name}.packets.csv").replace(':', "-");
        let mut w =
            std::io::BufWriter::new(std::fs::File::create(dir.join(&file)).map_err(other(&file))?);
        pcap::write_packet_trace(&mut w, net.captured()).map_err(other(&file))?;
        std::io::Write::flush(&mut w).map_err(other(&file))?;
        files.push(file);
    }
    let report = SimReport {
        dir: dir.to_path_buf(),
        files,
        summary,
    };
    Ok((report, net))
}

/// Build and run a loaded scenario and summarize it, writing nothing (`convoy sweep`).
pub fn summarize_run(s: &Scenario) -> Result<summary::Summary, SimError> {
    Ok(simulate(s, None, &mut ())?.summary)
}

/// Build and run a loaded scenario, writing nothing: its summary and every series as (file name, CSV text), as
/// [`run_scenario`] would write them (the Python package's `convoy.sim` without an output directory).
pub fn run_in_memory(
    s: &Scenario,
    progress: &mut dyn RunProgress,
) -> Result<(summary::Summary, Vec<(String, String)>), SimError> {
    let run = simulate(s, None, progress)?;
    let csv = series::all(s, &run.result, &run.net);
    Ok((run.summary, csv))
}

/// A run made: its summary, its results and the network, for what else is read of it.
struct Simulated {
    summary: summary::Summary,
    result: convoy_sim::results::RunResult,
    net: convoy_sim::Network,
}

/// Build and run a loaded scenario, capturing the link direction `pcap` if given.
fn simulate(
    s: &Scenario,
    pcap: Option<&str>,
    progress: &mut dyn RunProgress,
) -> Result<Simulated, SimError> {
    let mut built = scenario::build_network(s)
        .map_err(|e| SimError::Other(format!("building the network: {e}")))?;
    if let Some(name) = pcap {
        let Some(id) = built.net.link_id(name) else {
            let mut names: Vec<String> = s
                .links
                .iter()
                .flat_map(|l| [l.name.clone(), format!("{}:rev", l.name)])
                .take(10)
                .collect();
            if s.links.len() > 5 {
                names.push("...".into());
            }
            return Err(SimError::Other(format!(
                "--pcap {name}: no such link direction (links: {})",
                names.join(", ")
            )));
        };
        built.net.capture(id);
    }
    let started = std::time::Instant::now();
    let events = drive(&mut built.net, s, progress);
    let wall_s = started.elapsed().as_secs_f64();
    let net = built.net;
    let result = net.results();
    let summary = summary::summarize(s, &result, events, wall_s, net.unroutable());
    Ok(Simulated {
        summary,
        result,
        net,
    })
}

/// Run the network to the scenario's end in 500 chunks, telling `progress` after each.
fn drive(net: &mut convoy_sim::Network, s: &Scenario, progress: &mut dyn RunProgress) -> u64 {
    let end = s.duration.as_nanos() as u64;
    let chunk = (end / 500).max(1_000_000);
    let mut events = 0;
    let mut t = 0u64;
    while t < end {
        t = (t + chunk).min(end);
        events += net.run(Instant::from_nanos(t));
        progress.advanced(&s.name, Duration::from_nanos(t), s.duration, events);
    }
    progress.finished();
    events
}

fn write_plots(
    dir: &Path,
    s: &Scenario,
    r: &convoy_sim::results::RunResult,
    net: &convoy_sim::Network,
) -> Result<Vec<String>, SimError> {
    let mut files = Vec::new();
    let mut plot =
        |name: String, res: Result<(), Box<dyn std::error::Error>>| -> Result<(), SimError> {
            res.map_err(|e| SimError::Other(format!("drawing {name}: {e}")))?;
            files.push(name);
            Ok(())
        };
    plot(
        "throughput.svg".into(),
        plots::throughput(&dir.join("throughput.svg"), s, r),
    )?;
    for (k, sess) in s.sessions.iter().enumerate() {
        let Some(agent) = net.session_sender(&sess.name) else {
            continue;
        };
        let rec = &agent.record;
        if rec.samples.iter().any(|x| x.window.is_some()) {
            let switches = &r.flows[k].switches;
            let name = format!("window-{}.svg", sess.name);
            plot(
                name.clone(),
                plots::window(&dir.join(&name), s, sess, &rec.samples, switches),
            )?;
        }
    }
    let end = s.duration.as_secs_f64();
    for q in &s.sequence_plots {
        let sess = &s.sessions[q.session];
        let Some(trace) = net
            .session_sender(&sess.name)
            .and_then(|a| a.record.trace.as_ref())
        else {
            continue;
        };
        let (from, to) = (
            q.from.as_secs_f64(),
            q.to.map_or(end, |t| t.as_secs_f64()).min(end),
        );
        let name = if q.from.is_zero() && q.to.is_none() {
            format!("seq-{}.svg", sess.name)
        } else {
            format!("seq-{}-{}-{}.svg", sess.name, from, to)
        };
        plot(
            name.clone(),
            plots::sequence(&dir.join(&name), s, sess, trace, (from, to)),
        )?;
    }
    let cols = net.queue_samples();
    if !cols.is_empty() {
        plot(
            "queue.svg".into(),
            plots::queues(&dir.join("queue.svg"), s, &cols),
        )?;
    }
    Ok(files)
}
