//! Deterministic scenario tests of the receive window (seeded ChaCha8).

use std::collections::BTreeMap;

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

use super::*;

pub(super) fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

fn ms(x: u64) -> Instant {
    Instant::from_millis(x)
}

fn payload(sqn: u32) -> Vec<u8> {
    sqn.to_be_bytes().to_vec()
}

fn drain(w: &mut ReceiveWindow) -> Vec<Delivery> {
    std::iter::from_fn(|| w.poll_delivery()).collect()
}

fn whole(sqn: u32) -> Delivery {
    Delivery::Apdu {
        first_sqn: sqn,
        last_sqn: sqn,
        data: payload(sqn).into(),
    }
}

fn lost(first_sqn: u32, last_sqn: u32) -> Delivery {
    Delivery::Lost {
        first_sqn,
        last_sqn,
    }
}

/// Feeds a whole packet `sqn` with trail `trail`.
fn data(w: &mut ReceiveWindow, r: &mut ChaCha8Rng, now: Instant, sqn: u32, trail: u32) -> Arrival {
    let arrival = w.on_data(now, r, sqn, trail, None, &payload(sqn)).unwrap();
    w.check_invariants();
    arrival
}

/// Runs timers from `from` until `until` with no other input, returning every NAK with its send time.
fn run(
    w: &mut ReceiveWindow,
    r: &mut ChaCha8Rng,
    from: Instant,
    until: Instant,
) -> Vec<(Instant, Vec<u32>)> {
    let mut naks = Vec::new();
    let mut now = from;
    for step in 0.. {
        w.handle_timeout(now, r);
        while let Some(nak) = w.poll_nak(now) {
            assert!(!nak.is_empty() && nak.len() <= MAX_NAK_SQNS);
            naks.push((now, nak));
        }
        if step % 512 == 0 {
            w.check_invariants();
        }
        match w.poll_timeout() {
            Some(t) if t <= until => {
                assert!(
                    t > now,
                    "poll_timeout {t} not after {now} once everything is drained"
                );
                now = t;
            }
            _ => break,
        }
    }
    w.check_invariants();
    naks
}

#[test]
fn in_order_delivery_draws_no_randomness() {
    let mut w = ReceiveWindow::new(RxwConfig::default(), 10);
    let mut r = rng(1);
    for sqn in 10..20 {
        assert_eq!(data(&mut w, &mut r, ms(sqn.into()), sqn, 0), Arrival::New);
    }
    assert_eq!(drain(&mut w), (10..20).map(whole).collect::<Vec<_>>());
    assert_eq!((w.lead(), w.commit(), w.missing_count()), (19, 20, 0));
    assert_eq!(w.poll_timeout(), None);
    assert_eq!(
        r.next_u64(),
        rng(1).next_u64(),
        "in-order data must not consume randomness"
    );
    assert_eq!(w.stats().apdus_delivered, 10);
    assert_eq!(w.stats().bytes_delivered, 40);
}

#[test]
fn reordering_fills_the_hole_without_a_nak() {
    let mut w = ReceiveWindow::new(RxwConfig::default(), 0);
    let mut r = rng(2);
    data(&mut w, &mut r, ms(0), 0, 0);
    data(&mut w, &mut r, ms(1), 2, 0);
    assert_eq!(w.missing_count(), 1);
    assert_eq!(drain(&mut w), vec![whole(0)]);
    assert_eq!(data(&mut w, &mut r, ms(2), 1, 0), Arrival::Repaired);
    assert_eq!(drain(&mut w), vec![whole(1), whole(2)]);
    assert!(run(&mut w, &mut r, ms(2), ms(10_000)).is_empty());
    assert_eq!(w.stats().repaired, 1);
    assert_eq!(w.stats().naks_sent, 0);
}

