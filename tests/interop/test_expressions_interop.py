# SPDX-License-Identifier: Apache-2.0
"""Value expressions next to real Lance: pylance 14.0.2 writes one dataset (ints of every
width, floats with NaN and NULL, UTF-8 strings with NULLs, dates, timestamps with and
without zones, bools), then every expression below is computed by pylance and by lance_cpp
as a projection (`to_table(columns={"v": expr})`, values and result type) and, for boolean
ones, as a filter (`to_table(filter=expr)`, the rows kept).

Where lance-cpp deliberately differs (docs/filters.md, "Differences from pylance"), the test
asserts pylance's refusal or answer and lance-cpp's documented one."""

from __future__ import annotations

import datetime
import math
import re
import sys
from pathlib import Path

import lance
import pyarrow as pa
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from v2x_common import cpp_module  # noqa: E402


# lance_cpp from the build tree ($LANCE_PYTHON_BUILD_DIR, else the first build*/python);
# a missing build is a failure, never a skip.
lance_cpp = cpp_module()

D = datetime.date
T = datetime.datetime


def _table() -> pa.Table:
    return pa.table({
        "rid": pa.array(range(6), pa.int64()),
        "i8": pa.array([1, -2, None, 127, -128, 0], pa.int8()),
        "i16": pa.array([300, -2, None, 32767, 5, 0], pa.int16()),
        "i32": pa.array([1, -2, None, 40, 7, 0], pa.int32()),
        "i64": pa.array([10, 20, 30, None, -5, 2**40], pa.int64()),
        "u8": pa.array([1, 2, 255, None, 0, 9], pa.uint8()),
        "u16": pa.array([1, 2, 65535, None, 0, 9], pa.uint16()),
        "u32": pa.array([1, 2, 3, None, 0, 9], pa.uint32()),
        "u64": pa.array([1, 2, 3, None, 0, 2**63 + 1], pa.uint64()),
        "f32": pa.array([1.5, None, 2.25, -8.0, float("nan"), 0.1], pa.float32()),
        "f64": pa.array([1.5, None, float("nan"), -8.25, 2.5, -0.0], pa.float64()),
        "s": pa.array(["Abc", "bc", None, "été Ünï", "  pad  ", ""], pa.string()),
        "ls": pa.array(["x", None, "Straße", "ΣΑΣ", "abc", "z"], pa.large_string()),
        "b": pa.array([True, False, None, True, False, None]),
        "d": pa.array([D(2024, 1, 2), None, D(1969, 12, 31), D(2000, 2, 29), D(2024, 12, 30),
                       D(1970, 1, 1)], pa.date32()),
        "ts": pa.array([T(2024, 1, 2, 3, 4, 5, 123456), None, T(1969, 12, 31, 23, 59, 59),
                        T(2000, 2, 29, 12, 0, 0), T(2021, 1, 3, 0, 0, 0),
                        T(1970, 1, 1, 0, 0, 1)], pa.timestamp("us")),
        "ts_ms": pa.array([T(2024, 1, 2, 3, 4, 5, 123000), None, T(1999, 1, 1),
                           T(2000, 2, 29, 12, 0, 0), T(2021, 1, 3), T(1970, 1, 1)],
                          pa.timestamp("ms")),
        "tz": pa.array([T(2024, 1, 2, 3, 4, 5, 123456), None, T(1969, 12, 31, 23, 59, 59),
                        T(2000, 2, 29, 12, 0, 0), T(2021, 1, 3), T(1970, 1, 1)],
                       pa.timestamp("us", tz="UTC")),
        "tz530": pa.array([T(2024, 1, 2, 20, 4, 5), None, T(1969, 12, 31, 23, 59, 59),
                           T(2000, 2, 29, 12, 0, 0), T(2021, 1, 3), T(1970, 1, 1)],
                          pa.timestamp("ms", tz="+05:30")),
    })


@pytest.fixture(scope="module")
def datasets(tmp_path_factory):
    path = tmp_path_factory.mktemp("expressions") / "ds"
    lance.write_dataset(_table(), str(path))
    return lance.dataset(str(path)), lance_cpp.dataset(str(path))


def _same_values(a: list, b: list) -> bool:
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if isinstance(x, float) and isinstance(y, float):
            if math.isnan(x) and math.isnan(y):
                continue
            if x != y or math.copysign(1, x) != math.copysign(1, y):
                return False
        elif x != y:
            return False
    return True


class Column:
    """An expression's result in rid order: its Arrow type and its values."""

    def __init__(self, table: pa.Table):
        self.type = table.schema.field("v").type
        rows = sorted(zip(table.column("rid").to_pylist(), table.column("v").to_pylist()),
                      key=lambda r: r[0])
        self.values = [v for _, v in rows]

    def to_pylist(self) -> list:
        return self.values


