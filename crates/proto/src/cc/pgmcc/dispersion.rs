//! What a receiver measures while the source's start-up runs: whether its path spreads the source's packets
//! out, and the rate at which it delivers them ([`ReceiveRateProbe`]). The sender's use of the reports is in
//! module `startup`.
//!
//! A source opening its window sends in bursts (two packets per acknowledged one, draft §2.2). A path whose
//! bottleneck is slower than what the source sends delivers a burst spread out to the bottleneck's rate: the
//! dispersion of a packet train. Over the last [`PROBE_PACKETS`] consecutive ODATA packets the receiver compares
//! the span of their arrivals with the span of the source's timestamps on them (OPT_PGMCC_DATA, draft §2.1.3;
//! the clocks' offset cancels in a difference). Arrivals spread over more than [`SPREAD`] times the sending span
//! plus one timestamp tick mean the path delivers less than the source sends, and
//! (packets − 1) / arrival span is the rate it delivers; a path as fast as the sender's pace keeps the spacing
//! and never reports. This is TFMCC's receive rate (RFC 4654 §4.3, "the rate at which data is received"),
//! measured over a few packets instead of an RTT that a pgmcc receiver does not know.
//!
//! A train counts only when each of its packets was seen at its own instant. A receiver that reads its socket
//! in batches (the real network's `recvmmsg`) stamps every packet of a batch with the time of the read: a
//! train that straddles two reads then spans the gap between the reads, not the path's spacing, and a fast
//! receiver that was busy for a moment would report a slow path (measured on the wire: reports of a few
//! thousand packets per second from receivers on a 1 Gbit/s bridge). Packets spread by a real bottleneck arrive
//! a transmission time apart and are read one by one.
//!
//! Bias: the first packet's arrival ends its own transmission, so the span holds (packets − 1) transmission
//! times and (packets − 1) / span is exactly the bottleneck rate when the train queues back to back; cross
//! traffic interleaved in the train lowers it, as it lowers what the path can give this session. With
//! [`PROBE_PACKETS`] = 4 a receiver behind a 10 Mbit/s link of 1500-byte packets knows within 3.6 ms of the
//! first burst.
//!
//! A receiver reports (OPT_CONVOY_RX_RATE) only a rate below [`REPORT_BELOW`] times the lowest rate the source
//! echoes (OPT_CONVOY_START_UP, 0 = none): TFMCC's suppression (RFC 4654 §4.4, only feedback that would lower
//! the echoed rate is sent), so receivers as fast as the slowest one stay silent. Its own last report holds it
//! back too, for [`REPEAT_AFTER`] packets: long enough not to repeat itself every train while the echo is on
//! its way, short enough that a report lost is sent again.

use crate::seq;
use crate::time::Instant;

/// Consecutive ODATA packets a measurement spans.
pub const PROBE_PACKETS: usize = 4;
/// Arrivals spread over more than this many times the sending span mean the path is slower than the sender.
pub const SPREAD: f64 = 1.25;
/// A report must lower the echoed rate (and, for a while, the receiver's last report) by at least this factor.
pub const REPORT_BELOW: f64 = 0.875;
/// Packets after a report during which the receiver's own report suppresses the same rate.
pub const REPEAT_AFTER: u32 = 16;

/// One ODATA packet as the probe remembers it.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Arrival {
    sqn: u32,
    /// The source's timestamp, in ticks.
    tstamp: u32,
    at: Instant,
}

/// The receiver's dispersion measurement during the source's start-up (module docs).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReceiveRateProbe {
    /// The last consecutive arrivals, oldest first, at most [`PROBE_PACKETS`].
    train: Vec<Arrival>,
    /// The last rate reported, packets per second, and the packets that arrived since.
    last_report: Option<(f64, u32)>,
}

