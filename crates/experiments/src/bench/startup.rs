//! `convoy bench startup`: how fast pgmcc's start-up fills a path and what its first overshoot costs, for the
//! paper's fixed threshold and for `start = "until-congestion"` (crates/proto/src/cc/pgmcc/startup.rs), beside a
//! TCP SACK flow's slow start on the same path (issue 21).
//!
//! Cases: `scenarios/examples/pgmcc-startup-fat-path.toml` (one receiver, 100 Mbit/s, 40 ms RTT) and
//! `pgmcc-startup-slow-receiver.toml` with 1, 10 and 100 receivers, one of them behind a 10 Mbit/s link; then
//! the namespace lab's shape (`bench/startup-grid.sh`) in the same file: 5 receivers on 50 µs links (RTTs of
//! 0.2 ms), one behind 2 Mbit/s with a 46-packet (64 KB) queue, the session's data written in its first 5 s, where `until-congestion` also runs without its
//! pace ([`UNPACED`]) to show what the pace does. Each scenario runs its pgmcc session first and its TCP flow
//! alone later (its `tcp` table), so one run gives both phases. The files are compiled into the executable.
//!
//! Figures per phase:
//! - time to 90%: from the flow's first 100 ms bin with data to its first bin at 90% of the bottleneck link's rate
//!   or more (sender-side payload);
//! - first overshoot: packets dropped on any link from the phase's first drop until drops pause for
//!   [`OVERSHOOT_QUIET`];
//! - drops and, for pgmcc, repairs (RDATA) over the whole phase: issue 21 asks for repairs within 1.2× the
//!   packets lost.

use crate::scenario::{self, build_network};
use convoy_proto::Instant;
use serde::Serialize;
use std::fmt::Write as _;
use std::time::Duration;

/// Drops further apart than this end the first overshoot.
pub const OVERSHOOT_QUIET: Duration = Duration::from_millis(500);
/// How often the run is paused to read the drop counters.
const STEP: Duration = Duration::from_millis(10);

const FAT_PATH: &str = include_str!("../../../../scenarios/examples/pgmcc-startup-fat-path.toml");
const SLOW_RECEIVER: &str =
    include_str!("../../../../scenarios/examples/pgmcc-startup-slow-receiver.toml");

/// One scenario variant of the benchmark.
struct Case {
    name: String,
    file: &'static str,
    text: &'static str,
    /// The link whose forward rate is the path's bottleneck.
    bottleneck: &'static str,
    sets: Vec<String>,
    /// Also run `until-congestion` without its pace.
    unpaced: bool,
}

/// The set that turns the opening's pace off (`opening_round_min` 0: every RTT is long enough).
pub const UNPACED: &str = "session.pgm.pgmcc.opening_round_min=0s";

fn cases() -> Vec<Case> {
    let mut cases = vec![Case {
        name: "fat path, 1 receiver".into(),
        file: "pgmcc-startup-fat-path.toml",
        text: FAT_PATH,
        bottleneck: "down",
        sets: Vec::new(),
        unpaced: false,
    }];
    for n in [1usize, 10, 100] {
        let sets = if n == 1 {
            vec![
                "fanout.F.count=1".into(),
                "session.pgm.receiver_range=[]".into(),
            ]
        } else {
            vec![
                format!("fanout.F.count={}", n - 1),
                format!("session.pgm.receiver_range.0.last={}", n - 1),
            ]
        };
        cases.push(Case {
            name: format!("slow receiver, {n} receivers"),
            file: "pgmcc-startup-slow-receiver.toml",
            text: SLOW_RECEIVER,
            bottleneck: "slow",
            sets,
            unpaced: false,
        });
    }
    cases.push(Case {
        name: "LAN, 5 receivers, 1 at 2 Mbit/s".into(),
        file: "pgmcc-startup-slow-receiver.toml",
        text: SLOW_RECEIVER,
        bottleneck: "slow",
        sets: [
            "defaults.link.delay=50us",
            "link.slow.rate=2Mbit",
            "link.slow.queue=46pkt",
            "fanout.F.count=4",
            "session.pgm.receiver_range.0.last=4",
            // Five seconds of data still take until 22.5 s through 2 Mbit/s; TCP starts at 25 s.
            "session.pgm.stop=5s",
        ]
        .map(String::from)
        .to_vec(),
        unpaced: true,
    });
    cases
}

