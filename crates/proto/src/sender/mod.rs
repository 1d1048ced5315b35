//! The PGM source: transmit window, SPMs, NAK → NCF + RDATA, and original data under a congestion controller.
//!
//! Call order (as quinn-proto's `Connection`): feed inputs with [`Sender::handle_datagram`],
//! [`Sender::handle_timeout`] and the application calls [`Sender::write`] / [`Sender::close`]; after every input,
//! drain [`Sender::poll_transmit`] until it returns `None`, then read [`Sender::poll_timeout`] and drain
//! [`Sender::poll_event`].

mod app_repair;
mod config;
mod parity_source;
mod repair_elim;
mod repair_pacing;
mod repairs;
mod shedding;
mod spm;
mod txw;

pub use app_repair::{tsdu_of, MAX_APP_REPAIRS};
pub use config::SenderConfig;
pub use parity_source::{Held, NextParity, ParityConfig, ParityNak, ParityPacket, ParitySource};
pub use repair_elim::RecentRepairs;
use repair_pacing::RepairPace;
pub use repair_pacing::RepairPacing;
pub use shedding::{kbps, MinRate, Shed, Shedding, ADVERTISE_FOR, DEFAULT_GRACE};
pub use spm::{SpmIntervals, SpmSchedule};
pub use txw::{TransmitWindow, TxPacket, WriteError};

use crate::auth::{AuthError, Incoming, PacketOpener, PacketSealer};
use crate::cc::{CcEvent, CcSnapshot, Permit, SenderController};
use crate::parity;
use crate::time::Instant;
use crate::token_bucket::TokenBucket;
use crate::transmit::{Destination, Transmit};
use app_repair::AppRepairs;
use convoy_wire::{
    BlockRange, BodyRepr, OptionsRepr, PacketRepr, PacketType, ParityOptions, ParseError,
    ReceiverStatus, Tsi,
};
use repairs::Confirm;
use std::collections::{BTreeSet, VecDeque};
use std::net::IpAddr;
use std::time::Duration;

/// Something the application should know.
#[derive(Clone, Debug, PartialEq)]
pub enum SenderEvent {
    /// From the congestion controller: acker changes, reductions, timeouts, receiver reports.
    Cc(CcEvent),
    /// The controller would send now but the queue is empty: write more (paper §3.9 "tokens available").
    TokensAvailable,
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
    /// The session ended after close and linger.
    Closed,
    /// A NAK asked for `sqn`, which the transmit window no longer holds but the application promised to repair
    /// ([`Sender::set_repair_floor`]): answer with [`Sender::supply_repair`]. Asked once per outstanding
    /// request.
    RepairRequested {
        /// The sequence number to repair.
        sqn: u32,
    },
    /// A receiver sent an application status report (0x33 OPT_CONVOY_RECEIVER_STATUS on an SPMR).
    ReceiverStatus {
        /// Where it came from.
        from: IpAddr,
        /// The report.
        status: ReceiverStatus,
        /// The blocks it says it lacks (0x3B OPT_CONVOY_NEEDS; empty without the option).
        needs: Vec<BlockRange>,
    },
    /// A receiver stayed below the session's minimum rate for the grace period ([`SenderConfig::min_rate`]):
    /// it is asked to leave, and neither followed nor repaired from now on.
    Shed(Shed),
}

