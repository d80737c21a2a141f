#!/usr/bin/env bash
# Validates the farm and divide-and-conquer models against the emulator (issue: farm) and
# prints a Markdown report:
#   - farm on chains of 1–16 processors and binary trees of 1–5 levels, T_e = 1, 5, 10 ms,
#     β_e = 50 µs, β_f = 100 µs, M = 1000, constant/uniform/exponential task times:
#     |measured − predicted| / predicted speedup ≤ 5 % in every cell (aim: 2 %);
#     with model-guided flow control (§4.1: a fixed share per processor, so no wind-down);
#   - the same grid with flood fill alone, for constant, uniform and exponential task times
#     (the robustness test of §4.3; a fixed share cannot follow random task times);
#   - divide and conquer on binary trees of 1–5 levels, equal and random splits;
#   - β_e, β_f fitted from the grid's measured steady-state throughputs, within 10 %;
#   - per-level task fractions within 5 % of M.
#
# Usage: scripts/validate-farm.sh [OUT_DIR]   (default results/validate-farm)
# Record its output in docs/results/farm.md.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/validate-farm}
mkdir -p "$out"
cargo build --release --quiet
mc="${CARGO_TARGET_DIR:-target}/release/multicomputer"
grid=(--topologies chain:1-16,binary:1-5 --te 1ms,5ms,10ms --tasks 1000 --beta-e 50us --beta-f 100us)

$mc calibrate --samples 50 --json --out "$out" >"$out/calibrate.json"
$mc sweep farm "${grid[@]}" --times constant --guided --name farm-guided --out "$out" >/dev/null
$mc sweep farm "${grid[@]}" --times constant,uniform,exponential --name farm-free --out "$out" >/dev/null
$mc sweep dnc --topologies binary:1-5 --te 8ms,32ms --split equal,random --tasks 200 --name dnc --out "$out" >/dev/null
$mc fit farm --csv "$out/farm-free.csv" --json --out "$out" >"$out/fit.json"

python3 - "$out" <<'PY'
import csv, json, sys, datetime
out = sys.argv[1]
cal = json.load(open(f"{out}/calibrate.json"))
print(f"Host: {cal['host']} ({cal['cores']} cores), {datetime.date.today()}.\n")
def summary(name, title):
    rows = list(csv.DictReader(open(f"{out}/{name}.csv")))
    errs = [abs(float(r["error_pct"])) for r in rows]
    ferr = [float(r["max_fraction_error_pct_of_m"]) for r in rows]
    within5 = sum(e <= 5 for e in errs); within2 = sum(e <= 2 for e in errs)
    print(f"### {title}\n")
    print(f"{len(rows)} cells: {within5} within 5 %, {within2} within 2 %; largest |speedup error| {max(errs):.2f} %, "
          f"mean {sum(errs)/len(errs):.2f} %; largest per-level fraction error {max(ferr):.2f} % of M.\n")
    groups = {}
    for r in rows:
        key = (r["topology"].split(":")[0], r["te_s"], r["times"])
        groups.setdefault(key, []).append(r)
    print("| family | T_e | times | cells | worst speedup error | worst f error (% of M) |")
    print("|---|---|---|---|---|---|")
    for (fam, te, times), rs in sorted(groups.items()):
        w = max(rs, key=lambda r: abs(float(r["error_pct"])))
        print(f"| {'chain' if fam == 'chain' else 'binary tree'} | {float(te)*1e3:g} ms | {times} | {len(rs)} | "
              f"{float(w['error_pct']):+.2f} % ({w['topology']}) | {max(float(r['max_fraction_error_pct_of_m']) for r in rs):.2f} |")
    print()
    return max(errs)
w1 = summary("farm-guided", "Farm, model-guided flow control (§4.1), queue 1, constant T_e")
w2 = summary("farm-free", "Farm, flood fill alone (queue 1), constant, uniform and exponential T_e")
w3 = summary("dnc", "Divide and conquer on binary trees (T_s = T_j = 200 µs per whole task)")
fit = json.load(open(f"{out}/fit.json"))
print("### β_e and β_f fitted from the flood-fill grid's steady-state throughputs\n")
print(f"β_e = {fit['beta_e_s']*1e6:.2f} ± {fit['beta_e_std_error_s']*1e6:.2f} µs (injected 50 µs, {fit['beta_e_error_pct']:+.2f} %); "
      f"β_f = {fit['beta_f_s']*1e6:.2f} ± {fit['beta_f_std_error_s']*1e6:.2f} µs (injected 100 µs, {fit['beta_f_error_pct']:+.2f} %); "
      f"{fit['observations']} observations, largest relative residual {100*fit['fit']['max_relative_residual']:.2f} %. "
      f"Host per-message floor (parked receiver): {cal['message_parked_ns']/1e3:.1f} µs.")
PY
