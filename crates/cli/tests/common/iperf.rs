//! TCP Reno beside a session in the namespace lab (`lab.rs`): one iperf3 flow between two hosts.

use super::lab::Lab;
use super::Guard;
use std::process::{Command, Stdio};
use std::time::Duration;

/// iperf3's port.
pub const IPERF_PORT: u16 = 5201;

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
