#!/usr/bin/env bash
# build-control-plane.sh: build a real kube-apiserver and etcd for hookkeeper's
# end-to-end tests, and print the directory that holds them.
#
# Why this exists: the e2e suite needs a genuine apiserver (admission chain,
# RBAC, CRDs), but there is no Docker or envtest download here, Debian ships no
# kube-apiserver, and the project commits no Kubernetes source. So both
# binaries are compiled from their published Go modules (via the Go module
# proxy, with the machine's own Go toolchain) in throw-away helper modules
# outside the repo, and cached by version. The technique: k8s.io/kubernetes
# cannot be built as a dependency as it is (its go.mod points each k8s.io
# staging module at ./staging/...), so the kube-apiserver helper module replaces
# every staging module with its published v0.Y.Z release and keeps upstream's
# GODEBUG default; etcd gets a helper module of its own, so that its dependency
# graph is not bent by the apiserver's. Both are checked with --version before
# the cache directory is published atomically.
#
# Usage: scripts/build-control-plane.sh        -> prints e.g. ~/.cache/hookkeeper-e2e/k8s-v1.37.2-etcd-v3.7.0
#
# Stdout carries ONLY the absolute bin directory (one line); progress goes to
# stderr. A cached build that answers --version returns at once (no Go needed).
#
# Environment:
#   HOOKKEEPER_K8S_VERSION   k8s.io/kubernetes tag to build (default below)
#   HOOKKEEPER_ETCD_VERSION  etcd tag; default: the go.etcd.io/etcd/server/v3
#                            version that k/k's go.mod requires
#   HOOKKEEPER_E2E_CACHE     cache root (default ${XDG_CACHE_HOME:-~/.cache}/hookkeeper-e2e)
#   HOOKKEEPER_BUILD_JOBS    go build -p (default 2; each compile/link needs 1-2 GB RAM)
set -euo pipefail
set -o errtrace

# Pinned pair. ETCD_VERSION_PINNED must equal what k/k's go.mod requires; a cold
# build checks that, so a K8S bump without an etcd bump fails loudly.
readonly K8S_VERSION_PINNED=v1.37.2
readonly ETCD_VERSION_PINNED=v3.7.0

# Keep stdout for the final answer only: everything else goes to stderr.
exec 3>&1 1>&2

log() { printf '[build-control-plane] %s\n' "$*" >&2; }
die() { printf '[build-control-plane] ERROR: %s\n' "$*" >&2; exit 1; }
trap 'rc=$?; log "FAILED (exit $rc) at line $LINENO: $BASH_COMMAND"' ERR

K8S_VERSION="${HOOKKEEPER_K8S_VERSION:-$K8S_VERSION_PINNED}"
[[ "$K8S_VERSION" =~ ^v1\.([0-9]+)\.([0-9]+)$ ]] ||
  die "K8S version '$K8S_VERSION' is not an exact release tag like v1.36.5"
K8S_MINOR="${BASH_REMATCH[1]}"
STAGING_VERSION="v0.${K8S_MINOR}.${BASH_REMATCH[2]}"   # k/k v1.Y.Z <-> staging v0.Y.Z
(( K8S_MINOR >= 33 )) || die "K8S version $K8S_VERSION is older than v1.33"

# etcd: an explicit override wins; the pinned K8S version uses the pinned etcd;
# any other K8S version takes etcd from its go.mod (needs Go and the proxy).
if [[ -n "${HOOKKEEPER_ETCD_VERSION:-}" ]]; then
  ETCD_VERSION="$HOOKKEEPER_ETCD_VERSION"; ETCD_SOURCE=override
elif [[ "$K8S_VERSION" == "$K8S_VERSION_PINNED" ]]; then
  ETCD_VERSION="$ETCD_VERSION_PINNED"; ETCD_SOURCE=pinned
else
  ETCD_VERSION=""; ETCD_SOURCE=derived
fi

# Go settings (exported so every go invocation sees them).
export GOTOOLCHAIN=local        # never download another toolchain
export GOFLAGS=-modcacherw      # keep the module cache deletable
export CGO_ENABLED=0            # static, as upstream builds kube-apiserver
export GO111MODULE=on GOWORK=off
BUILD_JOBS="${HOOKKEEPER_BUILD_JOBS:-2}"

