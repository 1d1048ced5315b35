//! Window inflation by the old acker's ACKs after a switch (Wang and Fahmy §IV-A).

use super::common::*;

/// What happened around one acker switch, read from the sender's trace and window samples.
#[derive(Clone, Debug)]
pub struct SwitchEpisode {
    /// When the sender switched.
    pub t: f64,
    /// The previous acker.
    pub from: String,
    /// The new acker.
    pub to: String,
    /// First sequence number sent after the switch (the first packet naming the new acker).
    pub first_new: Option<u32>,
    /// ACKs that arrived after the switch for packets sent before it (a former acker's), until the first ACK of
    /// a packet sent after it (or the end).
    pub old_acks: usize,
    /// When the first ACK of a packet sent after the switch arrived (`None`: not before the end).
    pub new_ack_at: Option<f64>,
    /// Window at the switch.
    pub w_at: f64,
    /// Largest window from the switch to that ACK (or the end).
    pub w_max: f64,
    /// Original data packets sent in that interval.
    pub sent: usize,
    /// End of the interval.
    pub until: f64,
}

/// The acker switches (between two named receivers) before `end`, with what the sender saw between each and the
/// first ACK of a packet sent after it. Episodes of switches in quick succession overlap.
pub fn switch_episodes(
    s: &SessionData,
    switches: &[(f64, Option<String>)],
    end: f64,
) -> Vec<SwitchEpisode> {
    let named = named(switches);
    let mut out = Vec::new();
    for k in 1..named.len() {
        let (t, ref to) = named[k];
        let from = named[k - 1].1.clone();
        if t >= end || from == *to {
            continue;
        }
        let first_new = s.trace.iter().find_map(|(tm, m)| match m {
            SeqMark::Data(q) if *tm >= t => Some(*q),
            _ => None,
        });
        let is_new = |rx: u32| first_new.is_some_and(|f| (rx.wrapping_sub(f) as i32) >= 0);
        let new_ack_at = s.trace.iter().find_map(|(tm, m)| match m {
            SeqMark::Ack(rx) if *tm > t && *tm < end && is_new(*rx) => Some(*tm),
            _ => None,
        });
        let until = new_ack_at.unwrap_or(end);
        let old_acks = s
            .trace
            .iter()
            .filter(|(tm, m)| {
                *tm > t && *tm < until && matches!(m, SeqMark::Ack(rx) if !is_new(*rx))
            })
            .count();
        let sent = s
            .trace
            .iter()
            .filter(|(tm, m)| *tm >= t && *tm < until && matches!(m, SeqMark::Data(_)))
            .count();
        let w_at = s
            .window
            .iter()
            .take_while(|(tm, _)| *tm <= t)
            .last()
            .map_or(1.0, |x| x.1);
        let w_max = s
            .window
            .iter()
            .filter(|(tm, _)| *tm >= t && *tm <= until)
            .map(|x| x.1)
            .fold(w_at, f64::max);
        out.push(SwitchEpisode {
            t,
            from,
            to: to.clone(),
            first_new,
            old_acks,
            new_ack_at,
            w_at,
            w_max,
            sent,
            until,
        });
    }
    out
}

fn episode_text(e: &SwitchEpisode) -> String {
    format!(
        "{}→{} at {} s: {} old-acker ACKs, W {} → max {}, {} packets sent, new acker's first ACK {}",
        e.from,
        e.to,
        trim(e.t),
        e.old_acks,
        trim(e.w_at),
        trim(e.w_max),
        e.sent,
        e.new_ack_at.map_or("not within the run".to_string(), |a| {
            format!("{} s later", trim(a - e.t))
        })
    )
}

