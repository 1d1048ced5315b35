//! aimd's options (`convoy_wire::cc::aimd`) on arbitrary option bytes: see `cc_options.rs`.

#![no_main]

#[path = "cc_options.rs"]
mod cc_options;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| cc_options::check(data, |cc| &cc.aimd));
