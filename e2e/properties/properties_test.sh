#!/usr/bin/env bash
# 200 seeded random clusters under every policy, then the making-room
# streams (generate_making_room.py): 80 dra-preempt seeds under the
# policies that preempt and reclaim, 50 fragmented seeds under consolidate
# (skipped, saying so, while the binary lacks the action) and fair-share.
# Against the real binary from Bazel's runfiles. A failing seed's snapshot
# lands in $TEST_UNDECLARED_OUTPUTS_DIR (bazel-testlogs/e2e/properties/...).
set -euo pipefail
export SHOAL_SCHEDULER="$PWD/scheduler/shoal-scheduler"
python3 e2e/properties/run.py --seeds="${SHOAL_PROPERTY_SEEDS:-0:200}" \
    --policies=all --jobs=2 --cycles=5
python3 e2e/properties/run.py --stream=dra-preempt \
    --seeds="${SHOAL_DRA_PREEMPT_SEEDS:-0:80}" \
    --policies=fair-share,elastic,capacity --jobs=2 --cycles=5
exec python3 e2e/properties/run.py --stream=fragmented \
    --seeds="${SHOAL_FRAGMENTED_SEEDS:-0:50}" \
    --policies=consolidate,fair-share --jobs=2 --cycles=5
