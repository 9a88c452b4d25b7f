# SPDX-License-Identifier: Apache-2.0
"""Seeded random Arrow schemas and data for the interop suite.

Every table has a non-null int64 column ``rid`` (unique, increasing in write order) so
that results can be sorted and compared row by row, plus random columns drawn from the
types lance-cpp supports, with nulls at every level that allows them.
"""

from __future__ import annotations

import random
import string
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence

import pyarrow as pa

# Leaf types, by name. Each maps to a factory of the pyarrow type (given an rng).
SCALAR_KINDS: Dict[str, Callable[[random.Random], pa.DataType]] = {
    "bool": lambda r: pa.bool_(),
    "int8": lambda r: pa.int8(),
    "int16": lambda r: pa.int16(),
    "int32": lambda r: pa.int32(),
    "int64": lambda r: pa.int64(),
    "uint8": lambda r: pa.uint8(),
    "uint16": lambda r: pa.uint16(),
    "uint32": lambda r: pa.uint32(),
    "uint64": lambda r: pa.uint64(),
    "float16": lambda r: pa.float16(),
    "float32": lambda r: pa.float32(),
    "float64": lambda r: pa.float64(),
    "utf8": lambda r: pa.utf8(),
    "large_utf8": lambda r: pa.large_utf8(),
    "binary": lambda r: pa.binary(),
    "large_binary": lambda r: pa.large_binary(),
    "fixed_size_binary": lambda r: pa.binary(r.choice([1, 3, 4, 16])),
    "date32": lambda r: pa.date32(),
    "timestamp": lambda r: pa.timestamp(
        r.choice(["s", "ms", "us", "ns"]), tz=r.choice([None, None, "UTC", "America/New_York"])
    ),
}
NESTED_KINDS = ["list", "large_list", "fixed_size_list", "struct"]
ALL_KINDS = list(SCALAR_KINDS) + NESTED_KINDS
# Two-level nestings a schema can be asked to contain ("outer/inner").
NESTED_COMBOS = ["list/struct", "struct/list", "list/list", "struct/struct",
                 "large_list/fixed_size_list", "struct/fixed_size_list", "list/large_list"]


@dataclass
class TypeProfile:
    """What one writer can write: the kinds allowed at the top level and inside nesting."""

    scalars: Sequence[str] = tuple(SCALAR_KINDS)
    nested: Sequence[str] = tuple(NESTED_KINDS)
    # Kinds allowed as the value type of a fixed_size_list.
    # (Lance 8 panics writing a fixed_size_list of strings to file format 2.0.)
    fsl_values: Sequence[str] = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                                 "uint32", "uint64", "float16", "float32", "float64",
                                 "fixed_size_binary", "date32")
    # Whether a struct slot itself may be null. File format 2.0 has no struct validity:
    # pylance refuses such data, LanceDB-node (Lance 8) drops the struct-level nulls.
    struct_nulls: bool = False
    max_depth: int = 2
    # Child field names a list may use besides "item".
    list_child_names: Sequence[str] = ("item", "item", "element")
    extra: Dict[str, object] = field(default_factory=dict)

    def without(self, *kinds: str) -> "TypeProfile":
        return TypeProfile(
            scalars=tuple(k for k in self.scalars if k not in kinds),
            nested=tuple(k for k in self.nested if k not in kinds),
            fsl_values=tuple(k for k in self.fsl_values if k not in kinds),
            struct_nulls=self.struct_nulls,
            max_depth=self.max_depth,
            list_child_names=self.list_child_names,
            extra=dict(self.extra),
        )


def type_of_kind(kind: str, rng: random.Random, profile: TypeProfile, depth: int) -> pa.DataType:
    if "/" in kind:  # a NESTED_COMBOS entry
        outer, inner = kind.split("/")
        child = type_of_kind(inner, rng, profile, depth + 1)
        if outer == "struct":
            return pa.struct([pa.field("f0", child), pa.field("f1", random_type(rng, profile, 2))])
        f = pa.field(rng.choice(profile.list_child_names), child)
        return pa.list_(f) if outer == "list" else pa.large_list(f)
    if kind in SCALAR_KINDS:
        return SCALAR_KINDS[kind](rng)
    if kind in ("list", "large_list"):
        child = random_type(rng, profile, depth + 1)
        f = pa.field(rng.choice(profile.list_child_names), child, nullable=True)
        return pa.list_(f) if kind == "list" else pa.large_list(f)
    if kind == "fixed_size_list":
        child = SCALAR_KINDS[rng.choice(list(profile.fsl_values))](rng)
        return pa.list_(pa.field("item", child, nullable=True), rng.choice([1, 2, 3, 8]))
    if kind == "struct":
        n = rng.randint(1, 3)
        return pa.struct(
            [pa.field(f"f{i}", random_type(rng, profile, depth + 1), nullable=True) for i in range(n)]
        )
    raise ValueError(kind)


