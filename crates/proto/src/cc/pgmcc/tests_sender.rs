//! Rule-by-rule tests of the pgmcc sender half; each names the section of its source (docs/pgmcc-rules.md).

use super::*;
use crate::cc::{CcEvent, Permit, ReductionCause, SenderController};
use crate::time::Instant;
use convoy_wire::OptionsRepr;
use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

pub(super) fn ip(n: u8) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(10, 0, 1, n))
}

pub(super) fn ms(t: u64) -> Instant {
    Instant::from_millis(t)
}

/// Send one ODATA if permitted; returns the options the controller added.
pub(super) fn send(s: &mut PgmccSender, now: Instant, sqn: u32) -> OptionsRepr {
    assert_eq!(s.permit(now), Permit::Now, "no token to send {sqn}");
    let mut o = OptionsRepr::default();
    s.on_data_sent(now, sqn, 1464, &mut o);
    o
}

pub(super) fn report(from: IpAddr, tstamp: u32, loss: f64) -> ReceiverReport {
    ReceiverReport {
        reporter: from,
        tstamp_echo: tstamp,
        loss_rate: (loss * 65535.0).round() as u16,
        rxw_lead: None,
        rx_rate: None,
    }
}

pub(super) fn feedback(
    s: &mut PgmccSender,
    now: Instant,
    kind: FeedbackKind,
    rep: ReceiverReport,
    leaving: bool,
) {
    let fb = Feedback {
        kind,
        from: rep.reporter,
        report: Some(rep),
        acker_leaving: leaving,
    };
    s.on_report(now, &fb);
}

pub(super) fn ack(
    s: &mut PgmccSender,
    now: Instant,
    from: IpAddr,
    rx_max: u32,
    bitmap: u32,
    loss: f64,
    sent_at: Instant,
) {
    let ts = TimestampUnit::Micros.ticks(sent_at.as_nanos());
    feedback(
        s,
        now,
        FeedbackKind::Ack { rx_max, bitmap },
        report(from, ts, loss),
        false,
    );
}

pub(super) fn nak(s: &mut PgmccSender, now: Instant, from: IpAddr, sqn: u32, loss: f64, echo_of: Instant) {
    let ts = TimestampUnit::Micros.ticks(echo_of.as_nanos());
    feedback(
        s,
        now,
        FeedbackKind::Nak { sqn },
        report(from, ts, loss),
        false,
    );
}

pub(super) fn events(s: &mut PgmccSender) -> Vec<CcEvent> {
    std::iter::from_fn(|| s.poll_event()).collect()
}

/// A sender with `config` that sent packet 0 (an election request) and elected `ip(1)` from its answer at `at`,
/// reporting `loss`.
pub(super) fn elected(config: PgmccConfig, at: Instant, loss: f64) -> PgmccSender {
    let mut s = PgmccSender::new(config, Instant::ZERO);
    send(&mut s, ms(0), 0);
    feedback(
        &mut s,
        at,
        FeedbackKind::Election { sqn: 0 },
        report(ip(1), 0, loss),
        false,
    );
    s
}

/// A sender with `ip(1)` elected from the first packet (sqn 0) and the window opened to `w`.
fn running(w: f64) -> PgmccSender {
    running_with(PgmccConfig::default(), w)
}

/// [`running`] with `config`.
fn running_with(config: PgmccConfig, w: f64) -> PgmccSender {
    let mut s = elected(config, ms(10), 0.01);
    s.window.w = w;
    s.window.t = w;
    events(&mut s);
    s
}

