//! The receiver named as limiting the session (`convoy send --status-file`, the progress line, the metrics) when
//! the slow path changes mid-transfer, in the namespace lab (common/lab.rs): receiver 1 behind 5 Mbit/s and
//! receiver 2 behind 20 Mbit/s, then, once the status has named receiver 1 for a few seconds, receiver 1's path
//! opens to 50 Mbit/s and receiver 2's narrows to 2 Mbit/s. The status names receiver 1 before the change and receiver 2 after it. Needs
//! root; without it the test prints SKIPPED and passes. `#[ignore]`d (about 40 s; `scripts/test.sh` runs it).
//! `CONVOY_NETNS_CC` names the controller (default pgmcc).

mod common;

use common::lab::Lab;
use common::lab_transfer::{file, receivers_have_copies, recv, send, watch_status};
use common::{wait, Guard, Scratch};
use std::path::PathBuf;
use std::time::Duration;

/// The paths change once the status has named receiver 1 this many times in a row, this long after the send
/// began at the earliest: the controller then follows the slow path (TFMCC's slowstart, which follows nobody's
/// path yet, is over).
const STEADY_STATUSES: usize = 3;
const CHANGE_S: f64 = 6.0;
/// How long after the change the controller may take to follow the new slowest path.
const SETTLE_S: f64 = 5.0;

#[test]
#[ignore = "about 40 s: run by scripts/test.sh"]
fn the_limiting_receiver_follows_the_slow_path_when_it_moves() {
    let Some(lab) = Lab::new("lm", 2) else { return };
    lab.shape(1, "5mbit", 65_536).unwrap();
    lab.shape(2, "20mbit", 131_072).unwrap();
    let cc = std::env::var("CONVOY_NETNS_CC").unwrap_or_else(|_| "pgmcc".into());
    let dir = Scratch::new(&format!("netns-limiting-{cc}"));
    let src = file(&dir, "data.bin", 10_000_000);
    let outs: Vec<PathBuf> = (1..=2).map(|i| dir.0.join(format!("out{i}"))).collect();
    let mut rx: Vec<Guard> = (1..=2).map(|i| recv(&lab, i, &outs[i - 1], &[])).collect();
    let (stats, status) = (dir.0.join("send.json"), dir.0.join("status.json"));
    let mut tx = send(
        &lab,
        &src,
        &stats,
        &[
            "--cc",
            &cc,
            "--wait-receivers",
            "2",
            "--wait",
            "30s",
            "--status-file",
            status.to_str().unwrap(),
        ],
    );
    // (seconds since the send began, the limiting receiver named)
    let mut named: Vec<(f64, Option<String>)> = Vec::new();
    let mut changed_at = None;
    watch_status(&mut tx, &status, Duration::from_secs(300), |t, v| {
        named.push((t, v["limiting"]["addr"].as_str().map(str::to_string)));
        let steady = named.len() >= STEADY_STATUSES
            && named[named.len() - STEADY_STATUSES..]
                .iter()
                .all(|(_, a)| a.as_deref() == Some(lab.addr(1).as_str()));
        if changed_at.is_none() && t >= CHANGE_S && steady {
            lab.shape(1, "50mbit", 327_680).unwrap();
            lab.shape(2, "2mbit", 32_768).unwrap();
            changed_at = Some(t);
        }
    });
    let out = wait(tx.take(), Duration::from_secs(10));
    assert!(
        out.status.success(),
        "send: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    receivers_have_copies(&mut rx, &src, &outs);
    let change = changed_at.expect("the transfer lasted until the change");
    // The last status comes after the close, when no receiver limits anything.
    named.pop();
    let (slow_before, slow_after) = (lab.addr(1), lab.addr(2));
    let before: Vec<&Option<String>> = named
        .iter()
        .filter(|(t, _)| *t >= change - 3.0 && *t < change)
        .map(|(_, a)| a)
        .collect();
    let after: Vec<&Option<String>> = named
        .iter()
        .filter(|(t, _)| *t >= change + SETTLE_S)
        .map(|(_, a)| a)
        .collect();
    eprintln!("{cc}: changed at {change:.1} s; named before {before:?}, after {after:?}");
    assert!(
        !before.is_empty()
            && before
                .iter()
                .all(|a| a.as_deref() == Some(slow_before.as_str())),
        "before the change the status names {slow_before}: {before:?}"
    );
    assert!(
        !after.is_empty()
            && after
                .iter()
                .all(|a| a.as_deref() == Some(slow_after.as_str())),
        "from {SETTLE_S} s after the change the status names {slow_after}: {after:?}"
    );
}
