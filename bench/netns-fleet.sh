#!/usr/bin/env bash
# A fleet on the wire: receivers in network namespaces, each dropping 1% of the session's packets at random,
# receiver 1 also behind a 10 Mbit/s tbf (crates/cli/tests/netns_fleet.rs). Per controller, fleet size and parity:
# - a 30 MB file to every receiver, byte-exact: goodput, beside TCP Reno alone on the slowest path (iperf3, 10 s),
#   and the bytes the source put on its wire per byte of the file;
# - the session beside one TCP Reno flow through the 10 Mbit/s tbf for 30 s: the session's rate over TCP's.
# Environment: CONTROLLERS (default "pgmcc tfmcc aimd"), FLEETS (receivers, default "20"), PARITIES (`--parity`
# values, default "off 32"), TESTS (default both). Needs root and iperf3 (the tests print SKIPPED without them).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p convoy
tests=${TESTS:-"twenty_lossy_receivers_one_behind_10mbit_byte_exact twenty_lossy_receivers_beside_tcp"}
for n in ${FLEETS:-20}; do
  for parity in ${PARITIES:-off 32}; do
    for cc in ${CONTROLLERS:-pgmcc tfmcc aimd}; do
      for t in $tests; do
        CONVOY_NETNS_RECEIVERS=$n CONVOY_NETNS_PARITY=$parity CONVOY_NETNS_CC=$cc \
          cargo test --release -q -p convoy --test netns_fleet "$t" -- --ignored --exact --nocapture 2>&1 |
          grep -E "fleet of|SKIPPED|panicked" || true
      done
    done
  done
done
