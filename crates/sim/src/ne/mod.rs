//! PGM network elements: routers that take part in PGM's feedback (RFC 3208 §7; pgmcc paper §3.1, §3.7;
//! Wang and Fahmy §III).
//!
//! A network element on the path of a NAK keeps repair state per (session, sequence number):
//! * it forwards the first NAK for a sequence number upstream and suppresses later ones until the repair
//!   passes (or the state expires);
//! * it confirms each NAK with an NCF sent back down the interface the NAK came from;
//! * it forwards RDATA only on the interfaces that asked for it;
//! * in the rx_loss-aware variant (pgmcc paper §3.7) it remembers the loss rate reported by the NAK it
//!   forwarded and forwards a later NAK for the same number if that one reports a higher loss.
//!
//! Report-only NAKs — pgmcc's election NAKs ("dummy" NAKs, draft §2.3.1), marked so by the scheme's options
//! (`convoy_wire::SchemeOptions::report_only`) — go through the same suppression ("the usual
//! feedback suppression mechanism"), but on state of their own: they ask for no repair, so they get no NCF and
//! never suppress, nor are suppressed by, a real NAK for the same sequence number, and RDATA ignores them.
//!
//! Modelling choice: NAKs travel towards the source's address and every element on the path intercepts them,
//! which is what PGM's hop-by-hop NAK forwarding along the SPM path achieves; SPM path NLAs are not rewritten.
//! Each behaviour can be switched off.

mod packets;

pub use packets::{rdata_key, NakPacket};

use crate::ids::LinkId;
use convoy_proto::Instant;
use convoy_wire::Gsi;
use std::collections::{BTreeMap, VecDeque};
use std::time::Duration;

/// What a network element does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NeConfig {
    /// Forward only the first NAK per sequence number (RFC 3208 §7.1).
    pub suppress_naks: bool,
    /// Forward a later NAK whose reported loss is higher than the forwarded one's (pgmcc paper §3.7).
    pub rx_loss_aware: bool,
    /// Answer NAKs with NCFs (RFC 3208 §7.1).
    pub send_ncf: bool,
    /// Forward RDATA only where it was requested (RFC 3208 §7.3).
    pub selective_rdata: bool,
    /// How long repair state lives without the repair passing.
    pub state_lifetime: Duration,
}

impl Default for NeConfig {
    fn default() -> Self {
        NeConfig {
            suppress_naks: true,
            rx_loss_aware: false,
            send_ncf: true,
            selective_rdata: true,
            state_lifetime: Duration::from_secs(5),
        }
    }
}

/// The key of repair state: the session (GSI, data-source port) and a sequence number.
pub type RepairKey = (Gsi, u16, u32);

/// The key of suppression state: repair state, or the election state of report-only NAKs (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct StateKey {
    repair: RepairKey,
    report_only: bool,
}

#[derive(Clone, Debug)]
struct Entry {
    created: Instant,
    forwarded_loss: Option<u16>,
    /// Links towards the receivers that asked.
    down: Vec<LinkId>,
}

/// Counters of a network element.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NeStats {
    /// NAKs forwarded upstream.
    pub naks_forwarded: u64,
    /// NAKs suppressed.
    pub naks_suppressed: u64,
    /// NAKs forwarded only because they reported a higher loss (rx_loss-aware variant).
    pub naks_forwarded_for_loss: u64,
    /// NCFs sent.
    pub ncfs: u64,
    /// RDATA forwarded selectively.
    pub rdata_selective: u64,
    /// RDATA without repair state (flooded down the tree).
    pub rdata_unsolicited: u64,
}

/// One element's state.
#[derive(Clone, Debug)]
pub struct NetworkElement {
    /// Its behaviour.
    pub config: NeConfig,
    entries: BTreeMap<StateKey, Entry>,
    expiry: VecDeque<(Instant, StateKey)>,
    /// Counters.
    pub stats: NeStats,
}

/// A NAK as a network element sees it.
#[derive(Clone, Copy, Debug)]
pub struct NakSeen<'a> {
    /// The session's GSI.
    pub gsi: Gsi,
    /// The session's data-source port (the NAK's destination port).
    pub port: u16,
    /// Requested sequence numbers (the NAK's own and its OPT_NAK_LIST).
    pub sqns: &'a [u32],
    /// The link back towards the receiver that sent it.
    pub down: LinkId,
    /// The loss rate of its receiver report.
    pub loss: Option<u16>,
    /// A report-only NAK (pgmcc's election NAK): it asks for no repair.
    pub report_only: bool,
}

/// What to do with a NAK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NakDecision {
    /// Forward it upstream.
    pub forward: bool,
    /// Send an NCF back.
    pub ncf: bool,
}

