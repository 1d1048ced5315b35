//! The loopback benchmark behind `convoy bench net`: throughput on loopback, with 1 and 3 receivers, of
//! * a raw UDP `sendmmsg` loop of 1400-byte payloads to the group (the ceiling: one datagram per
//!   message), and the same with UDP segmentation offload (`UDP_SEGMENT` sends of 46 datagrams, `UDP_GRO`
//!   receivers), the ceiling of what Convoy's driver does,
//! * Convoy with `--cc fixed` at an unlimited rate,
//! * Convoy with pgmcc, also keyed (every packet authenticated, docs/keyed-sessions.md) and keyed with
//!   encrypted payloads, the three measured side by side in alternating rounds,
//! * UFTP (`uftp -R -1`, Debian package uftp) when installed and running as root, with one receiver: UFTP needs
//!   an interface with the MULTICAST flag, which the host's `lo` lacks, so it runs in a network namespace of its
//!   own (`lo` with multicast on); its data-phase rate is the "Overall throughput" it prints. (Several `uftpd` on
//!   one host cannot share the port, so there is no 3-receiver UFTP figure.)
//!
//! Also the pacing accuracy of a fixed 20 Mbit/s session (delivered rate / target).
//!
//! Figures: packets per second delivered to the slowest receiver, Gbit/s of payload, and CPU per packet of the
//! sending thread. A benchmark prints figures; nothing here is a pass/fail test.

use convoy_net::socket::{open_receiver, open_source};
use convoy_net::syscalls::{
    enable_gro, recv_batch, send_batch, send_segmented, thread_cpu_time, wait_readable, Received,
    MAX_BATCH,
};
use convoy_net::{GroupOptions, Interface, NetReceiver, NetSender};
use convoy_proto::auth::{AuthConfig, SessionKey};
use convoy_proto::cc::fixed::FixedConfig;
use convoy_proto::cc::CcConfig;
use convoy_proto::sender::ParityConfig;
use convoy_proto::ReceiverEvent;
use socket2::SockAddr;
use std::net::SocketAddr;
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const PAYLOAD: usize = 1400;

/// Datagrams per UDP GSO send of the raw loop (as many 1400-byte payloads as fit in 64 KB).
const RAW_SEGMENTS: usize = 46;

/// One measurement.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Figure {
    /// What was measured ("raw sendmmsg", "convoy pgmcc", ...).
    pub what: &'static str,
    /// Receivers.
    pub receivers: usize,
    /// Packets per second delivered to the slowest receiver.
    pub packets_per_s: f64,
    /// Payload Gbit/s at that rate.
    pub gbit_per_s: f64,
    /// CPU time of the sending thread per packet sent, nanoseconds (NaN when not measured).
    pub cpu_ns_per_packet: f64,
}

/// Every figure of a run of the benchmark.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Report {
    /// The measurements, 1 and 3 receivers.
    pub figures: Vec<Figure>,
    /// Delivered rate / target rate of a fixed 20 Mbit/s session.
    pub pacing_20mbit_achieved_ratio: f64,
    /// Whether UFTP was measured, and why not.
    pub uftp: String,
}

fn group(n: usize) -> SocketAddr {
    let port = 30_000 + (std::process::id() % 10_000) as u16 + n as u16;
    format!("239.255.99.{}:{port}", n % 200 + 1)
        .parse()
        .expect("group")
}

fn receiver_opts(g: SocketAddr, i: usize) -> GroupOptions {
    let mut o = GroupOptions::new(g);
    o.interface = Interface::Addr(format!("127.0.0.{}", i + 2).parse().expect("address"));
    o
}

fn source_opts(g: SocketAddr) -> GroupOptions {
    let mut o = GroupOptions::new(g);
    o.interface = Interface::Addr("127.0.0.1".parse().expect("address"));
    o.ttl = 0;
    o
}

fn figure(
    what: &'static str,
    receivers: usize,
    delivered: u64,
    secs: f64,
    cpu: Duration,
    sent: u64,
) -> Figure {
    let pps = delivered as f64 / secs;
    Figure {
        what,
        receivers,
        packets_per_s: pps,
        gbit_per_s: pps * PAYLOAD as f64 * 8.0 / 1e9,
        cpu_ns_per_packet: cpu.as_nanos() as f64 / sent.max(1) as f64,
    }
}

