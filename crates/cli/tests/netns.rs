//! `convoy send` / `convoy recv` across network namespaces the tests create and remove (common/lab.rs): a
//! source and three receivers on a Linux bridge. Needs root; without it every test prints SKIPPED and passes.
//!
//! The quick fault tests run with `cargo test`. The long ones (100 MB through a 20 Mbit/s bottleneck, TCP
//! competition for 30 s, resuming a 100 MB transfer) are `#[ignore]`d and run by `scripts/test.sh` with `--ignored` (in release mode).

mod common;

use common::iperf::shares_beside_tcp_reno;
use common::lab::Lab;
use common::lab_transfer::{
    file, hosts_have_copies, json, receivers_have_copies, recv, repairs, send, transfer_to_all,
    PORT,
};
use common::{wait, Guard, Scratch, BIN};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

/// Transfer `len` bytes to three receivers, the `lossy` one dropping `percent` % of its packets.
fn transfer_with_loss(tag: &str, percent: u32) {
    let Some(lab) = Lab::new(tag, 3) else { return };
    lab.random_loss(1, PORT, percent).unwrap();
    let dir = Scratch::new(&format!("netns-{tag}"));
    let src = file(&dir, "data.bin", 20_000_000);
    let s = transfer_to_all(&lab, &dir, &src, 3, Duration::from_secs(240), &[]);
    eprintln!(
        "{percent}% loss: {:.1} Mbit/s, {} selective and {} parity repairs, {} NAKs, {} timeouts, {} acker changes",
        s["goodput_bps"].as_f64().unwrap() / 1e6,
        s["packets"]["rdata"],
        s["packets"]["parity"],
        s["naks"],
        s["timeouts"],
        s["acker_changes"]
    );
    // Selective or parity repairs (with `--parity`, docs/parity.md): either kind counts.
    assert!(repairs(&s) > 0, "losses were repaired: {s}");
}

#[test]
fn random_loss_1_percent_is_repaired() {
    transfer_with_loss("l1", 1);
}

#[test]
fn random_loss_5_percent_is_repaired() {
    transfer_with_loss("l5", 5);
}

#[test]
#[ignore = "long (about 20 s in release): run by scripts/test.sh"]
fn a_file_50_times_the_transmit_window_survives_1_percent_loss() {
    // A 1000-packet transmit window (1.4 MB) and a 70 MB file: almost every repair is re-read from the file,
    // and the lossy receiver needs repairs for the whole transfer.
    let Some(lab) = Lab::new("big", 3) else {
        return;
    };
    lab.random_loss(1, PORT, 1).unwrap();
    let dir = Scratch::new("netns-bigfile");
    let src = file(&dir, "data.bin", 70_000_000);
    let extra = ["--txw-packets", "1000"];
    let s = transfer_to_all(&lab, &dir, &src, 3, Duration::from_secs(300), &extra);
    eprintln!(
        "70 MB, window 1000 packets, 1% loss: {:.1} Mbit/s, {} repairs ({} from the file), {} acker changes",
        s["goodput_bps"].as_f64().unwrap() / 1e6,
        repairs(&s),
        s["app_repairs"],
        s["acker_changes"]
    );
    assert!(
        s["app_repairs"].as_u64().unwrap() > 0,
        "repairs came from the file: {s}"
    );
}

#[test]
fn killed_acker_is_replaced_and_the_others_finish() {
    let Some(lab) = Lab::new("ak", 3) else { return };
    // Receiver 1 sits behind the bottleneck, so it is the slowest and becomes the acker.
    lab.shape(1, "20mbit", 65_536).unwrap();
    let dir = Scratch::new("netns-acker");
    let src = file(&dir, "data.bin", 20_000_000);
    let outs: Vec<PathBuf> = (1..=3).map(|i| dir.0.join(format!("out{i}"))).collect();
    let mut rx: Vec<Guard> = (1..=3).map(|i| recv(&lab, i, &outs[i - 1], &[])).collect();
    let stats = dir.0.join("send.json");
    let mut tx = send(
        &lab,
        &src,
        &stats,
        &[
            "--wait-receivers",
            "3",
            "--wait",
            "30s",
            "--finish-timeout",
            "5s",
        ],
    );
    std::thread::sleep(Duration::from_secs(3));
    rx[0].kill();
    let tx = wait(tx.take(), Duration::from_secs(240));
    let err = String::from_utf8_lossy(&tx.stderr);
    assert_eq!(
        tx.status.code(),
        Some(2),
        "the killed receiver did not finish: {err}"
    );
    assert!(
        err.contains(&format!("receiver {} did not finish", lab.addr(1))),
        "{err}"
    );
    hosts_have_copies(2, &mut rx[1..], &src, &outs[1..]);
    let s = json(&stats);
    assert!(
        s["acker_changes"].as_u64().unwrap() >= 2,
        "a new acker was elected: {s}"
    );
}

