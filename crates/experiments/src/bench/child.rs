//! The benchmark's child processes: one canonical scenario run (`convoy bench sim-one NAME`), and the memory of
//! the engine's receivers on their own (`convoy bench sim-endpoint`). Each prints one line of JSON on stdout.

use super::procfs::{cpu_seconds, vm_bytes};
use super::scenario_text;
use crate::scenario::{self, build_network, Built, Scenario};
use convoy_proto::{Instant, Receiver};
use convoy_sim::dumbbell::jain;
use convoy_sim::network::session_receiver;
use convoy_sim::packet::Body;
use convoy_sim::results::RunResult;
use convoy_sim::topology::node_address;
use convoy_sim::{GroupId, LinkId, NodeId, SessionReceiver};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// One scenario's figures (an element of `convoy bench sim --json`'s `scenarios`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ScenarioRun {
    /// Canonical name (`dumbbell-10`, `star-1000`, ...).
    pub name: String,
    /// Simulated seconds.
    pub sim_s: f64,
    /// Wall-clock seconds of the run (building the network excluded).
    pub wall_s: f64,
    /// CPU seconds of the run.
    pub cpu_s: f64,
    /// Seconds spent loading the scenario and building the network.
    pub build_s: f64,
    /// Events processed.
    pub events: u64,
    /// Packets whose transmission ended, over all link directions (every hop counts once).
    pub packets_forwarded: u64,
    /// Events per wall second.
    pub events_per_s: f64,
    /// Packets forwarded per wall second.
    pub packets_per_s: f64,
    /// Busy fraction of the link named `bottleneck` (forward direction), if there is one.
    pub utilization: Option<f64>,
    /// Jain's index over the TCP flows' goodputs (payload bytes delivered × 8 / `sim_s`), if there are any.
    pub jain: Option<f64>,
    /// Peak resident set size of the child process (VmHWM).
    pub peak_rss_bytes: u64,
    /// Resident set size once the scenario is loaded and resolved, before the network is built.
    pub rss_loaded_bytes: u64,
    /// Resident set size once the network is built, before the first event.
    pub rss_built_bytes: u64,
    /// Simulated time of the `rss_at_bytes` reading: the end, or when the first session had sent
    /// `rss_at_packets` data packets.
    pub rss_at_s: f64,
    /// Original data packets the first session had sent at `rss_at_s` (multicast only).
    pub rss_at_packets: Option<u64>,
    /// Resident set size at `rss_at_s`.
    pub rss_at_bytes: u64,
    /// Multicast receivers in the scenario.
    pub receivers: usize,
    /// `peak_rss_bytes` / `receivers`.
    pub rss_per_receiver_bytes: Option<f64>,
    /// Multicast: the slowest receiver's goodput, bit/s.
    pub slowest_receiver_bps: Option<f64>,
    /// Packets dropped on all links (queues and random loss).
    pub drops: u64,
    /// TCP retransmission or pgmcc feedback timeouts, all flows.
    pub timeouts: u64,
    /// Packets on links at `rss_at_s` (each is a `Packet` in its link's pipe and an event).
    pub in_flight_at: usize,
    /// Events scheduled at `rss_at_s` (lazily cancelled timers included).
    pub pending_events_at: usize,
}

