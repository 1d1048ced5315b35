//! Byte-exact fixtures from real OpenPGM 5.3 captures (docs/wire-format.md §1.2, §1.4).

use std::net::{IpAddr, Ipv4Addr};

use convoy_wire::cc::pgmcc::PgmccOption;
use convoy_wire::{
    checksum, BodyRepr, Gsi, OptionsRepr, Packet, PacketRepr, PacketType, PgmOption, PgmccData,
    PgmccFeedback, Tsi,
};
use convoy_wire::{CcOption, CcOptions, PgmccOptions};

/// Decode a hex dump, ignoring spaces and `|` separators.
fn hex(s: &str) -> Vec<u8> {
    let digits: Vec<u8> = s.bytes().filter(u8::is_ascii_hexdigit).collect();
    assert_eq!(digits.len() % 2, 0, "odd hex dump");
    digits
        .chunks(2)
        .map(|c| u8::from_str_radix(std::str::from_utf8(c).unwrap(), 16).unwrap())
        .collect()
}

const GSI: Gsi = Gsi([0x65, 0xaa, 0xce, 0xce, 0xac, 0xc1]);
const SOURCE_NLA: IpAddr = IpAddr::V4(Ipv4Addr::new(10, 99, 0, 1));

fn emit(repr: &PacketRepr<'_>) -> Vec<u8> {
    let mut buf = vec![0u8; repr.buffer_len()];
    assert_eq!(repr.emit(&mut buf), Ok(buf.len()));
    buf
}

fn carried_checksum(p: &[u8]) -> u16 {
    u16::from_be_bytes([p[6], p[7]])
}

/// Quoted verbatim from docs/wire-format.md §1.2 (SPM example).
const SPM: &str =
    "0445 1d4c 00 00 f2ce 65aaceceacc1 0000 | 00000000 00000000 ffffffff | 0001 0000 0a630001";

#[test]
fn spm() {
    let bytes = hex(SPM);
    assert_eq!(bytes.len(), 36);
    assert_eq!(checksum::pgm(&bytes), 0xf2ce, "captured checksum verifies");
    let repr = PacketRepr::parse(&bytes).unwrap();
    assert_eq!(
        repr,
        PacketRepr {
            source_port: 0x0445,
            dest_port: 0x1d4c,
            gsi: GSI,
            body: BodyRepr::Spm {
                sqn: 0,
                trail: 0,
                lead: 0xffff_ffff,
                path_nla: SOURCE_NLA,
            },
            options: OptionsRepr::default(),
            payload: &[],
        }
    );
    assert_eq!(
        repr.tsi(),
        Tsi {
            gsi: GSI,
            source_port: 0x0445
        }
    );
    assert_eq!(emit(&repr), bytes);

    let view = Packet::new_checked(&bytes[..]).unwrap();
    assert_eq!(view.packet_type(), PacketType::Spm);
    assert_eq!(view.sqn(), Some(0));
    assert_eq!(view.lead(), Some(0xffff_ffff));
    assert_eq!(view.path_nla(), Some(SOURCE_NLA));
    assert_eq!(view.options().count(), 0);
    assert!(view.verify_checksum().is_ok());
}

/// Quoted verbatim from docs/wire-format.md §1.2 (NAK example).
const NAK: &str =
    "1d4c 0445 08 00 fb0a 65aaceceacc1 0000 | 00000001 | 0001 0000 0a630001 | 0001 0000 efc00001";

#[test]
fn nak() {
    let bytes = hex(NAK);
    assert_eq!(checksum::pgm(&bytes), 0xfb0a, "captured checksum verifies");
    let repr = PacketRepr::parse(&bytes).unwrap();
    assert_eq!(repr.source_port, 0x1d4c);
    assert_eq!(repr.dest_port, 0x0445);
    assert_eq!(
        repr.body,
        BodyRepr::Nak {
            sqn: 1,
            source_nla: SOURCE_NLA,
            group_nla: IpAddr::V4(Ipv4Addr::new(239, 192, 0, 1)),
        }
    );
    assert!(repr.options.is_empty());
    // Upstream: the data-source port is the destination port.
    assert_eq!(repr.tsi().source_port, 0x0445);
    assert_eq!(emit(&repr), bytes);
}

/// Quoted verbatim from docs/wire-format.md §1.2 (ACK from an OpenPGM receiver).
const ACK: &str = "1d4c 0445 0d 01 93f9 65aaceceacc1 0000 | 00000000 | ffffffff | 00 04 0014 | 93 10 78 00 | 019d450d | 0001 | 0000 | 0a630002";

