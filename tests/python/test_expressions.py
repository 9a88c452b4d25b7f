# SPDX-License-Identifier: Apache-2.0
"""Scans with computed columns (`columns={"name": "SQL expression"}`) through every entry
point, in pylance and lance_cpp alike; tests/interop/test_expressions_interop.py compares
the expression language itself, construct by construct."""

import pyarrow as pa
import pytest


def _data():
    return pa.table({
        "id": pa.array([1, 2, 3, 4], pa.int64()),
        "s": pa.array(["Ab", None, "cD", "éX"]),
        "x": pa.array([1.5, 2.0, None, -4.0]),
        "st": pa.StructArray.from_arrays([pa.array([10, 20, 30, 40], pa.int32())],
                                         names=["a"]),
    })


@pytest.fixture
def ds(impl, tmp_path):
    return impl.write(_data(), str(tmp_path / "ds"))


COLUMNS = {"id": "id", "low": "lower(s)", "twice": "x * 2", "a": "st.a",
           "label": "concat('#', CAST(id AS STRING))"}
EXPECTED = {
    "id": [1, 2, 3, 4],
    "low": ["ab", None, "cd", "éx"],
    "twice": [3.0, 4.0, None, -8.0],
    "a": [10, 20, 30, 40],
    "label": ["#1", "#2", "#3", "#4"],
}


def test_to_table_with_expressions(ds):
    table = ds.to_table(columns=COLUMNS)
    assert table.schema.names == list(COLUMNS)
    assert table.schema.field("low").type == pa.string()
    assert table.schema.field("twice").type == pa.float64()
    assert table.schema.field("a").type == pa.int32()
    assert table.to_pydict() == EXPECTED


def test_expressions_with_filter_limit_offset(ds):
    table = ds.to_table(columns={"id": "id", "n": "length(s)"}, filter="s IS NOT NULL",
                        limit=2, offset=1)
    assert table.to_pydict() == {"id": [3, 4], "n": [2, 2]}


def test_expressions_see_only_filtered_rows(ds):
    # id 3 has x NULL, id 4 a negative x: the CAST would fail on -4.0 were it evaluated.
    table = ds.to_table(columns={"id": "id", "u": "CAST(x AS INT UNSIGNED)"},
                        filter="x > 0")
    assert table.to_pydict() == {"id": [1, 2], "u": [1, 2]}


def test_scanner_and_batches(ds):
    scanner = ds.scanner(columns={"id": "id", "up": "upper(s)"}, batch_size=3)
    assert scanner.to_table().column("up").to_pylist() == ["AB", None, "CD", "ÉX"]
    batches = list(ds.to_batches(columns={"up": "upper(s)"}, batch_size=3))
    assert sum(b.num_rows for b in batches) == 4
    assert [v for b in batches for v in b.column(0).to_pylist()] == ["AB", None, "CD", "ÉX"]


def test_row_id_in_expression_columns(ds):
    table = ds.to_table(columns={"rid": "_rowid", "id": "id"}, filter="id > 2")
    assert table.schema.field("rid").type == pa.uint64()
    assert table.column("rid").to_pylist() == [2, 3]


def test_renamed_plain_column_keeps_its_type(ds):
    table = ds.to_table(columns={"key": "id", "name": "s"})
    assert table.schema.names == ["key", "name"]
    assert table.schema.field("key").type == pa.int64()
    assert table.column("name").to_pylist() == ["Ab", None, "cD", "éX"]


# Both engines raise a ValueError (pylance: ValueError or pyarrow's ArrowInvalid;
# lance_cpp: LanceInvalidInputError) whose message names the problem.
@pytest.mark.parametrize("expr,message", [
    ("nope + 1", r"(?i)no (field|column) named '?nope"),
    ("foo(s)", r"function 'foo'"),
    ("lower(", r"(?i)pars(e|ing)"),
    ("CAST(s AS INT)", r"(?i)cannot cast .*'Ab'"),
])
def test_bad_expressions_fail(ds, expr, message):
    with pytest.raises(ValueError, match=message):
        ds.to_table(columns={"v": expr, "id": "id"})


def test_lance_cpp_errors_name_the_problem(lance_cpp, tmp_path):
    ds = lance_cpp.write_dataset(_data(), str(tmp_path / "ds"))
    with pytest.raises(ValueError, match="unknown function 'foo'"):
        ds.to_table(columns={"v": "foo(s)"})
    with pytest.raises(ValueError, match="no column named 'nope'"):
        ds.to_table(columns={"v": "nope + 1"})
    with pytest.raises(ValueError, match="column 'v'.*'Ab'"):
        ds.to_table(columns={"v": "CAST(s AS INT)"})


def test_take_still_refuses_expressions(lance_cpp, tmp_path):
    ds = lance_cpp.write_dataset(_data(), str(tmp_path / "ds"))
    with pytest.raises(lance_cpp.LanceNotImplementedError):
        ds.take([0], columns={"v": "lower(s)"})
