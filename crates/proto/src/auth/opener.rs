//! [`PacketOpener`]: checks, decrypts and replay-filters the packets an endpoint of a keyed session receives.

use super::replay::ReplayWindow;
use super::suite::{epoch, KeySchedule, Subkey, SUITE};
use super::{AuthConfig, AuthError};
use convoy_wire::{AuthSlot, Packet};
use std::collections::BTreeMap;
use std::fmt;

/// Most sending endpoints an opener keeps state for; beyond, the least recently heard one is forgotten (only
/// endpoints holding the key create state).
pub const MAX_WINDOWS: usize = 65_536;

/// What an opener keeps of one sending identity (authenticated by the tag, unlike the source address).
struct Peer {
    window: ReplayWindow,
    /// When it was last heard, in packets opened.
    last_heard: u64,
    /// Its subkey of the latest epoch heard.
    key: Subkey,
}

/// Opens the packets an endpoint receives (the `auth` module's docs).
pub struct PacketOpener {
    keys: KeySchedule,
    peers: BTreeMap<[u8; 16], Peer>,
    opened: u64,
    scratch: Vec<u8>,
}

impl fmt::Debug for PacketOpener {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PacketOpener")
            .field("senders", &self.peers.len())
            .field("opened", &self.opened)
            .finish()
    }
}

/// Why a packet has no OPT_CONVOY_AUTH where a keyed endpoint puts it (only when [`AuthSlot::locate`] failed).
fn unlocated(bytes: &[u8]) -> AuthError {
    match Packet::new_checked(bytes) {
        Ok(p) if p.auth_option_offset().is_none() => AuthError::Unauthenticated,
        _ => AuthError::Malformed,
    }
}

impl PacketOpener {
    /// An opener with the session's key.
    pub fn new(config: &AuthConfig) -> Self {
        PacketOpener {
            keys: KeySchedule::new(&config.key),
            peers: BTreeMap::new(),
            opened: 0,
            scratch: Vec::new(),
        }
    }

    /// Check `bytes`; on success the packet as sent (payload decrypted, checksum zeroed), in the opener's own
    /// buffer. The source address plays no part: a replay is refused whatever address it comes from.
    pub fn open(&mut self, bytes: &[u8]) -> Result<&[u8], AuthError> {
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.clear();
        scratch.extend_from_slice(bytes);
        let opened = self.open_in_place(&mut scratch);
        self.scratch = scratch;
        opened.map(|()| &self.scratch[..])
    }

    /// [`PacketOpener::open`] where the packet lies: on success `packet` is the packet as sent (payload
    /// decrypted, checksum zeroed); on a refusal its bytes may have changed.
    pub fn open_in_place(&mut self, packet: &mut [u8]) -> Result<(), AuthError> {
        let Some(mut slot) = AuthSlot::locate(&mut *packet) else {
            return Err(unlocated(packet));
        };
        if slot.suite() != SUITE {
            return Err(AuthError::Suite {
                found: slot.suite(),
            });
        }
        let (sender, counter, tag) = (slot.sender(), slot.counter(), slot.tag());
        let peer = self.peers.get(&sender);
        if counter == 0 || peer.is_some_and(|p| !p.window.check(counter)) {
            return Err(AuthError::Replayed { counter });
        }
        // The sender's cached subkey, or one derived for this packet (kept only if the tag matches).
        let mut fresh = None;
        let key = match peer.filter(|p| p.key.epoch() == epoch(counter)) {
            Some(p) => &p.key,
            None => &*fresh.insert(self.keys.subkey(&sender, epoch(counter))),
        };
        let encrypted = slot.encrypted();
        slot.clear_tag_and_checksum();
        key.open(counter, &mut slot, encrypted, &tag)
            .map_err(|_| AuthError::BadTag)?;
        self.accept(sender, counter, fresh);
        Ok(())
    }

    /// Record a packet whose tag matched: its sender's window, and the subkey derived for it if it is the
    /// sender's first or of a later epoch.
    fn accept(&mut self, sender: [u8; 16], counter: u64, fresh: Option<Subkey>) {
        self.opened += 1;
        if !self.peers.contains_key(&sender) && self.peers.len() >= MAX_WINDOWS {
            let stalest = self
                .peers
                .iter()
                .min_by_key(|(_, p)| p.last_heard)
                .map(|(k, _)| *k);
            if let Some(k) = stalest {
                self.peers.remove(&k);
            }
        }
        let opened = self.opened;
        if let Some(p) = self.peers.get_mut(&sender) {
            if let Some(k) = fresh.filter(|k| k.epoch() > p.key.epoch()) {
                p.key = k;
            }
            p.window.accept(counter);
            p.last_heard = opened;
        } else if let Some(key) = fresh {
            // (A sender without state always has its subkey derived for the packet.)
            let mut window = ReplayWindow::default();
            window.accept(counter);
            let peer = Peer {
                window,
                last_heard: opened,
                key,
            };
            self.peers.insert(sender, peer);
        }
    }
}
