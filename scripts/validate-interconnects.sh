#!/usr/bin/env bash
# Validates the collectives against their alpha-beta-gamma models and the routed-message
# switching models against their formulas (issue 19), and prints a Markdown report:
#   - every collective algorithm in virtual time on hypercubes, rings, tori and meshes, for
#     vectors of 8 B to MAX_BYTES: measured, model and their difference in ns per cell
#     (workloads example collectives_grid);
#   - the ring/tree all-reduce crossover on ring:16 and hypercube:4, predicted beside measured;
#   - latency against hop count on mesh:16x16 for both switching models;
#   - scale: an all-reduce on hypercube:16 (65 536 processors) in virtual time, wall time and
#     peak memory (wall time depends on the host's load).
#
# Virtual-time results are exact and do not depend on the host; wall times do.
#
# Usage: scripts/validate-interconnects.sh [MAX_P] [MAX_BYTES]   (default 1024 65536)
# Record its output in docs/results/interconnects.md.
set -euo pipefail
cd "$(dirname "$0")/.."
max_p=${1:-1024}
max_bytes=${2:-65536}
cargo build --release --quiet -p multicomputer-bench -p multicomputer-workloads --examples
mc="${CARGO_TARGET_DIR:-target}/release/multicomputer"
ex="${CARGO_TARGET_DIR:-target}/release/examples/collectives_grid"
costs=(--send-overhead 10us --recv-overhead 1us --latency 500ns --per-byte 1ns --mode virtual)

echo "## Every algorithm against its model (virtual time)"
echo
"$ex" "$max_p" "$max_bytes"
echo

echo "## All-reduce: ring against binomial-tree-like recursive doubling, by bytes"
echo
echo "| network | bytes | ring measured µs | ring model µs | recursive doubling measured µs | model µs |"
echo "|---|---|---|---|---|---|"
for net in hypercube:4 ring:16; do
  for bytes in 64 512 4KiB 32KiB 256KiB; do
    row="| $net | $bytes |"
    for alg in ring recursive-doubling; do
      json=$("$mc" collective all-reduce --algorithm "$alg" -t "$net" --bytes "$bytes" --gamma 1ns \
        --switching cut-through "${costs[@]}" --json --out /tmp/mc-validate-interconnects)
      row="$row $(echo "$json" | python3 -c 'import json,sys; v=json.load(sys.stdin); print("%.2f | %.2f |" % (v["measured"]["makespan_s"]*1e6, v["predicted"]["makespan_s"]*1e6))')"
    done
    echo "$row"
  done
done
echo

echo "## Scale: all-reduce on hypercube:16 (65 536 processors), virtual time"
echo
/usr/bin/time -f "wall %e s, peak resident %M KiB" "$mc" collective all-reduce \
  --algorithm recursive-doubling -t hypercube:16 --bytes 64 "${costs[@]}" \
  --out /tmp/mc-validate-interconnects 2>&1 | tail -12