#[test]
fn paper_3_6_first_packet_asks_for_an_election_and_first_reporter_wins() {
    let mut s = PgmccSender::new(PgmccConfig::default(), Instant::ZERO);
    let o = send(&mut s, ms(0), 0);
    let data = o.cc.pgmcc.data.expect("OPT_PGMCC_DATA on every ODATA");
    assert!(
        data.acker.is_unspecified(),
        "no acker yet: election request"
    );
    assert_eq!(
        s.permit(ms(0)),
        Permit::Blocked,
        "W = T = 1 and the token is spent"
    );
    feedback(
        &mut s,
        ms(10),
        FeedbackKind::Election { sqn: 0 },
        report(ip(2), 0, 0.0),
        false,
    );
    assert_eq!(
        events(&mut s),
        vec![CcEvent::AckerChanged {
            from: None,
            to: Some(ip(2))
        }]
    );
    // Draft §3: T = T + 1 on the initial election, so the next packet (naming the acker) may go.
    let o = send(&mut s, ms(10), 1);
    assert_eq!(o.cc.pgmcc.data.unwrap().acker, ip(2));
}

#[test]
fn draft_2_1_1_data_carries_a_timestamp() {
    let mut s = PgmccSender::new(PgmccConfig::default(), Instant::ZERO);
    let o = send(&mut s, Instant::from_micros(123_456), 0);
    assert_eq!(o.cc.pgmcc.data.unwrap().tstamp, 123_456);
}

#[test]
fn paper_3_4_acker_acks_open_the_window() {
    let mut s = running(1.0);
    send(&mut s, ms(20), 1);
    ack(&mut s, ms(40), ip(1), 1, 0b11, 0.01, ms(20));
    let w = s.window();
    // Packets 0 and 1 acknowledged; below SSTHRESH 6 the window opens exponentially: W 1 → 3.
    assert_eq!(w.w, 3.0);
}

/// A sender with `config`, acker ip(1) elected from packet 0 with no loss, W = 1 and ten tokens.
pub(super) fn elected_at_w_1(config: PgmccConfig) -> PgmccSender {
    let mut s = elected(config, ms(1), 0.0);
    s.window.t = 10.0;
    s.window.w = 1.0;
    s
}

#[test]
fn paper_3_4_ssthresh_6_default_4_selectable() {
    for (ssthresh, expect) in [(6.0, 6.0), (4.0, 4.0 + 2.0 / 4.0)] {
        let mut s = elected_at_w_1(PgmccConfig {
            ssthresh,
            ..PgmccConfig::default()
        });
        for sqn in 1..=5 {
            let mut o = OptionsRepr::default();
            s.on_data_sent(ms(2), sqn, 1464, &mut o);
        }
        // 0..=4 acknowledged, 5 still in flight.
        ack(&mut s, ms(3), ip(1), 4, 0b1_1111, 0.0, ms(2));
        assert!(
            (s.window().w - expect).abs() < 1e-9,
            "ssthresh {ssthresh}: W = {}",
            s.window().w
        );
    }
}

#[test]
fn draft_2_2_loss_halves_once_per_rtt() {
    let mut s = running(10.0);
    for sqn in 1..=10 {
        send(&mut s, ms(20), sqn);
    }
    // 1 and 2 lost; 3..=6 received: loss of both detected from one ACK, one reduction.
    ack(&mut s, ms(40), ip(1), 6, 0b1111, 0.02, ms(20));
    let ev = events(&mut s);
    let reductions: Vec<_> = ev
        .iter()
        .filter(|e| {
            matches!(
                e,
                CcEvent::Reduced {
                    cause: ReductionCause::Loss,
                    ..
                }
            )
        })
        .collect();
    assert_eq!(reductions.len(), 1, "{ev:?}");
    // Realigned to the 4 packets in flight beyond RX_MAX = 6, halved to 2.
    assert_eq!(s.window().w, 2.0);
    // Another loss among packets sent before the reduction (7 lost; 8, 9, 10 acked) is ignored.
    ack(&mut s, ms(41), ip(1), 10, 0b1110_1111, 0.02, ms(20));
    assert!(events(&mut s)
        .iter()
        .all(|e| !matches!(e, CcEvent::Reduced { .. })));
    // No window growth while suspended: the ACKs only repaid tokens.
    assert_eq!(s.window().w, 2.0);
}

