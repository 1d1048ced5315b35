//! compare-matrix: pgmcc, TFMCC and the agent scheme (`aimd`) on the same scenarios (docs/experiments.md, "Head
//! to head", what no seed paper did). Every scenario is written once, for pgmcc, and runs with each controller
//! (`--set session.m.cc=…`), each with its defaults and PGM's repairs on, charged to the controller
//! (`repairs = "controller"`), as a file transfer runs them. One more row runs the uncorrelated-loss scenario with
//! repairs beside the controller (the pgmcc paper's §3.8) to show what charging them changes. The table gives, per
//! scenario and controller over all the seeds run, the mean and the range of: the multicast/TCP throughput ratio,
//! the coefficient of variation of the rate, the time to react to a change, feedback packets per data packet, the
//! bytes on the source's link per delivered byte and the receivers' loss; a generated reading says what it shows
//! for bulk transfer, smooth streams and changes.

mod figure;
mod metrics;
mod reading;
mod rows;
mod table;

use super::experiment::{Ctx, Experiment, RunPlan};
use std::path::Path;

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
/// The controllers compared, in table order.
pub const CONTROLLERS: [&str; 3] = ["pgmcc", "tfmcc", "aimd"];

/// Three runs per scenario row, one per controller: variants `<row>-<controller>`.
macro_rules! matrix {
    ($( ($row:literal, $file:literal $(, $set:literal)*) ),* $(,)?) => {
        &[ $(
            RunPlan { variant: concat!($row, "-pgmcc"), scenario: $file, sets: &[$($set,)* "session.m.cc=pgmcc"] },
            RunPlan { variant: concat!($row, "-tfmcc"), scenario: $file, sets: &[$($set,)* "session.m.cc=tfmcc"] },
            RunPlan { variant: concat!($row, "-aimd"), scenario: $file, sets: &[$($set,)* "session.m.cc=aimd"] },
        )* ]
    };
}

/// The rows, in table order (experiments.md: one bottleneck with 1, 4 and 15 TCP flows; 16 tail circuits; 100
/// receivers with uncorrelated 1% loss; a late-joining slow receiver; a bottleneck that moves between two paths).
const RUNS: &[RunPlan] = matrix![
    ("a-bottleneck-1tcp", "cmp-bottleneck.toml", "tcp.t.count=1"),
    ("b-bottleneck-4tcp", "cmp-bottleneck.toml", "tcp.t.count=4"),
    ("c-bottleneck-15tcp", "cmp-bottleneck.toml", "tcp.t.count=15"),
    ("d-tail-circuits", "cmp-tail-circuits.toml"),
    ("e-uncorrelated-loss", "cmp-uncorrelated-loss.toml"),
    ("f-late-join", "cmp-late-join.toml"),
    ("g-moving-bottleneck", "cmp-moving-bottleneck.toml"),
    ("h-uncorrelated-loss-repairs-beside-cc", "cmp-uncorrelated-loss.toml", "session.m.repairs=rate-limit"),
    ("i-uncorrelated-loss-parity", "cmp-uncorrelated-loss.toml", "session.m.parity=64"),
];

/// The head-to-head comparison.
pub fn experiments() -> Vec<Experiment> {
    vec![Experiment {
        id: "compare-matrix",
        section: "Head to head",
        source: "docs/experiments.md, \"Head to head\" (no seed paper)",
        claim: "pgmcc, TFMCC and the agent scheme on the same scenarios, in one table: multicast/TCP throughput ratio, \
                coefficient of variation of the rate, time to react to a change, feedback packets per data packet, \
                and the source's bytes per delivered byte.",
        runs: RUNS,
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
    pgmcc lends it a token for one smoothed RTT, TFMCC and aimd pace it at their rate; Shi and Waldvogel §5.4). The \
    last row runs the uncorrelated-loss scenario with repairs beside the controller instead, metered only by the \
    session's optional `rate_max`, as the pgmcc paper's §3.8 sends them: with 100 receivers losing 1% each nearly \
    every packet is NAKed by someone and repaired to all, the repairs ride on top of the controlled rate, the \
    receivers' 2 Mbit/s links overflow and their loss rises from the links' 1% to several times that. The reaction \
    is measured at the one change of the two scenarios that have one (a receiver joining behind a 200 kbit/s link; \
    cross traffic moving to the other path) as the time until a 1 s bin of the session's rate is within 1.3 times \
    the new worst path's available bandwidth. Bytes on the source's link count every packet the session sent or \
    received there, IP and UDP headers included, per payload byte the median receiver delivered. The parity row \
    runs the uncorrelated-loss scenario with parity repairs over groups of 64 packets (RFC 3208 §11, repairs still \
    charged to the controller): a receiver missing j packets of a group asks for j parity packets, and one parity \
    packet repairs a different loss at every receiver. Its one judged check is Convoy's own target for parity, not a \
    paper's claim: at most 1.2 bytes on the source's link per delivered byte for every controller.";