/// Counters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SenderStats {
    /// ODATA packets sent.
    pub odata_packets: u64,
    /// ODATA payload bytes sent.
    pub odata_bytes: u64,
    /// RDATA packets sent.
    pub rdata_packets: u64,
    /// RDATA payload bytes sent.
    pub rdata_bytes: u64,
    /// SPMs sent.
    pub spms: u64,
    /// NCFs sent.
    pub ncfs: u64,
    /// NAK packets received (election NAKs included).
    pub naks: u64,
    /// Sequence numbers requested by NAKs.
    pub nak_sqns: u64,
    /// Requested sequence numbers no longer (or not yet) in the window nor repairable by the application.
    pub nak_outside_window: u64,
    /// Requested sequence numbers answered by neither NCF nor RDATA because both went out for them within
    /// [`SenderConfig::nak_elim_ivl`].
    pub nak_sqns_eliminated: u64,
    /// Parity NAKs received (RFC 3208 §11.3.1).
    pub parity_naks: u64,
    /// Parity NAKs asking for no more than the parity pending or sent within the elimination window.
    pub parity_naks_covered: u64,
    /// Parity packets sent, pro-active (ODATA) and on-demand (RDATA); not counted in `odata_packets` or
    /// `rdata_packets`.
    pub parity_packets: u64,
    /// Parity payload bytes sent.
    pub parity_bytes: u64,
    /// Repairs requested from the application ([`SenderEvent::RepairRequested`]).
    pub app_repairs_requested: u64,
    /// Receiver status reports received.
    pub receiver_statuses: u64,
    /// ACKs received.
    pub acks: u64,
    /// Malformed datagrams.
    pub malformed: u64,
    /// Packets refused by the session's authentication ([`SenderEvent::Refused`]).
    pub refused: u64,
    /// Valid packets for another session or of a type a source ignores.
    pub ignored: u64,
    /// NAKs and ACKs from shed receivers, ignored ([`SenderEvent::Shed`]).
    pub from_shed: u64,
    /// PGM bytes of every packet sent (headers and options included; not the IP and UDP headers around them).
    pub pgm_bytes_sent: u64,
    /// Datagrams received, whatever they held.
    pub datagrams_received: u64,
    /// PGM bytes of every datagram received.
    pub pgm_bytes_received: u64,
}

const MAX_EVENTS: usize = 4096;

/// Under [`RepairPacing::Controller`], repairs go first but take at most this many permits in a row while original
/// data waits: the data keeps the controller's feedback coming (pgmcc's ACKs, TFMCC's and aimd's reports), without
/// which the controller would reduce for silence, and the receivers that wait for repairs (a receiver short of
/// memory marks packets lost until its holes are filled, rxw module `budget`) get most of a window shrunk by their
/// own marks.
pub const REPAIRS_PER_ODATA: u32 = 3;

/// A PGM source with congestion control.
pub struct Sender {
    config: SenderConfig,
    /// Seals what is sent in a keyed session.
    sealer: Option<PacketSealer>,
    /// Opens what is received in a keyed session.
    opener: Option<PacketOpener>,
    cc: Box<dyn SenderController>,
    txw: TransmitWindow,
    spm: SpmSchedule,
    spm_sqn: u32,
    rate: Option<TokenBucket>,
    repair_rate: Option<TokenBucket>,
    /// Repairs beside the controller at its rate ([`RepairPacing::ControllerRate`]).
    repair_pace: RepairPace,
    ncf_queue: VecDeque<Confirm>,
    parity: Option<ParitySource>,
    /// Parity NCFs recently sent, by NAK_SQN.
    parity_confirms: RecentRepairs,
    repair_queue: VecDeque<u32>,
    repair_set: BTreeSet<u32>,
    recent_repairs: RecentRepairs,
    app_repairs: AppRepairs,
    events: VecDeque<SenderEvent>,
    /// The minimum-rate policy, when the session has one.
    shedding: Option<Shedding>,
    tokens_signalled: bool,
    /// Repairs sent since the last ODATA (under the controller, waiting ODATA gets a permit after
    /// [`REPAIRS_PER_ODATA`] of them).
    repairs_in_a_row: u32,
    closing: bool,
    fin_sent: bool,
    last_activity: Instant,
    closed: bool,
    /// The latest `now` seen by any entry point (for `poll_timeout`, which takes none).
    now: Instant,
    stats: SenderStats,
}

impl std::fmt::Debug for Sender {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sender")
            .field("tsi", &self.tsi())
            .field("stats", &self.stats)
            .finish()
    }
}

