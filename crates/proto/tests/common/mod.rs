//! Packets the session tests send to a source.

use convoy_wire::{BodyRepr, OptionsRepr, PacketRepr, Tsi};
use std::net::IpAddr;

/// A NAK to the source of `tsi` (which sends from `source` to `group`) for `sqn` and the sequence numbers in
/// `list` (OPT_NAK_LIST), as a receiver on PGM's port 7500 sends it.
pub fn nak(tsi: Tsi, source: IpAddr, group: IpAddr, sqn: u32, list: Vec<u32>) -> Vec<u8> {
    let repr = PacketRepr {
        source_port: 7500,
        dest_port: tsi.source_port,
        gsi: tsi.gsi,
        body: BodyRepr::Nak {
            sqn,
            source_nla: source,
            group_nla: group,
        },
        options: OptionsRepr {
            nak_list: list,
            ..OptionsRepr::default()
        },
        payload: &[],
    };
    let mut b = vec![0u8; repr.buffer_len()];
    repr.emit(&mut b).unwrap();
    b
}
