//! The receive window's public value types: configuration, deliveries, arrivals and counters.

use std::time::Duration;

use crate::payload::Payload;

#[cfg(doc)]
use super::ReceiveWindow;
#[cfg(doc)]
use super::RxwError;

/// Most sequence numbers one NAK can request: its own NAK_SQN plus 62 in OPT_NAK_LIST (RFC 3208 §9.3).
pub const MAX_NAK_SQNS: usize = 63;

/// Receive-window parameters. RFC 3208 leaves every value open; the NAK timer and retry defaults are OpenPGM's
/// usual receiver settings, the window, APDU and pacing defaults are Convoy's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RxwConfig {
    /// NAK_BO_IVL: a missing sequence number waits a uniformly random NAK_RB_IVL in `[0, nak_bo_ivl]` before
    /// its NAK (RFC 3208 §6.3, "Backing off NAK transmission"). Default 50 ms.
    pub nak_bo_ivl: Duration,
    /// NAK_RPT_IVL: how long to wait for an NCF after sending a NAK (RFC 3208 §6.3). Default 2 s.
    pub nak_rpt_ivl: Duration,
    /// NAK_RDATA_IVL: how long to wait for the data after an NCF (RFC 3208 §6.3). Default 2 s.
    pub nak_rdata_ivl: Duration,
    /// NAK_NCF_RETRIES: WAIT_NCF expiries tolerated before the data is declared lost. Default 50.
    pub nak_ncf_retries: u32,
    /// NAK_DATA_RETRIES: WAIT_DATA expiries tolerated before the data is declared lost. Default 50.
    pub nak_data_retries: u32,
    /// Most sequence numbers the window spans, from the delivery point to the lead (clamped to
    /// `[1, 2³¹ − 1]`, RFC 3208 §3.3). Data further ahead slides the window. Default 65,536.
    pub max_packets: u32,
    /// Largest APDU accepted, in bytes. Default 64 MiB.
    pub max_apdu_len: u32,
    /// NAK packets per second (pgmcc paper §3.8 pacing); 0 disables pacing. Default 100.
    pub nak_packets_per_s: u32,
    /// NAK packets that may go back to back after an idle period (token-bucket depth, at least 1). Default 10.
    pub nak_burst: u32,
    /// Most sequence numbers awaiting a repair at once (NAKed and waiting for the NCF, or waiting for the
    /// data after one); further NAKs wait until repairs arrive or waits expire. 0 = no limit (the default).
    /// pgmcc paper §3.8: a receiver needing many repairs paces its NAKs; a window of awaited repairs is
    /// self-clocked by the repairs its own path delivers, and repairs lost on the way hold their place until
    /// NAK_RPT_IVL / NAK_RDATA_IVL, so a path that loses repairs is asked for fewer.
    pub max_awaited: u32,
    /// Most payload bytes the window holds: packets waiting behind a missing one plus delivered APDUs not yet
    /// taken. The window then reaches at most this many bytes' worth of packets (at the largest seen) past the
    /// delivery point; packets beyond are refused as if lost on the path ([`Arrival::Overflow`]) and neither
    /// learnt from SPMs nor NAKed, and congestion control hears of the shortage from marks in the farther half
    /// (module `budget`), so the session slows to what this receiver absorbs. The fragments of the APDU at the
    /// delivery point are always admitted, so the bound holds to within `max_apdu_len`. 0 = no bound. Default
    /// 64 MiB.
    pub max_buffered_bytes: u64,
    /// Ask for repairs (RFC 3208 §6.3). `false` runs the window without reliability: a sequence number found
    /// missing is lost at once, no NAK is ever sent, and the application hears of the gap as
    /// [`Delivery::Lost`]. It is for measuring a congestion controller on its own, as the TFMCC paper's
    /// simulations do (TFMCC is a building block without reliability, RFC 4654 §1), and for feeds whose late
    /// data is worthless. A controller whose feedback rides on NAKs (pgmcc's acker election, paper §3.5) gets
    /// none. Default `true`.
    pub request_repairs: bool,
}