impl Sender {
    /// A new source at `now`.
    pub fn new(mut config: SenderConfig, now: Instant) -> Self {
        if let Some(p) = config.parity {
            // RFC 3208 §11.2: groups start on multiples of k.
            let k = p.group_size.max(1);
            config.initial_sqn = config.initial_sqn.wrapping_add(k - 1) & !(k - 1);
        }
        if config.min_rate.is_some() {
            // The minimum rate judges every receiver's report.
            config.cc.report_every_receiver();
        }
        let cc = config.cc.build_sender(now);
        let burst = |rate: u64| rate / 50 + 2 * config.max_tsdu as u64 + 100;
        Sender {
            cc,
            txw: TransmitWindow::new(
                config.initial_sqn,
                config.max_tsdu,
                config.txw_max_packets,
                config.send_queue_bytes,
            ),
            spm: SpmSchedule::new(config.spm, now),
            spm_sqn: 0,
            rate: config.rate_max.map(|r| TokenBucket::new(r, burst(r), now)),
            repair_rate: config
                .repair_rate_max
                .map(|r| TokenBucket::new(r, burst(r), now)),
            repair_pace: RepairPace::new(config.max_tsdu + 64),
            ncf_queue: VecDeque::new(),
            parity: config.parity.map(ParitySource::new),
            parity_confirms: RecentRepairs::new(config.nak_elim_ivl),
            repair_queue: VecDeque::new(),
            repair_set: BTreeSet::new(),
            recent_repairs: RecentRepairs::new(config.nak_elim_ivl),
            app_repairs: AppRepairs::default(),
            events: VecDeque::new(),
            shedding: config.min_rate.map(Shedding::new),
            tokens_signalled: false,
            repairs_in_a_row: 0,
            closing: false,
            fin_sent: false,
            last_activity: now,
            closed: false,
            now,
            stats: SenderStats::default(),
            sealer: config.auth.as_ref().map(PacketSealer::new),
            opener: config.auth.as_ref().map(PacketOpener::new),
            config,
        }
    }

