//! [`TcpSender`]: a sans-IO bulk-data TCP sender with Reno, NewReno or SACK loss recovery.
//!
//! # Call order
//!
//! After every input — [`TcpSender::on_ack`], [`TcpSender::handle_timeout`], [`TcpSender::set_bytes_to_send`]
//! and at start — call [`TcpSender::poll_segment`] until it returns `None` and hand each segment to the network,
//! then re-arm the timer from [`TcpSender::poll_timeout`].
//!
//! # Sequence state
//!
//! * `snd_una`: oldest unacknowledged byte (RFC 6675 HighACK + 1).
//! * `snd_max`: one past the highest byte ever sent (RFC 6675 HighData + 1).
//! * `snd_nxt`: next byte of the in-order transmission. It equals `snd_max` except after a retransmission
//!   timeout, when it is pulled back to `snd_una` and walks up again as cwnd reopens ("go-back-N").
//! * FlightSize (RFC 5681 §2) is `snd_nxt − snd_una`: after a timeout, the bytes in `[snd_nxt, snd_max)` are
//!   presumed lost and are not counted, as in BSD, Linux (`packets_in_flight`) and ns-3 (every segment marked
//!   lost on RTO).
//! * `recover`: NewReno's "recover" (RFC 6582 §3.2) and RFC 6675's RecoveryPoint, kept exclusive here (one past
//!   HighData when recovery started or the timer fired; 0 before any). NewReno enters fast retransmit again
//!   only when the ACK "covers more than recover", i.e. `snd_una > recover` (RFC 6582 §4: ack − 1 > recover):
//!   duplicate ACKs *at* `recover` after a timeout may be caused by go-back-N resending data the receiver
//!   already had. SACK waits for HighACK ≥ RecoveryPoint, i.e. `snd_una >= recover` (RFC 6675 §5.1); its
//!   duplicate ACKs need new SACK information, which such resends do not produce.
//!
//! # Congestion control (RFC 5681 §3.1)
//!
//! * Initial window `initial_window`·SMSS, initial ssthresh `initial_ssthresh`.
//! * Slow start while cwnd < ssthresh: each ACK of new data adds min(N, SMSS), N the bytes it acknowledges —
//!   RFC 5681 eq. 2, which is appropriate byte counting (RFC 3465) with limit L = 1·SMSS.
//! * Congestion avoidance while cwnd ≥ ssthresh: each ACK of new data adds SMSS·SMSS/cwnd, at least 1 byte
//!   (RFC 5681 eq. 3). With delayed ACKs this grows more slowly than one SMSS per RTT, as RFC 5681 notes.
//! * No growth on ACKs that arrive during (or end) loss recovery.
//! * cwnd never grows beyond `max_cwnd`, the modelled receiver window, which also caps the bytes outstanding.
//! * Segments are SMSS-sized (the last may be shorter) and go out only if they fit entirely in the window.
//! * No Limited Transmit (RFC 3042, RFC 6675 §5 step 3): it is optional; all variants wait for DupThresh.
//!
//! # Loss recovery
//!
//! * **Reno** (RFC 5681 §3.2): on the DupThresh-th duplicate ACK, ssthresh = max(FlightSize/2, 2·SMSS)
//!   (eq. 4), retransmit `snd_una`, cwnd = ssthresh + DupThresh·SMSS (3·SMSS for the default threshold); each
//!   further duplicate ACK adds SMSS; the first ACK of new data sets cwnd = ssthresh and ends recovery. There
//!   is no guard against reducing twice for one window: that is Reno.
//! * **NewReno** (RFC 6582 §3.2): as Reno, but fast retransmit is entered only if `snd_una > recover` (or no
//!   recovery happened yet), and `recover` is set to HighData. A partial ACK (below `recover`) retransmits the
//!   segment at the new `snd_una`, deflates cwnd by the bytes acknowledged and adds back SMSS if at least SMSS
//!   was acknowledged, and keeps recovery going. A full ACK sets cwnd = min(ssthresh, max(FlightSize, SMSS) +
//!   SMSS) — the first of RFC 6582's two options, chosen because it cannot release a burst. The retransmission
//!   timer is restarted on the first partial ACK only (the "Impatient" variant RFC 6582 §4 recommends).
//! * **SACK** (RFC 6675 §5): a duplicate ACK is one carrying new SACK information (§2), also when it advances
//!   the cumulative ACK. Recovery starts when DupAcks ≥ DupThresh or `IsLost(HighACK + 1)`, and `snd_una >=
//!   RecoveryPoint`: RecoveryPoint = HighData, ssthresh = cwnd = max(FlightSize/2, 2·SMSS), the segment at
//!   HighACK is retransmitted and HighRxt set past it. While in recovery, every ACK updates the scoreboard and
//!   recomputes `pipe` (`SetPipe`); while cwnd − pipe ≥ SMSS, `NextSeg` picks: (1) the first un-SACKed,
//!   `IsLost` byte above HighRxt, (2) new data, (3) the first un-SACKed byte above HighRxt and below the
//!   highest SACKed byte. Rule 4 (rescue retransmission) is not implemented: a tail loss with no new data is
//!   left to the timer. Recovery ends with the first ACK at or beyond RecoveryPoint; SACK information above it
//!   is kept. ACKs without SACK blocks fall back to the RFC 5681 duplicate-ACK definition.
//!
//! # Retransmission timer (RFC 6298)
//!
//! * SRTT/RTTVAR/RTO from [`RttEstimator`] (clock granularity G = `clock_granularity`, 1 ms by default), bounded by `min_rto`/`max_rto`.
//! * Karn's algorithm (RFC 6298 §3; no timestamps): one segment of new data is timed at a time, and the
//!   measurement is abandoned when any byte at or below it is retransmitted, so no sample ever covers a
//!   retransmission (as in BSD).
//! * The timer starts when data is sent and it is not running (§5.1), stops when everything is acknowledged
//!   (§5.2), restarts on every ACK of new data (§5.3; NewReno: see above).
//! * On expiry (§5.4–5.6, RFC 5681 §3.1): ssthresh = max(FlightSize/2, 2·SMSS) — kept unchanged if the segment
//!   at `snd_una` had already been retransmitted by the timer (RFC 5681 §3.1), and never raised above the value
//!   set by a loss recovery the timeout interrupts (RFC 5681 §3.1 asks for "no more than" eq. 4; FlightSize is
//!   swollen by what an inflated Reno/NewReno window sent past the hole; Linux likewise keeps the recovery's
//!   ssthresh) — cwnd = 1·SMSS (the loss window), RTO doubled (capped at `max_rto`), any loss recovery
//!   abandoned, `recover` = HighData (RFC 6582 §3.2 step 4, RFC 6675 §5.1), and `snd_nxt` pulled back to
//!   `snd_una`: everything unacknowledged is resent in order as the window reopens, as BSD, Linux and
//!   ns-2/ns-3 effectively do.
//! * SACK after a timeout: the scoreboard is kept, not cleared. RFC 2018 suggests clearing it in case the
//!   receiver reneged; [`TcpSink`](super::TcpSink) never reneges, and RFC 6675 §5.1 notes that keeping it
//!   (with reneging detection, as Linux does) is accepted practice. Every un-SACKed byte below HighData is
//!   treated as lost: the go-back-N walk skips SACKed ranges, and the window check counts only the un-SACKed
//!   bytes below `snd_nxt` until `snd_una` reaches RecoveryPoint.

