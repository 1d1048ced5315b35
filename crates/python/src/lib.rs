//! `convoy._convoy`, the native half of the Python package (docs/python.md): the experiments library's runs,
//! called with the GIL released, their results handed back as JSON and CSV text. The Python half
//! (python/convoy/) turns them into pandas DataFrames and documents the API; nothing is computed twice.
//!
//! Errors are raised as `NativeError(kind, message, details)`: `kind` names the failing step ("scenario",
//! "grid", "sim", "sweep", "reproduce"), `message` is the text the `convoy` command prints, `details` a JSON object
//! with where it was (`file`, `line`, `column`, `key`) when known. The Python half raises its own classes from
//! them.

use convoy_experiments::reproduce::{self, ReproduceOptions, RunDone, Verdict};
use convoy_experiments::scenario::{self, Origin, ScenarioError};
use convoy_experiments::simrun::{self, SimError};
use convoy_experiments::sweep::grid::{Grid, GridError};
use convoy_experiments::sweep::{self, slurm, SweepError, SweepOptions, SweepProgress};
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

create_exception!(
    _convoy,
    NativeError,
    PyException,
    "A failure of the native half: (kind, message, details as JSON)."
);

fn native(kind: &str, message: impl ToString, details: Value) -> PyErr {
    NativeError::new_err((kind.to_string(), message.to_string(), details.to_string()))
}

fn scenario_error(e: &ScenarioError) -> PyErr {
    let details = match &e.origin {
        Origin::File {
            file, line, col, ..
        } => json!({"file": file, "line": line, "column": col, "key": e.key}),
        Origin::WholeFile(file) => json!({"file": file, "key": e.key}),
        Origin::Set(arg) => json!({"set": arg, "key": e.key}),
    };
    native("scenario", e, details)
}

fn grid_error(e: &GridError) -> PyErr {
    let line = (e.line > 0).then_some(e.line);
    native(
        "grid",
        e,
        json!({"file": e.file, "line": line, "key": e.key}),
    )
}

fn sweep_error(e: &SweepError) -> PyErr {
    match e {
        SweepError::Grid(g) => grid_error(g),
        SweepError::Io(m) => native("sweep", m, json!({})),
    }
}

/// A scenario or grid given as a dict, as TOML text (the form the files have).
#[pyfunction]
fn dict_to_toml(obj: &Bound<'_, PyAny>) -> PyResult<String> {
    let value: toml::Value = pythonize::depythonize(obj).map_err(|e| {
        native(
            "scenario",
            format!("<dict>: {e}"),
            json!({"file": "<dict>"}),
        )
    })?;
    toml::to_string(&value).map_err(|e| {
        native(
            "scenario",
            format!("<dict>: {e}"),
            json!({"file": "<dict>"}),
        )
    })
}

/// Run a scenario: `text` its TOML, `file` how errors name it, `name` the scenario's name; `sets` the `--set`
/// overrides in order (the seed last); with `out`, write what `convoy sim` writes there. Returns JSON:
/// `{"summary", "series": [[file name, CSV text]...], "dir", "files"}`.
#[pyfunction]
#[pyo3(signature = (text, file, name, sets, out=None, pcap=None))]
fn sim(
    py: Python<'_>,
    text: String,
    file: String,
    name: String,
    sets: Vec<String>,
    out: Option<PathBuf>,
    pcap: Option<String>,
) -> PyResult<String> {
    let s = scenario::parse(&file, &name, &text, &sets).map_err(|e| scenario_error(&e))?;
    let ran = py.detach(|| match &out {
        None => simrun::run_in_memory(&s, &mut ())
            .map(|(summary, series)| (summary, series, Vec::new())),
        Some(dir) => {
            simrun::run_scenario(&s, dir, pcap.as_deref(), &mut ()).map(|(report, net)| {
                let series = simrun::series::all(&s, &net.results(), &net);
                (report.summary, series, report.files)
            })
        }
    });
    let (summary, series, files) = match ran {
        Ok(r) => r,
        Err(SimError::Scenario(e)) => return Err(scenario_error(&e)),
        Err(SimError::Other(m)) => return Err(native("sim", m, json!({}))),
    };
    // The summary serialized as a struct keeps summary.json's field order (a `Value` would sort the keys).
    let text = |e: serde_json::Error| native("json", e, json!({}));
    Ok(format!(
        r#"{{"summary": {}, "series": {}, "dir": {}, "files": {}}}"#,
        serde_json::to_string(&summary).map_err(text)?,
        serde_json::to_string(&series).map_err(text)?,
        json!(out),
        json!(files),
    ))
}

