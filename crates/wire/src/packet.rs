//! [`Packet`]: a validated, zero-copy view of a whole PGM packet.

use std::net::IpAddr;

use crate::field::header as hdr;
use crate::header::{flags, Header};
use crate::options::{self, Options, RawOptions};
use crate::{checksum, BodyRepr, Gsi, PacketType, ParseError, ParseErrorKind, Tsi};

/// A view of a PGM packet in `buffer` (the UDP payload, or the IP payload for raw PGM).
///
/// [`Packet::new_checked`] validates the structure once: the common header, a known packet type
/// with version 0, the type-specific header with known NLA families, the option TLV chain and
/// every known option's length (see [`crate::options`]), and that the TSDU length matches the
/// bytes that follow the options exactly (0 for packets other than ODATA and RDATA). After that
/// no accessor can panic. It does **not** verify the checksum (see [`Packet::verify_checksum`])
/// nor reject parity packets; [`crate::PacketRepr::parse`] does both.
///
/// The decoded type-specific fields are kept in the view, so the per-type accessors
/// (`sqn`, `trail`, `source_nla`, …) are plain reads; they return `None` for packet types
/// without that field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Packet<T: AsRef<[u8]>> {
    buffer: T,
    body: BodyRepr,
    body_end: usize,
    options_end: usize,
}

impl<T: AsRef<[u8]>> Packet<T> {
    /// Wrap and validate `buffer`.
    pub fn new_checked(buffer: T) -> Result<Self, ParseError> {
        let bytes = buffer.as_ref();
        let header = Header::new_checked(bytes)?;
        let packet_type = header.packet_type()?;
        let pt = Some(packet_type);
        let (body, body_end) = BodyRepr::parse(packet_type, bytes)?;
        let options_end = if header.has_options() {
            let raw = RawOptions::new(bytes, body_end, pt)?;
            let end = raw.end();
            options::validate(raw)?;
            end
        } else {
            body_end
        };
        let declared = usize::from(header.tsdu_length());
        let actual = bytes.len().saturating_sub(options_end);
        if declared != 0 && !packet_type.is_data() {
            return Err(ParseError::new(
                pt,
                "TSDU length",
                hdr::TSDU_LENGTH.start,
                ParseErrorKind::PayloadNotAllowed { len: declared },
            ));
        }
        if declared != actual {
            return Err(ParseError::new(
                pt,
                "TSDU length",
                hdr::TSDU_LENGTH.start,
                ParseErrorKind::TsduLength { declared, actual },
            ));
        }
        Ok(Self {
            buffer,
            body,
            body_end,
            options_end,
        })
    }

    /// The wrapped buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// The whole packet.
    pub fn as_bytes(&self) -> &[u8] {
        self.buffer.as_ref()
    }

    /// The common header.
    pub fn header(&self) -> Header<&[u8]> {
        // The length was checked by `new_checked`; header accessors never panic anyway.
        Header::new_unchecked(self.as_bytes())
    }

    /// Source port: the data-source port on downstream packets, the data-destination port on
    /// upstream ones (see [`PacketType::is_upstream`]).
    pub fn source_port(&self) -> u16 {
        self.header().source_port()
    }

    /// Destination port.
    pub fn dest_port(&self) -> u16 {
        self.header().dest_port()
    }

    /// The packet type.
    pub fn packet_type(&self) -> PacketType {
        self.body.packet_type()
    }

    /// Options byte (header byte 5); see [`flags`].
    pub fn options_flags(&self) -> u8 {
        self.header().options_flags()
    }

    /// True if OPT_PRESENT is set.
    pub fn has_options(&self) -> bool {
        self.options_flags() & flags::OPT_PRESENT != 0
    }

    /// True if OPT_NETWORK is set (as sent; not checked against the options).
    pub fn is_network_significant(&self) -> bool {
        self.options_flags() & flags::OPT_NETWORK != 0
    }

    /// True if OPT_PARITY or OPT_VAR_PKTLEN is set: an FEC parity packet.
    pub fn is_parity(&self) -> bool {
        self.options_flags() & (flags::OPT_PARITY | flags::OPT_VAR_PKTLEN) != 0
    }

    /// Checksum as carried; 0 means "no checksum".
    pub fn checksum(&self) -> u16 {
        self.header().checksum()
    }

    /// The checksum computed over the packet (0 mapped to 0xFFFF).
    pub fn computed_checksum(&self) -> u16 {
        checksum::pgm(self.as_bytes())
    }

    /// Verify the checksum: it must match, or be 0 ("no checksum") on packets other than
    /// ODATA and RDATA.
    pub fn verify_checksum(&self) -> Result<(), ParseError> {
        verify_checksum(self.packet_type(), self.as_bytes())
    }

    /// Global source identifier.
    pub fn gsi(&self) -> Gsi {
        self.header().gsi()
    }

    /// The transport session identifier: the GSI with the data-source port, which is the
    /// source port of downstream packets and the destination port of upstream ones.
    pub fn tsi(&self) -> Tsi {
        let source_port = if self.packet_type().is_upstream() {
            self.dest_port()
        } else {
            self.source_port()
        };
        Tsi {
            gsi: self.gsi(),
            source_port,
        }
    }

    /// TSDU length (= the payload length, checked).
    pub fn tsdu_length(&self) -> u16 {
        self.header().tsdu_length()
    }

