//! The simulated network and its builder: nodes, links, groups, agents.

use crate::agent_timer::AgentTimer;
use crate::agents::pgm::{PgmReceiverAgent, PgmSenderAgent, PgmSenderSetup};
use crate::agents::tcp::{TcpSenderAgent, TcpSinkAgent};
use crate::agents::udp::{UdpPattern, UdpSinkAgent, UdpSourceAgent};
use crate::agents::{Agent, Outbox};
use crate::event::EventQueue;
use crate::fan_out::FanOutArrivals;
use crate::ids::{AgentId, FlowId, GroupId, LinkId, NodeId};
use crate::link::{Link, LinkConfig};
use crate::ne::{NeConfig, NetworkElement};
use crate::packet::{Packet, PacketPool};
use crate::routing::{Graph, GroupTree, UnicastRoutes};
use crate::seed::{component_rng, component_seed};
use crate::tcp::TcpConfig;
use crate::topology::{group_address, node_address};
use convoy_proto::auth::{AuthConfig, SessionKey};
use convoy_proto::cc::CcConfig;
use convoy_proto::{Instant, Receiver, ReceiverConfig, RepairPacing, Sender, SenderConfig};
use convoy_wire::Gsi;
use rand_core::RngCore;
use std::collections::BTreeMap;
use std::fmt;
use std::rc::Rc;
use std::time::Duration;

/// An error building a network.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildError(pub String);

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BuildError {}

/// Suffix of a link's reverse direction in names (`name:rev`).
const REVERSE_SUFFIX: &str = ":rev";

/// What kind of node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// An end system.
    Host,
    /// A plain IP router (multicast-capable).
    Router,
    /// A router that is also a PGM network element.
    PgmRouter(NeConfig),
}

/// A node.
#[derive(Debug)]
pub struct Node {
    /// Scenario name.
    pub name: Box<str>,
    /// Kind.
    pub kind: NodeKind,
    /// Its network-element state, for PGM routers (boxed: most nodes are hosts).
    pub ne: Option<Box<NetworkElement>>,
}

