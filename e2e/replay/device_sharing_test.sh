#!/usr/bin/env bash
# Runs the shared-device scenarios (partitionable devices, consumable
# capacity, device taints) against the real binary from Bazel's runfiles.
set -euo pipefail
export SHOAL_SCHEDULER="$PWD/scheduler/shoal-scheduler"
exec python3 e2e/replay/device_sharing_test.py
