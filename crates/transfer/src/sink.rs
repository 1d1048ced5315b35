//! The receiving side of the file transfer: write `NAME.partial`, hash, rename on match; what is missing
//! (the loop around it that reports upstream: [`crate::receive`]).

use super::assembly::{partial_name, FileAssembly, FileState};
use super::message::{self, Manifest, Message, TransferMode};
use super::queued_writer::{QueuedWriter, DEFAULT_QUEUE_BYTES};
use std::fs::{self, File};
use std::io::{self, Write};
use std::path::PathBuf;

/// Where received data goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output {
    /// Files under this directory (created if missing); a stream becomes the file `stdin` there.
    Dir(PathBuf),
    /// A stream goes to standard output (a file transfer is refused).
    Stdout,
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

/// The stream being written, on a thread ([`QueuedWriter`]) so a slow consumer never blocks the receive loop.
struct StreamWriter {
    file: QueuedWriter,
    hasher: blake3::Hasher,
    written: u64,
}

/// The receiving state machine (independent of the network, so it can be tested on its own).
pub struct Sink {
    output: Output,
    manifest: Option<Manifest>,
    /// A file transfer's files, once its manifest arrived.
    files: Option<FileAssembly>,
    stream: Option<StreamWriter>,
    stream_end: Option<Result<(), String>>,
    bytes: u64,
    fatal: Option<String>,
}

impl Sink {
    /// A sink writing to `output`.
    pub fn new(output: Output) -> Self {
        Sink {
            output,
            manifest: None,
            files: None,
            stream: None,
            stream_end: None,
            bytes: 0,
            fatal: None,
        }
    }

    /// The manifest, once received.
    pub fn manifest(&self) -> Option<&Manifest> {
        self.manifest.as_ref()
    }

    /// Bytes written in this run.
    pub fn bytes(&self) -> u64 {
        self.bytes + self.files.as_ref().map_or(0, |f| f.written)
    }

    /// Bytes of files found already verified on disk when the manifest came (resumed, not received again).
    pub fn resumed_bytes(&self) -> u64 {
        self.files.as_ref().map_or(0, |f| f.resumed)
    }

    fn dir(&self) -> PathBuf {
        match &self.output {
            Output::Dir(d) => d.clone(),
            Output::Stdout => PathBuf::from("."),
        }
    }

    /// Whether the output can take more data now; while it cannot, the receive loop leaves deliveries in the
    /// receive window (whose memory bound then slows the session) instead of blocking on a slow consumer.
    pub fn can_take(&self) -> bool {
        self.stream.as_ref().is_none_or(|w| w.file.has_room())
    }

    /// Whether every entry is complete or failed (a stream: ended).
    pub fn is_done(&self) -> bool {
        match (&self.manifest, &self.files) {
            (None, _) => false,
            (Some(_), Some(f)) => f.states.iter().all(|s| *s != FileState::Pending),
            (Some(_), None) => self.stream_end.is_some(),
        }
    }

    /// Whether everything arrived intact.
    pub fn is_complete(&self) -> bool {
        match (&self.manifest, &self.files) {
            (None, _) => false,
            (Some(_), Some(f)) => f.states.iter().all(|s| *s == FileState::Complete),
            (Some(_), None) => self.stream_end == Some(Ok(())),
        }
    }

    /// Whether a file transfer's manifest arrived and its data has not started (the receiver then reports what
    /// it lacks, [`Sink::needs`]).
    pub fn needs_pending(&self) -> bool {
        self.files.as_ref().is_some_and(|f| !f.data_seen)
    }

    /// While a file transfer's data has not started: the blocks this receiver lacks (at most
    /// [`convoy_wire::MAX_NEEDS`] ranges, a superset when coarsened) and how many blocks that is exactly.
    pub fn needs(&self) -> Option<(Vec<convoy_wire::BlockRange>, u64)> {
        self.files
            .as_ref()
            .filter(|f| !f.data_seen)
            .map(FileAssembly::needs)
    }

