#!/usr/bin/env bash
# Kills `sweep farm` (with a loose --report file beside its run folder) and `scaling` at random
# moments, KILLS times in all (default 100, alternating the two), then checks the results
# folder: no temporary file left anywhere, no mixed set (a run folder without its manifest or
# whose files differ from it, `latest` pointing at nothing, a --report file from another run
# than `latest`; both commands publish run folders). Small grids in virtual
# time, each run about a second. Prints one line per kill and a summary; exits 1 on any
# inconsistency.
#
#   scripts/kill-loop.sh                 # 100 SIGTERMs (every third a SIGINT)
#   KILLS=20 scripts/kill-loop.sh
#   SIGNAL=KILL scripts/kill-loop.sh     # SIGKILL: nothing can clean up; the next run into the
#                                        # folder removes the dead process's temporary files
set -euo pipefail
cd "$(dirname "$0")/.."
kills=${KILLS:-100}
signal=${SIGNAL:-TERM}
cargo build -q -p multicomputer-bench
bin=$PWD/target/debug/multicomputer
out=$(mktemp -d /tmp/mc-kill-loop.XXXXXX)
trap 'rm -rf "$out"' EXIT
farm=(sweep farm --topologies chain:1-8,binary:1-4 --te 1ms,2ms --tasks 4000 --mode virtual
      --report "$out/farm-report.json")
scaling=(scaling --processors 2,4,8,16,32 --loop-counts 0,100000 --repeats 3 --mode virtual
         --size 8)
echo "host: $(hostname), $(nproc) cores; date: $(date -u +%FT%TZ); $kills kills with SIG$signal"

# How long an uninterrupted run takes: kills fall uniformly in [0, 1.3 × that].
duration() {
    local t0 t1
    t0=$(date +%s%N)
    "$bin" --out "$out" "$@" >/dev/null 2>&1
    t1=$(date +%s%N)
    echo $(((t1 - t0) / 1000000))
}
farm_ms=$(duration "${farm[@]}")
scaling_ms=$(duration "${scaling[@]}")
echo "uninterrupted: sweep farm ${farm_ms} ms, scaling ${scaling_ms} ms"

stopped=0 completed=0 other=0
for i in $(seq 1 "$kills"); do
    if ((i % 2)); then cmd=("${farm[@]}"); ms=$farm_ms; else cmd=("${scaling[@]}"); ms=$scaling_ms; fi
    sig=$signal
    if [[ $signal == TERM ]] && ((i % 3 == 0)); then sig=INT; fi
    delay_ms=$((RANDOM % (ms * 13 / 10 + 1)))
    "$bin" --out "$out" "${cmd[@]}" >/dev/null 2>"$out.err" &
    pid=$!
    sleep "$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))"
    kill -s "$sig" "$pid" 2>/dev/null || true
    rc=0
    wait "$pid" || rc=$?
    case $rc in
        0)
            completed=$((completed + 1))
            # It finished first: the host may be faster now; time an uninterrupted run again
            # to aim the next kills at its pace.
            if ((i % 2)); then farm_ms=$(duration "${cmd[@]}"); else scaling_ms=$(duration "${cmd[@]}"); fi
            ;;
        130 | 143 | 137) stopped=$((stopped + 1)) ;;
        *) other=$((other + 1)); echo "unexpected exit $rc: $(tail -2 "$out.err")" ;;
    esac
    printf '%3d %-10s SIG%-4s at %5d ms: exit %3d  %s\n' "$i" "${cmd[0]}" "$sig" "$delay_ms" "$rc" \
        "$(tail -1 "$out.err" | cut -c1-110)"
done
if [[ $signal == KILL ]]; then
    # Nothing cleaned up after SIGKILL: the next run of each removes what the dead ones left.
    "$bin" --out "$out" "${farm[@]}" >/dev/null 2>&1
    "$bin" --out "$out" "${scaling[@]}" >/dev/null 2>&1
fi
rm -f "$out.err"
echo "runs stopped by the signal: $stopped; completed before it: $completed; other exits: $other"
python3 - "$out" <<'PY'
import json, os, pathlib, sys
out = pathlib.Path(sys.argv[1])
problems = []
# Leftovers: temporary files and folders of any writer, anywhere.
leftovers = [p for p in out.rglob("*") if p.name.startswith(".mc-tmp-") or ".tmp-" in p.name]
# Run folders of both commands: each complete (manifest, every file of it with its size,
# nothing else), and `latest` at a complete one.
folders = []
for name in ("sweep-farm", "scaling"):
    runs = out / name
    mine = [p for p in runs.iterdir() if p.is_dir() and not p.is_symlink()] if runs.exists() else []
    folders += mine
    for f in mine:
        m = f / "manifest.json"
        if not m.exists():
            problems.append(f"{name}/{f.name}: no manifest")
            continue
        listed = {e["name"]: e["bytes"] for e in json.loads(m.read_text())["files"]}
        present = {p.name: p.stat().st_size for p in f.iterdir() if p.name != "manifest.json"}
        if listed != present:
            problems.append(f"{name}/{f.name}: files differ from the manifest")
    latest = runs / "latest"
    if latest.is_symlink() and not (latest / "manifest.json").exists():
        problems.append(f"{name}/latest points at no complete run")
runs = out / "sweep-farm"
latest = runs / "latest"
# The loose --report file belongs to the run `latest` names.
report = out / "farm-report.json"
if report.exists() and latest.is_symlink():
    files = json.loads(report.read_text())["meta"]["files"]
    if not any(os.readlink(latest) in f for f in files):
        problems.append(f"farm-report.json is from another run than latest ({os.readlink(latest)})")
print(f"run folders: {len(folders)}; leftovers: {len(leftovers)}; mixed sets: {len(problems)}")
for p in leftovers:
    print(f"  leftover: {p.relative_to(out)}")
for p in problems:
    print(f"  mixed: {p}")
sys.exit(1 if leftovers or problems else 0)
PY
