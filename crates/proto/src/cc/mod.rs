//! Pluggable congestion control.
//!
//! A session owns PGM reliability (transmit and receive windows, NAK/NCF/RDATA); congestion control is a pair of
//! halves behind two small traits, in the manner of quinn-proto's `congestion::Controller`:
//! [`SenderController`] decides when original data may leave and what congestion-control options it carries,
//! and consumes feedback; [`ReceiverController`] measures what the receiver sees and decides which feedback to
//! send. Each half owns its feedback: the sender half reads it from any upstream packet of the session
//! ([`SenderController::on_feedback`] gets the parsed packet), the receiver half writes the upstream packets it
//! wants sent ([`ReceiverController::poll_feedback`] returns a [`FeedbackPacket`]) and the options it adds to
//! NAKs, and the sender half the options on data. The session code carries bytes and reliability and names no
//! scheme.
//!
//! A scheme is a module here (`cc/NAME`) whose configuration implements [`Scheme`]: the factory of both halves
//! and the test by which a receiver recognises the scheme from a source's data. It is registered with one line
//! in the `schemes!` list below, which generates [`CcConfig`]. Its wire options are a module of
//! `convoy_wire::cc`. docs/adding-a-controller.md lists every file a new scheme adds.

use crate::time::Instant;
use convoy_wire::{BodyRepr, OptionsRepr, PacketRepr};
use rand_core::RngCore;
use std::net::IpAddr;

/// The bytes a controller counts for a data packet beyond its payload: PGM's common header, the ODATA body and
/// typical options (RFC 3208 §8). Both ends count a packet as its payload plus this ([`packet_size`]), so that the
/// rate a receiver measures and the size s in its equation are the sender's (RFC 4654 §2.1: "the same value of s
/// is used by the sender and receivers").
pub const PACKET_OVERHEAD: usize = 64;

/// A data packet's size as the controllers count it: `payload` bytes plus [`PACKET_OVERHEAD`].
pub fn packet_size(payload: usize) -> usize {
    payload + PACKET_OVERHEAD
}

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

/// Where a receiver's upstream packets go: what a controller needs to build a NAK-shaped packet (RFC 3208 §8.3:
/// a NAK names the source and the group).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UpstreamPath {
    /// The source's unicast NLA (the SPM path NLA, else the data's source address).
    pub source_nla: IpAddr,
    /// The multicast group.
    pub group_nla: IpAddr,
}

/// An upstream packet a receiver-side controller wants sent, unicast towards the source: its type-specific part
/// and options. The session adds ports, GSI and checksum.
#[derive(Clone, Debug, PartialEq)]
pub struct FeedbackPacket {
    /// The type-specific part (an ACK, a report-only NAK, ...).
    pub body: BodyRepr,
    /// The options, the controller's own among them.
    pub options: OptionsRepr,
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
    /// A step in the controller's own course, for observers that record it without knowing the scheme: the end
    /// of its start-up phase ([`STARTUP_ENDED`]), or a step of the scheme's own (TFMCC's feedback rounds,
    /// [`tfmcc::ROUND_ENDED`]).
    Milestone {
        /// Which step: [`STARTUP_ENDED`], or a name the scheme's module defines, prefixed with its name.
        what: &'static str,
        /// What the scheme tells of it (for [`STARTUP_ENDED`]: the allowed rate just before, bytes per second,
        /// or the window in packets).
        value: f64,
    },
    /// A receiver report reached the sender (pgmcc paper §3.9: exposed for applications that shape their data,
    /// and for an operator who wants to know which receiver holds the session back).
    Report {
        /// Who reported.
        receiver: IpAddr,
        /// Its loss rate in [0, 1], when the report carries one (pgmcc, aimd; a TFMCC report carries a rate).
        loss: Option<f64>,
        /// Its round-trip time in seconds, when measurable.
        rtt_s: Option<f64>,
        /// The rate the controller credits the receiver with, bytes per second: pgmcc the TCP equation's
        /// throughput at its loss and RTT (the acker election's measure, draft §2.4), TFMCC the rate it reports
        /// (X_r, RFC 4654 §3.3), aimd its capacity (Shi–Waldvogel §5.2) in packets of the mean size; `None`
        /// while it is unbounded or unknown: no loss yet (a TFMCC receiver's report before its first loss is
        /// twice its receive rate, the session's pace rather than its path's).
        rate_bps: Option<f64>,
    },
}

