#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `make bench`: ONE run at ONE commit of lance-cpp against real Lance (pylance, from the
# project's venv), on the same data, in the same places. Parts (LANCE_BENCH_PARTS):
#
#   local   file format 2.0, then 2.2 (on the same data plus three columns for its
#           encodings): write, full scan, filtered count (2.2: and a take of 10,000 rows),
#           every read by both engines on both engines' datasets; page-cache ceiling.
#   growth  the 2.0 write and scan of both engines at LANCE_BENCH_GROWTH_ROWS (4M) rows,
#           next to the 1M of "local": how time and peak RSS grow.
#   s3      on a Ceph RGW this script starts (ports 7495/6795): lance-cpp's write and scan
#           of a ~1.1 GiB dataset against curl PUT/GET of the same objects
#           (bench/s3_benchmark.cc), pylance's write and scan of the same rows on the same
#           RGW, and each engine scanning the other's S3 dataset.
#   refresh build/bench/refresh_benchmark on the same RGW (request latency under load with
#           short-lived vended credentials); a failure is recorded, never dropped.
#   ray     on the same RGW, a local Ray of 2 CPUs: lance_cpp.ray against lance-ray
#           (pylance) on the same job -- a Ray Dataset of 4M generated rows written as a
#           table of a directory namespace, read back with a filter, each engine's reads
#           equal to the other's -- throughput and namespace calls (bench/ray_bench.py).
#   azure   on an Azurite this script starts (in memory, port 10495): lance-cpp's write and
#           scan (bench/cloud_benchmark.cc) and pylance's (bench/cloud_bench.py) of the
#           same rows, each engine scanning the other's dataset, next to curl GET / PUT of
#           the same objects (bench/cloud_bench.py) in the same run.
#   gcs     the same on a fake-gcs-server this script starts (in memory, port 4495).
#           pylance cannot write to fake-gcs-server (docs/gcs.md): its writes, and a second
#           series of lance-cpp's for comparison, go through the tests' translating proxy
#           (BUILD_DIR/tests/gcs/gcs_token_proxy --xml-writes), labelled so.
#           Emulator numbers: loopback, a Node.js / Go server on the same 2 cores.
#
# Every operation also records its peak RSS. bench/report.py writes what this run
# measured, and only that (no key is carried over from an earlier file), with the commit
# (HEAD, `dirty` if tracked files differ from it), the time, the load averages before and
# after, and the machine. A full run (all four parts, default sizes) writes
# bench/results/latest.json and regenerates docs/benchmarks.md from it; any other run
# writes bench/results/partial-<parts>.json (or LANCE_BENCH_OUT) and leaves both alone,
# unless LANCE_BENCH_MERGE=1: then that partial result's parts are merged into
# bench/results/latest.json (replacing those parts' keys there, recording which run each
# merged part came from: report.py --merge) and docs/benchmarks.md is regenerated.
#
#   scripts/run_bench.sh [BUILD_DIR]
#
# Environment: LANCE_BENCH_PARTS (default "local growth s3 refresh ray"), LANCE_BENCH_OUT,
# LANCE_BENCH_REPS (timed repetitions, default 7, after one warm-up), LANCE_BENCH_ROWS
# (default 1000000), LANCE_BENCH_GROWTH_ROWS (4000000), LANCE_BENCH_GROWTH_REPS (3),
# LANCE_BENCH_DIR (scratch directory, default a fresh one under $TMPDIR or /tmp, removed
# afterwards; needs ~12 GB), LANCE_BENCH_S3_REPS (3), LANCE_BENCH_S3_FILES (16 data
# files), LANCE_BENCH_S3_ROWS_PER_FILE (524288 rows, ~75 MB), LANCE_BENCH_S3_PARALLEL
# (curl processes at a time, 4), LANCE_BENCH_REFRESH_TIMEOUT (seconds, 900),
# LANCE_BENCH_RAY_ROWS (4000000), LANCE_BENCH_RAY_REPS (3), LANCE_BENCH_CLOUD_REPS (3),
# LANCE_BENCH_CLOUD_FILES (4 data files), LANCE_BENCH_CLOUD_ROWS_PER_FILE (262144 rows,
# ~37 MB), LANCE_BENCH_CLOUD_PARALLEL (curl processes at a time, 4),
# LANCE_BENCH_AZURITE_PORT (10495), LANCE_BENCH_GCS_PORT (4495),
# LANCE_BENCH_RGW_PORT / LANCE_BENCH_MON_PORT (7495 / 6795:
# not the test RGW's 7480 / 6789; the mon port stays below 6800, where OSDs pick theirs).
# The RGW lives in BUILD_DIR/rgw-bench and is stopped and removed at exit.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${1:-build}
FULL_PARTS="local growth s3 refresh ray azure gcs"
PARTS=${LANCE_BENCH_PARTS:-$FULL_PARTS}
REPS=${LANCE_BENCH_REPS:-7}
ROWS=${LANCE_BENCH_ROWS:-1000000}
GROWTH_ROWS=${LANCE_BENCH_GROWTH_ROWS:-4000000}
GROWTH_REPS=${LANCE_BENCH_GROWTH_REPS:-3}
S3_REPS=${LANCE_BENCH_S3_REPS:-3}
S3_FILES=${LANCE_BENCH_S3_FILES:-16}
S3_ROWS_PER_FILE=${LANCE_BENCH_S3_ROWS_PER_FILE:-524288}
S3_PARALLEL=${LANCE_BENCH_S3_PARALLEL:-4}
RAY_ROWS=${LANCE_BENCH_RAY_ROWS:-4000000}
RAY_REPS=${LANCE_BENCH_RAY_REPS:-3}
CLOUD_REPS=${LANCE_BENCH_CLOUD_REPS:-3}
CLOUD_FILES=${LANCE_BENCH_CLOUD_FILES:-4}
CLOUD_ROWS_PER_FILE=${LANCE_BENCH_CLOUD_ROWS_PER_FILE:-262144}
CLOUD_PARALLEL=${LANCE_BENCH_CLOUD_PARALLEL:-4}
PY=$PWD/.venv/bin/python
BIN=$BUILD_DIR/bench/dataset_benchmark
S3BIN=$BUILD_DIR/bench/s3_benchmark
REFRESHBIN=$BUILD_DIR/bench/refresh_benchmark
CLOUDBIN=$BUILD_DIR/bench/cloud_benchmark
PROXYBIN=$BUILD_DIR/tests/gcs/gcs_token_proxy
RGW_DIR=$BUILD_DIR/rgw-bench

