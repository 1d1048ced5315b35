//! pgmcc's scenario keys: `pgmcc = { ... }` of a session (docs/scenario-format.md, "pgmcc"), resolved over the
//! engine's defaults (docs/experiments.md#common-defaults) into [`PgmccConfig`].

use super::SchemeKeys;
use crate::scenario::by_name::{or, ByName};
use crate::scenario::locate::KeyPath;
use crate::scenario::semantic::{fail, Res};
use crate::scenario::units::Dur;
use convoy_proto::cc::pgmcc::{
    ElectionTimer, LossEstimator, LossReaction, LosslessAcker, OldAckerAcks, PgmccConfig,
    RttMethod, StartUp, TimeoutPolicy, TimeoutRestart, TimestampUnit,
};
use convoy_proto::cc::CcConfig;
use convoy_proto::throughput::ThroughputModel;
use serde::de::{self, Deserializer};
use serde::Deserialize;

/// `pgmcc = { ... }`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PgmccSpec {
    /// Acker switch threshold c (default 0.75).
    pub c: Option<f64>,
    /// Fixed slow-start threshold, packets (default 6).
    pub ssthresh: Option<f64>,
    /// Start-up: "paper" (default: exponential up to `ssthresh`) or "until-congestion".
    pub start: Option<ByName<StartUp>>,
    /// Under "until-congestion", the shortest round the opening assumes: while the acker's RTT is shorter, data
    /// is paced so that the window doubles once per this interval (default 4 ms).
    pub opening_round_min: Option<Dur>,
    /// Dupack threshold (default 3).
    pub dupack: Option<u32>,
    /// Early loss detection (RFC 5827 §2.1): holes before a last packet the acker has seen are lost at once
    /// when the window allows no further packet (default false, the papers' rule).
    pub early_loss: Option<bool>,
    /// An acker that has lost nothing: "paper" (default: infinite throughput, draft §2.4) or "sending-rate"
    /// (it receives at least what the session sends).
    pub lossless_acker: Option<ByName<LosslessAcker>>,
    /// Throughput formula: "draft" (default) or "paper".
    pub model: Option<ByName<ThroughputModel>>,
    /// RTT measurement: "timestamp" (default) or "seqno".
    pub rtt: Option<ByName<RttMethod>>,
    /// "adaptive" (default) or `"fixed:<duration>"`.
    pub timeout: Option<TimeoutSpec>,
    /// Adaptive timeout before the first sample (default 3 s).
    pub timeout_initial: Option<Dur>,
    /// Adaptive timeout lower bound (default 1 s).
    pub timeout_min: Option<Dur>,
    /// Adaptive timeout upper bound (default 60 s).
    pub timeout_max: Option<Dur>,
    /// Consecutive timeouts before a forced re-election (default 2).
    pub reelect_after: Option<u32>,
    /// What a timeout does: "draft" (default: W = T = 1, send one) or "wang-fahmy" (W = 1, T = −1/(2W): wait
    /// for the outstanding packets' ACKs, as the code Wang and Fahmy ran).
    pub timeout_restart: Option<ByName<TimeoutRestart>>,
    /// What a loss does: "draft" (default: halve and freeze the window for an RTT) or "ns-code" (Rizzo's ns-2
    /// code: halve only from W ≥ 4 and outside a reduction, grow again as soon as T ≥ 0).
    pub loss_reaction: Option<ByName<LossReaction>>,
    /// "count" (default), "tokens-only" or "ignore".
    pub old_acker_acks: Option<ByName<OldAckerAcks>>,
    /// Timestamp unit: "us" (default) or "ms".
    pub tstamp: Option<ByName<TimestampUnit>>,
    /// Receiver loss estimator: "ewma" (default) or "tfrc".
    pub loss: Option<ByName<LossEstimator>>,
    /// EWMA weight out of 65536 (default 65000).
    pub loss_weight: Option<u32>,
    /// TFRC estimator's loss-event RTT (default 100 ms).
    pub tfrc_rtt: Option<Dur>,
    /// Largest random delay before answering an election request (default 20 ms).
    pub election_backoff: Option<Dur>,
    /// Its distribution: "uniform" (default) or "biased" (TFMCC's exponential timer, N = 10,000).
    pub election_timer: Option<ByName<ElectionTimer>>,
}

/// pgmcc's feedback timeout: "adaptive" or `"fixed:<duration>"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeoutSpec {
    /// TCP-like SRTT/RTTVAR timeout.
    Adaptive,
    /// A fixed timeout.
    Fixed(Dur),
}

impl<'de> Deserialize<'de> for TimeoutSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        if s == "adaptive" {
            return Ok(TimeoutSpec::Adaptive);
        }
        match s.strip_prefix("fixed:") {
            Some(v) => Dur::parse(v)
                .map(TimeoutSpec::Fixed)
                .map_err(de::Error::custom),
            None => Err(de::Error::custom(format!(
                "unknown timeout `{s}`; use \"adaptive\" or \"fixed:<duration>\", e.g. \"fixed:1s\""
            ))),
        }
    }
}

impl SchemeKeys for PgmccSpec {
    const NAME: &'static str = "pgmcc";

    /// The engine's defaults where the table is absent.
    fn resolve(keys: Option<&Self>, path: &KeyPath, _session: &KeyPath) -> Res<CcConfig> {
        config(&keys.cloned().unwrap_or_default(), path).map(CcConfig::Pgmcc)
    }
}

