#!/usr/bin/env bash
# Monte Carlo validation of the scalability verdict (issue 11) and a Markdown report:
#   - size and power of `consistency_test` (what `multicomputer scaling` decides) at
#     significance 1 %, on synthetic tables with P = 2…256 and loop counts 0, 2000, 4000, 6000;
#   - relative noise 0.5, 1 and 2 %; 1, 2 or 3 runs per point, or one run plus one duplicated P
#     per loop count; a missing c·P term of 0, 2, 5, 10, 25 and 50 % of the largest run time;
#     run times over a narrow (1.7×) and a wide (6.9×) range;
#   - tables shaped like the paper's Table 1 (refuted) and Table 2 (consistent);
#   - the weighting rule, and the shape of the missing term's coefficient.
# Statistics, not timing: the host's load does not change the numbers (only the wall time).
#
# Usage: scripts/validate-scaling-verdict.sh [TABLES] [SEED] [OUT_DIR]
#        (defaults 4000 tables per setting, seed 11, results/validate-scaling-verdict)
# Record its output in docs/results/scaling-verdict.md.
set -euo pipefail
cd "$(dirname "$0")/.."
tables=${1:-4000}
seed=${2:-11}
out=${3:-results/validate-scaling-verdict}
mkdir -p "$out"
cargo build --release --quiet -p multicomputer-workloads --example scaling_verdict_mc
mc="${CARGO_TARGET_DIR:-target}/release/examples/scaling_verdict_mc"

start=$(date -u +%s)
nice "$mc" "$tables" "$seed" >"$out/tables.md"
end=$(date -u +%s)

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//' || echo unknown)
{
  echo "Command: \`scripts/validate-scaling-verdict.sh $tables $seed\` (\`cargo run --release -p multicomputer-workloads --example scaling_verdict_mc -- $tables $seed\` under \`nice\`)."
  echo
  echo "Host: \`$(uname -a)\`; $(nproc) CPUs ($cpu). Date: $(date -u '+%Y-%m-%d %H:%M UTC'). Wall time $((end - start)) s."
  echo
  sed '1,2d' "$out/tables.md"
} | tee "$out/report.md"
