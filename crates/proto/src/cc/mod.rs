//! Pluggable congestion control.
//!
//! A session owns PGM reliability (transmit and receive windows, NAK/NCF/RDATA); congestion control is a pair of
//! halves behind two small traits, in the manner of quinn-proto's `congestion::Controller`:
//! [`SenderController`] decides when original data may leave and what congestion-control options it carries,
//! and consumes feedback; [`ReceiverController`] measures what the receiver sees and decides which feedback to
//! send. The configuration enum [`CcConfig`] doubles as the factory for both halves, so new schemes (TFMCC, the
//! agent-based AIMD scheme) plug in without touching session code.

pub mod fixed;
pub mod pgmcc;

use crate::time::Instant;
use convoy_wire::OptionsRepr;
use rand_core::RngCore;
use std::net::IpAddr;

/// When the controller lets the next original data packet (ODATA) go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Permit {
    /// Now.
    Now,
    /// Not before this instant (rate-based controllers).
    At(Instant),
    /// Not until feedback arrives or a controller timer fires (window-based controllers out of tokens).
    Blocked,
}

/// What kind of feedback packet reached the sender.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FeedbackKind {
    /// A PGMCC ACK (type 0x0D) with RX_MAX and the 32-bit bitmap, LSB = RX_MAX (draft §2.1.2).
    Ack {
        /// Highest data sequence number the receiver has seen.
        rx_max: u32,
        /// Receive status of RX_MAX−31 … RX_MAX, bit i = RX_MAX−i, 1 = received.
        bitmap: u32,
    },
    /// A NAK asking for repair of `sqn` (and possibly others).
    Nak {
        /// The NAK's first requested sequence number.
        sqn: u32,
    },
    /// A report-only NAK sent to elect an acker (pgmcc "dummy NAK", paper §3.6, draft §2.3.1).
    Election {
        /// The sequence number of the data packet that asked for the election.
        sqn: u32,
    },
}

/// A receiver report carried by feedback: OPT_PGMCC_FEEDBACK plus Convoy's OPT_CONVOY_RXW_LEAD
/// (paper §3.2: rx_id, rxw_lead, rx_loss; draft §2.1.2: timestamp echo and loss rate).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReceiverReport {
    /// The reporting receiver's identity (its unicast NLA).
    pub reporter: IpAddr,
    /// Echoed data timestamp, corrected by the receiver's holding time (draft §2.5.1).
    pub tstamp_echo: u32,
    /// Loss rate, 0 = none, 65535 = 100% (draft §2.1.3).
    pub loss_rate: u16,
    /// Highest sequence number the receiver knows (paper §3.2 `rxw_lead`), when carried.
    pub rxw_lead: Option<u32>,
}

/// One feedback packet, as the session hands it to the sender's controller.
#[derive(Clone, Copy, Debug)]
pub struct Feedback<'a> {
    /// What arrived.
    pub kind: FeedbackKind,
    /// The address the datagram came from (identity fallback when no report is carried).
    pub from: IpAddr,
    /// The receiver report, when the packet carries OPT_PGMCC_FEEDBACK.
    pub report: Option<ReceiverReport>,
    /// The acker says it is leaving the session (draft §2.3.2).
    pub acker_leaving: bool,
    /// All options of the packet, for controllers with options of their own.
    pub options: &'a OptionsRepr,
}

impl Feedback<'_> {
    /// The identity of the receiver this feedback speaks for.
    pub fn receiver(&self) -> IpAddr {
        self.report.map(|r| r.reporter).unwrap_or(self.from)
    }
}

/// Why a controller reduced its window or rate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReductionCause {
    /// A loss detected from ACK bitmaps (dupack threshold).
    Loss,
    /// The feedback timer expired.
    Timeout,
}

/// Notifications from a sender-side controller.
#[derive(Clone, Debug, PartialEq)]
pub enum CcEvent {
    /// The receiver that clocks the session changed (pgmcc acker; TFMCC CLR; agent).
    AckerChanged {
        /// Previous acker, if any.
        from: Option<IpAddr>,
        /// New acker, or `None` when an election was requested.
        to: Option<IpAddr>,
    },
    /// The window (or rate) was reduced.
    Reduced {
        /// Value before (packets for window controllers, bytes/s for rate controllers).
        before: f64,
        /// Value after.
        after: f64,
        /// Why.
        cause: ReductionCause,
    },
    /// The feedback timer expired; `consecutive` counts expiries without progress.
    Timeout {
        /// Consecutive timeouts so far.
        consecutive: u32,
    },
    /// A receiver report reached the sender (paper §3.9: exposed for applications that shape their data).
    Report {
        /// Who reported.
        receiver: IpAddr,
        /// Its loss rate in [0, 1].
        loss: f64,
        /// Its round-trip time in seconds, when measurable.
        rtt_s: Option<f64>,
    },
}

/// A sender controller's state for observers (window plots, statistics).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CcSnapshot {
    /// Window in packets (window controllers).
    pub window: Option<f64>,
    /// Tokens in packets (window controllers).
    pub tokens: Option<f64>,
    /// Allowed rate in bytes per second (rate controllers).
    pub rate_bps: Option<f64>,
    /// The receiver currently clocking the session.
    pub acker: Option<IpAddr>,
    /// Smoothed round-trip time to the acker, seconds.
    pub srtt_s: Option<f64>,
    /// The acker's last reported loss rate in [0, 1].
    pub acker_loss: Option<f64>,
    /// Consecutive timeouts.
    pub consecutive_timeouts: u32,
}

