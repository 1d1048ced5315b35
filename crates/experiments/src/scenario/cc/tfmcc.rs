//! TFMCC's scenario keys: `tfmcc = { ... }` of a session (docs/scenario-format.md, "tfmcc"), over RFC 4654's
//! defaults ([`TfmccConfig`]).

use super::SchemeKeys;
use crate::scenario::locate::KeyPath;
use crate::scenario::semantic::{fail, Res};
use crate::scenario::by_name::{or, ByName};
use crate::scenario::units::Dur;
use convoy_proto::cc::tfmcc::{FeedbackBias, TfmccConfig};
use convoy_proto::cc::CcConfig;
use serde::Deserialize;

/// `tfmcc = { ... }`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TfmccSpec {
    /// Initial R_max and the receivers' RTT before a sample (default 500 ms, §3.1).
    pub initial_rtt: Option<Dur>,
    /// N of the feedback timer (default 10000, §4.5).
    pub receivers_max: Option<u32>,
    /// g, the suppression margin (default 0.1, §3.4).
    pub g: Option<f64>,
    /// History discounting of the loss intervals (default false, §5.5).
    pub discounting: Option<bool>,
    /// k, RTTs of the receive-rate measurement (default 2, §4.3.4: 2 to 4).
    pub receive_rate_rtts: Option<u32>,
    /// The receivers' feedback timer (default `"rate-offset"`, the paper's §2.5; `"exponential"`: RFC 4654 §4.5).
    pub feedback_timer: Option<ByName<FeedbackBias>>,
    /// b, the feedback round's length T = b·R_max (default 6, RFC 4654 §3.4; the paper's §2.5 uses 4).
    pub round_rtts: Option<f64>,
}

impl SchemeKeys for TfmccSpec {
    const NAME: &'static str = "tfmcc";

    fn resolve(keys: Option<&Self>, path: &KeyPath, _session: &KeyPath) -> Res<CcConfig> {
        let k = keys.cloned().unwrap_or_default();
        let d = TfmccConfig::default();
        let initial_rtt = k.initial_rtt.map_or(d.initial_rtt, |x| x.0);
        if initial_rtt.is_zero() {
            return fail(&path.key("initial_rtt"), "the initial RTT must be above 0s");
        }
        let receivers_max = k.receivers_max.unwrap_or(d.receivers_max);
        if receivers_max < 2 {
            return fail(&path.key("receivers_max"), "N must be at least 2 (ln N divides)");
        }
        let g = k.g.unwrap_or(d.g);
        if !(0.0..1.0).contains(&g) {
            return fail(&path.key("g"), format!("g = {g}: use 0 ≤ g < 1 (RFC 4654 §3.4: 0.1)"));
        }
        let rtts = k.receive_rate_rtts.unwrap_or(d.receive_rate_rtts);
        if !(1..=8).contains(&rtts) {
            return fail(&path.key("receive_rate_rtts"), format!("{rtts} RTTs: use 1 to 8 (RFC 4654 §4.3.4: 2 to 4)"));
        }
        let round_rtts = k.round_rtts.unwrap_or(d.round_rtts);
        if !(1.0..=16.0).contains(&round_rtts) {
            return fail(
                &path.key("round_rtts"),
                format!("{round_rtts} R_max: use 1 to 16 (RFC 4654 §3.4: 6; the TFMCC paper §2.5: 3 to 6, 4 by default)"),
            );
        }
        Ok(CcConfig::Tfmcc(TfmccConfig {
            initial_rtt,
            round_rtts,
            receivers_max,
            g,
            receive_rate_rtts: rtts,
            discounting: k.discounting.unwrap_or(d.discounting),
            feedback_timer: or(&k.feedback_timer, d.feedback_timer),
            ..d
        }))
    }
}
