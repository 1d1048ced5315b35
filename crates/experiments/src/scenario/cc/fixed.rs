//! The fixed-rate baseline's scenario keys: `fixed = { rate = "...", burst = "..." }` (docs/scenario-format.md).

use super::SchemeKeys;
use crate::scenario::semantic::{fail, positive_rate, Res};
use crate::scenario::locate::KeyPath;
use crate::scenario::units::{Dur, Rate};
use convoy_proto::cc::fixed::FixedConfig;
use convoy_proto::cc::CcConfig;
use serde::Deserialize;

/// `fixed = { ... }`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FixedSpec {
    /// Data rate (whole PGM packets).
    pub rate: Rate,
    /// Catch-up burst (default 10 ms).
    pub burst: Option<Dur>,
}

impl SchemeKeys for FixedSpec {
    const NAME: &'static str = "fixed";

    /// The rate has no default: a fixed-rate session must say it.
    fn resolve(keys: Option<&Self>, path: &KeyPath, session: &KeyPath) -> Res<CcConfig> {
        let Some(f) = keys else {
            return fail(session, "cc = \"fixed\" needs `fixed = { rate = \"...\" }`");
        };
        let d = FixedConfig::default();
        Ok(CcConfig::Fixed(FixedConfig {
            rate_bytes_per_s: positive_rate(f.rate.0, &path.key("rate"))? / 8,
            burst: f.burst.map_or(d.burst, |b| b.0),
        }))
    }
}
