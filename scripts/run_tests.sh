#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs every ctest test of a build, with the environment the tests expect (the project's
# venv with real pylance, the node oracle), starting the services tests need first and
# stopping them afterwards (later: RGW for the S3 tests).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${1:-build}
export LANCE_SOURCE_DIR=$PWD
export LANCE_PYTHON=$PWD/.venv/bin/python
export LANCE_ORACLE_DIR=$PWD/tools/oracle
export PATH="$PWD/.venv/bin:$PATH"
cd "$BUILD_DIR"
# Two parallel jobs on a 2-core machine; the integration suites are the long pole.
ctest --output-on-failure -j"$(nproc)" --timeout 1500