/// wf-switch-inflation: after the first acker switch the old acker's ACKs keep arriving and the window grows
/// until the new acker's first ACK; PGM sends more than TCP flow 4 early on; each variant's switches reported.
pub(super) fn switch_inflation(ctx: &Ctx<'_>) -> Result<Vec<Check>, String> {
    let r = need(ctx, "")?;
    let f = pgm(r)?;
    let end = r.end_s();
    // The early window the goodput is compared over (experiments.md: "the first 50 s") is the length of the
    // `first50` run, identical to the beginning of this one.
    let early = need(ctx, "first50")?;
    let early_s = early.end_s();
    let eps = switch_episodes(session(r)?, &f.switches, end);
    let first = eps.first();
    let mut checks = vec![
        old_acks_check(first, end),
        window_growth_check(first),
        early_sending_check(r, f, early_s)?,
        receiver_side_report(early, early_s)?,
        report(
            &format!(
                "every acker switch in the first {} s (old_acker_acks = \"count\")",
                trim(end)
            ),
            episodes_text(&eps, "none"),
            "PR1→PR4 at 50.2 s with PR4's first ACK at 76.9 s, then PR4→PR5 (§IV-A)",
        ),
    ];
    checks.extend(variant_reports(ctx, r)?);
    Ok(checks)
}

/// Every episode's text, or `none` when there is no switch.
fn episodes_text(eps: &[SwitchEpisode], none: &str) -> String {
    if eps.is_empty() {
        none.to_string()
    } else {
        eps.iter().map(episode_text).collect::<Vec<_>>().join("; ")
    }
}

/// Judged: ACKs from the old acker arrive after the `first` switch (runs of `end` seconds).
fn old_acks_check(first: Option<&SwitchEpisode>, end: f64) -> Check {
    Check::holds(
        "ACKs from the old acker keep arriving after the first switch",
        first.is_some_and(|e| e.old_acks > 0),
        "≥ 1 (WF §IV-A: PR1 ACKed until packet 173; PR4's first ACK 26.7 s after the switch)",
        first.map_or(
            format!("no acker switch in the first {} s", trim(end)),
            episode_text,
        ),
    )
}

/// Judged: the window grows between the `first` switch and the new acker's first ACK.
fn window_growth_check(first: Option<&SwitchEpisode>) -> Check {
    Check::holds(
        "the window grows between the first switch and the new acker's first ACK",
        first.is_some_and(|e| e.w_max > e.w_at),
        "maximum window above the window at the switch (WF §IV-A, Fig. 10)",
        first.map_or("no switch".to_string(), |e| {
            format!("W {} at the switch, max {}", trim(e.w_at), trim(e.w_max))
        }),
    )
}

/// Judged: PGM (`f`, of run `r`) sends more than TCP flow 4 over the first `early_s` seconds.
fn early_sending_check(
    r: &RunData,
    f: &convoy_sim::results::FlowResult,
    early_s: f64,
) -> Result<Check, String> {
    // The first 50 s. WF's conclusions: "a pgmcc flow initially sends more than a competing TCP flow due to the
    // rapid opening of the PGM sender window between initial acker switches". What each sender sent: PGM's
    // original data (repairs excluded), TCP flow 4's segments (retransmissions included, so TCP is not
    // understated).
    let pgm_sent = mean(&f.throughput_bps, f.interval_s, 0.0, early_s);
    let t4 = r.flow(TCP4).ok_or("no flow tcp4")?;
    let tcp_sent = mean(&t4.throughput_bps, t4.interval_s, 0.0, early_s);
    Ok(Check::holds(
        &format!("PGM sends more than TCP flow 4 over the first {} s", trim(early_s)),
        pgm_sent > tcp_sent,
        "PGM's original data rate above TCP flow 4's sending rate (experiments.md: PGM goodput > TCP flow 4 in \
         the first 50 s; WF Fig. 9 and conclusions: \"initially sends more\"); receiver side reported below",
        format!(
            "PGM {} vs TCP flow 4 {} kbit/s",
            trim(pgm_sent / 1000.0),
            trim(tcp_sent / 1000.0)
        ),
    ))
}

/// What each PGM receiver and TCP flow 4's receiver got in the `early` run of `early_s` seconds.
fn receiver_side_report(early: &RunData, early_s: f64) -> Result<Check, String> {
    // Receiver side, from the 50 s run (identical to the first 50 s of this one): distinct original packets each
    // PGM receiver got (goodput "excluding duplicate packets", WF's [6]; repairs not counted) and TCP flow 4's
    // in-order delivery.
    let ef = pgm(early)?;
    let es = session(early)?;
    let payload = ef.throughput_bps.iter().sum::<f64>() * ef.interval_s
        / 8.0
        / (es.stats.odata_packets.max(1) as f64);
    let per_rx: Vec<String> = es
        .odata_received
        .iter()
        .map(|(n, k)| format!("{n} {}", trim(*k as f64 * payload * 8.0 / early_s / 1000.0)))
        .collect();
    Ok(report(
        &format!(
            "receiver side, first {} s: distinct original data at each PGM receiver; TCP flow 4 delivered (kbit/s)",
            trim(early_s)
        ),
        format!(
            "{}; TCP flow 4 {}",
            per_rx.join(", "),
            trim(tcp_goodput(early, TCP4)? / 1000.0)
        ),
        "one PGM curve in Fig. 9 (the paper does not say at which receiver)",
    ))
}

