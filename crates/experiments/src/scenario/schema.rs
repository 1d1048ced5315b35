//! The scenario file as written: serde structures that mirror the TOML one to one (docs/scenario-format.md).
//! Every structure rejects unknown fields. Optional fields are `Option`s here; their defaults are applied when
//! the file is resolved into a [`crate::scenario::Scenario`], so that `[defaults]` can fill them first.

use super::units::{Bytes, Dur, PlainBytes, Rate, Size};
use serde::de::{self, Deserializer};
use serde::Deserialize;

/// A whole scenario file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    /// `[run]`: length, seed, bins.
    pub run: RunSpec,
    /// `[defaults]`: values applied to every link (and TCP flow) that does not set them.
    #[serde(default)]
    pub defaults: DefaultsSpec,
    /// `[plot]`: which figures to draw.
    #[serde(default)]
    pub plot: PlotSpec,
    /// `[[node]]`: routers, PGM routers, hosts that need a declaration.
    #[serde(default)]
    pub node: Vec<NodeSpec>,
    /// `[[link]]`: duplex links.
    #[serde(default)]
    pub link: Vec<LinkSpec>,
    /// `[[fanout]]`: many hosts behind one hub, each with its own link.
    #[serde(default)]
    pub fanout: Vec<FanoutSpec>,
    /// `[[session]]`: Convoy multicast sessions.
    #[serde(default)]
    pub session: Vec<SessionFileSpec>,
    /// `[[tcp]]`: TCP bulk transfers.
    #[serde(default)]
    pub tcp: Vec<TcpSpec>,
    /// `[[cbr]]`: constant-bit-rate UDP.
    #[serde(default)]
    pub cbr: Vec<CbrSpec>,
    /// `[[onoff]]`: Pareto on/off UDP.
    #[serde(default)]
    pub onoff: Vec<OnOffSpec>,
    /// `[[link_change]]`: a link's rate or delay changes during the run.
    #[serde(default)]
    pub link_change: Vec<LinkChangeSpec>,
}

/// `[[link_change]]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkChangeSpec {
    /// When the change takes effect.
    pub at: Dur,
    /// The link's name (`[[link]]`, or `<hub>-<host>` of a fan-out).
    pub link: String,
    /// The forward direction's new rate.
    pub rate: Option<Rate>,
    /// The forward direction's new one-way delay.
    pub delay: Option<Dur>,
    /// The backward direction's new rate.
    pub rate_back: Option<Rate>,
    /// The backward direction's new one-way delay.
    pub delay_back: Option<Dur>,
}

/// `[run]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunSpec {
    /// Simulated time.
    pub duration: Dur,
    /// Seed of every random stream (default 1).
    pub seed: Option<u64>,
    /// Throughput bin width (default 1 s).
    pub interval: Option<Dur>,
    /// Controller and queue sampling period (default 100 ms; "0s" = off).
    pub sample: Option<Dur>,
    /// Multiplies the rate of every link marked `scaled = true` (Wang–Fahmy's scale factors; default 1).
    pub scale: Option<f64>,
}

/// `[defaults]`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DefaultsSpec {
    /// Link parameters (`name` and `between` are not allowed here).
    pub link: Option<LinkSpec>,
    /// TCP parameters (`name`, `from`, `to`, `count` are not allowed here).
    pub tcp: Option<TcpSpec>,
}

/// `[plot]`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlotSpec {
    /// `[[plot.sequence]]`: time–sequence plots (default: one per traced session over the whole run).
    #[serde(default)]
    pub sequence: Vec<SeqPlotSpec>,
}

/// One time–sequence plot.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeqPlotSpec {
    /// The session (default: the first session); it is traced whatever its `trace` says.
    pub session: Option<String>,
    /// Window start (default 0 s).
    pub from: Option<Dur>,
    /// Window end (default: the end of the run).
    pub to: Option<Dur>,
}

/// Node kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NodeKindSpec {
    /// An end system.
    Host,
    /// A multicast-capable IP router.
    Router,
    /// A router that is a PGM network element.
    PgmRouter,
}

/// A keyed session (`keyed = ...`); see `convoy_proto::auth`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum KeyedSpec {
    /// Every packet authenticated.
    Authenticated,
    /// Every packet authenticated, data payloads encrypted.
    Encrypted,
}

/// A session's parity (`parity = "16"` or `"16+2"`, or the group size alone as a number).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParitySpec(pub convoy_proto::sender::ParityConfig);

impl<'de> Deserialize<'de> for ParitySpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = ParitySpec;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a transmission group size k, or \"k+h\" with h pro-active parity packets per group")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<ParitySpec, E> {
                convoy_proto::sender::ParityConfig::parse(s)
                    .map(ParitySpec)
                    .map_err(E::custom)
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<ParitySpec, E> {
                self.visit_str(&v.to_string())
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<ParitySpec, E> {
                self.visit_str(&v.to_string())
            }
        }
        d.deserialize_any(V)
    }
}

