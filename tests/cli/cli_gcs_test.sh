#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The lance-cpp CLI on Google Cloud Storage (fake-gcs-server): import / append / count /
# scan / versions / info / delete on a gs:// dataset with --storage-option, and a token
# given as a storage option is never printed (info --json redacts it).
# Usage: cli_gcs_test.sh PATH/TO/lance-cpp
# Needs LANCE_GCS_ENDPOINT / LANCE_GCS_BUCKET (scripts/run_tests.sh starts fake-gcs-server):
# fails without, never skips.
set -u
. "$(dirname "$0")/cloud_cli_lib.sh"
cloud_cli_init cli_gcs_test "$1" fake-gcs-server LANCE_GCS_ENDPOINT LANCE_GCS_BUCKET
TOKEN=ya29.cligcs$(python3 -c 'import uuid; print(uuid.uuid4().hex)')
[ -n "${LANCE_SECRETS_LEDGER:-}" ] && printf 'cli_gcs_test token\t%s\n' "$TOKEN" >>"$LANCE_SECRETS_LEDGER"
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

cloud_cli_finish
