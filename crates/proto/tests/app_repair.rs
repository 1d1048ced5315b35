//! Application-backed repairs (`Sender::set_repair_floor` / `SenderEvent::RepairRequested` /
//! `Sender::supply_repair`) and receiver status reports (`Receiver::send_status` /
//! `SenderEvent::ReceiverStatus`), driven packet by packet.

mod common;

use convoy_proto::cc::CcConfig;
use convoy_proto::sender::ParityConfig;
use convoy_proto::{
    Instant, Receiver, ReceiverConfig, ReceiverEvent, Sender, SenderConfig, SenderEvent,
};
use convoy_wire::{BodyRepr, PacketRepr, PacketType, ReceiverStatus};
use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

fn src() -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1))
}
fn group() -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(239, 1, 1, 1))
}
fn rcv() -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(10, 0, 1, 1))
}

/// APDU `i`: 3000 bytes (three packets of at most 1400), content derived from `i`.
fn apdu(i: u32) -> Vec<u8> {
    (0..3000u32)
        .map(|k| (k.wrapping_mul(31) ^ i.wrapping_mul(7)) as u8)
        .collect()
}

fn fixed_sender(txw_max_packets: usize) -> Sender {
    let mut config = SenderConfig::new(src(), group());
    config.cc = CcConfig::Fixed(Default::default());
    config.txw_max_packets = txw_max_packets;
    Sender::new(config, Instant::ZERO)
}

fn seq_ge(a: u32, b: u32) -> bool {
    convoy_proto::seq::ge(a, b)
}

/// What one run of [`twenty_apdus_with_late_feedback`] saw.
struct Run {
    delivered: Vec<convoy_proto::Payload>,
    requested: Vec<u32>,
    max_trail_seen: u32,
    floor: u32,
    sender: Sender,
}

/// A window of 4 packets, 20 APDUs of 3 packets each; the receiver misses the packets `dropped` picks (given
/// the APDUs' first sequence numbers) the first time round, and its NAKs arrive long after the window dropped
/// those packets; the application answers every request from the APDUs.
fn twenty_apdus_with_late_feedback(
    parity: Option<ParityConfig>,
    dropped: impl Fn(&[u32], u32) -> bool,
) -> Run {
    let mut s = {
        let mut config = SenderConfig::new(src(), group());
        config.cc = CcConfig::Fixed(Default::default());
        config.txw_max_packets = 4;
        config.parity = parity;
        Sender::new(config, Instant::ZERO)
    };
    let floor = s.next_write_sqn();
    s.set_repair_floor(Some(floor));
    let mut first_sqns = Vec::new();
    for i in 0..20u32 {
        first_sqns.push(s.next_write_sqn());
        s.write(&apdu(i)).unwrap();
    }
    assert_eq!(
        first_sqns[1],
        floor + 3,
        "a 3000-byte APDU takes 3 sequence numbers"
    );
    let mut config = ReceiverConfig::new(rcv(), group());
    config.cc = CcConfig::Fixed(Default::default());
    let mut r = Receiver::new(config, 9);
    let mut now = Instant::ZERO;
    let mut buf = vec![0u8; 2000];
    let (mut delivered, mut requested, mut max_trail_seen) = (Vec::new(), Vec::new(), 0);
    while now < Instant::from_secs_f64(20.0) && delivered.len() < 20 {
        while let Some(t) = s.poll_transmit(now, &mut buf) {
            let p = PacketRepr::parse(&buf[..t.len]).unwrap();
            match p.body {
                BodyRepr::Odata { sqn, trail } if dropped(&first_sqns, sqn) => {
                    max_trail_seen = max_trail_seen.max(trail);
                    continue;
                }
                BodyRepr::Odata { trail, .. }
                | BodyRepr::Rdata { trail, .. }
                | BodyRepr::Spm { trail, .. } => max_trail_seen = max_trail_seen.max(trail),
                _ => {}
            }
            r.handle_datagram(now, src(), &buf[..t.len]);
        }
        while let Some(t) = r.poll_transmit(now, &mut buf) {
            // Feedback is held up until the window is well past the dropped packets.
            if seq_ge(s.window_edges().1, first_sqns[10]) {
                s.handle_datagram(now, rcv(), &buf[..t.len]);
            }
        }
        while let Some(e) = s.poll_event() {
            if let SenderEvent::RepairRequested { sqn } = e {
                requested.push(sqn);
                let i = first_sqns.iter().rposition(|&f| f <= sqn).unwrap();
                assert!(s.supply_repair(sqn, first_sqns[i], &apdu(i as u32)));
            }
        }
        while let Some(e) = r.poll_event() {
            match e {
                ReceiverEvent::Data(d) => delivered.push(d),
                ReceiverEvent::Lost { .. } => panic!("nothing may be lost: {e:?}"),
                _ => {}
            }
        }
        now += Duration::from_millis(1);
        s.handle_timeout(now);
        r.handle_timeout(now);
    }
    requested.sort_unstable();
    Run {
        delivered,
        requested,
        max_trail_seen,
        floor,
        sender: s,
    }
}