# k/k's go.mod from the module cache (fetched through the proxy if needed).
kk_gomod() {
  local f
  f="$(go list -m -f '{{.GoMod}}' "k8s.io/kubernetes@${K8S_VERSION}")" ||
    die "cannot resolve k8s.io/kubernetes@${K8S_VERSION} (check 'go env GOPROXY GOSUMDB')"
  [[ -s "$f" ]] || die "go.mod of k8s.io/kubernetes@${K8S_VERSION} not found at '$f'"
  printf '%s\n' "$f"
}

# The go.etcd.io/etcd/server/v3 version in the require block (not a replace line).
etcd_version_from() {
  sed -n 's#^[[:space:]]*\(require[[:space:]]\{1,\}\)\{0,1\}go\.etcd\.io/etcd/server/v3[[:space:]]\{1,\}\(v[^[:space:]]*\).*#\2#p' "$1" |
    head -n 1
}

if [[ "$ETCD_SOURCE" == derived ]]; then
  command -v go >/dev/null || die "'go' not found in PATH"
  KK_GOMOD="$(kk_gomod)"
  ETCD_VERSION="$(etcd_version_from "$KK_GOMOD")"
  [[ -n "$ETCD_VERSION" ]] || die "no go.etcd.io/etcd/server/v3 require line in $KK_GOMOD"
fi
[[ "$ETCD_VERSION" =~ ^v3\.[0-9]+\.[0-9]+$ ]] || die "etcd version '$ETCD_VERSION' is not a tag like v3.6.8"

CACHE_ROOT="${HOOKKEEPER_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hookkeeper-e2e}"
mkdir -p "$CACHE_ROOT"
CACHE_ROOT="$(cd "$CACHE_ROOT" && pwd -P)"
BIN_DIR="$CACHE_ROOT/k8s-${K8S_VERSION}-etcd-${ETCD_VERSION}"

# True if $1 holds both binaries and they report the expected versions.
bins_ok() {
  local dir=$1 out
  [[ -x "$dir/kube-apiserver" && -x "$dir/etcd" ]] || return 1
  out="$("$dir/kube-apiserver" --version 2>&1)" || return 1
  [[ "$out" == "Kubernetes ${K8S_VERSION}" ]] || return 1
  out="$("$dir/etcd" --version 2>&1)" || return 1
  grep -q "^etcd Version: ${ETCD_VERSION#v}\$" <<<"$out" || return 1
}

if bins_ok "$BIN_DIR"; then
  log "cached: $BIN_DIR"
  printf '%s\n' "$BIN_DIR" >&3
  exit 0
fi

# ---------------------------------------------------------------- cold build
command -v go >/dev/null || die "'go' not found in PATH (a Go toolchain is needed for the first build)"
log "building kube-apiserver ${K8S_VERSION} and etcd ${ETCD_VERSION} with $(go version)"
log "GOPROXY=$(go env GOPROXY) GOSUMDB=$(go env GOSUMDB) GOMODCACHE=$(go env GOMODCACHE)"
log "the first build takes ~11 minutes on 2 cores (plus downloads)"
START=$SECONDS

WORK="$(mktemp -d "${TMPDIR:-/tmp}/hookkeeper-control-plane.XXXXXX")"  # helper modules
OUT="$(mktemp -d "$CACHE_ROOT/.build-k8s-${K8S_VERSION}-etcd-${ETCD_VERSION}.XXXXXX")"  # renamed when done
cleanup() { rm -rf "$WORK" "$OUT"; }
trap cleanup EXIT
chmod 755 "$OUT"   # mktemp makes it 0700
trap 'exit 130' INT
trap 'exit 143' TERM

KK_GOMOD="${KK_GOMOD:-$(kk_gomod)}"
KK_ETCD="$(etcd_version_from "$KK_GOMOD")"
[[ -n "$KK_ETCD" ]] || die "no go.etcd.io/etcd/server/v3 require line in $KK_GOMOD"
if [[ "$KK_ETCD" != "$ETCD_VERSION" ]]; then
  [[ "$ETCD_SOURCE" == override ]] ||
    die "k8s ${K8S_VERSION} requires etcd ${KK_ETCD} but ETCD_VERSION_PINNED is ${ETCD_VERSION}; update the pin"
  log "WARNING: HOOKKEEPER_ETCD_VERSION=${ETCD_VERSION} differs from k/k's ${KK_ETCD}"
