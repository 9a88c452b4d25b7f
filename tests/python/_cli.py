# SPDX-License-Identifier: Apache-2.0
"""The lance-cpp command line as the CLI tests run it: the binary ($LANCE_CPP_BIN, else
build/cli/lance-cpp of $LANCE_SOURCE_DIR or of this checkout; a missing binary is a
failure, never a skip), a runner that fails on a non-zero exit, and a runner with stderr
on a pseudo-terminal (for the progress bar)."""
from __future__ import annotations

import json
import os
import select
import subprocess
from pathlib import Path

SOURCE_DIR = Path(__file__).resolve().parents[2]


def cli_bin() -> Path:
    env = os.environ.get("LANCE_CPP_BIN")
    root = Path(os.environ.get("LANCE_SOURCE_DIR", SOURCE_DIR))
    path = Path(env) if env else root / "build" / "cli" / "lance-cpp"
    if not path.exists():  # a failure, never a skip
        raise RuntimeError(f"lance-cpp not built at {path} (ninja -C build lance-cpp)")
    return path


def run(*args, check=True, timeout=300, **kwargs) -> subprocess.CompletedProcess:
    """lance-cpp `args` (each str()-ed), its output captured as text; with `check`, a
    non-zero exit is an AssertionError naming the command and its stderr."""
    proc = subprocess.run([str(cli_bin()), *map(str, args)], capture_output=True,
                          text=True, timeout=timeout, **kwargs)
    if check and proc.returncode != 0:
        raise AssertionError(f"lance-cpp {' '.join(map(str, args))} failed "
                             f"({proc.returncode}): {proc.stderr}")
    return proc


def run_json(*args):
    """The JSON document lance-cpp `args` prints (a non-zero exit fails)."""
    return json.loads(run(*args).stdout)


def read_terminal(master: int) -> str:
    """What a pseudo-terminal's other end received until it closed (or went quiet for a
    minute); closes `master`."""
    received = b""
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the other end closed
            break
        if not chunk:
            break
        received += chunk
    os.close(master)
    return received.decode()
