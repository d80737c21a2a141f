#!/usr/bin/env bash
# The cost of the partitioned semantics in instructions and simulated cache misses, which the
# host's load does not change (issue 20: events per second at --partitions 1 within 5 % of
# today's engine). Runs each case under cachegrind (instructions, a simulated cache with the
# last level set to this host's 2 MiB L2, and simulated branch prediction), for PHOLD and
# emulate's reduce pattern, without --partitions (today's engine) and with --partitions 1, for
# each binary given (e.g. main's and a branch's release builds):
#
#   scripts/partitions-instructions.sh BIN [BIN…]
#
# Each case runs at two lengths (PHOLD's horizon 0.5 and 1 ms, reduce's 3 and 8 rounds):
# the difference of their counts over the difference of their events is the count per event
# of the event loop alone, without the set-up (topology, stacks, coroutines) both lengths
# share. On binary:13, not the issue's binary:14: valgrind's table of memory segments
# (VG_N_SEGMENTS) cannot hold binary:14's 32 766 stack maps. Cache misses are those of
# cachegrind's model (no TLB, no prefetching); their counts move by a few per event between
# runs of one binary as the stacks' addresses change.
# Needs valgrind; each run takes a minute or more under cachegrind.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 BIN [BIN…]" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "needs valgrind" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
phold="emulate -t binary:13 --pattern phold --remote 0.5 --population 4 --mean-delay 100us --latency 100us --mode virtual --json --horizon"
reduce="emulate -t binary:13 --pattern reduce --mode virtual --latency 1us --json --rounds"
# Prints "events" and cachegrind's summary (Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw Bc Bcm Bi
# Bim) of one run, on one line.
count() {
    # shellcheck disable=SC2086
    valgrind --tool=cachegrind --cache-sim=yes --branch-sim=yes --LL=2097152,16,64 \
        --cachegrind-out-file="$tmp/cg.out" "$@" --out "$tmp/r" >"$tmp/run.json" 2>"$tmp/vg.err"
    echo "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["report"]["sim"]["events"])' "$tmp/run.json") $(sed -n 's/^summary: //p' "$tmp/cg.out")"
}
echo "| binary | case | engine | events (short, long) | instructions, M (short, long) | per event of the loop: instructions | L1 misses | LL misses | mispredicted branches |"
echo "|---|---|---|---|---|---|---|---|---|"
for bin in "$@"; do
    for c in "phold|$phold|500us|1000us" "reduce|$reduce|3|8"; do
        IFS='|' read -r name args short long <<<"$c"
        for flag in "" "--partitions 1"; do
            # shellcheck disable=SC2086
            short_counts=$(count "$bin" $args "$short" $flag)
            # shellcheck disable=SC2086
            long_counts=$(count "$bin" $args "$long" $flag)
            python3 -c "
import sys
b, n, f, short, long = sys.argv[1:]
s, l = [list(map(int, x.split())) for x in (short, long)]
names = 'events Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw Bc Bcm Bi Bim'.split()
s, l = dict(zip(names, s)), dict(zip(names, l))
per = lambda *keys: sum(l[k] - s[k] for k in keys) / (l['events'] - s['events'])
print(f\"| {b} | {n} | {f} | {s['events']}, {l['events']} | {s['Ir']/1e6:.1f}, {l['Ir']/1e6:.1f} \"
      f\"| {per('Ir'):.0f} | {per('I1mr', 'D1mr', 'D1mw'):.1f} | {per('ILmr', 'DLmr', 'DLmw'):.1f} \"
      f\"| {per('Bcm', 'Bim'):.1f} |\")
" "$bin" "$name" "${flag:-no --partitions}" "$short_counts" "$long_counts"
        done
    done
done
