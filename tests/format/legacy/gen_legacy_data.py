# SPDX-License-Identifier: Apache-2.0
"""Writes the legacy (v0.1 / v0.2 file format) test datasets under tests/data/legacy/.

    .venv/bin/python tests/format/legacy/gen_legacy_data.py [OUT_DIR]

Every dataset is written by real pylance (14.0.2) with data_storage_version="legacy"
and gets a <name>.expected.json beside it, also produced by pylance:

  files[]   one entry per data file: its path (relative to the dataset), fragment id,
            field ids, row count and batch boundaries, and "rows" -- the file's columns
            as pylance reads them (read from a version where the fragment has no
            deletions, so every physical row is there)
  rows      the whole dataset at its latest version, with _rowid (deletions applied)
  count_rows, version, data_storage_version
  unsupported  (only the unsupported_* datasets) the Lance logical type of the column
               the reader once refused; every one of them is read now (null and
               dictionary since the legacy reader learnt them, see gen_legacy_types.py)

Rendering (tests/format/pylance_helper.py's, shared with format_test_util.h): binary as
lowercase hex, date32 as days, timestamps as ticks, float16 as float, lists as arrays,
structs as objects. The types the C++ side cannot represent yet are rendered for later:
decimals as strings, date64 / time / duration as ticks, dictionaries as their values.

Legacy files keep no validity except through empty var-binary values: pylance reads a
null int as whatever was in the Arrow buffer (0 for arrays built from Python lists), a
null struct as a struct of its children's values, a null list as an empty list, and an
empty string of a nullable field as null. The expected rows record exactly that.
"""
import decimal
import json
import os
import random
import shutil
import sys

import pyarrow as pa

import lance

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from pylance_helper import table_to_rows as base_table_to_rows  # noqa: E402

LEGACY = "legacy"


def legacy_types(arr, recurse):
    """The types pylance_helper does not render (see the module doc), or None."""
    t = arr.type
    if pa.types.is_decimal(t):
        return [None if v is None else str(v) for v in arr.to_pylist()]
    if pa.types.is_time32(t):
        return arr.cast(pa.int32()).to_pylist()
    if pa.types.is_date64(t) or pa.types.is_time64(t) or pa.types.is_duration(t):
        return arr.cast(pa.int64()).to_pylist()
    if pa.types.is_dictionary(t):
        return recurse(arr.dictionary_decode())
    if pa.types.is_null(t):
        return [None] * len(arr)
    return None


def table_to_rows(table):
    return base_table_to_rows(table, legacy_types)


# ---------------------------------------------------------------------------------------
# Data

def maybe(rng, value, p=0.2):
    return None if rng.random() < p else value


def text(rng, max_len=6):
    # Empty strings on purpose: a nullable legacy field reads them back as null.
    return "".join(rng.choice("abcxyz") for _ in range(rng.randint(0, max_len)))


