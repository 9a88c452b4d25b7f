#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The files changed since BASE (default: the commit issue 11 started from) that match the
# given git pathspecs, one per line: committed changes since the merge-base of HEAD and
# BASE, uncommitted changes and new untracked files; deleted files are left out.
# `make format-check` and `make tidy` use it, so that files nobody touched do not fail.
#
#   scripts/changed_files.sh [--base REV] PATHSPEC...     e.g. '*.cc' '*.h'
set -euo pipefail
cd "$(dirname "$0")/.."
BASE=${LANCE_LINT_BASE:-1bd2d92}
if [ "${1:-}" = "--base" ]; then
  BASE=$2
  shift 2
fi
if ! git rev-parse --verify -q "$BASE^{commit}" >/dev/null; then
  echo "changed_files.sh: base commit $BASE is not in this clone (a shallow clone? run" \
       "'git fetch --unshallow', or set LANCE_LINT_BASE)" >&2
  exit 2
fi
mb=$(git merge-base HEAD "$BASE")
{
  git diff --name-only --diff-filter=d "$mb" -- "$@"
  git ls-files --others --exclude-standard -- "$@"
} | sort -u | while read -r f; do if [ -f "$f" ]; then echo "$f"; fi; done
