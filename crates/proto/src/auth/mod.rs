//! Keyed sessions: every packet authenticated, payloads optionally encrypted, replays dropped
//! (docs/keyed-sessions.md).
//!
//! Everyone in a keyed session (the source and its receivers) holds the same 32-byte [`SessionKey`]. Each
//! endpoint draws a random 16-byte identity when it starts and counts the packets it sends from 1. The AEAD is
//! suite 1 ([`suite`]): AES-256-GCM under a subkey derived from the session key, the identity and the counter's
//! epoch, with the counter as nonce — so no nonce repeats under one key (the argument is in [`suite`]'s docs).
//!
//! **Sealing** ([`PacketSealer`]), where the packet lies. The endpoint emits the packet with room for 0x3C
//! OPT_CONVOY_AUTH as its last option ([`PacketSealer::reserve`]); [`PacketSealer::seal`] finds the option in
//! constant time (`convoy_wire::AuthSlot`), writes identity, counter, suite and the encrypted bit (byte 3, 0x01),
//! and computes the tag over the packet with its checksum and tag fields zero: as associated data the whole
//! packet, or, when encrypting, the bytes before the payload, the payload being encrypted in place. Then the
//! PGM checksum is filled in over the sealed bytes, so a network element sees an ordinary packet. Nothing is
//! copied and nothing parsed a second time.
//!
//! **Opening** ([`PacketOpener::open`], or [`PacketOpener::open_in_place`]), before a packet touches any state.
//! A packet without the option, of another suite, with a wrong tag, or whose counter the replay window
//! ([`ReplayWindow`], RFC 4303 §3.4.3) has seen or left behind is refused with its reason ([`AuthError`]); the
//! window moves only for packets whose tag matched, so forged packets cannot move it. What is handed on is the
//! packet as sent, decrypted, with its checksum zeroed (the tag vouches for it): parse it without checksum
//! verification.
//!
//! An endpoint without a key refuses packets whose parsed options carry it ([`AuthError::Keyed`]): their payload
//! may be ciphertext, and their sender expects keyed answers. [`refuses_keyed`] tells the same from raw bytes, for
//! a driver that would drop such packets before the engine.

mod opener;
mod replay;
mod sealer;
pub mod suite;

pub use opener::{PacketOpener, MAX_WINDOWS};
pub use replay::{ReplayWindow, REPLAY_WINDOW};
pub use sealer::{NoRoom, PacketSealer};

use convoy_wire::field::option as field;
use convoy_wire::Packet;
use std::fmt;

/// The secret every member of a keyed session holds.
#[derive(Clone, PartialEq, Eq)]
pub struct SessionKey([u8; 32]);

impl SessionKey {
    /// A key from its 32 bytes.
    pub fn from_bytes(bytes: [u8; 32]) -> Self {
        SessionKey(bytes)
    }
}

impl fmt::Debug for SessionKey {
    /// Never prints the key.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SessionKey(..)")
    }
}

/// How an endpoint takes part in a keyed session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuthConfig {
    /// The session's key.
    pub key: SessionKey,
    /// Encrypt the payloads this endpoint sends (data and repairs; other packets have none).
    pub encrypt: bool,
    /// This endpoint's random identity, the first 16 bytes of its nonces: drawn by the driver (from the
    /// operating system on the network, from the run's seed in the simulator), new for every endpoint start.
    pub identity: [u8; 16],
}

/// Most bytes OPT_CONVOY_AUTH adds to a packet (to subtract from the largest TSDU): the option, and OPT_LENGTH
/// when the packet had no options.
pub const AUTH_OVERHEAD: usize = field::AUTH_LEN + convoy_wire::OPT_LENGTH_LEN;

/// Why a packet was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AuthError {
    /// The packet does not parse far enough to find its options.
    Malformed,
    /// No OPT_CONVOY_AUTH: its sender has no key.
    Unauthenticated,
    /// OPT_CONVOY_AUTH came to an endpoint without a key.
    Keyed,
    /// Sealed with an AEAD suite this endpoint does not speak (suite 0: XChaCha20-Poly1305, an earlier Convoy's).
    Suite {
        /// The suite number found (OPT_CONVOY_AUTH byte 3, high nibble).
        found: u8,
    },
    /// The tag does not match: another key, or forged or damaged bytes.
    BadTag,
    /// Its counter was seen already, or is older than the replay window.
    Replayed {
        /// The counter.
        counter: u64,
    },
}

