//! Verdicts of the TFMCC paper's start-up experiment (§4.4, Fig. 14): the highest rate of slowstart on an
//! otherwise empty bottleneck, for growing receiver sets, and beside one TCP flow.

use super::super::data::RunData;
use super::super::experiment::Ctx;
use super::super::measure::kbps;
use super::super::verdict::{trim, Check};
use super::{receiver_count, session_spec, span, SESSION};
use convoy_proto::cc::tfmcc::ROUND_ENDED;
use convoy_proto::cc::STARTUP_ENDED;

/// The bottleneck's link name in the scenario.
const BOTTLENECK: &str = "bottleneck";
/// The highest allowed rate of slowstart, bit/s, and when slowstart ended (the first report of a loss, RFC 4654
/// §3.6): the larger of the rate samples up to then and the rate the sender had when it ended.
fn slowstart_peak(r: &RunData) -> Result<(f64, f64), String> {
    let s = r.session(SESSION).ok_or("no TFMCC session data")?;
    let (end, before) = s
        .first_milestone(STARTUP_ENDED)
        .ok_or("slowstart never ended (no receiver reported a loss)")?;
    let sampled = s
        .rate
        .iter()
        .filter(|(t, _)| *t <= end)
        .map(|(_, v)| *v)
        .fold(0.0, f64::max);
    Ok((8.0 * sampled.max(before), end))
}


/// The fig14 variant whose TCP has no receiver window (the main runs use ns-2's default of 20 packets): reported.
pub(super) const TCP_WINDOW_UNLIMITED: &str = "n1-tcp-window-unlimited";

/// tfmcc-fig14-slowstart: on the empty bottleneck the peak is ≤ 2.2× the link for every receiver count; beside
/// one TCP flow started with it the peak is near the fair rate (within [0.5, 1.5] of half the link), and the mean
/// over the rest of the run is reported.
pub fn fig14(ctx: &Ctx<'_>) -> Result<Vec<Check>, String> {
    let mut checks = Vec::new();
    for (variant, r) in ctx.runs {
        let link = r.link_rate_bps(BOTTLENECK)?;
        let (peak, at) = slowstart_peak(r)?;
        let n = receiver_count(r);
        let with_tcp = r.start_s("tcp")? < r.end_s();
        if !with_tcp {
            let mut c = Check::at_most(
                &format!("{n} receiver(s), empty bottleneck: highest slowstart rate / link rate"),
                peak / link,
                2.2,
                "",
                "experiments.md (paper: roughly twice the bottleneck)",
            );
            c.measured = format!("{} ({}; slowstart ended at {} s)", c.measured, kbps(peak), trim(at));
            checks.push(c);
            continue;
        }
        let fair = link / 2.0;
        if variant.as_str() == TCP_WINDOW_UNLIMITED {
            checks.push(Check::report(
                &format!("variant {variant}: {n} receiver(s), highest slowstart rate / fair rate"),
                format!("{} ({}; slowstart ended at {} s)", trim(peak / fair), kbps(peak), trim(at)),
                "\"with TCP it ends near the fair rate\" (§4.4), beside a TCP whose window ns-2's default does not cap",
            ));
            continue;
        }
        let mut c = Check::range(
            &format!("{n} receiver(s) beside one TCP flow: highest slowstart rate / fair rate (half the link)"),
            peak / fair,
            0.5,
            1.5,
            "",
            "experiments.md: \"with TCP it ends near the fair rate\"",
        );
        c.measured = format!("{} ({}; slowstart ended at {} s; variant {variant})", c.measured, kbps(peak), trim(at));
        checks.push(c);
        let (from, to) = (r.end_s() / 2.0, r.end_s());
        let (tf, tcp) = (r.flow_mean(SESSION, from, to)?, r.flow_mean("tcp", from, to)?);
        checks.push(Check::report(
            &format!("{n} receiver(s) beside one TCP flow: TFMCC and TCP, {}", span(from, to)),
            format!("{} vs {}", kbps(tf), kbps(tcp)),
            "\"it takes TFMCC roughly 20 seconds to reach that level\" (§4.4)",
        ));
    }
    Ok(checks)
}

/// How the receivers of a Fig. 12 run got their first RTT samples.
struct RttProgress {
    /// Receivers in the session.
    receivers: usize,
    /// Receivers with a sample at 10, 30, 100, 200 and 300 s (those within the run), as text.
    marks: String,
    /// Feedback rounds ended by [`JUDGED_UNTIL_S`] and the first samples taken by then.
    rounds: usize,
    samples: usize,
    /// Rounds (while receivers without an RTT remain) that gave no new sample, of how many.
    empty: usize,
    counted: usize,
    /// The share of receivers with a sample at 300 s (or the run's end).
    share: f64,
}

