#!/usr/bin/env bash
# A fleet on the wire: twenty receivers in network namespaces, each dropping 1% of the session's packets at
# random, receiver 1 also behind a 10 Mbit/s tbf (crates/cli/tests/netns_fleet.rs). Per controller:
# - a 30 MB file to all twenty, byte-exact: goodput, beside TCP Reno alone on the slowest path (iperf3, 10 s),
#   and the bytes the source put on its wire per byte of the file;
# - the session beside one TCP Reno flow through the 10 Mbit/s tbf for 30 s: the session's rate over TCP's.
# Needs root and iperf3 (the tests print SKIPPED without them).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p convoy
for cc in ${CONTROLLERS:-pgmcc tfmcc aimd}; do
  for t in twenty_lossy_receivers_one_behind_10mbit_byte_exact twenty_lossy_receivers_beside_tcp; do
    CONVOY_NETNS_CC=$cc cargo test --release -q -p convoy --test netns_fleet "$t" -- --ignored --exact --nocapture 2>&1 |
      grep -E "fleet of|SKIPPED|panicked" || true
  done
done
