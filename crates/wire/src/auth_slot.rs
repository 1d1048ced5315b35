//! [`AuthSlot`]: a keyed packet's 0x3C OPT_CONVOY_AUTH found in constant time, so that the packet can be sealed
//! and opened where it lies (docs/keyed-sessions.md).
//!
//! A keyed endpoint emits OPT_CONVOY_AUTH as its packet's last option ([`crate::OptionsRepr::auth`]), so the
//! option ends where the payload starts, and the payload is the header's TSDU length of bytes at the packet's end
//! (RFC 3208 §8; [`crate::Packet::new_checked`] holds every packet to it). The option therefore starts at
//! `len − TSDU length − 44`. [`AuthSlot::locate`] checks only what that position needs — the common header,
//! OPT_PRESENT, and the option's type (with OPT_END) and length there — and does **not** validate the rest of
//! the packet: the AEAD tag vouches for every byte, and a packet that opens is parsed in full afterwards. A
//! packet that is not laid out so (no option, or not last) is not located; [`crate::Packet`] tells why.

use crate::field::{header as hdr, option as field};
use crate::header::{flags, Header};
use crate::options::{auth_specific_byte, opt, AUTH_ENCRYPTED, AUTH_SUITE_SHIFT};
use crate::{checksum, OPT_LENGTH_LEN};

/// A packet whose last option is OPT_CONVOY_AUTH, located in `buffer` (module docs). Accessors cannot panic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuthSlot<T: AsRef<[u8]>> {
    buffer: T,
    at: usize,
    payload_at: usize,
}

impl<T: AsRef<[u8]>> AuthSlot<T> {
    /// Find OPT_CONVOY_AUTH as the last option of the packet in `buffer`; `None` if it is not there.
    pub fn locate(buffer: T) -> Option<Self> {
        let bytes = buffer.as_ref();
        let header = Header::new_checked(bytes).ok()?;
        if header.options_flags() & flags::OPT_PRESENT == 0 {
            return None;
        }
        let payload_at = bytes.len().checked_sub(usize::from(header.tsdu_length()))?;
        let at = payload_at.checked_sub(field::AUTH_LEN)?;
        // The common header, then at least OPT_LENGTH before the option.
        if at < hdr::LEN + OPT_LENGTH_LEN
            || bytes[at + field::TYPE] != opt::CONVOY_AUTH | opt::END
            || usize::from(bytes[at + field::LENGTH]) != field::AUTH_LEN
        {
            return None;
        }
        Some(AuthSlot {
            buffer,
            at,
            payload_at,
        })
    }

    /// The whole packet.
    pub fn as_bytes(&self) -> &[u8] {
        self.buffer.as_ref()
    }

    fn option(&self) -> &[u8] {
        &self.as_bytes()[self.at..self.payload_at]
    }

    /// Offset of the option from the start of the packet.
    pub fn option_offset(&self) -> usize {
        self.at
    }

    /// Offset of the payload (the end of the options).
    pub fn payload_offset(&self) -> usize {
        self.payload_at
    }

    /// The AEAD suite (byte 3, high nibble; docs/keyed-sessions.md names them).
    pub fn suite(&self) -> u8 {
        self.option()[field::SPECIFIC] >> AUTH_SUITE_SHIFT
    }

    /// Whether the payload is encrypted (byte 3, bit 0x01).
    pub fn encrypted(&self) -> bool {
        self.option()[field::SPECIFIC] & AUTH_ENCRYPTED != 0
    }

    /// The sending endpoint's identity.
    pub fn sender(&self) -> [u8; 16] {
        let mut s = [0; 16];
        s.copy_from_slice(&self.option()[field::AUTH_SENDER]);
        s
    }

    /// The sending endpoint's packet counter.
    pub fn counter(&self) -> u64 {
        let mut c = [0; 8];
        c.copy_from_slice(&self.option()[field::AUTH_COUNTER]);
        u64::from_be_bytes(c)
    }

