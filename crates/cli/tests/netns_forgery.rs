//! A keyed transfer (docs/keyed-sessions.md) in the namespace lab while a forger on the bridge attacks it:
//! (a) data with a wrong tag, (b) ACKs from the acker's address, (c) replays of valid packets, (d) a NAK flood.
//! The files must arrive byte-exact, every forged packet must be counted as refused, and the source's
//! controller must have taken no ACK that a receiver did not send.
//!
//! The forger is this test binary run again inside the forger's namespace (`ip netns exec`), selecting the
//! `forger_process` test with `CONVOY_FORGER` set; without it that test does nothing. Needs root (else
//! SKIPPED).

mod common;

use common::lab::Lab;
use common::lab_transfer::{file, hosts_have_copies, json, recv, send, GROUP, PORT};
use common::{keygen, wait, Guard, Scratch};
use convoy_wire::field::option::AUTH_TAG;
use convoy_wire::{checksum, BodyRepr, OptionsRepr, Packet, PacketRepr, PacketType, Tsi};
use socket2::{Domain, Protocol, Socket, Type};
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4, UdpSocket};
use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

/// What the forger sent, per attack.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
struct Forged {
    wrong_tag: u64,
    acks: u64,
    replays: u64,
    naks: u64,
}

/// A socket on `port` of `local`, joined to the lab's group, sending multicast from `local`.
fn group_socket(local: Ipv4Addr, port: u16) -> UdpSocket {
    let group: SocketAddrV4 = GROUP.parse().unwrap();
    let s = Socket::new(Domain::IPV4, Type::DGRAM, Some(Protocol::UDP)).unwrap();
    s.set_reuse_address(true).unwrap();
    s.bind(&SocketAddr::from((Ipv4Addr::UNSPECIFIED, port)).into())
        .unwrap();
    s.join_multicast_v4(group.ip(), &local).unwrap();
    s.set_multicast_if_v4(&local).unwrap();
    s.set_read_timeout(Some(Duration::from_millis(100)))
        .unwrap();
    s.into()
}

/// An upstream packet without options (none the forger could authenticate) to the session `tsi`.
fn upstream(tsi: Tsi, body: BodyRepr) -> Vec<u8> {
    let p = PacketRepr {
        source_port: PORT,
        dest_port: tsi.source_port,
        gsi: tsi.gsi,
        body,
        options: OptionsRepr::default(),
        payload: &[],
    };
    let mut b = vec![0u8; p.buffer_len()];
    p.emit(&mut b).unwrap();
    b
}

/// The forger (run in its own namespace): capture the source's packets for a moment, then attack for
/// `CONVOY_FORGER_SECONDS`, and print what was sent as JSON.
fn forge(me: Ipv4Addr, source: Ipv4Addr, seconds: f64) -> Forged {
    let group: SocketAddrV4 = GROUP.parse().unwrap();
    let sock = group_socket(me, PORT);
    let mut captured: Vec<Vec<u8>> = Vec::new();
    let mut buf = [0u8; 65536];
    let began = Instant::now();
    while captured.len() < 200 && began.elapsed() < Duration::from_secs(10) {
        if let Ok((n, _)) = sock.recv_from(&mut buf) {
            let ok = Packet::new_checked(&buf[..n]).is_ok_and(|p| {
                p.packet_type() == PacketType::Odata && p.auth_option_offset().is_some()
            });
            if ok {
                captured.push(buf[..n].to_vec());
            }
        }
    }
    assert!(!captured.is_empty(), "the forger heard no keyed ODATA");
    // The acker, as the source names it in its data (options are not encrypted), becomes our second address:
    // ACKs then come "from" it (the source never sends unicast to the acker, so nothing else changes).
    let acker = captured
        .iter()
        .rev()
        .find_map(|p| {
            PacketRepr::parse(p)
                .ok()?
                .options
                .cc
                .pgmcc
                .data
                .map(|d| d.acker)
        })
        .expect("the source names an acker");
    let alias = format!("{acker}/32");
    let added = std::process::Command::new("ip")
        .args(["addr", "add", &alias, "dev", "eth0"])
        .status()
        .unwrap();
    assert!(added.success(), "ip addr add {alias}");
    let spoofed = UdpSocket::bind((acker, 0)).unwrap();
    let mut out = Forged::default();
    let to_source = SocketAddr::from((source, PORT));
    let attack_start = Instant::now();
    let mut i = 0usize;
    while attack_start.elapsed().as_secs_f64() < seconds {
        let victim = &captured[i % captured.len()];
        let view = Packet::new_checked(&victim[..]).unwrap();
        let tsi = view.tsi();
        let sqn = view.sqn().unwrap_or(0);
        // (a) Wrong tag: a captured packet with one bit of its tag flipped.
        let mut bad = victim.clone();
        let at = view.auth_option_offset().unwrap() + AUTH_TAG.start;
        bad[at] ^= 1;
        checksum::fill(&mut bad);
        sock.send_to(&bad, group).unwrap();
        out.wrong_tag += 1;
        // (c) A replay, verbatim.
        sock.send_to(victim, group).unwrap();
        out.replays += 1;
        // (b) An ACK acknowledging far ahead, from the acker's address, to the source.
        let b = upstream(
            tsi,
            BodyRepr::Ack {
                rx_max: sqn.wrapping_add(1000),
                bitmap: u32::MAX,
            },
        );
        spoofed.send_to(&b, to_source).unwrap();
        out.acks += 1;
        // (d) NAKs, unicast to the source, for data it has sent.
        let b = upstream(
            tsi,
            BodyRepr::Nak {
                sqn,
                source_nla: source.into(),
                group_nla: (*group.ip()).into(),
            },
        );
        for _ in 0..4 {
            sock.send_to(&b, to_source).unwrap();
            out.naks += 1;
        }
        i += 1;
        // About 200 rounds a second: 1,400 forged packets a second.
        std::thread::sleep(Duration::from_millis(5));
    }
    out
}