/// What kind of flow (the `kind` of summary.json).
#[derive(Clone, Debug, PartialEq)]
pub enum FlowKind {
    /// A Convoy multicast session with this controller name (`pgmcc`, `fixed`, ...).
    Multicast(&'static str),
    /// TCP with this variant name (`tcp-reno`, `tcp-newreno`, `tcp-sack`).
    Tcp(&'static str),
    /// UDP cross traffic (`cbr`, `onoff`).
    Udp(&'static str),
}

/// A flow and its agents.
#[derive(Debug)]
pub struct Flow {
    /// Scenario name.
    pub name: String,
    /// Kind.
    pub kind: FlowKind,
    /// The sending agent.
    pub source: AgentId,
    /// Receiving agents (multicast receivers, or the single sink).
    pub sinks: Vec<AgentId>,
    /// When the application is active.
    pub start: Instant,
    /// When it stops.
    pub stop: Option<Instant>,
}

/// One receiver of a multicast session.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionReceiver {
    /// Scenario name.
    pub name: String,
    /// Its host.
    pub node: NodeId,
    /// When it joins.
    pub join: Instant,
    /// When it leaves.
    pub leave: Option<Instant>,
}

/// A multicast session to build.
#[derive(Clone, Debug)]
pub struct SessionSpec {
    /// Scenario name.
    pub name: String,
    /// The source's host.
    pub source: NodeId,
    /// Receivers.
    pub receivers: Vec<SessionReceiver>,
    /// Congestion control (both halves).
    pub cc: CcConfig,
    /// APDU size (pgmcc paper §4: 1400 bytes).
    pub apdu_size: usize,
    /// Application active from.
    pub start: Instant,
    /// Application stops (the session closes after draining).
    pub stop: Option<Instant>,
    /// Bytes to send in total (`None` = unlimited).
    pub bytes: Option<u64>,
    /// Record the time–sequence trace.
    pub trace: bool,
    /// Record each receiver's ODATA arrivals (sequence numbers in arrival order).
    pub record_arrivals: bool,
    /// The source's maximum rate (PGM rate limiter), bytes per second of whole packets.
    pub rate_max: Option<u64>,
    /// The source's NAK elimination interval (`None` = the engine's default; zero turns it off).
    pub nak_elim_ivl: Option<Duration>,
    /// Whether the source's repairs need the controller's permit (`RepairPacing`).
    pub repair_pacing: RepairPacing,
    /// Receive-window and NAK timing of the receivers (`None` = engine defaults).
    pub rxw: Option<convoy_proto::rxw::RxwConfig>,
    /// A keyed session (`convoy_proto::auth`): every packet carries OPT_CONVOY_AUTH, its payload encrypted
    /// when `Some(true)`. The key and each endpoint's identity come from the run's seed.
    pub keyed: Option<bool>,
    /// Parity repairs at the source (RFC 3208 §11; receivers learn of them from SPMs).
    pub parity: Option<convoy_proto::sender::ParityConfig>,
    /// The session's minimum rate: receivers credited with less for the grace period are shed and leave.
    pub min_rate: Option<convoy_proto::sender::MinRate>,
}

/// The keyed-session configuration of endpoint `endpoint` of session `spec` in a run seeded with `seed`: the
/// session's key and the endpoint's identity drawn from their own component generators.
fn session_auth(seed: u64, spec: &SessionSpec, endpoint: &str) -> Option<AuthConfig> {
    let encrypt = spec.keyed?;
    let mut key = [0u8; 32];
    component_rng(seed, &format!("key:{}", spec.name)).fill_bytes(&mut key);
    let mut identity = [0u8; 16];
    component_rng(seed, &format!("identity:{}:{endpoint}", spec.name)).fill_bytes(&mut identity);
    Some(AuthConfig {
        key: SessionKey::from_bytes(key),
        encrypt,
        identity,
    })
}

/// The engine endpoint the simulator builds for receiver `r` of session `spec`, the network's `group`-th
/// group, in a run seeded with `seed`. Public so that a benchmark can build endpoints exactly like the
/// simulator's without a network, to tell their memory from the simulator's.
pub fn session_receiver(
    seed: u64,
    spec: &SessionSpec,
    group: GroupId,
    r: &SessionReceiver,
) -> Receiver {
    let mut rc = ReceiverConfig::new(node_address(r.node), group_address(group));
    rc.cc = spec.cc.clone();
    // The source's data port, which `add_session` leaves at the sender's default.
    rc.dest_port = SenderConfig::new(node_address(spec.source), group_address(group)).dest_port;
    // The simulator delivers the source's own checksummed bytes; nothing can corrupt them on the way.
    rc.verify_checksums = false;
    if let Some(rxw) = &spec.rxw {
        rc.rxw = rxw.clone();
    }
    rc.auth = session_auth(seed, spec, &format!("receiver:{}", r.name));
    let seed = component_seed(seed, &format!("pgm:{}:{}", spec.name, r.name));
    Receiver::new(rc, seed)
}

/// Scheduled actions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// A packet reaches the far end of a link.
    Arrive(LinkId),
    /// A packet reaches the far end of each link of a fan-out's stretch, in order (module `fan_out`).
    ArriveAll(u32),
    /// An agent's timer, with its generation: events of other generations are stale (one pending event per
    /// agent, re-armed lazily; module `agent_timer`).
    Timer(AgentId, u32),
    /// An agent starts (a receiver joins).
    Start(AgentId),
    /// An agent stops (a receiver leaves).
    Stop(AgentId),
    /// Sample controllers and queues.
    Sample,
    /// Apply the `k`-th scheduled link change ([`Network::change_link_at`]).
    ChangeLink(u32),
}

/// A change of one link direction's rate and delay during a run (each `None`: unchanged).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkChange {
    /// The link direction.
    pub link: LinkId,
    /// The new rate, bits per second.
    pub rate_bps: Option<u64>,
    /// The new one-way propagation delay.
    pub delay: Option<Duration>,
}

/// A multicast group's routing and membership.
///
/// A group is one session's, and a session has at most one receiver per host ([`Network::add_session`]
/// refuses two), so membership is one agent slot per node: a packet reaching a host finds its receiver with
/// one load, not a search among the members (a 1000-receiver fan-out does this 1000 times per packet).
#[derive(Debug)]
pub struct Group {
    /// Distribution tree.
    pub tree: GroupTree,
    /// Per node: the joined receiver agent on it (`u32::MAX`: none).
    member_at: Vec<u32>,
}

