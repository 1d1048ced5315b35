//! The parity code of a transmission group (RFC 3208 §11): k data packets in, parity packets out, and any k of
//! the k + h back to the k data packets.
//!
//! # The code
//!
//! Reed–Solomon over GF(2^16) from the `reed-solomon-simd` crate (chosen by measurement: `bench/README.md`,
//! "Reed–Solomon crate for parity repairs"), always built for [`PARITY_PER_PACKET`] parity packets per data
//! packet: parity numbers 0…2k−1 for a group of k. §11.2 numbers the first k with PKT_SQN alone and the rest
//! with OPT_PARITY_GRP as well, "when a source needs to generate more parity packets than there were original
//! data packets (perhaps because of a particularly lossy line such that a receiver lost not only the original
//! data but some of the parity RDATA as well)". That crate's parity packet j depends on the number of parity
//! packets the codec is built for; building it for 2k always makes parity j one code, whichever round of
//! on-demand parity (§11.3.3) asks for it. A group with fewer than k data packets (the last of a transfer,
//! §11.2 "Variable Transmission Group Size") is coded as a group of its own size n, parity numbers 0…2n−1.
//!
//! Why 2k and not k: built for k, the numbers had to start again at 0 after k, and a receiver that had most of
//! them was sent ones it held, round after round (namespace lab, pgmcc, 5 receivers: the one behind a 10 Mbit/s
//! tbf lost 63 of a group of 64 in pgmcc's first second, held 63 numbers after the bursts of its repairs, and
//! asked for one more every 4 s until its 50 retries ran out). 2k fresh numbers answer a receiver that loses up
//! to half of what is sent to it; encoding costs about twice what it cost for k (`bench/README.md`).
//!
//! # Shards: §11.2 "Variable TSDU length"
//!
//! When the group's TSDUs differ in length, each is padded with zeros to the longest and its length appended as
//! two bytes (network order), and parity packets carry the result (the source sets OPT_VAR_PKTLEN on them); a
//! decoder pads what it received the same way and cuts each restored packet back to the length it carries. When
//! all TSDUs have one length, nothing is appended and a parity packet is as long as a data packet. Deviation:
//! the crate codes shards of an even number of bytes, so a group whose longest TSDU is odd (or empty) is coded
//! as a variable-length one, with one zero byte between the padded TSDU and the appended length. Either way a
//! parity packet's length and its OPT_VAR_PKTLEN flag alone give the layout ([`ShardLayout::from_parity`]): the
//! length always sits in a shard's last two bytes.
//!
//! # Payload-specific options: §11.2
//!
//! When a data packet of the group carries OPT_FRAGMENT, every parity packet carries the option encoded: the
//! parity of the group's fragment options, so that a restored packet gets its option back. Convoy codes the
//! option's 12 value bytes in the same code as the payload, as a prefix of each coded TSDU
//! ([`coded_tsdu`]): a parity packet's first [`FRAGMENT_PREFIX`] coded bytes are its OPT_FRAGMENT value, the
//! rest its payload. Deviation: the RFC codes the option's byte 3 too, whose U bit (OP_ENCODED_NULL) marks the
//! packets without the option; Convoy codes those as 12 zero bytes instead, which no real fragment option is (its
//! APDU length is never 0), so a restored all-zero option means none ([`fragment_of_prefix`]).

use reed_solomon_simd::{ReedSolomonDecoder, ReedSolomonEncoder};

/// Largest transmission group, and so largest parity number + 1 (§11.2: TG_SQN and PKT_SQN share the 32-bit
/// sequence number; OpenPGM caps k at 128 with GF(2^8)).
pub const MAX_GROUP: usize = 128;

/// Parity numbers per data packet of a group (module docs): a group of n has `PARITY_PER_PACKET × n`.
pub const PARITY_PER_PACKET: usize = 2;

/// The parity numbers a group of `n` data packets has: 0 to this − 1.
pub fn parity_count(n: usize) -> usize {
    n * PARITY_PER_PACKET
}

