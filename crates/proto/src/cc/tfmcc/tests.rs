//! Rule tests of TFMCC's halves, named after RFC 4654's sections, and regression cases from other
//! implementations' bug histories (UFTP, NORM; issue "TFMCC").

use super::timer::feedback_delay;
use super::*;
use crate::cc::{Permit, ReceiverController, SenderController, UpstreamPath};
use crate::time::Instant;
use convoy_wire::cc::tfmcc::{TfmccData, TfmccEcho, TfmccFeedback, WireRate};
use convoy_wire::{BodyRepr, OptionsRepr};
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;
use crate::cc::wire_clock::{micros, stamp};

pub(super) fn ip(n: u8) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(10, 0, 2, n))
}

pub(super) fn ms(t: u64) -> Instant {
    Instant::from_millis(t)
}

pub(super) fn report(from: IpAddr, x_bps: f64, echo_of: Instant, have_loss: bool, fb_nr: u16) -> TfmccFeedback {
    TfmccFeedback {
        reporter: from,
        have_rtt: true,
        have_loss,
        leaving: false,
        tr: 0,
        ts_echo: stamp(echo_of),
        x: WireRate::from_bps(x_bps),
        fb_nr,
    }
}

/// The echo of `receiver`'s report sent at `tr`.
pub(super) fn echo(receiver: IpAddr, tr: Instant, is_clr: bool) -> TfmccEcho {
    TfmccEcho {
        receiver,
        tr_echo: stamp(tr),
        is_clr,
    }
}

/// A sender past slowstart at `x` bytes/s.
pub(super) fn steady_sender(x: f64) -> TfmccSender {
    let mut s = TfmccSender::new(TfmccConfig::default(), Instant::ZERO);
    s.slowstart = false;
    s.x = x;
    s
}

pub(super) fn data(ts: Instant, r_max: Duration, fb_nr: u16, echo: Option<TfmccEcho>, x_supp_bps: f64) -> OptionsRepr {
    let mut o = OptionsRepr::default();
    o.cc.tfmcc.data = Some(TfmccData {
        ts: stamp(ts),
        x_supp: WireRate::from_bps(x_supp_bps),
        r_max_us: micros(r_max),
        fb_nr,
        x: WireRate::from_bps(x_supp_bps.min(1e9)),
        echo,
    });
    o
}

#[test]
fn rfc4654_3_1_initial_rate_is_one_packet_per_r_max() {
    let s = TfmccSender::new(TfmccConfig::default(), Instant::ZERO);
    assert!((s.x - 1400.0 / 0.5).abs() < 1e-9);
    assert!(s.slowstart);
}

#[test]
fn rfc4654_2_1_reports_are_bits_per_second_and_the_rate_bytes_per_second() {
    let mut s = TfmccSender::new(TfmccConfig::default(), Instant::ZERO);
    // Case 1: the first reporter becomes the CLR; a report far below X takes effect at once.
    s.on_report(ms(100), &report(ip(1), 8_000.0, ms(50), true, 0));
    assert_eq!(s.snapshot().acker, Some(ip(1)));
    assert!((s.x - 1_000.0).abs() < 1e-6, "8 kbit/s is 1000 bytes/s, got {}", s.x);
}

#[test]
fn rfc4654_3_3_case_2_a_slower_receiver_becomes_clr_at_once_and_case_4_raises_by_the_cap() {
    let mut s = steady_sender(100_000.0);
    s.on_report(ms(100), &report(ip(1), 800_000.0, ms(50), true, 0));
    assert_eq!(s.snapshot().acker, Some(ip(1)));
    s.on_report(ms(110), &report(ip(2), 400_000.0, ms(60), true, 0));
    assert_eq!(s.snapshot().acker, Some(ip(2)));
    assert!((s.x - 50_000.0).abs() < 1e-6);
    // Case 4: the CLR asks for much more; X grows by at most s/R_max per R_max elapsed.
    let r_max = s.r_max.as_secs_f64();
    s.on_report(ms(110) + s.r_max, &report(ip(2), 8e9, ms(110), true, 0));
    let cap = 1400.0 / r_max;
    assert!(s.x <= 50_000.0 + cap * 1.01, "{} > {}", s.x, 50_000.0 + cap);
    assert!(s.x > 50_000.0);
}