#[test]
fn hole_is_naked_after_back_off_then_repaired() {
    let mut w = ReceiveWindow::new(RxwConfig::default(), 0);
    let mut r = rng(3);
    data(&mut w, &mut r, ms(0), 0, 0);
    data(&mut w, &mut r, ms(0), 3, 0);
    let deadline = w.poll_timeout().unwrap();
    assert!(deadline <= ms(50), "back-off within NAK_BO_IVL");
    let naks = run(&mut w, &mut r, ms(0), ms(100));
    // Each hole has its own random back-off, so each goes in its own NAK.
    assert_eq!(naks.len(), 2);
    let mut requested: Vec<u32> = naks.iter().flat_map(|n| n.1.clone()).collect();
    requested.sort_unstable();
    assert_eq!(requested, vec![1, 2]);
    assert!(naks.iter().all(|n| n.0 <= ms(50)));
    // Now in WAIT_NCF until NAK_RPT_IVL passes.
    assert_eq!(w.poll_timeout(), Some(naks[0].0 + Duration::from_secs(2)));
    assert_eq!(data(&mut w, &mut r, ms(120), 2, 0), Arrival::Repaired);
    assert_eq!(data(&mut w, &mut r, ms(121), 2, 0), Arrival::Duplicate);
    assert_eq!(data(&mut w, &mut r, ms(130), 1, 0), Arrival::Repaired);
    assert_eq!(drain(&mut w), (0..4).map(whole).collect::<Vec<_>>());
    assert_eq!(w.poll_timeout(), None);
    assert_eq!(data(&mut w, &mut r, ms(132), 2, 0), Arrival::BeforeWindow);
    let s = w.stats();
    assert_eq!(
        (
            s.naks_sent,
            s.nak_sqns_sent,
            s.repaired,
            s.duplicates,
            s.before_window
        ),
        (2, 2, 2, 1, 1)
    );
}

#[test]
fn ncf_suppresses_the_nak_and_waits_for_data() {
    let mut w = ReceiveWindow::new(RxwConfig::default(), 0);
    let mut r = rng(4);
    data(&mut w, &mut r, ms(0), 0, 0);
    data(&mut w, &mut r, ms(0), 2, 0);
    w.on_ncf(ms(1), &[1, 7, 0]);
    w.check_invariants();
    assert_eq!(
        w.poll_timeout(),
        Some(ms(2_001)),
        "WAIT_DATA for NAK_RDATA_IVL"
    );
    assert!(
        run(&mut w, &mut r, ms(1), ms(2_000)).is_empty(),
        "suppressed during back-off"
    );
    // A second NCF while waiting for data restarts NAK_RDATA_IVL (RFC 3208 §6.3).
    w.on_ncf(ms(1_500), &[1]);
    assert_eq!(w.poll_timeout(), Some(ms(3_500)));
    // NAK_RDATA_IVL expires: back to BACK_OFF, then a NAK.
    let naks = run(&mut w, &mut r, ms(1_500), ms(3_600));
    assert_eq!(naks.len(), 1);
    assert_eq!(naks[0].1, vec![1]);
    assert!(naks[0].0 >= ms(3_500) && naks[0].0 <= ms(3_550));
    assert_eq!(w.stats().data_timeouts, 1);
    // NCF in WAIT_NCF moves to WAIT_DATA too.
    w.on_ncf(ms(3_600), &[1]);
    assert_eq!(w.poll_timeout(), Some(ms(5_600)));
    assert_eq!(w.stats().ncfs_heard, 3);
}

#[test]
fn retry_exhaustion_declares_loss_and_delivery_continues() {
    let config = RxwConfig {
        nak_ncf_retries: 2,
        nak_data_retries: 1,
        ..RxwConfig::default()
    };
    let mut w = ReceiveWindow::new(config, 0);
    let mut r = rng(5);
    data(&mut w, &mut r, ms(0), 0, 0);
    data(&mut w, &mut r, ms(0), 2, 0);
    // No NCF ever: the initial NAK and two repeats, then cancellation.
    let naks = run(&mut w, &mut r, ms(0), ms(20_000));
    assert_eq!(
        naks.iter().map(|n| n.1.clone()).collect::<Vec<_>>(),
        vec![vec![1]; 3]
    );
    assert_eq!(w.stats().ncf_timeouts, 3);
    assert_eq!(drain(&mut w), vec![whole(0), lost(1, 1), whole(2)]);
    assert_eq!(w.missing_count(), 0);
    data(&mut w, &mut r, ms(20_000), 3, 0);
    assert_eq!(drain(&mut w), vec![whole(3)]);
    assert_eq!(w.stats().sqns_lost, 1);

    // WAIT_DATA expiries count against NAK_DATA_RETRIES.
    data(&mut w, &mut r, ms(20_000), 5, 0);
    w.on_ncf(ms(20_001), &[4]);
    let naks = run(&mut w, &mut r, ms(20_001), ms(22_100));
    assert_eq!(naks.len(), 1, "a NAK after the first WAIT_DATA expiry");
    w.on_ncf(naks[0].0, &[4]);
    assert!(run(&mut w, &mut r, naks[0].0, ms(60_000)).is_empty());
    assert_eq!(drain(&mut w), vec![lost(4, 4), whole(5)]);
}