    /// The session's TSI.
    pub fn tsi(&self) -> Tsi {
        Tsi {
            gsi: self.config.gsi,
            source_port: self.config.source_port,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &SenderConfig {
        &self.config
    }

    /// Counters.
    pub fn stats(&self) -> &SenderStats {
        &self.stats
    }

    /// The controller's state.
    pub fn cc_snapshot(&self) -> CcSnapshot {
        self.cc.snapshot()
    }

    /// TXW_TRAIL and TXW_LEAD as advertised (the trail is the repair floor while that is older, see
    /// [`Sender::set_repair_floor`]).
    pub fn window_edges(&self) -> (u32, u32) {
        (self.trail(), self.txw.lead())
    }

    /// The advertised TXW_TRAIL.
    fn trail(&self) -> u32 {
        self.app_repairs.advertised_trail(self.txw.trail())
    }

    /// The sequence number the first packet of the next APDU written will take (APDUs are numbered in write
    /// order; one of `n` bytes takes `max(1, ceil(n / max_tsdu))` sequence numbers).
    pub fn next_write_sqn(&self) -> u32 {
        self.txw.next_write_sqn()
    }

    /// Promise that the application can repair every sequence number from `floor` on, even after the transmit
    /// window dropped it (module `app_repair`): the source then advertises `floor` as TXW_TRAIL while it is
    /// older than the window's own trail, and asks for such repairs with [`SenderEvent::RepairRequested`].
    /// `None` withdraws the promise. Set it before writing what it covers (e.g. to [`Sender::next_write_sqn`]).
    pub fn set_repair_floor(&mut self, floor: Option<u32>) {
        self.app_repairs.floor = floor;
    }

    /// Answer a [`SenderEvent::RepairRequested`] for `sqn`: `apdu` is the whole APDU that packet belongs to
    /// and `first_sqn` the sequence number of its first packet. The source cuts out the TSDU exactly as
    /// [`Sender::write`] fragmented it and queues the RDATA. Returns false (and sends nothing) if `sqn` was not
    /// requested or is not a packet of that APDU.
    pub fn supply_repair(&mut self, sqn: u32, first_sqn: u32, apdu: &[u8]) -> bool {
        let Some(packet) = tsdu_of(first_sqn, sqn, apdu, self.config.max_tsdu) else {
            return false;
        };
        let wanted = self.app_repairs.supply(sqn, packet);
        if wanted.repair && self.repair_set.insert(sqn) {
            self.repair_queue.push_back(sqn);
        }
        if wanted.coding {
            if let Some(p) = self.parity.as_mut() {
                p.resume_waiting();
            }
        }
        wanted.repair || wanted.coding
    }

    /// Repairs requested from the application and not yet supplied.
    pub fn pending_app_repairs(&self) -> usize {
        self.app_repairs.pending()
    }

    /// A packet the source can repair now: from the window, or supplied by the application.
    fn repair_packet(&self, sqn: u32) -> Option<&TxPacket> {
        self.txw.get(sqn).or_else(|| self.app_repairs.get(sqn))
    }

    /// Free bytes in the send queue.
    pub fn queue_space(&self) -> usize {
        self.txw.queue_space()
    }

    /// Bytes written but not yet sent.
    pub fn queued_bytes(&self) -> usize {
        self.txw.queued_bytes()
    }

    /// Whether the session has ended.
    pub fn is_closed(&self) -> bool {
        self.closed
    }

    /// Queue one APDU for sending.
    pub fn write(&mut self, apdu: &[u8]) -> Result<(), WriteError> {
        if self.closing {
            return Err(WriteError::Closed);
        }
        self.txw.write(apdu)?;
        self.tokens_signalled = false;
        Ok(())
    }

    /// No more writes: send what is queued, then SPMs with OPT_FIN, then linger for repairs.
    pub fn close(&mut self, now: Instant) {
        if !self.closing {
            self.closing = true;
            self.last_activity = now;
        }
    }

    /// Every receiver the application knows of has everything (each reported it, e.g. with a Convoy status
    /// report): once closing, end right after the OPT_FIN SPM and the repairs already queued, without the
    /// [`SenderConfig::linger`] wait. The linger exists for late NAKs (RFC 3208 §6.3: the source keeps repair data
    /// while receivers may still ask); when none can come, it only delays the application.
    pub fn no_repairs_needed(&mut self) {
        self.config.linger = Duration::ZERO;
    }

    fn push_event(&mut self, e: SenderEvent) {
        if self.events.len() >= MAX_EVENTS {
            self.events.pop_front();
        }
        self.events.push_back(e);
    }

    fn drain_cc_events(&mut self) {
        while let Some(e) = self.cc.poll_event() {
            let shed = self
                .shedding
                .as_mut()
                .and_then(|s| s.on_event(self.now, &e));
            self.push_event(SenderEvent::Cc(e));
            if let Some(shed) = shed {
                // Its acker, CLR or agent role ends now; the controller's events about that follow.
                self.cc.forget(self.now, shed.receiver);
                self.push_event(SenderEvent::Shed(shed));
            }
        }
        if self.config.repair_pacing == RepairPacing::ControllerRate {
            self.repair_pace.follow(self.now, &self.cc.snapshot());
        }
    }

    /// A datagram arrived from `from`. In a keyed session it is opened first ([`crate::auth`]), in a copy.
    pub fn handle_datagram(&mut self, now: Instant, from: IpAddr, bytes: &[u8]) {
        self.receive(now, from, Incoming::Shared(bytes));
    }

    /// [`Sender::handle_datagram`] on bytes the driver lets the engine change: a keyed session opens (decrypts)
    /// the packet where it lies, with no copy. The bytes' content afterwards is unspecified.
    pub fn handle_datagram_in_place(&mut self, now: Instant, from: IpAddr, bytes: &mut [u8]) {
        self.receive(now, from, Incoming::Writable(bytes));
    }

    fn receive(&mut self, now: Instant, from: IpAddr, bytes: Incoming<'_>) {
        self.now = self.now.max(now);
        self.stats.datagrams_received += 1;
        self.stats.pgm_bytes_received += bytes.len() as u64;
        crate::auth::open_then(
            self,
            |s| &mut s.opener,
            bytes,
            |s, packet, opened| s.handle_packet(now, from, packet, opened),
            |s, reason| s.refuse(from, reason),
        );
    }

    fn refuse(&mut self, from: IpAddr, reason: AuthError) {
        self.stats.refused += 1;
        self.push_event(SenderEvent::Refused { from, reason });
    }

    /// A datagram, opened if the session is keyed (its checksum then zero, vouched for by the tag).
    fn handle_packet(&mut self, now: Instant, from: IpAddr, bytes: &[u8], opened: bool) {
        let parsed = if opened {
            PacketRepr::parse_without_checksum(bytes)
        } else {
            PacketRepr::parse(bytes)
        };
        let packet = match parsed {
            Ok(p) => p,
            Err(error) => {
                self.stats.malformed += 1;
                self.push_event(SenderEvent::Malformed { from, error });
                return;
            }
        };
        if !opened && packet.options.auth.is_some() {
            return self.refuse(from, AuthError::Keyed);
        }
        // Upstream packets carry our data-source port as destination port and our GSI (RFC 3208 §8).
        if packet.gsi != self.config.gsi || packet.dest_port != self.config.source_port {
            self.stats.ignored += 1;
            return;
        }
        let from_shed = self
            .shedding
            .as_mut()
            .is_some_and(|s| s.heard_from(now, from));
        if from_shed && !matches!(packet.body, BodyRepr::Spmr) {
            // Shed: its NAKs get no repair and its reports reach no controller (module `shedding`).
            self.stats.from_shed += 1;
            return;
        }
        match packet.body {
            BodyRepr::Nak { sqn, .. } => {
                self.stats.naks += 1;
                // A NAK a controller marks as a report only asks for no repair (pgmcc's election NAK).
                if !packet.options.cc.report_only() {
                    self.on_nak(now, sqn, &packet.options);
                }
            }
            BodyRepr::Ack { .. } => self.stats.acks += 1,
            BodyRepr::Spmr => match packet.options.receiver_status {
                // A Convoy status report, not a request for an SPM.
                Some(status) => {
                    self.stats.receiver_statuses += 1;
                    let needs = packet.options.needs.clone();
                    self.push_event(SenderEvent::ReceiverStatus {
                        from,
                        status,
                        needs,
                    });
                }
                None => self.spm.request(),
            },
            _ => self.stats.ignored += 1,
        }
        // The controller reads its feedback from any upstream packet of the session.
        self.cc.on_feedback(now, from, &packet);
        self.drain_cc_events();
    }

    /// A deadline from [`Sender::poll_timeout`] passed.
    pub fn handle_timeout(&mut self, now: Instant) {
        self.now = self.now.max(now);
        if self.cc.poll_timeout().is_some_and(|t| now >= t) {
            self.cc.on_timeout(now);
            self.drain_cc_events();
        }
        if self.closing
            && self.fin_sent
            && !self.closed
            && self.repair_queue.is_empty()
            && !self
                .parity
                .as_ref()
                .is_some_and(|p| p.has_owed() || p.has_proactive())
            && now >= self.last_activity + self.config.linger
        {
            self.closed = true;
            self.push_event(SenderEvent::Closed);
        }
    }

    fn emit(&self, repr: &PacketRepr<'_>, buf: &mut [u8]) -> Option<usize> {
        // A buffer too small for a packet is a driver bug; such a packet is skipped, not sent truncated. A keyed
        // packet's checksum is filled when it is sealed (`poll_transmit`).
        match self.sealer {
            Some(_) => repr.emit_for_sealing(buf),
            None => repr.emit(buf),
        }
        .ok()
    }

    /// A downstream packet of this session, with room for OPT_CONVOY_AUTH in a keyed one (sealed by
    /// [`Sender::poll_transmit`]).
    fn downstream<'a>(
        &self,
        body: BodyRepr,
        mut options: OptionsRepr,
        payload: &'a [u8],
    ) -> PacketRepr<'a> {
        if self.sealer.is_some() {
            PacketSealer::reserve(&mut options);
        }
        PacketRepr {
            source_port: self.config.source_port,
            dest_port: self.config.dest_port,
            gsi: self.config.gsi,
            body,
            options,
            payload,
        }
    }

