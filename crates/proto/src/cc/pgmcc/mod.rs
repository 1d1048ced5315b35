//! pgmcc: a TCP-like window controller run between the sender and one elected receiver, the acker.
//!
//! Sources: Rizzo, "pgmcc: a TCP-friendly single-rate multicast congestion control scheme", SIGCOMM 2000
//! ("paper"); draft-ietf-rmt-bb-pgmcc-03 ("draft"); Wang and Fahmy, "Dynamics of the pgmcc multicast congestion
//! control protocol" ("WF"). The rule table with sources is docs/pgmcc-rules.md.
//!
//! * [`TokenWindow`] — the window W and token count T (paper §3.4, draft §2.2).
//! * [`AckTracker`] — which packets the acker has acknowledged, and losses read from ACK bitmaps (draft §2.1.2).
//! * [`RepairTokens`] — tokens lent to repairs when the session charges them to the window (Shi–Waldvogel §5.4).
//! * [`AckerElection`] — who the acker is (paper §3.5–3.6, draft §2.3–2.4).
//! * [`PgmccSender`] — the sender half tying them together with timeouts (draft §2.7, §3).
//! * [`PgmccReceiver`] — the receiver half: loss filter, ACK bitmap, ACKs, reports, election NAKs (draft §4).
//! * [`Feedback`] — what the sender reads from ACKs and NAKs (draft §2.1.2–2.1.3, §2.3).
//! * [`StartUp`], [`StartUpExit`] — how the window opens at first; [`ReceiveRateProbe`] — what receivers measure
//!   for it.
//!
//! The options on the wire are `convoy-wire`'s `cc::pgmcc` module; [`PgmccConfig`] registers the scheme
//! ([`crate::cc::Scheme`]).

mod ack_tracker;
pub mod dispersion;
mod election;
mod feedback;
mod receiver;
mod repair_tokens;
mod sender;
mod startup;
mod tail_probe;
mod window;

pub use ack_tracker::{AckOutcome, AckTracker};
pub use dispersion::ReceiveRateProbe;
pub use election::{AckerElection, ElectionOutcome};
pub use feedback::{Feedback, FeedbackKind, ReceiverReport};
pub use receiver::{PgmccReceiver, ReceiverFeedback};
pub use repair_tokens::RepairTokens;
pub use sender::PgmccSender;
pub use tail_probe::TailProbe;
pub use startup::{OpeningPace, StartUp, StartUpExit, OPENING_ROUND_MIN, REPORT_LIFETIME_RTTS};
pub use window::TokenWindow;

use crate::cc::{ReceiverController, Scheme, SenderController};
use crate::throughput::ThroughputModel;
use crate::time::Instant;
use crate::named::Named;
use convoy_wire::OptionsRepr;
use std::net::IpAddr;
use std::time::Duration;

/// How the sender measures the round-trip time it feeds into acker selection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RttMethod {
    /// Echoed timestamps with the receiver's holding time added (draft §2.5.1). The default.
    Timestamp,
    /// Packets sent since the reported sequence number: snd_max − rxw_lead (paper §3.2.1, draft §2.5.3).
    SequenceNumber,
}

impl Named for RttMethod {
    /// Scenario key `rtt`.
    const CHOICES: &'static [(&'static str, Self)] = &[
        ("timestamp", RttMethod::Timestamp),
        ("seqno", RttMethod::SequenceNumber),
    ];
}

/// The feedback timeout (draft §2.7; WF §IV).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeoutPolicy {
    /// TCP-like SRTT/RTTVAR timeout (RFC 6298), `initial` before any sample, clamped to [`min`, `max`].
    Adaptive {
        /// Timeout before the first RTT sample (draft §2.7: 3 s).
        initial: Duration,
        /// Lower bound (RFC 6298 §2.4: 1 s).
        min: Duration,
        /// Upper bound after back-off (RFC 6298 §2.5: at least 60 s).
        max: Duration,
    },
    /// A fixed timeout, as in the pgmcc code Wang and Fahmy studied (kept to reproduce their Experiments I–II).
    Fixed(Duration),
}

