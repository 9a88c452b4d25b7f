#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""One-off generator of the golden Arrow IPC files used by tests/ipc (ipc_test).

The tests never run Python: the files this script wrote are committed next to it, and
the values they hold are hard-coded in tests/ipc/ipc_golden_test.cc. Re-run it only when
adding a golden file (needs pyarrow; written with pyarrow 26.0.1):

    python3 tests/ipc/data/make_golden.py            # (re)write the pyarrow_* goldens
    python3 tests/ipc/data/make_golden.py --check    # check the lance_written_* files

`--check` verifies that the files lance-cpp's writer produced (ipc_test writes them when
run with --gtest_also_run_disabled_tests --gtest_filter=*Regenerate*) are read by pyarrow as the same table.
"""

import decimal
import os
import sys

import numpy as np
import pyarrow as pa
import pyarrow.ipc as ipc

HERE = os.path.dirname(os.path.abspath(__file__))


def types_table():
    """Every type lance supports, with nulls and nesting; 4 rows."""
    nested_type = pa.list_(pa.struct([("a", pa.int64()), ("b", pa.list_(pa.utf8()))]))
    columns = [
        ("id", pa.array([1, 2, 3, 4], pa.int32()), False, None),
        ("b", pa.array([True, None, False, True], pa.bool_()), True, None),
        ("i8", pa.array([-128, None, 0, 127], pa.int8()), True, None),
        ("i16", pa.array([-32768, None, 7, 32767], pa.int16()), True, None),
        ("i32", pa.array([-2147483648, None, 42, 2147483647], pa.int32()), True,
         {b"lance:k": b"v"}),
        ("i64", pa.array([-(2**63), None, 42, 2**63 - 1], pa.int64()), True, None),
        ("u8", pa.array([0, None, 200, 255], pa.uint8()), True, None),
        ("u16", pa.array([0, None, 40000, 65535], pa.uint16()), True, None),
        ("u32", pa.array([0, None, 3000000000, 2**32 - 1], pa.uint32()), True, None),
        ("u64", pa.array([0, None, 10**19, 2**64 - 1], pa.uint64()), True, None),
        ("f16", pa.array(np.array([1.5, 0, -2.0, 0.0], dtype=np.float16),
                         pa.float16(), mask=np.array([False, True, False, False])),
         True, None),
        ("f32", pa.array([1.5, None, -0.25, 1024.0], pa.float32()), True, None),
        ("f64", pa.array([1.5, None, -0.25, 1e300], pa.float64()), True, None),
        ("utf8", pa.array(["hello", None, "", "w\u00f6rld"], pa.utf8()), True, None),
        ("large_utf8", pa.array(["a", None, "bc", "def"], pa.large_utf8()), True, None),
        ("binary", pa.array([b"\x00\x01", None, b"", b"xyz"], pa.binary()), True, None),
        ("large_binary", pa.array([b"", None, b"\xff", b"ab"], pa.large_binary()), True,
         None),
        ("fsb3", pa.array([b"abc", None, b"def", b"\x00\x01\x02"], pa.binary(3)), True,
         None),
        ("date32", pa.array([0, None, 19000, -1], pa.int32()).view(pa.date32()), True,
         None),
        ("ts_s", pa.array([0, None, 1700000000, -1], pa.int64()).view(pa.timestamp("s")),
         True, None),
        ("ts_ms_tz", pa.array([0, None, 1700000000000, -1], pa.int64()).view(
            pa.timestamp("ms", tz="America/New_York")), True, None),
        ("ts_us_utc", pa.array([0, None, 1700000000000000, -1], pa.int64()).view(
            pa.timestamp("us", tz="UTC")), True, None),
        ("ts_ns", pa.array([0, None, 1700000000000000000, -1], pa.int64()).view(
            pa.timestamp("ns")), True, None),
        ("list_i32", pa.array([[1, 2], None, [], [3, None]], pa.list_(pa.int32())), True,
         None),
        ("large_list_utf8", pa.array([["a"], ["b", None], None, []],
                                     pa.large_list(pa.utf8())), True, None),
        ("fsl_f32", pa.array([[1.0, 2.0], None, [3.0, None], [5.0, 6.0]],
                             pa.list_(pa.float32(), 2)), True, None),
        ("struct", pa.array([{"x": 1, "y": "a"}, None, {"x": None, "y": "c"},
                             {"x": 4, "y": None}],
                            pa.struct([("x", pa.int32()), ("y", pa.utf8())])), True, None),
        ("nested", pa.array([[{"a": 1, "b": ["x"]}], None,
                             [{"a": None, "b": None}, {"a": 3, "b": []}], []],
                            nested_type), True, None),
    ]
    fields = [pa.field(name, arr.type, nullable, metadata)
              for name, arr, nullable, metadata in columns]
    schema = pa.schema(fields, metadata={b"origin": b"make_golden.py"})
    return pa.Table.from_arrays([arr for _, arr, _, _ in columns], schema=schema)


def new_types_table():
    """The types added later (null, decimals, date64, times, durations, dictionaries,
    maps) with nulls and nesting; 4 rows."""
    D = decimal.Decimal
    entries = pa.map_(pa.utf8(), pa.int32())
    columns = [
        ("null", pa.array([None] * 4, pa.null()), True),
        ("dec128", pa.array([D("123.45"), None, D("-0.01"), D("99999999.99")],
                            pa.decimal128(10, 2)), True),
        ("dec128_neg_scale", pa.array([D("1E+3"), D("-5E+2"), None, D("0")],
                                      pa.decimal128(5, -2)), True),
        ("dec256", pa.array([D("1234567890123456789012345678901234567.890"), None,
                             D("-1.000"), D("0.001")], pa.decimal256(40, 3)), True),
        ("date64", pa.array([0, None, 86400000 * 19782, -86400000], pa.date64()), True),
        ("time32_s", pa.array([0, 45296, None, 86399], pa.time32("s")), True),
        ("time32_ms", pa.array([45296789, None, 0, 86399999], pa.time32("ms")), True),
        ("time64_us", pa.array([1, 45296789012, None, 86399999999], pa.time64("us")),
         True),
        ("time64_ns", pa.array([None, 1, 45296789012345, 86399999999999],
                               pa.time64("ns")), True),
        ("dur_s", pa.array([1, -2, None, 2**62], pa.duration("s")), True),
        ("dur_ms", pa.array([1500, None, 0, -1], pa.duration("ms")), True),
        ("dur_us", pa.array([None, 1, 2, 3], pa.duration("us")), True),
        ("dur_ns", pa.array([-(2**63), 0, None, 2**63 - 1], pa.duration("ns")), False),
        ("dict_utf8", pa.DictionaryArray.from_arrays(
            pa.array([1, None, 0, 1], pa.int32()), pa.array(["apple", "banana"])), True),
        ("dict_i64_u16", pa.DictionaryArray.from_arrays(
            pa.array([2, 0, None, 2], pa.uint16()), pa.array([10, None, -30], pa.int64())),
         True),
        ("dict_ordered_i8", pa.DictionaryArray.from_arrays(
            pa.array([0, 1, 1, None], pa.int8()), pa.array(["lo", "hi"]), ordered=True),
         True),
        ("map", pa.array([[("a", 1), ("b", None)], None, [], [("c", 3)]], entries), True),
        ("map_sorted", pa.array([[("a", 1)], [("x", 2), ("y", 3)], None, []],
                                pa.map_(pa.utf8(), pa.int32(), keys_sorted=True)), True),
        ("map_nested", pa.array([[(1, ["x"])], None, [(2, []), (3, None)], []],
                                pa.map_(pa.int64(), pa.list_(pa.utf8()))), True),
        ("list_dict", pa.array([["a", "b"], None, [], ["b"]],
                               pa.list_(pa.dictionary(pa.int16(), pa.utf8()))), True),
        ("struct_new", pa.array(
            [{"n": None, "d": D("1.5"), "t": 1, "m": [("k", 1.5)]}, None,
             {"n": None, "d": None, "t": None, "m": None},
             {"n": None, "d": D("-2.5"), "t": 86399, "m": []}],
            pa.struct([("n", pa.null()), ("d", pa.decimal128(4, 1)),
                       ("t", pa.time32("s")),
                       ("m", pa.map_(pa.utf8(), pa.float64()))])), True),
        ("fsl_dec", pa.array([[D("1.00"), None], None, [D("-3.50"), D("4.25")],
                              [D("0.00"), D("0.01")]], pa.list_(pa.decimal128(5, 2), 2)),
         True),
    ]
    fields = [pa.field(name, arr.type, nullable) for name, arr, nullable in columns]
    schema = pa.schema(fields, metadata={b"origin": b"make_golden.py new types"})
    return pa.Table.from_arrays([arr for _, arr, _ in columns], schema=schema)


def dictionary_stream_batches():
    """One dictionary column over 3 batches: a dictionary, the same dictionary extended
    (a delta when the writer emits deltas), then an unrelated one (a replacement)."""
    schema = pa.schema([pa.field("d", pa.dictionary(pa.int32(), pa.utf8())),
                        pa.field("i", pa.int64())])
    def batch(indices, values, ints):
        return pa.record_batch([pa.DictionaryArray.from_arrays(
            pa.array(indices, pa.int32()), pa.array(values)), pa.array(ints, pa.int64())],
            schema=schema)
    return schema, [batch([0, 1, None], ["a", "b"], [1, 2, 3]),
                    batch([2, 0], ["a", "b", "c"], [4, 5]),
                    batch([0, 0, None], ["x"], [6, 7, 8])]


def row_ids_table():
    """A deletion file's shape: {row_id: uint32 not null}, row ids 0, 3, 6, ..., 2997."""
    schema = pa.schema([pa.field("row_id", pa.uint32(), nullable=False)])
    return pa.Table.from_arrays([pa.array(range(0, 3000, 3), pa.uint32())], schema=schema)


