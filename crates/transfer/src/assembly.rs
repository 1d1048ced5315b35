//! A receiver's files of one manifest, block by block: what is already on disk, what arrives, what is missing.
//!
//! Rules ([`super::blocks`] has the numbering):
//! 1. **At the manifest**, every file entry is looked for on disk. `NAME` whose every block matches is complete
//!    as it stands (nothing is written). Otherwise every whole block of `NAME.partial` is hashed, and those
//!    that match are *held*: a receiver killed or failed earlier keeps them.
//! 2. **Data** arrives in ascending global block order (the source sends blocks in that order, and PGM
//!    delivers in sequence order). A block is written where it belongs in `NAME.partial` as it arrives and is
//!    held only once its hash matched; a held block that arrives again is not written.
//! 3. **A block is lost** when data for it starts past its first byte, stops short of its end before another
//!    block's data comes, or is skipped (the data moved past it): its file fails (other blocks of that file
//!    are still written and kept for the next run). An unrecoverable gap (`FileAssembly::lost`) loses the
//!    block being written.
//! 4. **A file completes** when all its blocks are held: `NAME.partial` is cut to the announced size, given
//!    its mode, and renamed to `NAME`.

use super::blocks::{self, BlockLayout};
use super::message::{EntryKind, Manifest};
use convoy_wire::{BlockRange, MAX_NEEDS};
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// What became of one entry so far.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum FileState {
    /// Still arriving.
    Pending,
    /// Every block matched; renamed into place.
    Complete,
    /// Cannot complete in this run; `local` when the cause is this machine (a write failed).
    Failed { reason: String, local: bool },
}

/// The block being received.
struct BlockInProgress {
    entry: usize,
    block: u64,
    global: u32,
    /// Next offset expected in the file.
    next: u64,
    end: u64,
    /// Already held: the data is not written again.
    held: bool,
    hasher: blake3::Hasher,
}

/// The `.partial` file being written, and where its writer stands.
struct OpenPartial {
    entry: usize,
    file: BufWriter<File>,
    pos: u64,
}

/// A receiver's files for one manifest (module docs).
pub(crate) struct FileAssembly {
    dir: PathBuf,
    manifest: Manifest,
    layout: BlockLayout,
    pub(crate) states: Vec<FileState>,
    held: Vec<bool>,
    held_per_entry: Vec<u32>,
    current: Option<BlockInProgress>,
    open: Option<OpenPartial>,
    /// Blocks below this one have been passed by the data.
    passed: u32,
    /// Bytes written in this run.
    pub(crate) written: u64,
    /// Bytes found verified on disk at the manifest.
    pub(crate) resumed: u64,
    /// Whether any file data arrived in this run.
    pub(crate) data_seen: bool,
}

/// `NAME.partial` of `path`.
pub(crate) fn partial_name(p: &Path) -> PathBuf {
    let mut s = p.as_os_str().to_owned();
    s.push(".partial");
    PathBuf::from(s)
}

/// Which whole blocks of the file at `path` match the entry's hashes (all false if it cannot be read).
fn verified_blocks(path: &Path, m: &Manifest, entry: usize, layout: &BlockLayout) -> Vec<bool> {
    let e = &m.entries[entry];
    let n = layout.blocks_in(entry) as usize;
    let mut ok = vec![false; n];
    let Ok(mut f) = File::open(path) else {
        return ok;
    };
    let len = f.metadata().map_or(0, |m| m.len());
    let mut buf = vec![0u8; 1 << 20];
    for (b, held) in ok.iter_mut().enumerate() {
        let (start, end) = layout.span(b as u64, e.size);
        if end > len {
            break;
        }
        let mut h = blake3::Hasher::new();
        let mut left = end - start;
        if f.seek(SeekFrom::Start(start)).is_err() {
            break;
        }
        while left > 0 {
            let k = left.min(buf.len() as u64) as usize;
            if f.read_exact(&mut buf[..k]).is_err() {
                return ok;
            }
            h.update(&buf[..k]);
            left -= k as u64;
        }
        *held = blocks::expected_hash(e, b as u64) == Some(h.finalize().as_bytes());
    }
    ok
}

