//! Property tests: arbitrary interleavings of data, SPMs, NCFs, NAK polls and timeouts never panic, keep the
//! internal bookkeeping consistent, and deliver strictly in sequence order (byte-exact for a valid stream).

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError};

use super::tests::{rng, stream, Stream};
use super::*;

/// Packets in the sender's stream.
const LEN: usize = 240;

#[derive(Clone, Debug)]
enum Op {
    /// Packet `i` of the stream (ODATA or RDATA), with TXW_TRAIL at stream index `trail`.
    Data { i: usize, trail: usize },
    /// The stream's packet at the window's delivery point (the in-order case), with TXW_TRAIL at stream index
    /// `trail`; nothing once the stream is past.
    Next { trail: usize },
    /// A made-up data packet near stream index `i`.
    Garbage {
        i: usize,
        back: u8,
        offset: u16,
        apdu_len: u16,
        len: u8,
        fragmented: bool,
    },
    /// A data packet with an arbitrary sequence number and trail.
    Wild { sqn: u32, trail: u32, len: u8 },
    /// An SPM with trail and lead at these stream indices.
    Spm { trail: usize, lead: usize },
    /// An NCF for these stream indices.
    Ncf(Vec<usize>),
    /// Time passes by this many milliseconds, then timers run.
    Advance(u16),
}

fn valid_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0..LEN, 0..LEN / 2).prop_map(|(i, trail)| Op::Data { i, trail }),
        2 => (0..LEN / 2).prop_map(|trail| Op::Next { trail }),
        1 => (0..LEN / 2, 0..LEN).prop_map(|(trail, lead)| Op::Spm { trail, lead }),
        1 => prop::collection::vec(0..LEN, 0..70).prop_map(Op::Ncf),
        3 => (0u16..3_000).prop_map(Op::Advance),
    ]
}

fn any_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => valid_op(),
        2 => (0..LEN, 0u8..6, 0u16..60, 0u16..80, 0u8..30, any::<bool>()).prop_map(
            |(i, back, offset, apdu_len, len, fragmented)| Op::Garbage { i, back, offset, apdu_len, len, fragmented }
        ),
        1 => (any::<u32>(), any::<u32>(), 0u8..10).prop_map(|(sqn, trail, len)| Op::Wild { sqn, trail, len }),
    ]
}

/// Configurations with windows of at least `min_packets`.
fn config(min_packets: u32) -> impl Strategy<Value = RxwConfig> {
    (
        min_packets..300,
        0u64..100,
        1u64..500,
        1u64..500,
        0u32..3,
        0u32..3,
        0u32..200,
        1u32..5,
        prop_oneof![Just(0u32), 1u32..80],
        prop_oneof![Just(0u64), 50u64..3_000],
        prop_oneof![4 => Just(true), 1 => Just(false)],
    )
        .prop_map(
            |(
                max_packets,
                bo,
                rpt,
                rdata,
                ncf_retries,
                data_retries,
                rate,
                burst,
                max_awaited,
                max_buffered_bytes,
                request_repairs,
            )| {
                RxwConfig {
                    nak_bo_ivl: Duration::from_millis(bo),
                    nak_rpt_ivl: Duration::from_millis(rpt),
                    nak_rdata_ivl: Duration::from_millis(rdata),
                    nak_ncf_retries: ncf_retries,
                    nak_data_retries: data_retries,
                    max_packets,
                    max_apdu_len: 1_000,
                    nak_packets_per_s: rate,
                    nak_burst: burst,
                    max_awaited,
                    max_buffered_bytes,
                    request_repairs,
                }
            },
        )
}

/// Applies `op` to `w` (time moves on for [`Op::Advance`]); returns what a data packet's arrival gave.
fn apply(
    w: &mut ReceiveWindow,
    s: &Stream,
    base: u32,
    op: &Op,
    now: &mut Instant,
    r: &mut impl rand_core::RngCore,
) -> Option<Result<Arrival, RxwError>> {
    let at = |i: usize| base.wrapping_add(i as u32);
    let now_ = *now;
    match op {
        Op::Data { i, trail } => {
            let (sqn, f, ref p) = s.packets[*i];
            return Some(w.on_data(now_, r, sqn, at(*trail), f, p));
        }
        Op::Next { trail } => {
            let (sqn, f, ref p) = *s.packets.get(w.commit().wrapping_sub(base) as usize)?;
            return Some(w.on_data(now_, r, sqn, at(*trail), f, p));
        }
        Op::Garbage {
            i,
            back,
            offset,
            apdu_len,
            len,
            fragmented,
        } => {
            let f = fragmented.then(|| Fragment {
                first_sqn: at(*i).wrapping_sub(u32::from(*back)),
                offset: u32::from(*offset),
                apdu_len: u32::from(*apdu_len),
            });
            let _ = w.on_data(now_, r, at(*i), base, f, &vec![0xee; usize::from(*len)]);
        }
        Op::Wild { sqn, trail, len } => {
            let _ = w.on_data(now_, r, *sqn, *trail, None, &vec![0xaa; usize::from(*len)]);
        }
        Op::Spm { trail, lead } => w.on_spm(now_, r, at(*trail), at(*lead)),
        Op::Ncf(list) => w.on_ncf(now_, &list.iter().map(|&i| at(i)).collect::<Vec<_>>()),
        Op::Advance(ms) => {
            *now += Duration::from_millis(u64::from(*ms));
            w.handle_timeout(*now, r);
        }
    }
    None
}

