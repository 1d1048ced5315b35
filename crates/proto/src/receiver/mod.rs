//! The PGM receiver: session identity, receive window, NAKs with receiver reports, and the receiver half of
//! the congestion controller.
//!
//! Call order as for [`crate::Sender`]: inputs ([`Receiver::handle_datagram`] or, for a driver sharing parsed
//! datagrams among receivers, [`Receiver::handle_parsed`]; [`Receiver::handle_timeout`], [`Receiver::close`]),
//! then drain [`Receiver::poll_transmit`], read [`Receiver::poll_timeout`], drain [`Receiver::poll_event`].
//! A driver sharing parsed datagrams may offer ODATA to [`Receiver::take_in_order`] first: in the common
//! case it delivers the packet at once (module `in_order`), else the driver goes on with `handle_parsed`.

use crate::auth::{AuthConfig, AuthError, Incoming, PacketOpener, PacketSealer};
use crate::cc::{
    CcConfig, FeedbackPacket, ReceiverCcEvent, ReceiverCcSnapshot, ReceiverController, UpstreamPath,
};
use crate::payload::Payload;
use crate::rxw::{Arrival, Delivery, Fragment, ReceiveWindow, Room, RxwConfig, RxwStats};
use crate::time::Instant;
use crate::transmit::{Destination, Transmit};
use convoy_wire::{
    BlockRange, BodyRepr, DetachedRepr, Gsi, LeaveOption, OptionsRepr, PacketRepr, PacketType,
    ParseError, ReceiverStatus, Tsi,
};
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use std::collections::VecDeque;
use std::net::IpAddr;
use std::sync::Arc;

mod in_order;
mod parity_groups;
mod parity_repair;
mod stats;
pub use in_order::InOrder;
pub use parity_groups::{ParityArrival, ParityGroups, ParityStats, Restored};
use parity_repair::NakOut;
pub use stats::ReceiverStats;
#[cfg(test)]
mod in_order_tests;

/// Where a receiver starts in a session it finds already running (RFC 3208 §9.4 OPT_JOIN, "late join").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LateJoin {
    /// Deliver from the first data the receiver sees (or the lead announced by the first SPM).
    CurrentData,
    /// Ask for everything the source can still repair, from TXW_TRAIL on (NAKs paced, paper §3.8).
    FromTrail,
}

/// Receiver configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct ReceiverConfig {
    /// This receiver's unicast address: its identity in reports and acker election.
    pub local_nla: IpAddr,
    /// The multicast group.
    pub group: IpAddr,
    /// Data-destination port of the sessions to accept.
    pub dest_port: u16,
    /// Accept only this session; `None` accepts the first session heard on `dest_port`.
    pub source: Option<Tsi>,
    /// Sessions never to join: a long-running receiver's finished ones, whose source may still be lingering
    /// when the receiver waits for the next.
    pub refused_sessions: Vec<Tsi>,
    /// Late-join policy.
    pub late_join: LateJoin,
    /// Receive window and NAK timing.
    pub rxw: RxwConfig,
    /// Congestion control: it must match the source's, unless [`ReceiverConfig::follow_source`] lets the
    /// receiver adopt the source's scheme.
    pub cc: CcConfig,
    /// Run the source's congestion control whatever `cc` says. Sender and receivers must run matching halves
    /// (a pgmcc source waits for ACKs that a fixed-rate receiver never sends, and would crawl at one packet per
    /// feedback timeout), and each scheme recognises its source from the options on original data
    /// ([`crate::cc::Scheme::recognises`]; pgmcc sources put OPT_PGMCC_DATA on every ODATA, draft §2.1.1). So
    /// at the first ODATA that is not parity the receiver swaps its controller half for the scheme that data
    /// names ([`CcConfig::following`]: `cc` itself when it matches, else that scheme's defaults), adapted as
    /// [`ReceiverConfig::batched_reads`] says; nothing before that packet reached the controller, so nothing
    /// is replayed. Off by default: a simulation configures both halves from one scenario.
    pub follow_source: bool,
    /// The driver reads several datagrams per system call (the real network): every controller half this
    /// receiver builds, the configured one or a followed one, is adapted ([`crate::cc::Scheme::for_batched_reads`]:
    /// a pgmcc receiver acknowledges a batch read at once with one ACK).
    pub batched_reads: bool,
    /// Verify the PGM checksum of every packet (RFC 3208 §8). A driver whose packets cannot be corrupted on
    /// the way — the simulator, which hands every receiver the very bytes the source emitted and checksummed —
    /// may turn this off to save a pass over each payload.
    pub verify_checksums: bool,
    /// A keyed session: seal every packet sent, refuse every packet received that does not open
    /// ([`crate::auth`]). `None`: unauthenticated, refusing keyed packets.
    pub auth: Option<AuthConfig>,
}

