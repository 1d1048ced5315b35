//! A scenario resolved and validated: defaults applied, fanouts and flow counts expanded, names turned into
//! indices, values converted into the simulator's own configuration types. Building the network from it
//! cannot fail on anything a person wrote.

use convoy_proto::cc::CcConfig;
use convoy_proto::rxw::RxwConfig;
use convoy_sim::agents::udp::UdpPattern;
use convoy_sim::link::LinkConfig;
use convoy_sim::tcp::TcpConfig;
use convoy_sim::NodeKind;
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
    /// Multicast sessions.
    pub sessions: Vec<SessionDef>,
    /// TCP flows.
    pub tcp: Vec<TcpDef>,
    /// UDP flows (CBR, then on/off).
    pub udp: Vec<UdpDef>,
    /// Time–sequence plots to draw.
    pub sequence_plots: Vec<SeqPlot>,
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

/// A multicast receiver.
#[derive(Clone, Debug, PartialEq)]
pub struct ReceiverDef {
    /// Name.
    pub name: String,
    /// Host (node index).
    pub node: usize,
    /// Join time.
    pub join: Duration,
    /// Leave time.
    pub leave: Option<Duration>,
}

/// A multicast session.
#[derive(Clone, Debug)]
pub struct SessionDef {
    /// Name.
    pub name: String,
    /// Source host (node index).
    pub source: usize,
    /// Receivers.
    pub receivers: Vec<ReceiverDef>,
    /// Controller.
    pub cc: CcConfig,
    /// Payload bytes per data packet.
    pub payload: usize,
    /// Application start.
    pub start: Duration,
    /// Application stop.
    pub stop: Option<Duration>,
    /// Total bytes.
    pub bytes: Option<u64>,
    /// Record the time–sequence trace.
    pub trace: bool,
    /// Record each receiver's ODATA arrivals.
    pub arrivals: bool,
    /// PGM rate limit, bytes per second.
    pub rate_max: Option<u64>,
    /// The source's NAK elimination interval.
    pub nak_elim: Option<Duration>,
    /// Receive-window configuration.
    pub rxw: Option<RxwConfig>,
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
