//! The sending side of the file transfer: manifest, data, repairs from the files, receiver bookkeeping.

use super::message::{self, Entry, EntryKind, Manifest, TransferMode};
use super::{exit, status, Observer, Progress, ReceiverOutcome, TransferError, MAX_RECEIVERS};
use crate::sender::{random_u64, NetSender, RepairSource};
use convoy_proto::cc::CcEvent;
use convoy_proto::SenderEvent;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::{self, Read};
use std::net::IpAddr;
use std::os::unix::fs::{FileExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::{Duration, SystemTime};

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
}

impl Default for SendOptions {
    fn default() -> Self {
        SendOptions {
            wait_receivers: 0,
            wait: None,
            finish_timeout: Duration::from_secs(30),
            close_timeout: Duration::from_secs(30),
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

/// A file on disk as the manifest describes it.
#[derive(Clone, Debug)]
struct SourceFile {
    /// Manifest index.
    index: u32,
    disk: PathBuf,
    size: u64,
    modified: Option<SystemTime>,
    /// Sequence number of its first data message.
    first_sqn: u32,
}

/// A file to send: manifest index, path on disk, size and modification time when scanned.
type DiskFile = (u32, PathBuf, u64, Option<SystemTime>);

/// Build the manifest entries (and the files on disk) for `paths`.
fn scan(paths: &[PathBuf]) -> io::Result<(Vec<Entry>, Vec<DiskFile>)> {
    let mut entries = Vec::new();
    let mut files = Vec::new();
    fn add(
        disk: &Path,
        name: String,
        entries: &mut Vec<Entry>,
        files: &mut Vec<DiskFile>,
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
            let mut hasher = blake3::Hasher::new();
            let mut f = File::open(disk)
                .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", disk.display())))?;
            let mut buf = vec![0u8; 1 << 20];
            loop {
                let n = f.read(&mut buf)?;
                if n == 0 {
                    break;
                }
                hasher.update(&buf[..n]);
            }
            files.push((
                entries.len() as u32,
                disk.to_path_buf(),
                meta.len(),
                meta.modified().ok(),
            ));
            entries.push(Entry {
                kind: EntryKind::File,
                mode,
                size: meta.len(),
                hash: *hasher.finalize().as_bytes(),
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

/// Rebuilds any packet of a file transfer for a repair: the manifest from memory, data from the files. A file
/// whose size or modification time changed is refused and remembered in `changed`.
#[derive(Debug)]
pub struct FileRepairs {
    manifest_first: u32,
    manifest: Vec<u8>,
    chunk: u64,
    /// Files with data, by first sequence number.
    files: BTreeMap<u32, SourceFile>,
    changed: Rc<RefCell<Option<String>>>,
}

impl FileRepairs {
    fn unchanged(&self, f: &SourceFile) -> bool {
        fs::metadata(&f.disk).is_ok_and(|m| m.len() == f.size && m.modified().ok() == f.modified)
    }
}

impl RepairSource for FileRepairs {
    fn apdu_for(&mut self, sqn: u32) -> Option<(u32, Vec<u8>)> {
        let manifest_packets = self
            .files
            .keys()
            .next()
            .map_or(u32::MAX, |&first| first.wrapping_sub(self.manifest_first));
        if sqn.wrapping_sub(self.manifest_first) < manifest_packets {
            return Some((self.manifest_first, self.manifest.clone()));
        }
        let (_, f) = self.files.range(..=sqn).next_back()?;
        let index = u64::from(sqn.wrapping_sub(f.first_sqn));
        let offset = index * self.chunk;
        if offset >= f.size {
            return None;
        }
        if !self.unchanged(f) {
            *self.changed.borrow_mut() =
                Some(format!("{} changed while being sent", f.disk.display()));
            return None;
        }
        let len = (f.size - offset).min(self.chunk) as usize;
        let mut data = vec![0u8; len];
        let file = File::open(&f.disk).ok()?;
        file.read_exact_at(&mut data, offset).ok()?;
        Some((sqn, message::encode_file_data(f.index, offset, &data)))
    }
}

/// Receivers heard from.
#[derive(Debug, Default)]
struct Receivers {
    table: BTreeMap<IpAddr, (u32, u32, u32)>,
    cap_logged: bool,
}

impl Receivers {
    /// Note a report; returns a log line when the cap is reached for the first time.
    fn note(&mut self, from: IpAddr, token: u32, state: u32, detail: u32) -> Option<String> {
        if !self.table.contains_key(&from) && self.table.len() >= MAX_RECEIVERS {
            if !self.cap_logged {
                self.cap_logged = true;
                return Some(format!(
                    "receiver table full ({MAX_RECEIVERS}): ignoring reports from {from} and further new receivers"
                ));
            }
            return None;
        }
        self.table.insert(from, (token, state, detail));
        None
    }

    fn finished(&self, transfer_id: u32) -> usize {
        self.table
            .values()
            .filter(|(t, s, _)| {
                *t == transfer_id && (*s == status::COMPLETE || *s == status::FAILED)
            })
            .count()
    }

    fn outcomes(&self, transfer_id: u32) -> Vec<ReceiverOutcome> {
        self.table
            .iter()
            .map(|(addr, (t, s, d))| ReceiverOutcome {
                addr: *addr,
                state: match *s {
                    status::COMPLETE if *t == transfer_id => "complete",
                    status::FAILED if *t == transfer_id => "failed",
                    _ => "incomplete",
                },
                detail: *d,
            })
            .collect()
    }
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
}

impl Session<'_> {
    fn events(&mut self) {
        while let Some(e) = self.tx.poll_event() {
            match e {
                SenderEvent::ReceiverStatus { from, status } => {
                    self.last_activity = std::time::Instant::now();
                    if let Some(line) =
                        self.receivers
                            .note(from, status.token, status.state, status.detail)
                    {
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
                _ => {}
            }
        }
        if self.last_progress_report.elapsed() >= Duration::from_millis(100) {
            self.last_progress_report = std::time::Instant::now();
            let s = self.tx.sender();
            let p = Progress {
                bytes: self.bytes,
                total: self.total,
                repairs: s.stats().rdata_packets,
                acker: s.cc_snapshot().acker.map(|a| a.to_string()),
                receivers: Some((
                    self.receivers.finished(self.transfer_id),
                    self.receivers.table.len(),
                )),
            };
            self.observer.progress(&p);
        }
    }

    fn write(&mut self, apdu: &[u8]) -> io::Result<()> {
        self.tx.write(apdu)?;
        self.events();
        Ok(())
    }
}

/// Send `input` on `tx` (module docs of [`super`]).
pub fn send(
    tx: &mut NetSender,
    input: &SendInput,
    opts: &SendOptions,
    observer: &mut dyn Observer,
) -> Result<SendReport, TransferError> {
    let transfer_id = random_u64() as u32;
    let max_tsdu = tx.sender().config().max_tsdu;
    let (mode, entries, disk_files) = match input {
        SendInput::Paths(paths) => {
            let (e, f) = scan(paths).map_err(|e| TransferError::new(exit::USAGE, e.to_string()))?;
            (TransferMode::Files, e, f)
        }
        SendInput::Stdin => (TransferMode::Stream, Vec::new(), Vec::new()),
    };
    let chunk = match mode {
        TransferMode::Files => max_tsdu - message::FILE_DATA_HEADER,
        TransferMode::Stream => max_tsdu - message::STREAM_DATA_HEADER,
    };
    let manifest = Manifest {
        transfer_id,
        mode,
        chunk: chunk as u32,
        entries,
    };
    let total = (mode == TransferMode::Files).then(|| manifest.total_bytes());
    let mut session = Session {
        tx,
        observer,
        receivers: Receivers::default(),
        transfer_id,
        bytes: 0,
        total,
        acker_changes: 0,
        timeouts: 0,
        last_progress_report: std::time::Instant::now(),
        last_activity: std::time::Instant::now(),
    };

    // Wait for receivers.
    let wait_start = std::time::Instant::now();
    loop {
        let waited = wait_start.elapsed();
        let enough =
            opts.wait_receivers > 0 && session.receivers.table.len() >= opts.wait_receivers;
        let timed_out = opts.wait.is_some_and(|w| waited >= w);
        if enough || timed_out || (opts.wait_receivers == 0 && opts.wait.is_none()) {
            break;
        }
        session.tx.drive(Duration::from_millis(50))?;
        session.events();
    }
    if opts.wait_receivers > 0 {
        session.observer.message(&format!(
            "{} receiver(s) ready after {:.1} s",
            session.receivers.table.len(),
            wait_start.elapsed().as_secs_f64()
        ));
    }

    let start = std::time::Instant::now();
    let encoded = manifest.encode();
    let manifest_first = session.tx.sender().next_write_sqn();
    let changed = Rc::new(RefCell::new(None::<String>));
    if mode == TransferMode::Files {
        // Lay out the sequence numbers: the manifest, then one packet per data message, file after file.
        let manifest_packets = encoded.len().div_ceil(max_tsdu).max(1) as u32;
        let mut next = manifest_first.wrapping_add(manifest_packets);
        let mut files = BTreeMap::new();
        for (index, disk, size, modified) in &disk_files {
            if *size == 0 {
                continue;
            }
            files.insert(
                next,
                SourceFile {
                    index: *index,
                    disk: disk.clone(),
                    size: *size,
                    modified: *modified,
                    first_sqn: next,
                },
            );
            next = next.wrapping_add(size.div_ceil(chunk as u64) as u32);
        }
        session
            .tx
            .sender_mut()
            .set_repair_floor(Some(manifest_first));
        session.tx.set_repair_source(Box::new(FileRepairs {
            manifest_first,
            manifest: encoded.clone(),
            chunk: chunk as u64,
            files,
            changed: changed.clone(),
        }));
    }
    session.write(&encoded)?;
    let input_changed = |c: &Rc<RefCell<Option<String>>>| c.borrow().clone();

    match input {
        SendInput::Paths(_) => {
            let mut buf = vec![0u8; chunk];
            for (index, disk, size, modified) in &disk_files {
                let mut f = File::open(disk).map_err(|e| {
                    TransferError::new(exit::INPUT_CHANGED, format!("{}: {e}", disk.display()))
                })?;
                let mut hasher = blake3::Hasher::new();
                let mut offset = 0u64;
                while offset < *size {
                    let len = (*size - offset).min(chunk as u64) as usize;
                    f.read_exact(&mut buf[..len]).map_err(|e| {
                        TransferError::new(
                            exit::INPUT_CHANGED,
                            format!("{} changed while being sent: {e}", disk.display()),
                        )
                    })?;
                    hasher.update(&buf[..len]);
                    session.write(&message::encode_file_data(*index, offset, &buf[..len]))?;
                    offset += len as u64;
                    session.bytes += len as u64;
                    if let Some(msg) = input_changed(&changed) {
                        return Err(TransferError::new(exit::INPUT_CHANGED, msg));
                    }
                }
                let entry = &manifest.entries[*index as usize];
                let mut extra = [0u8; 1];
                let grew = f.read(&mut extra).map(|n| n > 0).unwrap_or(false);
                let touched = fs::metadata(disk)
                    .map(|m| m.len() != *size || m.modified().ok() != *modified)
                    .unwrap_or(true);
                if grew || touched || *hasher.finalize().as_bytes() != entry.hash {
                    return Err(TransferError::new(
                        exit::INPUT_CHANGED,
                        format!("{} changed while being sent", disk.display()),
                    ));
                }
            }
        }
        SendInput::Stdin => {
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
                session.write(&message::encode_stream_data(session.bytes, &buf[..len]))?;
                session.bytes += len as u64;
            }
            let end = message::encode_stream_end(session.bytes, hasher.finalize().as_bytes());
            session.write(&end)?;
        }
    }

    // Finish: wait for the receivers' reports, as long as something progresses.
    session.last_activity = std::time::Instant::now();
    let packets_sent = |tx: &NetSender| {
        let s = tx.sender().stats();
        s.odata_packets + s.rdata_packets
    };
    let mut last_sent = packets_sent(session.tx);
    let mut all_reported = false;
    loop {
        if let Some(msg) = input_changed(&changed) {
            return Err(TransferError::new(exit::INPUT_CHANGED, msg));
        }
        let known = session.receivers.table.len();
        let finished = session.receivers.finished(transfer_id);
        let drained = session.tx.sender().queued_bytes() == 0;
        // Every receiver heard from has reported (complete ones have everything, failed ones want nothing).
        if known > 0 && finished == known && known >= opts.wait_receivers {
            all_reported = true;
            break;
        }
        if drained && known == 0 && opts.wait_receivers == 0 {
            // Nobody to wait for: the engine's linger serves late repairs.
            break;
        }
        // Progress: data or repairs leaving (status reports count in `events`).
        let sent = packets_sent(session.tx);
        if sent != last_sent {
            last_sent = sent;
            session.last_activity = std::time::Instant::now();
        }
        if session.last_activity.elapsed() >= opts.finish_timeout {
            session
                .observer
                .message("finish timeout: no progress from the receivers");
            break;
        }
        session.tx.drive(Duration::from_millis(50))?;
        session.events();
    }
    let seconds = start.elapsed().as_secs_f64();
    if all_reported {
        // Nobody will NAK: close after the FIN instead of lingering for repairs.
        session.tx.sender_mut().no_repairs_needed();
    }
    let closing = std::time::Instant::now();
    let closed = session.tx.close(opts.close_timeout)?;
    let closing_seconds = closing.elapsed().as_secs_f64();
    session.events();
    Ok(SendReport {
        transfer_id,
        bytes: session.bytes,
        files: disk_files.len(),
        seconds,
        receivers: session.receivers.outcomes(transfer_id),
        acker_changes: session.acker_changes,
        timeouts: session.timeouts,
        closed,
        closing_seconds,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    #[test]
    fn the_receiver_table_is_capped_with_one_log_line() {
        let mut r = Receivers::default();
        let ip = |i: u32| IpAddr::V4(Ipv4Addr::from(0x0a00_0000 + i));
        for i in 0..MAX_RECEIVERS as u32 {
            assert!(r.note(ip(i), 1, status::JOINED, 0).is_none());
        }
        let line = r.note(ip(999_999), 1, status::JOINED, 0);
        assert!(line.is_some_and(|l| l.contains("receiver table full")));
        assert!(
            r.note(ip(999_998), 1, status::JOINED, 0).is_none(),
            "logged once"
        );
        assert_eq!(r.table.len(), MAX_RECEIVERS);
        // Known receivers still update.
        r.note(ip(0), 1, status::COMPLETE, 3);
        assert_eq!(r.finished(1), 1);
        assert_eq!(
            r.finished(2),
            0,
            "reports about another transfer do not count"
        );
    }

    #[test]
    fn repairs_rebuild_manifest_and_data_and_notice_changed_files() {
        let dir = std::env::temp_dir().join(format!("convoy-repairs-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f");
        let data: Vec<u8> = (0..10_000u32).map(|i| (i * 7) as u8).collect();
        fs::write(&path, &data).unwrap();
        let meta = fs::metadata(&path).unwrap();
        let mut files = BTreeMap::new();
        files.insert(
            103,
            SourceFile {
                index: 0,
                disk: path.clone(),
                size: 10_000,
                modified: meta.modified().ok(),
                first_sqn: 103,
            },
        );
        let changed = Rc::new(RefCell::new(None));
        let mut r = FileRepairs {
            manifest_first: 100,
            manifest: vec![9; 3000],
            chunk: 1000,
            files,
            changed: changed.clone(),
        };
        assert_eq!(r.apdu_for(101), Some((100, vec![9; 3000])));
        let (first, apdu) = r.apdu_for(105).unwrap();
        assert_eq!(first, 105);
        assert_eq!(
            message::decode(&apdu).unwrap(),
            message::Message::FileData {
                file: 0,
                offset: 2000,
                data: &data[2000..3000]
            }
        );
        assert!(r.apdu_for(113).is_none(), "past the end of the file");
        fs::write(&path, b"something else").unwrap();
        assert!(r.apdu_for(104).is_none());
        assert!(changed.borrow().is_some());
        fs::remove_dir_all(&dir).unwrap();
    }
}
