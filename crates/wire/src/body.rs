//! [`BodyRepr`]: the type-specific part of each packet (RFC 3208 §8.1–8.3, §13.6, §14.7;
//! OpenPGM's ACK), parsed from and emitted to the bytes after the common header.

use std::net::IpAddr;

use crate::field::{ack, be16, be32, data, header, nak, poll, polr, put16, put32, spm};
use crate::packet_type::PacketType;
use crate::{nla, ParseError};

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

impl BodyRepr {
    /// The packet type this body belongs to.
    pub const fn packet_type(&self) -> PacketType {
        match self {
            Self::Spm { .. } => PacketType::Spm,
            Self::Poll { .. } => PacketType::Poll,
            Self::Polr { .. } => PacketType::Polr,
            Self::Odata { .. } => PacketType::Odata,
            Self::Rdata { .. } => PacketType::Rdata,
            Self::Nak { .. } => PacketType::Nak,
            Self::Nnak { .. } => PacketType::Nnak,
            Self::Ncf { .. } => PacketType::Ncf,
            Self::Spmr => PacketType::Spmr,
            Self::Ack { .. } => PacketType::Ack,
        }
    }

    /// The packet's own sequence number: SPM_SQN, DATA_SQN, the requested SQN of NAK/NNAK/NCF,
    /// POLL_SQN or POLR_SQN. `None` for SPMR and ACK (see [`BodyRepr::Ack`]'s `rx_max`).
    pub const fn sqn(&self) -> Option<u32> {
        match *self {
            Self::Spm { sqn, .. }
            | Self::Poll { sqn, .. }
            | Self::Polr { sqn, .. }
            | Self::Odata { sqn, .. }
            | Self::Rdata { sqn, .. }
            | Self::Nak { sqn, .. }
            | Self::Nnak { sqn, .. }
            | Self::Ncf { sqn, .. } => Some(sqn),
            Self::Spmr | Self::Ack { .. } => None,
        }
    }

    /// TXW_TRAIL of SPM, ODATA and RDATA.
    pub const fn trail(&self) -> Option<u32> {
        match *self {
            Self::Spm { trail, .. } | Self::Odata { trail, .. } | Self::Rdata { trail, .. } => {
                Some(trail)
            }
            _ => None,
        }
    }

    /// Source and group NLAs of NAK, NNAK and NCF.
    pub const fn nak_nlas(&self) -> Option<(IpAddr, IpAddr)> {
        match *self {
            Self::Nak {
                source_nla,
                group_nla,
                ..
            }
            | Self::Nnak {
                source_nla,
                group_nla,
                ..
            }
            | Self::Ncf {
                source_nla,
                group_nla,
                ..
            } => Some((source_nla, group_nla)),
            _ => None,
        }
    }

    /// Length of the type-specific part (after the 16-byte common header, before options).
    pub const fn wire_len(&self) -> usize {
        match self {
            Self::Spm { path_nla, .. } => spm::PATH_NLA - header::LEN + nla::nla_len(path_nla),
            Self::Poll { path_nla, .. } => {
                poll::PATH_NLA - header::LEN + nla::nla_len(path_nla) + poll::TAIL_LEN
            }
            Self::Polr { .. } => polr::END - header::LEN,
            Self::Odata { .. } | Self::Rdata { .. } => data::END - header::LEN,
            Self::Nak {
                source_nla,
                group_nla,
                ..
            }
            | Self::Nnak {
                source_nla,
                group_nla,
                ..
            }
            | Self::Ncf {
                source_nla,
                group_nla,
                ..
            } => nak::SOURCE_NLA - header::LEN + nla::nla_len(source_nla) + nla::nla_len(group_nla),
            Self::Spmr => 0,
            Self::Ack { .. } => ack::END - header::LEN,
        }
    }

    /// Parse the type-specific part of a `packet_type` packet from `packet` (the whole PGM
    /// packet, common header included). Returns the body and the offset where it ends.
    ///
    /// A packet shorter than the fixed part with IPv4 NLAs is reported as truncated at offset
    /// 16 ("type-specific header"); an IPv6 NLA that does not fit is reported at the NLA.
    pub fn parse(packet_type: PacketType, packet: &[u8]) -> Result<(Self, usize), ParseError> {
        let pt = Some(packet_type);
        let need = |n: usize| need(pt, packet, n);
        let u32_at = |r: core::ops::Range<usize>| be32(packet, r.start);
        let u16_at = |r: core::ops::Range<usize>| be16(packet, r.start);
        Ok(match packet_type {
            PacketType::Spm => {
                need(spm::PATH_NLA + nla::NLA_LEN_IPV4)?;
                let (path_nla, end) = nla::parse(packet, spm::PATH_NLA, pt, "path NLA")?;
                let body = Self::Spm {
                    sqn: u32_at(spm::SQN),
                    trail: u32_at(spm::TRAIL),
                    lead: u32_at(spm::LEAD),
                    path_nla,
                };
                (body, end)
            }
            PacketType::Poll => Self::parse_poll(packet)?,
            PacketType::Polr => {
                need(polr::END)?;
                let body = Self::Polr {
                    sqn: u32_at(polr::SQN),
                    round: u16_at(polr::ROUND),
                };
                (body, polr::END)
            }
            PacketType::Odata | PacketType::Rdata => {
                need(data::END)?;
                let (sqn, trail) = (u32_at(data::SQN), u32_at(data::TRAIL));
                let body = if packet_type == PacketType::Odata {
                    Self::Odata { sqn, trail }
                } else {
                    Self::Rdata { sqn, trail }
                };
                (body, data::END)
            }
            PacketType::Nak | PacketType::Nnak | PacketType::Ncf => {
                Self::parse_nak(packet_type, packet)?
            }
            PacketType::Spmr => (Self::Spmr, header::LEN),
            PacketType::Ack => {
                need(ack::END)?;
                let body = Self::Ack {
                    rx_max: u32_at(ack::RX_MAX),
                    bitmap: u32_at(ack::BITMAP),
                };
                (body, ack::END)
            }
        })
    }