impl ReceiveRateProbe {
    /// ODATA `sqn` stamped `tstamp` by the source (`ticks_per_second`) arrived `now`, while the source echoes
    /// `echoed` (packets per second, `None` before any report). Returns the receive rate to report, packets per
    /// second, when the path spreads the source's packets and the rate is below what is known (module docs).
    pub fn on_odata(
        &mut self,
        now: Instant,
        sqn: u32,
        tstamp: u32,
        ticks_per_second: u64,
        echoed: Option<f64>,
    ) -> Option<f64> {
        let follows = self.train.last().is_some_and(|a| sqn == a.sqn.wrapping_add(1));
        if !follows {
            // A gap or a reordering: the train restarts (a loss is reported by its NAK).
            let late = self.train.last().is_some_and(|a| !seq::gt(sqn, a.sqn));
            if late {
                return None;
            }
            self.train.clear();
        }
        if self.train.len() == PROBE_PACKETS {
            self.train.remove(0);
        }
        self.train.push(Arrival { sqn, tstamp, at: now });
        if let Some((_, since)) = &mut self.last_report {
            *since += 1;
        }
        let rate = self.spread_rate(ticks_per_second)?;
        let own = self
            .last_report
            .filter(|&(_, since)| since <= REPEAT_AFTER)
            .map(|(r, _)| r);
        let bound = match (echoed, own) {
            (Some(e), Some(l)) => Some(e.min(l)),
            (e, l) => e.or(l),
        };
        if bound.is_some_and(|b| rate >= REPORT_BELOW * b) {
            return None;
        }
        self.last_report = Some((rate, 0));
        self.train.clear();
        Some(rate)
    }

    /// The rate of a full train whose arrivals are spread beyond its sending span, packets per second.
    fn spread_rate(&self, ticks_per_second: u64) -> Option<f64> {
        let (first, last) = (self.train.first()?, self.train.last()?);
        if self.train.len() < PROBE_PACKETS {
            return None;
        }
        if self.train.windows(2).any(|pair| pair[1].at <= pair[0].at) {
            // Two packets read together carry the read's time, not their arrivals' (module docs).
            return None;
        }
        let arrival_span = (last.at - first.at).as_secs_f64();
        let tick = 1.0 / ticks_per_second as f64;
        let sending_span = f64::from(last.tstamp.wrapping_sub(first.tstamp)) * tick;
        if sending_span > 1.0 || arrival_span <= SPREAD * sending_span + tick {
            // Not spread (or timestamps from another epoch).
            return None;
        }
        Some((PROBE_PACKETS - 1) as f64 / arrival_span)
    }

    /// The source's start-up is over: forget the measurement (called for every ODATA without the option, so
    /// it costs nothing once forgotten).
    pub fn reset(&mut self) {
        if !self.train.is_empty() || self.last_report.is_some() {
            *self = ReceiveRateProbe::default();
        }
    }
}

/// A rate in packets per second as OPT_CONVOY_START_UP and OPT_CONVOY_RX_RATE carry it: packets per 1000 s,
/// at least 1 (0 means "none" in the echo), saturating.
pub fn rate_to_wire(packets_per_second: f64) -> u32 {
    (packets_per_second * 1000.0).round().clamp(1.0, f64::from(u32::MAX)) as u32
}

