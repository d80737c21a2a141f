#!/usr/bin/env bash
# Issue 21, item 15: how long a dilated run takes to stop after SIGTERM or SIGINT (the README
# promises within a second). Starts the issue's run N times, signals it after a random 1-3 s,
# and prints the time from the signal to the process's exit, and its exit code.
#   BIN=target/release/multicomputer N=8 scripts/sigterm-dilated.sh
set -euo pipefail
BIN=${BIN:-target/release/multicomputer}
N=${N:-8}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
echo "host: $(hostname), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); date: $(date -u +%FT%TZ)"
printf '| run | signal | after (s) | stop (s) | exit |\n|---|---|---|---|---|\n'
for i in $(seq 1 "$N"); do
  sig=TERM; [ $((i % 3)) -eq 0 ] && sig=INT
  "$BIN" emulate -t chain:2000 --rounds 100000 --occupy 1ms --mode dilated --dilation 1 \
    --out "$OUT" >/dev/null 2>"$OUT/err" &
  pid=$!
  after=$(awk -v s="$RANDOM" 'BEGIN { srand(s); printf "%.2f", 1 + 2 * rand() }')
  sleep "$after"
  t0=$(date +%s.%N)
  kill -s "$sig" "$pid"
  code=0; wait "$pid" || code=$?
  t1=$(date +%s.%N)
  printf '| %d | SIG%s | %s | %.3f | %d |\n' "$i" "$sig" "$after" "$(echo "$t1 - $t0" | bc)" "$code"
done