/// [`CcEvent::Milestone`]: the controller left its start-up phase (TFMCC: the first report of a loss ends
/// slowstart, RFC 4654 §3.6); the value is the allowed rate (bytes per second) or window (packets) just before.
pub const STARTUP_ENDED: &str = "startup-ended";

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
    /// May a repair charged to this controller leave now ([`crate::RepairPacing::Controller`], and pro-active
    /// parity)? As for original data unless the controller grants original data something repairs cannot use
    /// (pgmcc's tail loss probe must bring an ACK, which only original data does).
    fn permit_repair(&self, now: Instant) -> Permit {
        self.permit(now)
    }
    /// An ODATA packet `sqn` of `len` bytes is leaving now: consume the permit and add this controller's options.
    fn on_data_sent(&mut self, now: Instant, sqn: u32, len: usize, options: &mut OptionsRepr);
    /// A repair (RDATA) of `len` bytes is leaving now, sent under this controller's permit because the session
    /// charges repairs to it ([`crate::RepairPacing::Controller`]; Shi–Waldvogel §5.4: "the source should
    /// account for the retransmissions as part of its original data transmissions"). Consume the permit as for
    /// original data; a repair carries no options and brings no feedback of its own.
    fn on_repair_sent(&mut self, now: Instant, len: usize);
    /// An upstream packet of the session (NAK, ACK, SPMR, ...) reached the source from `from`. The session
    /// has done its own part (repairs for a NAK that asks for them); the controller reads its feedback — its own
    /// options, or a packet type it uses — and ignores the rest. By default it ignores all (an open-loop
    /// controller, as the fixed rate).
    fn on_feedback(&mut self, _now: Instant, _from: IpAddr, _packet: &PacketRepr<'_>) {}
    /// The session shed `receiver` (its rate stayed below the session's minimum: [`crate::sender::Shedding`]):
    /// it stops being the acker, CLR or agent if it is one, with the controller's usual event for a follower
    /// that left. None of its feedback reaches the controller again. By default nothing happens (a controller
    /// that follows no receiver).
    fn forget(&mut self, _now: Instant, _receiver: IpAddr) {}
    /// A deadline returned by [`SenderController::poll_timeout`] passed. By default nothing happens.
    fn on_timeout(&mut self, _now: Instant) {}
    /// The controller's next deadline; by default none.
    fn poll_timeout(&self) -> Option<Instant> {
        None
    }
    /// Next notification; by default none.
    fn poll_event(&mut self) -> Option<CcEvent> {
        None
    }
    /// Current state.
    fn snapshot(&self) -> CcSnapshot;
}

/// Notifications from a receiver-side controller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReceiverCcEvent {
    /// This receiver became the acker (`true`) or stopped being it (`false`).
    AckerRole(bool),
    /// This receiver took its first round-trip time sample (TFMCC: from the sender's echo, RFC 4654 §4.3.2).
    RttMeasured,
    /// The controller requires this receiver to leave the session (TFMCC: for more than 120 s its path could not
    /// carry one packet per 8 s while the source sent faster, RFC 4654 §4.4). The receiver has said so in its
    /// reports' leave flag; the application should close it.
    MustLeave,
}

/// What an original data packet left a receiver controller with ([`ReceiverController::on_odata`]): whether
/// the receiver must poll it as after any other input.
///
/// A receiver polls its controller after every packet (`poll_event`, `poll_feedback`, `poll_timeout`), and for
/// most packets of a session none of the polls finds anything: a receiver that is not the acker, the CLR or the
/// agent only counts the packet. Saying so lets a receiver whose own state needs nothing either skip the polls,
/// and its driver with them ([`crate::Receiver::take_in_order`]): header prediction's last step, after the
/// packet's handling (RFC 3208 §6.1's common case, as Jacobson's for TCP).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OdataOutcome {
    /// Nothing to poll: no notification queued for `poll_event`, no feedback due at the packet's instant
    /// (`poll_feedback` then would return `None` and change nothing), and `poll_timeout` the same instant as
    /// just before the packet.
    Quiet,
    /// Something may be waiting: the receiver polls as after any input.
    Pending,
}

