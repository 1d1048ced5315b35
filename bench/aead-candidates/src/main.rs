//! Per-packet cost of sealing and opening a 1,400-byte payload (in place, tag apart) with each AEAD considered
//! for keyed sessions (issue 45), on this machine, one core: the crate Convoy uses today (RustCrypto's
//! XChaCha20-Poly1305), ring's and aws-lc-rs's ChaCha20-Poly1305 and AES-256-GCM, and HChaCha20 alone (the
//! subkey step that turns a 12-byte-nonce ChaCha20-Poly1305 into XChaCha20-Poly1305). Prints one line per
//! candidate: nanoseconds per seal and per open, and the payload rate that is; then the same with nothing
//! encrypted and the whole 1,460-byte packet authenticated ("tag only", a keyed session without encryption);
//! then aws-lc-rs's opening with the tag apart, as Convoy opens.

use std::hint::black_box;
use std::time::Instant;

const PAYLOAD: usize = 1400;
/// The authenticated header beside the payload (a PGM header with options: about this much).
const AAD: usize = 60;
const ROUNDS: u32 = 200_000;

/// Nanoseconds per call of `f`, the best of three runs of [`ROUNDS`] calls.
fn time(mut f: impl FnMut(u32)) -> f64 {
    (0..3)
        .map(|_| {
            let t = Instant::now();
            for i in 0..ROUNDS {
                f(i);
            }
            t.elapsed().as_nanos() as f64 / f64::from(ROUNDS)
        })
        .fold(f64::INFINITY, f64::min)
}

fn row(name: &str, seal_ns: f64, open_ns: f64) {
    let gbit = |ns: f64| PAYLOAD as f64 * 8.0 / ns;
    println!(
        "{name:<38} seal {seal_ns:>7.0} ns ({:>5.2} Gbit/s)   open {open_ns:>7.0} ns ({:>5.2} Gbit/s)",
        gbit(seal_ns),
        gbit(open_ns)
    );
}

fn rustcrypto_xchacha() {
    use chacha20poly1305::aead::{AeadInPlace, KeyInit};
    use chacha20poly1305::{XChaCha20Poly1305, XNonce};
    let cipher = XChaCha20Poly1305::new(&[7u8; 32].into());
    let (mut buf, aad) = (vec![1u8; PAYLOAD], vec![2u8; AAD]);
    let nonce = |i: u32| {
        let mut n = [0u8; 24];
        n[20..].copy_from_slice(&i.to_be_bytes());
        XNonce::from(n)
    };
    let seal = time(|i| {
        let _ = black_box(
            cipher
                .encrypt_in_place_detached(&nonce(i), &aad, &mut buf)
                .unwrap(),
        );
    });
    let tag = cipher
        .encrypt_in_place_detached(&nonce(0), &aad, &mut buf)
        .unwrap();
    let sealed = buf.clone();
    let open = time(|_| {
        buf.copy_from_slice(&sealed);
        let _ = black_box(
            cipher
                .decrypt_in_place_detached(&nonce(0), &aad, &mut buf, &tag)
                .unwrap(),
        );
    });
    row("RustCrypto XChaCha20-Poly1305 (today)", seal, open);
    let whole_packet = vec![3u8; PAYLOAD + AAD];
    let mac_seal = time(|i| {
        let _ = black_box(
            cipher
                .encrypt_in_place_detached(&nonce(i), &whole_packet, &mut [])
                .unwrap(),
        );
    });
    let mac_tag = cipher
        .encrypt_in_place_detached(&nonce(0), &whole_packet, &mut [])
        .unwrap();
    let mac_open = time(|_| {
        let _ = black_box(
            cipher
                .decrypt_in_place_detached(&nonce(0), &whole_packet, &mut [], &mac_tag)
                .unwrap(),
        );
    });
    row(
        "RustCrypto XChaCha20-Poly1305, tag only",
        mac_seal,
        mac_open,
    );
}

fn hchacha_alone() {
    let key = chacha20::Key::from([7u8; 32]);
    let ns = time(|i| {
        let mut n = [0u8; 16];
        n[12..].copy_from_slice(&i.to_be_bytes());
        let _ = black_box(chacha20::hchacha::<chacha20::cipher::consts::U10>(
            &key,
            &n.into(),
        ));
    });
    row("HChaCha20 subkey alone (RustCrypto)", ns, ns);
}