impl Group {
    /// A group with no members over `nodes` nodes.
    pub fn new(tree: GroupTree, nodes: usize) -> Self {
        Group {
            tree,
            member_at: vec![u32::MAX; nodes],
        }
    }

    /// The joined receiver agent on `node`.
    pub fn member(&self, node: NodeId) -> Option<AgentId> {
        match self.member_at[node.index()] {
            u32::MAX => None,
            a => Some(AgentId(a)),
        }
    }

    /// `agent` on `node` joins.
    pub fn add_member(&mut self, node: NodeId, agent: AgentId) {
        debug_assert!(self.member(node).is_none_or(|a| a == agent));
        self.member_at[node.index()] = agent.0;
    }

    /// `agent` on `node` leaves.
    pub fn remove_member(&mut self, node: NodeId, agent: AgentId) {
        if self.member(node) == Some(agent) {
            self.member_at[node.index()] = u32::MAX;
        }
    }
}

/// Copies of the packets transmitted on one link direction, stamped with the instant each transmission ends
/// (for `--pcap`).
#[derive(Debug, Default)]
pub(crate) struct LinkCapture {
    /// The link direction captured, if any.
    pub(crate) link: Option<LinkId>,
    /// What it transmitted so far.
    pub(crate) packets: Vec<(Instant, Packet)>,
}

/// The simulated network.
#[derive(Debug)]
pub struct Network {
    pub(crate) seed: u64,
    pub(crate) graph: Graph,
    pub(crate) nodes: Vec<Node>,
    /// Every node, sorted by name (names are looked up by binary search; they are stored once, in `nodes`).
    pub(crate) node_names: Vec<NodeId>,
    pub(crate) links: Vec<Link>,
    /// Per duplex link (directions `2k` and `2k + 1`): its scenario name.
    pub(crate) duplex_names: Vec<Box<str>>,
    pub(crate) reverse: Vec<LinkId>,
    pub(crate) observed_links: Vec<LinkId>,
    pub(crate) agents: Vec<Agent>,
    /// Per agent, its timer and the event standing for it ([`AgentTimer`]).
    pub(crate) timers: Vec<AgentTimer>,
    pub(crate) groups: Vec<Group>,
    pub(crate) routes: UnicastRoutes,
    pub(crate) flows: Vec<Flow>,
    pub(crate) queue: EventQueue<Action>,
    pub(crate) now: Instant,
    pub(crate) interval: Duration,
    pub(crate) sample_interval: Duration,
    pub(crate) queue_samples: Vec<Vec<(Instant, u32)>>,
    /// Per observed link direction, its drops so far at each queue sample.
    pub(crate) drop_samples: Vec<Vec<u64>>,
    pub(crate) unroutable: u64,
    pub(crate) started: bool,
    pub(crate) capture: LinkCapture,
    /// The outbox every agent call writes into: its packet list is empty between calls, and its scratch space
    /// is shared by all agents ([`crate::agents::Outbox::scratch`]), so that a call allocates neither.
    pub(crate) outbox: Outbox,
    /// Delivered packets' allocations, reused for the next packets sent.
    pub(crate) packet_pool: PacketPool,
    /// Link changes scheduled with [`Network::change_link_at`], indexed by [`Action::ChangeLink`].
    pub(crate) link_changes: Vec<LinkChange>,
    /// Multicast fan-outs' arrivals, one event per stretch of links due together.
    pub(crate) fan_out: FanOutArrivals,
    /// A stretch's arrivals while it runs: per link, the far node, the packet taken and the link's next
    /// arrival (kept between stretches for its allocation).
    pub(crate) stretch_arrivals: Vec<(LinkId, NodeId, Rc<Packet>, Option<Instant>)>,
    /// Every event run, a stretch's as the arrivals it stands for (for tests of the order of events).
    #[cfg(test)]
    pub(crate) event_trace: Vec<(Instant, Action)>,
}

