//! Rule tests of the halves of `aimd`, the agent-based rate AIMD scheme of Shi and Waldvogel 2000 (docs/papers.md),
//! named after the paper's sections.

use super::*;
use crate::cc::wire_clock::stamp;
use crate::cc::{CcEvent, Permit, ReceiverCcEvent, ReceiverController, SenderController, UpstreamPath};
use convoy_wire::cc::aimd::{AimdData, AimdEcho, AimdReport, ReportKind, WireRate};
use convoy_wire::BodyRepr;
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use std::net::{IpAddr, Ipv4Addr};

fn ip(n: u8) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(10, 0, 3, n))
}

fn ms(t: u64) -> Instant {
    Instant::from_millis(t)
}

const PATH: UpstreamPath = UpstreamPath {
    source_nla: IpAddr::V4(Ipv4Addr::new(10, 0, 3, 250)),
    group_nla: IpAddr::V4(Ipv4Addr::new(239, 1, 1, 1)),
};

/// A report from `from` at RTT `rtt_ms` (also its echo delay) with loss `p`.
fn report(from: IpAddr, kind: ReportKind, p: f32, rtt_ms: u32, sqn: u32, now: Instant) -> AimdReport {
    AimdReport {
        reporter: from,
        kind,
        tr: 0,
        ts_echo: stamp(now - Duration::from_millis(u64::from(rtt_ms))),
        loss: WireRate(p),
        rtt_us: rtt_ms * 1000,
        sqn,
    }
}

fn data(ts: Instant, agent: Option<(IpAddr, f64)>, echo: Option<AimdEcho>) -> OptionsRepr {
    let mut o = OptionsRepr::default();
    o.cc.aimd.data = Some(AimdData {
        ts: stamp(ts),
        x: WireRate(1e6),
        agent: agent.map(|(a, c)| (a, WireRate(c as f32))),
    });
    o.cc.aimd.echo = echo;
    o
}

/// Send `n` packets from `first`, 10 ms apart from `t`.
fn send(s: &mut AimdSender, t: u64, first: u32, n: u32) {
    for k in 0..n {
        let mut o = OptionsRepr::default();
        s.on_data_sent(ms(t + u64::from(k) * 10), first + k, 1000, &mut o);
    }
}

fn agent_sender() -> AimdSender {
    let mut s = AimdSender::new(AimdConfig { initial_rate: Some(100_000.0), ..AimdConfig::default() }, ms(0));
    send(&mut s, 0, 0, 10);
    s.on_report(ms(100), &report(ip(1), ReportKind::Congestion, 0.01, 100, 9, ms(100)));
    assert_eq!(s.snapshot().acker, Some(ip(1)));
    s
}

#[test]
fn paper_5_1_the_first_notifier_becomes_the_agent_without_a_halving() {
    let s = agent_sender();
    assert_eq!(s.rate(), 100_000.0);
}

#[test]
fn paper_5_1_a_worse_notifier_takes_over_and_6_3_the_switch_halves_the_rate() {
    let mut s = agent_sender();
    // Not worse (capacity 1/(0.1·√0.005) > 1/(0.1·√0.01)): ignored.
    s.on_report(ms(200), &report(ip(2), ReportKind::Congestion, 0.005, 100, 9, ms(200)));
    assert_eq!((s.snapshot().acker, s.rate()), (Some(ip(1)), 100_000.0));
    // Worse, while the agent has sent no feedback yet: still the election (§5.1), no halving.
    s.on_report(ms(210), &report(ip(4), ReportKind::Congestion, 0.02, 100, 9, ms(210)));
    assert_eq!((s.snapshot().acker, s.rate()), (Some(ip(4)), 100_000.0));
    // The agent clocks the rate (a positive feedback whose capacity fell, so no increase) …
    s.on_report(ms(220), &report(ip(4), ReportKind::Positive, 0.03, 100, 9, ms(220)));
    assert_eq!(s.rate(), 100_000.0);
    // … so a worse notifier now is a switch: the new agent, and half the rate (§6.3).
    s.on_report(ms(300), &report(ip(3), ReportKind::Congestion, 0.04, 100, 9, ms(300)));
    assert_eq!((s.snapshot().acker, s.rate()), (Some(ip(3)), 50_000.0));
    // Selectable: no halving.
    let mut keep = AimdSender::new(AimdConfig { halve_on_switch: false, ..AimdConfig::default() }, ms(0));
    keep.on_report(ms(100), &report(ip(1), ReportKind::Congestion, 0.01, 100, 0, ms(100)));
    keep.on_report(ms(110), &report(ip(1), ReportKind::Positive, 0.02, 100, 0, ms(110)));
    let before = keep.rate();
    keep.on_report(ms(200), &report(ip(3), ReportKind::Congestion, 0.04, 100, 0, ms(200)));
    assert_eq!((keep.snapshot().acker, keep.rate()), (Some(ip(3)), before));
}

