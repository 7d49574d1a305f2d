#!/usr/bin/env bash
# 300 damaged snapshots through the real binary from Bazel's runfiles: each
# is loaded or refused with a message, none aborts the process.
set -euo pipefail
export SHOAL_SCHEDULER="$PWD/scheduler/shoal-scheduler"
exec python3 e2e/properties/damaged.py --seeds=0:300