    /// When the rate limiters will let a packet of `len` bytes go.
    fn rate_ready_at(&self, now: Instant, len: usize, repair: bool) -> Instant {
        let len = len as u64;
        let mut at = now;
        if let Some(b) = &self.rate {
            at = at.max(b.available_at(now, len));
        }
        if repair {
            if let Some(b) = &self.repair_rate {
                at = at.max(b.available_at(now, len));
            }
            if self.config.repair_pacing == RepairPacing::ControllerRate {
                at = at.max(self.repair_pace.available_at(now, len));
            }
        }
        at
    }

    fn rate_allows(&mut self, now: Instant, len: usize, repair: bool) -> bool {
        if self.rate_ready_at(now, len, repair) > now {
            return false;
        }
        let len = len as u64;
        if let Some(b) = &mut self.rate {
            b.try_consume(now, len);
        }
        if repair {
            if let Some(b) = &mut self.repair_rate {
                b.try_consume(now, len);
            }
            if self.config.repair_pacing == RepairPacing::ControllerRate {
                self.repair_pace.consume(now, len);
            }
        }
        true
    }

    /// Write the next packet due now into `buf` (sealed in a keyed session, where it needs
    /// [`crate::auth::AUTH_OVERHEAD`] bytes more than the packet).
    pub fn poll_transmit(&mut self, now: Instant, buf: &mut [u8]) -> Option<Transmit> {
        let t = self.next_transmit(now, buf)?;
        if let Some(s) = &mut self.sealer {
            // Every packet was built with room for the option (`downstream`).
            let sealed = s.seal(buf.get_mut(..t.len)?);
            debug_assert!(
                sealed.is_ok(),
                "a keyed packet built without room for its tag"
            );
            sealed.ok()?;
        }
        self.stats.pgm_bytes_sent += t.len as u64;
        Some(t)
    }

