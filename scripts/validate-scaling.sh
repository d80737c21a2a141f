#!/usr/bin/env bash
# Reproduces the scalability paper's §5 experiment on the emulator (issue: Ising and the
# scalability test) and prints a Markdown report:
#   - the ising program (3D, L = 8, T = 4, 20 + 20 sweeps, 2 samples per processor: work ∝ P)
#     on P = 2, 4, …, 256 emulated processors × loop_count 0, 200000, 400000, 600000, three runs
#     per point, under the centralized mechanism (hot spot; the paper's PCM) and the tree
#     mechanism (binomial broadcast and reduction; the MCM); the candidate a + b·log P fitted
#     per loop_count (the paper's Tables 1 and 2) and the consistency test's verdict:
#     expected refuted (centralized) and consistent (tree). Twice: in virtual time with model
#     compute charging (one run per point, exact: the verdict from the candidate's largest
#     deviation against --tolerance 1 %), and in dilated real time with measured compute
#     (three runs per point: the statistical test);
#   - emulation fidelity: the single-processor emulated time of a sample against its native
#     time (within 3 %), and the per-run sample time of the sweeps;
#   - the native real speedup of the program on this host's cores against the ideal.
#
# Usage: scripts/validate-scaling.sh [OUT_DIR]   (default results/validate-scaling)
# Honours CARGO_TARGET_DIR. Record its output in docs/results/scaling.md.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-results/validate-scaling}
mkdir -p "$out"
cargo build --release --quiet
mc="${CARGO_TARGET_DIR:-target}/release/multicomputer"

$mc calibrate --samples 50 --json --out "$out" >"$out/calibrate.json"
for m in centralized tree; do
  $mc scaling --mechanism "$m" --mode virtual --name "$m-virtual" --json --out "$out" >"$out/$m-virtual.json"
  $mc scaling --mechanism "$m" --mode dilated --repeats 3 --name "$m-dilated" --json --out "$out" >"$out/$m-dilated.json"
done
# Fidelity of one processor: a larger sample (3D, L = 16), eight of them, D = 1; five runs,
# each compared with native samples run just before and just after it.
for i in 1 2 3 4 5; do
  $mc ising -P 1 --samples 8 --size 16 --mode dilated --dilation 1 --json --out "$out" >"$out/fidelity-$i.json"
done
# Native real speedup on this host's cores (tree mechanism, fixed and scaled work), three
# runs each, alternating P so that a drift of the host's speed affects every P alike.
cores=$(nproc)
for r in 1 2 3; do
  for p in $(seq 1 "$cores"); do
    $mc ising -P "$p" --samples 32 --size 12 --mode native --json --out "$out" >"$out/native-fixed-$p-$r.json"
    $mc ising -P "$p" --samples-per-processor 16 --size 12 --mode native --json --out "$out" >"$out/native-scaled-$p-$r.json"
  done
done

python3 - "$out" "$cores" <<'PY'
import json, sys, datetime, statistics
out, cores = sys.argv[1], int(sys.argv[2])
cal = json.load(open(f"{out}/calibrate.json"))
print(f"Host: {cal['host']} ({cal['cores']} cores), {datetime.date.today()}; busy loop "
      f"{cal['loop_ns_per_iteration']:.3f} ns per iteration.\n")
def coefficient_table(r, rows):
    print("| loop_count | a | b | R² | mean run time at P = 2 / 256 |")
    print("|---|---|---|---|---|")
    for l in r["loop_counts"]:
        t = {p: statistics.mean(x["time_s"] for x in rows if x["P"] == p and x["loop_count"] == l["loop_count"]) for p in (2, 256)}
        print(f"| {l['loop_count']:.0f} | {l['a']:.3f} ± {l['a_std_error']:.3f} | "
              f"{l['b']:.3f} ± {l['b_std_error']:.3f} | {l['r_squared']:.4f} | "
              f"{1e3*t[2]:.2f} / {1e3*t[256]:.2f} ms |")

