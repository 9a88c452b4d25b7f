# SPDX-License-Identifier: Apache-2.0
"""Data in and out with the rest of the Python data stack, for pylance and lance_cpp alike
(``impl`` is the module under test, used as ``lance``), and datasets written by one
implementation read equal by the other."""

from __future__ import annotations

import duckdb
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

from _vending import is_pylance, key_vendor, load_impl, s3env  # noqa: F401  (fixtures)
from _vending import impl  # noqa: F401  (fixture)


def _expected() -> pa.Table:
    return pa.table({
        "id": pa.array([1, 2, 3], pa.int64()),
        "name": pa.array(["a", None, "c"], pa.string()),
        "score": pa.array([0.5, 1.5, None], pa.float64()),
    })


class _StreamOnly:
    """Exposes nothing but the Arrow PyCapsule stream protocol."""

    def __init__(self, table: pa.Table):
        self._table = table

    def __arrow_c_stream__(self, requested_schema=None):
        return self._table.__arrow_c_stream__(requested_schema)


def test_polars_in_and_out(impl, tmp_path):
    lance = impl
    df = pl.DataFrame({"id": [1, 2, 3], "name": ["a", None, "c"], "score": [0.5, 1.5, None]})
    ds = lance.write_dataset(df, str(tmp_path / "polars.lance"))
    assert ds.count_rows() == 3
    back = pl.from_arrow(ds.to_table())
    assert back.equals(df)
    assert ds.to_table().equals(df.to_arrow().cast(ds.schema))


def test_arrow_c_stream_object_in(impl, tmp_path):
    lance = impl
    if is_pylance(lance):
        # pylance 14 does not take a bare __arrow_c_stream__ object (its _coerce_reader
        # knows pyarrow, pandas, polars, dicts and iterables only); wrap it as pyarrow does.
        data = pa.RecordBatchReader.from_stream(_StreamOnly(_expected()))
    else:
        data = _StreamOnly(_expected())
    ds = lance.write_dataset(data, str(tmp_path / "stream.lance"))
    assert ds.to_table().equals(_expected())


def test_pandas_in_and_out(impl, tmp_path):
    lance = impl
    frame = pd.DataFrame({"id": [1, 2, 3], "name": ["a", "b", "c"], "score": [0.5, 1.5, 2.5]})
    ds = lance.write_dataset(frame, str(tmp_path / "pandas.lance"))
    assert ds.count_rows() == 3
    back = ds.to_table().to_pandas()
    pd.testing.assert_frame_equal(back, frame, check_dtype=False)
    assert list(back["id"]) == [1, 2, 3]


def test_duckdb_result_in(impl, tmp_path):
    lance = impl
    con = duckdb.connect()
    query = ("SELECT i::BIGINT AS id, 'n' || i::VARCHAR AS name "
             "FROM range(1, 6) t(i) ORDER BY i")
    expected = pa.table({"id": pa.array([1, 2, 3, 4, 5], pa.int64()),
                         "name": pa.array([f"n{i}" for i in range(1, 6)], pa.string())})
    # duckdb's own Arrow export (a pyarrow object) works for both implementations.
    arrow_result = con.sql(query).arrow()
    ds = lance.write_dataset(arrow_result, str(tmp_path / "duck_arrow.lance"))
    assert ds.to_table().cast(expected.schema).equals(expected)
    relation = con.sql(query)
    if is_pylance(lance):
        # pylance 14 does not accept a duckdb relation directly (no __arrow_c_stream__
        # support in its _coerce_reader); lance_cpp takes it through the stream protocol.
        with pytest.raises(TypeError, match="Unknown data type"):
            lance.write_dataset(relation, str(tmp_path / "duck_rel.lance"))
    else:
        ds = lance.write_dataset(relation, str(tmp_path / "duck_rel.lance"))
        assert ds.to_table().cast(expected.schema).equals(expected)
    # And back out: duckdb scans the table lance returns.
    lance_result = ds.to_table()  # noqa: F841  (duckdb finds it by its name)
    got = con.sql("SELECT sum(id) AS s, count(*) AS c FROM lance_result").fetchall()[0]
    assert got == (15, 5)


def test_dict_and_list_of_dicts_in(impl, tmp_path):
    lance = impl
    ds = lance.write_dataset({"id": [1, 2], "name": ["x", "y"]}, str(tmp_path / "d.lance"))
    assert ds.to_table().to_pylist() == [{"id": 1, "name": "x"}, {"id": 2, "name": "y"}]
    rows = [{"id": 3, "name": "z"}, {"id": 4, "name": None}]
    ds = lance.write_dataset(rows, str(tmp_path / "l.lance"))
    assert ds.to_table().to_pylist() == rows


# --- one implementation writes, the other reads ----------------------------------------

def _big_table() -> pa.Table:
    n = 2500
    return pa.table({
        "id": pa.array(range(n), pa.int64()),
        "name": pa.array([None if i % 7 == 0 else f"row-{i}" for i in range(n)], pa.string()),
        "score": pa.array([i / 4 for i in range(n)], pa.float64()),
        "flag": pa.array([i % 3 == 0 for i in range(n)], pa.bool_()),
    })


def _write(name, uri, table, **kwargs):
    lance = load_impl(name)
    if name == "lance":
        # pylance writes 2.0 until lance_cpp reads 2.1 (issue 6).
        kwargs.setdefault("data_storage_version", "2.0")
    return lance.write_dataset(table, uri, **kwargs)


@pytest.mark.parametrize("writer,reader", [("lance", "lance_cpp"), ("lance_cpp", "lance")])
def test_cross_read_local(writer, reader, tmp_path):
    uri = str(tmp_path / "cross.lance")
    table = _big_table()
    assert _write(writer, uri, table, max_rows_per_file=1000).count_rows() == table.num_rows
    appended = _write(writer, uri, table.slice(0, 10), mode="append")
    assert appended.count_rows() == table.num_rows + 10
    ds = load_impl(reader).dataset(uri)
    assert ds.count_rows() == table.num_rows + 10
    assert ds.version == 2
    got = ds.to_table().sort_by([("id", "ascending")])
    expected = pa.concat_tables([table, table.slice(0, 10)]).sort_by([("id", "ascending")])
    assert got.equals(expected)
    assert ds.schema.equals(table.schema)
    v1 = load_impl(reader).dataset(uri, version=1)
    assert v1.to_table().equals(table)


@pytest.mark.parametrize("writer,reader", [("lance", "lance_cpp"), ("lance_cpp", "lance")])
def test_cross_read_s3(writer, reader, s3env):  # noqa: F811
    uri = s3env.unique_uri(f"cross-{writer}")
    opts = s3env.options()
    table = _big_table()
    _write(writer, uri, table, storage_options=opts)
    ds = load_impl(reader).dataset(uri, storage_options=opts)
    assert ds.to_table().equals(table)
    assert ds.count_rows(filter="id < 100") == 100