impl ReceiverConfig {
    /// Defaults for the given addresses.
    pub fn new(local_nla: IpAddr, group: IpAddr) -> Self {
        ReceiverConfig {
            local_nla,
            group,
            dest_port: 7500,
            source: None,
            refused_sessions: Vec::new(),
            late_join: LateJoin::CurrentData,
            rxw: RxwConfig::default(),
            cc: CcConfig::default(),
            follow_source: false,
            batched_reads: false,
            verify_checksums: true,
            auth: None,
        }
    }
}

/// Something the application should know.
#[derive(Clone, Debug, PartialEq)]
pub enum ReceiverEvent {
    /// The receiver joined a session and will deliver from `start_sqn` on.
    Started {
        /// The session.
        tsi: Tsi,
        /// First sequence number delivered.
        start_sqn: u32,
    },
    /// One APDU, in order.
    Data(Payload),
    /// Sequence numbers that can no longer be repaired; APDUs touching them are not delivered.
    Lost {
        /// First lost sequence number.
        first_sqn: u32,
        /// Last lost sequence number.
        last_sqn: u32,
    },
    /// From the congestion controller (acker role changes).
    Cc(ReceiverCcEvent),
    /// The source closed the session (OPT_FIN) and everything up to its last packet was delivered or lost.
    Finished,
    /// A datagram was not a valid PGM packet.
    Malformed {
        /// Where it came from.
        from: IpAddr,
        /// What was wrong.
        error: ParseError,
    },
    /// A packet was refused by the session's authentication before it touched any state ([`crate::auth`]).
    Refused {
        /// Where it came from (as the datagram says: not authenticated).
        from: IpAddr,
        /// Why.
        reason: AuthError,
    },
    /// The source shed this receiver: its rate stayed below the session's minimum (0x3E OPT_CONVOY_LEAVE naming
    /// this receiver, [`crate::sender::Shedding`]). From now on it sends neither feedback nor NAKs, only the
    /// application's status reports; the application should close it.
    Shed(LeaveOption),
}