#[test]
fn paper_3_4_a_late_declared_loss_on_the_ack_that_ends_the_suspension_is_ignored() {
    let mut s = running(10.0);
    for sqn in 1..=10 {
        send(&mut s, ms(20), sqn);
    }
    // 1 and 2 lost: one reduction, reaction point 10.
    ack(&mut s, ms(40), ip(1), 6, 0b1111, 0.02, ms(20));
    assert_eq!(s.window().w, 2.0);
    events(&mut s);
    s.window.t = 2.0;
    send(&mut s, ms(41), 11);
    send(&mut s, ms(41), 12);
    // One ACK acknowledges 11 and 12 (sent after the reduction: the suspension ends) and declares 7 lost (sent
    // before it): 12, 11, 10, 9, 8 received, 7 lost, 6..=3 received.
    ack(&mut s, ms(60), ip(1), 12, 0b11_1101_1111, 0.02, ms(41));
    let ev = events(&mut s);
    assert!(
        ev.iter().all(|e| !matches!(e, CcEvent::Reduced { .. })),
        "{ev:?}"
    );
    assert!(s.window().w >= 2.0, "not halved again: {}", s.window().w);
    // A loss of a packet sent after the reduction still reacts.
    s.window.w = 4.0;
    s.window.t = 4.0;
    for sqn in 13..=16 {
        send(&mut s, ms(61), sqn);
    }
    // 13 lost; 16, 15, 14 and 12..=8 received.
    ack(&mut s, ms(80), ip(1), 16, 0b11_1101_1111_0111, 0.02, ms(61));
    assert!(events(&mut s)
        .iter()
        .any(|e| matches!(e, CcEvent::Reduced { .. })));
}

#[test]
fn draft_2_2_window_resumes_after_feedback_for_a_packet_sent_after_the_loss() {
    let mut s = running(10.0);
    for sqn in 1..=10 {
        send(&mut s, ms(20), sqn);
    }
    ack(&mut s, ms(40), ip(1), 6, 0b1111, 0.02, ms(20));
    ack(&mut s, ms(41), ip(1), 10, 0b1111_1111, 0.02, ms(20));
    s.window.t = 1.0;
    send(&mut s, ms(42), 11);
    let w = s.window().w;
    ack(&mut s, ms(60), ip(1), 11, 0b1_1111_1111, 0.02, ms(42));
    assert!(
        s.window().w > w,
        "growth resumes: {} -> {}",
        w,
        s.window().w
    );
}

#[test]
fn paper_3_5_acker_switch_is_not_congestion() {
    let mut s = running(8.0);
    for sqn in 1..=8 {
        send(&mut s, ms(20), sqn);
    }
    let before = s.window();
    // A receiver with 4× the loss at the same RTT reports via a NAK.
    nak(&mut s, ms(30), ip(2), 3, 0.08, ms(20));
    assert_eq!(
        events(&mut s),
        vec![CcEvent::AckerChanged {
            from: Some(ip(1)),
            to: Some(ip(2))
        }]
    );
    assert_eq!(
        s.window(),
        before,
        "window and tokens untouched by a switch"
    );
}

#[test]
fn paper_3_5_c_is_hysteresis() {
    let config = PgmccConfig {
        c: 0.75,
        model: crate::throughput::ThroughputModel::Paper,
        ..Default::default()
    };
    let mut s = PgmccSender::new(config, Instant::ZERO);
    send(&mut s, ms(0), 0);
    nak(&mut s, ms(100), ip(1), 0, 0.02, ms(0));
    // RTT 100 ms both; 1.5× the loss gives a throughput ratio 0.816 > 0.75: no switch with c = 0.75.
    nak(&mut s, ms(100), ip(2), 0, 0.03, ms(0));
    assert_eq!(s.snapshot().acker, Some(ip(1)));
}

