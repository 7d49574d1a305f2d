#!/usr/bin/env bash
# Runs the DRA preemption scenarios (devices given back by victims, held
# until the claims are deallocated) against the real binary from Bazel's
# runfiles.
set -euo pipefail
export SHOAL_SCHEDULER="$PWD/scheduler/shoal-scheduler"
exec python3 e2e/replay/device_preemption_test.py