    /// The decoded type-specific header.
    pub fn body(&self) -> BodyRepr {
        self.body
    }

    /// The type-specific header bytes (after the common header, before the options).
    pub fn body_bytes(&self) -> &[u8] {
        self.as_bytes().get(hdr::LEN..self.body_end).unwrap_or(&[])
    }

    /// The packet's own sequence number (see [`BodyRepr::sqn`]).
    pub fn sqn(&self) -> Option<u32> {
        self.body.sqn()
    }

    /// TXW_TRAIL of SPM, ODATA and RDATA.
    pub fn trail(&self) -> Option<u32> {
        self.body.trail()
    }

    /// TXW_LEAD of an SPM.
    pub fn lead(&self) -> Option<u32> {
        match self.body {
            BodyRepr::Spm { lead, .. } => Some(lead),
            _ => None,
        }
    }

    /// Path NLA of SPM and POLL.
    pub fn path_nla(&self) -> Option<IpAddr> {
        match self.body {
            BodyRepr::Spm { path_nla, .. } | BodyRepr::Poll { path_nla, .. } => Some(path_nla),
            _ => None,
        }
    }

    /// Source NLA of NAK, NNAK and NCF.
    pub fn source_nla(&self) -> Option<IpAddr> {
        self.body.nak_nlas().map(|(s, _)| s)
    }

    /// Group NLA of NAK, NNAK and NCF.
    pub fn group_nla(&self) -> Option<IpAddr> {
        self.body.nak_nlas().map(|(_, g)| g)
    }

    /// POLL_ROUND of POLL and POLR.
    pub fn poll_round(&self) -> Option<u16> {
        match self.body {
            BodyRepr::Poll { round, .. } | BodyRepr::Polr { round, .. } => Some(round),
            _ => None,
        }
    }

    /// POLL_S_TYPE, POLL_BO_IVL, POLL_RAND and POLL_MASK of a POLL.
    pub fn poll_params(&self) -> Option<(u16, u32, u32, u32)> {
        match self.body {
            BodyRepr::Poll {
                s_type,
                backoff_ivl,
                rand,
                mask,
                ..
            } => Some((s_type, backoff_ivl, rand, mask)),
            _ => None,
        }
    }

    /// RX_MAX of an ACK.
    pub fn rx_max(&self) -> Option<u32> {
        match self.body {
            BodyRepr::Ack { rx_max, .. } => Some(rx_max),
            _ => None,
        }
    }

    /// ACK_BITMAP of an ACK (LSB = RX_MAX).
    pub fn ack_bitmap(&self) -> Option<u32> {
        match self.body {
            BodyRepr::Ack { bitmap, .. } => Some(bitmap),
            _ => None,
        }
    }

    /// Offset where the options start (= the end of the type-specific header).
    pub fn options_offset(&self) -> usize {
        self.body_end
    }

    /// All option bytes, OPT_LENGTH included; empty without options.
    pub fn options_bytes(&self) -> &[u8] {
        self.as_bytes()
            .get(self.body_end..self.options_end)
            .unwrap_or(&[])
    }

    /// The options at TLV level, OPT_LENGTH first.
    pub fn raw_options(&self) -> RawOptions<'_> {
        if self.has_options() {
            RawOptions::new(self.as_bytes(), self.body_end, Some(self.packet_type()))
                .unwrap_or_else(|_| RawOptions::empty())
        } else {
            RawOptions::empty()
        }
    }

    /// The decoded options, OPT_LENGTH first, unknown ones as [`crate::PgmOption::Unknown`].
    pub fn options(&self) -> Options<'_> {
        Options::new(self.raw_options())
    }

    /// The payload (TSDU); empty for packets other than ODATA and RDATA.
    pub fn payload(&self) -> &[u8] {
        self.as_bytes().get(self.options_end..).unwrap_or(&[])
    }

    /// Offset where the payload starts (= the end of the options).
    pub fn payload_offset(&self) -> usize {
        self.options_end
    }

    /// Offset of 0x3C OPT_CONVOY_AUTH from the start of the packet, if the packet carries it; its tag is at
    /// `field::option::AUTH_TAG` from there.
    pub fn auth_option_offset(&self) -> Option<usize> {
        self.raw_options()
            .filter_map(Result::ok)
            .find(|o| o.option_type() == crate::opt::CONVOY_AUTH)
            .map(|o| o.offset())
    }
}

/// Verify the checksum of a packet of type `packet_type` (see [`Packet::verify_checksum`]).
pub(crate) fn verify_checksum(packet_type: PacketType, bytes: &[u8]) -> Result<(), ParseError> {
    let h = Header::new_checked(bytes)?;
    let found = h.checksum();
    if found == 0 {
        return if packet_type.is_data() {
            Err(ParseError::new(
                Some(packet_type),
                "checksum",
                hdr::CHECKSUM.start,
                ParseErrorKind::MissingChecksum,
            ))
        } else {
            Ok(())
        };
    }
    let computed = checksum::pgm(bytes);
    if computed == found {
        Ok(())
    } else {
        Err(ParseError::new(
            Some(packet_type),
            "checksum",
            hdr::CHECKSUM.start,
            ParseErrorKind::ChecksumMismatch { computed, found },
        ))
    }
}
