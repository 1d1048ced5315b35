//! The sender's transmit window (RFC 3208 §3 "Transmit Window", TXW_TRAIL / TXW_LEAD): packets already sent
//! and still repairable, plus the queue of packets the application wrote and the controller has not yet let go.

use crate::seq;
use convoy_wire::FragmentOption;
use std::collections::VecDeque;

/// One data packet as sent: its TSDU and fragment option.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TxPacket {
    /// The TSDU.
    pub payload: Vec<u8>,
    /// OPT_FRAGMENT when the packet is part of a multi-packet APDU.
    pub fragment: Option<FragmentOption>,
}

/// A queued TSDU: payload and, for fragments, (index within the APDU, offset, APDU length).
#[derive(Clone, Debug)]
struct Pending {
    payload: Vec<u8>,
    fragment: Option<(u32, u32, u32)>,
}

/// Why a write was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WriteError {
    /// The session is closing or closed.
    Closed,
    /// Accepting the APDU would exceed the send queue's capacity; try again after `TokensAvailable`.
    QueueFull {
        /// Bytes queued now.
        queued: usize,
        /// Capacity in bytes.
        capacity: usize,
    },
    /// The APDU is longer than OPT_FRAGMENT can describe (u32 length).
    TooLarge {
        /// Its length.
        len: usize,
    },
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WriteError::Closed => write!(f, "the session is closed"),
            WriteError::QueueFull { queued, capacity } => {
                write!(f, "send queue full: {queued} of {capacity} bytes queued")
            }
            WriteError::TooLarge { len } => write!(f, "APDU of {len} bytes exceeds 4 GiB"),
        }
    }
}

impl std::error::Error for WriteError {}

/// Transmit window and send queue.
#[derive(Debug)]
pub struct TransmitWindow {
    max_tsdu: usize,
    max_packets: usize,
    queue_capacity: usize,
    queue: VecDeque<Pending>,
    queued_bytes: usize,
    /// Sequence number of `sent[0]` (TXW_TRAIL).
    trail: u32,
    /// Next sequence number to assign (TXW_LEAD + 1).
    next: u32,
    sent: VecDeque<TxPacket>,
}

impl TransmitWindow {
    /// An empty window starting at `initial_sqn`, packets of at most `max_tsdu` bytes, keeping at most
    /// `max_packets` for repair and queueing at most `queue_capacity` bytes.
    pub fn new(
        initial_sqn: u32,
        max_tsdu: usize,
        max_packets: usize,
        queue_capacity: usize,
    ) -> Self {
        TransmitWindow {
            max_tsdu: max_tsdu.max(1),
            max_packets: max_packets.max(1),
            queue_capacity,
            queue: VecDeque::new(),
            queued_bytes: 0,
            trail: initial_sqn,
            next: initial_sqn,
            sent: VecDeque::new(),
        }
    }

    /// Queue one APDU, fragmenting it into TSDUs of at most `max_tsdu` bytes (RFC 3208 §9.3).
    pub fn write(&mut self, apdu: &[u8]) -> Result<(), WriteError> {
        let apdu_len =
            u32::try_from(apdu.len()).map_err(|_| WriteError::TooLarge { len: apdu.len() })?;
        if self.queued_bytes > 0 && self.queued_bytes + apdu.len() > self.queue_capacity {
            return Err(WriteError::QueueFull {
                queued: self.queued_bytes,
                capacity: self.queue_capacity,
            });
        }
        self.queued_bytes += apdu.len();
        if apdu.len() <= self.max_tsdu {
            self.queue.push_back(Pending {
                payload: apdu.to_vec(),
                fragment: None,
            });
            return Ok(());
        }
        for (index, chunk) in apdu.chunks(self.max_tsdu).enumerate() {
            let offset = (index * self.max_tsdu) as u32;
            self.queue.push_back(Pending {
                payload: chunk.to_vec(),
                fragment: Some((index as u32, offset, apdu_len)),
            });
        }
        Ok(())
    }

    /// Bytes waiting to be sent.
    pub fn queued_bytes(&self) -> usize {
        self.queued_bytes
    }

