#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The lance-cpp CLI on Azure Blob Storage (Azurite): import / append / count / scan /
# versions / info / delete on an az:// dataset with --storage-option, a directory
# namespace on an az:// root vending SAS tokens (--ns-prop storage.* holds the key), and
# at debug log level, on success and on error paths, no output ever shows the account key
# or a SAS signature (the vended ones, and a SAS given with --storage-option).
# Usage: cli_azure_test.sh PATH/TO/lance-cpp
# Needs LANCE_AZURE_* (scripts/run_tests.sh starts Azurite): fails without, never skips.
set -u
. "$(dirname "$0")/cloud_cli_lib.sh"
cloud_cli_init cli_azure_test "$1" Azurite \
  LANCE_AZURE_ENDPOINT LANCE_AZURE_ACCOUNT LANCE_AZURE_KEY LANCE_AZURE_CONTAINER
KEY=$LANCE_AZURE_KEY
record_secret() {
  [ -n "${LANCE_SECRETS_LEDGER:-}" ] || return 0
  printf '%s\t%s\n' "cli_azure_test ${1:0:4}***" "$1" >>"$LANCE_SECRETS_LEDGER"
}
# Azurite's published development key is not put in the ledger (as scripts/run_tests.sh
# does not); expect_no_secret checks every output for it.
# Never the key, never "sig=" (any SAS signature), never the given secrets.
expect_no_secret() {
  local name=$1; shift
  local s
  for s in "$KEY" "$@"; do
    if [ -n "$s" ] && grep -qF -- "$s" "$T/out" "$T/err"; then
      failed "$name" "a secret (${s:0:4}...) was printed"; return
    fi
  done
  if grep -q 'sig=' "$T/out" "$T/err"; then failed "$name" "a SAS signature was printed"; return; fi
  ok
}

export LANCE_LOG=debug
U=$(python3 -c 'import uuid; print(uuid.uuid4().hex[:12])')
C=$LANCE_AZURE_CONTAINER
OPTS=(--storage-option "azure_storage_account_name=$LANCE_AZURE_ACCOUNT"
      --storage-option "azure_storage_account_key=$KEY"
      --storage-option "azure_storage_endpoint=$LANCE_AZURE_ENDPOINT"
      --storage-option allow_http=true)
DS="az://$C/cli-$U/people.lance"
printf 'id,name,score\n1,ada,3.5\n2,bob,4.25\n3,cy,1.0\n' >"$T/a.csv"
printf 'id,name,score\n4,dee,2.0\n5,eve,9.5\n' >"$T/b.csv"

# --- a dataset on az:// with --storage-option ---------------------------------------------
run import "$T/a.csv" "$DS" "${OPTS[@]}"
expect_rc az_import 0
expect_no_secret az_import_quiet
run import "$T/b.csv" "$DS" --mode append "${OPTS[@]}"
expect_rc az_append 0
run count "$DS" "${OPTS[@]}"
expect_out az_count "5
"
expect_no_secret az_count_quiet
run count "azure://$C/cli-$U/people.lance" "${OPTS[@]}" --where "score > 3"
expect_out az_count_where_azure_scheme "3
"
run scan "$DS" "${OPTS[@]}" --format jsonl
expect_out az_scan '{"id":1,"name":"ada","score":3.5}
{"id":2,"name":"bob","score":4.25}
{"id":3,"name":"cy","score":1}
{"id":4,"name":"dee","score":2}
{"id":5,"name":"eve","score":9.5}
'
run --json versions "$DS" "${OPTS[@]}"
expect_py az_versions '[v["version"] for v in d] == [1, 2]'
run --json info "$DS" "${OPTS[@]}"
expect_py az_info_redacted 'd["storage_options"]["azure_storage_account_key"] == "<redacted>"
  and d["storage_options"]["azure_storage_account_name"] == "'"$LANCE_AZURE_ACCOUNT"'"
  and d["num_rows"] == 5'
expect_no_secret az_info_json_quiet
run info "$DS" "${OPTS[@]}"
expect_rc az_info_text 0
expect_no_secret az_info_text_quiet
run delete "$DS" "${OPTS[@]}" --where "id = 2"
expect_rc az_delete 0
run count "$DS" "${OPTS[@]}"
expect_out az_count_after_delete "4
"
run count "$DS" "${OPTS[@]}" --version 2
expect_out az_count_old_version "5
"

