//! Helpers shared by the end-to-end tests.
#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

pub const BIN: &str = env!("CARGO_BIN_EXE_convoy");

/// A scratch directory removed at the end.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(name: &str) -> Self {
        let p = std::env::temp_dir().join(format!("convoy-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&p);
        fs::create_dir_all(&p).unwrap();
        Scratch(p)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// Deterministic pseudo-random bytes (xorshift), so failures reproduce.
pub fn bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

/// 20 MB in a directory tree: two large files, a small one, an empty one and a subdirectory.
pub fn make_tree(root: &Path) -> PathBuf {
    let src = root.join("payload");
    fs::create_dir_all(src.join("sub/deeper")).unwrap();
    fs::write(src.join("big.bin"), bytes(1, 12_000_000)).unwrap();
    fs::write(src.join("sub/mid.bin"), bytes(2, 7_999_000)).unwrap();
    fs::write(src.join("sub/deeper/small.txt"), bytes(3, 1000)).unwrap();
    fs::write(src.join("empty"), b"").unwrap();
    src
}

pub fn same_tree(a: &Path, b: &Path) {
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        let (pa, pb) = (a.join(&rel), b.join(&rel));
        if pa.is_dir() {
            assert!(pb.is_dir(), "{} missing", pb.display());
            for e in fs::read_dir(&pa).unwrap() {
                stack.push(rel.join(e.unwrap().file_name()));
            }
        } else {
            assert!(
                fs::read(&pa).unwrap() == fs::read(&pb).unwrap(),
                "{} differs",
                rel.display()
            );
        }
    }
}

pub fn wait(child: Child, limit: Duration) -> Output {
    let start = Instant::now();
    let mut child = child;
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "timed out; stderr: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
pub mod iperf;
pub mod lab;
pub mod lab_transfer;

/// Kills the process when dropped (so no process outlives its namespace).
pub struct Guard(pub Option<Child>);

impl Guard {
    pub fn take(&mut self) -> Child {
        self.0.take().expect("child")
    }
    pub fn kill(&mut self) {
        if let Some(c) = self.0.as_mut() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        self.kill();
    }
}

/// `convoy recv` on loopback address 127.0.0.`n` into `out`, quiet, with `extra` options.
pub fn loopback_recv(group: &str, n: u8, out: &Path, extra: &[&str]) -> Child {
    Command::new(BIN)
        .args(["recv", "--group", group, "--iface", &format!("127.0.0.{n}")])
        .arg("--out")
        .arg(out)
        .arg("--quiet")
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// `convoy send` of `what` from 127.0.0.1 with TTL 0 (nothing leaves the host), quiet, with `extra` options.
pub fn loopback_send(group: &str, what: &Path, extra: &[&str]) -> Child {
    Command::new(BIN)
        .args([
            "send",
            "--group",
            group,
            "--iface",
            "127.0.0.1",
            "--ttl",
            "0",
            "--quiet",
        ])
        .arg(what)
        .args(extra)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// `convoy keygen path`, which must succeed.
pub fn keygen(path: &Path) {
    let out = Command::new(BIN).arg("keygen").arg(path).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
