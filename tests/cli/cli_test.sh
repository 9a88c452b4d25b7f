#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Black-box tests of the lance-cpp binary: exit codes, the stdout/stderr split, and the
# verbs on real datasets in a temporary directory.
# Usage: cli_test.sh PATH/TO/lance-cpp
set -u
. "$(dirname "$0")/check_output.sh"
BIN=$1
pass=0; fail=0
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# Every command's output is also appended to $LANCE_TEST_LOG_DIR/cli_test.log (set by
# scripts/run_tests.sh), which scripts/scan_secrets.sh scans for the secrets of the run:
# this script deletes $T, and ctest keeps only what it prints. The command line is not
# written (it holds the secrets passed on purpose); only the verb.
KEEP=${LANCE_TEST_LOG_DIR:+$LANCE_TEST_LOG_DIR/cli_test.log}
keep() {  # keep NAME RC STDOUT_FILE STDERR_FILE
  [ -n "$KEEP" ] || return 0
  { echo "== $1 (exit $2)"; echo "-- stdout"; cat "$3"; echo "-- stderr"; cat "$4"; } >>"$KEEP"
}
# record_secret SECRET: a secret this script uses, for the ledger of the scan.
record_secret() {
  [ -n "${LANCE_SECRETS_LEDGER:-}" ] || return 0
  printf '%s\t%s\n' "cli_test ${1:0:4}***" "$1" >>"$LANCE_SECRETS_LEDGER"
}

check() {  # check NAME EXPECTED_EXIT STDOUT_REGEX STDERR_REGEX -- ARGS...
  local name=$1 want=$2 out_re=$3 err_re=$4; shift 5
  local out err rc
  out=$(mktemp); err=$(mktemp)
  "$BIN" "$@" >"$out" 2>"$err"; rc=$?
  keep "$name" "$rc" "$out" "$err"
  if judge "$name" "$rc" "$want" "$out_re" "$err_re" "$out" "$err"; then
    pass=$((pass+1))
  else
    fail=$((fail+1))
  fi
  rm -f "$out" "$err"
}

# run ARGS...: runs the binary; RC, and the files $T/out and $T/err hold the result.
run() { "$BIN" "$@" >"$T/out" 2>"$T/err"; RC=$?; keep "${1:-}" "$RC" "$T/out" "$T/err"; }
# run_in FILE ARGS...: as run, with FILE on stdin.
run_in() {
  local in=$1; shift
  "$BIN" "$@" <"$in" >"$T/out" 2>"$T/err"; RC=$?; keep "${1:-}" "$RC" "$T/out" "$T/err"
}
failed() {  # failed NAME WHY
  echo "FAIL $1: $2"; echo "--- exit $RC; stdout:"; cat "$T/out"; echo "--- stderr:"
  cat "$T/err"; fail=$((fail+1))
}
ok() { pass=$((pass+1)); }
expect_rc() { if [ "$RC" = "$2" ]; then ok; else failed "$1" "exit $RC, want $2"; fi; }
expect_out() {  # expect_out NAME EXACT_STDOUT (exit must be 0)
  local got; got=$(cat "$T/out"; echo x); got=${got%x}
  if [ "$RC" = 0 ] && [ "$got" = "$2" ]; then pass=$((pass+1));
  else failed "$1" "stdout is not exactly '$2'"; fi
}
expect_err() {  # expect_err NAME REGEX
  if grep -Eq -e "$2" "$T/err"; then ok; else failed "$1" "stderr lacks /$2/"; fi
}
expect_no_out() {
  if [ ! -s "$T/out" ]; then ok; else failed "$1" "stdout is not empty"; fi
}
expect_fails_cleanly() {  # expect_fails_cleanly NAME EXIT STDERR_REGEX
  if [ "$RC" = "$2" ] && [ ! -s "$T/out" ] && grep -Eq -e "$3" "$T/err"; then
    pass=$((pass+1))
  else
    failed "$1" "want exit $2, empty stdout, stderr /$3/"
  fi
}
# expect_json NAME PYTHON_EXPR: stdout parsed as one JSON document `d` must make EXPR
# true. EXPR may span lines.
expect_json() {
  if [ "$RC" = 0 ] && python3 -c '
import json, re, sys
d = json.loads(open(sys.argv[1], encoding="utf-8").read())
sys.exit(0 if eval("(" + sys.argv[2] + ")") else 1)' "$T/out" "$2" 2>>"$T/err"; then
    pass=$((pass+1))
  else
    failed "$1" "JSON check failed: $2"
  fi
}
# expect_jsonl NAME PYTHON_EXPR: every stdout line is a JSON value; `rows` (the list of
# them) must make EXPR true.
expect_jsonl() {
  if [ "$RC" = 0 ] && python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8").read().splitlines()]
sys.exit(0 if eval("(" + sys.argv[2] + ")") else 1)' "$T/out" "$2" 2>>"$T/err"; then
    pass=$((pass+1))
  else
    failed "$1" "JSON-lines check failed: $2"
  fi
}