/// A raw loop: `sendmmsg` of single datagrams, or (`gso`) UDP GSO sends to receivers with UDP GRO.
fn raw(receivers: usize, seconds: f64, n: usize, gso: bool) -> std::io::Result<Figure> {
    let g = group(n);
    let stop = Arc::new(AtomicBool::new(false));
    let mut threads = Vec::new();
    for i in 0..receivers {
        let socks = open_receiver(&receiver_opts(g, i))?;
        let stop = stop.clone();
        threads.push(std::thread::spawn(move || {
            let fd = socks.data.as_raw_fd();
            let (count, len) = if gso && enable_gro(fd) {
                (16, 65_536)
            } else {
                (MAX_BATCH, 2048)
            };
            let mut bufs = vec![vec![0u8; len]; count];
            let mut meta: Vec<Received> = Vec::new();
            let mut got = 0u64;
            while !stop.load(Ordering::Relaxed) {
                if wait_readable(&[fd], Some(Duration::from_millis(50))).unwrap_or(false) {
                    let n = recv_batch(fd, &mut bufs, &mut meta).unwrap_or(0);
                    for (r, buf) in meta.iter().zip(&bufs).take(n) {
                        got += r.datagrams(buf).count() as u64;
                    }
                }
            }
            got
        }));
    }
    let src = open_source(&source_opts(g))?;
    let to = SockAddr::from(g);
    let payload = vec![0x5a; PAYLOAD];
    let packets: Vec<(Option<&SockAddr>, &[u8])> = (0..MAX_BATCH)
        .map(|_| (Some(&to), payload.as_slice()))
        .collect();
    let segments: Vec<&[u8]> = packets.iter().map(|(_, p)| *p).take(RAW_SEGMENTS).collect();
    let (start, cpu0) = (Instant::now(), thread_cpu_time());
    let mut sent = 0u64;
    let fd = src.socket.as_raw_fd();
    while start.elapsed().as_secs_f64() < seconds {
        sent += if gso {
            send_segmented(fd, Some(&to), &segments)?
        } else {
            send_batch(fd, &packets).unwrap_or(0)
        } as u64;
    }
    let (secs, cpu) = (start.elapsed().as_secs_f64(), thread_cpu_time() - cpu0);
    std::thread::sleep(Duration::from_millis(100));
    stop.store(true, Ordering::Relaxed);
    let delivered = slowest(threads);
    Ok(figure(
        if gso { "raw gso" } else { "raw sendmmsg" },
        receivers,
        delivered,
        secs,
        cpu,
        sent,
    ))
}

/// A keyed session's configuration for one endpoint (a fresh identity each), if `key` is given.
fn keyed(key: Option<&AuthConfig>) -> std::io::Result<Option<AuthConfig>> {
    key.map(|k| {
        Ok(AuthConfig {
            identity: crate::key_file::os_random()?,
            ..k.clone()
        })
    })
    .transpose()
}

/// A Convoy session on loopback: `extras` are the session's key, if keyed, and its parity, if any.
fn convoy(
    what: &'static str,
    cc: CcConfig,
    receivers: usize,
    seconds: f64,
    n: usize,
    extras: (Option<&AuthConfig>, Option<ParityConfig>),
) -> std::io::Result<Figure> {
    let (key, parity) = extras;
    let g = group(n);
    let stop = Arc::new(AtomicBool::new(false));
    let mut threads = Vec::new();
    for i in 0..receivers {
        let cc = cc.clone();
        let auth = keyed(key)?;
        let mut rx = NetReceiver::open(&receiver_opts(g, i), move |c| {
            c.cc = cc;
            c.auth = auth;
        })?;
        let stop = stop.clone();
        threads.push(std::thread::spawn(move || {
            let mut got = 0u64;
            let mut first: Option<Instant> = None;
            while !stop.load(Ordering::Relaxed) {
                if let Ok(Some(ReceiverEvent::Data(_))) = rx.recv(Duration::from_millis(50)) {
                    first.get_or_insert_with(Instant::now);
                    got += 1;
                }
            }
            got
        }));
    }
    let auth = keyed(key)?;
    let mut tx = NetSender::open(&source_opts(g), |c| {
        c.cc = cc;
        c.send_queue_bytes = 1 << 20;
        c.auth = auth;
        c.parity = parity;
    })?;
    let payload = vec![0x5a; PAYLOAD];
    let (start, cpu0) = (Instant::now(), thread_cpu_time());
    while start.elapsed().as_secs_f64() < seconds {
        tx.write(&payload)?;
        while tx.poll_event().is_some() {}
    }
    let (secs, cpu) = (start.elapsed().as_secs_f64(), thread_cpu_time() - cpu0);
    let sent = tx.sender().stats().odata_packets;
    stop.store(true, Ordering::Relaxed);
    let delivered = slowest(threads);
    Ok(figure(what, receivers, delivered, secs, cpu, sent))
}