def write_file(name, schema, batches, compression=None):
    options = ipc.IpcWriteOptions(compression=compression)
    with ipc.new_file(os.path.join(HERE, name), schema, options=options) as writer:
        for batch in batches:
            writer.write_batch(batch)


def write_stream(name, schema, batches, compression=None):
    options = ipc.IpcWriteOptions(compression=compression)
    with ipc.new_stream(os.path.join(HERE, name), schema, options=options) as writer:
        for batch in batches:
            writer.write_batch(batch)


def generate():
    table = types_table()
    batch = table.combine_chunks().to_batches()[0]
    # The second batch is a slice, so pyarrow's writer rebases offsets and bitmaps.
    two_batches = [batch, batch.slice(1, 3)]
    write_file("pyarrow_types_none.arrow", table.schema, two_batches)
    write_file("pyarrow_types_lz4.arrow", table.schema, [batch], "lz4")
    write_file("pyarrow_types_zstd.arrow", table.schema, [batch], "zstd")
    write_stream("pyarrow_types_none.arrows", table.schema, two_batches)

    new_table = new_types_table()
    new_batch = new_table.combine_chunks().to_batches()[0]
    new_two = [new_batch, new_batch.slice(1, 3)]
    write_file("pyarrow_new_types.arrow", new_table.schema, new_two)
    write_file("pyarrow_new_types_zstd.arrow", new_table.schema, [new_batch], "zstd")
    write_stream("pyarrow_new_types.arrows", new_table.schema, new_two)
    dict_schema, dict_batches = dictionary_stream_batches()
    options = ipc.IpcWriteOptions(emit_dictionary_deltas=True)
    with ipc.new_stream(os.path.join(HERE, "pyarrow_dictionary_deltas.arrows"),
                        dict_schema, options=options) as writer:
        for b in dict_batches:
            writer.write_batch(b)
    # The file format allows deltas but no replacement: the first two batches only.
    with ipc.new_file(os.path.join(HERE, "pyarrow_dictionary_deltas.arrow"),
                      dict_schema, options=options) as writer:
        for b in dict_batches[:2]:
            writer.write_batch(b)

    row_ids = row_ids_table()
    write_file("pyarrow_row_ids_zstd.arrow", row_ids.schema, row_ids.to_batches(), "zstd")
    write_file("pyarrow_row_ids_empty.arrow", row_ids.schema,
               [row_ids.to_batches()[0].slice(0, 0)])