/// Where a data packet's payload is: in the bytes being handled (copied if stored), or in a shared datagram
/// from an offset on (stored by reference).
#[derive(Clone, Copy)]
enum PayloadSource<'a> {
    Borrowed(&'a [u8]),
    Shared(&'a Arc<[u8]>, usize),
}

/// Most session and controller events kept for the application (the oldest go first); deliveries are not
/// among them and are never dropped.
const MAX_EVENTS: usize = 1 << 16;

/// A PGM receiver with congestion control.
// The fields every packet reads come first, in declaration order (`repr(C)`): three cache lines, the counters
// every packet updates (the first of `stats`) in the third; then the receive window (whose own hot fields lead
// it), then what only setup, losses and keyed sessions touch. A simulator with 10,000 receivers in one process
// has far more receivers than a core's cache, and each line touched is a miss.
#[repr(C, align(64))]
pub struct Receiver {
    cc: Box<dyn ReceiverController>,
    events: VecDeque<ReceiverEvent>,
    tsi: Option<Tsi>,
    /// Where upstream packets go: the path NLA of the last SPM, else the data's source address; and the group
    /// (what a NAK names, RFC 3208 §8.3).
    upstream: Option<UpstreamPath>,
    /// `config.dest_port`, kept with the fields every packet reads.
    dest_port: u16,
    finished: bool,
    /// The controller half may still be swapped for the source's ([`ReceiverConfig::follow_source`]).
    follow_pending: bool,
    /// The source asked this receiver to leave ([`ReceiverEvent::Shed`]).
    shed: Option<LeaveOption>,
    fin_lead: Option<u32>,
    /// Opens what is received in a keyed session.
    opener: Option<Box<PacketOpener>>,
    status_out: Option<(ReceiverStatus, Vec<BlockRange>)>,
    stats: ReceiverStats,
    /// The receive window, once the session is joined (`tsi` set); before, an empty window nothing reads.
    // Not an `Option`: the compiler put an `Option`'s discriminant in the window's cold pacer, a cache line
    // every packet then read.
    rxw: ReceiveWindow,
    /// Seals what is sent in a keyed session.
    sealer: Option<Box<PacketSealer>>,
    config: ReceiverConfig,
    rng: ChaCha8Rng,
    /// The source's parity, once an SPM announced it (RFC 3208 §11.5, module `parity_groups`).
    parity: Option<Box<ParityGroups>>,
    /// NAKs built from the window's due sequence numbers, waiting to go one per poll.
    naks: VecDeque<NakOut>,
    /// SPM_LEAD of the latest SPM, and when an SPM first said it: how long the source has had no data beyond
    /// it (RFC 3208 §11.5's "absence of data", module `parity_repair`).
    spm_lead: Option<(u32, Instant)>,
}

impl std::fmt::Debug for Receiver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Receiver")
            .field("local", &self.config.local_nla)
            .field("tsi", &self.tsi)
            .field("stats", &self.stats)
            .finish()
    }
}

impl Receiver {
    /// A receiver whose random draws (NAK back-off) come from ChaCha8 seeded with `seed`.
    pub fn new(mut config: ReceiverConfig, seed: u64) -> Self {
        if config.batched_reads {
            config.cc.for_batched_reads();
        }
        let cc = config.cc.build_receiver(config.local_nla);
        Receiver {
            follow_pending: config.follow_source,
            shed: None,
            rng: ChaCha8Rng::seed_from_u64(seed),
            cc,
            tsi: None,
            upstream: None,
            rxw: ReceiveWindow::new(config.rxw.clone(), 0),
            fin_lead: None,
            finished: false,
            status_out: None,
            events: VecDeque::new(),
            stats: ReceiverStats::default(),
            sealer: config.auth.as_ref().map(|a| Box::new(PacketSealer::new(a))),
            opener: config.auth.as_ref().map(|a| Box::new(PacketOpener::new(a))),
            dest_port: config.dest_port,
            config,
            parity: None,
            naks: VecDeque::new(),
            spm_lead: None,
        }
    }

    /// The parity counters, once the source announced parity.
    pub fn parity_stats(&self) -> Option<&ParityStats> {
        self.parity.as_ref().map(|p| p.stats())
    }

    /// The configuration.
    pub fn config(&self) -> &ReceiverConfig {
        &self.config
    }

    /// Whether the session is keyed ([`ReceiverConfig::auth`]): its packets must be opened from their bytes
    /// ([`Receiver::handle_datagram`]), so a driver cannot share one parse among receivers.
    pub fn is_keyed(&self) -> bool {
        self.opener.is_some()
    }

    /// Counters.
    pub fn stats(&self) -> &ReceiverStats {
        &self.stats
    }

    /// The receive window's counters, once the session started.
    pub fn rxw_stats(&self) -> Option<&RxwStats> {
        self.tsi.map(|_| self.rxw.stats())
    }

