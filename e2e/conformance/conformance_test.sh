#!/usr/bin/env bash
# Runs Volcano's test tables (volcano/*.yaml) against the real binary from Bazel's runfiles.
set -euo pipefail
export SHOAL_SCHEDULER="$PWD/scheduler/shoal-scheduler"
exec python3 e2e/conformance/conformance_test.py "$@"
