//! The scenario keys of `aimd`, the agent-based rate AIMD scheme of Shi and Waldvogel 2000 (docs/papers.md):
//! `aimd = { ... }` of a session (docs/scenario-format.md, "aimd"), over the defaults of [`AimdConfig`].

use super::SchemeKeys;
use crate::scenario::locate::KeyPath;
use crate::scenario::semantic::{fail, positive_rate, Res};
use crate::scenario::units::{Dur, Rate};
use convoy_proto::cc::aimd::AimdConfig;
use convoy_proto::cc::CcConfig;
use serde::Deserialize;

/// `aimd = { ... }`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AimdSpec {
    /// The rate at the start (default one packet per initial RTT, the paper's §5.4).
    pub initial_rate: Option<Rate>,
    /// The RTT assumed before a sample (default 500 ms, §5.4).
    pub initial_rtt: Option<Dur>,
    /// Packets over which a receiver measures its loss rate (default 500).
    pub loss_window: Option<u32>,
    /// How much worse than the agent a receiver must be to notify (default 0.1).
    pub margin: Option<f64>,
    /// Halve the rate when the agent changes (default true, §6.3).
    pub halve_on_switch: Option<bool>,
    /// Gate increases on the RTT measured on each PF (default true) or on the agent's smoothed one (§5.3).
    pub gate_on_sampled_rtt: Option<bool>,
}

impl SchemeKeys for AimdSpec {
    const NAME: &'static str = "aimd";

    fn resolve(keys: Option<&Self>, path: &KeyPath, _session: &KeyPath) -> Res<CcConfig> {
        let k = keys.cloned().unwrap_or_default();
        let d = AimdConfig::default();
        let initial_rate = match k.initial_rate {
            Some(r) => Some(positive_rate(r.0, &path.key("initial_rate"))? as f64 / 8.0),
            None => d.initial_rate,
        };
        let initial_rtt = k.initial_rtt.map_or(d.initial_rtt, |x| x.0);
        if initial_rtt.is_zero() {
            return fail(&path.key("initial_rtt"), "the initial RTT must be above 0s");
        }
        let loss_window = k.loss_window.unwrap_or(d.loss_window);
        if loss_window < 10 {
            return fail(&path.key("loss_window"), format!("{loss_window} packets: use at least 10"));
        }
        let margin = k.margin.unwrap_or(d.margin);
        if !(0.0..1.0).contains(&margin) {
            return fail(&path.key("margin"), format!("margin = {margin}: use 0 ≤ margin < 1"));
        }
        Ok(CcConfig::Aimd(AimdConfig {
            initial_rate,
            initial_rtt,
            loss_window,
            margin,
            halve_on_switch: k.halve_on_switch.unwrap_or(d.halve_on_switch),
            gate_on_sampled_rtt: k.gate_on_sampled_rtt.unwrap_or(d.gate_on_sampled_rtt),
        }))
    }
}