/// The variants that change what old-acker ACKs do, or the timeout: (variant, what it is).
const INFLATION_VARIANTS: [(&str, &str); 3] = [
    (
        "tokens-only",
        "variant old_acker_acks = \"tokens-only\" (old-acker ACKs return tokens, never grow the window; \
         the mitigation of docs/pgmcc-rules.md, default off)",
    ),
    (
        "ignore",
        "variant old_acker_acks = \"ignore\" (only the current acker's ACKs move the window, draft §3)",
    ),
    ("adaptive", "variant with Convoy's adaptive timeout (old_acker_acks = \"count\")"),
];

/// Every switch of each variant that ran, with the data it sent beside the main run's (`r`).
fn variant_reports(ctx: &Ctx<'_>, r: &RunData) -> Result<Vec<Check>, String> {
    let mut checks = Vec::new();
    for (variant, what) in INFLATION_VARIANTS {
        let Some(b) = ctx.run(variant) else { continue };
        let bf = pgm(b)?;
        let beps = switch_episodes(session(b)?, &bf.switches, b.end_s());
        checks.push(report(
            &format!("{what}: every switch in the first {} s", trim(b.end_s())),
            format!(
                "{}; {} packets sent in {} s (\"count\": {})",
                episodes_text(&beps, "no switch"),
                session(b)?.stats.odata_packets,
                trim(b.end_s()),
                session(r)?.stats.odata_packets,
            ),
            "(not in the paper; docs/pgmcc-rules.md \"Known weaknesses\")",
        ));
    }
    Ok(checks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn switch_episode_counts_old_acker_acks_until_the_new_ackers_first() {
        let mut trace: Vec<(f64, SeqMark)> =
            (0..10).map(|q| (f64::from(q), SeqMark::Data(q))).collect();
        trace.extend([
            (6.2, SeqMark::Ack(3)),
            (7.2, SeqMark::Ack(4)),
            (8.2, SeqMark::Ack(5)),
            (9.5, SeqMark::Ack(6)),
            (9.7, SeqMark::Ack(2)),
        ]);
        trace.sort_by(|a, b| a.0.total_cmp(&b.0));
        let s = SessionData {
            name: SESSION.into(),
            window: vec![(5.0, 4.0), (6.0, 4.25), (7.0, 4.5), (8.0, 4.7), (9.6, 4.8)],
            trace,
            ..SessionData::default()
        };
        let switches = vec![
            (0.1, Some("A".to_string())),
            (5.5, None),
            (5.5, Some("B".to_string())),
        ];
        let eps = switch_episodes(&s, &switches, 100.0);
        assert_eq!(eps.len(), 1);
        let e = &eps[0];
        assert_eq!((e.from.as_str(), e.to.as_str()), ("A", "B"));
        assert_eq!(e.first_new, Some(6));
        assert_eq!(e.old_acks, 3);
        assert_eq!(e.new_ack_at, Some(9.5));
        assert_eq!((e.w_at, e.w_max), (4.0, 4.7));
        assert_eq!(e.sent, 4);
        assert!(episode_text(e).contains("3 old-acker ACKs"));
    }

    #[test]
    fn window_at_one_and_ack_delay() {
        let s = SessionData {
            window: vec![(0.0, 1.0), (1.0, 2.0), (2.0, 1.0), (3.0, 1.0)],
            trace: vec![
                (0.0, SeqMark::Data(0)),
                (1.0, SeqMark::Data(1)),
                (3.0, SeqMark::Ack(0)),
                (5.0, SeqMark::Ack(1)),
            ],
            ..SessionData::default()
        };
        assert_eq!(window_at_one(&s, 0.0, 4.0), 0.75);
        assert_eq!(median_ack_delay(&s, 0.0, 10.0), Some(4.0));
    }
}
