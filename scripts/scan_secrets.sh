#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# No secret in any output of a test run: searches every log and output that
# scripts/run_tests.sh's run kept for every secret the tests used (the ledger
# LANCE_SECRETS_LEDGER that the tests fill), raw and encoded (scripts/scan_secrets.py).
#
#   scripts/scan_secrets.sh BUILD_DIR [ASAN_DIR]
#
# Scanned: ctest's logs (Testing/Temporary/*.log: every ctest test's stdout and stderr) of
# BUILD_DIR, ASAN_DIR and TSAN_DIR; LANCE_TEST_LOG_DIR (captured subprocess output of the
# pytest suites, the CLI shell tests' command output); the pytest basetemp folders
# (BUILD_DIR/tests/*/pytest-*: servers' logs, files the tests wrote); the *.log files of
# FUZZ_DIR. Skipped: the files that hold secrets by design (the RGW's conf, keyring, data
# and logs under BUILD_DIR/rgw, the ledger; see EXCLUDED_* in scan_secrets.py).
#
# First a positive control (a canary planted in temporary logs in every encoding must be
# found, its redacted form must not); then the scan. Exit 0 only when the control passed,
# the ledger holds at least LANCE_SECRETS_MIN_ENTRIES (default 3) secrets and the kinds
# named by LANCE_SECRETS_REQUIRE (below), and nothing was found. The summary (counts, and
# the label and file:line of each hit, never a secret) goes to
# $LANCE_TEST_LOG_DIR/secrets-summary.json.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=$(realpath "${1:?usage: scan_secrets.sh BUILD_DIR [ASAN_DIR]}")
ASAN_DIR=${2:+$(realpath "$2")}
PY=python3
[ -x .venv/bin/python ] && PY=.venv/bin/python
LEDGER=${LANCE_SECRETS_LEDGER:-$BUILD_DIR/secrets/ledger.tsv}
LOG_DIR=${LANCE_TEST_LOG_DIR:-$BUILD_DIR/test-logs}

"$PY" scripts/scan_secrets.py control || { echo "[secrets] the positive control failed: the scan cannot be trusted" >&2; exit 1; }

paths=("$BUILD_DIR/Testing/Temporary" "$LOG_DIR")
for d in "$BUILD_DIR"/tests/*/pytest-*; do [ -d "$d" ] && paths+=("$d"); done
[ -n "$ASAN_DIR" ] && paths+=("$ASAN_DIR/Testing/Temporary")
[ -n "${TSAN_DIR:-}" ] && paths+=("$(realpath "$TSAN_DIR")/Testing/Temporary")
if [ -n "${FUZZ_DIR:-}" ] && [ -d "$FUZZ_DIR" ]; then
  while IFS= read -r -d '' f; do paths+=("$f"); done \
    < <(find "$(realpath "$FUZZ_DIR")" -name '*.log' -type f -print0)
fi
# What a full run must have recorded: the RGW's root key (run_tests.sh), keys minted with
# radosgw-admin ("secret of", s3_env.cc and _vending.py) and STS session tokens ("token of",
# s3_env.cc AssumeRole). LANCE_SECRETS_REQUIRE (comma-separated) overrides, e.g. for a
# partial run.
required=()
IFS=, read -r -a wanted <<<"${LANCE_SECRETS_REQUIRE-LANCE_S3_SECRET_KEY,secret of,token of}"
for w in "${wanted[@]}"; do [ -n "$w" ] && required+=(--require-label "$w"); done
exec "$PY" scripts/scan_secrets.py scan --ledger "$LEDGER" \
  --summary "$LOG_DIR/secrets-summary.json" \
  --min-entries "${LANCE_SECRETS_MIN_ENTRIES:-3}" "${required[@]}" "${paths[@]}"
