#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `make bench`: lance-cpp and real Lance (pylance, from the project's venv) on the same data,
# in the same run: write, full scan to Arrow, filtered count, and the page-cache read of the
# data files as the ceiling, in file format 2.0; then in file format 2.2 (on the same data
# plus three columns for its encodings) the same plus a take of 10,000 random rows and the
# data files' sizes. Then the S3 part: lance-cpp writing and scanning a ~1.1 GiB
# dataset on a Ceph RGW it starts itself, against curl PUT/GET of the same objects. Prints
# tables and writes bench/results/latest.json. See docs/benchmarks.md for what each number
# means.
#
#   scripts/run_bench.sh [BUILD_DIR]
#
# Environment: LANCE_BENCH_REPS (timed repetitions per measurement, default 7; one warm-up
# run precedes them), LANCE_BENCH_ROWS (default 1000000), LANCE_BENCH_DIR (scratch
# directory, default a fresh one under $TMPDIR or /tmp, removed afterwards; needs ~4 GB),
# LANCE_BENCH_OUT (default bench/results/latest.json), LANCE_BENCH_PARTS (default
# "local s3"; "s3" alone updates only the S3 keys of LANCE_BENCH_OUT).
# S3 part: LANCE_BENCH_S3_REPS (default 3), LANCE_BENCH_S3_FILES (default 16 data files)
# of LANCE_BENCH_S3_ROWS_PER_FILE (default 524288 rows, ~75 MB), LANCE_BENCH_S3_PARALLEL
# (curl processes at a time, default 4), LANCE_BENCH_RGW_PORT / LANCE_BENCH_MON_PORT (7495 /
# 6795: not the test RGW's 7480 / 6789, so a running test RGW is left alone; the mon port
# stays below 6800, where OSDs pick their ports). The RGW lives in BUILD_DIR/rgw-bench and
# is stopped and removed at exit.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${1:-build}
REPS=${LANCE_BENCH_REPS:-7}
ROWS=${LANCE_BENCH_ROWS:-1000000}
OUT=${LANCE_BENCH_OUT:-bench/results/latest.json}
PARTS=${LANCE_BENCH_PARTS:-local s3}
PY=$PWD/.venv/bin/python
BIN=$BUILD_DIR/bench/dataset_benchmark
S3BIN=$BUILD_DIR/bench/s3_benchmark
RGW_DIR=$BUILD_DIR/rgw-bench

log() { echo "[bench +${SECONDS}s] $*" >&2; }
part() { [[ " $PARTS " == *" $1 "* ]]; }

need() { [ -x "$1" ] || { log "missing $1: build with LANCE_BUILD_BENCHMARKS=ON (make build)"; exit 1; }; }
part local && need "$BIN"
part s3 && need "$S3BIN"
[ -x "$PY" ] || { log "missing $PY: run scripts/setup.sh (make setup)"; exit 1; }

rgw_started=
WORK=
cleanup() {
  if [ -n "$rgw_started" ]; then
    log "stopping the benchmark RGW ($RGW_DIR)"
    scripts/rgw.sh stop "$RGW_DIR" || true
  fi
  if [ -z "${LANCE_BENCH_DIR:-}" ] && [ -n "$WORK" ]; then rm -rf "$WORK"; fi
}
trap cleanup EXIT

if [ -n "${LANCE_BENCH_DIR:-}" ]; then
  WORK=$LANCE_BENCH_DIR
  mkdir -p "$WORK"
else
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/lance-bench.XXXXXX")
fi

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
log "scratch directory $WORK; load average $load_before on $(nproc) CPUs"
if awk -v l="${load_before%% *}" -v n="$(nproc)" 'BEGIN { exit !(l > 0.5 * n) }'; then
  log "WARNING: the machine is busy (load average $load_before): timings will be noisy"
fi

