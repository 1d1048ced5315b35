//! Error paths: each malformed input gives the precise error (type, field, offset, what).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use convoy_wire::cc::pgmcc::PgmccOption;
use convoy_wire::{
    checksum, BlockRange, BodyRepr, CcOption, EmitErrorKind, Gsi, OptionsRepr, Packet, PacketRepr,
    PacketType, ParityOptions, ParityParams, ParseError, ParseErrorKind, PgmOption, ReceiverStatus,
    MAX_NEEDS,
};

fn hex(s: &str) -> Vec<u8> {
    let digits: Vec<u8> = s.bytes().filter(u8::is_ascii_hexdigit).collect();
    digits
        .chunks(2)
        .map(|c| u8::from_str_radix(std::str::from_utf8(c).unwrap(), 16).unwrap())
        .collect()
}

const SPM: &str =
    "0445 1d4c 00 00 f2ce 65aaceceacc1 0000 | 00000000 00000000 ffffffff | 0001 0000 0a630001";
const NAK: &str =
    "1d4c 0445 08 00 fb0a 65aaceceacc1 0000 | 00000001 | 0001 0000 0a630001 | 0001 0000 efc00001";
const ODATA: &str = "0445 1d4c 04 01 dc9b 65aaceceacc1 0005 | 00000000 00000000 | 00 04 0014 | 92 10 00 00 | 019d44f9 | 0001 | 0000 | 00000000 | 68656c6c6f";

/// `base` with OPT_PRESENT set, `opts` appended and the checksum recomputed.
fn with_options(base: &str, opts: &str) -> Vec<u8> {
    let mut p = hex(base);
    p[5] |= 0x01;
    p.extend(hex(opts));
    checksum::fill(&mut p);
    p
}

fn parse_err(p: &[u8]) -> ParseError {
    PacketRepr::parse(p).unwrap_err()
}

fn msg(p: &[u8]) -> String {
    parse_err(p).to_string()
}

#[test]
fn truncated_spm() {
    let p = hex(SPM);
    let e = Packet::new_checked(&p[..20]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "SPM: type-specific header at offset 16: truncated: need 36 bytes, have 20"
    );
    assert_eq!(e.packet_type, Some(PacketType::Spm));
    assert_eq!(e.offset, 16);
    assert_eq!(e.kind, ParseErrorKind::Truncated { need: 36, have: 20 });
    // `parse` checks the checksum first.
    assert!(matches!(
        parse_err(&p[..20]).kind,
        ParseErrorKind::ChecksumMismatch { .. }
    ));
    let e = PacketRepr::parse(&p[..10]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "common header at offset 0: truncated: need 16 bytes, have 10"
    );
}

#[test]
fn nak_list_length() {
    // OPT_LENGTH total 10, then OPT_NAK_LIST|END of length 6.
    let p = with_options(NAK, "00 04 000a | 82 06 00 00 0000");
    assert_eq!(
        msg(&p),
        "NAK: OPT_NAK_LIST at offset 40: length 6 is not 4+4N with N ≤ 62"
    );
    // 63 entries: length 256 does not even fit the length byte; 0xfc = 252 = 4 + 4·62 fits.
    let mut opts = String::from("00 04 0100 | 82 fc 00 00");
    opts.push_str(&"00000007".repeat(62));
    let p = with_options(NAK, &opts);
    let r = PacketRepr::parse(&p).unwrap();
    assert_eq!(r.options.nak_list, vec![7; 62]);
}

#[test]
fn checksum_errors() {
    let mut p = hex(ODATA);
    *p.last_mut().unwrap() ^= 0x01;
    let e = parse_err(&p);
    assert_eq!(e.field, "checksum");
    assert_eq!(e.offset, 6);
    let computed = checksum::pgm(&p);
    assert_eq!(
        e.to_string(),
        format!("ODATA: checksum at offset 6: computed 0x{computed:04x}, packet has 0xdc9b")
    );
    // Without checking, the packet parses.
    assert!(PacketRepr::parse_without_checksum(&p).is_ok());

    // Checksum 0 = "no checksum": rejected on data packets, accepted elsewhere.
    p[6] = 0;
    p[7] = 0;
    assert_eq!(
        msg(&p),
        "ODATA: checksum at offset 6: 0 (no checksum) is not allowed on data packets"
    );
    p[4] = 0x05;
    assert_eq!(parse_err(&p).kind, ParseErrorKind::MissingChecksum);
    let mut spm = hex(SPM);
    spm[6] = 0;
    spm[7] = 0;
    assert!(PacketRepr::parse(&spm).is_ok());
}