def random_type(rng: random.Random, profile: TypeProfile, depth: int = 0) -> pa.DataType:
    nested_ok = depth < profile.max_depth and profile.nested
    if nested_ok and rng.random() < (0.35 if depth == 0 else 0.2):
        kind = rng.choice(list(profile.nested))
    else:
        kind = rng.choice(list(profile.scalars))
    return type_of_kind(kind, rng, profile, depth)


# --- values ------------------------------------------------------------------------------

_INT_RANGES = {
    pa.int8(): (-(2**7), 2**7 - 1),
    pa.int16(): (-(2**15), 2**15 - 1),
    pa.int32(): (-(2**31), 2**31 - 1),
    pa.int64(): (-(2**63), 2**63 - 1),
    pa.uint8(): (0, 2**8 - 1),
    pa.uint16(): (0, 2**16 - 1),
    pa.uint32(): (0, 2**32 - 1),
    pa.uint64(): (0, 2**64 - 1),
}
_ALPHABET = string.ascii_letters + string.digits + " _-é漢字🙂"


def _mask(rng: random.Random, n: int, null_prob: float) -> Optional[pa.Array]:
    if null_prob <= 0:
        return None
    bits = [rng.random() < null_prob for _ in range(n)]
    return pa.array(bits, pa.bool_()) if any(bits) else None


def _int_value(rng: random.Random, lo: int, hi: int) -> int:
    roll = rng.random()
    if roll < 0.05:
        return lo
    if roll < 0.10:
        return hi
    if roll < 0.5:
        return rng.randint(max(lo, -1000), min(hi, 1000))
    return rng.randint(lo, hi)


def random_array(rng: random.Random, t: pa.DataType, n: int, null_prob: float,
                 struct_nulls: bool = False) -> pa.Array:
    """n random values of type t; each slot (at every nesting level) null with null_prob,
    struct slots only when struct_nulls."""
    valid = [rng.random() >= null_prob for _ in range(n)]

    def nullify(values):
        return [v if ok else None for v, ok in zip(values, valid)]

    if pa.types.is_boolean(t):
        return pa.array(nullify([rng.random() < 0.5 for _ in range(n)]), t)
    if t in _INT_RANGES:
        lo, hi = _INT_RANGES[t]
        return pa.array(nullify([_int_value(rng, lo, hi) for _ in range(n)]), t)
    if pa.types.is_float16(t):
        import numpy as np

        vals = np.array([rng.uniform(-1000, 1000) for _ in range(n)], dtype=np.float16)
        arr = pa.array(vals, type=pa.float16())
        return _apply_validity(arr, valid)
    if pa.types.is_float32(t) or pa.types.is_float64(t):
        import numpy as np

        dtype = np.float32 if pa.types.is_float32(t) else np.float64
        specials = [0.0, -0.0, 1.5, -1e30, 3.4e38 if dtype is np.float32 else 1.7e308, 1e-30]
        vals = [rng.choice(specials) if rng.random() < 0.1 else rng.uniform(-1e6, 1e6)
                for _ in range(n)]
        arr = pa.array(np.array(vals, dtype=dtype), type=t)
        return _apply_validity(arr, valid)
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        vals = ["".join(rng.choice(_ALPHABET) for _ in range(rng.choice([0, 1, 3, 8, 20])))
                for _ in range(n)]
        return pa.array(nullify(vals), t)
    if pa.types.is_fixed_size_binary(t):
        w = t.byte_width
        return pa.array(nullify([rng.randbytes(w) for _ in range(n)]), t)
    if pa.types.is_binary(t) or pa.types.is_large_binary(t):
        return pa.array(nullify([rng.randbytes(rng.choice([0, 1, 5, 17])) for _ in range(n)]), t)
    if pa.types.is_date32(t):
        days = pa.array(nullify([rng.randint(-25000, 50000) for _ in range(n)]), pa.int32())
        return days.cast(pa.date32())
    if pa.types.is_timestamp(t):
        # Within +-2**62 ns so that every unit round-trips through any tool.
        span = {"s": 10**11, "ms": 10**14, "us": 10**17, "ns": 4 * 10**18}[t.unit]
        vals = pa.array(nullify([rng.randint(-span, span) for _ in range(n)]), pa.int64())
        return vals.cast(t)
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        lengths = [rng.choice([0, 1, 2, 3, 5]) for _ in range(n)]
        offsets = [0]
        for k in lengths:
            offsets.append(offsets[-1] + k)
        child = random_array(rng, t.value_type, offsets[-1], null_prob, struct_nulls)
        mask = pa.array([not ok for ok in valid], pa.bool_())
        cls = pa.ListArray if pa.types.is_list(t) else pa.LargeListArray
        off_type = pa.int32() if pa.types.is_list(t) else pa.int64()
        arr = cls.from_arrays(pa.array(offsets, off_type), child, type=t, mask=mask)
        return arr
    if pa.types.is_fixed_size_list(t):
        child = random_array(rng, t.value_type, n * t.list_size, null_prob, struct_nulls)
        mask = pa.array([not ok for ok in valid], pa.bool_())
        return pa.FixedSizeListArray.from_arrays(child, type=t, mask=mask)
    if pa.types.is_struct(t):
        children = [random_array(rng, f.type, n, null_prob, struct_nulls) for f in t]
        if not struct_nulls or all(valid):
            return pa.StructArray.from_arrays(children, fields=list(t))
        mask = pa.array([not ok for ok in valid], pa.bool_())
        return pa.StructArray.from_arrays(children, fields=list(t), mask=mask)
    raise TypeError(f"no generator for {t}")


