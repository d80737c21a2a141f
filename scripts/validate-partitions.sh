#!/usr/bin/env bash
# Partitioned virtual time on threads (issue 20, `--partitions K`): what its semantics cost,
# what it gains, and how it shares the farm out. Prints a Markdown report:
#   1. exactness: emulate's reduce pattern on binary:12 and farm binary:8 give the same JSON
#      (without wall-clock fields) and the same trace for K = 1, 2, 4, 8;
#   2. the semantics' cost in emulated time: farm binary:8's speedup at --partitions 1
#      --latency 1us beside the sequential engine's at --latency 1us (target: ≤ 0.1 % apart);
#   3. the engine's cost in wall time: events per second at --partitions 1 against the
#      sequential engine, emulate --pattern reduce and PHOLD on binary:14, runs alternated,
#      medians of RUNS (target: within 5 %; scripts/partitions-instructions.sh counts the
#      same in instructions);
#   4. speedup over parts: events per second at K = 1, 2 (and up to the host's cores) for
#      emulate --pattern reduce on binary:14, same run, best of RUNS; and for PHOLD
#      (emulate --pattern phold) where the binary has it;
#   5. the farm's windows: windows and events per window for farm binary:8 at L = 1 µs.
#
# Sections 1, 2 and 5 are exact and do not depend on the host; 3 and 4 are wall-clock
# figures: run it on a quiet host (`uptime` load < 1 per core), or say they were taken under
# load. Record its output in docs/results/distributed-threads.md.
#
# Usage: scripts/validate-partitions.sh [RUNS]   (default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
cargo build --release --quiet -p multicomputer-bench
mc="${CARGO_TARGET_DIR:-target}/release/multicomputer"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cores=$(nproc)

echo "Host: $(uname -n), $cores cores, load $(cut -d' ' -f1-3 /proc/loadavg) at start; $(date -u +%FT%TZ)"
echo

python3 - "$mc" "$tmp" "$runs" "$cores" <<'PY'
import json, subprocess, sys
mc, tmp, runs, cores = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])

def run(args, trace=None):
    extra = ["--trace", trace] if trace else []
    out = subprocess.run([mc, *args, "--json", "--out", f"{tmp}/out", *extra],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)

def strip(v):
    if isinstance(v, dict):
        return {k: strip(x) for k, x in v.items()
                if k not in ("wall", "wall_s", "parts", "date", "command_line", "files", "partitions")}
    if isinstance(v, list):
        return [strip(x) for x in v]
    return v

def find(v, key):
    if isinstance(v, dict):
        if key in v:
            return v[key]
        for x in v.values():
            r = find(x, key)
            if r is not None:
                return r
    return None

print("## 1. Exactness: the same report and trace for K = 1, 2, 4, 8")
print()
print("| run | K = 2 | K = 4 | K = 8 |")
print("|---|---|---|---|")
for name, args in [
    ("emulate --pattern reduce, binary:12, 20 rounds",
     "emulate --topology binary:12 --pattern reduce --rounds 20 --mode virtual --latency 1us"),
    ("farm binary:8, 1000 tasks", "farm --topology binary:8 --mode virtual --latency 1us"),
]:
    ref = None
    cells = []
    for k in (1, 2, 4, 8):
        trace = f"{tmp}/trace-{k}.json"
        v = strip(run(args.split() + ["--partitions", str(k)], trace))
        t = open(trace, "rb").read()
        if ref is None:
            ref = (v, t)
        else:
            cells.append("identical" if (v, t) == ref else "**differs**")
    print(f"| {name} | " + " | ".join(cells) + " |")
print()

print("## 2. The semantics' cost in emulated time: farm binary:8 at L = 1 µs")
print()
base = ["farm", "--topology", "binary:8", "--mode", "virtual", "--latency", "1us"]
seq = run(base)["measured"]["speedup"]
one = run(base + ["--partitions", "1"])["measured"]["speedup"]
print("| engine | speedup |")
print("|---|---|")
print(f"| sequential (today's semantics) | {seq:.6f} |")
print(f"| --partitions 1 (partitioned semantics) | {one:.6f} |")
print(f"\nApart by {100 * (one - seq) / seq:+.4f} % (target: within ±0.1 %).")
print()