    fn open_manifest(&mut self, m: Manifest) -> io::Result<()> {
        if m.mode == TransferMode::Files && self.output == Output::Stdout {
            return Err(io::Error::other(
                "a file transfer cannot go to standard output: use --out DIR",
            ));
        }
        fs::create_dir_all(self.dir())?;
        if m.mode == TransferMode::Files {
            self.files = Some(FileAssembly::open(self.dir(), m.clone())?);
        } else {
            // A stream's consumer may be slow (a pipe): write on a thread, never block the receive loop.
            let out: Box<dyn Write + Send> = match &self.output {
                Output::Stdout => Box::new(io::BufWriter::with_capacity(1 << 20, io::stdout())),
                Output::Dir(d) => Box::new(io::BufWriter::with_capacity(
                    1 << 20,
                    File::create(d.join("stdin"))?,
                )),
            };
            self.stream = Some(StreamWriter {
                file: QueuedWriter::new(out, DEFAULT_QUEUE_BYTES),
                hasher: blake3::Hasher::new(),
                written: 0,
            });
        }
        self.manifest = Some(m);
        Ok(())
    }

    fn stream_data(&mut self, offset: u64, data: &[u8]) {
        if self.stream_end.is_some() {
            return;
        }
        let Some(w) = self.stream.as_mut() else {
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

    fn stream_end(&mut self, total: u64, hash: [u8; 32]) {
        if self.stream_end.is_some() {
            return;
        }
        let result = match self.stream.take() {
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
            Message::FileData { file, offset, data } => {
                if let Some(f) = self.files.as_mut() {
                    f.data(file as usize, offset, data);
                }
            }
            Message::StreamData { offset, data } => self.stream_data(offset, data),
            Message::StreamEnd { total, hash } => self.stream_end(total, hash),
        }
        Ok(())
    }

    /// Data for sequence numbers that can no longer be repaired: what was being written cannot complete.
    pub fn lost(&mut self) {
        if let Some(f) = self.files.as_mut() {
            f.lost();
        } else if self.stream.is_some() && self.stream_end.is_none() {
            self.stream_end = Some(Err("stream data lost (unrecoverable)".into()));
        }
    }

    /// Stop: every pending file is left as it is (`.partial` kept). Returns the outcome per entry.
    pub fn outcomes(&mut self, why: &str) -> Vec<FileOutcome> {
        if let Some(mut w) = self.stream.take() {
            let _ = w.file.flush();
        }
        if let Some(f) = self.files.as_mut() {
            f.flush();
            let dir = f.dir().to_path_buf();
            return f
                .manifest()
                .entries
                .iter()
                .zip(&f.states)
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
                .collect();
        }
        if self.manifest.is_none() {
            return Vec::new();
        }
        vec![FileOutcome {
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
        }]
    }

    /// Whether a local write failed (disk full, permission denied).
    pub fn local_failure(&self) -> bool {
        self.fatal.is_some()
            || self.files.as_ref().is_some_and(|f| {
                f.states
                    .iter()
                    .any(|s| matches!(s, FileState::Failed { local: true, .. }))
            })
    }

    /// Why the receive cannot go on, when a local failure or the manifest says so.
    pub(crate) fn fatal(&self) -> Option<&String> {
        self.fatal.as_ref()
    }

    /// The manifest's number of entries (1 for a stream).
    pub(crate) fn entry_count(&self) -> u32 {
        self.files.as_ref().map_or(1, |f| f.states.len() as u32)
    }

    /// Entries not complete.
    pub(crate) fn incomplete_count(&self) -> u32 {
        match &self.files {
            Some(f) => f
                .states
                .iter()
                .filter(|s| **s != FileState::Complete)
                .count() as u32,
            None => u32::from(!self.is_complete()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blocks::hash_blocks;
    use crate::message::{encode_file_data, Entry, EntryKind};
    use convoy_wire::BlockRange;
    use std::os::unix::fs::PermissionsExt;

    /// A directory `d` and the file `d/f` holding `data`, in blocks of 2 messages of 4 bytes.
    fn manifest(data: &[u8]) -> Vec<u8> {
        let (hash, blocks) = hash_blocks(&mut &data[..], data.len() as u64, 8).unwrap();
        Manifest {
            transfer_id: 5,
            mode: TransferMode::Files,
            chunk: 4,
            block_chunks: 2,
            entries: vec![
                Entry {
                    kind: EntryKind::Directory,
                    mode: 0o755,
                    size: 0,
                    hash: [0; 32],
                    blocks: Vec::new(),
                    path: "d".into(),
                },
                Entry {
                    kind: EntryKind::File,
                    mode: 0o640,
                    size: data.len() as u64,
                    hash,
                    blocks,
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

    /// Feed `data` to `s` as file 1, message by message, from `from` to `to`.
    fn feed(s: &mut Sink, data: &[u8], from: usize, to: usize) {
        for at in (from..to).step_by(4) {
            let end = (at + 4).min(to);
            s.apdu(&encode_file_data(1, at as u64, &data[at..end]))
                .unwrap();
        }
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

    #[test]
    fn a_killed_receiver_keeps_its_verified_blocks_and_asks_only_for_the_rest() {
        let data: Vec<u8> = (0..40u8).collect(); // 5 blocks of 8 bytes
        let dir = scratch("resume");
        let mut s = Sink::new(Output::Dir(dir.clone()));
        s.apdu(&manifest(&data)).unwrap();
        assert_eq!(
            s.needs(),
            Some((vec![BlockRange { first: 0, count: 5 }], 5))
        );
        feed(&mut s, &data, 0, 20); // blocks 0 and 1, half of block 2
        drop(s.outcomes("killed"));

        let mut s = Sink::new(Output::Dir(dir.clone()));
        s.apdu(&manifest(&data)).unwrap();
        assert_eq!(s.resumed_bytes(), 16);
        assert_eq!(
            s.needs(),
            Some((vec![BlockRange { first: 2, count: 3 }], 3))
        );
        // The source sends only blocks 2..5.
        feed(&mut s, &data, 16, 40);
        assert!(s.is_complete());
        assert_eq!(s.bytes(), 24);
        assert_eq!(fs::read(dir.join("d/f")).unwrap(), data);

        // Run again: the whole file is here, nothing is needed, nothing is written.
        let mut s = Sink::new(Output::Dir(dir.clone()));
        s.apdu(&manifest(&data)).unwrap();
        assert!(s.is_complete());
        assert_eq!(s.resumed_bytes(), 40);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn held_blocks_sent_again_are_not_rewritten_and_a_skipped_block_fails_the_file() {
        let data: Vec<u8> = (100..140u8).collect();
        let dir = scratch("skip");
        fs::create_dir_all(dir.join("d")).unwrap();
        // Blocks 1 and 3 are on disk from an earlier run; block 0 is garbage.
        let mut partial = vec![0xee; 32];
        partial[8..16].copy_from_slice(&data[8..16]);
        partial[24..32].copy_from_slice(&data[24..32]);
        fs::write(dir.join("d/f.partial"), &partial).unwrap();
        let mut s = Sink::new(Output::Dir(dir.clone()));
        s.apdu(&manifest(&data)).unwrap();
        assert_eq!(
            s.needs().unwrap().0,
            vec![
                BlockRange { first: 0, count: 1 },
                BlockRange { first: 2, count: 1 },
                BlockRange { first: 4, count: 1 }
            ]
        );
        // Everything comes (a source without resume): only the missing blocks are written.
        feed(&mut s, &data, 0, 40);
        assert!(s.is_complete());
        assert_eq!(s.bytes(), 24);
        assert_eq!(fs::read(dir.join("d/f")).unwrap(), data);
        fs::remove_dir_all(&dir).unwrap();

        // A needed block the data passes over fails the file, naming the bytes; later blocks are still kept.
        let dir = scratch("passed");
        let mut s = Sink::new(Output::Dir(dir.clone()));
        s.apdu(&manifest(&data)).unwrap();
        feed(&mut s, &data, 0, 8);
        feed(&mut s, &data, 16, 40);
        assert!(s.is_done() && !s.is_complete());
        let out = s.outcomes("test");
        assert!(out[1]
            .reason
            .as_deref()
            .unwrap()
            .contains("bytes 8..16 (block 1) were not sent"));
        let mut s = Sink::new(Output::Dir(dir.clone()));
        s.apdu(&manifest(&data)).unwrap();
        assert_eq!(
            s.needs().unwrap().0,
            vec![BlockRange { first: 1, count: 1 }]
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_partial_of_another_file_is_not_trusted() {
        let data: Vec<u8> = (0..24u8).collect();
        let dir = scratch("other");
        fs::create_dir_all(dir.join("d")).unwrap();
        fs::write(dir.join("d/f.partial"), vec![7u8; 100]).unwrap();
        let mut s = Sink::new(Output::Dir(dir.clone()));
        s.apdu(&manifest(&data)).unwrap();
        assert_eq!(s.resumed_bytes(), 0);
        feed(&mut s, &data, 0, 24);
        assert!(s.is_complete());
        assert_eq!(
            fs::read(dir.join("d/f")).unwrap(),
            data,
            "cut to the announced size"
        );
        fs::remove_dir_all(&dir).unwrap();
    }
}
