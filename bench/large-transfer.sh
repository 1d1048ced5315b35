#!/usr/bin/env bash
# Large-file benchmark on loopback: one source (127.0.0.1) sends one file of SIZE bytes to three receivers
# (127.0.0.2-4), each writing its copy; prints goodput, repairs, acker changes and each receiver's peak RSS
# (VmHWM, from the receivers' --stats-json), then checks every copy and removes them.
#
#   bench/large-transfer.sh [SIZE] [DIR]     SIZE default 10000000000 (10 GB); DIR default a new temporary directory
#
# Disk: SIZE four times over (source and three copies). Uses target/release/convoy (built when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-10000000000}
dir=${2:-$(mktemp -d)}
mkdir -p "$dir"
bin=target/release/convoy
[ -x "$bin" ] || cargo build --release -p convoy
group=239.255.9.12:31992
src="$dir/big.bin"
if [ "$(stat -c %s "$src" 2>/dev/null || echo 0)" != "$size" ]; then
  echo "writing $size random bytes to $src"
  head -c "$size" /dev/urandom > "$src"
fi
pids=()
for i in 2 3 4; do
  rm -rf "$dir/out$i"
  "$bin" recv --group "$group" --iface "127.0.0.$i" --out "$dir/out$i" --stats-json "$dir/recv$i.json" \
    --quiet --start-timeout 60s &
  pids+=($!)
done
start=$(date +%s.%N)
"$bin" send "$src" --group "$group" --iface 127.0.0.1 --ttl 0 --wait-receivers 3 --wait 30s \
  --stats-json "$dir/send.json" --quiet || echo "send exited $?"
for p in "${pids[@]}"; do wait "$p" || echo "a receiver exited $?"; done
end=$(date +%s.%N)
python3 - "$dir" "$size" "$start" "$end" <<'PY'
import json, sys
d, size, start, end = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
s = json.load(open(f"{d}/send.json"))
print(f"file {size/1e9:.1f} GB to 3 loopback receivers: {s['seconds']:.1f} s of data phase, "
      f"goodput {s['goodput_bps']/1e6:.0f} Mbit/s, wall {end-start:.1f} s")
print(f"repairs {s['packets']['rdata']} ({s['app_repairs']} re-read from the file), "
      f"acker changes {s['acker_changes']}, feedback timeouts {s['timeouts']}, "
      f"source peak RSS {(s.get('peak_rss_bytes') or 0)/2**20:.0f} MiB")
for i in (2, 3, 4):
    r = json.load(open(f"{d}/recv{i}.json"))
    b = r["buffer"]
    print(f"receiver 127.0.0.{i}: exit {r['exit_code']}, peak RSS {(r.get('peak_rss_bytes') or 0)/2**20:.0f} MiB, "
          f"peak held {b['peak_held_bytes']/2**20:.0f} MiB of {b['max_bytes']/2**20:.0f}, "
          f"congestion marks {b['congested_odata']}, refused {b['refused_packets']}, repairs {r['packets']['rdata']}")
PY
for i in 2 3 4; do
  if cmp -s "$src" "$dir/out$i/big.bin"; then echo "copy $i: byte-exact"; else echo "copy $i: DIFFERS or missing"; fi
  rm -rf "$dir/out$i"
done
