//! [`TcpSegment`]: what a simulated TCP packet carries.

/// Bytes of the IPv4 (20) and TCP (20) headers without options (RFC 791, RFC 793 §3.1).
pub const HEADER_BYTES: u32 = 40;

/// Most SACK blocks a segment carries: three, the limit RFC 2018 §3 gives when the timestamp option is also in
/// use, and what Linux and ns-3 send in practice.
pub const MAX_SACK_BLOCKS: usize = 3;

/// One TCP segment of the one-way bulk model: a data segment (sender → sink) or a pure ACK (sink → sender).
///
/// Sequence numbers count payload bytes from 0 and never wrap (no SYN or FIN occupies sequence space). The type
/// is `Copy` and carries no payload: the simulator moves it inside every simulated packet and charges the link
/// [`wire_bytes`](Self::wire_bytes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TcpSegment {
    /// First payload byte (data segments); 0 in pure ACKs.
    pub seq: u64,
    /// Payload bytes; 0 for pure ACKs.
    pub len: u32,
    /// Cumulative acknowledgment, the next byte expected (ACK segments); 0 in data segments.
    pub ack: u64,
    /// Whether this is an ACK (sink → sender) rather than data.
    pub is_ack: bool,
    /// SACK blocks `[start, end)`, the first `sack_count` valid, the block holding the most recently received
    /// segment first (RFC 2018 §4).
    pub sack: [(u64, u64); MAX_SACK_BLOCKS],
    /// How many of `sack` are valid: 0 when SACK is off or there is nothing out of order.
    pub sack_count: u8,
}

impl TcpSegment {
    /// A data segment carrying bytes `[seq, seq + len)`.
    pub fn data(seq: u64, len: u32) -> Self {
        TcpSegment {
            seq,
            len,
            ..TcpSegment::default()
        }
    }

    /// A pure ACK for everything below `ack`, with the given SACK blocks (at most [`MAX_SACK_BLOCKS`] are kept).
    pub fn ack(ack: u64, blocks: &[(u64, u64)]) -> Self {
        let n = blocks.len().min(MAX_SACK_BLOCKS);
        let mut sack = [(0, 0); MAX_SACK_BLOCKS];
        sack[..n].copy_from_slice(&blocks[..n]);
        TcpSegment {
            ack,
            is_ack: true,
            sack,
            sack_count: n as u8,
            ..TcpSegment::default()
        }
    }

    /// The valid SACK blocks, most recent first.
    pub fn sack_blocks(&self) -> &[(u64, u64)] {
        &self.sack[..usize::from(self.sack_count).min(MAX_SACK_BLOCKS)]
    }

    /// First byte after the payload, `seq + len`.
    pub fn end(&self) -> u64 {
        self.seq + u64::from(self.len)
    }

    /// Bytes on the wire at the IP layer: payload + 40 bytes of IPv4 and TCP headers + the SACK option when
    /// present (RFC 2018 §3: kind and length, 2 bytes, plus 8 per block, padded with NOPs to a multiple of 4:
    /// 12, 20 or 28 bytes). No timestamp option is modelled.
    pub fn wire_bytes(&self) -> u32 {
        let n = u32::from(self.sack_count).min(MAX_SACK_BLOCKS as u32);
        let sack_option = if n == 0 {
            0
        } else {
            (2 + 8 * n).div_ceil(4) * 4
        };
        self.len + HEADER_BYTES + sack_option
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_bytes_rfc2018_3_option_sizes() {
        assert_eq!(TcpSegment::data(0, 1460).wire_bytes(), 1500);
        assert_eq!(TcpSegment::ack(10, &[]).wire_bytes(), 40);
        // 2 + 8·n bytes, padded to a multiple of 4.
        assert_eq!(TcpSegment::ack(10, &[(20, 30)]).wire_bytes(), 52);
        assert_eq!(TcpSegment::ack(10, &[(20, 30), (40, 50)]).wire_bytes(), 60);
        let three = TcpSegment::ack(10, &[(20, 30), (40, 50), (60, 70)]);
        assert_eq!(three.wire_bytes(), 68);
        assert_eq!(three.sack_blocks(), &[(20, 30), (40, 50), (60, 70)]);
    }

    #[test]
    fn constructors_and_size() {
        let d = TcpSegment::data(100, 50);
        assert!(!d.is_ack);
        assert_eq!(d.end(), 150);
        assert!(d.sack_blocks().is_empty());
        // A fourth block is dropped: the segment carries at most three.
        let a = TcpSegment::ack(5, &[(6, 7), (8, 9), (10, 11), (12, 13)]);
        assert_eq!(a.sack_count, 3);
        assert!(a.is_ack);
        assert!(std::mem::size_of::<TcpSegment>() <= 72);
    }
}
