#!/usr/bin/env bash
# Issue 20 (virtual time over MPI ranks), recorded in docs/results/distributed.md:
#
# 1. Exactness: each case's --json output with its host-dependent fields removed (wall-clock
#    times, rates, date, host, output paths) and of the partitioning's own description
#    (--partitions, the parts block: cut links, windows) is byte-identical for `--partitions 1/2/4` on
#    threads and `mpirun -np 2/4 … --partitions 2/4`: farm binary:8, farm binary:4 with
#    exponential task times, dnc, `emulate --pattern reduce`, PHOLD (whose own digest
#    also equals its sequential reference's), and `collective all-reduce` on torus:4x4
#    (routed messages, hop by hop; its model's error, 0 where the model is exact, is in the
#    JSON compared). The trace file rank 0 writes over 2 and 4
#    ranks is byte-identical to `--partitions 1`'s; and `--partitions 4` on 2 ranks is
#    refused with exit 2, naming `--partitions` and the ranks.
# 2. PHOLD events per second at K = 1 and 2 (threads, and ranks), same run; marked "under
#    load" when the host's load average exceeds 3.
# 3. Capacity: the largest machine one process holds at the default vm.max_map_count
#    (about 2 maps per processor in virtual time), against `mpirun -np 4`, where each rank
#    has its own limit: wall time and peak memory per rank.
# 4. Native across ranks: the farm in dilated and native time, in one process and over
#    `mpirun -np 2 … --partitions 2`: speedup against its model, the share of cut-link
#    messages on time, and the skew of time zero; and the issue's own measurement,
#    `speedup --kernel primes-tree` at P = 2 in one process beside `mpirun -np 2 …
#    --partitions 2` (each rank its own core): the speedup, and the cut-link receives on time;
#    with the host's cores free before and kept busy by other work during the run (the
#    job's own ranks are not other work), quiet and with a `yes` beside it, which must
#    show as more than half a core of other work (the busy-host warning's threshold).
#
#   scripts/validate-distributed.sh [quick|native]
#       quick   only part 1, on small cases, at -np 2 and 4 (what .ci/run's MPI stage runs)
#       native  only part 4
#
# BIN names a binary built with `--features mpi` (else one is built, release). Needs
# OpenMPI (`apt-get install -y openmpi-bin libopenmpi-dev libclang-dev`).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-full}
if [ -z "${BIN:-}" ]; then
    cargo build --release -p multicomputer-bench --features mpi
    BIN="${CARGO_TARGET_DIR:-target}/release/multicomputer"
fi
out=${KEEP_DIR:-$(mktemp -d)}
# A competitor started to load the host (below) is ended however the script ends.
competitor=
cleanup() {
    [ -z "$competitor" ] || kill -- "-$competitor" 2>/dev/null || true
    [ -n "${KEEP_DIR:-}" ] || rm -rf "$out"
}
trap cleanup EXIT
mpi=(mpirun --allow-run-as-root --oversubscribe)
load=$(cut -d' ' -f1 /proc/loadavg)
loaded=$(python3 -c "print('under load (load average $load)' if $load > 3 else 'quiet host (load average $load)')")

strip() {
    python3 -c '
import json, sys
# Of the host (wall clock, rates, date, cores an MPI rank is bound to, paths) and of the
# partitioning itself (the command line, --partitions, the parts block: parts, cut
# links, windows; the memory plan, which prices each MPI rank its own process and copy
# of the machine).
HOST = {"wall_s", "run_s", "setup_s", "events_per_s", "date", "host", "command_line", "cores",
        "version", "files", "out", "folder", "path", "profile", "wall_over_dilation_s",
        "partitions", "parts", "memory_plan_bytes"}
def clean(v):
    if isinstance(v, dict):
        return {k: clean(x) for k, x in v.items() if k not in HOST and "wall" not in k}
    if isinstance(v, list):
        # The inputs are [name, value] pairs.
        return [clean(x) for x in v if not (isinstance(x, list) and x[:1] and x[0] in HOST)]
    return v
print(json.dumps(clean(json.load(sys.stdin)), indent=1, sort_keys=True))
'
}