#[test]
fn draft_2_4_full_formula_is_the_default() {
    assert_eq!(
        PgmccConfig::default().model,
        crate::throughput::ThroughputModel::Draft
    );
    assert_eq!(PgmccConfig::default().c, 0.75);
}

#[test]
fn draft_2_5_3_sequence_number_rtt_selectable() {
    let config = PgmccConfig {
        rtt_method: RttMethod::SequenceNumber,
        ..PgmccConfig::default()
    };
    let mut s = PgmccSender::new(config, Instant::ZERO);
    s.window.t = 100.0;
    s.window.w = 100.0;
    for sqn in 0..50 {
        let mut o = OptionsRepr::default();
        s.on_data_sent(ms(0), sqn, 1464, &mut o);
    }
    let mut rep = report(ip(1), 0, 0.02);
    rep.rxw_lead = Some(45);
    s.on_report(
        ms(1),
        &Feedback {
            kind: FeedbackKind::Nak { sqn: 40 },
            from: ip(1),
            report: Some(rep),
            acker_leaving: false,
        },
    );
    // ip(2) has the same loss but is 20 packets behind (RTT 24 packets vs 4): it becomes acker.
    rep = report(ip(2), 0, 0.02);
    rep.rxw_lead = Some(25);
    s.on_report(
        ms(1),
        &Feedback {
            kind: FeedbackKind::Nak { sqn: 20 },
            from: ip(2),
            report: Some(rep),
            acker_leaving: false,
        },
    );
    assert_eq!(s.snapshot().acker, Some(ip(2)));
}

#[test]
fn draft_2_7_adaptive_timeout_restarts_window_and_reelects_after_two() {
    let mut s = running(8.0);
    send(&mut s, ms(20), 1);
    // Initial RTO 3 s (no sample yet).
    assert_eq!(s.poll_timeout(), Some(ms(3000)));
    s.on_timeout(ms(3000));
    assert_eq!((s.window().w, s.window().t), (1.0, 1.0));
    assert_eq!(
        s.snapshot().acker,
        Some(ip(1)),
        "one timeout keeps the acker"
    );
    send(&mut s, ms(3000), 2);
    let second = s.poll_timeout().unwrap();
    assert_eq!(
        second,
        ms(3000 + 6000),
        "RFC 6298 §5.5 back-off doubles the RTO"
    );
    s.on_timeout(second);
    let ev = events(&mut s);
    assert!(
        ev.contains(&CcEvent::AckerChanged {
            from: Some(ip(1)),
            to: None
        }),
        "{ev:?}"
    );
    let o = send(&mut s, second, 3);
    assert!(
        o.cc.pgmcc.data.unwrap().acker.is_unspecified(),
        "next packet asks for an election"
    );
}

#[test]
fn draft_2_7_any_ack_from_the_acker_restarts_the_count_of_timeouts() {
    let mut s = running(8.0);
    send(&mut s, ms(20), 1);
    s.on_timeout(ms(3000));
    send(&mut s, ms(3000), 2);
    // The acker answers, reporting packet 2 lost (nothing newly acknowledged): it is alive.
    ack(&mut s, ms(3100), ip(1), 2, 0b10, 0.5, ms(3000));
    s.window.t = 1.0;
    send(&mut s, ms(3100), 3);
    let next = s.poll_timeout().unwrap();
    s.on_timeout(next);
    assert!(
        events(&mut s)
            .iter()
            .all(|e| !matches!(e, CcEvent::AckerChanged { .. })),
        "two timeouts, but not in a row without word from the acker"
    );
    assert_eq!(s.snapshot().acker, Some(ip(1)));
}

