//! Hostile input for the endpoints: run a [`Sender`] or a [`Receiver`] on a script of arbitrary datagrams, time
//! steps and application calls, checking that nothing panics and that whatever the endpoint emits is a valid
//! packet. Used by the cargo-fuzz targets `proto_sender` and `proto_receiver` (`fuzz/`) and by a deterministic
//! no-panic test.
//!
//! # Script
//!
//! Records, each starting with an opcode byte:
//! * `op % 4 == 0`: a datagram whose PGM checksum is fixed up (so the parser looks past it): `from` selector
//!   byte, length (u16, big-endian, at most 4096), then that many bytes; in a keyed run (bit 1 of the script's
//!   first byte) it is also sealed with the session's key when it parses, so the fuzzer reaches what lies past
//!   authentication ([`crate::auth`]);
//! * `op % 4 == 1`: the same without fixing the checksum;
//! * `op % 4 == 2`: time advances by the next byte in milliseconds; then `handle_timeout`;
//! * `op % 4 == 3`: an application call chosen by the next byte (write an APDU of that many bytes, close,
//!   status report, supply a repair).
//!
//! The script's first byte also configures the endpoint: bit 0 a fixed-rate controller, bit 1 a keyed session,
//! bit 2 (sender) parity over groups of 4, bit 3 with it pro-active parity, bit 4 datagrams handed over writable
//! (`handle_datagram_in_place`: a keyed endpoint opens them where they lie).
//!
//! After every record the outputs are drained in the documented order and every transmitted packet must parse.
//!
//! [`run_auth`] is the keyed sessions' own: sealing and opening ([`crate::auth`]) on arbitrary bytes, for the
//! cargo-fuzz target `proto_auth`.

use crate::auth::{AuthConfig, PacketSealer, SessionKey};
use crate::cc::CcConfig;
use crate::receiver::{LateJoin, Receiver, ReceiverConfig};
use crate::sender::{ParityConfig, Sender, SenderConfig, SenderEvent};
use crate::time::Instant;
use convoy_wire::{checksum, PacketRepr, ReceiverStatus};
use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

fn addr(selector: u8) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(10, 0, selector % 4, 1 + selector / 64))
}

/// One decoded record.
enum Step<'a> {
    Datagram {
        from: IpAddr,
        bytes: Vec<u8>,
        /// Checksum fixed up: sealed too in a keyed run.
        fixed: bool,
    },
    Advance(Duration),
    App(u8, &'a [u8]),
}

fn steps(data: &[u8]) -> impl Iterator<Item = Step<'_>> {
    let mut at = 0;
    std::iter::from_fn(move || {
        let op = *data.get(at)?;
        at += 1;
        match op % 4 {
            0 | 1 => {
                let from = addr(*data.get(at)?);
                let len = usize::from(u16::from_be_bytes([*data.get(at + 1)?, *data.get(at + 2)?]))
                    .min(4096);
                at += 3;
                let end = (at + len).min(data.len());
                let mut bytes = data[at..end].to_vec();
                at = end;
                if op % 4 == 0 && bytes.len() >= 16 {
                    checksum::fill(&mut bytes);
                }
                Some(Step::Datagram {
                    from,
                    bytes,
                    fixed: op % 4 == 0,
                })
            }
            2 => {
                let ms = *data.get(at)?;
                at += 1;
                Some(Step::Advance(Duration::from_millis(u64::from(ms))))
            }
            _ => {
                let arg = *data.get(at)?;
                at += 1;
                Some(Step::App(arg, &data[at..]))
            }
        }
    })
}

/// The session key of keyed runs, with a member's identity.
fn session_auth(identity: u8) -> AuthConfig {
    AuthConfig {
        key: SessionKey::from_bytes([0x5e; 32]),
        encrypt: identity.is_multiple_of(2),
        identity: [identity; 16],
    }
}

