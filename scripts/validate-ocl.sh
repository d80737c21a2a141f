#!/usr/bin/env bash
# Validates the OCL arrays of the grain-size paper (Struik, TU Eindhoven CSN 91/32) on the
# emulator (issue 4) and prints a Markdown report:
#   - the paper's grid (§4.1 and §4.2: N = 50 and 500 across its M and K values) emulated with
#     its constants (α = 12.33 µs, β = 2.88 µs for [M,1]; α0 = 5.77 µs, α1 = 7.42 µs,
#     β = 2.45 µs for [K,K]): every cell's time to consume L inputs within 3 % of the model;
#   - α, β and α0, α1, β fitted from the emulated tables: within 3 % of the constants;
#   - the paper's own published tables fitted (all 13 rows, and the 11 multi-process rows);
#   - native mode on this host: real compute and channels, one process per core, fitted.
#
# Usage: scripts/validate-ocl.sh [OUT_DIR]   (default results/validate-ocl)
# Environment: OCL_L (stream length of the emulated grid, default 10000; the paper used 100 000),
#              OCL_NATIVE_L (native runs, default 100000).
# Record its output in docs/results/ocl.md.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/validate-ocl}
L=${OCL_L:-10000}
NL=${OCL_NATIVE_L:-100000}
mkdir -p "$out"
cargo build --release --quiet
mc="${CARGO_TARGET_DIR:-target}/release/multicomputer"

$mc calibrate --samples 50 --json --out "$out" >"$out/calibrate.json"
# The paper's grid, emulated with its constants (the defaults of `sweep ocl`).
$mc sweep ocl --length "$L" --name emulated --out "$out" >/dev/null
for t in m1 kk; do
  $mc fit ocl --transform $t --csv "$out/emulated/latest/$t.csv" --json --out "$out" >"$out/fit-emulated-$t.json"
  $mc fit ocl --transform $t --paper --json --out "$out" >"$out/fit-paper-$t.json"
  $mc fit ocl --transform $t --paper --multi-process --json --out "$out" >"$out/fit-paper-multi-$t.json"
done
# Native: one process per core (N/M ≤ 2 on a 2-core host), N = M (one process: the
# environment's reads and writes are local, no channel) and N = 2M (one real channel), each the
# fastest of 3 runs. Fitted over all rows and per number of processes.
cells() { local s=""; for g in "$@"; do s+="$g:$g,$((2 * g)):$g,"; done; echo "${s%,}"; }
$mc sweep ocl --costs native --transforms m1 --length "$NL" --repeat 3 \
  --cells "$(cells 1 10 100 1000 2000 5000 10000)" --name native-m1 --out "$out" >/dev/null
$mc sweep ocl --costs native --transforms kk --length "$NL" --repeat 3 \
  --cells "$(cells 1 2 5 10 20 50 100 200 500 1000)" --name native-kk --out "$out" >/dev/null
for t in m1 kk; do
  $mc fit ocl --transform $t --csv "$out/native-$t/latest/$t.csv" --json --out "$out" >"$out/fit-native-$t.json"
  for p in 1 2; do
    python3 -c 'import csv,sys; r=csv.reader(open(sys.argv[1])); h=next(r); i=h.index("processes"); w=csv.writer(sys.stdout); w.writerow(h); [w.writerow(x) for x in r if x[i]==sys.argv[2]]' \
      "$out/native-$t/latest/$t.csv" $p >"$out/native-$t-p$p.csv"
    $mc fit ocl --transform $t --csv "$out/native-$t-p$p.csv" --json --out "$out" >"$out/fit-native-$t-p$p.json"
  done
done

python3 - "$out" "$L" "$NL" <<'PY'
import csv, json, sys, datetime, platform
out, L, NL = sys.argv[1], sys.argv[2], sys.argv[3]
cal = json.load(open(f"{out}/calibrate.json"))
print(f"Host: {cal['host']} ({cal['cores']} cores; {platform.platform()}), {datetime.date.today()}.\n")
us = lambda s: f"{s*1e6:.3f} µs"
print(f"### Emulated grid (the paper's constants, L = {L})\n")
print("| table | N | M or K | processes | time to consume L | model | error | D | wall |")
print("|---|---|---|---|---|---|---|---|---|")
worst = 0.0
for t in ("m1", "kk"):
    for r in csv.DictReader(open(f"{out}/emulated/latest/{t}.csv")):
        e = float(r["error_pct"]); worst = max(worst, abs(e))
        g = r["m"] if t == "m1" else r["k"]
        print(f"| {'[M,1]' if t == 'm1' else '[K,K]'} | {r['n']} | {g} | {r['processes']} | "
              f"{float(r['elapsed_s'])*1e3:.3f} ms | {float(r['predicted_s'])*1e3:.3f} ms | {e:+.2e} % | "
              f"{r['dilation']} | {float(r['wall_s']):.1f} s |")
