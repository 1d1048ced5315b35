//! Typed representations of PGM packets: [`PacketRepr`] with its [`BodyRepr`] and
//! [`OptionsRepr`], and their parse and emit entry points.

use std::net::IpAddr;

use crate::cc::CcOptions;
use crate::header::{flags, Header};
use crate::{
    checksum, field, packet, EmitError, EmitErrorKind, Packet, ParseError, ParseErrorKind,
};

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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BodyRepr {
    /// SPM: SPM_SQN, TXW_TRAIL, TXW_LEAD, path NLA.
    Spm {
        /// SPM_SQN: the SPM's own sequence number.
        sqn: u32,
        /// SPM_TRAIL (TXW_TRAIL).
        trail: u32,
        /// SPM_LEAD (TXW_LEAD).
        lead: u32,
        /// Path NLA: the source's (or last network element's) unicast address.
        path_nla: IpAddr,
    },
    /// POLL.
    Poll {
        /// POLL_SQN.
        sqn: u32,
        /// POLL_ROUND.
        round: u16,
        /// POLL_S_TYPE (0 = general, 1 = DLR).
        s_type: u16,
        /// Path NLA.
        path_nla: IpAddr,
        /// POLL_BO_IVL (microseconds).
        backoff_ivl: u32,
        /// POLL_RAND.
        rand: u32,
        /// POLL_MASK.
        mask: u32,
    },
    /// POLR.
    Polr {
        /// POLR_SQN (equal to the POLL_SQN answered).
        sqn: u32,
        /// POLR_ROUND.
        round: u16,
    },
    /// ODATA: DATA_SQN and TXW_TRAIL.
    Odata {
        /// DATA_SQN.
        sqn: u32,
        /// DATA_TRAIL (TXW_TRAIL).
        trail: u32,
    },
    /// RDATA: DATA_SQN and TXW_TRAIL.
    Rdata {
        /// DATA_SQN of the repaired packet.
        sqn: u32,
        /// DATA_TRAIL (TXW_TRAIL).
        trail: u32,
    },
    /// NAK: requested SQN, source NLA, group NLA.
    Nak {
        /// Requested SQN.
        sqn: u32,
        /// Source NLA: the ODATA source's unicast address.
        source_nla: IpAddr,
        /// Multicast group NLA.
        group_nla: IpAddr,
    },
    /// NNAK, same layout as NAK.
    Nnak {
        /// Requested SQN.
        sqn: u32,
        /// Source NLA.
        source_nla: IpAddr,
        /// Multicast group NLA.
        group_nla: IpAddr,
    },
    /// NCF, same layout as NAK.
    Ncf {
        /// Confirmed SQN.
        sqn: u32,
        /// Source NLA.
        source_nla: IpAddr,
        /// Multicast group NLA.
        group_nla: IpAddr,
    },
    /// SPMR: header only.
    Spmr,
    /// PGMCC ACK: RX_MAX and the 32-bit bitmap (LSB = RX_MAX).
    Ack {
        /// RX_MAX: the highest data SQN received.
        rx_max: u32,
        /// ACK_BITMAP: bit i = RX_MAX − i received (LSB = RX_MAX).
        bitmap: u32,
    },
}

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
/// protocol; the application defines them (Convoy's file transfer: `convoy-net`'s `transfer`
/// module). It rides on an SPMR sent unicast to the source, so a source that does not know it
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
/// (XChaCha20-Poly1305 in convoy-proto) over the whole packet with its checksum and this tag zeroed, the
/// payload encrypted when `encrypted` (byte 3, bit 0x01); the nonce is `sender` then `counter`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct AuthOption {
    /// The payload is encrypted.
    pub encrypted: bool,
    /// The sending endpoint's random identity.
    pub sender: [u8; 16],
    /// The sending endpoint's packet counter: one more for every packet it sends.
    pub counter: u64,
    /// The AEAD tag.
    pub tag: [u8; 16],
}

