# SPDX-License-Identifier: Apache-2.0
"""Shared by the file format 2.1 / 2.2 suites (test_v2x_*.py): the implementation under
test, the matrix (generated once per session), exact table comparison, the lance-cpp CLI
and the LanceDB-node matrix oracle.

Environment (set by tests/interop/CMakeLists.txt for ctest; defaults for a manual run):
  LANCE_PYTHON_BUILD_DIR  <build>/python holding the lance_cpp package (default: the first
                          build*/python that has one)
  LANCE_CPP_BIN           the lance-cpp CLI (default: the first build*/cli/lance-cpp)
  LANCE_V2X_SEED          the matrix seed (default matrix_gen.DEFAULT_SEED)
  LANCE_V2X_SELFTEST=1    run every lance_cpp call on pylance instead: checks the pylance and
                          LanceDB-node side of each test (all must pass, except the few that
                          test lance_cpp-only behaviour, which skip)
"""

from __future__ import annotations

import importlib
import os
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any, Dict, List, Optional

import pyarrow as pa
import pytest

sys.path.insert(0, str(Path(__file__).parent))

import matrix_gen  # noqa: E402
from conftest import cpp_bin  # noqa: E402,F401  (for the v2x tests)
from node_jobs import NodeJobs, require_node  # noqa: E402

SOURCE_DIR = matrix_gen.SOURCE_DIR
ORACLE_DIR = matrix_gen.ORACLE_DIR
SEED = int(os.environ.get("LANCE_V2X_SEED", matrix_gen.DEFAULT_SEED))
SELFTEST = os.environ.get("LANCE_V2X_SELFTEST") == "1"


# -- the implementation under test --------------------------------------------------------


def _python_build_dir() -> Optional[Path]:
    env = os.environ.get("LANCE_PYTHON_BUILD_DIR")
    if env:
        return Path(env)
    built = sorted(SOURCE_DIR.glob("build*/python/lance_cpp/__init__.py"))
    return built[0].parent.parent if built else None


@lru_cache(maxsize=None)
def cpp_module():
    """lance_cpp (pylance itself under LANCE_V2X_SELFTEST=1). A missing build is a failure
    with a clear message, never a skip."""
    if SELFTEST:
        import lance

        return lance
    build = _python_build_dir()
    if build is not None and str(build) not in sys.path:
        sys.path.insert(0, str(build))
    try:
        return importlib.import_module("lance_cpp")
    except ImportError as e:
        raise RuntimeError(f"cannot import lance_cpp (build it: ninja -C build _lance_cpp; "
                           f"LANCE_PYTHON_BUILD_DIR={build}): {e}") from e


def skip_in_selftest(why: str) -> None:
    if SELFTEST:
        pytest.skip(f"LANCE_V2X_SELFTEST: {why}")


# -- the matrix, once per session ---------------------------------------------------------


@lru_cache(maxsize=None)
def specs() -> Dict[str, matrix_gen.Spec]:
    return matrix_gen.build_specs(SEED)


def dataset_ids() -> List[str]:
    """"<writer>-<version>/<spec>" of every dataset generate() writes (known before it
    runs, for parametrization)."""
    ids = []
    for version in matrix_gen.VERSIONS:
        for spec in specs().values():
            if "pylance" in spec.writers and version in spec.versions:
                ids.append(f"pylance-{version}/{spec.name}")
    for spec in specs().values():
        if "node" in spec.writers:
            ids.append(f"node-{spec.node_version or '2.1'}/{spec.name}")
    return ids


_MATRIX: Dict[str, Dict[str, Any]] = {}


def matrix(tmp_path_factory) -> Dict[str, Any]:
    """Generates the matrix on first use (one tmp folder per session, whichever module asks
    first); {"root", "datasets": {id: dataset entry of matrix.json}}."""
    if "m" not in _MATRIX:
        require_node(ORACLE_DIR)
        root = tmp_path_factory.mktemp("v2x-matrix")
        manifest = matrix_gen.generate(root, SEED, node=True, specs=specs())
        by_id = {f"{d['writer']}-{d['data_storage_version']}/{d['spec']}": d
                 for d in manifest["datasets"]}
        missing = set(dataset_ids()) - set(by_id)
        assert not missing, f"the generator did not write {sorted(missing)}"
        _MATRIX["m"] = {"root": root, "datasets": by_id, "manifest": manifest}
    return _MATRIX["m"]


# -- exact comparison ---------------------------------------------------------------------


def _bits_type(t: pa.DataType) -> pa.DataType:
    """t with every floating type replaced by the unsigned integer of its width: floats are
    compared bit for bit (NaN payloads, -0.0), not by IEEE equality."""
    if pa.types.is_floating(t):
        return {16: pa.uint16(), 32: pa.uint32(), 64: pa.uint64()}[t.bit_width]

    def field(f: pa.Field) -> pa.Field:
        # Nullable: a non-nullable child of a null struct slot may hold nulls there (the
        # schema comparison checks nullability).
        return pa.field(f.name, _bits_type(f.type), True, f.metadata)

    if pa.types.is_map(t):
        key = pa.field(t.key_field.name, _bits_type(t.key_field.type), False)
        return pa.map_(key, field(t.item_field), t.keys_sorted)
    if pa.types.is_list(t):
        return pa.list_(field(t.value_field))
    if pa.types.is_large_list(t):
        return pa.large_list(field(t.value_field))
    if pa.types.is_fixed_size_list(t):
        return pa.list_(field(t.value_field), t.list_size)
    if pa.types.is_struct(t):
        return pa.struct([field(t.field(i)) for i in range(t.num_fields)])
    return t


