#!/usr/bin/env bash
# The conformance runner's own unit test: kube-scheduler's NormalizeScore
# formulas and the explain comparison (no binary needed).
set -euo pipefail
exec python3 e2e/conformance/normalize_test.py
