//! Verdicts of the TFMCC paper's start-up experiment (§4.4, Fig. 14): the highest rate of slowstart on an
//! otherwise empty bottleneck, for growing receiver sets, and beside one TCP flow.

use super::super::data::RunData;
use super::super::experiment::Ctx;
use super::super::measure::kbps;
use super::super::verdict::{trim, Check};
use super::{span, SESSION};

/// The bottleneck's link name in the scenario.
const BOTTLENECK: &str = "bottleneck";
/// The highest allowed rate of slowstart, bit/s, and when slowstart ended (the first report of a loss, RFC 4654
/// §3.6): the larger of the rate samples up to then and the rate the sender had when it ended.
fn slowstart_peak(r: &RunData) -> Result<(f64, f64), String> {
    let s = r.session(SESSION).ok_or("no TFMCC session data")?;
    let (end, before) = s
        .startup_ended
        .ok_or("slowstart never ended (no receiver reported a loss)")?;
    let sampled = s
        .rate
        .iter()
        .filter(|(t, _)| *t <= end)
        .map(|(_, v)| *v)
        .fold(0.0, f64::max);
    Ok((8.0 * sampled.max(before), end))
}

/// The receivers of the session in a run.
fn receivers(r: &RunData) -> usize {
    r.scenario
        .sessions
        .iter()
        .find(|s| s.name == SESSION)
        .map_or(0, |s| s.receivers.len())
}

/// tfmcc-fig14-slowstart: on the empty bottleneck the peak is ≤ 2.2× the link for every receiver count; beside
/// one TCP flow started with it the peak is near the fair rate (within [0.5, 1.5] of half the link), and the mean
/// over the rest of the run is reported.
pub fn fig14(ctx: &Ctx<'_>) -> Result<Vec<Check>, String> {
    let mut checks = Vec::new();
    for (variant, r) in ctx.runs {
        let link = r.link_rate_bps(BOTTLENECK)?;
        let (peak, at) = slowstart_peak(r)?;
        let n = receivers(r);
        let with_tcp = r.start_s("tcp")? < r.end_s();
        if !with_tcp {
            let mut c = Check::at_most(
                &format!("{n} receiver(s), empty bottleneck: highest slowstart rate / link rate"),
                peak / link,
                2.2,
                "",
                "experiments.md (paper: roughly twice the bottleneck)",
            );
            c.measured = format!("{} ({}; slowstart ended at {} s)", c.measured, kbps(peak), trim(at));
            checks.push(c);
            continue;
        }
        let fair = link / 2.0;
        let mut c = Check::range(
            &format!("{n} receiver(s) beside one TCP flow: highest slowstart rate / fair rate (half the link)"),
            peak / fair,
            0.5,
            1.5,
            "",
            "experiments.md: \"with TCP it ends near the fair rate\"",
        );
        c.measured = format!("{} ({}; slowstart ended at {} s; variant {variant})", c.measured, kbps(peak), trim(at));
        checks.push(c);
        let (from, to) = (r.end_s() / 2.0, r.end_s());
        let (tf, tcp) = (r.flow_mean(SESSION, from, to)?, r.flow_mean("tcp", from, to)?);
        checks.push(Check::report(
            &format!("{n} receiver(s) beside one TCP flow: TFMCC and TCP, {}", span(from, to)),
            format!("{} vs {}", kbps(tf), kbps(tcp)),
            "\"it takes TFMCC roughly 20 seconds to reach that level\" (§4.4)",
        ));
    }
    Ok(checks)
}
