//! Parity repairs (RFC 3208 §11) in whole sessions over the in-memory harness: receivers losing different
//! packets, repaired by parity, byte-exact.

use convoy_proto::cc::fixed::FixedConfig;
use convoy_proto::cc::CcConfig;
use convoy_proto::harness::{Harness, HarnessConfig, PathConfig};
use convoy_proto::receiver::ParityStats;
use convoy_proto::sender::ParityConfig;
use convoy_proto::Instant;
use std::time::Duration;

fn path(loss: f64) -> PathConfig {
    PathConfig {
        delay: Duration::from_millis(20),
        loss,
        rate_bps: Some(20_000_000),
        queue_packets: 200,
        upstream_loss: 0.0,
    }
}

/// `receivers` receivers each losing `loss` of their packets independently, `apdus` APDUs of `apdu_size` bytes
/// at a fixed 5 Mbit/s, with `parity` at the source.
fn session(
    receivers: usize,
    loss: f64,
    apdus: u64,
    apdu_size: usize,
    parity: Option<ParityConfig>,
) -> Harness {
    let mut config = HarnessConfig::new(7, vec![path(loss); receivers], apdus);
    config.apdu_size = apdu_size;
    config.sender.cc = CcConfig::Fixed(FixedConfig {
        rate_bytes_per_s: 625_000,
        burst: Duration::from_millis(20),
    });
    config.sender.parity = parity;
    for (r, _) in &mut config.receivers {
        r.cc = config.sender.cc.clone();
    }
    let mut h = Harness::new(config);
    h.run_until(Instant::from_secs_f64(600.0));
    h
}

/// A parity counter summed over the first `receivers` receivers of `h`.
fn parity_sum(h: &Harness, receivers: usize, count: impl Fn(&ParityStats) -> u64) -> u64 {
    (0..receivers)
        .map(|i| count(h.receiver(i).parity_stats().unwrap()))
        .sum()
}

fn assert_byte_exact(h: &Harness, receivers: usize, apdus: u64) {
    for i in 0..receivers {
        let o = h.outcome(i);
        assert_eq!(
            (o.delivered, o.mismatch, o.lost_sqns),
            (apdus, None, 0),
            "receiver {i}: {o:?}"
        );
    }
    assert!(h.sender().is_closed());
}

#[test]
fn rfc3208_11_on_demand_parity_repairs_a_different_loss_at_every_receiver() {
    let (n, apdus) = (10, 2000);
    let selective = session(n, 0.02, apdus, 1400, None);
    let parity = session(n, 0.02, apdus, 1400, Some(ParityConfig::on_demand(16)));
    assert_byte_exact(&selective, n, apdus);
    assert_byte_exact(&parity, n, apdus);
    let (s, p) = (selective.sender().stats(), parity.sender().stats());
    let repairs = |st: &convoy_proto::sender::SenderStats| st.rdata_packets + st.parity_packets;
    // Ten receivers each losing 2% lose 1 − 0.98¹⁰ ≈ 18% of the packets somewhere, about 2.9 per group of 16,
    // each repaired selectively; a group needs only as many parity packets as its worst receiver lost, about
    // 1.2: under half as many repairs.
    assert!(
        repairs(p) * 2 < repairs(s),
        "parity {} (selective {}, parity {}) vs selective {}",
        repairs(p),
        p.rdata_packets,
        p.parity_packets,
        repairs(s)
    );
    assert!(p.parity_naks > 0);
    let restored = parity_sum(&parity, n, |s| s.restored);
    assert!(restored > 0, "receivers restored packets from parity");
}

#[test]
fn rfc3208_11_2_fragments_and_a_short_last_group_come_back_with_their_options() {
    // APDUs of 3 packets (OPT_FRAGMENT on each, coded into the parity), and 301 APDUs: 903 packets, the last
    // group 7 of 16 long (OPT_CURR_TGSIZE).
    let (n, apdus) = (5, 301);
    let h = session(n, 0.03, apdus, 4000, Some(ParityConfig::on_demand(16)));
    assert_byte_exact(&h, n, apdus);
    assert!(h.sender().stats().parity_packets > 0);
}

