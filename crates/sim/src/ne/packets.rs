//! What a network element reads from and writes into the PGM bytes a link carries, through `convoy-wire`: NAKs
//! going up (RFC 3208 §8.3), the NCFs answering them (§7.1) and RDATA going down (§7.3).

use super::{NakSeen, RepairKey};
use crate::ids::LinkId;
use convoy_wire::{BodyRepr, Header, OptionsRepr, PacketRepr, PacketType};
use std::net::IpAddr;

/// A NAK on its way up, parsed.
#[derive(Clone, Debug)]
pub struct NakPacket<'a> {
    repr: PacketRepr<'a>,
    /// The NAK's own sequence number followed by its OPT_NAK_LIST.
    sqns: Vec<u32>,
}

impl<'a> NakPacket<'a> {
    /// The NAK in `bytes`; `None` for any other packet (told from the common header alone, so ACKs and other
    /// upstream packets cost no parse) or one that does not parse.
    pub fn read(bytes: &'a [u8]) -> Option<Self> {
        if Header::new_checked(bytes).ok()?.packet_type().ok()? != PacketType::Nak {
            return None;
        }
        let repr = PacketRepr::parse(bytes).ok()?;
        let BodyRepr::Nak { sqn, .. } = repr.body else {
            return None;
        };
        let mut sqns = vec![sqn];
        sqns.extend_from_slice(&repr.options.nak_list);
        Some(NakPacket { repr, sqns })
    }

    /// The NAK as the element's state machine sees it, arrived over the link whose reverse is `down`. The
    /// controller's options say whether it is a report only and what loss it reports.
    pub fn seen(&self, down: LinkId) -> NakSeen<'_> {
        NakSeen {
            gsi: self.repr.gsi,
            port: self.repr.dest_port,
            sqns: &self.sqns,
            down,
            loss: self.repr.options.cc.reported_loss(),
            report_only: self.repr.options.cc.report_only(),
        }
    }

    /// The group the NAK names.
    pub fn group(&self) -> Option<IpAddr> {
        match self.repr.body {
            BodyRepr::Nak { group_nla, .. } => Some(group_nla),
            _ => None,
        }
    }

    /// The NCF confirming this NAK (RFC 3208 §7.1): downstream orientation, the same sequence numbers.
    pub fn ncf(&self) -> Option<Vec<u8>> {
        let BodyRepr::Nak {
            sqn,
            source_nla,
            group_nla,
        } = self.repr.body
        else {
            return None;
        };
        let ncf = PacketRepr {
            source_port: self.repr.dest_port,
            dest_port: self.repr.source_port,
            gsi: self.repr.gsi,
            body: BodyRepr::Ncf {
                sqn,
                source_nla,
                group_nla,
            },
            options: OptionsRepr {
                nak_list: self.repr.options.nak_list.clone(),
                ..OptionsRepr::default()
            },
            payload: &[],
        };
        let mut buf = vec![0u8; ncf.buffer_len()];
        ncf.emit(&mut buf).ok()?;
        Some(buf)
    }
}

/// The repair state RDATA in `bytes` answers: (GSI, data-source port, sequence number); `None` for any other
/// packet. Read from the common header and the data header only (the simulator carries only bytes the engine
/// emitted).
pub fn rdata_key(bytes: &[u8]) -> Option<RepairKey> {
    let header = Header::new_checked(bytes).ok()?;
    if header.packet_type().ok()? != PacketType::Rdata {
        return None;
    }
    Some((header.gsi(), header.source_port(), header.leading_sqn()?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use convoy_wire::Gsi;

    fn emit(repr: &PacketRepr<'_>) -> Vec<u8> {
        let mut buf = vec![0u8; repr.buffer_len()];
        repr.emit(&mut buf).unwrap();
        buf
    }

    #[test]
    fn rfc3208_7_1_the_ncf_answers_the_nak_with_its_session_and_sequence_numbers() {
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let g: IpAddr = "239.0.0.1".parse().unwrap();
        let mut options = OptionsRepr {
            nak_list: vec![8, 9],
            ..OptionsRepr::default()
        };
        options.cc.pgmcc.election = true;
        let nak = PacketRepr {
            source_port: 7500,
            dest_port: 1000,
            gsi: Gsi([1; 6]),
            body: BodyRepr::Nak {
                sqn: 7,
                source_nla: a,
                group_nla: g,
            },
            options,
            payload: &[],
        };
        let bytes = emit(&nak);
        let read = NakPacket::read(&bytes).unwrap();
        let seen = read.seen(LinkId(3));
        assert_eq!(seen.sqns, &[7, 8, 9]);
        assert_eq!(
            seen.port, 1000,
            "the NAK's destination port is the data-source port"
        );
        assert!(seen.report_only);
        assert_eq!(read.group(), Some(g));
        let ncf_bytes = read.ncf().unwrap();
        let ncf = PacketRepr::parse(&ncf_bytes).unwrap();
        assert_eq!((ncf.source_port, ncf.dest_port), (1000, 7500));
        assert_eq!(ncf.options.nak_list, [8, 9]);
        assert!(matches!(ncf.body, BodyRepr::Ncf { sqn: 7, .. }));
    }

    #[test]
    fn rfc3208_7_3_rdata_keys_its_repair_state_and_nothing_else_does() {
        let rdata = PacketRepr {
            source_port: 1000,
            dest_port: 7500,
            gsi: Gsi([2; 6]),
            body: BodyRepr::Rdata { sqn: 42, trail: 0 },
            options: OptionsRepr::default(),
            payload: b"x",
        };
        assert_eq!(rdata_key(&emit(&rdata)), Some((Gsi([2; 6]), 1000, 42)));
        let odata = PacketRepr {
            body: BodyRepr::Odata { sqn: 42, trail: 0 },
            ..rdata
        };
        assert_eq!(rdata_key(&emit(&odata)), None);
        assert!(NakPacket::read(&emit(&odata)).is_none());
    }
}
