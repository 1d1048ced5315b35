//! TCP bulk transfer (FTP-style) between two hosts: the sender and sink models of [`crate::tcp`].

use super::Outbox;
use crate::ids::{AgentId, FlowId, NodeId};
use crate::observe::Bins;
use crate::packet::{Body, Dest, Packet};
use crate::tcp::{TcpConfig, TcpSegment, TcpSender, TcpSink};
use convoy_proto::Instant;
use std::time::Duration;

/// A TCP sender with its application (unlimited data between start and stop, or a byte count).
#[derive(Debug)]
pub struct TcpSenderAgent {
    /// Node.
    pub node: NodeId,
    /// Flow.
    pub flow: FlowId,
    config: TcpConfig,
    sink_node: NodeId,
    sink_agent: AgentId,
    bytes: Option<u64>,
    tcp: Option<TcpSender>,
    /// Payload bytes sent (retransmissions included) per interval.
    pub sent_bins: Bins,
}

impl TcpSenderAgent {
    /// A sender at `node` towards `sink_agent` at `sink_node`.
    pub fn new(
        node: NodeId,
        flow: FlowId,
        config: TcpConfig,
        sink_node: NodeId,
        sink_agent: AgentId,
        bytes: Option<u64>,
        interval: Duration,
    ) -> Self {
        TcpSenderAgent {
            node,
            flow,
            config,
            sink_node,
            sink_agent,
            bytes,
            tcp: None,
            sent_bins: Bins::new(interval),
        }
    }

    /// The TCP state machine, once started.
    pub fn tcp(&self) -> Option<&TcpSender> {
        self.tcp.as_ref()
    }

    /// Start the transfer.
    pub fn start(&mut self, now: Instant, out: &mut Outbox) {
        let mut tcp = TcpSender::new(self.config, now);
        tcp.set_bytes_to_send(self.bytes);
        self.tcp = Some(tcp);
        self.flush(now, out);
    }

    /// The application stops offering data.
    pub fn stop(&mut self, _now: Instant) {
        if let Some(t) = &mut self.tcp {
            t.stop();
        }
    }

    /// An ACK arrived.
    pub fn on_packet(&mut self, now: Instant, packet: &Packet, out: &mut Outbox) {
        if let (Body::Tcp(seg), Some(tcp)) = (&packet.body, &mut self.tcp) {
            tcp.on_ack(now, seg);
        }
        self.flush(now, out);
    }

    /// Retransmission timer.
    pub fn on_timer(&mut self, now: Instant, out: &mut Outbox) {
        if let Some(tcp) = &mut self.tcp {
            tcp.handle_timeout(now);
        }
        self.flush(now, out);
    }

    /// Next deadline.
    pub fn next_timer(&self) -> Option<Instant> {
        self.tcp.as_ref().and_then(|t| t.poll_timeout())
    }

    fn flush(&mut self, now: Instant, out: &mut Outbox) {
        let Some(tcp) = &mut self.tcp else { return };
        while let Some(seg) = tcp.poll_segment(now) {
            self.sent_bins.add(now, f64::from(seg.len));
            out.packets.push(segment_packet(
                self.node,
                self.sink_node,
                self.sink_agent,
                self.flow,
                seg,
            ));
        }
    }
}

fn segment_packet(
    src: NodeId,
    dst: NodeId,
    agent: AgentId,
    flow: FlowId,
    seg: TcpSegment,
) -> Packet {
    Packet {
        size: seg.wire_bytes(),
        src,
        dst: Dest::Node(dst),
        flow,
        to_agent: Some(agent),
        body: Body::Tcp(seg),
    }
}

/// A TCP sink.
#[derive(Debug)]
pub struct TcpSinkAgent {
    /// Node.
    pub node: NodeId,
    /// Flow.
    pub flow: FlowId,
    sender_node: NodeId,
    sender_agent: AgentId,
    tcp: TcpSink,
    /// In-order bytes delivered per interval.
    pub delivered_bins: Bins,
    delivered: u64,
}

impl TcpSinkAgent {
    /// A sink at `node` answering `sender_agent` at `sender_node`.
    pub fn new(
        node: NodeId,
        flow: FlowId,
        config: &TcpConfig,
        sender_node: NodeId,
        sender_agent: AgentId,
        interval: Duration,
    ) -> Self {
        TcpSinkAgent {
            node,
            flow,
            sender_node,
            sender_agent,
            tcp: TcpSink::new(config),
            delivered_bins: Bins::new(interval),
            delivered: 0,
        }
    }

    /// In-order bytes delivered.
    pub fn delivered_bytes(&self) -> u64 {
        self.tcp.delivered_bytes()
    }

    /// A data segment arrived.
    pub fn on_packet(&mut self, now: Instant, packet: &Packet, out: &mut Outbox) {
        if let Body::Tcp(seg) = &packet.body {
            self.tcp.on_segment(now, seg);
        }
        self.flush(now, out);
    }

    /// Delayed-ACK timer.
    pub fn on_timer(&mut self, now: Instant, out: &mut Outbox) {
        self.tcp.handle_timeout(now);
        self.flush(now, out);
    }

    /// Next deadline.
    pub fn next_timer(&self) -> Option<Instant> {
        self.tcp.poll_timeout()
    }

    fn flush(&mut self, now: Instant, out: &mut Outbox) {
        let d = self.tcp.delivered_bytes();
        if d > self.delivered {
            self.delivered_bins.add(now, (d - self.delivered) as f64);
            self.delivered = d;
        }
        while let Some(ack) = self.tcp.poll_ack(now) {
            out.packets.push(segment_packet(
                self.node,
                self.sender_node,
                self.sender_agent,
                self.flow,
                ack,
            ));
        }
    }
}
