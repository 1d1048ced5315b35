//! Blocks: the unit a transfer verifies, keeps across runs and resends on resume.
//!
//! A manifest cuts every file into blocks of `block_chunks` data messages ([`Manifest::block_bytes`] bytes; the
//! last block of a file may be shorter) and numbers the blocks of all its files in manifest order, from 0: the
//! *global block index*. Directories and empty files have no blocks. A file of one block is checked by its whole-
//! file BLAKE3; a longer one carries one BLAKE3 per block ([`Entry::blocks`]).
//!
//! A receiver writes only blocks whose hash matched into `NAME.partial`, so whatever a killed or failed receiver
//! leaves behind can be checked block by block against the next manifest of the same file, and only the blocks
//! that do not match are asked for (as [`BlockRange`]s in 0x3B OPT_CONVOY_NEEDS, at most
//! [`convoy_wire::MAX_NEEDS`] per report: [`coarsen`] merges the ranges across the smallest gaps until they fit,
//! which asks for a little more, never less).

use super::message::{Entry, EntryKind, Manifest};
use convoy_wire::BlockRange;
use std::io::{self, Read};

/// Data messages per block at least; the count doubles until a transfer has at most [`MAX_BLOCKS_TARGET`]
/// blocks (the manifest then carries at most 32 bytes of hashes per block, 256 KiB in all).
pub const MIN_BLOCK_CHUNKS: u32 = 256;
/// Blocks per transfer the block size aims to stay under (a transfer of many small files has more: one each).
pub const MAX_BLOCKS_TARGET: u64 = 8192;

/// The block size, in data messages, for a transfer of `total_bytes` cut into `chunk`-byte messages.
pub fn block_chunks_for(chunk: u64, total_bytes: u64) -> u32 {
    let mut n = u64::from(MIN_BLOCK_CHUNKS);
    while total_bytes.div_ceil(chunk.max(1) * n) > MAX_BLOCKS_TARGET && n < 1 << 24 {
        n *= 2;
    }
    n as u32
}

/// Blocks of a file of `size` bytes with `block` bytes per block.
pub fn blocks_of(size: u64, block: u64) -> u64 {
    size.div_ceil(block.max(1))
}

/// The whole-file BLAKE3 and, for a file of more than one block, one BLAKE3 per block; reads `size` bytes.
pub fn hash_blocks(
    input: &mut impl Read,
    size: u64,
    block: u64,
) -> io::Result<([u8; 32], Vec<[u8; 32]>)> {
    let mut whole = blake3::Hasher::new();
    let mut blocks = Vec::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut at = 0u64;
    while at < size {
        let len = (size - at).min(block);
        let mut h = blake3::Hasher::new();
        let mut left = len;
        while left > 0 {
            let n = left.min(buf.len() as u64) as usize;
            input.read_exact(&mut buf[..n])?;
            h.update(&buf[..n]);
            whole.update(&buf[..n]);
            left -= n as u64;
        }
        blocks.push(*h.finalize().as_bytes());
        at += len;
    }
    if blocks.len() <= 1 {
        blocks.clear();
    }
    Ok((*whole.finalize().as_bytes(), blocks))
}

/// Where each entry's blocks sit in the global numbering of a manifest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockLayout {
    block: u64,
    /// Global index of each entry's first block (entries without blocks: the next entry's).
    first: Vec<u32>,
    /// Blocks in all.
    total: u32,
}

impl BlockLayout {
    /// The layout of `m`; `None` if it would number more than `u32::MAX` blocks.
    pub fn new(m: &Manifest) -> Option<Self> {
        let block = m.block_bytes();
        let mut first = Vec::with_capacity(m.entries.len());
        let mut next = 0u64;
        for e in &m.entries {
            first.push(u32::try_from(next).ok()?);
            if e.kind == EntryKind::File {
                next += blocks_of(e.size, block);
            }
        }
        Some(BlockLayout {
            block,
            first,
            total: u32::try_from(next).ok()?,
        })
    }

    /// Bytes per block.
    pub fn block(&self) -> u64 {
        self.block
    }

    /// Blocks in all.
    pub fn total(&self) -> u32 {
        self.total
    }

    /// Global index of block `b` of entry `entry`.
    pub fn global(&self, entry: usize, b: u64) -> u32 {
        self.first[entry] + b as u32
    }

    /// The entry and block within it of global block `g` (which must be below [`BlockLayout::total`]).
    pub fn locate(&self, g: u32) -> (usize, u64) {
        // The last entry starting at or before `g` has blocks: an entry without blocks shares its first index
        // with the next entry, or, last of all, starts at `total`, beyond `g`.
        let entry = self.first.partition_point(|&f| f <= g) - 1;
        (entry, u64::from(g - self.first[entry]))
    }

    /// Blocks of entry `entry`.
    pub fn blocks_in(&self, entry: usize) -> u32 {
        let end = self.first.get(entry + 1).copied().unwrap_or(self.total);
        end - self.first[entry]
    }

    /// Byte range of block `b` in a file of `size` bytes.
    pub fn span(&self, b: u64, size: u64) -> (u64, u64) {
        let start = b * self.block;
        (start, (start + self.block).min(size))
    }
}

/// The expected BLAKE3 of block `b` of `entry` (its per-block hash, or the whole-file hash for a one-block file).
pub fn expected_hash(entry: &Entry, b: u64) -> Option<&[u8; 32]> {
    if entry.blocks.is_empty() {
        (b == 0).then_some(&entry.hash)
    } else {
        entry.blocks.get(b as usize)
    }
}