# --- global behaviour ------------------------------------------------------------------
check help 0 '^Usage: lance-cpp' '' -- --help
check version 0 '^lance-cpp [0-9]+\.[0-9]+\.[0-9]+$' '' -- --version
check version_json 0 '^\{"name":"lance-cpp","version":"[0-9.]+"\}$' '' -- --version --json
check json_after 0 '"version"' '' -- --json --version
check no_args 2 'Usage' '' --
check unknown_verb 2 '' "unknown verb 'frobnicate'" -- frobnicate
check unknown_option 2 '' "unknown option '--bogus'" -- --bogus
check help_lists_verbs 0 'import' '' -- --help
check verb_help 0 '^Usage: lance-cpp scan URI' '' -- scan --help
check verb_help_has_version_option 0 '--version VALUE' '' -- count --help
check verb_unknown_option 2 '' "unknown option '--bogus'" -- count /nowhere --bogus
check missing_uri 2 '' 'missing URI' -- count
check extra_arg 2 '' 'unexpected argument' -- count a b
check info_missing_dataset 1 '' 'lance-cpp info: ' -- info "$T/does-not-exist.lance"
check count_missing_dataset 1 '' 'NotFound' -- count "$T/does-not-exist.lance"
check bad_limit 2 '' 'limit expects a non-negative integer' -- scan "$T/x" --limit -3
check bad_format 2 '' 'table or jsonl' -- scan "$T/x" --format xml
check bad_storage_option 2 '' 'KEY=VALUE' -- count "$T/x" --storage-option novalue
check delete_needs_where 2 '' 'where is required' -- delete "$T/x"
check import_unknown_ext 2 '' 'pass --format' -- import "$T/data.txt" "$T/x"
check import_missing_file 1 '' 'cannot open' -- import "$T/nope.csv" "$T/x"

# --- import CSV (create), count, info, versions ----------------------------------------
DS="$T/people.lance"
cat >"$T/people.csv" <<'CSV'
id,name,score,active
1,alice,1.5,true
2,"bob, jr.",2,false
3,"say ""hi""",,true
4,,-0.25,
5,eve,1e3,false
CSV
run import "$T/people.csv" "$DS"
expect_rc import_csv_create 0
expect_no_out import_csv_create_stdout
expect_err import_csv_create_summary 'imported 5 rows .*version 1'

run count "$DS"
expect_out count_is_bare_integer $'5\n'

run import "$T/people.csv" "$DS"
expect_fails_cleanly import_create_again_fails 1 'AlreadyExists|exists'

run info "$DS"
expect_rc info_text 0
if grep -q '^rows: *5$' "$T/out" && grep -q '^  id: int64$' "$T/out" &&
   grep -q '^  score: float64$' "$T/out" && grep -q '^  active: bool$' "$T/out"; then
  ok; else failed info_text_content "rows/schema lines"; fi

run info --json "$DS"
expect_json info_json 'd["num_rows"] == 5 and d["version"] == 1
  and d["num_fragments"] >= 1
  and [f["name"] for f in d["schema"]] == ["id", "name", "score", "active"]
  and d["schema"][1]["type"] == "utf8" and d["data_storage_version"] == "2.2"'


# --- file format versions and random access --------------------------------------------
for v in 2.0 2.1 2.2; do
  run import "$T/people.csv" "$T/v$v.lance" --data-storage-version "$v" --json
  expect_rc "import_version_$v" 0
  run info --json "$T/v$v.lance"
  expect_json "info_version_$v" "d['data_storage_version'] == '$v' and d['num_rows'] == 5"
  run take "$T/v$v.lance" --rows 4,0,4 --columns id,name --format jsonl
  expect_jsonl "take_version_$v" 'len(rows) == 3 and [r["id"] for r in rows] == [5, 1, 5]
    and rows[1]["name"] == "alice"'
