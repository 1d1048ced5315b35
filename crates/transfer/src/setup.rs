//! How `convoy send` and `convoy recv` set up a transfer's endpoints, judge its outcome and write its
//! statistics: the engine configuration for files and streams over a real network, the exit code of a send,
//! and the statistics JSON of both ends (the command line only parses arguments and prints).

use super::exit;
use super::receive::RecvReport;
use super::source::SendReport;
use convoy_net::{GroupOptions, NetReceiver, NetSender};
use convoy_proto::auth::AuthConfig;
use convoy_proto::cc::CcConfig;
use convoy_proto::sender::{MinRate, ParityConfig};
use convoy_proto::{LateJoin, ReceiverConfig, RepairPacing, SenderConfig};
use convoy_wire::Tsi;
use std::io;
use std::path::PathBuf;
use std::time::Duration;

/// Repairs are capped at this rate when neither a repair cap nor a data cap is given, bits per second.
pub const DEFAULT_REPAIR_RATE_BPS: u64 = 100_000_000;

/// The source's NAK elimination interval for transfers (RFC 3208 §7.4 at the source): receivers behind plain
/// multicast routers all NAK a packet lost upstream of them; each sequence number is answered once per (at most)
/// this interval instead of once per NAK.
pub const TRANSFER_NAK_ELIM: Duration = Duration::from_millis(250);

/// What a source needs beyond the group.
#[derive(Clone, Debug, PartialEq)]
pub struct SourceSetup {
    /// The congestion controller.
    pub cc: CcConfig,
    /// Rate limit of all data (PGM rate limiter), bits per second.
    pub rate_max_bps: Option<u64>,
    /// Rate limit of repairs, bits per second; default half of `rate_max_bps`, else
    /// [`DEFAULT_REPAIR_RATE_BPS`]: a flood of NAKs cannot push repairs above it.
    pub repair_rate_max_bps: Option<u64>,
    /// Packets kept in memory for repair (older ones are rebuilt from the files).
    pub txw_packets: usize,
    /// Whether repairs need the controller's permit (`convoy send --repairs`).
    pub repair_pacing: RepairPacing,
    /// Give up when no receiver has clocked the session this long after the first data packet
    /// ([`convoy_net::feedback_watch`]; `convoy send --feedback-timeout`). Only for a scheme that controls
    /// congestion (not the fixed rate), which waits for feedback.
    pub feedback_timeout: Option<Duration>,
    /// Record every datagram in this CSV file (`--packet-trace`, [`convoy_net::packet_trace`]).
    pub packet_trace: Option<PathBuf>,
    /// A keyed session (`--key-file`); the identity is drawn afresh at [`SourceSetup::open`].
    pub auth: Option<AuthConfig>,
    /// Parity repairs (`convoy send --parity`; RFC 3208 §11).
    pub parity: Option<ParityConfig>,
    /// The session's minimum rate (`convoy send --min-rate`, `--min-rate-grace`).
    pub min_rate: Option<MinRate>,
}

/// `auth` with a fresh random identity from the operating system ([`convoy_proto::auth::AuthConfig::identity`]).
fn with_identity(auth: &Option<AuthConfig>) -> io::Result<Option<AuthConfig>> {
    auth.clone()
        .map(|mut a| {
            a.identity = crate::key_file::os_random()?;
            Ok(a)
        })
        .transpose()
}

impl SourceSetup {
    /// Apply to an engine configuration.
    pub fn configure(&self, c: &mut SenderConfig) {
        let rate_max = self.rate_max_bps.map(|r| r / 8);
        c.cc = self.cc.clone();
        c.rate_max = rate_max;
        c.repair_rate_max = Some(
            self.repair_rate_max_bps
                .map(|r| r / 8)
                .or(rate_max.map(|r| r / 2))
                .unwrap_or(DEFAULT_REPAIR_RATE_BPS / 8),
        );
        c.nak_elim_ivl = TRANSFER_NAK_ELIM;
        c.txw_max_packets = self.txw_packets.max(1);
        c.repair_pacing = self.repair_pacing;
        c.parity = self.parity;
        c.min_rate = self.min_rate;
    }

    /// Open the source on `group`.
    pub fn open(&self, group: &GroupOptions) -> io::Result<NetSender> {
        let auth = with_identity(&self.auth)?;
        let mut tx = NetSender::open(group, |c| {
            self.configure(c);
            c.auth = auth;
        })?;
        if let (Some(limit), true) = (self.feedback_timeout, self.cc.controls_congestion()) {
            tx.set_feedback_limit(limit);
        }
        if let Some(path) = &self.packet_trace {
            tx.trace_packets(path)?;
        }
        Ok(tx)
    }
}

