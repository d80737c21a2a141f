#!/usr/bin/env bash
# Issue 20: what each MPI rank of a partitioned virtual-time run holds, against the memory
# plan (`meta.memory_plan_bytes` of rank 0's --json report, the whole run's). Each rank's peak
# resident memory is GNU time's %M for that rank's process. Two series:
#   - a machine of a fixed part size (22 500 processors a rank) on 1, 2, 4, 8 and 16 ranks,
#     so the whole machine grows with the ranks: the slope of a rank's memory against the
#     whole machine's processors is what every rank holds of the whole machine;
#   - a machine of 16 processors, alone and on 2 and 4 ranks: what a rank costs before its
#     machine (the process and the MPI library).
# Needs a binary built with `--features mpi` and OpenMPI. Prints Markdown tables.
#   BIN=target/release/multicomputer scripts/measure-rank-memory.sh [largest ranks, default 16]
set -euo pipefail
BIN=${BIN:-target/release/multicomputer}
MOST=${1:-16}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
mpi=(mpirun --allow-run-as-root --oversubscribe)
phold=(emulate --pattern phold --mode virtual --latency 1us --horizon 1ms --json)
echo "host: $(hostname), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(free -g | awk '/Mem/ {print $7}') GiB available; date: $(date -u +%FT%TZ); $BIN"
echo

# One run of `topology` on `k` ranks (1: alone, with --partitions 1 when `parts` says so):
# "processors | ranks | plan in all | peak RSS per rank (min–max) | in all".
run() {
  local topology=$1 k=$2 parts=$3
  rm -f "$OUT"/rank.* "$OUT/j.json"
  local cmd=("$BIN" "${phold[@]}" -t "$topology" --out "$OUT/r")
  [ "$parts" != none ] && cmd+=(--partitions "$parts")
  if [ "$k" = 1 ]; then
    /usr/bin/time -f '%M' -o "$OUT/rank.0" "${cmd[@]}" >"$OUT/j.json" 2>"$OUT/err" || {
      echo "| $topology | alone | failed: $(head -c 200 "$OUT/err") | | |"; return; }
  else
    "${mpi[@]}" -np "$k" sh -c '/usr/bin/time -f %M -o "$0/rank.$OMPI_COMM_WORLD_RANK" "$@"' \
      "$OUT" "${cmd[@]}" >"$OUT/j.json" 2>"$OUT/err" || {
      echo "| $topology | $k | failed: $(head -c 200 "$OUT/err") | | |"; return; }
  fi
  python3 - "$OUT" "$topology" "$k" <<'PY'
import glob, json, sys
out, topology, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
j = json.load(open(f"{out}/j.json"))
plan = j["meta"]["memory_plan_bytes"]
kib = sorted(int(open(f).read().split()[-1]) for f in glob.glob(f"{out}/rank.*"))
mib = lambda b: f"{b / 2**20:.1f} MiB"
print(f"| {topology} | {'alone' if k == 1 else k} | {mib(plan)} | "
      f"{mib(kib[0] * 1024)}–{mib(kib[-1] * 1024)} | {mib(sum(kib) * 1024)} | "
      f"{plan / (sum(kib) * 1024):.3f} |")
PY
}

echo "Fixed part size (22 500 processors a rank), PHOLD to 1 ms:"
echo
echo '| machine | ranks | plan in all | peak RSS per rank | in all | plan / measured |'
echo '|---|---|---|---|---|---|'
run torus:150x150 1 none
for kt in 2:torus:300x150 4:torus:300x300 8:torus:600x300 16:torus:600x600; do
  k=${kt%%:*}; t=${kt#*:}
  [ "$k" -le "$MOST" ] && run "$t" "$k" "$k"
done
echo
echo "A rank before its machine (16 processors):"
echo
echo '| machine | ranks | plan in all | peak RSS per rank | in all | plan / measured |'
echo '|---|---|---|---|---|---|'
run torus:4x4 1 none
run torus:4x4 1 1
run torus:4x4 2 2
run torus:4x4 4 4
