//! A fleet in the namespace lab (common/lab.rs): twenty receivers, each dropping 1% of the session's packets at
//! random (independent loss), receiver 1 also behind a 10 Mbit/s tbf (the slowest path). Needs root; without it
//! the tests print SKIPPED and pass. Both are `#[ignore]`d (about a minute each) and run by
//! `bench/netns-fleet.sh` for every controller; they print figures and assert only that every copy is
//! byte-exact. `CONVOY_NETNS_CC` names the controller (default tfmcc), `CONVOY_NETNS_BYTES` the file size,
//! `CONVOY_NETNS_RECEIVERS` the fleet's size (default 20), `CONVOY_NETNS_PARITY` the source's `--parity`
//! (default: the default) and `CONVOY_NETNS_SEND_ARGS` more `convoy send` options (common/lab_transfer.rs).

mod common;

use common::iperf::{shares_beside_tcp_reno, tcp_reno, IPERF_PORT};
use common::lab::Lab;
use common::lab_transfer::{file, recv, send, transfer_to_all, PORT};
use common::{Guard, Scratch};
use std::path::PathBuf;
use std::time::Duration;

/// Receivers in the fleet lab (`CONVOY_NETNS_RECEIVERS`, default 20).
fn receivers() -> usize {
    std::env::var("CONVOY_NETNS_RECEIVERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20)
}

/// `--cc` and, when `CONVOY_NETNS_PARITY` says, `--parity`.
fn send_args(cc: &str) -> Vec<String> {
    let mut args = vec!["--cc".to_string(), cc.to_string()];
    if let Ok(p) = std::env::var("CONVOY_NETNS_PARITY") {
        args.extend(["--parity".to_string(), p]);
    }
    args
}

/// The controller under test.
fn controller() -> String {
    std::env::var("CONVOY_NETNS_CC").unwrap_or_else(|_| "tfmcc".into())
}

/// The lab: [`receivers`] receivers with 1% random loss on the session's port, receiver 1 behind 10 Mbit/s.
fn fleet_lab(tag: &str) -> Option<Lab> {
    let lab = Lab::new(tag, receivers())?;
    lab.shape(1, "10mbit", 65_536).unwrap();
    for host in 1..=receivers() {
        lab.random_loss(host, PORT, 1).unwrap();
    }
    Some(lab)
}

/// Receiver 1 drops 1% of iperf3's TCP segments as it drops 1% of the session's: TCP on the same path (the
/// session's loss rule matches its UDP port only).
fn same_loss_for_tcp(lab: &Lab) {
    lab.random_tcp_loss(1, IPERF_PORT, 1).unwrap();
}

/// A file to all twenty receivers, byte-exact at each; prints the goodput beside what TCP Reno alone gets on the
/// slowest path (measured first, 10 s each, through the tbf alone and with the path's 1% loss too), and what the
/// source put on its wire per byte of the file.
#[test]
#[ignore = "long (about a minute): run by bench/netns-fleet.sh"]
fn twenty_lossy_receivers_one_behind_10mbit_byte_exact() {
    let cc = controller();
    let Some(lab) = fleet_lab("fl") else { return };
    let tcp = tcp_reno(&lab, 0, 1, 10);
    same_loss_for_tcp(&lab);
    let lossy_tcp = tcp_reno(&lab, 0, 1, 10);
    let len = std::env::var("CONVOY_NETNS_BYTES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(30_000_000);
    let dir = Scratch::new(&format!("netns-fleet-{cc}"));
    let src = file(&dir, "data.bin", len);
    let args = send_args(&cc);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let s = transfer_to_all(
        &lab,
        &dir,
        &src,
        receivers(),
        Duration::from_secs(600),
        &args,
    );
    let goodput = s["goodput_bps"].as_f64().unwrap_or(0.0);
    let share = |tcp: Option<f64>| {
        tcp.map_or_else(
            || "n/a".into(),
            |t| format!("{:.2} Mbit/s (goodput / TCP {:.2})", t / 1e6, goodput / t),
        )
    };
    let buffer_drops: Vec<u64> = (1..=receivers())
        .map(|h| lab.receive_buffer_drops(h).unwrap_or(0))
        .collect();
    eprintln!(
        "{cc} fleet of {} (1% loss each, one behind 10 Mbit/s, parity {}), {:.0} MB byte-exact: goodput {:.2} Mbit/s; \
         TCP Reno alone on the slowest path {}, with its 1% loss {}; {} ODATA, {} RDATA, {} parity, {:.3} bytes on the \
         source's wire per byte of the file; {} NAKs, {} acker changes; the 10 Mbit/s tbf dropped {}, receive \
         buffers dropped {} at receiver 1 and {} at the others",
        receivers(),
        std::env::var("CONVOY_NETNS_PARITY").unwrap_or_else(|_| "default".into()),
        len as f64 / 1e6,
        goodput / 1e6,
        share(tcp),
        share(lossy_tcp),
        s["packets"]["odata"],
        s["packets"]["rdata"],
        s["packets"]["parity"],
        s["wire_bytes"].as_f64().unwrap_or(0.0) / len as f64,
        s["naks"],
        s["acker_changes"],
        lab.shaped_drops(1).unwrap_or(0),
        buffer_drops[0],
        buffer_drops[1..].iter().sum::<u64>(),
    );
}

/// The session to all twenty receivers and one TCP Reno flow (iperf3) through receiver 1's 10 Mbit/s tbf for
/// 30 s, TCP losing 1% at receiver 1 as the session does (the same path): the session's rate over TCP's, printed,
/// each what it got through the tbf (IP bytes arriving at receiver 1, `common::iperf::shares_beside_tcp_reno`).
#[test]
#[ignore = "long (about a minute): run by bench/netns-fleet.sh"]
fn twenty_lossy_receivers_beside_tcp() {
    let cc = controller();
    let Some(lab) = fleet_lab("ft") else { return };
    let dir = Scratch::new(&format!("netns-fleet-tcp-{cc}"));
    let src = file(&dir, "data.bin", 150_000_000);
    let n = receivers();
    let outs: Vec<PathBuf> = (1..=n).map(|i| dir.0.join(format!("out{i}"))).collect();
    let _rx: Vec<Guard> = (1..=n).map(|i| recv(&lab, i, &outs[i - 1], &[])).collect();
    same_loss_for_tcp(&lab);
    let stats = dir.0.join("send.json");
    let waiting = n.to_string();
    let args = send_args(&cc);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let _tx = send(
        &lab,
        &src,
        &stats,
        &[&["--wait-receivers", &waiting, "--wait", "30s"][..], &args].concat(),
    );
    std::thread::sleep(Duration::from_secs(8));
    let Some((convoy, tcp)) = shares_beside_tcp_reno(&lab, 0, 1, PORT, 30) else {
        return;
    };
    eprintln!(
        "{cc} fleet of {n} beside TCP Reno (1% loss too) through 10 Mbit/s for 30 s: convoy {:.2} Mbit/s, TCP {:.2} \
         Mbit/s, ratio {:.2}",
        convoy / 1e6,
        tcp / 1e6,
        convoy / tcp
    );
}
