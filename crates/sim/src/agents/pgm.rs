//! Convoy sessions in the simulator: the real convoy-proto [`Sender`] and [`Receiver`], fed simulated packets.

use super::{Handled, Outbox};
use crate::ids::{AgentId, FlowId, GroupId, NodeId};
use crate::observe::{Bins, CcSample, SeqMark, SeqTrace};
use crate::packet::{Body, Dest, Packet, PgmDatagram, UDP_IP_OVERHEAD};
use convoy_proto::cc::{CcEvent, ReceiverCcEvent};
use convoy_proto::sender::Shed;
use convoy_proto::{Destination, InOrder, Instant, Receiver, ReceiverEvent, Sender, SenderEvent};
use convoy_wire::{BodyRepr, Header, PacketType};
use std::collections::BTreeMap;
use std::net::IpAddr;
use std::rc::Rc;
use std::time::Duration;

/// Largest PGM packet the engine may emit here.
const BUF: usize = 65_536;

/// What a session's sender recorded.
#[derive(Clone, Debug, PartialEq)]
pub struct SenderRecord {
    /// ODATA payload bytes per interval.
    pub data_bins: Bins,
    /// RDATA payload bytes per interval.
    pub repair_bins: Bins,
    /// Acker switches: time and the receiver index (`None` = election requested).
    pub switches: Vec<(Instant, Option<usize>)>,
    /// Feedback timeouts.
    pub timeouts: u64,
    /// Window reductions on loss.
    pub loss_reductions: u64,
    /// NAK packets that reached the source, per receiver index (scenario order): with network elements that
    /// suppress NAKs, how many of each receiver's reports get through (pgmcc paper §3.7; Wang and Fahmy §III).
    pub naks_from: Vec<u64>,
    /// The controller's milestones in order: when, which ([`CcEvent::Milestone`]'s `what`) and its value.
    pub milestones: Vec<(Instant, &'static str, f64)>,
    /// Receivers shed for a rate below the session's minimum (`min_rate`): when, which (scenario order), and
    /// what the source said of it.
    pub sheds: Vec<(Instant, Option<usize>, Shed)>,
    /// Controller samples.
    pub samples: Vec<CcSample>,
    /// Time–sequence trace, when enabled.
    pub trace: Option<SeqTrace>,
}

/// What a session source is built from.
#[derive(Debug)]
pub struct PgmSenderSetup<'a> {
    /// Its node.
    pub node: NodeId,
    /// Its flow.
    pub flow: FlowId,
    /// The session's group.
    pub group: GroupId,
    /// The engine endpoint.
    pub sender: Sender,
    /// APDU size the application writes.
    pub apdu_size: usize,
    /// Total bytes to send (`None` = unlimited).
    pub total_bytes: Option<u64>,
    /// The receivers' addresses in scenario order (to name ackers).
    pub receivers: &'a [IpAddr],
    /// Throughput bin width.
    pub interval: Duration,
    /// Record the time–sequence trace.
    pub trace: bool,
}

/// The source of a session.
#[derive(Debug)]
pub struct PgmSenderAgent {
    /// Node.
    pub node: NodeId,
    /// Flow.
    pub flow: FlowId,
    /// Its group.
    pub group: GroupId,
    sender: Sender,
    apdu_size: usize,
    total_bytes: Option<u64>,
    written: u64,
    active: bool,
    receiver_index: BTreeMap<IpAddr, usize>,
    /// Recorded facts.
    pub record: SenderRecord,
    buf: Vec<u8>,
}

impl PgmSenderAgent {
    /// A session source.
    pub fn new(setup: PgmSenderSetup<'_>) -> Self {
        PgmSenderAgent {
            node: setup.node,
            flow: setup.flow,
            group: setup.group,
            sender: setup.sender,
            apdu_size: setup.apdu_size,
            total_bytes: setup.total_bytes,
            written: 0,
            active: false,
            receiver_index: setup
                .receivers
                .iter()
                .enumerate()
                .map(|(i, a)| (*a, i))
                .collect(),
            record: SenderRecord {
                data_bins: Bins::new(setup.interval),
                repair_bins: Bins::new(setup.interval),
                switches: Vec::new(),
                timeouts: 0,
                loss_reductions: 0,
                naks_from: vec![0; setup.receivers.len()],
                milestones: Vec::new(),
                sheds: Vec::new(),
                samples: Vec::new(),
                trace: setup.trace.then(SeqTrace::default),
            },
            buf: vec![0; BUF],
        }
    }

    /// The engine endpoint.
    pub fn sender(&self) -> &Sender {
        &self.sender
    }

    /// The application starts writing.
    pub fn start(&mut self, now: Instant, out: &mut Outbox) {
        self.active = true;
        self.flush(now, out);
    }

