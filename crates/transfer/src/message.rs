//! The file-transfer messages, one per APDU. All integers big-endian.
//!
//! | tag | message | layout after the tag |
//! |---|---|---|
//! | 0x01 | manifest | `version u8 = 2`, `transfer_id u32`, `mode u8` (0 files, 1 stream), `chunk u32`, `block_chunks u32`, `count u32`, then per entry `kind u8` (0 file, 1 directory), `mode u32` (Unix permission bits), `size u64`, `blake3 [32]`, `path_len u16`, `path` (UTF-8, relative, `/`-separated), then for a file of more than one block one `blake3 [32]` per block ([`super::blocks`]) |
//! | 0x02 | file data | `file u32` (manifest index), `offset u64`, bytes (at most `chunk`) |
//! | 0x03 | stream data | `offset u64`, bytes |
//! | 0x04 | stream end | `total u64`, `blake3 [32]` |
//!
//! A data message is sized to fit one PGM packet (`chunk = max_tsdu − 13`), so the sequence number of any byte
//! follows from the manifest and the sender can rebuild any packet from the file for a repair.

use std::fmt;

/// Message tags.
pub mod tag {
    /// The manifest.
    pub const MANIFEST: u8 = 0x01;
    /// A chunk of a file.
    pub const FILE_DATA: u8 = 0x02;
    /// A chunk of a stream.
    pub const STREAM_DATA: u8 = 0x03;
    /// The end of a stream.
    pub const STREAM_END: u8 = 0x04;
}

/// Bytes before the data in a file-data message.
pub const FILE_DATA_HEADER: usize = 13;
/// Bytes before the data in a stream-data message.
pub const STREAM_DATA_HEADER: usize = 9;
/// The manifest version this build writes and reads.
pub const MANIFEST_VERSION: u8 = 2;
/// Longest path accepted in a manifest.
pub const MAX_PATH_LEN: usize = 4096;
/// Most entries accepted in a manifest.
pub const MAX_ENTRIES: usize = 1 << 20;

/// What a manifest entry is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    /// A regular file.
    File,
    /// A directory.
    Directory,
}

/// One file or directory of a transfer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// File or directory.
    pub kind: EntryKind,
    /// Unix permission bits.
    pub mode: u32,
    /// Size in bytes (0 for directories).
    pub size: u64,
    /// BLAKE3 of the content (of nothing for directories).
    pub hash: [u8; 32],
    /// BLAKE3 of each block for a file of more than one block, empty otherwise ([`super::blocks`]).
    pub blocks: Vec<[u8; 32]>,
    /// Relative path, `/`-separated, no `..`, not absolute.
    pub path: String,
}

/// Whether the transfer is a set of files or one stream of unknown length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TransferMode {
    /// Files and directories, repairable from the source files.
    Files,
    /// A stream (standard input), repairable only within the transmit window.
    Stream,
}

/// The first message of a transfer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Manifest {
    /// Random identity of this transfer (also the token of receiver status reports).
    pub transfer_id: u32,
    /// Files or stream.
    pub mode: TransferMode,
    /// Data bytes per data message.
    pub chunk: u32,
    /// Data messages per block ([`super::blocks`]).
    pub block_chunks: u32,
    /// The entries, in sending order.
    pub entries: Vec<Entry>,
}

/// A decoded message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Message<'a> {
    /// The manifest.
    Manifest(Manifest),
    /// File data.
    FileData {
        /// Manifest index.
        file: u32,
        /// Offset in the file.
        offset: u64,
        /// The bytes.
        data: &'a [u8],
    },
    /// Stream data.
    StreamData {
        /// Offset in the stream.
        offset: u64,
        /// The bytes.
        data: &'a [u8],
    },
    /// End of the stream.
    StreamEnd {
        /// Total length.
        total: u64,
        /// BLAKE3 of the whole stream.
        hash: [u8; 32],
    },
}

/// Why a message could not be decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError(pub String);

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad transfer message: {}", self.0)
    }
}