if [ "$mode" = quick ]; then
    cases=(
        "farm -t binary:4 --te 1ms --tasks 200 --latency 20us"
        "emulate -t binary:5 --pattern reduce --rounds 20 --occupy 1ms --latency 50us"
        "emulate -t torus:4x4 --pattern phold --remote 0.5 --mean-delay 100us --horizon 5ms --latency 50us"
        "collective all-reduce -t torus:4x4 --bytes 64KiB --latency 1us"
    )
    ks=(2 4)
else
    cases=(
        "farm -t binary:8 --te 1ms --tasks 2000 --latency 1us"
        "farm -t binary:4 --te 1ms --tasks 1000 --times exponential --latency 1us"
        "dnc -t binary:3 --te 8ms --split random --latency 1us"
        "emulate -t binary:10 --pattern reduce --rounds 50 --occupy 1ms --latency 10us"
        "emulate -t binary:10 --pattern phold --remote 0.5 --mean-delay 100us --horizon 20ms --latency 100us"
        "collective all-reduce -t torus:4x4 --bytes 64KiB --latency 1us"
        "collective all-reduce --algorithm ring -t torus:4x4 --bytes 64KiB --send-overhead 10us --per-byte 1ns --latency 1us --switching cut-through"
    )
    ks=(2 4)
fi

native() {
    echo
    echo "## Native across ranks ($(date -u +%F), $loaded)"
    echo
    echo "| run | speedup (model) | waits on time | cut-link messages on time | skew |"
    echo "|---|---|---|---|---|"
    summary() {
        python3 -c '
import json, sys
j = json.load(sys.stdin)
f, m = j["fidelity"], j
on = lambda n, late: "%d of %d (%.1f %%)" % (n - late, n, 100.0 * (n - late) / max(n, 1))
c = f.get("cut_links")
cut = on(c["receives"], c["late"]) if c else "(none)"
skew = "%.1f µs" % (c["skew_ns"] / 1e3) if c else "(none)"
print("%.3f (%.3f) | %s | %s | %s" % (m["measured"]["speedup"], m["predicted"]["speedup"],
      on(f["waits"], f["late_waits"]), cut, skew))
'
    }
    for run in "farm -t binary:2 --te 1ms --tasks 2000 --latency 20us --mode dilated --dilation 4" \
        "farm -t binary:2 --te 1ms --tasks 500 --latency 20us --mode dilated --dilation 20" \
        "farm -t chain:2 --te 1ms --tasks 2000 --latency 20us --mode native"; do
        # shellcheck disable=SC2086
        echo "| \`$run\` | $("$BIN" $run --json --out "$out/r" | summary) |"
        # shellcheck disable=SC2086
        echo "| \`mpirun -np 2 … --partitions 2\` | $("${mpi[@]}" -np 2 "$BIN" $run --partitions 2 --json --out "$out/r" | summary) |"
    done
    # The one-way time between ranks (calibrate under mpirun, added to a profile of its own
    # that calibrate in one process wrote first), and the dilation `auto` picks from it for
    # the same farm over ranks.
    echo
    echo "| one-way time between 2 ranks (median ± half IQR) | note bytes | round trips |"
    echo "|---|---|---|"
    "$BIN" calibrate --samples 50 --profile "$out/profile.json" --out "$out/r" >/dev/null
    "${mpi[@]}" -np 2 "$BIN" calibrate --samples 200 --profile "$out/profile.json" \
        --json --out "$out/r" >/dev/null
    python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["rank_crossing"]
print("| %.1f ± %.1f µs | %d | %d |" % (c["one_way_ns"] / 1e3, c["spread_ns"] / 1e3, c["bytes"],
      c["samples"]))
' "$out/profile.json"
    echo
    echo "| run (D chosen) | D | speedup (model) | waits on time | cut-link messages on time | skew |"
    echo "|---|---|---|---|---|---|"
    for run in "farm -t binary:2 --te 1ms --tasks 500 --latency 20us --mode dilated" \
        "farm -t chain:2 --te 1ms --tasks 500 --latency 100us --mode dilated"; do
        # shellcheck disable=SC2086
        j=$("${mpi[@]}" -np 2 "$BIN" $run --partitions 2 --profile "$out/profile.json" --json \
            --out "$out/r")
        d=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["fidelity"]["dilation"])' <<<"$j" 2>/dev/null ||
            echo "?")
        echo "| \`mpirun -np 2 $run --partitions 2\` | $d | $(summary <<<"$j") |"
    done
    # The issue's measurement: the real kernel natively at P = 2, in one process and over
    # two ranks.
    echo
    echo "| speedup --kernel primes-tree, P = 2 | sequential | runtime at P = 2 | speedup (rough) | cut-link receives on time | skew | cores free before, other work during (of the host's) |"
    echo "|---|---|---|---|---|---|---|"
    speedup_row() {
        python3 -c '
import json, sys
j = json.load(sys.stdin)
p = [q for q in j["points"] if q["processors"] == 2][0]
c = p.get("cut_links")
cut = "%d of %d (%.1f %%)" % (c["receives"] - c["late"], c["receives"],
      100.0 * (c["receives"] - c["late"]) / max(c["receives"], 1)) if c else "(none)"
skew = "%.1f µs" % (c["skew_ns"] / 1e3) if c else "(none)"
h = j["host"]
busy = "%.2f, %.2f (%d)" % (h["free_cores_before"], h["others_cores_during"], h["cpus"])
print("%.3f s | %.3f s | %.2f (%.2f) | %s | %s | %s" % (j["sequential_s"]["median"],
      p["runtime"]["wall_s"]["median"], p["runtime"]["speedup"]["median"],
      p["rough_speedup"]["median"], cut, skew, busy))
'
    }
    s="speedup --kernel primes-tree --rounds 5"
    # shellcheck disable=SC2086
    echo "| \`$s -P 1,2\` | $("$BIN" $s -P 1,2 --json --out "$out/r" | speedup_row) |"
    # shellcheck disable=SC2086
    echo "| \`mpirun -np 2 $s --partitions 2\` | $("${mpi[@]}" -np 2 "$BIN" $s --partitions 2 --json --out "$out/r" | speedup_row) |"
    # The busy-host watch over ranks: the job's two ranks are its own work, not other
    # processes'; a competitor (`yes`, in its own process group, ended after) is other work,
    # and must be warned about (more than half a core busy during the run).
    setsid yes >/dev/null &
    competitor=$!
    # shellcheck disable=SC2086
    row=$("${mpi[@]}" -np 2 "$BIN" $s --partitions 2 --json --out "$out/r" | speedup_row)
    kill -- "-$competitor"
    competitor=
    echo "| \`mpirun -np 2 $s --partitions 2\`, \`yes\` beside it | $row |"
    python3 -c 'import sys; o = float(sys.argv[1].split("|")[-1].split(",")[1].split()[0]); sys.exit(0 if o > 0.5 else 1)' "$row" ||
        { echo "the busy-host watch missed a competitor: $row"; exit 1; }
}
if [ "$mode" = native ]; then
    native
    exit 0
