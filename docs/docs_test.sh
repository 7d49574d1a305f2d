#!/usr/bin/env bash
# Runs docs/docs_test.py with the built binaries from Bazel's runfiles.
set -euo pipefail
export SHOAL_SCHEDULER="$PWD/scheduler/shoal-scheduler"
export SHOAL_SIM="$PWD/tools/simulator/shoal-sim"
export SHOALCTL="$PWD/tools/shoalctl/shoalctl"
exec python3 docs/docs_test.py "$@"