#[test]
fn type_byte() {
    let mut p = hex(SPM);
    p[4] = 0x0b;
    checksum::fill(&mut p);
    assert_eq!(msg(&p), "type at offset 4: unknown packet type 0x0b");
    p[4] = 0x80;
    assert_eq!(
        parse_err(&p).kind,
        ParseErrorKind::BadVersion { version: 2 }
    );
    // Reserved bits 5–4 are tolerated.
    p[4] = 0x30;
    checksum::fill(&mut p);
    assert_eq!(
        PacketRepr::parse(&p).unwrap().packet_type(),
        PacketType::Spm
    );
}

#[test]
fn nla_errors() {
    let mut p = hex(NAK);
    p[29] = 3; // group NLA AFI
    checksum::fill(&mut p);
    assert_eq!(
        msg(&p),
        "NAK: group NLA at offset 28: address family 3, expected 1 (IPv4) or 2 (IPv6)"
    );
    // IPv6 source NLA that does not fit.
    let mut p = hex(NAK);
    p[21] = 2;
    checksum::fill(&mut p);
    assert_eq!(
        msg(&p),
        "NAK: source NLA at offset 20: truncated: need 40 bytes, have 36"
    );
}

#[test]
fn ipv6_nlas_shift_fields() {
    let repr = PacketRepr {
        source_port: 1,
        dest_port: 2,
        gsi: Gsi([1, 2, 3, 4, 5, 6]),
        body: BodyRepr::Ncf {
            sqn: 9,
            source_nla: IpAddr::V6(Ipv6Addr::LOCALHOST),
            group_nla: IpAddr::V6("ff15::1".parse().unwrap()),
        },
        options: OptionsRepr {
            nak_list: vec![10, 11],
            ..OptionsRepr::default()
        },
        payload: &[],
    };
    let mut buf = vec![0; repr.buffer_len()];
    assert_eq!(buf.len(), 16 + 4 + 20 + 20 + 4 + 12);
    repr.emit(&mut buf).unwrap();
    assert_eq!(buf[5], 0x03, "OPT_PRESENT | OPT_NETWORK");
    assert_eq!(
        &buf[40..42],
        &[0, 2],
        "group AFI after a 20-byte source NLA"
    );
    assert_eq!(PacketRepr::parse(&buf).unwrap(), repr);
}

#[test]
fn opt_length_errors() {
    let e = parse_err(&with_options(SPM, "0e 04 0000"));
    assert_eq!(
        e.to_string(),
        "SPM: OPT_LENGTH at offset 36: first option has type 0x0e, OPT_LENGTH (0x00) must come first"
    );
    assert_eq!(
        msg(&with_options(SPM, "00 05 0004 00")),
        "SPM: OPT_LENGTH at offset 36: length 5 is not 4"
    );
    assert_eq!(
        parse_err(&with_options(SPM, "00 04 0003")).kind,
        ParseErrorKind::OptionsTotalTooSmall { total: 3 }
    );
    assert_eq!(
        msg(&with_options(SPM, "00 04 0010 | 8e 04 0000")),
        "SPM: options at offset 36: truncated: need 52 bytes, have 44"
    );
    assert_eq!(
        msg(&with_options(SPM, "00 04")),
        "SPM: OPT_LENGTH at offset 36: truncated: need 40 bytes, have 38"
    );
}

