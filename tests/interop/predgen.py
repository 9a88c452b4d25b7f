# SPDX-License-Identifier: Apache-2.0
"""Seeded random filter predicates in the SQL subset lance-cpp implements (see
src/table/predicate/predicate.h), with literals drawn from the data so that they select something.
Real Lance (DataFusion) evaluates the same text; the suite compares the counts."""

from __future__ import annotations

import datetime
import random
import re
from typing import List, Optional, Tuple

import pyarrow as pa

_INT64_MAX = 2**63 - 1


def _comparable(t: pa.DataType) -> bool:
    return (pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_string(t)
            or pa.types.is_large_string(t) or pa.types.is_boolean(t) or pa.types.is_date32(t)
            or pa.types.is_timestamp(t))


def _float_ok(t: pa.DataType) -> bool:
    return not pa.types.is_float16(t)  # DataFusion has no half floats to compare with


def columns(schema: pa.Schema) -> List[Tuple[str, pa.DataType]]:
    """Scalar columns and struct members (as a.b) a predicate may reference."""
    out = []
    for f in schema:
        if _comparable(f.type) and _float_ok(f.type):
            out.append((f.name, f.type))
        elif pa.types.is_struct(f.type):
            for child in f.type:
                if _comparable(child.type) and _float_ok(child.type):
                    out.append((f"{f.name}.{child.name}", child.type))
    return out


def _values(table: pa.Table, ref: str) -> List[object]:
    parts = ref.split(".")
    arr = table.column(parts[0]).combine_chunks()
    for p in parts[1:]:
        arr = arr.field(p)
    if pa.types.is_timestamp(arr.type):
        arr = arr.cast(pa.int64())  # raw units: many values are outside datetime's range
    return [v for v in arr.to_pylist() if v is not None]


def literal(value, t: pa.DataType) -> Optional[str]:
    if pa.types.is_boolean(t):
        return "TRUE" if value else "FALSE"
    if pa.types.is_integer(t):
        return str(value) if -_INT64_MAX <= value <= _INT64_MAX else None
    if pa.types.is_floating(t):
        text = repr(float(value))
        return None if "e" in text or "inf" in text or "nan" in text else text
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return "'" + value.replace("'", "''") + "'"
    if pa.types.is_date32(t):
        return f"date '{value.isoformat()}'"
    if pa.types.is_timestamp(t):
        if t.tz is not None:
            return None  # zone-aware literals are outside the subset
        per_second = {"s": 1, "ms": 10**3, "us": 10**6, "ns": 10**9}[t.unit]
        seconds, fraction = divmod(value, per_second)
        try:
            when = datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=seconds)
        except OverflowError:
            return None
        # Random literals stay inside int64 nanoseconds (1677-2262), where every column
        # unit can hold them; literals outside that range are checked separately by
        # test_predicates.py::test_timestamp_literal_outside_nanosecond_range.
        if not 1678 <= when.year <= 2261:
            return None
        text = when.strftime("%Y-%m-%d %H:%M:%S")
        if fraction and per_second <= 10**6:
            text += "." + str(fraction).rjust(len(str(per_second)) - 1, "0")
        return f"timestamp '{text}'"
    return None


def random_predicate(rng: random.Random, table: pa.Table, depth: int = 0) -> Optional[str]:
    cols = columns(table.schema)
    if not cols:
        return None
    roll = rng.random()
    if depth < 2 and roll < 0.25:
        a = random_predicate(rng, table, depth + 1)
        b = random_predicate(rng, table, depth + 1)
        if a and b:
            return f"({a}) {rng.choice(['AND', 'OR'])} ({b})"
    if depth < 2 and roll < 0.32:
        a = random_predicate(rng, table, depth + 1)
        if a:
            return f"NOT ({a})"
    ref, t = rng.choice(cols)
    values = _values(table, ref)
    kind = rng.random()
    if kind < 0.15 or not values:
        return f"{ref} IS {rng.choice(['', 'NOT '])}NULL"
    if kind < 0.3:
        lits = [literal(v, t) for v in rng.sample(values, min(3, len(values)))]
        lits = [x for x in lits if x is not None]
        if not lits:
            return None
        neg = rng.choice(["", "NOT "])
        return f"{ref} {neg}IN ({', '.join(lits)})"
    lit = literal(rng.choice(values), t)
    if lit is None:
        return None
    op = rng.choice(["=", "!=", "<", "<=", ">", ">="] if not pa.types.is_boolean(t) else ["=", "!="])
    return f"{ref} {op} {lit}"


def predicates(seed: int, table: pa.Table, n: int) -> List[str]:
    rng = random.Random(seed)
    out: List[str] = []
    attempts = 0
    while len(out) < n and attempts < n * 20:
        attempts += 1
        p = random_predicate(rng, table)
        if p and p not in out:
            out.append(p)
    return out


def oracle_quirk(predicate: str) -> bool:
    """Predicates real Lance evaluates against SQL's three-valued logic, so not compared:
    `(c NOT IN (a)) OR (c NOT IN (b))` counts the rows where c is NULL too (seen with both
    Lance 8 and pylance 14; `(c != a) OR (c != b)` does not)."""
    refs = re.findall(r"([A-Za-z_][\w.]*) NOT IN", predicate)
    return len(refs) != len(set(refs))
