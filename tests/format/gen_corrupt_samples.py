# SPDX-License-Identifier: Apache-2.0
"""Writes the pylance-made sample files of the bad-input corpus (tests/format/corrupt_test.cc).

    .venv/bin/python tests/format/gen_corrupt_samples.py [OUT_DIR]

Two small data files, written by real pylance 14.0.2's LanceFileWriter in file format 2.1
and 2.2, whose columns make pylance choose every structural layout and most compressions:
bit-packed sorted integers, RLE runs, dictionary strings, FSST strings, values over 32 KiB
(full-zip, per-value zstd), constant and all-null columns, nullable structs, lists of
structs with null and empty lists, fixed-size lists, booleans and (2.2) a map. 2,500 rows, so
mini-block pages have several chunks and a repetition index. The test damages these bytes;
it only needs them to be valid Lance files (it reads them once intact to make sure).
"""
import os
import random
import sys

import pyarrow as pa
from lance.file import LanceFileWriter

ROWS = 2500


def table():
    rnd = random.Random(2026)
    words = ["alpha", "beta", "gamma", "delta", "epsilon"]
    urls = [f"https://ex.com/{rnd.randrange(10**4)}?p={i % 17}"
            for i in range(ROWS)]
    big = [None] * ROWS
    for i in (5, 1700):
        big[i] = (b"lance-" * 7000) + bytes([i % 251])
    lists = []
    for i in range(ROWS):
        r = i % 7
        if r == 0:
            lists.append(None)
        elif r == 1:
            lists.append([])
        else:
            lists.append([{"a": i * 10 + k if k % 3 else None, "b": words[k % 5]}
                          for k in range(r)])
    structs = [None if i % 11 == 0 else {"x": i, "y": None if i % 5 == 0 else float(i)}
               for i in range(ROWS)]
    return pa.table({
        "sorted": pa.array(range(ROWS), pa.int64()),
        "small": pa.array([rnd.randrange(16) if i % 9 else None for i in range(ROWS)],
                          pa.uint8()),
        "runs": pa.array([i // 400 for i in range(ROWS)], pa.int32()),
        "words": pa.array([words[rnd.randrange(5)] if i % 13 else None
                           for i in range(ROWS)]),
        "urls": pa.array(urls),
        "big": pa.array(big, pa.binary()),
        "const": pa.array([42] * ROWS, pa.int16()),
        "nulls": pa.array([None] * ROWS, pa.float32()),
        "flags": pa.array([i % 3 == 0 for i in range(ROWS)]),
        "s": pa.array(structs, pa.struct([("x", pa.int32()), ("y", pa.float64())])),
        "l": pa.array(lists, pa.list_(pa.struct([("a", pa.int64()), ("b", pa.string())]))),
        "v": pa.array([[float(i + k) for k in range(3)] for i in range(ROWS)],
                      pa.list_(pa.float32(), 3)),
        "m": pa.array([[("k%d" % (i % 4), i)] if i % 6 else None for i in range(ROWS)],
                      pa.map_(pa.string(), pa.int32())),
    })


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "data", "pylance-14")
    os.makedirs(out, exist_ok=True)
    t = table()
    for version in ("2.1", "2.2"):
        path = os.path.join(out, f"corrupt_sample_v{version.replace('.', '')}.lance")
        if os.path.exists(path):
            os.remove(path)
        # Maps are 2.2 only in pylance.
        data = t if version != "2.1" else t.drop_columns(["m"])
        with LanceFileWriter(path, data.schema, version=version) as writer:
            writer.write_batch(data)
        print(path, os.path.getsize(path))


if __name__ == "__main__":
    main()
