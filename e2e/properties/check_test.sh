#!/usr/bin/env bash
# The oracle's own unit test (no binary needed): check_test.py (with the
# tests of device_sharing_test.py it imports) and making_room_test.py, in
# one run.
set -euo pipefail
cd e2e/properties
exec python3 -m unittest -v check_test making_room_test