#[test]
fn rfc3208_11_4_proactive_parity_repairs_without_asking() {
    let (n, apdus) = (5, 1600);
    let config = ParityConfig {
        group_size: 16,
        proactive: 2,
        on_demand: true,
    };
    let h = session(n, 0.01, apdus, 1400, Some(config));
    assert_byte_exact(&h, n, apdus);
    let st = h.sender().stats();
    // Two per group of sixteen, sent whatever the losses; few receivers lose more than two of a group.
    assert!(st.parity_packets >= 2 * 100, "{st:?}");
    let naks = parity_sum(&h, n, |s| s.parity_naks);
    let restored = parity_sum(&h, n, |s| s.restored);
    assert!(
        naks * 4 < restored,
        "{naks} parity NAKs for {restored} packets restored"
    );
}

#[test]
fn rfc3208_11_5_receivers_losing_more_than_a_round_of_parity_ask_again_until_whole() {
    // A quarter of every path's packets lost, parity included: groups need several rounds, and a receiver may
    // lose more of a group than its first parity NAK asked for.
    let (n, apdus) = (4, 600);
    let h = session(n, 0.25, apdus, 1400, Some(ParityConfig::on_demand(16)));
    assert_byte_exact(&h, n, apdus);
    let naks = parity_sum(&h, n, |s| s.parity_naks);
    assert!(naks > 0);
}

#[test]
fn rfc3208_11_2_a_receiver_losing_half_of_all_sent_gets_fresh_parity_numbers_past_k() {
    // Half of every packet lost, data and parity alike: a group of 16 needs about 16 parity packets sent to
    // restore its 8 losses, and the rounds that follow ask for the few still missing. Numbers past k (with
    // OPT_PARITY_GRP) are ones no receiver holds; had they started again at 0, a receiver holding most of the
    // first k would be sent those it has.
    let (n, apdus) = (3, 800);
    let h = session(n, 0.5, apdus, 1400, Some(ParityConfig::on_demand(16)));
    assert_byte_exact(&h, n, apdus);
    let unused = parity_sum(&h, n, |s| s.parity_unused);
    let received = parity_sum(&h, n, |s| s.parity_received);
    assert!(
        unused * 4 < received,
        "{unused} of {received} parity packets of no use"
    );
}

/// A source announcing parity without naming Convoy's code (OpenPGM's parity is GF(2^8) Reed–Solomon, another
/// code): its parity packets are not decoded with the wrong code, and losses are NAKed selectively.
#[test]
fn parity_of_another_code_is_ignored_not_decoded() {
    use convoy_proto::{Receiver, ReceiverConfig};
    use convoy_wire::{BodyRepr, PacketRepr, ParityOptions, ParityParams};
    use std::net::{IpAddr, Ipv4Addr};
    let src = by_hand::SRC;
    let group = IpAddr::V4(Ipv4Addr::new(239, 1, 1, 1));
    let mut r = Receiver::new(
        ReceiverConfig::new(IpAddr::V4(Ipv4Addr::new(10, 0, 1, 1)), group),
        1,
    );
    let packet = by_hand::packet;
    let params = ParityParams {
        proactive: true,
        on_demand: true,
        tg_size: 4,
    };
    let spm = BodyRepr::Spm {
        sqn: 0,
        trail: 0,
        lead: 0,
        path_nla: src,
    };
    let announce = ParityOptions {
        params: Some(params),
        ..ParityOptions::default()
    };
    let t = Instant::ZERO;
    r.handle_datagram(t, src, &packet(spm, announce, b""));
    for sqn in [0u32, 1, 3] {
        let odata = BodyRepr::Odata { sqn, trail: 0 };
        r.handle_datagram(t, src, &packet(odata, ParityOptions::default(), b"data"));
    }
    let parity = ParityOptions {
        parity: true,
        ..ParityOptions::default()
    };
    r.handle_datagram(
        t,
        src,
        &packet(BodyRepr::Odata { sqn: 0, trail: 0 }, parity, b"pppp"),
    );
    assert!(
        r.parity_stats().is_none(),
        "no parity without Convoy's code"
    );
    assert_eq!(r.stats().odata, 3, "the parity packet is not data");
    // Packet 2 is NAKed selectively.
    let mut buf = vec![0u8; 1500];
    let later = t + Duration::from_secs(1);
    r.handle_timeout(later);
    let nak = std::iter::from_fn(|| {
        r.poll_transmit(later, &mut buf)
            .map(|x| buf[..x.len].to_vec())
    })
    .map(|b| {
        PacketRepr::parse(&b)
            .map(|p| (p.body, p.options.parity.parity))
            .unwrap()
    })
    .find(|(b, _)| matches!(b, BodyRepr::Nak { .. }));
    assert!(
        matches!(nak, Some((BodyRepr::Nak { sqn: 2, .. }, false))),
        "{nak:?}"
    );
}

