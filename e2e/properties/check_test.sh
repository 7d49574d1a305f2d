#!/usr/bin/env bash
# The oracle's own unit test (no binary needed).
set -euo pipefail
exec python3 e2e/properties/check_test.py