/// A Python progress callback, called with the GIL taken. The runs do not stop for a callback that fails: it
/// is not called again, and its error is raised when they end ([`Callback::finish`]).
struct Callback {
    callback: Option<Py<PyAny>>,
    error: Option<PyErr>,
}

impl Callback {
    fn new(callback: Option<Py<PyAny>>) -> Self {
        Callback {
            callback,
            error: None,
        }
    }

    fn call<A>(&mut self, args: A)
    where
        A: for<'py> pyo3::call::PyCallArgs<'py>,
    {
        if let (Some(cb), None) = (&self.callback, &self.error) {
            self.error = Python::attach(|py| cb.call1(py, args).err());
        }
    }

    /// `result`, or the callback's error if it failed.
    fn finish<T>(self, result: PyResult<T>) -> PyResult<T> {
        match self.error {
            Some(e) => Err(e),
            None => result,
        }
    }
}

/// Tells a Python callable `(done, total, failed)` how a sweep advances.
struct CallbackProgress {
    callback: Callback,
    total: usize,
    done: usize,
}

impl CallbackProgress {
    fn tell(&mut self, failed: bool) {
        let args = (self.done, self.total, failed);
        self.callback.call(args);
    }
}

impl SweepProgress for CallbackProgress {
    fn planned(&mut self, _total: usize, to_run: usize) {
        self.total = to_run;
        self.tell(false);
    }

    fn run_done(&mut self, failed: bool) {
        self.done += 1;
        self.tell(failed);
    }
}

fn load_grid(text: &str, file: &str) -> PyResult<Grid> {
    Grid::parse(Path::new(file), text).map_err(|e| grid_error(&e))
}

/// Run a sweep: `text` the grid's TOML, `file` its path (anchors the scenario's relative path; `<text>` for
/// the current directory), `out` the output directory; `progress(done, total, failed)` after each run. Returns
/// the report as JSON: `{"out", "total", "ran", "reused", "failed": [[id, error]...], "results", "rows"}`.
#[pyfunction]
#[pyo3(name = "sweep", signature = (text, file, out, jobs, progress=None))]
fn run_sweep(
    py: Python<'_>,
    text: String,
    file: String,
    out: PathBuf,
    jobs: usize,
    progress: Option<Py<PyAny>>,
) -> PyResult<String> {
    let grid = load_grid(&text, &file)?;
    let opts = SweepOptions {
        grid: PathBuf::from(&file),
        out: Some(out),
        jobs: jobs.max(1),
        task: None,
    };
    let mut bar = CallbackProgress {
        callback: Callback::new(progress),
        total: 0,
        done: 0,
    };
    let ran = py
        .detach(|| sweep::run_grid(&grid, &opts, &mut bar))
        .map_err(|e| sweep_error(&e));
    let r = bar.callback.finish(ran)?;
    Ok(json!({
        "out": r.out, "total": r.total, "ran": r.ran, "reused": r.reused,
        "failed": r.failed, "results": r.results, "rows": r.rows,
    })
    .to_string())
}

