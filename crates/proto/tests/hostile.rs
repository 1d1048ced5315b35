//! Hostile or numerous receivers at the session level: a NAK flood cannot push repairs above the configured
//! repair rate, and a thousand receivers NAKing the same packet get one NCF and one repair (RFC 3208 §7.4's
//! NAK elimination, done by the source).

mod common;

use convoy_proto::cc::CcConfig;
use convoy_proto::sender::ParityConfig;
use convoy_proto::{Instant, Sender, SenderConfig};
use convoy_wire::PacketType;
use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

const SRC: IpAddr = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1));
const GROUP: IpAddr = IpAddr::V4(Ipv4Addr::new(239, 1, 1, 1));

/// A fixed-rate source (`SRC` to `GROUP`, further configured by `configure`) that has sent `n` packets of
/// `len` bytes; returns it with the time it finished.
fn sender_that_sent(
    n: u32,
    len: usize,
    configure: impl FnOnce(&mut SenderConfig),
) -> (Sender, Instant) {
    let mut config = SenderConfig::new(SRC, GROUP);
    config.cc = CcConfig::Fixed(Default::default());
    configure(&mut config);
    let mut s = Sender::new(config, Instant::ZERO);
    let mut now = Instant::ZERO;
    let mut buf = vec![0u8; 2000];
    for i in 0..n {
        s.write(&vec![i as u8; len]).unwrap();
    }
    while s.window_edges().1 != n - 1 {
        while s.poll_transmit(now, &mut buf).is_some() {}
        now += Duration::from_millis(10);
    }
    (s, now)
}

/// A NAK to `s` for `sqn` and the sequence numbers in `list` (OPT_NAK_LIST).
fn nak(s: &Sender, sqn: u32, list: Vec<u32>) -> Vec<u8> {
    common::nak(s.tsi(), SRC, GROUP, sqn, list)
}

/// A parity NAK (RFC 3208 §11.3.1) to `s` for the group from `tg`, asking for `count` parity packets.
fn parity_nak(s: &Sender, tg: u32, count: u32) -> Vec<u8> {
    let mut b = common::nak(s.tsi(), SRC, GROUP, tg + count - 1, Vec::new());
    b[5] |= 0x80;
    convoy_wire::checksum::fill(&mut b);
    b
}

/// The repair rate of the flood tests, bytes per second.
const REPAIR_RATE: u64 = 100_000;

/// Ten seconds of an attacker's NAKs: every 10 ms, `naks(&s, k)` for k in 0..`per_tick`. Checks that RDATA
/// flowed at about the repair rate and never above it; returns the source.
fn flood(
    mut s: Sender,
    mut now: Instant,
    per_tick: u32,
    naks: impl Fn(&Sender, u32) -> Vec<u8>,
) -> Sender {
    let mut buf = vec![0u8; 2000];
    let attacker = IpAddr::V4(Ipv4Addr::new(10, 9, 9, 9));
    let start = now;
    let mut rdata_bytes = 0u64;
    while now < start + Duration::from_secs(10) {
        for k in 0..per_tick {
            s.handle_datagram(now, attacker, &naks(&s, k));
        }
        while let Some(t) = s.poll_transmit(now, &mut buf) {
            if t.packet_type == PacketType::Rdata {
                rdata_bytes += t.len as u64;
            }
        }
        now += Duration::from_millis(10);
        s.handle_timeout(now);
    }
    let cap = REPAIR_RATE * 10 + REPAIR_RATE / 50 + 4 * 1500;
    assert!(
        rdata_bytes > REPAIR_RATE * 8,
        "repairs flowed: {rdata_bytes}"
    );
    assert!(
        rdata_bytes <= cap,
        "repairs {rdata_bytes} B exceed the cap {cap} B"
    );
    s
}

#[test]
fn a_flood_of_parity_naks_asking_for_every_parity_packet_is_capped_by_the_repair_rate() {
    let (s, now) = sender_that_sent(256, 1400, |c| {
        c.repair_rate_max = Some(REPAIR_RATE);
        c.parity = Some(ParityConfig::on_demand(16));
    });
    // 1600 NAKs per second, each asking for all sixteen parity packets of one of the sixteen groups: 2.2 MB/s of
    // parity asked for.
    let s = flood(s, now, 16, |s, g| parity_nak(s, g * 16, 16));
    assert_eq!(s.stats().rdata_packets, 0, "no selective repairs");
    assert!(s.stats().parity_packets > 0);
    assert!(s.stats().parity_naks >= 16_000);
}

#[test]
fn a_nak_flood_is_capped_by_the_repair_rate() {
    let (s, now) = sender_that_sent(200, 1400, |c| c.repair_rate_max = Some(REPAIR_RATE));
    // 1000 NAKs per second, each asking for 63 sequence numbers.
    let s = flood(s, now, 10, |s, k| {
        let first = (k * 63) % 137;
        nak(s, first, (first + 1..first + 63).collect())
    });
    assert!(s.stats().naks >= 10_000);
}

#[test]
fn rfc3208_7_4_a_thousand_naks_for_one_packet_get_one_ncf_and_one_repair_per_interval() {
    let (mut s, now) = sender_that_sent(20, 1000, |c| {
        assert_eq!(
            c.nak_elim_ivl,
            Duration::from_millis(250),
            "one repair per loss by default"
        );
    });
    let mut buf = vec![0u8; 2000];
    let count = |s: &mut Sender, now: Instant, buf: &mut [u8]| {
        let (mut ncf, mut rdata) = (0, 0);
        while let Some(t) = s.poll_transmit(now, buf) {
            match t.packet_type {
                PacketType::Ncf => ncf += 1,
                PacketType::Rdata => rdata += 1,
                _ => {}
            }
        }
        (ncf, rdata)
    };
    // A thousand receivers lost packet 5; their NAKs arrive over 100 ms, before and after the repair left.
    let start = now;
    let (mut ncfs, mut repairs) = (0, 0);
    for r in 0..1000u32 {
        let t = start + Duration::from_micros(u64::from(r) * 100);
        let from = IpAddr::V4(Ipv4Addr::new(10, 1, (r / 250) as u8, (r % 250) as u8 + 1));
        s.handle_datagram(t, from, &nak(&s, 5, Vec::new()));
        let (n, d) = count(&mut s, t, &mut buf);
        ncfs += n;
        repairs += d;
    }
    assert_eq!(
        (ncfs, repairs),
        (1, 1),
        "one NCF and one RDATA for 1000 NAKs"
    );
    assert_eq!(s.stats().nak_sqns_eliminated, 999);
    // A receiver whose repair got lost NAKs again after its NAK_RDATA_IVL: answered.
    let later = start + Duration::from_secs(2);
    s.handle_datagram(
        later,
        IpAddr::V4(Ipv4Addr::new(10, 1, 0, 1)),
        &nak(&s, 5, Vec::new()),
    );
    assert_eq!(count(&mut s, later, &mut buf), (1, 1));
}
