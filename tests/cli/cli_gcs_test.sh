#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The lance-cpp CLI on Google Cloud Storage (fake-gcs-server): import / append / count /
# scan / versions / info / delete on a gs:// dataset with --storage-option, and a token
# given as a storage option is never printed (info --json redacts it).
# Usage: cli_gcs_test.sh PATH/TO/lance-cpp
# Needs LANCE_GCS_ENDPOINT / LANCE_GCS_BUCKET (scripts/run_tests.sh starts fake-gcs-server):
# fails without, never skips.
set -u
BIN=$1
pass=0; fail=0
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
for v in LANCE_GCS_ENDPOINT LANCE_GCS_BUCKET; do
  if [ -z "${!v:-}" ]; then
    echo "FAIL: $v is not set: run through make test (scripts/run_tests.sh starts fake-gcs-server)"
    exit 1
  fi
done
KEEP=${LANCE_TEST_LOG_DIR:+$LANCE_TEST_LOG_DIR/cli_gcs_test.log}
keep() {
  [ -n "$KEEP" ] || return 0
  { echo "== $1 (exit $2)"; echo "-- stdout"; cat "$T/out"; echo "-- stderr"; cat "$T/err"; } >>"$KEEP"
}
TOKEN=ya29.cligcs$(python3 -c 'import uuid; print(uuid.uuid4().hex)')
[ -n "${LANCE_SECRETS_LEDGER:-}" ] && printf 'cli_gcs_test token\t%s\n' "$TOKEN" >>"$LANCE_SECRETS_LEDGER"
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
expect_py() {
  if [ "$RC" = 0 ] && python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$T/out"; then
    ok; else failed "$1" "JSON check failed: $2"; fi
}
expect_no_token() {
  if grep -qF -- "$TOKEN" "$T/out" "$T/err"; then failed "$1" "the token was printed"; else ok; fi
}

export LANCE_LOG=debug
U=$(python3 -c 'import uuid; print(uuid.uuid4().hex[:12])')
# fake-gcs-server checks no token: the token only shows that it is never printed.
OPTS=(--storage-option "google_base_url=$LANCE_GCS_ENDPOINT" --storage-option allow_http=true
      --storage-option "google_storage_token=$TOKEN")
DS="gs://$LANCE_GCS_BUCKET/cli-$U/people.lance"
printf 'id,name\n1,ada\n2,bob\n3,cy\n' >"$T/a.csv"
printf 'id,name\n4,dee\n' >"$T/b.csv"

run import "$T/a.csv" "$DS" "${OPTS[@]}"
expect_rc gs_import 0
expect_no_token gs_import_quiet
run import "$T/b.csv" "$DS" --mode append "${OPTS[@]}"
expect_rc gs_append 0
run count "$DS" "${OPTS[@]}"
expect_out gs_count "4
"
run scan "$DS" "${OPTS[@]}" --format jsonl --where "id >= 3"
expect_out gs_scan '{"id":3,"name":"cy"}
{"id":4,"name":"dee"}
'
run --json versions "$DS" "${OPTS[@]}"
expect_py gs_versions '[v["version"] for v in d] == [1, 2]'
run --json info "$DS" "${OPTS[@]}"
expect_py gs_info_redacted 'd["storage_options"]["google_storage_token"] == "<redacted>"
  and d["num_rows"] == 4'
expect_no_token gs_info_quiet
run delete "$DS" "${OPTS[@]}" --where "id = 1"
expect_rc gs_delete 0
run count "$DS" "${OPTS[@]}" --version 2
expect_out gs_count_old_version "4
"
run count "$DS" "${OPTS[@]}"
expect_out gs_count_latest "3
"
expect_no_token gs_count_quiet
run count "gs://$LANCE_GCS_BUCKET/cli-$U/absent.lance" "${OPTS[@]}"
if [ "$RC" = 1 ] && [ ! -s "$T/out" ] && grep -q NotFound "$T/err"; then ok
else failed gs_absent "exit $RC, want 1 and NotFound"; fi

echo "cli_gcs_test: $pass passed, $fail failed"
[ "$fail" = 0 ]
