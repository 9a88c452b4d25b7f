# SPDX-License-Identifier: Apache-2.0
"""What else real Lance does to a dataset lance-cpp shares with it: schema evolution
(fragments with several data files, dropped and renamed fields), compaction, scalar
indices (lance-cpp's commits must keep them), and a feature lance-cpp refuses cleanly
(stable row ids)."""

from __future__ import annotations

import lance
import pyarrow as pa
import pytest

from conftest import InteropError, assert_tables_equal


def _rows(a: int, b: int) -> pa.Table:
    return pa.table({"rid": pa.array(range(a, b), pa.int64()),
                     "x": pa.array([i * 2 for i in range(a, b)], pa.int32()),
                     "s": pa.array([f"s{i}" if i % 7 else None for i in range(a, b)], pa.utf8())})


def _same(interop, uri, what=""):
    ds = lance.dataset(str(uri))
    assert interop.count(uri) == ds.count_rows(), what
    assert_tables_equal(interop.read(uri), ds.to_table(), what=what)
    assert_tables_equal(interop.read(uri, with_row_id=True), ds.to_table(with_row_id=True),
                        key="_rowid", what=what)


def test_schema_evolution_by_pylance(tmp_path, interop, node):
    uri = tmp_path / "evolution.lance"
    interop.write(_rows(0, 100), uri, "create", max_rows_per_file=40)
    lance.dataset(str(uri)).add_columns({"y": "x * 10", "z": "concat(s, '!')"})
    assert [len(f.metadata.files) for f in lance.dataset(str(uri)).get_fragments()] == [2, 2, 2]
    _same(interop, uri, "after add_columns")
    lance.dataset(str(uri)).drop_columns(["x"])
    _same(interop, uri, "after drop_columns")
    lance.dataset(str(uri)).alter_columns({"path": "s", "name": "s2"})
    _same(interop, uri, "after rename")
    # lance-cpp appends and deletes on the evolved schema (sparse field ids).
    schema = lance.dataset(str(uri)).schema
    extra = pa.table({"rid": pa.array([1000, 1001], pa.int64()), "s2": pa.array(["a", None]),
                      "y": pa.array([1, 2], pa.int32()), "z": pa.array(["q", "r"])}).cast(schema)
    interop.write(extra, uri, "append")
    interop.delete(uri, "rid < 10 OR rid = 1000")
    _same(interop, uri, "after lance-cpp append + delete")
    for predicate in ["y > 500", "z IS NULL", "s2 = 's15'"]:
        want = lance.dataset(str(uri)).count_rows(filter=predicate)
        assert interop.count(uri, filter=predicate) == want, predicate
    assert node.run_ok([{"op": "count", "uri": uri, "filter": "y > 500"}]) == [
        lance.dataset(str(uri)).count_rows(filter="y > 500")]


def test_compaction_by_pylance(tmp_path, interop):
    uri = tmp_path / "compaction.lance"
    interop.write(_rows(0, 100), uri, "create", max_rows_per_file=10)
    interop.delete(uri, "rid < 5 OR rid = 50")
    metrics = lance.dataset(str(uri)).optimize.compact_files(target_rows_per_fragment=50)
    assert metrics.fragments_removed > 0
    _same(interop, uri, "after compaction")
    interop.write(_rows(100, 110), uri, "append")
    interop.delete(uri, "rid = 60")
    _same(interop, uri, "after lance-cpp append + delete")


def test_lance_cpp_commits_keep_scalar_index(tmp_path, interop):
    uri = tmp_path / "indexed.lance"
    interop.write(_rows(0, 100), uri, "create", max_rows_per_file=40)
    lance.dataset(str(uri)).create_scalar_index("rid", "BTREE")
    _same(interop, uri, "indexed")
    interop.write(_rows(100, 120), uri, "append")
    interop.delete(uri, "rid < 50 OR rid = 110")
    indices = lance.dataset(str(uri)).list_indices()
    assert [i["name"] for i in indices] == ["rid_idx"], "lance-cpp dropped the index"
    assert set(indices[0]["fragment_ids"]) == {0, 1, 2}
    predicate = "rid >= 45 AND rid < 115"
    want = [r for r in range(50, 115) if r != 110]
    got = lance.dataset(str(uri)).to_table(filter=predicate)  # index + unindexed fragment
    assert sorted(got.column("rid").to_pylist()) == want
    assert interop.count(uri, filter=predicate) == len(want)
    _same(interop, uri, "after lance-cpp append + delete")


def test_stable_row_ids_refused_cleanly(tmp_path, interop):
    """Stable row ids (reader feature flag 2) are not implemented: lance-cpp must say so
    rather than misread or write fragments without row id sequences."""
    uri = tmp_path / "stable.lance"
    lance.write_dataset(_rows(0, 50), str(uri), data_storage_version="2.0",
                        enable_stable_row_ids=True)
    before = lance.dataset(str(uri)).version
    for action in (lambda: interop.read(uri), lambda: interop.count(uri),
                   lambda: interop.write(_rows(50, 60), uri, "append"),
                   lambda: interop.delete(uri, "rid < 3")):
        with pytest.raises(InteropError, match="NotImplemented"):
            action()
    assert lance.dataset(str(uri)).version == before
    assert lance.dataset(str(uri)).count_rows() == 50
