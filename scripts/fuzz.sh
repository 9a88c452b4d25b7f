#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The libFuzzer targets of tests/fuzz (docs/reliability.md).
#
#   scripts/fuzz.sh build DIR              configure DIR with clang-14 (LANCE_ENABLE_FUZZING,
#                                          no tests / CLI / Python / benchmarks) and build
#                                          only `fuzz_targets`
#   scripts/fuzz.sh run --short DIR        every target for LANCE_FUZZ_SHORT_SECONDS (25 s)
#                                          over a copy of its committed corpus, two at a time
#                                          (make test); fails on any crash, leak or timeout
#   scripts/fuzz.sh run --long DIR [ASAN_DIR]
#                                          every target for LANCE_FUZZ_LONG_SECONDS (600 s),
#                                          new inputs kept in DIR/fuzz-corpus/<name>/; then
#                                          the damaged-copies corpus at 20x under ASan+UBSan
#                                          (ASAN_DIR's format_test) (make fuzz)
#   scripts/fuzz.sh minimize DIR           merges DIR/fuzz-corpus/<name>/ into the committed
#                                          tests/fuzz/corpus/<name>/ with -merge=1 (only
#                                          inputs that add coverage are kept); review and
#                                          commit the result
#   scripts/fuzz.sh repro DIR NAME FILE    runs one input through target NAME
#
# Both run modes print one JSON line per run -- per target: executions, corpus files and
# bytes at the end, status -- also written to $LANCE_TEST_LOG_DIR/fuzz-summary.json when
# that is set. A crash leaves its input in DIR/fuzz-artifacts/<name>/; fix the bug, then
# commit the input to tests/fuzz/regressions/<name>/ (fuzz_test replays it in every build).
# The committed corpus is never written by `run`.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PARALLEL=${LANCE_FUZZ_PARALLEL:-2}

log() { echo "[fuzz] $*" >&2; }
die() { log "$*"; exit 2; }

targets() {
  local dir=$1
  local found=0
  for bin in "$dir"/tests/fuzz/*_fuzz; do
    [ -x "$bin" ] || continue
    found=1
    basename "$bin" _fuzz
  done
  [ "$found" = 1 ] || die "no fuzz targets in $dir/tests/fuzz (scripts/fuzz.sh build $dir)"
}

cmd_build() {
  local dir=$1
  command -v clang++-14 >/dev/null || die "clang++-14 missing (scripts/setup.sh installs it)"
  # -O1 and line tables only: what libFuzzer recommends, and a faster build.
  CC=clang-14 CXX=clang++-14 cmake -S "$ROOT" -B "$dir" -G Ninja \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" \
    "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" \
    -DLANCE_ENABLE_FUZZING=ON -DLANCE_BUILD_TESTS=OFF -DLANCE_BUILD_CLI=OFF \
    -DLANCE_BUILD_PYTHON=OFF -DLANCE_BUILD_JAVA=OFF -DLANCE_BUILD_BENCHMARKS=OFF >/dev/null
  ninja -C "$dir" -j"${JOBS:-$(nproc)}" fuzz_targets
}

# fuzz_one DIR NAME SECONDS OUT_CORPUS: one libFuzzer run; the log and a one-line result
# (name status execs corpus_files corpus_bytes) land in $RESULTS/NAME.{log,result}.
fuzz_one() {
  local dir=$1 name=$2 seconds=$3 out=$4
  local bin=$dir/tests/fuzz/${name}_fuzz
  local seeds=$ROOT/tests/fuzz/corpus/$name
  local artifacts=$dir/fuzz-artifacts/$name
  mkdir -p "$out" "$artifacts"
  local logf=$RESULTS/$name.log
  local status=ok
  # New inputs go to the first directory only; the committed seeds are read, not written.
  # -timeout: one input taking 25 s is a hang; -rss_limit_mb: 2 GiB is a leak or a
  # lying length followed blindly.
  if ! ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
      UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
      "$bin" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$artifacts/" "$out" "$seeds" \
        >"$logf" 2>&1; then
    status=failed
  fi
  local execs corp_files corp_bytes
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$logf" | tail -1 || true)
  # The last status line: "#1234 DONE cov: 567 ft: 890 corp: 45/12Kb ...".
  corp_files=$(grep -o 'corp: [0-9]*/[0-9]*[bKM]*b*' "$logf" | tail -1 |
                 sed 's|corp: \([0-9]*\)/.*|\1|' || true)
  corp_bytes=$(grep -o 'corp: [0-9]*/[0-9]*[bKMG]*b' "$logf" | tail -1 |
                 sed 's|corp: [0-9]*/||' | awk '
                   /Kb$/ {sub("Kb",""); print $0*1024; next}
                   /Mb$/ {sub("Mb",""); print $0*1048576; next}
                   {sub("b",""); print $0}' || true)
  echo "$name $status ${execs:-0} ${corp_files:-0} ${corp_bytes:-0}" >"$RESULTS/$name.result"
  if [ "$status" != ok ]; then
    log "$name FAILED; log: $logf; inputs: $artifacts"
    grep -E "ERROR|SUMMARY|==[0-9]+==|Test unit written" "$logf" | head -20 >&2 || true
  fi
}