#[test]
fn repairs_outside_the_window_come_from_the_application() {
    // The whole of APDU 2 is lost.
    let run = twenty_apdus_with_late_feedback(None, |f, sqn| (f[2]..f[3]).contains(&sqn));
    assert_eq!(run.delivered, (0..20).map(apdu).collect::<Vec<_>>());
    let apdu2: Vec<u32> = (run.floor + 6..run.floor + 9).collect();
    assert_eq!(run.requested, apdu2);
    assert_eq!(
        run.max_trail_seen, run.floor,
        "the floor is advertised as TXW_TRAIL"
    );
    assert_eq!(run.sender.stats().app_repairs_requested, 3);
    assert_eq!(run.sender.pending_app_repairs(), 0);
}

#[test]
fn rfc3208_11_4_parity_outside_the_window_is_coded_from_the_applications_packets() {
    // Groups of 4; one packet of the group from 4 is lost and its parity NAK comes when the window holds
    // sequence numbers 27–30 only: the source asks the application for the group's four packets and codes them.
    let run =
        twenty_apdus_with_late_feedback(Some(ParityConfig::on_demand(4)), |f, sqn| sqn == f[0] + 7);
    assert_eq!(run.floor, 0, "with parity the session starts at a group");
    assert_eq!(run.delivered, (0..20).map(apdu).collect::<Vec<_>>());
    assert_eq!(run.requested, vec![4, 5, 6, 7]);
    let stats = run.sender.stats();
    assert!(
        stats.parity_naks >= 1 && stats.parity_packets >= 1,
        "{stats:?}"
    );
    assert_eq!(stats.rdata_packets, 0, "no selective repair: {stats:?}");
    assert_eq!(run.sender.pending_app_repairs(), 0);
}

#[test]
fn naks_below_the_floor_or_without_a_floor_are_outside_the_window() {
    for floor in [None, Some(5)] {
        let mut s = fixed_sender(2);
        s.set_repair_floor(floor);
        for i in 0..10u32 {
            s.write(&i.to_be_bytes()).unwrap();
        }
        let mut buf = vec![0u8; 2000];
        let mut now = Instant::ZERO;
        while s.window_edges().1 != 9 {
            while s.poll_transmit(now, &mut buf).is_some() {}
            now += Duration::from_millis(100);
        }
        let tsi = s.tsi();
        let nak = |sqn| common::nak(tsi, src(), group(), sqn, Vec::new());
        s.handle_datagram(now, rcv(), &nak(3));
        s.handle_datagram(now, rcv(), &nak(6));
        let requested: Vec<_> = std::iter::from_fn(|| s.poll_event())
            .filter_map(|e| match e {
                SenderEvent::RepairRequested { sqn } => Some(sqn),
                _ => None,
            })
            .collect();
        match floor {
            None => {
                assert!(requested.is_empty());
                assert_eq!(s.stats().nak_outside_window, 2);
            }
            Some(_) => {
                assert_eq!(requested, vec![6]);
                assert_eq!(s.stats().nak_outside_window, 1);
                assert!(
                    !s.supply_repair(3, 3, &3u32.to_be_bytes()),
                    "never requested"
                );
                assert!(s.supply_repair(6, 6, &6u32.to_be_bytes()));
                let out =
                    std::iter::from_fn(|| s.poll_transmit(now, &mut buf).map(|t| t.packet_type))
                        .collect::<Vec<_>>();
                assert!(out.contains(&PacketType::Rdata), "{out:?}");
            }
        }
    }
}

#[test]
fn receiver_status_reports_reach_the_sender_as_events() {
    let mut s = fixed_sender(100);
    let mut config = ReceiverConfig::new(rcv(), group());
    config.cc = CcConfig::Fixed(Default::default());
    let mut r = Receiver::new(config, 1);
    let status = ReceiverStatus {
        token: 77,
        state: 1,
        detail: 0,
    };
    r.send_status(status);
    let mut buf = vec![0u8; 2000];
    let now = Instant::ZERO;
    assert!(
        r.poll_transmit(now, &mut buf).is_none(),
        "source unknown yet"
    );
    assert!(r.status_pending());
    while let Some(t) = s.poll_transmit(now, &mut buf) {
        r.handle_datagram(now, src(), &buf[..t.len]);
    }
    let t = r.poll_transmit(now, &mut buf).expect("the status report");
    assert_eq!(t.packet_type, PacketType::Spmr);
    assert_eq!(t.destination, convoy_proto::Destination::Unicast(src()));
    let spms_before = s.stats().spms;
    s.handle_datagram(now, rcv(), &buf[..t.len]);
    let events: Vec<_> = std::iter::from_fn(|| s.poll_event())
        .filter(|e| *e != SenderEvent::TokensAvailable)
        .collect();
    assert_eq!(
        events.first().cloned(),
        Some(SenderEvent::ReceiverStatus {
            from: rcv(),
            status,
            needs: Vec::new()
        })
    );
    // A status report does not ask for an SPM.
    let later = now + Duration::from_millis(100);
    while s.poll_transmit(later, &mut buf).is_some() {}
    assert_eq!(s.stats().spms, spms_before);
    assert_eq!(r.stats().statuses_sent, 1);
}