/// OPT_PARITY_PRM (type 0x08, 8 bytes), RFC 3208 §11.8.1: a source's parity parameters, on SPMs only. The P and
/// O bits are byte 3's 0x02 and 0x01 as the RFC and Wireshark have them (OpenPGM swaps them, pgm-wire.md §1.9
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

/// All options of a packet that Convoy understands. Unknown options are skipped on parse;
/// OPT_LENGTH is implied (written whenever any option is set).
#[derive(Clone, Debug, PartialEq, Eq, Default, Hash)]
pub struct OptionsRepr {
    /// OPT_FRAGMENT.
    pub fragment: Option<FragmentOption>,
    /// OPT_NAK_LIST: extra requested sequence numbers, at most [`crate::MAX_NAK_LIST`]; empty
    /// means the option is absent.
    pub nak_list: Vec<u32>,
    /// OPT_JOIN: minimum sequence number a late joiner may request.
    pub join: Option<u32>,
    /// OPT_SYN: the first packet of the session.
    pub syn: bool,
    /// OPT_FIN: the session is ending.
    pub fin: bool,
    /// OPT_RST: the session is reset; the whole option byte 3 (N bit 0x40, error code 0x3F).
    pub rst: Option<u8>,
    /// 0x33 OPT_CONVOY_RECEIVER_STATUS: an application status report from a receiver, carried on an SPMR
    /// sent unicast to the source.
    pub receiver_status: Option<ReceiverStatus>,
    /// 0x3B OPT_CONVOY_NEEDS: block ranges a receiver lacks, at most [`crate::MAX_NEEDS`], beside its status
    /// report; empty means the option is absent.
    pub needs: Vec<BlockRange>,
    /// 0x3C OPT_CONVOY_AUTH: a keyed session's authentication, always the last option.
    pub auth: Option<AuthOption>,
    /// The congestion-control schemes' options ([`crate::cc`]).
    pub cc: CcOptions,
    /// The parity options (RFC 3208 §11.8).
    pub parity: ParityOptions,
}

/// A whole PGM packet.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PacketRepr<'a> {
    /// Source port: the data-source port on downstream packets (SPM, POLL, ODATA, RDATA, NCF),
    /// the data-destination port on upstream ones (NAK, NNAK, SPMR, POLR, ACK).
    pub source_port: u16,
    /// Destination port: the reverse of `source_port`.
    pub dest_port: u16,
    /// Global source identifier (of the data source, in both directions).
    pub gsi: Gsi,
    /// Type-specific header; also decides the packet type.
    pub body: BodyRepr,
    /// Options.
    pub options: OptionsRepr,
    /// Payload (TSDU); must be empty except on ODATA and RDATA.
    pub payload: &'a [u8],
}

impl core::fmt::Display for Gsi {
    /// Twelve lowercase hex digits, as Wireshark shows a GSI.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        for b in self.0 {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

impl core::fmt::Display for Tsi {
    /// `GSI.port`, e.g. `65aaceceacc1.1093`.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}.{}", self.gsi, self.source_port)
    }
}

impl<'a> PacketRepr<'a> {
    /// Parse a PGM packet (the UDP payload with UDP encapsulation), verifying the checksum
    /// first: it must match, and 0 ("no checksum") is accepted except on ODATA and RDATA.
    /// Then the structure is validated as by [`Packet::new_checked`], and the header's parity flags
    /// against the packet type ([`ParityOptions::flags_allowed`]).
    pub fn parse(bytes: &'a [u8]) -> Result<Self, ParseError> {
        let packet_type = Header::new_checked(bytes)?.packet_type()?;
        packet::verify_checksum(packet_type, bytes)?;
        Self::parse_without_checksum(bytes)
    }

