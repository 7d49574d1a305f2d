#!/usr/bin/env bash
# Converts the OCI archive to a docker-archive named REPOSITORY:TAG (TAG is
# the OCI archive's ref.name), the form `docker load`, `kind load
# image-archive` and `ctr images import` all take with its name.
#
#   docker_archive.sh OCI.tar OUT.tar REPOSITORY
set -euo pipefail
oci=$1
out=$2
repository=$3
SKOPEO=${SKOPEO:-/usr/bin/skopeo}
command -v "$SKOPEO" > /dev/null \
  || { echo "docker_archive.sh: $SKOPEO missing (bash tools/install-deps.sh)" >&2; exit 1; }
tag=$(tar -xOf "$oci" index.json \
  | sed -n 's/.*"org.opencontainers.image.ref.name":"\([^"]*\)".*/\1/p')
[ -n "$tag" ] || { echo "docker_archive.sh: $oci names no tag" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/shoal-docker-archive.XXXXXX")
trap 'rm -rf "$work"' EXIT
# --insecure-policy: a local file conversion, no signatures to check, and
# no dependence on /etc/containers/policy.json.
"$SKOPEO" --insecure-policy --tmpdir "$work" copy -q \
  "oci-archive:$oci" "docker-archive:$work/image.tar:$repository:$tag"
cp "$work/image.tar" "$out"
