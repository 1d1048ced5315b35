//! The SACK scoreboard of RFC 6675 §3–4: which bytes above the cumulative ACK (HighACK) the receiver has
//! selectively acknowledged, and the `Update`, `IsLost` and `SetPipe` routines over it.
//!
//! The scoreboard is a [`RangeSet`] of SACKed byte ranges, all at or above `snd_una`; every routine is
//! O(log n) or O(n) in the number of SACKed ranges (the holes at the receiver), never in bytes or segments.
//!
//! `IsLost(SeqNum)` (RFC 6675 §4) is true when "DupThresh discontiguous SACKed sequences have arrived above
//! 'SeqNum' or more than (DupThresh − 1)·SMSS bytes with sequence numbers greater than 'SeqNum' have been
//! SACKed". Without per-segment records, a SACKed range of n bytes counts as ⌈n/SMSS⌉ sequences — exact for
//! [`TcpSender`](super::TcpSender), whose segments are all full-sized except possibly the very last one. The
//! amount SACKed above an un-SACKed byte only shrinks as the byte grows, so the lost bytes are exactly the
//! un-SACKed bytes below one boundary ([`Scoreboard::lost_boundary`]); `IsLost`, `SetPipe` and `NextSeg` all use
//! that boundary.

use super::ranges::RangeSet;

/// SACKed ranges above the cumulative ACK point (RFC 6675 §3 "scoreboard").
#[derive(Clone, Debug, Default)]
pub(crate) struct Scoreboard {
    sacked: RangeSet,
}

impl Scoreboard {
    /// An empty scoreboard.
    pub fn new() -> Self {
        Scoreboard::default()
    }

    /// RFC 6675 §4 `Update()`: records SACK `blocks`, each clipped to `[una, snd_max)` (blocks for data never
    /// sent or already cumulatively acknowledged carry no information). Returns whether any byte was newly
    /// SACKed — the RFC 6675 §2 definition of a duplicate acknowledgment: "a segment that arrives carrying a
    /// SACK block that identifies previously unacknowledged and un-SACKed octets between HighACK and HighData".
    pub fn update(&mut self, una: u64, snd_max: u64, blocks: &[(u64, u64)]) -> bool {
        let mut new = false;
        for &(s, e) in blocks {
            let (s, e) = (s.max(una), e.min(snd_max));
            if let Some((n, _)) = self.sacked.insert(s, e) {
                new |= n > 0;
            }
        }
        new
    }

    /// The cumulative ACK moved to `una`: forget everything below it.
    pub fn advance(&mut self, una: u64) {
        self.sacked.remove_below(una);
    }

    /// Forget all SACK information.
    #[cfg(test)]
    pub fn clear(&mut self) {
        self.sacked = RangeSet::new();
    }

    /// Total SACKed bytes.
    #[cfg(test)]
    pub fn sacked_bytes(&self) -> u64 {
        self.sacked.total()
    }

    /// One past the highest SACKed byte, `None` without SACK information.
    pub fn high_sacked(&self) -> Option<u64> {
        self.sacked.last().map(|(_, e)| e)
    }

    /// The SACKed ranges, lowest first.
    #[cfg(test)]
    pub fn ranges(&self) -> Vec<(u64, u64)> {
        self.sacked.iter().collect()
    }

    /// SACKed bytes within `[a, b)`.
    pub fn sacked_in(&self, a: u64, b: u64) -> u64 {
        self.sacked.covered_in(a, b)
    }

    /// Un-SACKed bytes within `[a, b)` (0 if `a >= b`).
    pub fn unsacked_in(&self, a: u64, b: u64) -> u64 {
        b.saturating_sub(a) - self.sacked_in(a, b)
    }

    /// The smallest un-SACKed byte `>= x`.
    pub fn next_unsacked(&self, x: u64) -> u64 {
        self.sacked.next_uncovered(x)
    }

    /// Length of the segment to (re)send at un-SACKed byte `seq`: at most `mss`, ending before the next SACKed
    /// range and at `limit`.
    pub fn segment_len(&self, seq: u64, mss: u32, limit: u64) -> u32 {
        let end = self
            .sacked
            .next_start_after(seq)
            .unwrap_or(u64::MAX)
            .min(limit)
            .min(seq + u64::from(mss));
        end.saturating_sub(seq) as u32
    }

    /// The loss boundary L: an un-SACKed byte `s >= una` satisfies RFC 6675 `IsLost(s)` if and only if `s < L`.
    /// Returns `una` when nothing is lost.
    pub fn lost_boundary(&self, una: u64, mss: u32, dupthresh: u32) -> u64 {
        let mss = u64::from(mss.max(1));
        let (mut bytes, mut seqs) = (0u64, 0u64);
        for (s, e) in self.sacked.iter().rev() {
            bytes += e - s;
            seqs += (e - s).div_ceil(mss);
            if seqs >= u64::from(dupthresh) || bytes > u64::from(dupthresh.saturating_sub(1)) * mss
            {
                return s.max(una);
            }
        }
        una
    }

    /// RFC 6675 §4 `IsLost(seq)` for an un-SACKed byte `seq`: at least DupThresh SACKed segments, or more than
    /// (DupThresh − 1)·SMSS SACKed bytes, above it.
    pub fn is_lost(&self, seq: u64, mss: u32, dupthresh: u32) -> bool {
        self.sacked.containing(seq).is_none() && seq < self.lost_boundary(seq, mss, dupthresh)
    }