/// A hand-driven receiver of a parity session (groups of 4, Convoy's code) from source 10.0.0.1.
mod by_hand {
    use convoy_proto::{Instant, Receiver, ReceiverConfig};
    use convoy_wire::{
        BodyRepr, Gsi, OptionsRepr, PacketRepr, ParityOptions, ParityParams, PARITY_CODE_RS16,
    };
    use std::net::{IpAddr, Ipv4Addr};

    pub const SRC: IpAddr = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1));

    pub fn packet(body: BodyRepr, parity: ParityOptions, payload: &[u8]) -> Vec<u8> {
        let repr = PacketRepr {
            source_port: 1000,
            dest_port: 7500,
            gsi: Gsi([1; 6]),
            body,
            options: OptionsRepr {
                parity,
                ..OptionsRepr::default()
            },
            payload,
        };
        let mut b = vec![0u8; repr.buffer_len()];
        repr.emit(&mut b).unwrap();
        b
    }

    /// A receiver that heard the source's SPM announcing on-demand parity over groups of 4.
    pub fn receiver() -> Receiver {
        let group = IpAddr::V4(Ipv4Addr::new(239, 1, 1, 1));
        let mut r = Receiver::new(
            ReceiverConfig::new(IpAddr::V4(Ipv4Addr::new(10, 0, 1, 1)), group),
            1,
        );
        let announce = ParityOptions {
            params: Some(ParityParams {
                proactive: false,
                on_demand: true,
                tg_size: 4,
            }),
            code: Some(PARITY_CODE_RS16),
            ..ParityOptions::default()
        };
        let spm = BodyRepr::Spm {
            sqn: 0,
            trail: 0,
            lead: u32::MAX,
            path_nla: SRC,
        };
        r.handle_datagram(Instant::ZERO, SRC, &packet(spm, announce, b""));
        r
    }

    /// The parity NAKs `r` sends at `now`, as their NAK_SQN.
    pub fn parity_naks(r: &mut Receiver, now: Instant) -> Vec<u32> {
        r.handle_timeout(now);
        let mut buf = vec![0u8; 1500];
        std::iter::from_fn(|| {
            r.poll_transmit(now, &mut buf)
                .map(|t| buf[..t.len].to_vec())
        })
        .filter_map(|b| match PacketRepr::parse(&b).unwrap() {
            PacketRepr {
                body: BodyRepr::Nak { sqn, .. },
                options,
                ..
            } if options.parity.parity => Some(sqn),
            _ => None,
        })
        .collect()
    }
}

/// RFC 3208 §11.5: a group's losses are NAKed once the group is whole, with one parity NAK for all of them; an
/// NCF for the group whose count covers the receiver's need, heard while it waits, suppresses its NAK.
#[test]
fn rfc3208_11_5_a_whole_groups_parity_nak_waits_its_back_off_and_an_ncf_suppresses_it() {
    use by_hand::*;
    use convoy_wire::{BodyRepr, ParityOptions};
    let run = |ncf_count: Option<u32>| {
        let mut r = receiver();
        let t = Instant::ZERO;
        // Group 0–3 loses 1 and 2; the first packet of the next group makes it whole.
        for sqn in [0u32, 3, 4] {
            let odata = BodyRepr::Odata { sqn, trail: 0 };
            r.handle_datagram(t, SRC, &packet(odata, ParityOptions::default(), b"data"));
        }
        if let Some(c) = ncf_count {
            let ncf = BodyRepr::Ncf {
                sqn: c - 1,
                source_nla: SRC,
                group_nla: SRC,
            };
            let parity = ParityOptions {
                parity: true,
                ..ParityOptions::default()
            };
            r.handle_datagram(t + Duration::from_millis(1), SRC, &packet(ncf, parity, b""));
        }
        let mut naks = Vec::new();
        for ms in (0..=200).step_by(5) {
            naks.extend(parity_naks(&mut r, t + Duration::from_millis(ms)));
        }
        naks
    };
    // Two missing: one parity NAK, NAK_SQN = TG_SQN 0 + NAK_PKT_CNT 1 (two asked).
    assert_eq!(run(None), vec![1]);
    assert_eq!(run(Some(2)), Vec::<u32>::new(), "an NCF for two covers it");
    assert_eq!(run(Some(1)), vec![1], "an NCF for one does not");
}