#[test]
fn draft_2_7_rto_follows_the_acker_rtt() {
    let mut s = running(8.0);
    for i in 1..=20u32 {
        let t = ms(u64::from(i) * 300);
        s.window.t = 1.0;
        send(&mut s, t, i);
        ack(
            &mut s,
            t + Duration::from_millis(200),
            ip(1),
            i,
            u32::MAX,
            0.0,
            t,
        );
    }
    let srtt = s.snapshot().srtt_s.unwrap();
    assert!((srtt - 0.2).abs() < 0.01, "srtt {srtt}");
    // RTO = max(1 s, SRTT + 4 RTTVAR) = 1 s here (RFC 6298 §2.4 minimum).
    s.window.t = 1.0;
    send(&mut s, ms(7000), 21);
    assert_eq!(s.poll_timeout(), Some(ms(8000)));
}

#[test]
fn wf_fixed_timeout_selectable() {
    let config = PgmccConfig {
        timeout: TimeoutPolicy::Fixed(Duration::from_millis(500)),
        ..Default::default()
    };
    let mut s = PgmccSender::new(config, Instant::ZERO);
    send(&mut s, ms(0), 0);
    assert_eq!(s.poll_timeout(), Some(ms(500)));
    s.on_timeout(ms(500));
    send(&mut s, ms(500), 1);
    assert_eq!(s.poll_timeout(), Some(ms(1000)), "fixed: no back-off");
}

/// A sender with `ip(1)` as acker (elected on packet 0), W = T = 4, a fixed 1 s timeout restarting as `restart`
/// says, and packets 0–4 outstanding.
fn timing_out(restart: TimeoutRestart) -> PgmccSender {
    let config = PgmccConfig {
        timeout: TimeoutPolicy::Fixed(Duration::from_secs(1)),
        timeout_restart: restart,
        reelect_after_timeouts: 1_000,
        ..PgmccConfig::default()
    };
    let mut s = running_with(config, 4.0);
    for sqn in 1..=4 {
        send(&mut s, ms(20), sqn);
    }
    events(&mut s);
    s
}

#[test]
fn draft_3_a_timeout_restarts_with_one_token_and_writes_off_what_is_outstanding() {
    let mut s = timing_out(TimeoutRestart::Draft);
    let at = s.poll_timeout().unwrap();
    s.on_timeout(at);
    assert_eq!((s.window.w, s.window.t), (1.0, 1.0));
    assert_eq!(s.permit(at), Permit::Now, "W = T = 1 and send (draft §3)");
    // A late ACK for a written-off packet returns nothing.
    ack(&mut s, at + Duration::from_millis(5), ip(1), 1, 0b11, 0.0, ms(20));
    assert_eq!(s.window.t, 1.0);
}

#[test]
fn wf_4_a_their_timeout_sends_nothing_until_an_outstanding_packet_is_acknowledged() {
    let mut s = timing_out(TimeoutRestart::WangFahmy);
    let at = s.poll_timeout().unwrap();
    s.on_timeout(at);
    assert_eq!((s.window.w, s.window.t), (1.0, -0.5), "W = 1, T = −1/(2W) (WF §IV-A)");
    assert_eq!(s.permit(at), Permit::Blocked);
    // The timer keeps running while the sender waits.
    let again = s.poll_timeout().expect("re-armed");
    assert!(again > at);
    // The late ACK of packet 1 (and 0) returns tokens: T = −0.5 + 2 (below ssthresh), one packet may go.
    let again = at + Duration::from_millis(500);
    ack(&mut s, again, ip(1), 1, 0b11, 0.0, ms(20));
    assert_eq!(s.permit(again), Permit::Now);
    let t = again + Duration::from_millis(10);
    send(&mut s, t, 5);
    ack(&mut s, t, ip(1), 4, 0b1, 0.0, ms(20));
    send(&mut s, t, 6);
    send(&mut s, t, 7);
    events(&mut s);
    // An ACK declaring packets 2 and 3 lost (sent before the timeout; 4–7 acknowledged after them) does not halve
    // the window again: the timeout answered those losses (paper §3.4).
    let w = s.window.w;
    ack(&mut s, t + Duration::from_millis(5), ip(1), 7, 0b1111, 0.0, t);
    assert!(
        !events(&mut s).iter().any(|e| matches!(e, CcEvent::Reduced { cause: ReductionCause::Loss, .. })),
        "no reduction for losses of packets sent before the timeout"
    );
    assert!(s.window.w >= w, "{} < {w}", s.window.w);
}

