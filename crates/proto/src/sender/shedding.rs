//! The session's minimum rate: shedding the receiver that would hold everyone down.
//!
//! A single-rate session runs at its slowest receiver's pace, by design. The TFMCC paper (Widmer & Handley,
//! §1) leaves the remedy to the application: "applications using a single-rate scheme would use
//! application-specific thresholds at which a receiver is compelled to leave". [`MinRate`] is that threshold:
//! a receiver whose rate, as the controller credits it in its reports ([`CcEvent::Report`]: pgmcc's TCP
//! equation at its loss and RTT, TFMCC's reported rate, aimd's capacity), stays below the minimum for the whole
//! grace period is shed. The source then
//!
//! 1. tells the controller to forget it ([`crate::cc::SenderController::forget`]: it stops being the acker,
//!    CLR or agent),
//! 2. hands none of its later feedback to the controller and answers none of its NAKs (so it can be neither
//!    elected again nor slow the others with repairs), and
//! 3. names it in 0x3E OPT_CONVOY_LEAVE ([`LeaveOption`]) on every SPM and, for [`ADVERTISE_FOR`] after the
//!    shed and after each packet it still sends, on every ODATA: a receiver that finds its own address there
//!    leaves ([`crate::ReceiverEvent::Shed`]).
//!
//! "Stays below" is judged on reports: the first report below the minimum starts the clock, any report at or
//! above it (or without a rate: pgmcc's receiver that has lost nothing is not slow) stops it, and the receiver
//! is shed at the first report below the minimum that comes `grace` or more after the clock started.

use crate::cc::CcEvent;
use crate::time::Instant;
use convoy_wire::LeaveOption;
use std::collections::BTreeMap;
use std::net::IpAddr;
use std::time::Duration;

/// How long the source names a shed receiver on every ODATA, after the shed and after each packet it still
/// sends: a receiver behind a slow path, most of whose packets its queue drops, still receives some of them.
pub const ADVERTISE_FOR: Duration = Duration::from_secs(2);

/// Receivers whose clock runs at once, at most: more reports below the minimum from new addresses wait until
/// some clock stops (a keyed session authenticates reports; this bounds what an unkeyed one can be made to keep).
pub const MAX_WATCHED: usize = 16_384;

/// The grace period when none is given (`convoy send --min-rate-grace`, a scenario's `min_rate_grace`).
pub const DEFAULT_GRACE: Duration = Duration::from_secs(10);

/// The session's minimum rate (`convoy send --min-rate RATE --min-rate-grace GRACE`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MinRate {
    /// The minimum, bytes per second (the controllers' unit).
    pub rate_bps: f64,
    /// How long a receiver's reports must stay below it.
    pub grace: Duration,
}

/// A receiver shed ([`crate::SenderEvent::Shed`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shed {
    /// The receiver.
    pub receiver: IpAddr,
    /// The rate its last report was credited with, bytes per second.
    pub rate_bps: f64,
    /// The session's minimum, bytes per second.
    pub min_rate_bps: f64,
    /// How long its reports had been below the minimum: from the first of them to the one that shed it.
    pub below_for: Duration,
}

/// A receiver shed: its rate when shed, and until when ODATA names it.
#[derive(Clone, Copy, Debug)]
struct ShedReceiver {
    rate_bps: f64,
    advertise_until: Instant,
}

/// The policy's state: which receivers are below the minimum since when, and which are shed.
#[derive(Clone, Debug)]
pub struct Shedding {
    policy: MinRate,
    below_since: BTreeMap<IpAddr, Instant>,
    shed: BTreeMap<IpAddr, ShedReceiver>,
    /// Where the rotation over shed receivers is (each packet names one).
    turn: usize,
}

impl Shedding {
    /// No receiver below the minimum yet.
    pub fn new(policy: MinRate) -> Self {
        Shedding {
            policy,
            below_since: BTreeMap::new(),
            shed: BTreeMap::new(),
            turn: 0,
        }
    }

    /// Whether `receiver` was shed.
    pub fn is_shed(&self, receiver: IpAddr) -> bool {
        self.shed.contains_key(&receiver)
    }

    /// How many receivers were shed.
    pub fn shed_count(&self) -> usize {
        self.shed.len()
    }

    /// Judge a controller event: a report that completes a grace period below the minimum sheds its receiver.
    pub fn on_event(&mut self, now: Instant, event: &CcEvent) -> Option<Shed> {
        let CcEvent::Report {
            receiver, rate_bps, ..
        } = *event
        else {
            return None;
        };
        if self.is_shed(receiver) {
            return None;
        }
        let rate = match rate_bps {
            Some(r) if r < self.policy.rate_bps => r,
            _ => {
                self.below_since.remove(&receiver);
                return None;
            }
        };
        if self.below_since.len() >= MAX_WATCHED && !self.below_since.contains_key(&receiver) {
            return None;
        }
        let since = *self.below_since.entry(receiver).or_insert(now);
        if now.saturating_duration_since(since) < self.policy.grace {
            return None;
        }
        self.below_since.remove(&receiver);
        self.shed.insert(
            receiver,
            ShedReceiver {
                rate_bps: rate,
                advertise_until: now + ADVERTISE_FOR,
            },
        );
        Some(Shed {
            receiver,
            rate_bps: rate,
            min_rate_bps: self.policy.rate_bps,
            below_for: now.saturating_duration_since(since),
        })
    }