done
run import "$T/people.csv" "$T/vnext.lance" --data-storage-version next
expect_fails_cleanly import_next_refused 1 '2\.3|next'
run import "$T/people.csv" "$T/vlegacy.lance" --data-storage-version legacy
expect_fails_cleanly import_legacy_refused 1 'legacy'
run import "$T/people.csv" "$T/vbogus.lance" --data-storage-version 9.9
expect_fails_cleanly import_bogus_version_refused 2 'Unknown Lance storage version: 9.9'
run take "$DS" --rows 99
expect_fails_cleanly take_out_of_range 2 'outside'
run take "$DS" --rows 1,x
expect_fails_cleanly take_bad_rows 2 'rows'
run take "$DS"
expect_fails_cleanly take_needs_rows 2 'rows'

# --- append JSON lines (dataset schema is used), options around positionals -----------
cat >"$T/more.jsonl" <<'JSONL'
{"id": 6, "name": "frank", "score": 7, "active": true}

{"name": "grace", "id": 7}
JSONL
run import "$T/more.jsonl" "$DS" --mode append --json
expect_json import_append_json \
  'd["rows_written"] == 2 and d["version"] == 2 and d["mode"] == "append"'
expect_err import_append_summary 'imported 2 rows'

run count "$DS"
expect_out count_after_append $'7\n'
run count --version 1 "$DS"
expect_out count_old_version $'5\n'
run count "$DS" --version=1
expect_out count_version_after_positional $'5\n'
run --storage-option region=nowhere count "$DS"
expect_out storage_option_before_verb $'7\n'
run count "$DS" --where "id > 2"
expect_out count_where $'5\n'
run count "$DS" --where "name IS NULL"
expect_out count_where_null $'1\n'

run versions "$DS" --json
expect_json versions_json 'isinstance(d, list) and [v["version"] for v in d] == [1, 2]
  and all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", v["timestamp"])
          for v in d)'
run versions "$DS"
expect_rc versions_text 0
if [ "$(wc -l <"$T/out")" = 4 ] && head -1 "$T/out" | grep -q 'version'; then
  ok; else failed versions_text_lines "header + rule + 2 rows"; fi

# --- scan ---------------------------------------------------------------------------
run scan "$DS" --format jsonl
expect_jsonl scan_jsonl 'len(rows) == 7
  and all(list(r) == ["id", "name", "score", "active"] for r in rows)
  and rows[1]["name"] == "bob, jr." and rows[2]["name"] == "say \"hi\""
  and rows[2]["score"] is None and rows[3]["name"] is None and rows[4]["score"] == 1000
  and rows[6]["active"] is None'
if [ -s "$T/err" ]; then failed scan_jsonl_quiet "stderr not empty"; else ok; fi

run scan --format=jsonl --columns name,id --limit 2 --offset 1 "$DS"
expect_jsonl scan_columns_limit_offset \
  'rows == [{"name": "bob, jr.", "id": 2}, {"name": "say \"hi\"", "id": 3}]'
run --json scan "$DS" --columns id --where "id >= 6"
expect_jsonl scan_json_flag_where 'rows == [{"id": 6}, {"id": 7}]'
run scan "$DS" --version 1 --format jsonl --columns id
expect_jsonl scan_old_version 'len(rows) == 5'
run scan "$DS" --columns id --columns active --limit 0 --format jsonl
expect_out scan_limit_zero ''

run scan "$DS"
expect_rc scan_table 0
if head -1 "$T/out" | grep -Eq '^ *id +name +score +active$' &&
   sed -n 2p "$T/out" | grep -Eq '^-+ +-+ +-+ +-+$' && [ "$(wc -l <"$T/out")" = 9 ]; then
  ok; else failed scan_table_layout "header, rule and 7 rows"; fi
expect_err scan_table_row_count '\(7 rows\)'

run scan "$DS" --columns nope --format jsonl
if [ "$RC" != 0 ] && [ ! -s "$T/out" ] && grep -q 'nope' "$T/err"; then
  ok; else failed scan_unknown_column "nonzero exit, message naming the column"; fi

# --- delete -------------------------------------------------------------------------
run delete "$DS" --where "id = 1"
expect_rc delete 0
expect_no_out delete_stdout
expect_err delete_summary 'deleted 1 row .*version 3'
run count "$DS"
expect_out count_after_delete $'6\n'
run delete --json "$DS" --where "score < 0"
expect_json delete_json 'd["rows_deleted"] == 1 and d["version"] == 4'
run count "$DS"
expect_out count_after_second_delete $'5\n'
run delete "$DS" --where "no_such_column = 1"
if [ "$RC" != 0 ] && [ ! -s "$T/out" ] && [ -s "$T/err" ]; then
  ok; else failed delete_bad_predicate "nonzero exit, stderr only"; fi