/// `[[node]]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    /// Unique name.
    pub name: String,
    /// Kind (default host).
    pub kind: Option<NodeKindSpec>,
    /// PGM network-element behaviour (pgm-router only).
    pub ne: Option<NeSpec>,
}

/// `ne = { ... }` of a pgm-router.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NeSpec {
    /// Forward only the first NAK per sequence number (default true).
    pub suppress: Option<bool>,
    /// Forward a later NAK reporting a higher loss (pgmcc paper §3.7; default false).
    pub rx_loss_aware: Option<bool>,
    /// Answer NAKs with NCFs (default true).
    pub ncf: Option<bool>,
    /// Forward RDATA only where it was requested (default true).
    pub selective_rdata: Option<bool>,
    /// Lifetime of repair state (default 5 s).
    pub state_lifetime: Option<Dur>,
}

/// `[[link]]`, `[defaults] link` and `[[fanout]] link`: all link parameters.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// Name (default "A-B").
    pub name: Option<String>,
    /// The two ends; "forward" is `between[0]` → `between[1]`.
    pub between: Option<Vec<String>>,
    /// Forward rate.
    pub rate: Option<Rate>,
    /// Backward rate (default: `rate`).
    pub rate_back: Option<Rate>,
    /// Forward propagation delay.
    pub delay: Option<Dur>,
    /// Backward delay (default: `delay`).
    pub delay_back: Option<Dur>,
    /// Forward queue limit (default 1000pkt).
    pub queue: Option<Size>,
    /// Backward queue limit (default: `queue`).
    pub queue_back: Option<Size>,
    /// RED on the forward queue.
    pub red: Option<RedSpec>,
    /// RED on the backward queue (default: `red`).
    pub red_back: Option<RedSpec>,
    /// Bernoulli loss, forward.
    pub loss: Option<f64>,
    /// Bernoulli loss, backward.
    pub loss_back: Option<f64>,
    /// Gilbert–Elliott loss, forward.
    pub gilbert: Option<GilbertSpec>,
    /// Gilbert–Elliott loss, backward.
    pub gilbert_back: Option<GilbertSpec>,
    /// Record queue lengths.
    pub observe: Option<Observe>,
    /// Multiply the rates by `run.scale`.
    pub scaled: Option<bool>,
}

/// `red = { ... }`; thresholds in the queue's unit (packets or bytes).
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RedSpec {
    /// Minimum threshold.
    pub min: f64,
    /// Maximum threshold.
    pub max: f64,
    /// Queue-average weight (default 0.002).
    pub weight: Option<f64>,
    /// Drop probability at `max` (default 0.1).
    pub max_p: Option<f64>,
    /// Gentle RED (default false).
    pub gentle: Option<bool>,
}

/// `gilbert = { ... }`.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GilbertSpec {
    /// Good → bad per packet.
    pub p_gb: f64,
    /// Bad → good per packet.
    pub p_bg: f64,
    /// Loss in the good state (default 0).
    pub loss_good: Option<f64>,
    /// Loss in the bad state (default 1).
    pub loss_bad: Option<f64>,
}

/// Which directions of a link to observe: `true` / `false`, or "forward", "back", "both".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Observe {
    /// Neither.
    None,
    /// `between[0]` → `between[1]`.
    Forward,
    /// `between[1]` → `between[0]`.
    Back,
    /// Both.
    Both,
}

