//! Convoy's source against a receiver we did not write: OpenPGM (Debian's libpgm-dev 5.3), through a small C
//! program (tests/openpgm/openpgm_recv.c) built here with the system's C compiler and `pkg-config openpgm-5.3`, in
//! the namespace lab (common/lab.rs). Needs root and libpgm-dev (`scripts/test.sh` installs it); without either,
//! each test prints SKIPPED and passes.

mod common;

use common::lab::Lab;
use common::{bytes, wait, Guard, Scratch, BIN};
use convoy_transfer::message::{self, Message, TransferMode};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const GROUP_IP: &str = "239.192.77.9";
const PORT: u16 = 7509;

/// Build the OpenPGM receiver into `dir`, or say why not.
fn build_receiver(dir: &Path) -> Option<PathBuf> {
    build(dir, "openpgm_recv")
}

/// Build `tests/openpgm/NAME.c` against OpenPGM into `dir`, or say why not.
fn build(dir: &Path, name: &str) -> Option<PathBuf> {
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
    let exe = dir.join(name);
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/openpgm/{name}.c"));
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

/// The repairs a `convoy` summary line reports ("…, N repairs").
fn repairs_in(line: &str) -> u64 {
    line.split(", ")
        .find_map(|part| {
            part.trim()
                .strip_suffix(" repairs")
                .and_then(|n| n.parse().ok())
        })
        .unwrap_or_else(|| panic!("no repair count in: {line}"))
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

/// Raw APDUs of 4000 bytes (three packets each, OPT_FRAGMENT) to the OpenPGM receiver while 2% of the datagrams
/// reaching it are dropped: OpenPGM NAKs, Convoy confirms and repairs, and OpenPGM delivers every APDU whole, in
/// order, byte-exact.
#[test]
fn an_openpgm_receiver_gets_fragmented_raw_apdus_and_repairs_under_loss() {
    let Some(lab) = Lab::new("opgmraw", 1) else {
        return;
    };
    let dir = Scratch::new("openpgm-raw");
    let Some(exe) = build_receiver(&dir.0) else {
        return;
    };
    lab.random_loss(1, PORT, 2).unwrap();
    let out = dir.0.join("apdus.bin");
    let rx = openpgm_receiver(&lab, &exe, &out, 5, 90);
    std::thread::sleep(Duration::from_millis(500));
    const APDU: usize = 4000;
    let input = bytes(11, 500 * APDU + 123);
    let tx = convoy_send(
        &lab,
        &[
            "-",
            "--raw",
            "--apdu-size",
            "4000B",
            "--cc",
            "fixed",
            "--rate",
            "10Mbit",
        ],
        Some(&input),
    );
    let tx = wait(tx, Duration::from_secs(60));
    let said_tx = String::from_utf8_lossy(&tx.stderr).to_string();
    assert!(tx.status.success(), "send: {said_tx}");
    let rx = wait(rx, Duration::from_secs(100));
    let said = String::from_utf8_lossy(&rx.stderr).to_string();
    assert!(rx.status.success(), "openpgm_recv: {said}");
    let got = apdus(&out);
    assert_eq!(got.len(), 501, "every APDU, whole ({said})");
    assert!(
        got[..500].iter().all(|a| a.len() == APDU) && got[500].len() == 123,
        "APDU boundaries kept"
    );
    assert!(
        got.concat() == input,
        "the APDUs OpenPGM delivered differ from the input ({said})"
    );
    assert!(said.contains("resets 0"), "no data-loss reset: {said}");
    let repairs = repairs_in(&said_tx);
    assert!(repairs > 0, "the dropped packets were repaired: {said_tx}");
    eprintln!("OpenPGM with 2% loss: {said}; source: {said_tx}");
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

/// `convoy recv --raw --stdout` takes an OpenPGM source's APDUs while 2% of the datagrams reaching it are dropped:
/// Convoy NAKs, OpenPGM repairs, and the output is the file, byte-exact. (1000-byte APDUs: with APDUs larger than
/// one packet, Debian's libpgm 5.3.128 crashed in `pgm_send` — `pgm_compat_csum_partial_copy`, SIGSEGV — in this
/// program; Convoy's own fragments reach OpenPGM in the test above.)
#[test]
fn convoy_receives_an_openpgm_source_byte_exact_under_loss() {
    let Some(lab) = Lab::new("opgmsrc", 1) else {
        return;
    };
    let dir = Scratch::new("openpgm-source");
    let Some(exe) = build(&dir.0, "openpgm_send") else {
        return;
    };
    lab.random_loss(1, PORT, 2).unwrap();
    let out = dir.0.join("out.bin");
    let rx = lab
        .command(1, BIN)
        .args([
            "recv",
            "--group",
            &format!("{GROUP_IP}:{PORT}"),
            "--iface",
            &lab.addr(1),
        ])
        .args([
            "--raw",
            "--stdout",
            "--timeout",
            "20s",
            "--start-timeout",
            "30s",
        ])
        .stdout(fs::File::create(&out).unwrap())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let file = dir.0.join("data.bin");
    let input = bytes(13, 1_000_000);
    fs::write(&file, &input).unwrap();
    let tx = lab
        .command(0, exe.to_str().unwrap())
        .arg(format!("{};{GROUP_IP}", lab.addr(0)))
        .arg(PORT.to_string())
        .arg(&file)
        .args(["1000", "1250000", "5"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let tx = wait(tx, Duration::from_secs(60));
    assert!(
        tx.status.success(),
        "openpgm_send: {}",
        String::from_utf8_lossy(&tx.stderr)
    );
    let rx = wait(rx, Duration::from_secs(60));
    let said = String::from_utf8_lossy(&rx.stderr).to_string();
    let got = fs::read(&out).unwrap();
    eprintln!(
        "Convoy from OpenPGM with 2% loss: {} of {} bytes; {said}",
        got.len(),
        input.len()
    );
    assert!(
        got == input,
        "the output differs from the file OpenPGM sent ({} of {} bytes): {said}",
        got.len(),
        input.len()
    );
    assert!(rx.status.success(), "convoy recv: {said}");
    let repairs = repairs_in(&said);
    assert!(repairs > 0, "OpenPGM repaired what was dropped: {said}");
}

/// OpenPGM's PGMCC source (PGM_USE_PGMCC) with a Convoy pgmcc receiver: as far as it goes (docs/interop.md,
/// "OpenPGM's PGMCC"). OpenPGM asks for an acker (OPT_PGMCC_DATA naming 0.0.0.0) and elects only a receiver that
/// answers with an ACK; Convoy's receiver answers with a NAK marked as an election report (pgmcc draft §2.3.1),
/// which OpenPGM does not read. With no acker, OpenPGM's window stays shut. Convoy must still answer the
/// request, and write nothing but a byte-exact prefix of what was sent.
#[test]
fn an_openpgm_pgmcc_source_asks_convoy_for_an_acker() {
    let Some(lab) = Lab::new("opsrc", 1) else {
        return;
    };
    let dir = Scratch::new("openpgm-pgmcc-source");
    let Some(exe) = build(&dir.0, "openpgm_send") else {
        return;
    };
    let out = dir.0.join("out.bin");
    let trace = dir.0.join("rx.csv");
    let mut rx = Guard(Some(
        lab.command(1, BIN)
            .args([
                "recv",
                "--group",
                &format!("{GROUP_IP}:{PORT}"),
                "--iface",
                &lab.addr(1),
            ])
            .args(["--raw", "--stdout", "--cc", "pgmcc", "--timeout", "3s"])
            .arg("--packet-trace")
            .arg(&trace)
            .stdout(fs::File::create(&out).unwrap())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    ));
    std::thread::sleep(Duration::from_millis(500));
    let file = dir.0.join("data.bin");
    let input = bytes(17, 1_000_000);
    fs::write(&file, &input).unwrap();
    let mut tx = Guard(Some(
        lab.command(0, exe.to_str().unwrap())
            .arg(format!("{};{GROUP_IP}", lab.addr(0)))
            .arg(PORT.to_string())
            .arg(&file)
            .args(["1000", "2500000", "1", "pgmcc"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    ));
    // At 20 Mbit/s the megabyte would take 0.4 s; give it 10.
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut finished = None;
    while finished.is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
        finished = tx.0.as_mut().unwrap().try_wait().unwrap();
    }
    tx.kill();
    // The receiver ends on the silence (writing its trace out).
    let _ = wait(rx.take(), Duration::from_secs(30));
    let rows = fs::read_to_string(&trace).unwrap();
    let lines = |dir: &str, ty: &str| -> Vec<&str> {
        rows.lines()
            .filter(|l| l.contains(&format!(",{dir},")) && l.contains(&format!(",{ty},")))
            .collect()
    };
    let odata = lines("rx", "ODATA");
    let requests = odata.iter().filter(|l| l.contains(",0.0.0.0,")).count();
    let answers: Vec<&str> = lines("tx", "NAK")
        .into_iter()
        .filter(|l| l.contains(" 0x31,"))
        .collect();
    let got = fs::read(&out).unwrap();
    eprintln!(
        "OpenPGM PGMCC source, Convoy receiver: OpenPGM {} within 10 s; {} ODATA seen ({requests} asking for an \
         acker), {} election NAKs and {} ACKs from Convoy; {} of {} bytes delivered",
        if finished.is_some() { "finished" } else { "had not finished" },
        odata.len(),
        answers.len(),
        lines("tx", "ACK").len(),
        got.len(),
        input.len()
    );
    assert!(requests > 0, "OpenPGM did not ask for an acker");
    assert!(
        !answers.is_empty(),
        "Convoy did not answer OpenPGM's election request"
    );
    assert!(
        input.starts_with(&got),
        "Convoy wrote data that OpenPGM did not send"
    );
}
