#!/usr/bin/env bash
# Quick start, command one: builds Shoal and runs PaddlePaddle EDL's second
# experiment in the simulator both ways: elastic training next to online
# nginx pods, and the same jobs without elasticity. Prints the two
# summaries side by side and where the plots are.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
echo "Building shoal-sim (the first build takes a few minutes)..." >&2
bazel build --noshow_progress //tools/simulator:shoal-sim //scheduler:shoal-scheduler 2>&1 |
  grep -vE '^(INFO|Loading|Analyzing)' >&2 || true
test -x bazel-bin/tools/simulator/shoal-sim || { echo "build failed" >&2; exit 1; }
echo >&2
echo "$ shoal-sim --scenario=tools/simulator/scenarios/edl-fig2.yaml --compare --out=out/edl-fig2" >&2
exec bazel-bin/tools/simulator/shoal-sim --scenario=tools/simulator/scenarios/edl-fig2.yaml \
  --compare --out=out/edl-fig2 "$@"
