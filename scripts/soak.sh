#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# make soak: the crash-kill harness (tests/crash/crashlib.py) at length -- thousands of
# kill -9 points on local disk (every store step of every op kind, LANCE_CRASH_SWEEPS
# times, plus seeded random moments) and hundreds on a throw-away RGW of its own, then
# the orphan check (cleanup --dry-run) after each track. Prints one JSON summary line per
# store (also appended to $LANCE_TEST_LOG_DIR/crash-summary.json when set). Then the race
# harness (tests/race/race_test.py) at length: LANCE_RACE_COMMITS (default 1000) operations
# per store by lance-cpp and pylance writers on local disk and on the same RGW.
#
#   scripts/soak.sh BUILD_DIR
#
# Knobs (environment): LANCE_CRASH_KILLS (random kills on local disk, default 3000),
# LANCE_CRASH_S3_KILLS (on RGW, default 200), LANCE_CRASH_SWEEPS (default 3),
# LANCE_CRASH_SEED (default: the time; printed in the summary, so a failure replays).
# The RGW runs on RGW_PORT=7496 / MON_PORT=6796 (apart from make test's and the
# benchmark's) in BUILD_DIR/rgw-soak and is stopped on exit, whatever happens.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD_DIR=$(realpath "${1:-build}")
log() { echo "[soak] $*" >&2; }

for f in "$BUILD_DIR/tests/crash/crash_writer" "$BUILD_DIR/cli/lance-cpp"; do
  [ -x "$f" ] || { log "missing $f (make build)"; exit 1; }
done

export RGW_PORT=${SOAK_RGW_PORT:-7496} MON_PORT=${SOAK_MON_PORT:-6796}
RGW_DIR=$BUILD_DIR/rgw-soak
trap 'scripts/rgw.sh stop "$RGW_DIR" >/dev/null 2>&1 || log "stopping RGW in $RGW_DIR failed"' EXIT
log "starting RGW on 127.0.0.1:$RGW_PORT"
rgw_env=$(scripts/rgw.sh start "$RGW_DIR") || { log "RGW did not start (see above)"; exit 1; }
eval "$rgw_env"

export LANCE_SOURCE_DIR=$ROOT
export PYTHONPATH=$BUILD_DIR/python LANCE_PYTHON_BUILD_DIR=$BUILD_DIR/python
export LANCE_CRASH_WRITER=$BUILD_DIR/tests/crash/crash_writer
export LANCE_CPP_BIN=$BUILD_DIR/cli/lance-cpp
started=$(date +%s)
"$ROOT/.venv/bin/python" "$ROOT/tests/crash/crashlib.py"
log "crash kills done in $(($(date +%s) - started)) s; racing writers"
LANCE_RACE_COMMITS=${LANCE_RACE_COMMITS:-1000} "$ROOT/.venv/bin/python" "$ROOT/tests/race/race_test.py"
log "done in $(($(date +%s) - started)) s"
