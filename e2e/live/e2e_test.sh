#!/usr/bin/env bash
# Runs the end-to-end suite (Debian's python3 has the kubernetes client).
set -euo pipefail
cd "$(dirname "$0")"
export KUBE_EMULATOR="${KUBE_EMULATOR:+$OLDPWD/$KUBE_EMULATOR}"
export SHOAL_SCHEDULER="${SHOAL_SCHEDULER:+$OLDPWD/$SHOAL_SCHEDULER}"
export SHOALCTL="${SHOALCTL:+$OLDPWD/$SHOALCTL}"
exec /usr/bin/python3 -m pytest -v "$@" .