# --- overwrite and stdin --------------------------------------------------------------
printf '{"id": 100, "label": "new"}\n{"id": 101, "label": null}\n' >"$T/over.jsonl"
run_in "$T/over.jsonl" import - "$DS" --format jsonl --mode overwrite
expect_rc import_stdin_overwrite 0
expect_no_out import_stdin_overwrite_stdout
run count "$DS"
expect_out count_after_overwrite $'2\n'
run scan "$DS" --format jsonl
expect_jsonl scan_after_overwrite \
  'rows == [{"id": 100, "label": "new"}, {"id": 101, "label": None}]'
run count "$DS" --version 2
expect_out count_before_overwrite $'7\n'
run_in "$T/over.jsonl" import - "$T/x.lance"
expect_fails_cleanly import_stdin_needs_format 2 'needs --format'

# --- bad input values: Invalid with line and column, nothing written ----------------
cat >"$T/bad.csv" <<'CSV'
id,n
1,2
2,x
CSV
printf '[{"name": "id", "type": "int64"}, {"name": "n", "type": "int8"}]' \
  >"$T/bad_schema.json"
run import "$T/bad.csv" "$T/bad.lance" --schema "$T/bad_schema.json"
expect_fails_cleanly import_bad_value 2 "line 3, column 'n': \"x\" is not a valid int8"
run import "$T/people.csv" "$T/bad.lance" --schema "$T/bad_schema.json"
expect_fails_cleanly import_schema_mismatch 2 'not in the schema'
printf '{"a": 1}\n{"a": "x"}\n' >"$T/conflict.jsonl"
run import "$T/conflict.jsonl" "$T/bad.lance"
expect_fails_cleanly import_conflicting_kinds 2 "line 2, column 'a'"
printf '[{"name": "a", "type": "list<int8"}]' >"$T/broken_schema.json"
run import "$T/conflict.jsonl" "$T/bad.lance" --schema "$T/broken_schema.json"
expect_fails_cleanly import_bad_schema_file 2 'invalid type'
check nothing_written 1 '' 'NotFound' -- count "$T/bad.lance"

# --- every type: scan jsonl -> import with the same schema -> identical output --------
# (Lance file format 2.0 stores no struct-level validity: a null struct reads back as a
# struct of nulls, on both sides of the round trip.)
cat >"$T/types.json" <<'JSON'
[
  {"name": "id", "type": "int64", "nullable": false},
  {"name": "b", "type": "bool"}, {"name": "i8", "type": "int8"},
  {"name": "i16", "type": "int16"}, {"name": "i32", "type": "int32"},
  {"name": "i64", "type": "int64"}, {"name": "u8", "type": "uint8"},
  {"name": "u16", "type": "uint16"}, {"name": "u32", "type": "uint32"},
  {"name": "u64", "type": "uint64"}, {"name": "h", "type": "float16"},
  {"name": "f", "type": "float32"}, {"name": "d", "type": "float64"},
  {"name": "s", "type": "utf8"}, {"name": "ls", "type": "large_utf8"},
  {"name": "bin", "type": "binary"}, {"name": "lbin", "type": "large_binary"},
  {"name": "fsb", "type": "fixed_size_binary[2]"}, {"name": "day", "type": "date32"},
  {"name": "ts_s", "type": "timestamp[s]"},
  {"name": "ts_ms", "type": "timestamp[ms, UTC]"},
  {"name": "ts_us", "type": "timestamp[us]"},
  {"name": "ts_ns", "type": "timestamp[ns, UTC]"},
  {"name": "l", "type": "list<int32>"}, {"name": "ll", "type": "large_list<utf8>"},
  {"name": "fsl", "type": "fixed_size_list<float32, 2>"},
  {"name": "st", "type": "struct<x: int16, y: list<struct<z: utf8>>>"}
]
JSON
# One row per paragraph below: lines ending in '\' continue the row.
join_rows() { awk '{ if (sub(/\\$/, "")) printf "%s", $0; else print }'; }
join_rows >"$T/types.jsonl" <<'JSONL'
{"id": 1, "b": true, "i8": -128, "i16": -32768, "i32": -2147483648, \
"i64": -9223372036854775808, "u8": 255, "u16": 65535, "u32": 4294967295, \
"u64": 18446744073709551615, "h": 0.1, "f": 0.1, "d": 0.1, \
"s": "tab\t\"quote\" \u0001 é 😀", "ls": "", "bin": "AAEC/w==", "lbin": "aGk=", \
"fsb": "AP8=", "day": "1969-07-20", "ts_s": "1900-01-01T00:00:00", \
"ts_ms": "1969-12-31T23:59:59.999Z", "ts_us": "2000-02-29T12:34:56.000001", \
"ts_ns": "2262-04-11T23:47:16.854775807Z", "l": [1, null, 3], "ll": ["a", null], \
"fsl": [1.5, "NaN"], "st": {"x": 7, "y": [{"z": "deep"}, null]}}
{"id": 2, "i64": 9223372036854775807, "h": "-Infinity", "f": 3.4028235e38, \
"d": "Infinity", "day": "-0044-03-15", "l": [], "st": {"y": []}}
{"id": 3}
JSONL
run import "$T/types.jsonl" "$T/types.lance" --schema "$T/types.json"
expect_rc import_all_types 0
run scan "$T/types.lance" --format jsonl
expect_jsonl scan_all_types 'len(rows) == 3
  and rows[0]["u64"] == 18446744073709551615 and rows[0]["i64"] == -9223372036854775808
  and rows[0]["h"] == 0.1 and rows[0]["f"] == 0.1
  and rows[0]["s"] == "tab\t\"quote\" \u0001 é 😀"
  and rows[0]["ts_ns"] == "2262-04-11T23:47:16.854775807Z"
  and rows[0]["ts_s"] == "1900-01-01T00:00:00" and rows[0]["fsl"] == [1.5, "NaN"]
  and rows[1]["day"] == "-0044-03-15" and rows[1]["h"] == "-Infinity"
  and rows[2]["st"] in (None, {"x": None, "y": None})'
