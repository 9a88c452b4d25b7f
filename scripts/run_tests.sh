#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs the tests with the environment they expect (the project's venv with real pylance, the
# node oracle, a real S3 server), starting the services first and stopping them afterwards.
#
#   scripts/run_tests.sh BUILD_DIR [ASAN_DIR]   every ctest test of BUILD_DIR, then (with
#                                               ASAN_DIR) the unit, CLI and S3 tests of the
#                                               sanitizer build, while one throw-away Ceph
#                                               RGW is up
#   scripts/run_tests.sh --asan-only ASAN_DIR   only the sanitizer unit and CLI tests (no RGW)
#
# The RGW cluster lives in BUILD_DIR/rgw (a fixed directory per checkout, so a cluster left by
# a crashed run is found, killed and wiped by the next `rgw.sh start`) and is stopped on exit,
# whatever happens. Ports: RGW_PORT (default 7480) and MON_PORT (default 6789); a busy port
# is an error, never a skip. The S3 tests read LANCE_S3_* exported here. Likewise an Azurite
# (scripts/azurite.sh, in BUILD_DIR/azurite, port AZURITE_PORT, default 10000) for the Azure
# tests (label azure), which read LANCE_AZURE_*, and a second one over HTTPS with OAuth in
# BUILD_DIR/azurite-oauth (AZURITE_OAUTH_PORT, default 10001); and fake-gcs-server
# (scripts/gcs.sh) in BUILD_DIR/gcs on GCS_PORT (default 4443) for the GCS tests (label
# gcs), which read LANCE_GCS_*.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

log() { echo "[tests] $*" >&2; }

