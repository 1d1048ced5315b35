//! `convoy send --status-file` on loopback: while the transfer runs the file is rewritten, always whole, with
//! progress that only grows and the receiver the controller follows; at the end it agrees with `--stats-json`.
//! Source on 127.0.0.1, receivers on 127.0.0.2 and .3, TTL 0: nothing leaves the host.

use std::fs;
use std::path::PathBuf;
use std::time::{Duration, Instant};

mod common;

use common::{bytes, loopback_recv, loopback_send, wait, Guard, Scratch};

fn group() -> String {
    let port = 29_000 + (std::process::id() % 2_000) as u16;
    format!("239.255.79.{}:{port}", (port % 250) + 1)
}

#[test]
fn the_status_file_follows_a_send_and_ends_as_its_statistics() {
    let dir = Scratch::new("send-status");
    let g = group();
    let file = dir.0.join("f.bin");
    fs::write(&file, bytes(5, 6_000_000)).unwrap();
    let outs: Vec<PathBuf> = (0..2).map(|i| dir.0.join(format!("out{i}"))).collect();
    let mut rx: Vec<Guard> = (0..2)
        .map(|i| {
            Guard(Some(loopback_recv(
                &g,
                2 + i as u8,
                &outs[i],
                &["--start-timeout", "60s"],
            )))
        })
        .collect();
    let status = dir.0.join("status.json");
    let stats = dir.0.join("stats.json");
    // 6 MB at no more than 16 Mbit/s: at least 3 s of status.
    let tx = loopback_send(
        &g,
        &file,
        &[
            "--wait-receivers",
            "2",
            "--wait",
            "30s",
            "--rate-max",
            "16Mbit",
            "--status-file",
            status.to_str().unwrap(),
            "--stats-json",
            stats.to_str().unwrap(),
        ],
    );
    let mut seen: Vec<serde_json::Value> = Vec::new();
    let mut tx = Guard(Some(tx));
    let started = Instant::now();
    while tx.0.as_mut().unwrap().try_wait().unwrap().is_none()
        && started.elapsed() < Duration::from_secs(120)
    {
        if let Ok(text) = fs::read_to_string(&status) {
            let v: serde_json::Value = serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("a status file read whole parses: {e}\n{text}"));
            if seen.last() != Some(&v) {
                seen.push(v);
            }
        }
        std::thread::sleep(Duration::from_millis(150));
    }
    let done = wait(tx.take(), Duration::from_secs(5));
    assert!(
        done.status.success(),
        "send: {}",
        String::from_utf8_lossy(&done.stderr)
    );
    for r in &mut rx {
        let out = wait(r.take(), Duration::from_secs(60));
        assert!(
            out.status.success(),
            "recv: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert!(
        seen.len() >= 3,
        "the status was rewritten while the send ran: {} versions",
        seen.len()
    );
    let bytes_seen: Vec<u64> = seen.iter().map(|v| v["bytes"].as_u64().unwrap()).collect();
    assert!(
        bytes_seen.windows(2).all(|w| w[0] <= w[1]),
        "progress only grows: {bytes_seen:?}"
    );
    let receivers = ["127.0.0.2", "127.0.0.3"];
    let limiting: Vec<&str> = seen
        .iter()
        .filter_map(|v| v["limiting"]["addr"].as_str())
        .collect();
    assert!(!limiting.is_empty(), "the limiting receiver is named");
    assert!(
        limiting.iter().all(|a| receivers.contains(a)),
        "{limiting:?}"
    );
    let last = fs::read_to_string(&status).unwrap();
    let last: serde_json::Value = serde_json::from_str(&last).unwrap();
    let stats: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&stats).unwrap()).unwrap();
    assert_eq!(
        last["bytes"], stats["bytes"],
        "the last status has the statistics' bytes"
    );
    assert_eq!(last["transfer_id"], stats["transfer_id"]);
    let states: Vec<&str> = last["receivers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["state"].as_str().unwrap())
        .collect();
    assert_eq!(states, ["complete", "complete"], "{last}");
    assert!(!dir.0.join("status.json.tmp").exists());
    for out in &outs {
        assert!(fs::read(out.join("f.bin")).unwrap() == fs::read(&file).unwrap());
    }
}
