//! Acceptance tests of the TCP models over [`testnet`](super::testnet): (a) utilisation of a lossless
//! bottleneck, (b) throughput under random loss against the Mathis and Padhye (RFC 5348 §3.1) models, (c)
//! fairness among competing flows.
//!
//! The scenarios run at full length in every `cargo test` (about a second of CPU in debug mode: the network
//! processes about a million events per second unoptimised). `b_loss_throughput_seeds`, which repeats (b) with
//! ten flows for five seeds, is `#[ignore]`d: run it with
//! `cargo test --release -p convoy-sim -- --ignored --nocapture`. `--nocapture` shows the measured numbers.

use std::time::Duration;

use convoy_proto::Instant;

use super::testnet::{jain, FlowSpec, LinkConfig, Net};
use super::{TcpConfig, TcpVariant};

const VARIANTS: [TcpVariant; 3] = [TcpVariant::Reno, TcpVariant::NewReno, TcpVariant::Sack];

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

fn secs(n: u64) -> Instant {
    Instant::from_millis(n * 1000)
}

/// The scenarios' TCP: 1460-byte segments, min RTO 0.2 s, ACK per segment.
fn tcp(variant: TcpVariant) -> TcpConfig {
    TcpConfig {
        variant,
        min_rto: ms(200),
        ..TcpConfig::default()
    }
}

/// (a) One flow on a lossless 10 Mbit/s, 20 ms one-way bottleneck with a 100-packet queue: link utilisation
/// and goodput (payload bits over link rate) over `duration_s`.
fn utilisation(config: TcpConfig, duration_s: u64) -> (f64, f64, Net) {
    let link = LinkConfig {
        rate_bps: 10_000_000,
        delay: ms(20),
        queue_packets: 100,
        loss: 0.0,
        seed: 1,
    };
    let flow = FlowSpec {
        config,
        start: Instant::ZERO,
        ack_delay: ms(20),
    };
    let mut net = Net::new(link, &[flow]);
    net.run_until(secs(duration_s));
    let t = duration_s as f64;
    let util = net.busy_ns as f64 / (t * 1e9);
    let goodput = net.delivered()[0] as f64 * 8.0 / (t * link.rate_bps as f64);
    (util, goodput, net)
}

#[test]
fn a_utilisation() {
    let delayed = TcpConfig {
        delayed_ack: true,
        ..tcp(TcpVariant::NewReno)
    };
    let configs = VARIANTS.map(tcp).into_iter().chain([delayed]);
    for config in configs {
        let (util, goodput, net) = utilisation(config, 60);
        let st = net.flows[0].sender.stats();
        println!(
            "(a) {:?}{} 60 s: utilisation {util:.4}, goodput {goodput:.4} of link rate, \
             {} fast retransmits, {} timeouts, {} queue drops",
            config.variant,
            if config.delayed_ack {
                " delayed ACKs"
            } else {
                ""
            },
            st.fast_retransmits,
            st.timeouts,
            net.queue_drops
        );
        assert!(util >= 0.95, "{config:?}: utilisation {util}");
    }
}

/// Mathis et al.: X = s·√(3/2)/(R·√p), bytes per second.
fn mathis(s: f64, r: f64, p: f64) -> f64 {
    s * (1.5f64).sqrt() / (r * p.sqrt())
}

/// RFC 5348 §3.1 with b = 1: X = s/(R·√(2bp/3) + t_RTO·3·√(3bp/8)·p·(1 + 32p²)), bytes per second.
fn padhye(s: f64, r: f64, p: f64, t_rto: f64) -> f64 {
    let b = 1.0;
    s / (r * (2.0 * b * p / 3.0).sqrt()
        + t_rto * 3.0 * (3.0 * b * p / 8.0).sqrt() * p * (1.0 + 32.0 * p * p))
}

