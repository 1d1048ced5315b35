#!/usr/bin/env bash
# pgmcc's start-up on the wire (issue 21): transfers in network namespaces (crates/cli/tests/netns_startup.rs),
# receiver 1 behind a tc tbf bottleneck with a 64 KB queue, the other receivers unshaped, for
# `convoy send --pgmcc-start paper` and `until-congestion`. One line per transfer: bytes on the source's wire per
# byte of the file, goodput, repairs and acker changes. Each file holds about 6 s at the bottleneck's rate (at
# least 2 MB).
#
# Environment: CONVOY_GRID_MBIT (default "2,5,20,50"), CONVOY_GRID_RECEIVERS ("2,5,10"), CONVOY_GRID_STARTS
# ("paper,until-congestion"), CONVOY_GRID_RUNS (transfers per cell, default 1: the first election's luck varies
# from run to run). Needs root (the test prints SKIPPED without it).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --release -q -p convoy --test netns_startup startup_grid -- --ignored --exact --nocapture 2>&1 |
  grep -E "Mbit/s .* receivers|SKIPPED|panicked" || true
