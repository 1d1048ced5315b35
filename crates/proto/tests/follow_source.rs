//! A receiver that runs the source's congestion control (`ReceiverConfig::follow_source`): the engine swaps its
//! controller half at the source's first ODATA, nothing reparsed, buffered or replayed.

use convoy_proto::cc::fixed::FixedConfig;
use convoy_proto::cc::pgmcc::PgmccConfig;
use convoy_proto::cc::CcConfig;
use convoy_proto::{InOrder, Instant, Receiver, ReceiverConfig, Sender, SenderConfig, Transmit};
use convoy_wire::{BodyRepr, DetachedRepr, PacketRepr, PacketType, ReceiverStatus};
use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;
use std::time::Duration;

fn src() -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1))
}

fn group() -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(239, 1, 1, 1))
}

fn sender(cc: CcConfig) -> Sender {
    let mut config = SenderConfig::new(src(), group());
    config.cc = cc;
    Sender::new(config, Instant::ZERO)
}

fn receiver(cc: CcConfig, follow: bool) -> Receiver {
    let mut config = ReceiverConfig::new(IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2)), group());
    config.cc = cc;
    config.follow_source = follow;
    Receiver::new(config, 1)
}

fn emitted(s: &mut Sender, now: Instant) -> Vec<Vec<u8>> {
    let mut buf = vec![0u8; 9000];
    std::iter::from_fn(|| {
        s.poll_transmit(now, &mut buf)
            .map(|t| buf[..t.len].to_vec())
    })
    .collect()
}

fn sent(r: &mut Receiver, now: Instant) -> Vec<(Transmit, Vec<u8>)> {
    let mut buf = vec![0u8; 9000];
    std::iter::from_fn(|| {
        r.poll_transmit(now, &mut buf)
            .map(|t| (t, buf[..t.len].to_vec()))
    })
    .collect()
}

fn is_odata(bytes: &[u8]) -> bool {
    matches!(
        PacketRepr::parse(bytes).unwrap().body,
        BodyRepr::Odata { .. }
    )
}

/// The source writes one APDU; the receiver hears all it emits and answers a second later. Returns the
/// receiver's ACKs and NAKs, and the controller it ran.
fn session(source: CcConfig, configured: CcConfig, follow: bool) -> (usize, &'static str) {
    let mut s = sender(source);
    let mut r = receiver(configured, follow);
    s.write(b"hello").unwrap();
    for p in emitted(&mut s, Instant::ZERO) {
        r.handle_datagram(Instant::ZERO, src(), &p);
    }
    let feedback = sent(&mut r, Instant::ZERO + Duration::from_secs(1))
        .iter()
        .filter(|(t, _)| matches!(t.packet_type, PacketType::Ack | PacketType::Nak))
        .count();
    (feedback, r.cc_name())
}

#[test]
fn a_fixed_receiver_follows_a_pgmcc_source_and_answers_its_election() {
    let pgmcc = CcConfig::default();
    let fixed = CcConfig::Fixed(FixedConfig::default());
    assert_eq!(session(pgmcc.clone(), fixed.clone(), false), (0, "fixed"));
    let (feedback, name) = session(pgmcc, fixed, true);
    assert_eq!(name, "pgmcc");
    assert!(feedback > 0, "the election is answered");
}

#[test]
fn a_pgmcc_receiver_follows_a_fixed_source() {
    let fixed = CcConfig::Fixed(FixedConfig::default());
    assert_eq!(session(fixed.clone(), CcConfig::default(), true).1, "fixed");
    assert_eq!(session(fixed.clone(), fixed, true).1, "fixed");
}

#[test]
fn a_matching_configuration_is_kept_and_a_followed_one_is_adapted_to_batched_reads() {
    let tuned = CcConfig::Pgmcc(PgmccConfig {
        early_loss: true,
        ..PgmccConfig::default()
    });
    let mut s = sender(CcConfig::default());
    s.write(b"x").unwrap();
    let packets = emitted(&mut s, Instant::ZERO);

    let mut kept = receiver(tuned.clone(), true);
    for p in &packets {
        kept.handle_datagram(Instant::ZERO, src(), p);
    }
    assert_eq!(
        kept.config().cc,
        tuned,
        "the configured pgmcc matches the source's"
    );

    let mut config = ReceiverConfig::new(IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2)), group());
    config.cc = CcConfig::Fixed(FixedConfig::default());
    config.follow_source = true;
    config.batched_reads = true;
    let mut followed = Receiver::new(config, 1);
    for p in &packets {
        followed.handle_datagram(Instant::ZERO, src(), p);
    }
    let mut expected = CcConfig::default();
    expected.for_batched_reads();
    assert_eq!(followed.config().cc, expected);
}

#[test]
fn what_came_before_the_first_odata_stays_a_status_report_included() {
    let mut s = sender(CcConfig::default());
    s.write(b"hello").unwrap();
    let packets = emitted(&mut s, Instant::ZERO);
    let first_odata = packets.iter().position(|p| is_odata(p)).unwrap();
    assert!(
        first_odata > 0,
        "the source announces itself with an SPM first"
    );
    let mut r = receiver(CcConfig::Fixed(FixedConfig::default()), true);
    for p in &packets[..first_odata] {
        r.handle_datagram(Instant::ZERO, src(), p);
    }
    assert!(r.tsi().is_some(), "joined at the SPM");
    r.send_status(ReceiverStatus {
        token: 7,
        state: 1,
        detail: 0,
    });
    for p in &packets[first_odata..] {
        r.handle_datagram(Instant::ZERO, src(), p);
    }
    assert_eq!(r.cc_name(), "pgmcc");
    let spms = packets
        .iter()
        .filter(|p| matches!(PacketRepr::parse(p).unwrap().body, BodyRepr::Spm { .. }))
        .count();
    assert_eq!(
        r.stats().spms,
        spms as u64,
        "each SPM counted once: nothing replayed"
    );
    let statuses = sent(&mut r, Instant::ZERO)
        .iter()
        .filter(|(t, _)| t.packet_type == PacketType::Spmr)
        .count();
    assert_eq!(statuses, 1, "the status report survives the swap");
}

#[test]
fn the_in_order_path_leaves_the_first_odata_to_the_decision() {
    let mut s = sender(CcConfig::default());
    s.write(b"hello").unwrap();
    let packets = emitted(&mut s, Instant::ZERO);
    let mut r = receiver(CcConfig::Fixed(FixedConfig::default()), true);
    for p in packets {
        let datagram: Arc<[u8]> = p.into();
        let parsed = DetachedRepr::parse_without_checksum(&datagram).unwrap();
        if r.take_in_order(Instant::ZERO, &parsed, &datagram) == InOrder::NotTaken {
            r.handle_parsed(Instant::ZERO, src(), &parsed, &datagram);
        }
    }
    assert_eq!(r.cc_name(), "pgmcc");
}