fi

echo "## Exactness ($(date -u +%F), $loaded)"
echo
echo "| case (--mode virtual --json) | K | threads | mpirun -np K |"
echo "|---|---|---|---|"
failed=0
n=0
for c in "${cases[@]}"; do
    n=$((n + 1))
    # shellcheck disable=SC2086
    "$BIN" $c --mode virtual --partitions 1 --json --out "$out/r" >"$out/$n-1.json"
    strip <"$out/$n-1.json" >"$out/$n-1.s"
    for k in "${ks[@]}"; do
        # shellcheck disable=SC2086
        "$BIN" $c --mode virtual --partitions "$k" --json --out "$out/r" >"$out/$n-t$k.json"
        # shellcheck disable=SC2086
        "${mpi[@]}" -np "$k" "$BIN" $c --mode virtual --partitions "$k" --json --out "$out/r" \
            >"$out/$n-m$k.json"
        t=identical
        m=identical
        strip <"$out/$n-t$k.json" >"$out/$n-t$k.s"
        strip <"$out/$n-m$k.json" >"$out/$n-m$k.s"
        cmp -s "$out/$n-t$k.s" "$out/$n-1.s" || { t=DIFFERENT; failed=1; }
        cmp -s "$out/$n-m$k.s" "$out/$n-1.s" || { m=DIFFERENT; failed=1; }
        echo "| \`$c\` | $k | $t | $m |"
    done
done

