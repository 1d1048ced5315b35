//! `convoy bench sim`: the simulator's speed and memory on the canonical scenarios of scenarios/bench/
//! (issue 3, "Speed and memory").
//!
//! Each scenario runs in its own child process (`convoy bench sim-one NAME`, the same executable), so its peak
//! RSS (VmHWM) is its own. For the multicast stars a further child (`convoy bench sim-endpoint`) measures the
//! engine's receivers on their own, so that the simulator's state per receiver can be told from the endpoint's:
//! RSS growth per receiver from star-1000 to star-10000 (read at the same simulated time in both) minus the
//! endpoint's own size.
//!
//! The scenario files are compiled into the executable, so the benchmark is the same wherever it runs.

pub mod child;
pub mod procfs;
pub mod startup;
pub mod sweep;

pub use child::{EndpointSize, ScenarioRun};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::process::{Command, Stdio};

/// The canonical scenarios, in the order they run: (name, TOML).
pub const SCENARIOS: [(&str, &str); 7] = [
    (
        "dumbbell-1",
        include_str!("../../../../scenarios/bench/dumbbell-1.toml"),
    ),
    (
        "dumbbell-10",
        include_str!("../../../../scenarios/bench/dumbbell-10.toml"),
    ),
    (
        "dumbbell-100",
        include_str!("../../../../scenarios/bench/dumbbell-100.toml"),
    ),
    (
        "star-1000",
        include_str!("../../../../scenarios/bench/star-1000.toml"),
    ),
    (
        "star-10000",
        include_str!("../../../../scenarios/bench/star-10000.toml"),
    ),
    (
        "mcast-fixed-1000",
        include_str!("../../../../scenarios/bench/mcast-fixed-1000.toml"),
    ),
    (
        "mcast-fixed-10000",
        include_str!("../../../../scenarios/bench/mcast-fixed-10000.toml"),
    ),
];

/// Stars read their RSS when their source has sent this many data packets (its transmit window, up to 20,000
/// packets, then holds the same data in every star).
pub const STAR_RSS_AT_PACKETS: u64 = 5000;
/// Receivers the endpoint measurement builds.
pub const ENDPOINT_RECEIVERS: usize = 1000;
/// Simulated seconds of star traffic replayed into each of them.
pub const ENDPOINT_SECONDS: f64 = 0.5;
/// The target for the simulator's state per receiver, bytes.
pub const TARGET_PER_RECEIVER_BYTES: f64 = 1024.0;

/// The TOML of canonical scenario `name`.
pub fn scenario_text(name: &str) -> Result<&'static str, String> {
    SCENARIOS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, t)| *t)
        .ok_or_else(|| format!("no canonical scenario `{name}` (scenarios: {})", names()))
}

fn names() -> String {
    SCENARIOS
        .iter()
        .map(|(n, _)| *n)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Memory per receiver of a multicast star (extra fields of its `scenarios` entry).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StarMemory {
    /// RSS per engine receiver on its own after it received the star's traffic (`convoy bench sim-endpoint`).
    pub endpoint_bytes: f64,
    /// RSS per engine receiver on its own, freshly built.
    pub endpoint_fresh_bytes: f64,
    /// The smaller star this one is compared with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compared_with: Option<String>,
    /// RSS growth per added receiver from the smaller star to this one, both read when their source had sent
    /// `rss_at_packets` data packets (the same transmit window).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub growth_per_receiver_bytes: Option<f64>,
    /// `growth_per_receiver_bytes` minus `endpoint_bytes`: the simulator's state per receiver.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sim_state_per_receiver_bytes: Option<f64>,
    /// Packets on links per added receiver at the reading (the receiver's access link carries its
    /// bandwidth-delay product); each takes `in_flight_bytes_each` at least.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub in_flight_per_receiver: Option<f64>,
    /// Bytes a packet in flight takes on each link at least: a pointer to the shared packet, its departure
    /// instant and one event.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub in_flight_bytes_each: Option<usize>,
    /// Linearity check: the same growth per receiver from star-1000 cut to one receiver to the smaller star.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub growth_per_receiver_from_one_bytes: Option<f64>,
    /// RSS growth per added receiver once the networks are built, before any packet.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub built_growth_per_receiver_bytes: Option<f64>,
    /// Of `built_growth_per_receiver_bytes`: the resolved scenario description (`convoy`'s, not the
    /// simulator's; freed before the run, its memory is reused during it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scenario_per_receiver_bytes: Option<f64>,
    /// Of `built_growth_per_receiver_bytes`: the simulator's own structures (nodes, links, routing, group,
    /// agent around the endpoint), i.e. the growth while building the network minus `endpoint_fresh_bytes`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sim_static_per_receiver_bytes: Option<f64>,
}

/// One entry of `scenarios`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// The run's figures.
    #[serde(flatten)]
    pub run: ScenarioRun,
    /// Stars: memory per receiver.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub memory: Option<StarMemory>,
}

