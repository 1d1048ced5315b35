//! Verdict of `aimd`, the agent-based rate AIMD scheme of Shi and Waldvogel 2000 (docs/papers.md), beside TCP at
//! the same random loss rate (§6.3, Fig. 7: "drop to zero").

use super::super::experiment::Ctx;
use super::super::measure::kbps;
use super::super::verdict::{trim, Check};
use super::{span, EXP, SESSION, SETTLE_S};

/// The link of the TCP flow at loss p.
const TCP_PATH: &str = "tcp-path";

/// sw-fig7-drop-to-zero: for every mean loss p, the multicast rate over TCP's at p is at least 0.5 from p = 3% on
/// and never below 0.2.
pub fn fig7(ctx: &Ctx<'_>) -> Result<Vec<Check>, String> {
    let mut checks = Vec::new();
    for r in ctx.runs.values() {
        let p = r
            .scenario
            .links
            .iter()
            .find(|l| l.name == TCP_PATH)
            .ok_or_else(|| format!("no link `{TCP_PATH}` in scenario {}", r.scenario.name))?
            .forward
            .impairment
            .mean_loss();
        let (from, to) = (SETTLE_S, r.end_s());
        let m = r.flow_mean(SESSION, from, to)?;
        let tcp = r.flow_mean("tcp", from, to)?;
        let ratio = m / tcp.max(1.0);
        let what = format!("p = {}%: multicast / TCP at p, {}", trim(p * 100.0), span(from, to));
        let floor = if p >= 0.03 { 0.5 } else { 0.2 };
        let mut c = Check::at_least(&what, ratio, floor, "", EXP);
        let switches = r.flow(SESSION).map_or(0, |f| f.switches.len());
        c.measured = format!("{} ({} vs {}; {switches} agent changes)", c.measured, kbps(m), kbps(tcp));
        checks.push(c);
    }
    Ok(checks)
}
