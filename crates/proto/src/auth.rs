//! Keyed sessions: every packet authenticated, payloads optionally encrypted, replays dropped.
//!
//! Everyone in a keyed session (the source and its receivers) holds the same 32-byte [`SessionKey`]. Each
//! endpoint draws a random 16-byte identity when it starts and counts the packets it sends; identity and counter
//! make the 24-byte XChaCha20-Poly1305 nonce (RFC 8439 §2.8 with the XChaCha extension of
//! draft-irtf-cfrg-xchacha §2), so two endpoints sharing the key never reuse a nonce (with 128 random bits a
//! collision among a billion endpoint starts has probability below 2^-68).
//!
//! **Sealing** ([`PacketSealer::seal`]). The packet gets 0x3C OPT_CONVOY_AUTH as its last option
//! (`convoy_wire::AuthOption`: identity, counter, tag, and byte 3 bit 0x01 when the payload is encrypted). The
//! tag is computed over the packet with its checksum and tag fields zero: as associated data the whole packet,
//! or, when encrypting, the bytes before the payload, the payload being encrypted in place. Then the PGM
//! checksum is filled in over the sealed bytes, so a network element sees an ordinary packet.
//!
//! **Opening** ([`PacketOpener::open`]), before a packet touches any state. A packet without the option, with
//! a wrong tag, or whose counter the replay window ([`ReplayWindow`], RFC 4303 §3.4.3) has seen or left behind
//! is refused with its reason ([`AuthError`]); the window moves only for packets whose tag matched, so forged
//! packets cannot move it. What is handed on is the packet as sent, decrypted, with its checksum zeroed (the
//! tag vouches for it): parse it without checksum verification.
//!
//! An endpoint without a key refuses packets whose parsed options carry it ([`AuthError::Keyed`]): their payload
//! may be ciphertext, and their sender expects keyed answers. [`refuses_keyed`] tells the same from raw bytes, for
//! a driver that would drop such packets before the engine.

use chacha20poly1305::aead::{AeadInPlace, KeyInit};
use chacha20poly1305::{Tag, XChaCha20Poly1305, XNonce};
use convoy_wire::field::{header, option as field};
use convoy_wire::{checksum, AuthOption, Packet, PacketRepr};
use std::collections::BTreeMap;
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
            Self::Replayed { counter } => write!(f, "replayed packet (counter {counter})"),
        }
    }
}

impl std::error::Error for AuthError {}

fn nonce(sender: &[u8; 16], counter: u64) -> XNonce {
    let mut n = [0u8; 24];
    n[..16].copy_from_slice(sender);
    n[16..].copy_from_slice(&counter.to_be_bytes());
    XNonce::from(n)
}

/// Compute the tag of `p` (checksum and tag fields zero) in place, encrypting the payload if `encrypt`.
fn tag_in_place(
    cipher: &XChaCha20Poly1305,
    nonce: &XNonce,
    p: &mut [u8],
    payload_at: usize,
    encrypt: bool,
) -> Tag {
    let (ad, payload) = if encrypt {
        p.split_at_mut(payload_at)
    } else {
        (p, &mut [][..])
    };
    cipher
        .encrypt_in_place_detached(nonce, ad, payload)
        .expect("XChaCha20-Poly1305 takes any length a PGM packet has")
}

/// Seals the packets one endpoint sends (module docs).
pub struct PacketSealer {
    cipher: XChaCha20Poly1305,
    sender: [u8; 16],
    counter: u64,
    encrypt: bool,
    scratch: Vec<u8>,
}

impl fmt::Debug for PacketSealer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PacketSealer")
            .field("counter", &self.counter)
            .field("encrypt", &self.encrypt)
            .finish()
    }
}

impl PacketSealer {
    /// A sealer for an endpoint.
    pub fn new(config: &AuthConfig) -> Self {
        PacketSealer {
            cipher: XChaCha20Poly1305::new(&config.key.0.into()),
            sender: config.identity,
            counter: 0,
            encrypt: config.encrypt,
            scratch: Vec::new(),
        }
    }

