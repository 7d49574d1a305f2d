#!/usr/bin/env bash
# Unpacks the image the build wrote and checks what a cluster relies on:
# the config runs the entrypoint as non-root uid 65532; the root filesystem
# holds every library ldd names for each binary and no other; each binary
# runs from that root filesystem alone; conf/scheduler.yaml and the
# docker-archive name the image REPOSITORY:TAG.
#
#   image_test.sh OCI.tar DOCKER.tar SCHEDULER_YAML REPOSITORY BINARY...
set -euo pipefail
oci=$1
docker_archive=$2
deployment=$3
repository=$4
shift 4
binaries=("$@")

fail() {
  echo "FAIL: $*" >&2
  exit 1
}
json() {  # json FILE PYTHON-EXPRESSION-ON-d
  python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

work=${TEST_TMPDIR:-$(mktemp -d)}
layout=$work/layout
bundle=$work/bundle
mkdir -p "$layout"
tar -xf "$oci" -C "$layout"
tag=$(json "$layout/index.json" 'd["manifests"][0]["annotations"]["org.opencontainers.image.ref.name"]')
echo "image tag: $tag"

# skopeo reads the archive as an OCI image, with the config we set.
skopeo --tmpdir "$work" inspect --config "oci-archive:$oci" > "$work/config.json"
user=$(json "$work/config.json" 'd["config"]["User"]')
entrypoint=$(json "$work/config.json" '" ".join(d["config"]["Entrypoint"])')
[ "$user" = "65532:65532" ] || fail "config User is \"$user\", want 65532:65532"
[ "$entrypoint" = "/usr/local/bin/shoal-scheduler" ] \
  || fail "config Entrypoint is \"$entrypoint\""
echo "config: User $user, Entrypoint $entrypoint"

umoci unpack --rootless --image "$layout:$tag" "$bundle" > /dev/null
rootfs=$bundle/rootfs
[ "$(json "$bundle/config.json" 'd["process"]["user"]["uid"]')" = 65532 ] \
  || fail "runtime config's uid is not 65532"
grep -q '^shoal:x:65532:65532:' "$rootfs/etc/passwd" || fail "/etc/passwd has no shoal (65532)"
grep -q '^shoal:x:65532:' "$rootfs/etc/group" || fail "/etc/group has no shoal (65532)"
grep -q 'BEGIN CERTIFICATE' "$rootfs/etc/ssl/certs/ca-certificates.crt" \
  || fail "no CA certificates at /etc/ssl/certs/ca-certificates.crt"

# Every library ldd lists for a binary is in the rootfs at the same path,
# and the rootfs holds no library no binary loads.
wanted=$work/wanted-libs
: > "$wanted"
for bin in "${binaries[@]}"; do
  [ -x "$rootfs$bin" ] || fail "$bin is not in the image"
  ldd "$rootfs$bin" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' \
    >> "$wanted"
done
sort -u -o "$wanted" "$wanted"
while read -r lib; do
  [ -f "$rootfs$lib" ] || fail "$lib (ldd) is not in the image"
done < "$wanted"
(cd "$rootfs" && find . -name '*.so*' \( -type f -o -type l \) | sed 's|^\.||' | sort) \
  > "$work/present-libs"
if ! diff -u "$wanted" "$work/present-libs"; then
  fail "the image's libraries differ from what ldd lists (- missing, + extra)"
fi
echo "libraries: $(wc -l < "$wanted") files, as ldd lists them"

# Runs a command from the rootfs using only the rootfs's libraries: its own
# dynamic loader, no ld.so.cache, only its library directories. Where
# chroot works (as root; Bazel's sandbox may refuse to switch user), it
# also runs chrooted, as the image's user 65532 if it can.
chroot_as=()
if [ "$(id -u)" = 0 ]; then
  for spec in --userspec=65532:65532 ""; do
    if chroot ${spec:+"$spec"} "$rootfs" /usr/local/bin/shoal-scheduler --version \
      > /dev/null 2>&1; then
      chroot_as=(chroot ${spec:+"$spec"} "$rootfs")
      break
    fi
  done
fi
if [ ${#chroot_as[@]} -gt 0 ]; then
  echo "chrooted runs: ${chroot_as[*]}"
else
  echo "chroot unavailable here: runs use the image's loader only"
fi
in_image() {
  local out chrooted
  out=$("$rootfs/lib64/ld-linux-x86-64.so.2" --inhibit-cache \
    --library-path "$rootfs/lib/x86_64-linux-gnu:$rootfs/usr/lib/x86_64-linux-gnu" \
    "$rootfs$1" "${@:2}") || fail "$* exits $? with the image's loader and libraries"
  if [ ${#chroot_as[@]} -gt 0 ]; then
    chrooted=$("${chroot_as[@]}" "$@") || fail "$* exits $? in ${chroot_as[*]}"
    [ "$chrooted" = "$out" ] || fail "$*: chrooted output differs"
  fi
  printf '%s\n' "$out"
}

version=$(in_image /usr/local/bin/shoal-scheduler --version)
[ "$version" = "shoal-scheduler $tag" ] \
  || fail "shoal-scheduler --version prints \"$version\", want \"shoal-scheduler $tag\""
echo "--version: $version"

# Every binary of BINARIES (BUILD.bazel) runs from the image.
usage=$(in_image /usr/local/bin/shoalctl --help)
case "$usage" in
  *"shoalctl explain pod"*"shoalctl queues"*"shoalctl snapshot"*"shoalctl whatif"*) ;;
  *) fail "shoalctl --help does not list its commands: $usage" ;;
esac
echo "shoalctl --help: ok"

# The Deployment runs this image, and loading the docker-archive gives it
# that name.
want_image=$repository:$tag
named=$(sed -n 's/^ *image: *\([^ ]*\).*/\1/p' "$deployment")
[ "$named" = "$want_image" ] \
  || fail "$deployment runs image \"$named\", want \"$want_image\""
grep -q 'imagePullPolicy: IfNotPresent' "$deployment" \
  || fail "$deployment: imagePullPolicy must be IfNotPresent (the image is loaded, not pulled)"
tags=$(tar -xOf "$docker_archive" manifest.json \
  | python3 -c 'import json, sys; print(" ".join(t for m in json.load(sys.stdin) for t in m["RepoTags"]))')
[ "$tags" = "$want_image" ] || fail "docker-archive is named \"$tags\", want \"$want_image\""
echo "deployment and docker-archive: $want_image"
echo "PASS"