#[test]
fn trail_advance_declares_loss_at_once() {
    let mut w = ReceiveWindow::new(RxwConfig::default(), 0);
    let mut r = rng(6);
    data(&mut w, &mut r, ms(0), 0, 0);
    data(&mut w, &mut r, ms(0), 3, 0);
    assert_eq!(w.missing_count(), 2);
    w.on_spm(ms(1), &mut r, 2, 3);
    w.check_invariants();
    assert_eq!(drain(&mut w), vec![whole(0), lost(1, 1)]);
    assert_eq!((w.trail(), w.missing_count()), (2, 1));
    // An SPM trail behind ours is ignored; data carrying TXW_TRAIL = 3 makes 2 unrecoverable.
    w.on_spm(ms(2), &mut r, 1, 3);
    assert_eq!(w.trail(), 2);
    data(&mut w, &mut r, ms(3), 4, 3);
    assert_eq!(drain(&mut w), vec![lost(2, 2), whole(3), whole(4)]);
    // SPM lead beyond ours: the gap is missing and NAKed; a trail beyond our lead loses what we never saw.
    w.on_spm(ms(4), &mut r, 4, 6);
    assert_eq!(w.missing_count(), 2);
    let naks = run(&mut w, &mut r, ms(4), ms(100));
    let mut requested: Vec<u32> = naks.iter().flat_map(|n| n.1.clone()).collect();
    requested.sort_unstable();
    assert_eq!(requested, vec![5, 6]);
    w.on_spm(ms(100), &mut r, 9, 9);
    assert_eq!(drain(&mut w), vec![lost(5, 8)]);
    assert_eq!((w.lead(), w.commit(), w.missing_count()), (9, 9, 1));
    assert_eq!(w.stats().sqns_lost, 6);
}

#[test]
fn window_slides_beyond_max_packets() {
    let config = RxwConfig {
        max_packets: 100,
        ..RxwConfig::default()
    };
    let mut w = ReceiveWindow::new(config, 0);
    let mut r = rng(7);
    data(&mut w, &mut r, ms(0), 0, 0);
    for sqn in 2..=100 {
        data(&mut w, &mut r, ms(1), sqn, 0);
    }
    assert_eq!(drain(&mut w), vec![whole(0)]);
    data(&mut w, &mut r, ms(2), 101, 0);
    let mut expected = vec![lost(1, 1)];
    expected.extend((2..=101).map(whole));
    assert_eq!(drain(&mut w), expected);
    // A jump far ahead: what cannot fit is lost, the last 99 before it are missing.
    data(&mut w, &mut r, ms(3), 1_000_000, 0);
    assert_eq!(drain(&mut w), vec![lost(102, 999_900)]);
    assert_eq!((w.commit(), w.missing_count()), (999_901, 99));
}

/// Splits `apdu` into fragments of at most `mtu` bytes starting at `first`.
fn fragments(first: u32, apdu: &[u8], mtu: usize) -> Vec<(u32, Fragment, Vec<u8>)> {
    apdu.chunks(mtu)
        .enumerate()
        .map(|(i, chunk)| {
            let f = Fragment {
                first_sqn: first,
                offset: (i * mtu) as u32,
                apdu_len: apdu.len() as u32,
            };
            (first.wrapping_add(i as u32), f, chunk.to_vec())
        })
        .collect()
}

fn pattern(len: usize, seed: u64) -> Vec<u8> {
    let mut v = vec![0; len];
    rng(seed).fill_bytes(&mut v);
    v
}

