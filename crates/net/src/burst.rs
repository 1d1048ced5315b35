//! How many datagrams one UDP GSO send may carry: about a millisecond of data at the rate the source has
//! been sending, as Linux sizes TCP's segmentation offload bursts (`tcp_tso_autosize`: "about 1 ms of data
//! at the current pacing rate", at least one segment).
//!
//! A segmented send travels as one buffer through virtual links and queue disciplines (veth, bridges, `tbf`,
//! `fq_codel`) and is queued or dropped whole there, so a 64-datagram send into a 20 Mbit/s bottleneck is a
//! 3.7 ms burst that loses together. At a slow rate each send is a single datagram, as before GSO; at
//! loopback rates of Gbit/s a millisecond is hundreds of datagrams and the cap is the kernel's 64.

use convoy_proto::Instant;
use std::time::Duration;

/// The share of time a segmented send may take at the measured rate.
pub const BURST_TIME: Duration = Duration::from_millis(1);

/// The measuring window: the rate is bytes sent over the last completed window of at least this length.
const WINDOW: Duration = Duration::from_millis(10);

/// Measures the sending rate and sizes segmented sends from it.
#[derive(Clone, Debug)]
pub struct BurstSizer {
    window_start: Instant,
    window_bytes: u64,
    /// Bytes per second over the last completed window (0 before the first).
    rate: f64,
}

impl BurstSizer {
    /// No rate measured yet (sends are single datagrams until one is).
    pub fn new(now: Instant) -> Self {
        BurstSizer {
            window_start: now,
            window_bytes: 0,
            rate: 0.0,
        }
    }

    /// `bytes` were handed to the kernel at `now`.
    pub fn record(&mut self, now: Instant, bytes: u64) {
        let elapsed = now.saturating_duration_since(self.window_start);
        if elapsed >= WINDOW {
            self.rate = self.window_bytes as f64 / elapsed.as_secs_f64();
            self.window_start = now;
            self.window_bytes = 0;
        }
        self.window_bytes += bytes;
    }

    /// Bytes per second over the last completed window.
    pub fn rate(&self) -> f64 {
        self.rate
    }

    /// Most datagrams of `size` bytes one segmented send may carry: [`BURST_TIME`] at the measured rate,
    /// between 1 and `cap`.
    pub fn max_segments(&self, size: usize, cap: usize) -> usize {
        let fit = self.rate * BURST_TIME.as_secs_f64() / size.max(1) as f64;
        (fit as usize).clamp(1, cap.max(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Send `rate` bytes/s in 1464-byte datagrams for `ms` milliseconds, one every `rate`-th of a second.
    fn at_rate(sizer: &mut BurstSizer, start_ms: u64, ms: u64, rate: u64) {
        let gap_ns = 1464 * 1_000_000_000 / rate;
        let mut t = start_ms * 1_000_000;
        while t < (start_ms + ms) * 1_000_000 {
            sizer.record(Instant::from_nanos(t), 1464);
            t += gap_ns;
        }
    }

    #[test]
    fn a_millisecond_of_data_at_the_measured_rate() {
        let mut s = BurstSizer::new(Instant::ZERO);
        assert_eq!(s.max_segments(1464, 64), 1, "nothing measured yet");
        // 20 Mbit/s: 2500 bytes per millisecond, one datagram.
        at_rate(&mut s, 0, 50, 2_500_000);
        assert_eq!(s.max_segments(1464, 64), 1);
        // 200 Mbit/s: 25,000 bytes per millisecond, 17 datagrams.
        at_rate(&mut s, 50, 50, 25_000_000);
        assert_eq!(s.max_segments(1464, 64), 17);
        // 5 Gbit/s: the kernel's cap.
        at_rate(&mut s, 100, 50, 625_000_000);
        assert_eq!(s.max_segments(1464, 64), 64);
    }

    #[test]
    fn an_idle_spell_lowers_the_rate() {
        let mut s = BurstSizer::new(Instant::ZERO);
        at_rate(&mut s, 0, 50, 625_000_000);
        assert_eq!(s.max_segments(1464, 64), 64);
        // One datagram after a second of silence: the window that ends then held almost nothing.
        s.record(Instant::from_millis(1050), 1464);
        s.record(Instant::from_millis(1061), 1464);
        assert_eq!(s.max_segments(1464, 64), 1);
    }
}
