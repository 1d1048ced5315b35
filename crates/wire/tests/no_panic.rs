//! No-panic corpus: 100,000 deterministic inputs (ChaCha8, fixed seed) — random byte strings
//! and mutations of valid packets of every type — fed to every parser and accessor. Whatever
//! parses must also survive emit and re-parse unchanged.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use convoy_wire::{
    checksum, AuthOption, BlockRange, BodyRepr, CcOptions, FragmentOption, Gsi, Header,
    LeaveOption, OptionsRepr, Packet, PacketRepr, PacketType, ParityOptions, ParityParams,
    PgmOption, PgmccData, PgmccFeedback, PgmccOptions, ReceiverStatus, MAX_NAK_LIST, MAX_NEEDS,
    MAX_OPTIONS,
};
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

const INPUTS: usize = 100_000;

fn below(rng: &mut ChaCha8Rng, n: usize) -> usize {
    (rng.next_u64() % n as u64) as usize
}

fn chance(rng: &mut ChaCha8Rng, one_in: u32) -> bool {
    below(rng, one_in as usize) == 0
}

fn ip(rng: &mut ChaCha8Rng) -> IpAddr {
    match below(rng, 4) {
        0 => IpAddr::V4(Ipv4Addr::from(rng.next_u32())),
        1 => {
            let mut a = [0u8; 16];
            rng.fill_bytes(&mut a);
            IpAddr::V6(Ipv6Addr::from(a))
        }
        2 => IpAddr::V4(Ipv4Addr::UNSPECIFIED),
        _ => IpAddr::V6(Ipv6Addr::UNSPECIFIED),
    }
}

fn body(rng: &mut ChaCha8Rng, t: PacketType) -> BodyRepr {
    let (a, b, c) = (rng.next_u32(), rng.next_u32(), rng.next_u32());
    match t {
        PacketType::Spm => BodyRepr::Spm {
            sqn: a,
            trail: b,
            lead: c,
            path_nla: ip(rng),
        },
        PacketType::Poll => BodyRepr::Poll {
            sqn: a,
            round: b as u16,
            s_type: (b >> 16) as u16,
            path_nla: ip(rng),
            backoff_ivl: c,
            rand: rng.next_u32(),
            mask: rng.next_u32(),
        },
        PacketType::Polr => BodyRepr::Polr {
            sqn: a,
            round: b as u16,
        },
        PacketType::Odata => BodyRepr::Odata { sqn: a, trail: b },
        PacketType::Rdata => BodyRepr::Rdata { sqn: a, trail: b },
        PacketType::Nak => BodyRepr::Nak {
            sqn: a,
            source_nla: ip(rng),
            group_nla: ip(rng),
        },
        PacketType::Nnak => BodyRepr::Nnak {
            sqn: a,
            source_nla: ip(rng),
            group_nla: ip(rng),
        },
        PacketType::Ncf => BodyRepr::Ncf {
            sqn: a,
            source_nla: ip(rng),
            group_nla: ip(rng),
        },
        PacketType::Spmr => BodyRepr::Spmr,
        PacketType::Ack => BodyRepr::Ack {
            rx_max: a,
            bitmap: b,
        },
    }
}

