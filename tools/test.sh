#!/usr/bin/env bash
# Quick start, command two: builds everything and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
bazel build //...
bazel test //...