    /// Like [`PacketRepr::parse`] but without looking at the checksum field (for fuzzing, and
    /// for packets whose checksum was already verified or is known to be absent).
    pub fn parse_without_checksum(bytes: &'a [u8]) -> Result<Self, ParseError> {
        let packet = Packet::new_checked(bytes)?;
        let flags = packet.options_flags();
        let parity = flags & flags::OPT_PARITY != 0;
        let var_pktlen = flags & flags::OPT_VAR_PKTLEN != 0;
        if !ParityOptions::flags_allowed(packet.packet_type(), parity, var_pktlen) {
            return Err(ParseError::new(
                Some(packet.packet_type()),
                "options flags",
                field::header::OPTIONS,
                ParseErrorKind::UnsupportedFlags { flags },
            ));
        }
        let mut options = OptionsRepr::from_options(packet.options());
        options.parity.parity = parity;
        options.parity.var_pktlen = var_pktlen;
        let payload_start = bytes.len() - packet.payload().len();
        Ok(Self {
            source_port: packet.source_port(),
            dest_port: packet.dest_port(),
            gsi: packet.gsi(),
            body: packet.body(),
            options,
            payload: bytes.get(payload_start..).unwrap_or(&[]),
        })
    }

    /// The packet type (from the body).
    pub const fn packet_type(&self) -> PacketType {
        self.body.packet_type()
    }

    /// The transport session identifier: the GSI with the data-source port, which is
    /// `source_port` on downstream packets (SPM, POLL, ODATA, RDATA, NCF) and `dest_port` on
    /// upstream ones (NAK, NNAK, SPMR, POLR, ACK), see [`PacketType::is_upstream`].
    pub const fn tsi(&self) -> Tsi {
        let source_port = if self.packet_type().is_upstream() {
            self.dest_port
        } else {
            self.source_port
        };
        Tsi {
            gsi: self.gsi,
            source_port,
        }
    }

    /// Bytes [`PacketRepr::emit`] writes: header, type-specific part, options and payload.
    pub fn buffer_len(&self) -> usize {
        field::header::LEN + self.body.wire_len() + self.options.buffer_len() + self.payload.len()
    }

    /// The most bytes a data packet (ODATA or RDATA) adds to its payload with the options a Convoy source
    /// puts on data — OPT_FRAGMENT (RFC 3208 §9.3) and the largest any congestion-control scheme puts on data
    /// with IPv6 (`ipv6`) or IPv4 addresses ([`crate::SchemeOptions::data_len_max`]) — and OPT_LENGTH: for
    /// sizing TSDUs so that packets fit a path MTU.
    pub fn data_overhead_max(ipv6: bool) -> usize {
        Self::data_overhead_without_cc() + CcOptions::data_len_max(ipv6)
    }

    /// [`PacketRepr::data_overhead_max`] for a source running the scheme called `scheme` (its options module's
    /// name in [`crate::cc`], e.g. `"pgmcc"`): only that scheme's options count. A name no module has (a scheme
    /// without options, such as the fixed rate) adds none.
    pub fn data_overhead(scheme: &str, ipv6: bool) -> usize {
        Self::data_overhead_without_cc() + CcOptions::data_len_max_of(scheme, ipv6)
    }

    fn data_overhead_without_cc() -> usize {
        field::header::LEN
            + BodyRepr::Odata { sqn: 0, trail: 0 }.wire_len()
            + crate::options::OPT_LENGTH_LEN
            + field::option::FRAGMENT_LEN
    }

    /// Check that this repr can be encoded (see [`PacketRepr::emit`] for the rules).
    pub fn check(&self) -> Result<(), EmitError> {
        let packet_type = self.packet_type();
        let len = self.payload.len();
        if len > 0 && !packet_type.is_data() {
            return Err(EmitError {
                packet_type,
                field: "payload",
                kind: EmitErrorKind::PayloadNotAllowed { len },
            });
        }
        if len > usize::from(u16::MAX) {
            return Err(EmitError {
                packet_type,
                field: "payload",
                kind: EmitErrorKind::PayloadTooLong { len },
            });
        }
        if !ParityOptions::flags_allowed(
            packet_type,
            self.options.parity.parity,
            self.options.parity.var_pktlen,
        ) {
            return Err(EmitError {
                packet_type,
                field: "options.parity",
                kind: EmitErrorKind::BadField {
                    value: u32::from(self.options.parity.parity)
                        | u32::from(self.options.parity.var_pktlen) << 1,
                    expected: "OPT_PARITY on ODATA, RDATA, NAK, NNAK or NCF only; OPT_VAR_PKTLEN with it on ODATA or RDATA (RFC 3208 §11.3)",
                },
            });
        }
        self.options.check(packet_type)
    }

