#!/usr/bin/env bash
# Quick start, command one: builds Shoal and runs PaddlePaddle EDL's second
# experiment in the simulator both ways: elastic training next to online
# nginx pods, and the same jobs without elasticity. Prints the two
# summaries side by side, where the plots are, and what to try next.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "(1/3) checking the build dependencies (Debian packages)..." >&2
bash tools/install-deps.sh
log=${SHOAL_BUILD_LOG:-/tmp/shoal-build.log}
echo "(2/3) building shoal-sim and shoal-scheduler (the first build takes a few minutes; log: $log)..." >&2
if ! bazel build --noshow_progress //tools/simulator:shoal-sim //scheduler:shoal-scheduler >"$log" 2>&1; then
  echo "build failed; the end of $log:" >&2
  tail -n 40 "$log" >&2
  exit 1
fi
echo "(3/3) simulating two hours of EDL's experiment, elastic and rigid..." >&2
echo "$ shoal-sim --scenario=tools/simulator/scenarios/edl-fig2.yaml --compare --out=out/edl-fig2" >&2
bazel-bin/tools/simulator/shoal-sim --scenario=tools/simulator/scenarios/edl-fig2.yaml \
  --compare --out=out/edl-fig2 "$@"
cat >&2 <<'NEXT'

Next:
  open out/edl-fig2/*.png                      the plots of both runs
  bash tools/test.sh                           build and run every test
  bazel-bin/scheduler/shoal-scheduler --help   run it on a cluster or replay a snapshot (README, "Running on a cluster")
NEXT
