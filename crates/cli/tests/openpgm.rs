//! Convoy's source against a receiver we did not write: OpenPGM (Debian's libpgm-dev 5.3), through a small C
//! program (tests/openpgm/openpgm_recv.c) built here with the system's C compiler and `pkg-config openpgm-5.3`, in
//! the namespace lab (common/lab.rs). Needs root and libpgm-dev (`scripts/test.sh` installs it); without either,
//! each test prints SKIPPED and passes.

mod common;

use common::lab::Lab;
use common::{bytes, wait, Scratch, BIN};
use convoy_net::transfer::message::{self, Message, TransferMode};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const GROUP_IP: &str = "239.192.77.9";
const PORT: u16 = 7509;

/// Build the OpenPGM receiver into `dir`, or say why not.
fn build_receiver(dir: &Path) -> Option<PathBuf> {
    let flags = Command::new("pkg-config")
        .args(["--cflags", "--libs", "openpgm-5.3"])
        .output();
    let flags = match flags {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout).trim().to_string(),
        _ => {
            eprintln!("SKIPPED: OpenPGM is not installed (apt-get install libpgm-dev pkg-config)");
            return None;
        }
    };
    let exe = dir.join("openpgm_recv");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/openpgm/openpgm_recv.c");
    let out = Command::new("cc")
        .args(["-O1", "-Wall", "-Werror", "-o"])
        .arg(&exe)
        .arg(&src)
        .args(flags.split_whitespace())
        .output()
        .expect("cc");
    assert!(
        out.status.success(),
        "building {}: {}",
        src.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    Some(exe)
}

/// The OpenPGM receiver on host 1, writing length-prefixed APDUs to `out`.
fn openpgm_receiver(
    lab: &Lab,
    exe: &Path,
    out: &Path,
    idle_s: u32,
    max_s: u32,
) -> std::process::Child {
    lab.command(1, exe.to_str().unwrap())
        .arg(format!("{};{GROUP_IP}", lab.addr(1)))
        .arg(PORT.to_string())
        .arg(out)
        .arg(idle_s.to_string())
        .arg(max_s.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// `convoy send` from host 0 with `args`, standard input from `stdin`.
fn convoy_send(lab: &Lab, args: &[&str], stdin: Option<&[u8]>) -> std::process::Child {
    let mut child = lab
        .command(0, BIN)
        .args([
            "send",
            "--group",
            &format!("{GROUP_IP}:{PORT}"),
            "--iface",
            &lab.addr(0),
            "--quiet",
        ])
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(data) = stdin {
        let mut pipe = child.stdin.take().unwrap();
        pipe.write_all(data).unwrap();
    }
    child
}

/// The APDUs the receiver wrote (each preceded by its length, 4 bytes big-endian).
fn apdus(path: &Path) -> Vec<Vec<u8>> {
    let b = fs::read(path).unwrap();
    let mut out = Vec::new();
    let mut i = 0;
    while i + 4 <= b.len() {
        let n = u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]) as usize;
        out.push(b[i + 4..i + 4 + n].to_vec());
        i += 4 + n;
    }
    out
}

/// A stream sent at a fixed rate reaches the OpenPGM receiver whole: its APDUs are Convoy's messages (the manifest,
/// stream data, the end), and the data, by offset, is the input byte for byte.
#[test]
fn an_openpgm_receiver_gets_a_whole_stream_at_a_fixed_rate() {
    let Some(lab) = Lab::new("opgm", 1) else {
        return;
    };
    let dir = Scratch::new("openpgm-stream");
    let Some(exe) = build_receiver(&dir.0) else {
        return;
    };
    let out = dir.0.join("apdus.bin");
    let rx = openpgm_receiver(&lab, &exe, &out, 3, 60);
    std::thread::sleep(Duration::from_millis(500));
    let input = bytes(9, 3_000_000);
    let tx = convoy_send(
        &lab,
        &[
            "-",
            "--cc",
            "fixed",
            "--rate",
            "20Mbit",
            "--fire-and-forget",
        ],
        Some(&input),
    );
    let tx = wait(tx, Duration::from_secs(60));
    assert!(
        tx.status.success(),
        "send: {}",
        String::from_utf8_lossy(&tx.stderr)
    );
    let rx = wait(rx, Duration::from_secs(70));
    let said = String::from_utf8_lossy(&rx.stderr).to_string();
    assert!(rx.status.success(), "openpgm_recv: {said}");
    let mut stream = vec![0u8; input.len()];
    let (mut got, mut end) = (0usize, None);
    for apdu in apdus(&out) {
        match message::decode(&apdu).unwrap_or_else(|e| panic!("an APDU OpenPGM delivered: {e:?}"))
        {
            Message::StreamData { offset, data } => {
                let at = offset as usize;
                stream[at..at + data.len()].copy_from_slice(data);
                got += data.len();
            }
            Message::StreamEnd { total, .. } => end = Some(total),
            Message::Manifest(m) => assert_eq!(m.mode, TransferMode::Stream),
            other => panic!("unexpected message in a stream: {other:?}"),
        }
    }
    assert_eq!(
        end,
        Some(input.len() as u64),
        "the end message came ({said})"
    );
    assert_eq!(got, input.len(), "every byte once ({said})");
    assert!(
        stream == input,
        "the stream OpenPGM delivered differs from the input"
    );
    assert!(
        said.contains("resets 0"),
        "no data loss reported by OpenPGM: {said}"
    );
}

/// pgmcc needs a receiver to answer its acker election; OpenPGM's never does. The source must not creep along
/// for ever: after `--feedback-timeout` it stops, exit 2, naming `--cc fixed`.
#[test]
fn pgmcc_to_an_openpgm_receiver_stops_with_a_clear_error() {
    let Some(lab) = Lab::new("opgmcc", 1) else {
        return;
    };
    let dir = Scratch::new("openpgm-pgmcc");
    let Some(exe) = build_receiver(&dir.0) else {
        return;
    };
    let out = dir.0.join("apdus.bin");
    let mut rx = openpgm_receiver(&lab, &exe, &out, 30, 40);
    std::thread::sleep(Duration::from_millis(500));
    let file = dir.0.join("data.bin");
    fs::write(&file, bytes(3, 2_000_000)).unwrap();
    let started = Instant::now();
    let tx = convoy_send(
        &lab,
        &[
            file.to_str().unwrap(),
            "--cc",
            "pgmcc",
            "--feedback-timeout",
            "3s",
        ],
        None,
    );
    let tx = wait(tx, Duration::from_secs(60));
    let took = started.elapsed();
    let err = String::from_utf8_lossy(&tx.stderr);
    assert_eq!(tx.status.code(), Some(2), "exit 2 (incomplete): {err}");
    assert!(
        err.contains("no receiver answered pgmcc") && err.contains("--cc fixed"),
        "says why and what to do: {err}"
    );
    assert!(
        took < Duration::from_secs(30),
        "stopped instead of creeping along: {took:?}"
    );
    let _ = rx.kill();
    let _ = rx.wait();
    let received = apdus(&out).len();
    eprintln!("pgmcc to OpenPGM: stopped after {took:?}, {received} APDUs had reached the receiver: {err}");
}