/// Ascending block indices as ranges.
pub fn ranges(blocks: impl IntoIterator<Item = u32>) -> Vec<BlockRange> {
    let mut out: Vec<BlockRange> = Vec::new();
    for g in blocks {
        match out.last_mut() {
            Some(r) if u64::from(r.first) + u64::from(r.count) == u64::from(g) => r.count += 1,
            _ => out.push(BlockRange { first: g, count: 1 }),
        }
    }
    out
}

/// `ranges` (ascending, disjoint) merged across their smallest gaps until at most `max` remain: a superset.
pub fn coarsen(mut ranges: Vec<BlockRange>, max: usize) -> Vec<BlockRange> {
    while ranges.len() > max.max(1) {
        let gap = |i: usize| ranges[i + 1].first - (ranges[i].first + ranges[i].count);
        let i = (0..ranges.len() - 1)
            .min_by_key(|&i| (gap(i), i))
            .expect("at least two ranges");
        let end = ranges[i + 1].first + ranges[i + 1].count;
        ranges[i].count = end - ranges[i].first;
        ranges.remove(i + 1);
    }
    ranges
}

/// Whether global block `g` lies in one of `ranges`.
pub fn contains(ranges: &[BlockRange], g: u32) -> bool {
    ranges
        .iter()
        .any(|r| g >= r.first && u64::from(g) < u64::from(r.first) + u64::from(r.count))
}

/// The union of several receivers' needs, within `0..total`, as ascending disjoint ranges.
pub fn union<'a>(needs: impl IntoIterator<Item = &'a [BlockRange]>, total: u32) -> Vec<BlockRange> {
    let mut all: Vec<(u64, u64)> = needs
        .into_iter()
        .flatten()
        .map(|r| {
            let start = u64::from(r.first).min(u64::from(total));
            (start, (start + u64::from(r.count)).min(u64::from(total)))
        })
        .filter(|(s, e)| s < e)
        .collect();
    all.sort_unstable();
    let mut out: Vec<(u64, u64)> = Vec::new();
    for (s, e) in all {
        match out.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => out.push((s, e)),
        }
    }
    out.into_iter()
        .map(|(s, e)| BlockRange {
            first: s as u32,
            count: (e - s) as u32,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::TransferMode;

    fn r(first: u32, count: u32) -> BlockRange {
        BlockRange { first, count }
    }

    #[test]
    fn the_block_size_grows_to_bound_the_block_count() {
        assert_eq!(block_chunks_for(1000, 100), MIN_BLOCK_CHUNKS);
        assert_eq!(block_chunks_for(1000, 256_000 * 8192), MIN_BLOCK_CHUNKS);
        assert_eq!(
            block_chunks_for(1000, 256_000 * 8192 + 1),
            2 * MIN_BLOCK_CHUNKS
        );
        let huge = 1u64 << 44;
        let n = u64::from(block_chunks_for(1391, huge));
        assert!(huge.div_ceil(1391 * n) <= MAX_BLOCKS_TARGET);
    }

    #[test]
    fn one_block_files_carry_no_block_hashes() {
        let data: Vec<u8> = (0..2500u32).map(|i| i as u8).collect();
        let (whole, blocks) = hash_blocks(&mut &data[..], 2500, 1000).unwrap();
        assert_eq!(whole, *blake3::hash(&data).as_bytes());
        assert_eq!(blocks.len(), 3);
        assert_eq!(blocks[2], *blake3::hash(&data[2000..]).as_bytes());
        let (whole, blocks) = hash_blocks(&mut &data[..1000], 1000, 1000).unwrap();
        assert_eq!(whole, *blake3::hash(&data[..1000]).as_bytes());
        assert!(blocks.is_empty());
    }

    #[test]
    fn the_layout_numbers_blocks_across_files_and_skips_directories() {
        let entry = |kind, size| Entry {
            kind,
            mode: 0o644,
            size,
            hash: [0; 32],
            blocks: Vec::new(),
            path: "x".into(),
        };
        let m = Manifest {
            transfer_id: 1,
            mode: TransferMode::Files,
            chunk: 10,
            block_chunks: 10,
            entries: vec![
                entry(EntryKind::File, 250),
                entry(EntryKind::Directory, 0),
                entry(EntryKind::File, 0),
                entry(EntryKind::File, 100),
                entry(EntryKind::File, 101),
            ],
        };
        let l = BlockLayout::new(&m).unwrap();
        assert_eq!(l.total(), 3 + 1 + 2);
        assert_eq!(l.global(0, 2), 2);
        assert_eq!(l.global(3, 0), 3);
        assert_eq!(l.global(4, 1), 5);
        assert_eq!(l.locate(2), (0, 2));
        assert_eq!(l.locate(3), (3, 0));
        assert_eq!(l.locate(5), (4, 1));
        assert_eq!(l.blocks_in(1), 0);
        assert_eq!(l.span(1, 101), (100, 101));
    }

    #[test]
    fn ranges_coarsen_into_a_superset() {
        let rs = ranges([1, 2, 3, 7, 9, 10, 20]);
        assert_eq!(rs, vec![r(1, 3), r(7, 1), r(9, 2), r(20, 1)]);
        let c = coarsen(rs.clone(), 2);
        assert_eq!(c, vec![r(1, 10), r(20, 1)]);
        for g in [1, 2, 3, 7, 9, 10, 20] {
            assert!(contains(&c, g));
        }
        assert_eq!(coarsen(rs.clone(), 10), rs);
    }

    #[test]
    fn the_union_merges_overlaps_and_clips_to_the_transfer() {
        let a = [r(0, 3), r(10, 5)];
        let b = [r(2, 4), r(14, 100)];
        assert_eq!(union([&a[..], &b[..]], 20), vec![r(0, 6), r(10, 10)]);
        assert_eq!(union([&[r(u32::MAX, u32::MAX)][..]], 20), vec![]);
    }
}
