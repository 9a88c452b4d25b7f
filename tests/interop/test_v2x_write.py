# SPDX-License-Identifier: Apache-2.0
"""Writing file formats 2.1 and 2.2 with lance_cpp, checked by real Lance.

lance_cpp writes every matrix table (matrix_gen.py) with
``write_dataset(tbl, uri, data_storage_version=v)`` for v in "2.1", "2.2", "stable" and
none (the default, which must be 2.2 as in pylance 14), with the spec's fragments
(max_rows_per_file). Then:

  * pylance opens it: storage version, file version of every data file, fragments, and the
    table read equal to what was written (v2x_common.table_diff: schema with metadata,
    values bit for bit); lance_cpp reads it equal too;
  * pylance appends (its files keep the dataset's version) and deletes; lance_cpp appends
    (same rule); lance_cpp reads every version equal to what pylance reads;
  * LanceDB-node (Lance 8.0.0) reads the 2.1 datasets (and the 2.2 maps) equal to pylance;
  * "next"/"2.3" and "legacy"/"0.1" are refused clearly, an unknown version is a
    ValueError (as pylance), a map in 2.1 is refused as pylance refuses it; nothing is
    committed then;
  * size: the data files lance_cpp writes at 2.2 total at most 1.1x pylance's for the same
    table (ratios printed; ctest runs this suite with -rP so they show).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import lance
import pyarrow as pa
import pytest

import matrix_gen
from v2x_common import (assert_same, checked, cpp_module, data_bytes, data_file_versions,
                        read_ipc_stream, run_node, skip_in_selftest, specs, table_diff)

# (requested, expected storage version): None = the argument left out.
WRITE_VERSIONS = [("2.1", "2.1"), ("2.2", "2.2"), ("stable", "2.2"), (None, "2.2")]
SIZE_RATIO_LIMIT = 1.1


def _label(requested: Optional[str]) -> str:
    return requested or "default"


def _cases() -> List[Tuple[str, Optional[str], str]]:
    """(spec, requested, expected) for every table and version it can be written in."""
    out = []
    for spec in specs().values():
        # What pylance writes in 2.1 it writes in 2.2 too (not the reverse: maps).
        writable = matrix_gen.VERSIONS if "2.1" in spec.versions else spec.versions
        for requested, expected in WRITE_VERSIONS:
            if expected in writable:
                out.append((spec.name, requested, expected))
    return out


CASES = _cases()
CASE_IDS = [f"{s}-{_label(r)}" for s, r, _ in CASES]


@pytest.fixture(scope="module")
def cpp():
    return cpp_module()


@pytest.fixture(scope="module")
def written(cpp, tmp_path_factory) -> Dict[Tuple[str, Optional[str]], Dict[str, Any]]:
    """lance_cpp writes every case once: {(spec, requested): {"uri", "error"}}."""
    root = tmp_path_factory.mktemp("v2x-written")
    out = {}
    for name, requested, expected in CASES:
        spec = specs()[name]
        uri = root / _label(requested) / f"{name}.lance"
        kwargs = dict(spec.pylance_kwargs())
        if requested is not None:
            kwargs["data_storage_version"] = requested
        try:
            cpp.write_dataset(spec.reader(), str(uri), **kwargs)
            out[(name, requested)] = {"uri": uri, "error": None}
        except Exception as e:  # reported by every test of the case
            out[(name, requested)] = {"uri": uri,
                                      "error": f"{type(e).__name__}: {str(e)[:1500]}"}
    return out


def _uri(written, name, requested) -> Path:
    w = written[(name, requested)]
    if w["error"]:
        raise AssertionError(f"lance_cpp.write_dataset({name}, data_storage_version="
                             f"{requested!r}) raised {w['error']}")
    return w["uri"]


def _fragment_rows(n: int, per_file: int) -> List[int]:
    return [min(per_file, n - i) for i in range(0, n, per_file)]


@pytest.mark.parametrize("name,requested,expected", CASES, ids=CASE_IDS)
def test_write_read_back(cpp, written, name, requested, expected):
    spec = specs()[name]
    uri = _uri(written, name, requested)
    theirs = lance.dataset(str(uri))
    assert theirs.data_storage_version == expected
    assert set(data_file_versions(uri)) <= {expected}
    assert [f.metadata.physical_rows for f in theirs.get_fragments()] == \
        _fragment_rows(spec.num_rows, spec.max_rows_per_file)
    got = theirs.to_table()
    problems = table_diff(got, spec.table)
    assert not problems, f"pylance reads {name} written by lance_cpp ({requested}) " \
                         "differently from what was written:\n  " + "\n  ".join(problems)
    ours = checked(f"{name}: lance_cpp reading its own write", cpp.dataset, str(uri))
    assert ours.data_storage_version == expected
    assert_same(checked(f"{name}: to_table()", ours.to_table), got, f"{name} ({requested})")


@pytest.mark.parametrize("name,requested,expected", CASES, ids=CASE_IDS)
def test_append_and_delete(cpp, written, tmp_path, name, requested, expected):
    """pylance and lance_cpp append to a lance_cpp-written dataset (new files keep its
    version), pylance deletes; lance_cpp reads every version as pylance does."""
    spec = specs()[name]
    uri = tmp_path / f"{name}.lance"
    shutil.copytree(_uri(written, name, requested), uri)
    assert lance.dataset(str(uri)).data_storage_version == expected, \
        f"lance_cpp wrote {name} ({requested}) in the wrong version"
    extra = spec.table.slice(0, min(spec.num_rows, 3000))
    lance.write_dataset(extra, str(uri), mode="append")
    assert set(data_file_versions(uri)) <= {expected}, "pylance's append changed version"
    checked(f"{name}: lance_cpp append", cpp.write_dataset, extra, str(uri), mode="append")
    assert set(data_file_versions(uri)) <= {expected}, "lance_cpp's append changed version"
    ds = lance.dataset(str(uri))
    for predicate in list(spec.deletes) + ["rid % 5 = 2"]:
        ds.delete(predicate)
    assert ds.data_storage_version == expected
    for version in range(1, ds.version + 1):
        want = lance.dataset(str(uri), version=version).to_table()
        got = checked(f"{name} v{version}: to_table()",
                      lambda: cpp.dataset(str(uri), version=version).to_table())
        assert_same(got, want, f"{name} ({requested}) version {version}")
    assert checked("count_rows", lambda: cpp.dataset(str(uri)).count_rows(spec.int_filter)) \
        == ds.count_rows(spec.int_filter)


# -- LanceDB-node reads lance_cpp's 2.1 datasets ------------------------------------------

NODE_CASES = [(s.name, s.node_version or "2.1") for s in specs().values()
              if "node" in s.writers]


@pytest.fixture(scope="module")
def node_reads(cpp, tmp_path_factory) -> Dict[Tuple[str, str], Dict[str, Any]]:
    """lance_cpp writes each NODE_CASES table with the columns LanceDB-node can read (Lance
    8.0.0 panics opening a schema with a '+05:30' time zone, even unprojected), then one
    node batch reads them all: {(spec, version): {"uri", "table" or "error"}}."""
    root = tmp_path_factory.mktemp("v2x-node-reads")
    jobs, keys, reads = [], [], {}
    for name, version in NODE_CASES:
        spec = specs()[name]
        uri = root / version / f"{name}.lance"
        try:
            cpp.write_dataset(spec.table.select(matrix_gen.node_columns(spec)), str(uri),
                              data_storage_version=version,
                              max_rows_per_file=spec.max_rows_per_file)
        except Exception as e:
            reads[(name, version)] = {"uri": uri, "error": f"lance_cpp.write_dataset raised "
                                                           f"{type(e).__name__}: {str(e)[:1500]}"}
            continue
        out = root / f"{name}-{version}.arrows"
        jobs.append({"op": "read", "uri": str(uri), "out": str(out)})
        keys.append(((name, version), uri, out))
    results = run_node(jobs, root / "scratch") if jobs else []
    for (key, uri, out), r in zip(keys, results):
        reads[key] = {"uri": uri, "table": read_ipc_stream(out)} if r["ok"] else \
            {"uri": uri, "error": f"LanceDB-node failed reading {uri}: {r['error'][:1500]}"}
    return reads


@pytest.mark.parametrize("name,version", NODE_CASES, ids=[f"{n}-{v}" for n, v in NODE_CASES])
def test_node_reads_cpp_written(node_reads, name, version):
    read = node_reads[(name, version)]
    assert "error" not in read, read["error"]
    want = lance.dataset(str(read["uri"])).to_table()
    problems = table_diff(read["table"], want)
    assert not problems, f"LanceDB-node reads {name} ({version}) written by lance_cpp " \
                         "differently from pylance:\n  " + "\n  ".join(problems)


# -- refusals -----------------------------------------------------------------------------

SMALL = pa.table({"x": pa.array([1, 2, None], pa.int64()), "s": ["a", None, "c"]})


def test_default_version_is_2_2(cpp, tmp_path):
    ds = checked("write_dataset without a version", cpp.write_dataset, SMALL,
                 str(tmp_path / "d.lance"))
    assert ds.data_storage_version == "2.2"
    assert lance.dataset(str(tmp_path / "d.lance")).data_storage_version == "2.2"
    assert data_file_versions(tmp_path / "d.lance") == ["2.2"]
    # And pylance's default agrees (the reference this follows).
    assert lance.write_dataset(SMALL, str(tmp_path / "p.lance")).data_storage_version == "2.2"


@pytest.mark.parametrize("requested", ["next", "2.3", "legacy", "0.1"])
def test_unsupported_versions_refused(cpp, tmp_path, requested):
    skip_in_selftest("pylance writes these versions")
    uri = tmp_path / "t.lance"
    with pytest.raises((ValueError, NotImplementedError)) as info:
        cpp.write_dataset(SMALL, str(uri), data_storage_version=requested)
    assert requested in str(info.value), f"the error should name {requested!r}: {info.value}"
    assert not (uri / "_versions").exists(), "a refused write committed a version"


@pytest.mark.parametrize("requested", ["2.9", "bogus"])
def test_unknown_version_is_value_error(cpp, tmp_path, requested):
    # pylance: ValueError "Invalid user input: Unknown Lance storage version: 2.9".
    with pytest.raises(ValueError) as theirs:
        lance.write_dataset(SMALL, str(tmp_path / "p.lance"), data_storage_version=requested)
    with pytest.raises(ValueError) as ours:
        cpp.write_dataset(SMALL, str(tmp_path / "c.lance"), data_storage_version=requested)
    assert requested in str(ours.value)
    assert "Unknown Lance storage version" in str(theirs.value)


def test_map_in_2_1_refused_as_pylance(cpp, tmp_path):
    """Maps exist from 2.2 on: pylance refuses them in 2.1 (OSError "Not supported: Map data
    type is not enabled by the selected file format"), lance_cpp must too."""
    table = specs()["maps"].table.slice(0, 100)
    with pytest.raises(OSError):
        lance.write_dataset(table, str(tmp_path / "p.lance"), data_storage_version="2.1")
    uri = tmp_path / "c.lance"
    with pytest.raises((OSError, ValueError, NotImplementedError)) as info:
        cpp.write_dataset(table, str(uri), data_storage_version="2.1")
    assert "map" in str(info.value).lower(), info.value
    assert not (uri / "_versions").exists(), "a refused write committed a version"


# -- sizes --------------------------------------------------------------------------------

SIZE_SPECS = [name for name, requested, _ in CASES if requested == "2.2" and
              specs()[name].num_rows]


@pytest.mark.parametrize("name", SIZE_SPECS)
def test_file_size_vs_pylance(written, tmp_path, name):
    """Data bytes lance_cpp writes at 2.2 <= 1.1x pylance's for the same input (pylance
    with its default page sizes: no data_cache_bytes)."""
    spec = specs()[name]
    ours = data_bytes(_uri(written, name, "2.2"))
    uri = tmp_path / f"{name}.lance"
    lance.write_dataset(spec.reader(), str(uri), data_storage_version="2.2",
                        max_rows_per_file=spec.max_rows_per_file)
    theirs = data_bytes(uri)
    ratio = ours / theirs
    print(f"size {name:11} lance_cpp {ours:>10} B  pylance {theirs:>10} B  ratio {ratio:.3f}")
    assert ratio <= SIZE_RATIO_LIMIT, \
        f"{name}: lance_cpp wrote {ours} bytes of data files, pylance {theirs} " \
        f"({ratio:.3f}x > {SIZE_RATIO_LIMIT}x)"