/// Offers the data packet `op` makes, if it has no OPT_FRAGMENT, to [`ReceiveWindow::take_in_order`]; returns
/// the delivery it stands for when taken.
fn offer_in_order(
    w: &mut ReceiveWindow,
    s: &Stream,
    base: u32,
    op: &Op,
    now: Instant,
) -> Option<Delivery> {
    let at = |i: usize| base.wrapping_add(i as u32);
    let (sqn, trail, payload) = match op {
        Op::Data { i, trail } => match &s.packets[*i] {
            (sqn, None, p) => (*sqn, at(*trail), p.clone()),
            _ => return None,
        },
        Op::Next { trail } => match s.packets.get(w.commit().wrapping_sub(base) as usize)? {
            (sqn, None, p) => (*sqn, at(*trail), p.clone()),
            _ => return None,
        },
        Op::Wild { sqn, trail, len } => (*sqn, *trail, vec![0xaa; usize::from(*len)]),
        _ => return None,
    };
    w.take_in_order(now, sqn, trail, payload.len())
        .then(|| Delivery::Apdu {
            first_sqn: sqn,
            last_sqn: sqn,
            data: Payload::from(&payload[..]),
        })
}

/// Every NAK and every delivery the window has ready after an input, in the order they are polled.
fn drain_outputs(w: &mut ReceiveWindow, now: Instant) -> (Vec<Vec<u32>>, Vec<Delivery>) {
    let naks = std::iter::from_fn(|| w.poll_nak(now)).collect();
    let deliveries = std::iter::from_fn(|| w.poll_delivery()).collect();
    (naks, deliveries)
}

/// Drives a window with `ops` and checks every delivery; `exact` also checks APDU contents against the stream.
fn drive(config: RxwConfig, base: u32, start: usize, seed: u64, ops: &[Op], exact: bool) {
    let s: Stream = stream(base, LEN, seed);
    let start_sqn = base.wrapping_add(start as u32);
    let mut w = ReceiveWindow::new(config, start_sqn);
    let mut r = rng(seed ^ 0x5eed);
    let mut now = Instant::from_millis(1);
    // The last sequence number delivered or reported lost.
    let mut prev = start_sqn.wrapping_sub(1);
    // Fragments of an APDU begun before the start are skipped silently, so deliveries may leave gaps only
    // before the first APDU that starts at or after the start.
    let first_full = s
        .apdus
        .iter()
        .map(|a| seq::diff(a.0, start_sqn))
        .find(|&d| d >= 0)
        .unwrap_or(LEN as i64);
    for op in ops {
        let arrival = apply(&mut w, &s, base, op, &mut now, &mut r);
        assert!(arrival.is_none_or(|a| a.is_ok()) || !exact, "{arrival:?}");
        while let Some(nak) = w.poll_nak(now) {
            assert!(!nak.is_empty() && nak.len() <= MAX_NAK_SQNS);
            assert!(
                nak.windows(2).all(|p| seq::lt(p[0], p[1])),
                "NAK not ascending: {nak:?}"
            );
        }
        if let (Op::Advance(_), Some(t)) = (op, w.poll_timeout()) {
            assert!(
                t > now,
                "timeout {t} not after {now} once timers ran and NAKs were drained"
            );
        }
        while let Some(d) = w.poll_delivery() {
            let (first, last_sqn) = match &d {
                Delivery::Apdu {
                    first_sqn,
                    last_sqn,
                    ..
                }
                | Delivery::Lost {
                    first_sqn,
                    last_sqn,
                } => (*first_sqn, *last_sqn),
            };
            // Strictly after the previous one (serial order; a run spans less than 2³¹).
            let step = first.wrapping_sub(prev);
            assert!(step > 0 && step < 1 << 31, "delivery {d:?} after {prev}");
            assert!(
                last_sqn.wrapping_sub(first) < 1 << 31,
                "delivery {d:?} runs backwards"
            );
            if exact {
                assert!(
                    step == 1 || seq::diff(first, start_sqn) <= first_full,
                    "gap before {d:?}"
                );
                if let Delivery::Apdu { data, .. } = &d {
                    let k = s
                        .apdus
                        .iter()
                        .position(|a| a.0 == first)
                        .expect("APDU starts at a stream APDU");
                    assert_eq!(data, &s.apdus[k].1, "APDU {first} content");
                    let end = s
                        .apdus
                        .get(k + 1)
                        .map_or(base.wrapping_add(LEN as u32), |a| a.0);
                    assert_eq!(last_sqn, end.wrapping_sub(1));
                }
            }
            prev = last_sqn;
        }
        w.check_invariants();
    }
    // The sender's window moving past everything known settles every missing sequence number.
    let lead = w.lead();
    w.on_spm(now, &mut r, lead.wrapping_add(1), lead);
    w.check_invariants();
    assert_eq!(w.missing_count(), 0);
}