/// One phase of one run: a pgmcc start-up or the TCP flow's slow start.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StartUpRow {
    /// The scenario variant.
    pub case: String,
    /// `pgmcc paper`, `pgmcc until-congestion` or `TCP SACK`.
    pub flow: String,
    /// Seconds from the first bin with data to the first at 90% of the bottleneck rate (`None`: never).
    pub to_90_percent_s: Option<f64>,
    /// Packets dropped in the first overshoot (module docs).
    pub first_overshoot_drops: u64,
    /// Packets dropped during the phase.
    pub drops: u64,
    /// Repairs the pgmcc source sent (`None` for TCP).
    pub repairs: Option<u64>,
}

/// Run every case with both start-ups and print nothing: the rows, in order.
pub fn run(progress: &mut dyn FnMut(&str)) -> Result<Vec<StartUpRow>, String> {
    let mut rows = Vec::new();
    for case in cases() {
        let mut starts = vec![("paper", None), ("until-congestion", None)];
        if case.unpaced {
            starts.push(("until-congestion", Some(UNPACED)));
        }
        let paper_at = rows.len();
        for (start, extra) in starts {
            progress(&format!(
                "{} · {start}{}",
                case.name,
                extra.map_or("", |_| " unpaced")
            ));
            let (pgmcc, tcp) = run_case(&case, start, extra)?;
            rows.push(pgmcc);
            if start == "until-congestion" && extra.is_none() {
                // TCP's phase from this run: after the paper's start-up on a LAN, repairs still flow when TCP
                // starts. Listed after the paper's row.
                rows.insert(paper_at + 1, tcp);
            }
        }
    }
    Ok(rows)
}

/// The drop counter read every [`STEP`]: (time, drops so far on all links).
fn run_counting_drops(net: &mut convoy_sim::Network, end: Instant) -> Vec<(Instant, u64)> {
    let mut drops = Vec::new();
    let mut t = Instant::ZERO;
    while t < end {
        t = (t + STEP).min(end);
        net.run(t);
        drops.push((t, net.drops_so_far()));
    }
    drops
}

/// Drops in `[from, to)`, and those of the first overshoot within it.
fn phase_drops(samples: &[(Instant, u64)], from: Instant, to: Instant) -> (u64, u64) {
    let at = |t: Instant| {
        samples
            .iter()
            .take_while(|(s, _)| *s <= t)
            .last()
            .map_or(0, |x| x.1)
    };
    let base = at(from);
    let mut first = 0;
    let mut last_drop: Option<Instant> = None;
    let mut prev = base;
    for &(t, d) in samples.iter().filter(|(t, _)| *t > from && *t <= to) {
        if d > prev {
            if last_drop.is_none_or(|l| t - l <= OVERSHOOT_QUIET) {
                first += d - prev;
                last_drop = Some(t);
            } else {
                break;
            }
        } else if last_drop.is_some_and(|l| t - l > OVERSHOOT_QUIET) {
            break;
        }
        prev = d;
    }
    (at(to) - base, first)
}

/// Seconds from the first bin with data to the first at `target` bit/s or more.
fn time_to(bins: &[f64], interval_s: f64, target: f64) -> Option<f64> {
    let first = bins.iter().position(|&b| b > 0.0)?;
    let hit = bins[first..].iter().position(|&b| b >= target)?;
    Some(hit as f64 * interval_s)
}

