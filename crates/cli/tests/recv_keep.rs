//! `convoy recv --keep` on loopback: one receiver that stays up takes transfer after transfer, byte-exact, logs a
//! line for each, and ends cleanly on SIGTERM, also in the middle of a transfer (whose verified blocks stay in
//! `NAME.partial`). Source on 127.0.0.1, receiver on 127.0.0.2, TTL 0: nothing leaves the host.

use std::fs;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod common;

use common::{bytes, loopback_send, wait, Guard, Scratch, BIN};

/// A port and group unlikely to collide with other tests or runs; `offset` apart for each test.
fn group(offset: u16) -> String {
    let port = 24_000 + (std::process::id() % 2_000) as u16 * 2 + offset;
    format!("239.255.77.{}:{port}", (port % 250) + 1)
}

fn keep_receiver(group: &str, out: &Path) -> Child {
    Command::new(BIN)
        .args([
            "recv",
            "--keep",
            "--group",
            group,
            "--iface",
            "127.0.0.2",
            "--quiet",
        ])
        .arg("--out")
        .arg(out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Send `file` to the one receiver, which must have announced itself; the send must succeed.
fn send_to_one(group: &str, file: &Path, extra: &[&str]) {
    let args = [&["--wait-receivers", "1", "--wait", "30s"], extra].concat();
    let out = wait(loopback_send(group, file, &args), Duration::from_secs(120));
    assert!(
        out.status.success(),
        "send {}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// SIGTERM to `child`, by the `kill` command (no unsafe code in tests).
fn terminate(child: &Child) {
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn recv_keep_takes_three_transfers_in_a_row_and_ends_on_sigterm() {
    let dir = Scratch::new("recv-keep");
    let g = group(0);
    let out = dir.0.join("out");
    let mut rx = Guard(Some(keep_receiver(&g, &out)));
    let sizes = [200_000usize, 1_500_000, 40_000];
    for (k, size) in sizes.iter().enumerate() {
        let file = dir.0.join(format!("f{k}.bin"));
        fs::write(&file, bytes(k as u64 + 1, *size)).unwrap();
        send_to_one(&g, &file, &[]);
    }
    for k in 0..sizes.len() {
        let name = format!("f{k}.bin");
        let got = fs::read(out.join(&name)).unwrap_or_default();
        assert!(
            got == fs::read(dir.0.join(&name)).unwrap(),
            "{name} is not byte-exact"
        );
    }
    let child = rx.take();
    terminate(&child);
    let started = Instant::now();
    let done = wait(child, Duration::from_secs(15));
    let log = String::from_utf8_lossy(&done.stderr);
    assert!(done.status.success(), "recv --keep: {log}");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "ended {:?} after SIGTERM",
        started.elapsed()
    );
    let lines: Vec<&str> = log.lines().filter(|l| l.starts_with("transfer ")).collect();
    assert_eq!(lines.len(), 3, "one line per transfer:\n{log}");
    assert!(lines.iter().all(|l| l.ends_with(": complete")), "{log}");
    assert!(log.contains("stopped after 3 transfer(s)"), "{log}");
}

#[test]
fn recv_keep_stopped_mid_transfer_keeps_the_verified_blocks() {
    let dir = Scratch::new("recv-keep-stop");
    let g = group(1);
    let out = dir.0.join("out");
    let mut rx = Guard(Some(keep_receiver(&g, &out)));
    let file = dir.0.join("big.bin");
    fs::write(&file, bytes(9, 4_000_000)).unwrap();
    // 4 MB at a fixed 4 Mbit/s: about 8 s, stopped after 3.
    let mut tx = Guard(Some(loopback_send(
        &g,
        &file,
        &[
            "--wait-receivers",
            "1",
            "--wait",
            "30s",
            "--cc",
            "fixed",
            "--rate",
            "4Mbit",
        ],
    )));
    let partial = out.join("big.bin.partial");
    let until = Instant::now() + Duration::from_secs(30);
    while !partial.exists() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_secs(3));
    let child = rx.take();
    terminate(&child);
    let done = wait(child, Duration::from_secs(15));
    let log = String::from_utf8_lossy(&done.stderr);
    assert!(done.status.success(), "recv --keep: {log}");
    assert!(
        log.contains("stopped by a signal (incomplete: big.bin)"),
        "{log}"
    );
    assert!(log.contains("stopped after 1 transfer(s)"), "{log}");
    assert!(
        partial.exists(),
        "the interrupted file stays as big.bin.partial"
    );
    assert!(!out.join("big.bin").exists());
    tx.kill();
}
