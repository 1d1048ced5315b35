//! `convoy-heap-probe [--quick]`: the multicast stars' memory per receiver from a counting allocator's live
//! heap bytes, which an RSS reading (`convoy bench sim`) cannot separate from memory the allocator keeps
//! after it was freed (issue 3, "under 1 KB of simulator state per receiver beyond the endpoint itself").
//!
//! In one process, one after the other: star-1000 cut to one receiver, star-1000 and star-10000, each read
//! when its source has sent 5000 data packets, and 1000 engine receivers on their own fed a lone receiver's
//! traffic (`convoy bench sim-endpoint`'s method). Live bytes are exact whatever ran before, so the readings
//! can share the process. Prints one JSON object. `--quick` skips star-10000 (about three minutes).

use convoy_experiments::bench::child::{endpoint_growth, star_reading, StarReading};
use convoy_experiments::bench::{ENDPOINT_RECEIVERS, ENDPOINT_SECONDS, STAR_RSS_AT_PACKETS};
use stats_alloc::{StatsAlloc, INSTRUMENTED_SYSTEM};
use std::alloc::System;
use std::process::ExitCode;

/// Counts every allocation of this probe (only this binary; `convoy` itself uses the system allocator as is).
#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Heap bytes allocated and not yet freed.
fn live() -> u64 {
    let s = GLOBAL.stats();
    s.bytes_allocated.saturating_sub(s.bytes_deallocated) as u64
}

fn per_receiver(big: &StarReading, small: &StarReading, f: fn(&StarReading) -> u64) -> f64 {
    (f(big) as f64 - f(small) as f64) / (big.receivers - small.receivers).max(1) as f64
}

fn run(quick: bool) -> Result<serde_json::Value, String> {
    let k = STAR_RSS_AT_PACKETS;
    let one_sets = [
        "fanout.H.count=1".to_string(),
        "session.pgm.receiver_range.0.last=1".to_string(),
    ];
    let one = star_reading("star-1000", k, &one_sets, &live)?;
    let thousand = star_reading("star-1000", k, &[], &live)?;
    let endpoint = endpoint_growth(ENDPOINT_RECEIVERS, ENDPOINT_SECONDS, &live, false)?;
    let mut out = serde_json::json!({
        "measure": "live heap bytes (counting allocator)",
        "read_at_packets": k,
        "endpoint_bytes": endpoint.warm_bytes,
        "endpoint_fresh_bytes": endpoint.fresh_bytes,
        "growth_per_receiver_1_to_1000_bytes": per_receiver(&thousand, &one, |r| r.at),
        "sim_state_per_receiver_1_to_1000_bytes":
            per_receiver(&thousand, &one, |r| r.at) - endpoint.warm_bytes,
        "scenario_per_receiver_1_to_1000_bytes": per_receiver(&thousand, &one, |r| r.loaded),
        "readings": [one.clone(), thousand.clone()],
    });
    if !quick {
        let big = star_reading("star-10000", k, &[], &live)?;
        let growth = per_receiver(&big, &thousand, |r| r.at);
        out["growth_per_receiver_bytes"] = growth.into();
        out["sim_state_per_receiver_bytes"] = (growth - endpoint.warm_bytes).into();
        out["built_per_receiver_bytes"] = per_receiver(&big, &thousand, |r| r.built).into();
        out["in_flight_per_receiver"] =
            ((big.in_flight as f64 - thousand.in_flight as f64) / 9000.0).into();
        if let Some(r) = out["readings"].as_array_mut() {
            r.push(serde_json::to_value(&big).map_err(|e| e.to_string())?);
        }
    }
    Ok(out)
}

fn main() -> ExitCode {
    let quick = std::env::args().any(|a| a == "--quick");
    match run(quick) {
        Ok(v) => {
            println!("{v}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("convoy-heap-probe: {e}");
            ExitCode::FAILURE
        }
    }
}
