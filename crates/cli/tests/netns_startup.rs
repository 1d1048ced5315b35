//! pgmcc's start-up on the wire: transfers in the namespace lab (common/lab.rs) with receiver 1 behind a `tc tbf`
//! bottleneck (64 KB queue) and the others unshaped, under `convoy send --pgmcc-start paper` and
//! `until-congestion`. What counts is the bytes the source puts on its wire per byte of the file: a start-up
//! that overshoots the slow receiver's path costs repairs (crates/proto/src/cc/pgmcc/startup.rs).
//!
//! The quick test runs with `cargo test` (root needed, else SKIPPED). `startup_grid` is the benchmark behind
//! `bench/startup-grid.sh`: bottlenecks of 2, 5, 20 and 50 Mbit/s × 2, 5 and 10 receivers, each start-up, one
//! line per transfer; it asserts only that every copy is byte-exact.

mod common;

use common::lab::Lab;
use common::lab_transfer::transfer_to_all;
use common::{bytes, Scratch};
use std::fs;
use std::time::Duration;

/// What one transfer cost.
struct Cell {
    /// Bytes the source put on its wire (UDP payload plus 28 bytes of IPv4 and UDP header per datagram) per byte
    /// of the file.
    wire_per_data: f64,
    goodput_mbit: f64,
    repairs: u64,
    /// Packets the bottleneck dropped.
    lost: u64,
    acker_changes: u64,
}

/// A file of about `seconds` at `rate_mbit`, at least 2 MB, to `receivers` receivers, receiver 1 behind
/// `rate_mbit`; `None` without root.
fn transfer(
    tag: &str,
    rate_mbit: u32,
    receivers: usize,
    start: &str,
    seconds: u64,
) -> Option<Cell> {
    let lab = Lab::new(tag, receivers)?;
    lab.shape(1, &format!("{rate_mbit}mbit"), 65_536).unwrap();
    let dir = Scratch::new(&format!("netns-startup-{tag}"));
    let len = (u64::from(rate_mbit) * 125_000 * seconds).max(2_000_000) as usize;
    let src = dir.0.join("data.bin");
    fs::write(&src, bytes(len as u64, len)).unwrap();
    let limit = Duration::from_secs(120 + 4 * seconds);
    let s = transfer_to_all(
        &lab,
        &dir,
        &src,
        receivers,
        limit,
        &["--pgmcc-start", start],
    );
    let wire = s["wire_bytes"].as_f64().unwrap();
    let datagrams = s["io"]["datagrams_sent"].as_f64().unwrap();
    Some(Cell {
        wire_per_data: (wire + 28.0 * datagrams) / len as f64,
        goodput_mbit: s["goodput_bps"].as_f64().unwrap() / 1e6,
        repairs: common::lab_transfer::repairs(&s),
        lost: lab.shaped_drops(1).unwrap_or(0),
        acker_changes: s["acker_changes"].as_u64().unwrap(),
    })
}

fn line(rate_mbit: u32, receivers: usize, start: &str, c: &Cell) -> String {
    format!(
        "{rate_mbit:>4} Mbit/s {receivers:>3} receivers {start:<17} wire/data {:.3}  goodput {:>6.2} Mbit/s  \
         repairs {:>5} for {:>5} lost  acker changes {}",
        c.wire_per_data, c.goodput_mbit, c.repairs, c.lost, c.acker_changes
    )
}

/// Five receivers, one behind 5 Mbit/s, `--pgmcc-start until-congestion`: every copy byte-exact
/// (`transfer_to_all` checks) and at most 1.15 bytes on the source's wire per byte of the file (issue 21's
/// target; 1.063–1.067 on a quiet machine, at most 1.086 in ten runs beside two busy loops on this 2-core
/// machine, docs/pgmcc-startup.md).
#[test]
fn until_congestion_through_a_5mbit_bottleneck_is_byte_exact_within_1_15() {
    let Some(c) = transfer("su", 5, 5, "until-congestion", 6) else {
        return;
    };
    eprintln!("{}", line(5, 5, "until-congestion", &c));
    assert!(
        c.wire_per_data <= 1.15,
        "wire/data {:.3} over 1.15",
        c.wire_per_data
    );
}

#[test]
#[ignore = "benchmark (several minutes): run by bench/startup-grid.sh"]
fn startup_grid() {
    let list = |var: &str, default: &str| -> Vec<String> {
        std::env::var(var)
            .unwrap_or_else(|_| default.into())
            .split([',', ' '])
            .filter(|x| !x.is_empty())
            .map(str::to_string)
            .collect()
    };
    let rates = list("CONVOY_GRID_MBIT", "2,5,20,50");
    let receivers = list("CONVOY_GRID_RECEIVERS", "2,5,10");
    let starts = list("CONVOY_GRID_STARTS", "paper,until-congestion");
    let runs: usize = std::env::var("CONVOY_GRID_RUNS").map_or(1, |v| v.parse().unwrap());
    for rate in &rates {
        for n in &receivers {
            for start in &starts {
                for _ in 0..runs {
                    let (rate, n): (u32, usize) = (rate.parse().unwrap(), n.parse().unwrap());
                    let Some(c) = transfer("gr", rate, n, start, 6) else {
                        return;
                    };
                    println!("{}", line(rate, n, start, &c));
                }
            }
        }
    }
}