# --- a SAS given as a storage option: works, never printed --------------------------------
# A service SAS for the container minted with the key (version 2021-08-06 string to sign),
# read+list only, valid ten minutes.
SAS=$(python3 - "$LANCE_AZURE_ACCOUNT" "$C" "$KEY" <<'PY'
import base64, datetime, hashlib, hmac, sys, urllib.parse
account, container, key = sys.argv[1:4]
now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
fmt = "%Y-%m-%dT%H:%M:%SZ"
st, se = (now - datetime.timedelta(minutes=5)).strftime(fmt), (now + datetime.timedelta(minutes=10)).strftime(fmt)
fields = ["rl", st, se, f"/blob/{account}/{container}", "", "", "http", "2021-08-06", "c",
          "", "", "", "", "", "", ""]
sig = base64.b64encode(hmac.new(base64.b64decode(key), "\n".join(fields).encode(),
                                hashlib.sha256).digest()).decode()
print(urllib.parse.urlencode({"sv": "2021-08-06", "spr": "http", "st": st, "se": se, "sr": "c",
                              "sp": "rl", "sig": sig}))
PY
)
ENC_SIG=${SAS##*sig=}
SIG=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.unquote(sys.argv[1]))' "$ENC_SIG")
record_secret "$SIG"; record_secret "$ENC_SIG"; record_secret "$SAS"
SASOPTS=(--storage-option "azure_storage_account_name=$LANCE_AZURE_ACCOUNT"
         --storage-option "azure_storage_sas_token=$SAS"
         --storage-option "azure_storage_endpoint=$LANCE_AZURE_ENDPOINT"
         --storage-option allow_http=true)
run count "$DS" "${SASOPTS[@]}"
expect_out az_sas_count "4
"
expect_no_secret az_sas_count_quiet "$SIG" "$ENC_SIG"
run --json info "$DS" "${SASOPTS[@]}"
expect_py az_sas_info_redacted 'd["storage_options"]["azure_storage_sas_token"] == "<redacted>"'
expect_no_secret az_sas_info_quiet "$SIG" "$ENC_SIG"
# A read-only SAS cannot write: a clean failure that does not show it.
run import "$T/b.csv" "$DS" --mode append "${SASOPTS[@]}"
if [ "$RC" = 1 ]; then ok; else failed az_sas_readonly_write "exit $RC, want 1"; fi
expect_no_secret az_sas_readonly_write_quiet "$SIG" "$ENC_SIG"
# A wrong key: refused (403), the error shows neither key.
BAD="QmFkS2V5${KEY:8}"
record_secret "$BAD"
run count "$DS" --storage-option "azure_storage_account_name=$LANCE_AZURE_ACCOUNT" \
  --storage-option "azure_storage_account_key=$BAD" \
  --storage-option "azure_storage_endpoint=$LANCE_AZURE_ENDPOINT" --storage-option allow_http=true \
  --storage-option client_max_retries=0
if [ "$RC" = 1 ] && [ ! -s "$T/out" ]; then ok; else failed az_wrong_key "exit $RC, want 1"; fi
expect_no_secret az_wrong_key_quiet "$BAD"

# --- a namespace on an az:// root vending SAS tokens ------------------------------------
NS=(--namespace dir --ns-prop "root=az://$C/cli-ns-$U"
    --ns-prop "storage.azure_storage_account_name=$LANCE_AZURE_ACCOUNT"
    --ns-prop "storage.azure_storage_account_key=$KEY"
    --ns-prop "storage.azure_storage_endpoint=$LANCE_AZURE_ENDPOINT"
    --ns-prop storage.allow_http=true
    --ns-prop credential_vendor.enabled=true --ns-prop credential_vendor.permission=write)
run import "$T/a.csv" "${NS[@]}" --table-id people
expect_rc ns_import 0
expect_no_secret ns_import_quiet
run import "$T/b.csv" "${NS[@]}" --table-id people --mode append
expect_rc ns_append 0
run count "${NS[@]}" --table-id people
expect_out ns_count "5
"
expect_no_secret ns_count_quiet
run --stats --json count "${NS[@]}" --table-id people --where "id >= 4"
if [ "$RC" = 0 ] && [ "$(cat "$T/out")" = "2" ]; then ok; else failed ns_count_stats "want 2"; fi
expect_no_secret ns_count_stats_quiet
run --json info "${NS[@]}" --table-id people
expect_py ns_info_redacted 'd["namespace_properties"]["storage.azure_storage_account_key"]
  == "<redacted>" and d["num_rows"] == 5'
expect_no_secret ns_info_quiet
run info "${NS[@]}" --table-id people
expect_rc ns_info_text 0
expect_no_secret ns_info_text_quiet
# The table is where the namespace says, readable with the key directly.
run count "az://$C/cli-ns-$U/people.lance" "${OPTS[@]}"
expect_out ns_table_location "5
"

cloud_cli_finish