/// `convoy bench sim --json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// In canonical order.
    pub scenarios: Vec<Entry>,
}

/// Run the selected canonical scenarios (all when `only` is empty), each in a child process; `progress`
/// hears one line per step.
pub fn run(only: &[String], progress: &mut dyn FnMut(&str)) -> Result<Report, String> {
    let wanted: Vec<&str> = only
        .iter()
        .flat_map(|s| s.split(','))
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    for w in &wanted {
        scenario_text(w)?;
    }
    let selected: Vec<&str> = SCENARIOS
        .iter()
        .map(|(n, _)| *n)
        .filter(|n| wanted.is_empty() || wanted.contains(n))
        .collect();
    let stars: Vec<&str> = selected
        .iter()
        .copied()
        .filter(|n| n.starts_with("star-"))
        .collect();
    let exe = std::env::current_exe().map_err(|e| format!("cannot find the executable: {e}"))?;
    let mut runs = Vec::new();
    for name in &selected {
        progress(&format!("running {name}"));
        let mut args = vec!["bench".to_string(), "sim-one".into(), name.to_string()];
        if name.starts_with("star-") {
            args.extend(["--rss-at-packets".into(), STAR_RSS_AT_PACKETS.to_string()]);
        }
        let run: ScenarioRun = child_json(&exe, &args)?;
        progress(&format!(
            "  {name}: {:.2} s wall, {:.2} s CPU",
            run.wall_s, run.cpu_s
        ));
        runs.push(run);
    }
    // A third point for the linearity check: star-1000 cut down to one receiver.
    let one = if stars.len() >= 2 {
        progress("running star-1000 cut to one receiver");
        let args: Vec<String> = [
            "bench",
            "sim-one",
            "star-1000",
            "--rss-at-packets",
            &STAR_RSS_AT_PACKETS.to_string(),
            "--set",
            "fanout.H.count=1",
            "--set",
            "session.pgm.receiver_range.0.last=1",
            "--set",
            "run.duration=5s",
        ]
        .iter()
        .map(|a| a.to_string())
        .collect();
        let mut r: ScenarioRun = child_json(&exe, &args)?;
        r.name = "star-1".into();
        Some(r)
    } else {
        None
    };
    let endpoint: Option<EndpointSize> = if stars.is_empty() {
        None
    } else {
        progress("measuring the engine's receivers on their own");
        let args = [
            "bench".to_string(),
            "sim-endpoint".into(),
            "--receivers".into(),
            ENDPOINT_RECEIVERS.to_string(),
            "--seconds".into(),
            ENDPOINT_SECONDS.to_string(),
        ];
        Some(child_json(&exe, &args)?)
    };
    Ok(Report {
        scenarios: entries(runs, one.as_ref(), endpoint.as_ref()),
    })
}

