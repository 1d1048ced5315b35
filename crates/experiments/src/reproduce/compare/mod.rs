//! compare-matrix: pgmcc, TFMCC and the agent scheme (`aimd`) on the same scenarios (shared/experiments.md, "Head
//! to head", what no seed paper did). Every scenario is written once, for pgmcc, and runs with each controller
//! (`--set session.m.cc=…`), each with its defaults and PGM's repairs on, as a file transfer runs them. The table
//! gives, per scenario and controller over all the seeds run, the mean and the range of: the multicast/TCP
//! throughput ratio, the coefficient of variation of the rate, the time to react to a change, feedback packets per
//! data packet, and the source's bytes per delivered byte; a generated reading says what it shows for bulk
//! transfer and for smooth streams.

mod figure;
mod metrics;
mod table;

use super::experiment::{Experiment, RunPlan};

/// The session's name in every comparison scenario.
const SESSION: &str = "m";
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
];

/// The head-to-head comparison.
pub fn experiments() -> Vec<Experiment> {
    vec![Experiment {
        id: "compare-matrix",
        section: "Head to head",
        source: "shared/experiments.md, \"Head to head\" (no seed paper)",
        claim: "pgmcc, TFMCC and the agent scheme on the same scenarios, in one table: multicast/TCP throughput ratio, \
                coefficient of variation of the rate, time to react to a change, feedback packets per data packet, \
                and the source's bytes per delivered byte.",
        runs: RUNS,
        needs: &[],
        judge: table::judge,
        figures: Some(figure::draw),
        note: NOTE,
    }]
}

const NOTE: &str = "A table, not a claim: its checks fail only when a figure cannot be computed. The scenarios \
    (scenarios/cmp-*.toml) give their choices. Every controller runs with PGM's repairs on, as a file transfer runs. \
    Found with this table: Convoy's source sends repairs beside the controlled rate for every controller, pgmcc \
    included (RDATA is metered only by the session's optional rate limit, `rate_max`, not by the controller, \
    although the pgmcc paper and Shi and Waldvogel §5.4 count retransmissions against the congestion control). \
    With 100 receivers losing 1% each (uncorrelated-loss) nearly every packet is NAKed by someone and repaired to \
    all: the source sends 8 (pgmcc, TFMCC) to 32 (aimd) payload bytes per byte delivered, the receivers' 2 Mbit/s \
    links carry the repairs, and their loss rises from 1% to about 9%. The reaction is measured at the one change of \
    the two scenarios that have one (a receiver joining behind a 200 kbit/s link; cross traffic moving to the other \
    path) as the time until a 1 s bin of the session's rate is within 1.3 times the new worst path's available \
    bandwidth.";
