# SPDX-License-Identifier: Apache-2.0
# Sourced by the black-box shell tests (cli_test.sh, tool_args_test.sh): the verdict on one
# command's exit status and output.

# judge NAME RC EXPECTED_EXIT STDOUT_REGEX STDERR_REGEX STDOUT_FILE STDERR_FILE
# Succeeds when the command exited EXPECTED_EXIT, its stdout matches STDOUT_REGEX (an empty
# one: stdout must be empty) and its stderr STDERR_REGEX (an empty one: no check);
# otherwise prints why (FAIL NAME: ...) with the output concerned, and fails.
judge() {
  local name=$1 rc=$2 want=$3 out_re=$4 err_re=$5 out=$6 err=$7
  if [ "$rc" != "$want" ]; then
    echo "FAIL $name: exit $rc, want $want"; cat "$err"
  elif [ -n "$out_re" ] && ! grep -Eq -e "$out_re" "$out"; then
    echo "FAIL $name: stdout does not match /$out_re/:"; cat "$out"
  elif [ -z "$out_re" ] && [ -s "$out" ]; then
    echo "FAIL $name: expected empty stdout, got:"; cat "$out"
  elif [ -n "$err_re" ] && ! grep -Eq -e "$err_re" "$err"; then
    echo "FAIL $name: stderr does not match /$err_re/:"; cat "$err"
  else
    return 0
  fi
  return 1
}