def _project(ds, expr: str) -> Column:
    return Column(ds.to_table(columns={"rid": "rid", "v": expr}))


# Every construct both implementations take, nested and with NULLs. Results must agree in
# values and type.
AGREED = [
    # columns, literals, arithmetic, comparisons, logic
    "i64", "s", "d", "ts", "tz", "b",
    "i8 + i32", "i16 * i8", "i64 - i32", "f64 * 2", "f32 + f32", "i64 / 2", "i64 % 3",
    "f64 / 2", "-i32", "i8 + u8", "u32 * u8",
    # at the root, a literal next to a column takes the column's type (Lance's resolve)
    "u32 + 1", "i16 * 2", "i32 / 2", "i32 % 3", "2 * i8", "f32 * 0.1", "u8 - 1",
    "i32 > 0", "s = 'bc'", "f64 > 1", "d < date '2000-01-01'",
    "ts >= timestamp '2000-02-29 12:00:00'", "b AND i32 > 0", "b OR i32 > 0", "NOT b",
    "i32 IN (1, 40)", "i32 NOT IN (1, 40)", "(i32 + 1) IN (2, 41)", "(i32 + 1) NOT IN (2)",
    "s IS NULL", "(i64 + i32) IS NOT NULL", "lower(s) IS NULL", "i32 BETWEEN 0 AND 10",
    "s LIKE 'A%'", "s NOT LIKE '%c'", "s ILIKE 'a%'",
    # strings
    "lower(s)", "upper(s)", "LOWER(s)", "Upper(ls)", "lower(ls)", "upper('straße')",
    "s || 'x'", "s || NULL", "'<' || s || '>'", "s || i32", "s || f64", "s || ls",
    "concat(s, 'x')", "concat(s, 'x', NULL)", "concat(s, i32)",
    "concat(s, s, s)",
    "length(s)", "char_length(s)", "character_length(s)", "octet_length(s)",
    "length(ls)", "octet_length(ls)", "length(i32)",
    "ltrim(s)", "rtrim(s)", "btrim(s)", "ltrim(s, ' A')", "btrim(s, 'Ac ')",
    "lower(s) = 'abc'", "length(s) > 2", "upper(lower(s))",
    "replace(s, 'b', 'X')", "replace(s, '', '-')", "replace(ls, 'Σ', 's')",
    "starts_with(s, 'A')", "ends_with(s, 'c')", "strpos(s, 'c')", "strpos(s, 'Ü')",
    "strpos(s, '')", "reverse(s)", "nullif(i32, 1)", "nullif(s, 'bc')", "nullif(f64, 2.5)",
    "nullif(i64, i32)",
    # numbers
    "abs(i16)", "abs(i32)", "abs(f64)", "abs(f32)", "abs(u32)", "abs(i64 - 100)",
    "round(f64)", "round(f64, 1)", "round(f32)", "round(f32, 1)", "round(i32)",
    "round(i64, -1)",
    # coalesce
    "coalesce(i32, i64)", "coalesce(i32, 0)", "coalesce(i8, 1000)", "coalesce(i32, 1.5)",
    "coalesce(s, 'z')", "coalesce(NULL, s)", "coalesce(s, ls)", "coalesce(f64, 0)",
    "coalesce(i32, i64, 7)", "coalesce(b, false)", "coalesce(d, date '2000-01-01')",
    "coalesce(lower(s), '?') || '!'",
    # nested, with NULLs on the way
    "round(f64 * 2, 1)", "length(concat(s, ls))", "abs(coalesce(i32, i64) - 100)",
    "upper(coalesce(s, ls, 'none'))", "date_part('year', coalesce(d, CAST(ts AS DATE)))",
    "CAST(length(s) AS STRING) || ':' || lower(s)", "coalesce(i32 + i8, -1) * 2",
    "lower(s) IN ('abc', 'bc')", "length(s) NOT IN (0, 3)", "(f64 > 1) IS NULL",
    "NOT (coalesce(b, true) AND i32 > 0)", "CAST(f32 AS DOUBLE) > 1.0 OR s IS NULL",
    # CAST with Lance's type names
    "CAST(i32 AS TINYINT)", "CAST(i32 AS SMALLINT)", "CAST(i8 AS INT)", "CAST(i8 AS INTEGER)",
    "CAST(i32 AS BIGINT)", "CAST(u8 AS TINYINT UNSIGNED)", "CAST(u32 AS BIGINT UNSIGNED)",
    "CAST(u64 AS DOUBLE)", "CAST(i64 AS FLOAT)", "CAST(i64 AS DOUBLE)", "CAST(f32 AS DOUBLE)",
    "CAST(i32 AS STRING)", "CAST(f64 AS STRING)", "CAST(f32 AS STRING)", "CAST(b AS STRING)",
    "CAST(d AS STRING)", "CAST(ts AS STRING)", "CAST(tz AS STRING)", "CAST(i8 AS BOOLEAN)",
    "CAST(b AS INT)", "CAST(d AS TIMESTAMP)", "CAST(ts AS DATE)", "CAST(tz AS DATE)",
    "CAST(ts AS TIMESTAMP(3))", "CAST(ts_ms AS TIMESTAMP(6))", "CAST(ts AS TIMESTAMP(0))",
    "CAST(i32 AS DATE)", "CAST(d AS INT)", "CAST(i64 AS TIMESTAMP)", "CAST(s AS BINARY)",
    "CAST(CAST(i32 AS STRING) AS INT)", "CAST(i32 AS DOUBLE) / 4",
    "CAST(i32 AS STRING) = '40'", "d > CAST('2000-01-01' AS DATE)",
    # date_part (int32; 'epoch' is double)
    "date_part('year', d)", "date_part('month', d)", "date_part('day', d)",
    "date_part('dow', d)", "date_part('doy', d)", "date_part('week', d)",
    "date_part('quarter', d)", "date_part('YEAR', ts)", "date_part('hour', ts)",
    "date_part('minute', ts)", "date_part('second', ts)", "date_part('millisecond', ts)",
    "date_part('microsecond', ts)", "date_part('epoch', ts)", "date_part('epoch', d)",
    "date_part('hour', d)", "date_part('hour', tz)", "date_part('dow', ts)",
    "date_part('doy', ts_ms)", "date_part('year', d) = 2024",
    # a fixed-offset zone: parts and renderings in local time
    "tz530", "date_part('hour', tz530)", "date_part('day', tz530)", "CAST(tz530 AS STRING)",
    "CAST(tz530 AS DATE)", "CAST(tz530 AS TIMESTAMP)",
    "ts > CAST('2000-01-01 00:00:00' AS TIMESTAMP)", "coalesce(ts, ts_ms)",
    "coalesce(i64, u32)", "coalesce(u8, i8)", "coalesce(f32, i32)",
]

