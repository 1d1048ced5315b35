//! Wireshark's PGM dissector reads what Convoy sends exactly as Convoy says it sent it, packet by packet.
//!
//! Real network (namespace lab, common/lab.rs): for every controller, a transfer to two receivers, one losing 3%
//! of its input (so NAK, NCF and RDATA appear), captured with `dumpcap` on the source's interface. Each host's
//! `--packet-trace` rows marked `tx` must equal, in order, the captured datagrams from that host as tshark
//! decodes them (type, ports, GSI, options byte, lengths, sequence numbers, trail and lead, NLAs, ACK RX_MAX and
//! bitmap, option types, NAK list, fragment fields, the PGMCC timestamp, acker or reporter and loss rate), with
//! no malformed packet, no bad checksum and no expert warning.
//!
//! Simulator: the `--pcap` file of a lossy link against the `.packets.csv` trace written beside it.
//!
//! Needs tshark (and root for the lab); `scripts/test.sh` installs tshark. Without them, tests print SKIPPED.

mod common;

use common::lab::Lab;
use common::{bytes, keygen, wait, Guard, BIN};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const GROUP_IP: &str = "239.192.77.11";
const PORT: u16 = 7511;

/// Trace columns compared with tshark, each with the tshark fields that hold it (the first non-empty wins).
const COMPARED: &[(&str, &[&str])] = &[
    ("src", &["ip.src"]),
    ("dst", &["ip.dst"]),
    ("len", &["udp.length"]),
    ("type", &["pgm.hdr.type"]),
    ("sport", &["pgm.hdr.sport"]),
    ("dport", &["pgm.hdr.dport"]),
    ("gsi", &["pgm.hdr.gsi"]),
    ("opts_flags", &["pgm.hdr.opts"]),
    ("tsdu_len", &["pgm.hdr.tsdulen"]),
    ("checksum_ok", &["pgm.hdr.cksum.status"]),
    (
        "sqn",
        &["pgm.spm.sqn", "pgm.nak.sqn", "pgm.poll.sqn", "pgm.polr.sqn"],
    ),
    ("trail", &["pgm.spm.trail"]),
    ("lead", &["pgm.spm.lead"]),
    ("nla", &["pgm.spm.path.ipv4", "pgm.nak.src.ipv4"]),
    ("group", &["pgm.nak.grp.ipv4"]),
    ("rx_max", &["pgm.ack.maxsqn"]),
    ("bitmap", &["pgm.ack.bitmap"]),
    // Filled from the option labels of `tshark -V` (`option_labels`): tshark 4.0 files a type field only for the
    // options it decodes, a label for every option.
    ("options", &[]),
    ("opts_len", &["pgm.opts.tlen"]),
    ("nak_list", &["pgm.opts.nak.list"]),
    ("frag_first", &["pgm.opts.fragment.first_sqn"]),
    ("frag_offset", &["pgm.opts.fragment.fragment_offset"]),
    ("frag_len", &["pgm.opts.fragment.total_length"]),
    ("cc_tstamp", &["pgm.opts.ccdata.tstamp"]),
    ("cc_addr", &["pgm.opts.ccdata.acker.ipv4"]),
    ("loss_rate", &["pgm.opts.ccdata.lossrate"]),
];

type Row = BTreeMap<&'static str, String>;

fn tshark_installed() -> bool {
    let ok = Command::new("tshark")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("SKIPPED: tshark is not installed (apt-get install tshark)");
    }
    ok
}