/// Packets delivered to the slowest of the receiver threads.
fn slowest(threads: Vec<std::thread::JoinHandle<u64>>) -> u64 {
    threads
        .into_iter()
        .map(|t| t.join().unwrap_or(0))
        .min()
        .unwrap_or(0)
}

fn run_quiet(args: &[&str]) -> bool {
    std::process::Command::new(args[0])
        .args(&args[1..])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// UFTP's data phase, one receiver, in a namespace of its own; `Ok(None)` when it cannot run here.
fn uftp(seconds: f64) -> Result<Option<Figure>, String> {
    let have = |p: &str| std::process::Command::new(p).arg("-?").output().is_ok();
    if !have("uftp") || !have("uftpd") {
        return Ok(None);
    }
    let ns = format!("cvbench{}", std::process::id());
    if !run_quiet(&["ip", "netns", "add", &ns]) {
        return Ok(None);
    }
    struct Namespace(String);
    impl Drop for Namespace {
        fn drop(&mut self) {
            run_quiet(&["ip", "netns", "del", &self.0]);
        }
    }
    let _ns = Namespace(ns.clone());
    for cmd in [
        vec!["ip", "-n", &ns, "link", "set", "lo", "up"],
        vec!["ip", "-n", &ns, "link", "set", "lo", "multicast", "on"],
        vec!["ip", "-n", &ns, "route", "add", "224.0.0.0/4", "dev", "lo"],
    ] {
        if !run_quiet(&cmd) {
            return Err(format!("{} failed", cmd.join(" ")));
        }
    }
    let dir = std::env::temp_dir().join(format!("convoy-bench-uftp-{}", std::process::id()));
    let out = dir.join("out");
    std::fs::create_dir_all(&out).map_err(|e| e.to_string())?;
    // About `seconds` of data at UFTP's usual loopback rate (~60 MB/s), at least 50 MB.
    let len = ((seconds * 60e6) as usize).max(50_000_000);
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let data: Vec<u8> = (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    let file = dir.join("data.bin");
    std::fs::write(&file, data).map_err(|e| e.to_string())?;
    let group = "239.255.88.1";
    let mut daemon = std::process::Command::new("ip")
        .args([
            "netns", "exec", &ns, "uftpd", "-d", "-I", "lo", "-M", group, "-p", "41000",
        ])
        .arg("-D")
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|e| e.to_string())?;
    std::thread::sleep(Duration::from_millis(500));
    let sent = std::process::Command::new("ip")
        .args([
            "netns", "exec", &ns, "uftp", "-R", "-1", "-I", "lo", "-M", group,
        ])
        .args(["-p", "41000", "-b", "1400", "-t", "1"])
        .arg(&file)
        .output();
    let _ = daemon.kill();
    let _ = daemon.wait();
    let _ = std::fs::remove_dir_all(&dir);
    let sent = sent.map_err(|e| e.to_string())?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&sent.stdout),
        String::from_utf8_lossy(&sent.stderr)
    );
    let kib_s: f64 = text
        .lines()
        .find_map(|l| l.strip_prefix("Overall throughput:"))
        .and_then(|v| v.trim().trim_end_matches("KB/s").trim().parse().ok())
        .ok_or_else(|| "uftp printed no throughput".to_string())?;
    let pps = kib_s * 1024.0 / PAYLOAD as f64;
    Ok(Some(Figure {
        what: "uftp -R -1",
        receivers: 1,
        packets_per_s: pps,
        gbit_per_s: pps * PAYLOAD as f64 * 8.0 / 1e9,
        cpu_ns_per_packet: f64::NAN,
    }))
}

/// The plain, keyed and encrypted pgmcc sessions are compared side by side (docs/keyed-sessions.md): they are
/// measured in turn, this many times each for a share of the time, so that a change of the machine's speed
/// during the run falls on all three alike; each figure is the mean of its rounds.
const ROUNDS: usize = 3;

/// The mean of a measurement's rounds.
fn mean(rounds: &[Figure]) -> Figure {
    let n = rounds.len().max(1) as f64;
    let avg = |f: fn(&Figure) -> f64| rounds.iter().map(f).sum::<f64>() / n;
    Figure {
        packets_per_s: avg(|f| f.packets_per_s),
        gbit_per_s: avg(|f| f.gbit_per_s),
        cpu_ns_per_packet: avg(|f| f.cpu_ns_per_packet),
        ..rounds[0].clone()
    }
}