/// Runs `ops` on two windows, one with the fast paths (offering each data packet to `take_in_order` first
/// when `take_in_order` is set), one with the general steps only, and compares arrivals, NAKs, deliveries (a
/// packet taken counts as delivered first) and internal state after every input.
fn against_the_general_steps(
    config: RxwConfig,
    base: u32,
    start: usize,
    seed: u64,
    ops: &[Op],
    take_in_order: bool,
) -> Result<(), TestCaseError> {
    let s = stream(base, LEN, seed);
    let mut fast = ReceiveWindow::new(config, base.wrapping_add(start as u32));
    let mut general = fast.clone();
    let (mut r_fast, mut r_general) = (rng(seed ^ 0x5eed), rng(seed ^ 0x5eed));
    let (mut now_fast, mut now_general) = (Instant::from_millis(1), Instant::from_millis(1));
    for op in ops {
        let taken = if take_in_order {
            offer_in_order(&mut fast, &s, base, op, now_fast)
        } else {
            None
        };
        let a = match taken {
            Some(_) => Some(Ok(Arrival::New)),
            None => apply(&mut fast, &s, base, op, &mut now_fast, &mut r_fast),
        };
        let b = with_general_steps_only(|| {
            apply(&mut general, &s, base, op, &mut now_general, &mut r_general)
        });
        prop_assert_eq!(a, b);
        let (naks, mut deliveries) = drain_outputs(&mut fast, now_fast);
        deliveries.splice(0..0, taken);
        prop_assert_eq!((naks, deliveries), drain_outputs(&mut general, now_general));
        prop_assert_eq!(format!("{fast:?}"), format!("{general:?}"));
    }
    Ok(())
}

fn base() -> impl Strategy<Value = u32> {
    prop_oneof![Just(u32::MAX - 100), Just(0), any::<u32>()]
}

proptest! {
    #![proptest_config(Config { cases: 256, failure_persistence: None, ..Config::default() })]

    #[test]
    fn valid_stream_is_delivered_exactly_and_in_order(
        // An APDU of the stream spans up to 4 packets, so a smaller window would refuse it.
        config in config(4),
        base in base(),
        start in 0usize..8,
        seed in any::<u64>(),
        ops in prop::collection::vec(valid_op(), 0..120),
    ) {
        drive(config, base, start, seed, &ops, true);
    }

    /// The in-order fast path (`ReceiveWindow::waited_for_alone`) leaves the window exactly as the general
    /// steps of `accept` do: same arrivals, NAKs, deliveries and internal state after every input.
    #[test]
    fn in_order_fast_path_matches_the_general_steps(
        config in config(1),
        base in base(),
        start in 0usize..8,
        seed in any::<u64>(),
        ops in prop::collection::vec(prop_oneof![4 => valid_op(), 1 => any_op()], 0..160),
    ) {
        against_the_general_steps(config, base, start, seed, &ops, false)?;
    }

    /// `take_in_order` leaves the window exactly as `on_data` followed by the `poll_delivery` of that packet
    /// does, when it takes the packet, and changes nothing when it does not: same arrivals, NAKs, deliveries
    /// and internal state after every input as a window run by the general steps alone.
    #[test]
    fn take_in_order_matches_on_data_then_poll_delivery(
        config in config(1),
        base in base(),
        start in 0usize..8,
        seed in any::<u64>(),
        ops in prop::collection::vec(prop_oneof![4 => valid_op(), 1 => any_op()], 0..160),
    ) {
        against_the_general_steps(config, base, start, seed, &ops, true)?;
    }

    #[test]
    fn any_input_never_panics_and_delivers_in_order(
        config in config(1),
        base in base(),
        start in 0usize..8,
        seed in any::<u64>(),
        ops in prop::collection::vec(any_op(), 0..120),
    ) {
        drive(config, base, start, seed, &ops, false);
    }
}