#[test]
fn fragments_reassemble_byte_exact_and_a_lost_fragment_drops_the_apdu() {
    let mut w = ReceiveWindow::new(RxwConfig::default(), 5);
    let mut r = rng(8);
    let apdu = pattern(2_500, 80);
    let frags = fragments(5, &apdu, 1_000);
    for &i in &[0, 2, 1] {
        let (sqn, f, ref part) = frags[i];
        w.on_data(ms(0), &mut r, sqn, 5, Some(f), part).unwrap();
        w.check_invariants();
    }
    w.on_data(ms(0), &mut r, 8, 5, None, b"tail").unwrap();
    assert_eq!(
        drain(&mut w),
        vec![
            Delivery::Apdu {
                first_sqn: 5,
                last_sqn: 7,
                data: apdu.into()
            },
            Delivery::Apdu {
                first_sqn: 8,
                last_sqn: 8,
                data: b"tail".to_vec().into()
            },
        ]
    );
    // APDU at 9..=12; fragment 10 becomes unrecoverable: the whole APDU goes, the next one is delivered.
    let dropped = fragments(9, &pattern(3_100, 81), 1_000);
    let next = fragments(13, &pattern(1_500, 82), 1_000);
    for (sqn, f, part) in dropped.iter().chain(&next).filter(|p| p.0 != 10) {
        w.on_data(ms(1), &mut r, *sqn, 5, Some(*f), part).unwrap();
    }
    assert_eq!(drain(&mut w), vec![]);
    w.on_spm(ms(2), &mut r, 11, 14);
    assert_eq!(
        drain(&mut w),
        vec![
            lost(9, 12),
            Delivery::Apdu {
                first_sqn: 13,
                last_sqn: 14,
                data: pattern(1_500, 82).into()
            }
        ]
    );
    let s = w.stats();
    assert_eq!((s.apdus_dropped, s.sqns_lost, s.apdus_delivered), (1, 4, 3));
}

#[test]
fn inconsistent_fragments_are_refused_and_not_stored() {
    let config = RxwConfig {
        max_apdu_len: 10_000,
        ..RxwConfig::default()
    };
    let mut w = ReceiveWindow::new(config, 0);
    let mut r = rng(9);
    let f = |first_sqn, offset, apdu_len| {
        Some(Fragment {
            first_sqn,
            offset,
            apdu_len,
        })
    };
    let kind = |res: Result<Arrival, RxwError>| res.unwrap_err().kind;
    assert_eq!(
        kind(w.on_data(ms(0), &mut r, 0, 0, f(0, 0, 100), &[0; 101])),
        RxwErrorKind::FragmentBeyondApdu {
            offset: 0,
            len: 101,
            apdu_len: 100
        }
    );
    assert_eq!(
        kind(w.on_data(ms(0), &mut r, 0, 0, f(0, 0, 10_001), &[0; 10])),
        RxwErrorKind::ApduTooLong {
            apdu_len: 10_001,
            max: 10_000
        }
    );
    assert!(matches!(
        kind(w.on_data(ms(0), &mut r, 0, 0, f(1, 0, 100), &[0; 10])),
        RxwErrorKind::FirstSqnOutOfRange { first_sqn: 1, .. }
    ));
    assert_eq!(
        kind(w.on_data(ms(0), &mut r, 0, 0, f(0, 5, 100), &[0; 10])),
        RxwErrorKind::OffsetOutOfPlace {
            first_sqn: 0,
            offset: 5
        }
    );
    assert_eq!(w.stats().errors, 4);
    assert_eq!(
        (w.lead(), w.stats().packets_received),
        (u32::MAX, 0),
        "nothing stored"
    );
    w.on_data(ms(0), &mut r, 0, 0, f(0, 0, 100), &[1; 40])
        .unwrap();
    // Neighbour disagrees on the APDU length, then on the offset.
    let err = w
        .on_data(ms(0), &mut r, 1, 0, f(0, 40, 90), &[2; 40])
        .unwrap_err();
    assert_eq!(
        err.kind,
        RxwErrorKind::Inconsistent {
            other_sqn: 0,
            field: FragmentField::ApduLen,
            expected: 100,
            found: 90
        }
    );
    assert!(err.to_string().contains("sqn 1") && err.to_string().contains("APDU length"));
    assert!(matches!(
        kind(w.on_data(ms(0), &mut r, 1, 0, f(0, 41, 100), &[2; 40])),
        RxwErrorKind::Inconsistent {
            field: FragmentField::Offset,
            expected: 40,
            found: 41,
            ..
        }
    ));
    // A whole packet cannot sit inside an unfinished APDU; a continuation must name the right first packet.
    assert!(matches!(
        kind(w.on_data(ms(0), &mut r, 1, 0, None, b"x")),
        RxwErrorKind::Inconsistent {
            field: FragmentField::FirstSqn,
            expected: 0,
            found: 1,
            ..
        }
    ));
    w.on_data(ms(0), &mut r, 3, 0, f(0, 80, 100), &[4; 20])
        .unwrap();
    assert!(matches!(
        kind(w.on_data(ms(0), &mut r, 5, 0, f(0, 100, 200), &[5; 1])),
        RxwErrorKind::Inconsistent {
            other_sqn: 0,
            field: FragmentField::ApduLen,
            ..
        }
    ));
    w.on_data(ms(0), &mut r, 1, 0, f(0, 40, 100), &[2; 20])
        .unwrap();
    w.on_data(ms(0), &mut r, 2, 0, f(0, 60, 100), &[3; 20])
        .unwrap();
    let expected: Vec<u8> = [vec![1; 40], vec![2; 20], vec![3; 20], vec![4; 20]].concat();
    assert_eq!(
        drain(&mut w),
        vec![Delivery::Apdu {
            first_sqn: 0,
            last_sqn: 3,
            data: expected.into()
        }]
    );
    // After a delivered APDU the next packet must start a new one.
    assert!(matches!(
        kind(w.on_data(ms(0), &mut r, 4, 0, f(0, 100, 100), &[5; 1])),
        RxwErrorKind::FragmentBeyondApdu { .. }
    ));
    assert!(matches!(
        kind(w.on_data(ms(0), &mut r, 4, 0, f(3, 20, 100), &[5; 1])),
        RxwErrorKind::Inconsistent {
            other_sqn: 3,
            field: FragmentField::FirstSqn,
            ..
        }
    ));
    assert_eq!(w.stats().errors, 10);
}