# The trace over ranks: rank 0 writes the file a one-part run writes, byte for byte.
echo
echo "## Traces over ranks ($(date -u +%F), $loaded)"
echo
echo "| case (--mode virtual --trace) | K | mpirun -np K |"
echo "|---|---|---|"
tcase="${cases[1]}"
# shellcheck disable=SC2086
"$BIN" $tcase --mode virtual --partitions 1 --trace "$out/trace-1.json" --out "$out/r" >/dev/null
for k in "${ks[@]}"; do
    # shellcheck disable=SC2086
    "${mpi[@]}" -np "$k" "$BIN" $tcase --mode virtual --partitions "$k" \
        --trace "$out/trace-m$k.json" --out "$out/r" >/dev/null
    t=identical
    cmp -s "$out/trace-m$k.json" "$out/trace-1.json" || { t=DIFFERENT; failed=1; }
    echo "| \`$tcase\` | $k | $t |"
done

# Parts other than the ranks are refused before any work, naming --partitions (exit 2).
echo
set +e
# shellcheck disable=SC2086
"${mpi[@]}" -np 2 "$BIN" ${cases[0]} --mode virtual --partitions 4 --json --out "$out/r" \
    >/dev/null 2>"$out/refused.err"
code=$?
set -e
if [ "$code" = 2 ] && grep -q -- "--partitions 4 on 2 MPI ranks" "$out/refused.err"; then
    echo "mpirun -np 2 … --partitions 4: refused with exit 2, naming --partitions and the 2 ranks"
else
    echo "mpirun -np 2 … --partitions 4: NOT refused as it should be (exit $code): $(head -c 300 "$out/refused.err")"
    failed=1
fi

if [ "$mode" = quick ]; then
    exit "$failed"
fi

echo
echo "## PHOLD events per second ($(date -u +%F), $loaded)"
echo
phold="emulate -t binary:14 --pattern phold --remote 0.5 --population 4 --mean-delay 100us --horizon 10ms --latency 100us --mode virtual --json"
rate() { python3 -c 'import json,sys; p=json.load(sys.stdin)["phold"]; print(p["events"], round(p["events_per_s"]), p["matches_reference"])'; }
echo "\`$phold\`"
echo
echo "| run | events | events/s | equals the reference |"
echo "|---|---|---|---|"
# shellcheck disable=SC2086
echo "| no --partitions | $("$BIN" $phold --out "$out/r" | rate | tr ' ' '|' | sed 's/|/ | /g') |"
for k in 1 2; do
    # shellcheck disable=SC2086
    echo "| --partitions $k, threads | $("$BIN" $phold --partitions $k --out "$out/r" | rate | sed 's/ / | /g') |"
done
# shellcheck disable=SC2086
echo "| mpirun -np 2 --partitions 2 | $("${mpi[@]}" -np 2 "$BIN" $phold --partitions 2 --out "$out/r" | rate | sed 's/ / | /g') |"

echo
echo "## Capacity at vm.max_map_count = $(cat /proc/sys/vm/max_map_count) ($(date -u +%F), $loaded)"
echo
big="emulate --pattern phold --remote 0.5 --mean-delay 1ms --horizon 2ms --latency 100us --mode virtual --json"
echo "| machine | one process, --partitions 4 | mpirun -np 4 --partitions 4: wall, peak RSS per rank |"
echo "|---|---|---|"
for t in binary:15 binary:16 binary:17; do
    # shellcheck disable=SC2086
    if /usr/bin/time -f "%e s, %M KiB" -o "$out/one.time" "$BIN" $big -t $t --partitions 4 --out "$out/r" >/dev/null 2>"$out/one.err"; then
        one="ran: $(cat "$out/one.time")"
    else
        one="refused: $(grep -m1 error "$out/one.err" | cut -c1-120)"
    fi
    # shellcheck disable=SC2086
    if "${mpi[@]}" -np 4 /usr/bin/time -f "%e s, %M KiB" -o "$out/rank.time" -a "$BIN" $big -t $t --partitions 4 --out "$out/r" >/dev/null 2>"$out/mpi.err"; then
        ranks="ran: $(tr '\n' ';' <"$out/rank.time")"
    else
        ranks="failed: $(grep -m1 error "$out/mpi.err" | cut -c1-120)"
    fi
    rm -f "$out/rank.time"
    echo "| $t | $one | $ranks |"
done
native
exit "$failed"