#[test]
#[ignore = "long (about a minute): run by scripts/test.sh"]
fn bottleneck_20mbit_100mb_byte_exact_near_capacity() {
    let Some(lab) = Lab::new("bn", 3) else { return };
    lab.shape(1, "20mbit", 65_536).unwrap();
    let dir = Scratch::new("netns-100mb");
    let src = file(&dir, "data.bin", 100_000_000);
    let s = transfer_to_all(&lab, &dir, &src, 3, Duration::from_secs(600), &[]);
    let goodput = s["goodput_bps"].as_f64().unwrap();
    let wire = s["wire_bytes"].as_f64().unwrap();
    // UDP payload bytes sent, plus 28 bytes of IPv4 and UDP header per datagram.
    let datagrams = s["io"]["datagrams_sent"].as_f64().unwrap();
    let on_wire = wire + 28.0 * datagrams;
    let overhead = on_wire / 100_000_000.0;
    eprintln!(
        "100 MB through 20 Mbit/s: goodput {:.2} Mbit/s, wire/data {overhead:.3}, repairs {}, acker changes {}",
        goodput / 1e6,
        repairs(&s),
        s["acker_changes"]
    );
    assert!(goodput >= 0.75 * 20e6, "goodput {goodput}");
    assert!(overhead <= 1.15, "wire/data {overhead}");
}

