//! Repairs under the controller or beside it ([`RepairPacing`]): with `RateLimit` (the pgmcc paper's §3.8) a burst
//! of NAKs is answered at once on top of the controlled rate, with `ControllerRate` on top of it but spread at
//! that rate; with `Controller` (Shi–Waldvogel §5.4) the repairs share the controller's rate with the original
//! data, taking at most three permits in four while data waits.

mod common;

use convoy_proto::cc::fixed::FixedConfig;
use convoy_proto::cc::CcConfig;
use convoy_proto::sender::REPAIRS_PER_ODATA;
use convoy_proto::{Instant, RepairPacing, Sender, SenderConfig};
use convoy_wire::PacketType;
use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

const SRC: IpAddr = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1));
const GROUP: IpAddr = IpAddr::V4(Ipv4Addr::new(239, 1, 1, 1));
const RECEIVER: IpAddr = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2));
/// The fixed controller's rate, bytes per second.
const RATE: u64 = 100_000;
const PAYLOAD: usize = 1000;

/// A NAK to `s` for `sqn` and the sequence numbers in `list` (OPT_NAK_LIST).
fn nak(s: &Sender, sqn: u32, list: Vec<u32>) -> Vec<u8> {
    common::nak(s.tsi(), SRC, GROUP, sqn, list)
}

/// Packets of each kind a fixed-rate source sends, in 10 ms steps, during the second after a NAK for 60 of the
/// first 62 packets, with plenty of original data still queued: (ODATA, RDATA, RDATA in the first 10 ms).
fn second_after_a_nak_burst(pacing: RepairPacing) -> (u64, u64, u64) {
    let mut config = SenderConfig::new(SRC, GROUP);
    config.cc = CcConfig::Fixed(FixedConfig {
        rate_bytes_per_s: RATE,
        ..FixedConfig::default()
    });
    config.repair_pacing = pacing;
    let mut s = Sender::new(config, Instant::ZERO);
    for i in 0..1000u32 {
        s.write(&[i as u8; PAYLOAD]).unwrap();
    }
    let mut buf = vec![0u8; 2000];
    let mut now = Instant::ZERO;
    while s.window_edges().1 < 70 || s.window_edges().1 == u32::MAX {
        while s.poll_transmit(now, &mut buf).is_some() {}
        now += Duration::from_millis(10);
    }
    // Two NAKs of the most sequence numbers one NAK carries.
    s.handle_datagram(now, RECEIVER, &nak(&s, 0, (1..63).collect()));
    let (mut odata, mut rdata, mut rdata_at_once) = (0, 0, 0);
    let end = now + Duration::from_secs(1);
    let first_step = now + Duration::from_millis(10);
    while now < end {
        s.handle_timeout(now);
        while let Some(t) = s.poll_transmit(now, &mut buf) {
            match t.packet_type {
                PacketType::Odata => odata += 1,
                PacketType::Rdata => {
                    rdata += 1;
                    if now < first_step {
                        rdata_at_once += 1;
                    }
                }
                _ => {}
            }
        }
        now += Duration::from_millis(10);
    }
    (odata, rdata, rdata_at_once)
}

/// Packets the fixed rate allows in one second, with the engine's per-packet estimate of the headers.
fn packets_per_second() -> u64 {
    RATE / (PAYLOAD as u64 + 64)
}

#[test]
fn paper_3_8_repairs_leave_at_once_beside_the_controlled_rate() {
    let (odata, rdata, at_once) = second_after_a_nak_burst(RepairPacing::RateLimit);
    assert_eq!(rdata, 63, "every repair asked for was sent");
    assert_eq!(at_once, 63, "all of them at once, beside the controller");
    let full = packets_per_second();
    assert!(
        odata + 2 >= full,
        "original data kept the whole rate: {odata} of {full}"
    );
}

#[test]
fn repairs_beside_the_controller_at_its_rate_spread_a_burst_on_top_of_the_data() {
    let (odata, rdata, at_once) = second_after_a_nak_burst(RepairPacing::ControllerRate);
    let full = packets_per_second();
    assert_eq!(
        rdata, 63,
        "every repair asked for was sent within the second"
    );
    // 63 repairs at the controller's rate take 63 / 94 s: a burst of two and one more per 10.6 ms.
    assert!(
        (2..=3).contains(&at_once),
        "repairs spread at the controller's rate: {at_once} in the first 10 ms"
    );
    assert!(
        odata + 2 >= full,
        "original data kept the whole rate: {odata} of {full}"
    );
}

#[test]
fn sw_5_4_repairs_charged_to_the_controller_share_its_rate_with_original_data() {
    let (odata, rdata, at_once) = second_after_a_nak_burst(RepairPacing::Controller);
    let full = packets_per_second();
    assert!(
        at_once <= 2,
        "repairs wait for the controller's permits: {at_once} in the first 10 ms"
    );
    assert!(
        odata + rdata <= full + 2,
        "together within the rate: {odata} + {rdata} > {full}"
    );
    let per = u64::from(REPAIRS_PER_ODATA);
    assert_eq!(
        rdata, 63,
        "every repair asked for was sent within the second"
    );
    assert!(
        odata + rdata + 2 >= full,
        "the controller's whole rate was used: {odata} + {rdata} of {full}"
    );
    // While repairs waited, data had one permit in four.
    assert!(
        odata >= 63 / per,
        "data kept a share while repairs waited: {odata} ODATA"
    );
}
