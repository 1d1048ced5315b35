#!/usr/bin/env bash
# Build the ns-3 reference programs into target/ns3/: dumbbell (the TCP dumbbell) and mcast-star-bench (one UDP
# CBR source to R receivers over static multicast routes: the multicast fan-out benchmark, copied from the
# project's shared reference programs, its build comment's line continuation removed).
#
# Needs ns-3.37 as packaged by Debian bookworm (libns3-dev); installs it with
# apt-get if it is missing (needs root). Compiles with g++ -O2 against the
# Debian pkg-config modules ns3-core ns3-network ns3-internet
# ns3-point-to-point ns3-applications ns3-traffic-control.
#
# Two quirks of the Debian 3.37-2 .pc files are worked around:
#   * ns3-core's Cflags contain a bogus "-I/usr\;" and an include directory
#     that may not exist (python3.11): include flags naming a missing
#     directory are dropped;
#   * Libs name /usr/lib/x86_64-linux-gnu/libgsl.so and libgslcblas.so by
#     absolute path, but libns3-dev does not depend on libgsl-dev, so those
#     files are usually absent: absolute paths that do not exist are dropped
#     (libns3-core.so itself already links the GSL runtime it needs).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT_DIR="$ROOT/target/ns3"
MODULES=(ns3-core ns3-network ns3-internet ns3-point-to-point ns3-applications ns3-traffic-control)
PROGRAMS=(dumbbell mcast-star-bench)

# --if-stale (the run scripts): build only when a program is missing or older than its source.
if [ "${1:-}" = "--if-stale" ]; then
    stale=0
    for prog in "${PROGRAMS[@]}"; do
        if [ ! -x "$OUT_DIR/$prog" ] || [ "$ROOT/bench/ns3/$prog.cc" -nt "$OUT_DIR/$prog" ]; then
            stale=1
        fi
    done
    [ "$stale" -eq 1 ] || exit 0
fi

if ! pkg-config --exists "${MODULES[@]}" 2>/dev/null; then
    echo "build.sh: ns-3 development files not found; installing libns3-dev" >&2
    if [ "$(id -u)" -ne 0 ]; then
        echo "build.sh: need root to apt-get install libns3-dev" >&2
        exit 1
    fi
    export DEBIAN_FRONTEND=noninteractive
    # apt's progress goes to stderr: the callers' standard output is their JSON results (run.sh, compare.sh).
    { apt-get install -y libns3-dev pkg-config g++ ||
        { apt-get update && apt-get install -y libns3-dev pkg-config g++; }; } >&2
fi

flags=()
for f in $(pkg-config --cflags --libs "${MODULES[@]}"); do
    case "$f" in
        -I*) [ -d "${f#-I}" ] && flags+=("$f") ;;
        /*) [ -e "$f" ] && flags+=("$f") ;;
        *) flags+=("$f") ;;
    esac
done

mkdir -p "$OUT_DIR"
for prog in "${PROGRAMS[@]}"; do
    echo "build.sh: ns-3 $(pkg-config --modversion ns3-core), compiling $OUT_DIR/$prog" >&2
    g++ -O2 -std=c++17 -Wall -o "$OUT_DIR/$prog" "$ROOT/bench/ns3/$prog.cc" "${flags[@]}"
done