    /// The application stops writing (the session closes once its queue drains).
    pub fn stop(&mut self, now: Instant) {
        self.active = false;
        self.sender.close(now);
    }

    /// Record the controller's state.
    pub fn sample(&mut self, now: Instant) {
        let s = self.sender.cc_snapshot();
        let acker = s.acker.and_then(|a| self.receiver_index.get(&a).copied());
        self.record.samples.push(CcSample {
            t: now,
            window: s.window,
            tokens: s.tokens,
            rate: s.rate_bps,
            srtt: s.srtt_s,
            loss: s.acker_loss,
            acker,
        });
    }

    /// NAK packets from the receiver at `node` that reached the source (network elements forward a NAK as
    /// its receiver sent it, source address kept).
    pub fn naks_from(&self, node: NodeId) -> u64 {
        self.receiver_index
            .get(&self.address_of(node))
            .map_or(0, |&i| self.record.naks_from[i])
    }

    /// Feedback arrived.
    pub fn on_packet(&mut self, now: Instant, packet: &Packet, out: &mut Outbox) {
        let Body::Pgm(bytes) = &packet.body else {
            return;
        };
        let header = Header::new_unchecked(&bytes[..]);
        if matches!(header.packet_type(), Ok(PacketType::Nak)) {
            if let Some(&i) = self.receiver_index.get(&self.address_of(packet.src)) {
                self.record.naks_from[i] += 1;
            }
        }
        if let Some(trace) = &mut self.record.trace {
            match (header.packet_type(), header.leading_sqn()) {
                (Ok(PacketType::Ack), Some(rx_max)) => {
                    trace.marks.push((now, SeqMark::Ack(rx_max)))
                }
                (Ok(PacketType::Nak), Some(sqn)) => trace.marks.push((now, SeqMark::Nak(sqn))),
                _ => {}
            }
        }
        let from = self.address_of(packet.src);
        self.sender.handle_datagram(now, from, bytes);
        self.flush(now, out);
    }

    fn address_of(&self, node: NodeId) -> IpAddr {
        crate::topology::node_address(node)
    }

    /// A deadline passed.
    pub fn on_timer(&mut self, now: Instant, out: &mut Outbox) {
        self.sender.handle_timeout(now);
        self.flush(now, out);
    }

    /// When the engine wants a timeout.
    pub fn next_timer(&self) -> Option<Instant> {
        self.sender.poll_timeout()
    }

    fn flush(&mut self, now: Instant, out: &mut Outbox) {
        while self.active
            && self.total_bytes.is_none_or(|t| self.written < t)
            && self.sender.queue_space() >= self.apdu_size
        {
            let n = match self.total_bytes {
                Some(t) => (t - self.written).min(self.apdu_size as u64) as usize,
                None => self.apdu_size,
            };
            if self.sender.write(&self.buf[..n]).is_err() {
                break;
            }
            self.written += n as u64;
            if self.total_bytes.is_some_and(|t| self.written >= t) {
                self.active = false;
                self.sender.close(now);
            }
        }
        let mut buf = std::mem::take(&mut self.buf);
        while let Some(t) = self.sender.poll_transmit(now, &mut buf) {
            let bytes = Rc::new(PgmDatagram::new(&buf[..t.len]));
            let header = Header::new_unchecked(&bytes[..]);
            let payload = header.tsdu_length();
            let sqn = header.leading_sqn().unwrap_or(0);
            match t.packet_type {
                PacketType::Odata => {
                    self.record.data_bins.add(now, f64::from(payload));
                    if let Some(tr) = &mut self.record.trace {
                        tr.marks.push((now, SeqMark::Data(sqn)));
                    }
                }
                PacketType::Rdata => {
                    self.record.repair_bins.add(now, f64::from(payload));
                    if let Some(tr) = &mut self.record.trace {
                        tr.marks.push((now, SeqMark::Repair(sqn)));
                    }
                }
                _ => {}
            }
            let dst = match t.destination {
                Destination::Group => Dest::Group(self.group),
                Destination::Unicast(ip) => match crate::topology::address_node(ip) {
                    Some(n) => Dest::Node(n),
                    None => continue,
                },
            };
            out.packets.push(Packet {
                size: t.len as u32 + UDP_IP_OVERHEAD,
                src: self.node,
                dst,
                flow: self.flow,
                to_agent: None,
                body: Body::Pgm(bytes),
            });
        }
        self.buf = buf;
        while let Some(e) = self.sender.poll_event() {
            match e {
                SenderEvent::Cc(CcEvent::AckerChanged { to, .. }) => {
                    let idx = to.and_then(|a| self.receiver_index.get(&a).copied());
                    self.record.switches.push((now, idx));
                    if let Some(tr) = &mut self.record.trace {
                        tr.marks
                            .push((now, SeqMark::Switch(idx.map_or(u32::MAX, |i| i as u32))));
                    }
                }
                SenderEvent::Cc(CcEvent::Timeout { .. }) => self.record.timeouts += 1,
                SenderEvent::Cc(CcEvent::Milestone { what, value }) => {
                    self.record.milestones.push((now, what, value))
                }
                SenderEvent::Cc(CcEvent::Reduced {
                    cause: convoy_proto::cc::ReductionCause::Loss,
                    ..
                }) => self.record.loss_reductions += 1,
                SenderEvent::Shed(shed) => {
                    let idx = self.receiver_index.get(&shed.receiver).copied();
                    self.record.sheds.push((now, idx, shed));
                }
                _ => {}
            }
        }
    }
}

