//! Convoy's file-transfer messages (`convoy_transfer::message::decode`) on arbitrary bytes: never a panic,
//! and whatever decodes as a manifest re-encodes to the same bytes and refuses unsafe paths.

#![no_main]

use convoy_transfer::message::{decode, is_safe_path, Message};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(Message::Manifest(m)) = decode(data) {
        assert!(m.entries.iter().all(|e| is_safe_path(&e.path)));
        assert_eq!(m.encode(), data);
    }
});
