#!/usr/bin/env bash
# Installs what Shoal builds and tests with, from Debian's packages only.
# Idempotent: does nothing when everything is there already.
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

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
if [ ${#missing[@]} -ne 0 ]; then
  echo "shoal: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q >&2
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
fi

# CEL's conformance data for //scheduler/cel:conformance_test, fetched at
# install time and never committed: npm's @bufbuild/cel-spec packages the
# cel-spec test files as JavaScript; node writes its `tests` export as JSON.
cel_spec_dir=/var/cache/shoal-testdata/cel-spec-0.6.1
if [ ! -s "$cel_spec_dir/conformance.json" ]; then
  echo "shoal: fetching CEL conformance data (npm @bufbuild/cel-spec@0.6.1)" >&2
  # Some nodejs builds bundle npm (and conflict with Debian's npm package).
  if ! command -v npm >/dev/null; then
    $SUDO apt-get install -y -q --no-install-recommends npm >&2
  fi
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && npm pack --silent @bufbuild/cel-spec@0.6.1 >/dev/null \
    && tar -xzf bufbuild-cel-spec-0.6.1.tgz \
    && node --input-type=module -e '
      import { tests } from "./package/dist/esm/testdata/conformance.js";
      import { writeFileSync } from "node:fs";
      writeFileSync("conformance.json", JSON.stringify(tests));
    ')
  $SUDO mkdir -p "$cel_spec_dir"
  $SUDO cp "$tmp/conformance.json" "$cel_spec_dir/conformance.json"
fi