/// Bytes of OPT_FRAGMENT's value a coded TSDU begins with when the group carries fragment options.
pub const FRAGMENT_PREFIX: usize = 12;

/// A data packet as the code sees it: its TSDU, after its fragment option's value (zeros without one) when
/// `with_fragments` (some packet of the group has one).
pub fn coded_tsdu(
    tsdu: &[u8],
    fragment: Option<convoy_wire::FragmentOption>,
    with_fragments: bool,
) -> Vec<u8> {
    if !with_fragments {
        return tsdu.to_vec();
    }
    let mut v = Vec::with_capacity(FRAGMENT_PREFIX + tsdu.len());
    let f = fragment.map_or([0; 3], |f| [f.first_sqn, f.offset, f.apdu_len]);
    f.iter().for_each(|x| v.extend_from_slice(&x.to_be_bytes()));
    v.extend_from_slice(tsdu);
    v
}

/// The fragment option a coded prefix holds (its first [`FRAGMENT_PREFIX`] bytes; shorter is none): `None` when
/// all zero (a packet without the option).
pub fn fragment_of_prefix(prefix: &[u8]) -> Option<convoy_wire::FragmentOption> {
    let p = prefix.get(..FRAGMENT_PREFIX)?;
    if p.iter().all(|&b| b == 0) {
        return None;
    }
    let word = |i: usize| u32::from_be_bytes([p[i], p[i + 1], p[i + 2], p[i + 3]]);
    Some(convoy_wire::FragmentOption {
        first_sqn: word(0),
        offset: word(4),
        apdu_len: word(8),
    })
}

/// Why a group could not be coded or restored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParityError {
    /// The group is empty or larger than [`MAX_GROUP`].
    GroupSize(usize),
    /// A data index outside the group, or a parity number past its [`parity_count`].
    Index(usize),
    /// A layout no encoder makes: parity packets have an even, non-zero length.
    Layout {
        /// The shard length given.
        shard_len: usize,
    },
    /// A parity packet's length does not match the group's shard length.
    ParityLength {
        /// Its parity number.
        index: usize,
        /// Its length.
        len: usize,
        /// The group's shard length.
        expected: usize,
    },
    /// Fewer packets than the group has data packets: nothing can be restored.
    TooFew {
        /// Data and distinct parity packets given.
        have: usize,
        /// The group's data packets.
        need: usize,
    },
    /// The codec refused the group for a reason the checks above did not foresee.
    Codec(String),
    /// A data packet longer than the group's layout holds, or a restored one whose appended length exceeds its
    /// shard: the packets given were not one group's.
    Corrupt {
        /// The data packet's index in the group.
        index: usize,
    },
}

impl std::fmt::Display for ParityError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParityError::GroupSize(k) => {
                write!(f, "a transmission group of {k} packets (1 to {MAX_GROUP})")
            }
            ParityError::Index(i) => {
                write!(f, "packet index {i} is outside the transmission group")
            }
            ParityError::Codec(why) => write!(f, "the Reed-Solomon codec refused the group: {why}"),
            ParityError::Layout { shard_len } => {
                write!(
                    f,
                    "parity of {shard_len} bytes: parity packets have an even, non-zero length"
                )
            }
            ParityError::ParityLength {
                index,
                len,
                expected,
            } => {
                write!(
                    f,
                    "parity packet {index} has {len} bytes where the group's parity has {expected}"
                )
            }
            ParityError::TooFew { have, need } => {
                write!(
                    f,
                    "{have} packets of a group of {need}: at least {need} are needed to restore it"
                )
            }
            ParityError::Corrupt { index } => {
                write!(f, "restored packet {index} carries a length beyond its shard: not one group's packets")
            }
        }
    }
}

impl std::error::Error for ParityError {}

/// How a group's TSDUs become shards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShardLayout {
    /// Bytes per shard, and so per parity packet; even.
    pub shard_len: usize,
    /// Whether each shard ends with its TSDU's length (OPT_VAR_PKTLEN on the parity packets).
    pub var_len: bool,
}