#[test]
fn late_start_in_the_middle_of_an_apdu_skips_it_silently() {
    let mut w = ReceiveWindow::new(RxwConfig::default(), 100);
    let mut r = rng(10);
    let frags = fragments(98, &pattern(4_000, 100), 1_000);
    for (sqn, f, part) in &frags {
        let arrival = w.on_data(ms(0), &mut r, *sqn, 90, Some(*f), part).unwrap();
        let expected = if *sqn < 100 {
            Arrival::BeforeWindow
        } else {
            Arrival::New
        };
        assert_eq!(arrival, expected);
    }
    data(&mut w, &mut r, ms(0), 102, 90);
    assert_eq!(drain(&mut w), vec![whole(102)]);
    assert_eq!(
        (
            w.stats().partial_apdus_skipped,
            w.stats().sqns_lost,
            w.missing_count()
        ),
        (1, 0, 0)
    );
}

#[test]
fn sequence_numbers_wrap() {
    let start = u32::MAX - 3;
    // No back-off: both holes are due at once and go in one NAK, in serial-number order.
    let config = RxwConfig {
        nak_bo_ivl: Duration::ZERO,
        ..RxwConfig::default()
    };
    let mut w = ReceiveWindow::new(config, start);
    let mut r = rng(11);
    let apdu = pattern(5_000, 110);
    // An APDU across the wrap: u32::MAX - 1 ..= 2, with u32::MAX and 1 lost at first.
    assert_eq!(apdu.len().div_ceil(1_000), 5);
    let frags = fragments(u32::MAX - 1, &apdu, 1_000);
    data(&mut w, &mut r, ms(0), start, start);
    data(&mut w, &mut r, ms(0), start.wrapping_add(1), start);
    for (sqn, f, part) in frags.iter().filter(|p| p.0 != u32::MAX && p.0 != 1) {
        w.on_data(ms(0), &mut r, *sqn, start, Some(*f), part)
            .unwrap();
    }
    data(&mut w, &mut r, ms(0), 3, start);
    assert_eq!(drain(&mut w), vec![whole(start), whole(start + 1)]);
    let naks = run(&mut w, &mut r, ms(0), ms(100));
    assert_eq!(naks.len(), 1);
    assert_eq!(naks[0].1, vec![u32::MAX, 1]);
    for (sqn, f, part) in frags.iter().filter(|p| p.0 == u32::MAX || p.0 == 1) {
        assert_eq!(
            w.on_data(ms(200), &mut r, *sqn, start, Some(*f), part)
                .unwrap(),
            Arrival::Repaired
        );
    }
    assert_eq!(
        drain(&mut w),
        vec![
            Delivery::Apdu {
                first_sqn: u32::MAX - 1,
                last_sqn: 2,
                data: apdu.into()
            },
            whole(3)
        ]
    );
    assert_eq!((w.lead(), w.commit()), (3, 4));
    // Old packets from before the wrap are before the window.
    assert_eq!(
        data(&mut w, &mut r, ms(300), u32::MAX, start),
        Arrival::BeforeWindow
    );
}