impl<'de> Deserialize<'de> for Observe {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> de::Visitor<'de> for V {
            type Value = Observe;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("true, false, \"forward\", \"back\" or \"both\"")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Observe, E> {
                Ok(if v { Observe::Both } else { Observe::None })
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Observe, E> {
                match v {
                    "forward" => Ok(Observe::Forward),
                    "back" => Ok(Observe::Back),
                    "both" => Ok(Observe::Both),
                    _ => Err(E::custom(format!(
                        "unknown observe value `{v}`; use true, false, \"forward\", \"back\" or \"both\""
                    ))),
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// `[[fanout]]`: hosts `<prefix><first>` … `<prefix><first + count − 1>`, each linked to `hub`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FanoutSpec {
    /// The node every host hangs off (must exist).
    pub hub: String,
    /// Host name prefix.
    pub prefix: String,
    /// How many hosts.
    pub count: u32,
    /// Number of the first host (default 1).
    pub first: Option<u32>,
    /// Link parameters; forward is hub → host.
    pub link: Option<LinkSpec>,
    /// Per-host Bernoulli loss (hub → host) drawn uniformly from [lo, hi] (overrides `link.loss`).
    pub loss_range: Option<[f64; 2]>,
    /// Per-host delay (both directions) drawn uniformly from [lo, hi] (overrides `link.delay`).
    pub delay_range: Option<[Dur; 2]>,
}

/// Generates [`CcSpec`] (the names `cc = "..."` takes) and [`SessionFileSpec`] (with one table per scheme)
/// from the registered schemes ([`super::cc`]).
macro_rules! session_file_spec {
    ($($field:ident: $variant:ident($module:ident::$spec:ident)),* $(,)?) => {
        /// `cc = "..."`: the registered congestion-control schemes.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
        #[serde(rename_all = "lowercase")]
        pub enum CcSpec {
            $(
                #[doc = concat!("`", stringify!($field), "`.")]
                $variant,
            )*
        }

        impl CcSpec {
            /// The scheme's name.
            pub fn name(self) -> &'static str {
                match self {
                    $( CcSpec::$variant => <super::cc::$module::$spec as super::cc::SchemeKeys>::NAME, )*
                }
            }
        }

        /// `[[session]]`.
        #[derive(Clone, Debug, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct SessionFileSpec {
            /// Unique flow name.
            pub name: String,
            /// Controller (default pgmcc).
            pub cc: Option<CcSpec>,
            /// The source's node.
            pub source: String,
            /// Application starts (default 0 s).
            pub start: Option<Dur>,
            /// The application starts at a uniformly random time in [start, start + start_jitter).
            pub start_jitter: Option<Dur>,
            /// Application stops.
            pub stop: Option<Dur>,
            /// Total bytes to send.
            pub bytes: Option<Bytes>,
            /// PGM rate limit on all data.
            pub rate_max: Option<Rate>,
            /// The source's NAK elimination interval ("0s" turns it off).
            pub nak_elim: Option<Dur>,
            /// The session's minimum rate: a receiver the controller credits with less for `min_rate_grace` is
            /// shed (asked to leave, and it does; docs/transfer.md "Shedding a slow receiver").
            pub min_rate: Option<Rate>,
            /// How long a receiver's rate must stay below `min_rate` (default 10 s).
            pub min_rate_grace: Option<Dur>,
            /// How the source paces repairs: "rate-limit" (default), "controller-rate" or "controller".
            pub repairs: Option<crate::scenario::by_name::ByName<convoy_proto::RepairPacing>>,
            /// Parity repairs (RFC 3208 §11): "k" (on demand over groups of k) or "k+h" (and h pro-active parity
            /// packets per group).
            pub parity: Option<crate::scenario::schema::ParitySpec>,
            /// A keyed session: "authenticated" (every packet carries OPT_CONVOY_AUTH) or "encrypted" (its data
            /// payloads encrypted too); key and identities from the run's seed (docs/keyed-sessions.md).
            pub keyed: Option<crate::scenario::schema::KeyedSpec>,
            /// Record the time–sequence trace (default: true for the first session only).
            pub trace: Option<bool>,
            /// Record, at every receiver, the sequence numbers of the original data it received (default false; the
            /// loss-filter experiment replays these patterns).
            pub arrivals: Option<bool>,
            /// Payload bytes per data packet (default 1400B, pgmcc paper §4).
            pub payload: Option<Bytes>,
            /// N sessions `<name>1` … `<name>N` alike, `{i}` in `source`, in the receivers' `node` and `name` and
            /// in the ranges' `prefix` replaced by the session's number.
            pub count: Option<u32>,
            $(
                #[doc = concat!("`", stringify!($field), " = { ... }`: the `", stringify!($field), "` scheme's keys.")]
                pub $field: Option<super::cc::$module::$spec>,
            )*
            /// Receive-window and NAK timing.
            pub rxw: Option<RxwSpec>,
            /// Receivers one by one.
            #[serde(default)]
            pub receivers: Vec<ReceiverSpec>,
            /// Receivers by host-name range.
            #[serde(default)]
            pub receiver_range: Vec<ReceiverRangeSpec>,
        }
    };
}

super::cc::for_each_scheme!(session_file_spec);

/// `rxw = { ... }`: receive-window and NAK timing (RFC 3208 §6.3 names).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RxwSpec {
    /// NAK_BO_IVL (default 50 ms).
    pub nak_bo_ivl: Option<Dur>,
    /// NAK_RPT_IVL (default 2 s).
    pub nak_rpt_ivl: Option<Dur>,
    /// NAK_RDATA_IVL (default 2 s).
    pub nak_rdata_ivl: Option<Dur>,
    /// NAK_NCF_RETRIES (default 50).
    pub nak_ncf_retries: Option<u32>,
    /// NAK_DATA_RETRIES (default 50).
    pub nak_data_retries: Option<u32>,
    /// Window span in packets (default 65536).
    pub max_packets: Option<u32>,
    /// NAK packets per second, 0 = unpaced (default 100).
    pub nak_rate: Option<u32>,
    /// NAK burst (default 10).
    pub nak_burst: Option<u32>,
    /// Most sequence numbers awaiting a repair at once, 0 = no limit (default 0).
    pub max_awaited: Option<u32>,
    /// Most payload bytes a receiver holds (waiting for a repair or for the application); packets beyond it
    /// are refused as if lost. "0B" = no bound (default 64MiB).
    pub max_buffered: Option<Bytes>,
    /// Ask for repairs (default true); false: a missing packet is lost at once and no NAK is sent.
    pub repair: Option<bool>,
}

