//! Tests of pgmcc's start-up at the sender (module `startup`): the opening, its bound, its pace.

use super::tests_sender::{ack, elected_at_w_1, feedback, ip, ms, nak, report, send};
use super::*;
use crate::cc::{CcEvent, Permit, SenderController};
use crate::time::Instant;
use convoy_wire::OptionsRepr;
use std::net::IpAddr;
use std::time::Duration;

/// A sender with `start`, acker ip(1) elected, W = 1 and ten tokens, unpaced (`opening_round_min` 0): these
/// tests are about the window's rules, the pace has its own.
fn started(start: StartUp) -> PgmccSender {
    elected_at_w_1(PgmccConfig {
        start,
        opening_round_min: Duration::ZERO,
        ..PgmccConfig::default()
    })
}

#[test]
fn startup_until_congestion_opens_past_ssthresh_until_any_receivers_nak() {
    let mut s = started(StartUp::UntilCongestion);
    for sqn in 1..=9 {
        send(&mut s, ms(2), sqn);
    }
    // Packets 0 to 9 acknowledged: W = 1 + 10, past the paper's threshold of 6.
    ack(&mut s, ms(3), ip(1), 9, u32::MAX, 0.0, ms(2));
    assert!((s.window().w - 11.0).abs() < 1e-9, "W = {}", s.window().w);
    // Another receiver, not the acker, lost a packet (its loss estimate still 0, so the acker stays): the
    // threshold freezes at the window reached.
    nak(&mut s, ms(4), ip(2), 5, 0.0, ms(2));
    assert!((s.window().ssthresh - 11.0).abs() < 1e-9);
    for sqn in 10..=14 {
        send(&mut s, ms(5), sqn);
    }
    ack(&mut s, ms(6), ip(1), 10, u32::MAX, 0.0, ms(5));
    assert!(
        (s.window().w - (11.0 + 1.0 / 11.0)).abs() < 1e-9,
        "one packet per RTT now: W = {}",
        s.window().w
    );
}

#[test]
fn startup_paper_is_unchanged_by_a_nak() {
    let mut s = started(StartUp::FixedThreshold);
    nak(&mut s, ms(2), ip(2), 0, 0.01, ms(0));
    assert_eq!(s.window().ssthresh, 6.0);
}

/// Send one ODATA whether or not a token is left; returns the options the controller added.
fn send_anyway(s: &mut PgmccSender, now: Instant, sqn: u32) -> OptionsRepr {
    let mut o = OptionsRepr::default();
    s.on_data_sent(now, sqn, 1464, &mut o);
    o
}

/// An ACK from `from` reporting receive rate `rate` (packets/s), its timestamp echo that of `echo_of`.
fn rate_report(s: &mut PgmccSender, now: Instant, from: IpAddr, rx_max: u32, rate: f64, echo_of: Instant) {
    let ts = TimestampUnit::Micros.ticks(echo_of.as_nanos());
    let rep = ReceiverReport {
        rx_rate: Some(rate),
        ..report(from, ts, 0.0)
    };
    feedback(s, now, FeedbackKind::Ack { rx_max, bitmap: u32::MAX }, rep, false);
}

#[test]
fn startup_rfc4654_4_3_the_slowest_reporter_becomes_acker_and_bounds_the_window() {
    let mut s = started(StartUp::UntilCongestion);
    assert_eq!(send(&mut s, ms(2), 1).cc.pgmcc.start_up, Some(0), "no rate reported yet");
    for sqn in 2..=31 {
        send_anyway(&mut s, ms(2), sqn);
    }
    ack(&mut s, ms(3), ip(1), 31, u32::MAX, 0.0, ms(2));
    assert!(s.window().w > 30.0, "the fast acker opened the window: W = {}", s.window().w);
    // Receiver 2's path delivers 100 packets/s and its RTT is 50 ms: it becomes the acker, W ≤ 2 · 100 · 0.05.
    rate_report(&mut s, ms(52), ip(2), 31, 100.0, ms(2));
    assert_eq!(s.snapshot().acker, Some(ip(2)));
    let switched = std::iter::from_fn(|| s.poll_event())
        .any(|e| matches!(e, CcEvent::AckerChanged { to: Some(a), .. } if a == ip(2)));
    assert!(switched);
    assert!((s.window().w - 10.0).abs() < 1e-9, "W = {}", s.window().w);
    assert!(s.window().t <= s.window().w, "T = {}", s.window().t);
    assert_eq!(s.snapshot().srtt_s, Some(0.05), "the report's RTT is the new acker's first sample");
    let o = send_anyway(&mut s, ms(53), 32);
    assert_eq!(o.cc.pgmcc.start_up, Some(100_000), "the source echoes the lowest rate");
    // A fast receiver's rate replaces neither the acker nor the bound.
    rate_report(&mut s, ms(54), ip(3), 31, 8000.0, ms(53));
    assert_eq!(s.snapshot().acker, Some(ip(2)));
}

