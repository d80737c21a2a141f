#!/usr/bin/env bash
# Runs every command of the README's tour (release build), each with --report (an HTML page
# per command) where the command takes one, and times it. Prints a Markdown table of
# command, exit status, wall time, report, and the wall time the command announced before
# its run (MULTICOMPUTER_ANNOUNCE_ALL has every estimate announced, short ones too) with
# whether the wall time fell in that range; the pages go to OUT/reports/ and the results
# folder is OUT/results.
#
#   scripts/readme-tour.sh [OUT]        # default OUT: target/readme-tour
#
# Timings depend on the host's load: take them on a quiet host.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:-target/readme-tour}
rm -rf "$out"
mkdir -p "$out/reports"
cargo build --release -q -p multicomputer-bench
mc=target/release/multicomputer
export MULTICOMPUTER_ANNOUNCE_ALL=1
res="$out/results"
# scaling --csv needs a table of its own: a synthetic one like the tests'.
python3 scripts/synthetic-scaling-table.py "$out/my-measurements.csv"
i=0
run() {
    # run NAME REPORT? ARGS...: REPORT is "yes" to add --report.
    local name=$1 report=$2
    shift 2
    i=$((i + 1))
    local page="$out/reports/$(printf '%02d' $i)-$name.html"
    local extra=()
    [ "$report" = yes ] && extra=(--report "$page")
    local start end status
    start=$(date +%s.%N)
    "$mc" "$@" "${extra[@]}" --out "$res" >"$out/reports/$(printf '%02d' $i)-$name.txt" 2>&1
    status=$?
    end=$(date +%s.%N)
    local wall log
    wall=$(echo "$end - $start" | bc)
    log="$out/reports/$(printf '%02d' $i)-$name.txt"
    printf '| `%s` | %s | %.1f s | %s | %s |\n' "multicomputer $*" "$status" "$wall" \
        "$([ "$report" = yes ] && basename "$page" || echo —)" "$(announced "$log" "$wall")"
}
# announced LOG WALL: the ranges LOG announces ("[estimate 1.200 s to 4.800 s]", one per
# announcement, added up) and whether WALL lies in their sum.
announced() {
    python3 - "$1" "$2" <<'PY'
import re, sys
text = open(sys.argv[1], errors="replace").read()
ranges = [(float(a), float(b)) for a, b in re.findall(r"\[estimate ([0-9.]+) s to ([0-9.]+) s\]", text)]
if not ranges:
    print("none | —")
    sys.exit()
low, high = sum(r[0] for r in ranges), sum(r[1] for r in ranges)
wall = float(sys.argv[2])
verdict = "in" if low <= wall <= high else ("below" if wall < low else f"over ({wall / high:.1f} × the top)")
print(f"{low:.2f} s to {high:.2f} s ({len(ranges)}) | {verdict}")
PY
}
echo "| command | exit | wall time | report | announced | wall in range |"
echo "|---|---|---|---|---|---|"
run tour yes tour
run calibrate yes calibrate
run emulate-256 yes emulate -t chain:256 --rounds 100 --occupy 10ms
run emulate-256-dilated yes emulate -t chain:256 --rounds 100 --occupy 10ms --mode dilated
run emulate-reduce yes emulate -t binary:5 --pattern reduce --send-overhead 50us --trace "$out/timeline.json"
run pingpong yes pingpong
run farm yes farm -t binary:4 --te 1ms --beta-e 50us --beta-f 100us --tasks 1000
run farm-primes yes farm -t chain:8 --kernel primes --grain 20000
run predict-farm yes predict farm -t chain:16 --te 10ms --figures
run farm-random yes farm -t chain:16 --te 10ms --times exponential --runs 5 --warmup 1
run dnc yes dnc -t binary:3 --te 8ms --split random
run dnc-mergesort yes dnc -t tree:3:3 --kernel mergesort --keys 100000
run speedup yes speedup --kernel mergesort
run speedup-grains yes speedup --kernel primes-chain --grains default
run sweep-farm yes sweep farm --topologies chain:1-16,binary:1-5 --te 1ms,5ms,10ms --guided
run fit-farm yes fit farm --csv "$res/sweep-farm/latest/rows.csv"
run ocl yes ocl --window 500 --transform m1:10 --length 10000
run sweep-ocl yes sweep ocl
run fit-ocl yes fit ocl --transform kk --csv "$res/sweep-ocl/latest/kk.csv"
run ising yes ising -P 16 --mechanism centralized --loop-count 200000 --verify
run ising-2d yes ising --dimension 2 --size 32 --temperature 1.5
run scaling no scaling --mechanism tree
run scaling-csv no scaling --csv "$out/my-measurements.csv" --model 1+log
run collective-ring yes collective all-reduce --algorithm ring -t ring:8 --bytes 64KiB \
    --send-overhead 10us --per-byte 1ns --latency 500ns --gamma 1ns --mode virtual
run collective-hypercube yes collective broadcast -t hypercube:10 --bytes 1MiB \
    --switching cut-through --send-overhead 10us --per-byte 1ns --latency 500ns
