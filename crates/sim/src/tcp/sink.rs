//! [`TcpSink`]: the receiving end of a one-way bulk TCP transfer — it reassembles, counts and acknowledges.
//!
//! # ACK policy (RFC 1122 §4.2.3.2, RFC 5681 §4.2)
//!
//! * Without delayed ACKs, every data segment is acknowledged at once.
//! * With delayed ACKs, an in-order segment is acknowledged when at least two full-sized segments' worth of
//!   in-order data (2·SMSS bytes) is unacknowledged, or when the delayed-ACK timer started by the first of them
//!   expires.
//! * Out-of-order segments (above the next expected byte), segments that fill all or part of a gap, and
//!   duplicates of data already received are acknowledged at once (RFC 5681 §4.2 "SHOULD be generated
//!   immediately"; immediate ACKs for duplicates follow Linux and help a sender whose ACKs were lost).
//!
//! # SACK blocks (RFC 2018 §4), for [`TcpVariant::Sack`] only
//!
//! The first block is the contiguous out-of-order block holding the segment that triggered the ACK, unless
//! that segment advanced the cumulative ACK; the next slots repeat the most recently reported blocks that
//! still lie above the cumulative ACK and are not already included, most recent first; any slot left is
//! filled with other queued blocks, lowest first ("as many distinct SACK blocks as possible"). At most three
//! blocks. No D-SACK (RFC 2883). The sink never reneges: out-of-order data is kept until delivered.

use std::collections::VecDeque;
use std::time::Duration;

use convoy_proto::Instant;

use super::config::{TcpConfig, TcpVariant};
use super::ranges::RangeSet;
use super::segment::{TcpSegment, MAX_SACK_BLOCKS};

/// Sans-IO TCP receiver of a bulk transfer; the [module docs](crate::tcp::sink) give its ACK policy.
#[derive(Clone, Debug)]
pub struct TcpSink {
    sack: bool,
    mss: u64,
    delayed_ack: bool,
    delayed_ack_timeout: Duration,
    /// Next byte expected: everything below has been received (and delivered).
    rcv_nxt: u64,
    /// Data received above `rcv_nxt`.
    out_of_order: RangeSet,
    unique_bytes: u64,
    /// A byte of each most recently reported SACK block, most recent first.
    recent: [u64; MAX_SACK_BLOCKS],
    recent_len: usize,
    /// ACKs generated and not yet polled.
    ready: VecDeque<TcpSegment>,
    /// In-order bytes received since the last ACK.
    unacked_bytes: u64,
    delack_deadline: Option<Instant>,
    acks_sent: u64,
}

impl TcpSink {
    /// A sink expecting byte 0. Uses the config's `variant` (SACK blocks only for [`TcpVariant::Sack`]),
    /// `mss`, `delayed_ack` and `delayed_ack_timeout`.
    pub fn new(config: &TcpConfig) -> Self {
        TcpSink {
            sack: config.variant == TcpVariant::Sack,
            mss: u64::from(config.mss.max(1)),
            delayed_ack: config.delayed_ack,
            delayed_ack_timeout: config.delayed_ack_timeout,
            rcv_nxt: 0,
            out_of_order: RangeSet::new(),
            unique_bytes: 0,
            recent: [0; MAX_SACK_BLOCKS],
            recent_len: 0,
            ready: VecDeque::new(),
            unacked_bytes: 0,
            delack_deadline: None,
            acks_sent: 0,
        }
    }

    /// Bytes delivered in order (goodput): the next byte expected.
    pub fn delivered_bytes(&self) -> u64 {
        self.rcv_nxt
    }

    /// Distinct payload bytes received, in order or not (duplicates are not counted twice).
    pub fn unique_bytes_received(&self) -> u64 {
        self.unique_bytes
    }

    /// ACKs handed out by [`poll_ack`](Self::poll_ack) so far.
    pub fn acks_sent(&self) -> u64 {
        self.acks_sent
    }

