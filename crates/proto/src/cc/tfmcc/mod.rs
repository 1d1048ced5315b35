//! TFMCC: TCP-friendly multicast congestion control (RFC 4654; Widmer and Handley, SIGCOMM 2001, "paper"). The
//! rules with their sources are restated in docs/tfmcc-rules.md.
//!
//! * [`TfmccSender`] — the rate X paced on the wire (§3.7), the current limiting receiver (CLR) and the four report
//!   cases (§3.3), CLR silence, feedback rounds with R_max and X_supp (§3.2, §3.4), echo priorities with the CLR
//!   echoed once per round (§3.5), slowstart (§3.6) with its target moved once per feedback round (the paper's
//!   §2.6), and the idle restart: halvings per 10 R_max of pause and slowstart back to X' (§3.6).
//! * [`TfmccReceiver`] — loss events and the loss event rate (§5, via [`crate::tfrc_loss`]), the first-loss
//!   history seed (§5.6), RTT from the sender's echo with the one-way-delay adjustment (§4.3), the receive rate
//!   and the desired rate (§4.3.4, §4.4), the exponential feedback timer with suppression and cancellation,
//!   rescaled with R_max and extended by a silent sender's gap (§4.5), have_loss cleared after an idle period
//!   (§4.3.1), CLR reports once per RTT, the leave flag (§4.2) and the 120 s leave rule (§4.4,
//!   [`crate::cc::ReceiverCcEvent::MustLeave`]).
//! * [`timer`] — the feedback timer, unbiased (RFC 4654 §4.5) or biased by rate (paper §2.5).
//!
//! Timestamps and rates on the wire are those of [`crate::cc::wire_clock`], shared with aimd; its pacing is
//! [`crate::cc::pacer`], shared with aimd and the fixed rate.
//!
//! The options on the wire are `convoy-wire`'s `cc::tfmcc` (data fields on ODATA, reports on ACKs); rates there
//! are bit/s, here bytes/s.

/// [`crate::cc::CcEvent::Milestone`]: a feedback round ended (RFC 4654 §3.4); the value is the new round's
/// number, fb_nr.
pub const ROUND_ENDED: &str = "tfmcc.round-ended";

mod receiver;
mod sender;
pub mod timer;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_receiver;
#[cfg(test)]
mod tests_sender;

pub use receiver::TfmccReceiver;
pub use sender::TfmccSender;
pub use timer::FeedbackBias;

use crate::cc::{ReceiverController, Scheme, SenderController};
use crate::time::Instant;
use convoy_wire::OptionsRepr;
use std::net::IpAddr;
use std::time::Duration;

/// The weight the mean packet size s keeps per packet, at the sender and at every receiver alike (RFC 4654 §2.1:
/// "the same value of s is used by the sender and receivers").
const PACKET_SIZE_Q: f64 = 0.9;

/// The mean packet size after a packet of `len` bytes: the first packet's size, then a moving average.
fn mean_packet_size(s: f64, len: usize) -> f64 {
    let len = len as f64;
    if s == 0.0 {
        len
    } else {
        PACKET_SIZE_Q * s + (1.0 - PACKET_SIZE_Q) * len
    }
}

/// TFMCC parameters for both halves; defaults are RFC 4654's (docs/tfmcc-rules.md §4).
#[derive(Clone, Debug, PartialEq)]
pub struct TfmccConfig {
    /// Initial R_max (§3.1: at least 500 ms on the Internet); also the receivers' RTT before a sample (§4.1).
    pub initial_rtt: Duration,
    /// N, the receiver count the feedback timer is built for (§4.5: 10,000).
    pub receivers_max: u32,
    /// g, the suppression margin (§3.4: 0.1).
    pub g: f64,
    /// Length of a feedback round in R_max (§3.4: 6).
    pub round_rtts: f64,
    /// ts_gran, the sender's timer granularity (§3.7: 10 ms).
    pub ts_gran: Duration,
    /// k, RTTs over which the receive rate is measured (§4.3.4: 2 to 4).
    pub receive_rate_rtts: u32,
    /// History discounting of the loss intervals (§5.5, optional), with RFC 4654's THRESHOLD 0.5.
    pub discounting: bool,
    /// The receivers' feedback timer: RFC 4654's exponential one, or the paper's rate-biased offset (§2.5).
    pub feedback_timer: FeedbackBias,
}

impl Default for TfmccConfig {
    fn default() -> Self {
        TfmccConfig {
            initial_rtt: Duration::from_millis(500),
            receivers_max: 10_000,
            g: 0.1,
            round_rtts: 6.0,
            ts_gran: Duration::from_millis(10),
            receive_rate_rtts: 2,
            discounting: false,
            feedback_timer: FeedbackBias::default(),
        }
    }
}

impl Scheme for TfmccConfig {
    const NAME: &'static str = "tfmcc";

    fn build_sender(&self, now: Instant) -> Box<dyn SenderController> {
        Box::new(TfmccSender::new(self.clone(), now))
    }

    fn build_receiver(&self, local: IpAddr) -> Box<dyn ReceiverController> {
        Box::new(TfmccReceiver::new(self.clone(), local))
    }

    /// A TFMCC source puts OPT_CONVOY_TFMCC_DATA on every ODATA (§2.2.1).
    fn recognises(odata: &OptionsRepr) -> bool {
        odata.cc.tfmcc.data.is_some()
    }
}