#[test]
fn paper_3_8_pacing_caps_nak_packets_for_ten_thousand_missing() {
    let mut w = ReceiveWindow::new(RxwConfig::default(), 0);
    let mut r = rng(12);
    data(&mut w, &mut r, ms(0), 0, 0);
    data(&mut w, &mut r, ms(0), 10_001, 0);
    assert_eq!(w.missing_count(), 10_000);
    let naks = run(&mut w, &mut r, ms(0), ms(1_999));
    let mut requested: Vec<u32> = naks.iter().flat_map(|n| n.1.clone()).collect();
    assert!(naks
        .iter()
        .all(|n| n.1.len() <= MAX_NAK_SQNS && n.1.windows(2).all(|p| p[0] < p[1])));
    requested.sort_unstable();
    assert_eq!(
        requested,
        (1..=10_000).collect::<Vec<_>>(),
        "every sqn NAKed exactly once before retries"
    );
    // Token bucket: in any window of length T at most burst + rate·T NAK packets.
    let times: Vec<u64> = naks.iter().map(|n| n.0.as_nanos()).collect();
    for (i, &t) in times.iter().enumerate() {
        for (j, &u) in times.iter().enumerate().skip(i) {
            let allowed = 10 + (u - t) / 10_000_000;
            assert!(
                (j - i + 1) as u64 <= allowed,
                "{} NAKs in {} ns",
                j - i + 1,
                u - t
            );
        }
    }
    assert!(naks.len() >= 159 && times.iter().filter(|&&t| t <= 1_000_000_000).count() <= 110);
    assert_eq!(w.stats().naks_sent as usize, naks.len());
    assert_eq!(w.stats().nak_sqns_sent, 10_000);
}

#[test]
fn max_awaited_holds_back_naks_until_repairs_come_or_waits_expire() {
    let config = RxwConfig {
        max_awaited: 10,
        ..RxwConfig::default()
    };
    let mut w = ReceiveWindow::new(config, 0);
    let mut r = rng(21);
    data(&mut w, &mut r, ms(0), 0, 0);
    data(&mut w, &mut r, ms(0), 101, 0);
    assert_eq!(w.missing_count(), 100);
    // Within NAK_RPT_IVL (2 s) only ten are asked for, however long the others have been due.
    let naks = run(&mut w, &mut r, ms(0), ms(1_999));
    let mut first: Vec<u32> = naks.iter().flat_map(|n| n.1.clone()).collect();
    first.sort_unstable();
    first.dedup();
    assert_eq!(first.len(), 10, "ten at most: {first:?}");
    assert!(first.iter().all(|s| (1..=100).contains(s)));
    assert_eq!(w.awaited_count(), 10);
    assert!(
        w.poll_timeout().is_some_and(|t| t >= ms(2_000)),
        "no NAK wake-up while full"
    );
    // Three repairs arrive: the three oldest due sequence numbers may go.
    for &sqn in &first[..3] {
        assert_eq!(data(&mut w, &mut r, ms(100), sqn, 0), Arrival::Repaired);
    }
    let more: Vec<u32> = std::iter::from_fn(|| w.poll_nak(ms(100)))
        .flatten()
        .collect();
    let oldest_due: Vec<u32> = (1..=100).filter(|s| !first.contains(s)).take(3).collect();
    assert_eq!(more, oldest_due);
    assert!(w.poll_nak(ms(100)).is_none());
    // An NCF heard for a sequence number not asked for yet (another receiver's NAK) awaits it too.
    let unasked = (1..=100)
        .find(|s| !first.contains(s) && !more.contains(s))
        .unwrap();
    w.on_ncf(ms(101), &[unasked]);
    w.check_invariants();
    assert_eq!(w.awaited_count(), 11);
    // When the first waits expire without repair, those sequence numbers back off again and make room.
    let later = run(&mut w, &mut r, ms(101), ms(2_200));
    assert!(!later.is_empty());
    assert!(w.awaited_count() <= 11);
}

