//! The scenario loader: units, defaults, expansion, errors with file/line/key, and `--set` overrides.

use convoy_experiments::scenario::{self, Origin, Scenario, ScenarioError};
use convoy_proto::cc::pgmcc::TimeoutPolicy;
use convoy_proto::cc::CcConfig;
use convoy_proto::Instant;
use convoy_sim::impairment::ImpairmentConfig;
use convoy_sim::queue::{Limit, QueueConfig};
use convoy_sim::tcp::TcpVariant;
use convoy_sim::NodeKind;
use std::time::Duration;

const BASE: &str = r#"# comment
[run]
duration = "400s"
seed = 7

[defaults]
link = { rate = "100Mbit", delay = "1ms" }
tcp = { min_rto = "200ms" }

[[node]]
name = "R1"
kind = "router"

[[node]]
name = "R2"
kind = "pgm-router"
ne = { rx_loss_aware = true }

[[link]]
between = ["PS", "R1"]

[[link]]
name = "bottleneck"
between = ["R1", "R2"]
rate = "500kbit"
delay = "50ms"
queue = "30KB"
loss = 0.03
observe = "forward"

[[link]]
between = ["R2", "H1"]
red = { min = 5, max = 20, weight = 0.003 }

[[link]]
between = ["R2", "H2"]
gilbert = { p_gb = 0.01, p_bg = 0.3 }
queue = "30pkt"

[[link]]
between = ["TS", "R1"]

[[link]]
between = ["R2", "TR"]

[[session]]
name = "S1"
source = "PS"
receivers = [ { name = "PR1a", node = "H1" }, { node = "H2", join = "100s", leave = "300s" } ]
pgmcc = { c = 1.0, timeout = "fixed:1s" }

[[tcp]]
name = "T1"
from = "TS"
to = "TR"
variant = "sack"
start = "100s"
stop = "300s"
initial_ssthresh = "10pkt"
"#;

fn parse(text: &str, sets: &[&str]) -> Result<Scenario, ScenarioError> {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    scenario::parse("test.toml", "test", text, &sets)
}

fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .expect("needle in text")
        + 1
}

/// The error of `text` with `from` replaced by `to`: its line, key and message.
fn file_error(from: &str, to: &str) -> (usize, String, String) {
    let text = BASE.replacen(from, to, 1);
    assert_ne!(text, BASE, "replacement `{from}` not found");
    let e = parse(&text, &[]).expect_err("invalid scenario");
    let Origin::File { line, file, .. } = &e.origin else {
        panic!("no position: {e}")
    };
    assert_eq!(file, "test.toml");
    (*line, e.key.clone().unwrap_or_default(), e.to_string())
}

