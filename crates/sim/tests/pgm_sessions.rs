//! Convoy sessions over simulated topologies.

use convoy_proto::cc::pgmcc::PgmccConfig;
use convoy_proto::cc::CcConfig;
use convoy_proto::{Instant, RepairPacing};
use convoy_sim::impairment::ImpairmentConfig;
use convoy_sim::link::LinkConfig;
use convoy_sim::ne::NeConfig;
use convoy_sim::queue::{Limit, QueueConfig};
use convoy_sim::{Network, NodeId, NodeKind, SessionReceiver, SessionSpec};
use std::time::Duration;

fn link(rate_bps: u64, delay_ms: u64, queue_pkts: u32, loss: f64) -> LinkConfig {
    LinkConfig {
        rate_bps,
        delay: Duration::from_millis(delay_ms),
        queue: QueueConfig::DropTail(Limit::Packets(queue_pkts)),
        impairment: if loss > 0.0 {
            ImpairmentConfig::Bernoulli { p: loss }
        } else {
            ImpairmentConfig::None
        },
    }
}

fn duplex(net: &mut Network, name: &str, a: NodeId, b: NodeId, cfg: LinkConfig) {
    let back = LinkConfig {
        impairment: ImpairmentConfig::None,
        ..cfg.clone()
    };
    net.add_link(name, a, b, cfg, back);
}

fn session(name: &str, source: NodeId, receivers: &[(&str, NodeId, f64)], c: f64) -> SessionSpec {
    SessionSpec {
        name: name.into(),
        source,
        receivers: receivers
            .iter()
            .map(|(n, node, join)| SessionReceiver {
                name: (*n).into(),
                node: *node,
                join: Instant::from_secs_f64(*join),
                leave: None,
            })
            .collect(),
        cc: CcConfig::Pgmcc(PgmccConfig {
            c,
            ..PgmccConfig::default()
        }),
        apdu_size: 1400,
        start: Instant::ZERO,
        stop: None,
        bytes: None,
        trace: true,
        record_arrivals: false,
        rate_max: None,
        nak_elim_ivl: None,
        repair_pacing: RepairPacing::RateLimit,
        rxw: None,
        keyed: None,
        parity: None,
        min_rate: None,
    }
}

/// S — R — {A (clean 500 kbit/s), B (500 kbit/s with 2% loss)}.
fn two_branch(seed: u64, ne: Option<NeConfig>) -> Network {
    let mut net = Network::new(seed, Duration::from_secs(1), Duration::from_millis(100));
    let s = net.add_node("S", NodeKind::Host).unwrap();
    let r = net
        .add_node("R", ne.map_or(NodeKind::Router, NodeKind::PgmRouter))
        .unwrap();
    let a = net.add_node("A", NodeKind::Host).unwrap();
    let b = net.add_node("B", NodeKind::Host).unwrap();
    duplex(&mut net, "S-R", s, r, link(100_000_000, 1, 1000, 0.0));
    duplex(&mut net, "R-A", r, a, link(500_000, 20, 30, 0.0));
    duplex(&mut net, "R-B", r, b, link(500_000, 20, 30, 0.02));
    net.add_session(session("pgm", s, &[("A", a, 0.0), ("B", b, 0.0)], 0.75))
        .unwrap();
    net
}

#[test]
fn pgmcc_session_tracks_the_lossy_receiver_and_fills_nothing_beyond() {
    let mut net = two_branch(1, None);
    net.run(Instant::from_secs_f64(120.0));
    let res = net.results();
    let f = &res.flows[0];
    assert_eq!(f.kind, "pgmcc");
    let (a, b) = (&f.receivers[0], &f.receivers[1]);
    assert!(
        (b.loss_rate - 0.02).abs() < 0.01,
        "B sees its 2%: {}",
        b.loss_rate
    );
    assert!(
        a.loss_rate < 0.02,
        "A sees only congestion: {}",
        a.loss_rate
    );
    // The session runs at B's TCP-friendly rate, below the 500 kbit/s links.
    assert!(
        f.goodput_bps > 100_000.0 && f.goodput_bps < 500_000.0,
        "goodput {}",
        f.goodput_bps
    );
    // Reliable: both delivered the same bytes, give or take what is in flight at the end.
    let diff = a.delivered_bytes.abs_diff(b.delivered_bytes);
    assert!(
        diff < 200 * 1400,
        "A {} vs B {}",
        a.delivered_bytes,
        b.delivered_bytes
    );
    let last = f.switches.last().expect("an acker was elected").1.clone();
    assert_eq!(last.as_deref(), Some("B"));
}

