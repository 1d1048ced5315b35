//! TCP Reno beside a session in the namespace lab (`lab.rs`): one iperf3 flow between two hosts.

use super::lab::Lab;
use super::Guard;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// iperf3's port.
pub const IPERF_PORT: u16 = 5201;

/// A TCP segment's IP bytes per byte of its payload: 1448 bytes of payload (Linux's MSS on a 1500-byte MTU with
/// timestamps) under 20 bytes of IP and 32 of TCP header.
const TCP_IP_BYTES_PER_PAYLOAD_BYTE: f64 = 1500.0 / 1448.0;

/// A session's and one TCP Reno flow's shares of the path to `host`, bit/s of IP bytes each, while the flow runs
/// from `from` for `secs` seconds: the session's from its datagrams arriving at `host` on `port` (nftables,
/// [`Lab::count_arrivals`]), TCP's from what iperf3's receiver got. Both count what crossed the bottleneck, headers
/// and repairs included, at the moment it crossed (not when a receiver wrote it: a file's blocks are written
/// whole once verified, 1 MiB steps that moved a 30 s reading by 0.28 Mbit/s). `None` when iperf3 is missing.
pub fn shares_beside_tcp_reno(
    lab: &Lab,
    from: usize,
    host: usize,
    port: u16,
    secs: u32,
) -> Option<(f64, f64)> {
    lab.count_arrivals(host, port).unwrap();
    let before = (lab.arrived_bytes(host)?, Instant::now());
    let tcp = tcp_reno(lab, from, host, secs)?;
    let after = (lab.arrived_bytes(host)?, Instant::now());
    let session = (after.0 - before.0) as f64 * 8.0 / (after.1 - before.1).as_secs_f64();
    Some((session, tcp * TCP_IP_BYTES_PER_PAYLOAD_BYTE))
}

/// One TCP Reno flow (iperf3, `-C reno`) from host `from` to host `to` for `secs` seconds: what `to` received,
/// bit/s. `None`, with a SKIPPED message, when iperf3 is not installed. Reno because the controllers aim at TCP
/// Reno's throughput (the TCP equation); Linux's default CUBIC decreases by 0.7 instead of 0.5.
pub fn tcp_reno(lab: &Lab, from: usize, to: usize, secs: u32) -> Option<f64> {
    if Command::new("iperf3").arg("--version").output().is_err() {
        eprintln!("SKIPPED: iperf3 is not installed (apt-get install iperf3)");
        return None;
    }
    let mut server = Guard(Some(
        lab.command(to, "iperf3")
            .args(["-s", "-1", "-B", &lab.addr(to)])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    ));
    std::thread::sleep(Duration::from_millis(300));
    let client = lab
        .command(from, "iperf3")
        .args([
            "-c",
            &lab.addr(to),
            "-B",
            &lab.addr(from),
            "-J",
            "-C",
            "reno",
            "-t",
        ])
        .arg(secs.to_string())
        .output()
        .unwrap();
    server.kill();
    let report: serde_json::Value = serde_json::from_slice(&client.stdout).unwrap();
    report["end"]["sum_received"]["bits_per_second"].as_f64()
}