    /// A packet came from `from`: if it was shed, it has not left yet, so ODATA names it again for
    /// [`ADVERTISE_FOR`]. True when it was shed (the caller then ignores its feedback).
    pub fn heard_from(&mut self, now: Instant, from: IpAddr) -> bool {
        match self.shed.get_mut(&from) {
            Some(s) => {
                s.advertise_until = s.advertise_until.max(now + ADVERTISE_FOR);
                true
            }
            None => false,
        }
    }

    /// The leave option for the next packet: on an SPM every shed receiver in turn, on ODATA those still being
    /// advertised.
    pub fn leave_option(&mut self, now: Instant, spm: bool) -> Option<LeaveOption> {
        // Called for every packet the source sends: counted and picked without collecting.
        let named = |s: &&ShedReceiver| spm || now < s.advertise_until;
        let count = self.shed.values().filter(named).count();
        if count == 0 {
            return None;
        }
        self.turn = self.turn.wrapping_add(1);
        let (addr, s) = self
            .shed
            .iter()
            .filter(|(_, s)| named(s))
            .nth(self.turn % count)?;
        Some(LeaveOption {
            min_rate_kbps: kbps(self.policy.rate_bps),
            rate_kbps: kbps(s.rate_bps),
            receiver: *addr,
        })
    }
}

/// Bytes per second in whole kbit/s, as the option carries them (saturating).
pub fn kbps(bytes_per_s: f64) -> u32 {
    (bytes_per_s * 8.0 / 1000.0)
        .round()
        .clamp(0.0, f64::from(u32::MAX)) as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    fn ip(n: u8) -> IpAddr {
        IpAddr::V4(Ipv4Addr::new(10, 0, 0, n))
    }

    fn at(ms: u64) -> Instant {
        Instant::from_nanos(ms * 1_000_000)
    }

    fn report(n: u8, rate: Option<f64>) -> CcEvent {
        CcEvent::Report {
            receiver: ip(n),
            loss: Some(0.1),
            rtt_s: Some(0.02),
            rate_bps: rate,
        }
    }

    fn policy() -> Shedding {
        Shedding::new(MinRate {
            rate_bps: 1_250_000.0,
            grace: Duration::from_secs(10),
        })
    }

    #[test]
    fn a_receiver_below_the_minimum_for_the_whole_grace_is_shed_at_its_next_report() {
        let mut s = policy();
        assert_eq!(s.on_event(at(0), &report(9, Some(125_000.0))), None);
        assert_eq!(s.on_event(at(9_999), &report(9, Some(120_000.0))), None);
        let shed = s.on_event(at(10_000), &report(9, Some(100_000.0))).unwrap();
        assert_eq!(shed.receiver, ip(9));
        assert_eq!(shed.rate_bps, 100_000.0);
        assert_eq!(shed.below_for, Duration::from_secs(10));
        assert!(s.is_shed(ip(9)));
        assert_eq!(s.on_event(at(20_000), &report(9, Some(1.0))), None, "once");
    }

    #[test]
    fn a_report_at_the_minimum_or_without_a_rate_restarts_the_clock() {
        let mut s = policy();
        s.on_event(at(0), &report(9, Some(125_000.0)));
        s.on_event(at(6_000), &report(9, Some(1_250_000.0)));
        assert_eq!(s.on_event(at(11_000), &report(9, Some(125_000.0))), None);
        s.on_event(at(15_000), &report(9, None));
        assert_eq!(s.on_event(at(21_000), &report(9, Some(125_000.0))), None);
        assert!(s
            .on_event(at(31_000), &report(9, Some(125_000.0)))
            .is_some());
        assert!(!s.is_shed(ip(2)));
    }

    #[test]
    fn odata_names_a_shed_receiver_while_it_is_still_heard_and_spms_always() {
        let mut s = policy();
        s.on_event(at(0), &report(9, Some(125_000.0)));
        s.on_event(at(10_000), &report(9, Some(125_000.0)));
        let o = s.leave_option(at(10_001), false).unwrap();
        assert_eq!(
            (o.receiver, o.min_rate_kbps, o.rate_kbps),
            (ip(9), 10_000, 1_000)
        );
        assert_eq!(
            s.leave_option(at(12_001), false),
            None,
            "{ADVERTISE_FOR:?} later"
        );
        assert!(
            s.leave_option(at(12_001), true).is_some(),
            "SPMs keep naming it"
        );
        assert!(s.heard_from(at(13_000), ip(9)));
        assert!(
            s.leave_option(at(14_999), false).is_some(),
            "heard again: named again"
        );
        assert!(!s.heard_from(at(13_000), ip(2)));
    }

    #[test]
    fn several_shed_receivers_take_turns() {
        let mut s = policy();
        for n in [7, 8] {
            s.on_event(at(0), &report(n, Some(1.0)));
            s.on_event(at(10_000), &report(n, Some(1.0)));
        }
        let named: Vec<IpAddr> = (0..4)
            .map(|_| s.leave_option(at(10_001), false).unwrap().receiver)
            .collect();
        assert_eq!(named, [ip(8), ip(7), ip(8), ip(7)]);
        assert_eq!(s.shed_count(), 2);
    }

    #[test]
    fn rates_go_on_the_wire_in_kbit_per_second() {
        assert_eq!(kbps(125.0), 1);
        assert_eq!(kbps(1e12), u32::MAX);
        assert_eq!(kbps(-1.0), 0);
    }
}
