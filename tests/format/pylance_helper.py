# SPDX-License-Identifier: Apache-2.0
"""Interop helper for tests/format/pylance_test.cc, run with real pylance.

  pylance_helper.py write OUT_DIR   writes v2.0 files with pylance's LanceFileWriter plus
                                    OUT_DIR/<name>.json (the rows) and OUT_DIR/files.json
  pylance_helper.py read FILE OUT [FILE OUT ...]
                                    reads each FILE with pylance's LanceFileReader and
                                    writes {"rows": [...], "range": [...]} to its OUT

Rows are rendered as in tests/format/format_test_util.h: binary as lowercase hex, date32
as days, timestamps as ticks, float16 as float, lists as arrays, structs as objects.
"""
import json
import random
import sys

import pyarrow as pa
from lance.file import LanceFileReader, LanceFileWriter


def array_to_json(arr, special=None):
    """The slots of `arr` as JSON values. `special(arr, recurse)` may render types this
    helper does not know (returning None for the rest); it applies at every depth."""
    def recurse(a):
        return array_to_json(a, special)

    t = arr.type
    if isinstance(arr, pa.ChunkedArray):
        out = []
        for chunk in arr.chunks:
            out.extend(recurse(chunk))
        return out
    if special is not None:
        out = special(arr, recurse)
        if out is not None:
            return out
    if pa.types.is_timestamp(t):
        return arr.cast(pa.int64()).to_pylist()
    if pa.types.is_date32(t):
        return arr.cast(pa.int32()).to_pylist()
    if pa.types.is_float16(t):
        return arr.cast(pa.float32()).to_pylist()
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
        return [None if v is None else v.hex() for v in arr.to_pylist()]
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        offsets = arr.offsets.to_pylist()
        values = recurse(arr.values)
        return [None if not arr[i].is_valid else values[offsets[i]:offsets[i + 1]]
                for i in range(len(arr))]
    if pa.types.is_fixed_size_list(t):
        n = t.list_size
        values = recurse(arr.values)
        base = arr.offset
        return [None if not arr[i].is_valid else values[(base + i) * n:(base + i + 1) * n]
                for i in range(len(arr))]
    if pa.types.is_struct(t):
        children = [recurse(arr.field(j).slice(arr.offset, len(arr)))
                    for j in range(t.num_fields)]
        return [None if not arr[i].is_valid else
                {t.field(j).name: children[j][i] for j in range(t.num_fields)}
                for i in range(len(arr))]
    return arr.to_pylist()


def table_to_rows(table, special=None):
    cols = {name: array_to_json(table.column(name), special) for name in table.column_names}
    return [{name: cols[name][i] for name in table.column_names} for i in range(table.num_rows)]


def rand_values(rng, n, gen, null_p):
    return [None if rng.random() < null_p else gen() for _ in range(n)]