/// pgmcc parameters over the engine's defaults (docs/experiments.md#common-defaults).
fn config(g: &PgmccSpec, p: &KeyPath) -> Res<PgmccConfig> {
    let d = PgmccConfig::default();
    let c = g.c.unwrap_or(d.c);
    if !(c > 0.0 && c <= 1.0) {
        return fail(
            &p.key("c"),
            format!("c = {c}: the switch threshold is in (0, 1] (paper §3.5)"),
        );
    }
    let ssthresh = g.ssthresh.unwrap_or(d.ssthresh);
    if !(ssthresh >= 1.0 && ssthresh.is_finite()) {
        return fail(
            &p.key("ssthresh"),
            format!("ssthresh = {ssthresh} packets must be at least 1"),
        );
    }
    let dupack = g.dupack.unwrap_or(d.dupack_threshold);
    if dupack == 0 {
        return fail(&p.key("dupack"), "the dupack threshold must be at least 1");
    }
    let timeout = timeout_policy(g, p)?;
    let loss_estimator = loss_estimator(g, d.loss_estimator, p)?;
    Ok(PgmccConfig {
        ssthresh,
        start: or(&g.start, d.start),
        opening_round_min: g.opening_round_min.map_or(d.opening_round_min, |x| x.0),
        dupack_threshold: dupack,
        early_loss: g.early_loss.unwrap_or(d.early_loss),
        lossless_acker: or(&g.lossless_acker, d.lossless_acker),
        c,
        model: or(&g.model, d.model),
        rtt_method: or(&g.rtt, d.rtt_method),
        timeout,
        reelect_after_timeouts: g.reelect_after.unwrap_or(d.reelect_after_timeouts),
        timeout_restart: or(&g.timeout_restart, d.timeout_restart),
        loss_reaction: or(&g.loss_reaction, d.loss_reaction),
        old_acker_acks: or(&g.old_acker_acks, d.old_acker_acks),
        tstamp_unit: or(&g.tstamp, d.tstamp_unit),
        loss_estimator,
        election_backoff: g.election_backoff.map_or(d.election_backoff, |x| x.0),
        election_timer: or(&g.election_timer, d.election_timer),
        report_events: d.report_events,
        ack_per_batch: d.ack_per_batch,
        congestion_report_ivl: d.congestion_report_ivl,
    })
}

/// The feedback timeout: fixed (above 0, without the adaptive keys) or adaptive (the engine's bounds where not
/// given, the lower not above the upper).
fn timeout_policy(g: &PgmccSpec, p: &KeyPath) -> Res<TimeoutPolicy> {
    let adaptive_keys = [
        ("timeout_initial", g.timeout_initial),
        ("timeout_min", g.timeout_min),
        ("timeout_max", g.timeout_max),
    ];
    Ok(match g.timeout.unwrap_or(TimeoutSpec::Adaptive) {
        TimeoutSpec::Fixed(t) => {
            if let Some((k, _)) = adaptive_keys.iter().find(|(_, v)| v.is_some()) {
                return fail(
                    &p.key(k),
                    format!("`{k}` applies to timeout = \"adaptive\" only"),
                );
            }
            if t.0.is_zero() {
                return fail(&p.key("timeout"), "a fixed timeout must be above 0s");
            }
            TimeoutPolicy::Fixed(t.0)
        }
        TimeoutSpec::Adaptive => {
            let TimeoutPolicy::Adaptive { initial, min, max } = TimeoutPolicy::default() else {
                unreachable!("the default timeout is adaptive")
            };
            let (initial, min, max) = (
                g.timeout_initial.map_or(initial, |x| x.0),
                g.timeout_min.map_or(min, |x| x.0),
                g.timeout_max.map_or(max, |x| x.0),
            );
            if min > max {
                return fail(&p.key("timeout_min"), "timeout_min exceeds timeout_max");
            }
            TimeoutPolicy::Adaptive { initial, min, max }
        }
    })
}

/// The receivers' loss estimator (`default` where `loss` is absent): EWMA with a weight out of 65536, or TFRC
/// with its RTT; the other estimator's key is an error.
fn loss_estimator(g: &PgmccSpec, default: LossEstimator, p: &KeyPath) -> Res<LossEstimator> {
    Ok(match or(&g.loss, default) {
        LossEstimator::Ewma { weight: paper } => {
            if g.tfrc_rtt.is_some() {
                return fail(
                    &p.key("tfrc_rtt"),
                    "`tfrc_rtt` applies to loss = \"tfrc\" only",
                );
            }
            let weight = g.loss_weight.unwrap_or(paper);
            if weight >= 65_536 {
                return fail(
                    &p.key("loss_weight"),
                    format!("loss_weight {weight} is out of 65536: use 0..65535"),
                );
            }
            LossEstimator::Ewma { weight }
        }
        LossEstimator::Tfrc { rtt_hint } => {
            if g.loss_weight.is_some() {
                return fail(
                    &p.key("loss_weight"),
                    "`loss_weight` applies to loss = \"ewma\" only",
                );
            }
            LossEstimator::Tfrc {
                rtt_hint: g.tfrc_rtt.map_or(rtt_hint, |x| x.0),
            }
        }
    })
}
