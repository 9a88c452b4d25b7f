# SPDX-License-Identifier: Apache-2.0
"""The file format 2.1 / 2.2 matrix: seeded tables over every Arrow type Lance stores, and
the datasets real Lance writes from them.

    .venv/bin/python tests/interop/matrix_gen.py --out DIR [--seed N] [--no-node]

writes, for every spec of ``SPECS``:

  DIR/pylance-2.1/<spec>.lance   pylance 14.0.2, data_storage_version="2.1"
  DIR/pylance-2.2/<spec>.lance   pylance 14.0.2, data_storage_version="2.2"
  DIR/node-2.1/<spec>.lance      LanceDB-node 0.31.0 (Lance 8.0.0) with its default file
                                 version (2.1), through tools/oracle/writematrix.cjs,
                                 without the columns it cannot write (NODE_UNSUPPORTED)

and DIR/matrix.json describing them. Each dataset is written with the spec's
``max_rows_per_file`` (several fragments; LanceDB-node: one ``add`` per fragment), then
the spec's ``deletes`` are applied one by one (one version each, so version 1 is the data
without deletions). pylance leaves ``.arrow`` deletion files for up to 5000 deleted rows in
a fragment and ``.bin`` (roaring) ones above; a predicate covering a whole fragment drops
it from the manifest.

Every table has a non-null int64 ``rid`` (0..n-1 in write order) and a low-cardinality
``tag`` string, and every nullable column has nulls unless its name says otherwise
(``*_nonull``, declared non-nullable). The tests import this module: ``build_specs(seed)``
gives the tables (cheap), ``generate(out, seed)`` writes the datasets (seconds).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import shutil
import sys
import time
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence

import numpy as np
import pyarrow as pa

from node_jobs import NodeJobs

DEFAULT_SEED = 2122
VERSIONS = ("2.1", "2.2")
SOURCE_DIR = Path(os.environ.get("LANCE_SOURCE_DIR", Path(__file__).resolve().parents[2]))
ORACLE_DIR = Path(os.environ.get("LANCE_ORACLE_DIR", SOURCE_DIR / "tools" / "oracle"))
WRITEMATRIX_JS = ORACLE_DIR / "writematrix.cjs"

# Lance's encoding hints (lance-encoding 14.0.2, src/constants.rs): field metadata keys.
COMPRESSION = "lance-encoding:compression"
COMPRESSION_LEVEL = "lance-encoding:compression-level"
RLE_THRESHOLD = "lance-encoding:rle-threshold"
MINICHUNK_SIZE = "lance-encoding:minichunk-size"
DICT_DIVISOR = "lance-encoding:dict-divisor"
DICT_SIZE_RATIO = "lance-encoding:dict-size-ratio"
DICT_VALUES_COMPRESSION = "lance-encoding:dict-values-compression"
PACKED = "lance-encoding:packed"
STRUCTURAL = "lance-encoding:structural-encoding"
BSS = "lance-encoding:bss"


@dataclass
class Spec:
    """One matrix table and how real Lance is asked to write it."""

    name: str
    table: pa.Table
    max_rows_per_file: int
    # Filters the read tests run (one on an int column, one on a string column).
    int_filter: str
    str_filter: str
    deletes: Sequence[str] = ()
    # pylance only: feed the writer batches of this many rows and give it this page cache
    # (bytes for all columns; pages are cut when a column's share fills), for many pages.
    batch_rows: Optional[int] = None
    data_cache_bytes: Optional[int] = None
    # Writers that get this spec (the hint specs are pylance-only: LanceDB-node passes
    # field metadata through, but Lance 8.0.0's hints are not 14.0.2's).
    writers: Sequence[str] = ("pylance", "node")
    # The file versions pylance writes it in, and the one LanceDB-node is asked for (None:
    # its default, 2.1). Maps exist from 2.2 on only.
    versions: Sequence[str] = VERSIONS
    node_version: Optional[str] = None
    # pylance only: after the first write, append the table once more asking for this file
    # version (pylance 14 then writes the new fragments in it: one dataset, two versions).
    append_version: Optional[str] = None
    # What the spec is for, shown in matrix.json.
    about: str = ""

    @property
    def num_rows(self) -> int:
        return self.table.num_rows

    def reader(self) -> pa.RecordBatchReader:
        """The table as pylance is given it: small batches when the spec asks for them."""
        batches = self.table.to_batches(max_chunksize=self.batch_rows or self.num_rows or 1)
        return pa.RecordBatchReader.from_batches(self.table.schema, batches)

    def pylance_kwargs(self) -> Dict[str, Any]:
        kwargs: Dict[str, Any] = {"max_rows_per_file": self.max_rows_per_file}
        if self.data_cache_bytes:
            kwargs["data_cache_bytes"] = self.data_cache_bytes
        return kwargs


# -- value generators -----------------------------------------------------------------------


class Gen:
    """numpy-backed random columns (fast enough for tens of thousands of rows)."""

    def __init__(self, seed: int, name: str):
        self.rng = np.random.default_rng([seed, zlib.crc32(name.encode())])

    def mask(self, n: int, p: float = 0.1) -> np.ndarray:
        """True where the value is null."""
        return self.rng.random(n) < p

    @staticmethod
    def _validity(mask: Optional[np.ndarray], n: int) -> Optional[pa.Buffer]:
        if mask is None or not mask.any():
            return None
        return pa.py_buffer(np.packbits(~mask, bitorder="little").tobytes())

    def ints(self, t: pa.DataType, n: int, lo: Optional[int] = None, hi: Optional[int] = None,
             sort: bool = False, null_p: float = 0.1) -> pa.Array:
        """Uniform integers in [lo, hi] (default: the whole range of t)."""
        dtype = np.dtype(t.to_pandas_dtype())
        info = np.iinfo(dtype)
        lo = info.min if lo is None else lo
        hi = info.max if hi is None else hi
        values = self.rng.integers(lo, hi, size=n, dtype=dtype, endpoint=True)
        if sort:
            values.sort()
        mask = self.mask(n, null_p) if null_p else None
        return pa.array(values, type=t, mask=mask)

    def floats(self, t: pa.DataType, n: int, null_p: float = 0.1,
               specials: bool = True) -> pa.Array:
        dtype = np.dtype(t.to_pandas_dtype())
        values = (self.rng.standard_normal(n) * 1000.0).astype(dtype)
        if specials and n >= 16:
            finfo = np.finfo(dtype)
            special = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, finfo.max, finfo.min,
                                finfo.tiny, finfo.smallest_subnormal], dtype=dtype)
            at = self.rng.choice(n, size=len(special) * 3, replace=False)
            values[at] = np.tile(special, 3)
            # A NaN with a payload: bit patterns must survive, not just "a NaN".
            bits = values.view(np.dtype(f"u{dtype.itemsize}"))
            bits[at[0]] = bits[at[0]] | 1
        mask = self.mask(n, null_p) if null_p else None
        return pa.array(values, type=t, mask=mask)

    def decimals(self, t: pa.DataType, n: int, null_p: float = 0.1) -> pa.Array:
        """Random unscaled values within the type's precision, built from limbs."""
        width = t.byte_width
        limbs = width // 8
        top_bits = int(t.precision * 3.3219) - 64 * (limbs - 1) - 2
        if top_bits <= 0:
            # precision <= 18: one int64 limb in range, sign-extended.
            bound = 10 ** t.precision - 1
            low = self.rng.integers(-bound, bound, size=n, dtype=np.int64, endpoint=True)
            parts = [low.view(np.uint64)] + [np.where(low < 0, np.uint64(2**64 - 1),
                                                       np.uint64(0))] * (limbs - 1)
        else:
            parts = [self.rng.integers(0, 2**64 - 1, size=n, dtype=np.uint64, endpoint=True)
                     for _ in range(limbs - 1)]
            top = self.rng.integers(-(2 ** top_bits), 2 ** top_bits, size=n, dtype=np.int64)
            parts.append(top.view(np.uint64))
        data = np.stack(parts, axis=1).astype("<u8").tobytes()
        mask = self.mask(n, null_p)
        arr = pa.Array.from_buffers(t, n, [self._validity(mask, n), pa.py_buffer(data)])
        arr.validate(full=True)
        return arr

    def temporal(self, t: pa.DataType, n: int, lo: int, hi: int, step: int = 1,
                 null_p: float = 0.1) -> pa.Array:
        storage = pa.int64() if t.bit_width == 64 else pa.int32()
        values = self.rng.integers(lo // step, hi // step, size=n, dtype=np.int64) * step
        mask = self.mask(n, null_p)
        return pa.array(values.astype(storage.to_pandas_dtype()), type=storage,
                        mask=mask).cast(t)

    def words(self, n: int, card: int, null_p: float = 0.1, prefix: str = "w",
              empty_p: float = 0.02) -> List[Optional[str]]:
        """Strings drawn from `card` distinct values (some empty), with nulls."""
        pool = [f"{prefix}{i}" * (1 + i % 3) for i in range(card)]
        picks = self.rng.integers(0, card, size=n)
        nulls = self.mask(n, null_p)
        empty = self.mask(n, empty_p)
        return [None if nulls[i] else ("" if empty[i] else pool[picks[i]]) for i in range(n)]

    def texts(self, n: int, max_len: int = 40, null_p: float = 0.1,
              alphabet: str = "abcdefghijklmnopqrstuvwxyz0123456789 _-/.") -> List[Optional[str]]:
        """High-cardinality strings of random length (0 included)."""
        lengths = self.rng.integers(0, max_len, size=n, endpoint=True)
        chars = np.array(list(alphabet))
        flat = chars[self.rng.integers(0, len(chars), size=int(lengths.sum()))]
        nulls = self.mask(n, null_p)
        out: List[Optional[str]] = []
        pos = 0
        for i in range(n):
            piece = "".join(flat[pos:pos + lengths[i]])
            pos += lengths[i]
            out.append(None if nulls[i] else piece)
        return out

    def blobs(self, n: int, max_len: int = 40, null_p: float = 0.1) -> List[Optional[bytes]]:
        lengths = self.rng.integers(0, max_len, size=n, endpoint=True)
        raw = self.rng.integers(0, 256, size=int(lengths.sum()), dtype=np.uint8).tobytes()
        nulls = self.mask(n, null_p)
        out: List[Optional[bytes]] = []
        pos = 0
        for i in range(n):
            out.append(None if nulls[i] else raw[pos:pos + lengths[i]])
            pos += lengths[i]
        return out

    def offsets(self, n: int, max_len: int, null_p: float = 0.1, empty_p: float = 0.1):
        """(offsets int32, mask) of n lists: nulls and empty lists both present, null
        lists zero-length."""
        lengths = self.rng.integers(1, max_len, size=n, endpoint=True)
        nulls = self.mask(n, null_p)
        empty = self.mask(n, empty_p)
        lengths[nulls | empty] = 0
        offsets = np.zeros(n + 1, dtype=np.int32)
        np.cumsum(lengths, out=offsets[1:])
        return offsets, (nulls if null_p else None)


def _list(offsets: np.ndarray, mask, values: pa.Array, large: bool = False) -> pa.Array:
    cls = pa.LargeListArray if large else pa.ListArray
    off = pa.array(offsets.astype(np.int64 if large else np.int32))
    return cls.from_arrays(off, values, mask=pa.array(mask) if mask is not None else None)


def _struct(children: Dict[str, pa.Array], mask=None,
            nullable: Optional[Dict[str, bool]] = None) -> pa.Array:
    fields = [pa.field(k, v.type, nullable=(nullable or {}).get(k, True))
              for k, v in children.items()]
    return pa.StructArray.from_arrays(list(children.values()), fields=fields,
                                      mask=pa.array(mask) if mask is not None else None)


def _fsl(values: pa.Array, size: int, mask=None) -> pa.Array:
    return pa.FixedSizeListArray.from_arrays(
        values, size, mask=pa.array(mask) if mask is not None else None)


def _table(columns: Dict[str, pa.Array], nonnull: Sequence[str] = (),
           metadata: Optional[Dict[str, Dict[str, str]]] = None,
           schema_metadata: Optional[Dict[str, str]] = None) -> pa.Table:
    fields = []
    for name, arr in columns.items():
        f = pa.field(name, arr.type, nullable=name not in nonnull)
        if metadata and name in metadata:
            f = f.with_metadata(metadata[name])
        fields.append(f)
    schema = pa.schema(fields, metadata=schema_metadata)
    table = pa.Table.from_arrays(list(columns.values()), schema=schema)
    table.validate(full=True)
    return table


def _base(g: Gen, n: int) -> Dict[str, pa.Array]:
    return {"rid": pa.array(np.arange(n, dtype=np.int64)),
            "tag": pa.array(g.words(n, 5, prefix="t", null_p=0.05), pa.string())}


INT_TYPES = [pa.int8(), pa.int16(), pa.int32(), pa.int64(),
             pa.uint8(), pa.uint16(), pa.uint32(), pa.uint64()]


# -- the specs ------------------------------------------------------------------------------

Columns = Dict[str, pa.Array]


def _spec(name: str, n: int, nonnull: Sequence[str] = ("rid",),
          data_cache_bytes_per_column: Optional[int] = None, **spec_args: Any):
    """Declares the builder of Spec `name` (called with the seed): the decorated
    fn(g, c, n) adds the spec's columns to `c`, the _base columns of `n` rows (`g`: the
    generator of `name` and the seed), and returns _table's further arguments (field and
    schema metadata), if any. `nonnull` names the non-nullable columns; the other
    arguments are Spec's, its page cache given per column."""
    def decorate(columns: Callable[[Gen, Columns, int], Optional[Dict[str, Any]]]):
        @functools.wraps(columns)
        def build(seed: int) -> Spec:
            g = Gen(seed, name)
            c = _base(g, n)
            table = _table(c, nonnull=list(nonnull), **(columns(g, c, n) or {}))
            cache = {} if data_cache_bytes_per_column is None else {
                "data_cache_bytes": len(c) * data_cache_bytes_per_column}
            return Spec(name, table, **spec_args, **cache)
        return build
    return decorate


@_spec("primitives", 24_000,
       nonnull=["rid", "bool_nonull", "int64_nonull", "const_int64_nonull",
                "const_bool_nonull"],
       max_rows_per_file=10_000,
       int_filter="int32_rand > 0", str_filter="tag = 't1t1'",
       deletes=["rid % 3 = 0 AND rid < 10000",            # 3334 rows: .arrow
                "rid >= 10000 AND rid < 20000 AND rid % 5 != 0"],  # 8000: .bin
       about="every primitive type, sorted/random ints of every type, float "
             "specials, constant and all-null columns; 3 fragments")
def spec_primitives(g: Gen, c: Columns, n: int) -> None:
    c["bool"] = pa.array(g.rng.random(n) < 0.3, mask=g.mask(n))
    c["bool_nonull"] = pa.array(g.rng.random(n) < 0.5)
    for t in INT_TYPES:
        c[f"{t}_sorted"] = g.ints(t, n, sort=True)
        c[f"{t}_rand"] = g.ints(t, n)
    c["int64_nonull"] = g.ints(pa.int64(), n, -1000, 1000, null_p=0)
    c["int32_runs"] = pa.array(np.repeat(g.rng.integers(-5, 5, size=n // 200 + 1,
                                                         dtype=np.int32), 200)[:n],
                               mask=g.mask(n, 0.02))
    c["float16"] = g.floats(pa.float16(), n)
    c["float32"] = g.floats(pa.float32(), n)
    c["float64"] = g.floats(pa.float64(), n)
    c["float64_sorted"] = pa.array(np.sort(g.rng.random(n)) * 100, mask=g.mask(n))
    c["decimal128_9_2"] = g.decimals(pa.decimal128(9, 2), n)
    c["decimal128_38_10"] = g.decimals(pa.decimal128(38, 10), n)
    c["decimal256_60_12"] = g.decimals(pa.decimal256(60, 12), n)
    c["date32"] = g.temporal(pa.date32(), n, -100_000, 100_000)
    c["date64"] = g.temporal(pa.date64(), n, -10**13, 10**13, step=86_400_000)
    c["time32_s"] = g.temporal(pa.time32("s"), n, 0, 86_400)
    c["time32_ms"] = g.temporal(pa.time32("ms"), n, 0, 86_400_000)
    c["time64_us"] = g.temporal(pa.time64("us"), n, 0, 86_400 * 10**6)
    c["time64_ns"] = g.temporal(pa.time64("ns"), n, 0, 86_400 * 10**9)
    for unit, span in (("s", 10**11), ("ms", 10**14), ("us", 10**17), ("ns", 10**18)):
        c[f"ts_{unit}"] = g.temporal(pa.timestamp(unit), n, -span, span)
    c["ts_us_utc"] = g.temporal(pa.timestamp("us", tz="UTC"), n, -10**17, 10**17)
    c["ts_ns_ny"] = g.temporal(pa.timestamp("ns", tz="America/New_York"), n, 0, 10**18)
    c["ts_ms_offset"] = g.temporal(pa.timestamp("ms", tz="+05:30"), n, 0, 10**13)
    for unit in ("s", "ms", "us", "ns"):
        c[f"duration_{unit}"] = g.temporal(pa.duration(unit), n, -10**12, 10**12)
    c["fsb16"] = pa.array([None if m else bytes(g.rng.integers(0, 256, 16, dtype=np.uint8))
                           for m in g.mask(n)], pa.binary(16))
    c["fsb3"] = pa.array([None if m else bytes(g.rng.integers(0, 4, 3, dtype=np.uint8))
                          for m in g.mask(n)], pa.binary(3))
    c["null"] = pa.nulls(n, pa.null())
    c["all_null_int32"] = pa.nulls(n, pa.int32())
    c["all_null_float64"] = pa.nulls(n, pa.float64())
    c["const_int64_nonull"] = pa.array(np.full(n, 1234567890123, dtype=np.int64))
    c["const_float32"] = pa.array(np.full(n, 2.5, dtype=np.float32), mask=g.mask(n, 0.05))
    c["const_bool_nonull"] = pa.array(np.ones(n, dtype=bool))


@_spec("widths", 5_000, max_rows_per_file=3_000,
       int_filter="int32_w17 < 0", str_filter="tag <> 't2'",
       about="every bit width of every integer type; odd widths with nulls")
def spec_widths(g: Gen, c: Columns, n: int) -> None:
    """Bit-packing at every width of every integer type (0 = all zeros)."""
    for t in INT_TYPES:
        bits = t.bit_width
        signed = pa.types.is_signed_integer(t)
        for w in range(0 if not signed else 1, bits + 1):
            if signed:
                lo, hi = -(2 ** (w - 1)), 2 ** (w - 1) - 1
            else:
                lo, hi = 0, 2 ** w - 1
            c[f"{t}_w{w}"] = g.ints(t, n, lo, hi, null_p=0.1 if w % 2 else 0.0)


@_spec("strings", 30_000, nonnull=["rid", "str_nonull"], max_rows_per_file=12_000,
       int_filter="rid % 7 = 3", str_filter="str_low = 'w3w3w3' OR str_high LIKE 'a%'",
       deletes=["rid % 11 = 0"],
       about="string/binary, large and small, low and high cardinality, empty "
             "strings, constant, all-null, dictionary<int32, string>")
def spec_strings(g: Gen, c: Columns, n: int) -> None:
    low = g.words(n, 20)
    high = g.texts(n)
    c["str_low"] = pa.array(low, pa.string())
    c["str_high"] = pa.array(high, pa.string())
    c["lstr_low"] = pa.array(low, pa.large_string())
    c["lstr_high"] = pa.array(g.texts(n, 60), pa.large_string())
    c["str_urls"] = pa.array([None if s is None else f"https://example.com/{s}/index.html"
                              for s in g.texts(n, 20)], pa.string())
    c["str_unicode"] = pa.array([None if s is None else s.replace("a", "ä").replace("b", "💡")
                                 for s in g.texts(n, 12)], pa.string())
    c["str_nonull"] = pa.array([s or "" for s in g.texts(n, 10, null_p=0)], pa.string())
    c["str_const"] = pa.array(["the same value"] * n, pa.string())
    c["str_empty"] = pa.array([""] * n, pa.string())
    c["str_all_null"] = pa.nulls(n, pa.string())
    blobs_low = [None if i is None else i.encode() for i in g.words(n, 8, prefix="\x00b")]
    c["bin_low"] = pa.array(blobs_low, pa.binary())
    c["bin_high"] = pa.array(g.blobs(n), pa.binary())
    c["lbin_low"] = pa.array(blobs_low, pa.large_binary())
    c["lbin_high"] = pa.array(g.blobs(n, 30), pa.large_binary())
    idx = g.ints(pa.int32(), n, 0, 9)
    c["dict_str"] = pa.DictionaryArray.from_arrays(
        idx, pa.array([f"category-{i}" for i in range(10)]))


@_spec("bigvalues", 45, max_rows_per_file=20, batch_rows=4,
       data_cache_bytes_per_column=200 * 1024,
       int_filter="rid > 10", str_filter="big_str = ''",
       deletes=["rid = 3 OR rid = 44"],
       about="string/binary/large_binary values of 70-130 KiB among small, empty "
             "and null ones; several pages per column (pylance)")
def spec_bigvalues(g: Gen, c: Columns, n: int) -> None:
    """Values over 64 KiB, next to small, empty and null ones."""
    sizes = [70_000 + int(x) for x in g.rng.integers(0, 60_000, size=n)]
    kind = np.arange(n) % 5        # 0, 1: big; 2: small; 3: empty; 4: null
    text, blob, lblob = [], [], []
    for i in range(n):
        if kind[i] == 4:
            text.append(None), blob.append(None), lblob.append(None)
        elif kind[i] == 3:
            text.append(""), blob.append(b""), lblob.append(b"")
        elif kind[i] == 2:
            text.append(f"small {i}"), blob.append(bytes([i])), lblob.append(b"s" * i)
        else:
            text.append(("lorem ipsum %d " % i) * (sizes[i] // 14))
            blob.append(g.rng.integers(0, 256, sizes[i], dtype=np.uint8).tobytes())
            lblob.append(bytes(range(256)) * (sizes[i] // 256))
    c["big_str"] = pa.array(text, pa.string())
    c["big_bin"] = pa.array(blob, pa.binary())
    c["big_lbin"] = pa.array(lblob, pa.large_binary())


@_spec("vectors", 2_000, nonnull=["rid", "vec768_nonull", "fsl_i64_2"],
       max_rows_per_file=800, batch_rows=100,
       data_cache_bytes_per_column=1024 * 1024,
       int_filter="rid >= 1500", str_filter="tag = 't0'",
       deletes=["rid % 4 = 1"],
       about="fixed_size_list<float32, 768> vectors (with and without nulls), small "
             "FSLs with null items, FSL of FSL; several pages per vector column "
             "(pylance)")
def spec_vectors(g: Gen, c: Columns, n: int) -> None:
    vec = g.rng.standard_normal(n * 768).astype(np.float32)
    c["vec768"] = _fsl(pa.array(vec), 768, mask=g.mask(n, 0.05))
    c["vec768_nonull"] = _fsl(pa.array(g.rng.random(n * 768).astype(np.float32)), 768)
    c["fsl_f16_8"] = _fsl(g.floats(pa.float16(), n * 8, null_p=0, specials=False), 8,
                          mask=g.mask(n))
    c["fsl_i32_3_null_items"] = _fsl(g.ints(pa.int32(), n * 3, -100, 100, null_p=0.2), 3,
                                     mask=g.mask(n))
    c["fsl_i64_2"] = _fsl(g.ints(pa.int64(), n * 2, null_p=0), 2)
    c["fsl_bool_5"] = _fsl(pa.array(g.rng.random(n * 5) < 0.5, mask=g.mask(n * 5)), 5,
                           mask=g.mask(n))
    c["fsl_fsl_u8"] = _fsl(_fsl(g.ints(pa.uint8(), n * 6, null_p=0), 2), 3, mask=g.mask(n))


@_spec("nested", 12_000, nonnull=["rid", "struct_nonull"], max_rows_per_file=5_000,
       int_filter="struct_abc.a > 0", str_filter="struct_abc.b = 'w4w4'",
       deletes=["rid >= 5000 AND rid < 10000",            # fragment 1: dropped
                "rid < 5000 AND rid % 10 <> 0"],          # 4500 rows: .arrow
       about="list/large_list (null vs empty), struct (null structs, nullable and "
             "non-nullable children), list<struct>, struct<list>, list<list>, "
             "struct<struct>, list<fsl>")
def spec_nested(g: Gen, c: Columns, n: int) -> None:
    off, m = g.offsets(n, 6)
    c["list_i32"] = _list(off, m, g.ints(pa.int32(), int(off[-1]), -1000, 1000, null_p=0.1))
    off, m = g.offsets(n, 4)
    c["large_list_str"] = _list(off, m, pa.array(g.words(int(off[-1]), 50), pa.string()),
                                large=True)
    # list<list<int64>>
    off_in, m_in = g.offsets(n * 2, 3)
    inner = _list(off_in, m_in, g.ints(pa.int64(), int(off_in[-1]), null_p=0.05))
    off_out = (np.arange(n + 1) * 2).astype(np.int32)
    m_out = g.mask(n, 0.1)
    off_out2 = np.zeros(n + 1, dtype=np.int32)   # null outer lists take no inner lists
    kept = np.where(m_out, 0, 2)
    np.cumsum(kept, out=off_out2[1:])
    inner = inner.take(pa.array(np.concatenate([np.arange(2 * i, 2 * i + 2)
                                                for i in range(n) if not m_out[i]] or
                                               [np.zeros(0, dtype=np.int64)])))
    c["list_list_i64"] = _list(off_out2, m_out, inner)
    # struct<a: int32, b: string, c: float64 (non-nullable child)>
    c["struct_abc"] = _struct({"a": g.ints(pa.int32(), n),
                               "b": pa.array(g.words(n, 30), pa.string()),
                               "c": g.floats(pa.float64(), n, null_p=0, specials=False)},
                              mask=g.mask(n), nullable={"c": False})
    c["struct_nonull"] = _struct({"x": g.ints(pa.int16(), n),
                                  "y": pa.array(g.rng.random(n) < 0.5)})
    c["struct_struct"] = _struct({"inner": _struct({"v": g.ints(pa.uint32(), n)},
                                                   mask=g.mask(n)),
                                  "w": g.ints(pa.int8(), n)}, mask=g.mask(n))
    # list<struct<x: float64, y: string>>
    off, m = g.offsets(n, 4)
    k = int(off[-1])
    c["list_struct"] = _list(off, m, _struct({"x": g.floats(pa.float64(), k, specials=False),
                                              "y": pa.array(g.words(k, 9), pa.string())},
                                             mask=g.mask(k, 0.05)))
    # struct<tags: list<string>, n: int16>
    off, m = g.offsets(n, 3)
    c["struct_list"] = _struct({"tags": _list(off, m, pa.array(g.words(int(off[-1]), 12),
                                                               pa.string())),
                                "n": g.ints(pa.int16(), n)}, mask=g.mask(n))
    off, m = g.offsets(n, 3)
    c["list_fsl_f32_2"] = _list(off, m, _fsl(g.floats(pa.float32(), int(off[-1]) * 2,
                                                      null_p=0, specials=False), 2))
    c["list_all_empty"] = _list(np.zeros(n + 1, dtype=np.int32), None,
                                pa.array([], pa.int32()))
    c["list_all_null"] = pa.nulls(n, pa.list_(pa.int64()))


@_spec("maps", 8_000, max_rows_per_file=3_000,
       int_filter="struct_map.z > 0", str_filter="tag = 't3t3'",
       deletes=["rid % 6 = 0"],
       versions=("2.2",), node_version="2.2",
       about="map<string, int32> (null and empty maps, null values), "
             "map<int64, struct>, list<map>, struct<map>; 2.2 only")
def spec_maps(g: Gen, c: Columns, n: int) -> None:
    """Maps: file format 2.2 and later only (pylance 14 and Lance 8 refuse them in 2.1)."""

    def map_array(count, key_fn, items, null_p=0.1):
        off, m = g.offsets(count, 4, null_p=null_p)
        k = int(off[-1])
        return pa.MapArray.from_arrays(pa.array(off), key_fn(k), items(k),
                                       mask=pa.array(m) if m is not None else None)

    c["map_si"] = map_array(n, lambda k: pa.array([f"k{i % 7}" for i in range(k)]),
                            lambda k: g.ints(pa.int32(), k, null_p=0.1))
    # (pylance 14 refuses keys_sorted=True: "Unsupported map field with keys_sorted=true".)
    c["map_i64_struct"] = map_array(
        n, lambda k: pa.array(np.arange(k, dtype=np.int64)),
        lambda k: _struct({"a": g.floats(pa.float32(), k, specials=False),
                           "b": pa.array(g.words(k, 5))}, mask=g.mask(k, 0.05)))
    off, m = g.offsets(n, 3)
    c["list_map"] = _list(off, m, map_array(int(off[-1]),
                                            lambda k: pa.array([f"x{i % 3}" for i in range(k)]),
                                            lambda k: pa.array(g.words(k, 4))))
    c["struct_map"] = _struct({"m": map_array(n, lambda k: pa.array([f"y{i % 5}"
                                                                      for i in range(k)]),
                                              lambda k: g.ints(pa.int16(), k)),
                               "z": g.ints(pa.int32(), n)}, mask=g.mask(n))


@_spec("pages", 40_000, max_rows_per_file=25_000, batch_rows=1_000,
       data_cache_bytes_per_column=16 * 1024,
       int_filter="i64_rand < 0 AND u16_small < 100", str_filter="str_low = 'w5w5w5'",
       deletes=["rid % 2 = 0 AND rid < 25000"],           # 12500 rows: .bin
       about="tens of pages per column (pylance only; LanceDB-node writes whole "
             "fragments as one page each)")
def spec_pages(g: Gen, c: Columns, n: int) -> None:
    """Many small pages per column (pylance: 1000-row batches, a small page cache)."""
    c["i64_rand"] = g.ints(pa.int64(), n)
    c["i32_sorted"] = g.ints(pa.int32(), n, sort=True)
    c["u16_small"] = g.ints(pa.uint16(), n, 0, 300)
    c["f64"] = g.floats(pa.float64(), n, specials=False)
    c["bool"] = pa.array(g.rng.random(n) < 0.5, mask=g.mask(n))
    c["str_high"] = pa.array(g.texts(n, 16), pa.string())
    c["str_low"] = pa.array(g.words(n, 12), pa.string())
    off, m = g.offsets(n, 4)
    c["list_i32"] = _list(off, m, g.ints(pa.int32(), int(off[-1]), null_p=0.05))
    c["struct"] = _struct({"a": g.ints(pa.int32(), n), "b": pa.array(g.words(n, 40))},
                          mask=g.mask(n))
    c["fsl_f32_4"] = _fsl(g.floats(pa.float32(), n * 4, null_p=0, specials=False), 4,
                          mask=g.mask(n))


@_spec("hints", 20_000, nonnull=["rid", "struct_packed_nonull"], max_rows_per_file=8_000,
       int_filter="i32_lz4 < 500", str_filter="str_dict_refused = 'w2w2w2'",
       deletes=["rid % 13 = 5"],
       writers=("pylance",),
       about="encoding hints in field metadata: compression zstd/lz4/none (+level), "
             "structural-encoding fullzip/miniblock, bss on/off/auto, rle-threshold, "
             "dict-divisor/dict-size-ratio/dict-values-compression, minichunk-size, "
             "packed structs")
def spec_hints(g: Gen, c: Columns, n: int) -> Dict[str, Any]:
    """Lance's encoding hints in field metadata (pylance only)."""
    md: Dict[str, Dict[str, str]] = {}

    def add(name, arr, meta):
        c[name] = arr
        md[name] = meta

    add("i64_zstd", g.ints(pa.int64(), n, 0, 10**6), {COMPRESSION: "zstd",
                                                      COMPRESSION_LEVEL: "3"})
    add("i32_lz4", g.ints(pa.int32(), n, 0, 1000), {COMPRESSION: "lz4"})
    add("str_zstd", pa.array(g.texts(n, 30)), {COMPRESSION: "zstd"})
    add("str_lz4", pa.array(g.texts(n, 30)), {COMPRESSION: "lz4"})
    add("str_none", pa.array(g.texts(n, 30)), {COMPRESSION: "none"})
    add("str_fullzip", pa.array(g.texts(n, 30)), {STRUCTURAL: "fullzip"})
    add("i32_fullzip", g.ints(pa.int32(), n), {STRUCTURAL: "fullzip"})
    add("lbin_miniblock", pa.array(g.blobs(n, 20), pa.large_binary()), {STRUCTURAL: "miniblock"})
    # Byte stream split only applies together with a general compression.
    add("f32_bss_on", g.floats(pa.float32(), n, specials=False), {BSS: "on", COMPRESSION: "zstd"})
    add("f64_bss_off", pa.array(np.round(g.rng.standard_normal(n), 1), mask=g.mask(n)),
        {BSS: "off", COMPRESSION: "lz4"})
    add("f64_bss_auto", pa.array(np.cumsum(g.rng.random(n))), {BSS: "auto", COMPRESSION: "zstd"})
    add("i32_rle", pa.array(np.repeat(g.rng.integers(0, 4, size=n // 50, dtype=np.int32), 50),
                            mask=g.mask(n, 0.01)), {RLE_THRESHOLD: "1.0", BSS: "off"})
    add("str_dict_forced", pa.array(g.words(n, 2000)), {DICT_DIVISOR: "1",
                                                        DICT_SIZE_RATIO: "1.0"})
    add("str_dict_refused", pa.array(g.words(n, 10)), {DICT_DIVISOR: "100000000"})
    add("str_dict_zstd", pa.array(g.words(n, 50)), {DICT_VALUES_COMPRESSION: "zstd"})
    add("i64_minichunk", g.ints(pa.int64(), n, 0, 5000), {MINICHUNK_SIZE: "512"})
    # Packed structs: fixed-width children without nulls (pylance 14 refuses null children,
    # and variable-width ones before 2.2); the struct itself may be null.
    add("struct_packed", _struct({"a": g.ints(pa.int32(), n, null_p=0),
                                  "b": g.floats(pa.float64(), n, null_p=0, specials=False),
                                  "c": g.ints(pa.uint8(), n, null_p=0),
                                  "d": pa.array([bytes([i % 256, 7, 7, 7]) for i in range(n)],
                                                pa.binary(4))}, mask=g.mask(n)),
        {PACKED: "true"})
    add("struct_packed_nonull", _struct({"x": g.ints(pa.int16(), n, null_p=0),
                                         "y": g.ints(pa.int64(), n, null_p=0)}),
        {PACKED: "true"})
    return {"metadata": md, "schema_metadata": {"matrix": "hints"}}


@_spec("hints22", 6_000, nonnull=["rid", "struct_packed_var"], max_rows_per_file=4_000,
       int_filter="struct_packed_var.id > 0", str_filter="str_zstd_lvl9 LIKE '%a%'",
       writers=("pylance",), versions=("2.2",),
       about="2.2-only hints: packed struct with string/binary children, zstd level 9")
def spec_hints22(g: Gen, c: Columns, n: int) -> Dict[str, Any]:
    """Hints only file format 2.2 takes: a packed struct with a variable-width child."""
    c["struct_packed_var"] = _struct({"id": g.ints(pa.int32(), n, null_p=0),
                                      "name": pa.array([s or "" for s in g.texts(n, 12, 0)]),
                                      "blob": pa.array(g.blobs(n, 6, 0), pa.binary())})
    c["str_zstd_lvl9"] = pa.array(g.texts(n, 50))
    md = {"struct_packed_var": {PACKED: "true"},
          "str_zstd_lvl9": {COMPRESSION: "zstd", COMPRESSION_LEVEL: "9"}}
    return {"metadata": md}


@_spec("mixed", 6_000, max_rows_per_file=4_000,
       int_filter="i64 > 0", str_filter="str_high LIKE '%x%'",
       deletes=["rid % 9 = 0"], writers=("pylance",), versions=("2.1",),
       append_version="2.2",
       about="file format 2.1 dataset whose appended fragments are 2.2 files")
def spec_mixed(g: Gen, c: Columns, n: int) -> None:
    """A 2.1 dataset with fragments in 2.2: pylance appends with data_storage_version="2.2"
    write 2.2 files into a 2.1 dataset."""
    c["i64"] = g.ints(pa.int64(), n, -10**6, 10**6)
    c["f32"] = g.floats(pa.float32(), n)
    c["str_high"] = pa.array(g.texts(n, 20))
    off, m = g.offsets(n, 4)
    c["list_i32"] = _list(off, m, g.ints(pa.int32(), int(off[-1])))
    c["struct"] = _struct({"a": g.ints(pa.int16(), n), "b": pa.array(g.words(n, 7))},
                          mask=g.mask(n))


@_spec("empty", 0, max_rows_per_file=100,
       int_filter="rid > 0", str_filter="tag = 'x'",
       about="a dataset with a schema and no rows")
def spec_empty(g: Gen, c: Columns, n: int) -> None:
    """No rows at all (a schema over several types)."""
    c["f"] = pa.array([], pa.float32())
    c["l"] = pa.array([], pa.list_(pa.string()))
    c["s"] = pa.array([], pa.struct([("a", pa.int8())]))


SPEC_BUILDERS = [spec_primitives, spec_widths, spec_strings, spec_bigvalues, spec_vectors,
                 spec_nested, spec_maps, spec_pages, spec_hints, spec_hints22, spec_mixed,
                 spec_empty]
SPEC_NAMES = [b.__name__[len("spec_"):] for b in SPEC_BUILDERS]


def build_specs(seed: int = DEFAULT_SEED) -> Dict[str, Spec]:
    return {s.name: s for s in (b(seed) for b in SPEC_BUILDERS)}


# -- what LanceDB-node cannot write -----------------------------------------------------------

# Columns left out of the LanceDB-node datasets, and why (found by writing each column
# alone through writematrix.cjs: apache-arrow 18.1.0 for JS reads the IPC file, LanceDB
# 0.31.0 turns it back into Arrow for Lance 8.0.0).
NODE_UNSUPPORTED: Dict[str, Dict[str, str]] = {
    "primitives": {"ts_ms_offset": "Lance 8.0.0 panics writing a timestamp with a fixed-offset "
                                   "time zone ('+05:30'); pylance 14 writes it"},
    "nested": {"large_list_str": "apache-arrow 18.1.0 (JS) cannot decode LargeList "
                                 "(\"Unrecognized type: LargeList (21)\")"},
}


def node_columns(spec: Spec) -> List[str]:
    return [n for n in spec.table.column_names if n not in NODE_UNSUPPORTED.get(spec.name, {})]


# -- writing ----------------------------------------------------------------------------------


def write_ipc(table: pa.Table, path: Path) -> Path:
    """An uncompressed IPC file (apache-arrow for JS reads no compressed bodies)."""
    with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    return path


def write_pylance(spec: Spec, uri: Path, version: str) -> Dict[str, Any]:
    import lance

    ds = lance.write_dataset(spec.reader(), str(uri), data_storage_version=version,
                             **spec.pylance_kwargs())
    if spec.append_version:
        ds = lance.write_dataset(spec.reader(), str(uri), mode="append",
                                 data_storage_version=spec.append_version,
                                 **spec.pylance_kwargs())
    for predicate in spec.deletes:
        ds.delete(predicate)
    return describe(uri)


def describe(uri: Path) -> Dict[str, Any]:
    """What a dataset holds, as pylance sees it (for matrix.json and the tests)."""
    import lance

    ds = lance.dataset(str(uri))
    frags = []
    for f in ds.get_fragments():
        meta = f.metadata
        d = meta.deletion_file
        frags.append({"id": f.fragment_id, "physical_rows": meta.physical_rows,
                      "files": [(df.path, df.file_major_version, df.file_minor_version)
                                for df in meta.files],
                      "deletion": None if d is None else
                      {"type": str(d.file_type), "num_deleted_rows": d.num_deleted_rows}})
    deletion_files = sorted(p.name for p in (uri / "_deletions").glob("*")) \
        if (uri / "_deletions").exists() else []
    return {"uri": str(uri), "version": ds.version,
            "data_storage_version": ds.data_storage_version, "num_rows": ds.count_rows(),
            "fragments": frags, "deletion_files": deletion_files}


def node_uri(out: Path, spec: Spec) -> Path:
    return out / f"node-{spec.node_version or '2.1'}" / f"{spec.name}.lance"


def node_jobs(specs: Sequence[Spec], out: Path, ipc_dir: Path) -> List[Dict[str, Any]]:
    jobs = []
    for spec in specs:
        if "node" not in spec.writers:
            continue
        table = spec.table.select(node_columns(spec))
        files = []
        step = spec.max_rows_per_file
        for i, start in enumerate(range(0, max(table.num_rows, 1), step)):
            files.append(str(write_ipc(table.slice(start, step),
                                       ipc_dir / f"{spec.name}-{i}.arrow")))
        uri = str(node_uri(out, spec))
        job = {"op": "create", "uri": uri, "ipc": files}
        if spec.node_version:
            job["storage_version"] = spec.node_version
        jobs.append(job)
        for predicate in spec.deletes:
            jobs.append({"op": "delete", "uri": uri, "predicate": predicate})
    return jobs


def run_node(jobs: List[Dict[str, Any]], scratch: Path) -> List[Any]:
    """Runs writematrix.cjs on `jobs`; raises naming every failed job."""
    return NodeJobs(WRITEMATRIX_JS, scratch, "writematrix", error_limit=600).run_ok(jobs)


def generate(out: Path, seed: int = DEFAULT_SEED, node: bool = True,
             specs: Optional[Dict[str, Spec]] = None) -> Dict[str, Any]:
    """Writes every dataset of the matrix under `out` (emptied first); returns and writes
    out/matrix.json: {"seed", "specs": {name: about}, "datasets": [{writer, version,
    spec, uri, ...describe()}]}."""
    out = Path(out)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    specs = specs or build_specs(seed)
    datasets = []
    timings = {}
    for version in VERSIONS:
        t0 = time.monotonic()
        for spec in specs.values():
            if "pylance" not in spec.writers or version not in spec.versions:
                continue
            uri = out / f"pylance-{version}" / f"{spec.name}.lance"
            datasets.append({"writer": "pylance", "version_requested": version,
                             "spec": spec.name, **write_pylance(spec, uri, version)})
        timings[f"pylance-{version}"] = round(time.monotonic() - t0, 2)
    if node:
        t0 = time.monotonic()
        ipc_dir = out / "ipc"
        ipc_dir.mkdir()
        run_node(node_jobs(list(specs.values()), out, ipc_dir), out / "node-scratch")
        for spec in specs.values():
            if "node" in spec.writers:
                datasets.append({"writer": "node", "version_requested": spec.node_version,
                                 "spec": spec.name, **describe(node_uri(out, spec))})
        shutil.rmtree(ipc_dir)
        timings["node"] = round(time.monotonic() - t0, 2)
    manifest = {"seed": seed, "specs": {s.name: s.about for s in specs.values()},
                "datasets": datasets, "seconds": timings}
    (out / "matrix.json").write_text(json.dumps(manifest, indent=1))
    return manifest


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, type=Path, help="output folder (replaced)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--no-node", action="store_true", help="skip the LanceDB-node datasets")
    args = parser.parse_args(argv)
    t0 = time.monotonic()
    manifest = generate(args.out, args.seed, node=not args.no_node)
    for d in manifest["datasets"]:
        kinds = sorted({Path(f).suffix for f in d["deletion_files"]})
        print(f"{d['writer']:8} {d['data_storage_version']:4} {d['spec']:11} "
              f"rows={d['num_rows']:<6} fragments={len(d['fragments'])} "
              f"version={d['version']} deletions={','.join(kinds) or '-'}")
    print(f"generated in {time.monotonic() - t0:.1f}s {manifest['seconds']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
