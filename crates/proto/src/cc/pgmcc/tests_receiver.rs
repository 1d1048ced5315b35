//! Rule-by-rule tests of the pgmcc receiver half.

use super::*;
use crate::cc::{OdataOutcome, ReceiverCcEvent, ReceiverController};
use crate::time::Instant;
use convoy_wire::{OptionsRepr, PgmccData};
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

fn ip(n: u8) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(10, 0, 1, n))
}

fn data(acker: IpAddr, tstamp: u32) -> OptionsRepr {
    let mut options = OptionsRepr::default();
    options.cc.pgmcc.data = Some(PgmccData { tstamp, acker });
    options
}

fn none() -> IpAddr {
    IpAddr::V4(Ipv4Addr::UNSPECIFIED)
}

fn rx() -> (PgmccReceiver, ChaCha8Rng) {
    (
        PgmccReceiver::new(PgmccConfig::default(), ip(1)),
        ChaCha8Rng::seed_from_u64(7),
    )
}

#[test]
fn draft_4_acker_acks_every_data_packet_immediately() {
    let (mut r, mut rng) = rx();
    let now = Instant::from_millis(5);
    r.on_odata(now, &mut rng, 10, 1464, &data(ip(1), 77));
    match r.next_feedback(now) {
        Some(ReceiverFeedback::Ack {
            rx_max,
            bitmap,
            options,
        }) => {
            assert_eq!(rx_max, 10);
            assert_eq!(bitmap & 1, 1);
            let fb = options.cc.pgmcc.feedback.unwrap();
            assert_eq!(fb.reporter, ip(1));
            assert_eq!(fb.tstamp, 77, "immediate: no holding time added");
        }
        other => panic!("expected an ACK, got {other:?}"),
    }
    assert_eq!(r.poll_event(), Some(ReceiverCcEvent::AckerRole(true)));
    // Data naming someone else: no ACK.
    r.on_odata(now, &mut rng, 11, 1464, &data(ip(2), 78));
    assert_eq!(r.next_feedback(now), None);
    assert_eq!(r.poll_event(), Some(ReceiverCcEvent::AckerRole(false)));
}

#[test]
fn draft_2_1_3_bitmap_lsb_is_rx_max_one_is_received() {
    let (mut r, mut rng) = rx();
    let now = Instant::ZERO;
    for sqn in [0u32, 1, 2, 4, 5] {
        r.on_odata(now, &mut rng, sqn, 1464, &data(ip(2), 0));
    }
    // RX_MAX = 5; bit i is sqn 5 − i: 5, 4 received (bits 0, 1), 3 missing (bit 2), 2, 1, 0 received.
    assert_eq!(r.bitmap() & 0b11_1111, 0b11_1011);
    // Late arrival of 3 fills its bit.
    r.on_odata(now, &mut rng, 3, 1464, &data(ip(2), 0));
    assert_eq!(r.bitmap() & 0b11_1111, 0b11_1111);
}

#[test]
fn paper_3_2_rx_max_is_wrap_aware() {
    let (mut r, mut rng) = rx();
    r.on_odata(Instant::ZERO, &mut rng, u32::MAX - 1, 1464, &data(ip(2), 0));
    r.on_odata(Instant::ZERO, &mut rng, 1, 1464, &data(ip(2), 0));
    assert_eq!(r.snapshot().rx_max, Some(1));
    r.on_odata(Instant::ZERO, &mut rng, u32::MAX, 1464, &data(ip(2), 0));
    assert_eq!(
        r.snapshot().rx_max,
        Some(1),
        "an older packet does not move RX_MAX back"
    );
}

#[test]
fn paper_3_2_2_gaps_feed_the_loss_filter() {
    let (mut r, mut rng) = rx();
    for sqn in (0..20_000u32).filter(|s| s % 20 != 7) {
        r.on_odata(Instant::ZERO, &mut rng, sqn, 1464, &data(ip(2), 0));
    }
    let p = r.snapshot().loss;
    assert!((p - 0.05).abs() < 0.01, "5% loss pattern gives {p}");
}