FILTERS = [e for e in AGREED if "'<'" not in e and any(op in e for op in
                                    ("=", ">", "<", " IN ", " IS ", "LIKE", "BETWEEN", " AND ",
                                     " OR ", "NOT "))]


@pytest.mark.parametrize("expr", AGREED)
def test_projection_matches_pylance(datasets, expr):
    ref, ours = datasets
    want = _project(ref, expr)
    got = _project(ours, expr)
    # pylance's concat() with a NULL literal returns string_view, which lance-cpp has no
    # type for (a documented difference): compare its values as strings.
    want_type = pa.string() if want.type == pa.string_view() else want.type
    assert got.type == want_type, f"{expr}: {got.type} vs pylance's {want.type}"
    assert _same_values(got.to_pylist(), want.to_pylist()), (
        f"{expr}: {got.to_pylist()} vs pylance's {want.to_pylist()}")


@pytest.mark.parametrize("expr", FILTERS)
def test_filter_matches_pylance(datasets, expr):
    ref, ours = datasets
    want = ref.to_table(columns=["rid"], filter=expr).column("rid").to_pylist()
    got = ours.to_table(columns=["rid"], filter=expr).column("rid").to_pylist()
    assert sorted(got) == sorted(want), expr


def test_concat_with_null_literal_is_string_view_in_pylance(datasets):
    ref, ours = datasets
    assert _project(ref, "concat(s, 'x')").type == pa.string()
    assert _project(ref, "concat(s, 'x', NULL)").type == pa.string_view()
    assert _project(ours, "concat(s, 'x', NULL)").type == pa.string()


# Both refuse, at parse time or on the data.
BOTH_FAIL = [
    "foo(i32)",            # unknown function
    "lower(i32)",          # a string function on a number
    "nope + 1",            # unknown column
    "CAST(f64 AS INT)",    # NaN does not fit an integer
    "CAST(i16 AS TINYINT)",  # 300 does not fit int8
    "CAST(i8 AS TINYINT UNSIGNED)",  # -2
    "CAST(s AS INT)",      # 'Abc'
    "CAST(s AS BOOLEAN)",
    "CAST(i32 AS WIDGET)",
    "i32 / (i32 - i32)",   # division by zero
    "abs(i8)",             # abs(-128) overflows int8
    "CAST(i64 AS TINYINT)",  # 2^40
    "CAST(i64 AS BIGINT UNSIGNED)",  # -5
    "i8 + 200",            # 200 does not fit the column's int8
]


