//! `convoy send` / `convoy recv` end to end on loopback: one source on 127.0.0.1, receivers on 127.0.0.2, .3, .4
//! (all of 127/8 is this host's loopback), multicast looped back locally with TTL 0. Nothing leaves the host.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod common;

use common::{bytes, loopback_recv, loopback_send, make_tree, same_tree, wait, Scratch, BIN};

/// `convoy send` options for one receiver that is expected to fail: start when it has announced itself, and
/// give up on it 5 s after the data is out.
const ONE_RECEIVER_THAT_FAILS: &[&str] = &[
    "--wait-receivers",
    "1",
    "--wait",
    "20s",
    "--finish-timeout",
    "5s",
];

/// A port and group unlikely to collide with other tests or runs.
fn group(offset: u16) -> String {
    let port = 21_000 + (std::process::id() % 2_500) as u16 * 16 + offset;
    format!("239.255.{}.{}:{port}", offset + 10, (port % 250) + 1)
}

fn recv(group: &str, n: u8, out: &Path, extra: &[&str]) -> Child {
    loopback_recv(
        group,
        n,
        out,
        &[&["--start-timeout", "60s"], extra].concat(),
    )
}

fn send(group: &str, what: &Path, extra: &[&str]) -> Child {
    loopback_send(group, what, extra)
}

fn three_receivers(cc: &str, offset: u16) {
    let dir = Scratch::new(&format!("three-{cc}"));
    let src = make_tree(&dir.0);
    let g = group(offset);
    let outs: Vec<PathBuf> = (0..3).map(|i| dir.0.join(format!("out{i}"))).collect();
    let rx: Vec<Child> = (0..3)
        // Receivers follow the source's controller (`--cc auto`, the default).
        .map(|i| recv(&g, 2 + i as u8, &outs[i], &[]))
        .collect();
    let stats = dir.0.join("send.json");
    let tx = send(
        &g,
        &src,
        &[
            "--cc",
            cc,
            "--rate",
            "400Mbit",
            "--wait-receivers",
            "3",
            "--wait",
            "20s",
            "--stats-json",
            stats.to_str().unwrap(),
        ],
    );
    let tx = wait(tx, Duration::from_secs(120));
    assert!(
        tx.status.success(),
        "send: {}",
        String::from_utf8_lossy(&tx.stderr)
    );
    for (i, r) in rx.into_iter().enumerate() {
        let r = wait(r, Duration::from_secs(60));
        assert!(
            r.status.success(),
            "recv {i}: {}",
            String::from_utf8_lossy(&r.stderr)
        );
        same_tree(&src, &outs[i].join("payload"));
    }
    let json: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(stats).unwrap()).unwrap();
    assert_eq!(json["bytes"], 20_000_000);
    assert_eq!(json["receivers"].as_array().unwrap().len(), 3);
    assert!(json["receivers"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["state"] == "complete"));
}

#[test]
fn three_receivers_20mb_pgmcc() {
    three_receivers("pgmcc", 0);
}

#[test]
fn three_receivers_20mb_fixed() {
    three_receivers("fixed", 1);
}

#[test]
fn three_receivers_20mb_aimd() {
    three_receivers("aimd", 14);
}

#[test]
fn late_receiver_gets_everything_from_the_files() {
    // The source keeps only 50 packets for repair and starts as soon as one receiver is there; a second
    // receiver joins about a second later and asks for everything from the trail: nearly all of it must be
    // rebuilt from the file (repair floor + RepairRequested).
    let dir = Scratch::new("late");
    let src = dir.0.join("f.bin");
    fs::write(&src, bytes(9, 10_000_000)).unwrap();
    let g = group(2);
    let early = recv(&g, 2, &dir.0.join("early"), &[]);
    let stats = dir.0.join("send.json");
    let tx = send(
        &g,
        &src,
        &[
            "--txw-packets",
            "50",
            "--rate-max",
            "20Mbit",
            "--wait-receivers",
            "1",
            "--wait",
            "30s",
            "--stats-json",
            stats.to_str().unwrap(),
        ],
    );
    std::thread::sleep(Duration::from_millis(1000));
    let late = recv(&g, 3, &dir.0.join("late"), &[]);
    let tx = wait(tx, Duration::from_secs(120));
    assert!(
        tx.status.success(),
        "send: {}",
        String::from_utf8_lossy(&tx.stderr)
    );
    for (name, r) in [("early", early), ("late", late)] {
        let r = wait(r, Duration::from_secs(60));
        assert!(
            r.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&r.stderr)
        );
        assert!(
            fs::read(dir.0.join(name).join("f.bin")).unwrap() == fs::read(&src).unwrap(),
            "{name}: content differs"
        );
    }
    let json: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(stats).unwrap()).unwrap();
    assert_eq!(json["receivers"].as_array().unwrap().len(), 2, "{json}");
    assert!(json["app_repairs"].as_u64().unwrap() > 500, "{json}");
}

