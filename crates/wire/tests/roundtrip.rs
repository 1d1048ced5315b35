//! Property tests: `parse(emit(x)) == x` for arbitrary reprs of every packet type, with
//! arbitrary options and IPv4/IPv6 NLAs; emit rejects exactly what it cannot encode.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use convoy_wire::{
    AuthOption, BlockRange, BodyRepr, CcOptions, DetachedRepr, EmitErrorKind, FragmentOption, Gsi,
    LeaveOption, OptionsRepr, Packet, PacketRepr, ParityOptions, ParityParams, PgmOption,
    PgmccData, PgmccFeedback, PgmccOptions, ReceiverStatus, MAX_NAK_LIST, MAX_NEEDS, MAX_OPTIONS,
};
use proptest::collection::vec;
use proptest::option::of;
use proptest::prelude::*;

fn ip() -> impl Strategy<Value = IpAddr> + Clone {
    prop_oneof![
        any::<[u8; 4]>().prop_map(|a| IpAddr::V4(Ipv4Addr::from(a))),
        any::<[u8; 16]>().prop_map(|a| IpAddr::V6(Ipv6Addr::from(a))),
        Just(IpAddr::V4(Ipv4Addr::UNSPECIFIED)),
        Just(IpAddr::V6(Ipv6Addr::UNSPECIFIED)),
    ]
}

fn body() -> impl Strategy<Value = BodyRepr> {
    let nak = || (any::<u32>(), ip(), ip());
    prop_oneof![
        (any::<u32>(), any::<u32>(), any::<u32>(), ip()).prop_map(
            |(sqn, trail, lead, path_nla)| {
                BodyRepr::Spm {
                    sqn,
                    trail,
                    lead,
                    path_nla,
                }
            }
        ),
        (
            any::<u32>(),
            any::<u16>(),
            any::<u16>(),
            ip(),
            any::<u32>(),
            any::<u32>(),
            any::<u32>()
        )
            .prop_map(|(sqn, round, s_type, path_nla, backoff_ivl, rand, mask)| {
                BodyRepr::Poll {
                    sqn,
                    round,
                    s_type,
                    path_nla,
                    backoff_ivl,
                    rand,
                    mask,
                }
            }),
        (any::<u32>(), any::<u16>()).prop_map(|(sqn, round)| BodyRepr::Polr { sqn, round }),
        (any::<u32>(), any::<u32>()).prop_map(|(sqn, trail)| BodyRepr::Odata { sqn, trail }),
        (any::<u32>(), any::<u32>()).prop_map(|(sqn, trail)| BodyRepr::Rdata { sqn, trail }),
        nak().prop_map(|(sqn, source_nla, group_nla)| BodyRepr::Nak {
            sqn,
            source_nla,
            group_nla
        }),
        nak().prop_map(|(sqn, source_nla, group_nla)| BodyRepr::Nnak {
            sqn,
            source_nla,
            group_nla
        }),
        nak().prop_map(|(sqn, source_nla, group_nla)| BodyRepr::Ncf {
            sqn,
            source_nla,
            group_nla
        }),
        Just(BodyRepr::Spmr),
        (any::<u32>(), any::<u32>()).prop_map(|(rx_max, bitmap)| BodyRepr::Ack { rx_max, bitmap }),
    ]
}