#[test]
fn units_defaults_and_parameters() {
    let s = parse(BASE, &[]).unwrap();
    assert_eq!(s.duration, Duration::from_secs(400));
    assert_eq!(s.seed, 7);
    assert_eq!(s.interval, Duration::from_secs(1));
    let names: Vec<&str> = s.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["R1", "R2", "PS", "H1", "H2", "TS", "TR"]);
    assert!(
        matches!(s.nodes[1].kind, NodeKind::PgmRouter(ne) if ne.rx_loss_aware && ne.suppress_naks)
    );
    let b = &s.links[1];
    assert_eq!(b.name, "bottleneck");
    assert_eq!(b.forward.rate_bps, 500_000);
    assert_eq!(b.backward.rate_bps, 500_000);
    assert_eq!(b.forward.delay, Duration::from_millis(50));
    assert_eq!(b.forward.queue, QueueConfig::DropTail(Limit::Bytes(30_000)));
    assert_eq!(
        b.forward.impairment,
        ImpairmentConfig::Bernoulli { p: 0.03 }
    );
    assert_eq!(b.backward.impairment, ImpairmentConfig::None);
    assert!(b.observe_forward && !b.observe_back);
    // Defaults fill what a link leaves out; the queue default is 1000 packets.
    assert_eq!(s.links[0].name, "PS-R1");
    assert_eq!(s.links[0].forward.rate_bps, 100_000_000);
    assert_eq!(
        s.links[0].forward.queue,
        QueueConfig::DropTail(Limit::Packets(1000))
    );
    match s.links[2].forward.queue {
        QueueConfig::Red(Limit::Packets(1000), r) => assert_eq!(
            (r.min_th, r.max_th, r.weight, r.max_p),
            (5.0, 20.0, 0.003, 0.1)
        ),
        q => panic!("{q:?}"),
    }
    assert!(
        matches!(s.links[3].forward.impairment, ImpairmentConfig::GilbertElliott { loss_bad, .. } if loss_bad == 1.0)
    );
    let sess = &s.sessions[0];
    assert_eq!(sess.apdu_size, 1400);
    assert!(sess.trace, "the first session is traced by default");
    assert_eq!(sess.receivers[0].name, "PR1a");
    assert_eq!(sess.receivers[1].name, "H2");
    assert_eq!(sess.receivers[1].leave, Some(Instant::from_millis(300_000)));
    let CcConfig::Pgmcc(p) = &sess.cc else {
        panic!()
    };
    assert_eq!(p.c, 1.0);
    assert_eq!(p.ssthresh, 6.0);
    assert_eq!(p.timeout, TimeoutPolicy::Fixed(Duration::from_secs(1)));
    let t = &s.tcp[0];
    assert_eq!(t.config.variant, TcpVariant::Sack);
    assert_eq!(t.config.mss, 1460);
    assert_eq!(
        t.config.min_rto,
        Duration::from_millis(200),
        "from [defaults] tcp"
    );
    assert_eq!(t.config.initial_ssthresh, 14_600);
    assert_eq!(
        (t.start, t.stop),
        (Duration::from_secs(100), Some(Duration::from_secs(300)))
    );
    assert_eq!(s.flow_names(), ["S1", "T1"]);
    assert_eq!(s.sequence_plots.len(), 1);
}

#[test]
fn unknown_keys_name_line_and_key() {
    let (line, key, msg) = file_error("queue = \"30KB\"", "queue = \"30KB\"\nqeue = \"5pkt\"");
    assert_eq!(line, line_of(BASE, "queue = \"30KB\"") + 1);
    assert_eq!(key, "link[1].qeue");
    assert!(msg.contains("did you mean `queue`"), "{msg}");
    let (line, key, _) = file_error("seed = 7", "seed = 7\nspeed = 3");
    assert_eq!(
        (line, key.as_str()),
        (line_of(BASE, "seed = 7") + 1, "run.speed")
    );
    let (_, key, _) = file_error("c = 1.0,", "c = 1.0, cee = 2,");
    assert_eq!(key, "session[0].pgmcc.cee");
    let (_, key, msg) = file_error("[[tcp]]", "[[tcpp]]");
    assert!(key.starts_with("tcpp"), "{key}: {msg}");
}