impl Default for TimeoutPolicy {
    fn default() -> Self {
        TimeoutPolicy::Adaptive {
            initial: Duration::from_secs(3),
            min: Duration::from_secs(1),
            max: Duration::from_secs(60),
        }
    }
}

/// What the sender does when the feedback timer expires.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeoutRestart {
    /// Draft §3 "on timeout expiration": W = T = 1 and a packet is sent; the packets outstanding are written off
    /// (a late ACK for them returns nothing). The default.
    Draft,
    /// The pgmcc code Wang and Fahmy ran (WF §IV-A: the sender "drops the window size W to one and decreases the
    /// token count T to −1/(2W)"): W = 1, T = −1/2, so nothing is sent until ACKs of the packets still
    /// outstanding return tokens (one ACK gives two, draft §2.2 below ssthresh), and their losses cause no second
    /// reduction (paper §3.4). Their description leaves a sender whose outstanding packets were all lost waiting for
    /// ever; here packets sent longer ago than the acker's SRTT + 4·RTTVAR (RFC 6298; the timer's interval before
    /// any RTT sample) are written off at a timeout, and a sender with nothing left outstanding restarts as
    /// [`TimeoutRestart::Draft`] does.
    WangFahmy,
}

impl Named for TimeoutRestart {
    /// Scenario key `timeout_restart`.
    const CHOICES: &'static [(&'static str, Self)] = &[
        ("draft", TimeoutRestart::Draft),
        ("wang-fahmy", TimeoutRestart::WangFahmy),
    ];
}

/// What a detected loss does to the window, and what ACKs do in the RTT after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossReaction {
    /// Draft §2.2: W is realigned to the packets in flight and halved, T −= W/2, and "all window manipulation is
    /// suspended for the subsequent RTT" (until feedback for a packet sent after the loss): ACKs then return
    /// tokens only. The default.
    Draft,
    /// Rizzo's ns-2 pgmcc code (PgmccSrcAckProc, read in its public C port, ROSS-org/ROSS at 6a01165,
    /// models/rossnet/modules/network/multicast/pgmcc.c), the code the pgmcc paper's and Wang and Fahmy's
    /// simulations ran: W is realigned to the packets in flight; when T < 0 (a reduction already under way)
    /// T += 1 and W is not halved, when W < 4 T = 1 and W is not halved, else W /= 2 and T = 1 − W. Further
    /// losses are ignored for one RTT (paper §3.4: "we do not react to further congestion events for the next
    /// RTT"), but the window is not frozen: an ACK grows W whenever T ≥ 0 and returns tokens only while T < 0.
    NsCode,
}

impl Named for LossReaction {
    /// Scenario key `loss_reaction`.
    const CHOICES: &'static [(&'static str, Self)] = &[
        ("draft", LossReaction::Draft),
        ("ns-code", LossReaction::NsCode),
    ];
}

/// What ACKs from a receiver that is no longer the acker may do to the window (WF §IV-A).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OldAckerAcks {
    /// An ACK elicited by a data packet that named its sender counts, with its whole bitmap, as in Rizzo's
    /// implementation that Wang and Fahmy traced (the old acker keeps clocking the session for one RTT).
    Count,
    /// Such an ACK gives back the tokens of the packets it covers that named its sender (sent before the
    /// switch), so the pipe keeps flowing, but does not grow the window: the window opens only on the current
    /// acker's path. This mitigates the inflation Wang and Fahmy describe (WF §IV-A: for one RTT after a switch
    /// to a worse path the old acker's ACKs keep opening the window) without the stall of ignoring them.
    TokensOnly,
    /// Only the current acker's ACKs move the window (draft §3 pseudo-code).
    Ignore,
}

impl Named for OldAckerAcks {
    /// Scenario key `old_acker_acks`.
    const CHOICES: &'static [(&'static str, Self)] = &[
        ("count", OldAckerAcks::Count),
        ("tokens-only", OldAckerAcks::TokensOnly),
        ("ignore", OldAckerAcks::Ignore),
    ];
}