fn options(max_nak: usize) -> impl Strategy<Value = OptionsRepr> {
    let fragment = of((any::<u32>(), any::<u32>(), any::<u32>()).prop_map(
        |(first_sqn, offset, apdu_len)| FragmentOption {
            first_sqn,
            offset,
            apdu_len,
        },
    ));
    let data = of((any::<u32>(), ip()).prop_map(|(tstamp, acker)| PgmccData { tstamp, acker }));
    let feedback = of((any::<u32>(), any::<u16>(), ip()).prop_map(
        |(tstamp, loss_rate, reporter)| PgmccFeedback {
            tstamp,
            loss_rate,
            reporter,
        },
    ));
    let status = of((any::<u32>(), any::<u32>(), any::<u32>()).prop_map(
        |(token, state, detail)| ReceiverStatus {
            token,
            state,
            detail,
        },
    ));
    let needs = vec(
        (any::<u32>(), any::<u32>()).prop_map(|(first, count)| BlockRange { first, count }),
        0..=MAX_NEEDS,
    );
    let auth = of((
        any::<bool>(),
        0u8..16,
        any::<[u8; 16]>(),
        any::<u64>(),
        any::<[u8; 16]>(),
    )
        .prop_map(|(encrypted, suite, sender, counter, tag)| AuthOption {
            encrypted,
            suite,
            sender,
            counter,
            tag,
        }));
    let leave = of((any::<u32>(), any::<u32>(), ip()).prop_map(
        |(min_rate_kbps, rate_kbps, receiver)| LeaveOption {
            min_rate_kbps,
            rate_kbps,
            receiver,
        },
    ));
    let pgmcc = (
        data,
        feedback,
        of(any::<u32>()),
        any::<bool>(),
        any::<bool>(),
        (of(any::<u32>()), of(any::<u32>())),
    )
        .prop_map(
            |(data, feedback, rxw_lead, election, acker_leaving, (start_up, rx_rate))| CcOptions {
                pgmcc: PgmccOptions {
                    data,
                    feedback,
                    rxw_lead,
                    election,
                    acker_leaving,
                    start_up,
                    rx_rate,
                },
                ..CcOptions::default()
            },
        );
    // RFC 3208 §11.8's options, on a third of the packets (more would push most packets past 16 options).
    let parity = prop_oneof![
        2 => Just(ParityOptions::default()),
        1 => (
            of((any::<bool>(), any::<u32>()).prop_map(|(proactive, tg_size)| ParityParams {
                proactive,
                on_demand: !proactive || tg_size % 2 == 0,
                tg_size,
            })),
            of(1..=u32::MAX),
            of(any::<u32>()),
            of(any::<u8>()),
        )
            .prop_map(|(params, group, curr_tg_size, code)| ParityOptions {
                params,
                group,
                curr_tg_size,
                code,
                ..ParityOptions::default()
            }),
    ];
    (
        fragment,
        vec(any::<u32>(), 0..=max_nak),
        of(any::<u32>()),
        any::<bool>(),
        any::<bool>(),
        of(any::<u8>()),
        (status, needs, auth, leave),
        (pgmcc, parity),
    )
        .prop_map(
            |(
                fragment,
                nak_list,
                join,
                syn,
                fin,
                rst,
                (receiver_status, needs, auth, leave),
                (cc, parity),
            )| {
                OptionsRepr {
                    fragment,
                    nak_list,
                    join,
                    syn,
                    fin,
                    rst,
                    receiver_status,
                    needs,
                    auth,
                    leave,
                    cc,
                    parity,
                }
            },
        )
}

/// Everything of a repr except the payload borrow.
type Parts = (u16, u16, [u8; 6], BodyRepr, OptionsRepr, Vec<u8>);

fn parts(max_nak: usize) -> impl Strategy<Value = Parts> {
    (
        any::<u16>(),
        any::<u16>(),
        any::<[u8; 6]>(),
        body(),
        prop_oneof![Just(OptionsRepr::default()), options(max_nak)],
        vec(any::<u8>(), 0..300),
        (any::<bool>(), any::<bool>()),
    )
        .prop_map(
            |(sp, dp, gsi, body, mut options, mut payload, (parity, var))| {
                let pt = body.packet_type();
                if !pt.is_data() {
                    payload.clear();
                }
                // RFC 3208 §11.3's header flags, on the types that have a parity form.
                options.parity.parity = parity && ParityOptions::flags_allowed(pt, true, false);
                options.parity.var_pktlen =
                    var && ParityOptions::flags_allowed(pt, options.parity.parity, true);
                (sp, dp, gsi, body, options, payload)
            },
        )
}

fn repr(p: &Parts) -> PacketRepr<'_> {
    PacketRepr {
        source_port: p.0,
        dest_port: p.1,
        gsi: Gsi(p.2),
        body: p.3,
        options: p.4.clone(),
        payload: &p.5,
    }
}