impl fmt::Display for AuthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Malformed => f.write_str("malformed packet"),
            Self::Unauthenticated => {
                f.write_str("no OPT_CONVOY_AUTH: the sender has no key and this session is keyed")
            }
            Self::Keyed => {
                f.write_str("OPT_CONVOY_AUTH: the sender uses a key and this endpoint has none")
            }
            Self::BadTag => {
                f.write_str("authentication tag does not match (another key, or forged)")
            }
            Self::Suite { found } => write!(
                f,
                "sealed with AEAD suite {found}{}, this endpoint opens suite {} (AES-256-GCM): both ends need \
                 the same Convoy version",
                if *found == 0 {
                    " (XChaCha20-Poly1305, an earlier Convoy)"
                } else {
                    ""
                },
                suite::SUITE
            ),
            Self::Replayed { counter } => write!(f, "replayed packet (counter {counter})"),
        }
    }
}

impl std::error::Error for AuthError {}

/// A datagram as its driver hands it to an endpoint: bytes the endpoint may only read (a keyed endpoint then
/// opens a copy), or bytes it may change (a keyed endpoint opens them where they lie).
pub(crate) enum Incoming<'a> {
    /// `handle_datagram`'s.
    Shared(&'a [u8]),
    /// `handle_datagram_in_place`'s.
    Writable(&'a mut [u8]),
}

impl Incoming<'_> {
    /// Its length.
    pub(crate) fn len(&self) -> usize {
        match self {
            Incoming::Shared(b) => b.len(),
            Incoming::Writable(b) => b.len(),
        }
    }
}

/// The first step of an endpoint's `handle_datagram`: without an opener hand `bytes` on as they are (`handle`'s
/// flag false: check the checksum, refuse OPT_CONVOY_AUTH); with one, open them first and hand on the packet as
/// sent (flag true) or `refuse` it. The opener (`opener` of `endpoint`) is taken out meanwhile, so the opened
/// bytes can borrow it while `handle` changes the endpoint.
pub(crate) fn open_then<T, O: std::borrow::BorrowMut<PacketOpener>>(
    endpoint: &mut T,
    opener: fn(&mut T) -> &mut Option<O>,
    bytes: Incoming<'_>,
    handle: impl FnOnce(&mut T, &[u8], bool),
    refuse: impl FnOnce(&mut T, AuthError),
) {
    let Some(mut o) = opener(endpoint).take() else {
        let bytes = match bytes {
            Incoming::Shared(b) => b,
            Incoming::Writable(b) => &*b,
        };
        return handle(endpoint, bytes, false);
    };
    let opened = match bytes {
        Incoming::Shared(b) => o.borrow_mut().open(b),
        Incoming::Writable(b) => o.borrow_mut().open_in_place(b).map(|()| &*b),
    };
    match opened {
        Ok(packet) => handle(endpoint, packet, true),
        Err(reason) => refuse(endpoint, reason),
    }
    *opener(endpoint) = Some(o);
}

/// For an endpoint without a key: whether `bytes` carries OPT_CONVOY_AUTH and must be refused.
pub fn refuses_keyed(bytes: &[u8]) -> bool {
    Packet::new_checked(bytes).is_ok_and(|p| p.auth_option_offset().is_some())
}

#[cfg(test)]
mod tests {
    use super::*;
    use convoy_wire::field::header;
    use convoy_wire::{BodyRepr, Gsi, OptionsRepr, PacketRepr};

    fn config(byte: u8, encrypt: bool) -> AuthConfig {
        AuthConfig {
            key: SessionKey::from_bytes([byte; 32]),
            encrypt,
            identity: [9; 16],
        }
    }

    /// An ODATA packet as an endpoint emits it, with room for OPT_CONVOY_AUTH if `keyed`.
    fn odata(payload: &[u8], keyed: bool) -> Vec<u8> {
        let mut repr = PacketRepr {
            source_port: 1000,
            dest_port: 7500,
            gsi: Gsi([1, 2, 3, 4, 5, 6]),
            body: BodyRepr::Odata { sqn: 7, trail: 0 },
            options: OptionsRepr::default(),
            payload,
        };
        if keyed {
            PacketSealer::reserve(&mut repr.options);
        }
        let mut buf = vec![0u8; 2000];
        let len = repr.emit(&mut buf).unwrap();
        buf.truncate(len);
        buf
    }

