//! What a source sends after the manifest, and how it rebuilds any packet of it for a repair.
//!
//! The plan is a list of [`Segment`]s: byte ranges of files, block-aligned, in ascending global block order
//! ([`super::blocks`]), each cut into data messages of `chunk` bytes, one PGM packet each. Without resume the
//! plan is every block of every file; with resume it is the union of what the receivers said they lack. The
//! sequence numbers follow the plan: the manifest's packets, then each segment's messages in turn, so
//! [`FileRepairs`] can map any sequence number back to a file and offset and read the bytes again.

use super::blocks::BlockLayout;
use super::message::{self, EntryKind, Manifest};
use convoy_net::RepairSource;
use convoy_wire::BlockRange;
use std::cell::RefCell;
use std::fs::{self, File};
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::rc::Rc;
use std::time::SystemTime;

/// A file on disk as the manifest describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceFile {
    /// Manifest index.
    pub index: u32,
    /// Where it is.
    pub disk: PathBuf,
    /// Its size when scanned.
    pub size: u64,
    /// Its modification time when scanned.
    pub modified: Option<SystemTime>,
}

impl SourceFile {
    /// Whether size and modification time are still those scanned.
    pub fn unchanged(&self) -> bool {
        fs::metadata(&self.disk)
            .is_ok_and(|m| m.len() == self.size && m.modified().ok() == self.modified)
    }
}

/// Bytes `start..end` of one file, sent as consecutive data messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    /// The file (index into the source's file list).
    pub file: usize,
    /// First byte.
    pub start: u64,
    /// One past the last byte.
    pub end: u64,
}

impl Segment {
    /// Data messages in this segment.
    pub fn messages(&self, chunk: u64) -> u64 {
        (self.end - self.start).div_ceil(chunk)
    }
}

/// The segments sending global blocks `ranges` (ascending, disjoint) of `m`; `files` are the manifest's files
/// with data, in manifest order. Adjacent blocks of one file make one segment.
pub fn segments(
    m: &Manifest,
    layout: &BlockLayout,
    files: &[SourceFile],
    ranges: &[BlockRange],
) -> Vec<Segment> {
    let file_of = |entry: usize| files.iter().position(|f| f.index as usize == entry);
    let mut out: Vec<Segment> = Vec::new();
    for r in ranges {
        for g in r.first..r.first.saturating_add(r.count).min(layout.total()) {
            let (entry, b) = layout.locate(g);
            let e = &m.entries[entry];
            let Some(file) = file_of(entry).filter(|_| e.kind == EntryKind::File) else {
                continue;
            };
            let (start, end) = layout.span(b, e.size);
            match out.last_mut() {
                Some(s) if s.file == file && s.end == start => s.end = end,
                _ => out.push(Segment { file, start, end }),
            }
        }
    }
    out
}

/// Rebuilds any packet of a file transfer for a repair: the manifest from memory, data from the files. A file
/// whose size or modification time changed is refused and remembered in `changed`.
#[derive(Debug)]
pub struct FileRepairs {
    manifest_first: u32,
    manifest: Vec<u8>,
    /// Packets of the manifest (until the plan is known: all sequence numbers from `manifest_first` on).
    manifest_packets: u32,
    chunk: u64,
    files: Vec<SourceFile>,
    /// Each segment with its first sequence number's distance from `manifest_first`, ascending.
    segments: Vec<(u32, Segment)>,
    changed: Rc<RefCell<Option<String>>>,
}

impl FileRepairs {
    /// Repairs for the manifest alone, before the plan is known.
    pub fn manifest_only(
        manifest_first: u32,
        manifest: Vec<u8>,
        chunk: u64,
        files: Vec<SourceFile>,
        changed: Rc<RefCell<Option<String>>>,
    ) -> Self {
        FileRepairs {
            manifest_first,
            manifest,
            manifest_packets: u32::MAX,
            chunk,
            files,
            segments: Vec::new(),
            changed,
        }
    }

    /// The plan: data from sequence number `data_first` on, segment after segment.
    pub fn with_plan(mut self, data_first: u32, plan: &[Segment]) -> Self {
        self.manifest_packets = data_first.wrapping_sub(self.manifest_first);
        let mut at = self.manifest_packets;
        self.segments = plan
            .iter()
            .map(|s| {
                let first = at;
                at = at.wrapping_add(s.messages(self.chunk) as u32);
                (first, s.clone())
            })
            .collect();
        self
    }
}