#[test]
fn draft_2_6_tfrc_estimator_selectable() {
    let config = PgmccConfig {
        loss_estimator: LossEstimator::Tfrc {
            rtt_hint: Duration::from_millis(1),
        },
        ..PgmccConfig::default()
    };
    let mut r = PgmccReceiver::new(config, ip(1));
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    for sqn in (0..10_000u32).filter(|s| s % 100 != 50) {
        r.on_odata(
            Instant::from_millis(u64::from(sqn) * 10),
            &mut rng,
            sqn,
            1464,
            &data(ip(2), 0),
        );
    }
    let p = r.snapshot().loss;
    assert!((p - 0.01).abs() < 0.002, "1 loss per 100 packets gives {p}");
}

#[test]
fn draft_2_5_1_echo_adds_holding_time() {
    let (mut r, mut rng) = rx();
    r.on_odata(Instant::from_millis(100), &mut rng, 0, 1464, &data(ip(2), 5_000));
    let mut options = OptionsRepr::default();
    r.add_nak_report(Instant::from_millis(130), &mut options);
    let fb = options.cc.pgmcc.feedback.unwrap();
    assert_eq!(fb.tstamp, 5_000 + 30_000, "30 ms held, in microseconds");
}

#[test]
fn paper_3_2_every_nak_carries_the_report() {
    let (mut r, mut rng) = rx();
    r.on_odata(Instant::ZERO, &mut rng, 0, 1464, &data(ip(2), 0));
    r.on_odata(Instant::ZERO, &mut rng, 3, 1464, &data(ip(2), 0));
    let mut options = OptionsRepr::default();
    r.add_nak_report(Instant::ZERO, &mut options);
    let fb = options.cc.pgmcc.feedback.unwrap();
    assert_eq!(fb.reporter, ip(1));
    assert!(fb.loss_rate > 0);
    assert_eq!(options.cc.pgmcc.rxw_lead, Some(3));
}

#[test]
fn paper_3_6_election_request_answered_after_short_backoff() {
    let (mut r, mut rng) = rx();
    let t0 = Instant::from_millis(1000);
    r.on_odata(t0, &mut rng, 0, 1464, &data(none(), 0));
    assert_eq!(r.next_feedback(t0), None);
    let due = r.poll_timeout().expect("an election answer is scheduled");
    assert!(due >= t0 && due <= t0 + PgmccConfig::default().election_backoff);
    match r.next_feedback(due) {
        Some(ReceiverFeedback::ElectionNak { sqn, options }) => {
            assert_eq!(sqn, 0);
            assert!(options.cc.pgmcc.feedback.is_some());
        }
        other => panic!("expected an election NAK, got {other:?}"),
    }
}

#[test]
fn election_answer_cancelled_once_an_acker_is_named() {
    let (mut r, mut rng) = rx();
    r.on_odata(Instant::ZERO, &mut rng, 0, 1464, &data(none(), 0));
    r.on_odata(Instant::ZERO, &mut rng, 1, 1464, &data(ip(3), 0));
    assert_eq!(r.poll_timeout(), None);
    assert_eq!(r.next_feedback(Instant::from_secs_f64(1.0)), None);
}

#[test]
fn draft_2_3_2_acker_leaving_on_close() {
    let (mut r, mut rng) = rx();
    r.on_odata(Instant::ZERO, &mut rng, 0, 1464, &data(ip(1), 0));
    let _ = r.next_feedback(Instant::ZERO);
    r.close(Instant::ZERO);
    match r.next_feedback(Instant::ZERO) {
        Some(ReceiverFeedback::Ack { options, .. }) => assert!(options.cc.pgmcc.acker_leaving),
        other => panic!("expected ACKER_LEAVING, got {other:?}"),
    }
}

fn acks(r: &mut PgmccReceiver, now: Instant) -> Vec<(u32, u32)> {
    std::iter::from_fn(|| r.next_feedback(now))
        .map(|fb| match fb {
            ReceiverFeedback::Ack { rx_max, bitmap, .. } => (rx_max, bitmap),
            other => panic!("expected ACKs only, got {other:?}"),
        })
        .collect()
}

