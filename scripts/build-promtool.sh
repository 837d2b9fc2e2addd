#!/usr/bin/env bash
# build-promtool.sh: build promtool (Prometheus's rule checker and rule unit-test runner) for the tests of the shipped
# alerts and dashboard (test/deploy/monitoring.test.ts), and print the binary's path. Built from its Go module like
# helm and kustomize in .ci/run: Prometheus publishes its v3 releases as Go module versions v0.3XX.Y (v3.16.0 is
# v0.316.0) and its go.mod has no replace directives, so `go install` works. The version string is set as upstream's
# Makefile sets it. Cached in ~/.cache/hookkeeper-e2e/promtool-<version>/promtool; a cached binary that reports its
# version returns at once (no Go needed).
#
# Usage: PROMTOOL="$(scripts/build-promtool.sh)"      Environment: HOOKKEEPER_PROMTOOL_VERSION (a module version,
# default below), HOOKKEEPER_E2E_CACHE (default ~/.cache/hookkeeper-e2e).
set -euo pipefail
exec 3>&1 1>&2

log() { printf '[build-promtool] %s\n' "$*" >&2; }
die() { printf '[build-promtool] ERROR: %s\n' "$*" >&2; exit 1; }

# The newest release the Go module proxy served when this was written (`go list -m -versions
# github.com/prometheus/prometheus`).
MODULE_VERSION="${HOOKKEEPER_PROMTOOL_VERSION:-v0.316.0}"
[[ "$MODULE_VERSION" =~ ^v0\.([0-9])([0-9]{2})\.([0-9]+)$ ]] ||
  die "'$MODULE_VERSION' is not a Prometheus module release like v0.316.0"
RELEASE="${BASH_REMATCH[1]}.$((10#${BASH_REMATCH[2]})).${BASH_REMATCH[3]}"   # v0.316.0 <-> 3.16.0

CACHE_ROOT="${HOOKKEEPER_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hookkeeper-e2e}"
mkdir -p "$CACHE_ROOT"
CACHE_ROOT="$(cd "$CACHE_ROOT" && pwd -P)"
DIR="$CACHE_ROOT/promtool-v${RELEASE}"

# Captured, then matched (see build-kubectl.sh on grep -q under pipefail).
ok() {
  [[ -x "$1/promtool" ]] || return 1
  local out
  out="$("$1/promtool" --version 2>&1)" || return 1
  [[ "$out" == "promtool, version ${RELEASE} "* ]]
}
if ok "$DIR"; then
  log "cached: $DIR/promtool"
  printf '%s\n' "$DIR/promtool" >&3
  exit 0
fi

command -v go >/dev/null || die "'go' not found in PATH (a Go toolchain is needed for the first build)"
export GOTOOLCHAIN=local GOFLAGS=-modcacherw CGO_ENABLED=0 GO111MODULE=on GOWORK=off
log "building promtool ${RELEASE} (github.com/prometheus/prometheus@${MODULE_VERSION}) with $(go version)"
START=$SECONDS
OUT="$(mktemp -d "$CACHE_ROOT/.build-promtool-${RELEASE}.XXXXXX")"
trap 'rm -rf "$OUT"' EXIT
chmod 755 "$OUT"

# remove_all_sd: Prometheus's build tag that leaves out every service-discovery plugin (the cloud SDKs, most of the
# build); checking and unit-testing rules needs none.
V=github.com/prometheus/common/version
GOBIN="$OUT" go install -p "${HOOKKEEPER_BUILD_JOBS:-2}" -trimpath -tags remove_all_sd \
  -ldflags "-s -w -X $V.Version=${RELEASE} -X $V.Branch=HEAD -X $V.Revision=v${RELEASE}" \
  "github.com/prometheus/prometheus/cmd/promtool@${MODULE_VERSION}"
ok "$OUT" || die "the built promtool does not report version ${RELEASE}"
rm -rf "$DIR"
mv "$OUT" "$DIR"
trap - EXIT
log "built in $((SECONDS - START))s: $DIR/promtool"
printf '%s\n' "$DIR/promtool" >&3
