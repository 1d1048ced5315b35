//! Measures the Reed-Solomon crates considered for Convoy's parity repairs (RFC 3208 §11): encode and decode
//! throughput for transmission groups of k = 16 and 64 packets of 1400 bytes, and whether parity packet j is the
//! same whatever the number h of parity packets asked for (on-demand parity, §11.3.3, sends a group's parity in
//! rounds: 2 packets now, 3 more later, and they must all belong to one code). Prints a table; run it with
//! `bench/fec-candidates.sh`.

use std::hint::black_box;
use std::time::{Duration, Instant};

const PACKET: usize = 1400;

fn group(k: usize, seed: u8) -> Vec<Vec<u8>> {
    (0..k)
        .map(|i| (0..PACKET).map(|b| (b as u8).wrapping_mul(31) ^ (i as u8).wrapping_mul(7) ^ seed).collect())
        .collect()
}

/// Runs `f` until a second has passed; returns (calls, elapsed).
fn time(mut f: impl FnMut()) -> (u64, Duration) {
    let start = Instant::now();
    let mut n = 0u64;
    while start.elapsed() < Duration::from_millis(1000) {
        f();
        n += 1;
    }
    (n, start.elapsed())
}

/// A codec for one (k, h) configuration, built once and reused across groups, as a source would.
trait Candidate {
    const NAME: &'static str;
    fn new(k: usize, h: usize) -> Self;
    fn encode(&mut self, data: &[Vec<u8>]) -> Vec<Vec<u8>>;
    /// Restore the lost originals (`lost` indexes) from the rest and parity 0..lost.len().
    fn decode(&mut self, data: &[Vec<u8>], lost: &[usize], parity: &[Vec<u8>]) -> Vec<Vec<u8>>;
}

/// reed-solomon-simd, its recovery count fixed at `h`.
struct Simd {
    k: usize,
    h: usize,
    enc: reed_solomon_simd::ReedSolomonEncoder,
    dec: reed_solomon_simd::ReedSolomonDecoder,
}
impl Candidate for Simd {
    const NAME: &'static str = "reed-solomon-simd 3";
    fn new(k: usize, h: usize) -> Self {
        Simd {
            k,
            h,
            enc: reed_solomon_simd::ReedSolomonEncoder::new(k, h, PACKET).unwrap(),
            dec: reed_solomon_simd::ReedSolomonDecoder::new(k, h, PACKET).unwrap(),
        }
    }
    fn encode(&mut self, data: &[Vec<u8>]) -> Vec<Vec<u8>> {
        self.enc.reset(self.k, self.h, PACKET).unwrap();
        for d in data {
            self.enc.add_original_shard(d).unwrap();
        }
        self.enc.encode().unwrap().recovery_iter().map(<[u8]>::to_vec).collect()
    }
    fn decode(&mut self, data: &[Vec<u8>], lost: &[usize], parity: &[Vec<u8>]) -> Vec<Vec<u8>> {
        self.dec.reset(self.k, self.h, PACKET).unwrap();
        for (i, d) in data.iter().enumerate().filter(|(i, _)| !lost.contains(i)) {
            self.dec.add_original_shard(i, d).unwrap();
        }
        for (j, p) in parity.iter().enumerate().take(lost.len()) {
            self.dec.add_recovery_shard(j, p).unwrap();
        }
        let r = self.dec.decode().unwrap();
        lost.iter().map(|&i| r.restored_original(i).unwrap().to_vec()).collect()
    }
}

/// reed-solomon-erasure over GF(2^8).
struct Erasure(reed_solomon_erasure::galois_8::ReedSolomon, usize);
impl Candidate for Erasure {
    const NAME: &'static str = "reed-solomon-erasure 6";
    fn new(k: usize, h: usize) -> Self {
        Erasure(reed_solomon_erasure::galois_8::ReedSolomon::new(k, h).unwrap(), h)
    }
    fn encode(&mut self, data: &[Vec<u8>]) -> Vec<Vec<u8>> {
        let mut parity = vec![vec![0u8; PACKET]; self.1];
        self.0.encode_sep(data, &mut parity).unwrap();
        parity
    }
    fn decode(&mut self, data: &[Vec<u8>], lost: &[usize], parity: &[Vec<u8>]) -> Vec<Vec<u8>> {
        let rs = &self.0;
        let mut shards: Vec<Option<Vec<u8>>> = data
            .iter()
            .enumerate()
            .map(|(i, d)| (!lost.contains(&i)).then(|| d.clone()))
            .chain(parity.iter().enumerate().map(|(j, p)| (j < lost.len()).then(|| p.clone())))
            .collect();
        rs.reconstruct_data(&mut shards).unwrap();
        lost.iter().map(|&i| shards[i].take().unwrap()).collect()
    }
}

/// Codec built for `h` parity packets; `lose` originals lost and restored from the first `lose` parity packets.
fn measure<C: Candidate>(k: usize, h: usize, lose: usize) {
    let data = group(k, 1);
    let mut c = C::new(k, h);
    let parity = c.encode(&data);
    // The same code whatever h: parity j from a codec built for h + 3 packets equals parity j built for h.
    let more = C::new(k, h + 3).encode(&data);
    let consistent = parity.iter().zip(&more).all(|(a, b)| a == b);
    let lost: Vec<usize> = (0..lose).map(|j| j * (k / lose)).collect();
    let restored = c.decode(&data, &lost, &parity);
    assert!(lost.iter().zip(&restored).all(|(&i, r)| *r == data[i]), "{} k={k} h={h}: wrong decode", C::NAME);
    let (n, d) = time(|| {
        black_box(c.encode(black_box(&data)));
    });
    let enc = (n as f64 * (k * PACKET) as f64) / d.as_secs_f64() / 1e6;
    let enc_us = d.as_secs_f64() * 1e6 / n as f64 / k as f64;
    let (n, d) = time(|| {
        black_box(c.decode(black_box(&data), &lost, &parity));
    });
    let dec = (n as f64 * (k * PACKET) as f64) / d.as_secs_f64() / 1e6;
    let dec_us = d.as_secs_f64() * 1e6 / n as f64 / k as f64;
    println!(
        "| {} | {k} | {h} | {lose} | {enc:.0} | {enc_us:.2} | {dec:.0} | {dec_us:.2} | {} |",
        C::NAME,
        if consistent { "yes" } else { "no" }
    );
}

fn main() {
    println!("| crate | k | h built | lost | encode MB/s of data | µs per data packet | decode MB/s | µs per data packet | parity j independent of h |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---|");
    for (k, h, lose) in [
        (16, 1, 1),
        (16, 4, 4),
        (16, 16, 2),
        (16, 32, 2),
        (64, 1, 1),
        (64, 8, 8),
        (64, 64, 4),
        (64, 128, 4),
    ] {
        measure::<Simd>(k, h, lose);
        measure::<Erasure>(k, h, lose);
    }
}