    fn next_transmit(&mut self, now: Instant, buf: &mut [u8]) -> Option<Transmit> {
        self.now = self.now.max(now);
        if self.closed {
            return None;
        }
        if let Some(t) = self.poll_spm(now, buf) {
            return Some(t);
        }
        if let Some(t) = self.poll_ncf(buf) {
            return Some(t);
        }
        if let Some(t) = self.poll_rdata(now, buf) {
            return Some(t);
        }
        self.poll_odata(now, buf)
    }

    fn poll_spm(&mut self, now: Instant, buf: &mut [u8]) -> Option<Transmit> {
        if self.closing && !self.fin_sent && !self.txw.has_pending() {
            self.fin_sent = true;
            self.spm.finish();
            if let Some(p) = self
                .parity
                .as_mut()
                .filter(|_| self.stats.odata_packets > 0)
            {
                p.closed_at(self.txw.lead());
            }
        }
        if !self.spm.is_due(now) {
            return None;
        }
        self.spm.on_sent(now);
        let body = BodyRepr::Spm {
            sqn: self.spm_sqn,
            trail: self.trail(),
            lead: self.txw.lead(),
            path_nla: self.config.local_nla,
        };
        self.spm_sqn = self.spm_sqn.wrapping_add(1);
        let options = OptionsRepr {
            fin: self.fin_sent,
            parity: self
                .parity
                .as_ref()
                .map_or_else(ParityOptions::default, |p| {
                    ParityOptions {
                        params: Some(p.config().params()),
                        code: Some(convoy_wire::PARITY_CODE_RS16),
                        // §11.4: on SPMs whose SPM_LEAD is the short last group's last packet.
                        curr_tg_size: p.curr_tg_size(self.txw.lead()),
                        ..ParityOptions::default()
                    }
                }),
            leave: self
                .shedding
                .as_mut()
                .and_then(|s| s.leave_option(now, true)),
            ..OptionsRepr::default()
        };
        let repr = self.downstream(body, options, &[]);
        let len = self.emit(&repr, buf)?;
        self.stats.spms += 1;
        Some(Transmit {
            destination: Destination::Group,
            len,
            packet_type: PacketType::Spm,
        })
    }