#[test]
fn option_chain_errors() {
    assert_eq!(
        msg(&with_options(SPM, "00 04 000c | 0d 02 0000 | 8e 04 0000")),
        "SPM: OPT_SYN at offset 40: length 2 is not at least 4"
    );
    assert_eq!(
        msg(&with_options(SPM, "00 04 000c | 0d 04 0000 | 8e 08 0000")),
        "SPM: OPT_FIN at offset 44: option ends at offset 52, past the options end 48 set by OPT_LENGTH"
    );
    assert_eq!(
        parse_err(&with_options(SPM, "00 04 000c | 8d 04 0000 | 8e 04 0000")).kind,
        ParseErrorKind::EndBeforeTotal {
            end: 44,
            options_end: 48
        }
    );
    assert_eq!(
        msg(&with_options(SPM, "00 04 000c | 0d 04 0000 | 0e 04 0000")),
        "SPM: OPT_FIN at offset 44: last option (reaching the OPT_LENGTH total) lacks the OPT_END bit"
    );
    // Odd byte left at the end: fewer than 2 bytes for a TLV header.
    assert_eq!(
        parse_err(&with_options(SPM, "00 04 0009 | 0d 04 0000 | 0e")).kind,
        ParseErrorKind::OptionOverrun {
            end: 46,
            options_end: 45
        }
    );
    // 17 options (OPT_LENGTH + 16 unknown ones).
    let mut opts = format!("00 04 {:04x}", 4 + 16 * 4);
    for i in 0..16 {
        opts.push_str(if i == 15 {
            " c0 04 0000"
        } else {
            " 40 04 0000"
        });
    }
    let e = parse_err(&with_options(SPM, &opts));
    assert_eq!(e.kind, ParseErrorKind::TooManyOptions { count: 17 });
    assert_eq!(e.offset, 36 + 4 + 15 * 4);
    // 16 options are fine.
    let mut opts = format!("00 04 {:04x}", 4 + 15 * 4);
    for i in 0..15 {
        opts.push_str(if i == 14 {
            " c0 04 0000"
        } else {
            " 40 04 0000"
        });
    }
    assert!(PacketRepr::parse(&with_options(SPM, &opts)).is_ok());
}

#[test]
fn duplicates_and_unknowns() {
    assert_eq!(
        msg(&with_options(SPM, "00 04 000c | 0e 04 0000 | 8e 04 0000")),
        "SPM: OPT_FIN at offset 44: appears more than once"
    );
    assert_eq!(
        msg(&with_options(SPM, "00 04 000c | 00 04 0008 | 8e 04 0000")),
        "SPM: OPT_LENGTH at offset 40: appears more than once"
    );
    // Unknown options are skipped, may repeat, and any OPX byte is tolerated; OPT_LENGTH may
    // carry END. NAK_BO_IVL (12), REDIRECT (12), OPT_INVALID, a reserved Convoy code, FIN.
    let p = with_options(
        SPM,
        "80 04 002c | 04 0c 88 00 00000001 00000002 | 07 0c 78 00 0001 0000 0a000001 \
         | 7f 04 0000 | 3f 04 0000 | 3f 04 0000 | 8e 04 ff 00",
    );
    let r = PacketRepr::parse(&p).unwrap();
    assert_eq!(
        r.options,
        OptionsRepr {
            fin: true,
            ..OptionsRepr::default()
        }
    );
    let view = Packet::new_checked(&p[..]).unwrap();
    let types: Vec<u8> = view.options().map(|o| o.option_type()).collect();
    assert_eq!(types, [0x00, 0x04, 0x07, 0x7f, 0x3f, 0x3f, 0x0e]);
}

#[test]
fn known_option_lengths() {
    for (opts, text) in [
        (
            "00 04 000c | 81 08 0000 00000000",
            "OPT_FRAGMENT at offset 40: length 8 is not 16",
        ),
        (
            "00 04 0008 | 83 04 0000",
            "OPT_JOIN at offset 40: length 4 is not 8",
        ),
        (
            "00 04 000c | 8e 08 0000 00000000",
            "OPT_FIN at offset 40: length 8 is not 4",
        ),
        (
            "00 04 000c | 8f 08 0000 00000000",
            "OPT_RST at offset 40: length 8 is not 4",
        ),
    ] {
        let p = with_options(SPM, opts);
        assert_eq!(msg(&p), format!("SPM: {text}"));
    }
    assert_eq!(
        msg(&with_options(SPM, "00 04 000c | b1 08 0000 00000000")),
        "SPM: OPT_CONVOY_ELECTION at offset 40: length 8 is not 4"
    );
    let p = with_options(SPM, "00 04 0008 | b0 04 0000");
    assert_eq!(
        msg(&p),
        "SPM: OPT_CONVOY_RXW_LEAD at offset 40: length 4 is not 8"
    );
}

