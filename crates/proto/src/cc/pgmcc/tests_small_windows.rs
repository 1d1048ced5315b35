//! pgmcc with windows too small for three duplicate ACKs: a congestion mark at RX_MAX, early loss detection
//! (RFC 5827 §2.1) and the tail loss probe (RFC 8985 §7), all under [`PgmccConfig::early_loss`] except the mark.

use super::tests_sender::{ack, events, ip, ms, nak, send};
use super::*;
use crate::cc::{CcEvent, Permit, SenderController};
use std::time::Duration;

/// `ip(1)` elected from packet 0, the window opened to 4, packets 1..=4 sent at 20 ms (no token left), then
/// an ACK at 21 ms reporting packet 1 marked (RX_MAX = 1, its bit clear) and a second one acknowledging 2.
/// The mark halves the window to 1.5 with three packets out (T = −1.5); the ACK of 2 repays one token.
fn marked_then_one_ack(early_loss: bool) -> PgmccSender {
    let config = PgmccConfig {
        early_loss,
        ..PgmccConfig::default()
    };
    let mut s = elected(config, ms(10), 0.01);
    s.window.w = 4.0;
    s.window.t = 4.0;
    for sqn in 1..=4 {
        send(&mut s, ms(20), sqn);
    }
    ack(&mut s, ms(21), ip(1), 1, 0b10, 0.01, ms(20));
    ack(&mut s, ms(21), ip(1), 2, 0b101, 0.01, ms(20));
    events(&mut s);
    s
}

fn elected(config: PgmccConfig, at: Instant, loss: f64) -> PgmccSender {
    super::tests_sender::elected(config, at, loss)
}

#[test]
fn a_clear_bit_at_rx_max_is_a_congestion_mark_answered_at_once() {
    let s = marked_then_one_ack(false);
    // Without waiting for three later ACKs: realigned to the 3 packets out, halved.
    assert_eq!(s.window.w, 1.5);
    assert_eq!(s.window.t, -0.5);
}

#[test]
fn rfc5827_2_1_holes_before_an_acknowledged_tail_are_lost_when_no_token_is_left() {
    for early_loss in [false, true] {
        let mut s = marked_then_one_ack(early_loss);
        // 3 lost on the path, 4 (the last sent) acknowledged: one later packet, no token left.
        ack(&mut s, ms(22), ip(1), 4, 0b1_0101, 0.01, ms(20));
        let permit = s.permit(ms(22));
        if early_loss {
            assert_eq!(permit, Permit::Now, "3 is lost: its token comes back");
        } else {
            assert_eq!(permit, Permit::Blocked, "the papers' rule waits for the timeout");
            assert!(s.poll_timeout().unwrap() >= ms(1_000));
        }
    }
}

#[test]
fn rfc8985_7_a_lost_tail_is_probed_after_two_srtt_with_one_original_packet() {
    let mut s = marked_then_one_ack(true);
    // 3 and 4 lost on the path: no ACK will come.
    assert_eq!(s.permit(ms(21)), Permit::Blocked);
    let probe_at = s.poll_timeout().expect("the probe is armed");
    assert!(probe_at < ms(30), "2·SRTT + 2 ms after the last ACK, not the 1 s timeout: {probe_at:?}");
    s.on_timeout(probe_at);
    assert_eq!(s.permit(probe_at), Permit::Now, "one original packet may go");
    assert_eq!(s.permit_repair(probe_at), Permit::Blocked, "a repair would bring no ACK");
    send(&mut s, probe_at, 5);
    assert_eq!(s.permit(probe_at), Permit::Blocked, "one probe");
    assert!(s.poll_timeout().unwrap() >= ms(1_000), "no second probe before an answer");
    // The probe's ACK reveals 3 and 4 lost (early detection: 5 was the last sent).
    ack(&mut s, probe_at, ip(1), 5, 0b10_1001, 0.01, probe_at);
    assert_eq!(s.permit(probe_at), Permit::Now);
    assert!(events(&mut s)
        .iter()
        .all(|e| !matches!(e, CcEvent::Timeout { .. })));
}

#[test]
fn without_early_loss_nothing_is_probed() {
    let s = marked_then_one_ack(false);
    assert!(s.poll_timeout().unwrap() >= ms(1_000));
}

#[test]
fn no_probe_without_an_acker_so_the_next_one_gets_a_packet_to_acknowledge() {
    let config = PgmccConfig {
        early_loss: true,
        ..PgmccConfig::default()
    };
    let mut s = elected(config, ms(10), 0.01);
    // One packet acknowledged: a smoothed RTT of 10 ms, so a probe would go 22 ms after the last packet.
    send(&mut s, ms(20), 1);
    ack(&mut s, ms(30), ip(1), 1, 0b1, 0.01, ms(20));
    events(&mut s);
    let (mut now, mut sqn) = (ms(30), 1);
    let mut send_all = |s: &mut PgmccSender, now: Instant| {
        while s.permit(now) == Permit::Now {
            sqn += 1;
            send(s, now, sqn);
        }
    };
    send_all(&mut s, now);
    // The acker is gone: nothing is acknowledged, and repeated timeouts clear it (draft §2.7).
    let mut cleared = false;
    for _ in 0..20 {
        now = s.poll_timeout().expect("a timer runs");
        s.on_timeout(now);
        send_all(&mut s, now);
        cleared = events(&mut s)
            .iter()
            .any(|e| matches!(e, CcEvent::AckerChanged { to: None, .. }));
        if cleared {
            break;
        }
    }
    assert!(cleared, "the silent acker is cleared");
    // The packets now name no acker: a probe would bring no ACK and only spend a token. Every packet sent from
    // here is the timeout's, a backed-off RTO apart, none a probe's 2·SRTT after it.
    let mut sent_at = Vec::new();
    for _ in 0..3 {
        now = s.poll_timeout().expect("a timer runs");
        s.on_timeout(now);
        while s.permit(now) == Permit::Now {
            sqn += 1;
            send(&mut s, now, sqn);
            sent_at.push(now);
        }
    }
    assert!(!sent_at.is_empty());
    assert!(
        sent_at.windows(2).all(|w| w[1] >= w[0] + Duration::from_millis(500)),
        "no tail probe without an acker: sends at {sent_at:?}"
    );
    // A receiver answers the election: the window lets a packet naming it go, which it will acknowledge.
    let answer = now + Duration::from_millis(1);
    nak(&mut s, answer, ip(2), sqn, 0.01, now);
    assert_eq!(s.permit(answer), Permit::Now);
    let options = send(&mut s, answer, sqn + 1);
    assert_eq!(options.cc.pgmcc.data.map(|d| d.acker), Some(ip(2)));
}