/// What a receiver needs beyond the group.
#[derive(Clone, Debug, PartialEq)]
pub struct SinkSetup {
    /// The congestion controller (must match the source's unless `follow_source`).
    pub cc: CcConfig,
    /// Follow the source's scheme, recognised from its data (`convoy_proto::ReceiverConfig::follow_source`).
    pub follow_source: bool,
    /// Most data held in memory (`convoy_proto::rxw::RxwConfig::max_buffered_bytes`); 0 = no bound.
    pub max_buffer_bytes: u64,
    /// Record every datagram in this CSV file (`--packet-trace`, [`convoy_net::packet_trace`]).
    pub packet_trace: Option<PathBuf>,
    /// A keyed session (`--key-file`); the identity is drawn afresh at [`SinkSetup::open`].
    pub auth: Option<AuthConfig>,
    /// Sessions not to join (`convoy recv --keep`: the transfers already received, whose sources may linger).
    pub refused_sessions: Vec<Tsi>,
}

/// Sequence numbers a transfer receiver's window spans at most (its memory is bounded by bytes).
const TRANSFER_WINDOW_PACKETS: u32 = 1 << 20;

impl SinkSetup {
    /// Apply to an engine configuration: late join from the trail (a late receiver asks for the manifest too).
    pub fn configure(&self, c: &mut ReceiverConfig) {
        c.cc = self.cc.clone();
        c.follow_source = self.follow_source;
        c.refused_sessions = self.refused_sessions.clone();
        c.late_join = LateJoin::FromTrail;
        c.rxw.max_packets = TRANSFER_WINDOW_PACKETS;
        c.rxw.max_buffered_bytes = self.max_buffer_bytes;
    }

    /// Join `group`.
    pub fn open(&self, group: &GroupOptions) -> io::Result<NetReceiver> {
        let auth = with_identity(&self.auth)?;
        let configure = |c: &mut ReceiverConfig| {
            self.configure(c);
            c.auth = auth;
        };
        let mut rx = NetReceiver::open(group, configure)?;
        if let Some(path) = &self.packet_trace {
            rx.trace_packets(path)?;
        }
        Ok(rx)
    }
}

/// The exit code of a send: [`exit::OK`] when every receiver heard from completed, at least `wait_receivers`
/// were heard and, unless `fire_and_forget`, at least one was; [`exit::SHED`] when so but for receivers shed;
/// else [`exit::INCOMPLETE`].
pub fn send_exit_code(report: &SendReport, wait_receivers: usize, fire_and_forget: bool) -> u8 {
    let complete = report
        .receivers
        .iter()
        .filter(|r| r.state == "complete")
        .count();
    let shed = report
        .receivers
        .iter()
        .filter(|r| r.state == "shed")
        .count();
    let heard = report.receivers.len();
    if complete + shed < heard || heard < wait_receivers || (heard == 0 && !fire_and_forget) {
        exit::INCOMPLETE
    } else if shed > 0 {
        exit::SHED
    } else {
        exit::OK
    }
}

/// The statistics of a finished send (`convoy send --stats-json`).
pub fn send_stats(tx: &NetSender, report: &SendReport, exit_code: u8) -> serde_json::Value {
    let s = tx.sender().stats();
    let io = tx.io_stats();
    serde_json::json!({
        "transfer_id": report.transfer_id,
        "cc": tx.sender().config().cc.name(),
        "bytes": report.bytes,
        "skipped_bytes": report.skipped_bytes,
        "files": report.files,
        "seconds": report.seconds,
        "goodput_bps": report.bytes as f64 * 8.0 / report.seconds.max(1e-9),
        "packets": { "odata": s.odata_packets, "rdata": s.rdata_packets, "parity": s.parity_packets, "spm": s.spms, "ncf": s.ncfs },
        "odata_bytes": s.odata_bytes,
        "rdata_bytes": s.rdata_bytes,
        "parity_bytes": s.parity_bytes,
        "parity_naks": s.parity_naks,
        "wire_bytes": io.bytes_sent,
        "naks": s.naks,
        "nak_sqns": s.nak_sqns,
        "acks": s.acks,
        "acker_changes": report.acker_changes,
        "timeouts": report.timeouts,
        "app_repairs": s.app_repairs_requested,
        "malformed": s.malformed,
        "refused": s.refused,
        "receivers": report.receivers,
        "closed": report.closed,
        "closing_seconds": report.closing_seconds,
        "peak_rss_bytes": peak_rss_bytes(),
        "io": io,
        "exit_code": exit_code,
    })
}