#[test]
fn pgmcc_option_lengths() {
    const V4: &str = "019d44f9 0001 0000 0a630003";
    // IPv4 NLA in a 28-byte option.
    let p = with_options(
        SPM,
        &format!("00 04 0020 | 92 1c 0000 {V4} {}", "00".repeat(12)),
    );
    assert_eq!(
        msg(&p),
        "SPM: OPT_PGMCC_DATA at offset 40: length 28 is not 16 (IPv4 NLA) or 28 (IPv6 NLA)"
    );
    // IPv6 AFI in a 16-byte option.
    let p = with_options(SPM, "00 04 0014 | 93 10 0000 019d44f9 0002 0000 0a630003");
    assert_eq!(
        parse_err(&p).kind,
        ParseErrorKind::OptionLength {
            len: 16,
            expected: "16 (IPv4 NLA) or 28 (IPv6 NLA)"
        }
    );
    // Unknown AFI.
    let p = with_options(SPM, "00 04 0014 | 93 10 0000 019d44f9 0009 0000 0a630003");
    assert_eq!(
        msg(&p),
        "SPM: OPT_PGMCC_FEEDBACK at offset 48: address family 9, expected 1 (IPv4) or 2 (IPv6)"
    );
    // Too short to hold an NLA.
    let p = with_options(SPM, "00 04 000c | 92 08 0000 019d44f9");
    assert_eq!(
        parse_err(&p).kind,
        ParseErrorKind::OptionLength {
            len: 8,
            expected: "16 (IPv4 NLA) or 28 (IPv6 NLA)"
        }
    );
    // IPv6 feedback with a loss rate.
    let p = with_options(
        SPM,
        "00 04 0020 | 93 1c 0000 00000005 0002 8000 00000000000000000000000000000001",
    );
    let f = PacketRepr::parse(&p)
        .unwrap()
        .options
        .cc
        .pgmcc
        .feedback
        .unwrap();
    assert_eq!(f.loss_rate, 0x8000);
    assert_eq!(f.reporter, IpAddr::V6(Ipv6Addr::LOCALHOST));
    assert_eq!(f.tstamp, 5);
}

#[test]
fn convoy_options() {
    let p = with_options(
        NAK,
        "00 04 0014 | 30 08 0000 00001234 | 31 04 0000 | b2 04 0000",
    );
    let r = PacketRepr::parse(&p).unwrap();
    assert_eq!(r.options.cc.pgmcc.rxw_lead, Some(0x1234));
    assert!(r.options.cc.pgmcc.election);
    assert!(r.options.cc.pgmcc.acker_leaving);
    let view = Packet::new_checked(&p[..]).unwrap();
    let convoy: Vec<_> = view
        .options()
        .filter_map(|o| match o {
            PgmOption::Cc(CcOption::Pgmcc(c)) => Some(c),
            _ => None,
        })
        .collect();
    assert_eq!(
        convoy,
        [
            PgmccOption::RxwLead(0x1234),
            PgmccOption::Election,
            PgmccOption::AckerLeaving
        ]
    );
    let mut buf = vec![0; r.buffer_len()];
    r.emit(&mut buf).unwrap();
    assert_eq!(buf, p, "our own emission order and zero bytes 2–3");
}

#[test]
fn rst_byte() {
    let p = with_options(SPM, "00 04 0008 | 8f 04 00 7f");
    let r = PacketRepr::parse(&p).unwrap();
    assert_eq!(r.options.rst, Some(0x7f));
    let mut buf = vec![0; r.buffer_len()];
    r.emit(&mut buf).unwrap();
    assert_eq!(buf, p);
}