impl std::error::Error for DecodeError {}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], DecodeError> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.b.len())
            .ok_or_else(|| DecodeError(format!("truncated at {what} (offset {})", self.at)))?;
        let s = &self.b[self.at..end];
        self.at = end;
        Ok(s)
    }
    fn u8(&mut self, what: &str) -> Result<u8, DecodeError> {
        Ok(self.take(1, what)?[0])
    }
    fn u16(&mut self, what: &str) -> Result<u16, DecodeError> {
        let s = self.take(2, what)?;
        Ok(u16::from_be_bytes([s[0], s[1]]))
    }
    fn u32(&mut self, what: &str) -> Result<u32, DecodeError> {
        let s = self.take(4, what)?;
        Ok(u32::from_be_bytes([s[0], s[1], s[2], s[3]]))
    }
    fn u64(&mut self, what: &str) -> Result<u64, DecodeError> {
        let s = self.take(8, what)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(s);
        Ok(u64::from_be_bytes(a))
    }
    fn hash(&mut self, what: &str) -> Result<[u8; 32], DecodeError> {
        let mut h = [0u8; 32];
        h.copy_from_slice(self.take(32, what)?);
        Ok(h)
    }
    fn rest(&mut self) -> &'a [u8] {
        let s = &self.b[self.at..];
        self.at = self.b.len();
        s
    }
}

/// Whether `path` is safe to create under an output directory: relative, no `..`, no empty or `.` parts.
pub fn is_safe_path(path: &str) -> bool {
    !path.is_empty()
        && path.len() <= MAX_PATH_LEN
        && !path.starts_with('/')
        && !path.contains('\0')
        && !path.contains('\\')
        && path
            .split('/')
            .all(|p| !p.is_empty() && p != "." && p != "..")
}

impl Manifest {
    /// Encode as a message.
    pub fn encode(&self) -> Vec<u8> {
        let mut v = vec![tag::MANIFEST, MANIFEST_VERSION];
        v.extend_from_slice(&self.transfer_id.to_be_bytes());
        v.push(match self.mode {
            TransferMode::Files => 0,
            TransferMode::Stream => 1,
        });
        v.extend_from_slice(&self.chunk.to_be_bytes());
        v.extend_from_slice(&self.block_chunks.to_be_bytes());
        v.extend_from_slice(&(self.entries.len() as u32).to_be_bytes());
        for e in &self.entries {
            v.push(match e.kind {
                EntryKind::File => 0,
                EntryKind::Directory => 1,
            });
            v.extend_from_slice(&e.mode.to_be_bytes());
            v.extend_from_slice(&e.size.to_be_bytes());
            v.extend_from_slice(&e.hash);
            v.extend_from_slice(&(e.path.len() as u16).to_be_bytes());
            v.extend_from_slice(e.path.as_bytes());
            for h in &e.blocks {
                v.extend_from_slice(h);
            }
        }
        v
    }

    /// Bytes per block: `chunk × block_chunks`.
    pub fn block_bytes(&self) -> u64 {
        u64::from(self.chunk) * u64::from(self.block_chunks)
    }

    /// Total bytes of all files.
    pub fn total_bytes(&self) -> u64 {
        self.entries.iter().map(|e| e.size).sum()
    }
}

/// Encode a file-data message.
pub fn encode_file_data(file: u32, offset: u64, data: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(FILE_DATA_HEADER + data.len());
    v.push(tag::FILE_DATA);
    v.extend_from_slice(&file.to_be_bytes());
    v.extend_from_slice(&offset.to_be_bytes());
    v.extend_from_slice(data);
    v
}

/// Encode a stream-data message.
pub fn encode_stream_data(offset: u64, data: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(STREAM_DATA_HEADER + data.len());
    v.push(tag::STREAM_DATA);
    v.extend_from_slice(&offset.to_be_bytes());
    v.extend_from_slice(data);
    v
}

/// Encode a stream-end message.
pub fn encode_stream_end(total: u64, hash: &[u8; 32]) -> Vec<u8> {
    let mut v = vec![tag::STREAM_END];
    v.extend_from_slice(&total.to_be_bytes());
    v.extend_from_slice(hash);
    v
}