fi

# --- kube-apiserver: helper module replacing every staging module with v0.Y.Z
log "[1/4] kube-apiserver helper module (staging modules -> ${STAGING_VERSION})"
mkdir "$WORK/kube-apiserver"
cd "$WORK/kube-apiserver"
go mod init example.invalid/kube-apiserver-build

# Lines like "k8s.io/api => ./staging/src/k8s.io/api" (block or single-line form).
mapfile -t STAGING < <(sed -n \
  's#^[[:space:]]*\(replace[[:space:]]\{1,\}\)\{0,1\}\(k8s\.io/[A-Za-z0-9._-]\{1,\}\)[[:space:]]\{1,\}=>[[:space:]]\{1,\}\./staging/.*#\2#p' \
  "$KK_GOMOD")
(( ${#STAGING[@]} > 0 )) || die "found no './staging/...' replace lines in $KK_GOMOD; the layout changed?"
log "  ${#STAGING[@]} staging modules: ${STAGING[*]}"
REPLACES=()
for m in "${STAGING[@]}"; do REPLACES+=("-replace=${m}=${m}@${STAGING_VERSION}"); done
go mod edit "${REPLACES[@]}"

# Keep upstream's GODEBUG defaults (k/k declares e.g. "godebug default=go1.25").
KK_GODEBUG="$(sed -n 's/^godebug[[:space:]]\{1,\}default=\(go[0-9.]*\).*/\1/p' "$KK_GOMOD" | head -n 1)"
if [[ -n "$KK_GODEBUG" ]]; then go mod edit "-godebug=default=${KK_GODEBUG}"; fi

go get "k8s.io/kubernetes/cmd/kube-apiserver@${K8S_VERSION}"

log "[2/4] compiling kube-apiserver (the long part)"
BUILD_DATE="$(go list -m -f '{{if .Time}}{{.Time.UTC.Format "2006-01-02T15:04:05Z"}}{{end}}' \
  "k8s.io/kubernetes@${K8S_VERSION}")"
V=k8s.io/component-base/version
VERSION_LDFLAGS="-X $V.gitVersion=${K8S_VERSION} -X $V.gitMajor=1 -X $V.gitMinor=${K8S_MINOR}"
VERSION_LDFLAGS+=" -X $V.gitTreeState=clean -X $V.buildDate=${BUILD_DATE:-1970-01-01T00:00:00Z}"
T=$SECONDS
go build -p "$BUILD_JOBS" -mod=mod -trimpath -tags=selinux,notest \
  -ldflags "-s -w ${VERSION_LDFLAGS}" \
  -o "$OUT/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver
log "  kube-apiserver compiled in $((SECONDS - T))s"

# --- etcd: separate helper module so it keeps its own dependency graph
log "[3/4] etcd ${ETCD_VERSION} helper module and compile"
mkdir "$WORK/etcd"
cd "$WORK/etcd"
go mod init example.invalid/etcd-build
cat >main.go <<'EOF'
// Same as upstream's server/main.go.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
EOF
go get "go.etcd.io/etcd/server/v3@${ETCD_VERSION}"
go mod tidy
T=$SECONDS
go build -p "$BUILD_JOBS" -trimpath -ldflags "-s -w" -o "$OUT/etcd" .
log "  etcd compiled in $((SECONDS - T))s"

# --- smoke check, then publish atomically
log "[4/4] smoke check"
"$OUT/kube-apiserver" --version >&2
"$OUT/etcd" --version >&2
bins_ok "$OUT" || die "built binaries do not report kube-apiserver ${K8S_VERSION} / etcd ${ETCD_VERSION}"

rm -rf "$BIN_DIR"
if ! mv -T "$OUT" "$BIN_DIR"; then
  bins_ok "$BIN_DIR" || die "could not move the build into $BIN_DIR"
  log "another build finished first; using it"
fi
log "done in $((SECONDS - START))s: $BIN_DIR"
printf '%s\n' "$BIN_DIR" >&3