macro_rules! sealed_bench {
    ($name:expr, $crate_:ident, $alg:expr) => {{
        use $crate_::aead::{Aad, LessSafeKey, Nonce, UnboundKey};
        let key = LessSafeKey::new(UnboundKey::new($alg, &[7u8; 32]).unwrap());
        let (mut buf, aad) = (vec![1u8; PAYLOAD], vec![2u8; AAD]);
        let nonce = |i: u32| {
            let mut n = [0u8; 12];
            n[8..].copy_from_slice(&i.to_be_bytes());
            Nonce::assume_unique_for_key(n)
        };
        let seal = time(|i| {
            let _ = black_box(
                key.seal_in_place_separate_tag(nonce(i), Aad::from(&aad), &mut buf)
                    .unwrap(),
            );
        });
        let tag = key
            .seal_in_place_separate_tag(nonce(0), Aad::from(&aad), &mut buf)
            .unwrap();
        let mut sealed = buf.clone();
        sealed.extend_from_slice(tag.as_ref());
        let mut whole = sealed.clone();
        let open = time(|_| {
            whole.copy_from_slice(&sealed);
            let _ = black_box(
                key.open_in_place(nonce(0), Aad::from(&aad), &mut whole)
                    .unwrap(),
            );
        });
        row($name, seal, open);
        // Keyed without encryption: the whole packet is associated data, nothing encrypted.
        let whole_packet = vec![3u8; PAYLOAD + AAD];
        let mac_seal = time(|i| {
            let _ = black_box(
                key.seal_in_place_separate_tag(nonce(i), Aad::from(&whole_packet), &mut [])
                    .unwrap(),
            );
        });
        let mac_tag = key
            .seal_in_place_separate_tag(nonce(0), Aad::from(&whole_packet), &mut [])
            .unwrap();
        let mac_open = time(|_| {
            let mut t = [0u8; 16];
            t.copy_from_slice(mac_tag.as_ref());
            let _ = black_box(
                key.open_in_place(nonce(0), Aad::from(&whole_packet), &mut t)
                    .unwrap(),
            );
        });
        row(concat!($name, ", tag only"), mac_seal, mac_open);
    }};
}

/// aws-lc-rs's opening with the tag apart from the ciphertext (Convoy's tag lies in OPT_CONVOY_AUTH, before the
/// payload): the payload encrypted, then tag only. Seals as above.
fn aws_lc_tag_apart(name: &str, alg: &'static aws_lc_rs::aead::Algorithm) {
    use aws_lc_rs::aead::{Aad, LessSafeKey, Nonce, UnboundKey};
    let key = LessSafeKey::new(UnboundKey::new(alg, &[7u8; 32]).unwrap());
    let nonce = || Nonce::assume_unique_for_key([0; 12]);
    let (mut buf, aad) = (vec![1u8; PAYLOAD], vec![2u8; AAD]);
    let tag = key
        .seal_in_place_separate_tag(nonce(), Aad::from(&aad), &mut buf)
        .unwrap();
    let sealed = buf.clone();
    let open = time(|_| {
        buf.copy_from_slice(&sealed);
        let _ = black_box(
            key.open_in_place_separate_tag(nonce(), Aad::from(&aad), tag.as_ref(), &mut buf)
                .unwrap(),
        );
    });
    let whole_packet = vec![3u8; PAYLOAD + AAD];
    let mac_tag = key
        .seal_in_place_separate_tag(nonce(), Aad::from(&whole_packet), &mut [])
        .unwrap();
    let mac_open = time(|_| {
        let _ = black_box(
            key.open_in_place_separate_tag(
                nonce(),
                Aad::from(&whole_packet),
                mac_tag.as_ref(),
                &mut [],
            )
            .unwrap(),
        );
    });
    println!("{name:<38} open, encrypted {open:>7.0} ns   open, tag only {mac_open:>7.0} ns");
}

/// Convoy's subkey step (convoy-proto `auth::suite`): HKDF-SHA256 expansion of the session key's PRK with the
/// sender's identity and epoch, then the AES-256-GCM key it makes: paid once per sender and epoch, and for each
/// packet from an identity not yet heard (a forger's, say).
fn aws_lc_subkey() {
    use aws_lc_rs::aead::{LessSafeKey, UnboundKey, AES_256_GCM};
    use aws_lc_rs::hkdf::{Salt, HKDF_SHA256};
    let prk = Salt::new(HKDF_SHA256, b"salt").extract(&[7u8; 32]);
    let ns = time(|i| {
        let (sender, epoch) = ([i as u8; 16], u64::from(i).to_be_bytes());
        let info = [&b"label"[..], &sender, &epoch];
        let okm = prk.expand(&info, &AES_256_GCM).unwrap();
        black_box(LessSafeKey::new(UnboundKey::from(okm)));
    });
    println!(
        "{:<38} {ns:>7.0} ns",
        "aws-lc-rs HKDF-SHA256 subkey + AES key"
    );
}

fn main() {
    println!("{PAYLOAD}-byte payloads, {AAD} bytes of header authenticated, in place; best of 3 × {ROUNDS} calls");
    rustcrypto_xchacha();
    hchacha_alone();
    sealed_bench!(
        "ring ChaCha20-Poly1305",
        ring,
        &ring::aead::CHACHA20_POLY1305
    );
    sealed_bench!("ring AES-256-GCM", ring, &ring::aead::AES_256_GCM);
    sealed_bench!(
        "aws-lc-rs ChaCha20-Poly1305",
        aws_lc_rs,
        &aws_lc_rs::aead::CHACHA20_POLY1305
    );
    sealed_bench!(
        "aws-lc-rs AES-256-GCM",
        aws_lc_rs,
        &aws_lc_rs::aead::AES_256_GCM
    );
    aws_lc_tag_apart(
        "aws-lc-rs ChaCha20-Poly1305, tag apart",
        &aws_lc_rs::aead::CHACHA20_POLY1305,
    );
    aws_lc_tag_apart(
        "aws-lc-rs AES-256-GCM, tag apart",
        &aws_lc_rs::aead::AES_256_GCM,
    );
    aws_lc_subkey();
}