def _apply_validity(arr: pa.Array, valid: List[bool]) -> pa.Array:
    if all(valid):
        return arr
    mask = pa.array([not ok for ok in valid], pa.bool_())
    import pyarrow.compute as pc

    return pc.if_else(mask, pa.nulls(len(arr), arr.type), arr)


@dataclass
class RandomDataset:
    """A seeded random schema and a way to make batches of it."""

    seed: int
    schema: pa.Schema
    null_prob: float
    struct_nulls: bool = False

    def batch(self, start: int, n: int) -> pa.Table:
        # Values depend on (seed, start) only, so any writer regenerates the same rows.
        rng = random.Random(self.seed * 1_000_003 + start)
        cols = [pa.array(range(start, start + n), pa.int64())]
        for f in list(self.schema)[1:]:
            null_prob = self.null_prob if f.nullable else 0.0
            cols.append(random_array(rng, f.type, n, null_prob, self.struct_nulls))
        return pa.Table.from_arrays(cols, schema=self.schema)


def random_dataset(seed: int, profile: TypeProfile, num_columns: int = 10,
                   null_prob: float = 0.15, cover: Sequence[str] = ()) -> RandomDataset:
    """A random schema: rid + `num_columns` columns, first one column of each kind in
    `cover` (so that a handful of seeds covers every kind), then random ones."""
    rng = random.Random(seed)
    fields = [pa.field("rid", pa.int64(), nullable=False)]
    kinds = list(cover)
    while len(kinds) < num_columns:
        kinds.append(None)
    for i, kind in enumerate(kinds):
        t = type_of_kind(kind, rng, profile, 0) if kind else random_type(rng, profile)
        # A few top-level non-nullable columns (written without nulls).
        nullable = rng.random() >= 0.1
        fields.append(pa.field(f"c{i}", t, nullable=nullable))
    return RandomDataset(seed=seed, schema=pa.schema(fields), null_prob=null_prob,
                         struct_nulls=profile.struct_nulls)


def drop_struct_validity(arr: pa.Array) -> pa.Array:
    """What file format 2.0 keeps of `arr`: struct slots lose their nulls (at any depth),
    every other level keeps them."""
    if isinstance(arr, pa.ChunkedArray):
        return pa.chunked_array([drop_struct_validity(c) for c in arr.chunks], arr.type)
    t = arr.type
    if not _has_struct(t):
        return arr
    if pa.types.is_struct(t):
        children = [drop_struct_validity(arr.field(i)) for i in range(t.num_fields)]
        return pa.StructArray.from_arrays(children, fields=list(t))
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        values = drop_struct_validity(arr.values)
        cls = pa.ListArray if pa.types.is_list(t) else pa.LargeListArray
        return cls.from_arrays(arr.offsets, values, type=t, mask=arr.is_null())
    if pa.types.is_fixed_size_list(t):
        values = drop_struct_validity(arr.values)
        return pa.FixedSizeListArray.from_arrays(values, type=t, mask=arr.is_null())
    return arr


def _has_struct(t: pa.DataType) -> bool:
    if pa.types.is_struct(t):
        return True
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        return _has_struct(t.value_type)
    return False


def combos_of(t: pa.DataType) -> set:
    """The NESTED_COMBOS a type contains, at any depth."""
    def kind(x):
        if pa.types.is_struct(x):
            return "struct"
        if pa.types.is_large_list(x):
            return "large_list"
        if pa.types.is_fixed_size_list(x):
            return "fixed_size_list"
        if pa.types.is_list(x):
            return "list"
        return None
    outer = kind(t)
    if outer is None:
        return set()
    children = [f.type for f in t] if outer == "struct" else [t.value_type]
    out = set()
    for c in children:
        if kind(c):
            out.add(f"{outer}/{kind(c)}")
        out |= combos_of(c)
    return out


def kinds_of(t: pa.DataType) -> set:
    """The kinds (SCALAR_KINDS / NESTED_KINDS names) a type uses, at any depth."""
    if pa.types.is_struct(t):
        out = {"struct"}
        for f in t:
            out |= kinds_of(f.type)
        return out
    if pa.types.is_large_list(t):
        return {"large_list"} | kinds_of(t.value_type)
    if pa.types.is_fixed_size_list(t):
        return {"fixed_size_list"} | kinds_of(t.value_type)
    if pa.types.is_list(t):
        return {"list"} | kinds_of(t.value_type)
    for kind, make in SCALAR_KINDS.items():
        probe = make(random.Random(0))
        if probe.id == t.id:
            return {kind}
    raise TypeError(f"unknown kind of {t}")
