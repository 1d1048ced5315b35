#!/usr/bin/env bash
# pgmcc, TFMCC and aimd side by side on the wire, on a Linux bridge in network namespaces (crates/cli/tests/netns.rs).
# Per controller:
# - alone: a 40 MB file from one source to three receivers, receiver 1 behind a 20 Mbit/s tbf
#   (controller_through_a_20mbit_bottleneck_byte_exact): the goodput and the coefficient of variation of the
#   session's rate in 1 s samples;
# - beside TCP: the same lab with one TCP Reno flow (iperf3) through receiver 1's 20 Mbit/s tbf for 30 s
#   (shares_a_20mbit_bottleneck_with_tcp): the session's rate, TCP's, and their ratio.
# Needs root and iperf3 (the tests print SKIPPED without them).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p convoy
for cc in ${CONTROLLERS:-pgmcc tfmcc aimd}; do
  for t in controller_through_a_20mbit_bottleneck_byte_exact shares_a_20mbit_bottleneck_with_tcp; do
    CONVOY_NETNS_CC=$cc cargo test --release -q -p convoy --test netns "$t" -- --ignored --exact --nocapture 2>&1 |
      grep -E "through 20 Mbit/s|sharing 20 Mbit/s|SKIPPED|panicked|convoy/TCP" || true
  done
done
