# SPDX-License-Identifier: Apache-2.0
"""update / merge_insert / add_columns / drop_columns / alter_columns: the same operations
run by pylance 14 and by lance_cpp on the same data give equal tables, schemas and
returned counts; errors are raised by both and commit nothing; concurrent writers follow
Lance's conflict rules."""
from datetime import timedelta

import pyarrow as pa
import pytest

from conftest import Impl


def base_table(n=30):
    return pa.table({
        "id": pa.array(range(n), pa.int64()),
        "x": pa.array([i * 10 for i in range(n)], pa.int32()),
        "name": pa.array([None if i % 7 == 3 else f"n{i}" for i in range(n)], pa.string()),
    })


def sorted_table(ds, key="id"):
    return ds.to_table().sort_by(key)


def run_both(both, tmp_path, ops, data=None, key="id", max_rows_per_file=10):
    """Runs ops(ds) on a pylance and a lance_cpp dataset of the same rows; asserts the
    results, the tables and the schemas agree; returns lance_cpp's dataset and results."""
    out = {}
    for name, impl in both.items():
        ds = impl.write(data if data is not None else base_table(), str(tmp_path / name),
                        max_rows_per_file=max_rows_per_file)
        results = ops(ds)
        again = impl.mod.dataset(str(tmp_path / name))  # reopened from disk
        out[name] = (results, sorted_table(again, key), again.schema, again.version)
    py, cpp = out["pylance"], out["lance_cpp"]
    assert cpp[0] == py[0]
    assert cpp[2] == py[2], f"schemas differ:\n{cpp[2]}\nvs pylance\n{py[2]}"
    assert cpp[1].equals(py[1]), f"tables differ:\n{cpp[1]}\nvs pylance\n{py[1]}"
    assert cpp[3] == py[3]
    return out


# -- update --------------------------------------------------------------------------------

def test_update_equal_to_pylance(both, tmp_path):
    def ops(ds):
        return [
            ds.update({"x": "x + 1"}, where="id > 24"),
            ds.update({"name": "'upd'", "x": "x * 2"}, where="id < 12 AND x > 30"),
            ds.update({"x": "0"}, where="id > 1000"),  # no match: still a version
            ds.update({"x": "x - id"}),
            ds.update({"name": "NULL"}, where="name = 'n5'"),
        ]
    out = run_both(both, tmp_path, ops)
    assert out["lance_cpp"][0][0] == {"num_rows_updated": 5}
    assert out["lance_cpp"][0][2] == {"num_rows_updated": 0}


def test_update_after_delete_and_append(both, tmp_path):
    def ops(ds):
        ds.delete("id % 3 = 0")
        res = [ds.update({"x": "-1"}, where="id < 15")]
        return res + [ds.count_rows("x = -1")]
    run_both(both, tmp_path, ops)


@pytest.mark.parametrize("updates,where", [
    ({"nope": "1"}, None),
    ({"x": "nope + 1"}, None),
    ({"x": "x +"}, None),
    ({"x": "'abc'"}, None),
    ({"x": "1"}, "nope > 3"),
])
def test_update_errors_commit_nothing(both, tmp_path, updates, where):
    for name, impl in both.items():
        ds = impl.write(base_table(), str(tmp_path / name))
        with pytest.raises((ValueError, OSError)):
            ds.update(updates, where=where)
        assert impl.mod.dataset(str(tmp_path / name)).version == 1
        assert ds.to_table().equals(base_table())


# -- merge_insert --------------------------------------------------------------------------

def source_table(ids, x=1000, names=None):
    return pa.table({
        "id": pa.array(ids, pa.int64()),
        "x": pa.array([x + i for i in ids], pa.int32()),
        "name": pa.array(names if names is not None else [f"s{i}" for i in ids], pa.string()),
    })


