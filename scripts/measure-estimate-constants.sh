#!/usr/bin/env bash
# Measures every constant the wall-time estimates use (bench/src/tuning.rs, "Estimates") on
# this host, each as the minimum of a few repetitions (robust to a host's noise: a run is
# only ever slowed), and prints them in the form tuning.rs holds them, each with what it was
# measured on. Release build; about a minute on a quiet host. Take the figures you paste
# into tuning.rs on a quiet host (load average under the cores: see `uptime`); the load
# average at the start and the end is printed beside them.
#
#   scripts/measure-estimate-constants.sh [OUT]   # OUT: scratch folder, default
#                                                 # target/estimate-constants (replaced)
#
# What each constant is measured on:
#   PROCESS_S          a command of one tiny task with its tables on stdout (min of 15)
#   PAGE_S             the same with --report x.html, less PROCESS_S (min of 15)
#   ENGINE_EVENT_S     emulate -t chain:1024 --pattern reduce: the run's wall time over its
#                      events (the report's own figures; min of 3)
#   COLD_EVENT_FACTOR, CACHED_PROCESSORS
#                      the same on binary:12 and binary:14, fitted to
#                      cost(P) = hot × (1 + (factor − 1)(1 − cached/P))
#   TREE_EVENT_S       farm (binary:3) --runs 200: wall time less PROCESS_S over the events
#                      the estimate counts (its announcement's [events N]; min of 3)
#   TREE_COLD_EVENT_FACTOR, TREE_CACHED_PROCESSORS
#                      farm --tasks 200000 on binary:12 and binary:14 likewise (one run
#                      each), fitted as the engine's are
#   PIPELINE_EVENT_S   the README's ocl likewise (min of 3)
#   DRAIN_STEP_S       farm -t chain:16 --te 10ms --runs 40 --times exponential against
#                      --times constant (min of 3 each): the difference over the 40 runs'
#                      drain steps (4000 samples × 32 slots × 16 levels each; the tie
#                      spread's one extra run of each is left in, 2.5 %)
#   ONE_WAY_MESSAGE_S  pingpong's runtime one-way time (median of its runs)
#   FIT_ROW_S          fit farm on 20 000 rows: wall time less PROCESS_S over the rows (min of 2)
#   CALIBRATION_SAMPLE_S, CALIBRATION_FIXED_S
#                      calibrate --samples 20 and 120 (min of 2 each): the slope, and the
#                      intercept less PROCESS_S and UNIT_COSTS_S (which calibrate's flags
#                      cannot separate from the fixed part: its value is kept)
#   COPY_BYTES_PER_S   collective broadcast -t hypercube:8 --bytes 1MiB --mode virtual: the
#                      bytes its run and check write (as the estimate counts them) over its
#                      wall time less PROCESS_S (min of 3)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/out-folder.sh
out_folder measure-estimate-constants "${1:-}" target/estimate-constants
cargo build --release -q -p multicomputer-bench
mc=${CARGO_TARGET_DIR:-target}/release/multicomputer
python3 - "$mc" "$out" <<'PY'
import json, os, re, subprocess, sys, time

mc, out = sys.argv[1], sys.argv[2]
env = dict(os.environ, MULTICOMPUTER_ANNOUNCE_ALL="1")
res = os.path.join(out, "results")


def run(args, n):
    """The shortest wall time of n runs of `mc args`, with the last run's stdout and stderr."""
    best, last = float("inf"), None
    for _ in range(n):
        t = time.perf_counter()
        p = subprocess.run([mc, *args, "--out", res], env=env, capture_output=True, text=True)
        took = time.perf_counter() - t
        if p.returncode != 0:
            sys.exit(f"multicomputer {' '.join(args)} failed ({p.returncode}):\n{p.stderr}")
        best, last = min(best, took), p
    return best, last


def events(stderr):
    """The events the estimate counts, from the announcement's [events N]."""
    m = re.search(r"\[events ([0-9]+)\]", stderr)
    if not m:
        sys.exit(f"no [events N] announced:\n{stderr}")
    return float(m.group(1))


def per_event(topology, rounds):
    """The run's wall time over its events (the report's figures), the least of 3."""
    best = float("inf")
    for _ in range(3):
        _, p = run(["emulate", "-t", topology, "--pattern", "reduce", "--occupy", "10us",
                    "--rounds", str(rounds), "--mode", "virtual", "--json"], 1)
        r = json.loads(p.stdout)["report"]
        best = min(best, r["wall"]["run_s"] / r["sim"]["events"])
    return best


load = lambda: open("/proc/loadavg").read().split()[0]
start_load = load()
got = {}

tiny = ["farm", "-t", "chain:1", "--tasks", "1", "--te", "1us", "--mode", "virtual"]
process_s, _ = run(tiny, 15)
got["PROCESS_S"] = (process_s, "farm -t chain:1 --tasks 1 --te 1us --mode virtual, min of 15")
page, _ = run(tiny + ["--report", os.path.join(out, "page.html")], 15)
got["PAGE_S"] = (max(page - process_s, 0.0), "the same with --report x.html, less PROCESS_S")

hot = per_event("chain:1024", 1000)
got["ENGINE_EVENT_S"] = (hot, "emulate -t chain:1024 --pattern reduce --occupy 10us, run_s/events, min of 3")