#[test]
fn rfc4654_3_4_suppression_rate_is_g_below_the_lowest_non_clr_report_and_resets_each_round() {
    let mut s = TfmccSender::new(TfmccConfig::default(), Instant::ZERO);
    s.on_report(ms(100), &report(ip(1), 800_000.0, ms(50), true, 0));
    s.on_report(ms(120), &report(ip(2), 1_600_000.0, ms(60), true, 0));
    // The lowest report of the round, the one that made ip(1) the CLR included: 100 kB/s.
    assert!((s.x_supp - 0.9 * 100_000.0).abs() < 1e-6, "{}", s.x_supp);
    // The round ends at T = 6·R_max, non-CLR feedback having arrived.
    let mut now = ms(120);
    while s.fb_nr == 0 {
        now = s.poll_timeout().unwrap();
        s.on_timeout(now);
    }
    assert_eq!(now, ms(3_000), "6 × R_max = 0.5 s");
    // §3.2: no RTT above R_max in the round, so R_max decays to max(0.9·R_max, R_peak).
    assert_eq!(s.r_max, Duration::from_millis(450));
    assert!(s.x_supp.is_infinite());
}

#[test]
fn rfc4654_3_7_packets_are_paced_at_the_rate() {
    let mut s = TfmccSender::new(TfmccConfig::default(), Instant::ZERO);
    s.x = 140_000.0; // 100 packets/s of 1400 bytes.
    let mut now = Instant::ZERO;
    let mut sent = 0;
    while now < ms(1_000) {
        match s.permit(now) {
            Permit::Now => {
                let mut o = OptionsRepr::default();
                s.on_data_sent(now, sent, 1400, &mut o);
                assert!(o.cc.tfmcc.data.is_some(), "every ODATA carries the sender's fields");
                sent += 1;
            }
            Permit::At(t) => now = t,
            Permit::Blocked => unreachable!(),
        }
    }
    assert!((99..=101).contains(&sent), "{sent} packets in 1 s");
}

#[test]
fn rfc4654_3_3_a_departed_clr_is_dropped_after_ten_silent_r_max() {
    let mut s = TfmccSender::new(TfmccConfig::default(), Instant::ZERO);
    s.on_report(ms(100), &report(ip(1), 800_000.0, ms(50), true, 0));
    let mut now = ms(100);
    while s.snapshot().acker.is_some() && now < ms(60_000) {
        now = s.poll_timeout().unwrap().max(now + Duration::from_millis(1));
        s.on_timeout(now);
    }
    let gone = now.saturating_duration_since(ms(100));
    assert!(s.snapshot().acker.is_none(), "the silent CLR is not kept");
    assert!(gone >= s.r_max * 10, "not before 10 R_max: {gone:?}");
}

#[test]
fn rfc4654_4_5_feedback_timer_is_exponentially_biased() {
    let t = Duration::from_secs(3);
    assert_eq!(feedback_delay(t, 10_000, 1.0), t, "x = 1: the end of the round");
    assert_eq!(feedback_delay(t, 10_000, 1e-4), Duration::ZERO, "x = 1/N: at once");
    // Half of the draws wait more than T·(1 + ln 0.5/ln N) ≈ 0.925 T.
    assert!(feedback_delay(t, 10_000, 0.5) > t.mul_f64(0.92));
}

/// One receiver and the data packets it gets: sqn, send time, arrival time, echo.
pub(super) fn receive(r: &mut TfmccReceiver, rng: &mut ChaCha8Rng, sqn: u32, sent: Instant, at: Instant, echo: Option<TfmccEcho>) {
    let o = data(sent, Duration::from_millis(500), 0, echo, f64::MAX);
    r.on_odata(at, rng, sqn, 1400, &o);
}

