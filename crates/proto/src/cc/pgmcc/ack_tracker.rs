//! Which data packets the acker has acknowledged, read from ACK bitmaps (draft §2.1.2, §2.2; paper §3.3).
//!
//! ACKs are not cumulative: each carries RX_MAX and the receive status of the 32 packets RX_MAX−31 … RX_MAX, so a
//! lost or reordered ACK is covered by the next one. The tracker keeps one record per ODATA packet sent (which
//! acker it named, when it left, whether it was acknowledged or declared lost) for the packets an ACK may still
//! speak about.

use crate::seq;
use crate::time::Instant;
use std::collections::VecDeque;
use std::net::IpAddr;

/// Receive status of one sent packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Unacked,
    Acked,
    Lost,
    /// Written off by a timeout: later ACKs for it return no token and its absence is no loss signal.
    Abandoned,
}

#[derive(Clone, Copy, Debug)]
struct Record {
    sent_at: Instant,
    acker: Option<IpAddr>,
    state: State,
}

/// What one ACK changed.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AckOutcome {
    /// Packets newly acknowledged by this ACK.
    pub newly_acked: u32,
    /// The highest sequence number newly acknowledged.
    pub highest_newly_acked: Option<u32>,
    /// The highest sequence number newly declared lost (dupack rule or fallen out of the bitmap).
    pub highest_lost: Option<u32>,
    /// Packets newly declared lost.
    pub lost: u32,
    /// Time from sending RX_MAX to this ACK, when RX_MAX was acknowledged for the first time.
    pub rtt_sample: Option<std::time::Duration>,
}

/// Sent-packet records from the oldest an ACK can still mention up to the last sent.
#[derive(Clone, Debug)]
pub struct AckTracker {
    /// Sequence number of `records[0]`.
    base: u32,
    records: VecDeque<Record>,
    dupack_threshold: u32,
    highest_rx_max: Option<u32>,
}

/// Records kept behind the highest RX_MAX seen (the bitmap spans 32; a margin tolerates reordered ACKs).
const KEEP_BEHIND: u32 = 64;

impl AckTracker {
    /// An empty tracker; a packet is lost once `dupack_threshold` later packets are acknowledged.
    pub fn new(dupack_threshold: u32) -> Self {
        AckTracker {
            base: 0,
            records: VecDeque::new(),
            dupack_threshold,
            highest_rx_max: None,
        }
    }

    /// The ODATA packet `sqn` left at `now` naming `acker`. Sequence numbers are consecutive.
    pub fn on_sent(&mut self, now: Instant, sqn: u32, acker: Option<IpAddr>) {
        if self.records.is_empty() {
            self.base = sqn;
        } else if sqn != self.base.wrapping_add(self.records.len() as u32) {
            // A gap (the session skipped numbers): start afresh rather than misattribute bits.
            self.records.clear();
            self.base = sqn;
        }
        self.records.push_back(Record {
            sent_at: now,
            acker,
            state: State::Unacked,
        });
    }

    /// The last sequence number sent.
    pub fn snd_max(&self) -> Option<u32> {
        if self.records.is_empty() {
            None
        } else {
            Some(self.base.wrapping_add(self.records.len() as u32 - 1))
        }
    }

    fn index(&self, sqn: u32) -> Option<usize> {
        let d = seq::diff(sqn, self.base);
        if d >= 0 && (d as usize) < self.records.len() {
            Some(d as usize)
        } else {
            None
        }
    }

    /// The acker that packet `sqn` named, if it is still tracked.
    pub fn acker_of(&self, sqn: u32) -> Option<Option<IpAddr>> {
        self.index(sqn).map(|i| self.records[i].acker)
    }

    /// A timeout restarts the window (draft §2.2: W = T = 1): every packet still unacknowledged is written off,
    /// so that late ACKs for it neither return tokens the restart already granted nor signal losses against the
    /// restarted window (as Rizzo's ns-2 code does, marking what was sent before a stall as acknowledged).
    pub fn abandon_outstanding(&mut self) -> u32 {
        let mut n = 0;
        for r in self
            .records
            .iter_mut()
            .filter(|r| r.state == State::Unacked)
        {
            r.state = State::Abandoned;
            n += 1;
        }
        n
    }

    /// Write off the packets still unacknowledged that were sent before `before` (their ACKs are no longer
    /// expected); returns how many.
    pub fn abandon_sent_before(&mut self, before: Instant) -> u32 {
        let mut n = 0;
        for r in self
            .records
            .iter_mut()
            .filter(|r| r.state == State::Unacked && r.sent_at < before)
        {
            r.state = State::Abandoned;
            n += 1;
        }
        n
    }

