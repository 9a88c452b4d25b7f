# SPDX-License-Identifier: Apache-2.0
# What the CLI tests on a cloud store share (sourced by cli_azure_test.sh and
# cli_gcs_test.sh): the set-up, running the binary, and the checks of its result.

# cloud_cli_init NAME BIN SERVER VAR...: fails (exit 1, never a skip) unless every VAR is
# set (SERVER: what scripts/run_tests.sh starts for them); then BIN, the counters pass and
# fail, $T (a temporary directory, removed on exit) and KEEP, where every command's
# output goes for scripts/scan_secrets.sh (under LANCE_TEST_LOG_DIR, as NAME.log).
cloud_cli_init() {
  CLI_NAME=$1; BIN=$2
  local server=$3 v; shift 3
  pass=0; fail=0
  T=$(mktemp -d)
  trap 'rm -rf "$T"' EXIT
  for v in "$@"; do
    if [ -z "${!v:-}" ]; then
      echo "FAIL: $v is not set: run through make test (scripts/run_tests.sh starts $server)"
      exit 1
    fi
  done
  KEEP=${LANCE_TEST_LOG_DIR:+$LANCE_TEST_LOG_DIR/$CLI_NAME.log}
}
keep() {  # the output of every command, for scripts/scan_secrets.sh (not the command line)
  [ -n "$KEEP" ] || return 0
  { echo "== $1 (exit $2)"; echo "-- stdout"; cat "$T/out"; echo "-- stderr"; cat "$T/err"; } >>"$KEEP"
}
# run ARGS...: runs the binary; RC, and the files $T/out and $T/err hold the result.
run() { "$BIN" "$@" >"$T/out" 2>"$T/err"; RC=$?; keep "${1:-}" "$RC"; }
failed() {
  echo "FAIL $1: $2"; echo "--- exit $RC; stdout:"; head -c 4000 "$T/out"; echo "--- stderr:"
  head -c 4000 "$T/err"; fail=$((fail+1))
}
ok() { pass=$((pass+1)); }
expect_rc() { if [ "$RC" = "$2" ]; then ok; else failed "$1" "exit $RC, want $2"; fi; }
expect_out() {
  local got; got=$(cat "$T/out"; echo x); got=${got%x}
  if [ "$RC" = 0 ] && [ "$got" = "$2" ]; then ok; else failed "$1" "stdout is not exactly '$2'"; fi
}
expect_py() {  # expect_py NAME PYTHON_EXPR over d = json.load(stdout) (exit must be 0)
  if [ "$RC" = 0 ] && python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$T/out"; then
    ok; else failed "$1" "JSON check failed: $2"; fi
}
# The summary line; the script's exit status: 0 when nothing failed.
cloud_cli_finish() {
  echo "$CLI_NAME: $pass passed, $fail failed"
  [ "$fail" = 0 ]
}