/// A receiver killed halfway through a 100 MB transfer keeps the verified blocks of its `.partial` file; the
/// re-run with `--resume` moves less than 60% of the file's bytes on the source's wire (the other receiver
/// completed the first run and needs nothing), and both copies are byte-exact.
#[test]
#[ignore = "long (about a minute): run by scripts/test.sh"]
fn a_receiver_killed_halfway_resumes_and_the_rerun_moves_under_60_percent() {
    let Some(lab) = Lab::new("rs", 2) else { return };
    let dir = Scratch::new("netns-resume");
    let len = 100_000_000;
    let src = file(&dir, "data.bin", len);
    let outs: Vec<PathBuf> = (1..=2).map(|i| dir.0.join(format!("out{i}"))).collect();
    let mut rx: Vec<Guard> = (1..=2).map(|i| recv(&lab, i, &outs[i - 1], &[])).collect();
    let stats = dir.0.join("send1.json");
    let opts = [
        "--wait-receivers",
        "2",
        "--wait",
        "30s",
        "--finish-timeout",
        "3s",
    ];
    let mut tx = send(
        &lab,
        &src,
        &stats,
        &[&opts[..], &["--rate-max", "400Mbit"]].concat(),
    );
    let partial = outs[0].join("data.bin.partial");
    let began = std::time::Instant::now();
    while fs::metadata(&partial).map_or(0, |m| m.len()) < len as u64 / 2 {
        assert!(
            began.elapsed() < Duration::from_secs(120),
            "no progress at receiver 1"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    rx[0].kill();
    let first = wait(tx.take(), Duration::from_secs(240));
    assert_eq!(
        first.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    hosts_have_copies(2, &mut rx[1..], &src, &outs[1..]);

    let mut rx: Vec<Guard> = (1..=2).map(|i| recv(&lab, i, &outs[i - 1], &[])).collect();
    let stats = dir.0.join("send2.json");
    let mut tx = send(&lab, &src, &stats, &[&opts[..], &["--resume"]].concat());
    let second = wait(tx.take(), Duration::from_secs(240));
    assert!(
        second.status.success(),
        "{}",
        String::from_utf8_lossy(&second.stderr)
    );
    receivers_have_copies(&mut rx, &src, &outs);
    let s = json(&stats);
    // UDP payload bytes sent, plus 28 bytes of IPv4 and UDP header per datagram.
    let on_wire =
        s["wire_bytes"].as_f64().unwrap() + 28.0 * s["io"]["datagrams_sent"].as_f64().unwrap();
    eprintln!(
        "re-run after a kill at half: {} of {len} file bytes sent, {} skipped, wire/file {:.3}",
        s["bytes"],
        s["skipped_bytes"],
        on_wire / len as f64
    );
    assert!(
        on_wire < 0.6 * len as f64,
        "the re-run moved {on_wire} bytes"
    );
}

/// One TCP Reno flow (iperf3) and a session to three receivers share a 20 Mbit/s tbf for 30 s, under the
/// controller named by `CONVOY_NETNS_CC` (default pgmcc): the session's rate over TCP's lies in [0.5, 2].
/// `bench/netns-cc.sh` runs it for pgmcc, tfmcc and aimd side by side.
#[test]
#[ignore = "long (about 40 s): run by scripts/test.sh and bench/netns-cc.sh"]
fn shares_a_20mbit_bottleneck_with_tcp() {
    let cc = std::env::var("CONVOY_NETNS_CC").unwrap_or_else(|_| "pgmcc".into());
    let Some(lab) = Lab::new("tcp", 3) else {
        return;
    };
    lab.shape(1, "20mbit", 65_536).unwrap();
    let dir = Scratch::new(&format!("netns-tcp-{cc}"));
    let src = file(&dir, "data.bin", 150_000_000);
    let outs: Vec<PathBuf> = (1..=3).map(|i| dir.0.join(format!("out{i}"))).collect();
    let _rx: Vec<Guard> = (1..=3).map(|i| recv(&lab, i, &outs[i - 1], &[])).collect();
    let stats = dir.0.join("send.json");
    let _tx = send(
        &lab,
        &src,
        &stats,
        &["--wait-receivers", "3", "--wait", "30s", "--cc", &cc],
    );
    // Let the controller settle, then run TCP (Reno: see `common::iperf`; against CUBIC the ratio measured
    // 0.57–1.03 over four runs, against Reno 0.88–1.09 over three) for 30 s, and compare what each got through
    // the shared bottleneck: IP bytes arriving at receiver 1. (Read from what receivers wrote, the session's rate
    // moved in 1 MiB steps, and read at an unshaped receiver it was what the source sent, beyond what the
    // bottleneck passed when the session overran it: one run in about fifteen read 2.04.)
    let Some((convoy, tcp)) = shares_beside_tcp_reno(&lab, 0, 1, PORT, 30) else {
        return;
    };
    let ratio = convoy / tcp;
    eprintln!(
        "{cc} and TCP Reno sharing 20 Mbit/s for 30 s: convoy {:.2} Mbit/s, TCP {:.2} Mbit/s, ratio {ratio:.2}",
        convoy / 1e6,
        tcp / 1e6
    );
    assert!((0.5..=2.0).contains(&ratio), "convoy/TCP = {ratio}");
}

/// The 1 s rates of a growing file, sampled until `done` says the writer finished.
fn rate_samples(path: &Path, mut done: impl FnMut() -> bool) -> Vec<f64> {
    let size = |p: &Path| fs::metadata(p).map_or(0, |m| m.len());
    let mut rates = Vec::new();
    let mut last = (size(path), Instant::now());
    while !done() {
        std::thread::sleep(Duration::from_secs(1));
        let now = (size(path), Instant::now());
        if now.0 > 0 && now.0 >= last.0 {
            rates.push((now.0 - last.0) as f64 * 8.0 / (now.1 - last.1).as_secs_f64());
        }
        last = now;
    }
    rates
}

/// Mean and coefficient of variation of rate samples, ignoring the first and last (partial) seconds.
fn mean_and_cov(rates: &[f64]) -> (f64, f64) {
    let inner = if rates.len() > 4 {
        &rates[1..rates.len() - 1]
    } else {
        rates
    };
    let n = inner.len().max(1) as f64;
    let mean = inner.iter().sum::<f64>() / n;
    let var = inner.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / n;
    (mean, if mean > 0.0 { var.sqrt() / mean } else { 0.0 })
}

/// A 40 MB file to three receivers, receiver 1 behind a 20 Mbit/s tbf, under the controller named by
/// `CONVOY_NETNS_CC` (default tfmcc): byte-exact at every receiver. Prints the goodput and the coefficient of
/// variation of the session's rate in 1 s samples (read at receiver 2, unshaped, which writes data as it
/// arrives); `bench/netns-cc.sh` runs it for pgmcc, tfmcc and aimd side by side. Nothing about speed is asserted.
/// `CONVOY_NETNS_BYTES` changes the file size, `CONVOY_NETNS_DUMP` prints the source's statistics and the samples.
#[test]
#[ignore = "long (about 40 s): run by scripts/test.sh and bench/netns-cc.sh"]
fn controller_through_a_20mbit_bottleneck_byte_exact() {
    let cc = std::env::var("CONVOY_NETNS_CC").unwrap_or_else(|_| "tfmcc".into());
    let Some(lab) = Lab::new("cc", 3) else { return };
    lab.shape(1, "20mbit", 65_536).unwrap();
    let dir = Scratch::new(&format!("netns-cc-{cc}"));
    let len = std::env::var("CONVOY_NETNS_BYTES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40_000_000);
    let src = file(&dir, "data.bin", len);
    let outs: Vec<PathBuf> = (1..=3).map(|i| dir.0.join(format!("out{i}"))).collect();
    let mut rx: Vec<Guard> = (1..=3).map(|i| recv(&lab, i, &outs[i - 1], &[])).collect();
    let stats = dir.0.join("send.json");
    let mut tx = send(
        &lab,
        &src,
        &stats,
        &["--wait-receivers", "3", "--wait", "30s", "--cc", &cc],
    );
    let mut child = tx.take();
    let started = Instant::now();
    let partial = outs[1].join("data.bin.partial");
    let rates = rate_samples(&partial, || {
        child.try_wait().ok().flatten().is_some() || started.elapsed() > Duration::from_secs(300)
    });
    let out = wait(child, Duration::from_secs(10));
    assert!(
        out.status.success(),
        "send: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    receivers_have_copies(&mut rx, &src, &outs);
    let s = json(&stats);
    let (mean, cov) = mean_and_cov(&rates);
    if std::env::var_os("CONVOY_NETNS_DUMP").is_some() {
        eprintln!("{s:#}\nrates: {rates:?}");
    }
    eprintln!(
        "{cc} through 20 Mbit/s: goodput {:.2} Mbit/s, rate {:.2} Mbit/s mean with coefficient of variation {cov:.3} \
         over {} 1 s samples, {} repairs, {} feedback packets",
        s["goodput_bps"].as_f64().unwrap_or(0.0) / 1e6,
        mean / 1e6,
        rates.len(),
        repairs(&s),
        s["acks"],
    );
}

#[test]
fn ipv6_transfer_on_the_bridge() {
    let Some(lab) = Lab::new("v6", 2) else { return };
    let dir = Scratch::new("netns-v6");
    let src = file(&dir, "data.bin", 3_000_000);
    let group = "[ff15::77]:7500";
    let outs: Vec<PathBuf> = (1..=2).map(|i| dir.0.join(format!("out{i}"))).collect();
    let mut rx: Vec<Guard> = (1..=2)
        .map(|i| {
            Guard(Some(
                lab.command(i, BIN)
                    .args([
                        "recv",
                        "--group",
                        group,
                        "--iface",
                        &lab.addr6(i),
                        "--quiet",
                    ])
                    .arg("--out")
                    .arg(&outs[i - 1])
                    .args(["--start-timeout", "60s"])
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap(),
            ))
        })
        .collect();
    let stats = dir.0.join("send.json");
    let mut tx = Guard(Some(
        lab.command(0, BIN)
            .args([
                "send",
                "--group",
                group,
                "--iface",
                &lab.addr6(0),
                "--quiet",
            ])
            .arg(&src)
            .arg("--stats-json")
            .arg(&stats)
            .args(["--wait-receivers", "2", "--wait", "30s"])
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    ));
    let tx = wait(tx.take(), Duration::from_secs(120));
    assert!(
        tx.status.success(),
        "send: {}",
        String::from_utf8_lossy(&tx.stderr)
    );
    receivers_have_copies(&mut rx, &src, &outs);
    let s = json(&stats);
    assert!(s["acks"].as_u64().unwrap() > 0, "pgmcc ran over IPv6: {s}");
}