def rate(args):
    best = 0.0
    for _ in range(runs):
        v = run(args)
        best = max(best, v["report"]["wall"]["events_per_s"])
    return best, v["report"]["sim"]["events"], v["report"].get("parts")

reduce14 = ["emulate", "--topology", "binary:14", "--pattern", "reduce", "--rounds", "50",
            "--mode", "virtual", "--latency", "1us"]
phold14 = ["emulate", "--topology", "binary:14", "--pattern", "phold", "--remote", "0.5",
           "--population", "4", "--mean-delay", "100us", "--horizon", "5ms", "--latency", "100us",
           "--mode", "virtual"]
print("## 3. The engine's cost in wall time: --partitions 1 against the sequential engine, binary:14")
print()
print("Runs alternated (sequential, --partitions 1, sequential, …) so that the host's phases fall")
print("on both alike; medians of RUNS each.")
print()
print("| case | engine | events | M events/s (median of %d) | against the sequential engine |" % runs)
print("|---|---|---|---|---|")
for name, args in [("emulate --pattern reduce, 50 rounds", reduce14),
                   ("emulate --pattern phold, 5 ms", phold14)]:
    seq, one = [], []
    for _ in range(runs):
        v = run(args)
        seq.append(v["report"]["wall"]["events_per_s"])
        ev = v["report"]["sim"]["events"]
        v1 = run(args + ["--partitions", "1"])
        one.append(v1["report"]["wall"]["events_per_s"])
        ev1 = v1["report"]["sim"]["events"]
    r_seq, r_one = sorted(seq)[len(seq) // 2], sorted(one)[len(one) // 2]
    print(f"| {name} | sequential | {ev} | {r_seq / 1e6:.2f} | |")
    print(f"| {name} | --partitions 1 | {ev1} | {r_one / 1e6:.2f} | {100 * r_one / r_seq:.1f} % (target: ≥ 95 %) |")
print()
print("The same comparison in instructions, which the host's load does not change:")
print("scripts/partitions-instructions.sh (cachegrind: instructions, simulated cache misses and branches).")
print()

print("## 4. Events per second against K: emulate --pattern reduce, binary:14, 50 rounds")
print()
print("| K | M events/s (best of %d) | against K = 1 | windows | events per window | cut links |" % runs)
print("|---|---|---|---|---|---|")
ks = [k for k in (1, 2, 4, 8, 16) if k <= max(cores, 2)]
r1 = None
for k in ks:
    r, ev, parts = rate(reduce14 + ["--partitions", str(k)])
    r1 = r1 or r
    print(f"| {k} | {r / 1e6:.2f} | {r / r1:.2f}× | {parts['windows']} | {parts['events_per_window']:.1f} | {parts['cut_links']} |")
print()

phold = subprocess.run([mc, "emulate", "--help"], capture_output=True, text=True).stdout
if "phold" in phold:
    print("## 4b. Events per second against K: emulate --pattern phold, binary:14, L = 1 µs")
    print()
    print("| K | M events/s (best of %d) | against K = 1 | windows | events per window |" % runs)
    print("|---|---|---|---|---|")
    ph = ["emulate", "--topology", "binary:14", "--pattern", "phold", "--mode", "virtual",
          "--latency", "1us"]
    r1 = None
    for k in ks:
        r, ev, parts = rate(ph + ["--partitions", str(k)])
        r1 = r1 or r
        print(f"| {k} | {r / 1e6:.2f} | {r / r1:.2f}× | {parts['windows']} | {parts['events_per_window']:.1f} |")
    print()
else:
    print("(This build has no `emulate --pattern phold`: PHOLD is measured by scripts/validate-distributed.sh.)")
    print()

print("## 5. The farm's windows: farm binary:8, 1000 tasks, L = 1 µs")
print()
print("| K | windows | events per window | cut links | wall s |")
print("|---|---|---|---|---|")
for k in (2, 4, 8):
    v = run(base + ["--partitions", str(k)])
    parts = find(v, "parts")
    print(f"| {k} | {parts['windows']} | {parts['events_per_window']:.1f} | {parts['cut_links']} | {find(v, 'wall_s'):.2f} |")
PY
echo
echo "Load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
