#!/usr/bin/env bash
# Fails when a tracked C++ file or proto differs from what clang-format
# (Google base, .clang-format) would write; names each such file and how
# to fix it. tools/test.sh runs it, so CI does.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.cc' '*.h' '*.proto')
drift=()
for f in "${files[@]}"; do
  [ -f "$f" ] || continue
  if ! clang-format --dry-run -Werror "$f" >/dev/null 2>&1; then drift+=("$f"); fi
done
if [ ${#drift[@]} -gt 0 ]; then
  echo "clang-format: ${#drift[@]} file(s) not formatted:" >&2
  printf '  %s\n' "${drift[@]}" >&2
  echo "fix: clang-format -i ${drift[*]}" >&2
  exit 1
fi
echo "clang-format: ${#files[@]} files formatted"
