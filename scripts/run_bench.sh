#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `make bench`: lance-cpp and real Lance (pylance, from the project's venv) on the same data,
# in the same run: write, full scan to Arrow, filtered count, and the page-cache read of the
# data files as the ceiling. Prints a table and writes bench/results/latest.json.
# See docs/benchmarks.md for what each number means.
#
#   scripts/run_bench.sh [BUILD_DIR]
#
# Environment: LANCE_BENCH_REPS (timed repetitions per measurement, default 7; one warm-up
# run precedes them), LANCE_BENCH_ROWS (default 1000000), LANCE_BENCH_DIR (scratch
# directory, default a fresh one under $TMPDIR or /tmp, removed afterwards; needs ~2.5 GB),
# LANCE_BENCH_OUT (default bench/results/latest.json).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${1:-build}
REPS=${LANCE_BENCH_REPS:-7}
ROWS=${LANCE_BENCH_ROWS:-1000000}
OUT=${LANCE_BENCH_OUT:-bench/results/latest.json}
PY=$PWD/.venv/bin/python
BIN=$BUILD_DIR/bench/dataset_benchmark

log() { echo "[bench] $*" >&2; }

[ -x "$BIN" ] || { log "missing $BIN: build with LANCE_BUILD_BENCHMARKS=ON (make build)"; exit 1; }
[ -x "$PY" ] || { log "missing $PY: run scripts/setup.sh (make setup)"; exit 1; }

if [ -n "${LANCE_BENCH_DIR:-}" ]; then
  WORK=$LANCE_BENCH_DIR
  mkdir -p "$WORK"
else
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/lance-bench.XXXXXX")
  trap 'rm -rf "$WORK"' EXIT
fi

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
log "scratch directory $WORK; load average $load_before on $(nproc) CPUs"
if awk -v l="${load_before%% *}" -v n="$(nproc)" 'BEGIN { exit !(l > 0.5 * n) }'; then
  log "WARNING: the machine is busy (load average $load_before): timings will be noisy"
fi

DATA=$WORK/data.arrow
log "generating $ROWS rows (numpy, seed 42) -> Arrow IPC file"
"$PY" bench/pylance_bench.py gen --rows "$ROWS" --out "$DATA"
sync

# Writes first (each keeps its last dataset), then the reads, each in a fresh process (a
# process that has just written 0.5 GB has a different malloc state), engines alternating:
# each engine on the dataset it wrote, then each on the other's dataset.
log "lance-cpp: write"
"$BIN" write --input "$DATA" --workdir "$WORK" --out "$WORK/lance-cpp-write.json" --reps "$REPS"
log "pylance: write"
"$PY" bench/pylance_bench.py write --input "$DATA" --workdir "$WORK" \
  --out "$WORK/pylance-write.json" --reps "$REPS"
for ds in lance-cpp pylance; do
  log "lance-cpp: scan, count, page-cache read of $ds.lance"
  "$BIN" scan --input "$DATA" --dataset "$WORK/$ds.lance" --out "$WORK/lance-cpp-scan-$ds.json" \
    --reps "$REPS"
  log "pylance: scan, count of $ds.lance"
  "$PY" bench/pylance_bench.py scan --input "$DATA" --dataset "$WORK/$ds.lance" \
    --out "$WORK/pylance-scan-$ds.json" --reps "$REPS"
done

"$PY" bench/report.py --dir "$WORK" --out "$OUT" --load-before "$load_before"