#[test]
fn same_seed_same_results() {
    let run = |seed| {
        let mut net = two_branch(seed, Some(NeConfig::default()));
        let events = net.run(Instant::from_secs_f64(30.0));
        (events, net.results())
    };
    let (e1, r1) = run(7);
    let (e2, r2) = run(7);
    let (_, r3) = run(8);
    assert_eq!(e1, e2);
    assert_eq!(r1, r2);
    assert_ne!(r1, r3);
}

#[test]
fn network_elements_suppress_duplicate_naks() {
    // Shared loss above the router: both receivers lose the same packets; the NE forwards one NAK per number.
    let mut net = Network::new(3, Duration::from_secs(1), Duration::ZERO);
    let s = net.add_node("S", NodeKind::Host).unwrap();
    let r = net
        .add_node("NE", NodeKind::PgmRouter(NeConfig::default()))
        .unwrap();
    let a = net.add_node("A", NodeKind::Host).unwrap();
    let b = net.add_node("B", NodeKind::Host).unwrap();
    duplex(&mut net, "S-NE", s, r, link(1_000_000, 10, 100, 0.02));
    duplex(&mut net, "NE-A", r, a, link(10_000_000, 10, 100, 0.0));
    duplex(&mut net, "NE-B", r, b, link(10_000_000, 10, 100, 0.0));
    net.add_session(session("pgm", s, &[("A", a, 0.0), ("B", b, 0.0)], 0.75))
        .unwrap();
    net.run(Instant::from_secs_f64(60.0));
    let res = net.results();
    let f = &res.flows[0];
    let diff = f.receivers[0]
        .delivered_bytes
        .abs_diff(f.receivers[1].delivered_bytes);
    assert!(diff < 100 * 1400);
    let sender = net.session_sender("pgm").unwrap().sender();
    let naks = sender.stats().naks;
    let rdata = sender.stats().rdata_packets;
    assert!(rdata > 50, "repairs happened: {rdata}");
    // Without suppression each loss would bring two NAKs.
    assert!(
        (naks as f64) < 1.4 * rdata as f64,
        "NAKs {naks} vs repairs {rdata}"
    );
    // The element's own counters say the same.
    let ne = net.ne_stats();
    assert_eq!(ne.len(), 1);
    assert_eq!(ne[0].0, "NE");
    assert!(ne[0].1.naks_suppressed > 0, "{:?}", ne[0].1);
    // Every NAK the source got was forwarded by the element; one forwarded in the last 10 ms (the link's delay)
    // may still be on its way when the run ends.
    let forwarded = ne[0].1.naks_forwarded;
    assert!(
        naks <= forwarded && forwarded - naks <= 1,
        "forwarded {forwarded}, received {naks}"
    );
    // Per receiver: what each sent and what of it reached the source, summing to the source's count; the
    // suppressed ones are missing from the receivers' reach.
    let (sent, reached): (u64, u64) = f
        .receivers
        .iter()
        .map(|r| (r.naks_sent, r.naks_at_source))
        .fold((0, 0), |(a, b), (s, r)| (a + s, b + r));
    assert!(f.receivers.iter().all(|r| r.naks_at_source <= r.naks_sent));
    assert_eq!(reached, naks);
    assert!(
        sent >= reached + ne[0].1.naks_suppressed,
        "sent {sent}, reached {reached}, {:?}",
        ne[0].1
    );
}

#[test]
fn without_suppression_every_nak_reaches_the_source() {
    let mut net = two_branch(
        5,
        Some(NeConfig {
            suppress_naks: false,
            ..NeConfig::default()
        }),
    );
    net.run(Instant::from_secs_f64(30.0));
    let res = net.results();
    let b = &res.flows[0].receivers[1];
    assert!(b.naks_sent > 10, "B lost 2% and asked: {}", b.naks_sent);
    // One sent in the link's last 20 ms may still be on its way.
    assert!(b.naks_sent - b.naks_at_source <= 1, "{b:?}");
}