/// Run canonical scenario `name` with `--set` overrides `sets` (none for the benchmark). With
/// `rss_at_packets`, read the RSS once the first session has sent that many original data packets (so that
/// stars of different sizes can be compared with the same amount of data in their source's transmit window),
/// else at the end.
pub fn run_scenario(
    name: &str,
    rss_at_packets: Option<u64>,
    sets: &[String],
) -> Result<ScenarioRun, String> {
    let text = scenario_text(name)?;
    let started = std::time::Instant::now();
    let s = scenario::parse(&format!("scenarios/bench/{name}.toml"), name, text, sets)
        .map_err(|e| e.to_string())?;
    let rss_loaded_bytes = vm_bytes("VmRSS").unwrap_or(0);
    let built = build_network(&s).map_err(|e| format!("building {name}: {e}"))?;
    let facts = ScenarioFacts::of(&s, &built);
    // Only the network stays in memory during the run.
    drop(s);
    let mut net = built.net;
    let build_s = started.elapsed().as_secs_f64();
    let rss_built_bytes = vm_bytes("VmRSS").unwrap_or(0);

    let run = timed_run(
        &mut net,
        facts.session.as_deref(),
        rss_at_packets,
        facts.end,
    );

    let r = net.results();
    let packets_forwarded = net.packets_transmitted();
    let wall = run.wall_s.max(1e-9);
    let receivers = facts.receivers;
    Ok(ScenarioRun {
        name: name.to_string(),
        sim_s: facts.sim_s,
        wall_s: run.wall_s,
        cpu_s: run.cpu_s,
        build_s,
        events: run.events,
        packets_forwarded,
        events_per_s: run.events as f64 / wall,
        packets_per_s: packets_forwarded as f64 / wall,
        utilization: facts.bottleneck.map(|l| r.links[l.index()].utilization),
        jain: tcp_jain(&r, &facts.tcp_flows, facts.sim_s),
        peak_rss_bytes: run.peak_rss_bytes,
        rss_loaded_bytes,
        rss_built_bytes,
        rss_at_s: run.at.t_s,
        rss_at_packets: run.at.packets,
        rss_at_bytes: run.at.rss_bytes,
        receivers,
        rss_per_receiver_bytes: (receivers > 0)
            .then(|| run.peak_rss_bytes as f64 / receivers as f64),
        slowest_receiver_bps: facts.session.is_some().then(|| r.flows[0].goodput_bps),
        drops: r.links.iter().map(|l| l.drops).sum(),
        timeouts: r.flows.iter().map(|f| f.timeouts).sum(),
        in_flight_at: run.at.in_flight,
        pending_events_at: run.at.pending_events,
    })
}

/// What a benchmark run's figures need of its scenario, kept once the scenario is dropped.
struct ScenarioFacts {
    /// Simulated seconds.
    sim_s: f64,
    /// The end of the run.
    end: Instant,
    /// The forward direction of the link named `bottleneck`, if there is one.
    bottleneck: Option<LinkId>,
    /// Each TCP flow's index among the run's flows (after the sessions), with its start in seconds.
    tcp_flows: Vec<(usize, f64)>,
    /// Multicast receivers in the scenario.
    receivers: usize,
    /// The first session's name.
    session: Option<String>,
}

impl ScenarioFacts {
    /// The facts of `s`, whose network is `built`.
    fn of(s: &Scenario, built: &Built) -> ScenarioFacts {
        ScenarioFacts {
            sim_s: s.duration.as_secs_f64(),
            end: Instant::from_nanos(s.duration.as_nanos() as u64),
            bottleneck: s
                .links
                .iter()
                .position(|l| l.name == "bottleneck")
                .map(|i| built.link_ids[i].0),
            tcp_flows: s
                .tcp
                .iter()
                .enumerate()
                .map(|(i, t)| (s.sessions.len() + i, t.start.as_secs_f64()))
                .collect(),
            receivers: s.sessions.iter().map(|x| x.receivers.len()).sum(),
            session: s.sessions.first().map(|x| x.name.clone()),
        }
    }
}

/// What the network looked like at one instant of a run.
struct Reading {
    /// Simulated seconds.
    t_s: f64,
    /// Original data packets the first session had sent (multicast only).
    packets: Option<u64>,
    /// Resident set size.
    rss_bytes: u64,
    /// Packets on links.
    in_flight: usize,
    /// Events scheduled.
    pending_events: usize,
}

impl Reading {
    /// Read `net` now; `session` is the first session's name.
    fn of(net: &convoy_sim::Network, session: Option<&str>) -> Reading {
        let odata = |net: &convoy_sim::Network| -> Option<u64> {
            let name = session?;
            Some(net.session_sender(name)?.sender().stats().odata_packets)
        };
        Reading {
            t_s: net.now().as_secs_f64(),
            packets: odata(net),
            rss_bytes: vm_bytes("VmRSS").unwrap_or(0),
            in_flight: net.packets_in_flight(),
            pending_events: net.pending_events(),
        }
    }
}

/// A run's timed part: its cost and the reading of [`timed_run`].
struct TimedRun {
    /// Events processed.
    events: u64,
    /// Wall-clock seconds.
    wall_s: f64,
    /// CPU seconds.
    cpu_s: f64,
    /// Peak resident set size of the process (VmHWM) after the run.
    peak_rss_bytes: u64,
    /// The reading at `rss_at_packets`, or at the end.
    at: Reading,
}