log() { echo "[bench +${SECONDS}s] $*" >&2; }
part() { [[ " $PARTS " == *" $1 "* ]]; }
for p in $PARTS; do
  [[ " $FULL_PARTS " == *" $p "* ]] || { log "unknown part '$p' (parts: $FULL_PARTS)"; exit 1; }
done

# The canonical result only from a full run at the default sizes.
full=1
for p in $FULL_PARTS; do part "$p" || full=; done
for v in LANCE_BENCH_REPS LANCE_BENCH_ROWS LANCE_BENCH_GROWTH_ROWS LANCE_BENCH_GROWTH_REPS \
  LANCE_BENCH_S3_REPS LANCE_BENCH_S3_FILES LANCE_BENCH_S3_ROWS_PER_FILE \
  LANCE_BENCH_RAY_ROWS LANCE_BENCH_RAY_REPS LANCE_BENCH_CLOUD_REPS LANCE_BENCH_CLOUD_FILES \
  LANCE_BENCH_CLOUD_ROWS_PER_FILE; do
  [ -z "${!v:-}" ] || full=
done
if [ -n "${LANCE_BENCH_OUT:-}" ]; then
  OUT=$LANCE_BENCH_OUT
elif [ -n "$full" ]; then
  OUT=bench/results/latest.json
