#!/usr/bin/env bash
# Run the ns-3 multicast fan-out reference (mcast-star-bench: one UDP CBR source of 1 Mbit/s in 1000-byte payloads
# -> hub -> R receivers, 100 Mbit/s 1 ms links, 100 simulated seconds) and print one JSON line per receiver count:
# receivers, run_s (the program's own timing of Simulator::Run), cpu_s (the whole process's user + system time),
# events, deliveries. Builds target/ns3/mcast-star-bench first if it is missing or older than its source.
#
#   bench/ns3/run-star.sh [R ...]        # default: 1000
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BIN="$ROOT/target/ns3/mcast-star-bench"
"$ROOT/bench/ns3/build.sh" --if-stale

# `times` must run in this shell (not in a command substitution) to see this shell's children.
seconds() { tail -n 1 "$1" | awk '{ split($1, u, /[ms]/); split($2, s, /[ms]/); print u[1] * 60 + u[2] + s[1] * 60 + s[2] }'; }

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for r in "${@:-1000}"; do
    times >"$tmp/before"
    "$BIN" --nRcv="$r" --simTime=100 >"$tmp/out"
    times >"$tmp/after"
    cpu="$(awk -v a="$(seconds "$tmp/before")" -v b="$(seconds "$tmp/after")" 'BEGIN { printf "%.3f", b - a }')"
    line="$(grep '^RESULT' "$tmp/out")"
    get() { printf '%s\n' "$line" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
    printf '{"receivers": %s, "run_s": %s, "cpu_s": %s, "events": %s, "deliveries": %s}\n' \
        "$r" "$(get run_s)" "$cpu" "$(get events)" "$(get deliveries)"
done
