#!/bin/sh
# Measures the Reed-Solomon crates considered for parity repairs (RFC 3208 §11) on this machine and prints a
# table: encode/decode throughput at k = 16 and 64 packets of 1400 bytes, and whether parity j is the same code
# whatever the number h asked for. The crate is not part of the workspace (bench/fec-candidates/).
set -e
cd "$(dirname "$0")/fec-candidates"
cargo run --release --quiet
