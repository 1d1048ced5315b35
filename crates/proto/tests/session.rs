//! Sender and Receiver sessions driven by hand, packet by packet, checked on the wire.

use convoy_proto::cc::fixed::FixedConfig;
use convoy_proto::cc::pgmcc::PgmccConfig;
use convoy_proto::cc::{CcConfig, CcEvent};
use convoy_proto::harness::{Harness, HarnessConfig, PathConfig};
use convoy_proto::{
    Destination, Instant, LateJoin, Receiver, ReceiverConfig, ReceiverEvent, Sender, SenderConfig,
    SenderEvent,
};
use convoy_wire::{BodyRepr, OptionsRepr, PacketRepr, PacketType, PgmccFeedback};
use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

fn src() -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1))
}
fn group() -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(239, 1, 1, 1))
}
fn rcv(n: u8) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(10, 0, 1, n))
}

/// Everything the sender emits at `now`, parsed.
fn drain(s: &mut Sender, now: Instant) -> Vec<(Destination, Vec<u8>)> {
    let mut buf = vec![0u8; 9000];
    std::iter::from_fn(|| {
        s.poll_transmit(now, &mut buf)
            .map(|t| (t.destination, buf[..t.len].to_vec()))
    })
    .collect()
}

fn types(packets: &[(Destination, Vec<u8>)]) -> Vec<PacketType> {
    packets
        .iter()
        .map(|(_, b)| PacketRepr::parse(b).unwrap().body.packet_type())
        .collect()
}

fn upstream(s: &Sender, body: BodyRepr, options: OptionsRepr) -> Vec<u8> {
    let tsi = s.tsi();
    let repr = PacketRepr {
        source_port: 7500,
        dest_port: tsi.source_port,
        gsi: tsi.gsi,
        body,
        options,
        payload: &[],
    };
    let mut buf = vec![0u8; repr.buffer_len()];
    repr.emit(&mut buf).unwrap();
    buf
}

fn report(from: IpAddr, loss: u16) -> OptionsRepr {
    let mut options = OptionsRepr::default();
    options.cc.pgmcc.feedback = Some(PgmccFeedback {
        tstamp: 0,
        loss_rate: loss,
        reporter: from,
    });
    options
}

#[test]
fn rfc3208_source_starts_with_three_spms_then_data_with_pgmcc_option() {
    let mut s = Sender::new(SenderConfig::new(src(), group()), Instant::ZERO);
    s.write(b"hello").unwrap();
    let out = drain(&mut s, Instant::ZERO);
    assert_eq!(
        types(&out),
        vec![
            PacketType::Spm,
            PacketType::Spm,
            PacketType::Spm,
            PacketType::Odata
        ]
    );
    let spm = PacketRepr::parse(&out[0].1).unwrap();
    assert_eq!(
        spm.body,
        BodyRepr::Spm {
            sqn: 0,
            trail: 0,
            lead: u32::MAX,
            path_nla: src()
        }
    );
    let odata = PacketRepr::parse(&out[3].1).unwrap();
    assert_eq!(odata.body, BodyRepr::Odata { sqn: 0, trail: 0 });
    assert_eq!(odata.payload, b"hello");
    assert!(
        odata.options.cc.pgmcc.data.unwrap().acker.is_unspecified(),
        "first packet asks for an election"
    );
    assert!(out.iter().all(|(d, _)| *d == Destination::Group));
}

#[test]
fn paper_3_8_repairs_are_not_window_controlled() {
    let mut s = Sender::new(SenderConfig::new(src(), group()), Instant::ZERO);
    s.write(b"a").unwrap();
    s.write(b"b").unwrap();
    let out = drain(&mut s, Instant::ZERO);
    assert_eq!(
        types(&out).last(),
        Some(&PacketType::Odata),
        "one packet: W = T = 1"
    );
    // A plain NAK (no report, so no election) while the window has no token: NCF and RDATA go out anyway.
    let body = BodyRepr::Nak {
        sqn: 0,
        source_nla: src(),
        group_nla: group(),
    };
    s.handle_datagram(
        Instant::from_millis(5),
        rcv(1),
        &upstream(&s, body, OptionsRepr::default()),
    );
    let out = drain(&mut s, Instant::from_millis(5));
    assert_eq!(types(&out), vec![PacketType::Ncf, PacketType::Rdata]);
    let rdata = PacketRepr::parse(&out[1].1).unwrap();
    assert_eq!(rdata.payload, b"a");
    assert_eq!(s.stats().rdata_packets, 1);
}

