//! The receiving side of the file transfer: write `NAME.partial`, hash, rename on match; report upstream.

use super::message::{self, EntryKind, Manifest, Message, TransferMode};
use super::queued_writer::{QueuedWriter, DEFAULT_QUEUE_BYTES};
use super::{exit, status, Observer, Progress, TransferError, ANNOUNCE_INTERVAL, REPORT_INTERVAL};
use crate::receiver::NetReceiver;
use convoy_proto::cc::ReceiverCcEvent;
use convoy_proto::ReceiverEvent;
use convoy_wire::ReceiverStatus;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Where received data goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output {
    /// Files under this directory (created if missing); a stream becomes the file `stdin` there.
    Dir(PathBuf),
    /// A stream goes to standard output (a file transfer is refused).
    Stdout,
}

/// How the receive behaves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecvOptions {
    /// Where data goes.
    pub output: Output,
    /// Give up when the source has been silent this long (it sends SPMs at least every second).
    pub timeout: Duration,
    /// Give up if no source is heard at all within this time (`None`: wait forever).
    pub start_timeout: Option<Duration>,
    /// After finishing, how long at most to keep repeating the final report while waiting for the FIN.
    pub report_linger: Duration,
}

impl Default for RecvOptions {
    fn default() -> Self {
        RecvOptions {
            output: Output::Dir(PathBuf::from(".")),
            timeout: Duration::from_secs(10),
            start_timeout: None,
            report_linger: Duration::from_secs(10),
        }
    }
}

/// What became of one manifest entry.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct FileOutcome {
    /// Path relative to the output directory.
    pub path: String,
    /// Size announced.
    pub size: u64,
    /// "complete", "partial" (kept as `NAME.partial`), "missing" (nothing received) or "failed".
    pub state: &'static str,
    /// Why it is not complete.
    pub reason: Option<String>,
}

/// What a receive achieved.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct RecvReport {
    /// The transfer, once its manifest arrived.
    pub transfer_id: Option<u32>,
    /// Bytes written.
    pub bytes: u64,
    /// Seconds from the first packet to the end.
    pub seconds: f64,
    /// Every entry of the manifest.
    pub files: Vec<FileOutcome>,
    /// Exit code ([`exit`]).
    pub exit_code: u8,
    /// Why it ended.
    pub end: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum FileState {
    Pending,
    Complete,
    Failed { reason: String, local: bool },
}

/// Where a writer's bytes go; a queued one may ask the receive loop to wait ([`QueuedWriter`]).
trait Destination: Write {
    /// Whether the receive loop may hand over more data now.
    fn has_room(&self) -> bool {
        true
    }
}

impl Destination for io::BufWriter<File> {}

impl Destination for QueuedWriter {
    fn has_room(&self) -> bool {
        QueuedWriter::has_room(self)
    }
}

struct Writer {
    index: usize,
    file: Box<dyn Destination>,
    hasher: blake3::Hasher,
    written: u64,
}

/// The receiving state machine (independent of the network, so it can be tested on its own).
pub struct Sink {
    output: Output,
    manifest: Option<Manifest>,
    states: Vec<FileState>,
    current: Option<Writer>,
    stream_end: Option<Result<(), String>>,
    bytes: u64,
    fatal: Option<String>,
}

fn partial_name(p: &Path) -> PathBuf {
    let mut s = p.as_os_str().to_owned();
    s.push(".partial");
    PathBuf::from(s)
}

impl Sink {
    /// A sink writing to `output`.
    pub fn new(output: Output) -> Self {
        Sink {
            output,
            manifest: None,
            states: Vec::new(),
            current: None,
            stream_end: None,
            bytes: 0,
            fatal: None,
        }
    }

    /// The manifest, once received.
    pub fn manifest(&self) -> Option<&Manifest> {
        self.manifest.as_ref()
    }