#[test]
fn receivers_of_a_killed_source_exit_2_naming_incomplete_files() {
    let dir = Scratch::new("killed");
    let src = dir.0.join("payload");
    fs::create_dir_all(&src).unwrap();
    fs::write(src.join("one.bin"), bytes(4, 4_000_000)).unwrap();
    fs::write(src.join("two.bin"), bytes(5, 4_000_000)).unwrap();
    let g = group(3);
    let out = dir.0.join("out");
    let r = recv(&g, 2, &out, &["--timeout", "3s"]);
    let mut tx = send(
        &g,
        &src,
        &[
            "--rate-max",
            "8Mbit",
            "--wait-receivers",
            "1",
            "--wait",
            "20s",
        ],
    );
    std::thread::sleep(Duration::from_millis(2500));
    tx.kill().unwrap();
    let _ = tx.wait();
    let started = Instant::now();
    let r = wait(r, Duration::from_secs(30));
    assert_eq!(r.status.code(), Some(2));
    assert!(started.elapsed() < Duration::from_secs(10));
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.contains("incomplete: payload/two.bin"), "{err}");
    assert!(err.contains("went silent"), "{err}");
    assert!(
        out.join("payload/one.bin.partial").exists() || out.join("payload/one.bin").exists(),
        "{err}"
    );
}

#[test]
fn local_write_failure_exits_3() {
    let dir = Scratch::new("localfail");
    let src = dir.0.join("payload");
    fs::create_dir_all(&src).unwrap();
    fs::write(src.join("x.bin"), bytes(6, 100_000)).unwrap();
    let out = dir.0.join("out");
    fs::create_dir_all(&out).unwrap();
    // A regular file where the receiver must create the directory `payload`.
    fs::write(out.join("payload"), b"in the way").unwrap();
    let g = group(4);
    let r = recv(&g, 2, &out, &[]);
    let tx = send(&g, &src, ONE_RECEIVER_THAT_FAILS);
    let r = wait(r, Duration::from_secs(60));
    let tx = wait(tx, Duration::from_secs(60));
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(3), "{err}");
    assert!(err.contains("incomplete: payload"), "{err}");
    assert_eq!(
        tx.status.code(),
        Some(2),
        "the source reports the failed receiver"
    );
}

#[test]
fn a_file_changed_during_the_send_fails_it_with_4() {
    let dir = Scratch::new("changed");
    let src = dir.0.join("f.bin");
    fs::write(&src, bytes(11, 12_000_000)).unwrap();
    let g = group(5);
    let r = recv(&g, 2, &dir.0.join("out"), &["--timeout", "3s"]);
    let tx = send(
        &g,
        &src,
        &[
            "--rate-max",
            "16Mbit",
            "--wait-receivers",
            "1",
            "--wait",
            "20s",
        ],
    );
    // The send queue holds 4 MB: the source is still reading the file when it changes.
    std::thread::sleep(Duration::from_millis(1000));
    // Rewrite the file in place, same size, different bytes.
    fs::write(&src, bytes(12, 12_000_000)).unwrap();
    let tx = wait(tx, Duration::from_secs(60));
    let err = String::from_utf8_lossy(&tx.stderr);
    assert_eq!(tx.status.code(), Some(4), "{err}");
    assert!(err.contains("changed while being sent"), "{err}");
    let r = wait(r, Duration::from_secs(30));
    assert_ne!(
        r.status.code(),
        Some(0),
        "the receiver cannot have the file"
    );
}

