//! `convoy sim` end to end: the outputs exist and parse, and a run is a pure function of (scenario, seed).

use convoy_experiments::simrun::{self, SimOptions};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A small scenario exercising every output: two receivers (one behind a lossy link, one joining late),
/// CBR and on/off cross traffic, an observed bottleneck, a close-up time–sequence plot.
const SMALL: &str = r#"
[run]
duration = "20s"
seed = 1
sample = "100ms"

[defaults]
link = { rate = "10Mbit", delay = "1ms", queue = "100pkt" }

[[node]]
name = "R"
kind = "pgm-router"

[[link]]
between = ["S", "R"]

[[link]]
name = "LA"
between = ["R", "A"]
rate = "500kbit"
delay = "20ms"
queue = "30pkt"
observe = true

[[link]]
name = "LB"
between = ["R", "B"]
rate = "500kbit"
delay = "20ms"
queue = "20KB"
loss = 0.02

[[link]]
between = ["X", "R"]

[[session]]
name = "S1"
source = "S"
receivers = [ { node = "A" }, { node = "B", join = "5s" } ]

[[cbr]]
name = "C1"
from = "X"
to = "A"
rate = "100kbit"
jitter = 0.5
start = "8s"
stop = "15s"

[[onoff]]
name = "P1"
from = "X"
to = "B"
rate = "100kbit"
on = "500ms"
off = "500ms"

[[plot.sequence]]
session = "S1"

[[plot.sequence]]
session = "S1"
from = "4s"
to = "8s"
"#;

