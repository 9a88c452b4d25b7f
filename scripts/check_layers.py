#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The layer and public/private boundary check (ctest `boundary_check`, part of `make test`).

Usage: scripts/check_layers.py [ROOT]   (ROOT defaults to the repository holding this script)

Every `#include "..."` (and `#include <...>` that names a project header) of the library
code, the public headers and the programs built on them is resolved as the compiler would
(the including file's folder first, then the program's own folder, include/, src/) and
checked against four rules:

  layer-up       src/<area> or include/lance/<area> includes a header of a higher layer.
                 Order: core < io < ipc < format < table < dataset < namespace < server;
                 the top-level include/lance/*.h count as core.
  private-area   src/<area> includes a private header of another area (src/<other>/...),
                 including the generated ones (<other>/proto/*.pb.h, *_generated.h).
  outside-src    cli/, python/, java/, tools/, examples/ or bench/ includes a private header
                 (anything under src/): they get the public API only.
  public-private a public header (include/) includes something outside include/.

Three more rules keep the shape of the code (issue 29):

  third-party    a public header (include/) includes a header that is neither ours nor the
                 C++ standard library's (nlohmann, curl, ...): the public API must not
                 impose a dependency on its users.
  area-cycle     two or more headers of one area include each other in a ring (src/<area>
                 and include/lance/<area> are one area): its headers form layers too.
  long-function  a function of src/ over 100 lines (signature to closing brace) that is
                 not named, with its reason, in LONG_FUNCTIONS (at most 10 may be).
                 Counted for definitions that start in column 0 (Google style: namespaces
                 are not indented), lambdas inside included; member functions defined
                 inside a class body are not counted.
  long-file      a production file (src, include, cli, python, java; not generated) over
                 1,000 lines without a named reason in LONG_FILES.

Tests (tests/) may include anything. The sanctioned exceptions are listed below, each with
its reason; an exception that no longer matches any include is reported too, so that the
list cannot outlive its cause. Prints one line per violation, `file:line: [rule] text`,
and exits 1 if there is any.
"""

import os
import re
import sys
from pathlib import Path

LAYERS = ["core", "io", "ipc", "format", "table", "dataset", "namespace", "server"]
RANK = {name: i for i, name in enumerate(LAYERS)}

# Folders of programs that must stick to the public API (include/lance/...).
OUTSIDE = ["cli", "python", "java", "tools", "examples", "bench"]

SOURCE_SUFFIXES = (".h", ".hh", ".hpp", ".cc", ".cpp", ".cxx", ".inc", ".def")

# (including file, included file, rule, reason), paths under the root. A folder (ending in
# "/") on either side matches everything below it.
EXCEPTIONS = [
    ("src/dataset/", "src/table/", "private-area",
     "the dataset layer is the table format's client (Lance: lance over lance-table): it "
     "builds manifests, transactions and deletion files, whose types are the manifest's "
     "protobufs and so cannot be public headers (rule third-party); no other area may"),
    ("src/dataset/", "src/format/schema_proto.h", "private-area",
     "manifests and transactions store the schema as the same lance.file.Field protobufs "
     "as data files (table.proto imports file.proto), so the dataset layer, which writes "
     "them, shares format's one LanceSchema <-> Field converter instead of keeping a "
     "second copy"),
    ("bench/s3_benchmark.cc", "src/io/s3/", "outside-src",
     "the S3 benchmark measures the raw S3 transport (S3Client) against curl, below the "
     "ObjectStore API; only this target gets src/ on its include path "
     "(bench/CMakeLists.txt)"),
]

# Production files allowed over MAX_FILE_LINES, each with its reason.
MAX_FILE_LINES = 1000
LONG_FILES = {
    "src/namespace/directory_namespace.cc":
        "DirectoryNamespace::Impl (the catalog logic of both layouts, shared by every "
        "operation) is private to this file; splitting it needs Impl in a private header "
        "first (directory_internal.h holds only what the table operations use)",
    "src/namespace/directory_table_ops.cc":
        "the table-data operations of the directory namespace (insert, merge-insert, "
        "query, schema, versions, tags, transactions): one adapter per spec operation "
        "over the dataset API, each short",
}

# Functions of src/ allowed over MAX_FUNCTION_LINES ("file:name"), each with its reason;
# at most MAX_LONG_FUNCTIONS of them.
MAX_FUNCTION_LINES = 100
MAX_LONG_FUNCTIONS = 10
LONG_FUNCTIONS = {
}

# The C++ standard library's headers (C++20) and the C headers it includes: what a
# public header may include besides our own.
STD_HEADERS = set("""
algorithm any array atomic barrier bit bitset cassert cctype cerrno cfenv cfloat charconv
chrono cinttypes climits clocale cmath codecvt compare complex concepts condition_variable
coroutine csetjmp csignal cstdarg cstddef cstdint cstdio cstdlib cstring ctime cuchar cwchar
cwctype deque exception execution filesystem format forward_list fstream functional future
initializer_list iomanip ios iosfwd iostream istream iterator latch limits list locale map
memory memory_resource mutex new numbers numeric optional ostream queue random ranges ratio
regex scoped_allocator semaphore set shared_mutex source_location span sstream stack
stdexcept stop_token streambuf string string_view syncstream system_error thread tuple
type_traits typeindex typeinfo unordered_map unordered_set utility valarray variant vector
version
""".split())

INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def area_of(rel):
    """The layer of a path under the root (include/ or src/), or None elsewhere."""
    parts = rel.split("/")
    if parts[0] == "src" and len(parts) > 2 and parts[1] in RANK:
        return parts[1]
    if parts[0] == "include" and len(parts) > 1 and parts[1] == "lance":
        if len(parts) == 3:
            return "core"  # include/lance/status.h and friends
        if len(parts) > 3 and parts[2] in RANK:
            return parts[2]
    return None


def generated_source(root, rel):
    """A header that the build generates into its gen/ folder, named by its source under
    src/: format/proto/file.pb.h from src/format/proto/file.proto, ipc/x_generated.h from
    src/ipc/x.fbs."""
    if rel.endswith(".pb.h"):
        return (root / "src" / (rel[: -len(".pb.h")] + ".proto")).is_file()
    if rel.endswith("_generated.h"):
        return (root / "src" / (rel[: -len("_generated.h")] + ".fbs")).is_file()
    return False


def resolve(root, including, quote, name):
    """The path (relative to root, '/'-separated) an include resolves to, or None for a
    system or third-party header."""
    candidates = []
    if quote == '"':
        candidates.append(including.parent / name)
        top = including.relative_to(root).parts[0]
        if top in OUTSIDE:
            # Each program's own folder is on its include path (cli/lib/..., python/src/...).
            candidates.append(root / top / name)
    candidates.append(root / "include" / name)
    candidates.append(root / "src" / name)
    for c in candidates:
        if c.is_file():
            return Path(os.path.normpath(c)).relative_to(root).as_posix()
    if generated_source(root, name):
        return "src/" + name
    return None


def checked_files(root):
    for top in ["src", "include"] + OUTSIDE:
        base = root / top
        if not base.is_dir():
            continue
        for dirpath, dirnames, filenames in os.walk(base):
            # Third-party trees (node_modules, virtualenvs) are not ours to check.
            dirnames[:] = sorted(d for d in dirnames
                                 if d not in ("node_modules", ".venv", "__pycache__"))
            for f in sorted(filenames):
                if f.endswith(SOURCE_SUFFIXES):
                    yield Path(dirpath) / f


def violations_of(rel, target):
    """The rules that `rel` including `target` (both relative to root) breaks."""
    out = []
    top = rel.split("/")[0]
    src_area = area_of(rel)
    dst_area = area_of(target)
    if src_area and dst_area and RANK[dst_area] > RANK[src_area]:
        out.append(("layer-up", f"{src_area} must not include {dst_area} ({target})"))
    if top == "src" and target.startswith("src/") and dst_area and dst_area != src_area:
        out.append(("private-area",
                    f"src/{src_area} includes a private header of {dst_area} ({target})"))
    if top in OUTSIDE and target.startswith("src/"):
        out.append(("outside-src", f"{top}/ includes a private header ({target}); "
                    "use the public API in include/lance/"))
    if top == "include" and not target.startswith("include/"):
        out.append(("public-private",
                    f"a public header includes a non-public header ({target})"))
    return out


def area_cycles(edges):
    """Rings of headers of one area that include each other, directly or through others
    (Tarjan's strongly connected components of the include graph, within each area).
    `#pragma once` hides such a ring from the compiler, but then which header's
    declarations come first depends on which one a file includes first."""
    def area(path):
        return area_of(path) or path
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w == v or area(w) != area(v):
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            ring = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                ring.append(w)
                if w == v:
                    break
            if len(ring) > 1:
                out.append((sorted(ring)[0], "area-cycle",
                            "these files include each other: " + " -> ".join(sorted(ring))))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


DEFINITION_SKIP = ("namespace", "}", "#", "//", "/*", "*", "struct ", "class ", "enum ",
                   "union ", "extern ", "using ", "typedef ", "static_assert", "template <>")
NAME_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_:~]*)\s*\(")


def long_functions(root):
    """(file, name, lines) of the functions of src/*.cc over MAX_FUNCTION_LINES."""
    out = []
    for path in sorted((root / "src").rglob("*.cc")):
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        i = 0
        while i < len(lines):
            line = lines[i]
            if (not line or line[0].isspace() or line.startswith(DEFINITION_SKIP)
                    or "(" not in line):
                i += 1
                continue
            # The signature runs until a line ending in '{' (a definition), ';' (a
            # declaration) or '}' (a one-line definition).
            j = i
            while j < len(lines) and j < i + 12:
                end = lines[j].rstrip()
                if end.endswith(("{", ";", "}")):
                    break
                j += 1
            if j >= len(lines) or not lines[j].rstrip().endswith("{"):
                i = j + 1
                continue
            k = j + 1
            while k < len(lines) and not lines[k].startswith("}"):
                k += 1
            size = k - i + 1
            if size > MAX_FUNCTION_LINES:
                m = NAME_RE.search(line)
                name = m.group(1) if m else line.strip()
                out.append((path.relative_to(root).as_posix(), name, size))
            i = k + 1
    return out


def _matches(pattern, path):
    return path == pattern or (pattern.endswith("/") and path.startswith(pattern))


def exception_for(rel, target, rule):
    for i, (who, what, r, _reason) in enumerate(EXCEPTIONS):
        if r == rule and _matches(who, rel) and _matches(what, target):
            return i
    return None


def check(root):
    """Returns (violations, unused exceptions); each violation is (file:line, rule, text)."""
    root = Path(root).resolve()
    found = []
    used = set()
    edges = {}
    for path in checked_files(root):
        rel = path.relative_to(root).as_posix()
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError as e:
            found.append((rel, "unreadable", str(e)))
            continue
        if len(lines) > MAX_FILE_LINES and rel not in LONG_FILES:
            found.append((rel, "long-file",
                          f"{len(lines)} lines (over {MAX_FILE_LINES}): split it, or name "
                          "the reason in LONG_FILES of scripts/check_layers.py"))
        for lineno, line in enumerate(lines, 1):
            m = INCLUDE_RE.match(line)
            if not m:
                continue
            target = resolve(root, path, m.group(1), m.group(2))
            if target is None:
                if rel.startswith("include/") and m.group(2) not in STD_HEADERS:
                    found.append((f"{rel}:{lineno}", "third-party",
                                  f"a public header includes <{m.group(2)}>, which is not "
                                  "the standard library's: keep it in src/"))
                continue
            edges.setdefault(rel, set()).add(target)
            for rule, text in violations_of(rel, target):
                exc = exception_for(rel, target, rule)
                if exc is not None:
                    used.add(exc)
                    continue
                found.append((f"{rel}:{lineno}", rule, text))
    found.extend(area_cycles(edges))
    allowed = set()
    for file, name, size in long_functions(root):
        key = f"{file}:{name}"
        if key in LONG_FUNCTIONS:
            allowed.add(key)
            continue
        found.append((file, "long-function",
                      f"{name} is {size} lines (over {MAX_FUNCTION_LINES}): split it, or "
                      "name the reason in LONG_FUNCTIONS of scripts/check_layers.py"))
    if len(LONG_FUNCTIONS) > MAX_LONG_FUNCTIONS:
        found.append(("scripts/check_layers.py", "long-function",
                      f"{len(LONG_FUNCTIONS)} functions are allowed over "
                      f"{MAX_FUNCTION_LINES} lines; at most {MAX_LONG_FUNCTIONS} may be"))
    unused = [EXCEPTIONS[i] for i in range(len(EXCEPTIONS)) if i not in used]
    unused += [(key, "", "long-function", "") for key in LONG_FUNCTIONS
               if key not in allowed]
    unused += [(name, "", "long-file", "") for name in LONG_FILES
               if not (root / name).is_file() or
               len((root / name).read_text(errors="replace").splitlines()) <= MAX_FILE_LINES]
    return found, unused


def main(argv):
    root = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parent.parent
    found, unused = check(root)
    for where, rule, text in found:
        print(f"{where}: [{rule}] {text}")
    for who, what, rule, _reason in unused:
        if rule == "long-function":
            print(f"{who}: [stale-exception] is no longer over {MAX_FUNCTION_LINES} lines "
                  "(or gone): remove it from LONG_FUNCTIONS in scripts/check_layers.py")
            continue
        if rule == "long-file":
            print(f"{who}: [stale-exception] is no longer over {MAX_FILE_LINES} lines (or "
                  "gone): remove it from LONG_FILES in scripts/check_layers.py")
            continue
        print(f"{who}: [stale-exception] the sanctioned '{rule}' exception for {what} "
              "matches no include; remove it from EXCEPTIONS in scripts/check_layers.py")
    bad = len(found) + len(unused)
    if bad:
        print(f"check_layers: {bad} problem(s); the layers are {' < '.join(LAYERS)}, "
              "see docs/architecture.md")
        return 1
    print("check_layers: no boundary violations")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