    /// Packets sealed so far.
    pub fn sealed(&self) -> u64 {
        self.counter
    }

    /// Seal the packet in `buf[..len]`: add OPT_CONVOY_AUTH, compute its tag (encrypting the payload if
    /// configured), fill in the checksum. Returns the sealed length, `None` if `buf` cannot hold it.
    pub fn seal(&mut self, buf: &mut [u8], len: usize) -> Option<usize> {
        self.scratch.clear();
        self.scratch.extend_from_slice(buf.get(..len)?);
        let mut repr = PacketRepr::parse_without_checksum(&self.scratch).ok()?;
        self.counter += 1;
        let encrypt = self.encrypt && !repr.payload.is_empty();
        repr.options.auth = Some(AuthOption {
            encrypted: encrypt,
            sender: self.sender,
            counter: self.counter,
            tag: [0; 16],
        });
        let sealed_len = repr.buffer_len();
        let out = buf.get_mut(..sealed_len)?;
        repr.emit(out).ok()?;
        out[header::CHECKSUM].fill(0);
        let view = Packet::new_checked(&*out).ok()?;
        let (payload_at, at) = (view.payload_offset(), view.auth_option_offset()?);
        let tag = tag_in_place(
            &self.cipher,
            &nonce(&self.sender, self.counter),
            out,
            payload_at,
            encrypt,
        );
        out[at + field::AUTH_TAG.start..at + field::AUTH_TAG.end].copy_from_slice(&tag);
        checksum::fill(out);
        Some(sealed_len)
    }
}

/// Width of the replay window in packets.
pub const REPLAY_WINDOW: u64 = 1024;

/// RFC 4303 §3.4.3's anti-replay window for one sending endpoint: the highest counter accepted and which of the
/// [`REPLAY_WINDOW`] counters below it were.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReplayWindow {
    highest: u64,
    seen: [u64; (REPLAY_WINDOW / 64) as usize],
}

impl ReplayWindow {
    fn bit(counter: u64) -> (usize, u64) {
        let i = counter % REPLAY_WINDOW;
        ((i / 64) as usize, 1 << (i % 64))
    }

    /// Whether `counter` may be accepted (not seen, not too old); counters start at 1.
    pub fn check(&self, counter: u64) -> bool {
        if counter == 0 {
            return false;
        }
        if counter > self.highest {
            return true;
        }
        if self.highest - counter >= REPLAY_WINDOW {
            return false;
        }
        let (w, b) = Self::bit(counter);
        self.seen[w] & b == 0
    }

    /// Record `counter` (after [`ReplayWindow::check`] and the tag passed).
    pub fn accept(&mut self, counter: u64) {
        if counter > self.highest {
            let advance = counter - self.highest;
            if advance >= REPLAY_WINDOW {
                self.seen = Default::default();
            } else {
                for c in self.highest + 1..counter {
                    let (w, b) = Self::bit(c);
                    self.seen[w] &= !b;
                }
            }
            self.highest = counter;
        }
        let (w, b) = Self::bit(counter);
        self.seen[w] |= b;
    }
}

/// Most sending endpoints an opener keeps windows for; beyond, the least recently heard one is forgotten
/// (only endpoints holding the key create windows).
pub const MAX_WINDOWS: usize = 65_536;

/// Opens the packets an endpoint receives (module docs).
pub struct PacketOpener {
    cipher: XChaCha20Poly1305,
    /// Per sending identity (authenticated by the tag, unlike the source address): its window and when it was
    /// last heard (in packets opened).
    windows: BTreeMap<[u8; 16], (ReplayWindow, u64)>,
    opened: u64,
    scratch: Vec<u8>,
}

impl fmt::Debug for PacketOpener {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PacketOpener")
            .field("senders", &self.windows.len())
            .field("opened", &self.opened)
            .finish()
    }
}

