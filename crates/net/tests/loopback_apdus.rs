//! A source and three receivers on loopback (127.0.0.1 → 127.0.0.2–4), APDUs byte-exact, with pgmcc and fixed.

use convoy_net::{GroupOptions, Interface, NetReceiver, NetSender};
use convoy_proto::cc::fixed::FixedConfig;
use convoy_proto::cc::CcConfig;
use convoy_proto::ReceiverEvent;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

fn apdu(i: u32, len: usize) -> Vec<u8> {
    let mut v: Vec<u8> = (0..len)
        .map(|k| (k as u32).wrapping_mul(2654435761).wrapping_add(i) as u8)
        .collect();
    v[..4].copy_from_slice(&i.to_be_bytes());
    v
}

fn group(port: u16) -> SocketAddr {
    format!("239.255.42.{}:{port}", port % 200 + 1)
        .parse()
        .unwrap()
}

/// A port unlikely to collide with another test run on this host.
fn port() -> u16 {
    20_000 + (std::process::id() % 20_000) as u16
}

fn run(cc: CcConfig, port: u16, apdus: u32, len: usize) {
    let g = group(port);
    let mut handles = Vec::new();
    for r in 0..3 {
        let mut opts = GroupOptions::new(g);
        opts.interface = Interface::Addr(format!("127.0.0.{}", r + 2).parse().unwrap());
        let cc = cc.clone();
        let mut rx = NetReceiver::open(&opts, move |c| c.cc = cc).unwrap();
        handles.push(std::thread::spawn(move || {
            let mut got = 0u32;
            let start = Instant::now();
            while got < apdus && start.elapsed() < Duration::from_secs(120) {
                match rx.recv(Duration::from_secs(1)).unwrap() {
                    Some(ReceiverEvent::Data(d)) => {
                        assert_eq!(d, apdu(got, len), "receiver {r} APDU {got}");
                        got += 1;
                    }
                    Some(ReceiverEvent::Lost { .. }) => panic!("receiver {r}: loss"),
                    _ => {}
                }
            }
            (got, rx.receiver().stats().clone())
        }));
    }
    let mut opts = GroupOptions::new(g);
    opts.interface = Interface::Addr("127.0.0.1".parse().unwrap());
    opts.ttl = 0;
    let mut tx = NetSender::open(&opts, |c| c.cc = cc).unwrap();
    let start = Instant::now();
    for i in 0..apdus {
        tx.write(&apdu(i, len)).unwrap();
        while tx.poll_event().is_some() {}
    }
    let closed = tx.close(Duration::from_secs(60)).unwrap();
    let secs = start.elapsed().as_secs_f64();
    let mb = apdus as f64 * len as f64 / 1e6;
    eprintln!(
        "{mb:.1} MB in {secs:.2} s = {:.1} Mbit/s; sender {:?}; io {:?}",
        mb * 8.0 / secs,
        tx.sender().stats(),
        tx.io_stats()
    );
    for h in handles {
        let (got, stats) = h.join().unwrap();
        eprintln!("receiver: {got} APDUs {stats:?}");
        assert_eq!(got, apdus);
    }
    assert!(closed);
}

#[test]
fn three_receivers_pgmcc() {
    run(CcConfig::default(), port(), 2_000, 10_000);
}

#[test]
fn three_receivers_fixed() {
    let cc = CcConfig::Fixed(FixedConfig {
        rate_bytes_per_s: 40_000_000,
        burst: Duration::from_millis(5),
    });
    run(cc, port() + 1, 2_000, 10_000);
}
