//! `Packet::new_checked` on arbitrary bytes, then every accessor and both option iterators.

#![no_main]

use convoy_wire::{Header, Packet, PgmOption, MAX_NAK_LIST};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let h = Header::new_unchecked(data);
    let _ = (h.source_port(), h.packet_type(), h.gsi(), h.tsdu_length());
    let Ok(v) = Packet::new_checked(data) else {
        return;
    };
    let _ = (
        v.source_port(),
        v.dest_port(),
        v.packet_type(),
        v.checksum(),
    );
    let _ = (v.gsi(), v.tsi(), v.tsdu_length(), v.options_flags());
    let _ = (v.has_options(), v.is_network_significant(), v.is_parity());
    let _ = (v.sqn(), v.trail(), v.lead(), v.path_nla());
    let _ = (
        v.source_nla(),
        v.group_nla(),
        v.poll_round(),
        v.poll_params(),
    );
    let _ = (v.rx_max(), v.ack_bitmap(), v.body(), v.body_bytes());
    let _ = (
        v.options_bytes(),
        v.verify_checksum(),
        v.computed_checksum(),
    );
    assert_eq!(v.payload().len(), usize::from(v.tsdu_length()));
    let mut raw_count = 0;
    for o in v.raw_options() {
        let o = o.expect("a validated packet's options walk cleanly");
        let _ = (o.option_type(), o.is_end(), o.length(), o.opx_byte());
        let _ = (o.specific_byte(), o.value(), o.name(), o.offset());
        raw_count += 1;
    }
    let mut typed_count = 0;
    for o in v.options() {
        if let PgmOption::NakList(l) = o {
            assert!(l.len() <= MAX_NAK_LIST);
            let _ = l.iter().fold(0u32, u32::wrapping_add);
        }
        let _ = o.option_type();
        typed_count += 1;
    }
    assert_eq!(raw_count, typed_count, "every validated option decodes");
    assert!(raw_count <= 16);
});
