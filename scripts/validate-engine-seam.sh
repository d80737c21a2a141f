#!/usr/bin/env bash
# Issue 18 (one seam for every engine): behaviour unchanged and fine-grained work not slower.
#
# 1. Behaviour: README examples in virtual time, before and after, their --json output
#    compared with every host-dependent field removed (wall-clock times, events per second,
#    date, host, natively measured sample times); then the determinism test.
# 2. Fine-grained work: events per second (the same events; the run's wall time) of
#    `ocl --window 500 --transform m1:10 --length 10000` and of the Ising sweep with the
#    README's machine (`ising -P 16 --mechanism centralized --loop-count 200000`) on a 4³
#    lattice, one sweep per sample, 200 000 samples (fine grained: the event path, where the
#    Work allocation and the unit look-up were, dominates), in virtual time, before and
#    after, interleaved (before, after, before, after, …) so that both see the same host; the
#    ratio of the medians; then, with valgrind, the instructions each executes (callgrind).
#
#   scripts/validate-engine-seam.sh [BEFORE_COMMIT] [ROUNDS]
#       BEFORE_COMMIT  default db977740c12727c8a2f078b821048906663d8390 (main before issue 18)
#       ROUNDS         interleaved rounds of each timing, default 5
#
# The "before" tree is a git worktree at /work/wt18-before (made if missing) with its own
# target folder; both are release builds. BEFORE_BIN and AFTER_BIN name binaries already built
# instead (then nothing is built). Take the timings on a quiet host: under load the ratio
# still compares like with like, the absolute rates do not.
set -euo pipefail
cd "$(dirname "$0")/.."
before_commit=${1:-db977740c12727c8a2f078b821048906663d8390}
rounds=${2:-5}
wt=${BEFORE_TREE:-/work/wt18-before}
if [ -z "${BEFORE_BIN:-}" ]; then
    if [ ! -d "$wt" ]; then
        git worktree add -q "$wt" "$before_commit"
    fi
    (cd "$wt" && cargo build --release -q -p multicomputer-bench)
fi
[ -n "${AFTER_BIN:-}" ] || cargo build --release -q -p multicomputer-bench
before=${BEFORE_BIN:-$wt/target/release/multicomputer}
after=${AFTER_BIN:-target/release/multicomputer}
out=$(mktemp -d "${TMPDIR:-/tmp}/engine-seam.XXXXXX")
echo "before: $before ($before_commit)  after: $after  host: $(hostname), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)  date: $(date -u +%FT%TZ)"

# 1. README examples in virtual time, --json, host-dependent fields removed.
examples=(
    "emulate -t chain:256 --rounds 100 --occupy 10ms --mode virtual"
    "emulate -t binary:5 --pattern reduce --send-overhead 50us --mode virtual"
    "farm -t binary:4 --te 1ms --beta-e 50us --beta-f 100us --tasks 1000 --mode virtual"
    "farm -t chain:8 --kernel primes --grain 20000 --mode virtual"
    "predict farm -t chain:16 --te 10ms"
    "farm -t chain:16 --te 10ms --times exponential --runs 5 --warmup 1 --mode virtual"
    "dnc -t binary:3 --te 8ms --split random --mode virtual"
    "dnc -t tree:3:3 --kernel mergesort --keys 100000 --mode virtual"
    "ocl --window 500 --transform m1:10 --length 10000"
    "ising -P 16 --mechanism centralized --loop-count 200000 --verify --mode virtual"
    "ising --dimension 2 --size 32 --temperature 1.5 --mode virtual"
    "scaling --csv $out/my-measurements.csv --model 1+log"
)
python3 scripts/synthetic-scaling-table.py "$out/my-measurements.csv"
strip() {
    python3 -c '
import json, sys
HOST = {"wall", "wall_s", "run_s", "setup_s", "events_per_s", "date", "host", "command_line",
        "native_sample_s", "sample_time_error_pct", "wall_over_dilation_s", "version", "files",
        "out", "folder", "path", "profile"}
def clean(v):
    if isinstance(v, dict):
        return {k: clean(x) for k, x in v.items() if k not in HOST and "wall" not in k}
    if isinstance(v, list):
        return [clean(x) for x in v]
    return v
print(json.dumps(clean(json.load(sys.stdin)), indent=1, sort_keys=True))
'
}
echo
echo "| example (virtual time, --json) | before → after |"
echo "|---|---|"
same=0
n=0
for e in "${examples[@]}"; do
    n=$((n + 1))
    # shellcheck disable=SC2086
    "$before" $e --json --out "$out/before-res" >"$out/b$n.json" 2>"$out/b$n.err" || true
    # shellcheck disable=SC2086
    "$after" $e --json --out "$out/after-res" >"$out/a$n.json" 2>"$out/a$n.err" || true
    if ! strip <"$out/b$n.json" >"$out/b$n.s" 2>/dev/null; then
        echo "| \`$e\` | before gave no JSON: $(head -c 200 "$out/b$n.err" | tr '\n' ' ') |"
        continue
    fi
    strip <"$out/a$n.json" >"$out/a$n.s" 2>/dev/null || true
    if cmp -s "$out/b$n.s" "$out/a$n.s"; then
        same=$((same + 1))
        echo "| \`$e\` | identical |"
    else
        echo "| \`$e\` | DIFFERS: $(diff "$out/b$n.s" "$out/a$n.s" | grep -c '^[<>]') lines (diff $out/b$n.s $out/a$n.s) |"
    fi
