//! Convoy's file and stream transfer tool over convoy-net: what `convoy send` and `convoy recv` speak, the keys
//! they read, and the loopback benchmark behind `convoy bench net` (docs/architecture.md, "transfer").
//!
//! convoy-net is the driver a library user embeds (a source or a receiver of APDUs on a group); this crate is
//! the application built on it: manifests, blocks and hashes, resume, sinks, refusals, key files.
//!
//! # Protocol
//!
//! 1. Receivers announce themselves: as soon as they hear the source's SPMs they send a status report
//!    ([`status::JOINED`]) upstream, unicast, every [`ANNOUNCE_INTERVAL`] until the manifest arrives. A status
//!    report is an SPMR carrying 0x33 OPT_CONVOY_RECEIVER_STATUS (token, state, detail), defined in convoy-wire.
//! 2. The source (optionally after waiting for N receivers or a time) sends the [`message::Manifest`] — names,
//!    sizes, modes, a BLAKE3 hash per file and one per block of a larger file ([`blocks`]) — then the data, as
//!    messages of one PGM packet each ([`message`]). Receivers join late from the trail
//!    ([`convoy_proto::LateJoin::FromTrail`]), so a late receiver asks for the manifest too.
//! 3. At the manifest a receiver checks what it already has ([`assembly`]: a complete `NAME`, verified blocks of
//!    `NAME.partial` left by an interrupted run) and reports [`status::NEEDS`] with the blocks it lacks
//!    (0x3B OPT_CONVOY_NEEDS) until data arrives. A source told to resume waits for these reports and sends
//!    only the union of the needs ([`plan`]); otherwise it sends every block and receivers skip what they hold.
//! 4. Receivers write each block into `NAME.partial` where it belongs, hold it once its hash matched, and
//!    rename the file to `NAME` when every block is held; then set its permission bits.
//! 5. A receiver that has every file reports [`status::COMPLETE`] (detail: number of files); one that cannot
//!    finish reports [`status::FAILED`] (detail: number of incomplete files), keeps `.partial` files, and
//!    exits non-zero naming them. Reports repeat every [`REPORT_INTERVAL`] until the source's FIN is heard.
//! 6. The source finishes when every receiver it heard from reported (and at least the number it waited for),
//!    or when nothing progressed for the finish timeout; it then closes (FIN, linger) and prints who finished.
//!
//! # Nothing lost
//!
//! For files the source sets a repair floor at the manifest (`convoy_proto::Sender::set_repair_floor`) and
//! answers repair requests for packets the transmit window dropped by rebuilding them from the file
//! ([`plan::FileRepairs`]), so a receiver that stays in the session gets every byte. A file that changes
//! while it is being sent is detected (size, modification time, and the hash of every block sent) and fails the
//! send. Standard input (`-`) is sent as a stream: repairable only while the transmit window holds it.

pub mod assembly;
pub mod blocks;
pub mod key_file;
pub mod live_status;
pub mod loopback_bench;
pub mod message;
pub mod metrics;
pub mod plan;
pub mod queued_writer;
pub mod raw;
pub mod receive;
mod receiver_table;
pub mod refusals;
pub mod setup;
pub mod sink;
pub mod source;

use convoy_net::feedback_watch::NoFeedback;
use std::net::IpAddr;
use std::time::Duration;

/// Receiver status codes (the `state` of OPT_CONVOY_RECEIVER_STATUS) used by the file transfer.
pub mod status {
    /// The receiver is in the session, waiting for or receiving the transfer.
    pub const JOINED: u32 = 1;
    /// Every file arrived and matched its hash; detail = number of files.
    pub const COMPLETE: u32 = 2;
    /// The receiver cannot finish; detail = number of incomplete files.
    pub const FAILED: u32 = 3;
    /// The manifest arrived and this receiver lacks the blocks listed in 0x3B OPT_CONVOY_NEEDS beside the
    /// report (detail = how many blocks; the ranges may cover more when coarsened to fit). Repeated until data
    /// arrives.
    pub const NEEDS: u32 = 4;
}

/// How often a receiver repeats its announcement before the manifest.
pub const ANNOUNCE_INTERVAL: Duration = Duration::from_millis(500);
/// How often a receiver repeats its final report until the source's FIN.
pub const REPORT_INTERVAL: Duration = Duration::from_millis(250);
/// Most receivers the source keeps state for; reports from more are ignored (with one log line).
pub const MAX_RECEIVERS: usize = 10_000;

/// Exit codes of `convoy send` and `convoy recv`.
pub mod exit {
    /// Everything arrived (recv) / every receiver finished (send).
    pub const OK: u8 = 0;
    /// Bad arguments or setup failure (socket, interface, input not readable).
    pub const USAGE: u8 = 1;
    /// Incomplete: the source went away or timed out, data was lost (recv); some receivers did not finish or
    /// fewer than `--wait-receivers` showed up (send).
    pub const INCOMPLETE: u8 = 2;
    /// Local write failure at a receiver (disk full, permission denied, hash mismatch).
    pub const LOCAL_IO: u8 = 3;
    /// An input file changed while it was being sent.
    pub const INPUT_CHANGED: u8 = 4;
    /// Shed for a rate below the session's minimum (`convoy send --min-rate`): this receiver was asked to leave
    /// (recv; its verified blocks are kept for `--resume`) / every receiver completed but those shed (send).
    pub const SHED: u8 = 5;
}

/// What one receiver told the source, last.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ReceiverOutcome {
    /// Its address.
    pub addr: IpAddr,
    /// "joined", "complete" or "failed".
    pub state: &'static str,
    /// The detail of its last report.
    pub detail: u32,
}

/// Live progress for bars and logs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Progress {
    /// Bytes of file data handled so far (sent, or written at a receiver).
    pub bytes: u64,
    /// Total, when known.
    pub total: Option<u64>,
    /// Repairs sent (source) or received (receiver).
    pub repairs: u64,
    /// The receiver that limits the session: at the source the one the controller follows (pgmcc's acker, TFMCC's
    /// CLR, aimd's agent) with its last reported rate, loss and RTT ([`crate::live_status`]); at a receiver
    /// "this receiver" when it is that one.
    pub acker: Option<String>,
    /// Receivers finished / heard from (source).
    pub receivers: Option<(usize, usize)>,
}

/// Callbacks for progress display.
pub trait Observer {
    /// Progress, about ten times a second.
    fn progress(&mut self, _p: &Progress) {}
    /// A line for the user.
    fn message(&mut self, _line: &str) {}
}

/// An observer that shows nothing.
#[derive(Debug, Default)]
pub struct Silent;

impl Observer for Silent {}

/// Why a transfer failed outright.
#[derive(Debug)]
pub struct TransferError {
    /// Exit code to use ([`exit`]).
    pub code: u8,
    /// What happened.
    pub message: String,
}

impl std::fmt::Display for TransferError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.message)
    }
}

impl std::error::Error for TransferError {}

impl TransferError {
    pub(crate) fn new(code: u8, message: impl Into<String>) -> Self {
        TransferError {
            code,
            message: message.into(),
        }
    }
}

impl From<std::io::Error> for TransferError {
    fn from(e: std::io::Error) -> Self {
        // No receiver clocked the session: nothing (or not everything) was delivered.
        let code = match e
            .get_ref()
            .and_then(|inner| inner.downcast_ref::<NoFeedback>())
        {
            Some(_) => exit::INCOMPLETE,
            None => exit::USAGE,
        };
        TransferError::new(code, e.to_string())
    }
}
