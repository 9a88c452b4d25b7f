#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Profiles one lance-cpp operation of the benchmark with perf (cpu-clock sampling, DWARF
# call graphs), after warm-up runs, and prints the top functions (self and children).
#
#   bench/profile.sh BUILD_DIR write|write-nofsync|scan|count DATASET_URI [DATA.arrow]
#
# Keep a scratch directory from `LANCE_BENCH_DIR=/tmp/lb scripts/run_bench.sh` to get a
# DATA.arrow and datasets (lance-cpp.lance, pylance.lance). Env: REPS (default 5), WARMUP
# (default 2), PERF_OUT (default /tmp/lance-bench-perf.data).
# Needs perf; with no hardware counters (VMs) cpu-clock still works. For instruction-level
# detail of user code use valgrind instead:
#   valgrind --tool=callgrind --toggle-collect='*RunOp*' BUILD_DIR/bench/dataset_benchmark op ...
set -euo pipefail
BUILD_DIR=$1
OP=$2
DATASET=$3
INPUT=${4:-}
REPS=${REPS:-5}
WARMUP=${WARMUP:-2}
OUT=${PERF_OUT:-/tmp/lance-bench-perf.data}
BIN=$BUILD_DIR/bench/dataset_benchmark

ctl_dir=$(mktemp -d)
trap 'rm -rf "$ctl_dir"' EXIT
mkfifo "$ctl_dir/ctl" "$ctl_dir/ack"
args=(op "$OP" --dataset "$DATASET" --reps "$REPS" --warmup "$WARMUP")
[ -n "$INPUT" ] && args+=(--input "$INPUT")
LANCE_BENCH_PERF_CTL=$ctl_dir/ctl LANCE_BENCH_PERF_ACK=$ctl_dir/ack \
  perf record -q -e cpu-clock --call-graph dwarf,32768 -D -1 \
  --control "fifo:$ctl_dir/ctl,$ctl_dir/ack" -o "$OUT" -- "$BIN" "${args[@]}"
echo "== self time"
perf report -i "$OUT" --stdio --no-children --percent-limit 0.7 -g none 2>/dev/null |
  grep -E '^ +[0-9]'
echo "== with children (user-space frames)"
perf report -i "$OUT" --stdio --children --percent-limit 1.5 -g none 2>/dev/null |
  grep -E '^ +[0-9]' | grep -v '\[k\]' | grep -v '(inlined)' | head -45
