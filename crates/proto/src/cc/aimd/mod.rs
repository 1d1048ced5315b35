//! `aimd`: the agent-based rate AIMD scheme of Shi and Waldvogel, "A Rate-based End-to-end Multicast Congestion
//! Control Protocol" (WUCS-00-03, 2000; "paper", Shi and Waldvogel 2000 in docs/papers.md), called SRM/CC there.
//!
//! One receiver, the *agent*, "downstream of the most congested data path" (§4.2), clocks a rate-based sender:
//!
//! * [`AimdReceiver`] — every receiver estimates its capacity 1/(RTT·√p) over a recent window ([`capacity`],
//!   §5.2), its RTT from the sender's echo of its reports (§5.4 allows it: the agents "send feedback frequently to the
//!   source, thus allowing the sender to measure the RTT and relay back the information"), and sends a congestion notification (CN) "if and only if it has worse
//!   capacity than the current agent" (§5.1) after an SRM random back-off, cancelled as PGM's NCF cancels NAKs: when
//!   the sender's data shows an agent no better than itself. The agent sends one positive or negative feedback
//!   (PF/NF) per RTT with its capacity, RTT and "the sequence number of the last missing packet" (§5.3).
//! * [`AimdSender`] — paces its rate; makes the worst notifier the agent, halving on a switch (§6.3, selectable);
//!   adds one packet per RTT on a PF only if the agent's capacity, with the RTT measured on that PF, did not fall
//!   (the queue-building rule), halves on an NF (§5.3), and "only
//!   adapts to PF/NF with the sequence number higher than that of the first data packet sent after last rate
//!   adjustment" (§5.3); advertises the agent and its capacity on every packet.
//!
//! The paper leaves much open (no formats, windows, timers, initial rate or silence rule); each choice is stated
//! where it is made, with the paper's words beside it. The wire options are `convoy-wire`'s `cc::aimd`.

pub mod capacity;
mod receiver;
mod sender;

#[cfg(test)]
mod tests;

pub use receiver::AimdReceiver;
pub use sender::AimdSender;

use crate::cc::{ReceiverController, Scheme, SenderController};
use crate::time::Instant;
use convoy_wire::OptionsRepr;
use std::net::IpAddr;
use std::time::Duration;

/// The scheme's parameters, for both halves.
#[derive(Clone, Debug, PartialEq)]
pub struct AimdConfig {
    /// The sending rate at the start, bytes/s; `None`: one packet per initial RTT (§5.4: "if we start
    /// transmission at 1 packet/RTT"). The paper's own runs "choose an initial rate such that the source is able
    /// to saturate the link in a small time interval" (§5.4).
    pub initial_rate: Option<f64>,
    /// The RTT assumed before a measurement (§5.4: "an RTT of 500ms is big enough").
    pub initial_rtt: Duration,
    /// W, the packets over which receivers measure their loss rate ([`capacity::LossWindow`]).
    pub loss_window: u32,
    /// A receiver notifies only when its capacity is below (1 − margin) times the agent's (§5.1: "if B's measured
    /// capacity approximates to A's then B will not send a CN"; the paper gives no value).
    pub margin: f64,
    /// Halve the rate when the agent changes (§6.3: "when sender switches agent, it drops its transmission rate to
    /// half"), the paper's behaviour.
    pub halve_on_switch: bool,
    /// Gate each increase on the agent's capacity with the RTT the sender measured on that PF (true, the paper's
    /// "queue building up … the source anticipates it", §5.3), or with the agent's reported, smoothed RTT (false:
    /// a gate that lags the queue by about eight RTTs; kept to show the difference, [`AimdSender`]).
    pub gate_on_sampled_rtt: bool,
}

impl Default for AimdConfig {
    fn default() -> Self {
        AimdConfig {
            initial_rate: None,
            initial_rtt: Duration::from_millis(500),
            loss_window: 500,
            margin: 0.1,
            halve_on_switch: true,
            gate_on_sampled_rtt: true,
        }
    }
}

impl Scheme for AimdConfig {
    const NAME: &'static str = "aimd";

    fn build_sender(&self, now: Instant) -> Box<dyn SenderController> {
        Box::new(AimdSender::new(self.clone(), now))
    }

    fn build_receiver(&self, local: IpAddr) -> Box<dyn ReceiverController> {
        Box::new(AimdReceiver::new(self.clone(), local))
    }

    /// The source puts OPT_CONVOY_AIMD_DATA on every ODATA.
    fn recognises(odata: &OptionsRepr) -> bool {
        odata.cc.aimd.data.is_some()
    }
}
