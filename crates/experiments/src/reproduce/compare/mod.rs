//! compare-matrix: pgmcc, TFMCC and `aimd` (the agent-based rate AIMD scheme of Shi and Waldvogel 2000,
//! docs/papers.md) on the same scenarios (docs/experiments.md, "Head to head", what no seed paper did). Every
//! scenario is written once, for pgmcc, and runs with each controller (`--set session.m.cc=…`), each with its
//! defaults and PGM's repairs on, charged to the controller (`repairs = "controller"`), as a file transfer runs
//! them. One more row runs the uncorrelated-loss scenario with repairs beside the controller (the pgmcc paper's
//! §3.8) to show what charging them changes. The table gives, per scenario and controller over all the seeds run,
//! the mean and the range of: the multicast/TCP throughput ratio, the coefficient of variation of the rate, the time
//! to react to a change, feedback packets per data packet, the bytes on the source's link per delivered byte and the
//! receivers' loss; a generated reading says what it shows for bulk transfer, smooth streams and changes.

mod figure;
mod metrics;
mod reading;
mod rows;
mod table;

use super::experiment::{Ctx, Experiment, RunPlan};
use convoy_proto::cc::CcConfig;
use std::path::Path;
use std::sync::OnceLock;

/// The session's name in every comparison scenario.
const SESSION: &str = "m";
/// The ending of a row that runs its scenario with repairs beside the controller (`repairs = "rate-limit"`).
pub const REPAIRS_BESIDE: &str = "-repairs-beside-cc";
/// The ending of a row that runs its scenario with parity repairs (RFC 3208 §11, `parity = 64`, the group size
/// `convoy send` uses for files).
pub const PARITY: &str = "-parity";
/// The most bytes on the source's link per delivered byte a parity row may show: Convoy's target for parity
/// repairs (not a paper's claim), 1.2 with 100 receivers each losing 1% independently.
pub const PARITY_WIRE_MAX: f64 = 1.2;
/// The controllers compared, in table order: every registered scheme that controls congestion (convoy-proto's
/// `CcConfig::congestion_controllers`).
pub fn controllers() -> &'static [&'static str] {
    static NAMES: OnceLock<Vec<&'static str>> = OnceLock::new();
    NAMES.get_or_init(|| CcConfig::congestion_controllers().collect())
}

/// A row of the table: one scenario (a file and overrides) that runs once per controller.
struct MatrixRow {
    name: &'static str,
    scenario: &'static str,
    sets: &'static [&'static str],
}

/// The rows, in table order (experiments.md: one bottleneck with 1, 4 and 15 TCP flows; 16 tail circuits; 100
/// receivers with uncorrelated 1% loss; a late-joining slow receiver; a bottleneck that moves between two paths).
const ROWS: &[MatrixRow] = &[
    MatrixRow { name: "a-bottleneck-1tcp", scenario: "cmp-bottleneck.toml", sets: &["tcp.t.count=1"] },
    MatrixRow { name: "b-bottleneck-4tcp", scenario: "cmp-bottleneck.toml", sets: &["tcp.t.count=4"] },
    MatrixRow { name: "c-bottleneck-15tcp", scenario: "cmp-bottleneck.toml", sets: &["tcp.t.count=15"] },
    MatrixRow { name: "d-tail-circuits", scenario: "cmp-tail-circuits.toml", sets: &[] },
    MatrixRow { name: "e-uncorrelated-loss", scenario: "cmp-uncorrelated-loss.toml", sets: &[] },
    MatrixRow { name: "f-late-join", scenario: "cmp-late-join.toml", sets: &[] },
    MatrixRow { name: "g-moving-bottleneck", scenario: "cmp-moving-bottleneck.toml", sets: &[] },
    MatrixRow {
        name: "h-uncorrelated-loss-repairs-beside-cc",
        scenario: "cmp-uncorrelated-loss.toml",
        sets: &["session.m.repairs=rate-limit"],
    },
    MatrixRow { name: "i-uncorrelated-loss-parity", scenario: "cmp-uncorrelated-loss.toml", sets: &["session.m.parity=64"] },
];

/// Every row run with every controller, row by row: variant `<row>-<controller>`, the row's overrides and
/// `session.m.cc=<controller>`. Built once; its names live as long as the process (the registry's
/// [`RunPlan`]s are static data).
fn runs() -> &'static [RunPlan] {
    static RUNS: OnceLock<Vec<RunPlan>> = OnceLock::new();
    let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
    RUNS.get_or_init(|| {
        ROWS.iter()
            .flat_map(|row| controllers().iter().map(move |cc| (row, cc)))
            .map(|(row, cc)| {
                let mut sets = row.sets.to_vec();
                sets.push(leak(format!("session.m.cc={cc}")));
                RunPlan {
                    variant: leak(format!("{}-{cc}", row.name)),
                    scenario: row.scenario,
                    sets: Box::leak(sets.into_boxed_slice()),
                }
            })
            .collect()
    })
}

/// The rows' names, in table order.
pub fn rows() -> impl Iterator<Item = &'static str> {
    ROWS.iter().map(|r| r.name)
}

/// The head-to-head comparison.
pub fn experiments() -> Vec<Experiment> {
    vec![Experiment {
        id: "compare-matrix",
        section: "Head to head",
        source: "docs/experiments.md, \"Head to head\" (no seed paper)",
        claim: "pgmcc, TFMCC and aimd on the same scenarios, in one table: multicast/TCP throughput ratio, \
                coefficient of variation of the rate, time to react to a change, feedback packets per data packet, \
                and the source's bytes per delivered byte.",
        runs: runs(),
        needs: &[],
        judge: table::judge,
        figures: Some(table_and_figure),
        note: NOTE,
    }]
}

/// The report's table (an HTML fragment shown in place) and the figure.
fn table_and_figure(ctx: &Ctx<'_>, dir: &Path) -> Result<Vec<String>, String> {
    let mut files = table::write(ctx, dir)?;
    files.extend(figure::draw(ctx, dir)?);
    Ok(files)
}

const NOTE: &str = "A table, not a claim: its checks fail only when a figure cannot be computed. The scenarios \
    (scenarios/cmp-*.toml) give their choices. Every controller runs with PGM's repairs on, as a file transfer runs, \
    and the repairs charged to the controller (`repairs = \"controller\"`: a repair needs the controller's permit, \
    pgmcc lends it a token for one smoothed RTT, TFMCC and aimd pace it at their rate; Shi and Waldvogel §5.4). \
    Row h runs the uncorrelated-loss scenario with repairs beside the controller instead, metered only by the \
    session's optional `rate_max`, as the pgmcc paper's §3.8 sends them: with 100 receivers losing 1% each nearly \
    every packet is NAKed by someone and repaired to all, the repairs ride on top of the controlled rate, the \
    receivers' 2 Mbit/s links overflow and their loss rises well above the links' 1% (row h against row e). The \
    reaction is measured at the one change of the two scenarios that have one (a receiver joining behind a 200 kbit/s link; \
    cross traffic moving to the other path) as the time until a 1 s bin of the session's rate is within 1.3 times \
    the new worst path's available bandwidth. Bytes on the source's link count every packet the session sent or \
    received there, IP and UDP headers included, per payload byte the median receiver delivered. The parity row \
    runs the uncorrelated-loss scenario with parity repairs over groups of 64 packets (RFC 3208 §11, repairs still \
    charged to the controller): a receiver missing j packets of a group asks for j parity packets, and one parity \
    packet repairs a different loss at every receiver. Its one judged check is Convoy's own target for parity, not a \
    paper's claim: at most 1.2 bytes on the source's link per delivered byte for every controller.";