    /// Write the packet at the start of `buf` and return its length
    /// ([`PacketRepr::buffer_len`]). The options byte gets OPT_PRESENT when any option is set
    /// and OPT_NETWORK when `nak_list` is not empty; the TSDU length is the payload length; the
    /// checksum is computed last (a computed 0 is written as 0xFFFF).
    ///
    /// Fails, writing nothing, when the payload is not empty on a packet other than ODATA or
    /// RDATA or longer than 65535 bytes, when `nak_list` has more than [`crate::MAX_NAK_LIST`]
    /// entries, when there would be more than [`crate::MAX_OPTIONS`] options, or when `buf` is too
    /// small.
    pub fn emit(&self, buf: &mut [u8]) -> Result<usize, EmitError> {
        self.check()?;
        let need = self.buffer_len();
        let have = buf.len();
        let Some(out) = buf.get_mut(..need) else {
            return Err(EmitError {
                packet_type: self.packet_type(),
                field: "buffer",
                kind: EmitErrorKind::BufferTooSmall { need, have },
            });
        };
        let h = field::header::LEN;
        out[..h].fill(0);
        field::put16(out, field::header::SOURCE_PORT.start, self.source_port);
        field::put16(out, field::header::DEST_PORT.start, self.dest_port);
        out[field::header::TYPE] = self.packet_type().code();
        let mut opt_flags = 0;
        if !self.options.is_empty() {
            opt_flags |= flags::OPT_PRESENT;
        }
        if self.options.is_network_significant(self.packet_type()) {
            opt_flags |= flags::OPT_NETWORK;
        }
        if self.options.parity.parity {
            opt_flags |= flags::OPT_PARITY;
        }
        if self.options.parity.var_pktlen {
            opt_flags |= flags::OPT_VAR_PKTLEN;
        }
        out[field::header::OPTIONS] = opt_flags;
        out[field::header::GSI].copy_from_slice(&self.gsi.0);
        // `check` bounds the payload length by u16::MAX.
        field::put16(
            out,
            field::header::TSDU_LENGTH.start,
            self.payload.len() as u16,
        );
        let body_end = self.body.emit(out);
        let options_end = body_end + self.options.emit(&mut out[body_end..]);
        out[options_end..].copy_from_slice(self.payload);
        checksum::fill(out);
        Ok(need)
    }
}

/// A parse kept apart from the bytes it was made from: every field of [`PacketRepr`] but the payload, which is
/// kept as its offset. A driver that hands one packet to many endpoints — the simulator's multicast fan-out —
/// parses it once and keeps this beside the shared bytes, which a [`PacketRepr`] borrowing them cannot be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DetachedRepr {
    /// The packet, with an empty payload.
    pub header: PacketRepr<'static>,
    /// Where the payload begins in the bytes.
    pub payload_at: usize,
}

impl DetachedRepr {
    /// [`PacketRepr::parse_without_checksum`], detached from `bytes`.
    pub fn parse_without_checksum(bytes: &[u8]) -> Result<Self, ParseError> {
        let repr = PacketRepr::parse_without_checksum(bytes)?;
        Ok(DetachedRepr {
            payload_at: bytes.len() - repr.payload.len(),
            header: PacketRepr {
                source_port: repr.source_port,
                dest_port: repr.dest_port,
                gsi: repr.gsi,
                body: repr.body,
                options: repr.options,
                payload: &[],
            },
        })
    }

    /// The payload in `bytes`, the bytes this was parsed from.
    pub fn payload<'a>(&self, bytes: &'a [u8]) -> &'a [u8] {
        bytes.get(self.payload_at..).unwrap_or(&[])
    }
}
