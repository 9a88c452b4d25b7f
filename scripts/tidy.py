#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""clang-tidy over the given sources, remembering the ones it found clean.

    scripts/tidy.py BUILD_DIR [-j N] FILE...

`make tidy` checks every src/*.cc changed since the lint base, a list that only grows, and
clang-tidy takes tens of seconds a file: on a 2-core machine that became the longest step of
CI after the build. Most of those files did not change since the last run, so a clean result
is remembered, as ccache remembers an object: under a key made of everything the result can
depend on -- the clang-tidy version, .clang-tidy, the file's compile flags and its
preprocessed source (every header it includes, so a header change invalidates it) -- with the
checkout's and the build's paths replaced, so that clones of the repository share the cache.
Only clean results are kept: a file with findings is checked (and reported) every time.

Cache: $LANCE_TIDY_CACHE, default ~/.cache/lance-cpp/tidy (one empty file per key).
Exit status: 1 if any file has findings or cannot be checked, else 0.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import hashlib
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _normalize(text: bytes, build_dir: Path) -> bytes:
    # The build directory is usually inside the checkout: replace it first.
    for path, token in ((str(build_dir), b"@BUILD@"), (str(ROOT), b"@ROOT@")):
        text = text.replace(path.encode(), token)
    return text


def _preprocess(entry: dict) -> bytes:
    """The source as the compiler sees it (-E -P), or an error describing why not."""
    args = shlex.split(entry["command"]) if "command" in entry else list(entry["arguments"])
    out, skip = [], False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg == "-o":
            skip = True
            continue
        if arg == "-c":
            continue
        out.append(arg)
    out += ["-E", "-P", "-o", "-"]
    done = subprocess.run(out, cwd=entry["directory"], capture_output=True)
    if done.returncode != 0:
        raise RuntimeError(done.stderr.decode(errors="replace")[-2000:])
    return done.stdout


def _key(entry: dict, base: bytes, build_dir: Path) -> str:
    digest = hashlib.sha256(base)
    flags = entry.get("command") or " ".join(entry.get("arguments", []))
    digest.update(_normalize(flags.encode(), build_dir))
    digest.update(_normalize(_preprocess(entry), build_dir))
    return digest.hexdigest()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build_dir", type=Path)
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("files", nargs="*")
    args = parser.parse_intermixed_args()
    build_dir = args.build_dir.resolve()
    commands = json.loads((build_dir / "compile_commands.json").read_text())
    by_file = {str(Path(e["directory"], e["file"]).resolve()): e for e in commands}
    cache = Path(os.environ.get("LANCE_TIDY_CACHE",
                                Path.home() / ".cache" / "lance-cpp" / "tidy"))
    cache.mkdir(parents=True, exist_ok=True)
    version = subprocess.run(["clang-tidy", "--version"], capture_output=True).stdout
    base = version + (ROOT / ".clang-tidy").read_bytes()

    def check(name: str):
        path = str((ROOT / name).resolve())
        entry = by_file.get(path)
        if entry is None:
            return name, False, f"{name}: not in {build_dir}/compile_commands.json\n", False
        try:
            key = _key(entry, base, build_dir)
        except RuntimeError as e:  # not preprocessable: let clang-tidy say why
            key = None
            print(f"[tidy] {name}: no cache key ({e})", file=sys.stderr)
        if key and (cache / key).exists():
            return name, True, "", True
        done = subprocess.run(["clang-tidy", "-p", str(build_dir), "--quiet",
                               "--warnings-as-errors=*", path], capture_output=True)
        ok = done.returncode == 0
        if ok and key:
            (cache / key).touch()
        report = "" if ok else done.stdout.decode(errors="replace") + \
            done.stderr.decode(errors="replace")
        return name, ok, report, False

    failed, cached = [], 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(args.jobs, 1)) as pool:
        for name, ok, report, hit in pool.map(check, args.files):
            cached += hit
            if not ok:
                failed.append(name)
                sys.stdout.write(report)
    print(f"clang-tidy: {len(args.files)} source(s), {cached} clean from the cache "
          f"({cache}), {len(failed)} with findings")
    for name in failed:
        print(f"  {name}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