    fn sealed(sealer: &mut PacketSealer, payload: &[u8]) -> Vec<u8> {
        let mut p = odata(payload, true);
        sealer.seal(&mut p).unwrap();
        p
    }

    #[test]
    fn a_sealed_packet_opens_to_what_was_sent_and_is_a_valid_pgm_packet() {
        for encrypt in [false, true] {
            let mut s = PacketSealer::new(&config(1, encrypt));
            let p = sealed(&mut s, b"hello, group");
            assert_eq!(
                p.len(),
                odata(b"hello, group", false).len() + AUTH_OVERHEAD,
                "OPT_LENGTH and the option"
            );
            let on_wire = PacketRepr::parse(&p).expect("checksum and structure valid");
            assert_eq!(on_wire.payload == b"hello, group", !encrypt);
            let auth = on_wire.options.auth.unwrap();
            assert_eq!(
                (auth.suite, auth.encrypted, auth.counter),
                (suite::SUITE, encrypt, 1)
            );
            let mut o = PacketOpener::new(&config(1, false));
            let opened = o.open(&p).unwrap();
            let back = PacketRepr::parse_without_checksum(opened).unwrap();
            assert_eq!(back.payload, b"hello, group");
            assert_eq!(back.options.auth.unwrap().counter, 1);
            let mut in_place = p.clone();
            let mut o = PacketOpener::new(&config(1, false));
            o.open_in_place(&mut in_place).unwrap();
            assert_eq!(in_place, opened, "in place, the same bytes");
        }
    }

    #[test]
    fn a_packet_without_room_is_not_sealed_and_counts_nothing() {
        let mut s = PacketSealer::new(&config(1, true));
        let mut p = odata(b"x", false);
        assert_eq!(s.seal(&mut p), Err(NoRoom));
        assert_eq!((s.sealed(), p), (0, odata(b"x", false)));
    }

    #[test]
    fn a_wrong_key_a_flipped_bit_another_suite_or_no_tag_is_refused() {
        let plain = odata(b"payload", false);
        let p = sealed(&mut PacketSealer::new(&config(1, true)), b"payload");
        let mut other = PacketOpener::new(&config(2, true));
        assert_eq!(other.open(&p), Err(AuthError::BadTag));
        let mut o = PacketOpener::new(&config(1, true));
        for i in 0..p.len() {
            if header::CHECKSUM.contains(&i) {
                continue;
            }
            let mut bad = p.clone();
            bad[i] ^= 0x10;
            assert!(o.open(&bad).is_err(), "bit flipped at {i}");
        }
        let mut suite0 = p.clone();
        let at = convoy_wire::AuthSlot::locate(&p[..])
            .unwrap()
            .option_offset();
        suite0[at + field::SPECIFIC] &= 0x0f;
        assert_eq!(o.open(&suite0), Err(AuthError::Suite { found: 0 }));
        assert!(AuthError::Suite { found: 0 }
            .to_string()
            .contains("XChaCha20-Poly1305"));
        assert_eq!(o.open(&plain), Err(AuthError::Unauthenticated));
        assert_eq!(o.open(&p[..10]), Err(AuthError::Malformed));
        assert!(refuses_keyed(&p) && !refuses_keyed(&plain));
        assert!(o.open(&p).is_ok(), "forgeries moved nothing");
    }

    #[test]
    fn replays_are_refused_within_and_beyond_the_window() {
        let mut s = PacketSealer::new(&config(1, false));
        let mut o = PacketOpener::new(&config(1, false));
        let packets: Vec<Vec<u8>> = (0..REPLAY_WINDOW + 10)
            .map(|_| sealed(&mut s, b"x"))
            .collect();
        // Out of order within the window is fine, once.
        assert!(o.open(&packets[5]).is_ok());
        assert!(o.open(&packets[2]).is_ok());
        assert_eq!(o.open(&packets[2]), Err(AuthError::Replayed { counter: 3 }));
        let last = packets.len() - 1;
        assert!(o.open(&packets[last]).is_ok());
        assert!(o.open(&packets[last - 1]).is_ok());
        assert!(
            matches!(o.open(&packets[7]), Err(AuthError::Replayed { .. })),
            "too old"
        );
    }
}
