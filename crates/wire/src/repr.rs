//! Typed representations of PGM packets (API contract; bodies to be implemented).

use std::net::IpAddr;

/// Global Source Identifier (RFC 3208 §8: 6 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Gsi(pub [u8; 6]);

/// Transport Session Identifier: GSI plus data-source port (RFC 3208 §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Tsi {
    /// Global source identifier.
    pub gsi: Gsi,
    /// Data-source port.
    pub source_port: u16,
}

/// PGM packet type codes (header byte 4, low nibble).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum PacketType {
    /// Source Path Message, RFC 3208 §8.1.
    Spm = 0x00,
    /// POLL, RFC 3208 §14.7.1.
    Poll = 0x01,
    /// POLL response, RFC 3208 §14.7.2.
    Polr = 0x02,
    /// Original data, RFC 3208 §8.2.
    Odata = 0x04,
    /// Repair data, RFC 3208 §8.2.
    Rdata = 0x05,
    /// Negative acknowledgement, RFC 3208 §8.3.
    Nak = 0x08,
    /// Null NAK, RFC 3208 §8.3.
    Nnak = 0x09,
    /// NAK confirmation, RFC 3208 §8.3.
    Ncf = 0x0A,
    /// SPM request, RFC 3208 §13.6.
    Spmr = 0x0C,
    /// PGMCC ACK (OpenPGM and Wireshark code 0x0D).
    Ack = 0x0D,
}

/// Type-specific part of a packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BodyRepr {
    /// SPM: SPM_SQN, TXW_TRAIL, TXW_LEAD, path NLA.
    Spm { sqn: u32, trail: u32, lead: u32, path_nla: IpAddr },
    /// POLL.
    Poll { sqn: u32, round: u16, s_type: u16, path_nla: IpAddr, backoff_ivl: u32, rand: u32, mask: u32 },
    /// POLR.
    Polr { sqn: u32, round: u16 },
    /// ODATA: DATA_SQN and TXW_TRAIL.
    Odata { sqn: u32, trail: u32 },
    /// RDATA: DATA_SQN and TXW_TRAIL.
    Rdata { sqn: u32, trail: u32 },
    /// NAK: requested SQN, source NLA, group NLA.
    Nak { sqn: u32, source_nla: IpAddr, group_nla: IpAddr },
    /// NNAK, same layout as NAK.
    Nnak { sqn: u32, source_nla: IpAddr, group_nla: IpAddr },
    /// NCF, same layout as NAK.
    Ncf { sqn: u32, source_nla: IpAddr, group_nla: IpAddr },
    /// SPMR: header only.
    Spmr,
    /// PGMCC ACK: RX_MAX and the 32-bit bitmap (LSB = RX_MAX).
    Ack { rx_max: u32, bitmap: u32 },
}

/// OPT_FRAGMENT.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FragmentOption { pub first_sqn: u32, pub offset: u32, pub apdu_len: u32 }

/// OPT_PGMCC_DATA.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PgmccData { pub tstamp: u32, pub acker: IpAddr }

/// OPT_PGMCC_FEEDBACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PgmccFeedback { pub tstamp: u32, pub loss_rate: u16, pub reporter: IpAddr }

/// Convoy's own options.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ConvoyOptions { pub rxw_lead: Option<u32>, pub election: bool, pub acker_leaving: bool }

/// All options of a packet.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct OptionsRepr {
    pub fragment: Option<FragmentOption>,
    pub nak_list: Vec<u32>,
    pub join: Option<u32>,
    pub syn: bool,
    pub fin: bool,
    pub rst: Option<u8>,
    pub pgmcc_data: Option<PgmccData>,
    pub pgmcc_feedback: Option<PgmccFeedback>,
    pub convoy: ConvoyOptions,
}

/// A whole PGM packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PacketRepr<'a> {
    pub source_port: u16,
    pub dest_port: u16,
    pub gsi: Gsi,
    pub body: BodyRepr,
    pub options: OptionsRepr,
    pub payload: &'a [u8],
}
