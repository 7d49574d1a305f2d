#!/usr/bin/env bash
# check_includes.py on the small trees its test writes (no checkout needed;
# tools/test.sh runs it on the real tree).
set -euo pipefail
exec python3 tools/lint/check_includes_test.py