#[test]
fn wf_4_a_packets_older_than_the_ack_wait_bound_are_not_waited_for() {
    let mut s = timing_out(TimeoutRestart::WangFahmy);
    let at = s.poll_timeout().unwrap();
    s.on_timeout(at);
    assert_eq!(s.permit(at), Permit::Blocked, "packets 0–4 are young enough to be acknowledged");
    // No RTT sample: the bound is the timer's own 1 s. At the next timeout they are older than that: lost, or
    // their ACKs were, and nothing else can bring a token back.
    let next = s.poll_timeout().expect("the timer still runs");
    s.on_timeout(next);
    assert!(!s.tracker.has_unacked());
    assert_eq!(s.permit(next), Permit::Now, "restarted as the draft does");
}

#[test]
fn wf_4_a_with_nothing_outstanding_their_timeout_restarts_as_the_draft_does() {
    let mut s = timing_out(TimeoutRestart::WangFahmy);
    ack(&mut s, ms(40), ip(1), 4, 0b1_1111, 0.0, ms(20));
    assert!(!s.tracker.has_unacked(), "every packet acknowledged");
    // Out of tokens with nothing in flight (the timer runs while the sender cannot send, paper §3.6).
    s.window.t = 0.0;
    s.deadline = Some(ms(1040));
    s.on_timeout(ms(1040));
    assert_eq!(s.permit(ms(1040)), Permit::Now, "no ACK can come back: send one as the draft does");
}

#[test]
fn draft_2_3_2_acker_leaving_triggers_election() {
    let mut s = running(4.0);
    feedback(
        &mut s,
        ms(50),
        FeedbackKind::Ack {
            rx_max: 0,
            bitmap: 1,
        },
        report(ip(1), 0, 0.0),
        true,
    );
    assert_eq!(
        events(&mut s),
        vec![CcEvent::AckerChanged {
            from: Some(ip(1)),
            to: None
        }]
    );
    let o = send(&mut s, ms(51), 1);
    assert!(o.cc.pgmcc.data.unwrap().acker.is_unspecified());
}

#[test]
fn draft_2_3_2_the_leaving_ackers_last_ack_still_returns_tokens() {
    let mut s = running(4.0);
    for sqn in 1..=4 {
        send(&mut s, ms(20), sqn);
    }
    assert_eq!(s.window().t, 0.0);
    // Its goodbye acknowledges 1..=4.
    feedback(
        &mut s,
        ms(50),
        FeedbackKind::Ack {
            rx_max: 4,
            bitmap: 0b1_1111,
        },
        report(ip(1), 0, 0.0),
        true,
    );
    assert!(s.window().t >= 4.0, "tokens back: {}", s.window().t);
    assert_eq!(s.snapshot().acker, None);
}

#[test]
fn acks_from_a_receiver_never_named_do_not_move_the_window() {
    let mut s = running(4.0);
    for sqn in 1..=4 {
        send(&mut s, ms(20), sqn);
    }
    let before = s.window();
    ack(&mut s, ms(40), ip(9), 4, 0b1_1111, 0.0, ms(20));
    assert_eq!(s.window(), before);
}

