#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The whole suite, several times in a row, on a machine loaded by stress-ng: proof that the
# suite does not flake on a busy 2-core machine (issue 15). `make stress` builds build,
# build-asan, build-tsan and build-fuzz first and calls this.
#
#   scripts/stress.sh [BUILD_DIR [ASAN_DIR]]
#
# Each run is `scripts/run_tests.sh BUILD_DIR ASAN_DIR` with TSAN_DIR / FUZZ_DIR as in the
# Makefile's test target (its own RGW, started and stopped per run). stress-ng loads the
# machine for the whole time (STRESS_ARGS). Per run: pass/fail, duration, the failing ctest
# tests; written to BUILD_DIR/stress/results.json, a summary printed. Exit status: 0 when
# every run passed.
#
# Knobs: STRESS_RUNS (3), STRESS_ARGS ("--cpu 2 --io 1 --vm 1 --vm-bytes 2G"),
# TSAN_DIR (build-tsan), FUZZ_DIR (build-fuzz); an empty TSAN_DIR / FUZZ_DIR skips that pass.
# STRESS_COMMAND replaces the suite by another command (run with bash -c, e.g. a few
# suites against an RGW that is already up); default: scripts/run_tests.sh as above.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

BUILD_DIR=${1:-build}
ASAN_DIR=${2:-build-asan}
RUNS=${STRESS_RUNS:-3}
STRESS_ARGS=${STRESS_ARGS:---cpu 2 --io 1 --vm 1 --vm-bytes 2G}
export TSAN_DIR=${TSAN_DIR-build-tsan}
export FUZZ_DIR=${FUZZ_DIR-build-fuzz}
OUT=$ROOT/$BUILD_DIR/stress
mkdir -p "$OUT"

log() { echo "[stress] $*" >&2; }

command -v stress-ng >/dev/null || { log "stress-ng is missing: run scripts/setup.sh"; exit 1; }
[[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || { log "STRESS_RUNS must be a positive integer"; exit 1; }

# stress-ng runs in its own process group, stopped (by its pid) whatever happens.
stress_pid=""
stop_stress() {
  if [ -n "$stress_pid" ] && kill -0 "$stress_pid" 2>/dev/null; then
    kill -TERM -- "-$stress_pid" 2>/dev/null || kill -TERM "$stress_pid" 2>/dev/null || true
    wait "$stress_pid" 2>/dev/null || true
  fi
  stress_pid=""
}
trap stop_stress EXIT
# shellcheck disable=SC2086  # STRESS_ARGS is a list of options
setsid stress-ng $STRESS_ARGS --timeout 0 --quiet >"$OUT/stress-ng.log" 2>&1 &
stress_pid=$!
sleep 1
kill -0 "$stress_pid" 2>/dev/null || { log "stress-ng did not start:"; cat "$OUT/stress-ng.log" >&2; exit 1; }
log "stress-ng $STRESS_ARGS running (pid $stress_pid); $RUNS run(s) of the whole suite"

rm -f "$OUT/runs.txt.tmp"
failed_runs=0
for run in $(seq 1 "$RUNS"); do
  run_log=$OUT/run-$run.log
  log "run $run/$RUNS (log: $run_log)"
  started=$(date +%s)
  set +e
  if [ -n "${STRESS_COMMAND:-}" ]; then
    bash -c "$STRESS_COMMAND" >"$run_log" 2>&1
  else
    scripts/run_tests.sh "$BUILD_DIR" "$ASAN_DIR" >"$run_log" 2>&1
  fi
  status=$?
  set -e
  seconds=$(($(date +%s) - started))
  # ctest prints "  N - name (Failed)" / "(Timeout)" etc. under "The following tests FAILED:".
  grep -E '^[[:space:]]*[0-9]+ - [^ ]+ \((Failed|Timeout|Not Run|SEGFAULT|Subprocess aborted|Exception|Child aborted)' "$run_log" \
    | sed -E 's/^[[:space:]]*[0-9]+ - ([^ ]+) .*/\1/' | sort -u >"$OUT/run-$run.failed" || true
  # Failing gtest cases and pytest tests, for the record.
  grep -hoE '^\[  FAILED  \] [A-Za-z0-9_/.]+|^FAILED [^ ]+' "$run_log" | sed -E 's/^\[  FAILED  \] //; s/^FAILED //' \
    | sort -u >"$OUT/run-$run.cases" || true
  if [ "$status" -eq 0 ]; then
    log "run $run passed in ${seconds} s"
  else
    failed_runs=$((failed_runs + 1))
    log "run $run FAILED in ${seconds} s: $(tr '\n' ' ' <"$OUT/run-$run.failed")"
  fi
  echo "$run $status $seconds" >>"$OUT/runs.txt.tmp"
done
stop_stress

# results.json from the per-run files.
python3 - "$OUT" "$STRESS_ARGS" "$RUNS" <<'PY'
import json, os, sys
out, args, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
rows = [line.split() for line in open(os.path.join(out, "runs.txt.tmp"))]
def lines(path):
    return [l.strip() for l in open(path) if l.strip()] if os.path.exists(path) else []
results = {
    "stress_ng": args,
    "command": os.environ.get("STRESS_COMMAND") or "scripts/run_tests.sh",
    "runs": [
        {"run": int(r), "passed": int(s) == 0, "exit_status": int(s), "seconds": int(t),
         "failed_tests": lines(os.path.join(out, f"run-{r}.failed")),
         "failed_cases": lines(os.path.join(out, f"run-{r}.cases"))}
        for r, s, t in rows[-runs:]
    ],
}
results["passed_runs"] = sum(r["passed"] for r in results["runs"])
with open(os.path.join(out, "results.json"), "w") as f:
    json.dump(results, f, indent=2)
print(f"[stress] {results['passed_runs']}/{len(results['runs'])} runs passed under "
      f"stress-ng {args}")
for r in results["runs"]:
    state = "passed" if r["passed"] else "FAILED " + " ".join(r["failed_tests"] + r["failed_cases"])
    print(f"[stress]   run {r['run']}: {r['seconds']} s, {state}")
PY
rm -f "$OUT/runs.txt.tmp"
log "results: $OUT/results.json"
[ "$failed_runs" -eq 0 ]