/// A receiver with [`PgmccConfig::ack_per_batch`] on, and its random stream.
fn batching_rx() -> (PgmccReceiver, ChaCha8Rng) {
    let config = PgmccConfig {
        ack_per_batch: true,
        ..PgmccConfig::default()
    };
    (
        PgmccReceiver::new(config, ip(1)),
        ChaCha8Rng::seed_from_u64(7),
    )
}

#[test]
fn ack_per_batch_off_acks_every_packet_of_a_batch() {
    let (mut r, mut rng) = rx();
    let now = Instant::from_millis(5);
    for sqn in 0..5 {
        r.on_odata(now, &mut rng, sqn, 1464, &data(ip(1), sqn));
    }
    assert_eq!(acks(&mut r, now).len(), 5);
}

#[test]
fn ack_per_batch_sends_one_ack_covering_a_batch_and_keeps_every_bit() {
    let (mut r, mut rng) = batching_rx();
    let now = Instant::from_millis(5);
    // The first ACK always leaves on its own: nothing has left yet to measure coverage from.
    r.on_odata(now, &mut rng, 100, 1464, &data(ip(1), 1));
    r.on_odata(now, &mut rng, 101, 1464, &data(ip(1), 2));
    assert_eq!(acks(&mut r, now).len(), 2);
    // A batch of 10 with 105 missing: one ACK whose bitmap shows the hole.
    for sqn in (102..112).filter(|&s| s != 105) {
        r.on_odata(now, &mut rng, sqn, 1464, &data(ip(1), sqn));
    }
    let got = acks(&mut r, now);
    assert_eq!(got.len(), 1, "{got:?}");
    let (rx_max, bitmap) = got[0];
    assert_eq!(rx_max, 111);
    assert_eq!(bitmap & 0x3ff, 0x3ff & !(1 << (111 - 105)));
    assert_eq!(
        bitmap >> (111 - 101) & 1,
        1,
        "the last ACK that left is still covered"
    );
}

#[test]
fn ack_per_batch_never_lets_a_packet_fall_out_of_the_bitmap_unreported() {
    let (mut r, mut rng) = batching_rx();
    let now = Instant::from_millis(5);
    r.on_odata(now, &mut rng, 0, 1464, &data(ip(1), 0));
    assert_eq!(acks(&mut r, now).len(), 1);
    // 100 packets read in one go: a new ACK starts whenever the next would leave packets uncovered.
    for sqn in 1..=100 {
        r.on_odata(now, &mut rng, sqn, 1464, &data(ip(1), sqn));
    }
    let got = acks(&mut r, now);
    let mut reported_up_to = 0u32;
    for &(rx_max, bitmap) in &got {
        assert!(
            rx_max - reported_up_to <= 32,
            "gap before {rx_max}: {got:?}"
        );
        assert_eq!(bitmap, u32::MAX);
        reported_up_to = rx_max;
    }
    assert_eq!(reported_up_to, 100);
    assert!(got.len() < 10, "{} ACKs for 100 packets", got.len());
}

#[test]
fn rfc4654_4_5_biased_election_timer_answers_late_except_a_few() {
    let max = Duration::from_millis(20);
    let biased = ElectionTimer::Biased {
        receivers_max: 10_000,
    };
    assert_eq!(
        biased.delay(max, 1.0),
        max,
        "x = 1 waits the whole back-off"
    );
    assert_eq!(
        biased.delay(max, 1e-6),
        Duration::ZERO,
        "below 1/N: at once"
    );
    assert_eq!(ElectionTimer::Uniform.delay(max, 0.5), max / 2);
    // Of 10,000 receivers, how many answer within 4 ms (before the data naming the acker cancels them)?
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let early = |timer: ElectionTimer, rng: &mut ChaCha8Rng| {
        (0..10_000u32)
            .filter(|i| {
                let config = PgmccConfig {
                    election_timer: timer,
                    ..PgmccConfig::default()
                };
                let mut r = PgmccReceiver::new(config, ip((i % 250) as u8 + 1));
                r.on_odata(Instant::ZERO, rng, 1, 1464, &data(none(), 0));
                r.poll_timeout().unwrap() < Instant::from_millis(4)
            })
            .count()
    };
    let uniform = early(ElectionTimer::Uniform, &mut rng);
    let few = early(biased, &mut rng);
    assert!((1700..2300).contains(&uniform), "uniform: {uniform}");
    assert!(few < 20, "biased: {few}");
}

