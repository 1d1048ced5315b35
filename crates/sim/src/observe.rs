//! What a run records: per-interval bins, controller samples, time–sequence traces. The model pushes facts here;
//! it never knows who reads them (docs/architecture.md, "sim": observers).

use convoy_proto::Instant;
use std::time::Duration;

/// Values accumulated in fixed time bins.
///
/// Values arrive in time order, so the bin being filled is kept beside the vector (the *open* bin): adding to it
/// touches neither the vector nor a division. A 1000-receiver fan-out adds to 1000 receivers' bins per packet,
/// and the vector of each would otherwise be one more cache line to fetch. Sums are the same, value for value,
/// as adding into the vector directly.
// What every value added reads comes first (`repr(C)`): the open bin's span and sum, in one cache line of its
// holder when the bins are placed there.
#[derive(Clone, Debug)]
#[repr(C)]
pub struct Bins {
    /// The bin last added to, if any.
    open: Option<OpenBin>,
    /// Bin width, nanoseconds (at least 1).
    interval_ns: u64,
    /// Sums of the bins before the open one.
    closed: Vec<f64>,
}

/// The bin being filled: its span in nanoseconds, its sum so far, its index.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
struct OpenBin {
    start_ns: u64,
    end_ns: u64,
    sum: f64,
    index: usize,
}

impl PartialEq for Bins {
    fn eq(&self, other: &Self) -> bool {
        self.interval_ns == other.interval_ns && self.sums() == other.sums()
    }
}

impl Bins {
    /// Empty bins of width `interval`.
    pub fn new(interval: Duration) -> Self {
        Bins {
            interval_ns: (interval.as_nanos() as u64).max(1),
            closed: Vec::new(),
            open: None,
        }
    }

    /// Add `v` at time `t`.
    // Nearly every call adds to the open bin: that test is inlined into the callers, the rest is not.
    #[inline]
    pub fn add(&mut self, t: Instant, v: f64) {
        let ns = t.as_nanos();
        if let Some(open) = &mut self.open {
            if ns >= open.start_ns && ns < open.end_ns {
                open.sum += v;
                return;
            }
        }
        self.add_outside_open(ns, v);
    }

    /// Add `v` at `ns`, outside the open bin: to an earlier bin, or to a new open bin.
    #[inline(never)]
    fn add_outside_open(&mut self, ns: u64, v: f64) {
        let i = (ns / self.interval_ns) as usize;
        match self.open {
            // An earlier bin (values out of time order): added where it is.
            Some(open) if i < open.index => self.closed[i] += v,
            _ => {
                self.close();
                self.closed.resize(i, 0.0);
                let start_ns = i as u64 * self.interval_ns;
                let mut sum = 0.0;
                sum += v;
                self.open = Some(OpenBin {
                    index: i,
                    start_ns,
                    end_ns: start_ns.saturating_add(self.interval_ns),
                    sum,
                });
            }
        }
    }

    /// Move the open bin into `closed`.
    fn close(&mut self) {
        if let Some(open) = self.open.take() {
            self.closed.resize(open.index, 0.0);
            self.closed.push(open.sum);
        }
    }

    /// Sum per bin, from the first to the last added to (or padded to).
    pub fn sums(&self) -> Vec<f64> {
        let mut all = self.clone();
        all.close();
        all.closed
    }

    /// Pad with zero bins up to the end of the run.
    pub fn extend_to(&mut self, end: Instant) {
        self.close();
        let n = end.as_nanos().div_ceil(self.interval_ns) as usize;
        if self.closed.len() < n {
            self.closed.resize(n, 0.0);
        }
    }

    /// Per-bin rate: sum / interval.
    pub fn rates(&self) -> Vec<f64> {
        let w = self.interval_ns as f64 / 1e9;
        self.sums().iter().map(|s| s / w).collect()
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The open bin gives exactly the sums of adding into a vector, in time order or not.
    #[test]
    fn sums_equal_adding_into_a_vector() {
        let interval = Duration::from_millis(10);
        let mut bins = Bins::new(interval);
        let mut reference: Vec<f64> = Vec::new();
        let adds = [
            (3u64, 0.1),
            (5, 0.2),
            (12, 1.5),
            (47, 0.3),
            (8, 0.7),
            (47, 2.0),
            (95, 1e-9),
        ];
        for (ms, v) in adds {
            bins.add(Instant::from_millis(ms), v);
            let i = (ms / 10) as usize;
            if reference.len() <= i {
                reference.resize(i + 1, 0.0);
            }
            reference[i] += v;
            assert_eq!(bins.sums(), reference);
        }
        bins.extend_to(Instant::from_millis(200));
        reference.resize(20, 0.0);
        assert_eq!(bins.sums(), reference);
        assert_eq!(bins.rates()[1], 150.0);
    }
}