    /// The AEAD tag.
    pub fn tag(&self) -> [u8; 16] {
        let mut t = [0; 16];
        t.copy_from_slice(&self.option()[field::AUTH_TAG]);
        t
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> AuthSlot<T> {
    fn option_mut(&mut self) -> &mut [u8] {
        let (at, end) = (self.at, self.payload_at);
        &mut self.buffer.as_mut()[at..end]
    }

    /// Write the option's fields for sealing: suite, encrypted bit, identity, counter; the tag and the
    /// checksum zero, as the tag is computed over them.
    pub fn prepare(&mut self, suite: u8, encrypted: bool, sender: &[u8; 16], counter: u64) {
        let o = self.option_mut();
        o[field::SPECIFIC] = auth_specific_byte(suite, encrypted);
        o[field::AUTH_SENDER].copy_from_slice(sender);
        o[field::AUTH_COUNTER].copy_from_slice(&counter.to_be_bytes());
        self.clear_tag_and_checksum();
    }

    /// Zero the tag and the checksum: the packet as its tag covers it.
    pub fn clear_tag_and_checksum(&mut self) {
        self.option_mut()[field::AUTH_TAG].fill(0);
        self.buffer.as_mut()[hdr::CHECKSUM].fill(0);
    }

    /// The whole packet, to authenticate as associated data when nothing is encrypted.
    pub fn as_bytes_mut(&mut self) -> &mut [u8] {
        self.buffer.as_mut()
    }

    /// The bytes before the payload (associated data when encrypting) and the payload.
    pub fn split_at_payload_mut(&mut self) -> (&mut [u8], &mut [u8]) {
        let at = self.payload_at;
        self.buffer.as_mut().split_at_mut(at)
    }

    /// Write the tag, then the PGM checksum over the sealed packet (RFC 3208 §8), which is then an ordinary
    /// packet to the network.
    pub fn finish(&mut self, tag: &[u8; 16]) {
        self.option_mut()[field::AUTH_TAG].copy_from_slice(tag);
        checksum::fill(self.buffer.as_mut());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AuthOption, BodyRepr, Gsi, OptionsRepr, Packet, PacketRepr};

    fn emitted(payload: &[u8], auth: bool, buf: &mut [u8]) -> usize {
        let repr = PacketRepr {
            source_port: 1,
            dest_port: 2,
            gsi: Gsi([1; 6]),
            body: BodyRepr::Odata { sqn: 9, trail: 3 },
            options: OptionsRepr {
                fragment: None,
                auth: auth.then(AuthOption::default),
                ..OptionsRepr::default()
            },
            payload,
        };
        repr.emit(buf).unwrap()
    }

    #[test]
    fn the_slot_is_where_the_option_parser_finds_the_option() {
        for payload in [&b""[..], b"x", &[7; 1400]] {
            let mut buf = [0u8; 1600];
            let len = emitted(payload, true, &mut buf);
            let view = Packet::new_checked(&buf[..len]).unwrap();
            let (option_at, payload_at) = (view.auth_option_offset(), view.payload_offset());
            let mut slot = AuthSlot::locate(&mut buf[..len]).expect("located");
            assert_eq!(Some(slot.option_offset()), option_at);
            assert_eq!(slot.payload_offset(), payload_at);
            slot.prepare(1, true, &[5; 16], 77);
            slot.finish(&[6; 16]);
            let parsed = PacketRepr::parse(&buf[..len]).expect("checksum filled");
            let a = parsed.options.auth.unwrap();
            assert_eq!(
                (a.suite, a.encrypted, a.sender, a.counter, a.tag),
                (1, true, [5; 16], 77, [6; 16])
            );
        }
    }

    #[test]
    fn packets_without_the_option_last_are_not_located() {
        let mut buf = [0u8; 1600];
        let len = emitted(b"payload", false, &mut buf);
        assert!(AuthSlot::locate(&buf[..len]).is_none());
        let len = emitted(b"payload", true, &mut buf);
        for cut in 0..len {
            // Cut short, or the TSDU length claiming more than there is: never located, never a panic.
            let _ = AuthSlot::locate(&buf[..cut]);
        }
        buf[hdr::TSDU_LENGTH.start] = 0xff;
        assert!(AuthSlot::locate(&buf[..len]).is_none());
    }
}