/// The rate a wire value carries, packets per second; `None` for 0.
pub fn rate_from_wire(wire: u32) -> Option<f64> {
    (wire > 0).then(|| f64::from(wire) / 1000.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    const US: u64 = 1_000_000;

    /// Packets `first..first + n` sent `send_gap_us` apart and arriving `arrive_gap_us` apart.
    fn train(
        p: &mut ReceiveRateProbe,
        first: u32,
        n: u32,
        send_gap_us: u32,
        arrive_gap_us: u64,
        echoed: Option<f64>,
    ) -> Vec<f64> {
        (0..n)
            .filter_map(|i| {
                let at = Instant::from_nanos(1_000_000_000 + u64::from(i) * arrive_gap_us * 1000);
                p.on_odata(at, first + i, 5000 + i * send_gap_us, US, echoed)
            })
            .collect()
    }

    #[test]
    fn a_path_that_keeps_the_spacing_never_reports() {
        let mut p = ReceiveRateProbe::default();
        assert!(train(&mut p, 0, 40, 100, 100, None).is_empty());
        // Jitter within the spread allowance neither.
        assert!(train(&mut p, 40, 40, 100, 120, None).is_empty());
    }

    #[test]
    fn a_burst_spread_to_the_bottleneck_reports_its_rate_after_the_probe_packets() {
        let mut p = ReceiveRateProbe::default();
        // Sent back to back (1 µs apart), delivered 1.2 ms apart: 833 packets/s.
        let reports = train(&mut p, 0, PROBE_PACKETS as u32, 1, 1200, None);
        assert_eq!(reports.len(), 1);
        assert!((reports[0] - 1.0 / 0.0012).abs() < 1e-6);
    }

    #[test]
    fn rfc4654_4_4_no_report_that_would_not_lower_the_echo_or_the_last_report() {
        let mut p = ReceiveRateProbe::default();
        // Echo 900 packets/s: 833 is not below 0.875 × 900.
        assert!(train(&mut p, 0, 8, 1, 1200, Some(900.0)).is_empty());
        // Echo 1000: 833 is; one report, then the receiver's own report suppresses the same rate.
        assert_eq!(train(&mut p, 8, 12, 1, 1200, Some(1000.0)).len(), 1);
        // Its path halving is news again.
        assert_eq!(train(&mut p, 20, 4, 1, 2400, Some(1000.0)).len(), 1);
        // The echo now shows it: silence.
        assert!(train(&mut p, 24, 40, 1, 2400, Some(416.0)).is_empty());
    }

    #[test]
    fn a_report_the_echo_does_not_show_is_repeated_after_some_packets() {
        let mut p = ReceiveRateProbe::default();
        let reports = train(&mut p, 0, 4 + REPEAT_AFTER, 1, 1200, Some(1000.0));
        assert_eq!(reports.len(), 1, "held back by its own report");
        assert_eq!(train(&mut p, 4 + REPEAT_AFTER, 4, 1, 1200, Some(1000.0)).len(), 1);
    }

    #[test]
    fn packets_read_together_make_no_measurement() {
        let mut p = ReceiveRateProbe::default();
        let at = |us: u64| Instant::from_nanos(us * 1000);
        // Sent 1 µs apart; 0 and 1 read at 0 µs, 2 and 3 read together 900 µs later: the span is the reads'.
        for (sqn, t) in [(0u32, 0u64), (1, 0), (2, 900), (3, 900)] {
            assert_eq!(p.on_odata(at(t), sqn, sqn, US, None), None, "packet {sqn}");
        }
        // Still none while the train holds a pair read together (2 and 3).
        assert_eq!(p.on_odata(at(1200), 4, 4, US, None), None);
        assert_eq!(p.on_odata(at(1500), 5, 5, US, None), None);
        // From packet 3 on, read one by one: 3 packets in 900 µs.
        let rate = p.on_odata(at(1800), 6, 6, US, None).unwrap();
        assert!((rate - 3.0 / 900e-6).abs() < 1e-6, "{rate}");
    }

    #[test]
    fn a_gap_restarts_the_train() {
        let mut p = ReceiveRateProbe::default();
        let at = |i: u64| Instant::from_nanos(i * 1_200_000);
        for (i, sqn) in [0u32, 1, 3, 4].into_iter().enumerate() {
            assert_eq!(p.on_odata(at(i as u64), sqn, 0, US, None), None);
        }
        assert_eq!(p.on_odata(at(4), 2, 0, US, None), None, "late packet ignored");
        assert_eq!(p.on_odata(at(5), 5, 0, US, None), None);
        assert!(p.on_odata(at(6), 6, 1, US, None).is_some(), "3, 4, 5 and 6 make a train");
    }

    #[test]
    fn wire_rates_are_packets_per_1000_seconds_and_zero_is_none() {
        assert_eq!(rate_to_wire(833.3334), 833_333);
        assert_eq!(rate_from_wire(833_333), Some(833.333));
        assert_eq!(rate_to_wire(0.0), 1);
        assert_eq!(rate_from_wire(0), None);
        assert_eq!(rate_to_wire(1e12), u32::MAX);
    }
}
