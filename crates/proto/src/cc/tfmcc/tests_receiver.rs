//! Receiver rules of TFMCC that an audit against RFC 4654, the TFMCC paper and UFTP found broken: the packet
//! size s, the CLR's silence without data, the smoothed one-way-delay RTT and the receive rate between packets.

use super::tests::{data, echo, ip, ms, receive, receive_in_round};
use super::*;
use crate::cc::{packet_size, ReceiverController, UpstreamPath};
use crate::throughput::tcp_throughput;
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use std::time::Duration;

fn path() -> UpstreamPath {
    UpstreamPath {
        source_nla: ip(1),
        group_nla: ip(255),
    }
}

#[test]
fn rfc4654_2_1_the_receiver_measures_s_from_the_packets_that_arrive() {
    // 1000-byte payloads (the paper's Fig. 7 and 13): both ends count 1064-byte packets. A receiver that took s as
    // 1400 reported 1.32 times the equation's rate.
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut r = TfmccReceiver::new(TfmccConfig::default(), ip(9));
    let size = packet_size(1000);
    let r_max = Duration::from_millis(100);
    for sqn in 0..400u32 {
        if sqn % 20 == 10 {
            continue; // a loss event every 20 packets
        }
        let t = ms(u64::from(sqn) * 10);
        let o = data(t, r_max, 0, None, f64::MAX);
        r.on_odata(t, &mut rng, sqn, size, &o);
    }
    assert!((r.packet_size() - size as f64).abs() < 1e-9, "s = {}", r.packet_size());
    let now = ms(3_990);
    let p = r.loss_event_rate();
    let expected = tcp_throughput(size as f64, r.rtt().as_secs_f64(), p);
    let x = r.desired_rate(now);
    assert!((x / expected - 1.0).abs() < 1e-9, "X_calc {x} against {expected} for s = {size}");
    // §4.3.4: the receive rate counts the bytes that came, 1064 per 10 ms.
    let mut fresh = TfmccReceiver::new(TfmccConfig::default(), ip(9));
    for sqn in 0..30u32 {
        let t = ms(u64::from(sqn) * 10);
        fresh.on_odata(t, &mut rng, sqn, size, &data(t, r_max, 0, None, f64::MAX));
    }
    let rate = fresh.receive_rate(ms(295));
    assert!((rate / (size as f64 * 100.0) - 1.0).abs() < 0.01, "{rate} bytes/s");
}

/// A receiver echoed as the CLR by its first data packet at 1 s, its first report sent (at 1.05 s).
fn new_clr(seed: u64) -> (TfmccReceiver, ChaCha8Rng) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut r = TfmccReceiver::new(TfmccConfig::default(), ip(9));
    let echo = echo(ip(9), ms(950), true);
    receive(&mut r, &mut rng, 0, ms(1000), ms(1050), Some(echo));
    assert!(r.poll_feedback(ms(1050), &path()).is_some(), "the new CLR reports at once");
    (r, rng)
}

#[test]
fn rfc4654_3_3_the_clr_falls_silent_when_data_stops_and_reports_when_it_resumes() {
    // §3.3, last paragraph: the sender halves after 4 RTTs without a CLR report, which a CLR must allow by
    // falling silent when no data reaches it (RFC 5348 §6.2: no feedback without new data).
    let (mut r, mut rng) = new_clr(12);
    let rtt = r.rtt();
    // Data keeps coming for a while: one report per RTT.
    let mut reports = 0;
    for k in 1..=20u64 {
        let t = ms(1050 + 10 * k);
        receive(&mut r, &mut rng, k as u32, t, t, None);
        reports += usize::from(r.poll_feedback(t, &path()).is_some());
    }
    assert_eq!(reports, 2, "200 ms of data at an RTT of {rtt:?}");
    // The data stops: one more report covers the last packets, then none is due, however long the silence.
    let last = r.poll_timeout().expect("the packets since the last report");
    assert!(r.poll_feedback(last, &path()).is_some());
    assert_eq!(r.poll_timeout(), None);
    for k in 1..=50u64 {
        assert!(r.poll_feedback(ms(1250) + rtt * k as u32, &path()).is_none(), "{k} RTTs without data");
    }
    // It resumes: the first packet brings a report (the last one is long past an RTT ago).
    let t = ms(10_000);
    receive(&mut r, &mut rng, 21, t, t, None);
    assert!(r.poll_timeout().is_some_and(|due| due <= t));
    assert!(r.poll_feedback(t, &path()).is_some());
}