/// The span over which the samples per round are judged (experiments.md: "over 0–200 s").
const JUDGED_UNTIL_S: f64 = 200.0;

/// The RTT samples of a run.
fn rtt_progress(r: &RunData) -> Result<RttProgress, String> {
    let s = r.session(SESSION).ok_or("no TFMCC session data")?;
    let n = s.rtt_measured.len();
    let mut times: Vec<f64> = s.rtt_measured.iter().filter_map(|(_, t)| *t).collect();
    times.sort_by(f64::total_cmp);
    let count_by = |t: f64| times.iter().filter(|x| **x <= t).count();
    let end = r.end_s();
    let marks: Vec<String> = [10.0, 30.0, 100.0, 200.0, 300.0]
        .iter()
        .filter(|t| **t <= end)
        .map(|t| format!("{} s: {}", trim(*t), count_by(*t)))
        .collect();
    // A report that closes a round is echoed on the data that follows: samples are counted one R_max late (the
    // initial R_max, above every RTT of this setup).
    let lag = initial_rtt_s(r)?;
    let round_ends: Vec<f64> = s.milestone_times(ROUND_ENDED).collect();
    let (mut counted, mut empty) = (0, 0);
    for w in round_ends.windows(2) {
        if count_by(w[0] + lag) >= n {
            break;
        }
        counted += 1;
        if count_by(w[1] + lag) == count_by(w[0] + lag) {
            empty += 1;
        }
    }
    let until = JUDGED_UNTIL_S.min(end);
    Ok(RttProgress {
        receivers: n,
        marks: marks.join(", "),
        rounds: round_ends.iter().filter(|t| **t <= until).count(),
        samples: count_by(until),
        empty,
        counted,
        share: count_by(300.0_f64.min(end)) as f64 / n.max(1) as f64,
    })
}

/// tfmcc-fig12-initial-rtt: on average at least one new RTT sample per feedback round over 0–200 s; ≥ 50% of the
/// receivers with an RTT at 300 s; the rounds without a sample and the bottleneck variants reported.
pub fn fig12(ctx: &Ctx<'_>) -> Result<Vec<Check>, String> {
    let r = ctx.run("").ok_or("run `` missing")?;
    let p = rtt_progress(r)?;
    let per_round = p.samples as f64 / p.rounds.max(1) as f64;
    let mut c1 = Check::at_least(
        &format!("new RTT samples per feedback round, 0–{} s", trim(JUDGED_UNTIL_S)),
        per_round,
        1.0,
        "",
        "experiments.md (paper: \"at least one receiver gets its first RTT measurement per feedback round\")",
    );
    c1.measured = format!("{} ({} samples in {} rounds)", c1.measured, p.samples, p.rounds);
    let mut checks = vec![
        c1,
        Check::at_least(
            &format!("share of the {} receivers with a valid RTT at 300 s", p.receivers),
            p.share,
            0.5,
            "",
            "experiments.md (paper: 700 of 1000 after 200 s)",
        ),
        Check::report(
            "feedback rounds without a new sample while receivers without one remain",
            format!("{} of {} (receivers with an RTT at {})", p.empty, p.counted, p.marks),
            "\"at least one [...] per feedback round\"",
        ),
    ];
    for variant in ["bottleneck-1mbit", "bottleneck-4mbit"] {
        if let Some(v) = ctx.run(variant) {
            let q = rtt_progress(v)?;
            checks.push(Check::report(
                &format!("variant {variant}: samples per round to 200 s; share with an RTT at 300 s"),
                format!(
                    "{}; {} (rounds without a sample: {} of {})",
                    trim(q.samples as f64 / q.rounds.max(1) as f64),
                    trim(q.share),
                    q.empty,
                    q.counted
                ),
                "Fig. 12 (the paper gives no bottleneck rate)",
            ));
        }
    }
    Ok(checks)
}

/// The session's initial R_max, seconds.
fn initial_rtt_s(r: &RunData) -> Result<f64, String> {
    match &session_spec(r)?.cc {
        convoy_proto::cc::CcConfig::Tfmcc(c) => Ok(c.initial_rtt.as_secs_f64()),
        _ => Err("the session is not TFMCC".into()),
    }
}