/// Run `net` to `end`, timed. With `rss_at_packets`, read it once the first session (`session`) has sent that
/// many original data packets, else at the end.
fn timed_run(
    net: &mut convoy_sim::Network,
    session: Option<&str>,
    rss_at_packets: Option<u64>,
    end: Instant,
) -> TimedRun {
    let cpu0 = cpu_seconds().unwrap_or(0.0);
    let t0 = std::time::Instant::now();
    let mut events = 0;
    let mut reading = None;
    if let Some(k) = rss_at_packets {
        if let Some(name) = session {
            events += run_until_sent(net, name, k, end);
        }
        reading = Some(Reading::of(net, session));
    }
    events += net.run(end);
    let at = reading.unwrap_or_else(|| Reading::of(net, session));
    let wall_s = t0.elapsed().as_secs_f64();
    let cpu_s = cpu_seconds().unwrap_or(0.0) - cpu0;
    let peak_rss_bytes = vm_bytes("VmHWM").unwrap_or(0);
    TimedRun {
        events,
        wall_s,
        cpu_s,
        peak_rss_bytes,
        at,
    }
}

/// Jain's index over the TCP flows' goodputs in `r` (`None` without TCP flows).
fn tcp_jain(r: &RunResult, tcp_flows: &[(usize, f64)], sim_s: f64) -> Option<f64> {
    // ns-3's definition: bytes delivered over the whole run (a flow's goodput_bps is over its active time).
    let goodputs: Vec<f64> = tcp_flows
        .iter()
        .map(|&(i, start)| r.flows[i].goodput_bps * (sim_s - start).max(0.0) / sim_s)
        .collect();
    (!goodputs.is_empty()).then(|| jain(&goodputs))
}

/// Run `net` in millisecond steps until session `session`'s source has sent `k` original data packets (or
/// `end`); returns the events run.
fn run_until_sent(net: &mut convoy_sim::Network, session: &str, k: u64, end: Instant) -> u64 {
    let sent = |net: &convoy_sim::Network| {
        net.session_sender(session)
            .map_or(u64::MAX, |a| a.sender().stats().odata_packets)
    };
    let mut events = 0;
    let mut t = net.now();
    while t < end && sent(net) < k {
        t = (t + Duration::from_millis(1)).min(end);
        events += net.run(t);
    }
    events
}

/// Memory of a multicast star at three points, read by a caller-supplied reader.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StarReading {
    /// Receivers.
    pub receivers: usize,
    /// After the scenario was resolved.
    pub loaded: u64,
    /// After the network was built and the scenario description dropped.
    pub built: u64,
    /// When the session's source had sent `packets` data packets.
    pub at: u64,
    /// Data packets sent at the reading.
    pub packets: u64,
    /// Packets on links at the reading.
    pub in_flight: usize,
    /// Bytes the event queue held allocated at the reading (pending events and buckets kept for reuse).
    pub event_queue_bytes: usize,
}

/// Build canonical star `name` (with `sets`) and run it until its source has sent `k` data packets, reading
/// the memory with `mem` after loading, after building and then.
pub fn star_reading(
    name: &str,
    k: u64,
    sets: &[String],
    mem: &dyn Fn() -> u64,
) -> Result<StarReading, String> {
    let text = scenario_text(name)?;
    let s = scenario::parse(&format!("scenarios/bench/{name}.toml"), name, text, sets)
        .map_err(|e| e.to_string())?;
    let loaded = mem();
    let built = build_network(&s).map_err(|e| format!("building {name}: {e}"))?;
    let receivers = s.sessions.iter().map(|x| x.receivers.len()).sum();
    let session = s
        .sessions
        .first()
        .map(|x| x.name.clone())
        .ok_or("no session")?;
    let end = Instant::from_nanos(s.duration.as_nanos() as u64);
    drop(s);
    let mut net = built.net;
    let built = mem();
    let odata = |net: &convoy_sim::Network| {
        net.session_sender(&session)
            .map_or(0, |a| a.sender().stats().odata_packets)
    };
    run_until_sent(&mut net, &session, k, end);
    Ok(StarReading {
        receivers,
        loaded,
        built,
        at: mem(),
        packets: odata(&net),
        in_flight: net.packets_in_flight(),
        event_queue_bytes: net.event_queue_bytes(),
    })
}

/// The memory of the engine's receivers on their own.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EndpointSize {
    /// Receivers built.
    pub receivers: usize,
    /// Packets of the session replayed into each.
    pub packets: usize,
    /// Simulated seconds of the session they come from.
    pub seconds: f64,
    /// RSS growth per receiver after building them (`Receiver::new`, nothing received).
    pub fresh_bytes: f64,
    /// RSS growth per receiver after each received the same session's packets (receive window, controller
    /// and event queues grown as in a run).
    pub warm_bytes: f64,
}

