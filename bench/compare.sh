#!/usr/bin/env bash
# Convoy's simulator beside ns-3 on the same TCP dumbbell, in one run: builds `convoy` (release) and the ns-3
# reference (bench/ns3/), runs `convoy bench sim --json` on dumbbell-1, -10, -100 and bench/ns3/run.sh for
# N = 1, 10, 100, and prints a side-by-side table with the issue's targets (issue 3, "Speed and memory"):
# at least 20x faster than ns-3 at N = 100, utilisation within +-2% of ns-3's at every N, Jain index within
# +-0.02 at N = 10.
#
#   bench/compare.sh          # the dumbbells (about a minute, most of it ns-3)
#   bench/compare.sh --all    # also the multicast fan-out beside ns-3's (1000 and 10,000 receivers) and
#                             # Convoy's pgmcc stars (about 10 minutes), below the table
#
# Needs cargo, jq, and ns-3.37's development files (bench/ns3/build.sh installs libns3-dev when run as root).
# Wall-clock times depend on what else the machine runs; CPU times are listed too. Convoy's dumbbell figures are
# the fastest of three runs, and so are ns-3's. ns-3's multicast stars run once (70-200 s each, long enough to
# average over the machine's slow and fast phases); Convoy's run five times (about a second each, short enough
# to land in one phase): twice just before ns-3's run of the same star, twice just after it and once among the
# other scenarios, so that they sample the phases ns-3's run averages over, and the median run counts.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

only=(--only dumbbell-1,dumbbell-10,dumbbell-100)
case "${1:-}" in
    --all) only=() ;;
    "") ;;
    *)
        echo "usage: bench/compare.sh [--all]" >&2
        exit 2
        ;;
esac
command -v jq >/dev/null || { echo "compare.sh: needs jq" >&2; exit 1; }

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

echo "compare.sh: building convoy (release)" >&2
cargo build --release --quiet -p convoy
# This machine's speed drifts by up to 2x over minutes (other tenants), and one dumbbell run takes a twentieth
# of a second for Convoy and seconds for ns-3: each side's dumbbells run three times and each side's fastest run
# counts (the least disturbed one, for both simulators alike).
echo "compare.sh: running ns-3 (bench/ns3/run.sh, three times)" >&2
for i in 1 2 3; do
    bench/ns3/run.sh >>"$tmp/ns3.jsonl"
done
echo "compare.sh: running convoy bench sim ${only[*]}" >&2
target/release/convoy bench sim --json "${only[@]}" >"$tmp/convoy.json"
for i in 2 3; do
    target/release/convoy bench sim --json --only dumbbell-1,dumbbell-10,dumbbell-100 >"$tmp/convoy-$i.json"
done

ns3() { jq -r -s "[.[] | select(.flows == $1)] | min_by(.cpu_s) | $2" "$tmp/ns3.jsonl"; }
convoy() {
    jq -r -s "[.[].scenarios[] | select(.name == \"dumbbell-$1\")] | min_by(.cpu_s) | $2" \
        "$tmp/convoy.json" "$tmp/convoy-2.json" "$tmp/convoy-3.json"
}

echo
echo "TCP dumbbell, 100 simulated seconds, seed 1 ($(date -u +%Y-%m-%d), $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'))"
echo
printf '%5s | %9s %9s %8s | %8s %8s %8s | %7s %7s %7s | %7s %7s %7s\n' \
    N "ns-3 wall" "Convoy" speed-up "ns-3 CPU" Convoy speed-up "util ns3" Convoy "diff" "Jain ns3" Convoy diff
printf '%s\n' "------+------------------------------+----------------------------+-------------------------+------------------------"
for n in 1 10 100; do
    nw="$(ns3 "$n" .wall_s)"; cw="$(convoy "$n" .wall_s)"
    nc="$(ns3 "$n" .cpu_s)"; cc="$(convoy "$n" .cpu_s)"
    nu="$(ns3 "$n" .utilization)"; cu="$(convoy "$n" .utilization)"
    nj="$(ns3 "$n" .jain)"; cj="$(convoy "$n" .jain)"
    awk -v n="$n" -v nw="$nw" -v cw="$cw" -v nc="$nc" -v cc="$cc" -v nu="$nu" -v cu="$cu" -v nj="$nj" -v cj="$cj" 'BEGIN {
        printf "%5d | %8.2fs %8.3fs %7.0fx | %7.2fs %7.3fs %7.0fx | %7.4f %7.4f %+6.2f%% | %7.4f %7.4f %+7.4f\n",
            n, nw, cw, nw / cw, nc, cc, nc / cc, nu, cu, 100 * (cu - nu) / nu, nj, cj, cj - nj
    }'