cp "$T/out" "$T/types_scan1.jsonl"
if grep -q '"u64":18446744073709551615,' "$T/types_scan1.jsonl" &&
   grep -q '"h":0.1,"f":0.1,"d":0.1,' "$T/types_scan1.jsonl"; then
  ok; else failed exact_number_text "u64 exact and 0.1 at every width"; fi
run info "$T/types.lance" --json
cp "$T/out" "$T/types_info.json"
run import "$T/types_scan1.jsonl" "$T/types2.lance" --schema "$T/types_info.json"
expect_rc reimport_with_info_schema 0
run scan "$T/types2.lance" --format jsonl
expect_rc rescan 0
if cmp -s "$T/out" "$T/types_scan1.jsonl"; then ok; else
  failed round_trip_identical \
    "second scan differs: $(diff "$T/types_scan1.jsonl" "$T/out" | head -5)"
fi
run info "$T/types2.lance" --json
if cmp -s "$T/out" <(sed "s#types.lance#types2.lance#" "$T/types_info.json"); then
  ok; else failed round_trip_schema "info --json schemas differ"; fi

# --- nested fields by dotted path (as pylance): scan gives "st.x" as a column, take
# prunes the struct -------------------------------------------------------------------
run scan "$T/types.lance" --columns id,st.x --format jsonl
expect_jsonl scan_nested_field 'rows[0] == {"id": 1, "st.x": 7} and rows[1]["st.x"] is None
  and list(rows[2]) == ["id", "st.x"]'
run take "$T/types.lance" --rows 0 --columns st.x,id --format jsonl
expect_jsonl take_nested_field 'rows == [{"st": {"x": 7}, "id": 1}]'
run scan "$T/types.lance" --columns st.nope --format jsonl
if [ "$RC" != 0 ] && [ ! -s "$T/out" ] && grep -q "st.nope" "$T/err"; then
  ok; else failed scan_unknown_nested_field "nonzero exit, message naming the path"; fi

# --- secrets are never echoed ----------------------------------------------------------
run info "$DS" --storage-option aws_secret_access_key=SUPERSECRET123 \
  --storage-option aws_access_key_id=AKIDVISIBLE --json
if grep -q SUPERSECRET123 "$T/out" "$T/err"; then
  failed secret_not_echoed "the secret value was printed"
else
  pass=$((pass+1))
fi
if [ "$RC" = 0 ]; then
  expect_json storage_options_redacted 'd["storage_options"] == {
    "aws_access_key_id": "AKID\u2026", "aws_secret_access_key": "<redacted>"}'
