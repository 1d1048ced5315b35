//! Sender rules of TFMCC that an audit against RFC 4654, the TFMCC paper and UFTP found broken: the increase
//! limit's RTT, X_r' for receivers without an RTT, increase credit across a hold, the round length, the echo order
//! within a priority and the CLR silence at low rates.

use super::tests::{ip, ms, report, steady_sender};
use super::*;
use crate::cc::SenderController;
use crate::time::Instant;
use convoy_wire::OptionsRepr;
use std::time::Duration;

#[test]
fn rfc4654_3_3_the_increase_limit_is_one_packet_per_rtt_not_per_floored_r_max() {
    // 22 kbit/s (one 1400-byte packet per 0.5 s, so R_max is at least 0.5 s by §3.2's floor) beside a CLR whose
    // RTT is 100 ms, once the rounds decayed R_max's initial 500 ms to that RTT (§3.2): one packet per RTT per
    // RTT, TCP's additive increase, is 140 kB/s more after 1 s. Stepping with the floored R_max gave 5.6 kB/s.
    let mut s = steady_sender(2800.0);
    for k in 0..20u64 {
        let t = ms(1000 + 100 * k);
        s.on_report(t, &report(ip(1), 8.0 * 2800.0, t - Duration::from_millis(100), true, s.fb_nr));
        s.end_round(t);
    }
    assert_eq!((s.snapshot().acker, s.x), (Some(ip(1)), 2800.0));
    for k in 1..=10u64 {
        let t = ms(2900 + 100 * k);
        s.on_report(t, &report(ip(1), 8e9, t - Duration::from_millis(100), true, s.fb_nr));
    }
    let gained = s.x - 2800.0;
    assert!((gained / 140_000.0 - 1.0).abs() < 0.01, "gained {gained} bytes/s in 1 s");
    assert!(s.r_max >= Duration::from_millis(500), "R_max itself keeps its floor");
}

#[test]
fn rfc4654_3_2_receivers_not_heard_yet_are_covered_by_r_max_until_the_rounds_decay_it() {
    // A LAN: the CLR's RTT is 1 ms and it asks for 1 Gbit/s, but nineteen receivers have not reported yet and
    // one of them may sit behind 10 Mbit/s. R_max starts at 500 ms for them (§3.1) and decays by 10% a round
    // (§3.2): the first second after slowstart adds one packet per 500 ms per 500 ms, 5.6 kB/s, not the
    // 1.4 GB/s of one packet per 1 ms per 1 ms.
    let mut s = steady_sender(12_500.0);
    s.on_report(ms(1000), &report(ip(1), 8.0 * 12_500.0, ms(999), true, 0));
    for k in 1..=10u64 {
        let t = ms(1000 + 100 * k);
        s.on_report(t, &report(ip(1), 8e9, t - Duration::from_millis(1), true, 0));
    }
    let gained = s.x - 12_500.0;
    assert!((gained / 5600.0 - 1.0).abs() < 0.01, "gained {gained} bytes/s in 1 s");
}

#[test]
fn rfc4654_3_3_a_report_without_rtt_is_scaled_by_the_r_max_the_receiver_used() {
    // R_max is 500 ms; a receiver without an RTT sample computed 150 kB/s with it, and the sender measures its RTT
    // at 1 s: X_r' = 150 kB/s · 0.5/1 = 75 kB/s, below X, so it becomes the CLR at once (case 2). Scaling with
    // R_max after this report raised it to 1 s gave the factor 1.
    let mut s = steady_sender(100_000.0);
    s.on_report(ms(100), &report(ip(1), 800_000.0, ms(50), true, 0));
    let mut f = report(ip(2), 1_200_000.0, ms(200), true, 0);
    f.have_rtt = false;
    s.on_report(ms(1200), &f);
    assert_eq!(s.snapshot().acker, Some(ip(2)));
    assert!((s.x - 75_000.0).abs() < 1e-6, "{}", s.x);
    assert_eq!(s.r_max, Duration::from_secs(1), "R_max is raised after the scaling");
}