#[test]
fn bad_values_name_line_and_key() {
    let cases = [
        (
            "rate = \"500kbit\"",
            "rate = \"500kbt\"",
            "link[1].rate",
            "unknown rate unit `kbt`",
        ),
        (
            "delay = \"50ms\"",
            "delay = 50",
            "link[1].delay",
            "needs a unit",
        ),
        (
            "queue = \"30KB\"",
            "queue = 30",
            "link[1].queue",
            "\"30pkt\" (packets) or \"30KB\"",
        ),
        (
            "loss = 0.03",
            "loss = 1.5",
            "link[1].loss",
            "not a probability",
        ),
        (
            "variant = \"sack\"",
            "variant = \"vegas\"",
            "tcp[0].variant",
            "unknown variant `vegas`",
        ),
        (
            "timeout = \"fixed:1s\"",
            "timeout = \"fixed:1\"",
            "session[0].pgmcc.timeout",
            "needs a unit",
        ),
        ("c = 1.0,", "c = 1.5,", "session[0].pgmcc.c", "(0, 1]"),
        (
            "stop = \"300s\"\ninitial",
            "stop = \"50s\"\ninitial",
            "tcp[0].stop",
            "stops before it starts",
        ),
        (
            "{ name = \"PR1a\", node = \"H1\" }",
            "{ name = \"PR1a\", node = \"H9\" }",
            "session[0].receivers[0].node",
            "unknown node `H9`",
        ),
        (
            "{ name = \"PR1a\", node = \"H1\" }",
            "{ name = \"PR1a\", node = \"PS\" }",
            "session[0].receivers[0].node",
            "on the source's node",
        ),
        (
            "{ node = \"H2\", join",
            "{ node = \"H1\", join",
            "session[0].receivers[1].node",
            "both on node `H1`",
        ),
        (
            "{ node = \"H2\", join",
            "{ name = \"PR1a\", node = \"H2\", join",
            "session[0].receivers[1]",
            "receiver name `PR1a` is used twice",
        ),
        (
            "[[link]]\nbetween = [\"R2\", \"H1\"]",
            "[[link]]\nname = \"bottleneck\"\nbetween = [\"R2\", \"H1\"]",
            "link[2]",
            "link name `bottleneck` is used twice",
        ),
        (
            "join = \"100s\", leave = \"300s\"",
            "join = \"300s\", leave = \"100s\"",
            "session[0].receivers[1].leave",
            "leaves before it joins",
        ),
        (
            "name = \"T1\"",
            "name = \"S1\"",
            "tcp[0].name",
            "already used",
        ),
        (
            "queue = \"30pkt\"",
            "queue = \"30pkt\"\nloss = 0.1",
            "link[3].gilbert",
            "not both",
        ),
        (
            "kind = \"router\"",
            "kind = \"router\"\nne = { suppress = false }",
            "node[0].ne",
            "pgm-router",
        ),
        (
            "kind = \"router\"",
            "kind = \"switch\"",
            "node[0].kind",
            "unknown variant `switch`",
        ),
        (
            "name = \"R2\"",
            "name = \"R1\"",
            "node[1].name",
            "defined twice",
        ),
        (
            "pgmcc = { c",
            "cc = \"tcp\"\npgmcc = { c",
            "session[0].cc",
            "unknown variant `tcp`, expected",
        ),
        (
            "duration = \"400s\"",
            "duration = \"0s\"",
            "run.duration",
            "longer than 0s",
        ),
        (
            "between = [\"R2\", \"H1\"]",
            "between = [\"R2\", \"R2\"]",
            "link[2].between",
            "itself",
        ),
        (
            "pgmcc = { c = 1.0",
            "parity = \"12\"\npgmcc = { c = 1.0",
            "session[0].parity",
            "a power of 2 from 2 to 128",
        ),
        (
            "pgmcc = { c = 1.0",
            "parity = \"16+2\"\npgmcc = { c = 1.0",
            "session[0].parity",
            "parity through PGM network elements is not simulated",
        ),
    ];
    for (from, to, key, msg) in cases {
        let text = BASE.replacen(from, to, 1);
        let e = parse(&text, &[]).expect_err(to);
        let shown = e.to_string();
        assert_eq!(e.key.as_deref(), Some(key), "{shown}");
        assert!(shown.contains(msg), "expected `{msg}` in: {shown}");
        // The line is one of the lines of the replaced text, or the offending key's own line in the file.
        let at = BASE.find(from).unwrap();
        let want = text[..at].matches('\n').count() + 1;
        let line = e.line().unwrap_or(0);
        let related = key
            .rsplit('.')
            .next()
            .is_some_and(|k| text.lines().nth(line - 1).unwrap().contains(k));
        assert!(
            (want..want + to.lines().count()).contains(&line) || related,
            "{shown}\nwanted line {want}"
        );
    }
}

#[test]
fn syntax_errors_have_a_line() {
    let text = BASE.replacen("seed = 7", "seed = = 7", 1);
    let e = parse(&text, &[]).unwrap_err();
    assert_eq!(e.line(), Some(line_of(BASE, "seed = 7")));
}