impl ShardLayout {
    /// The layout of a group of TSDUs of these lengths: the longest, two bytes more and rounded up to even when
    /// the lengths differ or the longest is odd or empty (module docs).
    pub fn of(lengths: impl IntoIterator<Item = usize>) -> Self {
        let mut it = lengths.into_iter();
        let first = it.next().unwrap_or(0);
        let (max, differ) = it.fold((first, false), |(m, d), l| (m.max(l), d || l != first));
        let var_len = differ || max % 2 == 1 || max == 0;
        let shard_len = if var_len {
            (max + 2).next_multiple_of(2)
        } else {
            max
        };
        ShardLayout { shard_len, var_len }
    }

    /// The layout a parity packet of `len` bytes shows, OPT_VAR_PKTLEN set or not.
    pub fn from_parity(len: usize, var_len: bool) -> Self {
        ShardLayout {
            shard_len: len,
            var_len,
        }
    }

    /// The longest TSDU this layout holds.
    pub fn max_tsdu(&self) -> usize {
        if self.var_len {
            self.shard_len.saturating_sub(2)
        } else {
            self.shard_len
        }
    }

    /// `tsdu` as a shard (its length at most [`ShardLayout::max_tsdu`]).
    fn shard(&self, tsdu: &[u8]) -> Vec<u8> {
        let mut s = vec![0u8; self.shard_len];
        s[..tsdu.len()].copy_from_slice(tsdu);
        if self.var_len {
            let at = self.shard_len - 2;
            s[at..].copy_from_slice(&(tsdu.len() as u16).to_be_bytes());
        }
        s
    }

    /// The TSDU a restored shard holds.
    fn tsdu(&self, index: usize, shard: &[u8]) -> Result<Vec<u8>, ParityError> {
        let len = if self.var_len {
            let at = self.shard_len - 2;
            usize::from(u16::from_be_bytes([shard[at], shard[at + 1]]))
        } else {
            self.shard_len
        };
        if len > self.max_tsdu() {
            return Err(ParityError::Corrupt { index });
        }
        Ok(shard[..len].to_vec())
    }
}

fn check_size(k: usize) -> Result<(), ParityError> {
    if k == 0 || k > MAX_GROUP {
        return Err(ParityError::GroupSize(k));
    }
    Ok(())
}

fn codec_error(e: reed_solomon_simd::Error) -> ParityError {
    // Sizes and indexes are checked before the codec sees them; what is left is a shard-length mismatch, and
    // anything else is reported, never a panic.
    match e {
        reed_solomon_simd::Error::DifferentShardSize { got, shard_bytes } => {
            ParityError::ParityLength {
                index: 0,
                len: got,
                expected: shard_bytes,
            }
        }
        other => ParityError::Codec(other.to_string()),
    }
}

/// The [`parity_count`]`(k)` parity packets of a group of `tsdus` (k = its length, 1 to [`MAX_GROUP`]; TSDUs of
/// at most 65,535 bytes, PGM's own bound), numbered from 0, each [`ShardLayout::shard_len`] bytes.
pub fn encode(tsdus: &[&[u8]]) -> Result<(ShardLayout, Vec<Vec<u8>>), ParityError> {
    let k = tsdus.len();
    check_size(k)?;
    let layout = ShardLayout::of(tsdus.iter().map(|t| t.len()));
    let mut enc =
        ReedSolomonEncoder::new(k, parity_count(k), layout.shard_len).map_err(codec_error)?;
    for t in tsdus {
        enc.add_original_shard(layout.shard(t))
            .map_err(codec_error)?;
    }
    let parity = enc
        .encode()
        .map_err(codec_error)?
        .recovery_iter()
        .map(<[u8]>::to_vec)
        .collect();
    Ok((layout, parity))
}