/// In a keyed run (bit 1 of the first byte): the endpoint's key, and a peer that seals what it hands over.
fn keyed(data: &[u8], identity: u8) -> (Option<AuthConfig>, Option<PacketSealer>) {
    if data.first().is_some_and(|b| b & 2 == 2) {
        let peer = PacketSealer::new(&session_auth(identity.wrapping_add(1)));
        (Some(session_auth(identity)), Some(peer))
    } else {
        (None, None)
    }
}

/// The datagram as the endpoint gets it: if the run is keyed, the record asks for it and it parses, emitted
/// again with room for OPT_CONVOY_AUTH and sealed by `peer` as an endpoint seals (else as it is).
fn as_received(peer: &mut Option<PacketSealer>, bytes: Vec<u8>, fixed: bool) -> Vec<u8> {
    let (Some(p), true) = (peer.as_mut(), fixed) else {
        return bytes;
    };
    let Ok(mut repr) = PacketRepr::parse_without_checksum(&bytes) else {
        return bytes;
    };
    PacketSealer::reserve(&mut repr.options);
    let mut out = vec![0u8; repr.buffer_len()];
    if repr.emit(&mut out).is_err() || p.seal(&mut out).is_err() {
        return bytes;
    }
    out
}

/// Whether the script hands datagrams over writable (bit 4 of its first byte).
fn writable(data: &[u8]) -> bool {
    data.first().is_some_and(|b| b & 16 != 0)
}

/// Sealing and opening on arbitrary bytes: the first byte picks encryption (bit 0) and a one-bit change to try
/// (the rest of it and the next, as a bit index); the rest is a datagram. Checks that
/// * opening the bytes as they are, in a copy and in place, refuses them without panicking (no tag matches
///   without the key's sealing, but with probability 2^-128);
/// * when they parse as a packet, emitting it with room for OPT_CONVOY_AUTH and sealing it gives a valid PGM
///   packet that opens, both ways, to the same bytes, which are the emitted ones but for the option's fields
///   (checksum zero), once: again it is a replay;
/// * the sealed packet with one bit changed outside its checksum is refused.
pub fn run_auth(data: &[u8]) {
    let (Some(&first), Some(&second)) = (data.first(), data.get(1)) else {
        return;
    };
    let bytes = &data[2..];
    let config = AuthConfig {
        encrypt: first & 1 == 1,
        ..session_auth(1)
    };
    let mut opener = crate::auth::PacketOpener::new(&config);
    assert!(opener.open(bytes).is_err(), "arbitrary bytes opened");
    assert!(opener.open_in_place(&mut bytes.to_vec()).is_err());
    let Ok(mut repr) = PacketRepr::parse_without_checksum(bytes) else {
        return;
    };
    PacketSealer::reserve(&mut repr.options);
    let mut sealed = vec![0u8; repr.buffer_len()];
    if repr.emit_for_sealing(&mut sealed).is_err() {
        return;
    }
    PacketSealer::new(&config)
        .seal(&mut sealed)
        .expect("room was reserved");
    PacketRepr::parse(&sealed).expect("a sealed packet is a valid PGM packet");
    let mut opener = crate::auth::PacketOpener::new(&config);
    let opened = opener
        .open(&sealed)
        .expect("a sealed packet opens")
        .to_vec();
    let mut back = PacketRepr::parse_without_checksum(&opened).expect("opens to a packet");
    assert_eq!(back.options.auth.map(|a| a.counter), Some(1));
    back.options.auth = repr.options.auth;
    assert_eq!(back, repr, "opened to what was emitted");
    let mut in_place = sealed.clone();
    let mut fresh = crate::auth::PacketOpener::new(&config);
    assert_eq!(fresh.open_in_place(&mut in_place), Ok(()));
    assert_eq!(in_place, opened);
    assert!(opener.open(&sealed).is_err(), "a replay opened");
    let bit = usize::from(u16::from_be_bytes([first >> 1, second])) % (sealed.len() * 8);
    if !convoy_wire::field::header::CHECKSUM.contains(&(bit / 8)) {
        let mut forged = sealed;
        forged[bit / 8] ^= 1 << (bit % 8);
        let mut fresh = crate::auth::PacketOpener::new(&config);
        assert!(fresh.open(&forged).is_err(), "bit {bit} changed and opened");
    }
}

