//! Transfers in the namespace lab (`lab.rs`): `convoy recv` on receiver hosts, `convoy send` on host 0, and
//! checks of what arrived.

use super::lab::Lab;
use super::{bytes, wait, Guard, Scratch, BIN};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

/// The session's UDP port.
pub const PORT: u16 = 7500;
/// The session's group and port.
pub const GROUP: &str = "239.192.77.1:7500";

/// `convoy recv` on `host` into `out`, with `extra` options; `CONVOY_NETNS_RECV_STATS` (a directory) adds
/// `--stats-json DIR/recvHOST.json`, for experiments.
pub fn recv(lab: &Lab, host: usize, out: &Path, extra: &[&str]) -> Guard {
    let stats: Vec<String> = std::env::var("CONVOY_NETNS_RECV_STATS")
        .map(|d| vec!["--stats-json".into(), format!("{d}/recv{host}.json")])
        .unwrap_or_default();
    let child = lab
        .command(host, BIN)
        .args([
            "recv",
            "--group",
            GROUP,
            "--iface",
            &lab.addr(host),
            "--quiet",
        ])
        .arg("--out")
        .arg(out)
        .args(["--start-timeout", "60s"])
        .args(extra)
        .args(&stats)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    Guard(Some(child))
}

/// Sends; `CONVOY_NETNS_SEND_ARGS` (space-separated) adds options, for experiments.
pub fn send(lab: &Lab, what: &Path, stats: &Path, extra: &[&str]) -> Guard {
    let knobs = std::env::var("CONVOY_NETNS_SEND_ARGS").unwrap_or_default();
    let child = lab
        .command(0, BIN)
        .args(["send", "--group", GROUP, "--iface", &lab.addr(0), "--quiet"])
        .arg(what)
        .arg("--stats-json")
        .arg(stats)
        .args(extra)
        .args(knobs.split_whitespace())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    Guard(Some(child))
}

/// A JSON file.
pub fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

/// Repair packets in a `--stats-json` summary: selective RDATA plus parity (with `--parity`, docs/parity.md).
#[allow(dead_code)]
pub fn repairs(s: &serde_json::Value) -> u64 {
    let count = |k: &str| s["packets"][k].as_u64().unwrap_or(0);
    count("rdata") + count("parity")
}

/// A file of `len` pseudo-random bytes in `dir`.
pub fn file(dir: &Scratch, name: &str, len: usize) -> PathBuf {
    let p = dir.0.join(name);
    fs::write(&p, bytes(len as u64, len)).unwrap();
    p
}

/// Whether two files have the same bytes.
pub fn same(a: &Path, b: &Path) -> bool {
    fs::read(a).ok() == fs::read(b).ok()
}

/// Send `src` from host 0 to receivers on hosts 1..=`n` (receiver K writes into `dir/outK`), wait up to
/// `limit` for the source, check that every receiver exits 0 with a byte-exact copy, and return the source's
/// `--stats-json`.
pub fn transfer_to_all(
    lab: &Lab,
    dir: &Scratch,
    src: &Path,
    n: usize,
    limit: Duration,
    send_extra: &[&str],
) -> serde_json::Value {
    let outs: Vec<PathBuf> = (1..=n).map(|i| dir.0.join(format!("out{i}"))).collect();
    let mut rx: Vec<Guard> = (1..=n).map(|i| recv(lab, i, &outs[i - 1], &[])).collect();
    let stats = dir.0.join("send.json");
    let waiting = n.to_string();
    let mut tx = send(
        lab,
        src,
        &stats,
        &[&["--wait-receivers", &waiting, "--wait", "30s"], send_extra].concat(),
    );
    let tx = wait(tx.take(), limit);
    if !tx.status.success() {
        panic!(
            "send: {}{}",
            String::from_utf8_lossy(&tx.stderr),
            receivers_said(&mut rx)
        );
    }
    receivers_have_copies(&mut rx, src, &outs);
    json(&stats)
}

/// What the receivers that failed wrote on stderr (each waited for up to 60 s), for a failed send's message.
fn receivers_said(rx: &mut [Guard]) -> String {
    let mut said = String::new();
    for (k, r) in rx.iter_mut().enumerate() {
        let Some(child) = r.0.take() else { continue };
        let out = wait(child, Duration::from_secs(60));
        if !out.status.success() {
            said += &format!(
                "\nrecv {} ({}): {}",
                k + 1,
                out.status,
                String::from_utf8_lossy(&out.stderr).trim_end()
            );
        }
    }
    said
}

/// Wait for every receiver to exit 0 with a byte-exact copy of `src` in its `outs` directory.
pub fn receivers_have_copies(rx: &mut [Guard], src: &Path, outs: &[PathBuf]) {
    hosts_have_copies(1, rx, src, outs);
}

/// [`receivers_have_copies`] for receivers on hosts `first`, `first + 1`, … (messages name the host).
pub fn hosts_have_copies(first: usize, rx: &mut [Guard], src: &Path, outs: &[PathBuf]) {
    for (k, r) in rx.iter_mut().enumerate() {
        let host = first + k;
        let r = wait(r.take(), Duration::from_secs(60));
        assert!(
            r.status.success(),
            "recv {host}: {}",
            String::from_utf8_lossy(&r.stderr)
        );
        assert!(
            same(src, &outs[k].join("data.bin")),
            "receiver {host} differs"
        );
    }
}

/// Read the source's `--status-file` at `status` every 100 ms while `tx` runs (at most `limit`) and hand each new
/// status to `on_status` with its `seconds`, in order.
#[allow(dead_code)]
pub fn watch_status(
    tx: &mut Guard,
    status: &Path,
    limit: Duration,
    mut on_status: impl FnMut(f64, serde_json::Value),
) {
    let started = std::time::Instant::now();
    let mut last = f64::NEG_INFINITY;
    while tx.0.as_mut().unwrap().try_wait().unwrap().is_none() && started.elapsed() < limit {
        let v = fs::read_to_string(status)
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok());
        if let Some(v) = v {
            let t = v["seconds"].as_f64().unwrap_or(0.0);
            if t > last {
                last = t;
                on_status(t, v);
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}
