//! Keyed sessions' sealing and opening (convoy-proto `auth`) on arbitrary bytes: nothing opens without the
//! key's seal, a sealed packet opens (in a copy and in place) to what was emitted, once, and a changed bit is
//! refused (`convoy_proto::hostile::run_auth` describes the input).

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    convoy_proto::hostile::run_auth(data);
});
