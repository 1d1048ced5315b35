//! Keyed sessions end to end on loopback (docs/keyed-sessions.md): `convoy keygen`, a keyed transfer in the
//! clear and encrypted, and the clear refusals between keyed and unkeyed ends. Nothing leaves the host.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Child, Command};
use std::time::Duration;

mod common;

use common::{bytes, keygen, loopback_recv, loopback_send, wait, Scratch, BIN};

/// A port and group unlikely to collide with other tests or runs.
fn group(offset: u16) -> String {
    let port = 41_000 + (std::process::id() % 1_500) as u16 * 8 + offset;
    format!("239.255.{}.{}:{port}", offset + 60, (port % 250) + 1)
}

fn recv(group: &str, out: &Path, extra: &[&str]) -> Child {
    loopback_recv(group, 2, out, extra)
}

fn send(group: &str, what: &Path, extra: &[&str]) -> Child {
    loopback_send(group, what, extra)
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn keygen_writes_a_private_key_and_a_readable_one_is_refused() {
    let dir = Scratch::new("keygen");
    let key = dir.0.join("session.key");
    keygen(&key);
    assert_eq!(
        fs::metadata(&key).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let again = Command::new(BIN).arg("keygen").arg(&key).output().unwrap();
    assert_eq!(again.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&again.stderr).contains("exists already"));
    fs::set_permissions(&key, fs::Permissions::from_mode(0o644)).unwrap();
    let file = dir.0.join("f");
    fs::write(&file, b"x").unwrap();
    let out = send(&group(0), &file, &["--key-file", key.to_str().unwrap()])
        .wait_with_output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("mode 644") && err.contains("session.key"),
        "{err}"
    );
}

#[test]
fn a_keyed_transfer_arrives_byte_exact_in_the_clear_and_encrypted() {
    for (i, encrypt) in [false, true].into_iter().enumerate() {
        let dir = Scratch::new(&format!("keyed-{encrypt}"));
        let key = dir.0.join("session.key");
        keygen(&key);
        let file = dir.0.join("data.bin");
        let data = bytes(7 + i as u64, 3_000_000);
        fs::write(&file, &data).unwrap();
        let g = group(1 + i as u16);
        let out = dir.0.join("out");
        let (sstats, rstats) = (dir.0.join("send.json"), dir.0.join("recv.json"));
        let keyed = ["--key-file", key.to_str().unwrap()];
        let rx = recv(
            &g,
            &out,
            &[
                &keyed[..],
                &[
                    "--start-timeout",
                    "30s",
                    "--stats-json",
                    rstats.to_str().unwrap(),
                ],
            ]
            .concat(),
        );
        let mut send_args = vec!["--wait-receivers", "1", "--wait", "20s", "--stats-json"];
        send_args.push(sstats.to_str().unwrap());
        send_args.extend(keyed);
        if !encrypt {
            send_args.push("--no-encrypt");
        }
        let tx = wait(send(&g, &file, &send_args), Duration::from_secs(60));
        assert!(
            tx.status.success(),
            "{}",
            String::from_utf8_lossy(&tx.stderr)
        );
        let rx = wait(rx, Duration::from_secs(30));
        assert!(
            rx.status.success(),
            "{}",
            String::from_utf8_lossy(&rx.stderr)
        );
        assert!(fs::read(out.join("data.bin")).unwrap() == data);
        assert_eq!(json(&sstats)["refused"], 0);
        assert_eq!(json(&rstats)["refused"], 0);
    }
}

#[test]
fn keyed_and_unkeyed_ends_refuse_each_other_saying_why() {
    let dir = Scratch::new("keyed-mismatch");
    let key = dir.0.join("session.key");
    keygen(&key);
    let other = dir.0.join("other.key");
    keygen(&other);
    let file = dir.0.join("f");
    fs::write(&file, b"hello").unwrap();
    let cases: [(&[&str], &[&str], &str); 3] = [
        (
            &["--key-file", key.to_str().unwrap()],
            &[],
            "this endpoint has none",
        ),
        (
            &[],
            &["--key-file", key.to_str().unwrap()],
            "the sender has no key",
        ),
        (
            &["--key-file", key.to_str().unwrap()],
            &["--key-file", other.to_str().unwrap()],
            "tag does not match",
        ),
    ];
    for (i, (send_key, recv_key, says)) in cases.into_iter().enumerate() {
        let g = group(3 + i as u16);
        let out = dir.0.join(format!("out{i}"));
        let rx = recv(&g, &out, &[recv_key, &["--start-timeout", "3s"]].concat());
        let tx = send(&g, &file, &[send_key, &["--wait", "4s"]].concat());
        let rx = wait(rx, Duration::from_secs(30));
        let err = String::from_utf8_lossy(&rx.stderr);
        assert_eq!(rx.status.code(), Some(2), "{err}");
        assert!(
            err.contains("refused") && err.contains(says),
            "case {i}: {err}"
        );
        let tx = wait(tx, Duration::from_secs(30));
        assert_eq!(tx.status.code(), Some(2), "no receiver was heard");
        assert!(!out.join("f").exists());
    }
}
