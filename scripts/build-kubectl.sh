#!/usr/bin/env bash
# build-kubectl.sh: build kubectl for hookkeeper's end-to-end tests (the hook-owner grants a denial prints are kubectl
# commands, run as printed), and print the binary's path. Built as build-control-plane.sh builds kube-apiserver:
# k8s.io/kubernetes cannot be `go install`ed (its go.mod points each staging module at ./staging/...), so a
# throw-away helper module replaces every staging module with its published v0.Y.Z release and builds cmd/kubectl.
# Cached in ~/.cache/hookkeeper-e2e/kubectl-<version>/kubectl; a cached binary that reports its version returns at once.
#
# Usage: KUBECTL="$(scripts/build-kubectl.sh)"      Environment: HOOKKEEPER_K8S_VERSION (default v1.36.5),
# HOOKKEEPER_E2E_CACHE (default ~/.cache/hookkeeper-e2e), HOOKKEEPER_BUILD_JOBS (go build -p, default 2).
set -euo pipefail
exec 3>&1 1>&2

log() { printf '[build-kubectl] %s\n' "$*" >&2; }
die() { printf '[build-kubectl] ERROR: %s\n' "$*" >&2; exit 1; }

K8S_VERSION="${HOOKKEEPER_K8S_VERSION:-v1.36.5}"
[[ "$K8S_VERSION" =~ ^v1\.([0-9]+)\.([0-9]+)$ ]] || die "K8S version '$K8S_VERSION' is not a release tag like v1.36.5"
K8S_MINOR="${BASH_REMATCH[1]}"
STAGING_VERSION="v0.${K8S_MINOR}.${BASH_REMATCH[2]}"

CACHE_ROOT="${HOOKKEEPER_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hookkeeper-e2e}"
mkdir -p "$CACHE_ROOT"
CACHE_ROOT="$(cd "$CACHE_ROOT" && pwd -P)"
DIR="$CACHE_ROOT/kubectl-${K8S_VERSION}"

# The output captured, then grepped: piped into grep -q under pipefail, kubectl dies of SIGPIPE whenever grep exits
# before its last line (1 run in 9 here), and the check fails.
ok() {
  [[ -x "$1/kubectl" ]] || return 1
  local out
  out="$("$1/kubectl" version --client 2>/dev/null)" || return 1
  grep -qx "Client Version: ${K8S_VERSION}" <<<"$out"
}
if ok "$DIR"; then
  log "cached: $DIR/kubectl"
  printf '%s\n' "$DIR/kubectl" >&3
  exit 0
fi

command -v go >/dev/null || die "'go' not found in PATH (a Go toolchain is needed for the first build)"
export GOTOOLCHAIN=local GOFLAGS=-modcacherw CGO_ENABLED=0 GO111MODULE=on GOWORK=off
log "building kubectl ${K8S_VERSION} with $(go version)"
START=$SECONDS
WORK="$(mktemp -d "${TMPDIR:-/tmp}/hookkeeper-kubectl.XXXXXX")"
OUT="$(mktemp -d "$CACHE_ROOT/.build-kubectl-${K8S_VERSION}.XXXXXX")"
trap 'rm -rf "$WORK" "$OUT"' EXIT
chmod 755 "$OUT"

KK_GOMOD="$(go list -m -f '{{.GoMod}}' "k8s.io/kubernetes@${K8S_VERSION}")" || die "cannot resolve k8s.io/kubernetes@${K8S_VERSION}"
cd "$WORK"
go mod init example.invalid/kubectl-build
mapfile -t STAGING < <(sed -n \
  's#^[[:space:]]*\(replace[[:space:]]\{1,\}\)\{0,1\}\(k8s\.io/[A-Za-z0-9._-]\{1,\}\)[[:space:]]\{1,\}=>[[:space:]]\{1,\}\./staging/.*#\2#p' \
  "$KK_GOMOD")
(( ${#STAGING[@]} > 0 )) || die "found no './staging/...' replace lines in $KK_GOMOD"
REPLACES=()
for m in "${STAGING[@]}"; do REPLACES+=("-replace=${m}=${m}@${STAGING_VERSION}"); done
go mod edit "${REPLACES[@]}"
KK_GODEBUG="$(sed -n 's/^godebug[[:space:]]\{1,\}default=\(go[0-9.]*\).*/\1/p' "$KK_GOMOD" | head -n 1)"
if [[ -n "$KK_GODEBUG" ]]; then go mod edit "-godebug=default=${KK_GODEBUG}"; fi
go get "k8s.io/kubernetes/cmd/kubectl@${K8S_VERSION}"

V=k8s.io/client-go/pkg/version
C=k8s.io/component-base/version
LDFLAGS="-s -w"
for p in "$V" "$C"; do
  LDFLAGS+=" -X $p.gitVersion=${K8S_VERSION} -X $p.gitMajor=1 -X $p.gitMinor=${K8S_MINOR} -X $p.gitTreeState=clean"
done
go build -p "${HOOKKEEPER_BUILD_JOBS:-2}" -mod=mod -trimpath -ldflags "$LDFLAGS" -o "$OUT/kubectl" \
  k8s.io/kubernetes/cmd/kubectl
ok "$OUT" || die "the built kubectl does not report Client Version: ${K8S_VERSION}"
rm -rf "$DIR"
mv "$OUT" "$DIR"
log "built in $((SECONDS - START))s: $DIR/kubectl"
printf '%s\n' "$DIR/kubectl" >&3
