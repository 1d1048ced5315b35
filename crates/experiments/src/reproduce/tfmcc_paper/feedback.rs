//! tfmcc-feedback (TFMCC paper §2.5, Figs 3–6): one feedback round in which every receiver has just become
//! congested, with RFC 4654's exponential timers and with the paper's rate-biased ones — how many reports reach
//! the sender, and how close the lowest of them is to the true minimum.
//!
//! The paper studies this on the feedback process alone ("the worst-case scenario where all n receivers except the
//! CLR suddenly experience congestion"), and so does this experiment: a round of n receivers runs on Convoy's own
//! timer and suppression rules ([`convoy_proto::cc::tfmcc::timer`], g and N of [`TfmccConfig`]'s defaults), with no
//! packets around them, which lets it run at 10,000 receivers in milliseconds. The model's choices: every receiver
//! has the same RTT, a report reaches the sender half an RTT after its timer fires and the X_supp it lowers reaches
//! every receiver half an RTT later (on the next data packet; the data spacing is neglected); R_max is that RTT, so
//! a round lasts T = 6·RTT; the receivers' calculated rates are uniform on [0.5, 1) of the sending rate (the
//! paper's Fig. 2 draws them uniform, and its bias saturates at half the sending rate, §2.5.1). A receiver cancels
//! its timer once the X_supp it has seen is below its own rate (RFC 4654 §4.5).

use super::super::experiment::Ctx;
use super::super::verdict::{trim, Check};
use convoy_proto::cc::tfmcc::timer::{timer_delay, FeedbackBias};
use convoy_proto::cc::tfmcc::TfmccConfig;
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use std::time::Duration;

/// Receiver-set sizes (experiments.md: 1..10000).
pub const SIZES: [usize; 5] = [1, 10, 100, 1000, 10_000];
/// Rounds per size and timer.
const ROUNDS: usize = 200;
/// The RTT of every receiver in the model.
const RTT: Duration = Duration::from_millis(100);
/// The lowest calculated rate relative to the sending rate (see the module docs).
const RATE_LOW: f64 = 0.5;

/// What the rounds of one size and timer gave.
#[derive(Clone, Copy, Debug)]
pub struct RoundStats {
    /// Mean reports per round.
    pub messages: f64,
    /// Mean of (lowest reported rate / true lowest rate − 1).
    pub quality: f64,
}

/// A uniform draw on (0, 1].
fn uniform(rng: &mut ChaCha8Rng) -> f64 {
    ((rng.next_u64() >> 11) + 1) as f64 / (1u64 << 53) as f64
}

/// One round: the reports sent, and the lowest reported rate over the true lowest.
fn round(rng: &mut ChaCha8Rng, n: usize, bias: FeedbackBias, config: &TfmccConfig) -> (usize, f64) {
    let t = RTT.mul_f64(config.round_rtts);
    let mut timers: Vec<(Duration, f64)> = (0..n)
        .map(|_| {
            let rate = RATE_LOW + (1.0 - RATE_LOW) * (uniform(rng) - f64::EPSILON).max(0.0);
            let x = uniform(rng);
            (timer_delay(bias, t, config.receivers_max, x, rate), rate)
        })
        .collect();
    timers.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let true_min = timers.iter().map(|x| x.1).fold(f64::INFINITY, f64::min);
    // Reports sent, in time order; X_supp known to the receivers at time τ is (1 − g)·the lowest rate of the
    // reports sent by τ − RTT.
    let mut sent: Vec<(Duration, f64)> = Vec::new();
    let mut seen = 0;
    let mut x_supp = f64::INFINITY;
    for (at, rate) in timers {
        while seen < sent.len() && sent[seen].0 + RTT <= at {
            x_supp = x_supp.min((1.0 - config.g) * sent[seen].1);
            seen += 1;
        }
        if x_supp < rate {
            continue;
        }
        sent.push((at, rate));
    }
    let lowest = sent.iter().map(|x| x.1).fold(f64::INFINITY, f64::min);
    (sent.len(), lowest / true_min - 1.0)
}