fn options(rng: &mut ChaCha8Rng) -> OptionsRepr {
    if chance(rng, 4) {
        return OptionsRepr::default();
    }
    let nak_len = if chance(rng, 2) {
        0
    } else {
        below(rng, MAX_NAK_LIST + 1)
    };
    let mut o = OptionsRepr {
        fragment: chance(rng, 3).then(|| FragmentOption {
            first_sqn: rng.next_u32(),
            offset: rng.next_u32(),
            apdu_len: rng.next_u32(),
        }),
        nak_list: (0..nak_len).map(|_| rng.next_u32()).collect(),
        join: chance(rng, 3).then(|| rng.next_u32()),
        syn: chance(rng, 3),
        fin: chance(rng, 3),
        rst: chance(rng, 3).then(|| rng.next_u32() as u8),
        cc: CcOptions {
            pgmcc: PgmccOptions {
                data: chance(rng, 2).then(|| PgmccData {
                    tstamp: rng.next_u32(),
                    acker: ip(rng),
                }),
                feedback: chance(rng, 2).then(|| PgmccFeedback {
                    tstamp: rng.next_u32(),
                    loss_rate: rng.next_u32() as u16,
                    reporter: ip(rng),
                }),
                rxw_lead: chance(rng, 3).then(|| rng.next_u32()),
                election: chance(rng, 3),
                acker_leaving: chance(rng, 3),
                start_up: chance(rng, 3).then(|| rng.next_u32()),
                rx_rate: chance(rng, 3).then(|| rng.next_u32()),
            },
            ..CcOptions::default()
        },
        receiver_status: chance(rng, 3).then(|| ReceiverStatus {
            token: rng.next_u32(),
            state: rng.next_u32(),
            detail: rng.next_u32(),
        }),
        auth: chance(rng, 3).then(|| AuthOption {
            encrypted: chance(rng, 2),
            suite: (rng.next_u32() % 16) as u8,
            sender: [rng.next_u32() as u8; 16],
            counter: u64::from(rng.next_u32()),
            tag: [rng.next_u32() as u8; 16],
        }),
        leave: chance(rng, 3).then(|| LeaveOption {
            min_rate_kbps: rng.next_u32(),
            rate_kbps: rng.next_u32(),
            receiver: ip(rng),
        }),
        needs: (0..below(rng, 4) * below(rng, MAX_NEEDS + 1) / 3)
            .map(|_| BlockRange {
                first: rng.next_u32(),
                count: rng.next_u32(),
            })
            .collect(),
        parity: ParityOptions {
            params: chance(rng, 4).then(|| ParityParams {
                proactive: chance(rng, 2),
                on_demand: true,
                tg_size: rng.next_u32(),
            }),
            group: chance(rng, 4).then(|| rng.next_u32().max(1)),
            curr_tg_size: chance(rng, 4).then(|| rng.next_u32()),
            code: chance(rng, 4).then(|| rng.next_u32() as u8),
            ..ParityOptions::default()
        },
    };
    // A packet carries at most 16 options (RFC 3208 §9): the parity ones go first when there would be more.
    if o.count() > MAX_OPTIONS {
        o.parity = ParityOptions::default();
    }
    o
}

/// A valid emitted packet of type `t`.
fn valid_packet(rng: &mut ChaCha8Rng, t: PacketType) -> Vec<u8> {
    let mut payload = vec![0u8; if t.is_data() { below(rng, 64) } else { 0 }];
    rng.fill_bytes(&mut payload);
    let mut gsi = [0u8; 6];
    rng.fill_bytes(&mut gsi);
    let repr = PacketRepr {
        source_port: rng.next_u32() as u16,
        dest_port: rng.next_u32() as u16,
        gsi: Gsi(gsi),
        body: body(rng, t),
        options: options(rng),
        payload: &payload,
    };
    let mut repr = repr;
    // RFC 3208 §11.3's header flags, where the type has a parity form.
    repr.options.parity.parity = chance(rng, 3) && ParityOptions::flags_allowed(t, true, false);
    repr.options.parity.var_pktlen =
        chance(rng, 2) && ParityOptions::flags_allowed(t, repr.options.parity.parity, true);
    let mut buf = vec![0u8; repr.buffer_len()];
    repr.emit(&mut buf).expect("valid repr emits");
    buf
}

/// Offsets of the length-like fields of a valid packet: TSDU length, AFIs, OPT_LENGTH total,
/// every option's type and length byte.
fn length_fields(p: &[u8]) -> Vec<usize> {
    let mut v = vec![14, 15];
    let Ok(view) = Packet::new_checked(p) else {
        return v;
    };
    let body_end = view.options_offset();
    // AFI low bytes: every 4-byte-aligned position with a 0x00 0x01/0x02 pattern in the body.
    for at in (16..body_end.saturating_sub(1)).filter(|&i| p[i] == 0 && matches!(p[i + 1], 1 | 2)) {
        v.push(at + 1);
    }
    for o in view.raw_options().flatten() {
        v.extend([o.offset(), o.offset() + 1, o.offset() + 2, o.offset() + 3]);
        if matches!(o.option_type(), 0x12 | 0x13) {
            v.push(o.offset() + 9);
        }
    }
    v
}

fn mutate(rng: &mut ChaCha8Rng, mut p: Vec<u8>) -> Vec<u8> {
    for _ in 0..=below(rng, 3) {
        match below(rng, 6) {
            0 if !p.is_empty() => {
                let i = below(rng, p.len() * 8);
                p[i / 8] ^= 1 << (i % 8);
            }
            1 => {
                let n = below(rng, p.len() + 1);
                p.truncate(n);
            }
            2 => {
                for _ in 0..=below(rng, 8) {
                    p.push(rng.next_u32() as u8);
                }
            }
            3 if !p.is_empty() => {
                let i = below(rng, p.len());
                p[i] = rng.next_u32() as u8;
            }
            4 => {
                let fields = length_fields(&p);
                let at = fields[below(rng, fields.len())];
                if let Some(b) = p.get_mut(at) {
                    *b = match below(rng, 4) {
                        0 => b.wrapping_add(1),
                        1 => b.wrapping_sub(1),
                        2 => 0,
                        _ => rng.next_u32() as u8,
                    };
                }
            }
            _ => {
                // Splice a chunk of itself somewhere else (repeats options and NLAs).
                if p.len() > 4 {
                    let a = below(rng, p.len());
                    let n = below(rng, (p.len() - a).min(32) + 1);
                    let chunk = p[a..a + n].to_vec();
                    let at = below(rng, p.len() + 1);
                    p.splice(at..at, chunk);
                }
            }
        }
    }
    // Most mutations would die at the checksum; repair it often to reach the deeper checks.
    if chance(rng, 4) {
        // leave the stale checksum
    } else {
        checksum::fill(&mut p);
    }
    p
}