#[test]
fn rfc4654_4_3_3_one_way_delay_adjustment_with_the_sign_corrected() {
    // Worked example: the echo gives R_sample = 30 ms (10 ms up, 20 ms down). A later packet meets 5 ms more queue
    // on the way down (25 ms): the RTT is then 35 ms. The RFC's printed sign would give 25 ms.
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut r = TfmccReceiver::new(TfmccConfig::default(), ip(9));
    // The receiver reported at t = 1000 ms (tr_r); the sender got it at 1010 and echoes it in a packet sent at
    // 1010 that arrives at 1030: tr_r' = tr_r + hold (0), R_sample = 1030 − 1000 = 30 ms.
    let echo = echo(ip(9), ms(1000), false);
    receive(&mut r, &mut rng, 0, ms(1010), ms(1030), Some(echo));
    assert_eq!(r.rtt(), Duration::from_millis(30));
    // The adjusted estimates are smoothed (the paper §2.4.3); while every packet meets the same 25 ms down, they
    // settle at 35 ms.
    for k in 1..200u64 {
        receive(&mut r, &mut rng, k as u32, ms(1000 + 100 * k), ms(1025 + 100 * k), None);
    }
    let r_prime = r.rtt().as_secs_f64() * 1e3;
    assert!((r_prime - 35.0).abs() < 0.01, "{r_prime} ms");
}

#[test]
fn rfc4654_5_6_the_first_loss_without_history_gives_a_finite_rate() {
    // UFTP's bug history: the first loss with no history divided by zero.
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let mut r = TfmccReceiver::new(TfmccConfig::default(), ip(9));
    for sqn in 0..100u32 {
        if sqn == 50 {
            continue;
        }
        let t = ms(u64::from(sqn) * 10);
        receive(&mut r, &mut rng, sqn, t, t, None);
    }
    let p = r.loss_event_rate();
    assert!(p > 0.0 && p < 1.0, "p = {p}");
    let x = r.desired_rate(ms(1000));
    assert!(x.is_finite() && x > 0.0, "X_calc = {x}");
}

#[test]
fn rfc4654_5_6_the_first_loss_interval_gives_the_receive_rate_also_below_one_packet_per_rtt() {
    // Slowstart's first rate, one packet per R_max (500 ms), loses a packet before the receiver has an RTT sample.
    // §5.6: the calculated rate right after the first loss is the receive rate X_recv (three packets in the 2 s
    // the last four arrivals span, 2100 bytes/s), first with R_max and again once the first sample (100 ms)
    // replaces it: 0.15 packets per RTT, where the simplified equation's inverse is below one packet and its
    // (R/R_max)² rescale made the receiver report an eighth of X_recv.
    let mut rng = ChaCha8Rng::seed_from_u64(6);
    let mut r = TfmccReceiver::new(TfmccConfig::default(), ip(9));
    for sqn in (0..10u32).filter(|n| *n != 6) {
        let t = ms(u64::from(sqn) * 500);
        receive(&mut r, &mut rng, sqn, t, t, None);
    }
    assert!(r.have_loss(), "packet 6 is lost once 7, 8 and 9 arrived (§5.1)");
    let x_recv = r.receive_rate(ms(4500));
    assert!((x_recv - 2100.0).abs() < 1e-6, "X_recv = {x_recv}");
    let with_r_max = r.desired_rate(ms(4500));
    assert!((with_r_max / x_recv - 1.0).abs() < 0.01, "with R_max: {with_r_max} bytes/s against {x_recv}");
    let echo = echo(ip(9), ms(4900), true);
    receive(&mut r, &mut rng, 10, ms(5000), ms(5000), Some(echo));
    assert_eq!(r.rtt(), Duration::from_millis(100));
    let with_r = r.desired_rate(ms(5000));
    assert!((with_r / x_recv - 1.0).abs() < 0.01, "with R = 100 ms: {with_r} bytes/s against {x_recv}");
}

#[test]
fn rfc4654_5_1_losses_across_the_sequence_number_wrap_are_counted_once() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut r = TfmccReceiver::new(TfmccConfig::default(), ip(9));
    let start = u32::MAX - 20;
    for k in 0..40u32 {
        let sqn = start.wrapping_add(k);
        if sqn == 0 {
            continue; // the packet right after the wrap is lost
        }
        let t = ms(u64::from(k) * 10);
        receive(&mut r, &mut rng, sqn, t, t, None);
    }
    assert_eq!(r.snapshot().rx_max, Some(start.wrapping_add(39)));
    assert!(r.loss_event_rate() > 0.0);
    assert!(r.loss_event_rate() < 0.5, "one event, not a flood: {}", r.loss_event_rate());
}