    /// Processes a data segment (ACK segments and empty segments are ignored). Call
    /// [`poll_ack`](Self::poll_ack) afterwards: each segment that warrants an immediate ACK queues one.
    pub fn on_segment(&mut self, now: Instant, seg: &TcpSegment) {
        if seg.is_ack || seg.len == 0 {
            return;
        }
        let (start, end) = (seg.seq, seg.end());
        if end <= self.rcv_nxt {
            // Entirely duplicate.
            self.ack_now(None);
            return;
        }
        let had_gap = !self.out_of_order.is_empty();
        let start = start.max(self.rcv_nxt);
        let old = self.rcv_nxt;
        if !had_gap && start == old {
            // In order with nothing queued: what inserting the segment and popping it at once would do.
            self.unique_bytes += end - start;
            self.rcv_nxt = end;
            self.after_in_order(now, old, false);
            return;
        }
        if let Some((new, _)) = self.out_of_order.insert(start, end) {
            self.unique_bytes += new;
        }
        if start > self.rcv_nxt {
            // Out of order (RFC 5681 §4.2): ACK at once, SACK block for this segment first.
            self.ack_now(Some(start));
            return;
        }
        if let Some((_, e)) = self.out_of_order.pop_first_if_starts_by(self.rcv_nxt) {
            self.rcv_nxt = e;
        }
        self.after_in_order(now, old, had_gap);
    }

    /// The ACK owed once the next expected byte moved from `old` on (RFC 5681 §4.2; RFC 1122 §4.2.3.2).
    fn after_in_order(&mut self, now: Instant, old: u64, had_gap: bool) {
        if had_gap || !self.delayed_ack {
            // Fills (part of) a gap, or no delayed ACKs.
            self.ack_now(None);
            return;
        }
        self.unacked_bytes += self.rcv_nxt - old;
        if self.unacked_bytes >= 2 * self.mss {
            self.ack_now(None);
        } else if self.delack_deadline.is_none() {
            self.delack_deadline = Some(now + self.delayed_ack_timeout);
        }
    }

    /// Queues an ACK for the current state; `trigger` is a byte of the out-of-order segment that caused it.
    fn ack_now(&mut self, trigger: Option<u64>) {
        let mut blocks = [(0u64, 0u64); MAX_SACK_BLOCKS];
        let mut n = 0;
        if self.sack {
            let candidates = trigger
                .into_iter()
                .chain(self.recent[..self.recent_len].iter().copied());
            for p in candidates {
                if n == MAX_SACK_BLOCKS {
                    break;
                }
                if p < self.rcv_nxt {
                    continue;
                }
                let Some(block) = self.out_of_order.containing(p) else {
                    continue;
                };
                if blocks[..n].contains(&block) {
                    continue;
                }
                blocks[n] = block;
                n += 1;
            }
            for block in self.out_of_order.iter() {
                if n == MAX_SACK_BLOCKS {
                    break;
                }
                if !blocks[..n].contains(&block) {
                    blocks[n] = block;
                    n += 1;
                }
            }
            for (slot, &(s, _)) in self.recent.iter_mut().zip(&blocks[..n]) {
                *slot = s;
            }
            self.recent_len = n;
        }
        self.ready
            .push_back(TcpSegment::ack(self.rcv_nxt, &blocks[..n]));
        self.unacked_bytes = 0;
        self.delack_deadline = None;
    }

    /// The next ACK to send now, if any: queued immediate ACKs first, then the delayed ACK if its timer has
    /// expired by `now`. Call until `None` after every input.
    pub fn poll_ack(&mut self, now: Instant) -> Option<TcpSegment> {
        if self.ready.is_empty() {
            self.handle_timeout(now);
        }
        let ack = self.ready.pop_front()?;
        self.acks_sent += 1;
        Some(ack)
    }

