#!/usr/bin/env bash
# Issue 21: the memory model (the bytes a run is planned to hold, `meta.memory_plan_bytes` of
# its --json report) beside the peak resident memory the kernel measured for its process
# (GNU time's %M), for farm, dnc, emulate (with and without --trace), ocl and ising at three
# sizes each. Prints a Markdown table.
#   BIN=target/release/multicomputer scripts/memory-model.sh
set -euo pipefail
BIN=${BIN:-target/release/multicomputer}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
echo "host: $(hostname), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); date: $(date -u +%FT%TZ); $BIN"
echo
echo '| command | planned | peak RSS | planned / peak | wall |'
echo '|---|---|---|---|---|'
while IFS= read -r args; do
  [ -z "$args" ] && continue
  # shellcheck disable=SC2086
  /usr/bin/time -f '%M %e' -o "$OUT/time" "$BIN" $args --json --out "$OUT" >"$OUT/j.json" 2>/dev/null || {
    echo "| \`$args\` | failed | | | |"; continue; }
  read -r kib wall <"$OUT/time"
  python3 - "$OUT/j.json" "$kib" "$wall" "$args" <<'PY'
import json, sys
plan = json.load(open(sys.argv[1]))["meta"]["memory_plan_bytes"]
peak = int(sys.argv[2]) * 1024
mib = lambda b: f"{b / 2**20:.1f} MiB"
print(f"| `{sys.argv[4]}` | {mib(plan)} | {mib(peak)} | {plan / peak:.2f} | {sys.argv[3]} s |")
PY
done <<LIST
farm -t binary:3 --tasks 100000 --mode virtual
farm -t binary:3 --tasks 1000000 --mode virtual
farm -t binary:3 --tasks 4000000 --mode virtual
farm -t chain:300 --tasks 3000 --te 1ms --mode virtual
dnc -t binary:4 --tasks 10000 --mode virtual
dnc -t binary:4 --tasks 100000 --mode virtual
dnc -t binary:4 --tasks 1000000 --mode virtual
emulate -t chain:1000 --rounds 10 --mode virtual
emulate -t chain:10000 --rounds 10 --mode virtual
emulate -t chain:30000 --rounds 10 --mode virtual
emulate -t chain:1000 --rounds 100 --mode virtual --trace $OUT/t.json
emulate -t chain:1000 --rounds 1000 --mode virtual --trace $OUT/t.json
emulate -t chain:2000 --rounds 2000 --mode virtual --trace $OUT/t.json
ocl -n 100 --length 100000
ocl -n 1000 --length 10000
ocl -n 10000 --length 1000
ising -P 8 --mode virtual
ising -P 64 --mode virtual
ising -P 512 --mode virtual
LIST