/// What a receiver recorded. What every packet updates comes first (`repr(C)`).
#[derive(Clone, Debug, PartialEq)]
#[repr(C)]
pub struct ReceiverRecord {
    /// Distinct ODATA packets received.
    pub odata_received: u64,
    /// APDU bytes delivered in total.
    pub delivered_bytes: u64,
    /// First and last ODATA sequence numbers seen.
    pub odata_span: Option<(u32, u32)>,
    /// ODATA sequence numbers in arrival order, when recording is on (boxed: usually off).
    pub arrivals: Option<Box<Vec<u32>>>,
    /// When it was told to leave: by its controller (TFMCC's 120 s rule, RFC 4654 §4.4) or by the source, which
    /// shed it (`min_rate`, 0x3E OPT_CONVOY_LEAVE); it then leaves at once.
    pub told_to_leave: Option<Instant>,
    /// APDU bytes delivered per interval.
    pub delivered_bins: Bins,
    /// Sequence numbers declared unrecoverable.
    pub lost_sqns: u64,
    /// When its controller took its first RTT sample (TFMCC receivers).
    pub rtt_measured: Option<Instant>,
    /// NAK packets it sent (repair requests and pgmcc's election NAKs alike).
    pub naks_sent: u64,
    /// When it joined and left.
    pub joined: Option<Instant>,
    /// When it left.
    pub left: Option<Instant>,
}

impl ReceiverRecord {
    /// An APDU of `len` bytes delivered at `now`.
    fn delivered(&mut self, now: Instant, len: usize) {
        self.delivered_bytes += len as u64;
        self.delivered_bins.add(now, len as f64);
    }
}

/// A session receiver.
// What every packet reads comes first, in declaration order (`repr(C)`), the engine endpoint last (its own hot
// fields lead it): a star of 10,000 receivers does not fit in a core's cache, and each line touched is a miss.
#[derive(Debug)]
#[repr(C)]
pub struct PgmReceiverAgent {
    active: bool,
    /// Its controller's leave request has been scheduled as a stop.
    leave_scheduled: bool,
    /// Node.
    pub node: NodeId,
    /// Flow.
    pub flow: FlowId,
    /// The session's group.
    pub group: GroupId,
    sender_node: NodeId,
    sender_agent: AgentId,
    /// Recorded facts.
    pub record: ReceiverRecord,
    /// Scenario name.
    pub name: Box<str>,
    receiver: Receiver,
}

impl PgmReceiverAgent {
    /// Whether its controller told it to leave and its leave is not scheduled yet (then it is, by the caller).
    pub fn take_leave_request(&mut self) -> bool {
        let due = self.active && self.record.told_to_leave.is_some() && !self.leave_scheduled;
        self.leave_scheduled |= due;
        due
    }

    /// A receiver at `node` of the session (flow `flow`, group `group`) whose source is agent `source.1` at
    /// node `source.0`.
    pub fn new(
        node: NodeId,
        flow: FlowId,
        group: GroupId,
        name: &str,
        receiver: Receiver,
        source: (NodeId, AgentId),
        interval: Duration,
    ) -> Self {
        let (sender_node, sender_agent) = source;
        PgmReceiverAgent {
            node,
            flow,
            group,
            name: name.into(),
            receiver,
            sender_node,
            sender_agent,
            active: false,
            leave_scheduled: false,
            record: ReceiverRecord {
                delivered_bins: Bins::new(interval),
                delivered_bytes: 0,
                odata_received: 0,
                odata_span: None,
                lost_sqns: 0,
                arrivals: None,
                rtt_measured: None,
                naks_sent: 0,
                joined: None,
                left: None,
                told_to_leave: None,
            },
        }
    }

    /// The engine endpoint.
    pub fn receiver(&self) -> &Receiver {
        &self.receiver
    }

    /// Whether the receiver is in the session now.
    pub fn is_active(&self) -> bool {
        self.active
    }

    /// Join.
    pub fn start(&mut self, now: Instant) {
        self.active = true;
        self.record.joined = Some(now);
    }

    /// Leave (an acker says so, draft §2.3.2).
    pub fn stop(&mut self, now: Instant, out: &mut Outbox) {
        self.receiver.close(now);
        self.flush(now, out);
        self.active = false;
        self.record.left = Some(now);
    }

