#!/usr/bin/env bash
# Quick start, command one: builds Shoal and replays the bundled example
# cluster (two 6-GPU gangs on two 4-GPU nodes), showing that gang
# scheduling runs one whole job instead of deadlocking both.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
echo "Building shoal-scheduler (the first build takes a minute or two)..." >&2
bazel build --noshow_progress //scheduler:shoal-scheduler 2>&1 | grep -vE '^(INFO|Loading|Analyzing)' >&2 || true
test -x bazel-bin/scheduler/shoal-scheduler || { echo "build failed" >&2; exit 1; }
echo >&2
echo "$ shoal-scheduler --snapshot=e2e/snapshots/gang-deadlock.yaml" >&2
exec bazel-bin/scheduler/shoal-scheduler --snapshot=e2e/snapshots/gang-deadlock.yaml "$@"