    /// Bytes written.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    fn dir(&self) -> PathBuf {
        match &self.output {
            Output::Dir(d) => d.clone(),
            Output::Stdout => PathBuf::from("."),
        }
    }

    fn path_of(&self, index: usize) -> PathBuf {
        let m = self.manifest.as_ref().expect("manifest");
        self.dir().join(&m.entries[index].path)
    }

    fn fail(&mut self, index: usize, reason: String, local: bool) {
        if self.current.as_ref().is_some_and(|w| w.index == index) {
            self.current = None;
        }
        if self.states.get(index) == Some(&FileState::Pending) {
            self.states[index] = FileState::Failed { reason, local };
        }
    }

    /// Whether the output can take more data now; while it cannot, the receive loop leaves deliveries in the
    /// receive window (whose memory bound then slows the session) instead of blocking on a slow consumer.
    pub fn can_take(&self) -> bool {
        self.current.as_ref().is_none_or(|w| w.file.has_room())
    }

    /// Whether every entry is complete or failed (a stream: ended).
    pub fn is_done(&self) -> bool {
        match &self.manifest {
            None => false,
            Some(m) if m.mode == TransferMode::Stream => self.stream_end.is_some(),
            Some(_) => self.states.iter().all(|s| *s != FileState::Pending),
        }
    }

    /// Whether everything arrived intact.
    pub fn is_complete(&self) -> bool {
        match &self.manifest {
            Some(m) if m.mode == TransferMode::Stream => self.stream_end == Some(Ok(())),
            Some(_) => self.states.iter().all(|s| *s == FileState::Complete),
            None => false,
        }
    }

    fn open_manifest(&mut self, m: Manifest) -> io::Result<()> {
        if m.mode == TransferMode::Files && self.output == Output::Stdout {
            return Err(io::Error::other(
                "a file transfer cannot go to standard output: use --out DIR",
            ));
        }
        fs::create_dir_all(self.dir())?;
        self.states = vec![FileState::Pending; m.entries.len()];
        self.manifest = Some(m);
        let entries = self
            .manifest
            .as_ref()
            .map(|m| m.entries.clone())
            .unwrap_or_default();
        for (i, e) in entries.iter().enumerate() {
            let path = self.path_of(i);
            match e.kind {
                EntryKind::Directory => match fs::create_dir_all(&path) {
                    Ok(()) => {
                        let _ =
                            fs::set_permissions(&path, fs::Permissions::from_mode(e.mode | 0o700));
                        self.states[i] = FileState::Complete;
                    }
                    Err(err) => self.fail(i, format!("{}: {err}", path.display()), true),
                },
                EntryKind::File if e.size == 0 => {
                    let w = self.start_file(i);
                    if let Err(err) = w.and_then(|()| self.finish_file()) {
                        self.fail(i, format!("{}: {err}", path.display()), true);
                    }
                }
                EntryKind::File => {}
            }
        }
        if let Some(m) = &self.manifest {
            if m.mode == TransferMode::Stream {
                // A stream's consumer may be slow (a pipe): write on a thread, never block the receive loop.
                let out: Box<dyn Write + Send> = match &self.output {
                    Output::Stdout => Box::new(io::BufWriter::with_capacity(1 << 20, io::stdout())),
                    Output::Dir(d) => Box::new(io::BufWriter::with_capacity(
                        1 << 20,
                        File::create(d.join("stdin"))?,
                    )),
                };
                let file = Box::new(QueuedWriter::new(out, DEFAULT_QUEUE_BYTES));
                self.current = Some(Writer {
                    index: 0,
                    file,
                    hasher: blake3::Hasher::new(),
                    written: 0,
                });
            }
        }
        Ok(())
    }

    fn start_file(&mut self, index: usize) -> io::Result<()> {
        let path = self.path_of(index);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)?;
        }
        let file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(partial_name(&path))?;
        self.current = Some(Writer {
            index,
            file: Box::new(io::BufWriter::with_capacity(1 << 20, file)),
            hasher: blake3::Hasher::new(),
            written: 0,
        });
        Ok(())
    }

    /// The current file is complete: check its hash, set its mode, rename it.
    fn finish_file(&mut self) -> io::Result<()> {
        let Some(mut w) = self.current.take() else {
            return Ok(());
        };
        w.file.flush()?;
        drop(w.file);
        let entry = self.manifest.as_ref().expect("manifest").entries[w.index].clone();
        let path = self.path_of(w.index);
        if *w.hasher.finalize().as_bytes() != entry.hash {
            self.states[w.index] = FileState::Failed {
                reason: "content does not match the manifest's BLAKE3 hash".into(),
                local: false,
            };
            return Ok(());
        }
        let partial = partial_name(&path);
        fs::set_permissions(&partial, fs::Permissions::from_mode(entry.mode))?;
        fs::rename(&partial, &path)?;
        self.states[w.index] = FileState::Complete;
        Ok(())
    }

    fn file_data(&mut self, file: u32, offset: u64, data: &[u8]) {
        let Some(m) = &self.manifest else { return };
        let i = file as usize;
        let Some(entry) = m.entries.get(i) else {
            return;
        };
        if entry.kind != EntryKind::File || self.states[i] != FileState::Pending {
            return;
        }
        let size = entry.size;
        if offset.saturating_add(data.len() as u64) > size {
            self.fail(
                i,
                format!("data beyond the announced size at offset {offset}"),
                false,
            );
            return;
        }
        if let Some(prev) = self.current.as_ref().map(|w| w.index).filter(|&p| p != i) {
            self.fail(prev, "data lost (the source moved on)".into(), false);
        }
        if self.current.is_none() {
            if offset != 0 {
                self.fail(i, format!("data lost before offset {offset}"), false);
                return;
            }
            if let Err(e) = self.start_file(i) {
                let p = self.path_of(i);
                self.fail(i, format!("{}: {e}", p.display()), true);
                return;
            }
        }
        let Some(w) = self.current.as_mut() else {
            return;
        };
        if w.written != offset {
            let at = w.written;
            self.fail(i, format!("data lost at offset {at}"), false);
            return;
        }
        if let Err(e) = w.file.write_all(data) {
            let p = self.path_of(i);
            self.fail(i, format!("{}: {e}", p.display()), true);
            return;
        }
        w.hasher.update(data);
        w.written += data.len() as u64;
        self.bytes += data.len() as u64;
        if w.written == size {
            if let Err(e) = self.finish_file() {
                let p = self.path_of(i);
                self.fail(i, format!("{}: {e}", p.display()), true);
            }
        }
    }

    fn stream_data(&mut self, offset: u64, data: &[u8]) {
        if self.stream_end.is_some() {
            return;
        }
        let Some(w) = self.current.as_mut() else {
            return;
        };
        if w.written != offset {
            self.stream_end = Some(Err(format!("stream data lost at offset {}", w.written)));
            return;
        }
        if let Err(e) = w.file.write_all(data) {
            self.stream_end = Some(Err(format!("writing the stream: {e}")));
            return;
        }
        w.hasher.update(data);
        w.written += data.len() as u64;
        self.bytes += data.len() as u64;
    }

    /// One delivered APDU.
    pub fn apdu(&mut self, apdu: &[u8]) -> Result<(), String> {
        match message::decode(apdu).map_err(|e| e.to_string())? {
            Message::Manifest(m) => {
                if self.manifest.is_none() && self.fatal.is_none() {
                    if let Err(e) = self.open_manifest(m) {
                        let msg = format!("cannot start the transfer here: {e}");
                        self.fatal = Some(msg.clone());
                        return Err(msg);
                    }
                }
            }
            Message::FileData { file, offset, data } => self.file_data(file, offset, data),
            Message::StreamData { offset, data } => self.stream_data(offset, data),
            Message::StreamEnd { total, hash } => {
                if self.stream_end.is_none() {
                    let result = match self.current.take() {
                        Some(mut w) if w.written == total => {
                            let flushed = w.file.flush();
                            if *w.hasher.finalize().as_bytes() != hash {
                                Err("stream does not match its BLAKE3 hash".to_string())
                            } else {
                                flushed.map_err(|e| e.to_string())
                            }
                        }
                        _ => Err("stream data lost".to_string()),
                    };
                    self.stream_end = Some(result);
                }
            }
        }
        Ok(())
    }

    /// Data for sequence numbers that can no longer be repaired: the file being written cannot complete.
    pub fn lost(&mut self) {
        if let Some(i) = self.current.as_ref().map(|w| w.index) {
            if self
                .manifest
                .as_ref()
                .is_some_and(|m| m.mode == TransferMode::Files)
            {
                self.fail(i, "data lost (unrecoverable)".into(), false);
            } else if self.stream_end.is_none() {
                self.stream_end = Some(Err("stream data lost (unrecoverable)".into()));
            }
        }
    }

    /// Stop: every pending file is left as it is (`.partial` kept). Returns the outcome per entry.
    pub fn outcomes(&mut self, why: &str) -> Vec<FileOutcome> {
        if let Some(mut w) = self.current.take() {
            let _ = w.file.flush();
        }
        let Some(m) = &self.manifest else {
            return Vec::new();
        };
        if m.mode == TransferMode::Stream {
            return vec![FileOutcome {
                path: "-".into(),
                size: self.bytes,
                state: if self.stream_end == Some(Ok(())) {
                    "complete"
                } else {
                    "failed"
                },
                reason: match &self.stream_end {
                    Some(Ok(())) => None,
                    Some(Err(e)) => Some(e.clone()),
                    None => Some(why.to_string()),
                },
            }];
        }
        let dir = self.dir();
        m.entries
            .iter()
            .zip(&self.states)
            .map(|(e, s)| {
                let partial = partial_name(&dir.join(&e.path)).exists();
                let (state, reason) = match s {
                    FileState::Complete => ("complete", None),
                    FileState::Failed { reason, .. } => (
                        if partial { "partial" } else { "failed" },
                        Some(reason.clone()),
                    ),
                    FileState::Pending => (
                        if partial { "partial" } else { "missing" },
                        Some(why.to_string()),
                    ),
                };
                FileOutcome {
                    path: e.path.clone(),
                    size: e.size,
                    state,
                    reason,
                }
            })
            .collect()
    }

    /// Whether a local write failed (disk full, permission denied).
    pub fn local_failure(&self) -> bool {
        self.fatal.is_some()
            || self
                .states
                .iter()
                .any(|s| matches!(s, FileState::Failed { local: true, .. }))
    }

    fn incomplete_count(&self) -> u32 {
        self.states
            .iter()
            .filter(|s| **s != FileState::Complete)
            .count() as u32
    }
}