else
  OUT=bench/results/partial-$(echo $PARTS | tr ' ' '-').json
fi
DOC=
[ "$OUT" != bench/results/latest.json ] || DOC=docs/benchmarks.md

need() { [ -x "$1" ] || { log "missing $1: build with LANCE_BUILD_BENCHMARKS=ON (make build)"; exit 1; }; }
part local && need "$BIN"
part growth && need "$BIN"
part s3 && need "$S3BIN"
part azure && need "$CLOUDBIN"
part gcs && need "$CLOUDBIN"
if part ray && ! compgen -G "$BUILD_DIR/python/lance_cpp/_lance_cpp*.so" >/dev/null; then
  log "missing the lance_cpp module in $BUILD_DIR/python: make build"; exit 1
fi
[ -x "$PY" ] || { log "missing $PY: run scripts/setup.sh (make setup)"; exit 1; }

# What is measured: HEAD, and whether tracked files differ from it (then the numbers are
# of HEAD plus those changes). The results themselves (bench/results, the generated doc)
# do not count: a run's own output is uncommitted until the next commit.
GIT_COMMIT=$(git rev-parse HEAD 2>/dev/null || echo unknown)
GIT_DIRTY=false
[ -z "$(git status --porcelain --untracked-files=no -- . ':!bench/results' \
  ':!docs/benchmarks.md' 2>/dev/null)" ] || GIT_DIRTY=true
START_TIME=$(date -u +%Y-%m-%dT%H:%M:%SZ)

