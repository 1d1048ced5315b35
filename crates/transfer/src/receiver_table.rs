//! The source's table of receivers: each one's last status report (module `status` of the crate), what it
//! lacks, and which were shed for staying below the session's minimum rate ([`convoy_proto::sender::Shed`]).

use super::blocks;
use super::{status, ReceiverOutcome, MAX_RECEIVERS};
use convoy_proto::sender::{kbps, Shed};
use convoy_wire::BlockRange;
use std::collections::BTreeMap;
use std::net::IpAddr;

/// A receiver's last report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Report {
    pub(crate) token: u32,
    pub(crate) state: u32,
    pub(crate) detail: u32,
    /// With `status::NEEDS`: the blocks it lacks.
    pub(crate) needs: Vec<BlockRange>,
}

/// Receivers heard from.
#[derive(Debug, Default)]
pub(crate) struct Receivers {
    pub(crate) table: BTreeMap<IpAddr, Report>,
    cap_logged: bool,
    /// Receivers shed, with the rate each had.
    shed: BTreeMap<IpAddr, Shed>,
}

impl Receivers {
    /// Note a report; returns a log line when the cap is reached for the first time.
    pub(crate) fn note(&mut self, from: IpAddr, report: Report) -> Option<String> {
        if !self.table.contains_key(&from) && self.table.len() >= MAX_RECEIVERS {
            if !self.cap_logged {
                self.cap_logged = true;
                return Some(format!(
                    "receiver table full ({MAX_RECEIVERS}): ignoring reports from {from} and further new receivers"
                ));
            }
            return None;
        }
        self.table.insert(from, report);
        None
    }

    /// The source shed a receiver (`convoy send --min-rate`): it counts as finished, needs nothing more from
    /// this send, and is listed as "shed" unless it completed all the same.
    pub(crate) fn shed(&mut self, shed: Shed) {
        if !self.table.contains_key(&shed.receiver) && self.table.len() < MAX_RECEIVERS {
            let report = Report {
                token: 0,
                state: status::JOINED,
                detail: 0,
                needs: Vec::new(),
            };
            self.table.insert(shed.receiver, report);
        }
        self.shed.insert(shed.receiver, shed);
    }

