#!/usr/bin/env bash
# Issue 19, item 2: divide and conquer on the breadth-first spanning tree of any network,
# measured beside its per-processor model (workloads::dnc::DncTreeModel), in virtual time
# (exact given its tie order: the figures are the same on any host, loaded or not).
#
#   scripts/validate-dnc-networks.sh [BIN]     # BIN default target/release/multicomputer
#
# Prints a Markdown table: network, root, the spanning tree's links, throughput (measured
# over all results and over the middle half, predicted), makespan and its error.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/release/multicomputer}
[ -x "$bin" ] || cargo build --release -p multicomputer-bench
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "| network | root | tree links | throughput measured (steady) | predicted (bound) | makespan measured | predicted | error |"
echo "|---|---|---|---|---|---|---|---|"
for case in "binary:3 0" "binary:3 3" "chain:6 2" "ring:6 2" "mesh:3x3 4" "mesh:4x4 5" \
            "torus:4x4 0" "hypercube:4 0" "mesh:8x8 27"; do
    set -- $case
    "$bin" --out "$out" dnc -t "$1" --root "$2" --tasks 400 --mode virtual --json > "$out/r.json"
    python3 - "$1" "$2" "$out/r.json" <<'PY'
import json, sys
t, root, path = sys.argv[1:]
v = json.load(open(path))
m, p = v["measured"], v["predicted"]
tree = v["meta"]["inputs"].get("spanning tree", "the tree itself")
links = tree.split(":")[1].strip() if ":" in tree else tree
print(f"| {t} | {root} | {links} | {m['throughput_per_s']:.1f} ({m['steady_throughput_per_s']:.1f}) "
      f"| {p['throughput_per_s']:.1f} ({p['bound']}) | {1e3*m['makespan_s']:.3f} ms | {1e3*p['makespan_s']:.3f} ms "
      f"| {100*(m['makespan_s']-p['makespan_s'])/p['makespan_s']:+.2f} % |")
PY
done