rgw_started=
WORK=
emulators=()  # scripts/azurite.sh / scripts/gcs.sh and the directory of each one started
cleanup() {
  local e
  # The GCS part's proxy, if the run stopped while it ran.
  if [ -n "$WORK" ] && [ -f "$WORK/gcs-proxy.pid" ]; then
    kill "$(cat "$WORK/gcs-proxy.pid")" 2>/dev/null || true
  fi
  for e in "${emulators[@]}"; do
    log "stopping the benchmark emulator ${e#* }"
    scripts/${e%% *} stop "${e#* }" || true
  done
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
# Results of this run only: a kept scratch directory may hold an earlier run's files.
rm -f "$WORK"/*.json "$WORK"/*.failed "$WORK"/*.log

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
log "commit $GIT_COMMIT (dirty: $GIT_DIRTY), parts: $PARTS -> $OUT"
log "scratch directory $WORK; load average $load_before on $(nproc) CPUs"
if awk -v l="${load_before%% *}" -v n="$(nproc)" 'BEGIN { exit !(l > 0.5 * n) }'; then
  log "WARNING: the machine is busy (load average $load_before): timings will be noisy"
fi

# step NAME CMD...: runs one benchmark process; its stderr goes to the terminal and to
# WORK/NAME.log. A failure is recorded in WORK/NAME.failed (exit status and the end of its
# stderr), which report.py puts in the JSON and the doc; the run goes on.
step() {
  local name=$1
  shift
  local rc=0
  "$@" 2> >(tee "$WORK/$name.log" >&2) || rc=$?
  wait  # the tee above
  if [ "$rc" -ne 0 ]; then
    log "FAILED: $name (exit status $rc)"
    { echo "exit status $rc"; tail -n 5 "$WORK/$name.log"; } >"$WORK/$name.failed"
  fi
  return 0
}
ok() { [ ! -e "$WORK/$1.failed" ]; }
declare -A seconds
timed_part() {  # timed_part NAME FUNCTION: wall seconds per part, for the JSON
  local t0=$SECONDS
  "$2"
  seconds[$1]=$((SECONDS - t0))
  log "$1 part: ${seconds[$1]} s"
}

run_local() {
  local DATA=$WORK/data.arrow DATA22=$WORK/data-v22.arrow TAKE=$WORK/take-v22.i64
  log "generating $ROWS rows (numpy, seed 42) -> Arrow IPC files (2.0 data, 2.2 data), take indices"
  step gen "$PY" bench/pylance_bench.py gen --rows "$ROWS" --out "$DATA" --out-v22 "$DATA22" \
    --take-out "$TAKE"
  ok gen || return 0
  sync
  # The physical limit of a durable local write: dd of as many bytes as the 2.0 dataset
  # holds, through the page cache with one fdatasync at the end (what lance-cpp's fsync
  # costs at best), 3 times, median -> disk-sync-write.json.
  local bytes
  bytes=$(stat -c %s "$DATA")
  log "disk: durable write of $bytes bytes (dd conv=fdatasync, 3 times)"
  local i secs=()
  for i in 1 2 3; do
    local t0 t1
    t0=$(date +%s.%N)
    dd if="$DATA" of="$WORK/disk-sync.bin" bs=8M conv=fdatasync status=none
    t1=$(date +%s.%N)
    secs+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }')")
    rm -f "$WORK/disk-sync.bin"
  done
  "$PY" - "$bytes" "$WORK/disk-sync-write.json" "${secs[@]}" <<'PYEOF'
import json, statistics, sys
n = int(sys.argv[1]); secs = [float(x) for x in sys.argv[3:]]
json.dump({"bytes": n, "samples_s": secs, "median_mb_s": n / statistics.median(secs) / 1e6,
           "how": "dd bs=8M conv=fdatasync of the 2.0 input file, same run"},
          open(sys.argv[2], "w"))
PYEOF
  # Per file format: writes first (each keeps its last dataset), then the reads, each in a
  # fresh process (a process that has just written 0.5 GB has a different malloc state),
  # engines alternating: each engine on the dataset it wrote, then each on the other's.
  local v sfx data take
  for v in 2.0 2.2; do
    if [ "$v" = 2.0 ]; then sfx= data=$DATA take=(); else sfx=-v22 data=$DATA22 take=(--take "$TAKE"); fi
    log "lance-cpp: write ($v)"
    step "lance-cpp-write$sfx" "$BIN" write --format "$v" --input "$data" --workdir "$WORK" \
      --dataset "$WORK/lance-cpp$sfx.lance" --out "$WORK/lance-cpp-write$sfx.json" --reps "$REPS"
    log "pylance: write ($v)"
    step "pylance-write$sfx" "$PY" bench/pylance_bench.py write --format "$v" --input "$data" \
      --workdir "$WORK" --dataset "$WORK/pylance$sfx.lance" --out "$WORK/pylance-write$sfx.json" \
      --reps "$REPS"
    local ds
    for ds in lance-cpp pylance; do
      ok "$ds-write$sfx" || continue
      log "lance-cpp: scan, count${take:+, take}, page-cache read of $ds$sfx.lance ($v)"
      step "lance-cpp-scan-$ds$sfx" "$BIN" scan --input "$data" --dataset "$WORK/$ds$sfx.lance" \
        "${take[@]}" --out "$WORK/lance-cpp-scan-$ds$sfx.json" --reps "$REPS"
      log "pylance: scan, count${take:+, take} of $ds$sfx.lance ($v)"
      step "pylance-scan-$ds$sfx" "$PY" bench/pylance_bench.py scan --input "$data" \
        --dataset "$WORK/$ds$sfx.lance" "${take[@]}" --out "$WORK/pylance-scan-$ds$sfx.json" \
        --reps "$REPS"
    done
  done
}

run_growth() {
  # Both engines, file format 2.0, at GROWTH_ROWS rows: write (lance-cpp with its default
  # fsync only), then the full scan of each engine's own dataset.
  local DATA=$WORK/data-growth.arrow
  log "growth: generating $GROWTH_ROWS rows"
  step gen-growth "$PY" bench/pylance_bench.py gen --rows "$GROWTH_ROWS" --out "$DATA"
  ok gen-growth || return 0
  sync
  log "growth: lance-cpp write ($GROWTH_ROWS rows)"
  step lance-cpp-write-growth "$BIN" write --format 2.0 --no-nofsync --input "$DATA" \
    --workdir "$WORK" --dataset "$WORK/growth-lance-cpp.lance" \
    --out "$WORK/lance-cpp-write-growth.json" --reps "$GROWTH_REPS"
  log "growth: pylance write ($GROWTH_ROWS rows)"
  step pylance-write-growth "$PY" bench/pylance_bench.py write --format 2.0 --input "$DATA" \
    --workdir "$WORK" --dataset "$WORK/growth-pylance.lance" \
    --out "$WORK/pylance-write-growth.json" --reps "$GROWTH_REPS"
  if ok lance-cpp-write-growth; then
    log "growth: lance-cpp scan of its dataset"
    step lance-cpp-scan-growth "$BIN" scan --scan-only --input "$DATA" \
      --dataset "$WORK/growth-lance-cpp.lance" --out "$WORK/lance-cpp-scan-growth.json" \
      --reps "$GROWTH_REPS"
  fi
  if ok pylance-write-growth; then
    log "growth: pylance scan of its dataset"
    step pylance-scan-growth "$PY" bench/pylance_bench.py scan --scan-only --input "$DATA" \
      --dataset "$WORK/growth-pylance.lance" --out "$WORK/pylance-scan-growth.json" \
      --reps "$GROWTH_REPS"
  fi
  rm -rf "$WORK"/growth-*.lance "$DATA"
}

start_rgw() {
  # A private RGW on its own ports (the tests' RGW, if one runs, is not touched).
  # Ports taken by someone else's RGW: say so (rgw.sh itself replaces only a cluster left
  # in RGW_DIR by an earlier run of this script).
  local port
  [ -f "$RGW_DIR/run/client.rgw.pid" ] && kill -0 "$(cat "$RGW_DIR/run/client.rgw.pid")" \
    2>/dev/null && port=ours
  [ "${port:-}" = ours ] || for port in "${LANCE_BENCH_RGW_PORT:-7495}" "${LANCE_BENCH_MON_PORT:-6795}"; do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      log "port $port is in use (another benchmark RGW? see: pgrep -af radosgw)"
      echo "port $port in use: another RGW runs there (pgrep -af radosgw); set" \
        "LANCE_BENCH_RGW_PORT / LANCE_BENCH_MON_PORT or stop it" >"$WORK/rgw.failed"
      return 1
    fi
  done
  log "starting a Ceph RGW for the S3 benchmark in $RGW_DIR"
  rgw_started=1
  # Up to 3 tries: on a busy machine ceph-osd sometimes asks the mon before it has the
  # monmap ("wrong fsid" in the osd log) and exits; a new start wipes the failed one.
  local try rgw_env
  for try in 1 2 3; do
    if rgw_env=$(RGW_PORT=${LANCE_BENCH_RGW_PORT:-7495} MON_PORT=${LANCE_BENCH_MON_PORT:-6795} \
      scripts/rgw.sh start "$RGW_DIR"); then
      break
    fi
    if [ "$try" -eq 3 ]; then
      log "the benchmark RGW did not start"
      echo "the benchmark RGW did not start (3 tries; see $RGW_DIR/log)" >"$WORK/rgw.failed"
      return 1
    fi
    log "the benchmark RGW did not start (try $try of 3); starting it again"
  done
  eval "$rgw_env"
  export LANCE_S3_SECRET=$LANCE_S3_SECRET_KEY  # the name refresh_benchmark's contract uses
  server_pids=$(cat "$RGW_DIR"/run/{client.rgw,osd.0,mon.a}.pid 2>/dev/null | paste -sd, -)
}

run_s3() {
  local bucket size_args
  bucket=lance-bench-$(date +%s)-$$
  size_args=(--files "$S3_FILES" --rows-per-file "$S3_ROWS_PER_FILE")
  log "S3: lance-cpp write and scan on $LANCE_S3_ENDPOINT, against curl (bucket $bucket)"
  step s3 "$S3BIN" --out "$WORK/s3.json" --workdir "$WORK" --reps "$S3_REPS" "${size_args[@]}" \
    --parallel "$S3_PARALLEL" --server-pids "$server_pids" --bucket "$bucket" --keep
  ok s3 || return 0
  local src
  src=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["kept_dataset"])' \
    "$WORK/s3.json")
  log "S3: pylance scan of $src, write of the same rows, scan of its own dataset"
  step pylance-s3 "$PY" bench/pylance_bench.py s3 --source "$src" --bucket "$bucket" \
    --out "$WORK/pylance-s3.json" --reps "$S3_REPS" --rows-per-file "$S3_ROWS_PER_FILE"
  ok pylance-s3 || return 0
  local pyds
  pyds=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["dataset"])' \
    "$WORK/pylance-s3.json")
  log "S3: lance-cpp scan of pylance's dataset $pyds"
  step s3-scan-pylance "$S3BIN" --scan-uri "$pyds" --out "$WORK/s3-scan-pylance.json" \
    --workdir "$WORK" --reps "$S3_REPS" "${size_args[@]}"
}

run_refresh() {
  if [ ! -x "$REFRESHBIN" ]; then
    echo "$REFRESHBIN is not built" >"$WORK/refresh.failed"
    return 0
  fi
  log "refresh under load: $REFRESHBIN on $LANCE_S3_ENDPOINT"
  mkdir -p "$WORK/refresh"
  # Bounded: a hung benchmark is recorded as a failure (exit status 124), not a hung run.
  step refresh timeout "${LANCE_BENCH_REFRESH_TIMEOUT:-900}" "$REFRESHBIN" \
    --out "$WORK/refresh.json" --workdir "$WORK/refresh"
  if ok refresh && [ ! -s "$WORK/refresh.json" ]; then
    echo "exited 0 but wrote no $WORK/refresh.json" >"$WORK/refresh.failed"
  fi
}

run_ray() {
  # lance_cpp from this build; lance-ray, pylance and Ray from the venv. The RGW's keys
  # reach the Ray workers through their environment (LANCE_S3_*, exported by start_rgw),
  # never as arguments.
  log "Ray: lance_cpp.ray vs lance-ray, $RAY_ROWS rows, on $LANCE_S3_ENDPOINT"
  step ray env PYTHONPATH="$(realpath "$BUILD_DIR")/python" RAY_USAGE_STATS_ENABLED=0 \
    "$PY" bench/ray_bench.py --out "$WORK/ray.json" --rows "$RAY_ROWS" --reps "$RAY_REPS"
}

part local && timed_part local run_local
part growth && timed_part growth run_growth
if part s3 || part refresh || part ray; then
  if start_rgw; then
    part s3 && timed_part s3 run_s3
    part refresh && timed_part refresh run_refresh
    part ray && timed_part ray run_ray
    log "stopping the benchmark RGW"
    scripts/rgw.sh stop "$RGW_DIR"
    rgw_started=
  fi
fi

# ---- Azure and GCS on their emulators (own ports; the tests' emulators are not touched)

# start_emulator NAME SCRIPT DIR PORT_VAR PORT ENV...: starts one, evals its export lines.
start_emulator() {
  local name=$1 script=$2 dir=$3 port_var=$4 port=$5 out
  shift 5
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    echo "port $port in use (set LANCE_BENCH_${name^^}_PORT)" >"$WORK/$name-emulator.failed"
    return 1
  fi
  log "starting $script on port $port in $dir"
  emulators+=("$script $dir")
  if ! out=$(env "$port_var=$port" "$@" "scripts/$script" start "$dir" \
    2>"$WORK/$name-emulator.log"); then
    { echo "scripts/$script start failed"; tail -n 5 "$WORK/$name-emulator.log"; } \
      >"$WORK/$name-emulator.failed"
    return 1
  fi
  eval "$out"
}

stop_emulator() {  # the last one started
  local e=${emulators[-1]}
  scripts/${e%% *} stop "${e#* }" || true
  unset 'emulators[-1]'
}

# cloud_steps NAME ROOT SERVER_PIDS [PY_ARGS...] -- options: lance-cpp's write and scan, curl
# and pylance (bench/cloud_bench.py), lance-cpp's scan of pylance's dataset.
cloud_steps() {
  local name=$1 root=$2 pids=$3
  shift 3
  local py_args=() opts=()
  while [ "$1" != -- ]; do py_args+=("$1"); shift; done
  shift
  for o in "$@"; do opts+=(--storage-option "$o"); done
  local size=(--reps "$CLOUD_REPS" --files "$CLOUD_FILES" --rows-per-file "$CLOUD_ROWS_PER_FILE")
  log "$name: lance-cpp write and scan on $root"
  step "$name" "$CLOUDBIN" --root "$root" --out "$WORK/$name.json" "${size[@]}" "${opts[@]}" \
    --server-pids "$pids"
  ok "$name" || return 0
  log "$name: curl GET / PUT of the same objects, pylance scan and write"
  step "pylance-$name" "$PY" bench/cloud_bench.py --cloud "$name" --cpp "$WORK/$name.json" \
    --out "$WORK/pylance-$name.json" --workdir "$WORK" --reps "$CLOUD_REPS" \
    --parallel "$CLOUD_PARALLEL" --server-pids "$pids" "${py_args[@]}"
  ok "pylance-$name" || return 0
  local pyds
  pyds=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1])).get("dataset", ""))' \
    "$WORK/pylance-$name.json")
  [ -n "$pyds" ] || return 0
  log "$name: lance-cpp scan of pylance's dataset $pyds"
  step "$name-scan-pylance" "$CLOUDBIN" --scan-uri "$pyds" --out "$WORK/$name-scan-pylance.json" \
    "${size[@]}" "${opts[@]}" --server-pids "$pids"
}

run_azure() {
  start_emulator azure azurite.sh "$BUILD_DIR/azurite-bench" AZURITE_PORT \
    "${LANCE_BENCH_AZURITE_PORT:-10495}" AZURITE_IN_MEMORY=1 AZURE_CONTAINER=lance-bench || return 0
  local pid
  pid=$(cat "$BUILD_DIR/azurite-bench/pid")
  # Shared Key with the emulator's published key; lance-cpp addresses Azurite by its
  # endpoint (path style), pylance through AZURITE_BLOB_STORAGE_URL (cloud_bench.py).
  cloud_steps azure "az://$LANCE_AZURE_CONTAINER" "$pid" -- \
    "azure_storage_account_name=$LANCE_AZURE_ACCOUNT" \
    "azure_storage_account_key=$LANCE_AZURE_KEY" \
    "azure_storage_endpoint=$LANCE_AZURE_ENDPOINT" allow_http=true
  stop_emulator
}

run_gcs() {
  start_emulator gcs gcs.sh "$BUILD_DIR/gcs-bench" GCS_PORT "${LANCE_BENCH_GCS_PORT:-4495}" \
    GCS_BUCKET=lance-bench || return 0
  local pid proxy_args=() proxy_url= proxy_pid=
  pid=$(cat "$BUILD_DIR/gcs-bench/fake-gcs.pid")
  # The translating proxy for pylance's writes (and lance-cpp's for comparison). Not a
  # child of this shell (step's `wait` would wait for it): started from a subshell, its
  # standard input a FIFO it holds open itself (it runs until stdin closes), stopped by pid.
  if [ -x "$PROXYBIN" ]; then
    local fifo=$WORK/gcs-proxy.in word port i
    rm -f "$fifo" "$WORK/gcs-proxy.out"
    mkfifo "$fifo"
    ( exec "$PROXYBIN" --target "$LANCE_GCS_ENDPOINT" --xml-writes --token lance-bench-token \
      <>"$fifo" >"$WORK/gcs-proxy.out" 2>&1 & echo $! >"$WORK/gcs-proxy.pid" )
    proxy_pid=$(cat "$WORK/gcs-proxy.pid")
    for i in $(seq 1 300); do
      read -r word port <"$WORK/gcs-proxy.out" 2>/dev/null || true
      [ "${word:-}" = PORT ] && break
      kill -0 "$proxy_pid" 2>/dev/null || break
      sleep 0.1
    done
    if [ "${word:-}" = PORT ]; then
      proxy_url=http://127.0.0.1:$port
      proxy_args=(--write-base-url "$proxy_url" --write-token lance-bench-token)
    else
      echo "$PROXYBIN did not start" >"$WORK/gcs-proxy.failed"
    fi
  else
    echo "$PROXYBIN is not built: no pylance write on GCS" >"$WORK/gcs-proxy.failed"
  fi
  # fake-gcs-server checks no credentials: lance-cpp sends none (google_skip_signature).
  cloud_steps gcs "gs://$LANCE_GCS_BUCKET" "$pid" "${proxy_args[@]}" -- \
    "google_base_url=$LANCE_GCS_ENDPOINT" allow_http=true google_skip_signature=true
  if [ -n "$proxy_url" ]; then
    log "gcs: lance-cpp writes through the same proxy (as pylance's)"
    step gcs-proxy-write "$CLOUDBIN" --root "gs://$LANCE_GCS_BUCKET/via-proxy" --no-scan \
      --out "$WORK/gcs-proxy-write.json" --reps "$CLOUD_REPS" --files "$CLOUD_FILES" \
      --rows-per-file "$CLOUD_ROWS_PER_FILE" --server-pids "$pid" \
      --storage-option "google_base_url=$proxy_url" --storage-option allow_http=true \
      --storage-option google_storage_token=lance-bench-token
  fi
  [ -z "$proxy_pid" ] || kill "$proxy_pid" 2>/dev/null || true
  rm -f "$WORK/gcs-proxy.pid" "$WORK/gcs-proxy.in"
  stop_emulator
}

part azure && timed_part azure run_azure
part gcs && timed_part gcs run_gcs

load_after=$(cut -d' ' -f1-3 /proc/loadavg)
GIT_COMMIT_END=$(git rev-parse HEAD 2>/dev/null || echo unknown)
[ "$GIT_COMMIT_END" = "$GIT_COMMIT" ] || log "WARNING: HEAD moved during the run ($GIT_COMMIT -> $GIT_COMMIT_END)"
part_seconds=$(for k in "${!seconds[@]}"; do echo "$k=${seconds[$k]}"; done | paste -sd, -)
"$PY" bench/report.py --dir "$WORK" --out "$OUT" --parts "$PARTS" \
  --git-commit "$GIT_COMMIT" --git-commit-end "$GIT_COMMIT_END" --dirty "$GIT_DIRTY" \
  --timestamp "$START_TIME" \
  --load-before "$load_before" --load-after "$load_after" --part-seconds "$part_seconds" \
  --total-seconds "$SECONDS"
if [ -n "${LANCE_BENCH_MERGE:-}" ] && [ "$OUT" != bench/results/latest.json ]; then
  "$PY" bench/report.py --merge "$OUT" --into bench/results/latest.json
  log "merged the parts $PARTS of $OUT into bench/results/latest.json"
  DOC=docs/benchmarks.md
  OUT=bench/results/latest.json
fi
if [ -n "$DOC" ]; then
  "$PY" bench/report.py --markdown "$OUT" >"$DOC.tmp"
  mv "$DOC.tmp" "$DOC"
  log "regenerated $DOC from $OUT"
fi