#[test]
fn late_joiner_gets_the_tree_grafted() {
    let mut net = Network::new(5, Duration::from_secs(1), Duration::ZERO);
    let s = net.add_node("S", NodeKind::Host).unwrap();
    let r = net.add_node("R", NodeKind::Router).unwrap();
    let a = net.add_node("A", NodeKind::Host).unwrap();
    let b = net.add_node("B", NodeKind::Host).unwrap();
    duplex(&mut net, "S-R", s, r, link(10_000_000, 5, 100, 0.0));
    duplex(&mut net, "R-A", r, a, link(1_000_000, 5, 100, 0.0));
    duplex(&mut net, "R-B", r, b, link(1_000_000, 5, 100, 0.0));
    net.add_session(session("pgm", s, &[("A", a, 0.0), ("B", b, 10.0)], 0.75))
        .unwrap();
    net.run(Instant::from_secs_f64(20.0));
    let res = net.results();
    let (a, b) = (&res.flows[0].receivers[0], &res.flows[0].receivers[1]);
    assert!(b.delivered_bytes > 0 && b.delivered_bytes < a.delivered_bytes);
    assert!(a.goodput_bps > 700_000.0, "{}", a.goodput_bps);
}

#[test]
#[ignore]
fn print_two_branch() {
    let mut net = two_branch(1, None);
    let ev = net.run(Instant::from_secs_f64(120.0));
    let r = net.results();
    println!("events {ev}");
    for f in &r.flows {
        println!(
            "{} {} goodput {:.0} switches {:?} timeouts {}",
            f.name, f.kind, f.goodput_bps, f.switches, f.timeouts
        );
        for x in &f.receivers {
            println!(
                "  {} goodput {:.0} loss {:.4} bytes {}",
                x.name, x.goodput_bps, x.loss_rate, x.delivered_bytes
            );
        }
        println!("  thr {:?}", &f.throughput_bps[..20]);
    }
    for l in &r.links {
        println!(
            "{} util {:.3} drops {} q {:.2}",
            l.name, l.utilization, l.drops, l.mean_queue_pkts
        );
    }
}

/// A star for the diagnostics: S --100 Mbit/s, 1 ms, `source_queue` packets-- hub --100 Mbit/s, 1 ms, 1000
/// packets-- H0 .. H(n-1), with one pgmcc session (c = 0.75) to all of them, `configure`d before it is added.
fn star(n: usize, source_queue: u32, configure: impl FnOnce(&mut SessionSpec)) -> Network {
    let mut net = Network::new(1, Duration::from_secs(1), Duration::ZERO);
    let s = net.add_node("S", NodeKind::Host).unwrap();
    let hub = net.add_node("hub", NodeKind::Router).unwrap();
    duplex(
        &mut net,
        "S-hub",
        s,
        hub,
        link(100_000_000, 1, source_queue, 0.0),
    );
    let mut rx = Vec::new();
    for i in 0..n {
        let h = net.add_node(&format!("H{i}"), NodeKind::Host).unwrap();
        duplex(
            &mut net,
            &format!("hub-H{i}"),
            hub,
            h,
            link(100_000_000, 1, 1000, 0.0),
        );
        rx.push((format!("H{i}"), h));
    }
    let list: Vec<(&str, NodeId, f64)> = rx.iter().map(|(n, h)| (n.as_str(), *h, 0.0)).collect();
    let mut spec = session("pgm", s, &list, 0.75);
    configure(&mut spec);
    net.add_session(spec).unwrap();
    net
}

#[test]
#[ignore]
fn print_star_speed() {
    let n: usize = std::env::var("STAR_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100);
    let secs: f64 = std::env::var("STAR_S")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10.0);
    let mut net = star(n, 1000, |_| {});
    let t0 = std::time::Instant::now();
    let ev = net.run(Instant::from_secs_f64(secs));
    let wall = t0.elapsed().as_secs_f64();
    let r = net.results();
    println!(
        "n={n} sim={secs}s events={ev} wall={wall:.2}s ev/s={:.0} goodput={:.0}",
        ev as f64 / wall,
        r.flows[0].goodput_bps
    );
}

fn link_bytes(rate_bps: u64, delay_ms: u64, queue_bytes: u64) -> LinkConfig {
    LinkConfig {
        rate_bps,
        delay: Duration::from_millis(delay_ms),
        queue: QueueConfig::DropTail(Limit::Bytes(queue_bytes)),
        impairment: ImpairmentConfig::None,
    }
}