#[test]
fn ack() {
    let bytes = hex(ACK);
    assert_eq!(bytes.len(), 44);
    assert_eq!(checksum::pgm(&bytes), 0x93f9, "captured checksum verifies");
    let repr = PacketRepr::parse(&bytes).unwrap();
    assert_eq!(repr.packet_type(), PacketType::Ack);
    assert_eq!(
        repr.body,
        BodyRepr::Ack {
            rx_max: 0,
            bitmap: 0xffff_ffff
        }
    );
    assert_eq!(
        repr.options,
        OptionsRepr {
            cc: CcOptions {
                pgmcc: PgmccOptions {
                    feedback: Some(PgmccFeedback {
                        tstamp: 0x019d_450d,
                        loss_rate: 0,
                        reporter: IpAddr::V4(Ipv4Addr::new(10, 99, 0, 2)),
                    }),
                    ..PgmccOptions::default()
                },
                ..CcOptions::default()
            },
            ..OptionsRepr::default()
        }
    );
    assert_eq!(repr.tsi().source_port, 0x0445);

    // OpenPGM leaves the feedback option's OPX byte (offset 28 + 2) uninitialised (0x78); we
    // write 0x00 there, so the checksum differs too. Everything else is identical.
    let out = emit(&repr);
    assert_eq!(out.len(), bytes.len());
    let mut expected = bytes.clone();
    expected[30] = 0x00;
    assert_eq!(out[..6], expected[..6]);
    assert_eq!(out[8..], expected[8..]);
    assert_eq!(carried_checksum(&out), checksum::pgm(&expected));
    assert_ne!(carried_checksum(&out), 0x93f9);
    assert_eq!(PacketRepr::parse(&out).unwrap(), repr);

    let view = Packet::new_checked(&bytes[..]).unwrap();
    let opts: Vec<_> = view.options().collect();
    assert_eq!(opts.len(), 2);
    assert_eq!(opts[0], PgmOption::Length(20));
    assert!(matches!(
        opts[1],
        PgmOption::Cc(CcOption::Pgmcc(PgmccOption::Feedback(_)))
    ));
    let raw: Vec<_> = view.raw_options().map(Result::unwrap).collect();
    assert_eq!(raw[1].opx_byte(), 0x78);
    assert!(raw[1].is_end());
    assert!(!raw[0].is_end());
    assert_eq!(view.rx_max(), Some(0));
    assert_eq!(view.ack_bitmap(), Some(0xffff_ffff));
}

/// The SPM with OPT_FIN that OpenPGM sends at close. docs/wire-format.md §1.2 quotes only the options
/// tail `000400088e040000` (OPT_LENGTH total 8, then OPT_FIN with END); the header and SPM
/// fields are those of the SPM example above with the options byte set to 0x01, and the
/// checksum 0x64bd was computed independently (a Python one's-complement sum) for this
/// reconstruction.
const SPM_FIN: &str = "0445 1d4c 00 01 64bd 65aaceceacc1 0000 | 00000000 00000000 ffffffff | 0001 0000 0a630001 | 00 04 0008 | 8e 04 00 00";

#[test]
fn spm_fin() {
    let bytes = hex(SPM_FIN);
    assert_eq!(checksum::pgm(&bytes), 0x64bd);
    let repr = PacketRepr::parse(&bytes).unwrap();
    assert!(matches!(repr.body, BodyRepr::Spm { .. }));
    assert_eq!(
        repr.options,
        OptionsRepr {
            fin: true,
            ..OptionsRepr::default()
        }
    );
    assert_eq!(emit(&repr), bytes);
}

/// ODATA during a pgmcc election. The options are quoted from docs/wire-format.md §1.4
/// (`00 04 0014 | 92 10 00 00 | 019d44f9 | 0001 | 0000 | 00000000`); the header (ports and GSI
/// of the captures above, options byte 0x01, TSDU length 5), DATA_SQN = DATA_TRAIL = 0 and the
/// payload "hello" are built here, and the checksum 0xdc9b was computed independently (Python).
const ODATA_PGMCC: &str = "0445 1d4c 04 01 dc9b 65aaceceacc1 0005 | 00000000 00000000 | 00 04 0014 | 92 10 00 00 | 019d44f9 | 0001 | 0000 | 00000000 | 68656c6c6f";

#[test]
fn odata_pgmcc_data() {
    let bytes = hex(ODATA_PGMCC);
    assert_eq!(checksum::pgm(&bytes), 0xdc9b);
    let repr = PacketRepr::parse(&bytes).unwrap();
    assert_eq!(repr.body, BodyRepr::Odata { sqn: 0, trail: 0 });
    assert_eq!(repr.payload, b"hello");
    let data = repr.options.cc.pgmcc.data.unwrap();
    assert_eq!(
        data,
        PgmccData {
            tstamp: 0x019d_44f9,
            acker: IpAddr::V4(Ipv4Addr::UNSPECIFIED),
        }
    );
    assert!(data.is_election_request());
    assert_eq!(emit(&repr), bytes);

    let view = Packet::new_checked(&bytes[..]).unwrap();
    assert_eq!(view.payload(), b"hello");
    assert_eq!(view.tsdu_length(), 5);
    assert_eq!(view.options_offset(), 24);
    assert_eq!(view.options_bytes().len(), 20);
}

/// After the election the acker field carries the acker's address (docs/wire-format.md §1.4).
#[test]
fn odata_with_acker() {
    let mut bytes = hex(ODATA_PGMCC);
    bytes[40..44].copy_from_slice(&[0x0a, 0x63, 0x00, 0x03]);
    checksum::fill(&mut bytes);
    let repr = PacketRepr::parse(&bytes).unwrap();
    let data = repr.options.cc.pgmcc.data.unwrap();
    assert_eq!(data.acker, IpAddr::V4(Ipv4Addr::new(10, 99, 0, 3)));
    assert!(!data.is_election_request());
}