    /// What a receiver is, as far as this transfer goes: "complete" or "failed" by its last report about it,
    /// "shed", or `other` (still going).
    fn state(
        &self,
        transfer_id: u32,
        addr: &IpAddr,
        r: &Report,
        other: &'static str,
    ) -> &'static str {
        match r.state {
            status::COMPLETE if r.token == transfer_id => "complete",
            _ if self.shed.contains_key(addr) => "shed",
            status::FAILED if r.token == transfer_id => "failed",
            _ => other,
        }
    }

    fn count(&self, transfer_id: u32, states: &[u32]) -> usize {
        self.table
            .iter()
            .filter(|(a, r)| {
                self.shed.contains_key(a) || (r.token == transfer_id && states.contains(&r.state))
            })
            .count()
    }

    /// Receivers done with this transfer: complete, failed or shed.
    pub(crate) fn finished(&self, transfer_id: u32) -> usize {
        self.count(transfer_id, &[status::COMPLETE, status::FAILED])
    }

    /// Receivers that said what they lack of this transfer (or that they need nothing more), and those shed.
    pub(crate) fn answered(&self, transfer_id: u32) -> usize {
        self.count(
            transfer_id,
            &[status::NEEDS, status::COMPLETE, status::FAILED],
        )
    }

    /// The union of what the receivers lack of blocks `0..total`: a receiver that did not answer lacks all, a
    /// shed one nothing.
    pub(crate) fn needs(&self, transfer_id: u32, total: u32) -> Vec<BlockRange> {
        let all = [BlockRange {
            first: 0,
            count: total,
        }];
        blocks::union(
            self.table.iter().map(|(a, r)| match r.state {
                _ if self.shed.contains_key(a) => &[][..],
                _ if r.token != transfer_id => &all[..],
                status::NEEDS => &r.needs[..],
                status::COMPLETE | status::FAILED => &[][..],
                _ => &all[..],
            }),
            total,
        )
    }

    /// Each receiver's state for the status file: joined (announced, or saying what it lacks), complete, failed
    /// or shed.
    pub(crate) fn states(&self, transfer_id: u32) -> Vec<(IpAddr, &'static str)> {
        self.table
            .iter()
            .map(|(addr, r)| (*addr, self.state(transfer_id, addr, r, "joined")))
            .collect()
    }

    /// Each receiver's outcome; a shed one's detail is the rate it had, kbit/s.
    pub(crate) fn outcomes(&self, transfer_id: u32) -> Vec<ReceiverOutcome> {
        self.table
            .iter()
            .map(|(addr, r)| {
                let state = self.state(transfer_id, addr, r, "incomplete");
                let detail = match self.shed.get(addr) {
                    Some(s) if state == "shed" => kbps(s.rate_bps),
                    _ => r.detail,
                };
                ReceiverOutcome {
                    addr: *addr,
                    state,
                    detail,
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    fn report(token: u32, state: u32) -> Report {
        Report {
            token,
            state,
            detail: 0,
            needs: Vec::new(),
        }
    }

    #[test]
    fn the_receiver_table_is_capped_with_one_log_line() {
        let mut r = Receivers::default();
        let ip = |i: u32| IpAddr::V4(Ipv4Addr::from(0x0a00_0000 + i));
        for i in 0..MAX_RECEIVERS as u32 {
            assert!(r.note(ip(i), report(1, status::JOINED)).is_none());
        }
        let line = r.note(ip(999_999), report(1, status::JOINED));
        assert!(line.is_some_and(|l| l.contains("receiver table full")));
        assert!(
            r.note(ip(999_998), report(1, status::JOINED)).is_none(),
            "logged once"
        );
        assert_eq!(r.table.len(), MAX_RECEIVERS);
        // Known receivers still update.
        r.note(ip(0), report(1, status::COMPLETE));
        assert_eq!(r.finished(1), 1);
        assert_eq!(
            r.finished(2),
            0,
            "reports about another transfer do not count"
        );
    }

    #[test]
    fn the_needs_are_the_union_and_silent_receivers_need_everything() {
        let mut r = Receivers::default();
        let ip = |i: u32| IpAddr::V4(Ipv4Addr::from(0x0a00_0000 + i));
        let needs = |first, count| Report {
            needs: vec![BlockRange { first, count }],
            ..report(7, status::NEEDS)
        };
        r.note(ip(1), needs(0, 2));
        r.note(ip(2), needs(5, 3));
        r.note(ip(3), report(7, status::COMPLETE));
        assert_eq!(r.answered(7), 3);
        assert_eq!(
            r.needs(7, 10),
            vec![
                BlockRange { first: 0, count: 2 },
                BlockRange { first: 5, count: 3 }
            ]
        );
        r.note(ip(4), report(7, status::JOINED));
        assert_eq!(r.answered(7), 3);
        assert_eq!(
            r.needs(7, 10),
            vec![BlockRange {
                first: 0,
                count: 10
            }]
        );
    }

    #[test]
    fn a_shed_receiver_is_finished_needs_nothing_and_is_listed_with_its_rate() {
        let mut r = Receivers::default();
        let ip = |i: u32| IpAddr::V4(Ipv4Addr::from(0x0a00_0000 + i));
        r.note(ip(1), report(7, status::JOINED));
        r.note(ip(2), report(7, status::COMPLETE));
        assert_eq!(r.finished(7), 1);
        r.shed(Shed {
            receiver: ip(1),
            rate_bps: 125_000.0,
            min_rate_bps: 1_250_000.0,
            below_for: std::time::Duration::from_secs(10),
        });
        r.shed(Shed {
            receiver: ip(3),
            rate_bps: 1.0,
            min_rate_bps: 1_250_000.0,
            below_for: std::time::Duration::from_secs(10),
        });
        assert_eq!(r.finished(7), 3, "shed receivers count as finished");
        assert_eq!(r.answered(7), 3);
        assert_eq!(
            r.needs(7, 10),
            vec![],
            "nothing is sent for a shed receiver"
        );
        let outcomes = r.outcomes(7);
        let states: Vec<(&str, u32)> = outcomes.iter().map(|o| (o.state, o.detail)).collect();
        assert_eq!(states, [("shed", 1000), ("complete", 0), ("shed", 0)]);
        r.note(ip(1), report(7, status::FAILED));
        assert_eq!(
            r.states(7)[0].1,
            "shed",
            "its goodbye does not hide the shed"
        );
    }
}
