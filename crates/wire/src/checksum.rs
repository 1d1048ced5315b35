//! The PGM checksum, RFC 3208 §8.
//!
//! "The usual 1's complement of the 1's complement sum of the entire PGM packet including
//! header", computed with the checksum field (bytes 6–7) set to zero and **without** a
//! network-layer pseudo-header. A computed 0 is transmitted as 0xFFFF; a transmitted 0 means
//! "no checksum", which is not allowed on ODATA and RDATA (see [`crate::PacketRepr::parse`]).
//! The sum itself is the Internet checksum of RFC 1071.

use crate::field::header::CHECKSUM;

/// The 16-bit one's-complement sum of `data` (RFC 1071), big-endian 16-bit words, an odd final
/// byte padded with zero, carries folded back in. Not complemented.
pub fn ones_complement_sum(data: &[u8]) -> u16 {
    fold(sum_words(data))
}

/// The Internet checksum of `data` (RFC 1071): the complement of [`ones_complement_sum`].
/// No 0 → 0xFFFF mapping here; see [`pgm`] for that.
pub fn internet_checksum(data: &[u8]) -> u16 {
    !ones_complement_sum(data)
}

/// The checksum to put in (or expect in) bytes 6–7 of the PGM packet `packet`: the Internet
/// checksum over the whole packet with bytes 6–7 taken as zero, and a result of 0 replaced by
/// 0xFFFF (RFC 3208 §8). Works on any length, including packets shorter than 8 bytes.
pub fn pgm(packet: &[u8]) -> u16 {
    let (before, rest) = packet.split_at(CHECKSUM.start.min(packet.len()));
    let after = rest.get(CHECKSUM.end - CHECKSUM.start..).unwrap_or(&[]);
    // `before` has even length (6 bytes, or less only when the packet ends there), so the
    // 16-bit word alignment of `after` is preserved.
    let sum = fold(sum_words(before) + sum_words(after));
    match !sum {
        0 => 0xFFFF,
        c => c,
    }
}

/// Compute the PGM checksum of `packet` and store it in bytes 6–7. Does nothing to a packet
/// shorter than 8 bytes.
pub fn fill(packet: &mut [u8]) {
    let c = pgm(packet);
    if let Some(field) = packet.get_mut(CHECKSUM) {
        field.copy_from_slice(&c.to_be_bytes());
    }
}

/// Sum of big-endian 16-bit words in a u64, congruent modulo 0xFFFF to the plain word sum (which is all
/// the one's-complement fold needs, RFC 1071 §2 "parallel summation"). Eight bytes are taken at a time as
/// two 32-bit big-endian words; each adds less than 2^33, so the u64 cannot overflow for any slice that fits
/// in memory.
fn sum_words(data: &[u8]) -> u64 {
    let mut chunks = data.chunks_exact(8);
    let mut sum: u64 = 0;
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        let v = u64::from_be_bytes(w);
        sum += (v >> 32) + (v & 0xFFFF_FFFF);
    }
    let mut words = chunks.remainder().chunks_exact(2);
    for w in &mut words {
        if let [a, b] = *w {
            sum += u64::from(u16::from_be_bytes([a, b]));
        }
    }
    if let [last] = *words.remainder() {
        sum += u64::from(u16::from_be_bytes([last, 0]));
    }
    sum
}

/// Fold carries until the sum fits in 16 bits.
fn fold(mut sum: u64) -> u16 {
    while sum > 0xFFFF {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    // The loop leaves sum <= 0xFFFF.
    sum as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plain RFC 1071 loop, for comparison.
    fn naive(data: &[u8]) -> u16 {
        let mut sum: u64 = 0;
        for (i, b) in data.iter().enumerate() {
            sum += if i % 2 == 0 {
                u64::from(*b) << 8
            } else {
                u64::from(*b)
            };
        }
        fold(sum)
    }

    #[test]
    fn wide_summation_equals_the_word_loop() {
        let mut x: u32 = 12345;
        for len in 0..300usize {
            let data: Vec<u8> = (0..len)
                .map(|_| {
                    x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                    (x >> 16) as u8
                })
                .collect();
            assert_eq!(ones_complement_sum(&data), naive(&data), "len {len}");
        }
        assert_eq!(ones_complement_sum(&[0xff; 1400]), naive(&[0xff; 1400]));
    }

    #[test]
    fn rfc1071_example() {
        // RFC 1071 §3: bytes 00 01 f2 03 f4 f5 f6 f7 sum to 0xddf2 (with the end-around carry).
        let data = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
        assert_eq!(ones_complement_sum(&data), 0xddf2);
        assert_eq!(internet_checksum(&data), 0x220d);
    }

    #[test]
    fn odd_length_pads_with_zero() {
        assert_eq!(ones_complement_sum(&[0x12]), 0x1200);
        assert_eq!(ones_complement_sum(&[0x12, 0x34, 0x56]), 0x1234 + 0x5600);
    }

    #[test]
    fn carries_fold() {
        assert_eq!(ones_complement_sum(&[0xff, 0xff, 0x00, 0x01]), 0x0001);
        assert_eq!(ones_complement_sum(&[0xff; 1000]), 0xffff);
    }

    #[test]
    fn empty() {
        assert_eq!(ones_complement_sum(&[]), 0);
        assert_eq!(internet_checksum(&[]), 0xffff);
        assert_eq!(pgm(&[]), 0xffff);
    }

    #[test]
    fn checksum_field_ignored() {
        let mut a = [0x12u8, 0x34, 0, 0, 0, 0, 0xaa, 0xbb, 0x01, 0x02];
        let c1 = pgm(&a);
        a[6] = 0;
        a[7] = 0;
        assert_eq!(pgm(&a), c1);
        assert_eq!(c1, internet_checksum(&a));
    }

    #[test]
    fn zero_is_sent_as_all_ones() {
        // Words sum to 0xffff, so the plain complement is 0; PGM transmits 0xffff.
        let p = [0xffu8, 0x00, 0, 0, 0, 0, 0xde, 0xad, 0x00, 0xff];
        assert_eq!(internet_checksum(&[0xff, 0x00, 0x00, 0xff]), 0);
        assert_eq!(pgm(&p), 0xffff);
    }

    #[test]
    fn filled_packet_sums_to_all_ones() {
        let mut p: Vec<u8> = (0u8..=60).collect();
        fill(&mut p);
        assert_eq!(ones_complement_sum(&p), 0xffff);
        assert_eq!(pgm(&p), u16::from_be_bytes([p[6], p[7]]));
    }

    #[test]
    fn short_packets_do_not_panic() {
        for n in 0..10 {
            let mut p = vec![0xa5u8; n];
            let _ = pgm(&p);
            fill(&mut p);
        }
    }
}
