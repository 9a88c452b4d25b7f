# SPDX-License-Identifier: Apache-2.0
"""Fixtures of the interop suite: lance-interop (lance-cpp), pylance and LanceDB-node.

Environment (set by tests/interop/CMakeLists.txt for ctest; defaults for a manual run):
  LANCE_INTEROP_BIN  the lance-interop executable (default: the first build*/ that has one)
  LANCE_ORACLE_DIR   tools/oracle with node_modules (default: <source>/tools/oracle)
  LANCE_SOURCE_DIR   the source tree (default: two levels above this file)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence

import pyarrow as pa
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from node_jobs import NodeJobs, require_node  # noqa: E402

SOURCE_DIR = Path(os.environ.get("LANCE_SOURCE_DIR", Path(__file__).resolve().parents[2]))
ORACLE_DIR = Path(os.environ.get("LANCE_ORACLE_DIR", SOURCE_DIR / "tools" / "oracle"))
NODE_SCRIPT = ORACLE_DIR / "interop_oracle.cjs"
FIXTURES_DIR = SOURCE_DIR / "tests" / "data" / "lance-8.0.0"


def _load_python_helper(name: str):
    # tests/python/<name>.py, by path (tests/python is not on sys.path here), importable
    # by its name from then on.
    import importlib.util
    path = Path(__file__).resolve().parents[1] / "python" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


# Index listings compared as tests/python compares them (test_surface_interop.py).
_load_python_helper("_indices")


def pytest_configure(config):
    # The secrets scan of the run (scripts/run_tests.sh, scan_secrets.sh): vended secrets
    # recorded, captured subprocess output kept in LANCE_TEST_LOG_DIR.
    _load_python_helper("_secret_ledger").install()
    # The Azurite coordinates (after the ledger, which it records vended SAS tokens in).
    _load_python_helper("_azurite")


def find_built(env_var: str, relative: str) -> Path:
    """A tool of the build: $env_var, else the first build directory of the checkout with
    `relative` in it, else build/`relative` (which may not exist)."""
    env = os.environ.get(env_var)
    if env:
        return Path(env)
    built = sorted(SOURCE_DIR.glob(f"build*/{relative}"))
    return built[0] if built else SOURCE_DIR / "build" / relative


def require_built(binary: Path, env_var: str) -> Path:
    """`binary`, or a failure (never a skip) saying how to get it."""
    if not binary.exists():
        pytest.fail(f"{binary.name} not found at {binary} (build it, or set {env_var})")
    return binary


def _find_interop_bin() -> Path:
    return find_built("LANCE_INTEROP_BIN", "tools/interop/lance-interop")


def cpp_bin() -> Path:
    """The lance-cpp command line."""
    return find_built("LANCE_CPP_BIN", "cli/lance-cpp")


# --- Arrow IPC files ---------------------------------------------------------------------


def write_ipc(table: pa.Table, path: Path) -> Path:
    """An uncompressed IPC file (apache-arrow for JS reads no compressed bodies)."""
    with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    return path


def read_ipc(path: Path) -> pa.Table:
    with pa.OSFile(str(path), "rb") as source:
        return pa.ipc.open_file(source).read_all()


# --- lance-cpp through lance-interop -----------------------------------------------------


class InteropError(AssertionError):
    pass


class Interop:
    """Runs lance-interop; every method raises InteropError naming the failing command."""

    def __init__(self, binary: Path, scratch: Path):
        self.binary = binary
        self.scratch = scratch
        self._n = 0

    def _tmp(self, suffix: str) -> Path:
        self._n += 1
        return self.scratch / f"interop-{self._n}{suffix}"

    def run(self, *args: Any, check: bool = True) -> subprocess.CompletedProcess:
        cmd = [str(self.binary)] + [str(a) for a in args]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        if check and proc.returncode != 0:
            raise InteropError(
                f"lance-interop failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr.strip()}"
            )
        return proc

    def read(self, uri, version: Optional[int] = None, columns: Optional[Sequence[str]] = None,
             filter: Optional[str] = None, with_row_id: bool = False,
             limit: Optional[int] = None, offset: Optional[int] = None) -> pa.Table:
        out = self._tmp(".arrow")
        args: List[Any] = ["read", uri, out]
        if version is not None:
            args += ["--version", version]
        if columns is not None:
            args += ["--columns", ",".join(columns)]
        if filter:
            args += ["--filter", filter]
        if limit is not None:
            args += ["--limit", limit]
        if offset is not None:
            args += ["--offset", offset]
        if with_row_id:
            args.append("--with-row-id")
        self.run(*args)
        table = read_ipc(out)
        out.unlink()
        return table

    def count(self, uri, filter: Optional[str] = None, version: Optional[int] = None) -> int:
        args: List[Any] = ["count", uri]
        if filter:
            args += ["--filter", filter]
        if version is not None:
            args += ["--version", version]
        return int(self.run(*args).stdout.strip())

    def versions(self, uri) -> List[Dict[str, Any]]:
        return json.loads(self.run("versions", uri).stdout)

    def info(self, uri, version: Optional[int] = None) -> Dict[str, Any]:
        args: List[Any] = ["info", uri]
        if version is not None:
            args += ["--version", version]
        return json.loads(self.run(*args).stdout)

    def write(self, table: pa.Table, uri, mode: str, max_rows_per_file: Optional[int] = None,
              max_rows_per_group: Optional[int] = None, v1_names: bool = False) -> int:
        src = write_ipc(table, self._tmp(".arrow"))
        args: List[Any] = ["write", src, uri, "--mode", mode]
        if max_rows_per_file:
            args += ["--max-rows-per-file", max_rows_per_file]
        if max_rows_per_group:
            args += ["--max-rows-per-group", max_rows_per_group]
        if v1_names:
            args.append("--v1-names")
        version = int(self.run(*args).stdout.strip())
        src.unlink()
        return version

    def write_fragments(self, table: pa.Table, uri, max_rows_per_file: Optional[int] = None,
                        mode: Optional[str] = None) -> List[Dict[str, Any]]:
        src = write_ipc(table, self._tmp(".arrow"))
        out = self._tmp(".json")
        args: List[Any] = ["write-fragments", src, uri, out]
        if max_rows_per_file:
            args += ["--max-rows-per-file", max_rows_per_file]
        if mode:
            args += ["--mode", mode]
        self.run(*args)
        fragments = json.loads(out.read_text())
        src.unlink()
        out.unlink()
        return fragments

    def commit(self, uri, fragments: Iterable[Any], op: str, read_version: Optional[int] = None,
               schema: Optional[pa.Schema] = None) -> int:
        frags = self._tmp(".json")
        frags.write_text(json.dumps(list(fragments)))
        args: List[Any] = ["commit", uri, frags, "--op", op]
        if read_version is not None:
            args += ["--read-version", read_version]
        if schema is not None:
            args += ["--schema-from", write_ipc(schema.empty_table(), self._tmp(".arrow"))]
        return int(self.run(*args).stdout.strip())

    def delete(self, uri, predicate: str) -> int:
        return int(self.run("delete", uri, predicate).stdout.strip())


# --- real Lance through LanceDB-node -----------------------------------------------------


class NodeOracle(NodeJobs):
    """Runs batches of jobs through tools/oracle/interop_oracle.cjs (one node process per
    batch: LanceDB's start-up dominates). See that script for the jobs."""

    def __init__(self, scratch: Path):
        super().__init__(NODE_SCRIPT, scratch, "node")


# --- comparison --------------------------------------------------------------------------


def sort_by(table: pa.Table, key: str = "rid") -> pa.Table:
    return table.sort_by(key).combine_chunks()


def _first_difference(a: pa.ChunkedArray, b: pa.ChunkedArray) -> str:
    if len(a) != len(b):
        return f"lengths {len(a)} != {len(b)}"
    a, b = a.combine_chunks(), b.combine_chunks()
    for i in range(len(a)):
        x, y = a[i], b[i]
        # Scalar equality (Python values may not exist: timestamps beyond datetime's range).
        if not x.equals(y) and not _both_nan(x, y):
            return f"row {i}: {x} != {y}"
    return "(values compare equal one by one; buffers or chunking differ)"


def _both_nan(x: pa.Scalar, y: pa.Scalar) -> bool:
    if not (pa.types.is_floating(x.type) and x.is_valid and y.is_valid):
        return False
    vx, vy = x.as_py(), y.as_py()
    return vx != vx and vy != vy


def _with_rowid_nullable(table: pa.Table, nullable: bool) -> pa.Table:
    i = table.schema.get_field_index("_rowid")
    if i < 0 or table.schema.field(i).nullable == nullable:
        return table
    return table.cast(table.schema.set(i, table.schema.field(i).with_nullable(nullable)))


def assert_tables_equal(actual: pa.Table, expected: pa.Table, key: Optional[str] = "rid",
                        what: str = "", strict_rowid_field: bool = False) -> None:
    """Exact equality (schema without metadata, then every column) after sorting both by
    `key`; the message names the first differing column and row.

    Unless strict_rowid_field, a `_rowid` column's nullability is not compared (real Lance
    declares it nullable; test_row_ids.py checks that separately)."""
    if not strict_rowid_field and "_rowid" in expected.schema.names:
        actual = _with_rowid_nullable(actual, expected.schema.field("_rowid").nullable)
    if key is not None:
        actual, expected = sort_by(actual, key), sort_by(expected, key)
    prefix = f"{what}: " if what else ""
    if not actual.schema.equals(expected.schema, check_metadata=False):
        raise AssertionError(f"{prefix}schemas differ\n--- actual\n{actual.schema}\n"
                             f"--- expected\n{expected.schema}")
    assert actual.num_rows == expected.num_rows, (
        f"{prefix}row counts differ: {actual.num_rows} != {expected.num_rows}")
    for name in expected.column_names:
        if not actual.column(name).equals(expected.column(name)):
            raise AssertionError(f"{prefix}column {name!r} ({expected.schema.field(name).type}) "
                                 f"differs: {_first_difference(actual.column(name), expected.column(name))}")


def assert_versions_match_pylance(interop: "Interop", uri) -> None:
    """lance-interop versions == pylance's LanceDataset.versions(): numbers, commit times
    (to the millisecond) and summary metadata."""
    import lance

    want = lance.dataset(str(uri)).versions()
    got = interop.versions(uri)
    assert [v["version"] for v in got] == [v["version"] for v in want]
    for g, w in zip(got, want):
        # pylance gives a naive local datetime (datetime.fromtimestamp).
        assert abs(g["timestamp_ms"] - w["timestamp"].timestamp() * 1000) <= 1, g["version"]
        assert g["metadata"] == w["metadata"], g["version"]


def lance_manifest_names(uri) -> List[str]:
    return sorted(p.name for p in (Path(uri) / "_versions").glob("*.manifest"))


# --- fixtures ----------------------------------------------------------------------------


@pytest.fixture(scope="session")
def interop_bin() -> Path:
    return require_built(_find_interop_bin(), "LANCE_INTEROP_BIN")


@pytest.fixture(scope="session")
def session_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("interop")


@pytest.fixture(scope="session")
def interop(interop_bin, session_dir) -> Interop:
    scratch = session_dir / "interop-scratch"
    scratch.mkdir(exist_ok=True)
    return Interop(interop_bin, scratch)


@pytest.fixture(scope="session")
def node(session_dir) -> NodeOracle:
    require_node(ORACLE_DIR)
    scratch = session_dir / "node-scratch"
    scratch.mkdir(exist_ok=True)
    return NodeOracle(scratch)


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    if not FIXTURES_DIR.exists():
        pytest.fail(f"missing fixtures {FIXTURES_DIR}")
    return FIXTURES_DIR