#[test]
fn tsdu_length() {
    let mut p = hex(ODATA);
    p.push(0);
    checksum::fill(&mut p);
    assert_eq!(
        msg(&p),
        "ODATA: TSDU length at offset 14: TSDU length 5, but 6 bytes follow the header and options"
    );
    let mut p = hex(NAK);
    p[15] = 2;
    p.extend([1, 2]);
    checksum::fill(&mut p);
    assert_eq!(
        msg(&p),
        "NAK: TSDU length at offset 14: TSDU length 2, but only ODATA and RDATA carry a payload"
    );
    let mut p = hex(NAK);
    p.push(0);
    checksum::fill(&mut p);
    assert_eq!(
        parse_err(&p).kind,
        ParseErrorKind::TsduLength {
            declared: 0,
            actual: 1
        }
    );
}

#[test]
fn rfc3208_11_3_parity_flags_on_the_types_that_have_a_parity_form() {
    // OPT_PARITY on ODATA: a parity packet, its payload the parity bytes.
    let mut p = hex(ODATA);
    p[5] |= 0x80;
    checksum::fill(&mut p);
    let r = PacketRepr::parse(&p).unwrap();
    assert!(r.options.parity.parity && !r.options.parity.var_pktlen);
    assert_eq!(r.payload, b"hello");
    assert!(Packet::new_checked(&p[..]).unwrap().is_parity());
    // OPT_PARITY with OPT_VAR_PKTLEN on ODATA; OPT_PARITY on a NAK (a parity NAK).
    p[5] |= 0x40;
    checksum::fill(&mut p);
    assert!(PacketRepr::parse(&p).unwrap().options.parity.var_pktlen);
    let mut nak = hex(NAK);
    nak[5] = 0x80;
    checksum::fill(&mut nak);
    assert!(PacketRepr::parse(&nak).unwrap().options.parity.parity);
    // OPT_VAR_PKTLEN alone, OPT_VAR_PKTLEN on a NAK, OPT_PARITY on an SPM: no such packets.
    let mut p = hex(ODATA);
    p[5] = 0x41;
    checksum::fill(&mut p);
    assert_eq!(
        msg(&p),
        "ODATA: options flags at offset 5: options byte 0x41 sets a parity flag this packet type cannot carry \
         (OPT_PARITY 0x80 on ODATA, RDATA, NAK, NNAK and NCF only; OPT_VAR_PKTLEN 0x40 beside it on ODATA and \
         RDATA only)"
    );
    nak[5] = 0xc0;
    checksum::fill(&mut nak);
    assert_eq!(
        parse_err(&nak).kind,
        ParseErrorKind::UnsupportedFlags { flags: 0xc0 }
    );
    let mut spm = hex(SPM);
    spm[5] = 0x80;
    checksum::fill(&mut spm);
    assert_eq!(
        parse_err(&spm).kind,
        ParseErrorKind::UnsupportedFlags { flags: 0x80 }
    );
}

#[test]
fn rfc3208_11_2_a_parity_packets_fragment_option_is_written_encoded() {
    let fragment = convoy_wire::FragmentOption {
        first_sqn: 0x0102_0304,
        offset: 5,
        apdu_len: 6,
    };
    let emit = |parity: bool| {
        let x = repr_with(
            BodyRepr::Rdata { sqn: 16, trail: 0 },
            OptionsRepr {
                fragment: Some(fragment),
                parity: ParityOptions {
                    parity,
                    ..ParityOptions::default()
                },
                ..OptionsRepr::default()
            },
            b"pp",
        );
        let mut buf = vec![0u8; x.buffer_len()];
        x.emit(&mut buf).unwrap();
        let back = PacketRepr::parse(&buf).unwrap();
        assert_eq!(back.options.fragment, Some(fragment));
        assert_eq!(back.options.parity.parity, parity);
        // OPT_LENGTH, then OPT_FRAGMENT: its byte 2 carries F (OP_ENCODED, 0x04) on a parity packet only.
        let at = 16 + 8 + 4;
        assert_eq!(buf[at] & 0x7f, 0x01);
        (buf[5], buf[at + 2])
    };
    assert_eq!(emit(true), (0x81, 0x04));
    assert_eq!(emit(false), (0x01, 0x00));
    // Emission refuses the flags where parsing would.
    let x = repr_with(
        BodyRepr::Spmr,
        OptionsRepr {
            parity: ParityOptions {
                parity: true,
                ..ParityOptions::default()
            },
            ..OptionsRepr::default()
        },
        b"",
    );
    let e = x.emit(&mut [0u8; 64]).unwrap_err();
    assert_eq!(e.field, "options.parity");
}

