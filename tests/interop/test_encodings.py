# SPDX-License-Identifier: Apache-2.0
"""Larger datasets with data shaped to make real Lance pick its other 2.0 encodings and
page layouts (dictionary-encoded low-cardinality strings, constant and all-null columns,
long values, many pages per column), in both directions."""

from __future__ import annotations

import random

import lance
import pyarrow as pa
import pytest

from conftest import assert_tables_equal, read_ipc, write_ipc

ROWS = 20_000


def patterned(start: int, n: int, seed: int = 7) -> pa.Table:
    rng = random.Random(seed + start)
    rid = list(range(start, start + n))
    cats = ["alpha", "beta", "gamma", "delta", "épsilon"]

    def maybe(v, p=0.1):
        return None if rng.random() < p else v

    return pa.table({
        "rid": pa.array(rid, pa.int64()),
        "cat": pa.array([maybe(cats[i % 5]) for i in rid], pa.utf8()),
        "cat_large": pa.array([cats[(i // 7) % 5] for i in rid], pa.large_utf8()),
        "cat_bin": pa.array([maybe(bytes([i % 3]) * 3) for i in rid], pa.binary()),
        "const_i32": pa.array([42] * n, pa.int32()),
        "const_str": pa.array(["same"] * n, pa.utf8()),
        "seq_u64": pa.array([2**40 + i for i in rid], pa.uint64()),
        "small_i64": pa.array([maybe(i % 13 - 6) for i in rid], pa.int64()),
        "sparse_i16": pa.array([i % 1000 if i % 97 == 0 else None for i in rid], pa.int16()),
        "all_null_i32": pa.array([None] * n, pa.int32()),
        "all_null_str": pa.array([None] * n, pa.utf8()),
        "all_null_list": pa.array([None] * n, pa.list_(pa.int32())),
        "long_str": pa.array([maybe(("L%d-" % i) * rng.randint(50, 400), 0.2) for i in rid],
                             pa.utf8()),
        "flag": pa.array([i % 50 != 0 for i in rid], pa.bool_()),
        "ts": pa.array([1_700_000_000_000 + i * 1000 for i in rid], pa.timestamp("ms")),
        "day": pa.array([19_000 + i // 100 for i in rid], pa.int32()).cast(pa.date32()),
        "emb": pa.FixedSizeListArray.from_arrays(
            pa.array([rng.random() for _ in range(n * 16)], pa.float32()), 16),
        "words": pa.array([maybe([cats[(i + k) % 5] for k in range(i % 4)]) for i in rid],
                          pa.list_(pa.utf8())),
        "big_list": pa.array([list(range(i % 300)) if i % 1000 == 0 else [] for i in rid],
                             pa.large_list(pa.int32())),
        "rec": pa.StructArray.from_arrays(
            [pa.array([maybe(cats[i % 5]) for i in rid], pa.utf8()),
             pa.array([maybe(i * 0.25) for i in rid], pa.float64())], names=["name", "score"]),
    })


NODE_COLUMNS = [c for c in patterned(0, 1).column_names if c != "big_list"]  # no LargeList in JS


@pytest.fixture(scope="module")
def pylance_datasets(session_dir):
    """pylance writes the same rows with default pages and with tiny pages."""
    out = {}
    table = patterned(0, ROWS)
    for name, kwargs in {"default": {}, "tiny-pages": {"max_page_bytes": 4096,
                                                      "max_rows_per_group": 100}}.items():
        uri = session_dir / f"patterned-pylance-{name}.lance"
        lance.write_dataset(table, str(uri), data_storage_version="2.0",
                            max_rows_per_file=8_000, **kwargs)
        lance.dataset(str(uri)).delete("rid % 10 = 3 OR (rid >= 8000 AND rid < 8500)")
        out[name] = uri
    return out


@pytest.mark.parametrize("name", ["default", "tiny-pages"])
def test_lance_cpp_reads_pylance_patterned(pylance_datasets, interop, name):
    uri = pylance_datasets[name]
    ds = lance.dataset(str(uri))
    assert interop.count(uri) == ds.count_rows()
    assert_tables_equal(interop.read(uri, with_row_id=True), ds.to_table(with_row_id=True),
                        key="_rowid", what=name)
    for predicate in ["cat = 'beta'", "cat_large IN ('alpha', 'épsilon') AND flag = FALSE",
                      "small_i64 < 0", "sparse_i16 IS NOT NULL", "rec.name = 'gamma'",
                      "ts >= timestamp '2023-11-15 00:00:00'", "day = date '2022-01-07'",
                      "const_str != 'same'", "all_null_i32 IS NULL"]:
        assert interop.count(uri, filter=predicate) == ds.count_rows(filter=predicate), predicate
    # Scan order, limit and offset follow real Lance.
    got = interop.read(uri, columns=["rid", "cat"], limit=700, offset=7_500)
    want = ds.to_table(columns=["rid", "cat"], limit=700, offset=7_500)
    assert got.equals(want)


def test_lance_cpp_reads_node_patterned(session_dir, interop, node):
    uri = session_dir / "patterned-node.lance"
    parts = [patterned(0, 9_000).select(NODE_COLUMNS), patterned(9_000, 6_000).select(NODE_COLUMNS)]
    files = [write_ipc(p, session_dir / f"patterned-node-{k}.arrow") for k, p in enumerate(parts)]
    out = session_dir / "patterned-node-read.arrow"
    node.run_ok([{"op": "create", "uri": uri, "ipc": files, "v2_names": True},
                 {"op": "delete", "uri": uri, "predicate": "rid % 7 = 1 OR small_i64 IS NULL"},
                 {"op": "read", "uri": uri, "out": out, "with_row_id": True}])
    assert_tables_equal(interop.read(uri, with_row_id=True), read_ipc(out), key="_rowid")
    ds = lance.dataset(str(uri))
    assert_tables_equal(interop.read(uri), ds.to_table())


def test_oracles_read_lance_cpp_patterned(session_dir, interop, node):
    uri = session_dir / "patterned-cpp.lance"
    table = patterned(0, ROWS)
    interop.write(table, uri, "create", max_rows_per_file=7_000)
    interop.delete(uri, "rid IN (5, 6, 7000, 19999) OR (rid >= 14000 AND rid < 14100)")
    expected = table.filter(pa.compute.invert(pa.compute.or_(
        pa.compute.is_in(table.column("rid"), value_set=pa.array([5, 6, 7000, 19999], pa.int64())),
        pa.compute.and_(pa.compute.greater_equal(table.column("rid"), 14000),
                        pa.compute.less(table.column("rid"), 14100)))))
    ds = lance.dataset(str(uri))
    assert ds.data_storage_version == "2.0"
    assert_tables_equal(ds.to_table(), expected, what="pylance")
    assert ds.count_rows(filter="cat = 'beta'") == interop.count(uri, filter="cat = 'beta'")
    out = session_dir / "patterned-cpp-node.arrow"
    count, _ = node.run_ok([{"op": "count", "uri": uri},
                            {"op": "read", "uri": uri, "out": out, "columns": NODE_COLUMNS}])
    assert count == expected.num_rows
    assert_tables_equal(read_ipc(out), expected.select(NODE_COLUMNS), what="node")


def _large_values() -> pa.Table:
    n = 100_000
    rng = random.Random(3)
    small = pa.table({
        "rid": pa.array(range(n), pa.int64()),
        "f": pa.array([rng.random() for _ in range(n)], pa.float64()),
        "s": pa.array([None if i % 11 == 0 else "x" * (i % 37) for i in range(n)]),
        "l": pa.array([[i] * (i % 5) for i in range(n)], pa.list_(pa.int64())),
    })
    # Values of several megabytes: pages larger than any default page size.
    big = pa.table({
        "rid": pa.array(range(n, n + 4), pa.int64()),
        "f": pa.array([0.5] * 4),
        "s": pa.array(["y" * (3_000_000 + i) for i in range(4)]),
        "l": pa.array([list(range(300_000 + i)) for i in range(4)], pa.list_(pa.int64())),
    })
    return pa.concat_tables([small, big, small.slice(0, 1000)]).combine_chunks()


def test_large_values_both_ways(session_dir, interop):
    table = _large_values()
    py_uri = session_dir / "large-values-pylance.lance"
    lance.write_dataset(table, str(py_uri), data_storage_version="2.0")
    assert_tables_equal(interop.read(py_uri), table, key=None, what="lance-cpp reads pylance")
    cpp_uri = session_dir / "large-values-cpp.lance"
    interop.write(table, cpp_uri, "create")
    assert_tables_equal(lance.dataset(str(cpp_uri)).to_table(), table, key=None,
                        what="pylance reads lance-cpp")
