//! `convoy bench net`: throughput on loopback, with 1 and 3 receivers, of
//! * a raw UDP `sendmmsg` loop of 1400-byte payloads to the group (the machine's ceiling),
//! * Convoy with `--cc fixed` at an unlimited rate,
//! * Convoy with pgmcc,
//! * UFTP (`uftp -R -1`) when installed — not measured yet: reported as absent.
//!
//! Figures: packets per second delivered to the slowest receiver, Gbit/s of payload, and CPU per packet of the
//! sending thread. A benchmark prints figures; nothing here is a pass/fail test.

use clap::Args;
use convoy_net::socket::{open_receiver, open_source};
use convoy_net::syscalls::{recv_batch, send_batch, thread_cpu_time, wait_readable, MAX_BATCH};
use convoy_net::{GroupOptions, Interface, NetReceiver, NetSender};
use convoy_proto::cc::fixed::FixedConfig;
use convoy_proto::cc::CcConfig;
use convoy_proto::ReceiverEvent;
use socket2::SockAddr;
use std::net::SocketAddr;
use std::os::fd::AsRawFd;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const PAYLOAD: usize = 1400;

/// Options of `convoy bench net`.
#[derive(Args, Debug)]
pub struct BenchNetArgs {
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Seconds per measurement.
    #[arg(long, default_value_t = 3.0)]
    seconds: f64,
}

/// One measurement.
#[derive(Debug, Clone, serde::Serialize)]
struct Figure {
    what: &'static str,
    receivers: usize,
    packets_per_s: f64,
    gbit_per_s: f64,
    cpu_ns_per_packet: f64,
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

fn raw(receivers: usize, seconds: f64, n: usize) -> std::io::Result<Figure> {
    let g = group(n);
    let stop = Arc::new(AtomicBool::new(false));
    let mut threads = Vec::new();
    for i in 0..receivers {
        let socks = open_receiver(&receiver_opts(g, i))?;
        let stop = stop.clone();
        threads.push(std::thread::spawn(move || {
            let fd = socks.data.as_raw_fd();
            let mut bufs = vec![vec![0u8; 2048]; MAX_BATCH];
            let mut meta = Vec::new();
            let mut got = 0u64;
            while !stop.load(Ordering::Relaxed) {
                if wait_readable(&[fd], Some(Duration::from_millis(50))).unwrap_or(false) {
                    got += recv_batch(fd, &mut bufs, &mut meta).unwrap_or(0) as u64;
                }
            }
            got
        }));
    }
    let src = open_source(&source_opts(g))?;
    let to = SockAddr::from(g);
    let payload = vec![0x5a; PAYLOAD];
    let packets: Vec<(&SockAddr, &[u8])> =
        (0..MAX_BATCH).map(|_| (&to, payload.as_slice())).collect();
    let (start, cpu0) = (Instant::now(), thread_cpu_time());
    let mut sent = 0u64;
    while start.elapsed().as_secs_f64() < seconds {
        sent += send_batch(src.socket.as_raw_fd(), &packets).unwrap_or(0) as u64;
    }
    let (secs, cpu) = (start.elapsed().as_secs_f64(), thread_cpu_time() - cpu0);
    std::thread::sleep(Duration::from_millis(100));
    stop.store(true, Ordering::Relaxed);
    let delivered = threads
        .into_iter()
        .map(|t| t.join().unwrap_or(0))
        .min()
        .unwrap_or(0);
    Ok(figure(
        "raw sendmmsg",
        receivers,
        delivered,
        secs,
        cpu,
        sent,
    ))
}

fn convoy(
    what: &'static str,
    cc: CcConfig,
    receivers: usize,
    seconds: f64,
    n: usize,
) -> std::io::Result<Figure> {
    let g = group(n);
    let stop = Arc::new(AtomicBool::new(false));
    let mut threads = Vec::new();
    for i in 0..receivers {
        let cc = cc.clone();
        let mut rx = NetReceiver::open(&receiver_opts(g, i), move |c| c.cc = cc)?;
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
    let mut tx = NetSender::open(&source_opts(g), |c| {
        c.cc = cc;
        c.send_queue_bytes = 1 << 20;
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
    let delivered = threads
        .into_iter()
        .map(|t| t.join().unwrap_or(0))
        .min()
        .unwrap_or(0);
    Ok(figure(what, receivers, delivered, secs, cpu, sent))
}

/// Run `convoy bench net`.
pub fn run_net(args: &BenchNetArgs) -> ExitCode {
    let mut figures = Vec::new();
    let mut n = 0;
    for receivers in [1, 3] {
        let fixed = CcConfig::Fixed(FixedConfig {
            rate_bytes_per_s: 10_000_000_000,
            burst: Duration::from_millis(1),
        });
        let runs: [(&'static str, Option<CcConfig>); 3] = [
            ("raw sendmmsg", None),
            ("convoy fixed", Some(fixed)),
            ("convoy pgmcc", Some(CcConfig::default())),
        ];
        for (what, cc) in runs {
            n += 1;
            let r = match cc {
                None => raw(receivers, args.seconds, n),
                Some(cc) => convoy(what, cc, receivers, args.seconds, n),
            };
            match r {
                Ok(f) => figures.push(f),
                Err(e) => {
                    eprintln!("convoy bench net: {what}: {e}");
                    return ExitCode::from(1);
                }
            }
        }
    }
    let uftp = std::process::Command::new("uftp")
        .arg("-h")
        .output()
        .is_ok();
    if args.json {
        let v = serde_json::json!({ "figures": figures, "uftp": if uftp { "installed, not measured yet" } else { "not installed" } });
        println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
        return ExitCode::SUCCESS;
    }
    println!(
        "{:<14} {:>9} {:>12} {:>8} {:>12} {:>10}",
        "what", "receivers", "packets/s", "Gbit/s", "CPU ns/pkt", "% of raw"
    );
    for f in &figures {
        let raw = figures
            .iter()
            .find(|r| r.what == "raw sendmmsg" && r.receivers == f.receivers)
            .map_or(f64::NAN, |r| r.packets_per_s);
        println!(
            "{:<14} {:>9} {:>12.0} {:>8.2} {:>12.0} {:>9.0}%",
            f.what,
            f.receivers,
            f.packets_per_s,
            f.gbit_per_s,
            f.cpu_ns_per_packet,
            100.0 * f.packets_per_s / raw
        );
    }
    println!(
        "uftp: {}",
        if uftp {
            "installed, not measured yet"
        } else {
            "not installed (apt-get install uftp)"
        }
    );
    ExitCode::SUCCESS
}
