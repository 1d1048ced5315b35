#!/usr/bin/env bash
# pgmcc, TFMCC and aimd side by side on the wire: a 40 MB file from one source to three receivers on a Linux bridge in
# network namespaces, receiver 1 behind a 20 Mbit/s tbf (crates/cli/tests/netns.rs,
# controller_through_a_20mbit_bottleneck_byte_exact). Prints, per controller, the goodput and the coefficient of
# variation of the session's rate in 1 s samples. Needs root (the test prints SKIPPED without it).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p convoy
for cc in ${CONTROLLERS:-pgmcc tfmcc aimd}; do
  CONVOY_NETNS_CC=$cc cargo test --release -q -p convoy --test netns controller_through_a_20mbit_bottleneck_byte_exact \
    -- --ignored --nocapture 2>&1 | grep -E "through 20 Mbit/s|SKIPPED|panicked"
done
