#!/usr/bin/env bash
# shoal-sim decides the same in every process: two runs of one trace under
# an elastic preset that resizes often (least attained service) write the
# same per-job results. Hash maps iterate in a per-process order; a
# decision fed by that order (a moving average once was) differs here.
set -euo pipefail
sim=$1
out=${TEST_TMPDIR:-$(mktemp -d)}
for run in a b; do
  "$sim" --scenario=tools/simulator/scenarios/pollux.yaml \
    --trace=tools/simulator/traces/pollux-osdi21/workloads/workload-2.csv \
    --policy=tools/simulator/policies/elastic-las.yaml --label=$run \
    --out="$out" --noplot >/dev/null 2>&1
done
if ! cmp -s "$out/a/trace-jobs.csv" "$out/b/trace-jobs.csv"; then
  echo "FAIL: two runs of the same trace differ:"
  diff "$out/a/trace-jobs.csv" "$out/b/trace-jobs.csv" | head -10
  exit 1
fi
echo "ok: two runs of workload-2 under elastic-las.yaml agree ($(wc -l <"$out/a/trace-jobs.csv") lines)"