done
echo
echo "$same of $n identical"

# 2. Events per second, interleaved. The commands' JSON gives each run's wall time (`wall_s`),
#    not its event count; the count is a pure function of the configuration, the same before
#    and after (the outputs above are identical), so events/s after ÷ before is time before ÷
#    after. Both the run's wall time and the process's CPU time (user + system, less
#    disturbed by other processes on a loaded host) are compared.
times() {
    # times BINARY ARGS...: "wall_s cpu_s" of one run.
    python3 - "$@" <<'PY'
import json, resource, subprocess, sys
before = resource.getrusage(resource.RUSAGE_CHILDREN)
out = subprocess.run(sys.argv[1:], capture_output=True, text=True).stdout
after = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
print(json.loads(out).get("wall_s", "nan"), cpu)
PY
}
echo
echo "| workload (virtual time) | before: run wall s, process CPU s (medians of $rounds) | after | events/s after ÷ before: by wall, by CPU |"
echo "|---|---|---|---|"
for w in "ocl --window 500 --transform m1:10 --length 10000" \
         "ising -P 16 --mechanism centralized --loop-count 200000 --size 4 --thermalisation 1 --sweeps 1 --samples 200000 --mode virtual"; do
    b=()
    a=()
    for _ in $(seq "$rounds"); do
        # shellcheck disable=SC2086
        b+=("$(times "$before" $w --json --out "$out/rate-res")")
        # shellcheck disable=SC2086
        a+=("$(times "$after" $w --json --out "$out/rate-res")")
    done
    python3 - "$w" "${b[*]}" "${a[*]}" <<'PY'
import statistics, sys
w = sys.argv[1]
def pairs(s):
    v = [float(x) for x in s.split()]
    return v[0::2], v[1::2]
(bw, bc), (aw, ac) = pairs(sys.argv[2]), pairs(sys.argv[3])
m = statistics.median
print(f"| `{w}` | {m(bw):.3f} ({min(bw):.3f}–{max(bw):.3f}), {m(bc):.3f} | "
      f"{m(aw):.3f} ({min(aw):.3f}–{max(aw):.3f}), {m(ac):.3f} | {m(bw) / m(aw):.3f}, {m(bc) / m(ac):.3f} |")
PY
done

# 2b. Instructions executed (callgrind; if valgrind is installed): host noise and load do not
#     move them, code placement does not either. Shorter runs of the same workloads.
if command -v valgrind >/dev/null; then
    echo
    echo "| workload (virtual time, whole process) | before instructions | after | after ÷ before |"
    echo "|---|---|---|---|"
    for w in "ocl --window 500 --transform m1:10 --length 2000" \
             "ising -P 16 --mechanism centralized --loop-count 200000 --size 4 --thermalisation 1 --sweeps 1 --samples 20000 --mode virtual"; do
        counts=()
        for bin in "$before" "$after"; do
            # shellcheck disable=SC2086
            valgrind --tool=callgrind --callgrind-out-file="$out/cg.out" "$bin" $w --json \
                --out "$out/cg-res" >/dev/null 2>"$out/cg.err" || true
            counts+=("$(sed -n 's/.*I *refs: *//p' "$out/cg.err" | tr -d ',')")
        done
        python3 -c 'import sys; w, b, a = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]); print(f"| `{w}` | {b:,} | {a:,} | {a / b:.3f} |")' \
            "$w" "${counts[0]}" "${counts[1]}"
    done
fi

# 3. The determinism tests (two runs with model charging, byte for byte).
echo
echo "determinism tests (runtime two_runs_give_identical_reports_and_traces; workloads virtual_time):"
cargo test -q -p multicomputer-runtime --test virtual_time two_runs 2>&1 | grep -E "^test result" || true
cargo test -q -p multicomputer-workloads --test virtual_time 2>&1 | grep -E "^test result" || true
rm -rf "$out"
