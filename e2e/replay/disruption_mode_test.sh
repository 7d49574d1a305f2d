#!/usr/bin/env bash
# Runs the disruptionMode scenarios
# against the real binary from Bazel's runfiles.
set -euo pipefail
export SHOAL_SCHEDULER="$PWD/scheduler/shoal-scheduler"
exec python3 e2e/replay/disruption_mode_test.py