impl NetworkElement {
    /// An element with no state.
    pub fn new(config: NeConfig) -> Self {
        NetworkElement {
            config,
            entries: BTreeMap::new(),
            expiry: VecDeque::new(),
            stats: NeStats::default(),
        }
    }

    fn expire(&mut self, now: Instant) {
        while let Some(&(t, key)) = self.expiry.front() {
            if now < t + self.config.state_lifetime {
                break;
            }
            self.expiry.pop_front();
            if self.entries.get(&key).is_some_and(|e| e.created == t) {
                self.entries.remove(&key);
            }
        }
    }

    /// A NAK arrived.
    pub fn on_nak(&mut self, now: Instant, nak: &NakSeen<'_>) -> NakDecision {
        let NakSeen {
            gsi,
            port,
            sqns,
            down,
            loss,
            report_only,
        } = *nak;
        self.expire(now);
        let mut any_new = false;
        let mut higher_loss = false;
        for &sqn in sqns {
            let key = StateKey {
                repair: (gsi, port, sqn),
                report_only,
            };
            match self.entries.get_mut(&key) {
                None => {
                    any_new = true;
                    self.entries.insert(
                        key,
                        Entry {
                            created: now,
                            forwarded_loss: loss,
                            down: vec![down],
                        },
                    );
                    self.expiry.push_back((now, key));
                }
                Some(e) => {
                    if !e.down.contains(&down) {
                        e.down.push(down);
                    }
                    if self.config.rx_loss_aware && loss > e.forwarded_loss {
                        higher_loss = true;
                        e.forwarded_loss = loss;
                    }
                }
            }
        }
        let forward = !self.config.suppress_naks || any_new || higher_loss;
        if forward {
            self.stats.naks_forwarded += 1;
            if !any_new && higher_loss && self.config.suppress_naks {
                self.stats.naks_forwarded_for_loss += 1;
            }
        } else {
            self.stats.naks_suppressed += 1;
        }
        let ncf = self.config.send_ncf && !report_only;
        if ncf {
            self.stats.ncfs += 1;
        }
        NakDecision { forward, ncf }
    }

    /// RDATA for `sqn` passes: the links to forward it on (`None` = no state, follow the whole tree). The
    /// repair state is consumed.
    pub fn on_rdata(&mut self, now: Instant, gsi: Gsi, port: u16, sqn: u32) -> Option<Vec<LinkId>> {
        self.expire(now);
        let key = StateKey {
            repair: (gsi, port, sqn),
            report_only: false,
        };
        if !self.config.selective_rdata {
            self.entries.remove(&key);
            return None;
        }
        match self.entries.remove(&key) {
            Some(e) => {
                self.stats.rdata_selective += 1;
                Some(e.down)
            }
            None => {
                self.stats.rdata_unsolicited += 1;
                None
            }
        }
    }