def cold_fit(hot, e1, e2, p1=4095, p2=16383):
    """(factor, cached) of cost(P) = hot × (1 + (factor − 1)(1 − cached/P)) through two sizes."""
    r1, r2 = e1 / hot - 1, e2 / hot - 1
    cached = (r2 - r1) / (r2 / p1 - r1 / p2) if r2 / p1 != r1 / p2 else float("nan")
    return 1 + r2 / (1 - cached / p2), cached


e1, e2 = per_event("binary:12", 400), per_event("binary:14", 100)
factor, cached = cold_fit(hot, e1, e2)
got["COLD_EVENT_FACTOR"] = (factor, f"binary:12 {e1 * 1e9:.0f} ns, binary:14 {e2 * 1e9:.0f} ns an event")
got["CACHED_PROCESSORS"] = (cached, "fitted with COLD_EVENT_FACTOR")

wall, p = run(["farm", "--runs", "200", "--warmup", "0", "--mode", "virtual"], 3)
tree = (wall - process_s) / events(p.stderr)
got["TREE_EVENT_S"] = (tree, "farm (binary:3) --runs 200, min of 3")
tree_costs = []
for topology in ("binary:12", "binary:14"):
    wall, p = run(["farm", "-t", topology, "--tasks", "200000", "--mode", "virtual"], 1)
    tree_costs.append((wall - process_s) / events(p.stderr))
factor, cached = cold_fit(tree, *tree_costs)
got["TREE_COLD_EVENT_FACTOR"] = (factor, f"farm --tasks 200000: binary:12 {tree_costs[0] * 1e9:.0f} ns, "
                                 f"binary:14 {tree_costs[1] * 1e9:.0f} ns an event")
got["TREE_CACHED_PROCESSORS"] = (cached, "fitted with TREE_COLD_EVENT_FACTOR")
wall, p = run(["ocl", "--window", "500", "--transform", "m1:10", "--length", "10000"], 3)
got["PIPELINE_EVENT_S"] = ((wall - process_s) / events(p.stderr),
                           "ocl --window 500 --transform m1:10 --length 10000, min of 3")

drain_farm = ["farm", "-t", "chain:16", "--te", "10ms", "--runs", "40", "--warmup", "0",
              "--mode", "virtual", "--times"]
random_s, _ = run(drain_farm + ["exponential"], 3)
constant_s, _ = run(drain_farm + ["constant"], 3)
got["DRAIN_STEP_S"] = ((random_s - constant_s) / (40 * 4000 * 32 * 16),
                       f"farm -t chain:16 --te 10ms --runs 40: exponential {random_s:.3f} s, "
                       f"constant {constant_s:.3f} s")

_, p = run(["pingpong", "--round-trips", "100000", "--runs", "3", "--json"], 1)
got["ONE_WAY_MESSAGE_S"] = (json.loads(p.stdout)["runtime_one_way_ns"] * 1e-9,
                            "pingpong --round-trips 100000 --runs 3, the runtime's median")

# fit farm: a small sweep's rows, repeated to 20 000.
run(["sweep", "farm", "--topologies", "chain:1-4", "--te", "1ms,5ms"], 1)
rows_in = open(os.path.join(res, "sweep-farm", "latest", "rows.csv")).read().splitlines()
rows = 20000
with open(os.path.join(out, "rows.csv"), "w") as f:
    f.write(rows_in[0] + "\n")
    for i in range(rows):
        f.write(rows_in[1 + i % (len(rows_in) - 1)] + "\n")
wall, _ = run(["fit", "farm", "--csv", os.path.join(out, "rows.csv")], 2)
got["FIT_ROW_S"] = ((wall - process_s) / rows, f"fit farm on {rows} rows, min of 2")

unit_costs_s = float(re.search(r"UNIT_COSTS_S: f64 = ([0-9.e-]+);",
                               open("bench/src/tuning.rs").read()).group(1))
cal = [(n, run(["calibrate", "--samples", str(n), "--profile", os.path.join(out, f"p{n}.json")], 2)[0])
       for n in (20, 120)]
slope = (cal[1][1] - cal[0][1]) / (cal[1][0] - cal[0][0])
got["CALIBRATION_SAMPLE_S"] = (slope, f"calibrate --samples 20: {cal[0][1]:.3f} s, 120: {cal[1][1]:.3f} s")
got["CALIBRATION_FIXED_S"] = (cal[0][1] - 20 * slope - process_s - unit_costs_s,
                              f"the intercept less PROCESS_S and UNIT_COSTS_S ({unit_costs_s})")

p_, m = 256, 1 << 20
written = 2 * p_ * m + (p_ - 1) * m + p_ * m  # inputs twice, the messages, the reference's results
wall, _ = run(["collective", "broadcast", "-t", "hypercube:8", "--bytes", "1MiB", "--mode", "virtual"], 3)
got["COPY_BYTES_PER_S"] = (written / (wall - process_s), "collective broadcast -t hypercube:8 --bytes 1MiB --mode virtual, min of 3")

print(f"// measured by scripts/measure-estimate-constants.sh, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
      f"host {os.uname().nodename} ({os.cpu_count()} cores), load average {start_load} at the start, {load()} at the end")
for name, (value, how) in got.items():
    print(f"pub(crate) const {name}: f64 = {value:.4e}; // {how}")
PY