#[test]
fn rfc4654_4_5_the_clr_reports_once_per_rtt_with_its_current_rtt() {
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let mut r = TfmccReceiver::new(TfmccConfig::default(), ip(9));
    let path = UpstreamPath {
        source_nla: ip(1),
        group_nla: ip(2),
    };
    let echo = echo(ip(9), ms(960), true);
    receive(&mut r, &mut rng, 0, ms(1000), ms(1020), Some(echo));
    assert!(r.snapshot().is_acker);
    let fb = r.poll_feedback(ms(1020), &path).expect("the CLR reports at once");
    let f = fb.options.cc.tfmcc.feedback.unwrap();
    assert!(f.have_rtt, "the report is built after the RTT sample (not stale)");
    assert!(matches!(fb.body, BodyRepr::Ack { rx_max: 0, .. }));
    assert!(r.poll_feedback(ms(1030), &path).is_none(), "not twice within an RTT");
    assert_eq!(r.poll_timeout(), None, "no report is due before new data");
    receive(&mut r, &mut rng, 1, ms(1010), ms(1030), None);
    assert_eq!(r.poll_timeout(), Some(ms(1020) + r.rtt()));
}

#[test]
fn more_than_five_hundred_receivers_report_without_growing_the_echo_queue_without_bound() {
    let mut s = TfmccSender::new(TfmccConfig::default(), Instant::ZERO);
    for k in 0..1_000u32 {
        let from = IpAddr::V4(Ipv4Addr::from(0x0a00_0000 + k));
        s.on_report(ms(100 + u64::from(k)), &report(from, 1e6 + f64::from(k), ms(50), true, 0));
    }
    let mut o = OptionsRepr::default();
    s.on_data_sent(ms(2_000), 0, 1400, &mut o);
    let echo = o.cc.tfmcc.data.unwrap().echo.expect("an echo");
    assert!(echo.receiver != IpAddr::V4(Ipv4Addr::UNSPECIFIED));
}

#[test]
fn rfc4654_4_3_4_receive_rate_spans_at_least_four_arrivals_when_the_rtt_is_tiny() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut r = TfmccReceiver::new(TfmccConfig::default(), ip(9));
    // A LAN: the echo gives R = 100 µs, while packets come 10 ms apart (140 kB/s of 1400-byte packets).
    let echo = TfmccEcho {
        receiver: ip(9),
        tr_echo: stamp(ms(999)) + 900,
        is_clr: false,
    };
    receive(&mut r, &mut rng, 0, ms(1000), ms(1000), Some(echo));
    for sqn in 1..8u32 {
        let t = ms(1000 + 10 * u64::from(sqn));
        receive(&mut r, &mut rng, sqn, t, t, None);
    }
    assert!(r.rtt() < Duration::from_millis(1) + Duration::from_micros(1));
    let x = r.receive_rate(ms(1070));
    assert!((x - 140_000.0).abs() < 1.0, "{x}");
}

#[test]
fn rfc4654_4_3_4_no_slowstart_report_before_a_receive_rate_exists() {
    // A receiver whose feedback timer fires within R_max of its first packet (rare: a timer drawn that early).
    let (mut r, mut rng, due) = (0..100_000u64)
        .find_map(|seed| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut r = TfmccReceiver::new(TfmccConfig::default(), ip(9));
            receive(&mut r, &mut rng, 0, ms(0), ms(10), None);
            r.poll_timeout().map(|due| (r, rng, due))
        })
        .expect("a seed whose timer fires before data is missing for R_max");
    let path = UpstreamPath {
        source_nla: ip(1),
        group_nla: ip(255),
    };
    assert!(r.poll_feedback(due, &path).is_none(), "one packet: no rate to report");
    receive(&mut r, &mut rng, 1, ms(500), ms(510), None);
    assert!(r.receive_rate(ms(510)) > 0.0);
}