    /// Early loss detection (RFC 5827 §2.1, Early Retransmit): once the acker has seen the last packet sent
    /// (RX_MAX = snd_max), every packet before it still unacknowledged is lost, however few packets followed it.
    /// The caller asks only when it has no token for another packet: then no later packet can come to make up the
    /// three acknowledgements the dupack rule waits for, and only the timeout would end the wait.
    pub fn tail_seen_holes_lost(&mut self) -> AckOutcome {
        let mut out = AckOutcome::default();
        if self.highest_rx_max.is_none() || self.highest_rx_max != self.snd_max() {
            return out;
        }
        let base = self.base;
        for (i, r) in self.records.iter_mut().enumerate() {
            if r.state == State::Unacked {
                r.state = State::Lost;
                out.lost += 1;
                out.highest_lost = Some(base.wrapping_add(i as u32));
            }
        }
        out
    }

    /// Whether any tracked packet is neither acknowledged nor declared lost.
    pub fn has_unacked(&self) -> bool {
        self.records.iter().any(|r| r.state == State::Unacked)
    }

    /// Packets sent after `rx_max`: the acker's packets in flight (paper §3.4 realignment).
    pub fn in_flight_after(&self, rx_max: u32) -> u32 {
        match self.snd_max() {
            Some(max) if seq::gt(max, rx_max) => {
                seq::diff(max, rx_max).min(i64::from(u32::MAX)) as u32
            }
            _ => 0,
        }
    }

