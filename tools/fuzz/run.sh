#!/usr/bin/env bash
# Builds the fuzz targets with libFuzzer, ASan (with LeakSanitizer) and
# UBSan (--config=fuzz) and runs each for a bounded time on seeds made from
# the repository's test data (seeds.py), the committed reproducers
# (regressions/<target>/) and a dictionary (dicts/<target>.dict).
#
#   tools/fuzz/run.sh [SECONDS_PER_TARGET] [TARGET...]   (default 20, all)
#
# Prints the executions of each target; exits non-zero on any crash, leak,
# sanitizer report or input that runs longer than 10 s, keeping the
# reproducers and logs in a temporary directory whose paths it prints.
# Replay one: bazel-bin/tools/fuzz/<target>_fuzzer <file> (plain build) or
# the fuzz build's binary, whose path is printed.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-20}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(snapshot objects informer policy kubeconfig cel)
fi

# An output base of its own: the clang build never evicts the gcc one.
output_base=${SHOAL_FUZZ_OUTPUT_BASE:-$HOME/.cache/shoal-fuzz-bazel}
bazel_fuzz=(bazel --output_base="$output_base")
labels=()
for t in "${targets[@]}"; do labels+=("//tools/fuzz:${t}_fuzzer"); done
start=$(date +%s)
# --symlink_prefix=/: leave the workspace's bazel-bin to the ordinary build.
"${bazel_fuzz[@]}" build --config=fuzz --symlink_prefix=/ "${labels[@]}"
bin=$("${bazel_fuzz[@]}" info --config=fuzz bazel-bin 2>/dev/null)/tools/fuzz
echo "fuzz: build took $(($(date +%s) - start)) s"

work=$(mktemp -d "${TMPDIR:-/tmp}/shoal-fuzz.XXXXXX")
python3 tools/fuzz/seeds.py "$work/seeds"

failed=()
for t in "${targets[@]}"; do
  corpus=$work/corpus/$t
  crashes=$work/crashes/$t
  log=$work/$t.log
  mkdir -p "$corpus" "$crashes" "$work/seeds/$t"
  dict=()
  if [ -f "tools/fuzz/dicts/$t.dict" ]; then dict=(-dict="tools/fuzz/dicts/$t.dict"); fi
  set +e
  # New inputs go to the first directory; the others are only read.
  # -rss_limit_mb: the sanitizers' shadow memory counts too; 2 GB leaves
  # room on a CI machine and still catches a runaway allocation.
  "$bin/${t}_fuzzer" -max_total_time="$seconds" -timeout=10 \
    -rss_limit_mb=2048 -max_len=16384 -print_final_stats=1 \
    -artifact_prefix="$crashes/" "${dict[@]}" \
    "$corpus" "$work/seeds/$t" "tools/fuzz/regressions/$t" >"$log" 2>&1
  rc=$?
  set -e
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  if [ "$rc" -eq 0 ]; then
    echo "fuzz: $t: ${execs:-?} executions in ${seconds} s, no failure"
  else
    echo "fuzz: $t: FAILED (exit $rc) after ${execs:-?} executions; log $log"
    grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error|terminate called|  what\(\))' "$log" | head -5 | sed 's/^/  /'
    for f in "$crashes"/*; do
      [ -e "$f" ] && echo "  reproducer: $f"
    done
    failed+=("$t")
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: ${#failed[@]} target(s) failed: ${failed[*]}; binaries in $bin, all in $work"
  exit 1
fi
rm -rf "$work"
echo "fuzz: ${#targets[@]} targets, ${seconds} s each, no failure (total $(($(date +%s) - start)) s)"
