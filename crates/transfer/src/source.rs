//! The sending side of the file transfer: manifest, data, repairs from the files, receiver bookkeeping.

use super::blocks::{self, BlockLayout};
use super::live_status::{LiveStatus, SendProgress};
use super::message::{self, Entry, EntryKind, Manifest, TransferMode};
use super::metrics::MetricsPage;
use super::plan::{self, FileRepairs, Segment, SourceFile};
use super::receiver_table::{Receivers, Report};
use super::refusals::RefusalLog;
use super::{exit, Observer, Progress, ReceiverOutcome, TransferError};
use convoy_net::NetSender;
use convoy_proto::cc::CcEvent;
use convoy_proto::SenderEvent;
use convoy_wire::BlockRange;
use std::cell::RefCell;
use std::fs::{self, File};
use std::io::{self, Read, Seek, SeekFrom};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::Duration;

/// What to send.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SendInput {
    /// Files and directories (directories recursively).
    Paths(Vec<PathBuf>),
    /// Standard input, as a stream.
    Stdin,
}

/// How the send behaves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SendOptions {
    /// Wait until this many receivers announced themselves before sending (0: do not wait for receivers).
    pub wait_receivers: usize,
    /// Longest wait before sending (with `wait_receivers`: give up waiting after it; without: always wait it).
    pub wait: Option<Duration>,
    /// After the data, how long without any progress (status report, repair) before giving up on receivers.
    pub finish_timeout: Duration,
    /// Longest close (FIN and linger).
    pub close_timeout: Duration,
    /// Send only the blocks the receivers lack: after the manifest, wait for every receiver heard from to say
    /// what it lacks (`status::NEEDS`), at most `resume_wait`, then send the union of their needs.
    pub resume: bool,
    /// Longest wait for the receivers' needs with `resume`; a receiver that has not answered by then is sent
    /// everything.
    pub resume_wait: Duration,
    /// Rewrite a JSON status here once a second while the send runs (`--status-file`, [`crate::live_status`]).
    pub status_file: Option<PathBuf>,
    /// Publish the same figures here once a second (`--metrics`, [`crate::metrics`]).
    pub metrics: Option<MetricsPage>,
}

impl Default for SendOptions {
    fn default() -> Self {
        SendOptions {
            wait_receivers: 0,
            wait: None,
            finish_timeout: Duration::from_secs(30),
            close_timeout: Duration::from_secs(30),
            resume: false,
            resume_wait: Duration::from_secs(5),
            status_file: None,
            metrics: None,
        }
    }
}

/// What a send achieved.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SendReport {
    /// The transfer's identity.
    pub transfer_id: u32,
    /// File (or stream) bytes sent once.
    pub bytes: u64,
    /// File bytes not sent because every receiver already had them (resume).
    pub skipped_bytes: u64,
    /// Files in the manifest.
    pub files: usize,
    /// Seconds from the manifest to the end of the finish phase.
    pub seconds: f64,
    /// Receivers heard from, with their last report.
    pub receivers: Vec<ReceiverOutcome>,
    /// Acker changes seen.
    pub acker_changes: u64,
    /// Feedback timeouts seen.
    pub timeouts: u64,
    /// Whether the session closed cleanly.
    pub closed: bool,
    /// Seconds the close took (OPT_FIN, then the linger for late repairs unless every receiver reported).
    pub closing_seconds: f64,
}

/// Build the manifest entries (file hashes left empty) and the files on disk for `paths`.
fn scan(paths: &[PathBuf]) -> io::Result<(Vec<Entry>, Vec<SourceFile>)> {
    let mut entries = Vec::new();
    let mut files = Vec::new();
    fn add(
        disk: &Path,
        name: String,
        entries: &mut Vec<Entry>,
        files: &mut Vec<SourceFile>,
    ) -> io::Result<()> {
        let meta = fs::metadata(disk)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", disk.display())))?;
        let mode = meta.permissions().mode() & 0o7777;
        if meta.is_dir() {
            entries.push(Entry {
                kind: EntryKind::Directory,
                mode,
                size: 0,
                hash: *blake3::hash(b"").as_bytes(),
                blocks: Vec::new(),
                path: name.clone(),
            });
            let mut children: Vec<_> = fs::read_dir(disk)?.collect::<Result<_, _>>()?;
            children.sort_by_key(|c| c.file_name());
            for c in children {
                let ft = c.file_type()?;
                if ft.is_symlink() {
                    continue;
                }
                let child = c.file_name().to_string_lossy().into_owned();
                add(&c.path(), format!("{name}/{child}"), entries, files)?;
            }
        } else if meta.is_file() {
            files.push(SourceFile {
                index: entries.len() as u32,
                disk: disk.to_path_buf(),
                size: meta.len(),
                modified: meta.modified().ok(),
            });
            entries.push(Entry {
                kind: EntryKind::File,
                mode,
                size: meta.len(),
                hash: [0; 32],
                blocks: Vec::new(),
                path: name,
            });
        }
        Ok(())
    }
    for p in paths {
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .filter(|n| message::is_safe_path(n))
            .ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("{}: cannot send a path without a file name", p.display()),
                )
            })?;
        add(p, name, &mut entries, &mut files)?;
    }
    Ok((entries, files))
}

