#!/usr/bin/env bash
# Validates the collectives against their alpha-beta-gamma models and the routed-message
# switching models against their formulas (issue 19), and prints a Markdown report:
#   - every collective algorithm in virtual time on hypercubes, rings, tori and meshes, for
#     vectors of 8 B to MAX_BYTES: measured, model and their difference in ns per cell
#     (workloads example collectives_grid);
#   - the ring/recursive-doubling all-reduce crossover on ring:16 and hypercube:4, predicted
#     beside measured (`sweep collective`);
#   - latency against hop count on mesh:16x16 for both switching models;
#   - natively, after `calibrate` (the runtime's own α and β of a native link), a
#     2-processor all-reduce of 1 MiB beside its model (needs a quiet host: wall-clock);
#   - scale: an all-reduce on hypercube:16 (65 536 processors) in virtual time, wall time and
#     peak memory (wall time depends on the host's load).
#
# Virtual-time results are exact and do not depend on the host; wall times do.
#
# Usage: scripts/validate-interconnects.sh [MAX_P] [MAX_BYTES]   (default 1024 16777216)
# The grid's cells larger than 64 MiB a copy run with stand-in contents (see the example).
# Record its output in docs/results/interconnects.md.
set -euo pipefail
cd "$(dirname "$0")/.."
max_p=${1:-1024}
max_bytes=${2:-16777216}
cargo build --release --quiet -p multicomputer-bench
cargo build --release --quiet -p multicomputer-workloads --example collectives_grid --example routing_latency
mc="${CARGO_TARGET_DIR:-target}/release/multicomputer"
ex="${CARGO_TARGET_DIR:-target}/release/examples/collectives_grid"
costs=(--send-overhead 10us --recv-overhead 1us --latency 500ns --per-byte 1ns --mode virtual)

echo "## Every algorithm against its model (virtual time)"
echo
grid=$(mktemp)
runs=$(mktemp -d)
trap 'rm -rf "$grid" "$runs"' EXIT
"$ex" "$max_p" "$max_bytes" | tee "$grid"
echo
python3 scripts/summarize-collectives-grid.py <"$grid"
echo

echo "## All-reduce: ring against recursive doubling, by bytes (sweep collective)"
echo
"$mc" sweep collective all-reduce --algorithms ring,recursive-doubling \
  --topologies hypercube:4,ring:16 --bytes 8-1MiB --gamma 1ns --switching cut-through \
  "${costs[@]}" --out "$runs" | grep -E "^On |^Each crossing"
echo
echo "## Latency against hop count, mesh:16x16"
echo
"${CARGO_TARGET_DIR:-target}/release/examples/routing_latency"
echo

echo "## Natively after calibrate: a 2-processor all-reduce beside its model (wall-clock: a quiet host)"
echo
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
"$mc" --out "$runs" calibrate --profile "$runs/machine-profile.json" | grep -E "link|^│ [0-9]+ B"
for alg in ring recursive-doubling; do
  "$mc" --out "$runs" collective all-reduce --algorithm "$alg" -t ring:2 --bytes 1MiB \
    --mode native --runs 5 --profile "$runs/machine-profile.json" 2>&1 | tail -12
done
echo

echo "## Scale: all-reduce on hypercube:16 (65 536 processors; refused below vm.max_map_count 131 072 + headroom) and hypercube:14, virtual time"
echo
# Two memory maps per virtual-time processor: raise the limit for the run (root only) and
# put the old value back on exit.
old_maps=$(cat /proc/sys/vm/max_map_count)
if [ "$old_maps" -lt 262144 ] && [ "$(id -u)" = 0 ]; then
  sysctl -qw vm.max_map_count=262144
  trap 'rm -rf "$grid" "$runs"; sysctl -qw vm.max_map_count='"$old_maps" EXIT
  echo "vm.max_map_count raised from $old_maps to 262144 for the run (put back on exit)"
fi
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for d in 16 14; do
  /usr/bin/time -f "wall %e s, peak resident %M KiB" "$mc" collective all-reduce \
    --algorithm recursive-doubling -t "hypercube:$d" --bytes 64 "${costs[@]}" \
    --out "$runs" 2>&1 | tail -12 || true
done