#[test]
fn startup_the_bound_is_never_below_the_papers_threshold_and_ends_with_the_opening() {
    let mut s = started(StartUp::UntilCongestion);
    for sqn in 1..=19 {
        send_anyway(&mut s, ms(2), sqn);
    }
    ack(&mut s, ms(3), ip(1), 19, u32::MAX, 0.0, ms(2));
    rate_report(&mut s, ms(4), ip(2), 19, 100.0, ms(2));
    assert!((s.window().w - 6.0).abs() < 1e-9, "2 · 100 · 0.002 < 6: W = {}", s.window().w);
    nak(&mut s, ms(5), ip(3), 4, 0.01, ms(2));
    assert_eq!(send_anyway(&mut s, ms(6), 20).cc.pgmcc.start_up, None, "the opening is over");
}

#[test]
fn startup_until_congestion_halves_the_threshold_on_every_loss_as_tcp() {
    let mut s = started(StartUp::UntilCongestion);
    for sqn in 1..=31 {
        send_anyway(&mut s, ms(2), sqn);
    }
    ack(&mut s, ms(3), ip(1), 31, u32::MAX, 0.0, ms(2));
    let w = s.window().w;
    // Packet 34 lost (bit 5 of an ACK for 39 clear): the loss halves W and sets the threshold there.
    for sqn in 32..=39 {
        send_anyway(&mut s, ms(4), sqn);
    }
    ack(&mut s, ms(5), ip(1), 39, !(1 << 5), 0.05, ms(4));
    let after = s.window().w;
    assert!(after < w, "halved: {w} → {after}");
    assert!((s.window().ssthresh - after.max(6.0)).abs() < 1e-9, "ssthresh = {}", s.window().ssthresh);
}

/// A sender with the default pace, acker ip(1) elected at 1 ms, a 100 µs RTT measured at 6.1 ms, W = 8 and
/// eight tokens.
fn on_a_lan() -> PgmccSender {
    let mut s = elected_at_w_1(PgmccConfig {
        start: StartUp::UntilCongestion,
        ..PgmccConfig::default()
    });
    // Packet 0 left at 0 with W = 1 and no RTT known: the next is due 4 ms / ln 2 later.
    assert_eq!(s.permit(ms(1)), Permit::At(Instant::ZERO + gap(1.0)));
    send(&mut s, ms(6), 1);
    ack(&mut s, us(6100), ip(1), 1, u32::MAX, 0.0, ms(6));
    s.window.w = 8.0;
    s.window.t = 8.0;
    s
}

fn us(n: u64) -> Instant {
    Instant::from_nanos(n * 1000)
}

/// The pace's gap at window `w`: 4 ms / (w ln 2).
fn gap(w: f64) -> Duration {
    Duration::from_secs_f64(1.0 / (std::f64::consts::LN_2 * w / 0.004))
}

#[test]
fn startup_sub_ms_rtt_the_opening_paces_ln2_w_packets_per_4_ms() {
    let mut s = on_a_lan();
    assert_eq!(s.snapshot().srtt_s, Some(0.0001));
    // W = 8: one packet per 721 µs, though eight tokens are there.
    assert_eq!(s.permit(us(6100)), Permit::At(ms(6) + gap(8.0)));
    send(&mut s, us(6800), 2);
    assert_eq!(s.permit(us(6900)), Permit::At(us(6800) + gap(8.0)));
    s.window.w = 16.0;
    assert_eq!(s.permit(us(6900)), Permit::At(us(6800) + gap(16.0)), "a wider window quickens the pace");
}

#[test]
fn startup_the_pace_ends_with_the_opening_without_a_burst_and_never_lends_tokens() {
    let mut s = on_a_lan();
    // A NAK from another receiver ends the opening: the ACK clock alone paces again.
    send(&mut s, us(6800), 2);
    send(&mut s, us(6800) + gap(8.0), 3);
    nak(&mut s, us(7600), ip(2), 1, 0.0, ms(6));
    assert_eq!(s.permit(us(7600)), Permit::Now);
    // The pace held six tokens back: the window is realigned to the two packets in flight plus one, and the
    // threshold goes no higher than that (the paper's floor of 6 still holds).
    assert_eq!((s.window().w, s.window().t), (3.0, 1.0));
    assert_eq!(s.window().ssthresh, 6.0);
    // Out of tokens: blocked, whatever the pace says.
    let mut s = on_a_lan();
    s.window.t = 0.5;
    assert_eq!(s.permit(ms(9)), Permit::Blocked);
}

#[test]
fn startup_paths_of_4_ms_or_more_are_not_paced() {
    let mut s = elected_at_w_1(PgmccConfig {
        start: StartUp::UntilCongestion,
        ..PgmccConfig::default()
    });
    send(&mut s, ms(10), 1);
    ack(&mut s, ms(50), ip(1), 1, u32::MAX, 0.0, ms(10));
    for sqn in 2..=4 {
        send(&mut s, ms(50), sqn);
    }
    let paper = elected_at_w_1(PgmccConfig::default());
    assert_eq!(paper.permit(ms(0)), Permit::Now, "the paper's start-up is never paced");
}
