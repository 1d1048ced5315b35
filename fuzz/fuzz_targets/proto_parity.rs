//! convoy-proto's parity code (RFC 3208 §11): any group of TSDUs the input makes is restored from any k of its
//! k + k packets; and `decode` of arbitrary shards, layouts and indexes returns an error rather than panicking.

#![no_main]

use convoy_proto::parity::{decode, encode, ShardLayout};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&head, rest)) = data.split_first() else {
        return;
    };
    let k = usize::from(head % 24) + 1;
    // Arbitrary decode: shards cut from the input, indexes from its bytes.
    let cut = |i: usize| {
        let at = (i * 7) % rest.len().max(1);
        let len = usize::from(rest.get(at).copied().unwrap_or(0)) % 64;
        (at.min(rest.len()), (at + len).min(rest.len()))
    };
    let pieces: Vec<(usize, &[u8])> = (0..k)
        .map(|i| {
            let (a, b) = cut(i);
            (
                usize::from(rest.get(a).copied().unwrap_or(0)) % (k + 2),
                &rest[a..b],
            )
        })
        .collect();
    let (data_part, parity_part) = pieces.split_at(k / 2);
    let layout = ShardLayout::from_parity(
        parity_part.first().map_or(0, |p| p.1.len()),
        head & 0x80 != 0,
    );
    let _ = decode(k, layout, data_part, parity_part);
    // Round trip: the group's TSDUs from the input, the first half lost, restored from parity.
    let tsdus: Vec<&[u8]> = (0..k)
        .map(|i| {
            let (a, b) = cut(i + 1);
            &rest[a..b]
        })
        .collect();
    let (layout, parity) = encode(&tsdus).expect("a group of 1 to 24 encodes");
    let kept: Vec<(usize, &[u8])> = (k / 2..k).map(|i| (i, tsdus[i])).collect();
    let used: Vec<(usize, &[u8])> = (0..k / 2)
        .map(|j| (k - 1 - j, &parity[k - 1 - j][..]))
        .collect();
    let restored = decode(k, layout, &kept, &used).expect("k of the group restore it");
    for (i, t) in restored {
        assert_eq!(t, tsdus[i]);
    }
});
