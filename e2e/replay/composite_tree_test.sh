#!/usr/bin/env bash
# Runs the CompositePodGroup tree scenarios
# against the real binary from Bazel's runfiles.
set -euo pipefail
export SHOAL_SCHEDULER="$PWD/scheduler/shoal-scheduler"
exec python3 e2e/replay/composite_tree_test.py