for m, paper in (("centralized", "Table 1 (PCM)"), ("tree", "Table 2 (MCM)")):
    for mode in ("virtual", "dilated"):
        r = json.load(open(f"{out}/{m}-{mode}.json"))
        rows = r["rows"]
        runs = "1 per point, exact" if mode == "virtual" else "3 per point"
        print(f"### {m.capitalize()} mechanism, {mode} time — the paper's {paper}\n")
        ideal = statistics.median(x["ideal_s"] for x in rows)
        print(f"Candidate Φ(P) = {r['model']}, fitted to {r['fitted']} (the system overhead "
              f"Φ_s(P), dimensionless; median ideal run time {1e3*ideal:.3f} ms) of {len(rows)} "
              f"runs (P = 2…256, {runs}); {r['meta']['time']['compute_charging']}.\n")
        coefficient_table(r, rows)
        print(f"\n**Verdict: {r['verdict']}** — {r['explanation']}.\n")
        for a in r["alternatives"]:
            r2 = ", ".join(f"{l['r_squared']:.3f}" for l in a["loop_counts"])
            print(f"- alternative Φ(P) = {a['model']}: R² {r2}; verdict {a['verdict']}")
        errs = [x["sample_time_error_pct"] for x in rows]
        wall = sum(x["wall_s"] for x in rows)
        if mode == "dilated":
            late = sum(x["late_waits"] for x in rows); waits = sum(x["waits"] for x in rows)
            stalled = sum(x["stalled_runs"] for x in rows)
            ds = sorted({x["dilation"] for x in rows})
            print(f"- per run: emulated vs native sample time {statistics.median(errs):+.1f} % "
                  f"median ({min(errs):+.1f} … {max(errs):+.1f} %); dilation D = "
                  f"{ds[0]:g}…{ds[-1]:g}; {late} of {waits} waits late; {stalled} runs repeated "
                  f"after a host stall; wall {wall:.0f} s.")
        else:
            print(f"- per run: the model's sample time against a native sample measured beside "
                  f"it {statistics.median(errs):+.1f} % median ({min(errs):+.1f} … "
                  f"{max(errs):+.1f} %; the model's unit costs against this host's speed of the "
                  f"moment); wall {wall:.2f} s for {len(rows)} runs.")
        big = [x for x in rows if x["P"] == 256]
        print(f"- P = 256: {statistics.mean(x['messages_sent'] for x in big):.0f} messages per "
              f"run, {statistics.mean(x['root_messages_sent'] for x in big):.0f} of them sent by "
              f"processor 0.")
        print(f"- run folder: `{m}-{mode}/latest/` (rows.csv, report.json, report.html, "
              f"time.svg, b.svg, residuals.svg).\n")
print("### Emulation fidelity of one processor (3D, L = 16, 8 samples, D = 1)\n")
print("| run | emulated per sample | native per sample | difference |")
print("|---|---|---|---|")
diffs = []
for i in (1, 2, 3, 4, 5):
    f = json.load(open(f"{out}/fidelity-{i}.json"))
    diffs.append(f['sample_time_error_pct'])
    print(f"| {i} | {1e3*f['emulated_sample_s']:.3f} ms | {1e3*f['native_sample_s']:.3f} ms | "
          f"{f['sample_time_error_pct']:+.2f} % |")
med = statistics.median(diffs)
print(f"\nMedian difference {med:+.2f} %: {'within' if abs(med) <= 3 else 'NOT within'} 3 %.")
print(f"\n### Native real speedup on this host's {cores} cores (tree mechanism, 3D L = 12, wall time, median of 3)\n")
print("| P | fixed work (32 samples): wall | speedup | ideal | scaled work (16/processor): wall | scaled speedup | ideal |")
print("|---|---|---|---|---|---|---|")
def wall(kind, p):
    return statistics.median(json.load(open(f"{out}/native-{kind}-{p}-{r}.json"))["wall_s"] for r in (1, 2, 3))
f1, s1 = wall("fixed", 1), wall("scaled", 1)
for p in range(1, cores + 1):
    f, s = wall("fixed", p), wall("scaled", p)
    print(f"| {p} | {1e3*f:.1f} ms | {f1/f:.2f} | {p} | {1e3*s:.1f} ms | {p*s1/s:.2f} | {p} |")
PY
