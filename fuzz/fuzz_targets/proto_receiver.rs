//! A PGM receiver (convoy-proto `Receiver`, late join from the trail) fed arbitrary datagrams, time steps and
//! application calls (`convoy_proto::hostile` describes the script); whatever it emits must parse.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    convoy_proto::hostile::run_receiver(data);
});