/// Decode one message.
pub fn decode(b: &[u8]) -> Result<Message<'_>, DecodeError> {
    let mut r = Reader { b, at: 0 };
    match r.u8("tag")? {
        tag::MANIFEST => {
            let version = r.u8("version")?;
            if version != MANIFEST_VERSION {
                return Err(DecodeError(format!(
                    "manifest version {version}, this build reads version {MANIFEST_VERSION} (is the source \
                     running another release of convoy?)"
                )));
            }
            let transfer_id = r.u32("transfer id")?;
            let mode = match r.u8("mode")? {
                0 => TransferMode::Files,
                1 => TransferMode::Stream,
                m => return Err(DecodeError(format!("transfer mode {m}"))),
            };
            let chunk = r.u32("chunk")?;
            let block_chunks = r.u32("block chunks")?;
            if mode == TransferMode::Files && (chunk == 0 || block_chunks == 0) {
                return Err(DecodeError(format!(
                    "chunk {chunk} × block chunks {block_chunks}: no block size"
                )));
            }
            let block = u64::from(chunk) * u64::from(block_chunks);
            let count = r.u32("entry count")? as usize;
            if count > MAX_ENTRIES {
                return Err(DecodeError(format!("{count} entries")));
            }
            let mut entries = Vec::with_capacity(count.min(1024));
            for i in 0..count {
                let kind = match r.u8("entry kind")? {
                    0 => EntryKind::File,
                    1 => EntryKind::Directory,
                    k => return Err(DecodeError(format!("entry {i}: kind {k}"))),
                };
                let mode = r.u32("entry mode")?;
                let size = r.u64("entry size")?;
                let hash = r.hash("entry hash")?;
                let len = usize::from(r.u16("path length")?);
                let path = std::str::from_utf8(r.take(len, "path")?)
                    .map_err(|_| DecodeError(format!("entry {i}: path is not UTF-8")))?
                    .to_string();
                if !is_safe_path(&path) {
                    return Err(DecodeError(format!("entry {i}: unsafe path {path:?}")));
                }
                let n = match kind {
                    EntryKind::File if block > 0 => size.div_ceil(block),
                    _ => 0,
                };
                let mut blocks = Vec::new();
                if n > 1 {
                    // Bounded by the bytes present, so a hostile size cannot make this allocate.
                    if n > (b.len() - r.at) as u64 / 32 {
                        return Err(DecodeError(format!(
                            "entry {i}: {n} block hashes announced, the manifest is shorter"
                        )));
                    }
                    for _ in 0..n {
                        blocks.push(r.hash("block hash")?);
                    }
                }
                entries.push(Entry {
                    kind,
                    mode,
                    size,
                    hash,
                    blocks,
                    path,
                });
            }
            if r.at != b.len() {
                return Err(DecodeError("trailing bytes after the manifest".into()));
            }
            Ok(Message::Manifest(Manifest {
                transfer_id,
                mode,
                chunk,
                block_chunks,
                entries,
            }))
        }
        tag::FILE_DATA => Ok(Message::FileData {
            file: r.u32("file index")?,
            offset: r.u64("offset")?,
            data: r.rest(),
        }),
        tag::STREAM_DATA => Ok(Message::StreamData {
            offset: r.u64("offset")?,
            data: r.rest(),
        }),
        tag::STREAM_END => {
            let total = r.u64("total")?;
            let hash = r.hash("hash")?;
            Ok(Message::StreamEnd { total, hash })
        }
        t => Err(DecodeError(format!("unknown tag 0x{t:02x}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest() -> Manifest {
        Manifest {
            transfer_id: 0xdead_beef,
            mode: TransferMode::Files,
            chunk: 1387,
            block_chunks: 4,
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
                    mode: 0o644,
                    size: 12345,
                    hash: [7; 32],
                    blocks: vec![[1; 32], [2; 32], [3; 32]],
                    path: "d/ünï.bin".into(),
                },
                Entry {
                    kind: EntryKind::File,
                    mode: 0o644,
                    size: 10,
                    hash: [8; 32],
                    blocks: Vec::new(),
                    path: "small".into(),
                },
            ],
        }
    }

    #[test]
    fn messages_round_trip() {
        let m = manifest();
        assert_eq!(decode(&m.encode()).unwrap(), Message::Manifest(m.clone()));
        assert_eq!(m.total_bytes(), 12355);
        let d = encode_file_data(3, 1 << 40, b"xyz");
        assert_eq!(d.len(), FILE_DATA_HEADER + 3);
        assert_eq!(
            decode(&d).unwrap(),
            Message::FileData {
                file: 3,
                offset: 1 << 40,
                data: b"xyz"
            }
        );
        let s = encode_stream_data(9, b"ab");
        assert_eq!(s.len(), STREAM_DATA_HEADER + 2);
        assert_eq!(
            decode(&s).unwrap(),
            Message::StreamData {
                offset: 9,
                data: b"ab"
            }
        );
        let e = encode_stream_end(11, &[1; 32]);
        assert_eq!(
            decode(&e).unwrap(),
            Message::StreamEnd {
                total: 11,
                hash: [1; 32]
            }
        );
    }

    #[test]
    fn hostile_manifests_are_refused() {
        for bad in ["../etc/passwd", "/abs", "a//b", "a/./b", "", "a\\b"] {
            assert!(!is_safe_path(bad), "{bad}");
            let mut m = manifest();
            m.entries[1].path = bad.into();
            assert!(decode(&m.encode()).is_err(), "{bad}");
        }
        let enc = manifest().encode();
        for cut in 0..enc.len() {
            assert!(decode(&enc[..cut]).is_err(), "cut at {cut}");
        }
        assert!(decode(&[0x7f]).is_err());
        assert!(decode(&[]).is_err());
    }
}