#[test]
fn repairs_held_outside_the_window_make_room_as_repairs_arrived_would() {
    // Parity packets of a group not decoded yet fill no sequence number; held, they count as repairs arrived.
    let config = RxwConfig {
        max_awaited: 10,
        ..RxwConfig::default()
    };
    let mut w = ReceiveWindow::new(config, 0);
    let mut r = rng(22);
    data(&mut w, &mut r, ms(0), 0, 0);
    data(&mut w, &mut r, ms(0), 101, 0);
    let naks = run(&mut w, &mut r, ms(0), ms(1_999));
    let first: std::collections::BTreeSet<u32> = naks.iter().flat_map(|n| n.1.clone()).collect();
    assert_eq!((first.len(), w.awaited_count()), (10, 10));
    assert!(w.poll_nak(ms(100)).is_none(), "no room");
    w.set_repairs_held(4);
    let more: Vec<u32> = std::iter::from_fn(|| w.poll_nak(ms(100)))
        .flatten()
        .collect();
    assert_eq!(
        more.len(),
        4,
        "four held repairs, four more asked for: {more:?}"
    );
    assert!(more.iter().all(|s| !first.contains(s)));
    w.set_repairs_held(0);
    assert!(
        w.poll_nak(ms(100)).is_none(),
        "decoded or dropped: no room again"
    );
    w.check_invariants();
}

#[test]
fn many_stale_timers_are_compacted() {
    let mut w = ReceiveWindow::new(RxwConfig::default(), 0);
    let mut r = rng(13);
    for round in 0..20u32 {
        let base = round * 5_000;
        data(&mut w, &mut r, ms(0), base + 4_999, 0);
        // Fill the holes newest first: every fill leaves a stale back-off timer behind.
        for sqn in (base..base + 4_999).rev() {
            w.on_data(ms(0), &mut r, sqn, 0, None, &payload(sqn))
                .unwrap();
            let bound = 2 * w.missing_count() + 1024;
            assert!(
                w.backoff.len() <= bound,
                "{} stale timers kept",
                w.backoff.len()
            );
        }
        w.check_invariants();
    }
    assert_eq!(
        (w.missing_count(), w.commit(), w.stats().apdus_delivered),
        (0, 100_000, 0)
    );
    assert_eq!(drain(&mut w).len(), 100_000);
    assert_eq!(w.poll_timeout(), None);
}

/// One APDU of the scenario stream: its first sequence number and bytes.
pub(super) struct Stream {
    pub apdus: Vec<(u32, Vec<u8>)>,
    pub packets: Vec<(u32, Option<Fragment>, Vec<u8>)>,
}

/// `n` packets from `base`: a mix of whole packets and APDUs of 2–4 fragments, derived from `seed`.
pub(super) fn stream(base: u32, n: usize, seed: u64) -> Stream {
    let mut r = rng(seed);
    let mut s = Stream {
        apdus: Vec::new(),
        packets: Vec::new(),
    };
    while s.packets.len() < n {
        let sqn = base.wrapping_add(s.packets.len() as u32);
        let count = (1 + r.next_u32() % 4).min((n - s.packets.len()) as u32) as usize;
        let apdu = pattern(count * 7 + (r.next_u32() % 5) as usize, r.next_u64());
        if count == 1 {
            s.packets.push((sqn, None, apdu.clone()));
        } else {
            let mtu = apdu.len().div_ceil(count);
            s.packets.extend(
                fragments(sqn, &apdu, mtu)
                    .into_iter()
                    .map(|(q, f, p)| (q, Some(f), p)),
            );
        }
        s.apdus.push((sqn, apdu));
    }
    s
}

#[derive(Debug)]
enum Event {
    Data(usize),
    Ncf(Vec<u32>),
}

