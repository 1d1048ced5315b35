//! Traffic endpoints attached to nodes: Convoy sessions (the real convoy-proto endpoints), TCP senders and
//! sinks, CBR and Pareto on/off UDP sources and their sink.

pub mod pgm;
pub mod tcp;
pub mod udp;

use crate::ids::NodeId;
use crate::packet::Packet;
use convoy_proto::Instant;

/// What an agent asks the network to do.
#[derive(Debug, Default)]
pub struct Outbox {
    /// Packets to send from the agent's node.
    pub packets: Vec<Packet>,
    /// Scratch space for building packets, lent by the network for the call so that agents need no buffer of
    /// their own (10,000 receivers would otherwise hold 10,000 buffers). May be empty: grow it as needed.
    pub scratch: Vec<u8>,
}

impl Outbox {
    /// The packet list and the scratch space, at least `len` bytes long, borrowed together (an agent writes
    /// a packet into the scratch space, then pushes it).
    pub fn packets_and_scratch(&mut self, len: usize) -> (&mut Vec<Packet>, &mut [u8]) {
        if self.scratch.len() < len {
            self.scratch.resize(len, 0);
        }
        (&mut self.packets, &mut self.scratch)
    }
}

/// What is left for the network after an agent handled a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handled {
    /// Nothing: the agent sent nothing, its timer's deadline ([`Agent::next_timer`]) is the one it had, and it
    /// asked for no stop. The network skips what it does after an agent's call.
    Settled,
    /// The network sends what the agent left in the outbox and re-arms its timer.
    FollowUp,
}

/// A traffic endpoint.
#[derive(Debug)]
pub enum Agent {
    /// A Convoy (PGM) session source.
    PgmSender(Box<pgm::PgmSenderAgent>),
    /// A Convoy (PGM) session receiver.
    PgmReceiver(Box<pgm::PgmReceiverAgent>),
    /// A TCP bulk sender.
    TcpSender(Box<tcp::TcpSenderAgent>),
    /// A TCP sink.
    TcpSink(Box<tcp::TcpSinkAgent>),
    /// A CBR or Pareto on/off UDP source.
    Udp(Box<udp::UdpSourceAgent>),
    /// Counts UDP bytes.
    UdpSink(Box<udp::UdpSinkAgent>),
}

impl Agent {
    /// The node the agent lives on.
    pub fn node(&self) -> NodeId {
        match self {
            Agent::PgmSender(a) => a.node,
            Agent::PgmReceiver(a) => a.node,
            Agent::TcpSender(a) => a.node,
            Agent::TcpSink(a) => a.node,
            Agent::Udp(a) => a.node,
            Agent::UdpSink(a) => a.node,
        }
    }

    /// A packet for this agent arrived. Returns what is left for the network to do.
    pub fn on_packet(&mut self, now: Instant, packet: &Packet, out: &mut Outbox) -> Handled {
        match self {
            Agent::PgmSender(a) => a.on_packet(now, packet, out),
            Agent::PgmReceiver(a) => return a.on_packet(now, packet, out),
            Agent::TcpSender(a) => a.on_packet(now, packet, out),
            Agent::TcpSink(a) => a.on_packet(now, packet, out),
            Agent::Udp(_) => {}
            Agent::UdpSink(a) => a.on_packet(now, packet),
        }
        Handled::FollowUp
    }

    /// The agent's timer fired.
    pub fn on_timer(&mut self, now: Instant, out: &mut Outbox) {
        match self {
            Agent::PgmSender(a) => a.on_timer(now, out),
            Agent::PgmReceiver(a) => a.on_timer(now, out),
            Agent::TcpSender(a) => a.on_timer(now, out),
            Agent::TcpSink(a) => a.on_timer(now, out),
            Agent::Udp(a) => a.on_timer(now, out),
            Agent::UdpSink(_) => {}
        }
    }

    /// When the agent next wants [`Agent::on_timer`].
    pub fn next_timer(&self) -> Option<Instant> {
        match self {
            Agent::PgmSender(a) => a.next_timer(),
            Agent::PgmReceiver(a) => a.next_timer(),
            Agent::TcpSender(a) => a.next_timer(),
            Agent::TcpSink(a) => a.next_timer(),
            Agent::Udp(a) => a.next_timer(),
            Agent::UdpSink(_) => None,
        }
    }

    /// Scheduled start (applications begin sending; receivers join).
    pub fn start(&mut self, now: Instant, out: &mut Outbox) {
        match self {
            Agent::PgmSender(a) => a.start(now, out),
            Agent::PgmReceiver(a) => a.start(now),
            Agent::TcpSender(a) => a.start(now, out),
            Agent::Udp(a) => a.start(now, out),
            Agent::TcpSink(_) | Agent::UdpSink(_) => {}
        }
    }

    /// Scheduled stop (applications stop offering data; receivers leave).
    pub fn stop(&mut self, now: Instant, out: &mut Outbox) {
        match self {
            Agent::PgmSender(a) => a.stop(now),
            Agent::PgmReceiver(a) => a.stop(now, out),
            Agent::TcpSender(a) => a.stop(now),
            Agent::Udp(a) => a.stop(),
            Agent::TcpSink(_) | Agent::UdpSink(_) => {}
        }
    }
}