#[test]
fn set_overrides_any_value() {
    let s = parse(
        BASE,
        &[
            "run.duration=100s",
            "run.seed=3",
            "link.bottleneck.rate=1Mbit",
            "link.0.delay=5ms",
            "link.R2-H1.loss=0.5",
            "session.S1.pgmcc.c=0.75",
            "session.S1.receivers.PR1a.join=10s",
            "tcp.T1.start=50s",
            "defaults.link.queue=100pkt",
        ],
    )
    .unwrap();
    assert_eq!(s.duration, Duration::from_secs(100));
    assert_eq!(s.seed, 3);
    assert_eq!(s.links[1].forward.rate_bps, 1_000_000);
    assert_eq!(s.links[0].forward.delay, Duration::from_millis(5));
    assert_eq!(
        s.links[0].forward.queue,
        QueueConfig::DropTail(Limit::Packets(100))
    );
    assert_eq!(
        s.links[2].forward.impairment,
        ImpairmentConfig::Bernoulli { p: 0.5 }
    );
    let CcConfig::Pgmcc(p) = &s.sessions[0].cc else {
        panic!()
    };
    assert_eq!(p.c, 0.75);
    assert_eq!(
        s.sessions[0].receivers[0].join,
        Instant::from_millis(10_000)
    );
    assert_eq!(s.tcp[0].start, Duration::from_secs(50));
    // A table the file does not have is created.
    let s = parse(
        BASE,
        &[
            "session.S1.rxw.nak_bo_ivl=10ms",
            "session.S1.pgmcc.timeout=adaptive",
            "session.S1.nak_elim=0s",
            "session.S1.pgmcc.election_timer=biased",
        ],
    )
    .unwrap();
    assert_eq!(
        s.sessions[0].rxw.as_ref().unwrap().nak_bo_ivl,
        Duration::from_millis(10)
    );
    assert_eq!(s.sessions[0].nak_elim_ivl, Some(Duration::ZERO));
    let CcConfig::Pgmcc(p) = &s.sessions[0].cc else {
        panic!()
    };
    assert_eq!(
        p.election_timer,
        convoy_proto::cc::pgmcc::ElectionTimer::Biased {
            receivers_max: 10_000
        }
    );
    assert_eq!(parse(BASE, &[]).unwrap().sessions[0].nak_elim_ivl, None);
}

#[test]
fn set_errors_name_the_argument() {
    let cases = [
        (
            "link.bottleneck.rate=fast",
            "link[1].rate",
            "does not start with a number",
        ),
        ("link.nope.rate=1Mbit", "link", "no element `nope`"),
        (
            "link.bottleneck.speed=1Mbit",
            "link[1].speed",
            "unknown field `speed`",
        ),
        ("session.S1.pgmcc.c=2", "session[0].pgmcc.c", "(0, 1]"),
        ("tcp.T1.stop=50s", "tcp[0].stop", "stops before it starts"),
        ("run.duration", "", "expected key=value"),
        (
            "session.S1.receivers.H2.node=PS",
            "session[0].receivers[1].node",
            "on the source's node",
        ),
        ("link.R2-H2.loss=0.5", "link[3].gilbert", "not both"),
        (
            "session.S1.rxw.repair=false",
            "session[0].rxw.repair",
            "`pgmcc` needs the receivers' NAKs",
        ),
        (
            "session.S1.source=H1",
            "session[0].receivers[0].node",
            "on the source's node",
        ),
    ];
    for (arg, key, msg) in cases {
        let e = parse(BASE, &[arg]).expect_err(arg);
        assert_eq!(e.origin, Origin::Set(arg.to_string()), "{e}");
        assert_eq!(e.key.as_deref().unwrap_or(""), key, "{e}");
        let shown = e.to_string();
        assert!(shown.starts_with(&format!("--set {arg}: ")), "{shown}");
        assert!(shown.contains(msg), "expected `{msg}` in: {shown}");
    }
    // An error in the file that no --set touched still points at the file.
    let text = BASE.replacen("loss = 0.03", "loss = 3.0", 1);
    let e = parse(&text, &["run.seed=2"]).unwrap_err();
    assert_eq!(e.line(), Some(line_of(&text, "loss = 3.0")));
}