/// Plain, keyed and encrypted pgmcc with `receivers` receivers, in [`ROUNDS`] alternating rounds; `n` numbers the
/// measurements (each its own group).
fn side_by_side(
    receivers: usize,
    seconds: f64,
    n: &mut usize,
    keys: [Option<&AuthConfig>; 3],
) -> Result<Vec<Figure>, String> {
    const WHAT: [&str; 3] = [
        "convoy pgmcc",
        "convoy pgmcc keyed",
        "convoy pgmcc encrypted",
    ];
    let mut rounds: [Vec<Figure>; 3] = Default::default();
    for _ in 0..ROUNDS {
        for (i, key) in keys.iter().enumerate() {
            *n += 1;
            let f = convoy(
                WHAT[i],
                CcConfig::default(),
                receivers,
                seconds / ROUNDS as f64,
                *n,
                (*key, None),
            )
            .map_err(|e| format!("{}: {e}", WHAT[i]))?;
            rounds[i].push(f);
        }
    }
    Ok(rounds.iter().map(|r| mean(r)).collect())
}

/// Run the benchmark, `seconds` per measurement; `skipped` hears about measurements this host cannot make (no
/// UDP GSO).
pub fn run(seconds: f64, skipped: &mut dyn FnMut(&str)) -> Result<Report, String> {
    let mut figures = Vec::new();
    let mut n = 0;
    // Keyed sessions (docs/keyed-sessions.md): every packet tagged, then payloads encrypted too.
    let key = crate::key_file::os_random().map_err(|e| format!("a key: {e}"))?;
    let tag_only = AuthConfig {
        key: SessionKey::from_bytes(key),
        encrypt: false,
        identity: [0; 16],
    };
    let encrypted = AuthConfig {
        encrypt: true,
        ..tag_only.clone()
    };
    for receivers in [1, 3] {
        for gso in [false, true] {
            n += 1;
            match raw(receivers, seconds, n, gso) {
                Ok(f) => figures.push(f),
                // A kernel without UDP GSO: the driver falls back too, so there is no such ceiling to show.
                Err(e) if gso => skipped(&format!("raw gso skipped: {e}")),
                Err(e) => return Err(format!("raw sendmmsg: {e}")),
            }
        }
        let fixed = CcConfig::Fixed(FixedConfig {
            rate_bytes_per_s: 10_000_000_000,
            burst: Duration::from_millis(1),
        });
        n += 1;
        figures.push(
            convoy("convoy fixed", fixed, receivers, seconds, n, (None, None))
                .map_err(|e| format!("convoy fixed: {e}"))?,
        );
        let keys = [None, Some(&tag_only), Some(&encrypted)];
        figures.extend(side_by_side(receivers, seconds, &mut n, keys)?);
        // Parity (docs/parity.md): groups of 32, one pro-active parity packet each, coded by the source.
        n += 1;
        let parity = ParityConfig::parse("32+1").ok();
        let what = "convoy pgmcc parity 32+1";
        figures.push(
            convoy(
                what,
                CcConfig::default(),
                receivers,
                seconds,
                n,
                (None, parity),
            )
            .map_err(|e| format!("{what}: {e}"))?,
        );
    }
    // Pacing: a fixed 20 Mbit/s session (whole PGM packets of 1464 bytes), delivered rate against the target.
    let paced = CcConfig::Fixed(FixedConfig {
        rate_bytes_per_s: 2_500_000,
        burst: Duration::from_millis(5),
    });
    let pacing = match convoy("convoy fixed 20M", paced, 1, seconds, n + 1, (None, None)) {
        Ok(f) => {
            let ratio = f.packets_per_s * (PAYLOAD + 64) as f64 / 2_500_000.0;
            figures.push(f);
            ratio
        }
        Err(e) => return Err(format!("pacing: {e}")),
    };
    let uftp_note = match uftp(seconds) {
        Ok(Some(f)) => {
            figures.push(f);
            "measured (1 receiver, own namespace)".to_string()
        }
        Ok(None) => "not measured: needs uftp/uftpd (apt-get install uftp) and root".to_string(),
        Err(e) => format!("failed: {e}"),
    };
    Ok(Report {
        figures,
        pacing_20mbit_achieved_ratio: pacing,
        uftp: uftp_note,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fixed_rate_session_on_loopback_delivers_and_is_measured() {
        let cc = CcConfig::Fixed(FixedConfig {
            rate_bytes_per_s: 2_500_000,
            burst: Duration::from_millis(5),
        });
        let f = convoy("convoy fixed 20M", cc, 1, 0.3, 9_000, (None, None))
            .expect("a loopback session runs");
        assert!(f.packets_per_s > 0.0, "{f:?}");
        assert!(f.cpu_ns_per_packet.is_finite());
    }
}