impl Default for RxwConfig {
    fn default() -> Self {
        RxwConfig {
            nak_bo_ivl: Duration::from_millis(50),
            nak_rpt_ivl: Duration::from_secs(2),
            nak_rdata_ivl: Duration::from_secs(2),
            nak_ncf_retries: 50,
            nak_data_retries: 50,
            max_packets: 65_536,
            max_apdu_len: 64 << 20,
            nak_packets_per_s: 100,
            nak_burst: 10,
            max_awaited: 0,
            max_buffered_bytes: 64 << 20,
            request_repairs: true,
        }
    }
}

/// What the window hands to the application, strictly in sequence order (RFC 3208 §6.1, "Contiguous data").
///
/// Consecutive deliveries cover consecutive sequence numbers, from the window's start onwards, except for the
/// fragments of an APDU begun before the start, which are skipped silently
/// ([`RxwStats::partial_apdus_skipped`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Delivery {
    /// A complete APDU: a whole packet, or reassembled fragments (RFC 3208 §9.2.3).
    Apdu {
        /// Sequence number of its first (or only) packet.
        first_sqn: u32,
        /// Sequence number of its last packet.
        last_sqn: u32,
        /// The APDU, byte for byte.
        data: Payload,
    },
    /// Unrecoverable data loss (RFC 3208 §6.3, "Cancellation of NAK generation"): nothing of
    /// `first_sqn..=last_sqn` will be delivered. The run covers the lost sequence numbers and the received
    /// fragments of APDUs that lost a fragment.
    Lost {
        /// First sequence number of the run.
        first_sqn: u32,
        /// Last sequence number of the run (inclusive).
        last_sqn: u32,
    },
}

/// How [`ReceiveWindow::on_data`] classified a data packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Arrival {
    /// Beyond the previous lead: stored, and any gap before it is now missing.
    New,
    /// Filled a hole (a missing sequence number, NAKed or not, or one already declared lost but not yet
    /// delivered): stored.
    Repaired,
    /// Already received: discarded (RFC 3208 §6.1).
    Duplicate,
    /// Before the delivery point (already delivered, lost or before the start): discarded.
    BeforeWindow,
    /// Refused: storing it would exceed [`RxwConfig::max_buffered_bytes`]. Nothing changed; the packet counts
    /// as lost on the path and is asked for again when its gap is seen.
    Overflow,
}

/// Counters of one receive window. The four every in-order packet updates come first (`repr(C)`: one cache
/// line).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct RxwStats {
    /// Data packets stored ([`Arrival::New`] and [`Arrival::Repaired`]).
    pub packets_received: u64,
    /// APDUs returned by [`ReceiveWindow::poll_delivery`].
    pub apdus_delivered: u64,
    /// Bytes in those APDUs.
    pub bytes_delivered: u64,
    /// Most payload bytes held at once (see [`RxwConfig::max_buffered_bytes`]).
    pub peak_held_bytes: u64,
    /// Data packets already received ([`Arrival::Duplicate`]).
    pub duplicates: u64,
    /// Data packets before the delivery point ([`Arrival::BeforeWindow`]).
    pub before_window: u64,
    /// Holes filled ([`Arrival::Repaired`]).
    pub repaired: u64,
    /// NAK packets returned by [`ReceiveWindow::poll_nak`].
    pub naks_sent: u64,
    /// Sequence numbers requested in those NAKs.
    pub nak_sqns_sent: u64,
    /// Calls to [`ReceiveWindow::on_ncf`].
    pub ncfs_heard: u64,
    /// WAIT_NCF expiries (NAK_RPT_IVL passed without an NCF).
    pub ncf_timeouts: u64,
    /// WAIT_DATA expiries (NAK_RDATA_IVL passed without the data).
    pub data_timeouts: u64,
    /// Sequence numbers reported in [`Delivery::Lost`] runs.
    pub sqns_lost: u64,
    /// APDUs discarded because one of their fragments was lost.
    pub apdus_dropped: u64,
    /// APDUs begun before the start sequence number, skipped silently.
    pub partial_apdus_skipped: u64,
    /// Data packets refused with an [`RxwError`].
    pub errors: u64,
    /// Data packets refused for lack of room ([`Arrival::Overflow`]).
    pub overflow_refused: u64,
}
