//! [`PacketSealer`]: seals, where it lies, each packet an endpoint of a keyed session sends.

use super::suite::{epoch, KeySchedule, Subkey, SUITE};
use super::AuthConfig;
use convoy_wire::{AuthOption, AuthSlot, OptionsRepr};
use std::fmt;

/// A packet handed to [`PacketSealer::seal`] without room for OPT_CONVOY_AUTH as its last option (a bug of
/// the endpoint that built it: [`PacketSealer::reserve`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NoRoom;

/// Seals the packets one endpoint sends (the `auth` module's docs).
pub struct PacketSealer {
    keys: KeySchedule,
    key: Subkey,
    sender: [u8; 16],
    counter: u64,
    encrypt: bool,
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
        let keys = KeySchedule::new(&config.key);
        PacketSealer {
            key: keys.subkey(&config.identity, 0),
            keys,
            sender: config.identity,
            counter: 0,
            encrypt: config.encrypt,
        }
    }

    /// Packets sealed so far.
    pub fn sealed(&self) -> u64 {
        self.counter
    }

    /// Make room for OPT_CONVOY_AUTH in a packet about to be emitted: the option as its last, its fields
    /// written by [`PacketSealer::seal`].
    pub fn reserve(options: &mut OptionsRepr) {
        options.auth = Some(AuthOption::default());
    }

    /// Seal the emitted packet `packet` (emitted with [`PacketSealer::reserve`]'s room) where it lies: write
    /// the option's identity, counter, suite and encrypted bit, encrypt the payload if configured, write the
    /// tag, then the PGM checksum.
    pub fn seal(&mut self, packet: &mut [u8]) -> Result<(), NoRoom> {
        let mut slot = AuthSlot::locate(packet).ok_or(NoRoom)?;
        self.counter += 1;
        if epoch(self.counter) != self.key.epoch() {
            self.key = self.keys.subkey(&self.sender, epoch(self.counter));
        }
        let encrypt = self.encrypt && slot.payload_offset() < slot.as_bytes().len();
        slot.prepare(SUITE, encrypt, &self.sender, self.counter);
        let tag = self.key.seal(self.counter, &mut slot, encrypt);
        slot.finish(&tag);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::suite::EPOCH_PACKETS;
    use super::super::{AuthError, PacketOpener, SessionKey};
    use super::*;
    use convoy_wire::{BodyRepr, Gsi, PacketRepr};

    fn packet(sealer: &mut PacketSealer) -> Vec<u8> {
        let mut repr = PacketRepr {
            source_port: 1,
            dest_port: 2,
            gsi: Gsi([3; 6]),
            body: BodyRepr::Odata { sqn: 1, trail: 0 },
            options: OptionsRepr::default(),
            payload: b"across epochs",
        };
        PacketSealer::reserve(&mut repr.options);
        let mut buf = vec![0u8; 200];
        let len = repr.emit(&mut buf).unwrap();
        buf.truncate(len);
        sealer.seal(&mut buf).unwrap();
        buf
    }

    #[test]
    fn packets_open_across_an_epoch_even_a_late_one_of_the_old_epoch() {
        let config = AuthConfig {
            key: SessionKey::from_bytes([4; 32]),
            encrypt: true,
            identity: [5; 16],
        };
        let mut s = PacketSealer::new(&config);
        s.counter = EPOCH_PACKETS - 3;
        let p: Vec<Vec<u8>> = (0..5).map(|_| packet(&mut s)).collect();
        assert_eq!(s.key.epoch(), 1, "the sealer moved to epoch 1's subkey");
        let mut o = PacketOpener::new(&config);
        for i in [0, 3, 1, 4, 2] {
            let opened = o.open(&p[i]).unwrap_or_else(|e| panic!("packet {i}: {e}"));
            let back = PacketRepr::parse_without_checksum(opened).unwrap();
            assert_eq!(back.payload, b"across epochs");
        }
        assert!(matches!(o.open(&p[1]), Err(AuthError::Replayed { .. })));
    }
}