# The ASan+UBSan pass, label asan of ASAN_DIR (make build-asan): the unit tests, the CLI
# (its parsers' unit tests; cli_test.sh and tool_args_test.sh with the sanitized lance-cpp
# and tools) and, with the RGW up (LANCE_S3_ENDPOINT set), the S3 suite (the GCS suite
# likewise with LANCE_GCS_ENDPOINT). Leaks and UB abort
# the process. Every report is written to ASAN_DIR/sanitizer-logs as well, and a report
# there fails the pass even when the test that ran the process expected it to fail.
run_asan() {
  local dir=$1 rc=0
  [ -d "$dir" ] || { log "missing sanitizer build $dir (make build-asan)"; return 1; }
  local logs=$dir/sanitizer-logs select=(-L '^asan$')
  rm -rf "$logs" && mkdir -p "$logs"
  local without=()
  if [ -z "${LANCE_S3_ENDPOINT:-}" ]; then
    without+=(s3)
    log "no RGW (LANCE_S3_ENDPOINT unset): the S3 suite is left out of the ASan pass"
  fi
  if [ -z "${LANCE_AZURE_ENDPOINT:-}" ]; then
    without+=(azure)
    log "no Azurite (LANCE_AZURE_ENDPOINT unset): the Azure suite is left out of the ASan pass"
  fi
  if [ -z "${LANCE_GCS_ENDPOINT:-}" ]; then
    without+=(gcs)
    log "no fake-gcs-server (LANCE_GCS_ENDPOINT unset): the GCS suite is left out of the ASan pass"
  fi
  # One -LE (a second would replace the first): the labels as one alternation.
  if ((${#without[@]})); then
    select+=(-LE "^($(IFS='|'; echo "${without[*]}"))\$")
  fi
  log "unit, CLI and S3 tests under AddressSanitizer + UndefinedBehaviorSanitizer ($dir)"
  (cd "$dir" && ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}:log_path=$logs/asan \
    UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}:log_path=$logs/ubsan \
    ctest "${select[@]}" --output-on-failure -j"$(nproc)") || rc=1
  if [ -n "$(ls -A "$logs")" ]; then
    log "sanitizer reports (ASAN_DIR/sanitizer-logs):"
    cat "$logs"/* >&2
    rc=1
  fi
  return "$rc"
}

# The ThreadSanitizer pass: the io, refresh, namespace and scan tests (label tsan).
run_tsan() {
  local dir=$1
  [ -d "$dir" ] || { log "missing ThreadSanitizer build $dir (make build-tsan)"; return 1; }
  log "io/refresh/namespace/scan tests under ThreadSanitizer ($dir)"
  (cd "$dir" && TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1} \
    ctest -L tsan --output-on-failure -j"$(nproc)")
}

if [ "${1:-}" = "--asan-only" ]; then
  run_asan "${2:?usage: run_tests.sh --asan-only ASAN_DIR}"
  exit
fi

BUILD_DIR=$(realpath "${1:-build}")
ASAN_DIR=${2:+$(realpath "$2")}
export LANCE_SOURCE_DIR=$ROOT
export LANCE_PYTHON=$ROOT/.venv/bin/python
export LANCE_ORACLE_DIR=$ROOT/tools/oracle
export PATH="$ROOT/.venv/bin:$PATH"
# For the secrets scan at the end (scripts/scan_secrets.sh): the ledger where the tests
# record every secret they use (mode 600, outside every scanned directory), the directory
# where they keep outputs that ctest would not (captured subprocess output, the shell
# tests' commands), and the library's log level in the S3 test processes
# (tests/testing/secret_ledger.cc), so that its log lines land in ctest's log and are
# scanned too. Fresh for each run.
rm -rf "$BUILD_DIR/secrets" "$BUILD_DIR/test-logs"
mkdir -p -m 700 "$BUILD_DIR/secrets"
mkdir -p "$BUILD_DIR/test-logs"
export LANCE_SECRETS_LEDGER=$BUILD_DIR/secrets/ledger.tsv
(umask 077 && : >"$LANCE_SECRETS_LEDGER")
export LANCE_TEST_LOG_DIR=$BUILD_DIR/test-logs
export LANCE_TEST_LOG_LEVEL=${LANCE_TEST_LOG_LEVEL:-debug}

# RGW first: the S3 tests (label s3), the S3 interop tests and the dataset tests on S3 need it.
RGW_DIR=$BUILD_DIR/rgw
# Azurite (the Azure tests, label azure) and fake-gcs-server (the GCS tests, label gcs):
# in BUILD_DIR/azurite and BUILD_DIR/gcs, ports AZURITE_PORT (10000) and GCS_PORT (4443).
AZURITE_DIR=$BUILD_DIR/azurite
AZURITE_OAUTH_DIR=$BUILD_DIR/azurite-oauth
GCS_DIR=$BUILD_DIR/gcs
# Set before starting, so a start that fails half-way (mon up, osd not) is cleaned up too.
stop_services() {
  scripts/azurite.sh stop "$AZURITE_DIR" || log "stopping Azurite in $AZURITE_DIR failed"
  scripts/azurite.sh stop "$AZURITE_OAUTH_DIR" || log "stopping Azurite in $AZURITE_OAUTH_DIR failed"
  scripts/gcs.sh stop "$GCS_DIR" || log "stopping fake-gcs-server in $GCS_DIR failed"
  scripts/rgw.sh stop "$RGW_DIR" || log "stopping RGW in $RGW_DIR failed"
}
trap stop_services EXIT
started_ms=$(($(date +%s%N) / 1000000))
rgw_env=$(scripts/rgw.sh start "$RGW_DIR") || { log "RGW did not start (see above)"; exit 1; }
eval "$rgw_env"
printf 'LANCE_S3_SECRET_KEY\t%s\n' "$LANCE_S3_SECRET_KEY" >>"$LANCE_SECRETS_LEDGER"
took_ms=$(($(date +%s%N) / 1000000 - started_ms))
log "RGW up on $LANCE_S3_ENDPOINT, start took $((took_ms / 1000)).$((took_ms % 1000 / 100)) s"
# Azurite, for the Azure tests (label azure, pylance on Azurite among them).
azurite_env=$(scripts/azurite.sh start "$AZURITE_DIR") || { log "Azurite did not start (see above)"; exit 1; }
eval "$azurite_env"
# A second one over HTTPS with OAuth (bearer tokens, Get User Delegation Key), on
# AZURITE_OAUTH_PORT (default 10001).
azurite_env=$(AZURITE_PORT=${AZURITE_OAUTH_PORT:-10001} AZURITE_OAUTH=1 AZURITE_IN_MEMORY=1 \
  scripts/azurite.sh start "$AZURITE_OAUTH_DIR") || { log "Azurite (OAuth) did not start"; exit 1; }
eval "$azurite_env"
log "Azurite up on $LANCE_AZURE_ENDPOINT and (HTTPS, OAuth) $LANCE_AZURE_OAUTH_ENDPOINT"
gcs_env=$(scripts/gcs.sh start "$GCS_DIR") || { log "fake-gcs-server did not start (see above)"; exit 1; }
eval "$gcs_env"
log "fake-gcs-server up on $LANCE_GCS_ENDPOINT"

status=0
log "all tests of $BUILD_DIR"
# Two parallel jobs on a 2-core machine; the integration suites are the long pole. Tests
# that share the RGW use unique prefixes and buckets, so they may run concurrently.
(cd "$BUILD_DIR" && ctest --output-on-failure -j"$(nproc)" --timeout 1500) || status=1
if [ -n "$ASAN_DIR" ]; then
  run_asan "$ASAN_DIR" || status=1
fi
# ThreadSanitizer pass (label tsan of TSAN_DIR; make build-tsan).
if [ -n "${TSAN_DIR:-}" ]; then
  run_tsan "$(realpath "$TSAN_DIR")" || status=1
fi
# A short run of every libFuzzer target over its committed corpus (make build-fuzz).
if [ -n "${FUZZ_DIR:-}" ]; then
  log "fuzz targets, short budget ($FUZZ_DIR)"
  scripts/fuzz.sh run --short "$(realpath "$FUZZ_DIR")" || status=1
fi
# Every log and output of this run, scanned for the secrets the tests used.
log "scanning the run's logs for secrets"
scripts/scan_secrets.sh "$BUILD_DIR" ${ASAN_DIR:+"$ASAN_DIR"} || status=1
[ "$status" -eq 0 ] && log "all passed" || log "FAILED (see above)"
exit "$status"
