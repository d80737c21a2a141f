#!/usr/bin/env bash
# The cost of the partitioned semantics in instructions, which the host's load does not
# change (issue 20: events per second at --partitions 1 within 5 % of today's engine).
# Counts each run's instructions under callgrind, for PHOLD and emulate's reduce pattern,
# without --partitions (today's engine) and with --partitions 1, for each binary given
# (e.g. main's and a branch's release builds):
#
#   scripts/partitions-instructions.sh BIN [BIN…]
#
# Each case runs at two lengths (PHOLD's horizon 0.5 and 1 ms, reduce's 3 and 8 rounds):
# the difference of their instructions over the difference of their events is the
# instructions per event of the event loop alone, without the set-up (topology, stacks,
# coroutines) both lengths share. On binary:13, not the issue's binary:14: valgrind's table
# of memory segments (VG_N_SEGMENTS) cannot hold binary:14's 32 766 stack maps.
# Needs valgrind; each run takes a minute or more under callgrind.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 BIN [BIN…]" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "needs valgrind" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
phold="emulate -t binary:13 --pattern phold --remote 0.5 --population 4 --mean-delay 100us --latency 100us --mode virtual --json --horizon"
reduce="emulate -t binary:13 --pattern reduce --mode virtual --latency 1us --json --rounds"
# Prints "events instructions" of one run.
count() {
    # shellcheck disable=SC2086
    valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$@" --out "$tmp/r" \
        >"$tmp/run.json" 2>"$tmp/vg.err"
    echo "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["report"]["sim"]["events"])' "$tmp/run.json") $(sed -n 's/^summary: //p' "$tmp/cg.out")"
}
echo "| binary | case | engine | events (short, long) | instructions, M (short, long) | instructions per event of the loop |"
echo "|---|---|---|---|---|---|"
for bin in "$@"; do
    for c in "phold|$phold|500us|1000us" "reduce|$reduce|3|8"; do
        IFS='|' read -r name args short long <<<"$c"
        for flag in "" "--partitions 1"; do
            # shellcheck disable=SC2086
            read -r e1 i1 <<<"$(count "$bin" $args "$short" $flag)"
            # shellcheck disable=SC2086
            read -r e2 i2 <<<"$(count "$bin" $args "$long" $flag)"
            python3 -c "
import sys
b, n, f, e1, e2, i1, i2 = sys.argv[1:]
e1, e2, i1, i2 = map(int, (e1, e2, i1, i2))
print(f'| {b} | {n} | {f} | {e1}, {e2} | {i1/1e6:.1f}, {i2/1e6:.1f} | {(i2 - i1) / (e2 - e1):.0f} |')
" "$bin" "$name" "${flag:-no --partitions}" "$e1" "$e2" "$i1" "$i2"
        done
    done
done
