#!/usr/bin/env bash
# Builds Shoal's container image as an OCI archive without a container
# engine: the given binaries, exactly the shared libraries `ldd` says they
# load (and the dynamic loader) at the paths ldd names, /etc/passwd and
# /etc/group with the non-root user shoal (uid 65532), and the system's CA
# bundle. umoci writes the OCI layout; the archive is a tar of it, which is
# what skopeo's and containerd's oci-archive readers take.
#
#   build_image.sh OUT.tar VERSION_H BINARY=NAME...
#
# The image's tag (its org.opencontainers.image.ref.name) is kVersion from
# VERSION_H (scheduler/cli/version.h), what `--version` prints. Each BINARY
# is installed as /usr/local/bin/NAME; the first is the entrypoint.
set -euo pipefail

out=$1
tag=$(sed -n 's/.*kVersion\[\] = "\([^"]*\)";.*/\1/p' "$2")
shift 2
[[ "$tag" =~ ^[A-Za-z0-9._-]+$ ]] \
  || { echo "build_image.sh: no usable kVersion in $2: \"$tag\"" >&2; exit 2; }
[ $# -gt 0 ] || { echo "build_image.sh: no binaries" >&2; exit 2; }

UMOCI=${UMOCI:-/usr/bin/umoci}
LDD=${LDD:-/usr/bin/ldd}
CA_BUNDLE=${CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}
USER_ID=65532
# Fixed timestamps, so the same inputs give the same archive.
EPOCH=${SOURCE_DATE_EPOCH:-0}
CREATED=$(date -u -d "@$EPOCH" +%Y-%m-%dT%H:%M:%SZ)

for tool in "$UMOCI" "$LDD" tar; do
  command -v "$tool" > /dev/null \
    || { echo "build_image.sh: $tool missing (bash tools/install-deps.sh)" >&2; exit 1; }
done
[ -r "$CA_BUNDLE" ] \
  || { echo "build_image.sh: $CA_BUNDLE missing (apt-get install ca-certificates)" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/shoal-image.XXXXXX")
trap 'chmod -R u+w "$work" 2> /dev/null; rm -rf "$work"' EXIT
root=$work/rootfs
mkdir -p "$root/usr/local/bin" "$root/etc/ssl/certs" "$root/tmp"
chmod 1777 "$root/tmp"

# Copies host file $1 (following symlinks) to the same path in the rootfs.
copy_host_file() {
  local dest=$root$1
  [ -e "$dest" ] && return 0
  mkdir -p "$(dirname "$dest")"
  cp -L "$1" "$dest"
}

entrypoint=""
for spec in "$@"; do
  bin=${spec%=*}
  name=${spec##*=}
  install -m 0755 "$bin" "$root/usr/local/bin/$name"
  [ -n "$entrypoint" ] || entrypoint=/usr/local/bin/$name
  # "libfoo.so.1 => /lib/.../libfoo.so.1 (0x...)" and "/lib64/ld-linux-x86-64.so.2 (0x...)";
  # linux-vdso has no file. A library ldd cannot find fails the build.
  if "$LDD" "$bin" | grep -q "not found"; then
    echo "build_image.sh: $bin: ldd cannot resolve:" >&2
    "$LDD" "$bin" | grep "not found" >&2
    exit 1
  fi
  "$LDD" "$bin" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' \
    | while read -r lib; do copy_host_file "$lib"; done
done

cat > "$root/etc/passwd" <<PASSWD
root:x:0:0:root:/root:/sbin/nologin
shoal:x:$USER_ID:$USER_ID:shoal:/nonexistent:/sbin/nologin
PASSWD
cat > "$root/etc/group" <<GROUP
root:x:0:
shoal:x:$USER_ID:
GROUP
# getaddrinfo: the pod's /etc/hosts first, then DNS (glibc's own default
# without this file is DNS first).
echo "hosts: files dns" > "$root/etc/nsswitch.conf"
cp -L "$CA_BUNDLE" "$root/etc/ssl/certs/ca-certificates.crt"
chmod -R u+w,go-w,a+rX "$root"
chmod 1777 "$root/tmp"
find "$root" -exec touch -h -d "@$EPOCH" {} +

layout=$work/layout
"$UMOCI" init --layout "$layout"
"$UMOCI" new --image "$layout:$tag"
# An empty image, unpacked, filled and repacked: one layer. (Not `umoci
# insert ROOTFS /`: umoci 0.4.7 wrote that layer's tar truncated.)
"$UMOCI" unpack --rootless --image "$layout:$tag" "$work/bundle" > /dev/null
rmdir "$work/bundle/rootfs"
mv "$root" "$work/bundle/rootfs"
"$UMOCI" repack --image "$layout:$tag" \
  --history.created "$CREATED" --history.created_by "tools/image/build_image.sh" \
  --history.comment "shoal binaries, their shared libraries, passwd, CA certificates" \
  "$work/bundle"
"$UMOCI" config --image "$layout:$tag" --no-history \
  --created "$CREATED" --os linux --architecture amd64 \
  --config.user "$USER_ID:$USER_ID" \
  --config.entrypoint "$entrypoint" \
  --config.workingdir / \
  --config.env PATH=/usr/local/bin \
  --config.label "org.opencontainers.image.title=shoal" \
  --config.label "org.opencontainers.image.version=$tag"
"$UMOCI" gc --layout "$layout"

# The layout's own files, sorted, with fixed owners and times.
(cd "$layout" && find . -exec touch -h -d "@$EPOCH" {} + \
  && tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$EPOCH" \
    -cf "$work/image.tar" oci-layout index.json blobs)
cp "$work/image.tar" "$out"