#[test]
fn paper_2_6_the_slowstart_target_moves_once_per_feedback_round() {
    let mut s = TfmccSender::new(TfmccConfig::default(), Instant::ZERO);
    let x0 = s.x;
    let clr_reports = |s: &mut TfmccSender, from: u64, rate: f64, fb_nr: u16| {
        for k in 0..100u64 {
            s.on_report(ms(from + k), &report(ip(1), 8.0 * rate, ms(from + k - 1), false, fb_nr));
        }
    };
    // Round 0: the first reporter becomes the CLR and asks for 4·X0 once per RTT; the first round's target is
    // twice the initial rate.
    clr_reports(&mut s, 1000, 4.0 * x0, 0);
    assert!(s.slowstart);
    assert!((s.x - 2.0 * x0).abs() < 1e-6, "{} vs 2 × {x0}", s.x);
    // Round 1: the target is the CLR's latest report of round 0, whatever it asks now.
    s.end_round(ms(1100));
    clr_reports(&mut s, 1101, 1000.0 * x0, 1);
    assert!((s.x - 4.0 * x0).abs() < 1e-6, "{} vs 4 × {x0}", s.x);
    // Round 2: now it may follow.
    s.end_round(ms(1201));
    clr_reports(&mut s, 1202, 1000.0 * x0, 2);
    assert!(s.x > 4.0 * x0, "{}", s.x);
}

#[test]
fn rfc4654_3_5_the_clr_is_echoed_once_per_round_whatever_else_waits() {
    let mut s = TfmccSender::new(TfmccConfig::default(), Instant::ZERO);
    s.on_report(ms(100), &report(ip(1), 800_000.0, ms(50), true, 0));
    let echo = |s: &mut TfmccSender, t: u64| {
        let mut o = OptionsRepr::default();
        s.on_data_sent(ms(t), 0, 1400, &mut o);
        o.cc.tfmcc.data.unwrap().echo.unwrap()
    };
    // The new CLR's echo first (priority 1).
    assert_eq!((echo(&mut s, 110).receiver, s.fb_nr), (ip(1), 0));
    // Many receivers without an RTT wait for theirs; the CLR's is not due again in this round.
    for n in 2..40 {
        s.on_report(ms(120), &report(ip(n), 1_600_000.0, ms(60), true, 0));
    }
    assert_ne!(echo(&mut s, 130).receiver, ip(1));
    // A new round: the CLR is echoed once more before the queue goes on.
    s.end_round(ms(3_000));
    let e = echo(&mut s, 3_010);
    assert_eq!((e.receiver, e.is_clr), (ip(1), true));
    assert_ne!(echo(&mut s, 3_020).receiver, ip(1));
}

/// A data packet `sqn` sent at `sent` with R_max `r_max` in round `fb_nr`, arriving at `at`.
pub(super) fn receive_in_round(r: &mut TfmccReceiver, rng: &mut ChaCha8Rng, sqn: u32, (sent, at): (Instant, Instant), r_max: Duration, fb_nr: u16) {
    let o = data(sent, r_max, fb_nr, None, f64::MAX);
    r.on_odata(at, rng, sqn, 1400, &o);
}

#[test]
fn rfc4654_4_3_1_have_loss_is_cleared_after_ten_r_max_without_data() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut r = TfmccReceiver::new(TfmccConfig::default(), ip(9));
    let r_max = Duration::from_millis(100);
    for sqn in 0..60u32 {
        if sqn != 30 {
            let t = ms(u64::from(sqn) * 10);
            receive_in_round(&mut r, &mut rng, sqn, (t, t), r_max, 0);
        }
    }
    assert!(r.have_loss());
    let equation = r.desired_rate(ms(600));
    // Nine R_max of silence is not idle; eleven is: the next packet finds have_loss cleared, and the receiver
    // reports twice its receive rate again (slowstart after idle, §3.6).
    receive_in_round(&mut r, &mut rng, 60, (ms(1490), ms(1490)), r_max, 0);
    assert!(r.have_loss());
    receive_in_round(&mut r, &mut rng, 61, (ms(2600), ms(2600)), r_max, 0);
    assert!(!r.have_loss());
    assert!((r.desired_rate(ms(2600)) - equation).abs() > 1.0);
    // The next loss event sets it again.
    for sqn in 62..70u32 {
        if sqn != 64 {
            let t = ms(2600 + u64::from(sqn - 61) * 10);
            receive_in_round(&mut r, &mut rng, sqn, (t, t), r_max, 0);
        }
    }
    assert!(r.have_loss());
}