impl PacketOpener {
    /// An opener with the session's key.
    pub fn new(config: &AuthConfig) -> Self {
        PacketOpener {
            cipher: XChaCha20Poly1305::new(&config.key.0.into()),
            windows: BTreeMap::new(),
            opened: 0,
            scratch: Vec::new(),
        }
    }

    /// Check `bytes`; on success the packet as sent (payload decrypted, checksum zeroed). The source address
    /// plays no part: a replay is refused whatever address it comes from.
    pub fn open(&mut self, bytes: &[u8]) -> Result<&[u8], AuthError> {
        let view = Packet::new_checked(bytes).map_err(|_| AuthError::Malformed)?;
        let at = view
            .auth_option_offset()
            .ok_or(AuthError::Unauthenticated)?;
        let payload_at = view.payload_offset();
        let o = &bytes[at..at + field::AUTH_LEN];
        let encrypted = o[field::SPECIFIC] & convoy_wire::AUTH_ENCRYPTED != 0;
        let mut sender = [0u8; 16];
        sender.copy_from_slice(&o[field::AUTH_SENDER]);
        let mut counter = [0u8; 8];
        counter.copy_from_slice(&o[field::AUTH_COUNTER]);
        let counter = u64::from_be_bytes(counter);
        let tag = Tag::clone_from_slice(&o[field::AUTH_TAG]);
        let key = sender;
        if !self.windows.get(&key).is_none_or(|(w, _)| w.check(counter)) || counter == 0 {
            return Err(AuthError::Replayed { counter });
        }
        self.scratch.clear();
        self.scratch.extend_from_slice(bytes);
        let p = &mut self.scratch[..];
        p[header::CHECKSUM].fill(0);
        p[at + field::AUTH_TAG.start..at + field::AUTH_TAG.end].fill(0);
        let n = nonce(&sender, counter);
        let ok = if encrypted {
            let (ad, payload) = p.split_at_mut(payload_at);
            self.cipher.decrypt_in_place_detached(&n, ad, payload, &tag)
        } else {
            self.cipher.decrypt_in_place_detached(&n, p, &mut [], &tag)
        };
        ok.map_err(|_| AuthError::BadTag)?;
        self.opened += 1;
        if !self.windows.contains_key(&key) && self.windows.len() >= MAX_WINDOWS {
            let stalest = self
                .windows
                .iter()
                .min_by_key(|(_, (_, last))| *last)
                .map(|(k, _)| *k);
            if let Some(k) = stalest {
                self.windows.remove(&k);
            }
        }
        let opened = self.opened;
        let (w, last) = self.windows.entry(key).or_default();
        w.accept(counter);
        *last = opened;
        Ok(&self.scratch)
    }
}

/// The first step of an endpoint's `handle_datagram`: without an opener hand `bytes` on as they are (`handle`'s
/// flag false: check the checksum, refuse OPT_CONVOY_AUTH); with one, open them first and hand on the packet as
/// sent (flag true) or `refuse` it. The opener (`opener` of `endpoint`) is taken out meanwhile, so the opened
/// bytes can borrow it while `handle` changes the endpoint.
pub fn open_then<T, O: std::borrow::BorrowMut<PacketOpener>>(
    endpoint: &mut T,
    opener: fn(&mut T) -> &mut Option<O>,
    bytes: &[u8],
    handle: impl FnOnce(&mut T, &[u8], bool),
    refuse: impl FnOnce(&mut T, AuthError),
) {
    match opener(endpoint).take() {
        None => handle(endpoint, bytes, false),
        Some(mut o) => {
            match o.borrow_mut().open(bytes) {
                Ok(opened) => handle(endpoint, opened, true),
                Err(reason) => refuse(endpoint, reason),
            }
            *opener(endpoint) = Some(o);
        }
    }
}

/// For an endpoint without a key: whether `bytes` carries OPT_CONVOY_AUTH and must be refused.
pub fn refuses_keyed(bytes: &[u8]) -> bool {
    Packet::new_checked(bytes).is_ok_and(|p| p.auth_option_offset().is_some())
}

