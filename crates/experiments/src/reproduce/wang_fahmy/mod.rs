//! Wang and Fahmy's study of pgmcc ("Dynamics of the pgmcc multicast congestion control protocol", Purdue
//! CSD TR 01-015; shared/seeds/002_0af0101bb4f18a18.txt) and its verdicts. Setups and ranges come from
//! shared/experiments.md, section "Wang and Fahmy".
//!
//! Two topologies: the feedback-aggregation chain of their Figs 5–7 (scenarios/wf-aggregation*.toml) and the
//! fairness-dynamics chain of their Fig. 8 and Tables I–II (scenarios/wf-congested.toml and the three files
//! that differ from it only in scale, length and pgmcc settings). Their pgmcc is modelled by the scenario files
//! (sequence-number RTT, RTT²·p, a fixed 1 s timeout without forced re-election); the variants named
//! `*adaptive` run Convoy's adaptive timeout instead.

mod aggregation;
mod common;
mod dynamics;
mod figures;
mod switch_inflation;

pub use common::{receiving_rates, ReceivingRate, SESSION};
pub use switch_inflation::{switch_episodes, SwitchEpisode};

use super::experiment::Experiment;
use common::{RunPlan, ADAPTIVE};

/// Wang and Fahmy's experiments.
pub fn experiments() -> Vec<Experiment> {
    vec![
        Experiment {
            id: "wf-aggregation",
            section: "Wang and Fahmy",
            source: "002_0af0101bb4f18a18.txt, §III, Figs 5–7",
            claim: "Because network elements forward only the first NAK per packet, the sender sometimes hears PR1 \
                    instead of PR4 and switches the acker between PR1 and PR4 a number of times, although the \
                    acker should always be PR4, which has a higher loss rate and higher RTT.",
            runs: &[
                RunPlan { variant: "", scenario: "wf-aggregation.toml", sets: &[] },
                RunPlan {
                    variant: "no-suppression",
                    scenario: "wf-aggregation.toml",
                    sets: &["node.NE1.ne.suppress=false", "node.NE2.ne.suppress=false"],
                },
                RunPlan {
                    variant: "convoy",
                    scenario: "wf-aggregation.toml",
                    sets: &[
                        "session.pgm.pgmcc.rtt=timestamp",
                        "session.pgm.pgmcc.model=draft",
                        "session.pgm.pgmcc.timeout=adaptive",
                        "session.pgm.pgmcc.reelect_after=2",
                    ],
                },
            ],
            needs: &[],
            judge: aggregation::aggregation,
            figures: None,
            note: "Not reproduced: the sender switches between PR1 and PR4 occasionally (the checks above and the \
                   failing seeds list the counts), not \"a number of times\", and NAK suppression is not what makes it \
                   switch. Suppression does hide PR4's reports of shared losses (the NE counters above), but the \
                   control run without suppression switches as often or more. While PR4 is the acker its ACKs \
                   refresh its operating point on every packet, which no network element filters. The switches that \
                   do occur come from the election Wang and Fahmy ran, with the RTT measured in packets: a NAK's \
                   snd_max − rxw_lead is compared with the acker's value from its latest ACK, and at PR4's 7–8% loss \
                   the window is a few packets, so the acker's RTT is often 1 packet; a debug trace of the election \
                   showed each switch away from PR4 taken against an acker RTT of 1 packet (e.g. PR1 with 3 packets \
                   and 1.4% loss against PR4's 1 packet and 6.4%), and PR4's next report switching back within a \
                   fraction of a second. PR1 and PR2 share a branch and win the NAK race at random, so some brief \
                   switches go to PR2, which the PR1↔PR4 count leaves out as experiments.md asks.",
        },
        Experiment {
            id: "wf-aggregation-fixed",
            section: "Wang and Fahmy",
            source: "002_0af0101bb4f18a18.txt, §III; 000_e258d047b3112df4.txt, §3.7",
            claim: "With network elements that remember the forwarded NAK's rx_loss and let a NAK reporting a \
                    higher loss through (pgmcc paper §3.7), the worst receiver's reports reach the sender and PR4 \
                    keeps the acker role.",
            runs: &[
                RunPlan { variant: "", scenario: "wf-aggregation-fixed.toml", sets: &[] },
                RunPlan {
                    variant: "convoy",
                    scenario: "wf-aggregation-fixed.toml",
                    sets: &[
                        "session.pgm.pgmcc.rtt=timestamp",
                        "session.pgm.pgmcc.model=draft",
                        "session.pgm.pgmcc.timeout=adaptive",
                        "session.pgm.pgmcc.reelect_after=2",
                    ],
                },
            ],
            needs: &["wf-aggregation"],
            judge: aggregation::aggregation_fixed,
            figures: None,
            note: "PR4 keeps the acker role (first check), but the switch count does not halve. The rx_loss-aware \
                   elements let more NAKs through (the NE counters above), and a later NAK for the same loss may come \
                   from PR1–PR3 as well as PR4, since any receiver whose filter reads higher than the forwarded one \
                   passes. Each extra report is another chance to meet the acker at a 1-packet RTT (see \
                   wf-aggregation), so more brief switches happen, but PR4's own NAK for the same loss now reaches the \
                   sender too and switches back, mostly within tens of milliseconds. The fix does what pgmcc paper §3.7 \
                   promises — the worst receiver's reports get through and it holds the role — and the second half \
                   of the verdict fails because the base run has almost no switches to halve.",
        },
        Experiment {
            id: "wf-congested",
            section: "Wang and Fahmy",
            source: "002_0af0101bb4f18a18.txt, §IV-A, Figs 9–10, Tables I–II",
            claim: "In the highly congested network the acker's RTT exceeds the fixed timeout: the PGM window drops \
                    to one and remains one till the end; a TCP-like adaptive timeout would remedy this.",
            runs: &[
                RunPlan { variant: "", scenario: "wf-congested.toml", sets: &[] },
                RunPlan { variant: "adaptive", scenario: "wf-congested.toml", sets: ADAPTIVE },
            ],
            needs: &[],
            judge: dynamics::congested,
            figures: Some(figures::table2_congested),
            note: "The first two checks reproduce their problem: with the fixed 1 s timeout the acker's RTT (tens of \
                   seconds: three 50 kbit/s links each hold up to 120 packets, 28.8 s each; median ACK delay above) \
                   keeps the timer firing about once a second, and the window sits at 1. The third fails, and the \
                   cause is a real difference between the draft's timeout rule, which Convoy follows, and the code \
                   Wang and Fahmy ran: on a timeout the draft sets W = T = 1 and sends a packet (draft §3, \
                   \"on timeout expiration\"), so a timer firing every second gives the session a floor of one 1400-byte \
                   packet per second — about 11 kbit/s, above its fair share of these 50 kbit/s links — whereas they \
                   describe their sender setting T to −1/(2W) on a timeout (WF §IV-A), which sends nothing until ACKs \
                   return tokens. With the adaptive timeout the session runs near its share (and the TCP flows get \
                   more); their own ×1 figures (PGM 3.95–4.26 kbit/s, TCP flow 4 1.39) are closer to Convoy's adaptive \
                   run than to its fixed one. A timeout writes off the packets still outstanding (their late ACKs \
                   return no tokens), as Rizzo's ns-2 code does at a stall.",
        },
        Experiment {
            id: "wf-medium",
            section: "Wang and Fahmy",
            source: "002_0af0101bb4f18a18.txt, §IV-B, Figs 12–13, Table II",
            claim: "With router links ×2.5 PGM and TCP flow 4 get similar goodput (4.77–4.91 vs 4.97 kbit/s); at \
                    ×3.5 PGM gets 22–22.4 kbit/s against TCP's 7.24 while the acker switches between PR3 and PR5; \
                    timeouts are still frequent.",
            runs: &[
                RunPlan { variant: "", scenario: "wf-medium.toml", sets: &[] },
                RunPlan { variant: "x2.5-adaptive", scenario: "wf-medium.toml", sets: ADAPTIVE },
                RunPlan { variant: "x3.5", scenario: "wf-medium.toml", sets: &["run.scale=3.5"] },
                RunPlan {
                    variant: "x3.5-adaptive",
                    scenario: "wf-medium.toml",
                    sets: &[
                        "run.scale=3.5",
                        "session.pgm.pgmcc.timeout=adaptive",
                        "session.pgm.pgmcc.reelect_after=2",
                    ],
                },
            ],
            needs: &[],
            judge: dynamics::medium,
            figures: None,
            note: "Reported only. With the fixed 1 s timeout Convoy's PGM runs at the one-packet-per-second floor \
                   the draft's timeout rule gives (see wf-congested), about 11 kbit/s, above their ×2.5 figures \
                   (4.77–4.91 kbit/s) and below their ×3.5 ones (22–22.4); with the adaptive timeout PGM and TCP flow \
                   4 come out close to each other, as in their ×2.5 run.",
        },
        Experiment {
            id: "wf-uncongested",
            section: "Wang and Fahmy",
            source: "002_0af0101bb4f18a18.txt, §IV-C, Figs 14–15, Table II",
            claim: "Without congestion (router links ×10, ×80) the acker switches back and forth between PR3 and \
                    PR5 (PR3 736 s, PR5 173 s) and PGM outperforms TCP flow 4 (74–76.6 vs ~7.8 kbit/s).",
            runs: &[
                RunPlan { variant: "", scenario: "wf-uncongested.toml", sets: &[] },
                RunPlan { variant: "x10-adaptive", scenario: "wf-uncongested.toml", sets: ADAPTIVE },
                RunPlan { variant: "x80", scenario: "wf-uncongested.toml", sets: &["run.scale=80"] },
                RunPlan {
                    variant: "x80-adaptive",
                    scenario: "wf-uncongested.toml",
                    sets: &[
                        "run.scale=80",
                        "session.pgm.pgmcc.timeout=adaptive",
                        "session.pgm.pgmcc.reelect_after=2",
                    ],
                },
            ],
            needs: &[],
            judge: dynamics::uncongested,
            figures: None,
            note: "Reported only, and different from the paper. At ×10 PR5, the receiver with the longest path and the \
                   most loss, holds the acker role for almost the whole run (acker time above; theirs: PR3 736 s, PR5 \
                   173 s); with the fixed timeout PGM runs at the draft's one-packet-per-second floor (see \
                   wf-congested), with the adaptive one near TCP flow 4 (goodput lines above; theirs: 74.15–76.56 vs \
                   ~7.8 kbit/s). At ×80 the router links (≥ 4 Mbit/s) are no bottleneck: every flow is held by its own \
                   150 kbit/s access link, nothing is lost, no NAK is sent and PR1, the first reporter, stays the \
                   acker. Their identical goodput at ×10 and ×80, with TCP flow 4 at ~7.8 kbit/s, means their flows \
                   shared a bottleneck that did not scale — something in their Fig. 8, which the seed text lacks, that \
                   this reconstruction (every host on its own access link) does not have.",
        },
        Experiment {
            id: "wf-switch-inflation",
            section: "Wang and Fahmy",
            source: "002_0af0101bb4f18a18.txt, §IV-A, Figs 9–11",
            claim: "After an acker switch the previous acker keeps sending ACKs until the packets sent before the \
                    switch have arrived; each ACK adds tokens, so the window opens between the initial switches \
                    and PGM sends more than TCP flow 4 in the first 50 s.",
            runs: &[
                RunPlan { variant: "", scenario: "wf-switch-inflation.toml", sets: &[] },
                RunPlan {
                    variant: "tokens-only",
                    scenario: "wf-switch-inflation.toml",
                    sets: &["session.pgm.pgmcc.old_acker_acks=tokens-only"],
                },
                RunPlan {
                    variant: "ignore",
                    scenario: "wf-switch-inflation.toml",
                    sets: &["session.pgm.pgmcc.old_acker_acks=ignore"],
                },
                RunPlan { variant: "adaptive", scenario: "wf-switch-inflation.toml", sets: ADAPTIVE },
                RunPlan {
                    variant: "first50",
                    scenario: "wf-switch-inflation.toml",
                    sets: &["run.duration=50s"],
                },
            ],
            needs: &[],
            judge: switch_inflation::switch_inflation,
            figures: Some(figures::fig11),
            note: "Their fixed-timeout model fails the window-growth check here: the acker's RTT exceeds 1 s within \
                   the first seconds (the queues of the 50 kbit/s links fill), so timeouts pin the window at 1 before \
                   the first switch and nothing can grow while the old acker's ACKs arrive — the old acker does keep \
                   ACKing after the switch (first check), as they observed. The adaptive-timeout variant above shows \
                   the switches without the timer in the way. The mitigation old_acker_acks = \"tokens-only\" lets the old \
                   acker's ACKs give back the tokens of the packets sent before the switch but never grow the window, \
                   so the window opens only on the new acker's path; its lines above show what that changes. Only \"ignore\" (the draft's pseudo-code) drops them. The first-50-s \
                   comparison is made at the senders: at the receivers little of either flow crosses the chain in 50 s \
                   (receiver-side line above), since a full 120-packet queue on a 50 kbit/s link holds 28.8 s.",
        },
    ]
}