    /// POLL (RFC 3208 §14.7.1): the fixed part, the path NLA, then POLL_BO_IVL, POLL_RAND and POLL_MASK.
    fn parse_poll(packet: &[u8]) -> Result<(Self, usize), ParseError> {
        let pt = Some(PacketType::Poll);
        need(
            pt,
            packet,
            poll::PATH_NLA + nla::NLA_LEN_IPV4 + poll::TAIL_LEN,
        )?;
        let (path_nla, tail) = nla::parse(packet, poll::PATH_NLA, pt, "path NLA")?;
        let end = tail + poll::TAIL_LEN;
        if packet.len() < end {
            return Err(ParseError::truncated(
                pt,
                "POLL_BO_IVL",
                tail,
                end,
                packet.len(),
            ));
        }
        let body = Self::Poll {
            sqn: be32(packet, poll::SQN.start),
            round: be16(packet, poll::ROUND.start),
            s_type: be16(packet, poll::S_TYPE.start),
            path_nla,
            backoff_ivl: be32(packet, tail + poll::BACKOFF_IVL.start),
            rand: be32(packet, tail + poll::RAND.start),
            mask: be32(packet, tail + poll::MASK.start),
        };
        Ok((body, end))
    }

    /// NAK, NNAK and NCF (RFC 3208 §8.3): the requested sequence number, the source's and the group's NLAs.
    fn parse_nak(packet_type: PacketType, packet: &[u8]) -> Result<(Self, usize), ParseError> {
        let pt = Some(packet_type);
        need(pt, packet, nak::SOURCE_NLA + 2 * nla::NLA_LEN_IPV4)?;
        let sqn = be32(packet, nak::SQN.start);
        let (source_nla, group) = nla::parse(packet, nak::SOURCE_NLA, pt, "source NLA")?;
        let (group_nla, end) = nla::parse(packet, group, pt, "group NLA")?;
        let body = match packet_type {
            PacketType::Nak => Self::Nak {
                sqn,
                source_nla,
                group_nla,
            },
            PacketType::Nnak => Self::Nnak {
                sqn,
                source_nla,
                group_nla,
            },
            _ => Self::Ncf {
                sqn,
                source_nla,
                group_nla,
            },
        };
        Ok((body, end))
    }

    /// Write the type-specific part at offset 16 of `packet`, which must hold
    /// `16 + self.wire_len()` bytes. Returns the offset where it ends.
    pub(crate) fn emit(&self, packet: &mut [u8]) -> usize {
        match *self {
            Self::Spm {
                sqn,
                trail,
                lead,
                path_nla,
            } => {
                put32(packet, spm::SQN.start, sqn);
                put32(packet, spm::TRAIL.start, trail);
                put32(packet, spm::LEAD.start, lead);
                nla::emit(packet, spm::PATH_NLA, &path_nla)
            }
            Self::Poll {
                sqn,
                round,
                s_type,
                path_nla,
                backoff_ivl,
                rand,
                mask,
            } => {
                put32(packet, poll::SQN.start, sqn);
                put16(packet, poll::ROUND.start, round);
                put16(packet, poll::S_TYPE.start, s_type);
                let tail = nla::emit(packet, poll::PATH_NLA, &path_nla);
                put32(packet, tail + poll::BACKOFF_IVL.start, backoff_ivl);
                put32(packet, tail + poll::RAND.start, rand);
                put32(packet, tail + poll::MASK.start, mask);
                tail + poll::TAIL_LEN
            }
            Self::Polr { sqn, round } => {
                put32(packet, polr::SQN.start, sqn);
                put16(packet, polr::ROUND.start, round);
                put16(packet, polr::RESERVED.start, 0);
                polr::END
            }
            Self::Odata { sqn, trail } | Self::Rdata { sqn, trail } => {
                put32(packet, data::SQN.start, sqn);
                put32(packet, data::TRAIL.start, trail);
                data::END
            }
            Self::Nak {
                sqn,
                source_nla,
                group_nla,
            }
            | Self::Nnak {
                sqn,
                source_nla,
                group_nla,
            }
            | Self::Ncf {
                sqn,
                source_nla,
                group_nla,
            } => {
                put32(packet, nak::SQN.start, sqn);
                let group = nla::emit(packet, nak::SOURCE_NLA, &source_nla);
                nla::emit(packet, group, &group_nla)
            }
            Self::Spmr => header::LEN,
            Self::Ack { rx_max, bitmap } => {
                put32(packet, ack::RX_MAX.start, rx_max);
                put32(packet, ack::BITMAP.start, bitmap);
                ack::END
            }
        }
    }
}

/// Fail unless `packet` holds `n` bytes: the type-specific header is truncated (reported at its start, offset 16).
fn need(pt: Option<PacketType>, packet: &[u8], n: usize) -> Result<(), ParseError> {
    if packet.len() < n {
        Err(ParseError::truncated(
            pt,
            "type-specific header",
            header::LEN,
            n,
            packet.len(),
        ))
    } else {
        Ok(())
    }
}
