#!/usr/bin/env bash
# smoke-control-plane.sh: prove that the etcd and kube-apiserver built by
# scripts/build-control-plane.sh really run here: start etcd and kube-apiserver
# on free loopback ports with throw-away certs and a static token file, wait for
# /readyz, ask the apiserver who we are, then stop both. Handy for debugging the
# e2e harness or CI without any TypeScript in the way.
#
# Usage: scripts/smoke-control-plane.sh BIN_DIR
#        scripts/smoke-control-plane.sh "$(scripts/build-control-plane.sh)"
# Needs: openssl, curl, and node or python3 (to pick free ports).
# HOOKKEEPER_SMOKE_KEEP=1 keeps the temp dir (certs, logs) for inspection.
# All output goes to stderr; exit status 0 means the apiserver became ready.
set -euo pipefail

log() { printf '[smoke-control-plane] %s\n' "$*" >&2; }
die() { printf '[smoke-control-plane] ERROR: %s\n' "$*" >&2; exit 1; }

[[ $# -eq 1 ]] || die "usage: $0 BIN_DIR"
BIN_DIR="$(cd "$1" && pwd -P)" || die "no such directory: $1"
ETCD="$BIN_DIR/etcd"
APISERVER="$BIN_DIR/kube-apiserver"
[[ -x "$ETCD" && -x "$APISERVER" ]] || die "$BIN_DIR must contain executable etcd and kube-apiserver"
for tool in openssl curl; do command -v "$tool" >/dev/null || die "'$tool' not found"; done

D="$(mktemp -d "${TMPDIR:-/tmp}/hookkeeper-smoke.XXXXXX")"
ETCD_PID="" APISERVER_PID="" OK=0

# Stop only the processes this script started: apiserver first, then etcd.
stop() {
  local pid
  for pid in "$APISERVER_PID" "$ETCD_PID"; do
    [[ -n "$pid" ]] || continue
    kill -TERM "$pid" 2>/dev/null || continue
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  APISERVER_PID="" ETCD_PID=""
}
cleanup() {
  stop
  if [[ $OK != 1 ]]; then
    for f in etcd.log apiserver.log; do
      [[ -s "$D/$f" ]] && { log "---- last lines of $f"; tail -n 40 "$D/$f" >&2; }
    done
  fi
  if [[ "${HOOKKEEPER_SMOKE_KEEP:-}" == 1 ]]; then log "kept $D"; else rm -rf "$D"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# Three distinct free loopback ports (bound together, then released).
free_ports() {
  if command -v node >/dev/null; then
    node -e '
      const net = require("net"); const ss = [];
      let left = 3;
      for (let i = 0; i < 3; i++) {
        const s = net.createServer(); ss.push(s);
        s.listen(0, "127.0.0.1", () => { if (--left === 0) {
          console.log(ss.map((x) => x.address().port).join(" ")); ss.forEach((x) => x.close()); } });
      }'
  elif command -v python3 >/dev/null; then
    python3 -c '
import socket
ss = [socket.socket() for _ in range(3)]
for s in ss: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))
for s in ss: s.close()'
  else
    die "need node or python3 to pick free ports"
  fi
}
read -r EP PP AP < <(free_ports)
[[ -n "${AP:-}" ]] || die "could not pick free ports"
log "bin dir: $BIN_DIR"
log "temp dir: $D; ports: etcd client $EP, etcd peer $PP, apiserver $AP"

# ---------------------------------------------------------------- certs, tokens
log "generating CA, apiserver serving cert, service-account key, tokens.csv"
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=hookkeeper-smoke-ca" \
  -keyout "$D/ca.key" -out "$D/ca.crt" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" \
  -keyout "$D/apiserver.key" -out "$D/apiserver.csr" 2>/dev/null
cat >"$D/leaf.ext" <<'EOF'
subjectAltName=IP:127.0.0.1,DNS:localhost
extendedKeyUsage=serverAuth
keyUsage=critical,digitalSignature,keyEncipherment
basicConstraints=critical,CA:FALSE
EOF
openssl x509 -req -in "$D/apiserver.csr" -CA "$D/ca.crt" -CAkey "$D/ca.key" -CAcreateserial \
  -days 1 -extfile "$D/leaf.ext" -out "$D/apiserver.crt" 2>/dev/null
openssl genrsa -out "$D/sa.key" 2048 2>/dev/null
openssl rsa -in "$D/sa.key" -pubout -out "$D/sa.pub" 2>/dev/null
TOKEN="admin-$(openssl rand -hex 16)"
printf '%s,envtest-admin,uid-admin,"system:masters"\n' "$TOKEN" >"$D/tokens.csv"

# ---------------------------------------------------------------- etcd
ETCD_ARGS=(
  --name default --data-dir "$D/etcd" --log-level warn
  --listen-client-urls "http://127.0.0.1:$EP" --advertise-client-urls "http://127.0.0.1:$EP"
  --listen-peer-urls "http://127.0.0.1:$PP" --initial-advertise-peer-urls "http://127.0.0.1:$PP"
  --initial-cluster "default=http://127.0.0.1:$PP"
)
# Captured, then grepped: a pipe into grep -q under pipefail fails when grep exits before etcd's last line (SIGPIPE).
ETCD_HELP="$("$ETCD" --help 2>&1 || true)"
if grep -q -- '--unsafe-no-fsync' <<<"$ETCD_HELP"; then ETCD_ARGS+=(--unsafe-no-fsync); fi
log "$("$ETCD" --version | head -n 1)"
T0=$(now)
"$ETCD" "${ETCD_ARGS[@]}" >"$D/etcd.log" 2>&1 &
ETCD_PID=$!
until grep -q '"health":"true"' <<<"$(curl -fsS --max-time 2 "http://127.0.0.1:$EP/health" 2>/dev/null || true)"; do
  kill -0 "$ETCD_PID" 2>/dev/null || die "etcd exited early"
  [[ $(awk -v e="$(elapsed "$T0")" 'BEGIN { print (e > 30) }') == 1 ]] && die "etcd not healthy after 30s"
  sleep 0.2
done
log "etcd healthy after $(elapsed "$T0")s"

# ---------------------------------------------------------------- kube-apiserver
APISERVER_ARGS=(
  --etcd-servers="http://127.0.0.1:$EP"
  --bind-address=127.0.0.1 --secure-port="$AP"
  --advertise-address=127.0.0.1 --endpoint-reconciler-type=none
  --tls-cert-file="$D/apiserver.crt" --tls-private-key-file="$D/apiserver.key" --cert-dir="$D"
  --token-auth-file="$D/tokens.csv" --authorization-mode=RBAC
  --service-account-issuer=https://kubernetes.default.svc
  --service-account-key-file="$D/sa.pub" --service-account-signing-key-file="$D/sa.key"
  --service-cluster-ip-range=10.0.0.0/24 --allow-privileged=true
  --disable-admission-plugins=ServiceAccount --v=1
)
log "$("$APISERVER" --version)"
log "kube-apiserver ${APISERVER_ARGS[*]}"
T0=$(now)
"$APISERVER" "${APISERVER_ARGS[@]}" >"$D/apiserver.log" 2>&1 &
APISERVER_PID=$!

api() {  # api PATH [curl args...]: authenticated call, CA-verified TLS
  local path=$1; shift
  curl -sS --max-time 5 --cacert "$D/ca.crt" -H "Authorization: Bearer $TOKEN" \
    "$@" "https://127.0.0.1:$AP$path"
}
until [[ "$(api /readyz -o /dev/null -w '%{http_code}' 2>/dev/null)" == 200 ]]; do
  kill -0 "$APISERVER_PID" 2>/dev/null || die "kube-apiserver exited early"
  if [[ $(awk -v e="$(elapsed "$T0")" 'BEGIN { print (e > 90) }') == 1 ]]; then
    api '/readyz?verbose' >&2 || true
    die "kube-apiserver not ready after 90s"
  fi
  sleep 0.25
done
READY_AFTER="$(elapsed "$T0")"
log "kube-apiserver /readyz 200 after ${READY_AFTER}s"

# Who does the apiserver think we are? (the identity a webhook would see)
REVIEW="$(api /apis/authentication.k8s.io/v1/selfsubjectreviews -f -X POST \
  -H 'Content-Type: application/json' \
  -d '{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}')" ||
  die "SelfSubjectReview failed"
grep -q '"username": *"envtest-admin"' <<<"$REVIEW" || die "unexpected SelfSubjectReview: $REVIEW"
log "SelfSubjectReview: envtest-admin authenticated via tokens.csv"
log "/version: $(api /version -f | tr -d ' \n')"

T0=$(now)
stop
log "stopped apiserver and etcd in $(elapsed "$T0")s"
OK=1
log "OK (apiserver ready after ${READY_AFTER}s)"