#[test]
fn files_refused_on_stdout_exit_3_at_once() {
    let dir = Scratch::new("stdoutfiles");
    let src = dir.0.join("f.bin");
    fs::write(&src, bytes(13, 100_000)).unwrap();
    let g = group(6);
    let r = Command::new(BIN)
        .args(["recv", "--group", &g, "--iface", "127.0.0.2", "--stdout"])
        .args(["--quiet", "--start-timeout", "60s"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let tx = send(&g, &src, ONE_RECEIVER_THAT_FAILS);
    let r = wait(r, Duration::from_secs(30));
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(3), "{err}");
    assert!(err.contains("cannot go to standard output"), "{err}");
    let tx = wait(tx, Duration::from_secs(60));
    assert_eq!(tx.status.code(), Some(2));
}

#[test]
fn a_stream_from_stdin_reaches_stdout() {
    let g = group(7);
    let data = bytes(14, 2_000_000);
    let r = Command::new(BIN)
        .args(["recv", "--group", &g, "--iface", "127.0.0.2", "--stdout"])
        .args(["--quiet", "--start-timeout", "60s"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut tx = Command::new(BIN)
        .args([
            "send",
            "-",
            "--group",
            &g,
            "--iface",
            "127.0.0.1",
            "--ttl",
            "0",
        ])
        .args(["--quiet", "--wait-receivers", "1", "--wait", "20s"])
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = tx.stdin.take().unwrap();
        stdin.write_all(&data).unwrap();
    }
    // Read the receiver's standard output while it runs (a full pipe would block it).
    let r = std::thread::spawn(move || r.wait_with_output().unwrap());
    let tx = wait(tx, Duration::from_secs(60));
    assert!(
        tx.status.success(),
        "send: {}",
        String::from_utf8_lossy(&tx.stderr)
    );
    let r = r.join().unwrap();
    assert!(
        r.status.success(),
        "recv: {}",
        String::from_utf8_lossy(&r.stderr)
    );
    assert!(r.stdout == data, "the stream arrived intact");
}

#[test]
fn a_full_disk_exits_3_naming_the_file() {
    // The receiver writes into a 1 MiB tmpfs mounted in a private mount namespace of its own (root only).
    let dir = Scratch::new("diskfull");
    let out = dir.0.join("out");
    fs::create_dir_all(&out).unwrap();
    let probe = Command::new("unshare")
        .args(["--mount", "true"])
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    if !probe {
        eprintln!("SKIPPED: needs `unshare --mount` (root)");
        return;
    }
    let src = dir.0.join("payload");
    fs::create_dir_all(&src).unwrap();
    fs::write(src.join("a-small.txt"), bytes(15, 1000)).unwrap();
    fs::write(src.join("b-big.bin"), bytes(16, 3_000_000)).unwrap();
    let g = group(8);
    let script = format!(
        "mount -t tmpfs -o size=1m tmpfs '{}' && exec '{BIN}' recv --group {g} --iface 127.0.0.2 \
         --out '{}' --quiet --start-timeout 60s",
        out.display(),
        out.display()
    );
    let r = Command::new("unshare")
        .args(["--mount", "sh", "-c", &script])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let tx = send(&g, &src, ONE_RECEIVER_THAT_FAILS);
    let r = wait(r, Duration::from_secs(60));
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(3), "{err}");
    assert!(err.contains("incomplete: payload/b-big.bin"), "{err}");
    assert!(
        !err.contains("a-small.txt"),
        "the small file is complete: {err}"
    );
    let tx = wait(tx, Duration::from_secs(60));
    assert_eq!(
        tx.status.code(),
        Some(2),
        "the source reports the failed receiver"
    );
}

#[test]
fn send_refuses_cc_auto_naming_every_scheme() {
    let out = send(&group(13), Path::new("/dev/null"), &["--cc", "auto"])
        .wait_with_output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    for scheme in ["pgmcc", "fixed", "tfmcc", "aimd"] {
        assert!(err.contains(scheme), "`{scheme}` missing from: {err}");
    }
}

#[test]
fn a_missing_input_fails_before_the_session_opens() {
    let out = Command::new(BIN)
        .args([
            "send",
            "--group",
            &group(15),
            "--iface",
            "127.0.0.1",
            "--ttl",
            "0",
            "/nonexistent/convoy-input",
        ])
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("/nonexistent/convoy-input"),
        "the path is named: {err}"
    );
    assert!(
        !err.contains("sending to"),
        "nothing is announced before the check: {err}"
    );
}

