#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ctest refresh_benchmark_smoke: the "refresh" part of make bench, two seconds on the
# tests' RGW, so that a change breaking the benchmark fails make test instead of the next
# make bench. Skipped (77) without the RGW's LANCE_S3_* variables.
#   refresh_smoke.sh REFRESH_BENCHMARK WORKDIR
set -euo pipefail
bin=$1 work=$2
for v in LANCE_S3_ENDPOINT LANCE_S3_BUCKET LANCE_S3_STS_ROLE_ARN; do
  if [ -z "${!v:-}" ]; then
    echo "skipped: $v is not set (no RGW)"
    exit 77
  fi
done
rm -rf "$work" && mkdir -p "$work"
"$bin" --out "$work/refresh.json" --workdir "$work" --seconds 2 --rounds 1 --threads 2 \
  --lifetime-ms 1500 --offset-ms 500 --describe-delay-ms 50
# Failed requests are a result for the benchmark, a failure here.
grep -q '"refresh_failed_requests": 0' "$work/refresh.json" || {
  cat "$work/refresh.json"
  echo "refresh_benchmark: some requests failed"
  exit 1
}