    /// Free space in the send queue.
    pub fn queue_space(&self) -> usize {
        self.queue_capacity.saturating_sub(self.queued_bytes)
    }

    /// Whether a packet is waiting.
    pub fn has_pending(&self) -> bool {
        !self.queue.is_empty()
    }

    /// The sequence number the first packet of the next APDU written will take.
    pub fn next_write_sqn(&self) -> u32 {
        self.next.wrapping_add(self.queue.len() as u32)
    }

    /// Size of the next TSDU to send.
    pub fn next_len(&self) -> Option<usize> {
        self.queue.front().map(|p| p.payload.len())
    }

    /// Assign the next sequence number to the first queued TSDU and move it into the window.
    /// Returns its sequence number; the packet is then readable with [`TransmitWindow::get`].
    pub fn send_next(&mut self) -> Option<u32> {
        let pending = self.queue.pop_front()?;
        self.queued_bytes -= pending.payload.len();
        let sqn = self.next;
        let fragment = pending
            .fragment
            .map(|(index, offset, apdu_len)| FragmentOption {
                first_sqn: sqn.wrapping_sub(index),
                offset,
                apdu_len,
            });
        self.sent.push_back(TxPacket {
            payload: pending.payload,
            fragment,
        });
        self.next = self.next.wrapping_add(1);
        if self.sent.len() > self.max_packets {
            self.sent.pop_front();
            self.trail = self.trail.wrapping_add(1);
        }
        Some(sqn)
    }

    /// A packet still in the window.
    pub fn get(&self, sqn: u32) -> Option<&TxPacket> {
        let d = seq::diff(sqn, self.trail);
        if d < 0 {
            return None;
        }
        self.sent.get(d as usize)
    }

    /// TXW_TRAIL: the oldest repairable sequence number.
    pub fn trail(&self) -> u32 {
        self.trail
    }

    /// TXW_LEAD: the last sequence number sent (trail − 1 while nothing was sent, as OpenPGM advertises).
    pub fn lead(&self) -> u32 {
        self.next.wrapping_sub(1)
    }

    /// Whether anything has been sent.
    pub fn is_empty(&self) -> bool {
        self.sent.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3208_9_3_fragments_carry_first_sqn_offset_and_length() {
        let mut w = TransmitWindow::new(100, 4, 10, 1000);
        w.write(b"abcdefghij").unwrap();
        let sqns: Vec<u32> = std::iter::from_fn(|| w.send_next()).collect();
        assert_eq!(sqns, vec![100, 101, 102]);
        let f: Vec<_> = sqns
            .iter()
            .map(|s| w.get(*s).unwrap().fragment.unwrap())
            .collect();
        assert_eq!(
            f[0],
            FragmentOption {
                first_sqn: 100,
                offset: 0,
                apdu_len: 10
            }
        );
        assert_eq!(
            f[2],
            FragmentOption {
                first_sqn: 100,
                offset: 8,
                apdu_len: 10
            }
        );
        assert_eq!(w.get(102).unwrap().payload, b"ij");
    }

    #[test]
    fn window_advances_trail_when_full() {
        let mut w = TransmitWindow::new(0, 10, 3, 1000);
        for i in 0..5u8 {
            w.write(&[i]).unwrap();
            w.send_next();
        }
        assert_eq!((w.trail(), w.lead()), (2, 4));
        assert!(w.get(1).is_none());
        assert_eq!(w.get(2).unwrap().payload, vec![2]);
    }

    #[test]
    fn empty_window_advertises_lead_before_trail() {
        let w = TransmitWindow::new(0, 10, 3, 1000);
        assert_eq!((w.trail(), w.lead()), (0, u32::MAX));
    }

    #[test]
    fn queue_capacity_is_enforced_but_one_apdu_always_fits() {
        let mut w = TransmitWindow::new(0, 10, 3, 15);
        w.write(&[0; 40]).unwrap();
        assert!(matches!(
            w.write(&[0; 1]),
            Err(WriteError::QueueFull { .. })
        ));
    }
}