fn check_emitted(bytes: &[u8]) {
    if let Err(e) = PacketRepr::parse(bytes) {
        panic!("an endpoint emitted a packet it cannot parse: {e}");
    }
}

fn drain_sender(s: &mut Sender, now: Instant, buf: &mut [u8]) {
    let mut n = 0;
    while let Some(t) = s.poll_transmit(now, buf) {
        check_emitted(&buf[..t.len]);
        n += 1;
        if n > 100_000 {
            panic!("poll_transmit does not run dry");
        }
    }
    let _ = s.poll_timeout();
    while let Some(e) = s.poll_event() {
        if let SenderEvent::RepairRequested { sqn } = e {
            // Answer with an APDU of matching shape (one packet at `sqn`).
            s.supply_repair(sqn, sqn, &sqn.to_be_bytes());
        }
    }
}

/// Run a sender (pgmcc or fixed, small window, repair floor set) on `data`.
pub fn run_sender(data: &[u8]) {
    let mut config = SenderConfig::new(addr(0), IpAddr::V4(Ipv4Addr::new(239, 1, 1, 1)));
    config.txw_max_packets = 64;
    config.max_tsdu = 200;
    config.repair_rate_max = Some(1_000_000);
    if data.first().is_some_and(|b| b & 1 == 1) {
        config.cc = CcConfig::Fixed(Default::default());
    }
    // Bit 2: parity over groups of 4, with pro-active parity when bit 3 is set too (RFC 3208 §11).
    if let Some(&b) = data.first().filter(|&&b| b & 4 != 0) {
        config.parity = Some(ParityConfig {
            group_size: 4,
            proactive: u32::from(b >> 3 & 1),
            on_demand: true,
        });
    }
    let (auth, mut peer) = keyed(data, 2);
    config.auth = auth;
    let mut now = Instant::ZERO;
    let mut s = Sender::new(config, now);
    let floor = s.next_write_sqn();
    s.set_repair_floor(Some(floor));
    let mut buf = vec![0u8; 2048];
    for step in steps(data) {
        match step {
            Step::Datagram { from, bytes, fixed } => {
                let mut bytes = as_received(&mut peer, bytes, fixed);
                if writable(data) {
                    s.handle_datagram_in_place(now, from, &mut bytes)
                } else {
                    s.handle_datagram(now, from, &bytes)
                }
            }
            Step::Advance(d) => {
                now += d;
                s.handle_timeout(now);
            }
            Step::App(arg, rest) => match arg % 3 {
                0 | 1 => {
                    let len = usize::from(arg) * 4;
                    let _ = s.write(&rest[..len.min(rest.len())]);
                }
                _ => s.close(now),
            },
        }
        drain_sender(&mut s, now, &mut buf);
    }
}