    /// When the delayed-ACK timer expires, if running.
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.delack_deadline
    }

    /// The delayed-ACK timer fired: queue the pending ACK (a call before it is due is ignored).
    pub fn handle_timeout(&mut self, now: Instant) {
        if self.delack_deadline.is_some_and(|d| now >= d) {
            self.ack_now(None);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1000;

    fn cfg(variant: TcpVariant, delayed: bool) -> TcpConfig {
        TcpConfig {
            variant,
            mss: MSS,
            delayed_ack: delayed,
            ..TcpConfig::default()
        }
    }

    fn seg(k: u64) -> TcpSegment {
        TcpSegment::data(k * 1000, MSS)
    }

    fn t(ms: u64) -> Instant {
        Instant::from_millis(ms)
    }

    fn acks(s: &mut TcpSink, now: Instant) -> Vec<TcpSegment> {
        std::iter::from_fn(|| s.poll_ack(now)).collect()
    }

    #[test]
    fn rfc5681_4_2_immediate_ack_without_delayed_acks() {
        let mut s = TcpSink::new(&cfg(TcpVariant::NewReno, false));
        s.on_segment(t(0), &seg(0));
        let a = acks(&mut s, t(0));
        assert_eq!(a.len(), 1);
        assert!(a[0].is_ack);
        assert_eq!(a[0].ack, 1000);
        assert_eq!(a[0].sack_count, 0);
        s.on_segment(t(1), &seg(1));
        assert_eq!(acks(&mut s, t(1))[0].ack, 2000);
        assert_eq!(s.delivered_bytes(), 2000);
        assert_eq!(s.poll_timeout(), None);
        assert_eq!(s.acks_sent(), 2);
    }

    #[test]
    fn rfc1122_4_2_3_2_delayed_ack_every_second_full_segment() {
        let mut s = TcpSink::new(&cfg(TcpVariant::NewReno, true));
        s.on_segment(t(0), &seg(0));
        assert!(acks(&mut s, t(0)).is_empty());
        assert_eq!(s.poll_timeout(), Some(t(200)));
        s.on_segment(t(5), &seg(1));
        let a = acks(&mut s, t(5));
        assert_eq!(a.len(), 1);
        assert_eq!(a[0].ack, 2000);
        assert_eq!(s.poll_timeout(), None);
    }

    #[test]
    fn rfc5681_4_2_delayed_ack_timer() {
        let mut s = TcpSink::new(&cfg(TcpVariant::NewReno, true));
        s.on_segment(t(0), &seg(0));
        assert!(acks(&mut s, t(199)).is_empty());
        s.handle_timeout(t(150)); // early: ignored
        assert!(acks(&mut s, t(150)).is_empty());
        // poll_ack itself notices the expired timer.
        let a = acks(&mut s, t(200));
        assert_eq!(a.len(), 1);
        assert_eq!(a[0].ack, 1000);
        // handle_timeout path.
        s.on_segment(t(300), &seg(1));
        s.handle_timeout(t(500));
        assert_eq!(acks(&mut s, t(500))[0].ack, 2000);
    }

    #[test]
    fn rfc5681_4_2_out_of_order_and_gap_filling_acked_immediately() {
        let mut s = TcpSink::new(&cfg(TcpVariant::NewReno, true));
        s.on_segment(t(0), &seg(0));
        assert!(acks(&mut s, t(0)).is_empty());
        // Segment 2 out of order: an immediate (duplicate-looking) ACK for 1000, which also covers segment 0.
        s.on_segment(t(1), &seg(2));
        let a = acks(&mut s, t(1));
        assert_eq!(a.len(), 1);
        assert_eq!(a[0].ack, 1000);
        assert_eq!(s.poll_timeout(), None);
        s.on_segment(t(2), &seg(3));
        assert_eq!(acks(&mut s, t(2))[0].ack, 1000);
        // Segment 1 fills the gap: immediate cumulative ACK.
        s.on_segment(t(3), &seg(1));
        let a = acks(&mut s, t(3));
        assert_eq!(a.len(), 1);
        assert_eq!(a[0].ack, 4000);
        assert_eq!(s.delivered_bytes(), 4000);
        assert_eq!(s.unique_bytes_received(), 4000);
        // A duplicate is acknowledged at once and not counted.
        s.on_segment(t(4), &seg(2));
        assert_eq!(acks(&mut s, t(4))[0].ack, 4000);
        assert_eq!(s.unique_bytes_received(), 4000);
    }

    /// Segments mostly in order, some swapped, some followed by a copy overlapping the next one: every byte is
    /// counted once, the next expected byte ends at the last, and every segment is acknowledged (no delayed
    /// ACKs), whichever path took it (in order with nothing queued, or through the out-of-order set).
    #[test]
    fn every_byte_counted_once_in_any_order() {
        use rand_chacha::ChaCha8Rng;
        use rand_core::{RngCore, SeedableRng};
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        for _ in 0..50 {
            let mut s = TcpSink::new(&cfg(TcpVariant::Sack, false));
            let n = 40u64;
            let mut order: Vec<u64> = (0..n).collect();
            for i in 0..order.len() - 1 {
                if rng.next_u32() % 4 == 0 {
                    order.swap(i, i + 1);
                }
            }
            let mut segments = 0;
            for &k in &order {
                s.on_segment(t(0), &TcpSegment::data(k * 1000, 1000));
                segments += 1;
                if k + 1 < n && rng.next_u32() % 5 == 0 {
                    s.on_segment(t(0), &TcpSegment::data(k * 1000 + 500, 1000));
                    segments += 1;
                }
            }
            assert_eq!(s.unique_bytes_received(), n * 1000);
            assert_eq!(s.delivered_bytes(), n * 1000);
            assert_eq!(acks(&mut s, t(0)).len(), segments);
        }
    }

    #[test]
    fn partially_overlapping_retransmission_is_trimmed() {
        let mut s = TcpSink::new(&cfg(TcpVariant::NewReno, false));
        s.on_segment(t(0), &TcpSegment::data(0, 600));
        s.on_segment(t(0), &TcpSegment::data(0, 1000));
        assert_eq!(s.delivered_bytes(), 1000);
        assert_eq!(s.unique_bytes_received(), 1000);
        assert_eq!(acks(&mut s, t(0)).last().unwrap().ack, 1000);
    }

    #[test]
    fn rfc2018_4_first_block_holds_the_triggering_segment() {
        let mut s = TcpSink::new(&cfg(TcpVariant::Sack, false));
        s.on_segment(t(0), &seg(0));
        acks(&mut s, t(0));
        s.on_segment(t(1), &seg(2)); // hole at 1
        let a = acks(&mut s, t(1))[0];
        assert_eq!(a.ack, 1000);
        assert_eq!(a.sack_blocks(), &[(2000, 3000)]);
        assert_eq!(a.wire_bytes(), 52);
        s.on_segment(t(2), &seg(4)); // hole at 3
        let a = acks(&mut s, t(2))[0];
        assert_eq!(a.sack_blocks(), &[(4000, 5000), (2000, 3000)]);
        s.on_segment(t(3), &seg(6)); // hole at 5
        s.on_segment(t(4), &seg(8)); // hole at 7
        let a = acks(&mut s, t(4));
        assert_eq!(
            a[1].sack_blocks(),
            &[(8000, 9000), (6000, 7000), (4000, 5000)],
            "three most recent, most recent first"
        );
        // Segment 5 fills a hole: its merged block comes first, then the most recently reported others, then
        // (as many distinct blocks as possible) the lowest block not reported lately.
        s.on_segment(t(5), &seg(5));
        let a = acks(&mut s, t(5))[0];
        assert_eq!(a.sack_blocks(), &[(4000, 7000), (8000, 9000), (2000, 3000)]);
        s.on_segment(t(6), &seg(3));
        let a = acks(&mut s, t(6))[0];
        assert_eq!(a.sack_blocks(), &[(2000, 7000), (8000, 9000)]);
        // A duplicate out-of-order segment: its block first.
        s.on_segment(t(7), &seg(8));
        let a = acks(&mut s, t(7))[0];
        assert_eq!(a.sack_blocks(), &[(8000, 9000), (2000, 7000)]);
    }

    #[test]
    fn rfc2018_4_cumulative_advance_drops_covered_blocks() {
        let mut s = TcpSink::new(&cfg(TcpVariant::Sack, false));
        s.on_segment(t(0), &seg(1));
        s.on_segment(t(0), &seg(3));
        acks(&mut s, t(0));
        // Segment 0 advances the cumulative ACK to 2000: the first block is not the triggering segment's.
        s.on_segment(t(1), &seg(0));
        let a = acks(&mut s, t(1))[0];
        assert_eq!(a.ack, 2000);
        assert_eq!(a.sack_blocks(), &[(3000, 4000)]);
        s.on_segment(t(2), &seg(2));
        let a = acks(&mut s, t(2))[0];
        assert_eq!(a.ack, 4000);
        assert_eq!(a.sack_count, 0);
    }

    #[test]
    fn no_sack_blocks_for_non_sack_variants() {
        let mut s = TcpSink::new(&cfg(TcpVariant::Reno, false));
        s.on_segment(t(0), &seg(1));
        let a = acks(&mut s, t(0))[0];
        assert_eq!(a.ack, 0);
        assert_eq!(a.sack_count, 0);
        assert_eq!(s.unique_bytes_received(), 1000);
        assert_eq!(s.delivered_bytes(), 0);
        // ACK segments and empty segments are ignored.
        s.on_segment(t(0), &TcpSegment::ack(5, &[]));
        s.on_segment(t(0), &TcpSegment::data(0, 0));
        assert!(acks(&mut s, t(0)).is_empty());
    }
}