fn run_case(
    case: &Case,
    start: &str,
    extra: Option<&str>,
) -> Result<(StartUpRow, StartUpRow), String> {
    let mut sets = case.sets.clone();
    sets.push(format!("session.pgm.pgmcc.start={start}"));
    sets.extend(extra.map(String::from));
    let path = format!("scenarios/examples/{}", case.file);
    let s = scenario::parse(&path, case.file, case.text, &sets).map_err(|e| e.to_string())?;
    let rate = s
        .links
        .iter()
        .find(|l| l.name == case.bottleneck)
        .map(|l| l.forward.rate_bps as f64)
        .ok_or_else(|| format!("{}: no link `{}`", case.file, case.bottleneck))?;
    let tcp_start = s
        .tcp
        .first()
        .map(|t| t.start)
        .ok_or_else(|| format!("{}: no TCP flow", case.file))?;
    let tcp_start = Instant::from_nanos(tcp_start.as_nanos() as u64);
    let end = Instant::from_nanos(s.duration.as_nanos() as u64);
    let mut net = build_network(&s)
        .map_err(|e| format!("{}: {e}", case.file))?
        .net;
    let samples = run_counting_drops(&mut net, end);
    let repairs = net
        .session_sender("pgm")
        .map(|a| a.sender().stats().rdata_packets);
    let r = net.results();
    let flow = |name: &str| {
        r.flows
            .iter()
            .find(|f| f.name == name)
            .ok_or_else(|| format!("{}: no flow `{name}`", case.file))
    };
    let (pgm, tcp) = (flow("pgm")?, flow("tcp")?);
    let (drops, first) = phase_drops(&samples, Instant::ZERO, tcp_start);
    let pgmcc_row = StartUpRow {
        case: case.name.clone(),
        flow: format!("pgmcc {start}{}", extra.map_or("", |_| ", unpaced")),
        to_90_percent_s: time_to(&pgm.throughput_bps, pgm.interval_s, 0.9 * rate),
        first_overshoot_drops: first,
        drops,
        repairs,
    };
    let (drops, first) = phase_drops(&samples, tcp_start, end);
    let tcp_row = StartUpRow {
        case: case.name.clone(),
        flow: "TCP SACK".into(),
        to_90_percent_s: time_to(&tcp.throughput_bps, tcp.interval_s, 0.9 * rate),
        first_overshoot_drops: first,
        drops,
        repairs: None,
    };
    Ok((pgmcc_row, tcp_row))
}

/// The rows as a text table.
pub fn table(rows: &[StartUpRow]) -> String {
    let mut out = format!(
        "{:<32} {:<33} {:>10} {:>15} {:>7} {:>8} {:>13}\n",
        "case", "flow", "to 90% (s)", "1st overshoot", "drops", "repairs", "repairs/drops"
    );
    for r in rows {
        let t90 = r
            .to_90_percent_s
            .map_or("never".into(), |t| format!("{t:.1}"));
        let repairs = r.repairs.map_or("-".into(), |x| x.to_string());
        let ratio = match r.repairs {
            Some(x) if r.drops > 0 => format!("{:.2}", x as f64 / r.drops as f64),
            _ => "-".into(),
        };
        let _ = writeln!(
            out,
            "{:<32} {:<33} {:>10} {:>15} {:>7} {:>8} {:>13}",
            r.case, r.flow, t90, r.first_overshoot_drops, r.drops, repairs, ratio
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ms: u64) -> Instant {
        Instant::from_nanos(ms * 1_000_000)
    }

    #[test]
    fn the_first_overshoot_ends_when_drops_pause() {
        let samples = [
            (at(10), 0),
            (at(20), 5),
            (at(30), 9),
            (at(600), 9),
            (at(700), 12),
            (at(800), 20),
        ];
        assert_eq!(phase_drops(&samples, at(0), at(800)), (20, 9));
        assert_eq!(
            phase_drops(&samples, at(600), at(800)),
            (11, 11),
            "a later phase counts from its start"
        );
    }

    #[test]
    fn time_to_counts_from_the_first_bin_with_data() {
        let bins = [0.0, 0.0, 10.0, 50.0, 95.0, 99.0];
        assert_eq!(time_to(&bins, 0.1, 90.0), Some(2.0 * 0.1));
        assert_eq!(time_to(&bins, 0.1, 100.0), None);
    }
}
