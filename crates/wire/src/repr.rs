//! Typed representations of PGM packets: [`PacketRepr`] with its [`BodyRepr`] and
//! [`OptionsRepr`], and their parse and emit entry points.

use crate::body::BodyRepr;
use crate::cc::CcOptions;
use crate::header::{flags, Header};
use crate::option_values::ParityOptions;
use crate::options_repr::OptionsRepr;
use crate::packet_type::PacketType;
use crate::session_id::{Gsi, Tsi};
use crate::{
    checksum, field, packet, EmitError, EmitErrorKind, Packet, ParseError, ParseErrorKind,
};

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
        let len = self.emit_for_sealing(buf)?;
        checksum::fill(&mut buf[..len]);
        Ok(len)
    }

    /// [`PacketRepr::emit`] but for the checksum, left zero: for a keyed session's packet, emitted with room
    /// for OPT_CONVOY_AUTH ([`crate::AuthSlot`]) and sealed next, which fills the checksum over the sealed bytes
    /// (computing it here too would be wasted).
    pub fn emit_for_sealing(&self, buf: &mut [u8]) -> Result<usize, EmitError> {
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
