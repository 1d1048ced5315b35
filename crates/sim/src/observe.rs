//! What a run records: per-interval bins, controller samples, time–sequence traces. The model pushes facts here;
//! it never knows who reads them (architecture.md: observers).

use convoy_proto::Instant;
use std::time::Duration;

/// Values accumulated in fixed time bins.
#[derive(Clone, Debug, PartialEq)]
pub struct Bins {
    /// Bin width, nanoseconds (at least 1).
    interval_ns: u64,
    /// Sum per bin.
    pub sums: Vec<f64>,
}

impl Bins {
    /// Empty bins of width `interval`.
    pub fn new(interval: Duration) -> Self {
        Bins {
            interval_ns: (interval.as_nanos() as u64).max(1),
            sums: Vec::new(),
        }
    }

    /// Add `v` at time `t`.
    pub fn add(&mut self, t: Instant, v: f64) {
        let i = (t.as_nanos() / self.interval_ns) as usize;
        if self.sums.len() <= i {
            self.sums.resize(i + 1, 0.0);
        }
        self.sums[i] += v;
    }

    /// Pad with zero bins up to the end of the run.
    pub fn extend_to(&mut self, end: Instant) {
        let n = end.as_nanos().div_ceil(self.interval_ns) as usize;
        if self.sums.len() < n {
            self.sums.resize(n, 0.0);
        }
    }

    /// Per-bin rate: sum / interval.
    pub fn rates(&self) -> Vec<f64> {
        let w = self.interval_ns as f64 / 1e9;
        self.sums.iter().map(|s| s / w).collect()
    }
}

/// One sample of a congestion controller's state.
#[derive(Clone, Debug, PartialEq)]
pub struct CcSample {
    /// When.
    pub t: Instant,
    /// pgmcc window, packets.
    pub window: Option<f64>,
    /// pgmcc tokens, packets.
    pub tokens: Option<f64>,
    /// Rate controllers: bytes per second.
    pub rate: Option<f64>,
    /// Smoothed RTT to the acker, seconds.
    pub srtt: Option<f64>,
    /// The acker's reported loss.
    pub loss: Option<f64>,
    /// Index of the acker among the session's receivers.
    pub acker: Option<usize>,
}

/// A point of the papers' time–sequence plots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeqMark {
    /// Original data sent, sequence number.
    Data(u32),
    /// Repair sent.
    Repair(u32),
    /// ACK received, RX_MAX.
    Ack(u32),
    /// NAK received, requested sequence number.
    Nak(u32),
    /// Acker switched to the receiver with this index (u32::MAX: election requested).
    Switch(u32),
}

/// Time–sequence trace of one session, as seen at its sender.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SeqTrace {
    /// Marks in time order.
    pub marks: Vec<(Instant, SeqMark)>,
}