use std::time::Duration;

use convoy_proto::rtt::{RttConfig, RttEstimator};
use convoy_proto::Instant;

use super::config::{TcpConfig, TcpVariant};
use super::scoreboard::Scoreboard;
use super::segment::TcpSegment;

/// Counters of a [`TcpSender`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpSenderStats {
    /// Data segments sent, retransmissions included.
    pub segments_sent: u64,
    /// Payload bytes sent, retransmissions included.
    pub bytes_sent: u64,
    /// Segments that carried at least one byte sent before.
    pub retransmissions: u64,
    /// Payload bytes of those retransmissions.
    pub bytes_retransmitted: u64,
    /// Fast retransmits, i.e. entries into loss recovery.
    pub fast_retransmits: u64,
    /// Retransmission timer expiries.
    pub timeouts: u64,
    /// Highest cumulative ACK received (`snd_una`): bytes delivered in order to the sink.
    pub highest_acked: u64,
    /// RTT samples taken.
    pub rtt_samples: u64,
}

/// Sans-IO TCP bulk-data sender; the [module docs](crate::tcp::sender) give its rules and their sources.
#[derive(Clone, Debug)]
pub struct TcpSender {
    cfg: TcpConfig,
    mss: u64,
    rtt: RttEstimator,
    snd_una: u64,
    snd_nxt: u64,
    snd_max: u64,
    cwnd: u64,
    ssthresh: u64,
    /// Duplicate ACKs counted outside recovery since the last cumulative ACK.
    dupacks: u32,
    in_recovery: bool,
    /// NewReno "recover" / RFC 6675 RecoveryPoint, exclusive.
    recover: u64,
    /// A timeout happened and `snd_una` has not reached `recover` since.
    after_rto: bool,
    /// The segment at `snd_una` has been retransmitted by the timer (RFC 5681 §3.1 ssthresh rule).
    rto_retransmitted: bool,
    /// RFC 6675 HighRxt, exclusive.
    high_rxt: u64,
    /// RFC 6675 pipe, maintained during SACK recovery.
    pipe: u64,
    /// NewReno partial ACKs in the current recovery.
    partial_acks: u32,
    /// A retransmission to send before anything else (fast retransmit, NewReno partial ACK).
    pending_rexmit: Option<u64>,
    rto_deadline: Option<Instant>,
    /// Karn-safe RTT measurement in progress: (end of the timed segment, when it was sent).
    timing: Option<(u64, Instant)>,
    /// Bytes the application offers in total; `None` = unlimited.
    limit: Option<u64>,
    scoreboard: Scoreboard,
    stats: TcpSenderStats,
}