#[test]
fn an_output_directory_that_cannot_be_written_fails_at_once_with_3() {
    let dir = Scratch::new("unwritable-out");
    let file = dir.0.join("a-file");
    fs::write(&file, b"x").unwrap();
    // /proc takes no directory even from root; a regular file is no directory. `recv` waits up to 60 s for a
    // source: failing within the 20 s `wait` allows means the check came before joining.
    for out in [PathBuf::from("/proc/convoy-nope"), file] {
        let r = wait(recv(&group(16), 2, &out, &[]), Duration::from_secs(20));
        let err = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(3), "{err}");
        assert!(
            err.contains(&out.display().to_string()),
            "the path is named: {err}"
        );
    }
}

#[test]
fn sending_to_nobody_is_incomplete_unless_fire_and_forget() {
    let dir = Scratch::new("nobody");
    let file = dir.0.join("six.txt");
    fs::write(&file, b"hello\n").unwrap();
    for (flag, code) in [(None, 2), (Some("--fire-and-forget"), 0)] {
        let mut cmd = Command::new(BIN);
        cmd.args([
            "send",
            "--group",
            &group(17),
            "--iface",
            "127.0.0.1",
            "--ttl",
            "0",
            "--quiet",
        ])
        .arg(&file)
        .stderr(Stdio::piped());
        if let Some(f) = flag {
            cmd.arg(f);
        }
        let out = cmd.output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{flag:?}: {err}");
        assert_eq!(
            err.contains("no receiver was heard"),
            flag.is_none(),
            "{flag:?}: {err}"
        );
    }
}

/// When every receiver heard from has reported, the source closes after its OPT_FIN instead of lingering 3 s for
/// repairs nobody will ask for (issue: a 6-byte file took 2.0 s).
#[test]
fn the_source_closes_at_once_when_every_receiver_reported() {
    let dir = Scratch::new("no-linger");
    let file = dir.0.join("six.txt");
    fs::write(&file, b"hello\n").unwrap();
    let g = group(18);
    let out = dir.0.join("out");
    let rx = recv(&g, 2, &out, &[]);
    let stats = dir.0.join("send.json");
    let tx = send(
        &g,
        &file,
        &[
            "--wait-receivers",
            "1",
            "--wait",
            "20s",
            "--stats-json",
            stats.to_str().unwrap(),
        ],
    );
    let tx = wait(tx, Duration::from_secs(30));
    assert!(
        tx.status.success(),
        "send: {}",
        String::from_utf8_lossy(&tx.stderr)
    );
    let r = wait(rx, Duration::from_secs(30));
    assert!(
        r.status.success(),
        "recv: {}",
        String::from_utf8_lossy(&r.stderr)
    );
    assert_eq!(fs::read(out.join("six.txt")).unwrap(), b"hello\n");
    let json: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(stats).unwrap()).unwrap();
    assert_eq!(json["closed"], true);
    let closing = json["closing_seconds"].as_f64().unwrap();
    // The engine lingers 3 s (SenderConfig::linger) when it must; here it need not.
    assert!(
        closing < 1.0,
        "closing took {closing} s: the source lingered"
    );
}

