#!/usr/bin/env bash
# Every input of issue 14, run with a time limit, as a Markdown table: what the issue found
# ("before"), what a BEFORE binary does now if one is given (e.g. a build of an older commit),
# and what this build does ("after": exit 2 with its message, or completion). A cell shows the
# exit code and the first line of stderr: 101 is a panic, 134 an abort, 124 a run still going
# at the time limit. "files" counts what the run left in its results folder.
#
#   scripts/edges.sh                                  # after only
#   BEFORE=/tmp/multicomputer-main scripts/edges.sh   # beside a binary built from main
#   LIMIT=20 scripts/edges.sh                         # seconds per run (default 10)
set -uo pipefail
cd "$(dirname "$0")/.."
limit=${LIMIT:-10}
cargo build -q -p multicomputer-bench
after=$PWD/target/debug/multicomputer
before=${BEFORE:-}
work=$(mktemp -d /tmp/mc-edges.XXXXXX)
trap 'rm -rf "$work"' EXIT
M=18446744073709551615

# Input files the file rows need.
head="k,levels,te_s,tau_s,steady_throughput_per_s"
printf '%s\n2,3,0.001,0,900\n2.5,3,0.001,0,800\n' "$head" >"$work/frac.csv"
# A sweep's own table, with three rows that cannot be fitted appended: a parent relation
# (k = 0), a NaN and an infinite throughput.
"$after" --out "$work/sweep" sweep farm --topologies chain:1-4,binary:2-4 --te 1ms,3ms \
    --beta-e 40us --beta-f 90us --tasks 400 --mode virtual >/dev/null 2>&1
python3 - "$work/sweep/sweep-farm/latest/rows.csv" "$work/dropped.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for k, thr in [("0", "900"), ("2", "NaN"), ("2", "inf")]:
    rows.append(dict(rows[-1], k=k, steady_throughput_per_s=thr))
w = csv.DictWriter(open(sys.argv[2], "w", newline=""), fieldnames=list(rows[0]))
w.writeheader()
w.writerows(rows)
PY
printf '%s\n2,0,0.001,0,900\n' "$head" >"$work/levels0.csv"
printf '%s\n2,1000000000,0.001,0,900\n' "$head" >"$work/levels1e9.csv"
printf 'k,levels,K,te_s,tau_s,steady_throughput_per_s\n2,3,4,0.001,0,900\n' >"$work/twice.csv"
printf 'n,k,l,elapsed_s,alpha0_s,alpha1_s,beta_s\n12,2,60,0.001,1e-6,oops,1e-6\n' >"$work/ocl-ref.csv"
printf 'P,time_s,loop_count\n2,1.0,-5\n4,1.2,2.5\n8,1.4,0\n16,1.5,0\n' >"$work/scaling.csv"
printf '\xef\xbb\xbf1\n2\n3\n4\n' >"$work/stream.txt"
printf '\xef\xbb\xbf-\n0\n0\n' >"$work/parents-bom.txt"
printf -- '-\n0\n0 x\n' >"$work/parents-bad.txt"