#[test]
fn draft_2_3_1_election_nak_elects_without_repair() {
    let mut s = Sender::new(SenderConfig::new(src(), group()), Instant::ZERO);
    s.write(b"a").unwrap();
    s.write(b"b").unwrap();
    drain(&mut s, Instant::ZERO);
    let mut options = report(rcv(2), 0);
    options.cc.pgmcc.election = true;
    let body = BodyRepr::Nak {
        sqn: 0,
        source_nla: src(),
        group_nla: group(),
    };
    s.handle_datagram(
        Instant::from_millis(5),
        rcv(2),
        &upstream(&s, body, options),
    );
    let out = drain(&mut s, Instant::from_millis(5));
    assert_eq!(
        types(&out),
        vec![PacketType::Odata],
        "no NCF, no RDATA; the new token sends the next packet"
    );
    let odata = PacketRepr::parse(&out[0].1).unwrap();
    assert_eq!(odata.options.cc.pgmcc.data.unwrap().acker, rcv(2));
    let events: Vec<_> = std::iter::from_fn(|| s.poll_event()).collect();
    assert!(events.contains(&SenderEvent::Cc(CcEvent::AckerChanged {
        from: None,
        to: Some(rcv(2))
    })));
}

#[test]
fn malformed_datagrams_are_counted_and_explained() {
    let mut s = Sender::new(SenderConfig::new(src(), group()), Instant::ZERO);
    s.handle_datagram(Instant::ZERO, rcv(1), &[0x1d, 0x4c, 0x04, 0x45, 0x08]);
    assert_eq!(s.stats().malformed, 1);
    match s.poll_event() {
        Some(SenderEvent::Malformed { from, error }) => {
            assert_eq!(from, rcv(1));
            assert!(!error.to_string().is_empty());
        }
        other => panic!("{other:?}"),
    }
    let mut r = Receiver::new(ReceiverConfig::new(rcv(1), group()), 1);
    let mut bad = upstream(&s, BodyRepr::Spmr, OptionsRepr::default());
    bad[6] ^= 0xff; // break the checksum
    r.handle_datagram(Instant::ZERO, src(), &bad);
    assert_eq!(r.stats().malformed, 1);
}

#[test]
fn paper_3_9_tokens_available_when_the_queue_runs_dry() {
    let mut config = SenderConfig::new(src(), group());
    config.cc = CcConfig::Fixed(Default::default());
    let mut s = Sender::new(config, Instant::ZERO);
    drain(&mut s, Instant::ZERO);
    let events: Vec<_> = std::iter::from_fn(|| s.poll_event()).collect();
    assert_eq!(events, vec![SenderEvent::TokensAvailable]);
    drain(&mut s, Instant::ZERO);
    assert_eq!(
        s.poll_event(),
        None,
        "edge-triggered: once until the next write"
    );
}

#[test]
fn paper_3_2_receiver_naks_carry_the_report_and_go_unicast_to_the_source() {
    let mut config = SenderConfig::new(src(), group());
    config.cc = CcConfig::Fixed(FixedConfig {
        rate_bytes_per_s: 100_000_000,
        burst: Duration::from_secs(1),
    });
    let mut s2 = Sender::new(config, Instant::ZERO);
    for i in 0..4u8 {
        s2.write(&[i; 100]).unwrap();
    }
    let mut out = drain(&mut s2, Instant::ZERO);
    out.extend(drain(&mut s2, Instant::from_millis(1)));
    let mut r = Receiver::new(ReceiverConfig::new(rcv(3), group()), 9);
    // Deliver all but the ODATA with sqn 1.
    for (_, bytes) in &out {
        let p = PacketRepr::parse(bytes).unwrap();
        if p.body == (BodyRepr::Odata { sqn: 1, trail: 0 }) {
            continue;
        }
        r.handle_datagram(Instant::ZERO, src(), bytes);
    }
    let due = r
        .poll_timeout()
        .unwrap_or_else(|| panic!("no NAK scheduled: {:?} {:?}", r.stats(), r.rxw_stats()));
    assert!(
        due <= Instant::from_millis(50),
        "NAK back-off within NAK_BO_IVL"
    );
    r.handle_timeout(due);
    let mut buf = vec![0u8; 1500];
    let t = r.poll_transmit(due, &mut buf).expect("a NAK");
    assert_eq!(t.destination, Destination::Unicast(src()));
    let nak = PacketRepr::parse(&buf[..t.len]).unwrap();
    assert!(matches!(nak.body, BodyRepr::Nak { sqn: 1, .. }));
    let fb = nak
        .options
        .cc
        .pgmcc
        .feedback
        .expect("receiver report on the NAK");
    assert_eq!(fb.reporter, rcv(3));
    assert_eq!(nak.options.cc.pgmcc.rxw_lead, Some(3));
    // Upstream orientation: destination port is the data-source port.
    assert_eq!(nak.dest_port, s2.tsi().source_port);
}

