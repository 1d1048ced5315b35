//! Paths through a run's topology and their available bandwidth: which links a flow crosses (the path of fewest
//! hops; the scenarios' topologies are trees), and a path's rate less the CBR traffic sharing its narrowest link.
//! Read from the run's resolved scenario, so verdicts never restate a topology.

use super::data::RunData;
use crate::scenario::Scenario;
use convoy_sim::agents::udp::UdpPattern;
use std::collections::VecDeque;

/// A path: its links, each with its direction (true: a→b of the link's definition).
pub type Path = Vec<(usize, bool)>;

/// A CBR flow: its path, start, stop (s) and rate (bit/s).
pub struct Cross {
    /// The links it crosses.
    pub path: Path,
    /// Start, s.
    pub start: f64,
    /// Stop (the run's end if none), s.
    pub stop: f64,
    /// Rate, bit/s.
    pub bps: f64,
}

/// The links from node `a` to node `b` on the path of fewest hops, each with its direction (true: a→b of the
/// link's definition).
pub fn path(sc: &Scenario, a: usize, b: usize) -> Path {
    let mut came: Vec<Option<(usize, usize, bool)>> = vec![None; sc.nodes.len()];
    let mut queue = VecDeque::from([a]);
    let mut seen = vec![false; sc.nodes.len()];
    seen[a] = true;
    while let Some(n) = queue.pop_front() {
        for (i, l) in sc.links.iter().enumerate() {
            let next = if l.a == n {
                Some((l.b, true))
            } else if l.b == n {
                Some((l.a, false))
            } else {
                None
            };
            if let Some((m, fwd)) = next.filter(|(m, _)| !seen[*m]) {
                seen[m] = true;
                came[m] = Some((n, i, fwd));
                queue.push_back(m);
            }
        }
    }
    let mut out = Vec::new();
    let mut at = b;
    while let Some((prev, link, fwd)) = came[at] {
        out.push((link, fwd));
        at = prev;
    }
    out.reverse();
    out
}

/// The available bandwidth (bit/s) at `t` of a path: its narrowest link's rate less the CBR traffic on it.
pub fn available(sc: &Scenario, hops: &[(usize, bool)], cbr: &[Cross], t: f64) -> f64 {
    hops.iter()
        .map(|&(link, fwd)| {
            let l = &sc.links[link];
            let rate = if fwd {
                l.forward.rate_bps
            } else {
                l.backward.rate_bps
            } as f64;
            let cross: f64 = cbr
                .iter()
                .filter(|c| c.path.contains(&(link, fwd)) && c.start <= t && t < c.stop)
                .map(|c| c.bps)
                .sum();
            rate - cross
        })
        .fold(f64::INFINITY, f64::min)
}

/// The CBR flows.
pub fn cbr_flows(r: &RunData) -> Vec<Cross> {
    let end = r.end_s();
    r.scenario
        .udp
        .iter()
        .filter_map(|u| match u.pattern {
            UdpPattern::Cbr { rate_bps, .. } => Some(Cross {
                path: path(&r.scenario, u.from, u.to),
                start: u.start.as_secs_f64(),
                stop: u.stop.map_or(end, |d| d.as_secs_f64()),
                bps: rate_bps as f64,
            }),
            UdpPattern::ParetoOnOff { .. } => None,
        })
        .collect()
}