    /// The name of the congestion controller running (`pgmcc`, `fixed`, ...); with
    /// [`ReceiverConfig::follow_source`] it may change once, at the source's first ODATA.
    pub fn cc_name(&self) -> &'static str {
        self.config.cc.name()
    }

    /// Swap the controller half for the scheme `odata` (the options of the source's first ODATA that is not
    /// parity) names, when it is not the one running ([`ReceiverConfig::follow_source`]).
    fn follow_source(&mut self, odata: &OptionsRepr) {
        self.follow_pending = false;
        let mut cc = self.config.cc.following(odata);
        if cc == self.config.cc {
            return;
        }
        if self.config.batched_reads {
            cc.for_batched_reads();
        }
        self.cc = cc.build_receiver(self.config.local_nla);
        self.config.cc = cc;
    }

    /// The congestion controller's state.
    pub fn cc_snapshot(&self) -> ReceiverCcSnapshot {
        self.cc.snapshot()
    }

    /// The session this receiver follows.
    pub fn tsi(&self) -> Option<Tsi> {
        self.tsi
    }

    /// This receiver's identity.
    pub fn local_nla(&self) -> IpAddr {
        self.config.local_nla
    }

    /// Send an application status report to the source (0x33 OPT_CONVOY_RECEIVER_STATUS on a unicast SPMR),
    /// as soon as the source's address is known. Only the latest unsent report is kept. Reports are not
    /// acknowledged: an application that needs one to arrive repeats it.
    pub fn send_status(&mut self, status: ReceiverStatus) {
        self.send_status_with_needs(status, Vec::new());
    }

    /// [`Receiver::send_status`] with 0x3B OPT_CONVOY_NEEDS beside it: the blocks this receiver lacks (at most
    /// [`convoy_wire::MAX_NEEDS`] ranges; an empty list sends no option).
    pub fn send_status_with_needs(&mut self, status: ReceiverStatus, needs: Vec<BlockRange>) {
        self.status_out = Some((status, needs));
    }

    /// Whether a status report is waiting for the source's address.
    pub fn status_pending(&self) -> bool {
        self.status_out.is_some()
    }

    /// Leave the session (an acker says so, draft §2.3.2).
    pub fn close(&mut self, now: Instant) {
        self.cc.close(now);
    }

    fn push_event(&mut self, e: ReceiverEvent) {
        if self.events.len() >= MAX_EVENTS {
            self.events.pop_front();
        }
        self.events.push_back(e);
    }

    /// Accept `tsi` if it is ours or the first heard; start the window at `start_sqn`.
    fn join(&mut self, tsi: Tsi, start_sqn: u32) -> bool {
        match self.tsi {
            Some(t) => t == tsi,
            None => {
                if self.config.source.is_some_and(|s| s != tsi)
                    || self.config.refused_sessions.contains(&tsi)
                {
                    return false;
                }
                self.tsi = Some(tsi);
                self.rxw = ReceiveWindow::new(self.config.rxw.clone(), start_sqn);
                self.push_event(ReceiverEvent::Started { tsi, start_sqn });
                true
            }
        }
    }

    /// A datagram arrived from `from`. In a keyed session it is opened first ([`crate::auth`]), in a copy.
    pub fn handle_datagram(&mut self, now: Instant, from: IpAddr, bytes: &[u8]) {
        self.receive(now, from, Incoming::Shared(bytes));
    }

    /// [`Receiver::handle_datagram`] on bytes the driver lets the engine change: a keyed session opens
    /// (decrypts) the packet where it lies, with no copy. The bytes' content afterwards is unspecified.
    pub fn handle_datagram_in_place(&mut self, now: Instant, from: IpAddr, bytes: &mut [u8]) {
        self.receive(now, from, Incoming::Writable(bytes));
    }

    fn receive(&mut self, now: Instant, from: IpAddr, bytes: Incoming<'_>) {
        crate::auth::open_then(
            self,
            |r| &mut r.opener,
            bytes,
            |r, packet, opened| r.handle_packet(now, from, packet, opened),
            |r, reason| r.refuse(from, reason),
        );
    }

    /// A packet its driver parsed already ([`DetachedRepr::parse_without_checksum`]) from `datagram`, the
    /// bytes it came in, which the driver shares: handled exactly as [`Receiver::handle_datagram`] handles
    /// those bytes when [`ReceiverConfig::verify_checksums`] is off, except that a data packet's payload is
    /// kept by reference ([`Payload::shared`]) rather than copied. A driver that hands one packet to many
    /// receivers — the simulator's multicast fan-out — parses it once and stores it once, instead of once per
    /// receiver.
    ///
    /// A keyed receiver must check the tag over the bytes: it refuses a parsed packet
    /// ([`AuthError::Unauthenticated`]), so its driver calls [`Receiver::handle_datagram`].
    pub fn handle_parsed(
        &mut self,
        now: Instant,
        from: IpAddr,
        parsed: &DetachedRepr,
        datagram: &Arc<[u8]>,
    ) {
        if self.opener.is_some() {
            return self.refuse(from, AuthError::Unauthenticated);
        }
        let payload = PayloadSource::Shared(datagram, parsed.payload_at);
        self.handle_repr(now, from, &parsed.header, payload, false);
    }

    fn refuse(&mut self, from: IpAddr, reason: AuthError) {
        self.stats.refused += 1;
        self.push_event(ReceiverEvent::Refused { from, reason });
    }

    /// A datagram, opened if the session is keyed (its checksum then zero, vouched for by the tag).
    fn handle_packet(&mut self, now: Instant, from: IpAddr, bytes: &[u8], opened: bool) {
        let parsed = if self.config.verify_checksums && !opened {
            PacketRepr::parse(bytes)
        } else {
            PacketRepr::parse_without_checksum(bytes)
        };
        match parsed {
            Ok(packet) => {
                let payload = PayloadSource::Borrowed(packet.payload);
                self.handle_repr(now, from, &packet, payload, opened)
            }
            Err(error) => {
                self.stats.malformed += 1;
                self.push_event(ReceiverEvent::Malformed { from, error });
            }
        }
    }

    /// A parsed packet with its payload (given apart: a [`DetachedRepr`]'s header has none), opened if the
    /// session is keyed.
    fn handle_repr(
        &mut self,
        now: Instant,
        from: IpAddr,
        packet: &PacketRepr<'_>,
        payload: PayloadSource<'_>,
        opened: bool,
    ) {
        if !opened && packet.options.auth.is_some() {
            return self.refuse(from, AuthError::Keyed);
        }
        if packet.dest_port != self.dest_port {
            self.stats.ignored += 1;
            return;
        }
        let tsi = Tsi {
            gsi: packet.gsi,
            source_port: packet.source_port,
        };
        if let Some(leave) = packet.options.leave {
            self.on_leave(tsi, leave);
        }
        match packet.body {
            BodyRepr::Spm {
                trail,
                lead,
                path_nla,
                ..
            } => {
                let start = match self.config.late_join {
                    LateJoin::CurrentData => lead.wrapping_add(1),
                    LateJoin::FromTrail => trail,
                };
                if !self.join(tsi, start) {
                    self.stats.ignored += 1;
                    return;
                }
                self.stats.spms += 1;
                self.upstream = Some(UpstreamPath {
                    source_nla: path_nla,
                    group_nla: self.config.group,
                });
                if packet.options.fin {
                    self.fin_lead = Some(lead);
                }
                self.rxw.on_spm(now, &mut self.rng, trail, lead);
                if self.spm_lead.is_none_or(|(l, _)| l != lead) {
                    self.spm_lead = Some((lead, now));
                }
                self.parity_on_spm(&packet.options.parity, lead);
            }
            BodyRepr::Odata { sqn, trail } | BodyRepr::Rdata { sqn, trail } => {
                let is_odata = matches!(packet.body, BodyRepr::Odata { .. });
                // Data of the session already joined (nearly every packet) needs no start point.
                if self.tsi != Some(tsi) {
                    let start = match self.config.late_join {
                        LateJoin::CurrentData => {
                            packet.options.fragment.map_or(sqn, |f| f.first_sqn)
                        }
                        LateJoin::FromTrail => trail,
                    };
                    if !self.join(tsi, start) {
                        self.stats.ignored += 1;
                        return;
                    }
                }
                if self.upstream.is_none() {
                    self.upstream = Some(UpstreamPath {
                        source_nla: from,
                        group_nla: self.config.group,
                    });
                }
                if packet.options.parity.parity {
                    return self.on_parity_data(now, packet, payload);
                }
                if self.follow_pending && is_odata {
                    self.follow_source(&packet.options);
                }
                let fragment = packet.options.fragment.map(Fragment::from);
                let len = crate::cc::packet_size(match payload {
                    PayloadSource::Borrowed(p) => p.len(),
                    PayloadSource::Shared(datagram, at) => datagram.len() - at,
                });
                // A packet the window has little or no room for counts as lost for the controller (rxw module
                // `budget`): this receiver then slows the session instead of buffering without limit.
                if is_odata {
                    self.stats.odata += 1;
                    let room = self.rxw.room_for(sqn, fragment);
                    if room == Room::Plenty {
                        self.cc
                            .on_odata(now, &mut self.rng, sqn, len, &packet.options);
                    } else {
                        self.stats.congested += 1;
                        self.cc
                            .on_odata_congested(now, &mut self.rng, sqn, len, &packet.options);
                    }
                } else {
                    self.stats.rdata += 1;
                    self.cc.on_rdata(now, len);
                }
                let (w, rng) = (&mut self.rxw, &mut self.rng);
                let stored = match payload {
                    PayloadSource::Borrowed(p) => w.on_data(now, rng, sqn, trail, fragment, p),
                    PayloadSource::Shared(datagram, at) => {
                        let p = Payload::shared(Arc::clone(datagram), at..datagram.len());
                        w.on_shared_data(now, rng, sqn, trail, fragment, p)
                    }
                };
                match stored {
                    Err(_) => self.stats.rejected += 1,
                    Ok(Arrival::New | Arrival::Repaired) if self.parity.is_some() => {
                        let (f, n) = (packet.options.fragment, packet.options.parity.curr_tg_size);
                        self.parity_keep(now, sqn, payload, f, n);
                    }
                    Ok(_) => {}
                }
            }
            BodyRepr::Ncf { sqn, .. } => {
                if self.tsi != Some(tsi) {
                    self.stats.ignored += 1;
                    return;
                }
                self.stats.ncfs += 1;
                if packet.options.parity.parity {
                    self.parity_on_ncf(now, sqn);
                    self.drain(now);
                    return;
                }
                let mut sqns = vec![sqn];
                sqns.extend_from_slice(&packet.options.nak_list);
                self.rxw.on_ncf(now, &sqns);
            }
            _ => self.stats.ignored += 1,
        }
        self.drain(now);
    }

    /// A deadline from [`Receiver::poll_timeout`] passed.
    pub fn handle_timeout(&mut self, now: Instant) {
        if self.tsi.is_some() {
            self.rxw.handle_timeout(now, &mut self.rng);
        }
        self.cc.on_timeout(now);
        self.drain(now);
    }

    /// An OPT_CONVOY_LEAVE from the joined session that names this receiver sheds it, once.
    fn on_leave(&mut self, tsi: Tsi, leave: LeaveOption) {
        if self.shed.is_none() && leave.receiver == self.config.local_nla && self.tsi == Some(tsi) {
            self.shed = Some(leave);
            self.push_event(ReceiverEvent::Shed(leave));
        }
    }

    /// Move controller events into the event queue. Deliveries stay in the receive window, whose memory is
    /// bounded ([`RxwConfig::max_buffered_bytes`]), until [`Receiver::poll_event`] takes them.
    fn drain(&mut self, _now: Instant) {
        while let Some(e) = self.cc.poll_event() {
            self.push_event(ReceiverEvent::Cc(e));
        }
    }

    /// Write `repr` into `buf`; a keyed packet's checksum is filled when it is sealed (`poll_transmit`).
    fn emit(&self, repr: &PacketRepr<'_>, buf: &mut [u8]) -> Option<usize> {
        match self.sealer {
            Some(_) => repr.emit_for_sealing(buf),
            None => repr.emit(buf),
        }
        .ok()
    }

    /// An upstream packet to the source of `tsi`, with room for OPT_CONVOY_AUTH in a keyed session (sealed by
    /// [`Receiver::poll_transmit`]).
    fn upstream_packet<'a>(
        &self,
        tsi: Tsi,
        body: BodyRepr,
        mut options: OptionsRepr,
    ) -> PacketRepr<'a> {
        if self.sealer.is_some() {
            PacketSealer::reserve(&mut options);
        }
        // Upstream orientation (RFC 3208 §8): source port = data-destination port, destination port = the
        // data-source port, GSI = the source's.
        PacketRepr {
            source_port: self.dest_port,
            dest_port: tsi.source_port,
            gsi: tsi.gsi,
            body,
            options,
            payload: &[],
        }
    }

    /// Write the next packet due now into `buf` (sealed in a keyed session, where it needs
    /// [`crate::auth::AUTH_OVERHEAD`] bytes more than the packet).
    pub fn poll_transmit(&mut self, now: Instant, buf: &mut [u8]) -> Option<Transmit> {
        let t = self.next_transmit(now, buf)?;
        if let Some(s) = &mut self.sealer {
            // Every packet was built with room for the option (`upstream_packet`).
            let sealed = s.seal(buf.get_mut(..t.len)?);
            debug_assert!(
                sealed.is_ok(),
                "a keyed packet built without room for its tag"
            );
            sealed.ok()?;
        }
        Some(t)
    }

    /// Which of the three kinds of upstream packet is due, in order: the controller's feedback, a pending
    /// status report, a repair NAK. Most calls find none (every packet's driver asks), so this part is small and
    /// the packets are built out of line.
    fn next_transmit(&mut self, now: Instant, buf: &mut [u8]) -> Option<Transmit> {
        let path = self.upstream.as_ref()?;
        if self.shed.is_some() {
            // Shed: the source ignores its feedback and NAKs, so none goes, but the timers that would send them
            // are spent all the same (or they would stay due). Only the application's last report goes.
            while self.cc.poll_feedback(now, path).is_some() {}
            while self.rxw.poll_nak(now).is_some() {}
            self.naks.clear();
            return self.status_out.is_some().then(|| self.emit_status(buf))?;
        }
        if let Some(fb) = self.cc.poll_feedback(now, path) {
            return self.emit_feedback(fb, buf);
        }
        if self.status_out.is_some() {
            return self.emit_status(buf);
        }
        while self.naks.is_empty() {
            let sqns = self.rxw.poll_nak(now)?;
            self.queue_naks(now, sqns);
        }
        let nak = self.naks.pop_front()?;
        self.emit_nak(now, nak, buf)
    }

    /// The controller's feedback packet (pgmcc: an ACK or an election NAK).
    #[inline(never)]
    fn emit_feedback(&mut self, fb: FeedbackPacket, buf: &mut [u8]) -> Option<Transmit> {
        let (tsi, path) = (self.tsi?, self.upstream?);
        let repr = self.upstream_packet(tsi, fb.body, fb.options);
        let packet_type = repr.packet_type();
        let len = self.emit(&repr, buf)?;
        self.stats.feedback_sent += 1;
        if packet_type == PacketType::Ack {
            self.stats.acks_sent += 1;
        }
        Some(Transmit {
            destination: Destination::Unicast(path.source_nla),
            len,
            packet_type,
        })
    }

    /// A status report: an SPMR carrying OPT_CONVOY_RECEIVER_STATUS.
    #[inline(never)]
    fn emit_status(&mut self, buf: &mut [u8]) -> Option<Transmit> {
        let (tsi, path) = (self.tsi?, self.upstream?);
        let (status, needs) = self.status_out.take()?;
        let options = OptionsRepr {
            receiver_status: Some(status),
            needs,
            ..OptionsRepr::default()
        };
        let len = self.emit(&self.upstream_packet(tsi, BodyRepr::Spmr, options), buf)?;
        self.stats.statuses_sent += 1;
        Some(Transmit {
            destination: Destination::Unicast(path.source_nla),
            len,
            packet_type: PacketType::Spmr,
        })
    }

    /// A repair NAK: selective (the first sequence number in the header, the rest in OPT_NAK_LIST) or a parity
    /// NAK (RFC 3208 §11.3.1), with the controller's report.
    #[inline(never)]
    fn emit_nak(&mut self, now: Instant, nak: NakOut, buf: &mut [u8]) -> Option<Transmit> {
        let (tsi, path) = (self.tsi?, self.upstream?);
        let (first, mut options) = match nak {
            NakOut::Selective(sqns) => {
                let (&first, rest) = sqns.split_first()?;
                let options = OptionsRepr {
                    nak_list: rest.to_vec(),
                    ..OptionsRepr::default()
                };
                (first, options)
            }
            NakOut::Parity(sqn) => {
                if let Some(p) = self.parity.as_mut() {
                    let tg = p.group_of(sqn);
                    p.nak_sent(tg, now);
                }
                let mut options = OptionsRepr::default();
                options.parity.parity = true;
                (sqn, options)
            }
        };
        // Paper §3.2: every NAK carries the receiver report.
        self.cc.add_nak_report(now, &mut options);
        let body = BodyRepr::Nak {
            sqn: first,
            source_nla: path.source_nla,
            group_nla: path.group_nla,
        };
        let len = self.emit(&self.upstream_packet(tsi, body, options), buf)?;
        self.stats.naks_sent += 1;
        Some(Transmit {
            destination: Destination::Unicast(path.source_nla),
            len,
            packet_type: PacketType::Nak,
        })
    }

    /// The next instant at which there is work.
    pub fn poll_timeout(&self) -> Option<Instant> {
        let window = self.tsi.and_then(|_| self.rxw.poll_timeout());
        // NAKs built and waiting go at once.
        let naks = (!self.naks.is_empty()).then_some(self.rxw.latest());
        Instant::earliest(Instant::earliest(window, naks), self.cc.poll_timeout())
    }

    /// Next event: session and controller events first, then deliveries in sequence order (every APDU and
    /// every lost run, never dropped), then [`ReceiverEvent::Finished`] once everything up to the source's last
    /// packet was delivered or lost.
    pub fn poll_event(&mut self) -> Option<ReceiverEvent> {
        if let Some(e) = self.events.pop_front() {
            return Some(e);
        }
        self.tsi?;
        let w = &mut self.rxw;
        if let Some(d) = w.poll_delivery() {
            return Some(match d {
                Delivery::Apdu { data, .. } => {
                    self.stats.apdus += 1;
                    self.stats.bytes += data.len() as u64;
                    ReceiverEvent::Data(data)
                }
                Delivery::Lost {
                    first_sqn,
                    last_sqn,
                } => ReceiverEvent::Lost {
                    first_sqn,
                    last_sqn,
                },
            });
        }
        if self.finish_due() {
            self.finished = true;
            return Some(ReceiverEvent::Finished);
        }
        None
    }

    /// Whether [`ReceiverEvent::Finished`] is due: the source closed the session and everything up to its
    /// last packet was delivered or lost, and it was not announced yet.
    fn finish_due(&self) -> bool {
        self.fin_lead
            .is_some_and(|lead| !self.finished && crate::seq::gt(self.rxw.commit(), lead))
    }

    /// The session's GSI, once known.
    pub fn gsi(&self) -> Option<Gsi> {
        self.tsi.map(|t| t.gsi)
    }
}