    /// Repair states held now (election suppression state not counted).
    pub fn state_count(&self) -> usize {
        self.entries.keys().filter(|k| !k.report_only).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const G: Gsi = Gsi([1, 2, 3, 4, 5, 6]);

    #[test]
    fn rfc3208_first_nak_forwarded_later_suppressed_until_repair() {
        let mut ne = NetworkElement::new(NeConfig::default());
        let t = Instant::ZERO;
        assert_eq!(
            ne.on_nak(
                t,
                &NakSeen {
                    gsi: G,
                    port: 9,
                    sqns: &[5],
                    down: LinkId(1),
                    loss: Some(100),
                    report_only: false
                }
            ),
            NakDecision {
                forward: true,
                ncf: true
            }
        );
        assert_eq!(
            ne.on_nak(
                t,
                &NakSeen {
                    gsi: G,
                    port: 9,
                    sqns: &[5],
                    down: LinkId(2),
                    loss: Some(100),
                    report_only: false
                }
            ),
            NakDecision {
                forward: false,
                ncf: true
            }
        );
        // Repair goes only where it was asked for.
        assert_eq!(ne.on_rdata(t, G, 9, 5), Some(vec![LinkId(1), LinkId(2)]));
        // State consumed: the next NAK is forwarded again.
        assert!(
            ne.on_nak(
                t,
                &NakSeen {
                    gsi: G,
                    port: 9,
                    sqns: &[5],
                    down: LinkId(2),
                    loss: Some(100),
                    report_only: false
                }
            )
            .forward
        );
    }

    #[test]
    fn paper_3_7_higher_rx_loss_passes_suppression() {
        let mut ne = NetworkElement::new(NeConfig {
            rx_loss_aware: true,
            ..NeConfig::default()
        });
        let t = Instant::ZERO;
        assert!(
            ne.on_nak(
                t,
                &NakSeen {
                    gsi: G,
                    port: 9,
                    sqns: &[5],
                    down: LinkId(1),
                    loss: Some(1000),
                    report_only: false
                }
            )
            .forward
        );
        assert!(
            !ne.on_nak(
                t,
                &NakSeen {
                    gsi: G,
                    port: 9,
                    sqns: &[5],
                    down: LinkId(2),
                    loss: Some(900),
                    report_only: false
                }
            )
            .forward
        );
        assert!(
            ne.on_nak(
                t,
                &NakSeen {
                    gsi: G,
                    port: 9,
                    sqns: &[5],
                    down: LinkId(2),
                    loss: Some(3000),
                    report_only: false
                }
            )
            .forward
        );
        assert!(
            !ne.on_nak(
                t,
                &NakSeen {
                    gsi: G,
                    port: 9,
                    sqns: &[5],
                    down: LinkId(3),
                    loss: Some(2000),
                    report_only: false
                }
            )
            .forward
        );
        assert_eq!(ne.stats.naks_forwarded_for_loss, 1);
    }

    #[test]
    fn plain_suppression_ignores_loss() {
        let mut ne = NetworkElement::new(NeConfig::default());
        let t = Instant::ZERO;
        ne.on_nak(
            t,
            &NakSeen {
                gsi: G,
                port: 9,
                sqns: &[5],
                down: LinkId(1),
                loss: Some(1000),
                report_only: false,
            },
        );
        assert!(
            !ne.on_nak(
                t,
                &NakSeen {
                    gsi: G,
                    port: 9,
                    sqns: &[5],
                    down: LinkId(2),
                    loss: Some(60_000),
                    report_only: false
                }
            )
            .forward
        );
    }

    #[test]
    fn state_expires() {
        let mut ne = NetworkElement::new(NeConfig::default());
        ne.on_nak(
            Instant::ZERO,
            &NakSeen {
                gsi: G,
                port: 9,
                sqns: &[5],
                down: LinkId(1),
                loss: None,
                report_only: false,
            },
        );
        assert!(
            !ne.on_nak(
                Instant::from_millis(4000),
                &NakSeen {
                    gsi: G,
                    port: 9,
                    sqns: &[5],
                    down: LinkId(1),
                    loss: None,
                    report_only: false
                }
            )
            .forward
        );
        assert!(
            ne.on_nak(
                Instant::from_millis(5001),
                &NakSeen {
                    gsi: G,
                    port: 9,
                    sqns: &[5],
                    down: LinkId(1),
                    loss: None,
                    report_only: false
                }
            )
            .forward
        );
    }

    #[test]
    fn election_naks_get_no_ncf_and_switches_work() {
        let mut ne = NetworkElement::new(NeConfig {
            send_ncf: false,
            suppress_naks: false,
            ..NeConfig::default()
        });
        let d = ne.on_nak(
            Instant::ZERO,
            &NakSeen {
                gsi: G,
                port: 9,
                sqns: &[5],
                down: LinkId(1),
                loss: None,
                report_only: true,
            },
        );
        assert_eq!(
            d,
            NakDecision {
                forward: true,
                ncf: false
            }
        );
        assert!(
            ne.on_nak(
                Instant::ZERO,
                &NakSeen {
                    gsi: G,
                    port: 9,
                    sqns: &[5],
                    down: LinkId(1),
                    loss: None,
                    report_only: false
                }
            )
            .forward
        );
    }

    fn nak(ne: &mut NetworkElement, t: Instant, down: u32, report_only: bool) -> NakDecision {
        ne.on_nak(
            t,
            &NakSeen {
                gsi: G,
                port: 9,
                sqns: &[7],
                down: LinkId(down),
                loss: Some(100),
                report_only,
            },
        )
    }

    #[test]
    fn draft_2_3_1_election_naks_leave_no_repair_state() {
        let mut ne = NetworkElement::new(NeConfig::default());
        let t = Instant::ZERO;
        // The first election NAK goes up without an NCF; a second one for the same packet is suppressed.
        let first = nak(&mut ne, t, 1, true);
        assert_eq!((first.forward, first.ncf), (true, false));
        assert!(!nak(&mut ne, t, 2, true).forward);
        assert_eq!(ne.state_count(), 0, "no repair state");
        // A receiver that really lost packet 7 is neither suppressed nor NCF-less.
        let real = nak(&mut ne, t, 3, false);
        assert_eq!((real.forward, real.ncf), (true, true));
        // The repair goes down only where it was asked for.
        assert_eq!(ne.on_rdata(t, G, 9, 7), Some(vec![LinkId(3)]));
    }
}