#[test]
fn paper_5_3_positive_feedback_adds_one_packet_per_rtt_only_if_the_capacity_did_not_fall() {
    let mut s = agent_sender();
    send(&mut s, 100, 10, 10);
    s.on_report(ms(250), &report(ip(1), ReportKind::Positive, 0.01, 100, 19, ms(250)));
    // One packet per reported RTT of 100 ms: the mean packet size, 1000 bytes after 20 of them plus 0.9^20 of
    // the initial guess's 400 more.
    let step = s.rate() - 100_000.0;
    let mean = 1000.0 + 400.0 * 0.9f64.powi(20);
    assert!((step - mean / 0.1).abs() < 1e-6, "step {step}");
    send(&mut s, 250, 20, 10);
    // The RTT grew (a queue builds): the capacity fell, no increase.
    let x = s.rate();
    s.on_report(ms(400), &report(ip(1), ReportKind::Positive, 0.01, 120, 29, ms(400)));
    assert_eq!(s.rate(), x);
}

#[test]
fn paper_5_3_negative_feedback_halves_and_feedback_about_packets_before_the_halving_is_ignored() {
    let mut s = agent_sender();
    send(&mut s, 100, 10, 5); // 10..14
    s.on_report(ms(200), &report(ip(1), ReportKind::Negative, 0.01, 100, 12, ms(200)));
    assert_eq!(s.rate(), 50_000.0);
    // No packet sent since the change: every report is about older packets, a PF as well (no increase before the
    // halved rate has been seen).
    s.on_report(ms(210), &report(ip(1), ReportKind::Negative, 0.01, 100, 14, ms(210)));
    s.on_report(ms(215), &report(ip(1), ReportKind::Positive, 0.01, 100, 14, ms(215)));
    assert_eq!(s.rate(), 50_000.0);
    send(&mut s, 220, 15, 5); // 15 is the first after the change
    s.on_report(ms(300), &report(ip(1), ReportKind::Negative, 0.01, 100, 15, ms(300)));
    assert_eq!(s.rate(), 50_000.0, "\"higher than\" the first packet after the change");
    s.on_report(ms(310), &report(ip(1), ReportKind::Negative, 0.01, 100, 16, ms(310)));
    assert_eq!(s.rate(), 25_000.0);
    // Feedback from a receiver that is not the agent moves nothing.
    send(&mut s, 320, 20, 5);
    s.on_report(ms(400), &report(ip(2), ReportKind::Negative, 0.01, 100, 24, ms(400)));
    assert_eq!(s.rate(), 25_000.0);
}