fi
# --- errors name the path the user gave (absolute, not the store's relative key) -------
run import "$T/people.csv" "$T/damaged.lance"
DATAFILE=$(ls "$T"/damaged.lance/data/*.lance | head -n 1)
printf 'not a lance file' > "$DATAFILE"
run scan "$T/damaged.lance" --format jsonl
if [ "$RC" != 0 ] && grep -qF "'$DATAFILE'" "$T/err" && ! grep -qF "'${DATAFILE#/}'" "$T/err"; then
  ok; else failed corrupt_data_file_named_absolute "stderr must quote '$DATAFILE'"; fi
rm -f "$DATAFILE"
run scan "$T/damaged.lance" --format jsonl
if [ "$RC" != 0 ] && grep -qF "'$DATAFILE'" "$T/err" && ! grep -qF "'${DATAFILE#/}'" "$T/err"; then
  ok; else failed missing_data_file_named_absolute "stderr must quote '$DATAFILE'"; fi
run count "$DS" --storage-option token=SUPERSECRET123 \
  --storage-option token=SUPERSECRET123
expect_fails_cleanly duplicate_option_named_not_valued 2 '"token" given more than once'
if grep -q SUPERSECRET123 "$T/err"; then failed secret_in_error "value echoed"
else ok; fi

# --- datasets through a directory namespace -------------------------------------------
# expect_no_secret NAME SECRET...: none of the values is in the last run's stdout/stderr.
expect_no_secret() {
  local name=$1; shift
  for secret in "$@"; do
    if grep -qF -e "$secret" "$T/out" "$T/err"; then
      failed "$name" "the secret value '${secret:0:4}***' was printed"; return
    fi
  done
  ok
}
printf 'id,name\n1,a\n2,b\n3,c\n' >"$T/ns.csv"
printf 'id,name\n4,d\n5,e\n' >"$T/ns_more.csv"
for manifest in true false; do
  R="$T/ns-root-$manifest"
  NS=(--namespace dir --ns-prop "root=$R" --ns-prop "manifest_enabled=$manifest")
  run import "$T/ns.csv" "${NS[@]}" --table-id events
  expect_rc "ns_${manifest}_import_create" 0
  expect_err "ns_${manifest}_import_summary" 'imported 3 rows into table "events" .*create, version 1'
  if [ "$manifest" = true ]; then
    # Root-level tables keep Lance's <name>.lance directory; __manifest records them.
    if [ -d "$R/events.lance/_versions" ] && [ -d "$R/__manifest" ]; then ok
    else failed ns_true_layout "no $R/events.lance/_versions or __manifest"; fi
  else
    if [ -f "$R/events.lance/.lance-reserved" ] && [ -d "$R/events.lance/_versions" ] &&
       [ ! -e "$R/__manifest" ]; then ok
    else failed ns_false_layout "plain layout: events.lance with .lance-reserved, no __manifest"; fi
  fi
  run import "$T/ns.csv" "${NS[@]}" --table-id events
  expect_fails_cleanly "ns_${manifest}_create_twice" 1 'TableAlreadyExists'
  run import "$T/ns_more.csv" "${NS[@]}" --table-id events --mode append --json
  expect_json "ns_${manifest}_append" 'd["rows_written"] == 2 and d["version"] == 2
    and d["table_id"] == ["events"] and d["uri"].endswith("events.lance")'
  run count "${NS[@]}" --table-id events
  expect_out "ns_${manifest}_count" $'5\n'
  run count "${NS[@]}" --table-id events --version 1
  expect_out "ns_${manifest}_count_v1" $'3\n'
  run scan "${NS[@]}" --table-id events --json --where 'id >= 4'
  expect_jsonl "ns_${manifest}_scan" 'rows == [{"id": 4, "name": "d"}, {"id": 5, "name": "e"}]'
  run versions "${NS[@]}" --table-id events --json
  expect_json "ns_${manifest}_versions" '[v["version"] for v in d] == [1, 2]'
  run delete "${NS[@]}" --table-id events --where 'id = 2' --json
  expect_json "ns_${manifest}_delete" 'd["rows_deleted"] == 1 and d["version"] == 3'
  run count "${NS[@]}" --table-id events
  expect_out "ns_${manifest}_count_after_delete" $'4\n'
  # The same table read by URI: the namespace wrote an ordinary dataset.
  run count "$R/events.lance"
  expect_out "ns_${manifest}_same_dataset_by_uri" $'4\n'
  run info "${NS[@]}" --table-id events
  if [ "$RC" = 0 ] && grep -q '^table: *events$' "$T/out" && grep -q '^rows: *4$' "$T/out"; then
    ok; else failed "ns_${manifest}_info" "table/rows lines"; fi
  run count "${NS[@]}" --table-id missing
  expect_fails_cleanly "ns_${manifest}_missing_table" 1 'TableNotFound'
done
# Multi-level ids (manifest mode): nested tables in Lance's <8 hex>_<ns>$<name> dirs.
R="$T/ns-root-true"
NS=(--namespace dir --ns-prop "root=$R")
run import "$T/ns.csv" "${NS[@]}" --table-id team --table-id events
expect_rc ns_nested_import 0
run import "$T/ns_more.csv" "${NS[@]}" --table-id team --table-id other
expect_rc ns_nested_import_other 0
if ls -d "$R"/*_team\$events >/dev/null 2>&1 && ls -d "$R"/*_team\$other >/dev/null 2>&1; then
  ok; else failed ns_nested_dirs "no <hex>_team\$events / <hex>_team\$other in $R"; fi
run count "${NS[@]}" --table-id team --table-id events
expect_out ns_nested_count $'3\n'
run count "${NS[@]}" --table-id team --table-id other
expect_out ns_nested_count_other $'2\n'
run scan "${NS[@]}" --table-id team --table-id events --json --columns name
expect_jsonl ns_nested_scan 'rows == [{"name": "a"}, {"name": "b"}, {"name": "c"}]'
run import "$T/ns_more.csv" "${NS[@]}" --table-id team --table-id events --mode append
expect_err ns_nested_append 'imported 2 rows into table "team\$events" .*append, version 2'
run versions "${NS[@]}" --table-id team --table-id events --json
expect_json ns_nested_versions '[v["version"] for v in d] == [1, 2]'
run delete "${NS[@]}" --table-id team --table-id events --where 'id > 2'
expect_err ns_nested_delete 'deleted 3 rows from table "team\$events"'
run info "${NS[@]}" --table-id team --table-id events --json
expect_json ns_nested_info 'd["table_id"] == ["team", "events"] and d["num_rows"] == 2
  and d["version"] == 3'
run count "${NS[@]}" --table-id team
expect_fails_cleanly ns_nested_partial_id 1 'TableNotFound'

# Usage errors.
run count "$T/x.lance" "${NS[@]}" --table-id events
expect_fails_cleanly ns_uri_and_namespace 2 'either a URI or --namespace, not both'
run count "${NS[@]}"
expect_fails_cleanly ns_missing_table_id 2 '--namespace needs --table-id'
run count --namespace nosuch --ns-prop uri=http://x --table-id events
expect_fails_cleanly ns_unknown_impl 2 'unknown namespace implementation "nosuch"'
run count --namespace dir --table-id events
expect_fails_cleanly ns_missing_root 2 "root"
run count --table-id events
expect_fails_cleanly ns_table_id_without_namespace 2 '--table-id needs --namespace'
run count --ns-prop root=/x "$T/x.lance"
expect_fails_cleanly ns_prop_without_namespace 2 '--ns-prop needs --namespace'
run import "$T/ns.csv" "${NS[@]}"
expect_fails_cleanly ns_import_missing_table_id 2 '--namespace needs --table-id'
run import "${NS[@]}" --table-id x
expect_fails_cleanly ns_import_missing_file 2 'missing FILE'
run count "${NS[@]}" --ns-prop novalue --table-id events
expect_fails_cleanly ns_bad_prop 2 'KEY=VALUE'
check ns_help 0 '--table-id' '' -- count --help

# Secrets given as --ns-prop storage.* or --storage-option are never printed, at debug
# log verbosity too, on success and on error paths (bad options, an unreachable S3 root,
# and -- when an RGW is configured -- a wrong secret answered 403).
SECRET1=NSPROPSECRET0123456789abcdef
SECRET2=STORAGEOPTSECRET0123456789ab
SECRET3=SESSIONTOKEN0123456789abcdef
for s in "$SECRET1" "$SECRET2" "$SECRET3"; do record_secret "$s"; done
export LANCE_LOG=debug
run info "${NS[@]}" --table-id events --ns-prop storage.aws_access_key_id=AKIDNSVISIBLE \
  --ns-prop "storage.aws_secret_access_key=$SECRET1" --ns-prop "storage.aws_session_token=$SECRET3" \
  --storage-option aws_access_key_id=AKIDOPTVISIBLE \
  --storage-option "aws_secret_access_key=$SECRET2" --json
expect_no_secret ns_secret_info_json "$SECRET1" "$SECRET2" "$SECRET3"
expect_json ns_secret_info_redacted 'd["namespace_properties"]["storage.aws_secret_access_key"]
  == "<redacted>" and d["namespace_properties"]["storage.aws_access_key_id"] == "AKID\u2026"
  and d["namespace_properties"]["storage.aws_session_token"] == "<redacted>"
  and d["storage_options"]["aws_secret_access_key"] == "<redacted>"'
run info "${NS[@]}" --table-id events --ns-prop storage.aws_access_key_id=AKIDNSVISIBLE \
  --ns-prop "storage.aws_secret_access_key=$SECRET1" --storage-option "aws_secret_access_key=$SECRET2"
expect_no_secret ns_secret_info_text "$SECRET1" "$SECRET2"
if grep -q 'storage.aws_secret_access_key=<redacted>' "$T/out"; then ok
else failed ns_secret_info_text_redacted "no storage.aws_secret_access_key=<redacted>"; fi
# The namespace keeps its storage options to itself (no vendor): the CLI uses them as its
# own, and a local root has no use for an S3 secret, with or without its key id.
run count "${NS[@]}" --table-id events --ns-prop "storage.aws_secret_access_key=$SECRET1"
expect_rc ns_secret_without_key_id 0
expect_no_secret ns_secret_without_key_id_quiet "$SECRET1"
run count "${NS[@]}" --table-id events --ns-prop "storage.aws_secret_access_key=$SECRET1" \
  --ns-prop "storage.aws_secret_access_key=$SECRET1"
expect_rc ns_secret_duplicate 2
expect_no_secret ns_secret_duplicate_quiet "$SECRET1"
S3NS=(--namespace dir --ns-prop "root=s3://no-such-bucket/ns" --ns-prop storage.endpoint=http://127.0.0.1:9
  --ns-prop storage.allow_http=true --ns-prop storage.region=us-east-1
  --ns-prop storage.client_max_retries=0 --ns-prop storage.aws_access_key_id=AKIDNSVISIBLE
  --ns-prop "storage.aws_secret_access_key=$SECRET1")
run import "$T/ns.csv" "${S3NS[@]}" --table-id events --storage-option "aws_secret_access_key=$SECRET2" \
  --storage-option aws_access_key_id=AKIDOPTVISIBLE
expect_rc ns_secret_unreachable_fails 1
expect_no_secret ns_secret_unreachable "$SECRET1" "$SECRET2"
run count "${S3NS[@]}" --table-id events
expect_rc ns_secret_unreachable_count_fails 1
expect_no_secret ns_secret_unreachable_count "$SECRET1"
if [ -n "${LANCE_S3_ENDPOINT:-}" ] && [ -n "${LANCE_S3_BUCKET:-}" ]; then
  RGWNS=(--namespace dir --ns-prop "root=s3://$LANCE_S3_BUCKET/cli-ns-$$-$RANDOM"
    --ns-prop "storage.endpoint=$LANCE_S3_ENDPOINT" --ns-prop storage.allow_http=true
    --ns-prop "storage.region=${LANCE_S3_REGION:-us-east-1}" --ns-prop storage.client_max_retries=0
    --ns-prop "storage.aws_access_key_id=$LANCE_S3_ACCESS_KEY")
  run import "$T/ns.csv" "${RGWNS[@]}" --ns-prop "storage.aws_secret_access_key=$SECRET1" \
    --table-id team --table-id events
  expect_rc ns_secret_rgw_wrong_secret_fails 1
  expect_no_secret ns_secret_rgw_wrong_secret "$SECRET1" "$LANCE_S3_SECRET_KEY"
  run import "$T/ns.csv" "${RGWNS[@]}" --ns-prop "storage.aws_secret_access_key=$LANCE_S3_SECRET_KEY" \
    --table-id team --table-id events
  expect_rc ns_rgw_import 0
  expect_no_secret ns_rgw_import_quiet "$LANCE_S3_SECRET_KEY"
  run count "${RGWNS[@]}" --ns-prop "storage.aws_secret_access_key=$LANCE_S3_SECRET_KEY" \
    --table-id team --table-id events
  expect_out ns_rgw_count $'3\n'
  expect_no_secret ns_rgw_count_quiet "$LANCE_S3_SECRET_KEY"
  run info "${RGWNS[@]}" --ns-prop "storage.aws_secret_access_key=$LANCE_S3_SECRET_KEY" \
    --table-id team --table-id events --json
  expect_no_secret ns_rgw_info_quiet "$LANCE_S3_SECRET_KEY"
  expect_json ns_rgw_info 'd["num_rows"] == 3 and d["uri"].startswith("s3://")'
fi
unset LANCE_LOG

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