def all_types_table(n, seed):
    rng = random.Random(seed)
    ints = lambda lo, hi: [maybe(rng, rng.randint(lo, hi)) for _ in range(n)]  # noqa: E731
    st_type = pa.struct([
        ("a", pa.int32()), ("b", pa.string()),
        ("c", pa.struct([("d", pa.float64()), ("e", pa.list_(pa.int16()))]))])
    cols = {
        # A struct first: the page table then starts at a field without pages.
        "st": pa.array([maybe(rng, {
            "a": maybe(rng, rng.randint(-1000, 1000)),
            "b": maybe(rng, text(rng)),
            "c": maybe(rng, {"d": maybe(rng, rng.randint(-100, 100) / 4),
                             "e": maybe(rng, [maybe(rng, rng.randint(-50, 50))
                                              for _ in range(rng.randint(0, 3))])})})
                        for _ in range(n)], st_type),
        "b": pa.array([maybe(rng, rng.random() < 0.5) for _ in range(n)], pa.bool_()),
        "i8": pa.array(ints(-128, 127), pa.int8()),
        "i16": pa.array(ints(-30000, 30000), pa.int16()),
        "i32": pa.array(ints(-2**31, 2**31 - 1), pa.int32()),
        "i64": pa.array(ints(-2**63, 2**63 - 1), pa.int64()),
        "u8": pa.array(ints(0, 255), pa.uint8()),
        "u16": pa.array(ints(0, 65535), pa.uint16()),
        "u32": pa.array(ints(0, 2**32 - 1), pa.uint32()),
        "u64": pa.array(ints(0, 2**64 - 1), pa.uint64()),
        "f16": pa.array([maybe(rng, rng.randint(-400, 400) / 4) for _ in range(n)],
                        pa.float16()),
        "f32": pa.array([maybe(rng, rng.randint(-10**6, 10**6) / 8) for _ in range(n)],
                        pa.float32()),
        "f64": pa.array([maybe(rng, rng.uniform(-1e6, 1e6)) for _ in range(n)], pa.float64()),
        "d32": pa.array(ints(-20000, 40000), pa.int32()).cast(pa.date32()),
        "ts_s": pa.array(ints(-10**9, 2 * 10**9), pa.int64()).cast(pa.timestamp("s")),
        "ts_ms_utc": pa.array(ints(0, 2 * 10**12), pa.int64()).cast(
            pa.timestamp("ms", "UTC")),
        "ts_us_ny": pa.array(ints(0, 2 * 10**15), pa.int64()).cast(
            pa.timestamp("us", "America/New_York")),
        "ts_ns": pa.array(ints(-2**62, 2**62), pa.int64()).cast(pa.timestamp("ns")),
        "s": pa.array([maybe(rng, text(rng)) for _ in range(n)], pa.string()),
        "ls": pa.array([maybe(rng, text(rng, 20)) for _ in range(n)], pa.large_string()),
        "bin": pa.array([maybe(rng, bytes(rng.randrange(256) for _ in range(rng.randint(0, 5))))
                         for _ in range(n)], pa.binary()),
        "lbin": pa.array([maybe(rng, bytes(rng.randrange(256)
                                           for _ in range(rng.randint(0, 5))))
                          for _ in range(n)], pa.large_binary()),
        "fsb": pa.array([maybe(rng, bytes(rng.randrange(256) for _ in range(3)))
                         for _ in range(n)], pa.binary(3)),
        "fsl_f32": pa.array([maybe(rng, [maybe(rng, rng.randint(-99, 99) / 2)
                                         for _ in range(4)]) for _ in range(n)],
                            pa.list_(pa.float32(), 4)),
        "fsl_i64": pa.array([maybe(rng, [rng.randint(-2**40, 2**40) for _ in range(2)])
                             for _ in range(n)], pa.list_(pa.int64(), 2)),
        "fsl_bool": pa.array([maybe(rng, [rng.random() < 0.5 for _ in range(3)])
                              for _ in range(n)], pa.list_(pa.bool_(), 3)),
        "fsl_f16": pa.array([maybe(rng, [rng.randint(-40, 40) / 4 for _ in range(2)])
                             for _ in range(n)], pa.list_(pa.float16(), 2)),
        "l_i32": pa.array([maybe(rng, [maybe(rng, rng.randint(-99, 99))
                                       for _ in range(rng.randint(0, 4))])
                           for _ in range(n)], pa.list_(pa.int32())),
        "ll_str": pa.array([maybe(rng, [maybe(rng, text(rng)) for _ in range(rng.randint(0, 3))])
                            for _ in range(n)], pa.large_list(pa.string())),
        "l_st": pa.array([maybe(rng, [maybe(rng, {"x": maybe(rng, rng.randint(0, 9)),
                                                  "y": maybe(rng, text(rng))})
                                      for _ in range(rng.randint(0, 3))])
                          for _ in range(n)],
                         pa.list_(pa.struct([("x", pa.int32()), ("y", pa.string())]))),
        "l_l": pa.array([maybe(rng, [maybe(rng, [rng.randint(0, 99)
                                                 for _ in range(rng.randint(0, 3))])
                                     for _ in range(rng.randint(0, 3))])
                         for _ in range(n)], pa.list_(pa.list_(pa.int64()))),
        "l_fsl": pa.array([maybe(rng, [[rng.randint(0, 9) / 2, rng.randint(0, 9) / 2]
                                       for _ in range(rng.randint(0, 2))])
                           for _ in range(n)], pa.list_(pa.list_(pa.float32(), 2))),
        "l_bool": pa.array([maybe(rng, [maybe(rng, rng.random() < 0.5)
                                        for _ in range(rng.randint(0, 5))])
                            for _ in range(n)], pa.list_(pa.bool_())),
        "ll_bin": pa.array([maybe(rng, [bytes([rng.randrange(256)]) * rng.randint(0, 2)
                                        for _ in range(rng.randint(0, 3))])
                            for _ in range(n)], pa.large_list(pa.binary())),
    }
    table = pa.table(cols)
    # Non-nullable var-binary keeps its empty values: they read back as "".
    s_nn = pa.array([text(rng) for _ in range(n)], pa.string())
    i_nn = pa.array(list(range(n)), pa.int64())
    table = table.append_column(pa.field("s_nn", pa.string(), nullable=False), s_nn)
    table = table.append_column(pa.field("id", pa.int64(), nullable=False), i_nn)
    return table