/// The forger's entry point when this binary runs again in the forger's namespace; nothing otherwise.
#[test]
fn forger_process() {
    let Ok(spec) = std::env::var("CONVOY_FORGER") else {
        return;
    };
    let a: Vec<Ipv4Addr> = spec.split(',').map(|s| s.parse().unwrap()).collect();
    let seconds: f64 = std::env::var("CONVOY_FORGER_SECONDS")
        .unwrap()
        .parse()
        .unwrap();
    let forged = forge(a[0], a[1], seconds);
    println!("FORGED {}", serde_json::to_string(&forged).unwrap());
}

#[test]
fn a_keyed_transfer_survives_forged_data_acks_replays_and_a_nak_flood() {
    // Hosts 1 and 2 receive; host 3 forges. No bottleneck on the bridge, so no forged packet is lost on the way
    // and each one must be counted; the source's rate cap makes the transfer outlast the attack.
    let Some(lab) = Lab::new("fg", 3) else { return };
    let dir = Scratch::new("netns-forgery");
    let key = dir.0.join("session.key");
    keygen(&key);
    let keyed = ["--key-file", key.to_str().unwrap()];
    let src = file(&dir, "data.bin", 40_000_000);
    let outs: Vec<PathBuf> = (1..=2).map(|i| dir.0.join(format!("out{i}"))).collect();
    let rstats: Vec<PathBuf> = (1..=2)
        .map(|i| dir.0.join(format!("recv{i}.json")))
        .collect();
    let mut rx: Vec<Guard> = (1..=2)
        .map(|i| {
            let stats = ["--stats-json", rstats[i - 1].to_str().unwrap()];
            recv(&lab, i, &outs[i - 1], &[&keyed[..], &stats[..]].concat())
        })
        .collect();
    let stats = dir.0.join("send.json");
    let mut tx = send(
        &lab,
        &src,
        &stats,
        &[
            &keyed[..],
            &[
                "--wait-receivers",
                "2",
                "--wait",
                "30s",
                "--rate-max",
                "40Mbit",
            ],
        ]
        .concat(),
    );
    let forger = lab
        .command(3, std::env::current_exe().unwrap().to_str().unwrap())
        .args([
            "--exact",
            "forger_process",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env("CONVOY_FORGER", format!("{},{}", lab.addr(3), lab.addr(0)))
        .env("CONVOY_FORGER_SECONDS", "4")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let forger = wait(forger, Duration::from_secs(60));
    let out = String::from_utf8_lossy(&forger.stdout);
    assert!(
        forger.status.success(),
        "forger: {out}{}",
        String::from_utf8_lossy(&forger.stderr)
    );
    let forged: Forged = out
        .lines()
        .find_map(|l| l.split_once("FORGED ").map(|(_, json)| json))
        .map(|j| serde_json::from_str(j).unwrap())
        .unwrap_or_else(|| panic!("forger printed nothing: {out}"));
    let sent = wait(tx.take(), Duration::from_secs(240));
    assert!(
        sent.status.success(),
        "send: {}",
        String::from_utf8_lossy(&sent.stderr)
    );
    hosts_have_copies(1, &mut rx, &src, &outs);

    let s = json(&stats);
    let r: Vec<serde_json::Value> = rstats.iter().map(|p| json(p)).collect();
    let acks_sent: u64 = r.iter().map(|r| r["acks_sent"].as_u64().unwrap()).sum();
    eprintln!(
        "forged {forged:?}; refused at the source {}, at the receivers {} and {}; ACKs taken by the source {} of \
         {acks_sent} the receivers sent; acker changes {}, timeouts {}",
        s["refused"], r[0]["refused"], r[1]["refused"], s["acks"], s["acker_changes"], s["timeouts"]
    );
    let refused = |v: &serde_json::Value| v["refused"].as_u64().unwrap();
    // Unicast to the source: every forged ACK and NAK (and any group packet it hears) refused.
    assert!(
        refused(&s) >= forged.acks + forged.naks,
        "source refused {}",
        refused(&s)
    );
    // To the group: every receiver refuses every wrong tag and every replay.
    for (k, v) in r.iter().enumerate() {
        assert!(
            refused(v) >= forged.wrong_tag + forged.replays,
            "receiver {} refused {}",
            k + 1,
            refused(v)
        );
    }
    // The controller took only ACKs the receivers sent: the forged ones moved nothing.
    assert!(s["acks"].as_u64().unwrap() <= acks_sent, "{s}");
}
