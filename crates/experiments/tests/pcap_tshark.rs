//! `--pcap`: Wireshark's dissectors decode the TCP segments Convoy writes (PGM packets and cross traffic:
//! `crates/cli/tests/wireshark.rs`). Runs tshark when it is installed
//! (scripts/test.sh installs it: Debian package `tshark`); skipped with a message otherwise.

use convoy_experiments::simrun::pcap;
use convoy_proto::Instant;
use convoy_sim::packet::{Body, Dest, Packet};
use convoy_sim::tcp::TcpSegment;
use convoy_sim::{FlowId, NodeId};
use std::path::{Path, PathBuf};
use std::process::Command;

fn tshark() -> Option<PathBuf> {
    let ok = Command::new("tshark")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    ok.then(|| PathBuf::from("tshark"))
}

/// `tshark -r file -d udp.port==3055,pgm -T fields -e <fields>`, one line per packet.
fn fields(file: &Path, filter: &str, fields: &[&str]) -> Vec<String> {
    let mut cmd = Command::new("tshark");
    cmd.args(["-n", "-r"]).arg(file).args([
        "-d",
        "udp.port==3055,pgm",
        "-o",
        "pgm.check_checksum:TRUE",
    ]);
    cmd.args(["-o", "tcp.relative_sequence_numbers:FALSE"]);
    if !filter.is_empty() {
        cmd.args(["-Y", filter]);
    }
    cmd.args(["-T", "fields"]);
    for f in fields {
        cmd.args(["-e", f]);
    }
    let out = cmd.output().expect("tshark runs");
    assert!(
        out.status.success(),
        "tshark failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

fn dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn wireshark_decodes_tcp_with_sack() {
    // TCP flows cannot run until the TCP models land, so this writes TCP segments as the simulator carries them.
    let d = dir("pcap-tcp");
    let data = |seq: u64| Packet {
        size: 1500,
        src: NodeId(0),
        dst: Dest::Node(NodeId(1)),
        flow: FlowId(2),
        to_agent: None,
        body: Body::Tcp(TcpSegment {
            seq,
            len: 1460,
            ..TcpSegment::default()
        }),
    };
    let mut ack = TcpSegment {
        is_ack: true,
        ack: 1460,
        sack_count: 2,
        ..TcpSegment::default()
    };
    ack.sack[0] = (4380, 5840);
    ack.sack[1] = (2920, 3800);
    let ack = Packet {
        size: 60,
        src: NodeId(1),
        dst: Dest::Node(NodeId(0)),
        flow: FlowId(2),
        to_agent: None,
        body: Body::Tcp(ack),
    };
    let packets = vec![
        (Instant::from_millis(1), data(0)),
        (Instant::from_millis(2), data(1460)),
        (Instant::from_millis(3), data(4380)),
        (Instant::from_millis(20), ack),
    ];
    let file = d.join("tcp.pcap");
    let mut bytes = Vec::new();
    pcap::write(&mut bytes, &packets).unwrap();
    std::fs::write(&file, bytes).unwrap();
    let Some(_) = tshark() else {
        eprintln!("SKIPPED: tshark is not installed (apt-get install tshark)");
        return;
    };
    let seg = fields(
        &file,
        "tcp",
        &[
            "ip.src",
            "tcp.srcport",
            "tcp.dstport",
            "tcp.seq_raw",
            "tcp.len",
            "frame.len",
            "frame.cap_len",
        ],
    );
    assert_eq!(seg.len(), 4, "{seg:?}");
    assert_eq!(seg[0], "10.0.0.1\t20002\t5001\t0\t1460\t1500\t40");
    assert_eq!(seg[2], "10.0.0.1\t20002\t5001\t4380\t1460\t1500\t40");
    let sack = fields(
        &file,
        "tcp.options.sack",
        &["tcp.ack_raw", "tcp.options.sack_le", "tcp.options.sack_re"],
    );
    assert_eq!(sack.len(), 1, "{sack:?}");
    let f: Vec<&str> = sack[0].split('\t').collect();
    assert_eq!(f[0], "1460");
    assert!(
        f[1].contains("4380") && f[1].contains("2920") && f[2].contains("5840"),
        "{sack:?}"
    );
}