    /// RFC 6675 §4 `SetPipe()`: over the un-SACKed bytes of `[una, snd_max)`, count 1 for each that is not
    /// `IsLost` and 1 more for each at or below HighRxt (`high_rxt` is one past HighRxt here, as `snd_max` is
    /// one past HighData).
    pub fn pipe(&self, una: u64, snd_max: u64, high_rxt: u64, mss: u32, dupthresh: u32) -> u64 {
        let lost = self.lost_boundary(una, mss, dupthresh);
        self.unsacked_in(lost.max(una), snd_max) + self.unsacked_in(una, high_rxt.min(snd_max))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 100;

    /// Segments are 100 bytes; `sacked(&[k, ...])` SACKs segment numbers k.
    fn board(segs: &[u64]) -> Scoreboard {
        let mut b = Scoreboard::new();
        for &k in segs {
            b.update(0, 10_000, &[(k * 100, k * 100 + 100)]);
        }
        b
    }

    #[test]
    fn rfc6675_2_dupack_is_new_sack_information() {
        let mut b = Scoreboard::new();
        assert!(b.update(0, 1000, &[(200, 300)]));
        assert!(
            !b.update(0, 1000, &[(200, 300)]),
            "same block again: not a duplicate ACK"
        );
        assert!(b.update(0, 1000, &[(200, 400)]), "extends the block");
        assert!(
            !b.update(0, 1000, &[(2000, 3000)]),
            "beyond HighData: ignored"
        );
        assert!(
            !b.update(500, 1000, &[(100, 500)]),
            "below HighACK: ignored"
        );
        assert_eq!(b.ranges(), vec![(200, 400)]);
        assert_eq!(b.sacked_bytes(), 200);
        assert_eq!(b.high_sacked(), Some(400));
        b.advance(300);
        assert_eq!(b.ranges(), vec![(300, 400)]);
        b.clear();
        assert_eq!(b.high_sacked(), None);
    }

    #[test]
    fn rfc6675_4_is_lost_by_segment_count() {
        // Hole at segment 0; segments 1 and 2 SACKed: two sequences above, not lost (DupThresh 3).
        let b = board(&[1, 2]);
        assert!(!b.is_lost(0, MSS, 3));
        // A third SACKed segment above: lost.
        let b = board(&[1, 2, 3]);
        assert!(b.is_lost(0, MSS, 3));
        // Discontiguous SACKed segments count as well.
        let b = board(&[2, 4, 6]);
        assert!(b.is_lost(0, MSS, 3));
        assert!(b.is_lost(100, MSS, 3));
        assert!(!b.is_lost(300, MSS, 3), "only two SACKed above segment 3");
        assert!(!b.is_lost(200, MSS, 3), "SACKed bytes are never lost");
        assert_eq!(b.lost_boundary(0, MSS, 3), 200);
    }

    #[test]
    fn rfc6675_4_is_lost_by_bytes() {
        // Small SACKed pieces: 3 pieces of 10 bytes above = 3 sequences (counted as ⌈10/100⌉ = 1 each).
        let mut b = Scoreboard::new();
        b.update(0, 10_000, &[(100, 110), (120, 130), (140, 150)]);
        assert!(b.is_lost(0, MSS, 3));
        // One contiguous range of 201 bytes = more than (3 − 1)·SMSS bytes.
        let mut b = Scoreboard::new();
        b.update(0, 10_000, &[(100, 301)]);
        assert!(b.is_lost(0, MSS, 3));
        let mut b = Scoreboard::new();
        b.update(0, 10_000, &[(100, 300)]);
        assert!(
            !b.is_lost(0, MSS, 3),
            "exactly 2·SMSS is not more than 2·SMSS"
        );
    }

    #[test]
    fn rfc6675_4_set_pipe() {
        // Segments 0..10 sent; 3, 4 and 5 SACKed: 0, 1 and 2 are lost (three SACKed segments above them).
        let b = board(&[3, 4, 5]);
        // Un-SACKed: 0,1,2 (lost) and 6..9 (not lost) → pipe = 400 before any retransmission.
        assert_eq!(b.pipe(0, 1000, 0, MSS, 3), 400);
        // After retransmitting segment 0 (HighRxt = 99, exclusive 100): pipe counts it once more.
        assert_eq!(b.pipe(0, 1000, 100, MSS, 3), 500);
        // A retransmitted byte that is not lost counts twice.
        assert_eq!(b.pipe(0, 1000, 700, MSS, 3), 400 + 300 + 100);
    }

    #[test]
    fn segment_len_stops_at_sacked_data_and_limit() {
        let b = board(&[3]);
        assert_eq!(b.segment_len(250, MSS, 10_000), 50);
        assert_eq!(b.segment_len(0, MSS, 10_000), 100);
        assert_eq!(b.segment_len(400, MSS, 430), 30);
        assert_eq!(b.next_unsacked(300), 400);
        assert_eq!(b.next_unsacked(299), 299);
        assert_eq!(b.unsacked_in(0, 1000), 900);
        assert_eq!(b.sacked_in(0, 1000), 100);
    }
}