    fn poll_odata(&mut self, now: Instant, buf: &mut [u8]) -> Option<Transmit> {
        // RFC 3208 §11.4: a group's pro-active parity right after its data.
        if let Some(t) = self.poll_parity(now, buf, true) {
            return Some(t);
        }
        let permit = self.cc.permit(now);
        let Some(next_len) = self.txw.next_len() else {
            if permit == Permit::Now && !self.tokens_signalled && !self.closing {
                self.tokens_signalled = true;
                self.push_event(SenderEvent::TokensAvailable);
            }
            return None;
        };
        if permit != Permit::Now || !self.rate_allows(now, next_len + 64, false) {
            return None;
        }
        let sqn = self.txw.send_next()?;
        let trail = self.trail();
        let last = self.closing && !self.txw.has_pending();
        let curr_tg_size = self.parity.as_mut().and_then(|p| {
            p.data_sent(sqn, last, trail);
            p.curr_tg_size(sqn).filter(|_| last)
        });
        let packet = self.txw.get(sqn)?;
        let mut options = OptionsRepr {
            fragment: packet.fragment,
            parity: ParityOptions {
                curr_tg_size,
                ..ParityOptions::default()
            },
            leave: self
                .shedding
                .as_mut()
                .and_then(|s| s.leave_option(now, false)),
            ..OptionsRepr::default()
        };
        let payload_len = packet.payload.len();
        // The controller needs the packet length before the options it adds are known; both ends count the
        // payload plus a typical ODATA's header and options (`cc::packet_size`).
        self.cc
            .on_data_sent(now, sqn, crate::cc::packet_size(payload_len), &mut options);
        self.drain_cc_events();
        let packet = self.txw.get(sqn)?;
        let repr = self.downstream(BodyRepr::Odata { sqn, trail }, options, &packet.payload);
        let len = self.emit(&repr, buf)?;
        self.repairs_in_a_row = 0;
        self.spm.on_data(now);
        self.stats.odata_packets += 1;
        self.stats.odata_bytes += payload_len as u64;
        Some(Transmit {
            destination: Destination::Group,
            len,
            packet_type: PacketType::Odata,
        })
    }

    /// The next instant at which [`Sender::handle_timeout`] or [`Sender::poll_transmit`] has work.
    pub fn poll_timeout(&self) -> Option<Instant> {
        if self.closed {
            return None;
        }
        let mut next = Some(self.spm.next_due());
        let mut consider = |t: Option<Instant>| {
            if let Some(t) = t {
                next = Some(next.map_or(t, |n| n.min(t)));
            }
        };
        consider(self.cc.poll_timeout());
        // A parity packet is at most the longest TSDU, its length and an encoded fragment option longer.
        let parity_len = self.config.max_tsdu + 2 + parity::FRAGMENT_PREFIX;
        let proactive = self.parity.as_ref().is_some_and(|p| p.has_proactive());
        let data_len = self.txw.next_len().or(proactive.then_some(parity_len));
        if let Some(len) = data_len {
            // Pro-active parity alone waits for a repair's permit (`SenderController::permit_repair`).
            let permit = if self.txw.next_len().is_some() {
                self.cc.permit(self.now)
            } else {
                self.cc.permit_repair(self.now)
            };
            match permit {
                Permit::At(t) => consider(Some(t)),
                Permit::Now => consider(Some(self.rate_ready_at(self.now, len + 64, false))),
                Permit::Blocked => {}
            }
        }
        let owed = self.parity.as_ref().is_some_and(|p| p.has_owed());
        let repair_len = self
            .repair_queue
            .front()
            .and_then(|&sqn| self.repair_packet(sqn))
            .map(|p| p.payload.len())
            .or(owed.then_some(parity_len));
        if let Some(len) = repair_len {
            let rate_ready = self.rate_ready_at(self.now, len + 64, true);
            match self.config.repair_pacing {
                RepairPacing::RateLimit | RepairPacing::ControllerRate => {
                    consider(Some(rate_ready))
                }
                // Blocked: the controller's own deadline (considered above) brings the permit.
                RepairPacing::Controller => match self.cc.permit_repair(self.now) {
                    Permit::Now => consider(Some(rate_ready)),
                    Permit::At(t) => consider(Some(t.max(rate_ready))),
                    Permit::Blocked => {}
                },
            }
        }
        if !self.ncf_queue.is_empty() {
            consider(Some(self.now));
        }
        if self.closing && self.fin_sent {
            consider(Some(self.last_activity + self.config.linger));
        }
        next
    }

    /// Next event.
    pub fn poll_event(&mut self) -> Option<SenderEvent> {
        self.events.pop_front()
    }
}
