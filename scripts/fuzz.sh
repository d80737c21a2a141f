#!/usr/bin/env bash
# A longer run of the property tests over every value parser and file reader (bench/src/props.rs):
# CI runs each property on 64 cases; this runs each on CASES (default 20 000) and prints, per
# property, the cases, its wall time and its result (a failure prints proptest's minimal
# failing input). Findings are recorded in docs/results/edges.md. Needs a quiet host for
# meaningful times.
#
#   scripts/fuzz.sh              # 20 000 cases per property
#   CASES=200000 scripts/fuzz.sh
set -uo pipefail
cd "$(dirname "$0")/.."
cases=${CASES:-20000}
echo "host: $(hostname), $(nproc) cores; date: $(date -u +%FT%TZ); cases per property: $cases"
nice cargo test -p multicomputer-bench --bin multicomputer --no-run 2>&1 | tail -1
props=$(cargo test -q -p multicomputer-bench --bin multicomputer props -- --list 2>/dev/null \
    | sed -n 's/^props::\(.*\): test$/\1/p')
failed=0
printf '| property | cases | wall time | result |\n|---|---|---|---|\n'
for p in $props; do
    start=$(date +%s.%N)
    if out=$(PROPTEST_CASES=$cases nice cargo test -q -p multicomputer-bench --bin multicomputer \
        "props::$p" -- --exact 2>&1); then
        result=ok
    else
        result="FAILED: $(grep -m1 'minimal failing input' <<<"$out" || tail -3 <<<"$out")"
        failed=1
    fi
    end=$(date +%s.%N)
    printf '| %s | %s | %s s | %s |\n' "$p" "$cases" \
        "$(python3 -c "print(f'{$end - $start:.1f}')")" "$result"
done
exit $failed