/// Units of the OPT_PGMCC_DATA timestamp. Sender and receivers of a session must agree (the draft asks for
/// 1 ms or better, §2.1.3; OpenPGM uses milliseconds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimestampUnit {
    /// Microseconds (Convoy's default: sub-millisecond RTTs stay measurable).
    Micros,
    /// Milliseconds (OpenPGM's unit).
    Millis,
}

impl Named for TimestampUnit {
    /// Scenario key `tstamp`.
    const CHOICES: &'static [(&'static str, Self)] = &[
        ("us", TimestampUnit::Micros),
        ("ms", TimestampUnit::Millis),
    ];
}

impl TimestampUnit {
    /// Ticks per second.
    pub fn per_second(self) -> u64 {
        match self {
            TimestampUnit::Micros => 1_000_000,
            TimestampUnit::Millis => 1_000,
        }
    }

    /// The 32-bit timestamp of a duration since the epoch (wraps).
    pub fn ticks(self, nanos: u64) -> u32 {
        (nanos / (1_000_000_000 / self.per_second())) as u32
    }
}

/// How a receiver estimates its loss rate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossEstimator {
    /// First-order low-pass filter in 16.16 fixed point, weight out of 65536 (paper §3.2.2: 65000).
    Ewma {
        /// Weight of the previous estimate, out of 65536.
        weight: u32,
    },
    /// TFRC's loss-interval estimator (RFC 5348 §5), selectable per draft §2.6. A pgmcc receiver does not know
    /// its RTT, so losses closer than `rtt_hint` to the start of a loss event count as that event.
    Tfrc {
        /// The RTT assumed when grouping losses into loss events.
        rtt_hint: Duration,
    },
}

impl Named for LossEstimator {
    /// Scenario key `loss`: the paper's weight (§3.2.2), TFRC with a 100 ms loss-event RTT.
    const CHOICES: &'static [(&'static str, Self)] = &[
        ("ewma", LossEstimator::Ewma { weight: 65_000 }),
        ("tfrc", LossEstimator::Tfrc {
            rtt_hint: Duration::from_millis(100),
        }),
    ];
}

/// How the acker election rates an acker that has lost nothing yet (p = 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LosslessAcker {
    /// As the equation says: infinite throughput (draft §2.4), so any receiver that reports a loss replaces it
    /// (paper §3.5). The default, and the papers' experiments.
    Unbounded,
    /// At the rate the session sends at (W / SRTT): an acker that loses nothing receives at least that, so a
    /// receiver replaces it only when its own throughput is below c times that rate. With random loss on every
    /// path, a receiver behind a slow link is lossless until its queue overflows; by the equation any fast
    /// receiver's first random loss took the role from it, and the fast receiver's ACK clock (a window of 4 on a
    /// 100 µs path is 40,000 packets per second) overran the slow link until its NAKs crossed its full queue
    /// (namespace lab, 5 receivers at 1% loss, one behind 10 Mbit/s: 2,161 packets in 50 ms, 2,738 lost there).
    /// `convoy send` uses it.
    AtSendingRate,
}

impl Named for LosslessAcker {
    /// Scenario key `lossless_acker`.
    const CHOICES: &'static [(&'static str, Self)] = &[
        ("paper", LosslessAcker::Unbounded),
        ("sending-rate", LosslessAcker::AtSendingRate),
    ];
}

/// How a receiver delays its answer to an election request.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ElectionTimer {
    /// Uniform on `[0, election_backoff]`: the usual NAK back-off (draft §2.3.1). The default.
    Uniform,
    /// Exponentially biased towards the end: `t = max(T·(1 + ln x / ln N), 0)`, x uniform on (0, 1],
    /// T = `election_backoff` (TFMCC's feedback timer, RFC 4654 §4.5; docs/pgmcc-rules.md, "Known weaknesses",
    /// lists it as an option for pgmcc's election). Few of N receivers answer early; the first data packet naming
    /// the new acker cancels the others' timers, so a group of thousands sends a handful of answers instead of one
    /// per receiver.
    Biased {
        /// N: the largest group size the timer is tuned for (RFC 4654: 10,000).
        receivers_max: u32,
    },
}

