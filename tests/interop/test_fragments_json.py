# SPDX-License-Identifier: Apache-2.0
"""Distributed writes across implementations: fragments written by one side, described
by FragmentMetadata JSON (pylance's `to_json()` shape), committed by the other.

- pylance `lance.fragment.write_fragments(..., data_storage_version="2.0")` on workers,
  `lance-interop commit` (Dataset::Commit) on the driver;
- `lance-interop write-fragments` (WriteFragments) on workers, pylance
  `LanceDataset.commit(uri, LanceOperation.Overwrite/Append(...))` on the driver;
- one Append mixing fragments from both, committed by each side.
Every result is read equal by lance-cpp, pylance and node.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import List

import lance
import pyarrow as pa
import pytest
from lance.fragment import write_fragments as py_write_fragments

import datagen
from conftest import assert_tables_equal, read_ipc

PROFILE = datagen.TypeProfile().without("large_list")  # node scans the results too


def _data(seed: int) -> datagen.RandomDataset:
    return datagen.random_dataset(seed, PROFILE, num_columns=8,
                                  cover=("struct", "list", "fixed_size_list", "utf8"))


def _py_fragments(table: pa.Table, uri: Path, max_rows_per_file: int) -> List[dict]:
    fragments = py_write_fragments(table, str(uri), data_storage_version="2.0",
                                   max_rows_per_file=max_rows_per_file)
    return [_as_dict(f.to_json()) for f in fragments]


def _on_workers(write, parts: List[pa.Table], uri: Path, max_rows_per_file: int) -> List[dict]:
    """The fragments `write` makes of each part (one worker a part), together."""
    return [f for part in parts for f in write(part, uri, max_rows_per_file=max_rows_per_file)]


def _as_dict(j):
    return json.loads(j) if isinstance(j, str) else j


def _py_metadata(fragments: List[dict]):
    return [lance.FragmentMetadata.from_json(json.dumps(f)) for f in fragments]


def _check_everyone_reads(uri: Path, expected: pa.Table, interop, node, scratch: Path) -> None:
    ds = lance.dataset(str(uri))
    assert ds.data_storage_version == "2.0"
    assert_tables_equal(ds.to_table(), expected, what="pylance")
    assert_tables_equal(interop.read(uri), expected, what="lance-cpp")
    assert_tables_equal(interop.read(uri, with_row_id=True), ds.to_table(with_row_id=True),
                        key="_rowid", what="lance-cpp row ids vs pylance")
    assert interop.count(uri) == ds.count_rows() == expected.num_rows
    out = scratch / f"{uri.name}-node.arrow"
    count, _ = node.run_ok([{"op": "count", "uri": uri},
                            {"op": "read", "uri": uri, "out": out}])
    assert count == expected.num_rows
    assert_tables_equal(read_ipc(out), expected, what="node")


@pytest.fixture
def scratch(tmp_path) -> Path:
    return tmp_path


def test_json_shape_matches_pylance(interop, tmp_path):
    data = _data(401)
    table = data.batch(0, 30)
    cpp = interop.write_fragments(table, tmp_path / "cpp.lance")
    py = _py_fragments(table, tmp_path / "py.lance", 1000)
    assert len(cpp) == len(py) == 1
    assert set(cpp[0]) == set(py[0])
    assert set(cpp[0]["files"][0]) == set(py[0]["files"][0])
    for key in ("id", "physical_rows", "deletion_file", "overlays"):
        assert cpp[0][key] == py[0][key], key
    for key in ("fields", "column_indices", "file_major_version", "file_minor_version"):
        assert cpp[0]["files"][0][key] == py[0]["files"][0][key], key
    # pylance parses lance-cpp's JSON and gives the same back.
    back = _as_dict(lance.FragmentMetadata.from_json(json.dumps(cpp[0])).to_json())
    assert back == cpp[0]


def test_pylance_fragments_committed_by_lance_cpp(interop, node, scratch):
    data = _data(402)
    uri = scratch / "py-frags-cpp-commit.lance"
    parts = [data.batch(0, 90), data.batch(90, 70), data.batch(160, 50)]
    fragments = _on_workers(_py_fragments, parts, uri, max_rows_per_file=40)  # three workers
    assert len(fragments) == 3 + 2 + 2
    assert interop.commit(uri, fragments, "overwrite", schema=data.schema) == 1
    expected = pa.concat_tables(parts)
    _check_everyone_reads(uri, expected, interop, node, scratch)
    # An append of more pylance-written fragments, planned against version 1.
    more = [data.batch(210, 33), data.batch(243, 17)]
    fragments = _on_workers(_py_fragments, more, uri, max_rows_per_file=1000)
    assert interop.commit(uri, fragments, "append", read_version=1) == 2
    expected = pa.concat_tables([expected] + more)
    _check_everyone_reads(uri, expected, interop, node, scratch)
    ids = [f.fragment_id for f in lance.dataset(str(uri)).get_fragments()]
    assert len(set(ids)) == len(ids) == 9


def test_lance_cpp_fragments_committed_by_pylance(interop, node, scratch):
    data = _data(403)
    uri = scratch / "cpp-frags-py-commit.lance"
    parts = [data.batch(0, 120), data.batch(120, 45), data.batch(165, 80)]
    fragments = _on_workers(interop.write_fragments, parts, uri, max_rows_per_file=50)
    assert len(fragments) == 3 + 1 + 2
    assert all(f["id"] == 0 for f in fragments), "ids are assigned at commit"
    op = lance.LanceOperation.Overwrite(data.schema, _py_metadata(fragments))
    ds = lance.LanceDataset.commit(str(uri), op)
    assert ds.version == 1
    expected = pa.concat_tables(parts)
    _check_everyone_reads(uri, expected, interop, node, scratch)
    more = data.batch(245, 64)
    fragments = interop.write_fragments(more, uri, max_rows_per_file=30)
    ds = lance.LanceDataset.commit(str(uri), lance.LanceOperation.Append(_py_metadata(fragments)),
                                   read_version=1)
    assert ds.version == 2
    _check_everyone_reads(uri, pa.concat_tables([expected, more]), interop, node, scratch)


@pytest.mark.parametrize("committer", ["lance-cpp", "pylance"])
def test_mixed_fragments_in_one_append(interop, node, scratch, committer):
    data = _data(404)
    uri = scratch / f"mixed-{committer}.lance"
    first = data.batch(0, 100)
    interop.write(first, uri, "create", max_rows_per_file=60)
    a, b = data.batch(100, 55), data.batch(155, 66)
    fragments = interop.write_fragments(a, uri, max_rows_per_file=40)
    fragments += _py_fragments(b, uri, max_rows_per_file=40)
    if committer == "lance-cpp":
        version = interop.commit(uri, fragments, "append", read_version=1)
    else:
        version = lance.LanceDataset.commit(
            str(uri), lance.LanceOperation.Append(_py_metadata(fragments)), read_version=1).version
    assert version == 2
    _check_everyone_reads(uri, pa.concat_tables([first, a, b]), interop, node, scratch)
