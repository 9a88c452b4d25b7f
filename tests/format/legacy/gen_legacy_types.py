# SPDX-License-Identifier: Apache-2.0
"""Writes the legacy test datasets of dictionary and null columns under tests/data/legacy/.

    .venv/bin/python tests/format/legacy/gen_legacy_types.py [OUT_DIR]

Like gen_legacy_data.py (whose dump_expected writes <name>.expected.json, rows as pylance
14.0.2 reads them), plus "arrow_types": each column's Arrow type in pylance's dataset
schema, which is also the type pylance's to_table returns.

What legacy files hold for these types (see src/format/legacy/legacy_file.h):

  dictionary  the indices, plain, without validity: a null row keeps the index Arrow had
              under it (0 for arrays pyarrow builds) and reads back as that value. The
              values are stored once per file, those of the first batch of the write.
              Empty string / binary values read back as nulls.
  null        pages with a length and no bytes.

dictionary_bad_keys is a dataset pylance writes but cannot read: a table whose chunks carry
different dictionaries. Only the first one is stored, so later indices point past it. Its
expected.json records the files and "unreadable" (pylance's error) instead of rows.
"""
import json
import os
import sys

import pyarrow as pa

import lance

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gen_legacy_data import LEGACY, dump_expected, fresh  # noqa: E402


def arrow_types(root):
    return {f.name: str(f.type) for f in lance.dataset(root).schema}


def indexed(n, index, index_type, values):
    """A dictionary array of n rows: row i is values[index(i)], the indices index_type."""
    return pa.DictionaryArray.from_arrays(pa.array([index(i) for i in range(n)], index_type),
                                          values)


def dictionary_table():
    n = 20
    words = ["apple", "kiwi", None, "fig", "apple", "", "kiwi"]
    values = [words[(i * 3) % len(words)] for i in range(n)]
    # Row 0 is null too: like every null row it is stored as index 0 ("fig", the first
    # value dictionary_encode meets) and reads back as "fig".
    values[0] = None
    d = pa.array(values, pa.string()).dictionary_encode()
    # A dictionary that holds a null and an empty value itself: both read as null.
    holes = indexed(n, lambda i: (i * 5) % 4, pa.int16(),
                    pa.array(["p", None, "", "q"], pa.string()))
    # Other index and value types Lance writes: int8 over binary, uint32 over
    # large_string, int64 over int64 values, uint8 over uint16 values.
    small = indexed(n, lambda i: i % 3, pa.int8(), pa.array([b"\x00\x01", b"z", b"yy"]))
    large = indexed(n, lambda i: (i * 7) % 2, pa.uint32(),
                    pa.array(["long-" * 3, "x"], pa.large_string()))
    ints = pa.array([None if i % 6 == 1 else (i % 4) * 1000 - 1500 for i in range(n)],
                    pa.int64()).dictionary_encode()
    u16 = indexed(n, lambda i: (i * 3) % 5, pa.uint8(),
                  pa.array([0, 65535, 7, 300, 1], pa.uint16()))
    # Nested: a struct with a dictionary child, a list of dictionary items.
    st = pa.StructArray.from_arrays(
        [pa.array([["u", "v", None][i % 3] for i in range(n)]).dictionary_encode(),
         pa.array(range(n), pa.int32())], names=["d", "i"])
    lst = pa.array([[["m", "n"][(i + k) % 2] for k in range(i % 3)] for i in range(n)],
                   pa.list_(pa.dictionary(pa.int32(), pa.string())))
    fields = [
        pa.field("id", pa.int64(), nullable=False),
        pa.field("d", d.type),
        pa.field("holes", holes.type),
        pa.field("small", small.type),
        pa.field("large", large.type),
        pa.field("ints", ints.type),
        pa.field("u16", u16.type),
        # Non-nullable, without empty values (an empty one would make pylance's own
        # reads fail: it reads it as a null).
        pa.field("d_nn", d.type, nullable=False),
        pa.field("st", st.type),
        pa.field("lst", lst.type),
    ]
    d_nn = pa.array([["r", "s", "t"][i % 3] for i in range(n)]).dictionary_encode()
    return pa.Table.from_arrays(
        [pa.array(range(n), pa.int64()), d, holes, small, large, ints, u16, d_nn, st, lst],
        schema=pa.schema(fields))


def null_table():
    n = 11
    return pa.table({
        "id": pa.array(range(n), pa.int64()),
        "n": pa.nulls(n),
        "st": pa.StructArray.from_arrays([pa.nulls(n), pa.array(range(n), pa.int32())],
                                         names=["z", "i"]),
        "l": pa.array([[None] * (i % 3) for i in range(n)], pa.list_(pa.null())),
    })


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.dirname(HERE)), "data", "legacy")
    os.makedirs(out, exist_ok=True)

    # 20 rows: a file of 3 batches of 4 rows, a file of 2.
    root = fresh(out, "dictionary")
    lance.write_dataset(dictionary_table(), root, data_storage_version=LEGACY,
                        max_rows_per_group=4, max_rows_per_file=12)
    dump_expected(root, "dictionary", {"arrow_types": arrow_types(root)})

    root = fresh(out, "null_type")
    lance.write_dataset(null_table(), root, data_storage_version=LEGACY,
                        max_rows_per_group=4)
    dump_expected(root, "null_type", {"arrow_types": arrow_types(root)})

    # Chunks with their own dictionaries: batch 1's index 2 is past the stored ["a", "b"].
    root = fresh(out, "dictionary_bad_keys")
    chunks = pa.chunked_array([pa.array(["a", "b", None, "a"]).dictionary_encode(),
                               pa.array(["z", "y", "x"]).dictionary_encode()])
    lance.write_dataset(pa.table({"x": chunks}), root, data_storage_version=LEGACY,
                        max_rows_per_group=4)
    ds = lance.dataset(root)
    try:
        ds.to_table()
        raise SystemExit("pylance read dictionary_bad_keys: the dataset no longer shows "
                         "what it is meant to")
    except Exception as e:  # noqa: BLE001 (pyarrow.ArrowInvalid)
        error = str(e)
    files = []
    for frag in ds.get_fragments():
        for df in frag.metadata.files:
            files.append({"path": "data/" + df.path, "field_ids": list(df.fields),
                          "num_rows": frag.metadata.physical_rows})
    with open(os.path.join(out, "dictionary_bad_keys.expected.json"), "w") as f:
        json.dump({"dataset": "dictionary_bad_keys", "files": files,
                   "unreadable": error.split(",")[0],
                   "arrow_types": arrow_types(root)}, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