UNSUPPORTED = {
    # name: (array, its Lance logical type). The names are historical: these types were
    # once refused; all are read now.
    "decimal128": (lambda: pa.array([decimal.Decimal("0.01"), None, decimal.Decimal("-25.00")],
                                         pa.decimal128(9, 2)),
                   "decimal:128:9:2"),
    "decimal256": (lambda: pa.array([decimal.Decimal("1.000"), None, decimal.Decimal("7.125")],
                                         pa.decimal256(20, 3)),
                   "decimal:256:20:3"),
    "date64": (lambda: pa.array([86400000, None, 0], pa.date64()), "date64:ms"),
    "time32": (lambda: pa.array([1, None, 86399], pa.time32("s")), "time32:s"),
    "time64": (lambda: pa.array([1, None, 5], pa.time64("ns")), "time64:ns"),
    "duration": (lambda: pa.array([1, None, -5], pa.duration("ms")), "duration:ms"),
    "null": (lambda: pa.array([None, None, None], pa.null()), "null"),
    "dictionary": (lambda: pa.array(["p", "q", None]).dictionary_encode(),
                   "dict:string:int32:false"),
    "fsl_fsl": (lambda: pa.array([[[1.0, 2.0], [3.0, 4.0]], None, [[5.0, 6.0], [7.0, 8.0]]],
                                 pa.list_(pa.list_(pa.float32(), 2), 2)),
                "fixed_size_list:fixed_size_list:float:2:2"),
}


# ---------------------------------------------------------------------------------------
# Expected values

def top_level_names(ds, ids):
    names = []
    for f in ds.lance_schema.fields():
        if f.id() in ids:
            names.append(f.name())
    return names