/// Hash every file of `entries` (whole and per block of `block` bytes, [`blocks::hash_blocks`]).
fn hash_files(entries: &mut [Entry], files: &[SourceFile], block: u64) -> io::Result<()> {
    for f in files {
        let mut input = File::open(&f.disk)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", f.disk.display())))?;
        let (whole, per_block) = blocks::hash_blocks(&mut input, f.size, block).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("{}: changed while being read: {e}", f.disk.display()),
            )
        })?;
        let e = &mut entries[f.index as usize];
        e.hash = whole;
        e.blocks = per_block;
    }
    Ok(())
}

/// The send in progress.
struct Session<'a> {
    tx: &'a mut NetSender,
    observer: &'a mut dyn Observer,
    receivers: Receivers,
    transfer_id: u32,
    bytes: u64,
    total: Option<u64>,
    acker_changes: u64,
    timeouts: u64,
    last_progress_report: std::time::Instant,
    last_activity: std::time::Instant,
    refusals: RefusalLog,
    live: LiveStatus,
    /// A status file that could not be written was reported once.
    status_error_told: bool,
}

impl Session<'_> {
    fn events(&mut self) {
        while let Some(e) = self.tx.poll_event() {
            if let SenderEvent::Cc(cc) = &e {
                self.live.on_event(cc);
            }
            match e {
                SenderEvent::ReceiverStatus {
                    from,
                    status,
                    needs,
                } => {
                    self.last_activity = std::time::Instant::now();
                    let report = Report {
                        token: status.token,
                        state: status.state,
                        detail: status.detail,
                        needs,
                    };
                    if let Some(line) = self.receivers.note(from, report) {
                        self.observer.message(&line);
                    }
                }
                SenderEvent::Cc(CcEvent::AckerChanged { to, .. }) => {
                    self.acker_changes += 1;
                    if let Some(to) = to {
                        self.observer.message(&format!("acker: {to}"));
                    }
                }
                SenderEvent::Cc(CcEvent::Timeout { .. }) => self.timeouts += 1,
                SenderEvent::Shed(shed) => {
                    self.observer.message(&format!(
                        "shed {}: its rate, {:.2} Mbit/s, stayed below the minimum of {:.2} Mbit/s for {:.1} s \
                         (--min-rate); the session goes on without it",
                        shed.receiver,
                        shed.rate_bps * 8e-6,
                        shed.min_rate_bps * 8e-6,
                        shed.below_for.as_secs_f64()
                    ));
                    self.receivers.shed(shed);
                    self.live.on_shed(shed);
                }
                SenderEvent::Refused { from, reason } => {
                    let now = std::time::Instant::now();
                    if let Some(line) = self.refusals.note(from, reason, now) {
                        self.observer.message(&line);
                    }
                }
                _ => {}
            }
        }
        if self.last_progress_report.elapsed() >= Duration::from_millis(100) {
            self.last_progress_report = std::time::Instant::now();
            let s = self.tx.sender();
            let snapshot = s.cc_snapshot();
            let p = Progress {
                bytes: self.bytes,
                total: self.total,
                repairs: s.stats().rdata_packets + s.stats().parity_packets,
                acker: self.live.limiting(&snapshot).map(|(a, h)| h.describe(a)),
                receivers: Some((
                    self.receivers.finished(self.transfer_id),
                    self.receivers.table.len(),
                )),
            };
            self.observer.progress(&p);
            self.write_status(false);
        }
    }

    /// Rewrite the status file when one is asked for and it is due (`at_end`: now); a file that cannot be written
    /// is reported once, and the send goes on.
    fn write_status(&mut self, at_end: bool) {
        let s = self.tx.sender();
        let progress = SendProgress {
            transfer_id: self.transfer_id,
            bytes: self.bytes,
            total: self.total,
            repairs: s.stats().rdata_packets + s.stats().parity_packets,
            refused: s.stats().refused,
        };
        let states = self.receivers.states(self.transfer_id);
        let written = self
            .live
            .write_if_due(&progress, &s.cc_snapshot(), &states, at_end);
        if let (Err(e), false) = (written, self.status_error_told) {
            self.status_error_told = true;
            self.observer.message(&format!("status file: {e}"));
        }
    }

    fn write(&mut self, apdu: &[u8]) -> io::Result<()> {
        self.tx.write(apdu)?;
        self.events();
        Ok(())
    }
}

