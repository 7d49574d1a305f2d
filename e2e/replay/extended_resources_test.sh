#!/usr/bin/env bash
# Runs the extended-resources-through-devices scenarios (KEP-5004)
# against the real binary from Bazel's runfiles.
set -euo pipefail
export SHOAL_SCHEDULER="$PWD/scheduler/shoal-scheduler"
exec python3 e2e/replay/extended_resources_test.py
