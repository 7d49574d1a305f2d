#!/usr/bin/env bash
# Installs what Shoal builds and tests with, from Debian's packages only.
# Idempotent: does nothing when everything is there already. Says in one
# line what it installs; apt's and npm's own output goes to a log file,
# printed (its end) only when a step fails.
set -euo pipefail

packages=(
  bazel-bootstrap bazel-rules-java          # Bazel 4.2.3, offline
  g++ pkg-config
  protobuf-compiler protobuf-compiler-grpc libprotobuf-dev libgrpc++-dev
  libabsl-dev libgoogle-glog-dev libgflags-dev nlohmann-json3-dev
  rapidjson-dev                    # streaming JSON: snapshot files, lists, watches
  libre2-dev                       # HyperNode regexMatch: the regular expressions Volcano (Go) uses
  libyaml-cpp-dev libcurl4-openssl-dev libcpp-httplib-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  python3 python3-matplotlib       # the simulator's plots
  python3-kubernetes python3-pytest openssl  # the end-to-end suite (openssl: TLS test certificates)
  python3-yaml                     # Volcano conformance cases (e2e/conformance)
  nodejs                           # CEL conformance data (npm @bufbuild/cel-spec)
  clang-format                     # tools/check-format.sh: CI fails on drift
  clang libclang-rt-14-dev         # tools/fuzz: clang 14; libFuzzer and the sanitizer runtimes
  umoci skopeo ca-certificates     # tools/image: the container image, no container engine
)

log=${SHOAL_INSTALL_LOG:-/tmp/shoal-install.log}
# Runs a step with its output in the log; on failure shows the log's end.
logged() {
  if ! "$@" >>"$log" 2>&1; then
    echo "shoal: failed: $* (last lines of $log below)" >&2
    tail -n 30 "$log" >&2
    exit 1
  fi
}

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
if [ ${#missing[@]} -ne 0 ]; then
  echo "shoal: installing ${#missing[@]} Debian packages (${missing[*]}); log: $log" >&2
  export DEBIAN_FRONTEND=noninteractive
  logged $SUDO apt-get update -q
  logged $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# CEL's conformance data for //scheduler/cel:conformance_test, fetched at
# install time and never committed: npm's @bufbuild/cel-spec packages the
# cel-spec test files as JavaScript; node writes its `tests` export as JSON.
cel_spec_dir=/var/cache/shoal-testdata/cel-spec-0.6.1
if [ ! -s "$cel_spec_dir/conformance.json" ]; then
  echo "shoal: fetching CEL conformance data (npm @bufbuild/cel-spec@0.6.1); log: $log" >&2
  # Some nodejs builds bundle npm (and conflict with Debian's npm package).
  if ! command -v npm >/dev/null; then
    logged $SUDO apt-get install -y -q --no-install-recommends npm
  fi
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  fetch() {
    cd "$tmp" && npm pack --silent @bufbuild/cel-spec@0.6.1 \
      && tar -xzf bufbuild-cel-spec-0.6.1.tgz \
      && node --input-type=module -e '
        import { tests } from "./package/dist/esm/testdata/conformance.js";
        import { writeFileSync } from "node:fs";
        writeFileSync("conformance.json", JSON.stringify(tests));
      '
  }
  (logged fetch)
  $SUDO mkdir -p "$cel_spec_dir"
  $SUDO cp "$tmp/conformance.json" "$cel_spec_dir/conformance.json"
fi