#[test]
fn rfc3208_fin_ends_sessions_at_both_ends() {
    let paths = vec![PathConfig::default(); 2];
    let h = {
        let mut h = Harness::new(HarnessConfig::new(4, paths, 50));
        h.run_until(Instant::from_secs_f64(60.0));
        h
    };
    assert!(h.sender().is_closed());
    assert!(h.outcome(0).finished && h.outcome(1).finished);
    assert!(h.events().iter().any(|e| e.event == SenderEvent::Closed));
}

#[test]
fn late_join_from_trail_recovers_the_past() {
    // A receiver that starts when 200 packets were already sent, and asks for everything repairable.
    let mut config = SenderConfig::new(src(), group());
    config.cc = CcConfig::Fixed(Default::default());
    let mut s = Sender::new(config, Instant::ZERO);
    for i in 0..300u32 {
        s.write(&i.to_be_bytes()).unwrap();
    }
    let mut rc = ReceiverConfig::new(rcv(1), group());
    rc.late_join = LateJoin::FromTrail;
    let mut r = Receiver::new(rc, 3);
    let mut now = Instant::ZERO;
    let mut buf = vec![0u8; 2000];
    let mut sent = 0;
    let mut delivered = Vec::new();
    while now < Instant::from_secs_f64(30.0) {
        while let Some(t) = s.poll_transmit(now, &mut buf) {
            let p = PacketRepr::parse(&buf[..t.len]).unwrap();
            if matches!(p.body, BodyRepr::Odata { .. }) {
                sent += 1;
            }
            if sent > 200 || !matches!(p.body, BodyRepr::Odata { .. }) {
                r.handle_datagram(now, src(), &buf[..t.len]);
            }
        }
        while let Some(t) = r.poll_transmit(now, &mut buf) {
            s.handle_datagram(now, rcv(1), &buf[..t.len]);
        }
        while let Some(e) = r.poll_event() {
            if let ReceiverEvent::Data(d) = e {
                delivered.push(u32::from_be_bytes(d[..].try_into().unwrap()));
            }
        }
        while s.poll_event().is_some() {}
        now += Duration::from_millis(1);
        s.handle_timeout(now);
        r.handle_timeout(now);
    }
    assert_eq!(delivered, (0..300).collect::<Vec<_>>());
}

#[test]
fn rate_max_caps_original_data() {
    let mut config = HarnessConfig::new(2, vec![PathConfig::default()], 1_000);
    config.sender.rate_max = Some(50_000);
    let mut h = Harness::new(config);
    h.run_until(Instant::from_secs_f64(10.0));
    let sent = h.sender().stats().odata_packets;
    // 10 s at 50 kB/s of ~1464-byte packets: ~341 packets (plus the initial burst allowance).
    assert!((300..=360).contains(&sent), "{sent}");
}

#[test]
fn paper_3_9_receiver_reports_exposed_when_asked() {
    let mut config = HarnessConfig::new(
        2,
        vec![PathConfig {
            loss: 0.02,
            ..PathConfig::default()
        }],
        500,
    );
    let pgmcc = PgmccConfig {
        report_events: true,
        ..PgmccConfig::default()
    };
    config.sender.cc = CcConfig::Pgmcc(pgmcc.clone());
    config.receivers[0].0.cc = CcConfig::Pgmcc(pgmcc);
    let mut h = Harness::new(config);
    h.run_until(Instant::from_secs_f64(60.0));
    let reports = h
        .events()
        .iter()
        .filter(|e| {
            matches!(
                e.event,
                SenderEvent::Cc(CcEvent::Report { rtt_s: Some(_), .. })
            )
        })
        .count();
    assert!(reports > 100, "{reports}");
}

#[test]
fn tfmcc_the_library_exposes_the_rate_and_the_current_limiting_receiver() {
    // Two receivers, the second behind a 2 Mbit/s path: the CLR is the slower one and the rate follows it.
    let mut config = HarnessConfig::new(
        3,
        vec![
            PathConfig::default(),
            PathConfig {
                rate_bps: Some(2_000_000),
                queue_packets: 20,
                ..PathConfig::default()
            },
        ],
        20_000,
    );
    let tfmcc = convoy_proto::cc::tfmcc::TfmccConfig::default();
    config.sender.cc = CcConfig::Tfmcc(tfmcc.clone());
    for (r, _) in &mut config.receivers {
        r.cc = CcConfig::Tfmcc(tfmcc.clone());
    }
    let mut h = Harness::new(config);
    h.run_until(Instant::from_secs_f64(60.0));
    let snapshot = h.sender().cc_snapshot();
    let rate = snapshot
        .rate_bps
        .expect("a rate controller reports its rate");
    assert!(
        rate > 0.0 && rate * 8.0 < 4.0e6,
        "rate {rate} bytes/s on a 2 Mbit/s path"
    );
    assert_eq!(
        snapshot.acker,
        Some(HarnessConfig::receiver_addr(1)),
        "the CLR is the slow receiver"
    );
}