impl RepairSource for FileRepairs {
    fn apdu_for(&mut self, sqn: u32) -> Option<(u32, Vec<u8>)> {
        let d = sqn.wrapping_sub(self.manifest_first);
        if d < self.manifest_packets {
            return Some((self.manifest_first, self.manifest.clone()));
        }
        let i = self.segments.partition_point(|(first, _)| *first <= d);
        let (first, seg) = self.segments.get(i.checked_sub(1)?)?;
        let offset = seg.start + u64::from(d - first) * self.chunk;
        if offset >= seg.end {
            return None;
        }
        let f = &self.files[seg.file];
        if !f.unchanged() {
            *self.changed.borrow_mut() =
                Some(format!("{} changed while being sent", f.disk.display()));
            return None;
        }
        let len = (seg.end - offset).min(self.chunk) as usize;
        let mut data = vec![0u8; len];
        File::open(&f.disk)
            .ok()?
            .read_exact_at(&mut data, offset)
            .ok()?;
        Some((sqn, message::encode_file_data(f.index, offset, &data)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{Entry, TransferMode};

    fn manifest(sizes: &[u64]) -> Manifest {
        Manifest {
            transfer_id: 1,
            mode: TransferMode::Files,
            chunk: 1000,
            block_chunks: 2,
            entries: sizes
                .iter()
                .map(|&size| Entry {
                    kind: EntryKind::File,
                    mode: 0o644,
                    size,
                    hash: [0; 32],
                    blocks: Vec::new(),
                    path: "f".into(),
                })
                .collect(),
        }
    }

    fn files(sizes: &[u64]) -> Vec<SourceFile> {
        sizes
            .iter()
            .enumerate()
            .map(|(i, &size)| SourceFile {
                index: i as u32,
                disk: PathBuf::from("/nonexistent"),
                size,
                modified: None,
            })
            .collect()
    }

    #[test]
    fn segments_join_adjacent_blocks_of_a_file_and_split_at_files() {
        let sizes = [5000, 2500];
        let m = manifest(&sizes);
        let l = BlockLayout::new(&m).unwrap();
        assert_eq!(l.total(), 3 + 2);
        let all = segments(&m, &l, &files(&sizes), &[BlockRange { first: 0, count: 5 }]);
        assert_eq!(
            all,
            vec![
                Segment {
                    file: 0,
                    start: 0,
                    end: 5000
                },
                Segment {
                    file: 1,
                    start: 0,
                    end: 2500
                }
            ]
        );
        let some = segments(
            &m,
            &l,
            &files(&sizes),
            &[
                BlockRange { first: 1, count: 1 },
                BlockRange { first: 4, count: 9 },
            ],
        );
        assert_eq!(
            some,
            vec![
                Segment {
                    file: 0,
                    start: 2000,
                    end: 4000
                },
                Segment {
                    file: 1,
                    start: 2000,
                    end: 2500
                }
            ]
        );
    }

    #[test]
    fn repairs_follow_the_plan_and_notice_changed_files() {
        let dir = std::env::temp_dir().join(format!("convoy-plan-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f");
        let data: Vec<u8> = (0..10_000u32).map(|i| (i * 7) as u8).collect();
        fs::write(&path, &data).unwrap();
        let file = SourceFile {
            index: 0,
            disk: path.clone(),
            size: 10_000,
            modified: fs::metadata(&path).unwrap().modified().ok(),
        };
        let changed = Rc::new(RefCell::new(None));
        // The manifest takes sequence numbers u32::MAX - 1 and u32::MAX; the data wraps to 0.
        let first = u32::MAX - 1;
        let plan = [
            Segment {
                file: 0,
                start: 2000,
                end: 4000,
            },
            Segment {
                file: 0,
                start: 8000,
                end: 10_000,
            },
        ];
        let mut r =
            FileRepairs::manifest_only(first, vec![9; 3000], 1000, vec![file], changed.clone())
                .with_plan(0, &plan);
        assert_eq!(r.apdu_for(u32::MAX), Some((first, vec![9; 3000])));
        let (sqn, apdu) = r.apdu_for(2).unwrap();
        assert_eq!(sqn, 2);
        assert_eq!(
            message::decode(&apdu).unwrap(),
            message::Message::FileData {
                file: 0,
                offset: 8000,
                data: &data[8000..9000]
            }
        );
        assert!(r.apdu_for(4).is_none(), "past the plan");
        fs::write(&path, b"something else").unwrap();
        assert!(r.apdu_for(1).is_none());
        assert!(changed.borrow().is_some());
        fs::remove_dir_all(&dir).unwrap();
    }
}
