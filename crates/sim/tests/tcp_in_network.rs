//! The TCP models validated inside the simulator's network (issue 3, "Done means").

use convoy_proto::Instant;
use convoy_sim::dumbbell::{jain, Dumbbell};
use convoy_sim::tcp::TcpVariant;
use std::time::Duration;

fn util(flows: usize, variant: TcpVariant, secs: f64) -> (f64, Vec<f64>) {
    let mut d = Dumbbell::benchmark(flows, 1);
    d.tcp.variant = variant;
    let (mut net, bottleneck) = d.build();
    net.run(Instant::from_secs_f64(secs));
    let r = net.results();
    let u = r.links[bottleneck.index()].utilization;
    (u, r.flows.iter().map(|f| f.goodput_bps).collect())
}

#[test]
fn one_flow_fills_a_lossless_bottleneck() {
    for v in [TcpVariant::Reno, TcpVariant::NewReno, TcpVariant::Sack] {
        let (u, _) = util(1, v, 60.0);
        assert!(u >= 0.95, "{v:?}: utilisation {u}");
    }
}

#[test]
fn ten_flows_share_fairly() {
    let (u, goodputs) = util(10, TcpVariant::Sack, 100.0);
    let j = jain(&goodputs);
    assert!(j >= 0.95, "Jain {j}, goodputs {goodputs:?}");
    assert!(u >= 0.95, "utilisation {u}");
}

#[test]
fn throughput_under_one_percent_loss_matches_the_equations() {
    // RTT 100 ms: 2 × (1 + 48 + 1) ms one way; ample bandwidth; 1% Bernoulli loss on the bottleneck.
    for v in [TcpVariant::Reno, TcpVariant::NewReno, TcpVariant::Sack] {
        let mut d = Dumbbell::benchmark(4, 3);
        d.tcp.variant = v;
        d.tcp.mss = 1460;
        d.bottleneck = (100_000_000, Duration::from_millis(48));
        d.queue_pkts = 1000;
        d.bottleneck_loss = 0.01;
        let (mut net, _) = d.build();
        net.run(Instant::from_secs_f64(200.0));
        let r = net.results();
        let mean = r.flows.iter().map(|f| f.goodput_bps / 8.0).sum::<f64>() / r.flows.len() as f64;
        let (s, rtt, p): (f64, f64, f64) = (1460.0, 0.1, 0.01);
        let mathis = s * (1.5f64).sqrt() / (rtt * p.sqrt());
        let padhye = convoy_proto::throughput::tcp_throughput(s, rtt, p);
        let ratio = mean / mathis;
        let ratio_p = mean / padhye;
        println!("{v:?}: {mean:.0} B/s, Mathis ratio {ratio:.3}, Padhye ratio {ratio_p:.3}");
        assert!(
            (0.75..=1.25).contains(&ratio) || (0.75..=1.25).contains(&ratio_p),
            "{v:?}: {mean} B/s vs Mathis {mathis} / Padhye {padhye}"
        );
    }
}

#[test]
#[ignore]
fn print_dumbbell_speed() {
    for n in [1usize, 10, 100] {
        let (mut net, bottleneck) = Dumbbell::benchmark(n, 1).build();
        let t0 = std::time::Instant::now();
        let ev = net.run(Instant::from_secs_f64(100.0));
        let wall = t0.elapsed().as_secs_f64();
        let r = net.results();
        let g: Vec<f64> = r.flows.iter().map(|f| f.goodput_bps).collect();
        println!(
            "N={n} wall={wall:.3}s events={ev} ev/s={:.0} util={:.4} jain={:.4}",
            ev as f64 / wall,
            r.links[bottleneck.index()].utilization,
            jain(&g)
        );
    }
}
