//! Network-layer addresses (NLAs): `AFI (u16) | reserved (u16) | address`, RFC 3208 §8 with
//! AFIs from RFC 1700: 1 = IPv4 (4-byte address), 2 = IPv6 (16-byte address). Any other AFI is
//! an error naming the field. The reserved field is written 0 and ignored on receipt.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use crate::field::{be16, nla as field, put16};
use crate::{PacketType, ParseError, ParseErrorKind};

/// AFI of an IPv4 NLA.
pub const AFI_IPV4: u16 = 1;
/// AFI of an IPv6 NLA.
pub const AFI_IPV6: u16 = 2;

/// Encoded length of an IPv4 NLA (AFI, reserved, 4-byte address).
pub const NLA_LEN_IPV4: usize = 8;
/// Encoded length of an IPv6 NLA (AFI, reserved, 16-byte address).
pub const NLA_LEN_IPV6: usize = 20;

/// The encoded length of `addr` as an NLA.
pub const fn nla_len(addr: &IpAddr) -> usize {
    match addr {
        IpAddr::V4(_) => NLA_LEN_IPV4,
        IpAddr::V6(_) => NLA_LEN_IPV6,
    }
}

/// The AFI of `addr`.
pub const fn afi(addr: &IpAddr) -> u16 {
    match addr {
        IpAddr::V4(_) => AFI_IPV4,
        IpAddr::V6(_) => AFI_IPV6,
    }
}

/// The encoded NLA length for an AFI, if the AFI is known.
pub const fn nla_len_for_afi(afi: u16) -> Option<usize> {
    match afi {
        AFI_IPV4 => Some(NLA_LEN_IPV4),
        AFI_IPV6 => Some(NLA_LEN_IPV6),
        _ => None,
    }
}

/// Parse the NLA starting at `offset` of `packet`. Returns the address and the offset just
/// past it. `field_name` and `packet_type` go into errors: a truncated NLA or an unknown AFI.
pub fn parse(
    packet: &[u8],
    offset: usize,
    packet_type: Option<PacketType>,
    field_name: &'static str,
) -> Result<(IpAddr, usize), ParseError> {
    let have = packet.len();
    let afi_end = offset.saturating_add(field::RESERVED.end);
    if have < afi_end {
        return Err(ParseError::truncated(
            packet_type,
            field_name,
            offset,
            afi_end,
            have,
        ));
    }
    let afi = be16(packet, offset + field::AFI.start);
    let Some(len) = nla_len_for_afi(afi) else {
        return Err(ParseError::new(
            packet_type,
            field_name,
            offset,
            ParseErrorKind::UnknownAfi { afi },
        ));
    };
    let end = offset.saturating_add(len);
    let addr_bytes = packet
        .get(offset + field::ADDRESS..end)
        .ok_or(ParseError::truncated(
            packet_type,
            field_name,
            offset,
            end,
            have,
        ))?;
    let addr = if let Ok(a) = <[u8; 4]>::try_from(addr_bytes) {
        IpAddr::V4(Ipv4Addr::from(a))
    } else if let Ok(a) = <[u8; 16]>::try_from(addr_bytes) {
        IpAddr::V6(Ipv6Addr::from(a))
    } else {
        // Unreachable: `len` is 8 or 20, so the slice has 4 or 16 bytes.
        return Err(ParseError::new(
            packet_type,
            field_name,
            offset,
            ParseErrorKind::UnknownAfi { afi },
        ));
    };
    Ok((addr, end))
}

/// Write `addr` as an NLA at `offset` of `buf`; returns the offset just past it.
/// The caller has checked that `buf` is long enough (`offset + nla_len(addr)`).
pub(crate) fn emit(buf: &mut [u8], offset: usize, addr: &IpAddr) -> usize {
    put16(buf, offset + field::AFI.start, afi(addr));
    put16(buf, offset + field::RESERVED.start, 0);
    let a = offset + field::ADDRESS;
    match addr {
        IpAddr::V4(v4) => {
            buf[a..a + 4].copy_from_slice(&v4.octets());
            a + 4
        }
        IpAddr::V6(v6) => {
            buf[a..a + 16].copy_from_slice(&v6.octets());
            a + 16
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v4_and_v6() {
        let b = [0, 1, 0, 0, 10, 99, 0, 1];
        assert_eq!(
            parse(&b, 0, None, "nla"),
            Ok((IpAddr::V4(Ipv4Addr::new(10, 99, 0, 1)), 8))
        );
        let mut b6 = vec![0xee, 0, 2, 0xff, 0xff];
        b6.extend_from_slice(&Ipv6Addr::LOCALHOST.octets());
        assert_eq!(
            parse(&b6, 1, None, "nla"),
            Ok((IpAddr::V6(Ipv6Addr::LOCALHOST), 21))
        );
        let mut out = [0u8; 21];
        assert_eq!(emit(&mut out, 1, &IpAddr::V6(Ipv6Addr::LOCALHOST)), 21);
        assert_eq!(&out[1..3], &[0, 2]);
        assert_eq!(&out[5..], &Ipv6Addr::LOCALHOST.octets());
    }

    #[test]
    fn errors() {
        let e = parse(
            &[0, 3, 0, 0, 1, 2, 3, 4],
            0,
            Some(PacketType::Nak),
            "group NLA",
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "NAK: group NLA at offset 0: address family 3, expected 1 (IPv4) or 2 (IPv6)"
        );
        let e = parse(&[0, 2, 0, 0, 1, 2, 3, 4], 0, None, "path NLA").unwrap_err();
        assert_eq!(e.kind, ParseErrorKind::Truncated { need: 20, have: 8 });
        let e = parse(&[0, 1], 0, None, "path NLA").unwrap_err();
        assert_eq!(e.kind, ParseErrorKind::Truncated { need: 4, have: 2 });
        assert!(parse(&[], usize::MAX - 1, None, "x").is_err());
    }
}
