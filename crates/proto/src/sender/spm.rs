//! When the source sends SPMs (RFC 3208 §6.1 "Source Path Messages").
//!
//! Three SPMs at session start (as OpenPGM does) so receivers learn the path NLA before data; ambient SPMs at a
//! fixed interval; heartbeat SPMs after data stops, starting at `heartbeat_min` and doubling up to
//! `heartbeat_max`, so receivers detect the loss of the last packets (their lead moves); an immediate SPM on SPMR
//! (§13.6), at most once per `heartbeat_min`; and after close, SPMs carry OPT_FIN (§9.7), three at once.

use crate::time::Instant;
use std::time::Duration;

/// SPM intervals.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpmIntervals {
    /// Ambient SPM interval.
    pub ambient: Duration,
    /// First heartbeat after data.
    pub heartbeat_min: Duration,
    /// Longest heartbeat interval.
    pub heartbeat_max: Duration,
}

impl Default for SpmIntervals {
    fn default() -> Self {
        SpmIntervals {
            ambient: Duration::from_secs(1),
            heartbeat_min: Duration::from_millis(50),
            heartbeat_max: Duration::from_secs(1),
        }
    }
}

/// SPM timing state.
#[derive(Clone, Debug)]
pub struct SpmSchedule {
    intervals: SpmIntervals,
    burst: u32,
    ambient_at: Instant,
    heartbeat: Option<(Instant, Duration)>,
    requested: bool,
    last_sent: Option<Instant>,
}

impl SpmSchedule {
    /// Three SPMs due at `now`.
    pub fn new(intervals: SpmIntervals, now: Instant) -> Self {
        SpmSchedule {
            intervals,
            burst: 3,
            ambient_at: now,
            heartbeat: None,
            requested: false,
            last_sent: None,
        }
    }

    /// When the next SPM is due.
    pub fn next_due(&self) -> Instant {
        if self.burst > 0 {
            return self.last_sent.unwrap_or(Instant::ZERO);
        }
        let mut due = self.ambient_at;
        if let Some((at, _)) = self.heartbeat {
            due = due.min(at);
        }
        if self.requested {
            let at = self
                .last_sent
                .map_or(Instant::ZERO, |t| t + self.intervals.heartbeat_min);
            due = due.min(at);
        }
        due
    }

    /// Whether an SPM is due at `now`.
    pub fn is_due(&self, now: Instant) -> bool {
        now >= self.next_due()
    }

    /// An SPM left at `now`.
    pub fn on_sent(&mut self, now: Instant) {
        self.last_sent = Some(now);
        self.requested = false;
        if self.burst > 0 {
            self.burst -= 1;
        }
        self.ambient_at = now + self.intervals.ambient;
        if let Some((at, ivl)) = self.heartbeat {
            if now >= at {
                let next = ivl * 2;
                self.heartbeat =
                    (next <= self.intervals.heartbeat_max).then_some((now + next, next));
            }
        }
    }

    /// Data left at `now`: restart heartbeats.
    pub fn on_data(&mut self, now: Instant) {
        let ivl = self.intervals.heartbeat_min;
        self.heartbeat = Some((now + ivl, ivl));
    }

    /// A receiver asked for an SPM (SPMR).
    pub fn request(&mut self) {
        self.requested = true;
    }

    /// The session is closing: send a burst of three (carrying OPT_FIN).
    pub fn finish(&mut self) {
        self.burst = 3;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_at_start_then_ambient() {
        let mut s = SpmSchedule::new(SpmIntervals::default(), Instant::ZERO);
        for _ in 0..3 {
            assert!(s.is_due(Instant::ZERO));
            s.on_sent(Instant::ZERO);
        }
        assert!(!s.is_due(Instant::ZERO));
        assert_eq!(s.next_due(), Instant::from_millis(1000));
    }

    #[test]
    fn rfc3208_6_1_heartbeats_double_after_data() {
        let mut s = SpmSchedule::new(SpmIntervals::default(), Instant::ZERO);
        for _ in 0..3 {
            s.on_sent(Instant::ZERO);
        }
        s.on_data(Instant::from_millis(10));
        let mut times = vec![];
        for _ in 0..6 {
            let t = s.next_due();
            times.push(t.as_nanos() / 1_000_000);
            s.on_sent(t);
        }
        assert_eq!(times, vec![60, 160, 360, 760, 1560, 2560]);
    }
}
