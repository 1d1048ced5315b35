//! Queue disciplines: drop-tail in packets or bytes, and RED (Floyd and Jacobson, 1993) with the "gentle"
//! variant (Floyd, 2000).
//!
//! A queue here decides only *whether* an arriving packet is admitted; the link keeps the FIFO order and the
//! timing (see [`crate::link`]). Occupancy counts packets (or bytes) waiting, excluding the one being
//! serialised, as ns-2's and ns-3's device queues do.

use crate::seed::unit;
use crate::time_util::secs;
use convoy_proto::Instant;
use rand_chacha::ChaCha8Rng;
use std::time::Duration;

/// The unit of a queue limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// At most this many packets waiting.
    Packets(u32),
    /// At most this many bytes waiting.
    Bytes(u64),
}

/// RED parameters (thresholds in the unit of the queue's limit).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RedConfig {
    /// Minimum threshold of the average queue.
    pub min_th: f64,
    /// Maximum threshold of the average queue.
    pub max_th: f64,
    /// EWMA weight of the average queue (w_q).
    pub weight: f64,
    /// Drop probability at `max_th`.
    pub max_p: f64,
    /// Gentle RED: probability rises from `max_p` to 1 between `max_th` and 2·`max_th`.
    pub gentle: bool,
}

/// A queue discipline.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum QueueConfig {
    /// Drop-tail FIFO.
    DropTail(Limit),
    /// RED in front of a hard limit.
    Red(Limit, RedConfig),
}

impl Limit {
    /// Whether a packet of `size` bytes finds the queue full when `waiting_pkts` / `waiting_bytes` wait.
    pub fn is_full(self, size: u32, waiting_pkts: u32, waiting_bytes: u64) -> bool {
        match self {
            Limit::Packets(n) => waiting_pkts >= n,
            Limit::Bytes(n) => waiting_bytes + u64::from(size) > n,
        }
    }
}

impl QueueConfig {
    /// The hard limit.
    pub fn limit(&self) -> Limit {
        match self {
            QueueConfig::DropTail(l) | QueueConfig::Red(l, _) => *l,
        }
    }
}

/// RED's running state.
#[derive(Clone, Debug, Default)]
struct RedState {
    avg: f64,
    count: i64,
    idle_since: Option<Instant>,
}

/// Why a packet was not admitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Admitted.
    Admit,
    /// The hard limit was reached.
    Overflow,
    /// RED dropped it early.
    EarlyDrop,
}

/// A queue discipline with its state.
#[derive(Clone, Debug)]
pub struct Queue {
    config: QueueConfig,
    red: RedState,
}

impl Queue {
    /// A fresh queue.
    pub fn new(config: QueueConfig) -> Self {
        Queue {
            config,
            red: RedState::default(),
        }
    }

    /// Its configuration.
    pub fn config(&self) -> &QueueConfig {
        &self.config
    }

    /// Decide on a packet of `size` bytes arriving at `now` when `waiting_pkts` / `waiting_bytes` wait.
    /// `tx_time` is the serialisation time of a typical packet (RED's idle-time correction).
    pub fn admit(
        &mut self,
        now: Instant,
        size: u32,
        waiting_pkts: u32,
        waiting_bytes: u64,
        tx_time: Duration,
        rng: &mut ChaCha8Rng,
    ) -> Verdict {
        let limit = self.config.limit();
        let full = limit.is_full(size, waiting_pkts, waiting_bytes);
        let QueueConfig::Red(_, red) = self.config else {
            return if full {
                Verdict::Overflow
            } else {
                Verdict::Admit
            };
        };
        let q = match limit {
            Limit::Packets(_) => f64::from(waiting_pkts),
            Limit::Bytes(_) => waiting_bytes as f64,
        };
        let state = &mut self.red;
        // Average queue (Floyd & Jacobson §4): after an idle period, decay as if m small packets had passed.
        if q == 0.0 {
            if let Some(since) = state.idle_since {
                let m = secs(now - since) / secs(tx_time).max(1e-12);
                state.avg *= (1.0 - red.weight).powf(m);
            }
        }
        state.avg = (1.0 - red.weight) * state.avg + red.weight * q;
        if waiting_pkts == 0 {
            state.idle_since = Some(now);
        } else {
            state.idle_since = None;
        }
        if full {
            state.count = 0;
            return Verdict::Overflow;
        }
        let avg = state.avg;
        let pb = if avg < red.min_th {
            state.count = -1;
            return Verdict::Admit;
        } else if avg < red.max_th {
            red.max_p * (avg - red.min_th) / (red.max_th - red.min_th)
        } else if red.gentle && avg < 2.0 * red.max_th {
            red.max_p + (1.0 - red.max_p) * (avg - red.max_th) / red.max_th
        } else {
            state.count = 0;
            return Verdict::EarlyDrop;
        };
        // Uniformly spaced drops (§4 "count"): with `count` packets admitted since the last drop,
        // pa = pb / (1 − count·pb), so the gap between drops is uniform on {1, …, 1/pb}.
        let count = state.count.max(0);
        let denom = 1.0 - count as f64 * pb;
        let pa = if denom <= 0.0 {
            1.0
        } else {
            (pb / denom).min(1.0)
        };
        if unit(rng) < pa {
            state.count = 0;
            Verdict::EarlyDrop
        } else {
            state.count = count + 1;
            Verdict::Admit
        }
    }