/// One receiver.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReceiverSpec {
    /// Name (default: the node's name).
    pub name: Option<String>,
    /// Its host.
    pub node: String,
    /// Join time (default 0 s).
    pub join: Option<Dur>,
    /// Leave time.
    pub leave: Option<Dur>,
}

/// Receivers on hosts `<prefix><first>` … `<prefix><last>`, named like their hosts.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReceiverRangeSpec {
    /// Host name prefix.
    pub prefix: String,
    /// First number.
    pub first: u32,
    /// Last number (inclusive).
    pub last: u32,
    /// Join time (default 0 s).
    pub join: Option<Dur>,
    /// Leave time.
    pub leave: Option<Dur>,
}

/// TCP variants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TcpVariantSpec {
    /// Reno.
    Reno,
    /// NewReno (RFC 6582).
    Newreno,
    /// SACK-based recovery (RFC 6675).
    Sack,
}

/// `[[tcp]]` and `[defaults] tcp`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TcpSpec {
    /// Flow name (with `count`: names `<name>1` … `<name><count>`).
    pub name: Option<String>,
    /// Sender's node (with `count`, `{i}` is replaced by the flow's number).
    pub from: Option<String>,
    /// Sink's node (`{i}` as in `from`).
    pub to: Option<String>,
    /// Make this many flows.
    pub count: Option<u32>,
    /// Variant (default newreno).
    pub variant: Option<TcpVariantSpec>,
    /// Start (default 0 s).
    pub start: Option<Dur>,
    /// Each flow starts at a uniformly random time in [start, start + start_jitter).
    pub start_jitter: Option<Dur>,
    /// Stop.
    pub stop: Option<Dur>,
    /// Bytes to send (default unlimited).
    pub bytes: Option<Bytes>,
    /// Payload bytes per full segment (default 1460).
    pub mss: Option<PlainBytes>,
    /// Initial window, segments (default 2).
    pub initial_window: Option<u32>,
    /// Initial ssthresh (default unlimited).
    pub initial_ssthresh: Option<Size>,
    /// Minimum RTO (default 1 s).
    pub min_rto: Option<Dur>,
    /// RTO before the first sample (default 1 s).
    pub initial_rto: Option<Dur>,
    /// Maximum RTO (default 60 s).
    pub max_rto: Option<Dur>,
    /// RFC 6298's clock granularity G (default 1 ms; ns-2 of 2001: 100 ms).
    pub clock_granularity: Option<Dur>,
    /// Delayed ACKs (default false).
    pub delayed_ack: Option<bool>,
    /// Delayed-ACK timer (default 200 ms).
    pub delayed_ack_timeout: Option<Dur>,
    /// Duplicate-ACK threshold (default 3).
    pub dupack: Option<u32>,
    /// Receiver window limit (default none).
    pub max_cwnd: Option<Size>,
}

/// `[[cbr]]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CbrSpec {
    /// Flow name.
    pub name: String,
    /// Source node.
    pub from: String,
    /// Sink node.
    pub to: String,
    /// Make this many flows (`{i}` in from/to).
    pub count: Option<u32>,
    /// Rate (IP bytes).
    pub rate: Rate,
    /// IP packet size (default 1000B).
    pub size: Option<Bytes>,
    /// Relative jitter of the gap in [0, 1) (default 0).
    pub jitter: Option<f64>,
    /// Start (default 0 s).
    pub start: Option<Dur>,
    /// Random start spread.
    pub start_jitter: Option<Dur>,
    /// Stop.
    pub stop: Option<Dur>,
}

/// `[[onoff]]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OnOffSpec {
    /// Flow name.
    pub name: String,
    /// Source node.
    pub from: String,
    /// Sink node.
    pub to: String,
    /// Make this many flows (`{i}` in from/to).
    pub count: Option<u32>,
    /// Rate during bursts.
    pub rate: Rate,
    /// IP packet size (default 1000B).
    pub size: Option<Bytes>,
    /// Mean burst length.
    pub on: Dur,
    /// Mean idle length.
    pub off: Dur,
    /// Pareto shape (default 1.5).
    pub shape: Option<f64>,
    /// Start (default 0 s).
    pub start: Option<Dur>,
    /// Random start spread.
    pub start_jitter: Option<Dur>,
    /// Stop.
    pub stop: Option<Dur>,
}