def comparable(column: pa.ChunkedArray) -> pa.Array:
    """One array whose `equals` is exact for our purposes: chunking removed, dictionaries
    decoded (which dictionary a reader builds - order, unused entries - is not data; the
    dictionary *type* is compared with the schema), floats as bits."""
    chunks = column.chunks
    if pa.types.is_dictionary(column.type):
        chunks = [c.dictionary_decode() for c in chunks]
    arr = pa.chunked_array(chunks, type=chunks[0].type if chunks else (
        column.type.value_type if pa.types.is_dictionary(column.type) else column.type)
    ).combine_chunks()
    bits = _bits_type(arr.type)
    return arr if bits.equals(arr.type, check_metadata=True) else arr.view(bits)


def _first_difference(a: pa.Array, b: pa.Array) -> str:
    if len(a) != len(b):
        return f"lengths {len(a)} != {len(b)}"
    lo, hi = 0, len(a)
    # Bisect to a first differing row (slices compare fast in C++).
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if not a.slice(lo, mid - lo).equals(b.slice(lo, mid - lo)):
            hi = mid
        else:
            lo = mid
    x, y = a[lo], b[lo]
    return f"row {lo}: {str(x)[:300]} != {str(y)[:300]}"


def table_diff(actual: pa.Table, expected: pa.Table) -> List[str]:
    """Every difference between the tables (empty if equal). Compared: the schema with all
    metadata (names, order, types, nullability, field and schema metadata), the row count,
    and every value in row order. Not compared (legitimately free): chunking, buffers under
    null slots, dictionary contents as opposed to decoded values."""
    problems = []
    if not actual.schema.equals(expected.schema, check_metadata=True):
        if actual.schema.names != expected.schema.names:
            problems.append(f"column names {actual.schema.names} != {expected.schema.names}")
        else:
            for f in expected.schema:
                g = actual.schema.field(f.name)
                if not g.equals(f, check_metadata=True):
                    problems.append(f"field {g} (metadata {g.metadata}) != expected {f} "
                                    f"(metadata {f.metadata})")
            if actual.schema.metadata != expected.schema.metadata:
                problems.append(f"schema metadata {actual.schema.metadata} != "
                                f"{expected.schema.metadata}")
        if problems:
            return problems
    if actual.num_rows != expected.num_rows:
        return problems + [f"{actual.num_rows} rows != {expected.num_rows}"]
    for name in expected.column_names:
        if name not in actual.column_names:
            continue
        a, e = comparable(actual.column(name)), comparable(expected.column(name))
        if not a.equals(e):
            problems.append(f"column {name!r} ({expected.schema.field(name).type}): "
                            f"{_first_difference(a, e)}")
    return problems


def assert_same(actual: pa.Table, expected: pa.Table, what: str) -> None:
    problems = table_diff(actual, expected)
    if problems:
        raise AssertionError(f"{what}: lance_cpp differs from pylance:\n  " +
                             "\n  ".join(problems))


def checked(what: str, fn, *args, **kwargs):
    """Calls lance_cpp, adding `what` to any error (the reason a test fails today is then
    one line: e.g. NotImplemented naming the file format version)."""
    try:
        return fn(*args, **kwargs)
    except Exception as e:
        raise AssertionError(f"{what}: lance_cpp raised {type(e).__name__}: "
                             f"{str(e)[:1500]}") from e


# -- LanceDB-node (tools/oracle/writematrix.cjs) ------------------------------------------


def run_node(jobs: List[Dict[str, Any]], scratch: Path) -> List[Dict[str, Any]]:
    """Raw results ({ok, value|error}) of one writematrix.cjs batch."""
    return NodeJobs(matrix_gen.WRITEMATRIX_JS, scratch, "jobs").run(jobs)


def read_ipc_stream(path: Path) -> pa.Table:
    with pa.OSFile(str(path), "rb") as source:
        return pa.ipc.open_stream(source).read_all()


# -- data files ---------------------------------------------------------------------------


def data_file_versions(uri) -> List[str]:
    """"major.minor" of every data file of the latest version, as pylance reports them."""
    import lance

    return [f"{df.file_major_version}.{df.file_minor_version}"
            for frag in lance.dataset(str(uri)).get_fragments()
            for df in frag.metadata.files]


def data_bytes(uri) -> int:
    """Total size of the data files of the latest version."""
    import lance

    ds = lance.dataset(str(uri))
    return sum((Path(uri) / "data" / df.path).stat().st_size
               for frag in ds.get_fragments() for df in frag.metadata.files)