impl Named for ElectionTimer {
    /// Scenario key `election_timer`: the biased timer tuned for RFC 4654's N = 10,000.
    const CHOICES: &'static [(&'static str, Self)] = &[
        ("uniform", ElectionTimer::Uniform),
        ("biased", ElectionTimer::Biased {
            receivers_max: 10_000,
        }),
    ];
}

impl ElectionTimer {
    /// The delay for a uniform draw `x` in (0, 1] and the back-off `max`.
    pub fn delay(self, max: Duration, x: f64) -> Duration {
        match self {
            ElectionTimer::Uniform => max.mul_f64(x.clamp(0.0, 1.0)),
            ElectionTimer::Biased { receivers_max } => {
                let n = f64::from(receivers_max.max(2));
                let f = (1.0 + x.clamp(f64::MIN_POSITIVE, 1.0).ln() / n.ln()).max(0.0);
                max.mul_f64(f)
            }
        }
    }
}

/// pgmcc parameters for both halves. Defaults follow the common defaults of docs/experiments.md#common-defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct PgmccConfig {
    /// Fixed slow-start threshold in packets: 6 in the paper (§3.4), 4 suggested by the draft (§2.2).
    pub ssthresh: f64,
    /// How the window opens at the start ([`StartUp`]): the paper's fixed threshold (default), or exponential
    /// until the first sign of congestion.
    pub start: StartUp,
    /// Under [`StartUp::UntilCongestion`], the shortest round the opening assumes: while the acker's RTT is
    /// shorter, data leaves at ln 2 · W packets per this interval, so that the window doubles once per interval
    /// ([`OpeningPace`]; RFC 9406 §4.3's MIN_RTT_THRESH, 4 ms, by default).
    pub opening_round_min: Duration,
    /// A packet is lost when this many later packets are acknowledged (paper §3.4, draft §2.2: 3).
    pub dupack_threshold: u32,
    /// Loss detection for small windows, as TCP's: early loss detection (RFC 5827 §2.1, Early Retransmit: when
    /// the sender has no token for another packet and the acker has seen the last packet sent, the holes before
    /// it are lost at once instead of after three later acknowledgements) and a tail loss probe (RFC 8985 §7,
    /// module `tail_probe`: when no ACK comes for two smoothed RTTs, one original packet leaves beyond the window
    /// to reveal a loss at the tail). With a window below four packets the three acknowledgements never come,
    /// and every such loss waits for the timeout (1 s at least, draft §2.7). Off by default and in the
    /// experiments (the papers' rule, paper §3.4, draft §2.2); `convoy send` turns it on.
    pub early_loss: bool,
    /// How the election rates an acker that has lost nothing yet.
    pub lossless_acker: LosslessAcker,
    /// Switch to a receiver whose throughput is below `c` × the acker's (paper §3.5: 0.75; Figs 3–4 use 1).
    pub c: f64,
    /// The throughput formula used to compare receivers (draft's full formula by default).
    pub model: ThroughputModel,
    /// RTT measurement for acker selection.
    pub rtt_method: RttMethod,
    /// Feedback timeout.
    pub timeout: TimeoutPolicy,
    /// Force a new election after this many consecutive timeouts (draft §2.7: 2).
    pub reelect_after_timeouts: u32,
    /// What a timeout does to the window and the tokens.
    pub timeout_restart: TimeoutRestart,
    /// What a loss does to the window, and what the ACKs of the following RTT do.
    pub loss_reaction: LossReaction,
    /// Treatment of ACKs from a previous acker.
    pub old_acker_acks: OldAckerAcks,
    /// Timestamp units on the wire.
    pub tstamp_unit: TimestampUnit,
    /// Receiver loss estimator.
    pub loss_estimator: LossEstimator,
    /// Largest random delay before a receiver answers an election request (draft §2.3.1: the usual NAK
    /// back-off, "possibly with shorter time constants").
    pub election_backoff: Duration,
    /// Distribution of the election answer's delay.
    pub election_timer: ElectionTimer,
    /// Emit a [`crate::cc::CcEvent::Report`] for every receiver report (paper §3.9).
    pub report_events: bool,
    /// Receiver: let an ACK that has not left yet be replaced by the next one when the next one's bitmap still
    /// covers everything since the last ACK that left (RX_MAX less than 32 ahead of it). The paper and draft
    /// ACK every packet immediately (paper §3.3, draft §4); a receiver that reads several packets in one
    /// system call then sends one ACK for them, as the bitmap was made to carry (draft §2.1.2: a lost ACK is
    /// covered by the next). The sender credits every packet the bitmap newly acknowledges (draft §2.2,
    /// `T += N(1 + 1/W)`), so the window evolves as with one ACK per packet. Off by default and in the
    /// simulator (packets arrive one at a time there); the real-network receivers turn it on.
    pub ack_per_batch: bool,
    /// Receiver: shortest interval between two congestion reports. A receiver that is not the acker and counts
    /// a packet lost only because its buffer is short of room ([`ReceiverController::on_odata_congested`]) has
    /// no hole to NAK, so it sends its report on a report-only NAK (the election NAK's form, paper §3.6) for the
    /// sender's election (paper §3.5) to see: it then becomes the acker if it is the slowest. Default 10 ms, the
    /// NAK pacer's default rate (paper §3.8).
    ///
    /// [`ReceiverController::on_odata_congested`]: crate::cc::ReceiverController::on_odata_congested
    pub congestion_report_ivl: Duration,
}

