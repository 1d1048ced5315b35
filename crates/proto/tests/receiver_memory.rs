//! A receiver that falls far behind: every delivery reaches the application, and its memory stays bounded by
//! `RxwConfig::max_buffered_bytes`, the shortage reported to congestion control instead (rxw module `budget`).

use convoy_proto::cc::fixed::FixedConfig;
use convoy_proto::cc::pgmcc::PgmccConfig;
use convoy_proto::cc::CcConfig;
use convoy_proto::{
    Instant, LateJoin, Receiver, ReceiverConfig, ReceiverEvent, Sender, SenderConfig,
};
use convoy_wire::{BodyRepr, PacketRepr, PacketType};
use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

const SRC: IpAddr = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1));
const GROUP: IpAddr = IpAddr::V4(Ipv4Addr::new(239, 1, 1, 1));
const RCV: IpAddr = IpAddr::V4(Ipv4Addr::new(10, 0, 1, 2));

/// The datagrams of a fixed-rate session carrying `count` APDUs of `len` bytes (APDU i starts with i), SPMs
/// first.
fn session_datagrams(count: u32, len: usize, cc: CcConfig) -> Vec<Vec<u8>> {
    let mut config = SenderConfig::new(SRC, GROUP);
    config.cc = cc;
    config.txw_max_packets = count as usize + 8;
    let mut s = Sender::new(config, Instant::ZERO);
    let mut out = Vec::new();
    let mut buf = vec![0u8; 2048];
    let mut now = Instant::ZERO;
    for i in 0..count {
        let mut apdu = vec![0u8; len];
        apdu[..4].copy_from_slice(&i.to_be_bytes());
        s.write(&apdu).unwrap();
        now += Duration::from_millis(1);
        while let Some(t) = s.poll_transmit(now, &mut buf) {
            out.push(buf[..t.len].to_vec());
        }
    }
    out
}

fn fast() -> CcConfig {
    CcConfig::Fixed(FixedConfig {
        rate_bytes_per_s: 1 << 40,
        burst: Duration::from_secs(1),
    })
}

fn receiver(max_buffered_bytes: u64, cc: CcConfig) -> Receiver {
    let mut config = ReceiverConfig::new(RCV, GROUP);
    config.late_join = LateJoin::FromTrail;
    config.rxw.max_packets = 1 << 20;
    config.rxw.max_buffered_bytes = max_buffered_bytes;
    config.cc = cc;
    Receiver::new(config, 7)
}

fn is_odata(d: &[u8], sqn: u32) -> bool {
    matches!(PacketRepr::parse(d).unwrap().body, BodyRepr::Odata { sqn: s, .. } if s == sqn)
}

/// The first word of every delivered APDU, in order.
fn delivered(r: &mut Receiver) -> Vec<u32> {
    std::iter::from_fn(|| r.poll_event())
        .filter_map(|e| match e {
            ReceiverEvent::Data(d) => Some(u32::from_be_bytes(d[..4].try_into().unwrap())),
            ReceiverEvent::Lost { .. } => panic!("nothing may be lost"),
            _ => None,
        })
        .collect()
}

#[test]
fn rfc3208_6_1_every_apdu_released_by_one_repair_is_delivered() {
    // 70,000 APDUs wait behind the first, then its repair releases them at once: more than any event queue
    // holds, and every one must reach the application, in order.
    let count = 70_000;
    let datagrams = session_datagrams(count, 8, fast());
    let mut r = receiver(0, fast());
    let now = Instant::from_millis(1);
    let first = datagrams.iter().position(|d| is_odata(d, 0)).unwrap();
    for (i, d) in datagrams.iter().enumerate() {
        if i != first {
            r.handle_datagram(now, SRC, d);
        }
    }
    assert!(
        delivered(&mut r).is_empty(),
        "nothing before the hole fills"
    );
    r.handle_datagram(now, SRC, &datagrams[first]);
    assert_eq!(delivered(&mut r), (0..count).collect::<Vec<_>>());
}

#[test]
fn budget_a_receiver_short_of_room_holds_at_most_its_bound_and_says_so() {
    let (count, len) = (2_000u32, 1_000usize);
    let bound = 200 * len as u64;
    let datagrams = session_datagrams(count, len, fast());
    let mut r = receiver(bound, fast());
    let now = Instant::from_millis(1);
    let first = datagrams.iter().position(|d| is_odata(d, 0)).unwrap();
    for (i, d) in datagrams.iter().enumerate() {
        if i != first {
            r.handle_datagram(now, SRC, d);
        }
    }
    let w = r.rxw_stats().unwrap().clone();
    assert!(
        w.peak_held_bytes <= bound,
        "{} > {bound}",
        w.peak_held_bytes
    );
    // The window reaches 200 packets from the delivery point (0): 1..=199 are stored, one in four of 100..=199
    // reported lost to congestion control (25 marks), 200 and later are refused (and reported).
    assert_eq!(w.overflow_refused, u64::from(count) - 200);
    assert_eq!(r.stats().congested, 25 + u64::from(count) - 200);
    // The delivery point is always admitted; the refused packets come back as repairs, in order.
    r.handle_datagram(now, SRC, &datagrams[first]);
    let mut got = delivered(&mut r);
    for d in &datagrams {
        r.handle_datagram(now, SRC, d);
        got.extend(delivered(&mut r));
    }
    assert_eq!(got, (0..count).collect::<Vec<_>>());
    // The front packet came in on top of a full buffer: the bound holds to within one APDU.
    let peak = r.rxw_stats().unwrap().peak_held_bytes;
    assert!(peak <= bound + len as u64, "{peak} > {bound} + {len}");
}