/// `ROUNDS` rounds of `n` receivers with timer `bias` and suppression margin `g`, from a stream of `seed`.
pub fn rounds(seed: u64, n: usize, bias: FeedbackBias, g: f64) -> RoundStats {
    let config = TfmccConfig {
        g,
        ..TfmccConfig::default()
    };
    let tag = match bias {
        FeedbackBias::Unbiased => 1,
        FeedbackBias::RateOffset => 2,
    };
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ (n as u64) << 8 ^ tag << 40 ^ g.to_bits() ^ 0x7466_6d63);
    let (mut messages, mut quality) = (0.0, 0.0);
    for _ in 0..ROUNDS {
        let (m, q) = round(&mut rng, n, bias, &config);
        messages += m as f64;
        quality += q;
    }
    RoundStats {
        messages: messages / ROUNDS as f64,
        quality: quality / ROUNDS as f64,
    }
}

fn table(stats: &[(usize, RoundStats)], what: fn(&RoundStats) -> f64) -> String {
    stats
        .iter()
        .map(|(n, s)| format!("n={n}: {}", trim(what(s))))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Reports per round at n = 10000 over those at n = 10 may grow at most as log n does: log(10000)/log(10) = 4
/// (linear growth would give 1000).
const LOG_GROWTH: f64 = 4.0;

/// The verdict: reports per round grow about logarithmically and stay ≤ 30 at n = 10000 (both timers); the
/// biased timers' lowest report is within 10% of the true minimum on average; the unbiased ones' is reported, and
/// both once more with every timer cancelled by the first echo (g = 1), where only the timers' order decides.
pub fn judge(ctx: &Ctx<'_>) -> Result<Vec<Check>, String> {
    let g = TfmccConfig::default().g;
    let mut checks = Vec::new();
    for (bias, name) in [
        (FeedbackBias::Unbiased, "exponential (RFC 4654 §4.5)"),
        (FeedbackBias::RateOffset, "rate-offset (paper §2.5)"),
    ] {
        let stats: Vec<(usize, RoundStats)> =
            SIZES.iter().map(|&n| (n, rounds(ctx.seed, n, bias, g))).collect();
        let at = |n: usize| stats.iter().find(|(m, _)| *m == n).map(|(_, s)| *s);
        let (ten, last) = (at(10).ok_or("n = 10")?, at(10_000).ok_or("n = 10000")?);
        checks.push(Check::at_most(
            &format!("{name}, g = {}: reports in the first round at n = 10000", trim(g)),
            last.messages,
            30.0,
            "",
            "experiments.md",
        ));
        let mut c = Check::at_most(
            &format!("{name}: reports at n = 10000 / at n = 10 (about logarithmic growth)"),
            last.messages / ten.messages,
            LOG_GROWTH,
            "",
            "log(10000)/log(10); experiments.md: \"about logarithmically\"",
        );
        c.measured = format!("{} (reports per round: {})", c.measured, table(&stats, |s| s.messages));
        checks.push(c);
        let quality = stats.iter().map(|(_, s)| s.quality).sum::<f64>() / stats.len() as f64;
        let q_text = format!("{} (per n: {})", trim(quality), table(&stats, |s| s.quality));
        let what = format!("{name}, g = {}: lowest reported rate / true minimum − 1, mean over n", trim(g));
        checks.push(match bias {
            FeedbackBias::RateOffset => {
                let mut c = Check::at_most(&what, quality, 0.10, "", "experiments.md (paper: offset methods within a few percent)");
                c.measured = q_text;
                c
            }
            FeedbackBias::Unbiased => Check::report(&what, q_text, "~20% for unbiased timers (Fig. 6)"),
        });
        let first_echo: Vec<(usize, RoundStats)> =
            SIZES.iter().map(|&n| (n, rounds(ctx.seed, n, bias, 1.0))).collect();
        let q1 = first_echo.iter().map(|(_, s)| s.quality).sum::<f64>() / first_echo.len() as f64;
        checks.push(Check::report(
            &format!("{name}, g = 1 (the first echo cancels every timer): lowest reported / true minimum − 1"),
            format!(
                "{} (per n: {}; reports per round: {})",
                trim(q1),
                table(&first_echo, |s| s.quality),
                table(&first_echo, |s| s.messages)
            ),
            "Fig. 6: offset methods within a few percent, unbiased ~20%",
        ));
    }
    Ok(checks)
}