/// Attach the stars' memory figures; `one` is star-1000 cut to one receiver.
fn entries(
    runs: Vec<ScenarioRun>,
    one: Option<&ScenarioRun>,
    endpoint: Option<&EndpointSize>,
) -> Vec<Entry> {
    let smallest_star = runs
        .iter()
        .filter(|r| r.receivers > 0)
        .min_by_key(|r| r.receivers)
        .cloned();
    let per_receiver = |big: &ScenarioRun, small: &ScenarioRun, rss: fn(&ScenarioRun) -> u64| {
        let dn = big.receivers.saturating_sub(small.receivers).max(1) as f64;
        (rss(big) as f64 - rss(small) as f64) / dn
    };
    runs.into_iter()
        .map(|run| {
            let memory = match (endpoint, run.receivers > 0) {
                (Some(e), true) => {
                    let mut m = StarMemory {
                        endpoint_bytes: e.warm_bytes,
                        endpoint_fresh_bytes: e.fresh_bytes,
                        ..StarMemory::default()
                    };
                    if let Some(small) = smallest_star.as_ref().filter(|s| {
                        s.receivers < run.receivers
                            && same_reading(s.rss_at_packets, run.rss_at_packets)
                    }) {
                        let growth = per_receiver(&run, small, |r| r.rss_at_bytes);
                        let built = per_receiver(&run, small, |r| r.rss_built_bytes);
                        let loaded = per_receiver(&run, small, |r| r.rss_loaded_bytes);
                        m.compared_with = Some(small.name.clone());
                        m.growth_per_receiver_bytes = Some(growth);
                        m.sim_state_per_receiver_bytes = Some(growth - e.warm_bytes);
                        m.in_flight_per_receiver = Some(
                            (run.in_flight_at as f64 - small.in_flight_at as f64)
                                / (run.receivers - small.receivers) as f64,
                        );
                        // Per link: a pointer to the packet (shared by the fan-out's copies), its departure
                        // instant while queued, and its arrival event.
                        m.in_flight_bytes_each = Some(
                            std::mem::size_of::<std::rc::Rc<convoy_sim::packet::Packet>>()
                                + std::mem::size_of::<convoy_proto::Instant>()
                                + convoy_sim::event::EventQueue::<convoy_sim::network::Action>::ENTRY_BYTES,
                        );
                        m.built_growth_per_receiver_bytes = Some(built);
                        m.scenario_per_receiver_bytes = Some(loaded);
                        m.sim_static_per_receiver_bytes = Some(built - loaded - e.fresh_bytes);
                        m.growth_per_receiver_from_one_bytes = one
                            .filter(|o| same_reading(o.rss_at_packets, small.rss_at_packets))
                            .map(|o| per_receiver(small, o, |r| r.rss_at_bytes));
                    }
                    Some(m)
                }
                _ => None,
            };
            Entry { run, memory }
        })
        .collect()
}

/// Whether two runs read their RSS at the same point: both once their source had sent the same number of
/// data packets (`--rss-at-packets`; a run reads it at the first check past that number, so the counts may
/// differ by the packets of one check interval).
fn same_reading(a: Option<u64>, b: Option<u64>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a.abs_diff(b) <= a.max(b) / 100,
        _ => false,
    }
}

