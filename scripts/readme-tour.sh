#!/usr/bin/env bash
# Runs every command of the README's tour (release build), each with --report (an HTML page
# per command) where the command takes one, and times it. Prints a Markdown table of
# command, exit status, wall time, report, the wall time the command announced before its
# run (MULTICOMPUTER_ANNOUNCE_ALL has every estimate announced, short ones too), where the
# wall time fell against that range, and whether the estimate is met: the wall time in the
# range, or within a factor of 1.5 of the estimate (the range's bottom). The pages go to
# OUT/reports/ and the results folder is OUT/results. With --issue, issue 21's two long cases
# follow (`farm -t binary:14 --tasks 10000000`, about 10 min on a quiet host, and
# `farm --runs 10000 --warmup 10000`). The load average at the start and the end is printed
# under the table, then scripts/readme-figures.sh checks the README's emulated figures.
#
#   scripts/readme-tour.sh [OUT] [--issue]   # default OUT: target/readme-tour (replaced);
#                                             # a named OUT must be new or empty
#
# Timings depend on the host's load: take them on a quiet host.
set -uo pipefail
cd "$(dirname "$0")/.."
issue=no
args=()
for a in "$@"; do
    if [ "$a" = --issue ]; then issue=yes; else args+=("$a"); fi
done
source scripts/out-folder.sh
out_folder readme-tour "${args[0]:-}" target/readme-tour
mkdir -p "$out/reports"
cargo build --release -q -p multicomputer-bench
mc=$(realpath "${CARGO_TARGET_DIR:-target}/release/multicomputer")
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
    printf '| `%s` | %s | %.2f s | %s | %s |\n' "multicomputer $*" "$status" "$wall" \
        "$([ "$report" = yes ] && basename "$page" || echo —)" "$(announced "$log" "$wall")"
}
# announced LOG WALL: the ranges LOG announces ("[estimate 1.200 s to 4.800 s]", one per
# announcement, added up), where WALL lies against their sum, and whether the estimate is
# met (in the range, or within 1.5 × of its bottom).
announced() {
    python3 - "$1" "$2" <<'PY'
import re, sys
text = open(sys.argv[1], errors="replace").read()
ranges = [(float(a), float(b)) for a, b in re.findall(r"\[estimate ([0-9.]+) s to ([0-9.]+) s\]", text)]
if not ranges:
    print("none | — | —")
    sys.exit()
low, high = sum(r[0] for r in ranges), sum(r[1] for r in ranges)
wall = float(sys.argv[2])
def times(a, b):
    return f"{a / b:.1f} ×" if b > 0 else "∞ ×"
if low <= wall <= high:
    verdict = "in"
elif wall < low:
    verdict = f"below ({times(wall, low)} the bottom)"
else:
    verdict = f"over ({times(wall, high)} the top)"
met = low <= wall <= high or (low > 0 and 1 / 1.5 <= wall / low <= 1.5)
print(f"{low:.3f} s to {high:.3f} s ({len(ranges)}) | {verdict} | {'yes' if met else 'no'}")
PY
}
echo "| command | exit | wall time | report | announced | wall against range | met |"
echo "|---|---|---|---|---|---|---|"
load_start=$(cut -d' ' -f1 /proc/loadavg)
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
if [ "$issue" = yes ]; then
    run farm-binary14 no farm -t binary:14 --tasks 10000000
    run farm-runs no farm --runs 10000 --warmup 10000
fi
echo
echo "Load average (1 min): $load_start at the start, $(cut -d' ' -f1 /proc/loadavg) at the end, on $(nproc) cores."
echo
# The figures the README quotes from virtual-time runs, each against its run.
MC="$mc" scripts/readme-figures.sh