/// The data packets missing from a group of `k`, restored from the `data` it has (index, TSDU) and the `parity`
/// packets it has (parity number, bytes), given the group's `layout` (its longest TSDU and whether lengths vary:
/// from OPT_VAR_PKTLEN and the parity packets' length). Returns (index, TSDU) for every index missing from
/// `data`, in index order. A data TSDU longer than the layout holds is refused as not of this group.
pub fn decode(
    k: usize,
    layout: ShardLayout,
    data: &[(usize, &[u8])],
    parity: &[(usize, &[u8])],
) -> Result<Vec<(usize, Vec<u8>)>, ParityError> {
    check_size(k)?;
    let shard_len = layout.shard_len;
    if shard_len == 0 || shard_len % 2 == 1 || (layout.var_len && shard_len < 2) {
        return Err(ParityError::Layout { shard_len });
    }
    let h = parity_count(k);
    if let Some(&(i, _)) = data.iter().find(|(i, _)| *i >= k) {
        return Err(ParityError::Index(i));
    }
    if let Some(&(j, _)) = parity.iter().find(|(j, _)| *j >= h) {
        return Err(ParityError::Index(j));
    }
    if let Some(&(index, _)) = data.iter().find(|(_, t)| t.len() > layout.max_tsdu()) {
        return Err(ParityError::Corrupt { index });
    }
    if let Some(&(index, p)) = parity.iter().find(|(_, p)| p.len() != shard_len) {
        return Err(ParityError::ParityLength {
            index,
            len: p.len(),
            expected: shard_len,
        });
    }
    let mut have = vec![false; k];
    data.iter().for_each(|(i, _)| have[*i] = true);
    let missing: Vec<usize> = (0..k).filter(|i| !have[*i]).collect();
    if missing.is_empty() {
        return Ok(Vec::new());
    }
    let mut used = vec![false; h];
    let parity: Vec<&(usize, &[u8])> = parity
        .iter()
        .filter(|(j, _)| !std::mem::replace(&mut used[*j], true))
        .collect();
    let present = k - missing.len();
    if present + parity.len() < k {
        return Err(ParityError::TooFew {
            have: present + parity.len(),
            need: k,
        });
    }
    let mut dec = ReedSolomonDecoder::new(k, h, shard_len).map_err(codec_error)?;
    let mut added = vec![false; k];
    for &(i, t) in data {
        if !std::mem::replace(&mut added[i], true) {
            dec.add_original_shard(i, layout.shard(t))
                .map_err(codec_error)?;
        }
    }
    for &&(j, p) in &parity {
        dec.add_recovery_shard(j, p).map_err(codec_error)?;
    }
    let restored = dec.decode().map_err(codec_error)?;
    missing
        .into_iter()
        .map(|i| {
            let shard = restored.restored_original(i).ok_or(ParityError::TooFew {
                have: present,
                need: k,
            })?;
            Ok((i, layout.tsdu(i, shard)?))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn tsdus(k: usize, len: impl Fn(usize) -> usize) -> Vec<Vec<u8>> {
        (0..k)
            .map(|i| (0..len(i)).map(|b| (b * 7 + i * 13) as u8).collect())
            .collect()
    }

    fn refs(v: &[Vec<u8>]) -> Vec<&[u8]> {
        v.iter().map(Vec::as_slice).collect()
    }

    #[test]
    fn rfc3208_11_2_any_k_of_the_group_and_its_parity_restore_it() {
        let group = tsdus(16, |_| 1400);
        let (layout, parity) = encode(&refs(&group)).unwrap();
        assert_eq!(
            (layout.shard_len, parity.len()),
            (1400, 32),
            "equal lengths: nothing appended"
        );
        assert_eq!(ShardLayout::from_parity(parity[0].len(), false), layout);
        // Lose 0, 5 and 15; restore from parity 2, 7 and 9 (any three of the sixteen).
        let data: Vec<(usize, &[u8])> = (0..16)
            .filter(|i| ![0, 5, 15].contains(i))
            .map(|i| (i, &group[i][..]))
            .collect();
        let par: Vec<(usize, &[u8])> = [2, 7, 9].iter().map(|&j| (j, &parity[j][..])).collect();
        let restored = decode(16, layout, &data, &par).unwrap();
        assert_eq!(
            restored,
            vec![
                (0, group[0].clone()),
                (5, group[5].clone()),
                (15, group[15].clone())
            ]
        );
    }

    #[test]
    fn rfc3208_11_2_variable_tsdu_length_pads_and_appends_the_length() {
        // The last, short packet of a transfer: shards are the longest TSDU plus two bytes of length.
        let group = tsdus(8, |i| if i == 7 { 333 } else { 1400 });
        let (layout, parity) = encode(&refs(&group)).unwrap();
        assert!(layout.var_len);
        assert_eq!(layout.shard_len, 1402);
        assert!(parity.iter().all(|p| p.len() == 1402));
        assert_eq!(
            ShardLayout::from_parity(1402, true),
            layout,
            "the parity packet alone gives the layout"
        );
        let data: Vec<(usize, &[u8])> = (0..7).map(|i| (i, &group[i][..])).collect();
        let restored = decode(8, layout, &data, &[(4, &parity[4])]).unwrap();
        assert_eq!(
            restored,
            vec![(7, group[7].clone())],
            "cut back to its own 333 bytes"
        );
    }

    #[test]
    fn an_odd_longest_tsdu_is_coded_as_variable_length() {
        let group = tsdus(3, |_| 101);
        let (layout, parity) = encode(&refs(&group)).unwrap();
        assert_eq!(
            (layout.var_len, layout.shard_len, parity[0].len()),
            (true, 104, 104)
        );
        let restored = decode(
            3,
            layout,
            &[(1, &group[1][..])],
            &[(0, &parity[0]), (2, &parity[2])],
        )
        .unwrap();
        assert_eq!(restored, vec![(0, group[0].clone()), (2, group[2].clone())]);
    }

    #[test]
    fn rfc3208_11_2_parity_numbers_run_past_k_to_two_k_minus_one() {
        // §11.2: numbers past k − 1 (OPT_PARITY_GRP) belong to the same code; a group of 128 that lost its
        // first two packets is restored from the last two of its 256 numbers.
        let group = tsdus(MAX_GROUP, |i| 64 + i % 5);
        let (layout, parity) = encode(&refs(&group)).unwrap();
        assert_eq!(parity.len(), parity_count(MAX_GROUP));
        let data: Vec<(usize, &[u8])> = (2..MAX_GROUP).map(|i| (i, &group[i][..])).collect();
        let par = [(254, &parity[254][..]), (255, &parity[255][..])];
        let restored = decode(MAX_GROUP, layout, &data, &par).unwrap();
        assert_eq!(restored, vec![(0, group[0].clone()), (1, group[1].clone())]);
        assert_eq!(
            encode(&refs(&tsdus(MAX_GROUP + 1, |_| 8))).unwrap_err(),
            ParityError::GroupSize(129)
        );
    }

    #[test]
    fn rfc3208_11_2_a_group_lost_whole_is_restored_from_numbers_of_both_parity_groups() {
        // A receiver that lost all 16 data packets and parity 0-7 on the way: 8 of the first parity group
        // (numbers 8-15) and 8 of the second (16-23, OPT_PARITY_GRP 1) restore it.
        let group = tsdus(16, |_| 200);
        let (layout, parity) = encode(&refs(&group)).unwrap();
        let par: Vec<(usize, &[u8])> = (8..24).map(|j| (j, &parity[j][..])).collect();
        let restored = decode(16, layout, &[], &par).unwrap();
        assert_eq!(restored.len(), 16);
        assert!(restored.iter().all(|(i, t)| *t == group[*i]));
    }

    #[test]
    fn errors_name_what_is_wrong() {
        assert_eq!(encode(&[]).unwrap_err(), ParityError::GroupSize(0));
        let group = tsdus(4, |_| 10);
        let (layout, parity) = encode(&refs(&group)).unwrap();
        let two: Vec<(usize, &[u8])> = (0..2).map(|i| (i, &group[i][..])).collect();
        assert_eq!(
            decode(4, layout, &two, &[(0, &parity[0])]).unwrap_err(),
            ParityError::TooFew { have: 3, need: 4 }
        );
        assert_eq!(
            decode(4, layout, &two, &[(0, &parity[0]), (0, &parity[0])]).unwrap_err(),
            ParityError::TooFew { have: 3, need: 4 },
            "a parity number given twice counts once"
        );
        assert_eq!(
            decode(4, layout, &two, &[(8, &parity[0])]).unwrap_err(),
            ParityError::Index(8)
        );
        let short = &parity[1][..5];
        assert_eq!(
            decode(4, layout, &two, &[(1, short), (2, &parity[2])]).unwrap_err(),
            ParityError::ParityLength {
                index: 1,
                len: 5,
                expected: 10
            }
        );
        let long = [0u8; 11];
        assert_eq!(
            decode(
                4,
                layout,
                &[(0, &long[..]), (1, &group[1][..])],
                &[(1, &parity[1]), (2, &parity[2])]
            )
            .unwrap_err(),
            ParityError::Corrupt { index: 0 },
            "a data packet longer than the group's parity is not of this group"
        );
        assert!(decode(4, layout, &two, &[(1, &parity[1])])
            .unwrap_err()
            .to_string()
            .contains("at least 4"));
        assert_eq!(
            decode(4, ShardLayout::from_parity(7, false), &two, &[]).unwrap_err(),
            ParityError::Layout { shard_len: 7 }
        );
    }

    #[test]
    fn rfc3208_11_2_fragment_options_travel_in_the_code() {
        let f = convoy_wire::FragmentOption {
            first_sqn: 9,
            offset: 1400,
            apdu_len: 4000,
        };
        let group = [
            coded_tsdu(b"first", Some(f), true),
            coded_tsdu(b"no option", None, true),
        ];
        let (layout, parity) = encode(&refs(&group)).unwrap();
        let restored = decode(2, layout, &[(1, &group[1][..])], &[(0, &parity[0])]).unwrap();
        let (prefix, tsdu) = restored[0].1.split_at(FRAGMENT_PREFIX);
        assert_eq!((fragment_of_prefix(prefix), tsdu), (Some(f), &b"first"[..]));
        assert_eq!(fragment_of_prefix(&group[1]), None, "zeros: no option");
        assert_eq!(
            coded_tsdu(b"x", Some(f), false),
            b"x",
            "a group without options codes TSDUs alone"
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn any_k_of_k_plus_2k_restore_the_group(
            lens in proptest::collection::vec(0usize..300, 1..24),
            lost_mask in any::<u32>(),
            parity_pick in any::<u32>(),
        ) {
            let k = lens.len();
            let group: Vec<Vec<u8>> = lens
                .iter()
                .enumerate()
                .map(|(i, &l)| (0..l).map(|b| (b ^ (i * 31)) as u8).collect())
                .collect();
            let (layout, parity) = encode(&refs(&group)).unwrap();
            let lost: Vec<usize> = (0..k).filter(|i| lost_mask >> i & 1 == 1).collect();
            let data: Vec<(usize, &[u8])> = (0..k).filter(|i| !lost.contains(i)).map(|i| (i, &group[i][..])).collect();
            // As many parity packets as were lost, chosen among the 2k by the second mask's rotation.
            let h = parity_count(k);
            let start = (parity_pick as usize) % h;
            let par: Vec<(usize, &[u8])> = (0..lost.len())
                .map(|n| (start + n) % h)
                .map(|j| (j, &parity[j][..]))
                .collect();
            let restored = decode(k, layout, &data, &par).unwrap();
            prop_assert_eq!(restored.len(), lost.len());
            for (i, t) in restored {
                prop_assert_eq!(&t, &group[i]);
            }
        }
    }
}