impl Network {
    /// An empty network; `interval` is the throughput bin width, `sample_interval` the controller sampling.
    pub fn new(seed: u64, interval: Duration, sample_interval: Duration) -> Self {
        Network {
            seed,
            graph: Graph::default(),
            nodes: Vec::new(),
            node_names: Vec::new(),
            links: Vec::new(),
            duplex_names: Vec::new(),
            reverse: Vec::new(),
            observed_links: Vec::new(),
            agents: Vec::new(),
            timers: Vec::new(),
            groups: Vec::new(),
            routes: UnicastRoutes::default(),
            flows: Vec::new(),
            queue: EventQueue::new(),
            now: Instant::ZERO,
            interval,
            sample_interval,
            queue_samples: Vec::new(),
            drop_samples: Vec::new(),
            unroutable: 0,
            started: false,
            capture: LinkCapture::default(),
            outbox: Outbox::default(),
            packet_pool: PacketPool::default(),
            link_changes: Vec::new(),
            fan_out: FanOutArrivals::default(),
            stretch_arrivals: Vec::new(),
            #[cfg(test)]
            event_trace: Vec::new(),
        }
    }

    /// At `at`, change a link direction's rate and delay (see [`crate::link::Link::set_rate_and_delay`]: packets
    /// already admitted keep their timing). Unicast routes and multicast trees stay those computed from the
    /// initial delays.
    pub fn change_link_at(&mut self, at: Instant, change: LinkChange) {
        let k = u32::try_from(self.link_changes.len()).expect("fewer than 2^32 link changes");
        self.link_changes.push(change);
        self.queue.push(at, Action::ChangeLink(k));
    }

    /// Add a node.
    pub fn add_node(&mut self, name: &str, kind: NodeKind) -> Result<NodeId, BuildError> {
        let Err(at) = self.node_position(name) else {
            return Err(BuildError(format!("node `{name}` is defined twice")));
        };
        let id = self.graph.add_node();
        let ne = match kind {
            NodeKind::PgmRouter(c) => Some(Box::new(NetworkElement::new(c))),
            _ => None,
        };
        self.nodes.push(Node {
            name: name.into(),
            kind,
            ne,
        });
        self.node_names.insert(at, id);
        Ok(id)
    }

    /// Where `name` is (`Ok`) or would go (`Err`) in `node_names`.
    fn node_position(&self, name: &str) -> Result<usize, usize> {
        self.node_names
            .binary_search_by(|id| (*self.nodes[id.index()].name).cmp(name))
    }

    /// The node called `name`.
    pub fn node(&self, name: &str) -> Option<NodeId> {
        self.node_position(name).ok().map(|i| self.node_names[i])
    }

    /// Add a duplex link `a`–`b` with a configuration per direction. Returns (a→b, b→a).
    pub fn add_link(
        &mut self,
        name: &str,
        a: NodeId,
        b: NodeId,
        forward: LinkConfig,
        backward: LinkConfig,
    ) -> (LinkId, LinkId) {
        let mut add = |from: NodeId, to: NodeId, cfg: LinkConfig, dir: &str| {
            let id = self.graph.add_link(from, to, cfg.delay.as_nanos() as u64);
            let seed = self.seed;
            let rng = move || component_rng(seed, &format!("link:{name}{dir}"));
            let mut link = Link::new(from, to, cfg, rng);
            // The same direction of the previous duplex link (a fan-out's links are added one after another).
            if let Some(prev) = self.links.len().checked_sub(2).map(|i| &self.links[i]) {
                link.share_params_with(prev);
            }
            self.links.push(link);
            id
        };
        let f = add(a, b, forward, "");
        let r = add(b, a, backward, REVERSE_SUFFIX);
        self.reverse.push(r);
        self.reverse.push(f);
        self.duplex_names.push(name.into());
        (f, r)
    }

    /// The scenario name of a link direction: the duplex link's name, with `:rev` for the reverse direction.
    pub fn link_name(&self, link: LinkId) -> String {
        let i = link.index();
        let base = &self.duplex_names[i / 2];
        if i.is_multiple_of(2) {
            base.to_string()
        } else {
            format!("{base}{REVERSE_SUFFIX}")
        }
    }