@pytest.mark.parametrize("expr", BOTH_FAIL)
def test_both_refuse(datasets, expr):
    ref, ours = datasets
    # pylance: ValueError (planning: "Invalid user input") or pyarrow's ArrowInvalid (a
    # ValueError; evaluation: "LanceError(Arrow)"); lance_cpp: LanceInvalidInputError
    # naming the expression.
    with pytest.raises(ValueError, match=r"Invalid user input|LanceError\(Arrow\)"):
        _project(ref, expr)
    with pytest.raises(lance_cpp.LanceInvalidInputError, match=re.escape(expr)):
        _project(ours, expr)


def test_errors_name_the_unknown(datasets):
    _, ours = datasets
    with pytest.raises(Exception, match="unknown function 'foo'"):
        _project(ours, "foo(i32)")
    with pytest.raises(Exception, match="no column named 'nope'"):
        _project(ours, "nope + 1")
    with pytest.raises(Exception, match="function 'lower' needs a string"):
        _project(ours, "lower(i32)")


# lance-cpp extensions: syntax pylance 14's planner rejects ("is not supported SQL in
# lance" / "Unsupported data type"), with the answers DataFusion gives them elsewhere.
EXTENSIONS = [
    ("CASE WHEN i32 > 0 THEN 'p' END", pa.string(), ["p", None, None, "p", "p", None]),
    ("CASE WHEN i32 > 0 THEN 'p' WHEN i32 < 0 THEN 'n' ELSE 'z' END", pa.string(),
     ["p", "n", "z", "p", "p", "z"]),
    ("CASE i32 WHEN 1 THEN i64 WHEN 40 THEN 0 END", pa.int64(),
     [10, None, None, 0, None, None]),
    ("CASE WHEN i32 = 0 THEN -1 ELSE i64 / i32 END", pa.int64(),
     [10, -10, None, None, 0, -1]),
    ("substr(s, 2)", pa.string(), ["bc", "c", None, "té Ünï", " pad  ", ""]),
    ("substr(s, 2, 2)", pa.string(), ["bc", "c", None, "té", " p", ""]),
    ("substring(s FROM 0 FOR 2)", pa.string(), ["A", "b", None, "é", " ", ""]),
    ("EXTRACT(year FROM d)", pa.int32(), [2024, None, 1969, 2000, 2024, 1970]),
    ("EXTRACT(dow FROM ts)", pa.int32(), [2, None, 3, 2, 0, 4]),
    ("trim(s)", pa.string(), ["Abc", "bc", None, "été Ünï", "pad", ""]),
    ("CAST(i32 AS VARCHAR)", pa.string(), ["1", "-2", None, "40", "7", "0"]),
    ("CAST(i8 AS REAL)", pa.float32(), [1.0, -2.0, None, 127.0, -128.0, 0.0]),
]


@pytest.mark.parametrize("expr,type_,values", EXTENSIONS)
def test_extensions_pylance_rejects(datasets, expr, type_, values):
    ref, ours = datasets
    with pytest.raises(ValueError, match="not supported SQL in lance|Unsupported data type"):
        _project(ref, expr)
    got = _project(ours, expr)
    assert got.type == type_, expr
    assert got.to_pylist() == values, expr


def test_extensions_in_filters(datasets):
    _, ours = datasets
    got = ours.to_table(columns=["rid"],
                        filter="CASE WHEN b THEN i32 ELSE 0 END > 0").column("rid")
    assert got.to_pylist() == [0, 3]
    got = ours.to_table(columns=["rid"], filter="EXTRACT(month FROM d) = 12").column("rid")
    assert got.to_pylist() == [2, 4]


# Deliberate differences in answers (docs/filters.md).
def test_cast_to_binary_is_text(datasets):
    ref, ours = datasets
    # Arrow (pylance) reinterprets an integer's little-endian bytes; lance-cpp casts its
    # decimal text, as CAST(x AS STRING) does.
    assert _project(ref, "CAST(i64 AS BINARY)").to_pylist()[0] == (10).to_bytes(8, "little")
    assert _project(ours, "CAST(i64 AS BINARY)").to_pylist()[0] == b"10"


def test_integer_column_with_fractional_literal(datasets):
    ref, ours = datasets
    # Lance refuses to take 2.5 in an int32 column's type; lance-cpp computes in float64.
    with pytest.raises(ValueError, match="could not convert to literal"):
        _project(ref, "i32 - 2.5")
    got = _project(ours, "i32 - 2.5")
    assert got.type == pa.float64()
    assert got.to_pylist() == [-1.5, -4.5, None, 37.5, 4.5, -2.5]


def test_projection_mixes_columns_and_expressions(datasets):
    ref, ours = datasets
    cols = {"rid": "rid", "name": "s", "n": "length(s) + i32", "day": "date_part('day', d)"}
    want = ref.to_table(columns=cols, filter="i32 > 0")
    got = ours.to_table(columns=cols, filter="i32 > 0")
    assert got.schema.names == want.schema.names
    assert got.to_pylist() == want.to_pylist()
    assert got.schema.field("name").type == want.schema.field("name").type
