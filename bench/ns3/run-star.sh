#!/usr/bin/env bash
# Run the ns-3 multicast fan-out reference (mcast-star-bench: one UDP CBR source of 1 Mbit/s in 1000-byte payloads
# -> hub -> R receivers, 100 Mbit/s 1 ms links, 100 simulated seconds unless --sim-time says otherwise) and print
# one JSON line per receiver count: receivers, sim_s, run_s (the program's own timing of Simulator::Run), cpu_s
# (the whole process's user + system time), events, deliveries. Builds target/ns3/mcast-star-bench first if it is
# missing or older than its source.
#
#   bench/ns3/run-star.sh [--sim-time S] [R ...]        # default: 100 s, 1000 receivers
set -euo pipefail

sim_time=100
if [ "${1:-}" = "--sim-time" ]; then
    [ $# -ge 2 ] || { echo "run-star.sh: --sim-time needs a number of seconds" >&2; exit 2; }
    sim_time="$2"
    shift 2
fi

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BIN="$ROOT/target/ns3/mcast-star-bench"
"$ROOT/bench/ns3/build.sh" --if-stale

# `times` must run in this shell (not in a command substitution) to see this shell's children.
seconds() { tail -n 1 "$1" | awk '{ split($1, u, /[ms]/); split($2, s, /[ms]/); print u[1] * 60 + u[2] + s[1] * 60 + s[2] }'; }

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for r in "${@:-1000}"; do
    times >"$tmp/before"
    "$BIN" --nRcv="$r" --simTime="$sim_time" >"$tmp/out"
    times >"$tmp/after"
    cpu="$(awk -v a="$(seconds "$tmp/before")" -v b="$(seconds "$tmp/after")" 'BEGIN { printf "%.3f", b - a }')"
    line="$(grep '^RESULT' "$tmp/out")"
    get() { printf '%s\n' "$line" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
    printf '{"receivers": %s, "sim_s": %s, "run_s": %s, "cpu_s": %s, "events": %s, "deliveries": %s}\n' \
        "$r" "$sim_time" "$(get run_s)" "$cpu" "$(get events)" "$(get deliveries)"
done