def make_tables():
    rng = random.Random(42)
    n = 700
    st = pa.struct([("a", pa.int32()), ("b", pa.string())])
    tables = {}

    def leaf(gen, typ, null_p=0.2):
        return pa.array(rand_values(rng, n, gen, null_p), typ)

    tables["primitives"] = pa.table({
        "b": leaf(lambda: rng.random() < 0.5, pa.bool_()),
        "i8": leaf(lambda: rng.randint(-128, 127), pa.int8()),
        "i16": leaf(lambda: rng.randint(-30000, 30000), pa.int16()),
        "i32": leaf(lambda: rng.randint(-2**31, 2**31 - 1), pa.int32(), 0.0),
        "i64": leaf(lambda: rng.randint(-2**62, 2**62), pa.int64()),
        "u8": leaf(lambda: rng.randint(0, 255), pa.uint8()),
        "u16": leaf(lambda: rng.randint(0, 65535), pa.uint16()),
        "u32": leaf(lambda: rng.randint(0, 2**32 - 1), pa.uint32()),
        "u64": leaf(lambda: rng.randint(0, 2**64 - 1), pa.uint64()),
        "f16": pa.array(rand_values(rng, n, lambda: rng.randint(-400, 400) / 4, 0.2),
                        pa.float32()).cast(pa.float16()),
        "f32": leaf(lambda: rng.randint(-10**6, 10**6) / 8, pa.float32()),
        "f64": leaf(lambda: rng.random() * 1e6, pa.float64()),
        "d": pa.array(rand_values(rng, n, lambda: rng.randint(-10**5, 10**5), 0.2),
                      pa.int32()).cast(pa.date32()),
        "ts": pa.array(rand_values(rng, n, lambda: rng.randint(0, 2**50), 0.2),
                       pa.int64()).cast(pa.timestamp("us", "UTC")),
        "tsn": pa.array(rand_values(rng, n, lambda: rng.randint(0, 2**60), 0.2),
                        pa.int64()).cast(pa.timestamp("ns")),
        "fsb": leaf(lambda: bytes(rng.randrange(256) for _ in range(6)), pa.binary(6)),
        "allnull": pa.array([None] * n, pa.int64()),
    })
    word = lambda: "".join(rng.choice("abcdefgh") for _ in range(rng.randint(0, 12)))
    tables["strings"] = pa.table({
        "s": leaf(word, pa.string()),
        "ls": leaf(word, pa.large_string()),
        "bin": leaf(lambda: bytes(rng.randrange(256) for _ in range(rng.randint(0, 9))),
                    pa.binary()),
        "lbin": leaf(lambda: bytes(rng.randrange(256) for _ in range(rng.randint(0, 9))),
                     pa.large_binary()),
        # Few distinct values over many rows: real Lance dictionary-encodes these.
        "cat": leaf(lambda: rng.choice(["red", "green", "blue", ""]), pa.string()),
        "cat_nonull": leaf(lambda: rng.choice(["x", "yy", "zzz"]), pa.string(), 0.0),
        "empty_or_null": leaf(lambda: "", pa.string(), 0.5),
        "allnull": pa.array([None] * n, pa.string()),
    })
    ints = lambda: [rng.randint(-5, 5) if rng.random() > 0.1 else None
                    for _ in range(rng.randint(0, 4))]
    tables["nested"] = pa.table({
        "st": pa.array([{"a": rng.randint(0, 9) if rng.random() > 0.2 else None,
                         "b": word() if rng.random() > 0.2 else None} for _ in range(n)], st),
        "li": leaf(ints, pa.list_(pa.int32())),
        "lls": leaf(lambda: [word() for _ in range(rng.randint(0, 3))],
                    pa.large_list(pa.large_string())),
        "lst": leaf(lambda: [{"a": rng.randint(0, 9), "b": word()}
                             for _ in range(rng.randint(0, 3))], pa.list_(st)),
        "lli": leaf(lambda: [ints() for _ in range(rng.randint(0, 3))],
                    pa.list_(pa.list_(pa.int32()))),
        "vec": leaf(lambda: [rng.randint(-100, 100) / 4 for _ in range(128)],
                    pa.list_(pa.float32(), 128), 0.0),
        "fsl_nulls": leaf(lambda: [rng.randint(0, 9) if rng.random() > 0.2 else None
                                   for _ in range(3)], pa.list_(pa.int64(), 3)),
        "stl": pa.array([{"tags": [word() for _ in range(rng.randint(0, 2))], "n": i}
                         for i in range(n)],
                        pa.struct([("tags", pa.list_(pa.string())), ("n", pa.int64())])),
        "empty_lists": leaf(lambda: [], pa.list_(pa.int32()), 0.3),
    })
    return tables


def write(out_dir):
    files = []
    for name, table in make_tables().items():
        path = f"{out_dir}/{name}.lance"
        w = LanceFileWriter(path, table.schema, version="2.0")
        w.write_batch(table)
        w.close()
        files.append(name)
        # The same data with many pages (tiny page buffers, many batches).
        path = f"{out_dir}/{name}_paged.lance"
        w = LanceFileWriter(path, table.schema, version="2.0", data_cache_bytes=4096)
        for start in range(0, table.num_rows, 97):
            w.write_batch(table.slice(start, 97))
        w.close()
        files.append(name + "_paged")
        with open(f"{out_dir}/{name}.json", "w") as f:
            json.dump(table_to_rows(table), f)
    with open(f"{out_dir}/files.json", "w") as f:
        json.dump(files, f)


def read(path, out):
    reader = LanceFileReader(path)
    table = reader.read_all(batch_size=100).to_table()
    n = table.num_rows
    start, count = n // 3, n // 2
    ranged = reader.read_range(start, count).to_table()
    with open(out, "w") as f:
        json.dump({"rows": table_to_rows(table), "range_start": start,
                   "range": table_to_rows(ranged)}, f)


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(sys.argv[2])
    elif sys.argv[1] == "read":
        for i in range(2, len(sys.argv), 2):
            read(sys.argv[i], sys.argv[i + 1])
    else:
        sys.exit("unknown command " + sys.argv[1])
