//! The values of the options Convoy reads and writes beyond the congestion-control schemes' ([`crate::cc`]):
//! fragments, Convoy's receiver status, needs and authentication, and RFC 3208 §11's parity options.

use crate::packet_type::PacketType;

/// OPT_FRAGMENT (type 0x01, 16 bytes), RFC 3208 §9.2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FragmentOption {
    /// Sequence number of the APDU's first fragment.
    pub first_sqn: u32,
    /// Offset of this fragment in the APDU (OPT_FRAG_OFF).
    pub offset: u32,
    /// Total APDU length (OPT_FRAG_LEN).
    pub apdu_len: u32,
}

/// 0x33 OPT_CONVOY_RECEIVER_STATUS (16 bytes): a receiver tells the source how it is doing at
/// the application level (joined, finished, failed, ...). The three values are opaque to the
/// protocol; the application defines them (Convoy's file transfer: the `convoy-transfer` crate). It rides on an SPMR sent unicast to the source, so a source that does not know it
/// (OpenPGM) merely answers with an SPM.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct ReceiverStatus {
    /// Identifies what the report is about (e.g. a transfer id), so stale reports can be told
    /// apart.
    pub token: u32,
    /// State code.
    pub state: u32,
    /// Detail for the state (a count, an error code, ...).
    pub detail: u32,
}

/// One range of OPT_CONVOY_NEEDS: `count` blocks from block `first` (block numbering is the application's;
/// Convoy's file transfer numbers the blocks of all files of a manifest in order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct BlockRange {
    /// The first block.
    pub first: u32,
    /// How many blocks.
    pub count: u32,
}

/// 0x3C OPT_CONVOY_AUTH (44 bytes): the authentication of a keyed session's packet. The tag is an AEAD tag
/// (the `suite`'s, in convoy-proto's `auth`) over the whole packet with its checksum and this tag zeroed, the
/// payload encrypted when `encrypted` (byte 3, bit 0x01); the nonce is made of `sender` and `counter`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct AuthOption {
    /// The payload is encrypted.
    pub encrypted: bool,
    /// The AEAD suite (byte 3's high nibble, 0–15; docs/keyed-sessions.md).
    pub suite: u8,
    /// The sending endpoint's random identity.
    pub sender: [u8; 16],
    /// The sending endpoint's packet counter: one more for every packet it sends.
    pub counter: u64,
    /// The AEAD tag.
    pub tag: [u8; 16],
}

/// OPT_PARITY_PRM (type 0x08, 8 bytes), RFC 3208 §11.8.1: a source's parity parameters, on SPMs only. The P and
/// O bits are byte 3's 0x02 and 0x01 as the RFC and Wireshark have them (OpenPGM swaps them, docs/wire-format.md §1.9
/// D3); at least one is set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ParityParams {
    /// P (PARITY_PRM_PRO): the source sends pro-active parity.
    pub proactive: bool,
    /// O (PARITY_PRM_OND): the source answers parity NAKs with on-demand parity.
    pub on_demand: bool,
    /// PARITY_PRM_TGS: the transmission group size k (the largest when groups vary), a power of 2.
    pub tg_size: u32,
}

/// The parity options of RFC 3208 §11: the two the header's options byte encodes directly (§11.3) and the three
/// option extensions of §11.8, all 8 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct ParityOptions {
    /// OPT_PARITY (options byte 0x80): on ODATA and RDATA, a parity packet whose DATA_SQN is the group's
    /// TG_SQN plus its parity number (§11.2); on NAK, NNAK and NCF, a parity NAK (or its confirmation) whose
    /// SQN is the group's TG_SQN plus NAK_PKT_CNT, the number of parity packets asked for less one (§11.3.1–2).
    /// On a parity packet, OPT_FRAGMENT is the encoded option of §11.2 ("Payload-specific options"), emitted
    /// with OP_ENCODED set.
    pub parity: bool,
    /// OPT_VAR_PKTLEN (options byte 0x40), with OPT_PARITY on ODATA and RDATA only: the group's TSDUs differ in
    /// length, and each coded packet ends with its TSDU length (§11.2, "Variable TSDU length").
    pub var_pktlen: bool,
    /// 0x08 OPT_PARITY_PRM, on SPMs (network-significant).
    pub params: Option<ParityParams>,
    /// 0x09 OPT_PARITY_GRP: the group of k parity packets a parity packet numbered beyond k − 1 belongs to
    /// (PRM_GROUP, never 0), on parity packets only.
    pub group: Option<u32>,
    /// 0x0A OPT_CURR_TGSIZE: the actual size of a truncated transmission group, on its last ODATA, its parity
    /// packets and SPMs (network-significant except on ODATA).
    pub curr_tg_size: Option<u32>,
    /// 0x3D OPT_CONVOY_PARITY_CODE (4 bytes, the code in byte 3): the code of the source's parity packets, on SPMs
    /// beside OPT_PARITY_PRM. RFC 3208 §11 leaves the code to the implementation; a receiver decodes only a code it
    /// knows ([`crate::options::PARITY_CODE_RS16`], Convoy's).
    pub code: Option<u8>,
}

impl ParityOptions {
    /// Whether a packet of `packet_type` may carry the header's OPT_PARITY (`parity`) and OPT_VAR_PKTLEN
    /// (`var_pktlen`) flags: OPT_PARITY on ODATA and RDATA (parity packets) and on NAK, NNAK and NCF (parity
    /// NAKs), OPT_VAR_PKTLEN only beside it on ODATA and RDATA (RFC 3208 §11.3).
    pub fn flags_allowed(packet_type: PacketType, parity: bool, var_pktlen: bool) -> bool {
        use PacketType::*;
        let parity_ok = !parity || matches!(packet_type, Odata | Rdata | Nak | Nnak | Ncf);
        let var_ok = !var_pktlen || (parity && packet_type.is_data());
        parity_ok && var_ok
    }

    /// How many of the four option extensions are set (the header's two flags are not options).
    pub fn count(&self) -> usize {
        usize::from(self.params.is_some())
            + usize::from(self.group.is_some())
            + usize::from(self.curr_tg_size.is_some())
            + usize::from(self.code.is_some())
    }
}

/// 0x3E OPT_CONVOY_LEAVE (20 bytes with an IPv4 NLA, 32 with IPv6): the source asks one receiver to leave the
/// session because the rate its controller credits it with stayed below the session's minimum
/// (`convoy send --min-rate`, docs/transfer.md "Shedding a slow receiver"). The TFMCC paper's §1: "applications
/// using a single-rate scheme would use application-specific thresholds at which a receiver is compelled to
/// leave". Carried on ODATA and SPMs; a receiver that finds its own address leaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LeaveOption {
    /// The session's minimum rate, kbit/s.
    pub min_rate_kbps: u32,
    /// The rate the source's controller last credited the receiver with, kbit/s.
    pub rate_kbps: u32,
    /// The receiver asked to leave.
    pub receiver: std::net::IpAddr,
}
