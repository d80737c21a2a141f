#!/usr/bin/env bash
# Validates the runtime's measured targets (issue: runtime) and prints a Markdown report.
#
#   - per-message overhead of the runtime within 1.5× of a bare crossbeam ping-pong (same run);
#   - spin occupy: median error < 0.5 µs from 10 µs to 10 ms on a free core;
#   - dilated: 256 processors × 100 chained 10 ms occupies on this host: emulated makespan
#     within 1 % of 1 s (and wall time / D); 1024 processors within 2 %.
#
# Usage: scripts/validate-runtime.sh [OUT_DIR]   (default results/validate-runtime)
# Record its output in docs/results/runtime.md.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/validate-runtime}
mkdir -p "$out"
cargo build --release --quiet
mc="${CARGO_TARGET_DIR:-target}/release/multicomputer"

$mc calibrate --samples 200 --json --out "$out" >"$out/calibrate.json"
$mc pingpong --round-trips 200000 --repeat 9 --json >"$out/pingpong.json"
$mc emulate -t chain:256 --rounds 100 --occupy 10ms --json --out "$out" >"$out/dilated-256.json"
$mc emulate -t chain:1024 --rounds 100 --occupy 10ms --json --out "$out" >"$out/dilated-1024.json"

python3 - "$out" <<'PY'
import json, sys, datetime
out = sys.argv[1]
load = lambda n: json.load(open(f"{out}/{n}.json"))
cal, pp = load("calibrate"), load("pingpong")
print(f"Host: {cal['host']} ({cal['cores']} cores), measured {datetime.date.today()}.\n")
ok = lambda b: "PASS" if b else "FAIL"
print("| target | measured | verdict |")
print("|---|---|---|")
print(f"| runtime message ≤ 1.5 × bare crossbeam | {pp['runtime_one_way_ns']:.0f} ns vs {pp['bare_one_way_ns']:.0f} ns = {pp['ratio']:.2f}× | {ok(pp['ratio'] <= 1.5)} |")
spin = [o for o in cal["occupy"] if o["strategy"] == "spin"]
worst = max(abs(o["median_error_ns"]) for o in spin)
detail = ", ".join(f"{o['target_ns']/1e3:g} µs: {o['median_error_ns']:.0f} ns" for o in spin)
print(f"| spin occupy median error < 0.5 µs (10 µs–10 ms) | {detail} | {ok(worst < 500)} |")
for n, tol in ((256, 1.0), (1024, 2.0)):
    r = load(f"dilated-{n}")
    f = r["report"]["fidelity"]
    err = abs(r["error_pct"])
    wall_err = 100 * abs(r["wall_over_dilation_s"] - 1.0)
    print(f"| {n} processors, 100 × 10 ms, within {tol:g} % of 1 s | emulated {r['makespan_s']:.6f} s ({err:.3f} %); wall {r['wall_s']:.3f} s at D = {r['dilation']:g}, wall/D {r['wall_over_dilation_s']:.4f} s ({wall_err:.2f} %); late waits {f['late_waits']}/{f['waits']} (> {f['tolerance_ns']/1e3:g} µs), mean lateness {f['mean_lateness_ns']/1e3:.0f} µs | {ok(err <= tol and wall_err <= tol)} |")
print()
print(f"Calibration: clock read {cal['clock_read_ns']:.0f} ns, thread CPU-time read {cal['cpu_time_read_ns']:.0f} ns, "
      f"message spin {cal['message_spin_ns']:.0f} ns, parked {cal['message_parked_ns']/1e3:.1f} µs, "
      f"wake-up {cal['wakeup_ns']/1e3:.1f} µs (CPU {cal['wake_cpu_ns']/1e3:.1f} µs), loop {cal['loop_ns_per_iteration']:.2f} ns/iteration.")
PY