/// Run `exe args` and parse the last line of its stdout as JSON.
fn child_json<T: serde::de::DeserializeOwned>(
    exe: &std::path::Path,
    args: &[String],
) -> Result<T, String> {
    let out = Command::new(exe)
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    let what = args.join(" ");
    if !out.status.success() {
        return Err(format!("`convoy {what}` failed ({})", out.status));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().last().unwrap_or("");
    serde_json::from_str(line)
        .map_err(|e| format!("`convoy {what}` printed no result ({e}): {line}"))
}

fn mb(b: u64) -> String {
    format!("{:.1} MB", b as f64 / 1e6)
}

fn opt(v: Option<f64>, digits: usize) -> String {
    v.map_or_else(|| "-".into(), |x| format!("{x:.digits$}"))
}

/// The report as a table, with the stars' memory per receiver below it.
pub fn table(r: &Report) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{:<13} {:>6} {:>8} {:>8} {:>11} {:>7} {:>11} {:>7} {:>7} {:>7} {:>9} {:>10}",
        "scenario",
        "sim s",
        "wall s",
        "CPU s",
        "events",
        "Mev/s",
        "pkts fwd",
        "Mpkt/s",
        "util",
        "Jain",
        "peak RSS",
        "RSS/rcvr"
    );
    for e in &r.scenarios {
        let x = &e.run;
        let _ = writeln!(
            o,
            "{:<13} {:>6} {:>8.3} {:>8.3} {:>11} {:>7.2} {:>11} {:>7.2} {:>7} {:>7} {:>9} {:>10}",
            x.name,
            x.sim_s,
            x.wall_s,
            x.cpu_s,
            x.events,
            x.events_per_s / 1e6,
            x.packets_forwarded,
            x.packets_per_s / 1e6,
            opt(x.utilization, 4),
            opt(x.jain, 4),
            mb(x.peak_rss_bytes),
            x.rss_per_receiver_bytes
                .map_or_else(|| "-".into(), |b| format!("{:.0} B", b)),
        );
    }
    for e in &r.scenarios {
        let (x, Some(m)) = (&e.run, &e.memory) else {
            continue;
        };
        if let Some(slowest) = x.slowest_receiver_bps {
            let _ = writeln!(
                o,
                "\n{}: {} receivers, {} simulated s, slowest receiver {:.1} Mbit/s, {} drops, {} timeouts",
                x.name,
                x.receivers,
                x.sim_s,
                slowest / 1e6,
                x.drops,
                x.timeouts
            );
        }
        let (Some(small), Some(growth), Some(sim), Some(built), Some(stat)) = (
            &m.compared_with,
            m.growth_per_receiver_bytes,
            m.sim_state_per_receiver_bytes,
            m.built_growth_per_receiver_bytes,
            m.sim_static_per_receiver_bytes,
        ) else {
            continue;
        };
        let in_flight = match (m.in_flight_per_receiver, m.in_flight_bytes_each) {
            (Some(n), Some(b)) => format!(
                ", of which {n:.1} packets in flight on the receiver's links (at least {:.0} B: {b} B each)",
                n * b as f64
            ),
            _ => String::new(),
        };
        let _ = write!(
            o,
            "  memory per receiver (against {small}, both read when their source had sent {} packets):\n\
             \x20   RSS growth              {growth:>6.0} B per receiver ({} from 1 to {} receivers)\n\
             \x20   engine's receiver       {:>6.0} B ({:.0} B fresh), measured alone\n\
             \x20   simulator state         {sim:>6.0} B (target < {:.0} B){in_flight}\n\
             \x20   before the first packet {built:>6.0} B = scenario description {:.0} B + fresh endpoint {:.0} B + \
             simulator structures {stat:.0} B\n",
            x.rss_at_packets.unwrap_or(0),
            m.growth_per_receiver_from_one_bytes
                .map_or_else(|| "-".into(), |g| format!("{g:.0} B")),
            small.trim_start_matches("star-"),
            m.endpoint_bytes,
            m.endpoint_fresh_bytes,
            TARGET_PER_RECEIVER_BYTES,
            m.scenario_per_receiver_bytes.unwrap_or(0.0),
            m.endpoint_fresh_bytes,
        );
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::parse;
    use convoy_sim::dumbbell::Dumbbell;
    use convoy_sim::impairment::ImpairmentConfig;
    use convoy_sim::link::LinkConfig;
    use convoy_sim::queue::{Limit, QueueConfig};
    use std::time::Duration;

    /// The dumbbell files describe exactly `Dumbbell::benchmark`, the dumbbell built in code (and the ns-3
    /// program's): same links, queues and TCP parameters.
    #[test]
    fn dumbbell_files_match_the_dumbbell_built_in_code() {
        for n in [1usize, 10, 100] {
            let name = format!("dumbbell-{n}");
            let s = parse(&name, &name, scenario_text(&name).unwrap(), &[]).unwrap();
            let d = Dumbbell::benchmark(n, 1);
            assert_eq!(s.duration, Duration::from_secs(100));
            assert_eq!(s.tcp.len(), n);
            let link = |(rate_bps, delay): (u64, Duration)| LinkConfig {
                rate_bps,
                delay,
                queue: QueueConfig::DropTail(Limit::Packets(d.queue_pkts)),
                impairment: ImpairmentConfig::None,
            };
            assert_eq!(s.links.len(), 1 + 2 * n);
            for l in &s.links {
                let want = if l.name == "bottleneck" {
                    link(d.bottleneck)
                } else {
                    link(d.access)
                };
                assert_eq!((&l.forward, &l.backward), (&want, &want), "{}", l.name);
            }
            for t in &s.tcp {
                assert_eq!(t.config, d.tcp, "{}", t.name);
                assert!(t.start < d.start_spread, "{}", t.name);
                assert_eq!(t.stop, None);
                assert_eq!(t.bytes, None);
            }
        }
    }

    #[test]
    fn readings_a_few_packets_apart_are_the_same_reading() {
        assert!(same_reading(Some(5004), Some(5000)));
        assert!(!same_reading(Some(5000), Some(6000)));
        assert!(!same_reading(None, Some(5000)));
        assert!(!same_reading(None, None));
    }

    #[test]
    fn stars_have_their_receivers() {
        for (name, n) in [("star-1000", 1000), ("star-10000", 10_000)] {
            let s = parse(name, name, scenario_text(name).unwrap(), &[]).unwrap();
            assert_eq!(s.sessions.len(), 1);
            assert_eq!(s.sessions[0].receivers.len(), n);
            assert!(s.links.iter().all(|l| l.forward.rate_bps == 100_000_000));
        }
    }

    #[test]
    fn table_shows_every_scenario_and_the_memory_per_receiver() {
        let run = |name: &str, receivers: usize, rss: u64| ScenarioRun {
            name: name.into(),
            sim_s: 4.0,
            wall_s: 2.0,
            cpu_s: 1.5,
            events: 1000,
            packets_forwarded: 900,
            events_per_s: 500.0,
            packets_per_s: 450.0,
            peak_rss_bytes: rss,
            rss_loaded_bytes: rss / 4,
            rss_built_bytes: rss / 2,
            rss_at_packets: Some(STAR_RSS_AT_PACKETS),
            rss_at_bytes: rss,
            in_flight_at: receivers * 9,
            receivers,
            rss_per_receiver_bytes: Some(rss as f64 / receivers as f64),
            slowest_receiver_bps: Some(9e7),
            ..ScenarioRun::default()
        };
        let one = run("star-1", 1, 17_000_000);
        let endpoint = EndpointSize {
            receivers: 1000,
            packets: 3500,
            seconds: 0.5,
            fresh_bytes: 1700.0,
            warm_bytes: 2900.0,
        };
        let mut dumbbell = run("dumbbell-10", 0, 5_000_000);
        dumbbell.utilization = Some(0.998);
        dumbbell.jain = Some(0.99);
        dumbbell.rss_per_receiver_bytes = None;
        let report = Report {
            scenarios: entries(
                vec![
                    dumbbell,
                    run("star-1000", 1000, 22_500_000),
                    run("star-10000", 10_000, 72_300_000),
                ],
                Some(&one),
                Some(&endpoint),
            ),
        };
        let m = report.scenarios[2].memory.clone().unwrap();
        assert_eq!(m.compared_with.as_deref(), Some("star-1000"));
        assert!((m.growth_per_receiver_bytes.unwrap() - 5533.3).abs() < 0.1);
        assert!((m.sim_state_per_receiver_bytes.unwrap() - 2633.3).abs() < 0.1);
        assert!(report.scenarios[1]
            .memory
            .as_ref()
            .unwrap()
            .compared_with
            .is_none());
        let t = table(&report);
        println!("{t}");
        for name in [
            "dumbbell-10",
            "star-1000",
            "star-10000",
            "2633 B (target < 1024 B)",
        ] {
            assert!(t.contains(name), "{name} in\n{t}");
        }
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["scenarios"][0]["utilization"], 0.998);
        assert!(json["scenarios"][1]["utilization"].is_null());
        assert_eq!(json["scenarios"][2]["endpoint_bytes"], 2900.0);
    }

    #[test]
    fn unknown_names_are_refused() {
        let err = run(&["dumbbell-7".to_string()], &mut |_| {}).unwrap_err();
        assert!(
            err.contains("dumbbell-7") && err.contains("star-10000"),
            "{err}"
        );
    }
}