#[test]
fn paper_5_3_on_a_lan_a_pf_adds_one_packet_per_feedback_interval_not_per_microseconds_rtt() {
    // An agent 1 ms away reports at most every 10 ms: its PF adds one packet per 10 ms (s/ts_gran), not one per
    // 1 ms, which at a LAN's RTTs is a step of tens of Mbit/s per report into whatever bottleneck lies behind.
    let mut s = AimdSender::new(AimdConfig { initial_rate: Some(100_000.0), ..AimdConfig::default() }, ms(0));
    send(&mut s, 0, 0, 10);
    s.on_report(ms(100), &report(ip(1), ReportKind::Congestion, 0.01, 1, 9, ms(100)));
    send(&mut s, 100, 10, 10);
    s.on_report(ms(250), &report(ip(1), ReportKind::Positive, 0.01, 1, 19, ms(250)));
    let step = s.rate() - 100_000.0;
    let mean = 1000.0 + 400.0 * 0.9f64.powi(20);
    assert!((step - mean / 0.010).abs() < 1e-6, "step {step}");
}

/// §5.3: "the rate is increased one packet every RTT", with the agent sending one PF per RTT. The freshness rule
/// ("only adapts to PF/NF with the sequence number higher than that of the first data packet sent after last rate
/// adjustment", which "ensures that the source only adapts to newly experienced congestion") is about congestion:
/// the PF that follows an increase reports packets sent before it (the first packet after the raise reaches the
/// agent about when that PF leaves) and still counts, so the rate rises every agent RTT, not every second one.
#[test]
fn paper_5_3_the_rate_rises_one_packet_every_agent_rtt() {
    // The RTT the agent reported when it was elected: its capacity holds, and every PF may raise.
    let rtt = 100u64;
    let mut s = agent_sender();
    let mut sent: Vec<(u64, u32)> = Vec::new();
    let mut sqn = 10u32;
    let mut t = 100u64;
    let start = s.rate();
    for k in 1..=10u64 {
        let pf_at = 100 + k * rtt;
        while t < pf_at {
            if let Permit::At(due) = s.permit(ms(t)) {
                t = (due.as_nanos() / 1_000_000).max(t + 1);
                continue;
            }
            let mut o = OptionsRepr::default();
            s.on_data_sent(ms(t), sqn, 1000, &mut o);
            sent.push((t, sqn));
            sqn += 1;
        }
        // The PF left the agent half an RTT ago and reports what had reached it: packets sent an RTT ago.
        let seen = sent.iter().rev().find(|(at, _)| *at + rtt <= pf_at).map_or(9, |(_, q)| *q);
        s.on_report(ms(pf_at), &report(ip(1), ReportKind::Positive, 0.01, rtt as u32, seen, ms(pf_at)));
    }
    let packets = (s.rate() - start) / (1000.0 / 0.1);
    assert!(packets > 9.5, "{packets:.2} packets added over ten agent RTTs");
}

#[test]
fn paper_5_3_a_queue_building_up_stops_the_increase_before_the_smoothed_rtt_shows_it() {
    // The agent keeps reporting its smoothed 100 ms, but the sender measures each PF's echo: 100, 110, 120 ms
    // as a queue builds (§5.3: "queue building up … increasing RTT and decreasing capacity, the source
    // anticipates it and does not increase its rate"), then 90 ms as it drains.
    let mut s = agent_sender();
    let pf = |s: &mut AimdSender, at: u64, echo_ms: u64, sqn: u32| {
        let mut r = report(ip(1), ReportKind::Positive, 0.01, 100, sqn, ms(at));
        r.ts_echo = stamp(ms(at) - Duration::from_millis(echo_ms));
        s.on_report(ms(at), &r);
    };
    send(&mut s, 100, 10, 10);
    pf(&mut s, 250, 100, 19);
    let first = s.rate();
    assert!(first > 100_000.0, "a steady RTT lets the PF raise the rate");
    // A microsecond more is the wire clock's rounding, not a queue: the rate still rises.
    send(&mut s, 250, 20, 10);
    let mut r = report(ip(1), ReportKind::Positive, 0.01, 100, 29, ms(350));
    r.ts_echo = stamp(ms(350) - Duration::from_micros(100_001));
    s.on_report(ms(350), &r);
    let raised = s.rate();
    assert!(raised > first, "1 µs is no queue");
    for (k, echo) in [110u64, 120, 130].into_iter().enumerate() {
        let at = 450 + 100 * k as u64;
        send(&mut s, at - 100, 30 + 10 * k as u32, 10);
        pf(&mut s, at, echo, 39 + 10 * k as u32);
        assert_eq!(s.rate(), raised, "RTT {echo} ms measured: no increase");
    }
    send(&mut s, 650, 60, 10);
    pf(&mut s, 750, 90, 69);
    assert!(s.rate() > raised, "the queue drains: the capacity rises again and so does the rate");
}

