//! Acker election and tracking (paper §3.5–3.6, draft §2.3–2.4).
//!
//! The sender keeps the last known operating point (RTT, loss) of the current acker only — constant state, as the
//! paper requires — and compares every other report against it: receiver j replaces the acker when
//! T_j < c·T_acker. A switch is a *move* of the acker, never a congestion signal (paper §3.5).

use crate::throughput::ThroughputModel;
use std::net::IpAddr;

/// The current acker and its last operating point.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Acker {
    id: IpAddr,
    rtt: Option<f64>,
    loss: f64,
}

/// What a report did to the election.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElectionOutcome {
    /// There was no acker; the reporter is now the acker (initial election, paper §3.6).
    Elected,
    /// The reporter replaced `from` (T_j < c·T_acker).
    Switched {
        /// The previous acker.
        from: IpAddr,
    },
    /// The report came from the acker and refreshed its operating point.
    Refreshed,
    /// Nothing changed.
    Kept,
}

/// Acker selection state.
#[derive(Clone, Debug)]
pub struct AckerElection {
    c: f64,
    model: ThroughputModel,
    acker: Option<Acker>,
    switches: u64,
}

impl AckerElection {
    /// No acker yet; switch threshold `c` (paper §3.5, 0 < c ≤ 1) and the throughput `model`.
    pub fn new(c: f64, model: ThroughputModel) -> Self {
        AckerElection {
            c,
            model,
            acker: None,
            switches: 0,
        }
    }

    /// The current acker.
    pub fn acker(&self) -> Option<IpAddr> {
        self.acker.map(|a| a.id)
    }

    /// The acker's last reported loss rate.
    pub fn acker_loss(&self) -> Option<f64> {
        self.acker.map(|a| a.loss)
    }

    /// Acker switches so far (the initial election is not a switch).
    pub fn switches(&self) -> u64 {
        self.switches
    }

    /// Forget the acker: the next data packet asks for an election (draft §2.3.2 leaving, §2.7 timeouts).
    pub fn clear(&mut self) -> Option<IpAddr> {
        self.acker.take().map(|a| a.id)
    }

    /// Make `id` the acker whatever the throughput comparison says: during the start-up, before any loss rate
    /// can be compared, the receiver whose path delivers the least (module `startup`).
    pub fn appoint(&mut self, id: IpAddr, rtt: Option<f64>, loss: f64) -> ElectionOutcome {
        let new = Acker { id, rtt, loss };
        match self.acker.replace(new) {
            None => ElectionOutcome::Elected,
            Some(old) if old.id == id => ElectionOutcome::Refreshed,
            Some(old) => {
                self.switches += 1;
                ElectionOutcome::Switched { from: old.id }
            }
        }
    }