print(f"\nLargest |error| over the grid: {worst:.2e} %.\n")
print("### Fits of the emulated tables (relative least squares, w = 1/t²)\n")
print("| table | constant | fitted | injected | error | max. relative residual |")
print("|---|---|---|---|---|---|")
for t in ("m1", "kk"):
    f = json.load(open(f"{out}/fit-emulated-{t}.json"))
    for k in (("alpha_s", "beta_s") if t == "m1" else ("alpha0_s", "alpha1_s", "beta_s")):
        print(f"| {t} | {k} | {us(f[k])} | {us(f['reference'][k])} | {f['error_pct'][k]:+.2e} % | "
              f"{100*f['max_relative_error']:.2e} % |")
print()
print("### Fits of the paper's published tables (§4.1, §4.2; L = 100 000)\n")
print("| table | rows | α or α0 | α1 | β | max. relative residual (accuracy) | implied grain | errors vs published |")
print("|---|---|---|---|---|---|---|---|")
for t in ("m1", "kk"):
    for name, rows in (("all", "13"), ("multi", "11 multi-process")):
        f = json.load(open(f"{out}/fit-paper{'' if name == 'all' else '-multi'}-{t}.json"))
        a = f.get("alpha_s") or f.get("alpha0_s")
        a1 = us(f["alpha1_s"]) if t == "kk" else "—"
        grain = f"2α/β = {f['two_alpha_over_beta']:.2f}" if t == "m1" else f"K* = {f['optimal_k']:.2f}"
        errs = ", ".join(f"{k.replace('_s','')} {v:+.2f} %" for k, v in f["error_pct"].items())
        print(f"| {t} | {rows} | {us(a)} | {a1} | {us(f['beta_s'])} | {100*f['max_relative_error']:.2f} % "
              f"({100*(1-f['max_relative_error']):.2f} %) | {grain} | {errs} |")
print("\nPublished: α = 12.33 µs, β = 2.88 µs (2α/β = 8.6); α0 = 5.77 µs, α1 = 7.42 µs, β = 2.45 µs (K* = 2.2).\n")
print(f"### Native mode on this host (real compute and channels, L = {NL})\n")
for t in ("m1", "kk"):
    f = json.load(open(f"{out}/fit-native-{t}.json"))
    consts = (f"α = {us(f['alpha_s'])} ± {us(f['std_errors_s'][0])}, β = {f['beta_s']*1e9:.3f} ± {f['std_errors_s'][1]*1e9:.3f} ns, "
              f"2α/β = {f['two_alpha_over_beta']:.0f}") if t == "m1" else \
             (f"α0 = {us(f['alpha0_s'])} ± {us(f['std_errors_s'][0])}, α1 = {f['alpha1_s']*1e9:.2f} ± {f['std_errors_s'][1]*1e9:.2f} ns, "
              f"β = {f['beta_s']*1e9:.3f} ± {f['std_errors_s'][2]*1e9:.3f} ns, K* = √(2α0/β) = {f['optimal_k']:.0f}")
    print(f"- **{'[M,1]' if t == 'm1' else '[K,K]'}**, all rows: {consts}; {f['rows']} rows, largest relative residual "
          f"{100*f['max_relative_error']:.1f} %, rms {100*f['rms_relative_error']:.1f} %.")
    for p in (1, 2):
        g = json.load(open(f"{out}/fit-native-{t}-p{p}.json"))
        c = (f"α = {us(g['alpha_s'])} ± {us(g['std_errors_s'][0])}, β = {g['beta_s']*1e9:.3f} ± {g['std_errors_s'][1]*1e9:.3f} ns, "
             f"2α/β = {g['two_alpha_over_beta']:.0f}") if t == "m1" else \
            (f"α0 = {us(g['alpha0_s'])} ± {us(g['std_errors_s'][0])}, α1 = {g['alpha1_s']*1e9:.2f} ± {g['std_errors_s'][1]*1e9:.2f} ns, "
             f"β = {g['beta_s']*1e9:.3f} ± {g['std_errors_s'][2]*1e9:.3f} ns, K* = {g['optimal_k']:.0f}")
        print(f"  - {p} process{'es' if p > 1 else ''} only: {c}; largest relative residual "
              f"{100*g['max_relative_error']:.1f} %, rms {100*g['rms_relative_error']:.1f} %.")
    print()
    print("  | N | M or K | processes | time to consume L | fitted model | residual |")
    print("  |---|---|---|---|---|---|")
    procs = {(r["n"], r["m" if t == "m1" else "k"]): r["processes"] for r in csv.DictReader(open(f"{out}/native-{t}/latest/{t}.csv"))}
    for r in f["residuals"]:
        print(f"  | {r['n']} | {r['grain']} | {procs[(str(r['n']), str(r['grain']))]} | {r['elapsed_s']*1e3:.2f} ms | "
              f"{r['predicted_s']*1e3:.2f} ms | {100*r['relative']:+.1f} % |")
    print()
PY