/// (b) `n` flows, each alone on an ample 100 Mbit/s path with RTT 100 ms and 1% Bernoulli loss: mean
/// throughput (goodput, bytes per second) over `duration_s`, and its ratios to Mathis and Padhye.
fn loss_throughput(variant: TcpVariant, duration_s: u64, n: usize, seed: u64) -> (f64, f64, f64) {
    let p: f64 = 0.01;
    let rtt: f64 = 0.1;
    let link = LinkConfig {
        rate_bps: 100_000_000,
        delay: ms(50),
        queue_packets: 1000,
        loss: p,
        seed,
    };
    let flows: Vec<_> = (0..n)
        .map(|i| FlowSpec {
            config: tcp(variant),
            start: Instant::from_millis(i as u64 * 10),
            ack_delay: ms(50),
        })
        .collect();
    let mut net = Net::new(link, &flows);
    net.run_until(secs(duration_s));
    assert_eq!(net.queue_drops, 0, "ample bandwidth");
    let x = net.delivered().iter().sum::<u64>() as f64 / n as f64 / duration_s as f64;
    let s = f64::from(tcp(variant).mss);
    let t_rto = (4.0 * rtt).max(tcp(variant).min_rto.as_secs_f64());
    let (m, pd) = (mathis(s, rtt, p), padhye(s, rtt, p, t_rto));
    let (timeouts, frs): (u64, u64) = net.flows.iter().fold((0, 0), |(t, f), fl| {
        let st = fl.sender.stats();
        (t + st.timeouts, f + st.fast_retransmits)
    });
    println!(
        "(b) {variant:?} {n} flows × {duration_s} s: {:.1} kB/s; Mathis {:.1} kB/s (ratio {:.3}), Padhye {:.1} kB/s \
         (ratio {:.3}); {frs} fast retransmits, {timeouts} timeouts",
        x / 1e3,
        m / 1e3,
        x / m,
        pd / 1e3,
        x / pd
    );
    (x, x / m, x / pd)
}

fn check_loss_throughput(n: usize, seed: u64) {
    for v in VARIANTS {
        let (_, rm, rp) = loss_throughput(v, 200, n, seed);
        let within = |r: f64| (0.75..=1.25).contains(&r);
        assert!(
            within(rm) && within(rp),
            "{v:?}: Mathis ratio {rm}, Padhye ratio {rp}"
        );
    }
}

#[test]
fn b_loss_throughput() {
    check_loss_throughput(4, 7);
}

#[test]
#[ignore = "long: run in release mode with --ignored"]
fn b_loss_throughput_seeds() {
    for seed in 1..=5 {
        check_loss_throughput(10, seed);
    }
}

/// (c) Ten flows with equal RTT (40 ms base) sharing a 10 Mbit/s bottleneck with a 100-packet queue, starting
/// 100 ms apart: Jain's index of the bytes each delivered by `duration_s`, and events per wall-clock second.
fn fairness(variants: &[TcpVariant], duration_s: u64) -> (f64, f64) {
    let link = LinkConfig {
        rate_bps: 10_000_000,
        delay: ms(20),
        queue_packets: 100,
        loss: 0.0,
        seed: 3,
    };
    let flows: Vec<_> = variants
        .iter()
        .enumerate()
        .map(|(i, &v)| FlowSpec {
            config: tcp(v),
            start: Instant::from_millis(i as u64 * 100),
            ack_delay: ms(20),
        })
        .collect();
    let mut net = Net::new(link, &flows);
    let wall = std::time::Instant::now();
    net.run_until(secs(duration_s));
    let elapsed = wall.elapsed().as_secs_f64();
    let x: Vec<f64> = net.delivered().iter().map(|&b| b as f64).collect();
    let j = jain(&x);
    let total = x.iter().sum::<f64>() * 8.0 / duration_s as f64 / 1e6;
    let (min, max) = x
        .iter()
        .fold((f64::MAX, 0f64), |(a, b), &v| (a.min(v), b.max(v)));
    println!(
        "(c) {variants:?} {duration_s} s: Jain {j:.4}, aggregate goodput {total:.3} Mbit/s, per-flow min/max {:.3}, \
         {} queue drops; {} events in {elapsed:.2} s = {:.0} events/s",
        min / max,
        net.queue_drops,
        net.events,
        net.events as f64 / elapsed
    );
    (j, net.events as f64 / elapsed)
}

fn check_fairness(duration_s: u64) {
    let newreno = [TcpVariant::NewReno; 10];
    let sack = [TcpVariant::Sack; 10];
    let mut mixed = [TcpVariant::NewReno; 10];
    mixed[5..].fill(TcpVariant::Sack);
    for set in [&newreno[..], &sack[..], &mixed[..]] {
        let (j, _) = fairness(set, duration_s);
        assert!(j >= 0.95, "{set:?}: Jain {j}");
    }
}

#[test]
fn c_fairness() {
    check_fairness(100);
}

/// Speed indicator: the (c) network for 1000 simulated seconds; prints events per wall-clock second.
#[test]
#[ignore = "timing: run in release mode with --ignored --nocapture"]
fn speed_10_flows() {
    for set in [[TcpVariant::NewReno; 10], [TcpVariant::Sack; 10]] {
        fairness(&set, 1000);
    }
}