#[test]
fn hundred_thousand_packets_with_random_loss_are_all_delivered_once_in_order() {
    const N: usize = 100_000;
    let base = u32::MAX - 40_000;
    let s = stream(base, N, 14);
    let mut w = ReceiveWindow::new(RxwConfig::default(), base);
    let (mut r, mut net) = (rng(15), rng(16));
    let lossy = |net: &mut ChaCha8Rng, p: u32| net.next_u32() % 100 < p;
    let mut events: BTreeMap<(u64, u64), Event> = BTreeMap::new();
    let (mut next_event, mut sent, mut delivered) = (0u64, 0usize, 0usize);
    let (mut now_ms, mut next_spm_ms, mut next_check_ms) = (0u64, 0u64, 0u64);
    while delivered < s.apdus.len() {
        assert!(
            now_ms < 120_000,
            "stalled at {delivered} APDUs, {} missing",
            w.missing_count()
        );
        let now = ms(now_ms);
        let mut inputs: Vec<Event> = Vec::new();
        for _ in 0..10 {
            if sent < N {
                if !lossy(&mut net, 5) {
                    inputs.push(Event::Data(sent));
                }
                sent += 1;
            }
        }
        while let Some(entry) = events.first_entry() {
            if entry.key().0 > now_ms {
                break;
            }
            inputs.push(entry.remove());
        }
        for input in inputs {
            match input {
                Event::Data(i) => {
                    let (sqn, f, ref p) = s.packets[i];
                    w.on_data(now, &mut r, sqn, base, f, p).unwrap();
                }
                Event::Ncf(sqns) => w.on_ncf(now, &sqns),
            }
        }
        if now_ms >= next_spm_ms && sent > 0 {
            next_spm_ms += 50;
            w.on_spm(now, &mut r, base, base.wrapping_add(sent as u32 - 1));
        }
        w.handle_timeout(now, &mut r);
        while let Some(nak) = w.poll_nak(now) {
            if lossy(&mut net, 5) {
                continue;
            }
            if !lossy(&mut net, 5) {
                events.insert((now_ms + 2, next_event), Event::Ncf(nak.clone()));
                next_event += 1;
            }
            for sqn in nak {
                if !lossy(&mut net, 5) {
                    let i = sqn.wrapping_sub(base) as usize;
                    events.insert(
                        (now_ms + 5 + u64::from(net.next_u32() % 15), next_event),
                        Event::Data(i),
                    );
                    next_event += 1;
                }
            }
        }
        while let Some(d) = w.poll_delivery() {
            let (first, ref bytes) = s.apdus[delivered];
            match d {
                Delivery::Apdu {
                    first_sqn, data, ..
                } => {
                    assert_eq!(first_sqn, first);
                    assert!(data == *bytes, "APDU at {first} differs");
                }
                Delivery::Lost {
                    first_sqn,
                    last_sqn,
                } => panic!("lost {first_sqn}..={last_sqn}"),
            }
            delivered += 1;
        }
        if now_ms >= next_check_ms {
            next_check_ms += 1_000;
            w.check_invariants();
        }
        now_ms += 1;
    }
    let st = w.stats();
    assert_eq!(st.apdus_delivered as usize, s.apdus.len());
    assert!(
        st.repaired > 4_000 && st.naks_sent > 0 && st.sqns_lost == 0,
        "{st:?}"
    );
}

#[test]
fn same_seed_same_behaviour() {
    let trace = |seed| {
        let mut w = ReceiveWindow::new(RxwConfig::default(), 0);
        let mut r = rng(seed);
        for sqn in (0..2_000).filter(|s| s % 7 != 3) {
            data(&mut w, &mut r, ms(u64::from(sqn) / 10), sqn, 0);
        }
        let naks = run(&mut w, &mut r, ms(200), ms(10_000));
        (naks, w.stats().clone(), drain(&mut w))
    };
    assert_eq!(trace(17), trace(17));
    assert_ne!(trace(17).0, trace(18).0);
}

#[test]
fn without_repairs_a_gap_is_lost_at_once_and_never_naked() {
    let config = RxwConfig {
        request_repairs: false,
        ..RxwConfig::default()
    };
    let mut w = ReceiveWindow::new(config, 0);
    let mut r = rng(6);
    data(&mut w, &mut r, ms(0), 0, 0);
    data(&mut w, &mut r, ms(1), 3, 0);
    data(&mut w, &mut r, ms(2), 4, 0);
    assert_eq!(
        drain(&mut w),
        vec![whole(0), lost(1, 2), whole(3), whole(4)]
    );
    assert!(run(&mut w, &mut r, ms(2), ms(20_000)).is_empty(), "no NAK");
    assert_eq!(w.poll_timeout(), None);
}
