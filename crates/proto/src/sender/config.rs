//! The source's configuration ([`SenderConfig`]).

use super::{MinRate, ParityConfig, RepairPacing, SpmIntervals};
#[cfg(doc)]
use super::{RecentRepairs, SenderStats};
use crate::auth::AuthConfig;
use crate::cc::CcConfig;
use convoy_wire::Gsi;
use std::net::IpAddr;
use std::time::Duration;

/// Source configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct SenderConfig {
    /// Global source identifier.
    pub gsi: Gsi,
    /// Data-source port (the TSI's port).
    pub source_port: u16,
    /// Data-destination port.
    pub dest_port: u16,
    /// This source's unicast address: the SPM path NLA, where NAKs and ACKs come to.
    pub local_nla: IpAddr,
    /// The multicast group.
    pub group: IpAddr,
    /// Largest TSDU (payload bytes per packet). pgmcc paper §4: 1400.
    pub max_tsdu: usize,
    /// First data sequence number (OpenPGM starts at 0).
    pub initial_sqn: u32,
    /// Packets kept for repair (the transmit window size).
    pub txw_max_packets: usize,
    /// Bytes the application may queue ahead of the controller.
    pub send_queue_bytes: usize,
    /// PGM rate limiter on all data (ODATA and RDATA), bytes per second of whole packets; `None` = unlimited.
    pub rate_max: Option<u64>,
    /// Separate cap on repairs (RDATA), bytes per second; `None` = only `rate_max` applies.
    pub repair_rate_max: Option<u64>,
    /// Whether repairs need the controller's permit ([`RepairPacing`]; the paper's `RateLimit` by default).
    pub repair_pacing: RepairPacing,
    /// SPM timing.
    pub spm: SpmIntervals,
    /// After close, how long without repair requests before the session ends. Longer than the receivers'
    /// NAK_RDATA_IVL (2 s by default) by a NAK back-off and a round trip: a receiver whose last repair was lost
    /// asks again that long after the NCF, and the source must still be there (3 s by default).
    pub linger: Duration,
    /// Congestion control.
    pub cc: CcConfig,
    /// After an NCF or RDATA for a sequence number, NAKs for it within twice the controller's smoothed RTT,
    /// at most this interval (all of it when the controller has no RTT), get neither again
    /// ([`RecentRepairs`]; the source's counterpart of RFC 3208 §7.4's NAK_ELIM_IVL). Must stay below the
    /// receivers' NAK_RPT_IVL and NAK_RDATA_IVL (2 s by default). One repair per loss: each repair goes once
    /// per round however many receivers ask, the NCF telling the others it comes; a NAK that crossed it on the
    /// way is counted ([`SenderStats::nak_sqns_eliminated`]), not answered twice. The same window counts recent
    /// parity as answering a parity NAK (module `parity_source`). 250 ms by default; zero answers every NAK, as
    /// OpenPGM's source does. It trades repair traffic for delay: with 200 receivers behind a source whose own
    /// link overflows, 250 ms cut repairs 50-fold but a repair lost at that link then costs the receivers a
    /// NAK_RDATA_IVL wait (`print_star_repairs` in convoy-sim's tests); with 100 receivers each losing 1%
    /// (compare-matrix's uncorrelated-loss row) it took the source's bytes per delivered byte from 2.2 to 1.9.
    pub nak_elim_ivl: Duration,
    /// A keyed session: seal every packet sent, refuse every packet received that does not open
    /// ([`crate::auth`]). `None`: unauthenticated, refusing keyed packets.
    pub auth: Option<AuthConfig>,
    /// Parity (RFC 3208 §11, module `parity_source`): transmission groups of k packets, announced on SPMs, with
    /// pro-active parity after each group and on-demand parity for parity NAKs. With parity the first sequence
    /// number is rounded up to a multiple of k. `None`: selective repairs only.
    pub parity: Option<ParityConfig>,
    /// The session's minimum rate (module `shedding`): a receiver the controller credits with less for the
    /// whole grace period is asked to leave and no longer followed. `None`: every receiver sets the pace.
    pub min_rate: Option<MinRate>,
}

impl SenderConfig {
    /// A configuration with Convoy's defaults for the given addresses.
    pub fn new(local_nla: IpAddr, group: IpAddr) -> Self {
        SenderConfig {
            gsi: Gsi([0x43, 0x4f, 0x4e, 0x56, 0x4f, 0x59]),
            source_port: 1000,
            dest_port: 7500,
            local_nla,
            group,
            max_tsdu: 1400,
            initial_sqn: 0,
            txw_max_packets: 20_000,
            send_queue_bytes: 4 << 20,
            rate_max: None,
            repair_rate_max: None,
            repair_pacing: RepairPacing::RateLimit,
            spm: SpmIntervals::default(),
            linger: Duration::from_secs(3),
            cc: CcConfig::default(),
            nak_elim_ivl: Duration::from_millis(250),
            auth: None,
            parity: None,
            min_rate: None,
        }
    }
}
