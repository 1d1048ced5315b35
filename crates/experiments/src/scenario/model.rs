//! A scenario resolved and validated: defaults applied, fanouts and flow counts expanded, names turned into
//! indices, values converted into the simulator's own configuration types (sessions are the simulator's
//! `SessionSpec`s themselves). Building the network from it
//! cannot fail on anything a person wrote.

use convoy_sim::agents::udp::UdpPattern;
use convoy_sim::link::LinkConfig;
use convoy_sim::tcp::TcpConfig;
use convoy_sim::{NodeKind, SessionSpec};
use std::time::Duration;

/// A validated scenario.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// The scenario's name (the file stem).
    pub name: String,
    /// Simulated time.
    pub duration: Duration,
    /// Seed of every random stream.
    pub seed: u64,
    /// Throughput bin width.
    pub interval: Duration,
    /// Controller and queue sampling period (zero: off).
    pub sample: Duration,
    /// Nodes; indices are node ids.
    pub nodes: Vec<NodeDef>,
    /// Duplex links.
    pub links: Vec<LinkDef>,
    /// Multicast sessions, as the simulator takes them (node ids are the indices of `nodes`).
    pub sessions: Vec<SessionSpec>,
    /// TCP flows.
    pub tcp: Vec<TcpDef>,
    /// UDP flows (CBR, then on/off).
    pub udp: Vec<UdpDef>,
    /// Time–sequence plots to draw.
    pub sequence_plots: Vec<SeqPlot>,
    /// Link changes during the run, in file order.
    pub link_changes: Vec<LinkChangeDef>,
}

/// A node.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeDef {
    /// Name.
    pub name: String,
    /// Kind.
    pub kind: NodeKind,
}

/// A duplex link.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkDef {
    /// Name; the reverse direction is `<name>:rev` in results.
    pub name: String,
    /// Forward-direction sender (node index).
    pub a: usize,
    /// Forward-direction receiver (node index).
    pub b: usize,
    /// `a` → `b`.
    pub forward: LinkConfig,
    /// `b` → `a`.
    pub backward: LinkConfig,
    /// Record the forward queue.
    pub observe_forward: bool,
    /// Record the backward queue.
    pub observe_back: bool,
}

/// A link's rate or delay changing during the run (`[[link_change]]`; each `None`: unchanged).
#[derive(Clone, Debug, PartialEq)]
pub struct LinkChangeDef {
    /// When.
    pub at: Duration,
    /// The link (index into [`Scenario::links`]).
    pub link: usize,
    /// The forward direction's new rate, bits per second.
    pub rate_bps: Option<u64>,
    /// The forward direction's new one-way delay.
    pub delay: Option<Duration>,
    /// The backward direction's new rate, bits per second.
    pub rate_back_bps: Option<u64>,
    /// The backward direction's new one-way delay.
    pub delay_back: Option<Duration>,
}

/// A TCP bulk transfer.
#[derive(Clone, Debug)]
pub struct TcpDef {
    /// Name.
    pub name: String,
    /// Sender host.
    pub from: usize,
    /// Sink host.
    pub to: usize,
    /// TCP parameters.
    pub config: TcpConfig,
    /// Start.
    pub start: Duration,
    /// Stop.
    pub stop: Option<Duration>,
    /// Bytes to send.
    pub bytes: Option<u64>,
}

/// A UDP source and its sink.
#[derive(Clone, Debug)]
pub struct UdpDef {
    /// Name.
    pub name: String,
    /// Source host.
    pub from: usize,
    /// Sink host.
    pub to: usize,
    /// IP packet size.
    pub size: u32,
    /// CBR or on/off.
    pub pattern: UdpPattern,
    /// Start.
    pub start: Duration,
    /// Stop.
    pub stop: Option<Duration>,
}

/// A time–sequence plot.
#[derive(Clone, Debug, PartialEq)]
pub struct SeqPlot {
    /// Session index.
    pub session: usize,
    /// Window start.
    pub from: Duration,
    /// Window end (`None`: end of run).
    pub to: Option<Duration>,
}

impl Scenario {
    /// The name of every flow in the order results list them: sessions, TCP, UDP.
    pub fn flow_names(&self) -> Vec<&str> {
        self.sessions
            .iter()
            .map(|s| s.name.as_str())
            .chain(self.tcp.iter().map(|t| t.name.as_str()))
            .chain(self.udp.iter().map(|u| u.name.as_str()))
            .collect()
    }
}
