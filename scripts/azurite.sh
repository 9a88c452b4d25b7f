#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A throw-away Azurite (the Azure Storage emulator, npm azurite 3.37.0 from
# tools/azurite, installed by scripts/setup.sh) on loopback: the real Azure Blob Storage
# server of the tests. Blob service only.
#
#   scripts/azurite.sh start DIR   fresh instance with its files in DIR (an instance left
#                                  there by a crashed run is killed and wiped first);
#                                  creates the test container; prints `export ...` lines
#   scripts/azurite.sh stop DIR    stops it and removes DIR
#   scripts/azurite.sh env DIR     prints the `export ...` lines again
#
# Port: AZURITE_PORT (default 10000); a busy port is an error. Data: in DIR/data, or in
# memory with AZURITE_IN_MEMORY=1. With AZURITE_OAUTH=1 it serves HTTPS (a self-signed
# certificate for 127.0.0.1 made in DIR) and accepts OAuth bearer tokens (--oauth basic:
# issuer, audience and lifetime are checked, the signature is not), as Get User
# Delegation Key needs; its variables are then LANCE_AZURE_OAUTH_ENDPOINT and
# LANCE_AZURE_OAUTH_CA (the certificate). The account is Azurite's well-known devstoreaccount1
# (its published key). Every request's API version is accepted (--skipApiVersionCheck);
# Shared Key and SAS signatures, SAS start/expiry and permissions are checked for real.
# Azurite's access log goes to DIR/azurite.log (it holds SAS query strings: DIR is never
# scanned for secrets, like the RGW's directory).
set -euo pipefail

SERVICE=azurite
# shellcheck source=scripts/lib/service.sh
source "$(dirname "$0")/lib/service.sh"
service_init "$@"
SERVICE_LOGS=azurite.log
PORT=${AZURITE_PORT:-10000}
ACCOUNT=devstoreaccount1
# Azurite's published development key (not a secret: it is in Microsoft's docs).
KEY='Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=='
CONTAINER=${AZURE_CONTAINER:-lance-test}
API_VERSION=2021-08-06
BIN=$ROOT/tools/azurite/node_modules/.bin/azurite-blob
SCHEME=http
CURL_TLS=()

print_env() {
  local port=$PORT
  [ -f "$D/port" ] && port=$(cat "$D/port")
  if [ -f "$D/cert.pem" ]; then
    cat <<ENV
export LANCE_AZURE_OAUTH_ENDPOINT=https://127.0.0.1:$port/$ACCOUNT
export LANCE_AZURE_OAUTH_CA=$D/cert.pem
ENV
    return
  fi
  cat <<ENV
export LANCE_AZURE_ENDPOINT=http://127.0.0.1:$port/$ACCOUNT
export LANCE_AZURE_ACCOUNT=$ACCOUNT
export LANCE_AZURE_KEY=$KEY
export LANCE_AZURE_CONTAINER=$CONTAINER
export LANCE_AZURITE_PORT=$port
ENV
}

# The Azurite of DIR: its pid file, or any node process whose command line names DIR
# (a wiped pid file).
stop_server() {
  term_pid_file "$D/pid" azurite
  term_matching "azurite-blob .*--location $D/data( |$)"
  stop_killed
}

# A Shared Key signed request (curl + openssl): METHOD PATH QUERY ("k=v" lines sorted,
# for the canonicalized resource) URL-QUERY. Prints the HTTP status.
signed_request() {
  local method=$1 path=$2 canon_query=$3 query=$4
  local date sts sig
  date=$(LC_ALL=C TZ=GMT date '+%a, %d %b %Y %H:%M:%S GMT')
  # Verb, then 11 standard headers (all empty), then the x-ms- headers and the resource.
  sts="$method"$'\n\n\n\n\n\n\n\n\n\n\n\n'"x-ms-date:$date"$'\n'"x-ms-version:$API_VERSION"$'\n'"/$ACCOUNT/$ACCOUNT$path"
  [ -n "$canon_query" ] && sts+=$'\n'"$canon_query"
  sig=$(printf '%s' "$sts" | openssl dgst -sha256 -mac HMAC \
    -macopt "hexkey:$(printf '%s' "$KEY" | base64 -d | od -An -vtx1 | tr -d ' \n')" -binary | base64 -w0)
  curl -s -o "$D/request.out" -w '%{http_code}' -X "$method" -H "x-ms-date: $date" \
    -H "x-ms-version: $API_VERSION" -H "Content-Length: 0" \
    -H "Authorization: SharedKey $ACCOUNT:$sig" "${CURL_TLS[@]}" \
    "$SCHEME://127.0.0.1:$PORT/$ACCOUNT$path${query:+?$query}"
}

# Up: still running (else a failure) and answering.
azurite_up() {
  kill -0 "$(cat "$D/pid")" 2>/dev/null || fail "Azurite exited at start"
  curl -s -o /dev/null "${CURL_TLS[@]}" "$SCHEME://127.0.0.1:$PORT/"
}

start() {
  require_commands node curl openssl
  [ -x "$BIN" ] || fail "$BIN is missing: run scripts/setup.sh"
  wipe_stale "an instance" stop_server
  require_free_port "$PORT" "another Azurite? set AZURITE_PORT"
  mkdir -p "$D/data"
  echo "$PORT" >"$D/port"
  local args=(--blobHost 127.0.0.1 --blobPort "$PORT" --skipApiVersionCheck --disableTelemetry)
  # In memory: no --location (Azurite refuses both); its command line then names DIR
  # through the debug-log-free --location-less form, so stop_server goes by the pid file.
  if [ "${AZURITE_IN_MEMORY:-0}" = 1 ]; then
    args+=(--inMemoryPersistence)
  else
    args+=(--location "$D/data")
  fi
  if [ "${AZURITE_OAUTH:-0}" = 1 ]; then
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=127.0.0.1" \
      -addext "subjectAltName=IP:127.0.0.1" -keyout "$D/key.pem" -out "$D/cert.pem" \
      >/dev/null 2>&1 || fail "openssl could not make the test certificate"
    args+=(--cert "$D/cert.pem" --key "$D/key.pem" --oauth basic)
    SCHEME=https
    CURL_TLS=(--cacert "$D/cert.pem")
  fi
  # setsid: its own process group, so a test run's Ctrl-C reaches it only through stop.
  setsid "$BIN" "${args[@]}" >"$D/azurite.log" 2>&1 </dev/null &
  echo $! >"$D/pid"
  wait_for 200 0.1 azurite_up || { stop_server; fail "Azurite is not answering on 127.0.0.1:$PORT"; }
  local code
  code=$(signed_request PUT "/$CONTAINER" "restype:container" "restype=container")
  [ "$code" = 201 ] || { stop_server; fail "creating container $CONTAINER: HTTP $code $(cat "$D/request.out")"; }
  log "up on $SCHEME://127.0.0.1:$PORT/$ACCOUNT (dir $D, container $CONTAINER)"
  print_env
}

service_main stop_server print_env
