//! The bytes of a delivered APDU: owned, or a range of a datagram shared with whoever else holds it.
//!
//! A receiver copies each packet's payload out of the datagram it came in, because the datagram's buffer is
//! reused for the next one. A driver that keeps datagrams in shared buffers — the simulator, whose multicast
//! fan-out hands one datagram to a thousand receivers — can let the receive window keep a reference instead
//! ([`crate::Receiver::handle_parsed`]): no copy, no allocation per receiver. Either way the application
//! sees a byte slice ([`std::ops::Deref`]), and [`Payload::into_vec`] gives the bytes as a vector.

use std::fmt;
use std::ops::{Deref, Range};
use std::sync::Arc;

/// An APDU's bytes (RFC 3208 §9.2.3: one packet's payload, or the reassembled fragments of several).
#[derive(Clone)]
pub struct Payload(Bytes);

#[derive(Clone)]
enum Bytes {
    Owned(Vec<u8>),
    /// `range` of a shared datagram.
    Shared {
        datagram: Arc<[u8]>,
        range: Range<usize>,
    },
}

impl Payload {
    /// `range` of the shared `datagram`.
    ///
    /// # Panics
    ///
    /// If `range` is not within `datagram`.
    #[inline]
    pub fn shared(datagram: Arc<[u8]>, range: Range<usize>) -> Self {
        assert!(
            range.start <= range.end && range.end <= datagram.len(),
            "payload range {range:?} outside a datagram of {} bytes",
            datagram.len()
        );
        Payload(Bytes::Shared { datagram, range })
    }

    /// Its length in bytes (a shared payload's range was checked against its datagram when it was made, so
    /// this reads no bytes and checks no bounds).
    #[inline]
    pub fn len(&self) -> usize {
        match &self.0 {
            Bytes::Owned(v) => v.len(),
            Bytes::Shared { range, .. } => range.end - range.start,
        }
    }

    /// Whether it holds no byte.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes as a vector (copied if shared).
    pub fn into_vec(self) -> Vec<u8> {
        match self.0 {
            Bytes::Owned(v) => v,
            Bytes::Shared { datagram, range } => datagram[range].to_vec(),
        }
    }
}

impl Deref for Payload {
    type Target = [u8];

    #[inline]
    fn deref(&self) -> &[u8] {
        match &self.0 {
            Bytes::Owned(v) => v,
            Bytes::Shared { datagram, range } => &datagram[range.clone()],
        }
    }
}

impl From<Vec<u8>> for Payload {
    fn from(v: Vec<u8>) -> Self {
        Payload(Bytes::Owned(v))
    }
}

impl From<&[u8]> for Payload {
    fn from(v: &[u8]) -> Self {
        Payload(Bytes::Owned(v.to_vec()))
    }
}

/// Equal when the bytes are, however they are held.
impl PartialEq for Payload {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl Eq for Payload {}

impl PartialEq<[u8]> for Payload {
    fn eq(&self, other: &[u8]) -> bool {
        **self == *other
    }
}

impl PartialEq<Vec<u8>> for Payload {
    fn eq(&self, other: &Vec<u8>) -> bool {
        **self == **other
    }
}

impl fmt::Debug for Payload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Payload").field(&&**self).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_and_owned_payloads_are_their_bytes() {
        let datagram: Arc<[u8]> = Arc::from(&b"headerPAYLOAD"[..]);
        let shared = Payload::shared(Arc::clone(&datagram), 6..13);
        let owned = Payload::from(b"PAYLOAD".to_vec());
        assert_eq!(&*shared, b"PAYLOAD");
        assert_eq!(shared, owned);
        assert_eq!(shared, b"PAYLOAD".to_vec());
        assert_eq!(shared.clone().into_vec(), b"PAYLOAD");
        assert_eq!(format!("{owned:?}"), format!("{shared:?}"));
    }

    #[test]
    #[should_panic(expected = "outside a datagram")]
    fn a_range_beyond_the_datagram_is_refused() {
        let _ = Payload::shared(Arc::from(&[0u8; 4][..]), 2..5);
    }
}