    /// Apply an ACK. `counts(acker_named)` says whether a bit may acknowledge a packet that named
    /// `acker_named` (the caller's old-acker policy).
    pub fn on_ack(
        &mut self,
        now: Instant,
        rx_max: u32,
        bitmap: u32,
        counts: impl Fn(Option<IpAddr>) -> bool,
    ) -> AckOutcome {
        let mut out = AckOutcome::default();
        // Bits, oldest first so `highest_newly_acked` ends at the highest.
        for i in (0..32u32).rev() {
            if bitmap & (1 << i) == 0 {
                continue;
            }
            let sqn = rx_max.wrapping_sub(i);
            let Some(idx) = self.index(sqn) else { continue };
            let rec = &mut self.records[idx];
            if rec.state == State::Unacked && counts(rec.acker) {
                rec.state = State::Acked;
                out.newly_acked += 1;
                out.highest_newly_acked = Some(sqn);
                if i == 0 {
                    out.rtt_sample = Some(now - rec.sent_at);
                }
            }
        }
        // Dupack rule (draft §2.2): an unacknowledged packet followed by ≥ threshold acknowledged ones is lost.
        // RX_MAX itself with its bit clear is a congestion mark (the acker saw the packet but reports it lost:
        // rxw module `budget`); no reordering can explain it, so it is lost at once, as an ECN echo is answered
        // without waiting for duplicate ACKs (RFC 3168 §6.1.2). Waiting would stall a window of one packet: no
        // later packet is in flight to be acknowledged, and only the retransmission timeout would restart it.
        let mut acked_after = 0u32;
        for i in 0..32u32 {
            let sqn = rx_max.wrapping_sub(i);
            if bitmap & (1 << i) != 0 {
                acked_after += 1;
                continue;
            }
            let Some(idx) = self.index(sqn) else { continue };
            let lost = i == 0 || acked_after >= self.dupack_threshold;
            if lost && self.records[idx].state == State::Unacked {
                self.records[idx].state = State::Lost;
                out.lost += 1;
                out.highest_lost = Some(seq::max(out.highest_lost.unwrap_or(sqn), sqn));
            }
        }
        // Packets older than the bitmap and still unacknowledged will never be reported again: the acker
        // announced RX_MAX beyond them without them, so they are lost.
        if self.highest_rx_max.is_none_or(|h| seq::gt(rx_max, h)) {
            self.highest_rx_max = Some(rx_max);
            let oldest_in_bitmap = rx_max.wrapping_sub(31);
            let mut sqn = self.base;
            while let Some(idx) = self.index(sqn) {
                if !seq::lt(sqn, oldest_in_bitmap) {
                    break;
                }
                if self.records[idx].state == State::Unacked {
                    self.records[idx].state = State::Lost;
                    out.lost += 1;
                    out.highest_lost = Some(seq::max(out.highest_lost.unwrap_or(sqn), sqn));
                }
                sqn = sqn.wrapping_add(1);
            }
            // Forget what no ACK can mention any more.
            let keep_from = rx_max.wrapping_sub(KEEP_BEHIND);
            while !self.records.is_empty() && seq::lt(self.base, keep_from) {
                self.records.pop_front();
                self.base = self.base.wrapping_add(1);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    fn a(n: u8) -> Option<IpAddr> {
        Some(IpAddr::V4(Ipv4Addr::new(10, 0, 0, n)))
    }

    fn sent(n: u32) -> AckTracker {
        let mut t = AckTracker::new(3);
        for s in 0..n {
            t.on_sent(Instant::from_millis(u64::from(s)), s, a(1));
        }
        t
    }

    #[test]
    fn draft_2_1_2_bitmap_lsb_is_rx_max() {
        let mut t = sent(4);
        let o = t.on_ack(Instant::from_millis(100), 3, 0b1, |_| true);
        assert_eq!(o.newly_acked, 1);
        assert_eq!(o.highest_newly_acked, Some(3));
        assert_eq!(o.rtt_sample, Some(std::time::Duration::from_millis(97)));
    }

    #[test]
    fn paper_3_3_repeated_bits_count_once() {
        let mut t = sent(4);
        assert_eq!(t.on_ack(Instant::ZERO, 1, 0b11, |_| true).newly_acked, 2);
        assert_eq!(t.on_ack(Instant::ZERO, 2, 0b111, |_| true).newly_acked, 1);
        // A lost ACK is covered by the next one.
        assert_eq!(t.on_ack(Instant::ZERO, 3, 0b1111, |_| true).newly_acked, 1);
    }

    #[test]
    fn draft_2_2_dupack_threshold_three() {
        let mut t = sent(6);
        // 0 and 1 received, 2 missing, 3 and 4 received: only two later packets, not yet lost.
        let o = t.on_ack(Instant::ZERO, 4, 0b11011, |_| true);
        assert_eq!(o.lost, 0);
        // 5 received too: three later packets acknowledged, 2 is lost.
        let o = t.on_ack(Instant::ZERO, 5, 0b110111, |_| true);
        assert_eq!((o.lost, o.highest_lost), (1, Some(2)));
        // Declared once only.
        let o = t.on_ack(Instant::ZERO, 5, 0b110111, |_| true);
        assert_eq!(o.lost, 0);
    }

    #[test]
    fn a_clear_bit_at_rx_max_is_a_mark_lost_at_once() {
        let mut t = sent(1);
        // The acker announces RX_MAX = 0 with its own bit clear: it saw packet 0 and marked it.
        let o = t.on_ack(Instant::ZERO, 0, 0, |_| true);
        assert_eq!((o.newly_acked, o.lost, o.highest_lost), (0, 1, Some(0)));
        assert!(!t.has_unacked(), "a window of one is free again, with no timeout");
        // Holes below RX_MAX still wait for three later acknowledgements.
        let mut t = sent(4);
        let o = t.on_ack(Instant::ZERO, 3, 0b1101, |_| true);
        assert_eq!((o.lost, o.highest_lost), (0, None));
    }

    #[test]
    fn rfc5827_2_1_holes_before_a_seen_tail_are_lost_early() {
        let mut t = sent(3);
        // 0 missing, 1 and 2 (the last sent) acknowledged: two later packets, below the dupack threshold.
        let o = t.on_ack(Instant::ZERO, 2, 0b011, |_| true);
        assert_eq!(o.lost, 0);
        let o = t.tail_seen_holes_lost();
        assert_eq!((o.lost, o.highest_lost), (1, Some(0)));
        assert!(!t.has_unacked());
        // A packet sent after RX_MAX is still in flight: its ACK may yet bring the dupacks.
        let mut t = sent(4);
        t.on_ack(Instant::ZERO, 2, 0b011, |_| true);
        assert_eq!(t.tail_seen_holes_lost().lost, 0);
    }

    #[test]
    fn packets_falling_out_of_the_bitmap_are_lost() {
        let mut t = sent(40);
        // Only 39 received: 0..=7 are older than the bitmap and never acknowledged.
        let o = t.on_ack(Instant::ZERO, 39, 1, |_| true);
        assert_eq!(o.lost, 8);
        assert_eq!(o.highest_lost, Some(7));
    }

    #[test]
    fn draft_2_2_timeout_writes_off_outstanding_packets() {
        let mut t = sent(8);
        assert_eq!(t.abandon_outstanding(), 8);
        assert!(!t.has_unacked());
        // A late ACK for them returns nothing and declares nothing lost.
        let o = t.on_ack(Instant::ZERO, 7, 0b1011_1111, |_| true);
        assert_eq!((o.newly_acked, o.lost), (0, 0));
        // Packets sent after the restart are tracked as usual.
        t.on_sent(Instant::ZERO, 8, a(1));
        assert_eq!(t.on_ack(Instant::ZERO, 8, 1, |_| true).newly_acked, 1);
    }

    #[test]
    fn policy_filter_applies_per_packet() {
        let mut t = AckTracker::new(3);
        t.on_sent(Instant::ZERO, 0, a(1));
        t.on_sent(Instant::ZERO, 1, a(2));
        let o = t.on_ack(Instant::ZERO, 1, 0b11, |named| named == a(1));
        assert_eq!(o.newly_acked, 1);
        assert_eq!(o.highest_newly_acked, Some(0));
    }

    #[test]
    fn wraps_sequence_numbers() {
        let mut t = AckTracker::new(3);
        for i in 0..10u32 {
            t.on_sent(Instant::ZERO, (u32::MAX - 4).wrapping_add(i), a(1));
        }
        let o = t.on_ack(Instant::ZERO, 4, 0x3FF, |_| true);
        assert_eq!(o.newly_acked, 10);
        assert_eq!(t.in_flight_after(2), 2);
    }
}
