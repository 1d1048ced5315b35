//! The session's minimum rate (`SenderConfig::min_rate`), end to end through the harness for every controller:
//! a receiver behind a path slower than the minimum is shed within the grace period and a few rounds, learns it
//! from OPT_CONVOY_LEAVE, stops being followed, and the session goes on at the fast receiver's pace; without the
//! minimum the slow receiver keeps the pace.

use convoy_proto::cc::pgmcc::PgmccConfig;
use convoy_proto::cc::{CcConfig, CcEvent};
use convoy_proto::harness::{Harness, HarnessConfig, PathConfig};
use convoy_proto::sender::MinRate;
use convoy_proto::{Instant, SenderEvent};
use std::time::Duration;

/// The three controllers, with pgmcc's reports turned on (the policy reads them).
fn controllers() -> [CcConfig; 3] {
    [
        CcConfig::Pgmcc(PgmccConfig {
            report_events: true,
            ..PgmccConfig::default()
        }),
        CcConfig::Tfmcc(convoy_proto::cc::tfmcc::TfmccConfig::default()),
        CcConfig::Aimd(convoy_proto::cc::aimd::AimdConfig::default()),
    ]
}

/// A fast receiver (20 Mbit/s) and a slow one (500 kbit/s), both 10 ms away.
fn lab(cc: &CcConfig, min_rate: Option<MinRate>, seed: u64) -> Harness {
    let path = |rate: u64| PathConfig {
        rate_bps: Some(rate),
        queue_packets: 30,
        ..PathConfig::default()
    };
    let mut config = HarnessConfig::new(seed, vec![path(20_000_000), path(500_000)], 200_000);
    config.sender.cc = cc.clone();
    config.sender.min_rate = min_rate;
    for (r, _) in &mut config.receivers {
        r.cc = cc.clone();
    }
    Harness::new(config)
}

/// Payload bytes the source sent as original data between `from` and `to` seconds, in bit/s (from the
/// controller's snapshots is not enough: pgmcc has no rate), read off the acknowledged progress of the fast
/// receiver instead: APDUs delivered.
fn delivered_rate(h: &mut Harness, from: f64, to: f64) -> f64 {
    h.run_until(Instant::from_secs_f64(from));
    let before = h.outcome(0).delivered;
    h.run_until(Instant::from_secs_f64(to));
    let after = h.outcome(0).delivered;
    (after - before) as f64 * 1400.0 * 8.0 / (to - from)
}

#[test]
fn a_receiver_below_the_minimum_is_shed_after_the_grace_and_the_session_speeds_up() {
    let grace = Duration::from_secs(5);
    let policy = MinRate {
        rate_bps: 4e6 / 8.0,
        grace,
    };
    for (cc, seed) in controllers()
        .into_iter()
        .flat_map(|c| (1..=3).map(move |s| (c.clone(), s)))
    {
        let name = format!("{} seed {seed}", cc.name());
        let mut h = lab(&cc, Some(policy), seed);
        let slow_pace = delivered_rate(&mut h, 2.0, 4.0);
        let fast_pace = delivered_rate(&mut h, 30.0, 40.0);
        let sheds: Vec<(Instant, convoy_proto::sender::Shed)> = h
            .events()
            .iter()
            .filter_map(|e| match e.event {
                SenderEvent::Shed(s) => Some((e.t, s)),
                _ => None,
            })
            .collect();
        assert_eq!(sheds.len(), 1, "{name}: one receiver shed: {sheds:?}");
        let (t, shed) = sheds[0];
        assert_eq!(shed.receiver, HarnessConfig::receiver_addr(1), "{name}");
        assert!(shed.rate_bps < policy.rate_bps, "{name}: {shed:?}");
        let first_below = h
            .events()
            .iter()
            .find_map(|e| match e.event {
                SenderEvent::Cc(CcEvent::Report {
                    receiver,
                    rate_bps: Some(r),
                    ..
                }) if receiver == shed.receiver && r < policy.rate_bps => Some(e.t),
                _ => None,
            })
            .unwrap();
        let waited = t.saturating_duration_since(first_below);
        assert!(
            waited >= grace && waited < grace + Duration::from_secs(3),
            "{name}: shed {waited:?} after its first report below the minimum"
        );
        let told = h
            .outcome(1)
            .shed_at
            .unwrap_or_else(|| panic!("{name}: the slow receiver was told"));
        assert!(
            told.saturating_duration_since(t) < Duration::from_secs(1),
            "{name}: told at {told}, shed at {t}"
        );
        assert_ne!(
            h.sender().cc_snapshot().acker,
            Some(shed.receiver),
            "{name}: no longer followed"
        );
        assert!(
            slow_pace < 1.5e6 && fast_pace > 4.0 * slow_pace,
            "{name}: {slow_pace:.0} bit/s before the shed, {fast_pace:.0} after"
        );
        eprintln!("{name}: shed after {waited:?} below; {slow_pace:.0} bit/s before, {fast_pace:.0} after");
        assert_eq!(h.outcome(0).mismatch, None, "{name}");
    }
}

#[test]
fn without_a_minimum_the_slow_receiver_keeps_the_pace() {
    for cc in controllers() {
        let name = cc.name();
        let mut h = lab(&cc, None, 1);
        let pace = delivered_rate(&mut h, 30.0, 40.0);
        assert!(
            pace < 1.0e6,
            "{name}: {pace:.0} bit/s behind a 500 kbit/s receiver"
        );
        assert!(
            h.events()
                .iter()
                .all(|e| !matches!(e.event, SenderEvent::Shed(_))),
            "{name}"
        );
        assert_eq!(h.outcome(1).shed_at, None, "{name}");
    }
}