local_seconds=
if part local; then
  local_start=$(date +%s)
  DATA=$WORK/data.arrow
  DATA22=$WORK/data-v22.arrow
  TAKE=$WORK/take-v22.i64
  log "generating $ROWS rows (numpy, seed 42) -> Arrow IPC files (2.0 data, 2.2 data), take indices"
  "$PY" bench/pylance_bench.py gen --rows "$ROWS" --out "$DATA" --out-v22 "$DATA22" \
    --take-out "$TAKE"
  sync

  # Per file format: writes first (each keeps its last dataset), then the reads, each in a
  # fresh process (a process that has just written 0.5 GB has a different malloc state),
  # engines alternating: each engine on the dataset it wrote, then each on the other's.
  # File format 2.0 (the datasets lance-cpp.lance, pylance.lance; keys without "v22").
  log "lance-cpp: write (2.0)"
  "$BIN" write --format 2.0 --input "$DATA" --workdir "$WORK" --dataset "$WORK/lance-cpp.lance" \
    --out "$WORK/lance-cpp-write.json" --reps "$REPS"
  log "pylance: write (2.0)"
  "$PY" bench/pylance_bench.py write --format 2.0 --input "$DATA" --workdir "$WORK" \
    --dataset "$WORK/pylance.lance" --out "$WORK/pylance-write.json" --reps "$REPS"
  for ds in lance-cpp pylance; do
    log "lance-cpp: scan, count, page-cache read of $ds.lance (2.0)"
    "$BIN" scan --input "$DATA" --dataset "$WORK/$ds.lance" --out "$WORK/lance-cpp-scan-$ds.json" \
      --reps "$REPS"
    log "pylance: scan, count of $ds.lance (2.0)"
    "$PY" bench/pylance_bench.py scan --input "$DATA" --dataset "$WORK/$ds.lance" \
      --out "$WORK/pylance-scan-$ds.json" --reps "$REPS"
  done

  # File format 2.2 (lance-cpp-v22.lance, pylance-v22.lance): the same, plus take.
  log "lance-cpp: write (2.2)"
  "$BIN" write --format 2.2 --input "$DATA22" --workdir "$WORK" \
    --dataset "$WORK/lance-cpp-v22.lance" --out "$WORK/lance-cpp-write-v22.json" --reps "$REPS"
  log "pylance: write (2.2)"
  "$PY" bench/pylance_bench.py write --format 2.2 --input "$DATA22" --workdir "$WORK" \
    --dataset "$WORK/pylance-v22.lance" --out "$WORK/pylance-write-v22.json" --reps "$REPS"
  for ds in lance-cpp pylance; do
    log "lance-cpp: scan, count, take, page-cache read of $ds-v22.lance (2.2)"
    "$BIN" scan --input "$DATA22" --dataset "$WORK/$ds-v22.lance" --take "$TAKE" \
      --out "$WORK/lance-cpp-scan-$ds-v22.json" --reps "$REPS"
    log "pylance: scan, count, take of $ds-v22.lance (2.2)"
    "$PY" bench/pylance_bench.py scan --input "$DATA22" --dataset "$WORK/$ds-v22.lance" \
      --take "$TAKE" --out "$WORK/pylance-scan-$ds-v22.json" --reps "$REPS"
  done
  local_seconds=$(( $(date +%s) - local_start ))
  log "local part: $local_seconds s"
fi

if part s3; then
  # A private RGW on its own ports (the tests' RGW, if one runs, is not touched).
  log "starting a Ceph RGW for the S3 benchmark in $RGW_DIR"
  rgw_started=1
  # Up to 3 tries: on a busy machine ceph-osd sometimes asks the mon before it has the
  # monmap ("wrong fsid" in the osd log) and exits; a new start wipes the failed one.
  for try in 1 2 3; do
    if rgw_env=$(RGW_PORT=${LANCE_BENCH_RGW_PORT:-7495} MON_PORT=${LANCE_BENCH_MON_PORT:-6795} \
      scripts/rgw.sh start "$RGW_DIR"); then
      break
    fi
    [ "$try" -lt 3 ] || { log "the benchmark RGW did not start"; exit 1; }
    log "the benchmark RGW did not start (try $try of 3); starting it again"
  done
  eval "$rgw_env"
  server_pids=$(cat "$RGW_DIR"/run/{client.rgw,osd.0,mon.a}.pid 2>/dev/null | paste -sd, -)
  log "S3: write and scan on $LANCE_S3_ENDPOINT, against curl"
  "$S3BIN" --out "$WORK/s3.json" --workdir "$WORK" --reps "${LANCE_BENCH_S3_REPS:-3}" \
    --files "${LANCE_BENCH_S3_FILES:-16}" \
    --rows-per-file "${LANCE_BENCH_S3_ROWS_PER_FILE:-524288}" \
    --parallel "${LANCE_BENCH_S3_PARALLEL:-4}" --server-pids "$server_pids"
  log "stopping the benchmark RGW"
  scripts/rgw.sh stop "$RGW_DIR"
  rgw_started=
fi

report_args=(--dir "$WORK" --out "$OUT" --load-before "$load_before")
[ -z "$local_seconds" ] || report_args+=(--local-seconds "$local_seconds")
part local || report_args+=(--s3-only)
"$PY" bench/report.py "${report_args[@]}"
