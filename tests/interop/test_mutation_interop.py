# SPDX-License-Identifier: Apache-2.0
"""Update, merge-insert and schema evolution across engines: what lance_cpp commits is
opened, scanned, appended to, deleted from and mutated further by pylance 14.0.2 (which
also reads our .txn files), and the other way round; mixed sequences alternate the
engines and every version reads equal in both; concurrent commits across engines follow
Lance's conflict rules."""
from __future__ import annotations

import lance
import pyarrow as pa
import pytest

from v2x_common import cpp_module


def base(n=40):
    return pa.table({
        "id": pa.array(range(n), pa.int64()),
        "v": pa.array([i * 3 for i in range(n)], pa.int32()),
        "s": pa.array([None if i % 5 == 2 else f"r{i}" for i in range(n)]),
    })


def src(ids, v=7):
    return pa.table({"id": pa.array(ids, pa.int64()), "v": pa.array([v] * len(ids), pa.int32()),
                     "s": pa.array([f"m{i}" for i in ids])})


def assert_same_everywhere(path, key="id"):
    """Every version reads the same in pylance and lance_cpp."""
    cpp = cpp_module()
    theirs = lance.dataset(str(path))
    ours = cpp.dataset(str(path))
    assert ours.version == theirs.version
    for v in range(1, theirs.version + 1):
        a = lance.dataset(str(path), version=v)
        b = cpp.dataset(str(path), version=v)
        assert b.schema == a.schema, f"version {v}"
        assert b.to_table().sort_by(key).equals(a.to_table().sort_by(key)), f"version {v}"
        assert b.count_rows() == a.count_rows()


def operation_names(path, n):
    return [type(t.operation).__name__ for t in lance.dataset(str(path)).get_transactions(n)]


def test_pylance_reads_appends_and_deletes_what_we_mutate(tmp_path):
    cpp = cpp_module()
    path = tmp_path / "ours"
    ds = cpp.write_dataset(base(), str(path), max_rows_per_file=10)
    assert ds.update({"v": "v + 100"}, where="id >= 35") == {"num_rows_updated": 5}
    ds.merge_insert("id").when_matched_update_all().when_not_matched_insert_all() \
        .when_not_matched_by_source_delete("id < 3").execute(src([5, 6, 100]))
    ds.add_columns({"w": "v + v"})
    ds.drop_columns(["s"])
    ds.alter_columns({"path": "w", "name": "ww"})
    ds.alter_columns({"path": "v", "data_type": pa.int64()})
    assert operation_names(path, 6) == ["Merge", "Project", "Project", "Merge", "Update",
                                        "Update"]
    txn = lance.dataset(str(path)).get_transactions(6)[-1]
    assert txn.operation.update_mode == "rewrite_rows"
    assert txn.read_version == 1
    assert_same_everywhere(path)
    # pylance continues: append, delete, update, merge-insert on top of ours.
    theirs = lance.dataset(str(path))
    schema = theirs.schema
    lance.write_dataset(pa.table({"id": pa.array([500], pa.int64()), "v": pa.array([1]),
                                  "ww": pa.array([2], pa.int32())}, schema=schema),
                        str(path), mode="append")
    theirs = lance.dataset(str(path))
    theirs.delete("id = 7")
    theirs.update({"ww": "0"}, where="id < 10")
    theirs.merge_insert("id").when_matched_update_all().execute(
        pa.table({"id": pa.array([8], pa.int64()), "v": pa.array([80]),
                  "ww": pa.array([8], pa.int32())}, schema=schema))
    assert_same_everywhere(path)
    versions = lance.dataset(str(path)).versions()
    assert [v["version"] for v in versions] == list(range(1, 12))


def test_we_mutate_what_pylance_mutated(tmp_path):
    cpp = cpp_module()
    path = tmp_path / "theirs"
    ds = lance.write_dataset(base(), str(path), max_rows_per_file=10)
    ds.update({"v": "v * 2"}, where="id % 4 = 0")
    ds.merge_insert("id").when_matched_update_all().when_not_matched_insert_all() \
        .execute(src([1, 2, 90]))
    ds.add_columns({"w": "id * id"})
    ds.drop_columns(["s"])
    ds.alter_columns({"path": "v", "name": "vv"})
    ds.alter_columns({"path": "id", "data_type": pa.int32()})
    assert_same_everywhere(path)
    ours = cpp.dataset(str(path))
    expected = lance.dataset(str(path)).count_rows("id > 30")
    assert ours.update({"vv": "vv - 1"}, where="id > 30") == {"num_rows_updated": expected}
    ours = cpp.dataset(str(path))
    stats = ours.merge_insert("id").when_matched_update_all().when_not_matched_insert_all() \
        .execute(pa.table({"id": pa.array([3, 300], pa.int32()), "vv": pa.array([3, 3]),
                           "w": pa.array([9, 9], pa.int64())},
                          schema=ours.schema))
    assert stats == {"num_inserted_rows": 1, "num_updated_rows": 1, "num_deleted_rows": 0}
    ours.add_columns({"z": "w"})
    ours.drop_columns(["vv"])
    ours.delete("id = 300")
    assert_same_everywhere(path)