#[test]
fn fanouts_ranges_and_counted_flows() {
    let text = r#"
[run]
duration = "10s"
[defaults]
link = { rate = "10Mbit", delay = "1ms" }
[[node]]
name = "R"
kind = "router"
[[link]]
between = ["S", "R"]
[[fanout]]
hub = "R"
prefix = "PR"
count = 20
link = { rate = "2Mbit", delay = "50ms" }
loss_range = [0.0, 0.02]
[[fanout]]
hub = "R"
prefix = "D"
count = 3
[[session]]
name = "M"
source = "S"
receiver_range = [ { prefix = "PR", first = 1, last = 10 }, { prefix = "PR", first = 11, last = 20, join = "5s" } ]
[[tcp]]
name = "T"
count = 3
from = "S"
to = "D{i}"
start = "0s"
start_jitter = "1s"
[[cbr]]
name = "C"
from = "S"
to = "D1"
rate = "20KB/s"
jitter = 0.5
[[onoff]]
name = "P"
from = "S"
to = "D2"
rate = "100kbit"
on = "500ms"
off = "500ms"
"#;
    let s = parse(text, &[]).unwrap();
    assert_eq!(s.nodes.len(), 2 + 20 + 3);
    assert_eq!(s.links.len(), 1 + 20 + 3);
    assert_eq!(s.links[1].name, "R-PR1");
    assert_eq!(s.links[1].forward.rate_bps, 2_000_000);
    let losses: Vec<f64> = s.links[1..21]
        .iter()
        .map(|l| match l.forward.impairment {
            ImpairmentConfig::Bernoulli { p } => p,
            _ => 0.0,
        })
        .collect();
    assert!(losses.iter().all(|p| (0.0..=0.02).contains(p)));
    assert!(losses.windows(2).any(|w| w[0] != w[1]), "drawn per host");
    assert_eq!(
        s.links[21].forward.rate_bps, 10_000_000,
        "defaults for the second fanout"
    );
    let r = &s.sessions[0].receivers;
    assert_eq!(r.len(), 20);
    assert_eq!((r[0].name.as_str(), r[19].name.as_str()), ("PR1", "PR20"));
    assert_eq!(r[10].join, Instant::from_millis(5_000));
    let names: Vec<&str> = s.tcp.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["T1", "T2", "T3"]);
    assert_eq!(s.nodes[s.tcp[2].to].name, "D3");
    assert!(s.tcp.iter().all(|t| t.start < Duration::from_secs(1)));
    assert!(s.tcp[0].start != s.tcp[1].start);
    assert_eq!(s.flow_names(), ["M", "T1", "T2", "T3", "C", "P"]);
    // Draws depend on the seed and names only.
    let again = parse(text, &[]).unwrap();
    assert_eq!(again.tcp[1].start, s.tcp[1].start);
    assert_eq!(again.links[5].forward, s.links[5].forward);
    let other = parse(text, &["run.seed=2"]).unwrap();
    assert_ne!(other.tcp[1].start, s.tcp[1].start);
    // Unconnected ends are caught.
    let lonely = text.replace(
        "name = \"R\"\nkind = \"router\"",
        "name = \"R\"\nkind = \"router\"\n[[node]]\nname = \"X\"",
    );
    let e = parse(&lonely, &["tcp.T.to=X"]).unwrap_err();
    assert!(e.to_string().contains("no path between"), "{e}");
}

#[test]
fn counted_sessions_replace_the_number_in_nodes_and_ranges() {
    let text = r#"
[run]
duration = "10s"
[defaults]
link = { rate = "10Mbit", delay = "1ms" }
[[node]]
name = "R"
kind = "router"
[[fanout]]
hub = "R"
prefix = "S"
count = 3
[[fanout]]
hub = "R"
prefix = "A"
count = 3
[[fanout]]
hub = "R"
prefix = "B"
count = 3
[[session]]
name = "M"
cc = "aimd"
count = 3
source = "S{i}"
start_jitter = "1s"
receivers = [ { node = "A{i}" } ]
receiver_range = [ { prefix = "B", first = 1, last = 1 } ]
"#;
    let s = parse(text, &["session.M.count=2"]).unwrap();
    let names: Vec<&str> = s.sessions.iter().map(|x| x.name.as_str()).collect();
    assert_eq!(names, ["M1", "M2"]);
    assert_eq!(s.nodes[s.sessions[1].source.index()].name, "S2");
    assert_eq!(s.sessions[1].receivers[0].name, "A2");
    assert_eq!(
        s.sessions[1].receivers[1].name, "B1",
        "without the number, the same host for every copy"
    );
    assert!(
        s.sessions[0].trace && !s.sessions[1].trace,
        "only the first copy traces"
    );
    assert_ne!(
        s.sessions[0].start, s.sessions[1].start,
        "jitter drawn per copy"
    );
    assert!(matches!(s.sessions[1].cc, CcConfig::Aimd(_)));
    let e = parse(&text.replace("count = 3\nsource", "source"), &[]).unwrap_err();
    assert!(
        e.to_string().contains("only in sessions with a `count`"),
        "{e}"
    );
    let e = parse(text, &["session.M.count=0"]).unwrap_err();
    assert!(e.to_string().contains("count must be at least 1"), "{e}");
}

