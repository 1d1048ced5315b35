//! Byte offsets of every field, in one place per packet type (RFC 3208 §8, docs/wire-format.md §1.2–1.4).
//!
//! Offsets are from the start of the PGM header, except in [`nla`] and [`option`], whose offsets
//! are from the start of the NLA or option. Where a field follows a network-layer address, its
//! offset is given relative to the end of that NLA (an IPv6 NLA is 12 bytes longer than IPv4).
//! All multi-byte fields are big-endian (network byte order). The limits on option lists ([`MAX_OPTIONS`],
//! [`MAX_NAK_LIST`], [`MAX_NEEDS`]) are here too, beside the lengths they follow from.

/// A field occupying a byte range.
pub type Field = core::ops::Range<usize>;

/// At most this many options per packet, counting OPT_LENGTH (RFC 3208 §9).
pub const MAX_OPTIONS: usize = 16;
/// At most this many sequence numbers in OPT_NAK_LIST (RFC 3208 §9.3: "at most 62").
pub const MAX_NAK_LIST: usize = 62;
/// At most this many block ranges in OPT_CONVOY_NEEDS: 8 bytes each after the 4-byte TLV header, within the
/// one-byte option length.
pub const MAX_NEEDS: usize = 31;

/// The 16-byte common header, RFC 3208 §8.
pub mod header {
    use super::Field;
    /// Source port (data-source port downstream, data-destination port upstream).
    pub const SOURCE_PORT: Field = 0..2;
    /// Destination port.
    pub const DEST_PORT: Field = 2..4;
    /// Type byte: version (bits 7–6), reserved (bits 5–4), packet type (bits 3–0).
    pub const TYPE: usize = 4;
    /// Options byte (OPT_PRESENT, OPT_NETWORK, OPT_VAR_PKTLEN, OPT_PARITY).
    pub const OPTIONS: usize = 5;
    /// Checksum.
    pub const CHECKSUM: Field = 6..8;
    /// Global source identifier.
    pub const GSI: Field = 8..14;
    /// TSDU (payload) length.
    pub const TSDU_LENGTH: Field = 14..16;
    /// Length of the common header.
    pub const LEN: usize = 16;
}

/// SPM (0x00), RFC 3208 §8.1.
pub mod spm {
    use super::Field;
    /// SPM_SQN.
    pub const SQN: Field = 16..20;
    /// SPM_TRAIL (TXW_TRAIL).
    pub const TRAIL: Field = 20..24;
    /// SPM_LEAD (TXW_LEAD).
    pub const LEAD: Field = 24..28;
    /// Start of the path NLA; the SPM's fixed part ends with it.
    pub const PATH_NLA: usize = 28;
}

/// POLL (0x01), RFC 3208 §14.7.1.
pub mod poll {
    use super::Field;
    /// POLL_SQN.
    pub const SQN: Field = 16..20;
    /// POLL_ROUND.
    pub const ROUND: Field = 20..22;
    /// POLL_S_TYPE.
    pub const S_TYPE: Field = 22..24;
    /// Start of the path NLA.
    pub const PATH_NLA: usize = 24;
    /// POLL_BO_IVL, relative to the end of the path NLA.
    pub const BACKOFF_IVL: Field = 0..4;
    /// POLL_RAND, relative to the end of the path NLA.
    pub const RAND: Field = 4..8;
    /// POLL_MASK, relative to the end of the path NLA.
    pub const MASK: Field = 8..12;
    /// Bytes after the path NLA.
    pub const TAIL_LEN: usize = 12;
}

/// POLR (0x02), RFC 3208 §14.7.2.
pub mod polr {
    use super::Field;
    /// POLR_SQN.
    pub const SQN: Field = 16..20;
    /// POLR_ROUND.
    pub const ROUND: Field = 20..22;
    /// Reserved (written 0, ignored).
    pub const RESERVED: Field = 22..24;
    /// End of the fixed part.
    pub const END: usize = 24;
}

/// ODATA (0x04) and RDATA (0x05), RFC 3208 §8.2.
pub mod data {
    use super::Field;
    /// DATA_SQN.
    pub const SQN: Field = 16..20;
    /// DATA_TRAIL (TXW_TRAIL).
    pub const TRAIL: Field = 20..24;
    /// End of the fixed part.
    pub const END: usize = 24;
}

/// NAK (0x08), NNAK (0x09) and NCF (0x0A), RFC 3208 §8.3. The group NLA directly follows the
/// source NLA.
pub mod nak {
    use super::Field;
    /// Requested SQN.
    pub const SQN: Field = 16..20;
    /// Start of the source NLA.
    pub const SOURCE_NLA: usize = 20;
}

/// ACK (0x0D, PGMCC; OpenPGM `struct pgm_ack`).
pub mod ack {
    use super::Field;
    /// RX_MAX.
    pub const RX_MAX: Field = 16..20;
    /// ACK_BITMAP (LSB = RX_MAX).
    pub const BITMAP: Field = 20..24;
    /// End of the fixed part.
    pub const END: usize = 24;
}

/// Network-layer address: AFI, reserved, address. Offsets from the start of the NLA.
pub mod nla {
    use super::Field;
    /// Address family indicator (1 = IPv4, 2 = IPv6).
    pub const AFI: Field = 0..2;
    /// Reserved (written 0, ignored).
    pub const RESERVED: Field = 2..4;
    /// Start of the address (4 or 16 bytes).
    pub const ADDRESS: usize = 4;
}

