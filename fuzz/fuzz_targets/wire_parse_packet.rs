//! `PacketRepr::parse` on arbitrary bytes; whatever parses must emit and re-parse unchanged.

#![no_main]

use convoy_wire::PacketRepr;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // With and without the checksum: most random inputs fail the checksum, so the second call
    // is what reaches the structure checks.
    let parsed = [
        PacketRepr::parse(data),
        PacketRepr::parse_without_checksum(data),
    ];
    for repr in parsed.into_iter().flatten() {
        let mut buf = vec![0u8; repr.buffer_len()];
        let n = repr.emit(&mut buf).expect("a parsed repr must emit");
        assert_eq!(n, buf.len());
        let again = PacketRepr::parse(&buf).expect("an emitted packet must parse");
        assert_eq!(again, repr);
    }
});