MERGES = {
    "upsert": lambda ds: ds.merge_insert("id").when_matched_update_all()
    .when_not_matched_insert_all().execute(source_table([2, 15, 29, 30, 31])),
    "insert_only": lambda ds: ds.merge_insert("id").when_not_matched_insert_all()
    .execute(source_table([1, 40])),
    "update_only": lambda ds: ds.merge_insert("id").when_matched_update_all()
    .execute(source_table([3, 50])),
    "by_source": lambda ds: ds.merge_insert("id").when_matched_update_all()
    .when_not_matched_insert_all().when_not_matched_by_source_delete()
    .execute(source_table([0, 1, 2, 100])),
    "by_source_expr": lambda ds: ds.merge_insert("id").when_matched_update_all()
    .when_not_matched_by_source_delete("id > 20").execute(source_table([0, 25])),
    "matched_delete": lambda ds: ds.merge_insert("id").when_matched_delete()
    .execute(source_table([4, 5, 99])),
    "condition": lambda ds: ds.merge_insert("id")
    .when_matched_update_all("target.x > 100 AND source.x > target.x")
    .execute(source_table([5, 11, 12])),
    "two_keys": lambda ds: ds.merge_insert(["id", "name"]).when_matched_update_all()
    .when_not_matched_insert_all()
    .execute(source_table([6, 7], names=["n6", "other"])),
    "subset_insert": lambda ds: ds.merge_insert("id").when_matched_update_all()
    .when_not_matched_insert_all().execute(pa.table({"id": pa.array([2, 55], pa.int64())})),
    "subset_columns": lambda ds: ds.merge_insert("id").when_matched_update_all()
    .execute(pa.table({"id": pa.array([8, 9], pa.int64()),
                       "x": pa.array([-8, -9], pa.int32())})),
}


@pytest.mark.parametrize("case", sorted(MERGES))
def test_merge_insert_equal_to_pylance(both, tmp_path, case):
    def ops(ds):
        return [MERGES[case](ds)]
    out = run_both(both, tmp_path, ops)
    stats = out["lance_cpp"][0][0]
    assert set(stats) == {"num_inserted_rows", "num_updated_rows", "num_deleted_rows"}


def test_merge_insert_streamed_source(both, tmp_path):
    """A generator source (never a table) of many batches; with retries it is spilled to a
    temporary file, without retries read once."""
    schema = base_table().schema

    def batches():
        for b in range(20):
            ids = list(range(1000 + b * 50, 1050 + b * 50)) + ([b] if b < 30 else [])
            yield pa.record_batch([pa.array(ids, pa.int64()),
                                   pa.array([7] * len(ids), pa.int32()),
                                   pa.array(["g"] * len(ids))], schema=schema)

    def ops(ds):
        r1 = ds.merge_insert("id").when_matched_update_all().when_not_matched_insert_all() \
            .execute(pa.RecordBatchReader.from_batches(schema, batches()))
        r2 = ds.merge_insert("id").when_matched_update_all().conflict_retries(0) \
            .execute(pa.RecordBatchReader.from_batches(schema, batches()))
        return [r1, r2]
    out = run_both(both, tmp_path, ops)
    assert out["lance_cpp"][0][0] == {"num_inserted_rows": 1000, "num_updated_rows": 20,
                                      "num_deleted_rows": 0}


def test_merge_insert_errors(both, tmp_path):
    for name, impl in both.items():
        ds = impl.write(base_table(), str(tmp_path / name))
        # Two source rows matching one target row: refused by both.
        with pytest.raises((ValueError, OSError), match="(?i)ambiguous"):
            ds.merge_insert("id").when_matched_update_all().execute(source_table([2, 2]))
        # A builder left at its defaults changes nothing: refused by both.
        with pytest.raises((ValueError, OSError), match="not configured to change"):
            ds.merge_insert("id").execute(source_table([1, 41]))
        # The key column missing from the source.
        with pytest.raises((ValueError, OSError), match="id"):
            ds.merge_insert("id").when_matched_update_all().execute(
                pa.table({"x": pa.array([1], pa.int32())}))
        # An unknown key column.
        with pytest.raises((ValueError, OSError)):
            ds.merge_insert("nope").when_matched_update_all().execute(source_table([1]))
        with pytest.raises((ValueError, OSError)):
            ds.merge_insert("id").when_matched_fail().execute(source_table([1]))
        # A key of another type (int32 for int64): refused, no implicit cast.
        with pytest.raises((ValueError, OSError), match="int"):
            ds.merge_insert("id").when_matched_update_all().execute(
                pa.table({"id": pa.array([1], pa.int32()), "x": pa.array([5], pa.int32()),
                          "name": pa.array(["a"])}))
        assert impl.mod.dataset(str(tmp_path / name)).version == 1
        # Equal new keys are all inserted, by both.
        assert ds.merge_insert("id").when_not_matched_insert_all().execute(
            source_table([90, 90]))["num_inserted_rows"] == 2


# -- schema evolution ----------------------------------------------------------------------

def test_add_columns_equal_to_pylance(both, tmp_path):
    def ops(ds):
        ds.delete("id = 4")
        ds.add_columns({"x2": "x + x", "label": "name"})
        ds.add_columns(lambda batch: pa.record_batch(
            [pa.compute.multiply(batch["x"], 3)], names=["x3"]), read_columns=["x"])
        ds.add_columns(pa.field("empty", pa.string()))
        # A reader gives one value per live row (29 after the delete).
        ds.add_columns(pa.table({"from_reader": pa.array(range(29), pa.int64())}).to_reader())
        return [ds.count_rows(), [f.name for f in ds.schema]]
    run_both(both, tmp_path, ops)