/// Receive one transfer on `rx` (module docs of [`super`]).
pub fn receive(
    rx: &mut NetReceiver,
    opts: &RecvOptions,
    observer: &mut dyn Observer,
) -> Result<RecvReport, TransferError> {
    let mut sink = Sink::new(opts.output.clone());
    let began = Instant::now();
    let mut first_heard: Option<Instant> = None;
    let mut last_status: Option<Instant> = None;
    let mut last_progress = Instant::now();
    let mut done_at: Option<Instant> = None;
    let mut fin = false;
    let mut is_acker = false;
    let end = loop {
        let event = if sink.can_take() {
            rx.recv(Duration::from_millis(50))?
        } else {
            rx.drive(Duration::from_millis(5))?;
            None
        };
        if first_heard.is_none() && rx.silence().is_some() {
            first_heard = Some(Instant::now());
        }
        match event {
            Some(ReceiverEvent::Data(apdu)) => {
                if let Err(e) = sink.apdu(&apdu) {
                    if sink.fatal.is_none() {
                        observer.message(&format!("ignored a message: {e}"));
                    }
                }
            }
            Some(ReceiverEvent::Lost {
                first_sqn,
                last_sqn,
            }) => {
                observer.message(&format!("lost sequence numbers {first_sqn}..={last_sqn}"));
                sink.lost();
            }
            Some(ReceiverEvent::Finished) => fin = true,
            Some(ReceiverEvent::Cc(ReceiverCcEvent::AckerRole(a))) => is_acker = a,
            Some(ReceiverEvent::Cc(ReceiverCcEvent::MustLeave)) => {
                // RFC 4654 §4.4: a TFMCC receiver whose path cannot carry one packet per 8 s for 120 s must leave,
                // or the whole session would crawl at its pace.
                break "left the session: for more than 120 s this receiver's path could not carry one packet \
                       per 8 s at the source's rate (TFMCC's leave rule, RFC 4654 §4.4)"
                    .to_string();
            }
            _ => {}
        }
        let token = sink.manifest().map_or(0, |m| m.transfer_id);
        let done = sink.is_done();
        if done && done_at.is_none() {
            done_at = Some(Instant::now());
            last_status = None;
        }
        let interval = if done {
            REPORT_INTERVAL
        } else {
            ANNOUNCE_INTERVAL
        };
        let should_report = rx.silence().is_some()
            && (done || sink.manifest().is_none())
            && last_status.is_none_or(|t| t.elapsed() >= interval);
        if should_report {
            let (state, detail) = match (done, sink.is_complete()) {
                (false, _) => (status::JOINED, 0),
                (true, true) => (status::COMPLETE, sink.states.len() as u32),
                (true, false) => (status::FAILED, sink.incomplete_count()),
            };
            rx.send_status(ReceiverStatus {
                token,
                state,
                detail,
            })?;
            last_status = Some(Instant::now());
        }
        if last_progress.elapsed() >= Duration::from_millis(100) {
            last_progress = Instant::now();
            observer.progress(&Progress {
                bytes: sink.bytes(),
                total: sink
                    .manifest()
                    .filter(|m| m.mode == TransferMode::Files)
                    .map(|m| m.total_bytes()),
                repairs: rx.receiver().stats().rdata,
                acker: is_acker.then(|| "this receiver".to_string()),
                receivers: None,
            });
        }
        if let Some(t) = done_at {
            if fin || t.elapsed() >= opts.report_linger {
                let how = if sink.is_complete() {
                    "complete"
                } else {
                    "could not complete"
                };
                break how.to_string();
            }
            continue;
        }
        if let Some(f) = &sink.fatal {
            break f.clone();
        }
        if fin {
            break "the source closed the session before everything arrived".to_string();
        }
        match rx.silence() {
            Some(s) if s >= opts.timeout => break "the source went silent (timeout)".to_string(),
            None if opts.start_timeout.is_some_and(|t| began.elapsed() >= t) => {
                break "no source heard (start timeout)".to_string()
            }
            _ => {}
        }
    };
    if !sink.is_done() && rx.silence().is_some() {
        // Tell the source this receiver gives up (best effort).
        let token = sink.manifest().map_or(0, |m| m.transfer_id);
        rx.send_status(ReceiverStatus {
            token,
            state: status::FAILED,
            detail: sink.incomplete_count(),
        })?;
    }
    let exit_code = if sink.is_complete() {
        exit::OK
    } else if sink.local_failure() {
        exit::LOCAL_IO
    } else {
        exit::INCOMPLETE
    };
    let files = sink.outcomes(&end);
    Ok(RecvReport {
        transfer_id: sink.manifest().map(|m| m.transfer_id),
        bytes: sink.bytes(),
        seconds: first_heard.map_or(0.0, |t| t.elapsed().as_secs_f64()),
        files,
        exit_code,
        end,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transfer::message::{encode_file_data, Entry};

    fn manifest(data: &[u8]) -> Vec<u8> {
        Manifest {
            transfer_id: 5,
            mode: TransferMode::Files,
            chunk: 4,
            entries: vec![
                Entry {
                    kind: EntryKind::Directory,
                    mode: 0o755,
                    size: 0,
                    hash: [0; 32],
                    path: "d".into(),
                },
                Entry {
                    kind: EntryKind::File,
                    mode: 0o640,
                    size: data.len() as u64,
                    hash: *blake3::hash(data).as_bytes(),
                    path: "d/f".into(),
                },
            ],
        }
        .encode()
    }

    fn scratch(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("convoy-sink-{tag}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn a_file_is_renamed_only_when_its_hash_matches() {
        let dir = scratch("ok");
        let mut s = Sink::new(Output::Dir(dir.clone()));
        s.apdu(&manifest(b"abcdefgh")).unwrap();
        s.apdu(&encode_file_data(1, 0, b"abcd")).unwrap();
        assert!(dir.join("d/f.partial").exists() && !s.is_done());
        s.apdu(&encode_file_data(1, 4, b"efgh")).unwrap();
        assert!(s.is_complete());
        assert_eq!(fs::read(dir.join("d/f")).unwrap(), b"abcdefgh");
        let mode = fs::metadata(dir.join("d/f")).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o640);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn wrong_content_or_lost_data_keeps_the_partial_file() {
        let dir = scratch("bad");
        let mut s = Sink::new(Output::Dir(dir.clone()));
        s.apdu(&manifest(b"abcdefgh")).unwrap();
        s.apdu(&encode_file_data(1, 0, b"abcd")).unwrap();
        s.apdu(&encode_file_data(1, 4, b"XXXX")).unwrap();
        assert!(s.is_done() && !s.is_complete());
        let out = s.outcomes("test");
        assert_eq!(out[1].state, "partial");
        assert!(out[1].reason.as_deref().unwrap().contains("BLAKE3"));
        assert!(!dir.join("d/f").exists());
        fs::remove_dir_all(&dir).unwrap();

        let dir = scratch("gap");
        let mut s = Sink::new(Output::Dir(dir.clone()));
        s.apdu(&manifest(b"abcdefgh")).unwrap();
        s.apdu(&encode_file_data(1, 0, b"abcd")).unwrap();
        s.lost();
        let out = s.outcomes("test");
        assert_eq!(out[1].state, "partial");
        assert!(!s.local_failure());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn hostile_messages_are_refused() {
        let dir = scratch("hostile");
        let mut s = Sink::new(Output::Dir(dir.clone()));
        assert!(s.apdu(&[0x01, 9, 9]).is_err());
        s.apdu(&manifest(b"ab")).unwrap();
        // Out of range, wrong offsets and data beyond the announced size change nothing.
        s.apdu(&encode_file_data(7, 0, b"zz")).unwrap();
        s.apdu(&encode_file_data(0, 0, b"zz")).unwrap();
        s.apdu(&encode_file_data(1, 0, b"abc")).unwrap();
        let out = s.outcomes("test");
        assert_eq!(out[1].state, "failed");
        assert!(!dir.join("d/f").exists());
        fs::remove_dir_all(&dir).unwrap();
    }
}