fn tmp(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn run(dir: &Path, seed: Option<u64>, pcap: Option<&str>) -> simrun::SimReport {
    let scenario = dir.join("small.toml");
    std::fs::write(&scenario, SMALL).unwrap();
    let opts = SimOptions {
        scenario,
        out: Some(dir.join("out")),
        seed,
        sets: Vec::new(),
        pcap: pcap.map(str::to_string),
    };
    simrun::run(&opts, &mut ()).unwrap_or_else(|e| panic!("{e}"))
}

fn without_wall(text: &str) -> Value {
    let mut v: Value = serde_json::from_str(text).unwrap();
    assert!(v["wall_s"].as_f64().is_some());
    v.as_object_mut().unwrap().remove("wall_s");
    v
}

#[test]
fn same_seed_same_summary() {
    let (a, b, c) = (tmp("det-a"), tmp("det-b"), tmp("det-c"));
    run(&a, None, None);
    run(&b, None, None);
    run(&c, Some(2), None);
    let read = |d: &Path| std::fs::read_to_string(d.join("out/summary.json")).unwrap();
    let (ta, tb, tc) = (read(&a), read(&b), read(&c));
    // Byte for byte, apart from the wall-clock line.
    let strip = |t: &str| {
        t.lines()
            .filter(|l| !l.trim_start().starts_with("\"wall_s\""))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(strip(&ta), strip(&tb));
    assert_eq!(without_wall(&ta), without_wall(&tb));
    assert_ne!(
        without_wall(&ta),
        without_wall(&tc),
        "another seed, another run"
    );
    assert_eq!(without_wall(&tc)["seed"], 2);
    // The CSV series are deterministic too.
    for f in [
        "throughput.csv",
        "window-S1.csv",
        "seq-S1.csv",
        "queue.csv",
        "drops.csv",
        "receivers.csv",
    ] {
        let x = std::fs::read(a.join("out").join(f)).unwrap();
        assert_eq!(x, std::fs::read(b.join("out").join(f)).unwrap(), "{f}");
    }
}

#[test]
fn outputs_exist_and_parse() {
    let dir = tmp("outputs");
    let report = run(&dir, None, None);
    let out = dir.join("out");
    let summary = without_wall(&std::fs::read_to_string(out.join("summary.json")).unwrap());
    assert_eq!(summary["scenario"], "small");
    assert_eq!(summary["duration_s"], 20.0);
    assert!(summary["events"].as_u64().unwrap() > 1000);
    let flows = summary["flows"].as_array().unwrap();
    let ids: Vec<&str> = flows.iter().map(|f| f["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["S1", "C1", "P1"]);
    let kinds: Vec<&str> = flows.iter().map(|f| f["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["pgmcc", "cbr", "onoff"]);
    let s1 = &flows[0];
    assert_eq!(s1["throughput"]["interval_s"], 1.0);
    assert_eq!(s1["throughput"]["bps"].as_array().unwrap().len(), 20);
    let recv = s1["receivers"].as_array().unwrap();
    assert_eq!(recv.len(), 2);
    assert_eq!(
        (recv[0]["id"].as_str(), recv[1]["id"].as_str()),
        (Some("A"), Some("B"))
    );
    assert!(recv[0]["delivered_bytes"].as_u64().unwrap() > 100_000);
    let g = s1["goodput_bps"].as_f64().unwrap();
    assert!(g > 50_000.0 && g < 500_000.0, "goodput {g}");
    assert!(!s1["switches"].as_array().unwrap().is_empty());
    assert!(s1["switches"][0]["t"].as_f64().is_some());
    assert!(s1["timeouts"].as_u64().is_some());
    let cbr = flows[1]["goodput_bps"].as_f64().unwrap();
    assert!(
        (cbr - 100_000.0 * 7.0 / 7.0).abs() < 15_000.0,
        "CBR goodput {cbr}"
    );
    let links = summary["links"].as_array().unwrap();
    assert_eq!(links.len(), 8);
    assert_eq!(
        (links[2]["id"].as_str(), links[3]["id"].as_str()),
        (Some("LA"), Some("LA:rev"))
    );
    for l in links {
        let u = l["utilization"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&u));
        assert!(l["drops"].as_u64().is_some() && l["mean_queue_pkts"].as_f64().is_some());
    }
    assert!(
        links[4]["drops"].as_u64().unwrap() > 0,
        "LB's random loss drops packets"
    );

    // CSV: a header and one row per bin / sample, all rows as wide as the header.
    let csv = |f: &str| -> Vec<Vec<String>> {
        let text = std::fs::read_to_string(out.join(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
        let rows: Vec<Vec<String>> = text
            .lines()
            .map(|l| l.split(',').map(str::to_string).collect())
            .collect();
        assert!(rows.iter().all(|r| r.len() == rows[0].len()), "{f}: ragged");
        rows
    };
    let thr = csv("throughput.csv");
    assert_eq!(thr[0], ["t_s", "S1", "C1", "P1"]);
    assert_eq!(thr.len(), 21);
    let rcv = csv("receivers.csv");
    assert_eq!(rcv[0], ["t_s", "S1/A", "S1/B"]);
    let win = csv("window-S1.csv");
    assert_eq!(
        win[0],
        [
            "t_s",
            "window_pkts",
            "tokens_pkts",
            "rate_bps",
            "srtt_s",
            "acker",
            "acker_loss"
        ]
    );
    assert!(win.len() > 150);
    assert!(win.iter().skip(1).any(|r| r[5] == "A" || r[5] == "B"));
    let q = csv("queue.csv");
    assert_eq!(q[0], ["t_s", "LA", "LA:rev"]);
    let d = csv("drops.csv");
    assert_eq!(d[0], ["t_s", "LA", "LA:rev"]);
    assert_eq!(d.len(), q.len(), "one row per queue sample");
    let total = |col: usize| d.last().unwrap()[col].parse::<u64>().unwrap();
    let cumulative = d.windows(2).skip(1).all(|w| {
        (1..3).all(|c| w[0][c].parse::<u64>().unwrap() <= w[1][c].parse::<u64>().unwrap())
    });
    assert!(cumulative, "drops so far never decrease");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let la = summary["links"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["id"] == "LA")
        .unwrap();
    assert!(
        total(1) <= la["drops"].as_u64().unwrap(),
        "drops.csv stops at the last sample"
    );
    let seq = csv("seq-S1.csv");
    assert_eq!(seq[0], ["t_s", "kind", "seq", "bytes", "acker"]);
    for kind in ["data", "ack", "nak", "switch"] {
        assert!(seq.iter().any(|r| r[1] == kind), "no {kind} in the trace");
    }

    // SVG: well-formed enough, with text (axis labels, legend) and marks.
    for f in [
        "throughput.svg",
        "window-S1.svg",
        "seq-S1.svg",
        "seq-S1-4-8.svg",
        "queue.svg",
    ] {
        let svg = std::fs::read_to_string(out.join(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
        assert!(
            svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"),
            "{f}"
        );
        assert!(svg.contains("time (s)"), "{f}: x axis label");
        assert!(svg.contains("<text"), "{f}");
    }
    let seq_svg = std::fs::read_to_string(out.join("seq-S1.svg")).unwrap();
    assert!(seq_svg.contains("NAK received") && seq_svg.contains("acker switch"));
    assert!(report.files.iter().any(|f| f == "seq-S1-4-8.svg"));
}

#[test]
fn bad_pcap_link_is_named() {
    let dir = tmp("badpcap");
    std::fs::write(dir.join("small.toml"), SMALL).unwrap();
    let opts = SimOptions {
        scenario: dir.join("small.toml"),
        out: Some(dir.join("out")),
        pcap: Some("nope".into()),
        ..SimOptions::default()
    };
    let e = simrun::run(&opts, &mut ()).unwrap_err().to_string();
    assert!(e.contains("--pcap nope") && e.contains("LA:rev"), "{e}");
}