#[derive(Default)]
struct Stats {
    repr_ok: usize,
    view_ok: usize,
}

/// Drive every entry point with `bytes`.
fn exercise(bytes: &[u8], stats: &mut Stats) {
    for repr in [
        PacketRepr::parse(bytes),
        PacketRepr::parse_without_checksum(bytes),
    ]
    .into_iter()
    .flatten()
    {
        stats.repr_ok += 1;
        let mut buf = vec![0u8; repr.buffer_len()];
        repr.emit(&mut buf).expect("a parsed repr emits");
        assert_eq!(PacketRepr::parse(&buf).expect("re-parse"), repr);
        let _ = repr.tsi();
    }
    if let Ok(h) = Header::new_checked(bytes) {
        let _ = (
            h.source_port(),
            h.dest_port(),
            h.packet_type(),
            h.checksum(),
        );
        let _ = (h.gsi(), h.tsdu_length(), h.options_flags(), h.version());
    }
    let _ = Header::new_unchecked(bytes).tsdu_length();
    match Packet::new_checked(bytes) {
        Ok(v) => {
            stats.view_ok += 1;
            let _ = (
                v.source_port(),
                v.dest_port(),
                v.packet_type(),
                v.checksum(),
            );
            let _ = (v.gsi(), v.tsi(), v.tsdu_length(), v.options_flags());
            let _ = (v.has_options(), v.is_network_significant(), v.is_parity());
            let _ = (v.sqn(), v.trail(), v.lead(), v.path_nla());
            let _ = (
                v.source_nla(),
                v.group_nla(),
                v.poll_round(),
                v.poll_params(),
            );
            let _ = (v.rx_max(), v.ack_bitmap(), v.body(), v.body_bytes());
            let _ = (v.options_bytes(), v.payload(), v.verify_checksum());
            let _ = v.computed_checksum();
            for o in v.raw_options() {
                let o = o.expect("validated options walk cleanly");
                let _ = (o.option_type(), o.is_end(), o.length(), o.opx_byte());
                let _ = (o.specific_byte(), o.value(), o.name(), o.bytes());
            }
            for o in v.options() {
                if let PgmOption::NakList(l) = o {
                    assert!(l.len() <= MAX_NAK_LIST);
                    let _ = (
                        l.iter().fold(0u32, u32::wrapping_add),
                        l.get(0),
                        l.get(l.len()),
                    );
                }
                let _ = o.option_type();
            }
            assert_eq!(v.payload().len(), usize::from(v.tsdu_length()));
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
}

#[test]
fn no_panic_corpus() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x00C0_4701);
    let mut stats = Stats::default();
    for i in 0..INPUTS {
        let bytes = if i % 4 == 0 {
            // Random bytes of random length, biased towards plausible headers.
            let mut b = vec![0u8; below(&mut rng, 160)];
            rng.fill_bytes(&mut b);
            if b.len() > 5 && chance(&mut rng, 2) {
                b[4] = PacketType::ALL[below(&mut rng, 10)].code();
                b[5] &= 0x03;
                checksum::fill(&mut b);
            }
            b
        } else {
            let t = PacketType::ALL[i % PacketType::ALL.len()];
            let p = valid_packet(&mut rng, t);
            if i % 16 == 1 {
                p
            } else {
                mutate(&mut rng, p)
            }
        };
        exercise(&bytes, &mut stats);
    }
    eprintln!(
        "no_panic_corpus: {INPUTS} inputs, {} views and {} reprs parsed",
        stats.view_ok, stats.repr_ok
    );
    // The mutations must leave a good share parseable, or the corpus tests little.
    assert!(stats.view_ok > INPUTS / 10, "views ok: {}", stats.view_ok);
    assert!(stats.repr_ok > INPUTS / 10, "reprs ok: {}", stats.repr_ok);
}