/// Run a receiver (late join from the trail) on `data`.
pub fn run_receiver(data: &[u8]) {
    let mut config = ReceiverConfig::new(addr(1), IpAddr::V4(Ipv4Addr::new(239, 1, 1, 1)));
    config.late_join = LateJoin::FromTrail;
    config.rxw.max_packets = 4096;
    config.rxw.max_apdu_len = 1 << 16;
    if data.first().is_some_and(|b| b & 1 == 1) {
        config.cc = CcConfig::Fixed(Default::default());
    }
    let (auth, mut peer) = keyed(data, 4);
    config.auth = auth;
    let mut r = Receiver::new(config, 7);
    let mut now = Instant::ZERO;
    let mut buf = vec![0u8; 2048];
    for step in steps(data) {
        match step {
            Step::Datagram { from, bytes, fixed } => {
                let mut bytes = as_received(&mut peer, bytes, fixed);
                if writable(data) {
                    r.handle_datagram_in_place(now, from, &mut bytes)
                } else {
                    r.handle_datagram(now, from, &bytes)
                }
            }
            Step::Advance(d) => {
                now += d;
                r.handle_timeout(now);
            }
            Step::App(arg, _) => match arg % 2 {
                0 => r.send_status(ReceiverStatus {
                    token: u32::from(arg),
                    state: 1,
                    detail: 0,
                }),
                _ => r.close(now),
            },
        }
        let mut n = 0;
        while let Some(t) = r.poll_transmit(now, &mut buf) {
            check_emitted(&buf[..t.len]);
            n += 1;
            assert!(n <= 100_000, "poll_transmit does not run dry");
        }
        let _ = r.poll_timeout();
        while r.poll_event().is_some() {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sender::SenderConfig;
    use convoy_wire::{BodyRepr, OptionsRepr};
    use rand_chacha::ChaCha8Rng;
    use rand_core::{RngCore, SeedableRng};

    /// Valid packets of a session (SPM, ODATA, NAK, ACK-like), to be mutated.
    fn valid_packets() -> Vec<Vec<u8>> {
        let group = IpAddr::V4(Ipv4Addr::new(239, 1, 1, 1));
        let mut s = Sender::new(SenderConfig::new(addr(0), group), Instant::ZERO);
        for i in 0..5u8 {
            s.write(&[i; 300]).unwrap();
        }
        let mut buf = vec![0u8; 2048];
        let mut out = Vec::new();
        while let Some(t) = s.poll_transmit(Instant::ZERO, &mut buf) {
            out.push(buf[..t.len].to_vec());
        }
        let tsi = s.tsi();
        let nak = PacketRepr {
            source_port: 7500,
            dest_port: tsi.source_port,
            gsi: tsi.gsi,
            body: BodyRepr::Nak {
                sqn: 1,
                source_nla: addr(0),
                group_nla: group,
            },
            options: OptionsRepr {
                nak_list: vec![2, 3, 4],
                ..OptionsRepr::default()
            },
            payload: &[],
        };
        let mut b = vec![0u8; nak.buffer_len()];
        nak.emit(&mut b).unwrap();
        out.push(b);
        out
    }

    #[test]
    fn ten_thousand_hostile_scripts_do_not_panic() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let valid = valid_packets();
        for i in 0..10_000 {
            let mut script = Vec::new();
            for _ in 0..(rng.next_u32() % 40) {
                match rng.next_u32() % 5 {
                    0 => script.extend([2, (rng.next_u32() % 200) as u8]),
                    1 => script.extend([3, rng.next_u32() as u8]),
                    _ => {
                        let mut p = valid[rng.next_u32() as usize % valid.len()].clone();
                        for _ in 0..(rng.next_u32() % 4) {
                            let k = rng.next_u32() as usize % p.len();
                            p[k] = rng.next_u32() as u8;
                        }
                        let op = if rng.next_u32() % 8 == 0 { 1 } else { 0 };
                        script.extend([op, rng.next_u32() as u8]);
                        script.extend((p.len() as u16).to_be_bytes());
                        script.extend(p);
                    }
                }
            }
            // Every other pair of runs keyed (bit 1 of the first byte), half of those writable (bit 4).
            script.insert(0, (i % 4) as u8 | (i / 4 % 2 * 16) as u8);
            if i % 2 == 0 {
                run_sender(&script);
            } else {
                run_receiver(&script);
            }
        }
    }

    #[test]
    fn ten_thousand_hostile_sealings_and_openings() {
        let mut rng = ChaCha8Rng::seed_from_u64(6);
        let valid = valid_packets();
        for _ in 0..10_000 {
            let mut p = valid[rng.next_u32() as usize % valid.len()].clone();
            for _ in 0..(rng.next_u32() % 3) {
                let k = rng.next_u32() as usize % p.len();
                p[k] = rng.next_u32() as u8;
            }
            let mut data = vec![rng.next_u32() as u8, rng.next_u32() as u8];
            data.extend(p);
            run_auth(&data);
        }
    }
}