#[test]
fn silence_of_the_agent_halves_after_four_rtts_and_drops_it_after_ten() {
    let mut s = agent_sender();
    // Counted from the first data packet that names it.
    send(&mut s, 100, 10, 1);
    let due = s.poll_timeout().unwrap();
    assert_eq!(due, ms(100 + 400));
    s.on_timeout(due);
    assert_eq!((s.rate(), s.snapshot().acker), (50_000.0, Some(ip(1))));
    s.on_timeout(ms(1100));
    assert_eq!(s.snapshot().acker, None);
    assert!(s.poll_event().is_some());
}

#[test]
fn paper_5_1_an_agents_silence_counts_from_the_first_packet_that_names_it() {
    // Elected at 100 ms; repairs charged to the rate hold the data back until 900 ms. The agent cannot report
    // before it knows its role: no silence halving at 500 ms, four RTTs after 900 ms instead.
    let mut s = agent_sender();
    assert_eq!(s.poll_timeout(), None);
    s.on_timeout(ms(500));
    assert_eq!(s.rate(), 100_000.0);
    send(&mut s, 900, 10, 1);
    assert_eq!(s.poll_timeout(), Some(ms(900 + 400)));
}

#[test]
fn paper_5_3_an_agent_without_an_rtt_is_judged_silent_by_its_initial_rtt() {
    // Its notification carries no RTT (its report was never echoed): it reports once per initial RTT (500 ms),
    // so four of those, not four of the sender's 100 ms sample, make it silent.
    let mut s = AimdSender::new(AimdConfig { initial_rate: Some(100_000.0), ..AimdConfig::default() }, ms(0));
    send(&mut s, 0, 0, 10);
    let mut cn = report(ip(1), ReportKind::Congestion, 0.01, 100, 9, ms(100));
    cn.rtt_us = 0;
    s.on_report(ms(100), &cn);
    send(&mut s, 100, 10, 1);
    assert_eq!(s.poll_timeout(), Some(ms(100 + 2000)));
}

#[test]
fn paper_5_4_the_sender_paces_and_echoes_each_report_once() {
    let mut s = agent_sender();
    let mut o = OptionsRepr::default();
    s.on_data_sent(ms(150), 10, 1000, &mut o);
    let e = o.cc.aimd.echo.expect("the notifier's report is echoed");
    assert_eq!(e.receiver, ip(1));
    assert_eq!(e.tr_echo, 50_000, "tr plus 50 ms held");
    assert_eq!(o.cc.aimd.data.unwrap().agent.unwrap().0, ip(1));
    // One interval of credit at most: a second packet at the same instant uses it, a third waits.
    let mut o2 = OptionsRepr::default();
    s.on_data_sent(ms(150), 11, 1000, &mut o2);
    assert!(o2.cc.aimd.echo.is_none(), "each report is echoed once");
    match s.permit(ms(150)) {
        Permit::At(t) => assert!(t > ms(150)),
        p => panic!("paced, got {p:?}"),
    }
}

fn receive(r: &mut AimdReceiver, rng: &mut ChaCha8Rng, sqn: u32, at: Instant, o: &OptionsRepr) {
    r.on_odata(at, rng, sqn, 1464, o);
}