def check():
    table = types_table()
    batch = table.combine_chunks().to_batches()[0]
    expected = pa.Table.from_batches([batch, batch.slice(1, 3)])
    for name in ("lance_written_types_zstd.arrow", "lance_written_types_lz4.arrow"):
        got = ipc.open_file(os.path.join(HERE, name)).read_all()
        assert got.schema.equals(expected.schema, check_metadata=True), (name, got.schema)
        assert got.equals(expected), name
        print("OK", name, got.num_rows, "rows")
    got = ipc.open_stream(os.path.join(HERE, "lance_written_types_none.arrows")).read_all()
    assert got.equals(expected) and got.schema.equals(expected.schema, check_metadata=True)
    print("OK lance_written_types_none.arrows")
    got = ipc.open_file(os.path.join(HERE, "lance_written_row_ids_zstd.arrow")).read_all()
    assert got.equals(row_ids_table()), got
    print("OK lance_written_row_ids_zstd.arrow")

    new_table = new_types_table()
    new_batch = new_table.combine_chunks().to_batches()[0]
    expected = pa.Table.from_batches([new_batch, new_batch.slice(1, 3)])
    for name, opener in (("lance_written_new_types.arrow", ipc.open_file),
                         ("lance_written_new_types.arrows", ipc.open_stream)):
        got = opener(os.path.join(HERE, name)).read_all()
        assert got.schema.equals(expected.schema, check_metadata=True), (name, got.schema)
        assert got.equals(expected), name
        got.validate(full=True)
        print("OK", name, got.num_rows, "rows")
    dict_schema, dict_batches = dictionary_stream_batches()
    with ipc.open_stream(os.path.join(HERE, "lance_written_dictionary_deltas.arrows")) as r:
        got = list(r)
        assert len(got) == 3 and all(a.equals(b) for a, b in zip(got, dict_batches)), got
        # A delta for the second batch, a replacement for the third.
        assert r.stats.num_dictionary_deltas == 1, r.stats
        assert r.stats.num_replaced_dictionaries == 1, r.stats
    print("OK lance_written_dictionary_deltas.arrows")


if __name__ == "__main__":
    if sys.argv[1:] == ["--check"]:
        check()
    else:
        generate()
