#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The installed package works on its own: `cmake --install` of BUILD_DIR into a throw-away
# prefix, every installed public header compiles with nothing but the prefix on the include
# path, examples/ configures as a project of its own with find_package(lance_cpp) from the
# prefix, builds, and its lance-demo runs.
#
#   install_test.sh SOURCE_DIR BUILD_DIR WORK_DIR CXX [CCACHE]
#
# WORK_DIR is a fixed folder of the build tree (wiped first), so that ccache, keyed on paths
# relative to SOURCE_DIR, hits from one run (and one clone) to the next.
set -euo pipefail
SRC=$(realpath "$1")
BUILD=$(realpath "$2")
WORK=$3
CXX=$4
CCACHE=${5:-}

log() { echo "[install_test] $*" >&2; }
fail() { echo "[install_test] FAILED: $*" >&2; exit 1; }

rm -rf "$WORK"
mkdir -p "$WORK"
WORK=$(realpath "$WORK")
PREFIX=$WORK/prefix

log "cmake --install $BUILD --prefix $PREFIX --component lance_cpp"
cmake --install "$BUILD" --prefix "$PREFIX" --component lance_cpp >"$WORK/install.log" \
  || { cat "$WORK/install.log"; fail "cmake --install"; }

CONFIG=$(find "$PREFIX" -path '*/cmake/lance_cpp/lance_cppConfig.cmake' | head -n 1)
[ -n "$CONFIG" ] || fail "no lance_cppConfig.cmake under $PREFIX"
for area in core io ipc format table dataset namespace; do
  find "$PREFIX" -name "liblance_$area.a" | grep -q . || fail "liblance_$area.a not installed"
done
# The table layer has no public header (its types are the manifest's protobufs).
for area in core io ipc format dataset namespace; do
  [ -d "$PREFIX/include/lance/$area" ] || fail "include/lance/$area not installed"
done
# Public headers only: nothing of src/ (private headers, generated protobufs). The .def
# files are the X-macro tables public headers expand (operations.def).
extra=$(find "$PREFIX/include" -type f ! -path "$PREFIX/include/lance/*.h" \
  ! -path "$PREFIX/include/lance/*.def")
[ -z "$extra" ] || fail "installed files that are not public headers: $extra"
n_src=$(cd "$SRC/include" && find lance -name '*.h' -o -name '*.def' | wc -l)
n_inst=$(cd "$PREFIX/include" && find lance -name '*.h' -o -name '*.def' | wc -l)
[ "$n_src" -eq "$n_inst" ] || fail "$n_inst of the $n_src public headers installed"

# The installed headers against the prefix alone (one unit including them all: cheaper than
# one per header, and it still fails on any header that includes a file the prefix lacks).
ALL=$WORK/all_headers.cc
(cd "$PREFIX/include" && find lance -name '*.h' | sort | sed 's/.*/#include "&"/') >"$ALL"
log "compiling the $n_inst installed headers against the prefix only"
"$CXX" -std=c++20 -fsyntax-only -I "$PREFIX/include" "$ALL" \
  || fail "the installed headers do not compile on their own"

log "examples/ as a project of its own against $PREFIX"
launcher=()
if [ -n "$CCACHE" ]; then
  export CCACHE_BASEDIR=$SRC CCACHE_NOHASHDIR=1
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER="$CCACHE")
fi
cmake -S "$SRC/examples" -B "$WORK/examples-build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER="$CXX" "${launcher[@]}" -DCMAKE_PREFIX_PATH="$PREFIX" \
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF >"$WORK/configure.log" \
  || { cat "$WORK/configure.log"; fail "configuring examples/ against the prefix"; }
found_dir=$(sed -n 's/^lance_cpp_DIR:PATH=//p' "$WORK/examples-build/CMakeCache.txt")
[ "$(realpath "$found_dir")" = "$(realpath "$(dirname "$CONFIG")")" ] \
  || fail "find_package(lance_cpp) found $found_dir, not the installed prefix"
ninja -C "$WORK/examples-build" -j2 >"$WORK/build.log" \
  || { tail -n 60 "$WORK/build.log"; fail "building examples/ against the prefix"; }
# The build must not have reached into the source tree's headers (include/ or src/).
if grep -q -- "-I$SRC/\(include\|src\)" "$WORK/examples-build/build.ninja"; then
  fail "the examples build uses the source tree's include paths"
fi

log "running lance-demo"
"$WORK/examples-build/lance-demo" "$WORK/demo" >"$WORK/demo.log" 2>&1 \
  || { cat "$WORK/demo.log"; fail "lance-demo"; }
grep -q "== 4. through a directory namespace" "$WORK/demo.log" \
  || { cat "$WORK/demo.log"; fail "lance-demo did not get to the namespace part"; }
[ -d "$WORK/demo/people.lance/_versions" ] || fail "lance-demo wrote no dataset"
log "passed"