    /// Data or control from the source. [`Handled::Settled`] when the receiver took the packet in order and it
    /// left nothing to poll ([`InOrder::DeliveredQuietly`]).
    pub fn on_packet(&mut self, now: Instant, packet: &Packet, out: &mut Outbox) -> Handled {
        if !self.active {
            return Handled::FollowUp;
        }
        let Body::Pgm(datagram) = &packet.body else {
            return Handled::FollowUp;
        };
        // A keyed receiver opens the bytes itself; the others share the fan-out's one parse.
        let parsed = if !self.receiver.is_keyed() {
            datagram.parsed()
        } else {
            None
        };
        // Original data only: pro-active parity (ODATA with OPT_PARITY, RFC 3208 §11.3) is not a data packet.
        let odata_sqn = match parsed {
            Some(p) => match p.header.body {
                BodyRepr::Odata { sqn, .. } if !p.header.options.parity.parity => Some(sqn),
                _ => None,
            },
            None => {
                let header = Header::new_unchecked(&datagram[..]);
                let parity = header.options_flags() & convoy_wire::flags::OPT_PARITY != 0;
                match (header.packet_type(), header.leading_sqn()) {
                    (Ok(PacketType::Odata), sqn) if !parity => sqn,
                    _ => None,
                }
            }
        };
        if let Some(sqn) = odata_sqn {
            self.record.odata_received += 1;
            if let Some(log) = &mut self.record.arrivals {
                log.push(sqn);
            }
            self.record.odata_span = Some(match self.record.odata_span {
                None => (sqn, sqn),
                Some((a, b)) => (a, convoy_proto::seq::max(b, sqn)),
            });
        }
        match parsed {
            Some(p) => match self.receiver.take_in_order(now, p, &datagram[..]) {
                InOrder::DeliveredQuietly => {
                    self.record.delivered(now, datagram.len() - p.payload_at);
                    return Handled::Settled;
                }
                InOrder::Delivered => self.record.delivered(now, datagram.len() - p.payload_at),
                InOrder::NotTaken => {
                    let from = crate::topology::node_address(packet.src);
                    self.receiver.handle_parsed(now, from, p, datagram.shared());
                }
            },
            None => {
                let from = crate::topology::node_address(packet.src);
                self.receiver.handle_datagram(now, from, datagram);
            }
        }
        self.flush(now, out);
        Handled::FollowUp
    }

    /// A deadline passed.
    pub fn on_timer(&mut self, now: Instant, out: &mut Outbox) {
        if self.active {
            self.receiver.handle_timeout(now);
            self.flush(now, out);
        }
    }

    /// When the engine wants a timeout.
    pub fn next_timer(&self) -> Option<Instant> {
        if self.active {
            self.receiver.poll_timeout()
        } else {
            None
        }
    }

    /// Fraction of ODATA packets in the receiver's span that never arrived as ODATA.
    pub fn loss_rate(&self) -> f64 {
        match self.record.odata_span {
            Some((a, b)) => {
                let span = f64::from(b.wrapping_sub(a)) + 1.0;
                (1.0 - self.record.odata_received as f64 / span).max(0.0)
            }
            None => 0.0,
        }
    }

    fn flush(&mut self, now: Instant, out: &mut Outbox) {
        let (packets, buf) = out.packets_and_scratch(BUF);
        while let Some(t) = self.receiver.poll_transmit(now, buf) {
            // Upstream packets go to the source (the only unicast destination a receiver has).
            let _ = t.destination;
            if t.packet_type == PacketType::Nak {
                self.record.naks_sent += 1;
            }
            packets.push(Packet {
                size: t.len as u32 + UDP_IP_OVERHEAD,
                src: self.node,
                dst: Dest::Node(self.sender_node),
                flow: self.flow,
                to_agent: Some(self.sender_agent),
                body: Body::Pgm(Rc::new(PgmDatagram::new(&buf[..t.len]))),
            });
        }
        while let Some(e) = self.receiver.poll_event() {
            match e {
                ReceiverEvent::Data(d) => self.record.delivered(now, d.len()),
                ReceiverEvent::Lost {
                    first_sqn,
                    last_sqn,
                } => {
                    self.record.lost_sqns += u64::from(last_sqn.wrapping_sub(first_sqn)) + 1;
                }
                ReceiverEvent::Cc(ReceiverCcEvent::RttMeasured) => {
                    self.record.rtt_measured.get_or_insert(now);
                }
                // The receiver leaves when its controller requires it, or when the source sheds it.
                ReceiverEvent::Cc(ReceiverCcEvent::MustLeave) | ReceiverEvent::Shed(_) => {
                    self.record.told_to_leave.get_or_insert(now);
                }
                _ => {}
            }
        }
    }
}