impl OdataOutcome {
    /// [`OdataOutcome::Quiet`] if the controller's deadline `after` the packet is the one it had `before`,
    /// and `nothing_due` (no notification queued, no feedback due now); else [`OdataOutcome::Pending`].
    pub fn judge(before: Option<Instant>, after: Option<Instant>, nothing_due: bool) -> Self {
        if before == after && nothing_due {
            OdataOutcome::Quiet
        } else {
            OdataOutcome::Pending
        }
    }
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
    /// An ODATA packet `sqn` of `len` bytes ([`packet_size`]) arrived (repairs are not reported: they say nothing
    /// about the path, paper §3.3). Returns whether it left anything to poll ([`OdataOutcome`]; [`OdataOutcome::Pending`] is always
    /// correct, [`OdataOutcome::Quiet`] a promise).
    fn on_odata(
        &mut self,
        now: Instant,
        rng: &mut dyn RngCore,
        sqn: u32,
        len: usize,
        options: &OptionsRepr,
    ) -> OdataOutcome;
    /// An ODATA packet `sqn` arrived but this receiver could not absorb it: its receive buffer is past half its
    /// bound or full ([`crate::rxw::Room`]). Count it lost in every congestion signal (loss rate, ACK bitmap),
    /// as TCP answers an ECN congestion mark like a loss (RFC 3168 §6.1.2), and otherwise treat it as
    /// [`ReceiverController::on_odata`] does (acker role, timestamps, feedback).
    fn on_odata_congested(
        &mut self,
        now: Instant,
        rng: &mut dyn RngCore,
        sqn: u32,
        len: usize,
        options: &OptionsRepr,
    );
    /// A repair (RDATA) of `len` bytes ([`packet_size`]) arrived. It says nothing of losses or of the path's RTT (paper §3.3), but it is data the
    /// path carried: a controller that measures the receive rate counts it (RFC 4654 §4.3.4: the rate at which
    /// data arrives), or a source that charges repairs to its rate ([`crate::RepairPacing::Controller`]) would
    /// see its receivers report only the share left to original data. By default repairs are not counted.
    fn on_rdata(&mut self, _now: Instant, _len: usize) {}
    /// Add this controller's receiver report to an outgoing repair NAK (paper §3.2: every NAK carries a report);
    /// by default none.
    fn add_nak_report(&mut self, _now: Instant, _options: &mut OptionsRepr) {}
    /// Feedback the controller wants sent now, towards `path`; by default none.
    fn poll_feedback(&mut self, _now: Instant, _path: &UpstreamPath) -> Option<FeedbackPacket> {
        None
    }
    /// The controller's next deadline; by default none.
    fn poll_timeout(&self) -> Option<Instant> {
        None
    }
    /// A deadline passed. By default nothing happens.
    fn on_timeout(&mut self, _now: Instant) {}
    /// The application is leaving the session: say goodbye if this receiver clocks the session. By default
    /// there is nothing to say.
    fn close(&mut self, _now: Instant) {}
    /// Next notification; by default none.
    fn poll_event(&mut self) -> Option<ReceiverCcEvent> {
        None
    }
    /// Current state.
    fn snapshot(&self) -> ReceiverCcSnapshot;
}

/// What a scheme's configuration provides: it doubles as the factory of the scheme's two halves (as quinn's
/// `ControllerFactory`), and says how a receiver recognises the scheme in a source's data.
pub trait Scheme: Clone + std::fmt::Debug + Default + PartialEq + Send + 'static {
    /// The scheme's short name (`pgmcc`, `fixed`, ...): in scenario files, command lines and results.
    const NAME: &'static str;
    /// Whether the scheme controls congestion, its rate following what the receivers report (every scheme but
    /// the fixed-rate baseline): the head-to-head comparison runs every such scheme, and `convoy send` gives up
    /// on such a session when no receiver answers it (convoy-net's feedback watch).
    const CONTROLS_CONGESTION: bool = true;
    /// Build the sender half.
    fn build_sender(&self, now: Instant) -> Box<dyn SenderController>;
    /// Build the receiver half; `local` is this receiver's identity (its unicast NLA).
    fn build_receiver(&self, local: IpAddr) -> Box<dyn ReceiverController>;
    /// Whether the options of a source's original data (ODATA) show that the source runs this scheme.
    fn recognises(odata: &OptionsRepr) -> bool;
    /// Adapt the receiver half to a driver that reads several packets per system call (the real network);
    /// by default nothing changes.
    fn for_batched_reads(&mut self) {}
    /// Make the sender half emit a [`CcEvent::Report`] for every receiver report, as the session's minimum rate
    /// needs ([`crate::sender::Shedding`]); by default a scheme always does.
    fn report_every_receiver(&mut self) {}
    /// Whether the scheme's feedback rides on NAKs, so that it cannot run with receivers that never ask for
    /// repairs ([`crate::rxw::RxwConfig::request_repairs`]); by default it does not.
    fn feedback_rides_on_naks(&self) -> bool {
        false
    }
}