#[test]
fn network_flag_tolerated() {
    // OPT_NETWORK set without a network-significant option, and OPT_NAK_LIST without it.
    let mut p = hex(SPM);
    p[5] = 0x02;
    checksum::fill(&mut p);
    assert!(PacketRepr::parse(&p).is_ok());
    let p = with_options(NAK, "00 04 000c | 82 08 0000 00000002");
    assert_eq!(p[5], 0x01);
    assert_eq!(PacketRepr::parse(&p).unwrap().options.nak_list, [2]);
}

fn repr_with(body: BodyRepr, options: OptionsRepr, payload: &[u8]) -> PacketRepr<'_> {
    PacketRepr {
        source_port: 7,
        dest_port: 8,
        gsi: Gsi::default(),
        body,
        options,
        payload,
    }
}

#[test]
fn emit_errors() {
    let nak = BodyRepr::Nak {
        sqn: 1,
        source_nla: IpAddr::V4(Ipv4Addr::LOCALHOST),
        group_nla: IpAddr::V4(Ipv4Addr::LOCALHOST),
    };
    let mut buf = [0u8; 2048];
    let r = repr_with(
        nak,
        OptionsRepr {
            nak_list: vec![0; 63],
            ..OptionsRepr::default()
        },
        &[],
    );
    let e = r.emit(&mut buf).unwrap_err();
    assert_eq!(e.kind, EmitErrorKind::NakListTooLong { len: 63 });
    assert_eq!(
        e.to_string(),
        "NAK: options.nak_list: 63 sequence numbers, at most 62 fit"
    );

    let r = repr_with(nak, OptionsRepr::default(), b"x");
    assert_eq!(
        r.emit(&mut buf).unwrap_err().to_string(),
        "NAK: payload: 1 payload bytes, but only ODATA and RDATA carry a payload"
    );

    let r = repr_with(BodyRepr::Spmr, OptionsRepr::default(), &[]);
    let e = r.emit(&mut buf[..15]).unwrap_err();
    assert_eq!(e.kind, EmitErrorKind::BufferTooSmall { need: 16, have: 15 });
    assert_eq!(e.field, "buffer");

    let big = vec![0u8; 65536];
    let r = repr_with(
        BodyRepr::Odata { sqn: 0, trail: 0 },
        OptionsRepr::default(),
        &big,
    );
    let mut out = vec![0u8; r.buffer_len()];
    assert_eq!(
        r.emit(&mut out).unwrap_err().kind,
        EmitErrorKind::PayloadTooLong { len: 65536 }
    );
    let r = repr_with(
        BodyRepr::Odata { sqn: 0, trail: 0 },
        OptionsRepr::default(),
        &big[..65535],
    );
    assert_eq!(r.emit(&mut out), Ok(16 + 8 + 65535));
    assert_eq!(PacketRepr::parse(&out[..16 + 8 + 65535]).unwrap(), r);
}

#[test]
fn emit_sets_all_ones_for_zero_checksum() {
    // Search for a payload that makes the computed checksum 0, and check 0xffff is sent.
    let mut payload = [0u8; 2];
    for v in 0..=u16::MAX {
        payload = v.to_be_bytes();
        let r = repr_with(
            BodyRepr::Odata { sqn: 1, trail: 0 },
            OptionsRepr::default(),
            &payload,
        );
        let mut buf = [0u8; 26];
        r.emit(&mut buf).unwrap();
        if buf[6..8] == [0xff, 0xff] {
            assert_eq!(
                checksum::internet_checksum(&{
                    let mut z = buf;
                    z[6] = 0;
                    z[7] = 0;
                    z
                }),
                0
            );
            assert_eq!(PacketRepr::parse(&buf).unwrap().payload, payload);
            return;
        }
    }
    panic!("no payload gives checksum 0 ({payload:?})");
}