def dump_expected(root, name, extra=None):
    ds = lance.dataset(root)
    files = []
    seen = set()
    for v in ds.versions():
        dv = lance.dataset(root, version=v["version"])
        for frag in dv.get_fragments():
            meta = frag.metadata
            if meta.deletion_file is not None:
                continue
            for df in meta.files:
                if df.path in seen:
                    continue
                seen.add(df.path)
                cols = top_level_names(dv, set(df.fields))
                table = frag.to_table(columns=cols)
                files.append({
                    "path": "data/" + df.path,
                    "fragment": meta.id,
                    "version": v["version"],
                    "field_ids": list(df.fields),
                    "column_indices": list(df.column_indices),
                    "file_major_version": df.file_major_version,
                    "file_minor_version": df.file_minor_version,
                    "file_size_bytes": df.file_size_bytes,
                    "columns": cols,
                    "num_rows": table.num_rows,
                    "rows": table_to_rows(table),
                })
    latest = ds.to_table(with_row_id=True)
    out = {
        "dataset": name,
        "version": ds.version,
        "data_storage_version": ds.data_storage_version,
        "count_rows": ds.count_rows(),
        "fragments": [{"id": f.metadata.id, "physical_rows": f.metadata.physical_rows,
                       "files": [df.path for df in f.metadata.files],
                       "deletion_file": None if f.metadata.deletion_file is None
                       else {"type": f.metadata.deletion_file.file_type,
                             "num_deleted_rows": f.metadata.deletion_file.num_deleted_rows}}
                      for f in ds.get_fragments()],
        "files": files,
        "rows": table_to_rows(latest),
    }
    if extra:
        out.update(extra)
    with open(os.path.join(os.path.dirname(root), name + ".expected.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


def fresh(out, name):
    root = os.path.join(out, name + ".lance")
    shutil.rmtree(root, ignore_errors=True)
    return root


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.dirname(HERE)), "data", "legacy")
    os.makedirs(out, exist_ok=True)

    # Every type pylance writes in legacy files, nulls everywhere, 2 fragments of
    # several batches (7 rows each).
    root = fresh(out, "all_types")
    lance.write_dataset(all_types_table(40, 1), root, data_storage_version=LEGACY,
                        max_rows_per_group=7, max_rows_per_file=21)
    dump_expected(root, "all_types")

    # Deletions in two fragments (an appended one too), Arrow deletion files.
    root = fresh(out, "deletions")
    base = pa.table({"x": pa.array(range(100), pa.int64()),
                     "s": pa.array(["row-%d" % i for i in range(100)])})
    lance.write_dataset(base, root, data_storage_version=LEGACY, max_rows_per_group=16)
    more = pa.table({"x": pa.array(range(100, 130), pa.int64()),
                     "s": pa.array(["row-%d" % i for i in range(100, 130)])})
    lance.write_dataset(more, root, mode="append", max_rows_per_group=16)
    ds = lance.dataset(root)
    ds.delete("(x >= 10 AND x < 20) OR x % 10 = 3")
    dump_expected(root, "deletions")

    # Several data files per fragment: add_columns writes one more legacy file per
    # fragment; the second one starts with a struct (its page table starts at the
    # struct's id, which has no pages).
    root = fresh(out, "add_columns")
    base = pa.table({"id": pa.array(range(30), pa.int64()),
                     "name": pa.array(["n%d" % i if i % 4 else "" for i in range(30)])})
    lance.write_dataset(base, root, data_storage_version=LEGACY, max_rows_per_group=8,
                        max_rows_per_file=16)
    ds = lance.dataset(root)
    ds.add_columns({"tripled": "id * 3"})

    def extra(batch):
        ids = batch.column("id").to_pylist()
        st = pa.array([{"p": i % 5, "q": "q%d" % i} for i in ids],
                      pa.struct([("p", pa.int32()), ("q", pa.string())]))
        tags = pa.array([["t"] * (i % 3) for i in ids], pa.list_(pa.string()))
        return pa.RecordBatch.from_arrays([st, tags], names=["info", "tags"])

    ds = lance.dataset(root)
    ds.add_columns(extra, read_columns=["id"])
    ds = lance.dataset(root)
    ds.delete("id = 5")
    dump_expected(root, "add_columns")

    # Types the reader once refused (all read now): one tiny dataset each.
    for name, (make, logical) in UNSUPPORTED.items():
        root = fresh(out, "unsupported_" + name)
        table = pa.table({"id": pa.array([0, 1, 2], pa.int64()), "x": make()})
        lance.write_dataset(table, root, data_storage_version=LEGACY)
        dump_expected(root, "unsupported_" + name, {"unsupported": logical})


if __name__ == "__main__":
    main()
