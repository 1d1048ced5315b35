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
    narrowest(sc, hops, cbr, t).map_or(f64::INFINITY, |(_, a)| a)
}

/// The link direction of a path with the least bandwidth left at `t` by the CBR traffic on it, named as in the
/// results (`L1`, `L1:rev`), and that bandwidth (bit/s); the first such hop on a tie. `None` for an empty path.
pub fn narrowest(
    sc: &Scenario,
    hops: &[(usize, bool)],
    cbr: &[Cross],
    t: f64,
) -> Option<(String, f64)> {
    let mut best: Option<(String, f64)> = None;
    for &(link, fwd) in hops {
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
        let left = rate - cross;
        if best.as_ref().is_none_or(|(_, b)| left < *b) {
            let name = if fwd {
                l.name.clone()
            } else {
                format!("{}:rev", l.name)
            };
            best = Some((name, left));
        }
    }
    best
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

#[cfg(test)]
mod tests {
    use super::*;

    /// S — R over a fast link, then two branches: L1 (800 kbit/s) to A, L2 (1 Mbit/s) to B.
    const TREE: &str = r#"
[run]
duration = "10s"
[defaults]
link = { delay = "1ms", queue = "10pkt" }
[[node]]
name = "R"
kind = "router"
[[link]]
name = "up"
between = ["S", "R"]
rate = "100Mbit"
[[link]]
name = "L1"
between = ["R", "A"]
rate = "800kbit"
[[link]]
name = "L2"
between = ["R", "B"]
rate = "1Mbit"
"#;

    #[test]
    fn the_narrowest_hop_is_the_one_the_cross_traffic_leaves_least_of() {
        let sc = crate::scenario::parse("tree.toml", "tree", TREE, &[]).unwrap();
        let node = |n: &str| sc.nodes.iter().position(|x| x.name == n).unwrap();
        let to_a = path(&sc, node("S"), node("A"));
        assert_eq!(
            narrowest(&sc, &to_a, &[], 0.0),
            Some(("L1".to_string(), 800_000.0))
        );
        // 300 kbit/s of CBR on L2 from 5 s makes it the narrower of the path to B; backwards it is `L2:rev`.
        let to_b = path(&sc, node("S"), node("B"));
        let cbr = [Cross {
            path: to_b.clone(),
            start: 5.0,
            stop: 10.0,
            bps: 300_000.0,
        }];
        assert_eq!(narrowest(&sc, &to_b, &cbr, 1.0).unwrap().0, "L2");
        assert_eq!(
            narrowest(&sc, &to_b, &cbr, 6.0),
            Some(("L2".to_string(), 700_000.0))
        );
        assert_eq!(available(&sc, &to_a, &cbr, 6.0), 800_000.0);
        let back = path(&sc, node("B"), node("S"));
        assert_eq!(narrowest(&sc, &back, &[], 0.0).unwrap().0, "L2:rev");
        assert_eq!(narrowest(&sc, &[], &[], 0.0), None);
    }
}