impl TcpSender {
    /// A sender with nothing sent yet: cwnd = IW, RTO = `initial_rto` (RFC 5681 §3.1, RFC 6298 §2.1). It offers
    /// unlimited data until told otherwise ([`set_bytes_to_send`](Self::set_bytes_to_send)).
    pub fn new(config: TcpConfig, _now: Instant) -> Self {
        let mss = u64::from(config.mss.max(1));
        let rtt = RttEstimator::new(RttConfig {
            initial_rto: config.initial_rto,
            min_rto: config.min_rto,
            max_rto: config.max_rto,
            granularity: config.clock_granularity,
        });
        TcpSender {
            cfg: config,
            mss,
            rtt,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            cwnd: u64::from(config.initial_window.max(1)) * mss,
            ssthresh: config.initial_ssthresh,
            dupacks: 0,
            in_recovery: false,
            recover: 0,
            after_rto: false,
            rto_retransmitted: false,
            high_rxt: 0,
            pipe: 0,
            partial_acks: 0,
            pending_rexmit: None,
            rto_deadline: None,
            timing: None,
            limit: None,
            scoreboard: Scoreboard::new(),
            stats: TcpSenderStats::default(),
        }
    }

    /// Total bytes the application offers: `None` = unlimited bulk data (FTP), `Some(n)` = bytes `[0, n)`.
    /// Lowering it below what was already sent stops new data; sent data is still recovered.
    pub fn set_bytes_to_send(&mut self, limit: Option<u64>) {
        self.limit = limit;
    }

    /// The application offers no more new data (an FTP stop time); outstanding data is still recovered.
    pub fn stop(&mut self) {
        self.limit = Some(self.limit.unwrap_or(u64::MAX).min(self.snd_max));
    }

    /// The configuration in use.
    pub fn config(&self) -> &TcpConfig {
        &self.cfg
    }

    /// Congestion window in bytes (inflated during Reno/NewReno fast recovery).
    pub fn cwnd(&self) -> u64 {
        self.cwnd
    }

    /// Slow-start threshold in bytes.
    pub fn ssthresh(&self) -> u64 {
        self.ssthresh
    }

    /// Smoothed RTT, `None` before the first sample.
    pub fn srtt(&self) -> Option<Duration> {
        self.rtt.srtt()
    }

    /// Current retransmission timeout, back-off included.
    pub fn rto(&self) -> Duration {
        self.rtt.rto()
    }

    /// Counters.
    pub fn stats(&self) -> &TcpSenderStats {
        &self.stats
    }

