#!/usr/bin/env bash
# 200 seeded random clusters under every policy, against the
# real binary from Bazel's runfiles. A failing seed's snapshot lands in
# $TEST_UNDECLARED_OUTPUTS_DIR (bazel-testlogs/e2e/properties/...).
set -euo pipefail
export SHOAL_SCHEDULER="$PWD/scheduler/shoal-scheduler"
exec python3 e2e/properties/run.py --seeds="${SHOAL_PROPERTY_SEEDS:-0:200}" \
    --policies=all --jobs=2 --cycles=5