/// Build engine receivers configured exactly like star-1000's, without a network, and measure the RSS that
/// `n` of them add: fresh, then after each has been fed the packets that a lone receiver of the same star got
/// in the first `seconds` simulated seconds.
pub fn endpoint_size(n: usize, seconds: f64) -> Result<EndpointSize, String> {
    endpoint_growth(n, seconds, &|| vm_bytes("VmRSS").unwrap_or(0), true)
}

/// [`endpoint_size`] with the memory read by `mem` (the RSS, or a counting allocator's live bytes);
/// `take_up_free` first takes up the allocator's free memory, which only an RSS reading needs.
pub fn endpoint_growth(
    n: usize,
    seconds: f64,
    mem: &dyn Fn() -> u64,
    take_up_free: bool,
) -> Result<EndpointSize, String> {
    // The canonical star cut down to one receiver, its access link captured.
    let sets = [
        "fanout.H.count=1".to_string(),
        "session.pgm.receiver_range.0.last=1".to_string(),
        format!("run.duration={seconds}s"),
    ];
    let s = scenario::parse(
        "scenarios/bench/star-1000.toml",
        "star-1000",
        scenario_text("star-1000")?,
        &sets,
    )
    .map_err(|e| e.to_string())?;
    let mut built = build_network(&s).map_err(|e| e.to_string())?;
    let link = built
        .net
        .link_id("hub-H1")
        .ok_or("star-1000 has no link hub-H1")?;
    built.net.capture(link);
    built.net.run(Instant::from_secs_f64(seconds));
    let packets: Vec<(Instant, u32, Body)> = built
        .net
        .captured()
        .iter()
        .map(|(t, p)| (*t, p.src.0, p.body.clone()))
        .collect();
    let spec = s.sessions[0].clone();
    let seed = s.seed;
    drop(built);
    drop(s);

    // The allocator reuses what the capture run freed before it asks the system for more; take that up first
    // so that the receivers' growth shows in the RSS.
    let ballast = if take_up_free {
        take_up_free_memory()
    } else {
        Vec::new()
    };
    let mut buf = vec![0u8; 65_536];
    let rss0 = mem();
    let mut receivers: Vec<Receiver> = (0..n)
        .map(|i| {
            let r = SessionReceiver {
                name: format!("E{i}"),
                node: NodeId(100_000 + i as u32),
                join: Instant::ZERO,
                leave: None,
            };
            session_receiver(seed, &spec, GroupId(0), &r)
        })
        .collect();
    let rss1 = mem();
    replay(&mut receivers, &packets, &mut buf);
    let rss2 = mem();
    drop(ballast);
    let per = |b: u64| b.saturating_sub(rss0) as f64 / n.max(1) as f64;
    Ok(EndpointSize {
        receivers: n,
        packets: packets.len(),
        seconds,
        fresh_bytes: per(rss1),
        warm_bytes: per(rss2),
    })
}

/// Feed each receiver the captured packets as the simulator would: deadlines up to a packet's arrival first,
/// each followed by draining what the receiver sends (a deadline may stay armed until its packet is polled).
fn replay(receivers: &mut [Receiver], packets: &[(Instant, u32, Body)], buf: &mut [u8]) {
    for r in receivers {
        for (t, src, body) in packets {
            let mut last = None;
            while let Some(due) = r.poll_timeout().filter(|d| d <= t && last != Some(*d)) {
                r.handle_timeout(due);
                while r.poll_transmit(due, buf).is_some() {}
                while r.poll_event().is_some() {}
                last = Some(due);
            }
            if let Body::Pgm(bytes) = body {
                r.handle_datagram(*t, node_address(NodeId(*src)), bytes);
            }
            while r.poll_transmit(*t, buf).is_some() {}
            while r.poll_event().is_some() {}
        }
    }
}

/// Allocate small blocks until the RSS grows by most of what was allocated, i.e. until the allocator has no
/// free memory left to hand out; returns the blocks, to be kept while measuring.
// Boxed on purpose: many small allocations are what takes up the allocator's free chunks.
#[allow(clippy::vec_box)]
fn take_up_free_memory() -> Vec<Box<[u8; 64]>> {
    const ROUND: usize = 8192;
    let mut blocks: Vec<Box<[u8; 64]>> = Vec::with_capacity(1 << 20);
    while blocks.len() + ROUND <= blocks.capacity() {
        let before = vm_bytes("VmRSS").unwrap_or(0);
        blocks.extend((0..ROUND).map(|_| Box::new([1u8; 64])));
        let grew = vm_bytes("VmRSS").unwrap_or(0).saturating_sub(before);
        if grew >= (ROUND * 64) as u64 {
            break;
        }
    }
    blocks
}