# One row: the issue's finding, then the command's arguments.
rows=(
  "panic|farm --tasks $M"
  "panic|dnc --tasks $M"
  "panic|dnc --kernel mergesort --keys $M"
  "panic|ocl -n 10 --length $M"
  "panic (crossbeam: capacity too large)|emulate --capacity $M --mode dilated -t chain:2 --rounds 1"
  "panic|sweep farm --topologies chain:1-$M"
  "abort at 16 367 threads|ising -P 16384 --mode dilated"
  "abort at 16 367 threads|ocl -n 16384 --dilation 2"
  "abort at 16 367 threads|emulate -t chain:16384 --mode dilated"
  "abort at 16 367 threads|scaling --processors 16384 --mode dilated"
  "abort (~1 TB)|ising --size 10000"
  "abort (32 GB)|emulate --capacity 1000000000 --mode dilated -t chain:2 --rounds 1"
  "abort (80 GB)|ocl -n 10 --length 10000000000"
  "abort (34 GB)|calibrate --samples 4294967295 --profile $work/p.json"
  "reads forever|fit farm --csv /dev/zero"
  "exit 0, makespan 290 ms (wrapped)|emulate --occupy 18446744074s"
  "exit 0, truncated|farm --send-overhead 18446744074s"
  "false deadlock (queue + 2 overflows)|farm --queue $M"
  "exit 0, speedup error +9 852 118 %|farm -g 1000000 --tasks 10"
  "exit 0, k 2.5 read as 2 (β_f +385 %)|fit farm --csv $work/frac.csv"
  "rows dropped silently|fit farm --csv $work/dropped.csv"
  "row dropped silently|fit farm --csv $work/levels0.csv"
  "abort at 34 GB or hang|fit farm --csv $work/levels1e9.csv"
  "last of the two columns taken|fit farm --csv $work/twice.csv"
  "garbage ignored|fit ocl --transform kk --csv $work/ocl-ref.csv"
  "accepted|scaling --csv $work/scaling.csv"
  "exit 1, --window not named|ocl -n 100000000"
  "hang|farm --te 1000000h"
  "hang|emulate --occupy 1000000h"
  "hang|farm --send-overhead 1000h"
  "hang|emulate --mode dilated --dilation 1e308"
  "hang|ising --loop-count $M"
  "hang|scaling --loop-counts $M --processors 2,4,8 --repeats 1"
  "hang|ising --samples $M"
  "hang|farm --per-byte 1s --task-bytes $M"
  "refused (BOM), invisible character in the message|ocl -n 2 --input $work/stream.txt"
  "refused (BOM)|emulate -t parents:$work/parents-bom.txt --rounds 1"
  "message prints the file's raw text|emulate -t parents:$work/parents-bad.txt"
  "writes scaling.csv, then exit 2|scaling --processors 2 --loop-counts 0 --repeats 1"
)

# Runs one command; prints "exit N: first line of stderr (files: K)".
cell() {
    local bin=$1 args=$2 out rc line files
    out=$(mktemp -d "$work/out.XXXXXX")
    # shellcheck disable=SC2086  # the arguments are split on purpose
    timeout "$limit" "$bin" --out "$out/results" $args >"$out.stdout" 2>"$out.stderr"
    rc=$?
    line=$(grep -v -e '^\s*$' -e '^For more information' -e '^note: run with' \
        -e 'stack backtrace' "$out.stderr" | grep -m1 -e 'error' -e 'panicked' -e 'memory allocation' \
        -e 'warning' -e 'stopped' -e 'expected to take' || head -1 "$out.stderr")
    [[ $rc == 0 ]] && line=$(grep -i -e 'makespan' -e 'β_f' -e 'left out' -e '^row' \
        -e 'sequential reference' "$out.stdout" | head -3 \
        | python3 -c 'import re, sys; print(re.sub(r"[\s│┆]+", " ", sys.stdin.read()))')
    files=$(find "$out/results" -type f 2>/dev/null | wc -l)
    line=${line//|/\\|}
    # At most 240 characters; a byte-order mark shown, not hidden.
    line=$(python3 -c 'import sys; print(sys.argv[1][:240].replace("\ufeff", "<U+FEFF>"))' "$line")
    printf 'exit %s: %s (files: %s)' "$rc" "$line" "$files"
}

echo "host: $(hostname), $(nproc) cores; date: $(date -u +%FT%TZ); limit ${limit} s per run"
echo "(\`$M\` is written MAX; temporary paths shortened to \$W)"
echo
if [[ -n $before ]]; then
    echo "| input | issue's finding | before (\`$before\`) | after |"
    echo "|---|---|---|---|"
else
    echo "| input | issue's finding (before) | after |"
    echo "|---|---|---|"
fi
for row in "${rows[@]}"; do
    finding=${row%%|*}
    args=${row#*|}
    shown=$(sed -e "s/$M/MAX/g" -e "s|$work|\$W|g" <<<"$args")
    a=$(cell "$after" "$args" | sed -e "s/$M/MAX/g" -e "s|$work|\$W|g")
    if [[ -n $before ]]; then
        b=$(cell "$before" "$args" | sed -e "s/$M/MAX/g" -e "s|$work|\$W|g")
        printf '| `%s` | %s | %s | %s |\n' "$shown" "$finding" "$b" "$a"
    else
        printf '| `%s` | %s | %s |\n' "$shown" "$finding" "$a"
    fi
done