/// The manifest of `input` and its files on disk (hashed for a file transfer).
fn prepare(
    input: &SendInput,
    transfer_id: u32,
    max_tsdu: usize,
) -> Result<(Manifest, Vec<SourceFile>), TransferError> {
    let usage = |e: io::Error| TransferError::new(exit::USAGE, e.to_string());
    let (mode, mut entries, files, header) = match input {
        SendInput::Paths(paths) => {
            let (e, f) = scan(paths).map_err(usage)?;
            (TransferMode::Files, e, f, message::FILE_DATA_HEADER)
        }
        SendInput::Stdin => (
            TransferMode::Stream,
            Vec::new(),
            Vec::new(),
            message::STREAM_DATA_HEADER,
        ),
    };
    let chunk = (max_tsdu - header) as u32;
    let total: u64 = files.iter().map(|f| f.size).sum();
    let block_chunks = blocks::block_chunks_for(u64::from(chunk), total);
    hash_files(
        &mut entries,
        &files,
        u64::from(chunk) * u64::from(block_chunks),
    )
    .map_err(usage)?;
    let manifest = Manifest {
        transfer_id,
        mode,
        chunk,
        block_chunks,
        entries,
    };
    Ok((manifest, files))
}

impl Session<'_> {
    /// Wait for `opts.wait_receivers` receivers, or `opts.wait`.
    fn wait_for_receivers(&mut self, opts: &SendOptions) -> io::Result<()> {
        let wait_start = std::time::Instant::now();
        loop {
            let waited = wait_start.elapsed();
            let enough =
                opts.wait_receivers > 0 && self.receivers.table.len() >= opts.wait_receivers;
            let timed_out = opts.wait.is_some_and(|w| waited >= w);
            if enough || timed_out || (opts.wait_receivers == 0 && opts.wait.is_none()) {
                break;
            }
            self.tx.drive(Duration::from_millis(50))?;
            self.events();
        }
        if opts.wait_receivers > 0 {
            self.observer.message(&format!(
                "{} receiver(s) ready after {:.1} s",
                self.receivers.table.len(),
                wait_start.elapsed().as_secs_f64()
            ));
        }
        Ok(())
    }

    /// With resume: wait until every receiver heard from said what it lacks (at least `wait_receivers` of
    /// them), at most `resume_wait`; then the union of their needs.
    fn wait_for_needs(&mut self, opts: &SendOptions, total: u32) -> io::Result<Vec<BlockRange>> {
        let all = vec![BlockRange {
            first: 0,
            count: total,
        }];
        if !opts.resume {
            return Ok(all);
        }
        let began = std::time::Instant::now();
        loop {
            let known = self.receivers.table.len();
            let answered = self.receivers.answered(self.transfer_id);
            if known > 0 && answered == known && known >= opts.wait_receivers {
                break;
            }
            if began.elapsed() >= opts.resume_wait {
                self.observer.message(&format!(
                    "resume: {} of {known} receiver(s) said what they lack within {:.1} s; the others get \
                     everything",
                    answered,
                    opts.resume_wait.as_secs_f64()
                ));
                break;
            }
            self.tx.drive(Duration::from_millis(20))?;
            self.events();
        }
        Ok(if self.receivers.table.is_empty() {
            all
        } else {
            self.receivers.needs(self.transfer_id, total)
        })
    }

    /// Send the plan's data; each block is checked against the manifest as it is read.
    fn send_segments(
        &mut self,
        manifest: &Manifest,
        files: &[SourceFile],
        plan: &[Segment],
        changed: &Rc<RefCell<Option<String>>>,
    ) -> Result<(), TransferError> {
        let chunk = u64::from(manifest.chunk);
        let block = manifest.block_bytes();
        let mut buf = vec![0u8; chunk as usize];
        let changed_error = |f: &SourceFile, why: String| {
            TransferError::new(
                exit::INPUT_CHANGED,
                format!("{} changed while being sent{why}", f.disk.display()),
            )
        };
        for seg in plan {
            let f = &files[seg.file];
            let entry = &manifest.entries[f.index as usize];
            let mut input = File::open(&f.disk).map_err(|e| {
                TransferError::new(exit::INPUT_CHANGED, format!("{}: {e}", f.disk.display()))
            })?;
            input
                .seek(SeekFrom::Start(seg.start))
                .map_err(|e| changed_error(f, format!(": {e}")))?;
            let mut offset = seg.start;
            let mut hasher = blake3::Hasher::new();
            while offset < seg.end {
                let len = (seg.end - offset).min(chunk) as usize;
                input
                    .read_exact(&mut buf[..len])
                    .map_err(|e| changed_error(f, format!(": {e}")))?;
                hasher.update(&buf[..len]);
                self.write(&message::encode_file_data(f.index, offset, &buf[..len]))?;
                offset += len as u64;
                self.bytes += len as u64;
                if offset % block == 0 || offset == f.size {
                    let b = (offset - 1) / block;
                    let expected = blocks::expected_hash(entry, b);
                    if expected != Some(hasher.finalize().as_bytes()) {
                        return Err(changed_error(f, format!(" (block {b})")));
                    }
                    hasher = blake3::Hasher::new();
                }
                if let Some(msg) = changed.borrow().clone() {
                    return Err(TransferError::new(exit::INPUT_CHANGED, msg));
                }
            }
            if !f.unchanged() {
                return Err(changed_error(f, String::new()));
            }
        }
        Ok(())
    }

    /// Send standard input as a stream, then its end with its hash.
    fn send_stdin(&mut self, chunk: usize) -> io::Result<()> {
        let mut stdin = io::stdin().lock();
        let mut buf = vec![0u8; chunk];
        let mut hasher = blake3::Hasher::new();
        loop {
            let mut len = 0;
            while len < chunk {
                let n = stdin.read(&mut buf[len..])?;
                if n == 0 {
                    break;
                }
                len += n;
            }
            if len == 0 {
                break;
            }
            hasher.update(&buf[..len]);
            self.write(&message::encode_stream_data(self.bytes, &buf[..len]))?;
            self.bytes += len as u64;
        }
        let end = message::encode_stream_end(self.bytes, hasher.finalize().as_bytes());
        self.write(&end)
    }

    /// Wait for the receivers' reports, as long as something progresses; whether every receiver reported.
    fn finish(
        &mut self,
        opts: &SendOptions,
        changed: &Rc<RefCell<Option<String>>>,
    ) -> Result<bool, TransferError> {
        self.last_activity = std::time::Instant::now();
        let packets_sent = |tx: &NetSender| {
            let s = tx.sender().stats();
            s.odata_packets + s.rdata_packets + s.parity_packets
        };
        let mut last_sent = packets_sent(self.tx);
        loop {
            if let Some(msg) = changed.borrow().clone() {
                return Err(TransferError::new(exit::INPUT_CHANGED, msg));
            }
            let known = self.receivers.table.len();
            let finished = self.receivers.finished(self.transfer_id);
            let drained = self.tx.sender().queued_bytes() == 0;
            // Every receiver heard from has reported (complete ones have everything, failed ones want nothing).
            if known > 0 && finished == known && known >= opts.wait_receivers {
                return Ok(true);
            }
            if drained && known == 0 && opts.wait_receivers == 0 {
                // Nobody to wait for: the engine's linger serves late repairs.
                return Ok(false);
            }
            // Progress: data or repairs leaving (status reports count in `events`).
            let sent = packets_sent(self.tx);
            if sent != last_sent {
                last_sent = sent;
                self.last_activity = std::time::Instant::now();
            }
            if self.last_activity.elapsed() >= opts.finish_timeout {
                self.observer
                    .message("finish timeout: no progress from the receivers");
                return Ok(false);
            }
            self.tx.drive(Duration::from_millis(50))?;
            self.events();
        }
    }
}