/// Write a sweep's Slurm job array into `dir`, as `convoy sweep GRID --slurm DIR` does, the tasks running
/// `convoy` (the command's path). Returns the plan as JSON:
/// `{"total", "to_run", "seconds_per_run", "runs_per_task", "tasks", "script"}`.
#[pyfunction]
fn sweep_slurm(
    py: Python<'_>,
    grid: PathBuf,
    dir: PathBuf,
    task_minutes: f64,
    parallel: usize,
    convoy: PathBuf,
) -> PyResult<String> {
    let opts = slurm::SlurmOptions {
        grid,
        dir,
        task_minutes,
        parallel,
        convoy,
    };
    let p = py
        .detach(|| slurm::prepare(&opts))
        .map_err(|e| sweep_error(&e))?;
    Ok(json!({
        "total": p.total, "to_run": p.to_run, "seconds_per_run": p.seconds_per_run,
        "runs_per_task": p.runs_per_task, "tasks": p.tasks, "script": p.script,
    })
    .to_string())
}

/// One verdict as JSON: verdicts.json's object, and every seed's checks under `by_seed`.
fn verdict_json(v: &Verdict) -> PyResult<Value> {
    let mut obj = serde_json::to_value(v).map_err(|e| native("json", e, json!({})))?;
    let by_seed: Vec<Value> = v
        .by_seed
        .iter()
        .map(|(seed, checks)| json!({"seed": seed, "checks": checks}))
        .collect();
    obj["by_seed"] = Value::Array(by_seed);
    Ok(obj)
}

/// Run the reproductions (`ids`, all when empty) with seeds 1..=`seeds`, writing the report into `out`;
/// `progress(done, total, id, seed)` after each run. Returns `{"verdicts": [...], "report": path}` as JSON.
#[pyfunction]
#[pyo3(name = "reproduce", signature = (ids, seeds, out, jobs, scenarios, progress=None))]
fn run_reproduce(
    py: Python<'_>,
    ids: Vec<String>,
    seeds: u64,
    out: PathBuf,
    jobs: usize,
    scenarios: PathBuf,
    progress: Option<Py<PyAny>>,
) -> PyResult<String> {
    let opts = ReproduceOptions {
        ids,
        out: out.clone(),
        seeds,
        jobs: jobs.max(1),
        scenarios,
    };
    let mut callback = Callback::new(progress);
    let mut on_run = |r: &RunDone<'_>| callback.call((r.done, r.total, r.id, r.seed));
    let ran = py
        .detach(|| reproduce::reproduce(&opts, &mut on_run))
        .map_err(|e| native("reproduce", e, json!({})));
    let verdicts = callback.finish(ran)?;
    let verdicts: Vec<Value> = verdicts.iter().map(verdict_json).collect::<PyResult<_>>()?;
    Ok(json!({"verdicts": verdicts, "report": out.join("index.html")}).to_string())
}

/// The registered experiment ids, in report order.
#[pyfunction]
fn experiment_ids() -> Vec<String> {
    reproduce::registry::all()
        .iter()
        .map(|e| e.id.to_string())
        .collect()
}

/// Sweep run ids name the build that made them (`convoy_experiments::sweep::build_id`): here `file`, the
/// extension module's own file, hashed, as the running executable is the Python interpreter (called by the
/// package when it is imported). Returns whether it took effect.
#[pyfunction]
fn name_build(file: PathBuf) -> bool {
    match std::fs::read(file) {
        Ok(bytes) => sweep::set_build_id(format!("py-{}", &blake3::hash(&bytes).to_hex()[..16])),
        Err(_) => false,
    }
}

/// The native half of the `convoy` package (docs/python.md).
#[pymodule]
fn _convoy(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("NativeError", m.py().get_type::<NativeError>())?;
    m.add_function(wrap_pyfunction!(dict_to_toml, m)?)?;
    m.add_function(wrap_pyfunction!(sim, m)?)?;
    m.add_function(wrap_pyfunction!(run_sweep, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_slurm, m)?)?;
    m.add_function(wrap_pyfunction!(run_reproduce, m)?)?;
    m.add_function(wrap_pyfunction!(experiment_ids, m)?)?;
    m.add_function(wrap_pyfunction!(name_build, m)?)?;
    Ok(())
}