done
echo
printf '%5s | %12s %12s | %14s %14s\n' N "ns-3 events" Convoy "ns-3 pkts fwd" Convoy
for n in 1 10 100; do
    printf '%5d | %12s %12s | %14s %14s\n' "$n" "$(ns3 "$n" .events)" "$(convoy "$n" .events)" \
        "$(ns3 "$n" .packets_forwarded)" "$(convoy "$n" .packets_forwarded)"
done
echo
echo "Targets: speed-up >= 20x at N = 100; utilisation within +-2% at every N; Jain within +-0.02 at N = 10."
echo "ns-3 runs two events per hop (transmission end, reception), Convoy one (the arrival)."

if [ ${#only[@]} -eq 0 ]; then
    echo "compare.sh: running the ns-3 multicast star (bench/ns3/run-star.sh: 1000 receivers for 100 s, 10,000 for 10 s)," >&2
    echo "compare.sh: each between two runs of Convoy's before and two after" >&2
    # Convoy's star of `$1` receivers, as run `$2`.
    convoy_star() {
        target/release/convoy bench sim --json --only "mcast-fixed-$1" >"$tmp/convoy-star-$1-$2.json"
    }
    for r in 1000 10000; do
        convoy_star "$r" before-1; convoy_star "$r" before-2
        if [ "$r" = 1000 ]; then
            bench/ns3/run-star.sh 1000 >>"$tmp/ns3-star.jsonl"
        else
            bench/ns3/run-star.sh --sim-time 10 10000 >>"$tmp/ns3-star.jsonl"
        fi
        convoy_star "$r" after-1; convoy_star "$r" after-2
    done
    echo
    echo "Multicast fan-out: 1 source -> hub -> R receivers, 100 Mbit/s 1 ms links, 1 Mbit/s of 1000-byte payloads,"
    echo "100 simulated seconds at R = 1000 and 10 at R = 10,000 (12.5 M deliveries each; ns-3: bench/ns3/mcast-star-bench.cc,"
    echo "UDP sinks, one run; Convoy: scenarios/bench/mcast-fixed-R.toml, fixed rate, PGM receivers, the median of five runs,"
    echo "four of them two before and two after ns-3's)"
    echo
    printf '%9s | %9s %9s %8s | %8s %8s %8s | %12s %12s\n' \
        receivers "ns-3 run" Convoy speed-up "ns-3 CPU" Convoy speed-up "ns-3 events" Convoy
    for r in 1000 10000; do
        ns3star() { jq -r "select(.receivers == $r) | $1" "$tmp/ns3-star.jsonl"; }
        # The median of Convoy's five runs by CPU time (each field from that run).
        cstar() {
            jq -r -s "[.[].scenarios[] | select(.name == \"mcast-fixed-$r\")] | sort_by(.cpu_s) | .[2] | $1" \
                "$tmp/convoy.json" "$tmp/convoy-star-$r-"*.json
        }
        nw="$(ns3star .run_s)"; nc="$(ns3star .cpu_s)"; ne="$(ns3star .events)"
        cw="$(cstar .wall_s)"; cc="$(cstar .cpu_s)"; ce="$(cstar .events)"
        awk -v r="$r" -v nw="$nw" -v cw="$cw" -v nc="$nc" -v cc="$cc" -v ne="$ne" -v ce="$ce" 'BEGIN {
            printf "%9d | %8.2fs %8.3fs %7.0fx | %7.2fs %7.3fs %7.0fx | %12d %12d\n", r, nw, cw, nw / cw, nc, cc, nc / cc, ne, ce
        }'
    done
    echo "Target (issue 18): at least 100x ns-3's CPU time on every row."
    echo
    jq -r '.scenarios[] | select(.receivers > 0) |
        "\(.name): \(.sim_s) simulated s in \(.wall_s * 100 | round / 100) s wall (\(.cpu_s * 100 | round / 100) s CPU), \(.events) events, peak RSS \(.peak_rss_bytes / 1e6 * 10 | round / 10) MB" +
        (if .sim_state_per_receiver_bytes then ", simulator state per receiver \(.sim_state_per_receiver_bytes | round) B (endpoint \(.endpoint_bytes | round) B)" else "" end)' \
        "$tmp/convoy.json"
fi
