#!/usr/bin/env bash
# Quick start, command two: builds everything and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
bash tools/check-format.sh
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
exit "$rc"