#[test]
fn rfc4654_4_3_4_repairs_are_data_reaching_the_clr_and_keep_its_reports_going() {
    // A source charging repairs to its rate sends only repairs after its last data packet: the CLR reports once
    // per RTT while they arrive, as it does for data, and falls silent when they stop.
    let (mut r, _) = new_clr(13);
    let rtt = r.rtt();
    let mut reports = 0;
    for k in 1..=40u64 {
        let t = ms(1050) + rtt * k as u32 / 2;
        r.on_rdata(t, 1464);
        reports += usize::from(r.poll_feedback(t, &path()).is_some());
    }
    assert_eq!(reports, 20, "a repair every half RTT for 20 RTTs ({rtt:?})");
    let last = ms(1050) + rtt * 20;
    assert_eq!(r.poll_timeout(), None, "no repair since the last report");
    assert!(r.poll_feedback(last + rtt * 5, &path()).is_none());
}

#[test]
fn paper_2_4_3_one_way_delay_adjustments_are_smoothed() {
    // The sample gives R = 30 ms; one packet then meets 50 ms more queue. The paper smooths the adjusted values
    // "albeit with a smaller decay factor" than real samples: R' moves by a tenth of the jump, not all of it.
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    let mut r = TfmccReceiver::new(TfmccConfig::default(), ip(9));
    let echo = echo(ip(9), ms(1000), false);
    receive(&mut r, &mut rng, 0, ms(1010), ms(1030), Some(echo));
    receive(&mut r, &mut rng, 1, ms(1100), ms(1170), None);
    let once = r.rtt().as_secs_f64() * 1e3;
    assert!((once - 35.0).abs() < 0.01, "30 + 0.1 × 50 ms, got {once} ms");
    // Back to the usual delay: R' returns towards 30 ms.
    for k in 2..100u64 {
        receive(&mut r, &mut rng, k as u32, ms(1000 + 100 * k), ms(1020 + 100 * k), None);
    }
    let settled = r.rtt().as_secs_f64() * 1e3;
    assert!((settled - 30.0).abs() < 0.01, "{settled} ms");
}

#[test]
fn rfc4654_4_3_4_the_receive_rate_at_one_packet_per_r_max_is_the_sending_rate_between_packets() {
    // Slowstart's first rate: one 1400-byte packet per R_max (500 ms), 2800 bytes/s, read at any instant between
    // two packets. Counting the time since the newest arrival read up to a quarter low.
    let mut rng = ChaCha8Rng::seed_from_u64(14);
    let mut r = TfmccReceiver::new(TfmccConfig::default(), ip(9));
    let r_max = Duration::from_millis(500);
    for sqn in 0..6u32 {
        let t = ms(u64::from(sqn) * 500);
        receive_in_round(&mut r, &mut rng, sqn, (t, t), r_max, 0);
    }
    for wait in [0u64, 100, 250, 499] {
        let x = r.receive_rate(ms(2500 + wait));
        assert!((x - 2800.0).abs() < 1e-6, "{wait} ms after a packet: {x} bytes/s");
    }
    // Once the next packet is overdue, the rate falls with the wait.
    let late = r.receive_rate(ms(2500 + 2_000));
    assert!(late < 2800.0 * 0.7, "{late} bytes/s two seconds after the last packet");
}