#[test]
fn rfc4654_4_5_the_feedback_timer_is_rescaled_with_r_max_and_extended_by_a_data_gap() {
    let mut rng = ChaCha8Rng::seed_from_u64(6);
    let mut r = TfmccReceiver::new(TfmccConfig::default(), ip(9));
    receive_in_round(&mut r, &mut rng, 0, (ms(0), ms(0)), Duration::from_millis(500), 0);
    let t0 = r.feedback_deadline().expect("a timer for round 0");
    // R_max halves within the round: t ← t·R_max/R_max', from the round's start.
    receive_in_round(&mut r, &mut rng, 1, (ms(10), ms(10)), Duration::from_millis(250), 0);
    let t1 = r.feedback_deadline().unwrap();
    let half = Instant::from_nanos(t0.as_nanos() / 2);
    assert!(t1.as_nanos().abs_diff(half.as_nanos()) <= 1_000, "{t1} vs {half}");
    // 400 ms without data, R_max 250 ms: t ← t + (400 − 250) ms.
    receive_in_round(&mut r, &mut rng, 2, (ms(410), ms(410)), Duration::from_millis(250), 0);
    assert_eq!(r.feedback_deadline(), Some(t1 + Duration::from_millis(150)));
    // While data is missing for more than R_max nothing fires.
    let path = UpstreamPath {
        source_nla: ip(1),
        group_nla: ip(255),
    };
    let late = ms(410) + Duration::from_millis(251);
    if r.feedback_deadline().is_some_and(|t| t > late) {
        assert_eq!(r.poll_timeout(), None, "the deadline lies in the gap");
    }
    assert!(r.poll_feedback(late.max(t1 + Duration::from_millis(150)), &path).is_none());
}

#[test]
fn rfc4654_4_4_a_receiver_below_the_floor_for_120_s_must_leave() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut r = TfmccReceiver::new(TfmccConfig::default(), ip(9));
    // One packet per second, every other one lost, RTT = R_max = 1.5 s: the equation gives less than one packet
    // per 8 s while the sender (X far above) keeps sending.
    let r_max = Duration::from_millis(1500);
    let mut left_at = None;
    for sqn in 0..200u32 {
        if sqn % 2 == 1 {
            continue;
        }
        let t = ms(u64::from(sqn) * 1000);
        receive_in_round(&mut r, &mut rng, sqn, (t, t), r_max, 0);
        assert!(r.desired_rate(t) >= 1400.0 / 8.0, "the report never goes below the floor");
        while let Some(e) = r.poll_event() {
            if e == crate::cc::ReceiverCcEvent::MustLeave {
                assert!(left_at.is_none(), "raised once");
                left_at = Some(t);
            }
        }
    }
    let left_at = left_at.expect("the receiver must leave");
    assert!(left_at > ms(120_000) && left_at < ms(135_000), "{left_at}");
}

#[test]
fn rfc4654_3_6_after_idle_the_rate_halves_per_ten_r_max_and_slowstarts_back_to_x_prime() {
    let mut s = steady_sender(100_000.0);
    s.r_max = Duration::from_millis(100);
    let send = |s: &mut TfmccSender, t: Instant| {
        let mut o = OptionsRepr::default();
        s.on_data_sent(t, 0, 1400, &mut o);
    };
    send(&mut s, ms(1_000));
    // A pause of nine R_max changes nothing.
    send(&mut s, ms(1_900));
    assert_eq!((s.x, s.slowstart), (100_000.0, false));
    // 2.5 s = 25 R_max: two halvings, then slowstart back towards X' = 100 kB/s.
    send(&mut s, ms(4_400));
    assert!((s.x - 25_000.0).abs() < 1e-6, "{}", s.x);
    assert!(s.slowstart);
    // The CLR, its have_loss cleared by the pause, asks for far more; slowstart stops at X'.
    for k in 0..200u64 {
        let now = ms(4_500 + 50 * k);
        s.on_report(now, &report(ip(1), 8e9, now - Duration::from_millis(50), false, s.fb_nr));
        if !s.slowstart {
            break;
        }
        if k % 20 == 19 {
            s.end_round(now);
        }
    }
    assert!(!s.slowstart, "slowstart after idle ends at X'");
    assert!((s.x - 100_000.0).abs() < 1e-6, "{}", s.x);
}