    /// A report from `id` with round-trip time `rtt` (seconds, or packets with sequence-number RTT; `None` when
    /// not measurable) and loss rate `loss` in [0, 1]. `lossless_floor`: under
    /// [`super::LosslessAcker::AtSendingRate`], the rate in packets per second the session sends at, which an
    /// acker that has lost nothing is known to receive.
    pub fn on_report(
        &mut self,
        id: IpAddr,
        rtt: Option<f64>,
        loss: f64,
        lossless_floor: Option<f64>,
    ) -> ElectionOutcome {
        let Some(acker) = self.acker.as_mut() else {
            self.acker = Some(Acker { id, rtt, loss });
            return ElectionOutcome::Elected;
        };
        if acker.id == id {
            if rtt.is_some() {
                acker.rtt = rtt;
            }
            acker.loss = loss;
            return ElectionOutcome::Refreshed;
        }
        let (Some(cand_rtt), Some(acker_rtt)) = (rtt, acker.rtt) else {
            // Without an RTT for both, the throughputs cannot be compared.
            return ElectionOutcome::Kept;
        };
        let switch = match lossless_floor.filter(|_| acker.loss <= 0.0) {
            Some(rate) => self.model.prefers_over_rate((cand_rtt, loss), rate, self.c),
            None => self
                .model
                .prefers((cand_rtt, loss), (acker_rtt, acker.loss), self.c),
        };
        if switch {
            let from = acker.id;
            *acker = Acker { id, rtt, loss };
            self.switches += 1;
            ElectionOutcome::Switched { from }
        } else {
            ElectionOutcome::Kept
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    fn ip(n: u8) -> IpAddr {
        IpAddr::V4(Ipv4Addr::new(10, 0, 0, n))
    }

    #[test]
    fn paper_3_6_first_reporter_becomes_acker() {
        let mut e = AckerElection::new(0.75, ThroughputModel::Draft);
        assert_eq!(
            e.on_report(ip(1), Some(0.1), 0.01, None),
            ElectionOutcome::Elected
        );
        assert_eq!(e.acker(), Some(ip(1)));
        assert_eq!(e.switches(), 0);
    }

    #[test]
    fn paper_3_5_switch_only_below_c_times_acker_throughput() {
        let mut e = AckerElection::new(0.75, ThroughputModel::Paper);
        e.on_report(ip(1), Some(0.1), 0.01, None);
        // Same RTT, loss 1.5×: throughput ratio 1/sqrt(1.5) = 0.816 > 0.75, keep.
        assert_eq!(e.on_report(ip(2), Some(0.1), 0.015, None), ElectionOutcome::Kept);
        // Loss 2×: ratio 0.707 < 0.75, switch.
        assert_eq!(
            e.on_report(ip(2), Some(0.1), 0.02, None),
            ElectionOutcome::Switched { from: ip(1) }
        );
        assert_eq!(e.acker(), Some(ip(2)));
        assert_eq!(e.switches(), 1);
    }

    #[test]
    fn paper_3_5_c_one_switches_on_any_worse_receiver() {
        let mut e = AckerElection::new(1.0, ThroughputModel::Paper);
        e.on_report(ip(1), Some(0.1), 0.01, None);
        assert!(matches!(
            e.on_report(ip(2), Some(0.101), 0.01, None),
            ElectionOutcome::Switched { .. }
        ));
    }

    #[test]
    fn paper_3_5_rtt_counts_not_only_loss() {
        let mut e = AckerElection::new(0.75, ThroughputModel::Draft);
        e.on_report(ip(1), Some(0.05), 0.02, None);
        // Lower loss but 4× the RTT: lower throughput, so it becomes acker.
        assert!(matches!(
            e.on_report(ip(2), Some(0.2), 0.01, None),
            ElectionOutcome::Switched { .. }
        ));
    }

    #[test]
    fn acker_reports_refresh_its_operating_point() {
        let mut e = AckerElection::new(0.75, ThroughputModel::Draft);
        e.on_report(ip(1), Some(0.1), 0.01, None);
        assert_eq!(
            e.on_report(ip(1), Some(0.1), 0.10, None),
            ElectionOutcome::Refreshed
        );
        assert_eq!(e.acker_loss(), Some(0.10));
        // Now a 5% receiver is better than the acker and does not win.
        assert_eq!(e.on_report(ip(2), Some(0.1), 0.05, None), ElectionOutcome::Kept);
    }

    #[test]
    fn a_lossless_acker_receives_at_least_the_sending_rate() {
        let mut e = AckerElection::new(0.75, ThroughputModel::Draft);
        // A receiver behind a slow link, lossless so far, acker while the session sends 800 packets/s.
        e.on_report(ip(1), Some(0.05), 0.0, None);
        // A fast receiver with a random loss: 1% on a 100 µs path is about 137,000 packets/s.
        assert!(
            matches!(e.on_report(ip(2), Some(0.0001), 0.01, None), ElectionOutcome::Switched { .. }),
            "by the equation alone p = 0 is infinite throughput (draft §2.4)"
        );
        let mut e = AckerElection::new(0.75, ThroughputModel::Draft);
        e.on_report(ip(1), Some(0.05), 0.0, None);
        assert_eq!(e.on_report(ip(2), Some(0.0001), 0.01, Some(800.0)), ElectionOutcome::Kept);
        // A receiver slower than 0.75 × 800 packets/s (40% loss on a 50 ms path: about 35) takes the role.
        assert!(matches!(
            e.on_report(ip(3), Some(0.05), 0.4, Some(800.0)),
            ElectionOutcome::Switched { .. }
        ));
        // Once the acker has lost something the equation speaks for it again.
        e.on_report(ip(3), Some(0.05), 0.01, Some(800.0));
        assert!(matches!(
            e.on_report(ip(1), Some(0.05), 0.02, Some(800.0)),
            ElectionOutcome::Switched { .. }
        ));
    }

    #[test]
    fn draft_2_3_2_clear_requests_new_election() {
        let mut e = AckerElection::new(0.75, ThroughputModel::Draft);
        e.on_report(ip(1), Some(0.1), 0.01, None);
        assert_eq!(e.clear(), Some(ip(1)));
        assert_eq!(e.on_report(ip(2), None, 0.0, None), ElectionOutcome::Elected);
    }
}
