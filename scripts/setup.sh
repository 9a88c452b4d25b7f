#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# One idempotent set-up for a fresh Debian 12 machine: system packages (C++ toolchain and
# libraries, Ceph RGW for the S3 tests), the project's Python venv (pinned), the node
# tools (pinned, from lock files) and the Go tools (pinned: fake-gcs-server for the GCS tests).
# Safe to run again: each step is skipped when already satisfied.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config git curl ca-certificates
  protobuf-compiler libprotobuf-dev
  libcurl4-openssl-dev libssl-dev openssl libzstd-dev liblz4-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev googletest libbenchmark-dev
  libflatbuffers-dev flatbuffers-compiler
  # The REST namespace server (lance-cpp serve).
  libcpp-httplib-dev
  clang-format clang-tidy
  # libFuzzer targets and their sanitizer runtimes (tests/fuzz, scripts/fuzz.sh); stress-ng
  # loads the machine for `make stress`.
  clang-14 libfuzzer-14-dev libclang-rt-14-dev stress-ng
  python3 python3-venv python3-dev
  # The S3 tests' server: a single-node Ceph RGW (scripts/rgw.sh); uuidgen for its ids.
  ceph-mon ceph-osd radosgw uuid-runtime
)

log() { echo "[setup] $*" >&2; }

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js 20 with npm: the machine image may ship it (nodesource's nodejs includes npm);
# only fall back to Debian's packages when there is none.
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
# The Java bindings (java/): a JDK (jni.h, javac) and Maven; the image usually has both.
command -v javac >/dev/null 2>&1 || missing+=(openjdk-17-jdk-headless)
command -v mvn >/dev/null 2>&1 || missing+=(maven)
if ((${#missing[@]})); then
  log "installing Debian packages: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
else
  log "Debian packages: all present"
fi

# Python: a project venv with pinned requirements. Re-installed only when the pins change.
PY=${LANCE_PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  log "creating .venv"
  "$PY" -m venv .venv
fi
req_hash=$(sha256sum requirements.txt | cut -c1-16)
if [ ! -f .venv/.req-"$req_hash" ]; then
  log "installing Python requirements (pinned)"
  .venv/bin/python -m pip install -q --upgrade pip==24.3.1
  .venv/bin/python -m pip install -q -r requirements.txt
  rm -f .venv/.req-* && touch .venv/.req-"$req_hash"
else
  log "Python requirements: up to date"
fi

# Node tools (real Lance 8.0.0 through LanceDB-node; Azurite 3.37.0, the Azure Blob
# Storage emulator of the Azure tests), installed from the committed lock files.
for dir in tools/oracle tools/azurite; do
  [ -f "$dir/package-lock.json" ] || continue
  lock_hash=$(sha256sum "$dir/package-lock.json" | cut -c1-16)
  if [ ! -f "$dir/node_modules/.lock-$lock_hash" ]; then
    log "installing node packages in $dir (npm ci)"
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
    touch "$dir/node_modules/.lock-$lock_hash"
  else
    log "node packages in $dir: up to date"
  fi
done
# Go tools, each pinned and built from the Go module proxy into the project's own GOBIN
# (tools/bin, not committed): fake-gcs-server, the GCS server of the tests (scripts/gcs.sh).
# Skipped when the binary there already is that version.
go_tool() {
  local module=$1 version=$2 bin=tools/bin/$3
  if [ -x "$bin" ] && go version -m "$bin" 2>/dev/null | grep -qE "^[[:space:]]+mod[[:space:]]+$module[[:space:]]+$version([[:space:]]|$)"; then
    log "$module $version: present"
    return
  fi
  if ! command -v go >/dev/null 2>&1; then
    [ -x "$bin" ] && { log "go is missing: keeping $bin (its version cannot be checked)"; return; }
    log "go is missing: it is needed to build $module"
    exit 1
  fi
  log "building $module@$version into tools/bin (go install)"
  mkdir -p tools/bin
  GOBIN="$PWD/tools/bin" GOFLAGS=-buildvcs=false go install "$module@$version"
}
go_tool github.com/fsouza/fake-gcs-server v1.56.1 fake-gcs-server
log "done"