/// A file transfer's manifest, encoded, and the files it lists.
struct FilesToSend<'m> {
    manifest: &'m Manifest,
    encoded: Vec<u8>,
    files: &'m [SourceFile],
    layout: &'m BlockLayout,
}

impl Session<'_> {
    /// Send the manifest, repairable from its first packet, then the blocks the plan needs (all of them, or with
    /// `--resume` those some receiver lacks), every packet repairable from the files; returns the bytes the plan
    /// left out.
    fn send_files(
        &mut self,
        f: FilesToSend<'_>,
        opts: &SendOptions,
        changed: &Rc<RefCell<Option<String>>>,
    ) -> Result<u64, TransferError> {
        let chunk = u64::from(f.manifest.chunk);
        let manifest_first = self.tx.sender().next_write_sqn();
        let repairs_of = |encoded: Vec<u8>| {
            FileRepairs::manifest_only(
                manifest_first,
                encoded,
                chunk,
                f.files.to_vec(),
                changed.clone(),
            )
        };
        // The manifest is repairable at once; the data's sequence numbers follow once the plan is known.
        self.tx.sender_mut().set_repair_floor(Some(manifest_first));
        self.tx
            .set_repair_source(Box::new(repairs_of(f.encoded.clone())));
        self.write(&f.encoded)?;
        let needs = self.wait_for_needs(opts, f.layout.total())?;
        let plan = plan::segments(f.manifest, f.layout, f.files, &needs);
        let planned: u64 = plan.iter().map(|s| s.end - s.start).sum();
        let total = f.manifest.total_bytes();
        if opts.resume {
            self.observer.message(&format!(
                "resume: sending {planned} of {total} bytes, the receivers have the rest"
            ));
        }
        let data_first = self.tx.sender().next_write_sqn();
        let repairs = repairs_of(f.encoded).with_plan(data_first, &plan);
        self.tx.set_repair_source(Box::new(repairs));
        self.send_segments(f.manifest, f.files, &plan, changed)?;
        Ok(total - planned)
    }
}

