//! Whole pgmcc sessions over the in-memory harness.

use convoy_proto::cc::fixed::FixedConfig;
use convoy_proto::cc::{CcConfig, CcEvent};
use convoy_proto::harness::{Harness, HarnessConfig, PathConfig};
use convoy_proto::{Instant, SenderEvent};
use std::time::Duration;

fn path(delay_ms: u64, loss: f64) -> PathConfig {
    PathConfig {
        delay: Duration::from_millis(delay_ms),
        loss,
        rate_bps: Some(2_000_000),
        queue_packets: 30,
        upstream_loss: 0.0,
    }
}

fn run(config: HarnessConfig, limit_s: f64) -> Harness {
    let mut h = Harness::new(config);
    h.run_until(Instant::from_secs_f64(limit_s));
    h
}

/// Issue 2's acceptance scenario: 3 receivers, one with 5% loss, 10,000 packets.
#[test]
fn three_receivers_one_lossy_everything_delivered_lossy_one_is_acker() {
    let config = HarnessConfig::new(
        1,
        vec![path(20, 0.0), path(20, 0.0), path(20, 0.05)],
        10_000,
    );
    let h = run(config, 3600.0);
    for i in 0..3 {
        let o = h.outcome(i);
        assert_eq!(o.delivered, 10_000, "receiver {i}: {o:?}");
        assert_eq!(o.mismatch, None, "receiver {i} delivered wrong bytes");
        assert_eq!(o.lost_sqns, 0, "receiver {i} lost data");
    }
    assert!(h.sender().is_closed(), "the sender finished and closed");
    let total = h.now().as_secs_f64();
    let lossy_share = h.acker_time(2).as_secs_f64() / total;
    assert!(
        lossy_share > 0.9,
        "the 5% receiver should hold the acker role, held it {:.1}%",
        lossy_share * 100.0
    );
    assert!(
        h.loss_reductions() > 10,
        "the window halves on the acker's losses: {}",
        h.loss_reductions()
    );
    for (before, after) in h.switch_windows() {
        assert!(
            after >= before,
            "an acker switch reduced the window {before} -> {after}"
        );
    }
    let switches = h
        .events()
        .iter()
        .filter(|e| {
            matches!(
                e.event,
                SenderEvent::Cc(CcEvent::AckerChanged {
                    from: Some(_),
                    to: Some(_)
                })
            )
        })
        .count();
    assert_eq!(
        switches,
        h.switch_windows().len(),
        "every switch was checked"
    );
    // 5% loss at 40 ms RTT plus queueing: the TCP-equation rate is far below the 2 Mbit/s paths.
    let goodput = 10_000.0 * 1400.0 * 8.0 / total;
    assert!(
        goodput < 1_900_000.0,
        "goodput {goodput} b/s should be limited by the lossy acker"
    );
}

#[test]
fn lossless_paths_fill_the_bottleneck() {
    let config = HarnessConfig::new(3, vec![path(10, 0.0), path(10, 0.0)], 5_000);
    let h = run(config, 600.0);
    assert!(h.all_delivered());
    let total = h
        .events()
        .last()
        .map_or(h.now(), |e| e.t)
        .as_secs_f64()
        .max(1.0);
    let goodput = 5_000.0 * 1400.0 * 8.0 / total;
    assert!(
        goodput > 0.8 * 2_000_000.0 * 1400.0 / 1464.0,
        "goodput {goodput}"
    );
}

#[test]
fn same_seed_same_trace_other_seed_other_trace() {
    let make = |seed| {
        let mut c = HarnessConfig::new(
            seed,
            vec![path(15, 0.02), path(25, 0.01), path(20, 0.05)],
            1_500,
        );
        c.record_trace = true;
        run(c, 600.0)
    };
    let a = make(42);
    let b = make(42);
    let c = make(43);
    assert!(
        a.trace().len() > 7_500,
        "trace of {} lines",
        a.trace().len()
    );
    assert_eq!(a.trace(), b.trace());
    assert_ne!(a.trace(), c.trace());
    assert!(a.all_delivered() && c.all_delivered());
}

#[test]
fn fixed_rate_session_delivers_everything_at_its_rate() {
    let mut config = HarnessConfig::new(5, vec![path(10, 0.01), path(10, 0.03)], 2_000);
    config.sender.cc = CcConfig::Fixed(FixedConfig {
        rate_bytes_per_s: 100_000,
        burst: Duration::ZERO,
    });
    for r in &mut config.receivers {
        r.0.cc = config.sender.cc.clone();
    }
    let h = run(config, 600.0);
    assert!(h.all_delivered(), "{:?} {:?}", h.outcome(0), h.outcome(1));
    // 2,000 packets of ~1464 bytes at 100 kB/s take ~29 s.
    let first_close = h.now().as_secs_f64();
    assert!(first_close > 25.0, "{first_close}");
}

#[test]
fn wrapping_sequence_numbers_are_delivered() {
    let mut config = HarnessConfig::new(9, vec![path(10, 0.02), path(10, 0.0)], 3_000);
    config.sender.initial_sqn = u32::MAX - 1_000;
    let h = run(config, 900.0);
    assert!(h.all_delivered(), "{:?} {:?}", h.outcome(0), h.outcome(1));
}