#[test]
fn examples_load() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/examples");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            let s = scenario::load(&path, &[]).unwrap_or_else(|e| panic!("{e}"));
            assert!(!s.sessions.is_empty());
            convoy_experiments::scenario::build_network(&s).unwrap();
            n += 1;
        }
    }
    assert!(n >= 2);
    let s = scenario::load(&dir.join("pgmcc-two-receivers.toml"), &[]).unwrap();
    assert_eq!(s.tcp[0].config.variant, TcpVariant::NewReno);
    assert_eq!(s.sequence_plots.len(), 3);
}

#[test]
fn link_changes_name_a_link_and_a_time_within_the_run() {
    let text = format!(
        "{BASE}\n[[link_change]]\nat = \"20s\"\nlink = \"R2-H1\"\ndelay = \"150ms\"\nrate_back = \"2Mbit\"\n"
    );
    let s = parse(&text, &[]).unwrap();
    let c = &s.link_changes[0];
    assert_eq!(s.links[c.link].name, "R2-H1");
    assert_eq!(
        (c.at, c.delay, c.rate_back_bps, c.rate_bps, c.delay_back),
        (
            Duration::from_secs(20),
            Some(Duration::from_millis(150)),
            Some(2_000_000),
            None,
            None
        )
    );
    let cases = [
        (
            "link_change.0.link=R9-H1",
            "link_change[0].link",
            "no link `R9-H1`",
        ),
        (
            "link_change.0.at=400s",
            "link_change[0].at",
            "before the run's end",
        ),
        ("link_change.0.rate=0bit", "link_change[0].rate", "above 0"),
    ];
    for (arg, key, msg) in cases {
        let e = parse(&text, &[arg]).expect_err(arg);
        assert_eq!(e.key.as_deref().unwrap_or(""), key, "{e}");
        assert!(e.to_string().contains(msg), "expected `{msg}` in: {e}");
    }
}

#[test]
fn tfmcc_round_length_is_a_session_key() {
    let text = BASE.replacen(
        "pgmcc = { c = 1.0, timeout = \"fixed:1s\" }",
        "cc = \"tfmcc\"\ntfmcc = { round_rtts = 4 }",
        1,
    );
    let s = parse(&text, &[]).unwrap_or_else(|e| panic!("{e}"));
    let CcConfig::Tfmcc(t) = &s.sessions[0].cc else {
        panic!("not TFMCC: {:?}", s.sessions[0].cc)
    };
    assert_eq!(t.round_rtts, 4.0, "the paper's b = 4 (§2.5)");
    let plain = parse(&text.replace("tfmcc = { round_rtts = 4 }", ""), &[]).unwrap();
    let CcConfig::Tfmcc(t) = &plain.sessions[0].cc else {
        panic!("not TFMCC")
    };
    assert_eq!(t.round_rtts, 6.0, "RFC 4654 §3.4's default");
    let e = parse(&text.replace("round_rtts = 4", "round_rtts = 0.5"), &[]).unwrap_err();
    assert_eq!(e.key.as_deref(), Some("session[0].tfmcc.round_rtts"), "{e}");
    assert!(e.to_string().contains("use 1 to 16"), "{e}");
}