/// Option TLV, RFC 3208 §9. Offsets from the start of the option.
pub mod option {
    use super::Field;
    /// `E` bit (0x80) and 7-bit option type.
    pub const TYPE: usize = 0;
    /// Total option length, including these first bytes.
    pub const LENGTH: usize = 1;
    /// Reserved / F / OPX byte (ignored on receipt, written 0).
    pub const OPX: usize = 2;
    /// U bit plus option-specific bits (OPT_RST uses it).
    pub const SPECIFIC: usize = 3;
    /// Start of the option value.
    pub const VALUE: usize = 4;

    /// OPT_LENGTH: total length of all options, including OPT_LENGTH.
    pub const TOTAL_LENGTH: Field = 2..4;

    /// OPT_FRAGMENT: its length.
    pub const FRAGMENT_LEN: usize = 16;
    /// OPT_FRAGMENT: first SQN of the APDU.
    pub const FRAG_FIRST_SQN: Field = 4..8;
    /// OPT_FRAGMENT: offset of this fragment in the APDU.
    pub const FRAG_OFFSET: Field = 8..12;
    /// OPT_FRAGMENT: APDU length.
    pub const FRAG_APDU_LEN: Field = 12..16;

    /// OPT_JOIN: minimum SQN.
    pub const JOIN_MIN_SQN: Field = 4..8;

    /// OPT_PARITY_PRM, OPT_PARITY_GRP, OPT_CURR_TGSIZE: their length (RFC 3208 §11.8).
    pub const PARITY_OPTION_LEN: usize = 8;
    /// OPT_PARITY_PRM: the transmission group size (PARITY_PRM_TGS); its P and O bits are in byte 3.
    pub const PARITY_PRM_TGS: Field = 4..8;
    /// OPT_PARITY_GRP: the parity group number (PRM_GROUP).
    pub const PARITY_GRP_NUMBER: Field = 4..8;
    /// OPT_CURR_TGSIZE: the actual transmission group size (PRM_ATGSIZE).
    pub const CURR_TGSIZE: Field = 4..8;

    /// OPT_CONVOY_RECEIVER_STATUS: application-chosen session token.
    pub const CONVOY_STATUS_TOKEN: Field = 4..8;
    /// OPT_CONVOY_RECEIVER_STATUS: application-defined state code.
    pub const CONVOY_STATUS_STATE: Field = 8..12;
    /// OPT_CONVOY_RECEIVER_STATUS: application-defined detail (a count, an error code, ...).
    pub const CONVOY_STATUS_DETAIL: Field = 12..16;

    /// OPT_CONVOY_AUTH: its length.
    pub const AUTH_LEN: usize = 44;
    /// OPT_CONVOY_AUTH: the sending endpoint's random identity (the first 16 bytes of the AEAD nonce).
    pub const AUTH_SENDER: Field = 4..20;
    /// OPT_CONVOY_AUTH: the sending endpoint's packet counter (the last 8 bytes of the nonce).
    pub const AUTH_COUNTER: Field = 20..28;
    /// OPT_CONVOY_AUTH: the AEAD tag.
    pub const AUTH_TAG: Field = 28..44;

    /// OPT_CONVOY_LEAVE: the session's minimum rate (kbit/s).
    pub const CONVOY_LEAVE_MIN_RATE: Field = 4..8;
    /// OPT_CONVOY_LEAVE: the rate credited to the receiver asked to leave (kbit/s).
    pub const CONVOY_LEAVE_RATE: Field = 8..12;
    /// OPT_CONVOY_LEAVE: where the receiver's NLA starts (it ends the option).
    pub const CONVOY_LEAVE_NLA: usize = 12;

    /// OPT_CONVOY_NEEDS: bytes per range, after the 4-byte TLV header.
    pub const CONVOY_NEEDS_ENTRY_LEN: usize = 8;
    /// OPT_CONVOY_NEEDS, within one range: its first block.
    pub const CONVOY_NEEDS_FIRST: Field = 0..4;
    /// OPT_CONVOY_NEEDS, within one range: how many blocks from the first.
    pub const CONVOY_NEEDS_COUNT: Field = 4..8;
}

/// Read a big-endian u16 at `at`; 0 if out of bounds (never after validation).
pub(crate) fn be16(b: &[u8], at: usize) -> u16 {
    match at.checked_add(2).and_then(|end| b.get(at..end)) {
        Some(&[x, y]) => u16::from_be_bytes([x, y]),
        _ => 0,
    }
}

/// Read a big-endian u32 at `at`; 0 if out of bounds (never after validation).
pub(crate) fn be32(b: &[u8], at: usize) -> u32 {
    match at.checked_add(4).and_then(|end| b.get(at..end)) {
        Some(&[w, x, y, z]) => u32::from_be_bytes([w, x, y, z]),
        _ => 0,
    }
}

/// Read the byte at `at`; 0 if out of bounds.
pub(crate) fn byte(b: &[u8], at: usize) -> u8 {
    b.get(at).copied().unwrap_or(0)
}

/// Write a big-endian u16 at `at`. The caller has checked the length.
pub(crate) fn put16(b: &mut [u8], at: usize, v: u16) {
    b[at..at + 2].copy_from_slice(&v.to_be_bytes());
}

/// Write a big-endian u32 at `at`. The caller has checked the length.
pub(crate) fn put32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_be_bytes());
}
