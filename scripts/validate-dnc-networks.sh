#!/usr/bin/env bash
# Issue 19, item 2: divide and conquer on the breadth-first spanning tree of any network,
# measured beside its per-processor model (workloads::dnc::DncTreeModel), in virtual time
# (exact given its tie order: the figures are the same on any host, loaded or not).
#
#   scripts/validate-dnc-networks.sh [BIN]     # BIN default target/release/multicomputer
#
# Prints two Markdown tables. The first: network, root, the spanning tree's links, throughput
# (measured over all results and over the middle half, predicted), makespan, its error, the
# terms the run names as left out of the model (with their sizes) and the makespan's error
# against the model with them. The second: the steady state's error against the model at
# M = 2000 with a queue of 1 and of 2 (the queue-of-1 starvation on uneven fan-outs).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/release/multicomputer}
[ -x "$bin" ] || cargo build --release -p multicomputer-bench
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "| network | root | tree links | throughput measured (steady) | predicted (bound) | makespan measured | predicted | error | not in the model | error with it |"
echo "|---|---|---|---|---|---|---|---|---|---|"
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
      f"| {100*(m['makespan_s']-p['makespan_s'])/p['makespan_s']:+.2f} % "
      + "| " + ("; ".join(f"{t['name']}: {1e3*t['time_s']:.3f} ms" for t in v.get("missing_terms", [])) or "—")
      + " | " + (f"{100*(m['makespan_s']-p['makespan_s']-sum(t['time_s'] for t in v['missing_terms']))/(p['makespan_s']+sum(t['time_s'] for t in v['missing_terms'])):+.2f} %" if v.get("missing_terms") else "—")
      + " |")
PY
done
echo
echo "| network | root | steady error, queue 1 | steady error, queue 2 |"
echo "|---|---|---|---|"
for case in "binary:4 0" "binary:3 3" "ring:6 2" "mesh:3x3 4" "mesh:4x4 5" "torus:4x4 0" \
            "hypercube:4 0" "mesh:8x8 27"; do
    set -- $case
    row="| $1 | $2 |"
    for q in 1 2; do
        "$bin" --out "$out" dnc -t "$1" --root "$2" --tasks 2000 --queue "$q" --mode virtual \
            --json > "$out/r.json"
        err=$(python3 - "$out/r.json" <<'PY'
import json, sys
print(f"{json.load(open(sys.argv[1]))['errors_pct']['steady_throughput']:+.2f} %")
PY
)
        row="$row $err |"
    done
    echo "$row"
done
