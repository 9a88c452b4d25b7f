#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The command lines of lance-interop and lance-ns, which parse their arguments with the
# parser lance-cpp uses (cli/args): accepted spellings, usage errors (exit 2, message
# naming the option, never a KEY=VALUE's value) and help. No datasets are written except
# an empty directory namespace.
# Usage: tool_args_test.sh PATH/TO/lance-interop PATH/TO/lance-ns
set -u
. "$(dirname "$0")/check_output.sh"
INTEROP=$1
NS=$2
pass=0; fail=0
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# Every command's output is also appended to $LANCE_TEST_LOG_DIR/tool_args_test.log (set by
# scripts/run_tests.sh) for scripts/scan_secrets.sh: this script deletes $T.
KEEP=${LANCE_TEST_LOG_DIR:+$LANCE_TEST_LOG_DIR/tool_args_test.log}

# check NAME EXPECTED_EXIT STDOUT_REGEX STDERR_REGEX -- COMMAND...
# An empty STDOUT_REGEX means stdout must be empty; STDERR_REGEX may be empty (no check).
check() {
  local name=$1 want=$2 out_re=$3 err_re=$4; shift 5
  "$@" >"$T/out" 2>"$T/err"; local rc=$?
  if [ -n "$KEEP" ]; then
    { echo "== $name (exit $rc)"; cat "$T/out" "$T/err"; } >>"$KEEP"
  fi
  if ! judge "$name" "$rc" "$want" "$out_re" "$err_re" "$T/out" "$T/err"; then
    fail=$((fail+1))
  elif grep -q "s3cr3t" "$T/out" "$T/err"; then
    echo "FAIL $name: a value given on the command line was echoed"; fail=$((fail+1))
  else
    pass=$((pass+1))
  fi
}

# -- lance-interop -------------------------------------------------------------------------
check interop_no_args 2 '' 'usage:' -- "$INTEROP"
check interop_help 0 '' 'lance-interop read URI' -- "$INTEROP" --help
check interop_unknown_command 2 '' "unknown command 'bogus'" -- "$INTEROP" bogus
check interop_unknown_option 2 '' "unknown option '--bogus'" -- "$INTEROP" count "$T/x" --bogus
check interop_missing_value 2 '' "option '--filter' needs a value" \
  -- "$INTEROP" count "$T/x" --filter
check interop_flag_value 2 '' "option '--zstd' takes no value" \
  -- "$INTEROP" read "$T/x" "$T/o.arrow" --zstd=1
check interop_twice 2 '' "option '--version' given more than once" \
  -- "$INTEROP" count "$T/x" --version 1 --version=2
check interop_bad_int 2 '' "--limit needs an integer, got 'ten'" \
  -- "$INTEROP" read "$T/x" "$T/o.arrow" --limit ten
check interop_low_int 2 '' "--max-rows-per-file must be at least 1" \
  -- "$INTEROP" write "$T/in.arrow" "$T/x" --mode create --max-rows-per-file 0
check interop_positionals 2 '' "expected 1 arguments, got 2" -- "$INTEROP" versions "$T/x" extra
check interop_storage_option 2 '' "--storage-option needs KEY=VALUE" \
  -- "$INTEROP" count "$T/x" --storage-option s3cr3t
check interop_storage_option_inline 2 '' "--storage-option needs KEY=VALUE" \
  -- "$INTEROP" count "$T/x" --storage-option==s3cr3t
# Well-formed command lines get past the parser: the failure is the missing dataset (1).
check interop_parsed 1 '' 'lance-interop count: ' \
  -- "$INTEROP" count --storage-option=a=b "$T/missing" --filter "x > 1" --version=3
# "--" ends the options: a dataset path that starts with dashes.
check interop_double_dash 1 '' 'lance-interop count: ' -- "$INTEROP" count -- --missing

# -- lance-ns ------------------------------------------------------------------------------
mkdir -p "$T/root"
check ns_help 0 '--prop VALUE' '' -- "$NS" --help
check ns_no_command 2 '' 'missing command' -- "$NS"
check ns_list 0 '"tables":\[\]' '' -- "$NS" list-tables --prop "root=$T/root" --limit 5
check ns_list_inline 0 '"tables":\[\]' '' -- "$NS" list-tables "--prop=root=$T/root"
check ns_unknown_option 2 '' "unknown option '--bogus'" -- "$NS" list-tables --bogus 1
check ns_missing_value 2 '' "option '--limit' needs a value" -- "$NS" list-tables --limit
check ns_bad_int 2 '' "--limit needs an integer, got 'many'" \
  -- "$NS" list-tables --prop "root=$T/root" --limit many
check ns_negative 2 '' "--rows must be at least 0" \
  -- "$NS" create --prop "root=$T/root" --id t --rows -1
check ns_twice 2 '' "option '--limit' given more than once" \
  -- "$NS" list-tables --limit 1 --limit 2
check ns_bad_prop 2 '' "--prop needs KEY=VALUE" -- "$NS" list-tables --prop s3cr3t
check ns_bad_property 2 '' "--property needs KEY=VALUE" \
  -- "$NS" declare --prop "root=$T/root" --id t --property =s3cr3t
check ns_positional 2 '' "unexpected argument 'extra'" -- "$NS" list-tables extra
check ns_flag_value 2 '' "option '--detailed' takes no value" \
  -- "$NS" describe --detailed=yes

echo "tool_args_test: $pass passed, $fail failed"
[ "$fail" = 0 ]
