#!/usr/bin/env bash
# Run the ns-3 dumbbell reference for N = 1, 10, 100 flows and print one JSON
# line per run. Builds target/ns3/dumbbell first if it is missing or older
# than its source. Exits non-zero if the build or any run fails.
#
#   bench/ns3/run.sh [--seed=S] [--time=T] [extra dumbbell options...]
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BIN="$ROOT/target/ns3/dumbbell"
"$ROOT/bench/ns3/build.sh" --if-stale

# Defaults, overridable by later arguments (ns-3 CommandLine: last one wins).
args=(--seed=1 --time=100 "$@")

for n in 1 10 100; do
    out="$("$BIN" --flows="$n" "${args[@]}")"
    line="$(printf '%s\n' "$out" | tail -n 1)"
    case "$line" in
        "{"*"}") printf '%s\n' "$line" ;;
        *)
            echo "run.sh: no JSON result for --flows=$n" >&2
            exit 1
            ;;
    esac
done