    /// RED's average queue (0 for drop-tail).
    pub fn red_average(&self) -> f64 {
        self.red.avg
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seed::component_rng;

    #[test]
    fn drop_tail_by_packets() {
        let mut q = Queue::new(QueueConfig::DropTail(Limit::Packets(3)));
        let mut rng = component_rng(1, "q");
        let t = Duration::from_millis(1);
        assert_eq!(
            q.admit(Instant::ZERO, 1000, 2, 2000, t, &mut rng),
            Verdict::Admit
        );
        assert_eq!(
            q.admit(Instant::ZERO, 1000, 3, 3000, t, &mut rng),
            Verdict::Overflow
        );
    }

    #[test]
    fn drop_tail_by_bytes() {
        let mut q = Queue::new(QueueConfig::DropTail(Limit::Bytes(30_000)));
        let mut rng = component_rng(1, "q");
        let t = Duration::from_millis(1);
        assert_eq!(
            q.admit(Instant::ZERO, 1500, 19, 28_500, t, &mut rng),
            Verdict::Admit
        );
        assert_eq!(
            q.admit(Instant::ZERO, 1500, 20, 29_000, t, &mut rng),
            Verdict::Overflow
        );
        // A small packet still fits where a large one does not.
        assert_eq!(
            q.admit(Instant::ZERO, 40, 20, 29_000, t, &mut rng),
            Verdict::Admit
        );
    }

    fn red(gentle: bool) -> Queue {
        Queue::new(QueueConfig::Red(
            Limit::Packets(100),
            RedConfig {
                min_th: 5.0,
                max_th: 15.0,
                weight: 1.0,
                max_p: 0.1,
                gentle,
            },
        ))
    }

    /// Measured early-drop rate at a fixed average queue (weight 1: the average is the instantaneous queue).
    fn drop_rate(q: &mut Queue, queue: u32) -> f64 {
        let mut rng = component_rng(3, "red");
        let n = 200_000;
        let drops = (0..n)
            .filter(|_| {
                q.admit(
                    Instant::ZERO,
                    1000,
                    queue,
                    0,
                    Duration::from_millis(1),
                    &mut rng,
                ) == Verdict::EarlyDrop
            })
            .count();
        drops as f64 / n as f64
    }

    #[test]
    fn red_drop_probability_follows_the_thresholds() {
        assert_eq!(drop_rate(&mut red(false), 4), 0.0);
        // At avg = 10, pb = 0.05; gaps uniform on {1..20} give a drop rate of 2pb/(1 + pb) ≈ 0.095.
        let r = drop_rate(&mut red(false), 10);
        assert!((r - 2.0 * 0.05 / 1.05).abs() < 0.005, "{r}");
        assert_eq!(drop_rate(&mut red(false), 20), 1.0);
        // Just above max_th: plain RED drops everything, gentle RED has pb = 0.1 + 0.9 · 1/15 = 0.16,
        // i.e. a drop rate near 2pb/(1 + pb) = 0.276.
        assert_eq!(drop_rate(&mut red(false), 16), 1.0);
        let g = drop_rate(&mut red(true), 16);
        assert!((g - 0.276).abs() < 0.02, "{g}");
        assert_eq!(drop_rate(&mut red(true), 31), 1.0);
    }

    #[test]
    fn red_average_is_an_ewma() {
        let mut q = Queue::new(QueueConfig::Red(
            Limit::Packets(100),
            RedConfig {
                min_th: 5.0,
                max_th: 15.0,
                weight: 0.002,
                max_p: 0.1,
                gentle: false,
            },
        ));
        let mut rng = component_rng(1, "q");
        for _ in 0..5000 {
            q.admit(
                Instant::ZERO,
                1000,
                10,
                0,
                Duration::from_millis(1),
                &mut rng,
            );
        }
        assert!((q.red_average() - 10.0).abs() < 0.01);
    }
}