#[test]
fn wf_4a_old_acker_acks_count_by_default_and_can_be_restricted() {
    for (policy, expect_growth) in [
        (OldAckerAcks::Count, true),
        (OldAckerAcks::TokensOnly, false),
        (OldAckerAcks::Ignore, false),
    ] {
        let config = PgmccConfig {
            old_acker_acks: policy,
            ..PgmccConfig::default()
        };
        let mut s = elected(config, ms(1), 0.01);
        s.window.w = 8.0;
        s.window.t = 8.0;
        for sqn in 1..=4 {
            send(&mut s, ms(2), sqn);
        }
        // Switch to ip(2); then ip(1) ACKs packet 4, which named it.
        nak(&mut s, ms(3), ip(2), 1, 0.2, ms(2));
        assert_eq!(s.snapshot().acker, Some(ip(2)));
        let before = s.window();
        ack(&mut s, ms(4), ip(1), 4, 0b1_1111, 0.01, ms(2));
        assert_eq!(s.window().w > before.w, expect_growth, "{policy:?}");
        // Tokens come back unless the ACK is ignored outright.
        let tokens_back = policy != OldAckerAcks::Ignore;
        assert_eq!(s.window().t > before.t, tokens_back, "{policy:?}");
    }
}

#[test]
fn sw_5_4_a_charged_repair_takes_a_token_that_the_next_packets_ack_returns_without_opening_the_window() {
    let mut s = running(4.0);
    send(&mut s, ms(20), 1);
    s.on_repair_sent(ms(20), 1464);
    s.on_repair_sent(ms(20), 1464);
    send(&mut s, ms(20), 2);
    assert_eq!(s.permit(ms(20)), Permit::Blocked, "two packets and two repairs took the four tokens");
    // Packets 0 and 1 acknowledged: slow start opens W 4 → 6 and gives T += 4 (T = 4); the repairs' tokens stay
    // out.
    ack(&mut s, ms(60), ip(1), 1, 0b11, 0.0, ms(20));
    assert_eq!((s.window().w, s.window().t), (6.0, 4.0));
    // Packet 2, sent after the repairs, acknowledged: they have left the pipe, their two tokens come back, and
    // packet 2 alone opens the window (W += 1/W).
    ack(&mut s, ms(61), ip(1), 2, 0b111, 0.0, ms(20));
    let w = 6.0 + 1.0 / 6.0;
    assert!((s.window().w - w).abs() < 1e-9, "W = {}", s.window().w);
    assert!((s.window().t - w).abs() < 1e-9, "every token back: T = {}", s.window().t);
}

#[test]
fn sw_5_4_without_a_following_packet_a_repair_token_comes_back_two_srtt_later() {
    let mut s = running(2.0);
    send(&mut s, ms(20), 1);
    // Packets 0 and 1 acknowledged 40 ms after 1 left: SRTT = 40 ms.
    ack(&mut s, ms(60), ip(1), 1, 0b11, 0.0, ms(20));
    let w = s.window().w;
    let mut repairs = 0;
    while s.permit(ms(60)) == Permit::Now {
        s.on_repair_sent(ms(60), 1464);
        repairs += 1;
    }
    assert!(repairs >= 1, "the window had tokens for repairs");
    assert_eq!(s.poll_timeout(), Some(ms(140)), "no data follows the repairs: twice the SRTT");
    s.on_timeout(ms(140));
    assert_eq!(s.permit(ms(140)), Permit::Now, "the tokens are back");
    assert_eq!(s.window().w, w, "a repair's token does not open the window");
    assert_eq!(s.poll_timeout(), None, "nothing outstanding: no timer");
}

#[test]
fn sw_5_4_repairs_with_tokens_out_count_as_in_flight_at_a_loss() {
    let mut s = running(8.0);
    for sqn in 1..=4 {
        send(&mut s, ms(20), sqn);
    }
    for _ in 0..4 {
        s.on_repair_sent(ms(20), 1464);
    }
    // One packet reported lost: beyond RX_MAX 4 no ODATA is in flight, but the four repairs are.
    ack(&mut s, ms(60), ip(1), 4, 0b1101, 0.02, ms(20));
    let w = s.window();
    assert_eq!(w.w, 2.0, "realigned to the 4 packets in flight, halved");
    assert_eq!(w.t, w.w - 4.0, "T = W − in flight, the repairs among them");
}
