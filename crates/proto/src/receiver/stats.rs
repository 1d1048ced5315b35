//! The receiver's counters ([`ReceiverStats`]).

#[cfg(doc)]
use super::ReceiverEvent;
#[cfg(doc)]
use crate::rxw::RxwStats;

/// Counters kept by the session (the window keeps its own, [`RxwStats`]). The three every in-order packet
/// updates come first (`repr(C)`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct ReceiverStats {
    /// ODATA packets received.
    pub odata: u64,
    /// APDUs delivered.
    pub apdus: u64,
    /// APDU bytes delivered.
    pub bytes: u64,
    /// RDATA packets received.
    pub rdata: u64,
    /// SPMs received.
    pub spms: u64,
    /// NCFs received.
    pub ncfs: u64,
    /// NAK packets sent.
    pub naks_sent: u64,
    /// Feedback packets the congestion controller sent (pgmcc: ACKs and election NAKs).
    pub feedback_sent: u64,
    /// ACK packets among them.
    pub acks_sent: u64,
    /// Status reports sent (SPMR with OPT_CONVOY_RECEIVER_STATUS).
    pub statuses_sent: u64,
    /// Malformed datagrams.
    pub malformed: u64,
    /// Packets refused by the session's authentication ([`ReceiverEvent::Refused`]).
    pub refused: u64,
    /// Data rejected by the receive window (inconsistent fragments).
    pub rejected: u64,
    /// Valid packets of other sessions or types a receiver ignores.
    pub ignored: u64,
    /// ODATA packets reported lost to the controller for lack of buffer room (stored or refused, rxw
    /// `budget`).
    pub congested: u64,
}
