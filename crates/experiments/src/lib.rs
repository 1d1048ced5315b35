//! Convoy's experiments library: everything between a scenario file and a verdict, with no command line.
//!
//! * [`scenario`] — scenario files (TOML, docs/scenario-format.md): loading with errors that name the file, line
//!   and key, `--set` overrides, and resolution straight into the simulator's specs.
//! * [`simrun`] — one simulation run and its outputs: summary.json, CSV series, SVG plots, pcap.
//! * [`reproduce`] — the seed papers' experiments: the registry, runs over seeds in parallel, verdicts computed
//!   from the resolved scenario and the measured series, verdicts.json and the HTML report.
//! * [`sweep`] — grids of scenario variants × seeds (docs/sweep.md): the plan, checked before it runs; runs on
//!   all cores, kept by content id so that a sweep resumes; one long results table.
//! * [`bench`](mod@bench) — the simulator benchmark on scenarios/bench/ (speed and memory, each scenario in a child
//!   process).
//!
//! The `convoy` binary parses arguments, shows progress and prints; it calls [`simrun::run`],
//! [`reproduce::reproduce`] and [`bench::run`].

pub mod bench;
pub mod reproduce;
pub mod scenario;
pub mod simrun;
pub mod sweep;