    /// Oldest unacknowledged byte.
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }

    /// One past the highest byte sent.
    pub fn snd_max(&self) -> u64 {
        self.snd_max
    }

    /// FlightSize (RFC 5681 §2): bytes sent and not cumulatively acknowledged, minus those presumed lost after a
    /// timeout (module docs).
    pub fn flight_size(&self) -> u64 {
        self.snd_nxt - self.snd_una
    }

    /// The amount the window is compared with before sending: RFC 6675 `pipe` during SACK recovery, un-SACKed
    /// bytes below `snd_nxt` after a SACK timeout, FlightSize otherwise.
    pub fn in_flight(&self) -> u64 {
        match self.cfg.variant {
            TcpVariant::Sack if self.in_recovery => self.pipe,
            TcpVariant::Sack if self.after_rto => {
                self.scoreboard.unsacked_in(self.snd_una, self.snd_nxt)
            }
            _ => self.flight_size(),
        }
    }

    /// Whether fast recovery / SACK loss recovery is in progress.
    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    /// When [`handle_timeout`](Self::handle_timeout) is due: the retransmission timer, `None` when no data is
    /// outstanding.
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.rto_deadline
    }

    fn dupthresh(&self) -> u32 {
        self.cfg.dupack_threshold.max(1)
    }

    fn rwnd(&self) -> u64 {
        self.cfg.max_cwnd.unwrap_or(u64::MAX)
    }

    fn new_data_limit(&self) -> u64 {
        self.limit.unwrap_or(u64::MAX)
    }

    /// Length of a retransmission at `seq < snd_max`: up to SMSS, stopping at SACKed data and at `snd_max`.
    fn rexmit_len(&self, seq: u64) -> u32 {
        self.scoreboard
            .segment_len(seq, self.cfg.mss.max(1), self.snd_max)
    }

    fn set_pipe(&mut self) {
        self.pipe = self.scoreboard.pipe(
            self.snd_una,
            self.snd_max,
            self.high_rxt,
            self.cfg.mss.max(1),
            self.dupthresh(),
        );
    }

    /// Processes an ACK segment (anything else is ignored, as are ACKs below `snd_una` or above `snd_max`).
    pub fn on_ack(&mut self, now: Instant, ack: &TcpSegment) {
        if !ack.is_ack || ack.ack > self.snd_max || ack.ack < self.snd_una {
            return;
        }
        let sack = self.cfg.variant == TcpVariant::Sack;
        let mut new_sack = false;
        if sack {
            self.scoreboard.advance(ack.ack);
            new_sack = self
                .scoreboard
                .update(ack.ack, self.snd_max, ack.sack_blocks());
        }
        // RFC 6675 §2 for SACK-carrying ACKs, RFC 5681 §2 otherwise (outstanding data, same ACK number; the
        // window is never advertised here).
        let duplicate = if sack && ack.sack_count > 0 {
            new_sack
        } else {
            ack.ack == self.snd_una && self.snd_una < self.snd_max
        };
        if ack.ack > self.snd_una {
            self.on_new_ack(now, ack.ack);
        }
        if duplicate {
            self.on_duplicate_ack();
        }
    }

    /// An ACK advancing `snd_una` to `ack`.
    fn on_new_ack(&mut self, now: Instant, ack: u64) {
        let acked = ack - self.snd_una;
        if let Some((end, sent)) = self.timing {
            if ack >= end {
                self.rtt.on_sample(now - sent);
                self.stats.rtt_samples += 1;
                self.timing = None;
            }
        }
        self.snd_una = ack;
        self.snd_nxt = self.snd_nxt.max(ack);
        self.stats.highest_acked = ack;
        self.rto_retransmitted = false;
        // RFC 6675 §5 "If the incoming ACK is a cumulative acknowledgment, the TCP MUST reset DupAcks to zero";
        // RFC 5681 counts duplicates since the last new ACK.
        self.dupacks = 0;
        if self.pending_rexmit.is_some_and(|p| p < ack) {
            self.pending_rexmit = None;
        }
        if self.after_rto && ack >= self.recover {
            self.after_rto = false;
        }
        let mut restart_timer = true;
        if self.in_recovery {
            match self.cfg.variant {
                TcpVariant::Reno => {
                    // RFC 5681 §3.2 step 6: deflate and leave fast recovery.
                    self.cwnd = self.ssthresh;
                    self.in_recovery = false;
                }
                TcpVariant::NewReno if ack >= self.recover => {
                    // RFC 6582 §3.2 step 3, full acknowledgment, option (1).
                    self.cwnd = self
                        .ssthresh
                        .min(self.flight_size().max(self.mss) + self.mss);
                    self.in_recovery = false;
                }
                TcpVariant::NewReno => {
                    // RFC 6582 §3.2 step 3, partial acknowledgment.
                    self.pending_rexmit = Some(ack);
                    self.cwnd = self.cwnd.saturating_sub(acked);
                    if acked >= self.mss {
                        self.cwnd += self.mss;
                    }
                    self.cwnd = self.cwnd.max(self.mss);
                    self.partial_acks += 1;
                    restart_timer = self.partial_acks == 1;
                }
                TcpVariant::Sack if ack >= self.recover => {
                    // RFC 6675 §5 (A).
                    self.in_recovery = false;
                }
                TcpVariant::Sack => {
                    // RFC 6675 §5 (B): the scoreboard is updated; recompute pipe.
                    self.set_pipe();
                }
            }
        } else {
            let increase = if self.cwnd < self.ssthresh {
                acked.min(self.mss) // RFC 5681 eq. 2
            } else {
                (self.mss * self.mss / self.cwnd).max(1) // RFC 5681 eq. 3
            };
            let cap = self.rwnd();
            if self.cwnd < cap {
                self.cwnd = (self.cwnd + increase).min(cap);
            }
        }
        // RFC 6298 §5.2 and §5.3.
        if self.snd_una >= self.snd_max {
            self.rto_deadline = None;
        } else if restart_timer {
            self.rto_deadline = Some(now + self.rtt.rto());
        }
    }

    /// A duplicate ACK (RFC 5681 §2, or RFC 6675 §2 for SACK).
    fn on_duplicate_ack(&mut self) {
        if self.in_recovery {
            match self.cfg.variant {
                // RFC 5681 §3.2 step 4, RFC 6582 §3.2 step 4: inflate.
                TcpVariant::Reno | TcpVariant::NewReno => self.cwnd += self.mss,
                // RFC 6675 §5 (B): DupAcks is not counted during recovery.
                TcpVariant::Sack => self.set_pipe(),
            }
            return;
        }
        self.dupacks += 1;
        let d = self.dupthresh();
        let enter = match self.cfg.variant {
            TcpVariant::Reno => self.dupacks == d,
            // RFC 6582 §3.2 step 2 and §4: the ACK must cover more than recover, ack − 1 > recover with
            // recover inclusive; recover = 0 means there was no recovery or timeout yet.
            TcpVariant::NewReno => {
                self.dupacks == d && (self.snd_una > self.recover || self.recover == 0)
            }
            // RFC 6675 §5.1: no new recovery until HighACK ≥ RecoveryPoint (both inclusive).
            TcpVariant::Sack => {
                (self.dupacks >= d || self.scoreboard.is_lost(self.snd_una, self.cfg.mss, d))
                    && self.snd_una >= self.recover
            }
        };
        if enter {
            self.enter_recovery();
        }
    }

    /// Fast retransmit and entry into loss recovery (RFC 5681 §3.2 steps 2–3, RFC 6582 §3.2 step 2,
    /// RFC 6675 §5 step 4).
    fn enter_recovery(&mut self) {
        self.ssthresh = (self.flight_size() / 2).max(2 * self.mss);
        self.in_recovery = true;
        self.recover = self.snd_max;
        self.partial_acks = 0;
        self.stats.fast_retransmits += 1;
        self.pending_rexmit = Some(self.snd_una);
        match self.cfg.variant {
            TcpVariant::Reno | TcpVariant::NewReno => {
                self.cwnd = self.ssthresh + u64::from(self.dupthresh()) * self.mss;
            }
            TcpVariant::Sack => {
                self.cwnd = self.ssthresh;
                self.high_rxt = self.snd_una + u64::from(self.rexmit_len(self.snd_una));
                self.set_pipe();
            }
        }
    }

    /// The retransmission timer fired (a call before [`poll_timeout`](Self::poll_timeout) is ignored).
    pub fn handle_timeout(&mut self, now: Instant) {
        match self.rto_deadline {
            Some(d) if now >= d => self.rto_deadline = None,
            _ => return,
        }
        if self.snd_una >= self.snd_max {
            return;
        }
        self.stats.timeouts += 1;
        if !self.rto_retransmitted {
            let eq4 = (self.flight_size() / 2).max(2 * self.mss);
            // RFC 5681 §3.1: "no more than" eq. 4. During recovery, FlightSize includes what the inflated
            // window let out while a hole held snd_una back; keep the reduction recovery already made if smaller.
            self.ssthresh = if self.in_recovery {
                eq4.min(self.ssthresh)
            } else {
                eq4
            };
        }
        self.cwnd = self.mss;
        self.rtt.backoff();
        self.in_recovery = false;
        self.dupacks = 0;
        self.pending_rexmit = None;
        self.timing = None;
        self.recover = self.snd_max;
        self.after_rto = true;
        self.rto_retransmitted = true;
        self.snd_nxt = self.snd_una;
    }

    /// The next segment to send now, if any: a pending fast/partial-ACK retransmission first, then (SACK
    /// recovery) `NextSeg()` while cwnd − pipe ≥ SMSS, otherwise the in-order transmission at `snd_nxt` if it
    /// fits in min(cwnd, receiver window). Call until `None` after every input.
    pub fn poll_segment(&mut self, now: Instant) -> Option<TcpSegment> {
        if let Some(seq) = self.pending_rexmit.take() {
            if seq >= self.snd_una && seq < self.snd_max {
                let len = self.rexmit_len(seq);
                return Some(self.emit(now, seq, len));
            }
        }
        if self.cfg.variant == TcpVariant::Sack && self.in_recovery {
            return self.poll_sack_recovery(now);
        }
        let mut seq = self.snd_nxt;
        if seq < self.snd_max {
            seq = self.scoreboard.next_unsacked(seq);
            self.snd_nxt = seq;
        }
        let len = if seq < self.snd_max {
            self.rexmit_len(seq)
        } else {
            self.new_data_limit().saturating_sub(seq).min(self.mss) as u32
        };
        if len == 0 || self.in_flight() + u64::from(len) > self.cwnd.min(self.rwnd()) {
            return None;
        }
        self.snd_nxt = seq + u64::from(len);
        Some(self.emit(now, seq, len))
    }

    /// RFC 6675 §5 step (C).
    fn poll_sack_recovery(&mut self, now: Instant) -> Option<TcpSegment> {
        if self.cwnd.saturating_sub(self.pipe) < self.mss {
            return None;
        }
        let (seq, len) = self.next_seg()?;
        let end = seq + u64::from(len);
        if seq < self.snd_max {
            self.high_rxt = self.high_rxt.max(end); // (C.2)
        }
        self.pipe += u64::from(len); // (C.4)
        self.snd_nxt = self.snd_nxt.max(end);
        Some(self.emit(now, seq, len)) // (C.3) in emit
    }

    /// RFC 6675 §4 `NextSeg()`, rules 1–3.
    fn next_seg(&self) -> Option<(u64, u32)> {
        let mss = self.cfg.mss.max(1);
        let s2 = self
            .scoreboard
            .next_unsacked(self.high_rxt.max(self.snd_una));
        let lost = self
            .scoreboard
            .lost_boundary(self.snd_una, mss, self.dupthresh());
        // (1) un-SACKed, above HighRxt, IsLost (which implies below the highest SACKed byte).
        if s2 < lost && s2 < self.snd_max {
            return Some((s2, self.rexmit_len(s2)));
        }
        // (2) new data, if the receiver window allows.
        let len = self
            .new_data_limit()
            .saturating_sub(self.snd_max)
            .min(self.mss);
        if len > 0 && self.snd_max + len - self.snd_una <= self.rwnd() {
            return Some((self.snd_max, len as u32));
        }
        // (3) un-SACKed, above HighRxt, below the highest SACKed byte.
        match self.scoreboard.high_sacked() {
            Some(h) if s2 < h => Some((s2, self.rexmit_len(s2))),
            _ => None,
        }
    }

    /// Bookkeeping for one transmitted segment `[seq, seq + len)`.
    fn emit(&mut self, now: Instant, seq: u64, len: u32) -> TcpSegment {
        let end = seq + u64::from(len);
        if seq < self.snd_max {
            self.stats.retransmissions += 1;
            self.stats.bytes_retransmitted += u64::from(len);
            // Karn (RFC 6298 §3): abandon a measurement whose ACK could be caused by this retransmission.
            if self.timing.is_some_and(|(timed_end, _)| timed_end > seq) {
                self.timing = None;
            }
        } else if self.timing.is_none() {
            self.timing = Some((end, now));
        }
        self.snd_max = self.snd_max.max(end);
        self.stats.segments_sent += 1;
        self.stats.bytes_sent += u64::from(len);
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(now + self.rtt.rto()); // RFC 6298 §5.1
        }
        TcpSegment::data(seq, len)
    }
}