#[test]
#[ignore]
fn print_fig5_first_phases() {
    let mut net = Network::new(1, Duration::from_secs(1), Duration::from_millis(100));
    let s = net.add_node("PS", NodeKind::Host).unwrap();
    let r = net.add_node("R", NodeKind::Router).unwrap();
    let r1 = net.add_node("R1", NodeKind::Router).unwrap();
    let r2 = net.add_node("R2", NodeKind::Router).unwrap();
    let pr1 = net.add_node("PR1", NodeKind::Host).unwrap();
    let pr2 = net.add_node("PR2", NodeKind::Host).unwrap();
    duplex(&mut net, "S-R", s, r, link(100_000_000, 1, 1000, 0.0));
    duplex(&mut net, "L1", r, r1, link_bytes(400_000, 50, 20_000));
    duplex(&mut net, "L2", r, r2, link(500_000, 50, 30, 0.0));
    duplex(&mut net, "R1-PR1", r1, pr1, link(100_000_000, 1, 1000, 0.0));
    duplex(&mut net, "R2-PR2", r2, pr2, link(100_000_000, 1, 1000, 0.0));
    net.add_session(session(
        "pgm",
        s,
        &[("PR1", pr1, 100.0), ("PR2", pr2, 0.0)],
        0.75,
    ))
    .unwrap();
    net.run(Instant::from_secs_f64(200.0));
    let r = net.results();
    let f = &r.flows[0];
    let mean = |a: usize, b: usize| f.throughput_bps[a..b].iter().sum::<f64>() / (b - a) as f64;
    println!(
        "0-100: {:.0}  115-200: {:.0}",
        mean(15, 100),
        mean(115, 200)
    );
    println!("switches {:?} timeouts {}", f.switches, f.timeouts);
    for x in &f.receivers {
        println!(
            "  {} goodput {:.0} loss {:.4}",
            x.name, x.goodput_bps, x.loss_rate
        );
    }
}

/// Diagnostic: a star whose source link overflows; prints the source's repair counters and one receiver's
/// receive-window counters every second (`STAR_N` receivers, `STAR_Q` packets of source-link queue).
#[test]
#[ignore]
fn print_star_repairs() {
    let env = |k: &str, d: u64| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    let (n, q, secs) = (env("STAR_N", 20), env("STAR_Q", 50), env("STAR_S", 10));
    let mut net = star(n as usize, q as u32, |spec| {
        if let Ok(ms) = std::env::var("NAK_ELIM_MS") {
            spec.nak_elim_ivl = Some(Duration::from_millis(ms.parse().unwrap()));
        }
    });
    for t in 1..=secs {
        net.run(Instant::from_secs_f64(t as f64));
        let snd = net.session_sender("pgm").unwrap().sender().stats().clone();
        let r = net.session_receivers("pgm")[0].receiver();
        let w = r.rxw_stats().unwrap().clone();
        println!(
            "t={t} odata={} rdata={} naks={} ncfs={} elim={} | rx0: got={} repaired={} naks={} ncf_to={} data_to={} lost={} delivered={}",
            snd.odata_packets, snd.rdata_packets, snd.naks, snd.ncfs, snd.nak_sqns_eliminated,
            w.packets_received, w.repaired, w.naks_sent, w.ncf_timeouts, w.data_timeouts, w.sqns_lost, w.apdus_delivered
        );
    }
}

/// A keyed session (docs/keyed-sessions.md) in the simulator: the same engine seals and opens every packet, so
/// it delivers as an unkeyed one does, and its 48 bytes of OPT_CONVOY_AUTH per packet show in the goodput a
/// bottleneck leaves.
#[test]
fn a_keyed_session_delivers_and_pays_its_tag_on_the_wire() {
    let goodput = |keyed: Option<bool>| {
        let mut net = Network::new(4, Duration::from_secs(1), Duration::from_millis(100));
        let s = net.add_node("S", NodeKind::Host).unwrap();
        let r = net.add_node("R", NodeKind::Router).unwrap();
        let a = net.add_node("A", NodeKind::Host).unwrap();
        duplex(&mut net, "S-R", s, r, link(100_000_000, 1, 1000, 0.0));
        duplex(&mut net, "R-A", r, a, link(2_000_000, 20, 50, 0.0));
        let mut spec = session("pgm", s, &[("A", a, 0.0)], 0.75);
        spec.keyed = keyed;
        net.add_session(spec).unwrap();
        net.run(Instant::from_secs_f64(60.0));
        let res = net.results();
        res.flows[0].goodput_bps
    };
    let plain = goodput(None);
    for keyed in [Some(false), Some(true)] {
        let g = goodput(keyed);
        let ratio = g / plain;
        eprintln!("keyed {keyed:?}: goodput {g:.0} bit/s, unkeyed {plain:.0} ({ratio:.3})");
        // 1400-byte payloads: PGM, UDP and IP headers of about 80 bytes, then 48 more.
        assert!(
            (0.94..0.995).contains(&ratio),
            "{keyed:?}: {g} against {plain} unkeyed ({ratio:.3})"
        );
    }
}