def test_mixed_sequence(tmp_path):
    cpp = cpp_module()
    path = tmp_path / "mixed"
    cpp.write_dataset(base(), str(path), max_rows_per_file=8)
    steps = [
        (cpp, lambda d: d.merge_insert("id").when_matched_update_all()
         .when_not_matched_insert_all().execute(src([0, 41, 42]))),
        (lance, lambda d: d.update({"v": "v + 1"}, where="id > 20")),
        (cpp, lambda d: d.add_columns({"t": "v * 2"})),
        (lance, lambda d: d.merge_insert("id").when_matched_delete().execute(
            d.to_table(filter="id < 4"))),
        (cpp, lambda d: d.alter_columns({"path": "t", "name": "tt"})),
        (lance, lambda d: d.drop_columns(["s"])),
        (cpp, lambda d: d.update({"tt": "0"}, where="id = 41")),
        (lance, lambda d: d.add_columns({"u": "id"})),
        (cpp, lambda d: d.delete("u = 10")),
    ]
    results = []
    for mod, step in steps:
        results.append(step(mod.dataset(str(path))))
    assert results[0] == {"num_inserted_rows": 2, "num_updated_rows": 1, "num_deleted_rows": 0}
    assert results[3]["num_deleted_rows"] == 4
    assert_same_everywhere(path)


def test_concurrent_updates_across_engines(tmp_path):
    cpp = cpp_module()
    path = tmp_path / "race"
    lance.write_dataset(base(), str(path), max_rows_per_file=10)
    ours = cpp.dataset(str(path))
    theirs = lance.dataset(str(path))
    # pylance commits an update of fragment 0; ours (planned on version 1) touches
    # fragment 0 too: retryable, retried, nothing lost.
    theirs.update({"v": "-1"}, where="id < 5")
    assert ours.update({"s": "'ours'"}, where="id < 8") == {"num_rows_updated": 8}
    latest = lance.dataset(str(path))
    assert latest.count_rows("v = -1 AND s = 'ours'") == 5
    assert latest.count_rows() == 40
    # And the other way: pylance planned on an old version rebases over our Update of
    # other fragments (it reads our .txn file) or retries over one of the same.
    stale1 = lance.dataset(str(path), version=latest.version)
    stale2 = lance.dataset(str(path), version=latest.version)
    cpp.dataset(str(path)).update({"v": "-2"}, where="id >= 35")
    stale1.update({"v": "-3"}, where="id = 20")  # another fragment: rebased
    stale2.update({"v": "-4"}, where="id = 36")  # the same fragment: retried
    assert_same_everywhere(path)
    final = lance.dataset(str(path))
    assert final.count_rows("v = -2") == 4
    assert final.count_rows("v = -3") == 1
    assert final.count_rows("v = -4") == 1


def test_concurrent_append_and_schema_change_across_engines(tmp_path):
    cpp = cpp_module()
    path = tmp_path / "schema-race"
    lance.write_dataset(base(), str(path), max_rows_per_file=10)
    ours = cpp.dataset(str(path))
    lance.write_dataset(base(3), str(path), mode="append")
    ours.drop_columns(["s"])  # Project over Append: compatible
    assert lance.dataset(str(path)).schema.names == ["id", "v"]
    stale = cpp.dataset(str(path))
    lance.write_dataset(pa.table({"id": pa.array([9], pa.int64()), "v": pa.array([9],
                                 pa.int32())}), str(path), mode="append")
    # Merge (add_columns) against a concurrent Append: retryable in Lance; ours gives up
    # with a retryable conflict and commits nothing.
    with pytest.raises(OSError) as info:
        stale.add_columns({"x": "v"})
    assert info.value.retryable
    assert_same_everywhere(path)
