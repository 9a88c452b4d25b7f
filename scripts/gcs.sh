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

SERVICE=gcs
# shellcheck source=scripts/lib/service.sh
source "$(dirname "$0")/lib/service.sh"
service_init "$@"
SERVICE_LOGS=fake-gcs.log
SERVICE_TAIL=20
BIN=${FAKE_GCS_SERVER:-$ROOT/tools/bin/fake-gcs-server}
PORT=${GCS_PORT:-4443}
BACKEND=${GCS_BACKEND:-memory}
BUCKET=${GCS_BUCKET:-lance-test}
URL=http://127.0.0.1:$PORT

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
  term_pid_file "$D/fake-gcs.pid" fake-gcs-server
  stop_killed
  rm -f "$D/fake-gcs.pid"
}

# Up: answering its health check, or a failure once it has exited.
gcs_up() {
  curl -sf -o /dev/null "$URL/_internal/healthcheck" && return 0
  kill -0 "$(cat "$D/fake-gcs.pid")" 2>/dev/null || fail "fake-gcs-server exited at start"
  return 1
}

# As printed at start (its port and bucket), else from this environment.
saved_env() {
  if [ -f "$D/env" ]; then cat "$D/env"; else print_env; fi
}

start() {
  [ -x "$BIN" ] || fail "$BIN is missing: run scripts/setup.sh"
  require_commands curl
  wipe_stale "a server" stop_server
  require_free_port "$PORT" "another fake-gcs-server? set GCS_PORT"
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
  wait_for 150 0.1 gcs_up || fail "fake-gcs-server is not answering on $URL"
  local code
  code=$(curl -s -o "$D/mkbucket.out" -w '%{http_code}' -X POST -H "Content-Type: application/json" \
    --data "{\"name\":\"$BUCKET\"}" "$URL/storage/v1/b")
  [ "$code" = 200 ] || fail "creating bucket $BUCKET: HTTP $code $(cat "$D/mkbucket.out")"
  log "up on $URL (dir $D, backend $BACKEND, bucket $BUCKET)"
  print_env >"$D/env"
  cat "$D/env"
}

service_main stop_server saved_env