summary() {
  local mode=$1 seconds=$2
  local json="{\"mode\":\"$mode\",\"seconds_per_target\":$seconds,\"targets\":{"
  local sep="" failed=0 total_execs=0 name status execs files bytes
  for f in "$RESULTS"/*.result; do
    read -r name status execs files bytes <"$f"
    json+="$sep\"$name\":{\"status\":\"$status\",\"execs\":$execs,\"corpus_files\":$files,\"corpus_bytes\":$bytes}"
    sep=","
    total_execs=$((total_execs + execs))
    [ "$status" = ok ] || failed=1
  done
  json+="},\"total_execs\":$total_execs,\"ok\":$([ $failed = 0 ] && echo true || echo false)}"
  echo "$json"
  if [ -n "${LANCE_TEST_LOG_DIR:-}" ]; then
    mkdir -p "$LANCE_TEST_LOG_DIR"
    echo "$json" >"$LANCE_TEST_LOG_DIR/fuzz-summary.json"
  fi
  return $failed
}

# run_all DIR SECONDS CORPUS_ROOT: every target, PARALLEL at a time.
run_all() {
  local dir=$1 seconds=$2 corpus_root=$3
  local names
  names=$(targets "$dir")
  local running=0
  for name in $names; do
    fuzz_one "$dir" "$name" "$seconds" "$corpus_root/$name" &
    running=$((running + 1))
    if [ "$running" -ge "$PARALLEL" ]; then
      wait -n || true
      running=$((running - 1))
    fi
  done
  wait || true
}

cmd_run() {
  local mode=$1 dir
  dir=$(realpath "$2")
  RESULTS=$(mktemp -d)
  export RESULTS
  local status=0
  case "$mode" in
    --short)
      local seconds=${LANCE_FUZZ_SHORT_SECONDS:-25}
      local scratch
      scratch=$(mktemp -d)
      log "every target for ${seconds}s over its committed corpus ($PARALLEL at a time)"
      run_all "$dir" "$seconds" "$scratch"
      summary short "$seconds" || status=1
      rm -rf "$scratch"
      ;;
    --long)
      local seconds=${LANCE_FUZZ_LONG_SECONDS:-600}
      log "every target for ${seconds}s; new inputs in $dir/fuzz-corpus/<name>/"
      run_all "$dir" "$seconds" "$dir/fuzz-corpus"
      summary long "$seconds" || status=1
      log "to keep what they found: scripts/fuzz.sh minimize $dir, review, commit tests/fuzz/corpus"
      local asan=${3:-}
      if [ -n "$asan" ]; then
        log "damaged-copies corpus at 20x under ASan+UBSan ($asan)"
        LANCE_CORRUPT_SCALE=20 ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1} \
          UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
          "$asan/tests/format/format_test" --gtest_filter='*Corrupt*' --gtest_brief=1 ||
          status=1
      fi
      ;;
    *) die "usage: scripts/fuzz.sh run --short|--long DIR [ASAN_DIR]" ;;
  esac
  rm -rf "$RESULTS"
  return $status
}

cmd_minimize() {
  local dir
  dir=$(realpath "$1")
  for name in $(targets "$dir"); do
    local committed=$ROOT/tests/fuzz/corpus/$name merged
    merged=$(mktemp -d)
    "$dir/tests/fuzz/${name}_fuzz" -merge=1 -rss_limit_mb=2048 -timeout=25 "$merged" \
      "$committed" "$dir/fuzz-corpus/$name" >/dev/null 2>&1 ||
      { log "$name: merge failed"; rm -rf "$merged"; continue; }
    rm -rf "$committed"
    mkdir -p "$committed"
    cp "$merged"/* "$committed"/ 2>/dev/null || true
    rm -rf "$merged"
    log "$name: $(find "$committed" -type f | wc -l) files, $(du -sh "$committed" | cut -f1)"
  done
}

cmd_repro() {
  local dir=$1 name=$2 file=$3
  "$dir/tests/fuzz/${name}_fuzz" -runs=1 "$file"
}

case "${1:-}" in
  build) [ $# -eq 2 ] || die "usage: scripts/fuzz.sh build DIR"; cmd_build "$2" ;;
  run) [ $# -ge 3 ] || die "usage: scripts/fuzz.sh run --short|--long DIR [ASAN_DIR]"
       cmd_run "$2" "$3" "${4:-}" ;;
  minimize) [ $# -eq 2 ] || die "usage: scripts/fuzz.sh minimize DIR"; cmd_minimize "$2" ;;
  repro) [ $# -eq 4 ] || die "usage: scripts/fuzz.sh repro DIR NAME FILE"
         cmd_repro "$2" "$3" "$4" ;;
  *) die "usage: scripts/fuzz.sh build|run|minimize|repro ... (see the header)" ;;
esac
