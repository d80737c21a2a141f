#!/usr/bin/env bash
# Validates the collectives against their alpha-beta-gamma models and the routed-message
# switching models against their formulas (issue 19), and prints a Markdown report:
#   - every collective algorithm in virtual time on hypercubes, rings, tori and meshes, for
#     vectors of 8 B to MAX_BYTES: measured, model and their difference in ns per cell
#     (workloads example collectives_grid);
#   - the ring/recursive-doubling all-reduce crossover on ring:16 and hypercube:4, predicted
#     beside measured;
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
cargo build --release --quiet -p multicomputer-bench
cargo build --release --quiet -p multicomputer-workloads --example collectives_grid --example routing_latency
mc="${CARGO_TARGET_DIR:-target}/release/multicomputer"
ex="${CARGO_TARGET_DIR:-target}/release/examples/collectives_grid"
costs=(--send-overhead 10us --recv-overhead 1us --latency 500ns --per-byte 1ns --mode virtual)

echo "## Every algorithm against its model (virtual time)"
echo
"$ex" "$max_p" "$max_bytes"
echo

echo "## All-reduce: ring against recursive doubling, by bytes"
python3 - "$mc" <<'PY'
import json, subprocess, sys
mc = sys.argv[1]
costs = "--send-overhead 10us --recv-overhead 1us --latency 500ns --per-byte 1ns --gamma 1ns --switching cut-through --mode virtual".split()
for net in ["hypercube:4", "ring:16"]:
    print(f"\n| {net} bytes | ring measured µs | ring model µs | recursive doubling measured µs | model µs |")
    print("|---|---|---|---|---|")
    prev = None; cross_m = cross_p = None
    b = 8
    while b <= 1 << 20:
        row = []
        for alg in ["ring", "recursive-doubling"]:
            v = json.loads(subprocess.run([mc, "collective", "all-reduce", "--algorithm", alg, "-t", net, "--bytes", str(b), *costs, "--json", "--out", "/tmp/mc-cross"], capture_output=True, text=True, check=True).stdout)
            row.append((v["measured"]["makespan_s"]*1e6, v["predicted"]["makespan_s"]*1e6))
        print(f"| {b} | {row[0][0]:.2f} | {row[0][1]:.2f} | {row[1][0]:.2f} | {row[1][1]:.2f} |")
        if cross_m is None and row[0][0] < row[1][0]: cross_m = b
        if cross_p is None and row[0][1] < row[1][1]: cross_p = b
        b *= 2
    print(f"\nRing overtakes recursive doubling on {net}: predicted from {cross_p} B, measured from {cross_m} B (powers of two).")
PY
echo

echo "## Latency against hop count, mesh:16x16"
echo
"${CARGO_TARGET_DIR:-target}/release/examples/routing_latency"
echo

echo "## Scale: all-reduce on hypercube:16 (65 536 processors; refused below vm.max_map_count 131 072 + headroom) and hypercube:14, virtual time"
echo
for d in 16 14; do
  /usr/bin/time -f "wall %e s, peak resident %M KiB" "$mc" collective all-reduce \
    --algorithm recursive-doubling -t "hypercube:$d" --bytes 64 "${costs[@]}" \
    --out /tmp/mc-validate-interconnects 2>&1 | tail -12 || true
done