/// Every controller's receiver reports reach the application with the rate the controller credits the reporter
/// with (pgmcc: the TCP equation at its loss and RTT; TFMCC: the rate it reports; aimd: its capacity), and the
/// slow receiver's, behind 2 Mbit/s, is the lower one and of the order of its path: what an operator needs to find
/// the receiver holding the session back.
#[test]
fn every_controller_reports_the_rate_it_credits_each_receiver_with() {
    let pgmcc = CcConfig::Pgmcc(PgmccConfig {
        report_events: true,
        ..PgmccConfig::default()
    });
    let tfmcc = CcConfig::Tfmcc(convoy_proto::cc::tfmcc::TfmccConfig::default());
    let aimd = CcConfig::Aimd(convoy_proto::cc::aimd::AimdConfig::default());
    for cc in [pgmcc, tfmcc, aimd] {
        let mut config = HarnessConfig::new(
            3,
            vec![
                PathConfig {
                    loss: 0.01,
                    ..PathConfig::default()
                },
                PathConfig {
                    rate_bps: Some(2_000_000),
                    queue_packets: 20,
                    ..PathConfig::default()
                },
            ],
            20_000,
        );
        config.sender.cc = cc.clone();
        for (r, _) in &mut config.receivers {
            r.cc = cc.clone();
        }
        let mut h = Harness::new(config);
        h.run_until(Instant::from_secs_f64(60.0));
        let last_rate = |who: IpAddr| {
            h.events().iter().rev().find_map(|e| match e.event {
                SenderEvent::Cc(CcEvent::Report {
                    receiver,
                    rate_bps: Some(r),
                    ..
                }) if receiver == who && e.t > Instant::from_secs_f64(30.0) => Some(r),
                _ => None,
            })
        };
        let slow = last_rate(HarnessConfig::receiver_addr(1))
            .unwrap_or_else(|| panic!("{}: no rate reported for the slow receiver", cc.name()));
        assert!(
            slow * 8.0 > 0.2e6 && slow * 8.0 < 8.0e6,
            "{}: the slow receiver credited with {slow} bytes/s behind 2 Mbit/s",
            cc.name()
        );
        if let Some(fast) = last_rate(HarnessConfig::receiver_addr(0)) {
            assert!(
                fast > slow,
                "{}: fast {fast} ≤ slow {slow} bytes/s",
                cc.name()
            );
        }
    }
}

/// A closing source lingers for late NAKs (the configured 3 s), unless the application says no receiver needs
/// a repair: then it ends right after its OPT_FIN SPM.
#[test]
fn rfc3208_6_3_a_source_lingers_for_repairs_unless_no_receiver_needs_one() {
    let closed_at = |told: bool| {
        let mut config = SenderConfig::new(src(), group());
        config.cc = CcConfig::Fixed(FixedConfig::default());
        let mut s = Sender::new(config, Instant::ZERO);
        s.write(b"abcdef").unwrap();
        let mut now = Instant::ZERO;
        drain(&mut s, now);
        s.close(now);
        if told {
            s.no_repairs_needed();
        }
        let mut fin_at = None;
        while now < Instant::from_secs_f64(10.0) {
            s.handle_timeout(now);
            for (_, b) in drain(&mut s, now) {
                let p = PacketRepr::parse(&b).unwrap();
                if p.options.fin && fin_at.is_none() {
                    fin_at = Some(now);
                }
            }
            if std::iter::from_fn(|| s.poll_event()).any(|e| e == SenderEvent::Closed) {
                return (fin_at.expect("an OPT_FIN SPM before the end"), now);
            }
            now += Duration::from_millis(10);
        }
        panic!("the source never closed");
    };
    let (fin, end) = closed_at(false);
    assert!(
        end - fin >= Duration::from_secs(3),
        "lingered: FIN at {fin:?}, closed at {end:?}"
    );
    let (fin, end) = closed_at(true);
    assert!(
        end - fin < Duration::from_millis(20),
        "no linger: FIN at {fin:?}, closed at {end:?}"
    );
}