def test_drop_and_alter_equal_to_pylance(both, tmp_path):
    def ops(ds):
        ds.add_columns({"y": "x + x"})
        ds.drop_columns(["name"])
        ds.alter_columns({"path": "x", "name": "xx"}, {"path": "y", "nullable": True})
        ds.alter_columns({"path": "id", "data_type": pa.int32()})
        ds.alter_columns({"path": "xx", "data_type": pa.int64()})
        ds.add_columns({"z": "id * id"})
        return [ds.count_rows()]
    run_both(both, tmp_path, ops)


def test_schema_evolution_errors(both, tmp_path):
    for name, impl in both.items():
        ds = impl.write(base_table(), str(tmp_path / name))
        with pytest.raises((ValueError, OSError)):
            ds.drop_columns(["nope"])
        with pytest.raises((ValueError, OSError)):
            ds.add_columns({"id": "x"})
        with pytest.raises((ValueError, OSError)):
            ds.add_columns({"q": "nope * 2"})
        with pytest.raises((ValueError, OSError)):
            ds.alter_columns({"path": "nope", "name": "q"})
        with pytest.raises((ValueError, OSError), match="(?i)cast"):
            ds.alter_columns({"path": "id", "data_type": pa.string()})
        with pytest.raises((ValueError, OSError)):
            ds.alter_columns({"path": "name", "nullable": False})  # it holds nulls
        assert impl.mod.dataset(str(tmp_path / name)).version == 1


# -- concurrency ---------------------------------------------------------------------------

def _stale_pair(impl, path):
    ds = impl.write(base_table(), str(path), max_rows_per_file=10)
    return ds, impl.mod.dataset(str(path))


def test_concurrent_update_and_append_both_commit(both, tmp_path):
    for name, impl in both.items():
        a, b = _stale_pair(impl, tmp_path / name)
        impl.mod.write_dataset(base_table(5), str(tmp_path / name), mode="append")
        assert b.update({"x": "-1"}, where="id >= 25")["num_rows_updated"] == 5
        latest = impl.mod.dataset(str(tmp_path / name))
        assert latest.count_rows() == 35
        assert latest.count_rows("x = -1") == 5


def test_concurrent_updates_of_one_fragment_are_retried(both, tmp_path):
    for name, impl in both.items():
        a, b = _stale_pair(impl, tmp_path / name)
        a.update({"x": "-1"}, where="id < 3")
        # b planned on version 1: Lance's retryable conflict, retried by update itself.
        assert b.update({"name": "'b'"}, where="id < 5") == {"num_rows_updated": 5}
        latest = impl.mod.dataset(str(tmp_path / name))
        assert latest.count_rows("x = -1 AND name = 'b'") == 3
        assert latest.count_rows() == 30


def test_concurrent_merge_insert_and_delete_retried(both, tmp_path):
    for name, impl in both.items():
        a, b = _stale_pair(impl, tmp_path / name)
        a.delete("id = 1")
        stats = b.merge_insert("id").when_matched_update_all().when_not_matched_insert_all() \
            .execute(source_table([0, 1, 2, 50]))
        # Planned again on the latest version: id 1 is gone, so it is inserted.
        assert stats == {"num_inserted_rows": 2, "num_updated_rows": 2, "num_deleted_rows": 0}
        assert impl.mod.dataset(str(tmp_path / name)).count_rows() == 31


def test_concurrent_drop_and_append(both, tmp_path):
    for name, impl in both.items():
        a, b = _stale_pair(impl, tmp_path / name)
        impl.mod.write_dataset(base_table(5), str(tmp_path / name), mode="append")
        b.drop_columns(["name"])
        latest = impl.mod.dataset(str(tmp_path / name))
        assert latest.schema.names == ["id", "x"]
        assert latest.count_rows() == 35


def test_conflict_without_retries_is_retryable_error(tmp_path):
    impl = Impl("lance_cpp")
    a, b = _stale_pair(impl, tmp_path / "d")
    a.update({"x": "-1"}, where="id < 3")
    with pytest.raises(OSError) as info:
        b.update({"x": "-2"}, where="id < 3", conflict_retries=0)
    assert info.value.retryable
    with pytest.raises(OSError) as info:
        b.merge_insert("id").when_matched_update_all().conflict_retries(0).execute(
            source_table([1]))
    assert info.value.retryable
    assert impl.mod.dataset(str(tmp_path / "d")).version == 2
