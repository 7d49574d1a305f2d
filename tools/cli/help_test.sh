#!/usr/bin/env bash
# Every binary answers --help with a usage line and every flag it takes
# (each flag its own refusal of an unknown flag lists as valid), and exits 0.
set -euo pipefail
fail=0
check() {
  local program=$1 binary=$2 out err
  out=$("$binary" --help) || { echo "FAIL $program --help exited $?"; fail=1; return; }
  case "$(head -n 1 <<<"$out")" in
    "$program: usage: $program [flags]") echo "FAIL $program --help: no usage message of its own"; fail=1 ;;
    "$program: "*) ;;
    *) echo "FAIL $program --help: first line does not name the program: $(head -n 1 <<<"$out")"; fail=1 ;;
  esac
  err=$("$binary" --no-such-flag 2>&1 >/dev/null) && { echo "FAIL $program took --no-such-flag"; fail=1; }
  local valid
  valid=$(sed -n 's/.*(valid: \(.*\)).*/\1/p' <<<"$err" | tr -d ',')
  if [ -z "$valid" ]; then
    echo "FAIL $program: the unknown-flag refusal lists no valid flags: $err"; fail=1; return
  fi
  local n=0
  for flag in $valid; do
    n=$((n + 1))
    grep -qe "$flag\b" <<<"$out" || { echo "FAIL $program --help does not mention $flag"; fail=1; }
  done
  echo "ok   $program --help: $n flags"
}
check shoal-scheduler "$SHOAL_SCHEDULER"
check shoal-sim "$SHOAL_SIM"
check shoalctl "$SHOALCTL"
exit $fail
