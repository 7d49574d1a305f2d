#!/usr/bin/env bash
# No import cycle among the Python modules of e2e/properties/ (no binary).
set -euo pipefail
exec python3 e2e/properties/imports_test.py