/// Generates [`CcConfig`] from the list of schemes, in the order a receiver tries to recognise them.
macro_rules! schemes {
    ($($variant:ident($module:ident::$ty:ident)),* $(,)?) => {
        $( pub mod $module; )*

        /// Congestion control choice for a session: one variant per registered scheme; builds both halves.
        #[derive(Clone, Debug, PartialEq)]
        pub enum CcConfig {
            $(
                #[doc = concat!("The `", stringify!($module), "` scheme.")]
                $variant($module::$ty),
            )*
        }

        $(
            impl From<$module::$ty> for CcConfig {
                fn from(c: $module::$ty) -> Self {
                    CcConfig::$variant(c)
                }
            }
        )*

        impl CcConfig {
            /// Every registered scheme's name, in registration order.
            pub const NAMES: &'static [&'static str] = &[$(<$module::$ty as Scheme>::NAME),*];

            /// See [`Scheme::CONTROLS_CONGESTION`].
            pub fn controls_congestion(&self) -> bool {
                match self {
                    $( CcConfig::$variant(_) => <$module::$ty as Scheme>::CONTROLS_CONGESTION, )*
                }
            }

            /// The names of the schemes that control congestion ([`Scheme::CONTROLS_CONGESTION`]), in
            /// registration order.
            pub fn congestion_controllers() -> impl Iterator<Item = &'static str> {
                [$( (<$module::$ty as Scheme>::NAME, <$module::$ty as Scheme>::CONTROLS_CONGESTION) ),*]
                    .into_iter()
                    .filter(|(_, controls)| *controls)
                    .map(|(name, _)| name)
            }

            /// The scheme's short name (`pgmcc`, `fixed`, ...).
            pub fn name(&self) -> &'static str {
                match self {
                    $( CcConfig::$variant(_) => <$module::$ty as Scheme>::NAME, )*
                }
            }

            /// The named scheme with its defaults.
            pub fn by_name(name: &str) -> Option<CcConfig> {
                $(
                    if name == <$module::$ty as Scheme>::NAME {
                        return Some(CcConfig::$variant(<$module::$ty>::default()));
                    }
                )*
                None
            }

            /// Build the sender half.
            pub fn build_sender(&self, now: Instant) -> Box<dyn SenderController> {
                match self {
                    $( CcConfig::$variant(c) => c.build_sender(now), )*
                }
            }

            /// Build the receiver half; `local` is this receiver's identity (its unicast NLA).
            pub fn build_receiver(&self, local: IpAddr) -> Box<dyn ReceiverController> {
                match self {
                    $( CcConfig::$variant(c) => c.build_receiver(local), )*
                }
            }

            /// Whether the options of a source's ODATA show that it runs this configuration's scheme.
            pub fn recognises(&self, odata: &OptionsRepr) -> bool {
                match self {
                    $( CcConfig::$variant(_) => <$module::$ty as Scheme>::recognises(odata), )*
                }
            }

            /// The controller a receiver configured with `self` runs for a source whose ODATA carries `odata`:
            /// `self` when it recognises the source's scheme, else the first registered scheme that does, with
            /// its defaults, else `self`.
            pub fn following(&self, odata: &OptionsRepr) -> CcConfig {
                if self.recognises(odata) {
                    return self.clone();
                }
                $(
                    if <$module::$ty as Scheme>::recognises(odata) {
                        return CcConfig::$variant(<$module::$ty>::default());
                    }
                )*
                self.clone()
            }

            /// See [`Scheme::feedback_rides_on_naks`].
            pub fn feedback_rides_on_naks(&self) -> bool {
                match self {
                    $( CcConfig::$variant(c) => c.feedback_rides_on_naks(), )*
                }
            }

            /// See [`Scheme::for_batched_reads`].
            pub fn for_batched_reads(&mut self) {
                match self {
                    $( CcConfig::$variant(c) => c.for_batched_reads(), )*
                }
            }

            /// See [`Scheme::report_every_receiver`].
            pub fn report_every_receiver(&mut self) {
                match self {
                    $( CcConfig::$variant(c) => c.report_every_receiver(), )*
                }
            }
        }
    };
}

schemes! {
    Pgmcc(pgmcc::PgmccConfig),
    Fixed(fixed::FixedConfig),
    Tfmcc(tfmcc::TfmccConfig),
    Aimd(aimd::AimdConfig),
}

pub mod event_queue;
pub mod pacer;
pub mod wire_clock;

impl Default for CcConfig {
    /// pgmcc, Convoy's default scheme.
    fn default() -> Self {
        CcConfig::Pgmcc(pgmcc::PgmccConfig::default())
    }
}