#[test]
fn paper_5_1_without_an_agent_every_receiver_notifies_after_an_srm_back_off() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut r = AimdReceiver::new(AimdConfig::default(), ip(9));
    receive(&mut r, &mut rng, 0, ms(0), &data(ms(0), None, None));
    // [C1·d, (C1 + C2)·d] with d = RTT/2 = 250 ms: between 0.5 and 1 s.
    let t = r.poll_timeout().expect("a notification is due");
    assert!(t >= ms(500) && t <= ms(1000), "{t:?}");
    assert!(r.poll_feedback(t - Duration::from_millis(1), &PATH).is_none());
    let f = r.poll_feedback(t, &PATH).expect("notification");
    let rep = f.options.cc.aimd.report.unwrap();
    assert_eq!(rep.kind, ReportKind::Congestion);
    assert!(matches!(f.body, BodyRepr::Ack { rx_max: 0, .. }));
}

#[test]
fn paper_5_1_a_receiver_no_worse_than_the_agent_stays_silent_and_a_worse_agent_cancels_a_pending_notice() {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let mut r = AimdReceiver::new(AimdConfig::default(), ip(9));
    // Before any loss, p is the floor 1/(2W) = 0.001 and R the initial 500 ms: capacity ≈ 63 packets/s.
    let own = r.capacity();
    assert!((own - 1.0 / (0.5 * 0.001f64.sqrt())).abs() < 1e-6);
    receive(&mut r, &mut rng, 0, ms(0), &data(ms(0), Some((ip(1), own * 1.05)), None));
    assert!(r.poll_timeout().is_none(), "within the margin: approximately the agent's");
    receive(&mut r, &mut rng, 1, ms(10), &data(ms(10), Some((ip(1), own * 2.0)), None));
    assert!(r.poll_timeout().is_some(), "clearly worse: a notification waits");
    // The sender switched to a receiver worse than this one: the pending notice is cancelled.
    receive(&mut r, &mut rng, 2, ms(20), &data(ms(20), Some((ip(2), own * 0.5)), None));
    assert!(r.poll_timeout().is_none());
    assert!(r.poll_feedback(ms(5000), &PATH).is_none());
}

#[test]
fn paper_5_3_the_agent_sends_one_feedback_per_rtt_negative_taking_precedence() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut r = AimdReceiver::new(AimdConfig::default(), ip(9));
    // The echo of a report sent at 0 arrives at 100 ms: RTT 100 ms.
    let echo = AimdEcho { receiver: ip(9), tr_echo: 0 };
    receive(&mut r, &mut rng, 0, ms(100), &data(ms(90), Some((ip(9), 10.0)), Some(echo)));
    assert_eq!(r.rtt(), Duration::from_millis(100));
    assert_eq!(r.poll_event(), Some(ReceiverCcEvent::RttMeasured));
    assert_eq!(r.poll_event(), Some(ReceiverCcEvent::AckerRole(true)));
    // Packets 1 and 3 arrive, 2 is lost: one negative feedback naming 2, one RTT after the role began.
    receive(&mut r, &mut rng, 1, ms(120), &data(ms(110), Some((ip(9), 10.0)), None));
    receive(&mut r, &mut rng, 3, ms(140), &data(ms(130), Some((ip(9), 10.0)), None));
    assert_eq!(r.poll_timeout(), Some(ms(200)));
    let nf = r.poll_feedback(ms(200), &PATH).unwrap().options.cc.aimd.report.unwrap();
    assert_eq!((nf.kind, nf.sqn), (ReportKind::Negative, 2));
    assert_eq!(nf.rtt_us, 100_000);
    assert!(r.poll_feedback(ms(250), &PATH).is_none(), "one per RTT");
    receive(&mut r, &mut rng, 4, ms(260), &data(ms(250), Some((ip(9), 10.0)), None));
    let pf = r.poll_feedback(ms(300), &PATH).unwrap().options.cc.aimd.report.unwrap();
    assert_eq!((pf.kind, pf.sqn), (ReportKind::Positive, 4));
    assert!((f64::from(pf.loss.0) - 0.2).abs() < 1e-6, "1 of 5 packets");
}