#[cfg(test)]
mod tests {
    use super::*;
    use convoy_wire::{BodyRepr, Gsi, OptionsRepr};

    fn config(byte: u8, encrypt: bool) -> AuthConfig {
        AuthConfig {
            key: SessionKey::from_bytes([byte; 32]),
            encrypt,
            identity: [9; 16],
        }
    }

    fn odata(payload: &[u8], buf: &mut [u8]) -> usize {
        let repr = PacketRepr {
            source_port: 1000,
            dest_port: 7500,
            gsi: Gsi([1, 2, 3, 4, 5, 6]),
            body: BodyRepr::Odata { sqn: 7, trail: 0 },
            options: OptionsRepr::default(),
            payload,
        };
        repr.emit(buf).unwrap()
    }

    #[test]
    fn a_sealed_packet_opens_to_what_was_sent_and_is_a_valid_pgm_packet() {
        for encrypt in [false, true] {
            let mut buf = [0u8; 2000];
            let len = odata(b"hello, group", &mut buf);
            let mut s = PacketSealer::new(&config(1, encrypt));
            let sealed = s.seal(&mut buf, len).unwrap();
            assert_eq!(sealed, len + AUTH_OVERHEAD, "OPT_LENGTH and the option");
            let on_wire = PacketRepr::parse(&buf[..sealed]).expect("checksum and structure valid");
            assert_eq!(on_wire.payload == b"hello, group", !encrypt);
            let mut o = PacketOpener::new(&config(1, false));
            let opened = o.open(&buf[..sealed]).unwrap();
            let p = PacketRepr::parse_without_checksum(opened).unwrap();
            assert_eq!(p.payload, b"hello, group");
            assert_eq!(p.options.auth.unwrap().counter, 1);
        }
    }

    #[test]
    fn a_wrong_key_a_flipped_bit_or_no_tag_is_refused() {
        let mut buf = [0u8; 2000];
        let len = odata(b"payload", &mut buf);
        let plain = buf[..len].to_vec();
        let sealed = PacketSealer::new(&config(1, true))
            .seal(&mut buf, len)
            .unwrap();
        let mut other = PacketOpener::new(&config(2, true));
        assert_eq!(other.open(&buf[..sealed]), Err(AuthError::BadTag));
        let mut o = PacketOpener::new(&config(1, true));
        for i in 0..sealed {
            if header::CHECKSUM.contains(&i) {
                continue;
            }
            let mut bad = buf[..sealed].to_vec();
            bad[i] ^= 0x10;
            assert!(o.open(&bad).is_err(), "bit flipped at {i}");
        }
        assert_eq!(o.open(&plain), Err(AuthError::Unauthenticated));
        assert!(refuses_keyed(&buf[..sealed]) && !refuses_keyed(&plain));
        assert!(o.open(&buf[..sealed]).is_ok(), "forgeries moved nothing");
    }

    #[test]
    fn replays_are_refused_within_and_beyond_the_window() {
        let mut s = PacketSealer::new(&config(1, false));
        let mut o = PacketOpener::new(&config(1, false));
        let packets: Vec<Vec<u8>> = (0..REPLAY_WINDOW + 10)
            .map(|_| {
                let mut buf = [0u8; 2000];
                let len = odata(b"x", &mut buf);
                let n = s.seal(&mut buf, len).unwrap();
                buf[..n].to_vec()
            })
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

    #[test]
    fn the_window_forgets_what_slid_out_of_it() {
        let mut w = ReplayWindow::default();
        for c in [1, 3, 2, 1000, 1024] {
            assert!(w.check(c), "{c}");
            w.accept(c);
            assert!(!w.check(c), "{c} again");
        }
        assert!(!w.check(0));
        assert!(w.check(500));
        w.accept(5000);
        assert!(!w.check(1024) && !w.check(3976) && w.check(3977) && w.check(4999));
    }
}
