//! What the Wang–Fahmy verdicts share: the scenarios' flow names and readings of their runs.

pub use super::super::data::{RunData, SessionData};
pub use super::super::experiment::{Ctx, RunPlan};
pub use super::super::measure::{acker_share, mean, switch_count, switches_away};
pub use super::super::verdict::{trim, Check};
pub use convoy_sim::observe::SeqMark;

pub const EXP: &str = "experiments.md";
/// The multicast session's name in every Wang–Fahmy scenario.
pub const SESSION: &str = "pgm";
/// The TCP flow they watch.
pub const TCP4: &str = "tcp4";

/// A number reported without a range: beside the paper's (`Check::report`), or, for what the paper did not
/// run (`paper` = "(not in the paper…)"), on its own.
pub fn report(what: &str, measured: String, paper: &str) -> Check {
    match paper
        .strip_prefix("(not in the paper")
        .and_then(|r| r.strip_suffix(')'))
    {
        Some(rest) => Check {
            what: what.to_string(),
            expected: format!("not in the paper{rest}; reported only"),
            measured,
            pass: true,
            reported: true,
        },
        None => Check::report(what, measured, paper),
    }
}

pub fn need<'a>(ctx: &'a Ctx<'_>, variant: &str) -> Result<&'a RunData, String> {
    ctx.run(variant)
        .ok_or_else(|| format!("run `{variant}` missing"))
}

pub fn pgm(run: &RunData) -> Result<&convoy_sim::results::FlowResult, String> {
    run.flow(SESSION)
        .ok_or_else(|| format!("no session `{SESSION}` in {}", run.dir.display()))
}

pub fn session(run: &RunData) -> Result<&SessionData, String> {
    run.session(SESSION)
        .ok_or_else(|| format!("no series of session `{SESSION}`"))
}

pub fn tcp_goodput(run: &RunData, name: &str) -> Result<f64, String> {
    run.flow(name)
        .map(|f| f.goodput_bps)
        .ok_or_else(|| format!("no flow `{name}` in {}", run.dir.display()))
}

/// The named acker switches only (elections in progress dropped).
pub fn named(switches: &[(f64, Option<String>)]) -> Vec<(f64, String)> {
    switches
        .iter()
        .filter_map(|(t, n)| n.clone().map(|n| (*t, n)))
        .collect()
}

/// "PR1 (0.5 s) → PR4 (28.2 s) → …", at most `max` entries.
pub fn acker_sequence(switches: &[(f64, Option<String>)], max: usize) -> String {
    let mut out: Vec<String> = Vec::new();
    for (t, n) in switches.iter().take(max) {
        out.push(format!(
            "{} ({} s)",
            n.as_deref().unwrap_or("election"),
            trim(*t)
        ));
    }
    if switches.len() > max {
        out.push(format!("… {} changes in all", switches.len()));
    }
    out.join(" → ")
}

/// Receivers' goodput range "a–b kbit/s" (min, max in bit/s too).
pub fn receiver_range(run: &RunData) -> Result<(f64, f64, String), String> {
    let f = pgm(run)?;
    let (lo, hi) = f
        .receivers
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(lo, hi), r| {
            (lo.min(r.goodput_bps), hi.max(r.goodput_bps))
        });
    Ok((
        lo,
        hi,
        format!("{}–{} kbit/s", trim(lo / 1000.0), trim(hi / 1000.0)),
    ))
}

/// Fraction of the controller samples in [from, to) with the window at 1 packet.
pub fn window_at_one(s: &SessionData, from: f64, to: f64) -> f64 {
    let v: Vec<f64> = s
        .window
        .iter()
        .filter(|(t, _)| *t >= from && *t < to)
        .map(|(_, w)| *w)
        .collect();
    if v.is_empty() {
        return 0.0;
    }
    v.iter().filter(|w| **w <= 1.0 + 1e-9).count() as f64 / v.len() as f64
}

/// ACK delays at the sender: for each ACK arriving in [from, to), its arrival time minus the first transmission of
/// the packet it acknowledges (RX_MAX) — the acker's RTT as the sender's clock sees it. Returns the median.
pub fn median_ack_delay(s: &SessionData, from: f64, to: f64) -> Option<f64> {
    let mut sent = std::collections::HashMap::new();
    let mut d = Vec::new();
    for (t, m) in &s.trace {
        match m {
            SeqMark::Data(q) => {
                sent.entry(*q).or_insert(*t);
            }
            SeqMark::Ack(rx) if *t >= from && *t < to => {
                if let Some(t0) = sent.get(rx) {
                    d.push(t - t0);
                }
            }
            _ => {}
        }
    }
    d.sort_by(f64::total_cmp);
    d.get(d.len() / 2).copied()
}

/// Seconds each receiver held the acker role over [0, end).
pub fn acker_seconds(switches: &[(f64, Option<String>)], name: &str, end: f64) -> f64 {
    acker_share(switches, name, false, 0.0, end) * end
}

/// One receiver's Table II entry: ODATA received and data delivered, as fractions of what the sender sent.
#[derive(Clone, Debug)]
pub struct ReceivingRate {
    /// Receiver name.
    pub name: String,
    /// Original data packets that arrived as ODATA / ODATA sent.
    pub odata: f64,
    /// Payload bytes delivered (ODATA and repairs, in order) / ODATA payload bytes sent.
    pub delivered: f64,
}

/// Table II's "receiving rate" per receiver.
pub fn receiving_rates(run: &RunData) -> Result<Vec<ReceivingRate>, String> {
    let f = pgm(run)?;
    let sent_bytes: f64 = f.throughput_bps.iter().sum::<f64>() * f.interval_s / 8.0;
    Ok(f.receivers
        .iter()
        .map(|r| ReceivingRate {
            name: r.name.clone(),
            odata: 1.0 - r.loss_rate,
            delivered: if sent_bytes > 0.0 {
                r.delivered_bytes as f64 / sent_bytes
            } else {
                0.0
            },
        })
        .collect())
}

/// The TCP-like adaptive timeout Wang and Fahmy propose (draft §2.7's SRTT/RTTVAR) in place of their fixed one,
/// nothing else changed: experiments.md, wf-congested, "the two runs differ in the timeout rule only".
pub const ADAPTIVE: &[&str] = &["session.pgm.pgmcc.timeout=adaptive"];
