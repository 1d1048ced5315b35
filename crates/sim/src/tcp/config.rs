//! [`TcpConfig`] and [`TcpVariant`]: the knobs shared by [`TcpSender`](super::TcpSender) and
//! [`TcpSink`](super::TcpSink).

use std::time::Duration;

/// Loss-recovery algorithm of a [`TcpSender`](super::TcpSender); [`TcpSink`](super::TcpSink) sends SACK blocks
/// only for [`TcpVariant::Sack`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TcpVariant {
    /// RFC 5681 §3.2 fast retransmit and fast recovery: the first new ACK ends recovery, so several losses in
    /// one window usually cost several window halvings or a timeout.
    Reno,
    /// RFC 6582 NewReno: partial ACKs retransmit the next hole and recovery lasts until everything outstanding at
    /// its start is acknowledged (the "recover" variable).
    #[default]
    NewReno,
    /// RFC 6675 SACK-based loss recovery (scoreboard, `IsLost`, `pipe`, `NextSeg`) over RFC 2018 SACK blocks.
    Sack,
}

/// Parameters of a TCP sender and sink. [`Default`] gives the RFC values listed on each field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcpConfig {
    /// Loss-recovery algorithm (default NewReno).
    pub variant: TcpVariant,
    /// SMSS: payload bytes per full-sized segment (default 1460, a 1500-byte packet).
    pub mss: u32,
    /// Initial window IW in segments (default 2; RFC 5681 §3.1 allows up to 4 by byte limits, RFC 3390).
    pub initial_window: u32,
    /// Initial ssthresh in bytes (default `u64::MAX`, "arbitrarily high", RFC 5681 §3.1).
    pub initial_ssthresh: u64,
    /// Lower bound on the RTO (default 1 s, RFC 6298 §2.4; scenarios use 0.2 s as Linux does).
    pub min_rto: Duration,
    /// RTO before the first RTT sample (default 1 s, RFC 6298 §2.1).
    pub initial_rto: Duration,
    /// The clock granularity G of RFC 6298 §2: RTO = SRTT + max(G, 4·RTTVAR) (default 1 ms, a modern stack's
    /// clock). ns-2 of 2000–2002 timed TCP with a 100 ms tick (`tcpTick_ 0.1`, its default until 2002), so the
    /// RTO of the papers' simulators never came closer to SRTT than one tick; scenarios reproducing them set
    /// 100 ms. RTT samples are not quantised to the tick.
    pub clock_granularity: Duration,
    /// Upper bound on the RTO, backed-off values included (default 60 s, RFC 6298 §2.5).
    pub max_rto: Duration,
    /// Sink sends delayed ACKs: one for every second full-sized segment, or when the timer expires (RFC 1122
    /// §4.2.3.2, RFC 5681 §4.2). Default off: an ACK per segment.
    pub delayed_ack: bool,
    /// Delayed-ACK timer (default 200 ms; RFC 5681 §4.2 requires less than 500 ms).
    pub delayed_ack_timeout: Duration,
    /// DupThresh: duplicate ACKs that trigger fast retransmit (default 3, RFC 5681 §3.2, RFC 6675 §2).
    pub dupack_threshold: u32,
    /// Models the receiver's advertised window, in bytes: the sender never has more than this outstanding and
    /// cwnd does not grow beyond it. `None` (default) = unlimited.
    pub max_cwnd: Option<u64>,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            variant: TcpVariant::NewReno,
            mss: 1460,
            initial_window: 2,
            initial_ssthresh: u64::MAX,
            min_rto: Duration::from_secs(1),
            initial_rto: Duration::from_secs(1),
            clock_granularity: Duration::from_millis(1),
            max_rto: Duration::from_secs(60),
            delayed_ack: false,
            delayed_ack_timeout: Duration::from_millis(200),
            dupack_threshold: 3,
            max_cwnd: None,
        }
    }
}

impl TcpConfig {
    /// This configuration with another loss-recovery variant.
    pub fn with_variant(self, variant: TcpVariant) -> Self {
        TcpConfig { variant, ..self }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_follow_the_rfcs() {
        let c = TcpConfig::default();
        assert_eq!(c.variant, TcpVariant::NewReno);
        assert_eq!(c.mss, 1460);
        assert_eq!(c.initial_window, 2);
        assert_eq!(c.initial_ssthresh, u64::MAX);
        assert_eq!(c.min_rto, Duration::from_secs(1), "RFC 6298 §2.4");
        assert_eq!(c.initial_rto, Duration::from_secs(1), "RFC 6298 §2.1");
        assert_eq!(c.max_rto, Duration::from_secs(60), "RFC 6298 §2.5");
        assert!(!c.delayed_ack);
        assert_eq!(c.delayed_ack_timeout, Duration::from_millis(200));
        assert_eq!(c.dupack_threshold, 3, "RFC 5681 §3.2");
        assert_eq!(c.max_cwnd, None);
        assert_eq!(c.with_variant(TcpVariant::Sack).variant, TcpVariant::Sack);
    }
}
