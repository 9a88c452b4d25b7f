#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The layer and public/private boundary check (ctest `boundary_check`, part of `make test`).

Usage: scripts/check_layers.py [ROOT]   (ROOT defaults to the repository holding this script)

Every `#include "..."` (and `#include <...>` that names a project header) of the library
code, the public headers and the programs built on them is resolved as the compiler would
(the including file's folder first, then the program's own folder, include/, src/) and
checked against four rules:

  layer-up       src/<area> or include/lance/<area> includes a header of a higher layer.
                 Order: core < io < ipc < format < table < namespace < server; the top-level
                 include/lance/*.h count as core.
  private-area   src/<area> includes a private header of another area (src/<other>/...),
                 including the generated ones (<other>/proto/*.pb.h, *_generated.h).
  outside-src    cli/, python/, java/, tools/, examples/ or bench/ includes a private header
                 (anything under src/): they get the public API only.
  public-private a public header (include/) includes something outside include/.

Tests (tests/) may include anything. The sanctioned exceptions are listed below, each with
its reason; an exception that no longer matches any include is reported too, so that the
list cannot outlive its cause. Prints one line per violation, `file:line: [rule] text`,
and exits 1 if there is any.
"""

import os
import re
import sys
from pathlib import Path

LAYERS = ["core", "io", "ipc", "format", "table", "namespace", "server"]
RANK = {name: i for i, name in enumerate(LAYERS)}

# Folders of programs that must stick to the public API (include/lance/...).
OUTSIDE = ["cli", "python", "java", "tools", "examples", "bench"]

SOURCE_SUFFIXES = (".h", ".hh", ".hpp", ".cc", ".cpp", ".cxx", ".inc")

# (including file, included file, rule, reason), paths under the root. A folder (ending in
# "/") on either side matches everything below it.
EXCEPTIONS = [
    ("src/table/", "src/format/schema_proto.h", "private-area",
     "manifests and transactions store the schema as the same lance.file.Field protobufs "
     "as data files (table.proto imports file.proto), so the table layer shares format's "
     "one LanceSchema <-> Field converter instead of keeping a second copy"),
    ("bench/s3_benchmark.cc", "src/io/s3/", "outside-src",
     "the S3 benchmark measures the raw S3 transport (S3Client) against curl, below the "
     "ObjectStore API; only this target gets src/ on its include path "
     "(bench/CMakeLists.txt)"),
]

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
    for path in checked_files(root):
        rel = path.relative_to(root).as_posix()
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError as e:
            found.append((rel, "unreadable", str(e)))
            continue
        for lineno, line in enumerate(lines, 1):
            m = INCLUDE_RE.match(line)
            if not m:
                continue
            target = resolve(root, path, m.group(1), m.group(2))
            if target is None:
                continue
            for rule, text in violations_of(rel, target):
                exc = exception_for(rel, target, rule)
                if exc is not None:
                    used.add(exc)
                    continue
                found.append((f"{rel}:{lineno}", rule, text))
    unused = [EXCEPTIONS[i] for i in range(len(EXCEPTIONS)) if i not in used]
    return found, unused


def main(argv):
    root = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parent.parent
    found, unused = check(root)
    for where, rule, text in found:
        print(f"{where}: [{rule}] {text}")
    for who, what, rule, _reason in unused:
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