/// An SPMR carrying 0x33 OPT_CONVOY_RECEIVER_STATUS, as Convoy's receivers send it upstream.
const SPMR: &str = "1d4c 0445 0c 00 0000 65aaceceacc1 0000";

#[test]
fn convoy_receiver_status_on_spmr() {
    let p = with_options(
        SPMR,
        "00 04 0014 | b3 10 0000 | 0a0b0c0d | 00000002 | 00000007",
    );
    let r = PacketRepr::parse(&p).unwrap();
    assert_eq!(r.body, BodyRepr::Spmr);
    let status = ReceiverStatus {
        token: 0x0a0b_0c0d,
        state: 2,
        detail: 7,
    };
    assert_eq!(r.options.receiver_status, Some(status));
    let view = Packet::new_checked(&p[..]).unwrap();
    assert!(view
        .options()
        .any(|o| o == PgmOption::ReceiverStatus(status)));
    let mut buf = vec![0; r.buffer_len()];
    r.emit(&mut buf).unwrap();
    assert_eq!(buf, p, "our own emission is byte-identical");
}

#[test]
fn convoy_needs_beside_the_status() {
    let p = with_options(
        SPMR,
        "00 04 0028 | 33 10 0000 | 00000001 | 00000004 | 00000002 | bb 14 0000 | 00000000 00000003 | 00000009 00000001",
    );
    let r = PacketRepr::parse(&p).unwrap();
    assert_eq!(
        r.options.needs,
        vec![
            BlockRange { first: 0, count: 3 },
            BlockRange { first: 9, count: 1 }
        ]
    );
    let mut buf = vec![0; r.buffer_len()];
    r.emit(&mut buf).unwrap();
    assert_eq!(buf, p, "our own emission is byte-identical");
}

#[test]
fn convoy_needs_wrong_length() {
    let p = with_options(
        SPMR,
        "00 04 0014 | bb 10 0000 | 00000001 | 00000002 | 00000003",
    );
    assert_eq!(
        msg(&p),
        "SPMR: OPT_CONVOY_NEEDS at offset 20: length 16 is not 4+8N with 1 ≤ N ≤ 31"
    );
    let status = with_options(
        SPMR,
        "00 04 0014 | b3 10 0000 | 00000001 | 00000004 | 00000002",
    );
    let mut r = PacketRepr::parse(&status).unwrap();
    r.options.needs = vec![BlockRange::default(); MAX_NEEDS + 1];
    let mut buf = vec![0; r.buffer_len()];
    let e = r.emit(&mut buf).unwrap_err();
    assert_eq!(e.field, "options.needs");
}

#[test]
fn convoy_auth_last_with_its_tag_at_the_end_of_the_options() {
    let auth = "bc 2c 0001 | 000102030405060708090a0b0c0d0e0f | 0000000000000009 | f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";
    let p = with_options(SPMR, &format!("00 04 0030 | {auth}"));
    let r = PacketRepr::parse(&p).unwrap();
    let a = r.options.auth.unwrap();
    assert!(a.encrypted);
    assert_eq!(a.counter, 9);
    assert_eq!(a.sender[15], 0x0f);
    assert_eq!(a.tag[0], 0xf0);
    let view = Packet::new_checked(&p[..]).unwrap();
    assert_eq!(view.auth_option_offset(), Some(20));
    let mut buf = vec![0; r.buffer_len()];
    r.emit(&mut buf).unwrap();
    assert_eq!(buf, p, "our own emission is byte-identical");
    let short = with_options(SPMR, "00 04 0010 | bc 0c 0000 | 00000001 | 00000002");
    assert_eq!(
        msg(&short),
        "SPMR: OPT_CONVOY_AUTH at offset 20: length 12 is not 44"
    );
}

