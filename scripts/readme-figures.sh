#!/usr/bin/env bash
# Checks every figure the README quotes from a virtual-time run (emulated times: the same on
# every host and under any load): runs each command with --json, formats the figure as the
# README writes it, and checks that the README says exactly that. Prints one line per figure
# and exits 1 if any README figure differs from its run (or the phrase is gone from the
# README), so that a change to the code or the README cannot leave them apart unnoticed.
# Wall-clock figures (the tour's times, the dilated run's lateness) vary with the host and
# are left to scripts/readme-tour.sh.
#
#   scripts/readme-figures.sh          # builds the release binary
#   MC=target/debug/multicomputer scripts/readme-figures.sh
#
# About 15 s with the release build (the hypercube broadcast copies 1 GiB).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${MC:-}" ]; then
    cargo build --release -q -p multicomputer-bench
    MC=target/release/multicomputer
fi
MC=$(realpath "$MC")
readme=$(realpath README.md)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
i=0
# check PHRASE PYTHON-EXPRESSION -- COMMAND...: runs COMMAND with --json in a fresh results
# folder; the expression, over the JSON `d`, gives the figure as the README writes it, which
# PHRASE must hold, and the README must hold PHRASE.
check() {
    local phrase=$1 expr=$2
    shift 3
    i=$((i + 1))
    local json="$work/$i.json"
    if ! "$MC" "$@" --json --out "$work/results-$i" >"$json" 2>"$work/$i.err"; then
        echo "FAIL: multicomputer $* exited non-zero: $(tail -n 3 "$work/$i.err")"
        failed=1
        return
    fi
    python3 - "$json" "$readme" "$phrase" "$expr" "multicomputer $*" <<'PY' || failed=1
import json, sys
d = json.load(open(sys.argv[1]))
readme, phrase, expr, command = open(sys.argv[2]).read(), sys.argv[3], sys.argv[4], sys.argv[5]
# The README wraps its comments: compare with runs of spaces, "# " and newlines as one space.
flat = " ".join(w for w in readme.replace("#", " ").split())
figure = str(eval(expr, {"d": d}))
if figure not in phrase:
    print(f"FAIL: {command}: the run gives {figure!r}, the README's phrase says {phrase!r}")
    sys.exit(1)
if " ".join(phrase.split()) not in flat:
    print(f"FAIL: the README no longer says {phrase!r} ({command} gives {figure!r})")
    sys.exit(1)
print(f"ok: {phrase!r} ({command})")
PY
}

link="--send-overhead 10us --per-byte 1ns --latency 500ns"
# The expressions below are Python over the run's JSON `d`.
equal="d['excess_ns'] == 0 and d['error_pct'] == 0"
check "1 s of emulated time" "'%g s of emulated time' % d['makespan_s']" -- \
    emulate -t chain:256 --rounds 100 --occupy 10ms
# shellcheck disable=SC2086
check "cut-through: 10.591 ms, the model's to the nanosecond" \
    "'%.3f ms, ' % (d['measured']['makespan_s'] * 1e3) + ('the model\x27s to the nanosecond' if $equal else 'not the model')" -- \
    collective broadcast -t hypercube:10 --bytes 1MiB --switching cut-through $link
# shellcheck disable=SC2086
check "= 211.51 µs, equal to its model" \
    "'%.2f µs, ' % (d['measured']['makespan_s'] * 1e6) + ('equal to its model' if $equal else 'not its model')" -- \
    collective all-gather --algorithm dimension-ordered -t torus:8x8 --bytes 64KiB $link --mode virtual
sweep=(sweep collective all-reduce --algorithms ring,recursive-doubling
    --topologies hypercube:4,ring:16 --bytes 8-1MiB --send-overhead 10us --recv-overhead 1us
    --latency 500ns --per-byte 1ns --gamma 1ns --switching cut-through --mode virtual)
# A crossover `c`'s `k` (predicted or measured) as the README writes it.
kib="(lambda c, k: '%.1f KiB' % (c[k]['at_bytes'] / 1024))"
check "predicted beside measured: 56.3 KiB both on hypercube:4" \
    "(lambda f, c: f(c, 'predicted') + ' both' if f(c, 'predicted') == f(c, 'measured') else 'apart')($kib, d['crossovers'][0])" -- \
    "${sweep[@]}"
check "on ring:16 predicted 55.3 KiB, measured 21.1 KiB" \
    "(lambda f, c: 'predicted ' + f(c, 'predicted') + ', measured ' + f(c, 'measured'))($kib, d['crossovers'][1])" -- \
    "${sweep[@]}"
check "(50 processes, 10 000 packets)" \
    "'(%d processes, %s packets)' % (d['processes'], format(d['packets'], ',').replace(',', ' '))" -- \
    ocl --window 500 --transform m1:10 --length 10000
check "moves by 6.14 % between" \
    "(lambda r: '%.2f %%' % (100 * (r['max'] / r['min'] - 1)))(d['meta']['tie_spread']['ranges'][0])" -- \
    farm -t chain:4 --te 1ms --beta-e 50us --beta-f 100us --tasks 50 --mode virtual
if [ "$failed" -ne 0 ]; then
    echo "readme-figures: some README figures differ from their runs" >&2
    exit 1
fi
echo "readme-figures: every checked README figure matches its run"