/// A number as tshark prints it (decimal or `0x` hex).
fn number(s: &str) -> Option<u64> {
    match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

/// One tshark field value in the trace's notation.
fn normalize(column: &str, raw: &str) -> String {
    let values: Vec<&str> = raw.split(';').filter(|v| !v.is_empty()).collect();
    let num = |v: &str| number(v).unwrap_or_else(|| panic!("{column}: not a number: {v}"));
    match column {
        _ if values.is_empty() => String::new(),
        "src" | "dst" | "nla" | "group" | "cc_addr" => values[0].to_string(),
        "gsi" => values[0].replace(':', ""),
        "len" => (num(values[0]) - 8).to_string(),
        "type" => convoy_wire::PacketType::from_code(num(values[0]) as u8)
            .map_or(values[0].to_string(), |t| t.name().to_string()),
        "opts_flags" => format!("0x{:02x}", num(values[0])),
        "bitmap" => format!("0x{:08x}", num(values[0])),
        // The dissector files the checksum itself under the status field too, then the status:
        // PROTO_CHECKSUM_E_GOOD is 1, _NOT_PRESENT 3.
        "checksum_ok" => u8::from(matches!(num(values[values.len() - 1]), 1 | 3)).to_string(),
        // tshark -T fields prints the 32-bit timestamp through a 16-bit field (docs/wire-format.md §1.9 D6).
        "cc_tstamp" => (num(values[0]) & 0xffff).to_string(),
        // Kept as tshark prints it; the trace's list is put in the same form (`as_wireshark_shows`).
        "nak_list" => values
            .iter()
            .map(|v| v.replace(':', ""))
            .collect::<Vec<_>>()
            .join(";"),
        _ => num(values[0]).to_string(),
    }
}

/// OPT_NAK_LIST as tshark 4.0's `-T fields` prints it: the dissector adds the list in chunks of 8 sequence
/// numbers, each as a bytes field spanning the chunk's 4·n bytes but holding the text it displays
/// ("0x91 0x92 …") instead of the packet's bytes, so the field's value is that text cut to 4·n characters, in hex.
/// The count of each chunk shows in its length; the numbers cut off do not show at all.
fn as_wireshark_shows(list: &str) -> String {
    let sqns: Vec<u32> = list
        .split_whitespace()
        .map(|v| v.parse().unwrap())
        .collect();
    sqns.chunks(8)
        .map(|chunk| {
            let text: String = chunk.iter().map(|n| format!("0x{n:x} ")).collect();
            text.bytes()
                .take(4 * chunk.len())
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join(";")
}

/// Wireshark's names of the options it knows (`opt_vals` in its PGM dissector), with their type codes.
const OPTION_NAMES: &[(&str, u8)] = &[
    ("Fragment", 0x01),
    ("NakList", 0x02),
    ("Join", 0x03),
    ("NakBackOffIvl", 0x04),
    ("NakBackOffRng", 0x05),
    ("ReDirect", 0x07),
    ("ParityPrm", 0x08),
    ("ParityGrp", 0x09),
    ("CurrTgsiz", 0x0a),
    ("Syn", 0x0d),
    ("Fin", 0x0e),
    ("Rst", 0x0f),
    ("CcData", 0x12),
    ("CcFeedBack", 0x13),
];

/// Per frame, the type codes of the options `tshark -V` labels ("Option: Fin, Length: 4",
/// "Option: Unknown (0x30), Length: 8"), in the trace's notation.
fn option_labels(pcap: &Path, port: u16) -> BTreeMap<u64, String> {
    let out = Command::new("tshark")
        .args(["-n", "-r"])
        .arg(pcap)
        .args(["-d", &format!("udp.port=={port},pgm"), "-V"])
        .output()
        .expect("tshark runs");
    let mut labels = BTreeMap::new();
    let mut frame = 0;
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        if let Some(rest) = line.strip_prefix("Frame ") {
            frame = number(rest.split(':').next().unwrap_or("")).unwrap_or(frame);
            continue;
        }
        let Some(label) = line.trim_start().strip_prefix("Option: ") else {
            continue;
        };
        let name = label.split(", Length").next().unwrap();
        let code = match name.strip_prefix("Unknown (") {
            Some(hex) => number(hex.trim_end_matches(')')).unwrap() as u8,
            None => {
                OPTION_NAMES
                    .iter()
                    .find(|(n, _)| *n == name)
                    .unwrap_or_else(|| panic!("option {name}"))
                    .1
            }
        };
        let list: &mut String = labels.entry(frame).or_default();
        if !list.is_empty() {
            list.push(' ');
        }
        list.push_str(&format!("0x{code:02x}"));
    }
    labels
}

/// The PGM datagrams of a capture as (frame number, row), decoding UDP port `port` as PGM.
fn captured(pcap: &Path, port: u16) -> Vec<(u64, Row)> {
    let mut fields = vec!["frame.number"];
    for (_, f) in COMPARED {
        fields.extend_from_slice(f);
    }
    let mut cmd = Command::new("tshark");
    cmd.args(["-n", "-r"]).arg(pcap);
    cmd.args([
        "-d",
        &format!("udp.port=={port},pgm"),
        "-o",
        "pgm.check_checksum:TRUE",
    ]);
    cmd.args([
        "-Y",
        &format!("udp.port == {port}"),
        "-T",
        "fields",
        "-E",
        "occurrence=a",
        "-E",
        "aggregator=;",
    ]);
    for f in &fields {
        cmd.args(["-e", f]);
    }
    let out = cmd.output().expect("tshark runs");
    assert!(
        out.status.success(),
        "tshark: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let labels = option_labels(pcap, port);
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .map(|line| {
            let v: Vec<&str> = line.split('\t').collect();
            assert_eq!(v.len(), fields.len(), "tshark line: {line}");
            let mut row = Row::new();
            let mut i = 1;
            for (column, f) in COMPARED {
                let raw = v[i..i + f.len()]
                    .iter()
                    .find(|s| !s.is_empty())
                    .unwrap_or(&"");
                row.insert(column, normalize(column, raw));
                i += f.len();
            }
            let frame = number(v[0]).unwrap();
            row.insert("options", labels.get(&frame).cloned().unwrap_or_default());
            (frame, row)
        })
        .collect()
}

/// The frames tshark finds malformed, with a bad checksum, or worth an expert warning or error.
fn flagged(pcap: &Path, port: u16) -> Vec<String> {
    let out = Command::new("tshark")
        .args(["-n", "-r"])
        .arg(pcap)
        .args([
            "-d",
            &format!("udp.port=={port},pgm"),
            "-o",
            "pgm.check_checksum:TRUE",
        ])
        .args([
            "-Y",
            "_ws.malformed || pgm.bad_checksum || _ws.expert.severity >= 6291456",
        ])
        .output()
        .expect("tshark runs");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

/// The rows of a packet trace with `dir`, as (line number, row) in the notation of [`normalize`].
fn traced(csv: &Path, dir: &str) -> Vec<(usize, Row)> {
    let text = std::fs::read_to_string(csv).unwrap_or_else(|e| panic!("{}: {e}", csv.display()));
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("header").split(',').collect();
    let at = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .unwrap_or_else(|| panic!("no column {name}"))
    };
    let mut rows = Vec::new();
    for (n, line) in lines.enumerate() {
        let v: Vec<&str> = line.splitn(header.len(), ',').collect();
        if v[at("dir")] != dir {
            continue;
        }
        let mut row = Row::new();
        for (column, _) in COMPARED {
            let value = match *column {
                "cc_addr" => [v[at("acker")], v[at("reporter")]].concat(),
                "nak_list" => as_wireshark_shows(v[at("nak_list")]),
                "cc_tstamp" => v[at("cc_tstamp")]
                    .parse::<u64>()
                    .map_or(String::new(), |t| (t & 0xffff).to_string()),
                c => v[at(c)].to_string(),
            };
            row.insert(column, value);
        }
        assert_eq!(
            v[at("error")],
            "",
            "{}:{}: Convoy could not parse what it sent",
            csv.display(),
            n + 2
        );
        rows.push((n + 2, row));
    }
    rows
}

/// Packet types tshark 4.0 does not decode at all (its PGM dissector has no SPMR, RFC 3208 §13.6, and hands the
/// datagram back to UDP): only their addresses and length are compared.
const NOT_DECODED: [&str; 1] = ["SPMR"];

/// Compare, in order, a host's traced datagrams with the captured ones; the first difference names the capture
/// frame, the trace line and the column.
fn same_packets(what: &str, trace: &[(usize, Row)], capture: &[(u64, Row)]) {
    for ((line, t), (frame, c)) in trace.iter().zip(capture) {
        let columns: &[&str] = if NOT_DECODED.contains(&t["type"].as_str()) {
            assert_eq!(
                c["type"], "",
                "{what}: tshark now decodes {} (frame {frame})",
                t["type"]
            );
            &["src", "dst", "len"]
        } else {
            &COMPARED.iter().map(|(c, _)| *c).collect::<Vec<_>>()
        };
        for column in columns {
            assert_eq!(
                t[column], c[column],
                "{what}: trace line {line} and capture frame {frame} differ in `{column}`\ntrace:   {t:?}\ntshark:  {c:?}"
            );
        }
    }
    assert_eq!(
        trace.len(),
        capture.len(),
        "{what}: {} datagrams traced, {} captured",
        trace.len(),
        capture.len()
    );
}

/// `dumpcap` on the source's interface, started (its "Capturing on" line seen).
fn start_capture(lab: &Lab, pcap: &Path) -> Guard {
    let mut child = lab
        .command(0, "dumpcap")
        .args([
            "-i",
            "eth0",
            "-B",
            "64",
            "-P",
            "-f",
            &format!("udp port {PORT}"),
            "-w",
        ])
        .arg(pcap)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("dumpcap");
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut said = String::new();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !said.contains("Capturing on") {
        let read = err.read_line(&mut said).unwrap();
        assert!(
            read > 0 && Instant::now() < deadline,
            "dumpcap did not start: {said}"
        );
    }
    // Keep reading, so that dumpcap's last words on stopping do not kill it before it flushes the file.
    std::thread::spawn(move || std::io::copy(&mut err, &mut std::io::sink()));
    Guard(Some(child))
}

/// Stop `dumpcap` as Ctrl-C would, so that it writes out what it holds.
fn stop_capture(mut capture: Guard) {
    // libpcap hands packets over in blocks, a partial one only after its timeout: let the last one come.
    std::thread::sleep(Duration::from_millis(1500));
    let mut child = capture.take();
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let status = child.wait().unwrap();
    assert!(
        status.success() || status.code() == Some(0) || status.code().is_none(),
        "dumpcap: {status}"
    );
}

/// A 1.5 MB transfer under `cc` to two receivers (host 1 losing 3%), captured and compared (module docs).
/// A session under `cc` from host 0 to hosts 1 and 2 (3% loss at host 1), keyed with an encrypted payload if
/// `keyed`: tshark must flag no frame and show every datagram as Convoy's packet traces recorded it.
fn compare_session(tag: &str, cc: &str, keyed: bool, extra: &[&str]) {
    if !tshark_installed() {
        return;
    }
    let Some(lab) = Lab::new(tag, 2) else { return };
    // Kept after the run (capture, traces) for a look with Wireshark when a comparison fails.
    let d = &Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("wireshark-{cc}-{tag}"));
    let _ = std::fs::remove_dir_all(d);
    std::fs::create_dir_all(d).unwrap();
    let key = d.join("session.key");
    keygen(&key);
    let key_args: Vec<&str> = if keyed {
        vec!["--key-file", key.to_str().unwrap()]
    } else {
        Vec::new()
    };
    std::fs::write(d.join("data.bin"), bytes(11, 1_500_000)).unwrap();
    lab.random_loss(1, PORT, 3).unwrap();
    // One datagram per captured frame: no UDP segmentation offload past the capture point.
    let ok = lab
        .command(0, "ip")
        .args(["link", "set", "dev", "eth0", "gso_max_segs", "1"])
        .status()
        .unwrap();
    assert!(ok.success());
    let pcap = d.join("source.pcap");
    let capture = start_capture(&lab, &pcap);
    let group = format!("{GROUP_IP}:{PORT}");
    let mut receivers: Vec<Guard> = (1..=2)
        .map(|h| {
            let child = lab
                .command(h, BIN)
                .args([
                    "recv",
                    "--group",
                    &group,
                    "--iface",
                    &lab.addr(h),
                    "--timeout",
                    "10s",
                    "--start-timeout",
                    "20s",
                    "--quiet",
                ])
                .arg("--out")
                .arg(d.join(format!("out{h}")))
                .arg("--packet-trace")
                .arg(d.join(format!("rx{h}.csv")))
                .args(&key_args)
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            Guard(Some(child))
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    let mut send = Guard(Some(
        lab.command(0, BIN)
            .arg("send")
            .arg(d.join("data.bin"))
            .args([
                "--group",
                &group,
                "--iface",
                &lab.addr(0),
                "--cc",
                cc,
                "--rate",
                "30Mbit",
            ])
            .args(["--wait-receivers", "2", "--quiet", "--packet-trace"])
            .arg(d.join("tx.csv"))
            .args(&key_args)
            .args(extra)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    ));
    let sent = wait(send.take(), Duration::from_secs(60));
    assert!(
        sent.status.success(),
        "send: {}",
        String::from_utf8_lossy(&sent.stderr)
    );
    for (h, r) in receivers.iter_mut().enumerate() {
        let out = wait(r.take(), Duration::from_secs(30));
        assert!(
            out.status.success(),
            "receiver {}: {}",
            h + 1,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    stop_capture(capture);
    let bad = flagged(&pcap, PORT);
    assert!(
        bad.is_empty(),
        "{cc}: tshark flags {} frames: {:?}",
        bad.len(),
        &bad[..bad.len().min(5)]
    );
    let frames = captured(&pcap, PORT);
    let mut types = BTreeMap::new();
    for h in 0..=2 {
        let addr = lab.addr(h);
        let from: Vec<_> = frames
            .iter()
            .filter(|(_, r)| r["src"] == addr)
            .cloned()
            .collect();
        let csv = if h == 0 {
            d.join("tx.csv")
        } else {
            d.join(format!("rx{h}.csv"))
        };
        let trace = traced(&csv, "tx");
        same_packets(&format!("{cc}, host {h} ({addr})"), &trace, &from);
        for (_, r) in &trace {
            *types.entry(r["type"].clone()).or_insert(0) += 1;
        }
    }
    eprintln!("{cc}: {} datagrams compared: {types:?}", frames.len());
    for t in ["SPM", "ODATA", "RDATA", "NCF", "NAK"] {
        assert!(
            types.contains_key(t),
            "{cc}: no {t} in the session: {types:?}"
        );
    }
}

#[test]
fn wireshark_reads_pgmcc_sessions_as_convoy_sent_them() {
    compare_session("wp", "pgmcc", false, &[]);
}

/// Parity repairs (docs/parity.md, RFC 3208 §11): OPT_PARITY_PRM and 0x3D OPT_CONVOY_PARITY_CODE on SPMs, parity
/// NAKs and NCFs (OPT_PARITY in the options byte), parity ODATA (one pro-active packet per group) and RDATA with
/// OPT_CURR_TGSIZE, OPT_VAR_PKTLEN and the encoded OPT_FRAGMENT: Wireshark decodes every header as sent.
#[test]
fn wireshark_reads_parity_sessions_as_convoy_sent_them() {
    compare_session("wy", "pgmcc", false, &["--parity", "16+1"]);
}

/// A keyed session (docs/keyed-sessions.md): every packet carries 0x3C OPT_CONVOY_AUTH, data payloads are
/// encrypted, and Wireshark still decodes every header, showing the option as one it does not know.
#[test]
fn wireshark_reads_keyed_sessions_as_convoy_sent_them() {
    compare_session("wk", "pgmcc", true, &[]);
}

#[test]
fn wireshark_reads_fixed_rate_sessions_as_convoy_sent_them() {
    compare_session("wf", "fixed", false, &[]);
}

#[test]
fn wireshark_reads_tfmcc_sessions_as_convoy_sent_them() {
    compare_session("wt", "tfmcc", false, &[]);
}

#[test]
fn wireshark_reads_aimd_sessions_as_convoy_sent_them() {
    compare_session("wa", "aimd", false, &[]);
}

/// A simulated network with one session per controller, a lossy link to one receiver of each and a clean one to
/// the others.
const SIM_SCENARIO: &str = r#"
[run]
duration = "6s"
[defaults]
link = { rate = "10Mbit", delay = "2ms" }
[[node]]
name = "R"
kind = "pgm-router"
[[link]]
between = ["S", "R"]
[[link]]
name = "L"
between = ["R", "A"]
rate = "4Mbit"
delay = "10ms"
loss = 0.03
[[link]]
between = ["R", "B"]
[[link]]
between = ["X", "R"]
[[cbr]]
name = "C"
from = "X"
to = "A"
rate = "100kbit"
[[session]]
name = "P"
source = "S"
receivers = [ { node = "A" }, { node = "B" } ]
[[session]]
name = "T"
cc = "tfmcc"
source = "S"
receivers = [ { node = "A" }, { node = "B" } ]
[[session]]
name = "M"
cc = "aimd"
source = "S"
receivers = [ { node = "A" }, { node = "B" } ]
[[session]]
name = "F"
cc = "fixed"
fixed = { rate = "500kbit" }
source = "S"
receivers = [ { node = "A" }, { node = "B" } ]
"#;

/// `convoy sim --pcap` of both directions of link L: the capture against the `.packets.csv` written beside it.
#[test]
fn wireshark_reads_simulated_links_as_the_simulator_sent_them() {
    if !tshark_installed() {
        return;
    }
    let d = &Path::new(env!("CARGO_TARGET_TMPDIR")).join("wireshark-sim");
    let _ = std::fs::remove_dir_all(d);
    std::fs::create_dir_all(d).unwrap();
    std::fs::write(d.join("four.toml"), SIM_SCENARIO).unwrap();
    let mut types = BTreeMap::new();
    for link in ["L", "L:rev"] {
        let out = Command::new(BIN)
            .args(["sim", "--quiet", "--pcap", link, "--out"])
            .arg(d.join("out"))
            .arg(d.join("four.toml"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "convoy sim: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stem = link.replace(':', "-");
        let pcap = d.join(format!("out/{stem}.pcap"));
        let bad = flagged(&pcap, 3055);
        assert!(
            bad.is_empty(),
            "{link}: tshark flags {} frames: {:?}",
            bad.len(),
            &bad[..bad.len().min(5)]
        );
        if link == "L" {
            // Cross traffic: IPv4 and UDP headers of 1000-byte datagrams, payload left out.
            let cbr = Command::new("tshark")
                .args(["-n", "-r"])
                .arg(&pcap)
                .args([
                    "-Y",
                    "udp.dstport == 9",
                    "-T",
                    "fields",
                    "-e",
                    "frame.len",
                    "-e",
                    "frame.cap_len",
                ])
                .output()
                .unwrap();
            let cbr = String::from_utf8_lossy(&cbr.stdout).to_string();
            assert!(
                cbr.lines().count() > 10 && cbr.lines().all(|l| l == "1000\t28"),
                "{cbr:.200}"
            );
        }
        let trace = traced(&d.join(format!("out/{stem}.packets.csv")), "link");
        same_packets(
            &format!("simulated link {link}"),
            &trace,
            &captured(&pcap, 3055),
        );
        for (_, r) in &trace {
            *types.entry(r["type"].clone()).or_insert(0) += 1;
        }
    }
    eprintln!("simulated link L, both directions: {types:?}");
    for t in ["SPM", "ODATA", "RDATA", "NCF", "NAK", "ACK"] {
        assert!(types.contains_key(t), "no {t} on the link: {types:?}");
    }
}
