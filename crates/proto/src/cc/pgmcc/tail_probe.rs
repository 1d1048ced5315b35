//! The tail loss probe of [`super::PgmccConfig::early_loss`] (RFC 8985 §7, TCP's TLP).
//!
//! pgmcc learns of a loss from the acker's bitmaps: a packet is lost once three later packets are acknowledged
//! (paper §3.4, draft §2.2), or, with early loss detection, once the last packet sent is (RFC 5827 §2.1,
//! [`super::AckTracker::tail_seen_holes_lost`]). Both need an ACK for a packet sent after the loss. When the
//! window has no token left and the packets at the tail of the flight are lost, none comes: the sender waits
//! for the feedback timeout, at least one second (draft §2.7), while the window it would restart from is a
//! packet or two. On a LAN path, where RTTs are tens of microseconds and windows are small whenever a receiver
//! short of buffer marks packets (rxw module `budget`), that wait costs thousands of RTTs.
//!
//! TCP answers with a probe: when no ACK has come for two smoothed RTTs (the probe timeout, PTO), one new packet
//! leaves beyond the window; its acknowledgement reveals the tail's loss through the usual loss detection, and
//! the normal reaction follows (RFC 8985 §7.1–7.3). pgmcc does the same with one original data packet: the probe
//! permits an ODATA packet (a repair brings no ACK, so it would reveal nothing) and takes its token like any
//! packet (T may go below zero; the loss reaction realigns T to the packets in flight). One probe at a time: if
//! it goes unanswered too, the feedback timeout acts as before.

use crate::time::Instant;
use std::time::Duration;

/// Slack added to two smoothed RTTs, for timers and receivers that answer a little late (Linux adds its
/// smallest timeout, 2 ms, to the PTO for the same reason; RFC 8985 §7.2 leaves the margin to the sender).
const PROBE_SLACK: Duration = Duration::from_millis(2);

/// The probe's state: armed, due, or sent and not answered yet.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TailProbe {
    /// When the probe becomes due, if armed.
    at: Option<Instant>,
    /// The probe is due: one ODATA packet may leave beyond the window.
    due: bool,
    /// A probe left and no ACK has answered since.
    outstanding: bool,
}

impl TailProbe {
    /// The probe timeout for smoothed RTT `srtt` (RFC 8985 §7.2: PTO = 2·SRTT, plus `PROBE_SLACK`), never
    /// beyond the feedback timeout `rto`.
    pub fn timeout(srtt: Duration, rto: Duration) -> Duration {
        (2 * srtt + PROBE_SLACK).min(rto)
    }

    /// After an ACK or a packet sent at `now`: arm the probe `pto` from now when the sender `waits` (packets
    /// unacknowledged, no token for another), unless a probe is still unanswered; disarm it otherwise.
    pub fn rearm(&mut self, now: Instant, waits: bool, pto: Duration) {
        self.at = (waits && !self.outstanding && !self.due).then(|| now + pto);
    }

    /// Feedback arrived for data: the tail is moving again, so any probe is answered or no longer needed.
    pub fn on_feedback(&mut self) {
        self.due = false;
        self.outstanding = false;
    }

    /// The deadline to wake for, if armed.
    pub fn deadline(&self) -> Option<Instant> {
        self.at
    }

    /// A timer fired at `now`: the probe becomes due if its time has come.
    pub fn on_timer(&mut self, now: Instant) {
        if self.at.is_some_and(|at| at <= now) {
            self.at = None;
            self.due = true;
        }
    }

    /// Whether an ODATA packet may leave beyond the window now.
    pub fn is_due(&self) -> bool {
        self.due
    }

    /// An ODATA packet left: if it was the probe, it is now outstanding.
    pub fn on_data_sent(&mut self) {
        if self.due {
            self.due = false;
            self.outstanding = true;
        }
    }

    /// The feedback timeout fired: the probe, armed, due or sent, is over.
    pub fn cancel(&mut self) {
        *self = TailProbe::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(t: u64) -> Instant {
        Instant::from_millis(t)
    }

    #[test]
    fn rfc8985_7_2_pto_is_two_srtt_plus_slack_within_the_rto() {
        let pto = TailProbe::timeout(Duration::from_micros(100), Duration::from_secs(1));
        assert_eq!(pto, Duration::from_micros(2_200));
        let capped = TailProbe::timeout(Duration::from_millis(800), Duration::from_secs(1));
        assert_eq!(capped, Duration::from_secs(1));
    }

    #[test]
    fn rfc8985_7_3_one_probe_then_the_timeout() {
        let mut p = TailProbe::default();
        let pto = Duration::from_millis(3);
        p.rearm(ms(0), true, pto);
        assert_eq!(p.deadline(), Some(ms(3)));
        p.on_timer(ms(2));
        assert!(!p.is_due(), "not before its time");
        p.on_timer(ms(3));
        assert!(p.is_due());
        assert_eq!(p.deadline(), None);
        p.on_data_sent();
        assert!(!p.is_due(), "one packet only");
        p.rearm(ms(3), true, pto);
        assert_eq!(p.deadline(), None, "a second probe waits for an answer to the first");
        p.on_feedback();
        p.rearm(ms(4), true, pto);
        assert_eq!(p.deadline(), Some(ms(7)), "answered: armed again");
    }

    #[test]
    fn a_sender_that_can_send_or_has_nothing_out_needs_no_probe() {
        let mut p = TailProbe::default();
        p.rearm(ms(0), true, Duration::from_millis(3));
        p.rearm(ms(1), false, Duration::from_millis(3));
        assert_eq!(p.deadline(), None);
        p.rearm(ms(1), true, Duration::from_millis(3));
        p.cancel();
        assert_eq!(p, TailProbe::default());
    }
}
