#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A throw-away fake-gcs-server (v1.56.1, built by scripts/setup.sh into tools/bin) on
# loopback: the Google Cloud Storage server of the tests.
#
#   scripts/gcs.sh start DIR    a fresh server whose pid, log and (filesystem backend) data
#                               live in DIR (a server left there by a crashed run is killed
#                               and DIR wiped first); creates the test bucket; prints
#                               `export LANCE_GCS_...` lines for the tests
#   scripts/gcs.sh stop DIR     stops the server and removes DIR
#   scripts/gcs.sh env DIR      prints the `export ...` lines of the server in DIR again
#
# Plain HTTP on 127.0.0.1:GCS_PORT (default 4443; a busy port is an error, never a skip),
# `-public-host 127.0.0.1:PORT` and `-external-url http://127.0.0.1:PORT` (the host the
# JSON API's upload and media links name). GCS_BACKEND: memory (default) or filesystem
# (objects under DIR/data). GCS_BUCKET: the test bucket (default lance-test).
# fake-gcs-server checks no credentials at all: the tests put a token-checking proxy in
# front of it (tests/gcs/token_proxy.h).
set -euo pipefail

cmd=${1:?usage: gcs.sh start|stop|env DIR}
D=$(realpath -m "${2:?usage: gcs.sh start|stop|env DIR}")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${FAKE_GCS_SERVER:-$ROOT/tools/bin/fake-gcs-server}
PORT=${GCS_PORT:-4443}
BACKEND=${GCS_BACKEND:-memory}
BUCKET=${GCS_BUCKET:-lance-test}
URL=http://127.0.0.1:$PORT

log() { echo "[gcs] $*" >&2; }
fail() {
  log "$*"
  tail -n 20 "$D/fake-gcs.log" >&2 2>/dev/null || true
  exit 1
}

print_env() {
  cat <<ENV
export LANCE_GCS_ENDPOINT=$URL
export LANCE_GCS_BUCKET=$BUCKET
export LANCE_GCS_DIR=$D
ENV
}

# Stops the server whose pid file is in DIR (SIGTERM, then SIGKILL after 5 s), only if
# that pid still runs fake-gcs-server.
stop_server() {
  local f="$D/fake-gcs.pid" p
  [ -f "$f" ] || return 0
  p=$(cat "$f")
  if kill -0 "$p" 2>/dev/null && grep -q fake-gcs-server "/proc/$p/cmdline" 2>/dev/null; then
    kill "$p" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$p" 2>/dev/null || true
  fi
  rm -f "$f"
}

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

start() {
  [ -x "$BIN" ] || fail "$BIN is missing: run scripts/setup.sh"
  command -v curl >/dev/null || fail "curl is missing: run scripts/setup.sh"
  if [ -d "$D" ]; then
    log "removing a server left by an earlier run in $D"
    stop_server
    rm -rf "$D"
  fi
  port_busy "$PORT" && fail "port $PORT is in use (another fake-gcs-server? set GCS_PORT)"
  mkdir -p "$D"
  local backend=(-backend memory)
  case "$BACKEND" in
    memory) ;;
    filesystem) backend=(-backend filesystem -filesystem-root "$D/data") ;;
    *) fail "GCS_BACKEND must be memory or filesystem, not '$BACKEND'" ;;
  esac
  # setsid: the server does not share the caller's process group (a Ctrl-C of the test
  # run reaches it through stop, on the EXIT trap, not half-way through a request).
  setsid "$BIN" -scheme http -host 127.0.0.1 -port "$PORT" -public-host "127.0.0.1:$PORT" \
    -external-url "$URL" "${backend[@]}" -log-level warn >"$D/fake-gcs.log" 2>&1 </dev/null &
  echo $! >"$D/fake-gcs.pid"
  local ok=""
  for _ in $(seq 1 150); do
    curl -sf -o /dev/null "$URL/_internal/healthcheck" && { ok=1; break; }
    kill -0 "$(cat "$D/fake-gcs.pid")" 2>/dev/null || fail "fake-gcs-server exited at start"
    sleep 0.1
  done
  [ -n "$ok" ] || fail "fake-gcs-server is not answering on $URL"
  local code
  code=$(curl -s -o "$D/mkbucket.out" -w '%{http_code}' -X POST -H "Content-Type: application/json" \
    --data "{\"name\":\"$BUCKET\"}" "$URL/storage/v1/b")
  [ "$code" = 200 ] || fail "creating bucket $BUCKET: HTTP $code $(cat "$D/mkbucket.out")"
  log "up on $URL (dir $D, backend $BACKEND, bucket $BUCKET)"
  print_env >"$D/env"
  cat "$D/env"
}

case "$cmd" in
  start) start ;;
  stop)
    stop_server
    rm -rf "$D"
    ;;
  env)
    # As printed at start (its port and bucket), else from this environment.
    if [ -f "$D/env" ]; then cat "$D/env"; else print_env; fi
    ;;
  *) fail "unknown command '$cmd' (start|stop|env)" ;;
esac
