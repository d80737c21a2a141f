#!/usr/bin/env bash
# Real speedup of every real kernel on this host's cores (issue 12), as Markdown for
# docs/results/speedup.md:
#   - per kernel, `multicomputer speedup` at P = 1 … all cores, at its default grain: the
#     runtime's, rayon's and scoped threads' speedups (median [range] of the rounds), the
#     runtime/rayon ratio, the rough speedup and the model's;
#   - per kernel, the grain sweep at P = all cores: where the runtime, rayon and the model
#     reach 50 % and 90 % efficiency;
#   - the summary the issue asks for: at the largest P, runtime speedup / rayon speedup
#     (≥ 0.95?) and the grain at which the runtime reaches 90 % efficiency;
#   - the host: cores, processor, pinning, load average before and after every kernel, the
#     cores idle before; the command and the date.
#
# The figures are the host's: run it on a quiet machine (nothing else running; the report
# warns when fewer cores were idle than P needs) and record its output. About 6.5 minutes on
# 2 cores; ROUNDS (default 7) and KERNELS (default all five) change what it runs.
#
# Usage: scripts/validate-speedup.sh [OUT_DIR]   (default results/validate-speedup)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/validate-speedup}
rounds=${ROUNDS:-7}
kernels=${KERNELS:-primes-chain primes-tree mergesort ising ocl}
mkdir -p "$out"
cargo build --release --quiet
mc="${CARGO_TARGET_DIR:-target}/release/multicomputer"

cat /proc/loadavg >"$out/load-before.txt"
for k in $kernels; do
    "$mc" speedup --kernel "$k" --rounds "$rounds" --warmup 1 --grains default \
        --name "speedup-$k" --json --out "$out" >"$out/$k.json"
done
cat /proc/loadavg >"$out/load-after.txt"

python3 - "$out" "$rounds" $kernels <<'PY'
import datetime, json, sys

out, rounds, kernels = sys.argv[1], sys.argv[2], sys.argv[3:]
runs = {k: json.load(open(f"{out}/{k}.json")) for k in kernels}
first = runs[kernels[0]]
host = first["host"]
load = lambda path: open(path).read().split()[:3]

def us(s):
    if s is None:
        return "n/a"
    for unit, f in (("s", 1), ("ms", 1e3), ("µs", 1e6)):
        if s * f >= 1:
            return f"{s * f:.3g} {unit}"
    return f"{s * 1e9:.3g} ns"

def spread(s, d=2):
    return f"{s['median']:.{d}f} [{s['min']:.{d}f}, {s['max']:.{d}f}]"

before = " ".join(load(out + "/load-before.txt"))
after = " ".join(load(out + "/load-after.txt"))
pinning = "works" if host["pinning"] else "FAILED"
print(f"Host: {host['cpu_model']}, {host['cores']} cores, pinning {pinning}; load average "
      f"before the script {before}, after {after}. {datetime.date.today()}.\n")
print(f"Command: `scripts/validate-speedup.sh` (each kernel: `multicomputer speedup --kernel K "
      f"--rounds {rounds} --warmup 1 --grains default`).\n")

print("## Summary: the largest P, default grain\n")
print("| kernel | P | runtime speedup | rayon speedup | runtime/rayon | ≥ 0.95 | runtime 90 % efficiency from grain (task time) | rayon's | model's | idle cores before | others' cores during | load before → after |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for k in kernels:
    r = runs[k]
    p = r["points"][-1]
    ratio = p["runtime_over_rayon"]
    th = {(t["who"], t["efficiency"]): t for t in (r.get("grain") or {}).get("thresholds", [])}
    def at(who):
        t = th.get((who, 0.9))
        if t is None:
            return "n/a"
        if t["grain"] is None:
            return "not reached"
        bound = "≤ " if t["at_most"] else ""
        return f"{bound}{t['grain']:.0f} ({us(t['task_s'])})"
    h = r["host"]
    lb, la = h.get("load_before") or {}, h.get("load_after") or {}
    free = "n/a" if h["free_cores_before"] is None else "%.1f" % h["free_cores_before"]
    others = "n/a" if h["others_cores_during"] is None else "%.1f" % h["others_cores_during"]
    ok = "yes" if ratio["median"] >= 0.95 else "no"
    print(f"| {k} | {p['processors']} | {spread(p['runtime']['speedup'])} | "
          f"{spread(p['rayon']['speedup'])} | {spread(ratio, 3)} | {ok} | {at('runtime')} | "
          f"{at('rayon')} | {at('model')} | {free} | {others} | "
          f"{lb.get('one', 'n/a')} → {la.get('one', 'n/a')} |")

for k in kernels:
    r = runs[k]
    w = r["plan"]["workload"]
    print(f"\n## {k}: {w['tasks']} tasks, grain {w['grain']}\n")
    print(f"Sequential program: {us(r['sequential_s']['median'])} "
          f"[{us(r['sequential_s']['min'])}, {us(r['sequential_s']['max'])}].\n")
    print("| P | topology | runtime time | speedup | rough | efficiency | rayon | scoped | runtime/rayon | model | model error |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for p in r["points"]:
        m = p.get("model")
        model = "n/a | n/a" if m is None else "%.2f | %+.1f %%" % (m["speedup"], m["error_pct"])
        print(f"| {p['processors']} | {p['topology']} | {us(p['runtime']['wall_s']['median'])} | "
              f"{spread(p['runtime']['speedup'])} | {p['rough_speedup']['median']:.2f} | "
              f"{100 * p['runtime']['efficiency']:.0f} % | {spread(p['rayon']['speedup'])} | "
              f"{spread(p['scoped']['speedup'])} | {spread(p['runtime_over_rayon'], 3)} | {model} |")
    f = r.get("fit")
    if f:
        params = ", ".join(x["name"] + " = " + us(x["value_s"])
                           + (" (bounded)" if x["bounded"] else "") for x in f["parameters"])
        print(f"\nModel: {f['model']}; fitted {params}; largest relative residual "
              f"{100 * f['max_relative_residual']:.1f} %.")
    g = r.get("grain")
    if g:
        print(f"\nGrain sweep at P = {g['processors']} (efficiency):\n")
        print("| grain | tasks | task time | runtime | rayon | scoped | model |")
        print("|---|---|---|---|---|---|---|")
        for q in g["points"]:
            me = q.get("model_efficiency")
            model = "n/a" if me is None else "%.0f %%" % (100 * me)
            print(f"| {q['grain']} | {q['tasks']} | {us(q['task_s'])} | "
                  f"{100 * q['runtime']['efficiency']:.0f} % | {100 * q['rayon']['efficiency']:.0f} % | "
                  f"{100 * q['scoped']['efficiency']:.0f} % | {model} |")
    h = r["host"]
    largest = r["points"][-1]["processors"]
    idle, others = h["free_cores_before"], h["others_cores_during"]
    if (idle is not None and idle + 0.5 < largest) or (others is not None and others > 0.5):
        print(f"\n**Shared host**: {idle if idle is None else round(idle, 1)} cores idle before "
              f"this kernel ran, other processes busy on {others if others is None else round(others, 1)} "
              f"cores during it: its figures are lower and noisier than a quiet host's.")
PY