/// ODATA naming `acker`, stamped `tstamp` µs, during the source's start-up echoing `echo` (packets per 1000 s).
fn start_up_data(acker: IpAddr, tstamp: u32, echo: u32) -> OptionsRepr {
    let mut options = data(acker, tstamp);
    options.cc.pgmcc.start_up = Some(echo);
    options
}

#[test]
fn startup_a_receiver_whose_path_spreads_a_burst_reports_its_rate_on_an_ack() {
    let (mut r, mut rng) = rx();
    // Four packets sent within 3 µs, arriving 2 ms apart: 500 packets/s, below the echoed 8000.
    for i in 0..4u32 {
        let at = Instant::from_millis(10 + 2 * u64::from(i));
        r.on_odata(at, &mut rng, i, 1464, &start_up_data(ip(2), 1000 + i, 8_000_000));
    }
    match r.next_feedback(Instant::from_millis(16)) {
        Some(ReceiverFeedback::Ack { rx_max, options, .. }) => {
            assert_eq!(rx_max, 3);
            assert_eq!(options.cc.pgmcc.rx_rate, Some(500_000));
            assert!(options.cc.pgmcc.feedback.is_some(), "with its report");
        }
        other => panic!("expected a rate report, got {other:?}"),
    }
    assert_eq!(r.next_feedback(Instant::from_millis(16)), None);
    assert!(!r.snapshot().is_acker, "a report, not the acker's ACK");
}

#[test]
fn startup_no_report_without_the_sources_start_up_option_or_below_the_echo() {
    let (mut r, mut rng) = rx();
    for i in 0..8u32 {
        let at = Instant::from_millis(10 + 2 * u64::from(i));
        let options = if i < 4 {
            data(ip(2), 1000 + i)
        } else {
            start_up_data(ip(2), 1000 + i, 500_000)
        };
        r.on_odata(at, &mut rng, i, 1464, &options);
    }
    assert_eq!(r.next_feedback(Instant::from_millis(30)), None);
}

/// `OdataOutcome`: data naming another acker leaves a receiver nothing to poll; being named (an ACK per packet,
/// draft §4), losing the role (an event), an election request (an answer scheduled, paper §3.6) and data that
/// arrives once the answer is due do not. Data while an answer waits, not yet due, leaves it as it was.
#[test]
fn odata_is_quiet_only_when_it_leaves_nothing_to_poll() {
    let (mut r, mut rng) = rx();
    let t = Instant::from_millis(10);
    assert_eq!(r.on_odata(t, &mut rng, 0, 1464, &data(ip(2), 0)), OdataOutcome::Quiet);
    assert_eq!(r.on_odata(t, &mut rng, 1, 1464, &data(ip(1), 0)), OdataOutcome::Pending);
    while r.poll_event().is_some() {}
    while r.next_feedback(t).is_some() {}
    assert_eq!(r.on_odata(t, &mut rng, 2, 1464, &data(ip(2), 0)), OdataOutcome::Pending);
    assert_eq!(r.poll_event(), Some(ReceiverCcEvent::AckerRole(false)));
    assert_eq!(r.on_odata(t, &mut rng, 3, 1464, &data(ip(2), 0)), OdataOutcome::Quiet);
    // An election request: an answer after a random back-off (not zero with this seed).
    let at = Instant::from_millis(20);
    assert_eq!(r.on_odata(at, &mut rng, 4, 1464, &data(none(), 0)), OdataOutcome::Pending);
    let due = r.poll_timeout().expect("an answer is scheduled");
    assert!(due > at);
    assert_eq!(r.on_odata(at, &mut rng, 5, 1464, &data(none(), 0)), OdataOutcome::Quiet);
    assert_eq!(r.on_odata(due, &mut rng, 6, 1464, &data(none(), 0)), OdataOutcome::Pending);
}