#[test]
fn convoy_receiver_status_wrong_length() {
    let p = with_options(SPMR, "00 04 0010 | b3 0c 0000 | 00000001 | 00000002");
    assert_eq!(
        msg(&p),
        "SPMR: OPT_CONVOY_RECEIVER_STATUS at offset 20: length 12 is not 16"
    );
}

#[test]
fn rfc3208_11_8_parity_options() {
    // OPT_PARITY_PRM on an SPM: P (0x02) and a group of 16.
    let p = with_options(SPM, "00 04 000c | 88 08 0002 00000010");
    let r = PacketRepr::parse(&p).unwrap();
    assert_eq!(
        r.options.parity.params,
        Some(ParityParams {
            proactive: true,
            on_demand: false,
            tg_size: 16
        })
    );
    // Neither P nor O, and a parity group numbered 0, are what §11.8 forbids.
    assert_eq!(
        msg(&with_options(SPM, "00 04 000c | 88 08 0000 00000010")),
        "SPM: OPT_PARITY_PRM at offset 40: field P/O bits is 0, expected P (0x02) or O (0x01) set"
    );
    assert_eq!(
        msg(&with_options(SPM, "00 04 000c | 89 08 0000 00000000")),
        "SPM: OPT_PARITY_GRP at offset 40: field PRM_GROUP is 0, expected not 0"
    );
    assert_eq!(
        msg(&with_options(SPM, "00 04 0008 | 8a 04 0000")),
        "SPM: OPT_CURR_TGSIZE at offset 40: length 4 is not 8"
    );
    // Convoy's parity code beside it (0x3D, 4 bytes, the code in byte 3).
    let p = with_options(SPM, "00 04 0010 | 08 08 0001 00000010 | bd 04 0001");
    let r = PacketRepr::parse(&p).unwrap();
    assert_eq!(r.options.parity.code, Some(convoy_wire::PARITY_CODE_RS16));
    assert_eq!(
        msg(&with_options(SPM, "00 04 000c | bd 08 0001 00000000")),
        "SPM: OPT_CONVOY_PARITY_CODE at offset 40: length 8 is not 4"
    );
    // OPT_NETWORK: OPT_PARITY_PRM always, OPT_CURR_TGSIZE except on ODATA.
    let network = |body: BodyRepr, payload: &[u8], parity: ParityOptions| {
        let x = repr_with(
            body,
            OptionsRepr {
                parity,
                ..OptionsRepr::default()
            },
            payload,
        );
        let mut buf = vec![0u8; x.buffer_len()];
        x.emit(&mut buf).unwrap();
        assert_eq!(PacketRepr::parse(&buf).unwrap().options.parity, parity);
        buf[5] & 0x02 != 0
    };
    let spm = BodyRepr::Spm {
        sqn: 1,
        trail: 0,
        lead: 0,
        path_nla: IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)),
    };
    let odata = BodyRepr::Odata { sqn: 3, trail: 0 };
    let rdata = BodyRepr::Rdata { sqn: 3, trail: 0 };
    let tgs = ParityOptions {
        curr_tg_size: Some(5),
        ..ParityOptions::default()
    };
    let prm = ParityOptions {
        params: Some(ParityParams {
            proactive: false,
            on_demand: true,
            tg_size: 32,
        }),
        ..ParityOptions::default()
    };
    assert!(network(spm, b"", prm));
    assert!(!network(odata, b"x", tgs));
    assert!(network(rdata, b"x", tgs));
    assert!(network(spm, b"", tgs));
    // Emission refuses what parsing would.
    let bad = ParityOptions {
        params: Some(ParityParams {
            proactive: false,
            on_demand: false,
            tg_size: 8,
        }),
        ..ParityOptions::default()
    };
    let x = repr_with(
        spm,
        OptionsRepr {
            parity: bad,
            ..OptionsRepr::default()
        },
        b"",
    );
    let mut buf = vec![0u8; x.buffer_len()];
    let e = x.emit(&mut buf).unwrap_err();
    assert_eq!(e.field, "options.parity.params");
    assert!(matches!(e.kind, EmitErrorKind::BadField { value: 0, .. }));
}