#[test]
fn rfc4654_3_3_case_3_a_hold_banks_no_increase_credit() {
    let mut s = steady_sender(100_000.0);
    s.on_report(ms(100), &report(ip(1), 800_000.0, ms(50), true, 0));
    let mut leaving = report(ip(1), 800_000.0, ms(100), true, 0);
    leaving.leaving = true;
    s.on_report(ms(150), &leaving);
    // Case 3: a faster receiver takes over; no increase for one round (T = 6 × 0.5 s).
    s.on_report(ms(200), &report(ip(2), 8e9, ms(150), true, 0));
    assert_eq!((s.snapshot().acker, s.x), (Some(ip(2)), 100_000.0));
    s.on_report(ms(2_000), &report(ip(2), 8e9, ms(1_950), true, 0));
    assert_eq!(s.x, 100_000.0, "held");
    // 100 ms after the hold ends: at most the increase of 100 ms at R = 50 ms, not that of 3.1 s.
    s.on_report(ms(3_300), &report(ip(2), 8e9, ms(3_250), true, 0));
    let step = 1400.0 / 0.05 * (0.1 / 0.05);
    assert!(s.x > 100_000.0 && s.x - 100_000.0 <= step * 1.01, "{} after the hold", s.x);
}

#[test]
fn paper_2_5_rounds_last_b_r_max_with_b_configurable() {
    // The paper uses b = 4 (§2.5: "useful values of b lie between 3 and 6, we use a default value of 4"); RFC 4654
    // §3.4 uses 6.
    for (b, end) in [(4.0, 2_000), (6.0, 3_000)] {
        let config = TfmccConfig {
            round_rtts: b,
            ..TfmccConfig::default()
        };
        let mut s = TfmccSender::new(config, Instant::ZERO);
        s.on_report(ms(100), &report(ip(1), 800_000.0, ms(50), true, 0));
        s.on_report(ms(120), &report(ip(2), 1_600_000.0, ms(60), true, 0));
        let mut now = ms(120);
        while s.fb_nr == 0 {
            now = s.poll_timeout().unwrap();
            s.on_timeout(now);
        }
        assert_eq!(now, ms(end), "b = {b}, R_max = 0.5 s");
    }
}

#[test]
fn rfc4654_3_5_within_a_priority_the_oldest_round_is_echoed_first() {
    let mut s = steady_sender(10_000.0);
    let echo = |s: &mut TfmccSender, t: u64| {
        let mut o = OptionsRepr::default();
        s.on_data_sent(ms(t), 0, 1400, &mut o);
        o.cc.tfmcc.data.unwrap().echo.unwrap().receiver
    };
    s.on_report(ms(100), &report(ip(1), 800_000.0, ms(50), true, 0));
    assert_eq!(echo(&mut s, 110), ip(1));
    s.end_round(ms(3_000));
    s.end_round(ms(6_000));
    // A report of round 2 with a low rate, then a late one of round 1 with a higher rate.
    s.on_report(ms(6_100), &report(ip(3), 8e6, ms(6_050), true, 2));
    s.on_report(ms(6_110), &report(ip(2), 1.6e7, ms(6_060), true, 1));
    assert_eq!(s.snapshot().acker, Some(ip(1)));
    assert_eq!(echo(&mut s, 6_120), ip(1), "the CLR once per round first");
    assert_eq!(echo(&mut s, 6_130), ip(2), "then the oldest round");
    assert_eq!(echo(&mut s, 6_140), ip(3));
}

#[test]
fn rfc5348_4_4_clr_silence_leaves_room_for_two_packet_intervals() {
    // A slower receiver cuts X to 200 bytes/s, one packet per 7 s, within a round whose R_max is 0.5 s. The new
    // CLR reports only after new data (RFC 4654 §3.3), so the silence rules wait max(4 R_max, 2 s/X) (RFC 5348
    // §4.4); counting R_max alone dropped the CLR and halved after 5 s.
    let mut s = steady_sender(100_000.0);
    s.on_report(ms(100), &report(ip(1), 800_000.0, ms(50), true, 0));
    s.on_report(ms(200), &report(ip(2), 1_600.0, ms(150), true, 0));
    assert_eq!((s.snapshot().acker, s.x), (Some(ip(2)), 200.0));
    let mut now = ms(200);
    while s.x == 200.0 && now < ms(60_000) {
        now = s.poll_timeout().unwrap().max(now + Duration::from_millis(1));
        s.on_timeout(now);
    }
    assert!(now >= ms(200 + 14_000), "halved {now} after the report at 0.2 s");
}