/// Send `input` on `tx` (module docs of [`super`]).
pub fn send(
    tx: &mut NetSender,
    input: &SendInput,
    opts: &SendOptions,
    observer: &mut dyn Observer,
) -> Result<SendReport, TransferError> {
    let transfer_id = u32::from_be_bytes(crate::key_file::os_random()?);
    let max_tsdu = tx.sender().config().max_tsdu;
    let (manifest, files) = prepare(input, transfer_id, max_tsdu)?;
    let layout = BlockLayout::new(&manifest).ok_or_else(|| {
        TransferError::new(
            exit::USAGE,
            "more than 2^32 blocks to send: split the transfer",
        )
    })?;
    let mut session = Session {
        tx,
        observer,
        receivers: Receivers::default(),
        transfer_id,
        bytes: 0,
        total: (manifest.mode == TransferMode::Files).then(|| manifest.total_bytes()),
        acker_changes: 0,
        timeouts: 0,
        last_progress_report: std::time::Instant::now(),
        last_activity: std::time::Instant::now(),
        refusals: RefusalLog::default(),
        live: LiveStatus::new(opts.status_file.clone(), opts.metrics.clone()),
        status_error_told: false,
    };
    session.wait_for_receivers(opts)?;

    let start = std::time::Instant::now();
    let encoded = manifest.encode();
    let changed = Rc::new(RefCell::new(None::<String>));
    let skipped_bytes = if manifest.mode == TransferMode::Files {
        let files_plan = FilesToSend {
            manifest: &manifest,
            encoded,
            files: &files,
            layout: &layout,
        };
        session.send_files(files_plan, opts, &changed)?
    } else {
        session.write(&encoded)?;
        session.send_stdin(manifest.chunk as usize)?;
        0
    };

    let all_reported = session.finish(opts, &changed)?;
    let seconds = start.elapsed().as_secs_f64();
    if all_reported {
        // Nobody will NAK: close after the FIN instead of lingering for repairs.
        session.tx.sender_mut().no_repairs_needed();
    }
    let closing = std::time::Instant::now();
    let closed = session.tx.close(opts.close_timeout)?;
    let closing_seconds = closing.elapsed().as_secs_f64();
    session.events();
    session.write_status(true);
    Ok(SendReport {
        transfer_id,
        bytes: session.bytes,
        skipped_bytes,
        files: files.len(),
        seconds,
        receivers: session.receivers.outcomes(transfer_id),
        acker_changes: session.acker_changes,
        timeouts: session.timeouts,
        closed,
        closing_seconds,
    })
}