impl FileAssembly {
    /// Set up `m` (a file transfer) under `dir`: directories and empty files are made at once; files are looked
    /// for on disk (rule 1).
    pub(crate) fn open(dir: PathBuf, manifest: Manifest) -> io::Result<Self> {
        let layout = BlockLayout::new(&manifest).ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                "the manifest has more than 2^32 blocks",
            )
        })?;
        fs::create_dir_all(&dir)?;
        let n = manifest.entries.len();
        let mut a = FileAssembly {
            dir,
            held: vec![false; layout.total() as usize],
            layout,
            states: vec![FileState::Pending; n],
            held_per_entry: vec![0; n],
            manifest,
            current: None,
            open: None,
            passed: 0,
            written: 0,
            resumed: 0,
            data_seen: false,
        };
        for i in 0..n {
            if let Err(err) = a.prepare(i) {
                let p = a.path_of(i);
                a.fail(i, format!("{}: {err}", p.display()), true);
            }
        }
        Ok(a)
    }

    fn path_of(&self, entry: usize) -> PathBuf {
        self.dir.join(&self.manifest.entries[entry].path)
    }

    /// Rule 1 for one entry.
    fn prepare(&mut self, i: usize) -> io::Result<()> {
        let e = self.manifest.entries[i].clone();
        let path = self.path_of(i);
        match e.kind {
            EntryKind::Directory => {
                fs::create_dir_all(&path)?;
                fs::set_permissions(&path, fs::Permissions::from_mode(e.mode | 0o700))?;
                self.states[i] = FileState::Complete;
            }
            EntryKind::File if e.size == 0 => {
                if let Some(parent) = path.parent() {
                    fs::create_dir_all(parent)?;
                }
                File::create(&path)?;
                fs::set_permissions(&path, fs::Permissions::from_mode(e.mode))?;
                self.states[i] = FileState::Complete;
            }
            EntryKind::File => {
                let whole = fs::metadata(&path).is_ok_and(|m| m.is_file() && m.len() == e.size)
                    && verified_blocks(&path, &self.manifest, i, &self.layout)
                        .iter()
                        .all(|&b| b);
                if whole {
                    fs::set_permissions(&path, fs::Permissions::from_mode(e.mode))?;
                    self.hold_all(i);
                    self.states[i] = FileState::Complete;
                    return Ok(());
                }
                let partial = partial_name(&path);
                for (b, ok) in verified_blocks(&partial, &self.manifest, i, &self.layout)
                    .into_iter()
                    .enumerate()
                {
                    if ok {
                        self.resumed += self.hold(i, b as u64);
                    }
                }
                if self.held_per_entry[i] == self.layout.blocks_in(i) {
                    self.finish_file(i)?;
                }
            }
        }
        Ok(())
    }

    /// Mark a block held; returns its length.
    fn hold(&mut self, entry: usize, b: u64) -> u64 {
        let g = self.layout.global(entry, b) as usize;
        if !self.held[g] {
            self.held[g] = true;
            self.held_per_entry[entry] += 1;
        }
        let (start, end) = self.layout.span(b, self.manifest.entries[entry].size);
        end - start
    }

    fn hold_all(&mut self, entry: usize) {
        for b in 0..u64::from(self.layout.blocks_in(entry)) {
            self.resumed += self.hold(entry, b);
        }
    }

    fn fail(&mut self, entry: usize, reason: String, local: bool) {
        if self.states[entry] == FileState::Pending {
            self.states[entry] = FileState::Failed { reason, local };
        }
    }

    /// Rule 4: every block held.
    fn finish_file(&mut self, entry: usize) -> io::Result<()> {
        if self.open.as_ref().is_some_and(|o| o.entry == entry) {
            if let Some(mut o) = self.open.take() {
                o.file.flush()?;
            }
        }
        let e = &self.manifest.entries[entry];
        let path = self.path_of(entry);
        let partial = partial_name(&path);
        OpenOptions::new()
            .write(true)
            .open(&partial)?
            .set_len(e.size)?;
        fs::set_permissions(&partial, fs::Permissions::from_mode(e.mode))?;
        fs::rename(&partial, &path)?;
        self.states[entry] = FileState::Complete;
        Ok(())
    }

    /// Write `data` at `offset` of the entry's `.partial`, reusing the open writer when it is there already.
    fn write_at(&mut self, entry: usize, offset: u64, data: &[u8]) -> io::Result<()> {
        if self.open.as_ref().is_none_or(|o| o.entry != entry) {
            if let Some(mut o) = self.open.take() {
                o.file.flush()?;
            }
            let path = self.path_of(entry);
            if let Some(parent) = path.parent() {
                fs::create_dir_all(parent)?;
            }
            // Nothing held: whatever is there belongs to no block of this manifest.
            let fresh = self.held_per_entry[entry] == 0;
            let file = OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(fresh)
                .open(partial_name(&path))?;
            self.open = Some(OpenPartial {
                entry,
                file: BufWriter::with_capacity(1 << 20, file),
                pos: u64::MAX,
            });
        }
        let o = self.open.as_mut().expect("opened above");
        if o.pos != offset {
            o.file.seek(SeekFrom::Start(offset))?;
        }
        o.file.write_all(data)?;
        o.pos = offset + data.len() as u64;
        Ok(())
    }

    /// Rule 3: the data moved on to global block `g`; every block before it that is not held is lost.
    fn pass_to(&mut self, g: u32) {
        if let Some(w) = self.current.take() {
            if !w.held {
                self.fail(
                    w.entry,
                    format!("data lost at offset {} (block {})", w.next, w.block),
                    false,
                );
            }
        }
        for skipped in self.passed..g {
            if !self.held[skipped as usize] {
                let (entry, b) = self.layout.locate(skipped);
                let (start, end) = self.layout.span(b, self.manifest.entries[entry].size);
                self.fail(
                    entry,
                    format!("bytes {start}..{end} (block {b}) were not sent"),
                    false,
                );
            }
        }
        self.passed = self.passed.max(g);
    }

    /// One file-data message (rules 2 and 3).
    pub(crate) fn data(&mut self, entry: usize, offset: u64, data: &[u8]) {
        let Some(e) = self.manifest.entries.get(entry) else {
            return;
        };
        let size = e.size;
        let takes = matches!(
            self.states[entry],
            FileState::Pending | FileState::Failed { local: false, .. }
        );
        if e.kind != EntryKind::File || !takes || data.is_empty() {
            return;
        }
        if offset.saturating_add(data.len() as u64) > size {
            self.fail(
                entry,
                format!("data beyond the announced size at offset {offset}"),
                false,
            );
            return;
        }
        self.data_seen = true;
        let b = offset / self.layout.block();
        let g = self.layout.global(entry, b);
        if g < self.passed && self.current.as_ref().is_none_or(|w| w.global != g) {
            return; // Behind the data's course: nothing in order arrives here.
        }
        if self.current.as_ref().is_none_or(|w| w.global != g) {
            self.pass_to(g);
            self.passed = g + 1;
            let (start, end) = self.layout.span(b, size);
            let held = self.held[g as usize];
            if !held && offset != start {
                self.fail(entry, format!("data lost before offset {offset}"), false);
                return;
            }
            self.current = Some(BlockInProgress {
                entry,
                block: b,
                global: g,
                next: start,
                end,
                held,
                hasher: blake3::Hasher::new(),
            });
        }
        let w = self.current.as_mut().expect("set above");
        if w.held {
            return;
        }
        if offset != w.next {
            let at = w.next;
            self.current = None;
            self.fail(entry, format!("data lost at offset {at}"), false);
            return;
        }
        w.hasher.update(data);
        w.next += data.len() as u64;
        let complete = w.next == w.end;
        if let Err(err) = self.write_at(entry, offset, data) {
            let p = partial_name(&self.path_of(entry));
            self.current = None;
            self.fail(entry, format!("{}: {err}", p.display()), true);
            return;
        }
        self.written += data.len() as u64;
        if complete {
            self.end_block();
        }
    }

    /// The block in progress got all its bytes: hold it if its hash matches (rule 2), finish its file (rule 4).
    fn end_block(&mut self) {
        let Some(w) = self.current.take() else { return };
        let e = &self.manifest.entries[w.entry];
        if blocks::expected_hash(e, w.block) != Some(w.hasher.finalize().as_bytes()) {
            let (start, end) = self.layout.span(w.block, e.size);
            self.fail(
                w.entry,
                format!(
                    "bytes {start}..{end} (block {}) do not match the manifest's BLAKE3 hash",
                    w.block
                ),
                false,
            );
            return;
        }
        self.hold(w.entry, w.block);
        let all = self.held_per_entry[w.entry] == self.layout.blocks_in(w.entry);
        if all && self.states[w.entry] == FileState::Pending {
            if let Err(err) = self.finish_file(w.entry) {
                let p = self.path_of(w.entry);
                self.fail(w.entry, format!("{}: {err}", p.display()), true);
            }
        }
    }

    /// Data was lost beyond repair: the block in progress cannot complete (rule 3).
    pub(crate) fn lost(&mut self) {
        if let Some(w) = self.current.take() {
            if !w.held {
                self.fail(w.entry, "data lost (unrecoverable)".into(), false);
            }
        }
    }

    /// Flush what is written (at the end of the run).
    pub(crate) fn flush(&mut self) {
        if let Some(mut o) = self.open.take() {
            let _ = o.file.flush();
        }
    }

    /// Blocks this receiver lacks, as at most [`MAX_NEEDS`] ranges (a superset when coarsened), and how many.
    pub(crate) fn needs(&self) -> (Vec<BlockRange>, u64) {
        let missing = (0..self.layout.total()).filter(|&g| {
            let (entry, _) = self.layout.locate(g);
            !self.held[g as usize]
                && !matches!(self.states[entry], FileState::Failed { local: true, .. })
        });
        let ranges = blocks::ranges(missing);
        let count = ranges.iter().map(|r| u64::from(r.count)).sum();
        (blocks::coarsen(ranges, MAX_NEEDS), count)
    }

    /// The manifest.
    pub(crate) fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// Under which directory the files go.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }
}