#[test]
fn paper_5_3_an_agent_without_an_rtt_reports_one_measured_rtt_after_its_first_sample() {
    // Named the agent before its report was echoed: its first feedback was planned an initial RTT away; the
    // echo 10 ms later measures 40 ms, and the feedback is due 40 ms after that.
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut r = AimdReceiver::new(AimdConfig::default(), ip(9));
    receive(&mut r, &mut rng, 0, ms(100), &data(ms(90), Some((ip(9), 10.0)), None));
    assert_eq!(r.poll_timeout(), Some(ms(100) + AimdConfig::default().initial_rtt));
    let echo = AimdEcho { receiver: ip(9), tr_echo: stamp(ms(70)) };
    receive(&mut r, &mut rng, 1, ms(110), &data(ms(100), Some((ip(9), 10.0)), Some(echo)));
    assert_eq!(r.rtt(), Duration::from_millis(40));
    assert_eq!(r.poll_timeout(), Some(ms(150)));
}

#[test]
fn a_sender_and_receivers_elect_the_farthest_loss_free_receiver() {
    // Two receivers without loss, 40 and 200 ms away: the notifications and echoes settle on the farther one.
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let mut s = AimdSender::new(AimdConfig { initial_rate: Some(20_000.0), ..AimdConfig::default() }, ms(0));
    let mut near = AimdReceiver::new(AimdConfig::default(), ip(1));
    let mut far = AimdReceiver::new(AimdConfig::default(), ip(2));
    let mut pending: Vec<(Instant, AimdReport)> = Vec::new();
    for k in 0..1500u32 {
        let now = ms(u64::from(k) * 20);
        pending.sort_by_key(|(t, _)| *t);
        while pending.first().is_some_and(|(t, _)| *t <= now) {
            let (t, rep) = pending.remove(0);
            s.on_report(t, &rep);
        }
        let mut o = OptionsRepr::default();
        s.on_data_sent(now, k, 1000, &mut o);
        for (r, one_way) in [(&mut near, 20u64), (&mut far, 100)] {
            let at = now + Duration::from_millis(one_way);
            r.on_odata(at, &mut rng, k, 1464, &o);
            if let Some(f) = r.poll_feedback(at + Duration::from_millis(19), &PATH) {
                pending.push((at + Duration::from_millis(19 + one_way), f.options.cc.aimd.report.unwrap()));
            }
        }
    }
    assert_eq!(s.snapshot().acker, Some(ip(2)));
    assert!((far.rtt().as_secs_f64() - 0.2).abs() < 0.03, "far RTT {:?}", far.rtt());
    assert!(s.rate() > 20_000.0, "positive feedback raised the rate: {}", s.rate());
    assert!(s.poll_event().is_some_and(|e| matches!(e, CcEvent::AckerChanged { .. } | CcEvent::Report { .. })));
}

#[test]
fn paper_5_3_a_raise_takes_effect_at_the_next_packet_not_after_the_old_interval() {
    // At 1000 bytes/s a 1400-byte packet leaves every 1.4 s; positive feedback that raises the rate brings the next
    // packet forward to one new interval after the last, so that the feedback validating the raise comes soon.
    let mut s = AimdSender::new(AimdConfig { initial_rate: Some(1000.0), ..AimdConfig::default() }, ms(0));
    let mut o = OptionsRepr::default();
    s.on_data_sent(ms(0), 0, 1400, &mut o);
    assert!(matches!(s.permit(ms(100)), Permit::At(t) if t > ms(1000)));
    s.on_report(ms(50), &report(ip(1), ReportKind::Congestion, 0.01, 50, 0, ms(50)));
    s.on_report(ms(60), &report(ip(1), ReportKind::Positive, 0.01, 50, 0, ms(60)));
    assert!(s.rate() > 20_000.0, "one packet per 50 ms RTT added: {}", s.rate());
    assert_eq!(s.permit(ms(100)), Permit::Now);
}
