//! Suite 1, the AEAD of keyed sessions: AES-256-GCM (NIST SP 800-38D) under a subkey per sending endpoint and
//! epoch, derived from the session key with HKDF-SHA256 (RFC 5869). aws-lc-rs runs it on the machine's AES and
//! carry-less-multiply instructions, chosen at run time (bench/README.md, "AEAD implementations for keyed
//! sessions").
//!
//! **Why a subkey.** GCM's nonce is 96 bits, too few to hold Convoy's 128-bit random endpoint identity and its
//! 64-bit packet counter. So the identity goes into the key instead: `subkey = HKDF-Expand(PRK, LABEL ‖ identity
//! ‖ epoch, 32)` with `PRK = HKDF-Extract(SALT, session key)`, and the nonce is 4 zero bytes then the counter.
//! Under one subkey (one identity, one epoch) the counter never repeats, as the sender counts up from 1 and never
//! back, so no nonce repeats under one key. Two endpoints share a subkey only if their 128-bit identities collide
//! (below 2^-68 among a billion endpoint starts) — the same argument the 24-byte XChaCha20 nonce of suite 0 rested on.
//!
//! **Why epochs.** GCM's confidentiality bound weakens with the data sealed under one key: about `(σ)^2 / 2^129`
//! for σ blocks of 16 bytes (draft-irtf-cfrg-aead-limits §5.1). An epoch is [`EPOCH_PACKETS`] = 2^28 counters, so
//! one subkey seals at most 2^28 packets: for 1,500-byte packets (2^6.6 blocks) σ ≤ 2^34.6 and the bound is
//! 2^-60; even 64 KB packets (2^12 blocks) keep it at 2^-49. A session at 1 Gbit/s crosses an epoch about every
//! 50 minutes; a new subkey costs one HKDF expansion.
//!
//! Suite 0, XChaCha20-Poly1305 with the identity and counter as its 24-byte nonce, was Convoy's first; its
//! packets are refused by number ([`crate::auth::AuthError::Suite`]).

use super::SessionKey;
use aws_lc_rs::aead::{Aad, LessSafeKey, Nonce, UnboundKey, AES_256_GCM};
use aws_lc_rs::hkdf::{Prk, Salt, HKDF_SHA256};
use convoy_wire::AuthSlot;

/// The suite this module seals and opens (OPT_CONVOY_AUTH byte 3, high nibble).
pub const SUITE: u8 = 1;

/// Counters per epoch: each epoch of an endpoint's packets has its own subkey (module docs).
pub const EPOCH_PACKETS: u64 = 1 << 28;

/// HKDF-Extract's salt: names the protocol, so the session key derives nothing another protocol would.
const SALT: &[u8] = b"convoy keyed session";
/// HKDF-Expand's info begins with this, then the identity and the epoch.
const LABEL: &[u8] = b"convoy auth suite 1 aes-256-gcm";

/// The epoch of a counter.
pub fn epoch(counter: u64) -> u64 {
    counter / EPOCH_PACKETS
}

/// The session key after HKDF-Extract: what derives every endpoint's subkeys.
pub struct KeySchedule(Prk);

impl KeySchedule {
    /// The schedule of a session key.
    pub fn new(key: &SessionKey) -> Self {
        KeySchedule(Salt::new(HKDF_SHA256, SALT).extract(&key.0))
    }

    /// The subkey of an endpoint's epoch.
    pub fn subkey(&self, sender: &[u8; 16], epoch: u64) -> Subkey {
        let epoch_bytes = epoch.to_be_bytes();
        let info = [LABEL, sender, &epoch_bytes];
        let okm = self
            .0
            .expand(&info, &AES_256_GCM)
            .expect("32 bytes are within HKDF-SHA256's output length");
        Subkey {
            epoch,
            key: LessSafeKey::new(UnboundKey::from(okm)),
        }
    }
}

/// The failure of a tag check.
#[derive(Debug)]
pub struct TagMismatch;

/// One endpoint's AEAD key for one epoch.
pub struct Subkey {
    epoch: u64,
    key: LessSafeKey,
}

fn nonce(counter: u64) -> Nonce {
    let mut n = [0u8; 12];
    n[4..].copy_from_slice(&counter.to_be_bytes());
    Nonce::assume_unique_for_key(n)
}

impl Subkey {
    /// Its epoch.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// The tag of the prepared packet in `slot` (tag and checksum zero), encrypting its payload in place if
    /// `encrypt`: the bytes before the payload are then the associated data, else the whole packet is.
    pub fn seal(&self, counter: u64, slot: &mut AuthSlot<&mut [u8]>, encrypt: bool) -> [u8; 16] {
        let sealed = if encrypt {
            let (ad, payload) = slot.split_at_payload_mut();
            self.key
                .seal_in_place_separate_tag(nonce(counter), Aad::from(&*ad), payload)
        } else {
            self.key
                .seal_in_place_separate_tag(nonce(counter), Aad::from(slot.as_bytes()), &mut [])
        };
        let tag = sealed.expect("AES-256-GCM seals any length a PGM packet has");
        let mut out = [0u8; 16];
        out.copy_from_slice(tag.as_ref());
        out
    }

    /// Check `tag` over the packet in `slot` (tag and checksum zero), decrypting its payload in place if
    /// `encrypted`. On a mismatch the payload may have been overwritten.
    pub fn open(
        &self,
        counter: u64,
        slot: &mut AuthSlot<&mut [u8]>,
        encrypted: bool,
        tag: &[u8; 16],
    ) -> Result<(), TagMismatch> {
        let opened = if encrypted {
            let (ad, payload) = slot.split_at_payload_mut();
            self.key
                .open_in_place_separate_tag(nonce(counter), Aad::from(&*ad), tag, payload)
                .map(|_| ())
        } else {
            self.key
                .open_in_place_separate_tag(
                    nonce(counter),
                    Aad::from(slot.as_bytes()),
                    tag,
                    &mut [],
                )
                .map(|_| ())
        };
        opened.map_err(|_| TagMismatch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subkeys_differ_by_identity_epoch_and_session_key() {
        let a = KeySchedule::new(&SessionKey::from_bytes([1; 32]));
        let b = KeySchedule::new(&SessionKey::from_bytes([2; 32]));
        let data = [0u8; 64];
        let tag = |k: &Subkey| {
            let mut p = data;
            let tag = k
                .key
                .seal_in_place_separate_tag(nonce(1), Aad::empty(), &mut p)
                .unwrap();
            (p, tag.as_ref().to_vec())
        };
        let base = tag(&a.subkey(&[9; 16], 0));
        assert_eq!(base, tag(&a.subkey(&[9; 16], 0)), "deterministic");
        assert_ne!(base, tag(&a.subkey(&[8; 16], 0)), "identity");
        assert_ne!(base, tag(&a.subkey(&[9; 16], 1)), "epoch");
        assert_ne!(base, tag(&b.subkey(&[9; 16], 0)), "session key");
    }

    #[test]
    fn an_epoch_is_two_to_the_28_counters() {
        assert_eq!(epoch(1), 0);
        assert_eq!(epoch(EPOCH_PACKETS - 1), 0);
        assert_eq!(epoch(EPOCH_PACKETS), 1);
        assert_eq!(epoch(u64::MAX), u64::MAX >> 28);
    }
}