/// `convoy send --raw` takes standard input only, in APDUs receivers accept: anything else is a usage error
/// (exit 1) naming what is wrong, before the session opens.
#[test]
fn raw_send_checks_its_input_and_apdu_size_before_opening() {
    let dir = Scratch::new("raw-usage");
    let file = dir.0.join("six.txt");
    fs::write(&file, b"hello\n").unwrap();
    let g = group(19);
    let cases: [(&[&str], &str); 4] = [
        (
            &[file.to_str().unwrap(), "--raw"],
            "give `-` as the only input",
        ),
        (&["-", "--raw", "--apdu-size", "0B"], "--apdu-size 0B"),
        (&["-", "--raw", "--apdu-size", "1GiB"], "must be from 1B to"),
        (&["-", "--raw", "--parity", "16"], "--parity with --raw"),
    ];
    for (args, says) in cases {
        let out = Command::new(BIN)
            .args(["send", "--group", &g, "--iface", "127.0.0.1", "--ttl", "0"])
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(
            !err.contains("sending to"),
            "{args:?}: checked before the session opens: {err}"
        );
    }
}

/// Issue: interrupted transfers start over. A receiver killed halfway keeps the verified blocks of its
/// `.partial` file, and a re-run with `--resume` sends only the union of what the receivers lack: here the killed
/// receiver's second part, since the other receiver completed the first run.
#[test]
fn a_rerun_with_resume_sends_only_what_the_receivers_lack() {
    let dir = Scratch::new("resume");
    let file = dir.0.join("big.bin");
    let data = bytes(21, 8_000_000);
    fs::write(&file, &data).unwrap();
    let g = group(20);
    let (out2, out3) = (dir.0.join("out2"), dir.0.join("out3"));
    let mut killed = recv(&g, 2, &out2, &[]);
    let survivor = recv(&g, 3, &out3, &[]);
    let first_run = send(
        &g,
        &file,
        &[
            "--rate-max",
            "16Mbit",
            "--wait-receivers",
            "2",
            "--wait",
            "20s",
            "--finish-timeout",
            "3s",
        ],
    );
    // Kill receiver 2 once it has a good part of the file.
    let partial = out2.join("big.bin.partial");
    let began = Instant::now();
    while fs::metadata(&partial).map_or(0, |m| m.len()) < 4_500_000 {
        assert!(began.elapsed() < Duration::from_secs(30), "no progress");
        std::thread::sleep(Duration::from_millis(20));
    }
    killed.kill().unwrap();
    let _ = killed.wait();
    let r3 = wait(survivor, Duration::from_secs(60));
    assert!(
        r3.status.success(),
        "{}",
        String::from_utf8_lossy(&r3.stderr)
    );
    let first = wait(first_run, Duration::from_secs(60));
    assert_eq!(first.status.code(), Some(2), "receiver 2 did not finish");

    let stats = dir.0.join("send.json");
    let rstats = dir.0.join("recv.json");
    let r2 = recv(&g, 2, &out2, &["--stats-json", rstats.to_str().unwrap()]);
    let r3 = recv(&g, 3, &out3, &[]);
    let second_run = send(
        &g,
        &file,
        &[
            "--resume",
            "--wait-receivers",
            "2",
            "--wait",
            "20s",
            "--stats-json",
            stats.to_str().unwrap(),
        ],
    );
    let second = wait(second_run, Duration::from_secs(60));
    assert!(
        second.status.success(),
        "{}",
        String::from_utf8_lossy(&second.stderr)
    );
    for r in [
        wait(r2, Duration::from_secs(30)),
        wait(r3, Duration::from_secs(30)),
    ] {
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    }
    assert!(
        fs::read(out2.join("big.bin")).unwrap() == data,
        "receiver 2's copy"
    );
    assert!(
        fs::read(out3.join("big.bin")).unwrap() == data,
        "receiver 3's copy"
    );
    let json: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(stats).unwrap()).unwrap();
    let sent = json["bytes"].as_u64().unwrap();
    let skipped = json["skipped_bytes"].as_u64().unwrap();
    assert_eq!(sent + skipped, data.len() as u64);
    assert!(
        (sent as f64) < 0.6 * data.len() as f64,
        "the re-run sent {sent} of {} bytes",
        data.len()
    );
    let rjson: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(rstats).unwrap()).unwrap();
    assert!(
        rjson["resumed_bytes"].as_u64().unwrap() >= 3_500_000,
        "{rjson}"
    );
}