#[test]
fn budget_a_congested_pgmcc_receiver_that_is_not_acker_reports_on_a_report_only_nak() {
    let (count, len) = (400u32, 1_000usize);
    let pgmcc = CcConfig::Pgmcc(PgmccConfig::default());
    let datagrams = session_datagrams(count, len, fast());
    // The datagrams carry no OPT_PGMCC_DATA (a fixed source): this receiver is not the acker.
    let mut r = receiver(100 * len as u64, pgmcc);
    let now = Instant::from_millis(1);
    let first = datagrams.iter().position(|d| is_odata(d, 0)).unwrap();
    let mut buf = vec![0u8; 2048];
    let mut reports = 0;
    for (i, d) in datagrams.iter().enumerate() {
        if i != first {
            r.handle_datagram(now, SRC, d);
        }
        while let Some(t) = r.poll_transmit(now, &mut buf) {
            let p = PacketRepr::parse(&buf[..t.len]).unwrap();
            if t.packet_type == PacketType::Nak && p.options.cc.pgmcc.election {
                assert!(p.options.cc.pgmcc.feedback.unwrap().loss_rate > 0);
                reports += 1;
            }
        }
    }
    // All at one instant: one report per congestion_report_ivl.
    assert_eq!(reports, 1);
    assert!(r.stats().congested > 0);
}

#[test]
fn budget_a_receiver_waiting_in_the_older_half_of_a_moving_window_reports_congestion() {
    // A stream: the source keeps 100 packets, so its trail moves. The receiver misses packet 200 and waits
    // for it while later data arrives; once packet 200 sits in the older half of the source's window, the
    // source is about to drop it, and the receiver says so to congestion control.
    let mut config = SenderConfig::new(SRC, GROUP);
    config.cc = fast();
    config.txw_max_packets = 100;
    let mut s = Sender::new(config, Instant::ZERO);
    let mut r = receiver(0, fast());
    let mut buf = vec![0u8; 2048];
    let mut now = Instant::ZERO;
    let mut congested_at = None;
    for i in 0..290u32 {
        s.write(&i.to_be_bytes()).unwrap();
        now += Duration::from_millis(1);
        while let Some(t) = s.poll_transmit(now, &mut buf) {
            if !is_odata(&buf[..t.len], 200) {
                r.handle_datagram(now, SRC, &buf[..t.len]);
            }
        }
        if congested_at.is_none() && r.stats().congested > 0 {
            congested_at = Some(i);
        }
    }
    // Packet k carries trail k − 99: packet 200 is in the older half from about k = 250 on.
    let at = congested_at.expect("congestion reported");
    assert!((245..=255).contains(&at), "first congestion mark at {at}");
    assert!(r.rxw_stats().unwrap().sqns_lost == 0);
}

/// An SPM of the session in `datagrams` announcing `lead`.
fn spm_with_lead(datagrams: &[Vec<u8>], lead: u32) -> Vec<u8> {
    let first = datagrams
        .iter()
        .find(|d| matches!(PacketRepr::parse(d).unwrap().body, BodyRepr::Spm { .. }))
        .unwrap();
    let mut repr = PacketRepr::parse(first).unwrap();
    repr.body = BodyRepr::Spm {
        sqn: 1_000,
        trail: 0,
        lead,
        path_nla: SRC,
    };
    let mut buf = vec![0u8; repr.buffer_len()];
    repr.emit(&mut buf).unwrap();
    buf
}

#[test]
fn budget_a_receiver_at_its_bound_asks_only_for_what_it_can_store() {
    let (count, len) = (2_000u32, 1_000usize);
    let datagrams = session_datagrams(count, len, fast());
    let mut r = receiver(200 * len as u64, fast());
    let now = Instant::from_millis(1);
    // Packets 0 and 5 lost; the rest fills the buffer, and an SPM makes everything up to the lead known.
    for d in &datagrams {
        if !is_odata(d, 0) && !is_odata(d, 5) {
            r.handle_datagram(now, SRC, d);
        }
    }
    r.handle_datagram(now, SRC, &spm_with_lead(&datagrams, count - 1));
    let mut buf = vec![0u8; 2048];
    let mut asked = Vec::new();
    for step in 1..=100u64 {
        let t = now + Duration::from_millis(10 * step);
        r.handle_timeout(t);
        while let Some(tx) = r.poll_transmit(t, &mut buf) {
            let p = PacketRepr::parse(&buf[..tx.len]).unwrap();
            if let BodyRepr::Nak { sqn, .. } = p.body {
                asked.push(sqn);
                asked.extend(&p.options.nak_list);
            }
        }
    }
    // Only packets within the window's reach are asked for: 200 and later would be refused on arrival.
    assert_eq!(asked, vec![0, 5]);
    // Its repair is admitted and lets the window drain; then the rest can be asked for.
    let first = datagrams.iter().find(|d| is_odata(d, 0)).unwrap();
    r.handle_datagram(now + Duration::from_secs(1), SRC, first);
    let got = delivered(&mut r);
    assert_eq!(got, (0..5).collect::<Vec<_>>());
    // Memory never went past the bound: everything stored lay within the reach.
    assert!(r.rxw_stats().unwrap().peak_held_bytes <= 200 * len as u64);
}
