//! A session no receiver clocks: give up after a limit instead of hanging.
//!
//! pgmcc sends by tokens its acker returns (paper §3.4). Until a receiver answers the acker election (paper §3.6,
//! draft §2.3.1), the window stays at one packet, and each feedback timeout sends one more (draft §2.7, backing off
//! to a minute). TFMCC and `aimd` (the agent-based rate AIMD scheme of Shi and Waldvogel 2000, docs/papers.md) fall
//! to one packet per 8 s without reports (RFC 4654 §4.4; Shi–Waldvogel §4.1). Receivers that are not Convoy's
//! (OpenPGM, ZeroMQ's pgm transport) receive the data but answer none of this, so to them a session creeps along for
//! ever. A [`FeedbackWatch`] ends it: when no receiver has clocked the session (pgmcc's acker, TFMCC's CLR, the
//! agent) within a limit after the first data packet, [`NetSender`](crate::NetSender) fails with a [`NoFeedback`]
//! error naming the way out (`--cc fixed`). Once a receiver has clocked the session, the controller's own rules
//! handle feedback that stops.

use convoy_proto::{Instant, Sender};
use std::time::Duration;

/// The session's controller heard from no receiver within the limit after its first data packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoFeedback {
    /// The controller's name.
    pub cc: &'static str,
    /// How long it waited.
    pub waited: Duration,
}

impl std::fmt::Display for NoFeedback {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "no receiver answered {cc}'s feedback requests within {s:.0} s of the first data packet, so {cc} cannot \
             send faster than one packet per timeout (receivers that are not Convoy's, such as OpenPGM or ZeroMQ's \
             pgm transport, send no {cc} feedback): send to them with --cc fixed --rate RATE, or wait longer with \
             --feedback-timeout",
            cc = self.cc,
            s = self.waited.as_secs_f64()
        )
    }
}

impl std::error::Error for NoFeedback {}

/// Watches a session for a receiver that clocks it (module docs).
#[derive(Clone, Debug)]
pub struct FeedbackWatch {
    limit: Duration,
    first_data: Option<Instant>,
    clocked: bool,
}

impl FeedbackWatch {
    /// Give up `limit` after the first data packet if no receiver has clocked the session by then.
    pub fn new(limit: Duration) -> Self {
        FeedbackWatch {
            limit,
            first_data: None,
            clocked: false,
        }
    }

    /// Look at `sender` at `now`.
    pub fn check(&mut self, sender: &Sender, now: Instant) -> Result<(), NoFeedback> {
        if self.clocked {
            return Ok(());
        }
        if sender.cc_snapshot().acker.is_some() {
            self.clocked = true;
            return Ok(());
        }
        if sender.stats().odata_packets == 0 {
            return Ok(());
        }
        let first = *self.first_data.get_or_insert(now);
        let waited = now.saturating_duration_since(first);
        if waited >= self.limit {
            return Err(NoFeedback {
                cc: sender.config().cc.name(),
                waited,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use convoy_proto::cc::CcConfig;
    use convoy_proto::SenderConfig;
    use std::net::{IpAddr, Ipv4Addr};

    fn pgmcc_source_that_sent_one_packet() -> Sender {
        let mut c = SenderConfig::new(
            IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)),
            IpAddr::V4(Ipv4Addr::new(239, 1, 1, 1)),
        );
        c.cc = CcConfig::default();
        let mut s = Sender::new(c, Instant::ZERO);
        s.write(b"x").unwrap();
        let mut buf = vec![0u8; 2000];
        while s.poll_transmit(Instant::ZERO, &mut buf).is_some() {}
        assert_eq!(s.stats().odata_packets, 1);
        s
    }

    #[test]
    fn paper_3_6_an_unanswered_election_fails_after_the_limit_from_the_first_data() {
        let s = pgmcc_source_that_sent_one_packet();
        let mut w = FeedbackWatch::new(Duration::from_secs(10));
        let at = |secs| Instant::ZERO + Duration::from_secs(secs);
        assert_eq!(
            w.check(&s, at(1)),
            Ok(()),
            "the clock starts at the first look after data left"
        );
        assert_eq!(w.check(&s, at(10)), Ok(()));
        let e = w.check(&s, at(11)).unwrap_err();
        assert_eq!(e.cc, "pgmcc");
        assert!(e.to_string().contains("--cc fixed"), "{e}");
    }

    #[test]
    fn nothing_sent_yet_is_not_waiting() {
        let c = SenderConfig::new(
            IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)),
            IpAddr::V4(Ipv4Addr::new(239, 1, 1, 1)),
        );
        let s = Sender::new(c, Instant::ZERO);
        let mut w = FeedbackWatch::new(Duration::from_secs(1));
        assert_eq!(
            w.check(&s, Instant::ZERO + Duration::from_secs(100)),
            Ok(())
        );
    }
}