    /// Record the queue length of this link direction at every sample.
    pub fn observe_link(&mut self, link: LinkId) {
        if !self.observed_links.contains(&link) {
            self.observed_links.push(link);
            self.queue_samples.push(Vec::new());
            self.drop_samples.push(Vec::new());
        }
    }

    /// Keep a copy of every packet transmitted on this link direction, stamped with the instant its
    /// transmission ends (for `--pcap`).
    pub fn capture(&mut self, link: LinkId) {
        self.capture.link = Some(link);
    }

    /// Packets captured so far.
    pub fn captured(&self) -> &[(Instant, Packet)] {
        &self.capture.packets
    }

    /// A link direction by scenario name (`name`, or `name:rev` for the reverse direction).
    pub fn link_id(&self, name: &str) -> Option<LinkId> {
        (0..self.links.len())
            .find(|&i| {
                let base = &*self.duplex_names[i / 2];
                if i.is_multiple_of(2) {
                    base == name
                } else {
                    name.strip_suffix(REVERSE_SUFFIX) == Some(base)
                }
            })
            .map(|i| LinkId(i as u32))
    }

    /// Give back the capacity the build's vectors hold beyond their length: they grow by doubling, so a
    /// network of 10,000 receivers could otherwise keep up to half its per-receiver structures unused.
    pub(crate) fn release_build_slack(&mut self) {
        self.graph.shrink_to_fit();
        self.nodes.shrink_to_fit();
        self.node_names.shrink_to_fit();
        self.links.shrink_to_fit();
        self.duplex_names.shrink_to_fit();
        self.reverse.shrink_to_fit();
        self.agents.shrink_to_fit();
        self.timers.shrink_to_fit();
        for f in &mut self.flows {
            f.sinks.shrink_to_fit();
        }
    }

    fn add_agent(&mut self, agent: Agent) -> AgentId {
        self.agents.push(agent);
        self.timers.push(AgentTimer::IDLE);
        AgentId(self.agents.len() as u32 - 1)
    }

    fn schedule_life(&mut self, agent: AgentId, start: Instant, stop: Option<Instant>) {
        self.queue.push(start, Action::Start(agent));
        if let Some(s) = stop {
            self.queue.push(s, Action::Stop(agent));
        }
    }

    /// Add a Convoy multicast session.
    pub fn add_session(&mut self, spec: SessionSpec) -> Result<FlowId, BuildError> {
        let flow = FlowId(self.flows.len() as u32);
        let group = GroupId(self.groups.len() as u32);
        let mut seen = BTreeMap::new();
        for r in &spec.receivers {
            if let Some(other) = seen.insert(r.node, &r.name) {
                return Err(BuildError(format!(
                    "session `{}`: receivers `{other}` and `{}` are on the same node `{}`; a receiver's identity is its \
                     host address, so give each its own host",
                    spec.name, r.name, self.nodes[r.node.index()].name
                )));
            }
            if r.node == spec.source {
                return Err(BuildError(format!(
                    "session `{}`: receiver `{}` is on the source's node",
                    spec.name, r.name
                )));
            }
        }
        let mut sc = SenderConfig::new(node_address(spec.source), group_address(group));
        sc.cc = spec.cc.clone();
        let gsi_seed = component_seed(self.seed, &format!("gsi:{}", spec.name)).to_be_bytes();
        sc.gsi = Gsi([
            gsi_seed[0],
            gsi_seed[1],
            gsi_seed[2],
            gsi_seed[3],
            gsi_seed[4],
            gsi_seed[5],
        ]);
        sc.source_port = 1000 + flow.0 as u16;
        sc.max_tsdu = spec.apdu_size.max(1);
        sc.rate_max = spec.rate_max;
        if let Some(ivl) = spec.nak_elim_ivl {
            sc.nak_elim_ivl = ivl;
        }
        sc.repair_pacing = spec.repair_pacing;
        sc.parity = spec.parity;
        sc.min_rate = spec.min_rate;
        sc.auth = session_auth(self.seed, &spec, "source");
        let receiver_addrs: Vec<_> = spec
            .receivers
            .iter()
            .map(|r| node_address(r.node))
            .collect();
        let sender = Sender::new(sc.clone(), Instant::ZERO);
        let source_agent = self.add_agent(Agent::PgmSender(Box::new(PgmSenderAgent::new(
            PgmSenderSetup {
                node: spec.source,
                flow,
                group,
                sender,
                apdu_size: spec.apdu_size,
                total_bytes: spec.bytes,
                receivers: &receiver_addrs,
                interval: self.interval,
                trace: spec.trace,
            },
        ))));
        let tree = GroupTree::new(&self.graph, spec.source);
        self.groups.push(Group::new(tree, self.graph.nodes()));
        let mut sinks = Vec::new();
        for r in &spec.receivers {
            let receiver = session_receiver(self.seed, &spec, group, r);
            let mut receiver_agent = PgmReceiverAgent::new(
                r.node,
                flow,
                group,
                &r.name,
                receiver,
                (spec.source, source_agent),
                self.interval,
            );
            if spec.record_arrivals {
                receiver_agent.record.arrivals = Some(Box::default());
            }
            let agent = self.add_agent(Agent::PgmReceiver(Box::new(receiver_agent)));
            self.schedule_life(agent, r.join, r.leave);
            sinks.push(agent);
        }
        // Receivers that join at the source's start time are members before its first packet leaves.
        self.schedule_life(source_agent, spec.start, spec.stop);
        self.flows.push(Flow {
            name: spec.name,
            kind: FlowKind::Multicast(spec.cc.name()),
            source: source_agent,
            sinks,
            start: spec.start,
            stop: spec.stop,
        });
        Ok(flow)
    }

