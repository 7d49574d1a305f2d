#!/usr/bin/env bash
# Runs the PodGroup claim scenarios (KEP-5729)
# against the real binary from Bazel's runfiles.
set -euo pipefail
export SHOAL_SCHEDULER="$PWD/scheduler/shoal-scheduler"
exec python3 e2e/replay/group_claims_test.py