/// The sender half of a congestion controller.
pub trait SenderController: Send {
    /// May an original data packet leave now?
    fn permit(&self, now: Instant) -> Permit;
    /// An ODATA packet `sqn` of `len` bytes is leaving now: consume the permit and add this controller's options.
    fn on_data_sent(&mut self, now: Instant, sqn: u32, len: usize, options: &mut OptionsRepr);
    /// A feedback packet arrived.
    fn on_feedback(&mut self, now: Instant, feedback: &Feedback<'_>);
    /// A deadline returned by [`SenderController::poll_timeout`] passed.
    fn on_timeout(&mut self, now: Instant);
    /// The controller's next deadline.
    fn poll_timeout(&self) -> Option<Instant>;
    /// Next notification.
    fn poll_event(&mut self) -> Option<CcEvent>;
    /// Current state.
    fn snapshot(&self) -> CcSnapshot;
}

/// A feedback packet a receiver-side controller wants sent.
#[derive(Clone, Debug, PartialEq)]
pub enum ReceiverFeedback {
    /// A PGMCC ACK with these fields and options.
    Ack {
        /// Highest ODATA sequence number received.
        rx_max: u32,
        /// Receive bitmap, LSB = RX_MAX.
        bitmap: u32,
        /// OPT_PGMCC_FEEDBACK and Convoy options.
        options: OptionsRepr,
    },
    /// A report-only NAK that asks the sender to elect an acker (paper §3.6, draft §2.3.1).
    ElectionNak {
        /// Sequence number of the data packet that asked for the election.
        sqn: u32,
        /// The receiver report options.
        options: OptionsRepr,
    },
}

/// Notifications from a receiver-side controller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReceiverCcEvent {
    /// This receiver became the acker (`true`) or stopped being it (`false`).
    AckerRole(bool),
}

/// A receiver controller's state for observers.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ReceiverCcSnapshot {
    /// Current loss estimate in [0, 1].
    pub loss: f64,
    /// Highest ODATA sequence number seen.
    pub rx_max: Option<u32>,
    /// Whether the last data packet named this receiver as acker.
    pub is_acker: bool,
    /// ACKs sent.
    pub acks_sent: u64,
}

/// The receiver half of a congestion controller.
pub trait ReceiverController: Send {
    /// An ODATA packet `sqn` arrived (repairs are not reported: they say nothing about the path, paper §3.3).
    fn on_odata(&mut self, now: Instant, rng: &mut dyn RngCore, sqn: u32, options: &OptionsRepr);
    /// An ODATA packet `sqn` arrived but this receiver could not absorb it: its receive buffer is past half its
    /// bound or full ([`crate::rxw::Room`]). Count it lost in every congestion signal (loss rate, ACK bitmap),
    /// as TCP answers an ECN congestion mark like a loss (RFC 3168 §6.1.2), and otherwise treat it as
    /// [`ReceiverController::on_odata`] does (acker role, timestamps, feedback).
    fn on_odata_congested(
        &mut self,
        now: Instant,
        rng: &mut dyn RngCore,
        sqn: u32,
        options: &OptionsRepr,
    );
    /// Add this controller's receiver report to an outgoing repair NAK (paper §3.2: every NAK carries a report).
    fn add_nak_report(&mut self, now: Instant, options: &mut OptionsRepr);
    /// Feedback the controller wants sent now.
    fn poll_feedback(&mut self, now: Instant) -> Option<ReceiverFeedback>;
    /// The controller's next deadline.
    fn poll_timeout(&self) -> Option<Instant>;
    /// A deadline passed.
    fn on_timeout(&mut self, now: Instant);
    /// The application is leaving the session: say goodbye if this receiver clocks the session.
    fn close(&mut self, now: Instant);
    /// Next notification.
    fn poll_event(&mut self) -> Option<ReceiverCcEvent>;
    /// Current state.
    fn snapshot(&self) -> ReceiverCcSnapshot;
}

/// Congestion control choice for a session; builds both halves.
#[derive(Clone, Debug, PartialEq)]
pub enum CcConfig {
    /// pgmcc (Rizzo, SIGCOMM 2000; draft-ietf-rmt-bb-pgmcc-03).
    Pgmcc(pgmcc::PgmccConfig),
    /// A fixed-rate baseline: no feedback-driven control at all.
    Fixed(fixed::FixedConfig),
}

impl Default for CcConfig {
    fn default() -> Self {
        CcConfig::Pgmcc(pgmcc::PgmccConfig::default())
    }
}

impl CcConfig {
    /// The scheme's short name (`pgmcc`, `fixed`, ...).
    pub fn name(&self) -> &'static str {
        match self {
            CcConfig::Pgmcc(_) => "pgmcc",
            CcConfig::Fixed(_) => "fixed",
        }
    }

    /// Build the sender half.
    pub fn build_sender(&self, now: Instant) -> Box<dyn SenderController> {
        match self {
            CcConfig::Pgmcc(c) => Box::new(pgmcc::PgmccSender::new(c.clone(), now)),
            CcConfig::Fixed(c) => Box::new(fixed::FixedSender::new(c.clone(), now)),
        }
    }

    /// Build the receiver half; `local` is this receiver's identity (its unicast NLA).
    pub fn build_receiver(&self, local: IpAddr) -> Box<dyn ReceiverController> {
        match self {
            CcConfig::Pgmcc(c) => Box::new(pgmcc::PgmccReceiver::new(c.clone(), local)),
            CcConfig::Fixed(_) => Box::new(fixed::FixedReceiver::default()),
        }
    }
}