    /// Add a TCP bulk transfer from `src` to `dst`.
    #[allow(clippy::too_many_arguments)]
    pub fn add_tcp(
        &mut self,
        name: &str,
        src: NodeId,
        dst: NodeId,
        config: TcpConfig,
        start: Instant,
        stop: Option<Instant>,
        bytes: Option<u64>,
    ) -> FlowId {
        let flow = FlowId(self.flows.len() as u32);
        let kind = match config.variant {
            crate::tcp::TcpVariant::Reno => "tcp-reno",
            crate::tcp::TcpVariant::NewReno => "tcp-newreno",
            crate::tcp::TcpVariant::Sack => "tcp-sack",
        };
        let sender_id = AgentId(self.agents.len() as u32);
        let sink_id = AgentId(sender_id.0 + 1);
        let sender = TcpSenderAgent::new(src, flow, config, dst, sink_id, bytes, self.interval);
        let sink = TcpSinkAgent::new(dst, flow, &config, src, sender_id, self.interval);
        self.add_agent(Agent::TcpSender(Box::new(sender)));
        self.add_agent(Agent::TcpSink(Box::new(sink)));
        self.schedule_life(sender_id, start, stop);
        self.flows.push(Flow {
            name: name.to_string(),
            kind: FlowKind::Tcp(kind),
            source: sender_id,
            sinks: vec![sink_id],
            start,
            stop,
        });
        flow
    }

    /// Add a UDP source from `src` to a sink at `dst`; `size` is the IP packet size.
    #[allow(clippy::too_many_arguments)]
    pub fn add_udp(
        &mut self,
        name: &str,
        src: NodeId,
        dst: NodeId,
        size: u32,
        pattern: UdpPattern,
        start: Instant,
        stop: Option<Instant>,
    ) -> FlowId {
        let flow = FlowId(self.flows.len() as u32);
        let kind = match pattern {
            UdpPattern::Cbr { .. } => "cbr",
            UdpPattern::ParetoOnOff { .. } => "onoff",
        };
        let source_id = AgentId(self.agents.len() as u32);
        let sink_id = AgentId(source_id.0 + 1);
        let rng = component_rng(self.seed, &format!("udp:{name}"));
        let source =
            UdpSourceAgent::new(src, flow, dst, sink_id, size, pattern, rng, self.interval);
        self.add_agent(Agent::Udp(Box::new(source)));
        self.add_agent(Agent::UdpSink(Box::new(UdpSinkAgent::new(
            dst,
            self.interval,
        ))));
        self.schedule_life(source_id, start, stop);
        self.flows.push(Flow {
            name: name.to_string(),
            kind: FlowKind::Udp(kind),
            source: source_id,
            sinks: vec![sink_id],
            start,
            stop,
        });
        flow
    }
}
