# SPDX-License-Identifier: Apache-2.0
"""Commits racing across implementations (each side rebases over the other's transaction
files, or reports the conflict), and edge cases: empty datasets, every row deleted,
schema and field metadata, unusual column names."""

from __future__ import annotations

import lance
import pyarrow as pa
import pytest
from lance.fragment import write_fragments as py_write_fragments

from conftest import InteropError, assert_tables_equal


def _rows(a: int, b: int) -> pa.Table:
    return pa.table({"rid": pa.array(range(a, b), pa.int64()),
                     "s": pa.array([f"v{i}" for i in range(a, b)], pa.utf8())})


def _py_frags(table, uri):
    return py_write_fragments(table, str(uri), data_storage_version="2.0")


def _rids(table: pa.Table):
    return sorted(table.column("rid").to_pylist())


def test_stale_appends_rebase_over_each_other(tmp_path, interop, node):
    uri = tmp_path / "race.lance"
    assert interop.write(_rows(0, 10), uri, "create", v1_names=True) == 1
    assert interop.write(_rows(10, 20), uri, "append") == 2
    # pylance commits an append planned against v1: it rebases over lance-cpp's v2.
    op = lance.LanceOperation.Append(_py_frags(_rows(20, 30), uri))
    assert lance.LanceDataset.commit(str(uri), op, read_version=1).version == 3
    # lance-cpp commits an append planned against v1: rebases over v2 and v3.
    frags = interop.write_fragments(_rows(30, 40), uri)
    assert interop.commit(uri, frags, "append", read_version=1) == 4
    # A lance-cpp delete, then a pylance append planned before it.
    assert interop.delete(uri, "rid < 5") == 5
    op = lance.LanceOperation.Append(_py_frags(_rows(40, 50), uri))
    assert lance.LanceDataset.commit(str(uri), op, read_version=4).version == 6
    # A pylance delete, then a lance-cpp append planned before it.
    lance.dataset(str(uri)).delete("rid >= 45")
    frags = interop.write_fragments(_rows(50, 60), uri)
    assert interop.commit(uri, frags, "append", read_version=6) == 8
    want = list(range(5, 45)) + list(range(50, 60))
    ds = lance.dataset(str(uri))
    assert _rids(ds.to_table()) == want
    assert _rids(interop.read(uri)) == want
    assert node.run_ok([{"op": "count", "uri": uri}]) == [len(want)]
    ids = [f.fragment_id for f in ds.get_fragments()]
    assert len(ids) == len(set(ids))
    assert_tables_equal(interop.read(uri, with_row_id=True), ds.to_table(with_row_id=True),
                        key="_rowid")


def test_append_planned_before_an_overwrite_conflicts(tmp_path, interop):
    uri = tmp_path / "conflict.lance"
    interop.write(_rows(0, 10), uri, "create")
    assert interop.write(_rows(100, 110), uri, "overwrite") == 2
    # pylance sees lance-cpp's Overwrite transaction and refuses its stale Append.
    op = lance.LanceOperation.Append(_py_frags(_rows(20, 30), uri))
    with pytest.raises(Exception, match="(?i)conflict|incompatible"):
        lance.LanceDataset.commit(str(uri), op, read_version=1)
    # lance-cpp sees pylance's Overwrite transaction and refuses its stale Append.
    lance.write_dataset(_rows(200, 210), str(uri), mode="overwrite")
    frags = interop.write_fragments(_rows(30, 40), uri)
    with pytest.raises(InteropError, match="Conflict"):
        interop.commit(uri, frags, "append", read_version=2)
    assert _rids(interop.read(uri)) == list(range(200, 210))
    assert _rids(lance.dataset(str(uri)).to_table()) == list(range(200, 210))


def test_empty_dataset(tmp_path, interop, node):
    uri = tmp_path / "empty.lance"
    interop.write(_rows(0, 0), uri, "create")
    ds = lance.dataset(str(uri))
    assert ds.count_rows() == 0
    assert ds.schema.equals(_rows(0, 0).schema)
    assert node.run_ok([{"op": "count", "uri": uri}]) == [0]
    lance.write_dataset(_rows(0, 3), str(uri), mode="append")
    assert_tables_equal(interop.read(uri), _rows(0, 3))


@pytest.mark.parametrize("deleter", ["lance-cpp", "pylance"])
def test_every_row_deleted_then_appended(tmp_path, interop, node, deleter):
    uri = tmp_path / f"emptied-{deleter}.lance"
    if deleter == "lance-cpp":
        interop.write(_rows(0, 10), uri, "create", max_rows_per_file=4)
        interop.delete(uri, "rid >= 0")
    else:
        lance.write_dataset(_rows(0, 10), str(uri), data_storage_version="2.0",
                            max_rows_per_file=4)
        lance.dataset(str(uri)).delete("rid >= 0")
    assert interop.count(uri) == lance.dataset(str(uri)).count_rows() == 0
    assert lance.dataset(str(uri)).get_fragments() == []
    assert interop.read(uri).num_rows == 0
    assert node.run_ok([{"op": "count", "uri": uri}]) == [0]
    interop.write(_rows(10, 13), uri, "append")
    lance.write_dataset(_rows(13, 15), str(uri), mode="append")
    for table in (interop.read(uri), lance.dataset(str(uri)).to_table()):
        assert_tables_equal(table, _rows(10, 15))


def _with_metadata(table: pa.Table) -> pa.Table:
    schema = pa.schema([pa.field("rid", pa.int64(), nullable=False, metadata={"fk": "fv"}),
                        pa.field("s", pa.utf8())], metadata={"owner": "interop", "n": "1"})
    return table.cast(schema)


def test_metadata_survives_both_ways(tmp_path, interop):
    table = _with_metadata(_rows(0, 5))
    cpp_uri = tmp_path / "meta-cpp.lance"
    interop.write(table, cpp_uri, "create")
    schema = lance.dataset(str(cpp_uri)).schema
    assert schema.metadata == {b"owner": b"interop", b"n": b"1"}
    assert schema.field("rid").metadata == {b"fk": b"fv"}
    py_uri = tmp_path / "meta-py.lance"
    lance.write_dataset(table, str(py_uri), data_storage_version="2.0")
    schema = interop.read(py_uri).schema
    assert schema.metadata == {b"owner": b"interop", b"n": b"1"}
    assert schema.field("rid").metadata == {b"fk": b"fv"}


def test_unusual_column_names(tmp_path, interop, node):
    table = pa.table({"rid": pa.array([1, 2, 3], pa.int64()),
                      "col with space": pa.array([1, 2, 3]),
                      "ünïcødé": pa.array(["a", "b", None]),
                      "CamelCase": pa.array([3.5, 4.5, 5.5])})
    uri = tmp_path / "names.lance"
    interop.write(table, uri, "create")
    ds = lance.dataset(str(uri))
    assert_tables_equal(ds.to_table(), table)
    for predicate in ["`col with space` > 1", "CamelCase > 4.0", "ünïcødé IS NULL"]:
        assert interop.count(uri, filter=predicate) == ds.count_rows(filter=predicate), predicate
    assert node.run_ok([{"op": "count", "uri": uri, "filter": "`col with space` > 1"}]) == [2]
    got = interop.read(uri, columns=["ünïcødé", "col with space"])
    assert got.equals(ds.to_table(columns=["ünïcødé", "col with space"]))