/// The process's peak resident set in bytes: VmHWM of Linux's /proc/self/status (in kB there); `None` where
/// /proc is missing.
fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kib = status.lines().find_map(|l| l.strip_prefix("VmHWM:"))?;
    let kib: u64 = kib.trim().strip_suffix("kB")?.trim().parse().ok()?;
    Some(kib * 1024)
}

/// The statistics of a finished receive (`convoy recv --stats-json`).
pub fn recv_stats(rx: &NetReceiver, report: &RecvReport) -> serde_json::Value {
    let s = rx.receiver().stats();
    let w = rx.receiver().rxw_stats().cloned().unwrap_or_default();
    serde_json::json!({
        "transfer_id": report.transfer_id,
        "bytes": report.bytes,
        "resumed_bytes": report.resumed_bytes,
        "seconds": report.seconds,
        "files": report.files,
        "end": report.end,
        "exit_code": report.exit_code,
        "packets": { "odata": s.odata, "rdata": s.rdata, "spm": s.spms, "ncf": s.ncfs },
        "naks_sent": s.naks_sent,
        "acks_sent": s.acks_sent,
        "feedback_sent": s.feedback_sent,
        "statuses_sent": s.statuses_sent,
        "malformed": s.malformed,
        "refused": s.refused,
        "sqns_lost": w.sqns_lost,
        "parity": rx.receiver().parity_stats().map(|p| serde_json::json!({
            "received": p.parity_received,
            "unused": p.parity_unused,
            "restored": p.restored,
            "naks": p.parity_naks,
            "decode_errors": p.decode_errors,
        })),
        "peak_rss_bytes": peak_rss_bytes(),
        "buffer": {
            "max_bytes": rx.receiver().config().rxw.max_buffered_bytes,
            "peak_held_bytes": w.peak_held_bytes,
            "congested_odata": s.congested,
            "refused_packets": w.overflow_refused,
        },
        "io": rx.io_stats(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{IpAddr, Ipv4Addr};

    fn ip(n: u8) -> IpAddr {
        IpAddr::V4(Ipv4Addr::new(10, 0, 0, n))
    }

    #[test]
    fn repairs_default_to_half_the_data_cap_else_the_default_cap() {
        let mut setup = SourceSetup {
            cc: CcConfig::default(),
            rate_max_bps: Some(80_000_000),
            repair_rate_max_bps: None,
            txw_packets: 0,
            repair_pacing: RepairPacing::Controller,
            feedback_timeout: None,
            packet_trace: None,
            auth: None,
            parity: None,
            min_rate: None,
        };
        let mut c = SenderConfig::new(ip(1), ip(2));
        setup.configure(&mut c);
        assert_eq!(c.rate_max, Some(10_000_000));
        assert_eq!(c.repair_rate_max, Some(5_000_000));
        assert_eq!(c.txw_max_packets, 1, "at least one packet");
        assert_eq!(c.nak_elim_ivl, TRANSFER_NAK_ELIM);
        assert_eq!(c.repair_pacing, RepairPacing::Controller);
        setup.rate_max_bps = None;
        setup.configure(&mut c);
        assert_eq!(c.repair_rate_max, Some(DEFAULT_REPAIR_RATE_BPS / 8));
        setup.repair_rate_max_bps = Some(8_000);
        setup.configure(&mut c);
        assert_eq!(c.repair_rate_max, Some(1_000));
    }

    #[test]
    fn a_send_is_incomplete_unless_every_receiver_heard_completed_and_enough_were_heard() {
        let receiver = |state: &'static str| super::super::ReceiverOutcome {
            addr: ip(3),
            state,
            detail: 0,
        };
        let mut report = SendReport {
            transfer_id: 1,
            bytes: 0,
            skipped_bytes: 0,
            files: 0,
            seconds: 0.0,
            receivers: vec![receiver("complete")],
            acker_changes: 0,
            timeouts: 0,
            closed: true,
            closing_seconds: 0.0,
        };
        assert_eq!(send_exit_code(&report, 1, false), exit::OK);
        assert_eq!(
            send_exit_code(&report, 2, false),
            exit::INCOMPLETE,
            "one of two heard"
        );
        report.receivers.push(receiver("failed"));
        assert_eq!(send_exit_code(&report, 0, false), exit::INCOMPLETE);
        report.receivers.clear();
        assert_eq!(
            send_exit_code(&report, 0, false),
            exit::INCOMPLETE,
            "nobody heard"
        );
        assert_eq!(
            send_exit_code(&report, 0, true),
            exit::OK,
            "nobody expected (--fire-and-forget)"
        );
    }

    #[test]
    fn peak_rss_is_read_from_proc() {
        if std::path::Path::new("/proc/self/status").exists() {
            assert!(peak_rss_bytes().unwrap() >= 1024 * 1024);
        }
    }
}
