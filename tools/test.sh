#!/usr/bin/env bash
# Quick start, command two: builds everything and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
bash tools/check-format.sh
python3 tools/lint/check_includes.py
bazel build //...
log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
bazel test //... 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e
# One line that counts test targets, for people and for CI.
passed=$(grep -cE '^//[^ ]+ +(\(cached\) )?PASSED' "$log" || true)
failed=$(grep -cE '^//[^ ]+ +(FAILED|FAILED TO BUILD|TIMEOUT|NO STATUS|INCOMPLETE)' "$log" || true)
echo "tests: $passed passed, $failed failed"
# Every decoder of outside input fuzzed for a bounded time (README,
# "Fuzzing"): SHOAL_FUZZ_SECONDS per target, 15 by default; 0 skips it.
fuzz_seconds=${SHOAL_FUZZ_SECONDS:-15}
fuzz_rc=0
if [ "$fuzz_seconds" != 0 ]; then
  bash tools/fuzz/run.sh "$fuzz_seconds" || fuzz_rc=$?
fi
if [ "$rc" -ne 0 ]; then exit "$rc"; fi
exit "$fuzz_rc"