/// Every option at once is one more than RFC 3208 §9 allows (16 with OPT_LENGTH): emit refuses it, naming the
/// count. (The property tests reach this case only about once in twenty runs.)
#[test]
fn every_option_at_once_is_too_many() {
    let ip = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1));
    let options = OptionsRepr {
        fragment: Some(FragmentOption {
            first_sqn: 1,
            offset: 0,
            apdu_len: 10,
        }),
        nak_list: vec![2],
        join: Some(3),
        syn: true,
        fin: true,
        rst: Some(0),
        receiver_status: Some(ReceiverStatus {
            token: 1,
            state: 2,
            detail: 3,
        }),
        needs: vec![BlockRange { first: 1, count: 1 }],
        leave: None,
        auth: Some(AuthOption {
            encrypted: false,
            suite: 1,
            sender: [1; 16],
            counter: 1,
            tag: [2; 16],
        }),
        cc: CcOptions {
            pgmcc: PgmccOptions {
                data: Some(PgmccData {
                    tstamp: 1,
                    acker: ip,
                }),
                feedback: Some(PgmccFeedback {
                    tstamp: 1,
                    loss_rate: 2,
                    reporter: ip,
                }),
                rxw_lead: Some(4),
                election: true,
                acker_leaving: true,
                start_up: Some(5),
                rx_rate: Some(6),
            },
            ..CcOptions::default()
        },
        parity: ParityOptions {
            params: Some(ParityParams {
                proactive: true,
                on_demand: true,
                tg_size: 16,
            }),
            group: Some(1),
            curr_tg_size: Some(7),
            ..ParityOptions::default()
        },
    };
    let count = options.count();
    assert!(count > MAX_OPTIONS, "{count} options");
    let x = PacketRepr {
        source_port: 1,
        dest_port: 2,
        gsi: Gsi([1; 6]),
        body: BodyRepr::Spmr,
        options,
        payload: &[],
    };
    let mut buf = vec![0u8; x.buffer_len()];
    assert_eq!(
        x.emit(&mut buf).unwrap_err().kind,
        EmitErrorKind::TooManyOptions { count }
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn parse_emit_round_trip(p in parts(MAX_NAK_LIST)) {
        // Every option at once is more than a packet may carry (RFC 3208 §9: 16 with OPT_LENGTH); the test below
        // checks that emit refuses those.
        prop_assume!(p.4.count() <= MAX_OPTIONS);
        let x = repr(&p);
        let mut buf = vec![0u8; x.buffer_len()];
        prop_assert_eq!(x.emit(&mut buf), Ok(buf.len()));
        let y = PacketRepr::parse(&buf).unwrap();
        prop_assert_eq!(&y, &x);

        // Emitting the parsed repr gives the same bytes.
        let mut again = vec![0u8; y.buffer_len()];
        y.emit(&mut again).unwrap();
        prop_assert_eq!(&again, &buf);

        // A detached parse is the same packet, its payload found again in the bytes.
        let detached = DetachedRepr::parse_without_checksum(&buf).unwrap();
        prop_assert_eq!(detached.payload(&buf), x.payload);
        prop_assert_eq!(&PacketRepr { payload: detached.payload(&buf), ..detached.header.clone() }, &x);

        // The view agrees with the repr.
        let view = Packet::new_checked(&buf[..]).unwrap();
        prop_assert_eq!(view.packet_type(), x.packet_type());
        prop_assert_eq!(view.body(), x.body);
        prop_assert_eq!(view.payload(), x.payload);
        prop_assert_eq!(view.tsi(), x.tsi());
        prop_assert_eq!(view.options().count(), x.options.count());
        prop_assert_eq!(view.options_bytes().len(), x.options.buffer_len());
        prop_assert_eq!(view.has_options(), !x.options.is_empty());
        prop_assert_eq!(view.is_network_significant(), x.options.is_network_significant(x.packet_type()));
        let raw: Vec<_> = view.raw_options().collect::<Result<_, _>>().unwrap();
        for (i, o) in raw.iter().enumerate() {
            prop_assert_eq!(o.is_end(), i + 1 == raw.len() && i > 0);
            if i > 0 {
                // (OPT_LENGTH's bytes 2–3 hold the total; a parity packet's OPT_FRAGMENT is encoded, F = 0x04.)
                let encoded = x.options.parity.parity && o.option_type() == 0x01;
                prop_assert_eq!(o.opx_byte(), if encoded { 0x04 } else { 0 });
            }
        }
        if let Some(PgmOption::Length(total)) = view.options().next() {
            prop_assert_eq!(usize::from(total), x.options.buffer_len());
        }
    }

    #[test]
    fn emit_rejects_only_what_it_cannot_encode(p in parts(MAX_NAK_LIST + 3), extra in vec(any::<u8>(), 0..4)) {
        let mut p = p;
        // Sometimes put a payload on a packet that cannot carry one.
        if !p.3.packet_type().is_data() {
            p.5 = extra;
        }
        let x = repr(&p);
        let mut buf = vec![0u8; x.buffer_len()];
        let r = x.emit(&mut buf);
        if !x.payload.is_empty() && !x.packet_type().is_data() {
            prop_assert_eq!(r.unwrap_err().kind, EmitErrorKind::PayloadNotAllowed { len: x.payload.len() });
        } else if x.options.nak_list.len() > MAX_NAK_LIST {
            prop_assert_eq!(r.unwrap_err().kind, EmitErrorKind::NakListTooLong { len: x.options.nak_list.len() });
        } else if x.options.count() > MAX_OPTIONS {
            prop_assert_eq!(r.unwrap_err().kind, EmitErrorKind::TooManyOptions { count: x.options.count() });
        } else {
            prop_assert_eq!(r, Ok(buf.len()));
            prop_assert_eq!(PacketRepr::parse(&buf).unwrap(), x.clone());
            // A buffer one byte short is refused.
            let short = buf.len() - 1;
            prop_assert_eq!(
                x.emit(&mut buf[..short]).unwrap_err().kind,
                EmitErrorKind::BufferTooSmall { need: short + 1, have: short }
            );
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in vec(any::<u8>(), 0..120)) {
        let _ = PacketRepr::parse(&bytes);
        let _ = PacketRepr::parse_without_checksum(&bytes);
        if let Ok(view) = Packet::new_checked(&bytes[..]) {
            let _ = view.options().count();
        }
    }
}

proptest! {
    /// With the options a source puts on data, a data packet adds at most `data_overhead_max` bytes to its
    /// payload for its acker's address family (so TSDUs sized with it fit the path MTU).
    #[test]
    fn data_overhead_is_bounded(
        acker in ip(),
        fragment in any::<bool>(),
        rdata in any::<bool>(),
        len in 0usize..2000,
    ) {
        let payload = vec![0u8; len];
        let body = if rdata {
            BodyRepr::Rdata { sqn: 1, trail: 0 }
        } else {
            BodyRepr::Odata { sqn: 1, trail: 0 }
        };
        let repr = PacketRepr {
            source_port: 1,
            dest_port: 2,
            gsi: Gsi([1; 6]),
            body,
            options: OptionsRepr {
                fragment: fragment.then_some(FragmentOption { first_sqn: 1, offset: 0, apdu_len: 9 }),
                cc: CcOptions {
                    pgmcc: PgmccOptions { data: Some(PgmccData { tstamp: 7, acker }), ..PgmccOptions::default() },
                    ..CcOptions::default()
                },
                ..OptionsRepr::default()
            },
            payload: &payload,
        };
        let mut buf = vec![0u8; repr.buffer_len()];
        let n = repr.emit(&mut buf).unwrap();
        prop_assert!(n <= len + PacketRepr::data_overhead_max(acker.is_ipv6()));
    }
}

#[test]
fn data_overhead_of_the_usual_families() {
    // 16 header + 8 ODATA + OPT_LENGTH 4 + OPT_FRAGMENT 16 + OPT_PGMCC_DATA 16 (IPv4) or 28 (IPv6).
    assert_eq!(PacketRepr::data_overhead("pgmcc", false), 68);
    assert_eq!(PacketRepr::data_overhead("pgmcc", true), 80);
    // OPT_CONVOY_TFMCC_DATA with an echo: 36 (IPv4) or 48 (IPv6).
    assert_eq!(PacketRepr::data_overhead("tfmcc", false), 80);
    // OPT_CONVOY_AIMD_DATA with an agent, 24 (IPv4) or 36 (IPv6), and OPT_CONVOY_AIMD_ECHO, 16 or 28.
    assert_eq!(PacketRepr::data_overhead("aimd", false), 84);
    assert_eq!(
        PacketRepr::data_overhead("fixed", false),
        44,
        "no options of its own"
    );
    assert_eq!(
        PacketRepr::data_overhead_max(true),
        108,
        "the largest of all schemes"
    );
}
