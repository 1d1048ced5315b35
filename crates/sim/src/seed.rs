//! Per-component random streams.
//!
//! Every component that draws randomness (a lossy link, a PGM endpoint, a CBR source) gets its own ChaCha8
//! generator seeded from the run's seed and the component's *name* in the scenario, so adding a node or a flow
//! never changes another component's draws (issue: "per-component seeded random streams").

use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;

/// FNV-1a over the name: a stable, documented hash (unlike `std`'s hashers, whose output may change).
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The 64-bit seed of component `name` in a run seeded with `seed`.
pub fn component_seed(seed: u64, name: &str) -> u64 {
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    key[8..16].copy_from_slice(&fnv1a(name.as_bytes()).to_le_bytes());
    key[16..24].copy_from_slice(&(name.len() as u64).to_le_bytes());
    let mut rng = ChaCha8Rng::from_seed(key);
    rand_core::RngCore::next_u64(&mut rng)
}

/// A generator for component `name`.
pub fn component_rng(seed: u64, name: &str) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(component_seed(seed, name))
}

/// A uniform draw in [0, 1) with 53 bits of precision.
pub fn unit(rng: &mut ChaCha8Rng) -> f64 {
    (rand_core::RngCore::next_u64(rng) >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_depend_on_name_and_seed_only() {
        assert_eq!(component_seed(1, "link:a-b"), component_seed(1, "link:a-b"));
        assert_ne!(component_seed(1, "link:a-b"), component_seed(2, "link:a-b"));
        assert_ne!(component_seed(1, "link:a-b"), component_seed(1, "link:b-a"));
        let mut r = component_rng(7, "x");
        let u: Vec<f64> = (0..1000).map(|_| unit(&mut r)).collect();
        assert!(u.iter().all(|v| (0.0..1.0).contains(v)));
        let mean = u.iter().sum::<f64>() / 1000.0;
        assert!((mean - 0.5).abs() < 0.05);
    }
}