/// RFC 3208 §11.5: "In the absence of data (detected from SPMs bearing SPM_LEAD equal to RXW_LEAD) on
/// non-transmission-group boundaries, receivers MAY resort to selective NAKs" — but a heartbeat SPM after a
/// pause shorter than the receiver's out-of-data wait (NAK_BO_IVL, 50 ms, before a NAK-to-NCF delay is known) is a
/// source waiting for its controller: the loss waits for the group's end and goes in a parity NAK. A source silent
/// for longer is out of data: the loss goes in a selective NAK.
#[test]
fn rfc3208_11_5_selective_naks_in_a_partial_group_only_once_the_source_stays_silent() {
    use by_hand::*;
    use convoy_wire::{BodyRepr, PacketRepr, ParityOptions};
    // Every NAK `r` sends up to `until` ms, polled each ms: (NAK_SQN, parity?).
    let naks = |r: &mut convoy_proto::Receiver, from: u64, until: u64| {
        let mut out = Vec::new();
        let mut buf = vec![0u8; 1500];
        for ms in from..=until {
            let now = Instant::from_secs_f64(ms as f64 / 1000.0);
            r.handle_timeout(now);
            while let Some(t) = r.poll_transmit(now, &mut buf) {
                if let Ok(PacketRepr {
                    body: BodyRepr::Nak { sqn, .. },
                    options,
                    ..
                }) = PacketRepr::parse(&buf[..t.len])
                {
                    out.push((sqn, options.parity.parity));
                }
            }
        }
        out
    };
    let odata = |r: &mut convoy_proto::Receiver, ms: u64, sqn: u32| {
        let at = Instant::from_secs_f64(ms as f64 / 1000.0);
        let body = BodyRepr::Odata { sqn, trail: 0 };
        r.handle_datagram(at, SRC, &packet(body, ParityOptions::default(), b"data"));
    };
    let heartbeat = |r: &mut convoy_proto::Receiver, ms: u64, lead: u32| {
        let at = Instant::from_secs_f64(ms as f64 / 1000.0);
        let spm = BodyRepr::Spm {
            sqn: 1,
            trail: 0,
            lead,
            path_nla: SRC,
        };
        r.handle_datagram(at, SRC, &packet(spm, ParityOptions::default(), b""));
    };
    // Group 0–3 loses 1; a heartbeat says lead 2 at 5 ms; the source resumes at 45 ms.
    let mut r = receiver();
    odata(&mut r, 0, 0);
    odata(&mut r, 0, 2);
    heartbeat(&mut r, 5, 2);
    let mut sent = naks(&mut r, 1, 44);
    odata(&mut r, 45, 3);
    sent.extend(naks(&mut r, 45, 400));
    assert_eq!(
        sent,
        vec![(0, true)],
        "one parity NAK for one packet of group 0"
    );
    // The same loss, and the source stays silent: a selective NAK for 1, not before the wait.
    let mut r = receiver();
    odata(&mut r, 0, 0);
    odata(&mut r, 0, 2);
    heartbeat(&mut r, 5, 2);
    assert_eq!(
        naks(&mut r, 1, 54),
        vec![],
        "silent for less than NAK_BO_IVL"
    );
    assert_eq!(naks(&mut r, 55, 400), vec![(1, false)]);
}