impl Default for PgmccConfig {
    fn default() -> Self {
        PgmccConfig {
            ssthresh: 6.0,
            start: StartUp::FixedThreshold,
            opening_round_min: OPENING_ROUND_MIN,
            dupack_threshold: 3,
            early_loss: false,
            lossless_acker: LosslessAcker::Unbounded,
            c: 0.75,
            model: ThroughputModel::Draft,
            rtt_method: RttMethod::Timestamp,
            timeout: TimeoutPolicy::default(),
            reelect_after_timeouts: 2,
            timeout_restart: TimeoutRestart::Draft,
            loss_reaction: LossReaction::Draft,
            old_acker_acks: OldAckerAcks::Count,
            tstamp_unit: TimestampUnit::Micros,
            loss_estimator: LossEstimator::Ewma { weight: 65000 },
            election_backoff: Duration::from_millis(20),
            election_timer: ElectionTimer::Uniform,
            report_events: false,
            ack_per_batch: false,
            congestion_report_ivl: Duration::from_millis(10),
        }
    }
}

impl Scheme for PgmccConfig {
    const NAME: &'static str = "pgmcc";

    fn build_sender(&self, now: Instant) -> Box<dyn SenderController> {
        Box::new(PgmccSender::new(self.clone(), now))
    }

    fn build_receiver(&self, local: IpAddr) -> Box<dyn ReceiverController> {
        Box::new(PgmccReceiver::new(self.clone(), local))
    }

    /// A pgmcc source puts OPT_PGMCC_DATA on every ODATA (draft §2.1.1).
    fn recognises(odata: &OptionsRepr) -> bool {
        odata.cc.pgmcc.data.is_some()
    }

    /// One ACK per batch of packets read together ([`PgmccConfig::ack_per_batch`]).
    fn report_every_receiver(&mut self) {
        self.report_events = true;
    }

    fn for_batched_reads(&mut self) {
        self.ack_per_batch = true;
    }

    /// The acker election answers NAKs (paper §3.5, draft §3): without them no acker is ever chosen.
    fn feedback_rides_on_naks(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests_receiver;
#[cfg(test)]
mod tests_sender;
#[cfg(test)]
mod tests_small_windows;
#[cfg(test)]
mod tests_startup;
