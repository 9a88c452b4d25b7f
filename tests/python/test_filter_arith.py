# SPDX-License-Identifier: Apache-2.0
"""Arithmetic in filters (``+ - * / %`` and unary minus), lance_cpp next to pylance 14.0.2.

A seeded generator writes filters over a random table with NULLs, extreme integers (so
that + - * wrap), NaN, -0.0 and zero divisors: integer columns of every width and sign,
float16/32/64 columns. Each filter runs through ``to_table(filter=...)`` and
``count_rows(filter=...)`` on both implementations, which must agree on the rows
matched, or both fail (a division by zero, a literal that does not fit the column next to
it, unary minus on an unsigned column). ``delete`` and ``scanner(filter=...)`` take the
same predicates. A small table then checks each rule by hand (truncating division, the
modulo's sign, wrapping, NULLs, promotion) and the errors pylance gives (a zero divisor,
INT64_MIN / -1, arithmetic on strings), which lance_cpp must give too.

Left out on purpose (documented in docs/filters.md): uint64 with a signed integer
(decimal128 in Lance, NotImplemented here), unary plus (refused by Lance, accepted here).
"""

from __future__ import annotations

import random
import shutil
from typing import Callable, List, Optional

import numpy as np
import pyarrow as pa
import pytest

N = 300
INTS = {"i8": pa.int8(), "i16": pa.int16(), "i32": pa.int32(), "i64": pa.int64(),
        "u8": pa.uint8(), "u16": pa.uint16(), "u32": pa.uint32()}
FLOATS = {"f16": pa.float16(), "f32": pa.float32(), "f64": pa.float64()}


def _table(seed: int = 7) -> pa.Table:
    rng = random.Random(seed)
    cols = {"rid": pa.array(range(N), pa.int64())}
    for name, t in INTS.items():
        bits = t.bit_width
        lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if name[0] == "i" \
            else (0, (1 << bits) - 1)
        vals: List[Optional[int]] = []
        for _ in range(N):
            r = rng.random()
            if r < 0.1:
                vals.append(None)
            elif r < 0.2:
                vals.append(rng.choice([lo, hi, lo + 1, hi - 1, 0, -1 if lo < 0 else 1]))
            elif r < 0.3:
                vals.append(rng.randint(lo, hi))
            else:
                vals.append(max(lo, min(hi, rng.randint(-20, 20))))
        cols[name] = pa.array(vals, t)
    for name, t in FLOATS.items():
        vals = []
        for _ in range(N):
            r = rng.random()
            if r < 0.1:
                vals.append(None)
            elif r < 0.15:
                vals.append(rng.choice([float("nan"), -0.0, 0.0, float("inf"), -float("inf")]))
            elif r < 0.25:
                big = [16777217.0, 1e10] if name != "f16" else [4097.0, -65504.0]
                vals.append(rng.choice([0.1, 2049.0, 65504.0, -1e-3] + big))
            else:
                vals.append(rng.randint(-80, 80) / 4)
        if name == "f16":
            mask = np.array([v is None for v in vals])
            arr = np.array([0.0 if v is None else v for v in vals], np.float16)
            cols[name] = pa.array(arr, t, mask=mask)
        else:
            cols[name] = pa.array(vals, t)
    return pa.table(cols)


# -- the generator -----------------------------------------------------------------------

NUM_COLS = list(INTS) + list(FLOATS)


def _literal(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.6:
        return str(rng.randint(-12, 12))
    if r < 0.8:
        return rng.choice(["0.5", "2.5", "-1.5", "0.1", "1e3"])
    return rng.choice(["127", "128", "-129", "255", "32767", "65536", "2147483647",
                       "9223372036854775807", "NULL"])


def _fitting_literal(rng: random.Random, column: str) -> str:
    """A literal Lance can cast to `column`'s type. Lance refuses the others when they sit
    next to a bare column at the top level, where lance-cpp answers exactly (a documented
    difference, not the subject here)."""
    if column in INTS:
        bits = INTS[column].bit_width
        lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if column[0] == "i" \
            else (0, (1 << bits) - 1)
        if rng.random() < 0.2:
            return rng.choice([str(lo), str(hi), "NULL"])
        return str(rng.randint(max(lo, -12), min(hi, 12)))
    lit = _literal(rng)
    if column == "f16" and lit not in ("NULL",) and abs(float(lit)) > 65504:
        return "65504"
    return lit


def _rhs(rng: random.Random, value: str) -> str:
    return _fitting_literal(rng, value) if value in NUM_COLS else _literal(rng)


def _value(rng: random.Random, depth: int) -> str:
    """A numeric expression."""
    r = rng.random()
    if depth <= 0 or r < 0.25:
        return rng.choice(NUM_COLS)
    if r < 0.35:
        return _literal(rng)
    if r < 0.45:
        return f"-{_value(rng, depth - 1)}" if rng.random() < 0.5 \
            else f"-({_value(rng, depth - 1)})"
    op = rng.choice("+-*/%")
    left = _value(rng, depth - 1)
    # Mostly literal divisors, sometimes a column (which may hold a zero: an error).
    if op in "/%" and rng.random() < 0.7:
        right = str(rng.choice([2, 3, 7, -4, 0.5, 1.5]))
    else:
        right = _value(rng, depth - 1)
    return f"({left} {op} {right})" if rng.random() < 0.5 else f"{left} {op} {right}"


def _constant(rng: random.Random) -> str:
    """A tree of literals (re-typed by Lance when compared with a column)."""
    a, b = rng.randint(-9, 9), rng.choice([2, 3, 4, 7, -3])
    return rng.choice([f"{a} / {b}", f"{a} + {b}", f"{a} * {b} - 1", f"{a} % {b}",
                       f"{a} - {b} * 2", f"{a}.5 / {b}", f"100 + 100", f"0 - 1"])


CMP = ["=", "!=", "<", "<=", ">", ">="]


def _predicate(rng: random.Random, depth: int = 2) -> str:
    r = rng.random()
    if r < 0.3:
        value = _value(rng, 2)
        p = f"{value} {rng.choice(CMP)} {_rhs(rng, value)}"
    elif r < 0.45:
        p = f"{_value(rng, 2)} {rng.choice(CMP)} {_value(rng, 1)}"
    elif r < 0.6:
        col = rng.choice(NUM_COLS)
        p = f"{col} {rng.choice(CMP)} {_constant(rng)}" if rng.random() < 0.7 \
            else f"{_constant(rng)} {rng.choice(CMP)} {col}"
    elif r < 0.67:
        p = f"{_value(rng, 2)} IS {rng.choice(['', 'NOT '])}NULL"
    elif r < 0.74:
        value = _value(rng, 1)
        lo = rng.randint(0 if value.startswith("u") else -10, 5)
        p = f"{value} BETWEEN {lo} AND {lo} + {rng.randint(0, 10)}"
    elif r < 0.8:
        value = _value(rng, 1)
        items = ", ".join(rng.choice([_rhs(rng, value), _constant(rng)]) for _ in range(3))
        p = f"{value} {rng.choice(['', 'NOT '])}IN ({items})"
    elif depth > 0 and r < 0.9:
        p = f"{_predicate(rng, depth - 1)} {rng.choice(['AND', 'OR'])} " \
            f"{_predicate(rng, depth - 1)}"
    elif depth > 0:
        p = f"NOT ({_predicate(rng, depth - 1)})"
    else:
        p = f"{rng.choice(NUM_COLS)} % 7 = 3"
    return p


# Hand-picked cases: each rule checked against pylance at least once.
FIXED = [
    "rid % 7 = 3",
    "i8 + i8 > 0",                        # int8 wraps
    "i8 + 1 > 127",                       # int64: no wrap
    "u8 + i8 < 0",                        # int16
    "u32 * i32 > 0",                      # int64
    "i64 * 2 < 0",                        # wraps at int64
    "-i64 > 0",                           # -MIN wraps
    "i64 / -1 > 0",                       # MIN / -1: an error where MIN is
    "i8 % -1 = 0",                        # MIN % -1 is 0
    "i32 / i16 > 1",                      # zero divisors: an error
    "rid < 0 AND i32 / i16 > 1",          # ...skipped by the short circuit
    "rid = 5 AND i32 / 3 > 1",            # pre-selection
    "rid >= 0 OR i32 / 0 > 1",
    "rid > 1 / 0",
    "f64 / 0 > 0",                        # IEEE
    "f32 * -1 >= 0",
    "-f64 < 0",
    "f16 + 1 = 2050",                     # float16 rounds
    "f16 * 2 > 60000",
    "f32 + 0 = 0.1",                      # float32 widened for a float64 literal
    "f32 = 0.1",                          # a column takes the literal's type
    "NOT (f32 = 0.1)",                    # ...only at the top level
    "f64 = 7 / 2",                        # 3.5: computed in float64
    "7 / 2 = f64",                        # 3: int64
    "f64 = 7 / -(2)",
    "i8 = 100 + 100",                     # -56: computed in int8
    "i8 = 1000 - 999",                    # an error: 1000 does not fit int8
    "u8 = 0 - 1",                         # 255
    "f64 BETWEEN 7 / 2 AND 10",
    "f64 IN (7 / 2, 1 + 0.5)",
    "i64 + 0 < 9223372036854775808",      # a uint64 literal
    "i32 + 0 = 16777217.0",
    "i32 = f32",                          # int meets float32 as float32
    "(i16 + i16) IS NULL",
    "-u8 > 0",                            # an error
    "u16 - u16 > 0",                      # uint16 wraps
    "(i8 - 1) % 3 = -1",
]


def _filters() -> List[str]:
    rng = random.Random(20240607)
    out = list(FIXED)
    while len(out) < len(FIXED) + 60:
        f = _predicate(rng)
        if f not in out:
            out.append(f)
    return out


# -- running both ------------------------------------------------------------------------

def _outcome(run: Callable[[], object]):
    try:
        return ("ok", run())
    except Exception as e:  # noqa: BLE001 - the error text differs, its presence must not
        return ("error", f"{type(e).__name__}: {e}")


@pytest.fixture(scope="module")
def impls():
    from conftest import IMPLS, Impl
    return {name: Impl(name) for name in IMPLS}


@pytest.fixture(scope="module")
def datasets(impls, tmp_path_factory):
    """One dataset written by pylance, opened by each implementation."""
    table = _table()
    uri = str(tmp_path_factory.mktemp("arith") / "t.lance")
    impls["pylance"].write(table, uri)
    return {name: impl.mod.dataset(uri) for name, impl in impls.items()}, uri, table


@pytest.mark.parametrize("flt", _filters())
def test_filter_matches_pylance(datasets, flt):
    ds, _, _ = datasets
    rows = {name: _outcome(lambda d=d: d.to_table(filter=flt, columns=["rid"])
                           ["rid"].to_pylist())
            for name, d in ds.items()}
    py, cpp = rows["pylance"], rows["lance_cpp"]
    assert py[0] == cpp[0], f"{flt!r}: pylance {py}, lance_cpp {cpp}"
    if py[0] == "ok":
        assert cpp[1] == py[1], f"{flt!r}: rows differ"
        counts = {name: _outcome(lambda d=d: d.count_rows(filter=flt))
                  for name, d in ds.items()}
        assert counts["pylance"] == counts["lance_cpp"] == ("ok", len(py[1])), flt


def test_generated_filters_are_varied(datasets):
    """The generator exercises what it should: matches, non-matches and errors."""
    ds, _, _ = datasets
    outcomes = [_outcome(lambda f=f: ds["pylance"].count_rows(filter=f)) for f in _filters()]
    errors = sum(o[0] == "error" for o in outcomes)
    counts = [o[1] for o in outcomes if o[0] == "ok"]
    assert len(outcomes) >= 90
    assert 3 <= errors <= len(outcomes) // 3
    assert sum(0 < c < N for c in counts) >= len(counts) // 2


@pytest.mark.parametrize("flt", ["i16 % 5 = 1 OR f64 * 2 > 10", "-(i8 + i8) > 3",
                                 "f32 = 1 / 4 OR i32 + 1 BETWEEN 0 AND 5"])
def test_delete_with_arithmetic(impls, datasets, tmp_path, flt):
    _, uri, table = datasets
    remaining = {}
    for name, impl in impls.items():
        copy = str(tmp_path / f"{name}.lance")
        shutil.copytree(uri, copy)
        d = impl.mod.dataset(copy)
        d.delete(flt)
        remaining[name] = impl.mod.dataset(copy).to_table(columns=["rid"])["rid"].to_pylist()
    assert remaining["pylance"] == remaining["lance_cpp"]
    assert 0 < len(remaining["pylance"]) < table.num_rows


def test_scanner_filter_with_arithmetic(datasets):
    ds, _, _ = datasets
    flt = "(i32 + i16) * 2 > 10 AND f64 / 2 < 5"
    got = {name: d.scanner(filter=flt, columns=["rid", "i32"]).to_table()
           for name, d in ds.items()}
    assert got["pylance"].to_pylist() == got["lance_cpp"].to_pylist()
    assert got["pylance"].num_rows > 0


# -- each rule on rows small enough to check by hand ----------------------------------------

_MIN64 = -(1 << 63)


@pytest.fixture(scope="module")
def small(impls, tmp_path_factory):
    """rid 0..5; a / b: the four sign combinations of 7 and 2, a NULL, INT32_MAX; z: a
    zero divisor on row 1; m: INT64_MIN on row 0."""
    table = pa.table({
        "rid": pa.array(range(6), pa.int64()),
        "a": pa.array([7, -7, 7, -7, None, 2147483647], pa.int32()),
        "b": pa.array([2, 2, -2, -2, 5, 1], pa.int32()),
        "z": pa.array([1, 0, 1, 1, 1, 1], pa.int32()),
        "m": pa.array([_MIN64, 1, 1, 1, 1, 1], pa.int64()),
        "f": pa.array([0.5, -0.5, None, 2.0, 1.0, 0.0], pa.float64()),
        "s": pa.array(["a", "b", "c", "d", "e", "f"]),
    })
    uri = str(tmp_path_factory.mktemp("arith-small") / "t.lance")
    impls["pylance"].write(table, uri)
    return {name: impl.mod.dataset(uri) for name, impl in impls.items()}


@pytest.mark.parametrize("flt,rows", [
    ("a / b = 3", [0, 3]),                 # 7 / 2 and -7 / -2: truncated toward zero
    ("a / b = -3", [1, 2]),
    ("a % b = 1", [0, 2]),                 # the sign of the dividend
    ("a % b = -1", [1, 3]),
    ("(a + b) * 2 = 18", [0]),             # parentheses
    ("a + b * 2 = 11", [0]),               # * before +
    ("rid - 1 - 1 = 0", [2]),              # left-associative
    ("-rid * 2 < -6", [4, 5]),             # unary minus binds tightest
    ("a + a < 0", [1, 3, 5]),              # int32 + int32 wraps (MAX + MAX is -2)
    ("a + 1 > 2147483647", [5]),           # int32 + an int64 literal is int64
    ("m * 2 = 0", [0]),                    # int64 wraps
    ("-m < -1", [0]),                      # -MIN is MIN
    ("m % -1 = 0", [0, 1, 2, 3, 4, 5]),    # MIN % -1 is 0, no error
    ("a * f > 3", [0, 1]),                 # int32 * float64 is float64
    ("a / 2.0 = -3.5", [1, 3]),
    ("a / b IS NULL", [4]),                # NULL in, NULL out
    ("a - NULL IS NULL", [0, 1, 2, 3, 4, 5]),
    ("rid % 3 = 1 AND -rid < -2", [4]),
    ("a / 0.0 < 0", [1, 3]),               # floats do not fail: -inf
    ("rid > 2 AND rid < 1 AND a / z > 0", []),  # a side never evaluated cannot fail
])
def test_rules_by_hand(small, flt, rows):
    for name, d in small.items():
        assert d.to_table(filter=flt, columns=["rid"])["rid"].to_pylist() == rows, \
            (name, flt)
        assert d.count_rows(filter=flt) == len(rows), (name, flt)


@pytest.mark.parametrize("flt,pylance_says", [
    ("a / z > 0", "Divide by zero"),
    ("a % z > 0", "Divide by zero"),
    ("rid / 0 > 0", "Divide by zero"),
    ("a / (b - b) IS NULL", "Divide by zero"),
    ("m / -1 > 0", "Overflow"),            # INT64_MIN / -1 has no int64 result
    ("s + 1 > 0", "Cannot coerce arithmetic"),
    ("-s = 'a'", "Negation only supports numeric"),
])
def test_errors_match_pylance(small, flt, pylance_says):
    outcomes = {name: _outcome(lambda d=d: d.to_table(filter=flt)) for name, d in small.items()}
    assert outcomes["pylance"][0] == "error" and pylance_says in outcomes["pylance"][1], \
        outcomes["pylance"]
    assert outcomes["lance_cpp"][0] == "error", outcomes["lance_cpp"]
    for name, d in small.items():
        assert _outcome(lambda: d.count_rows(filter=flt))[0] == "error", (name, flt)
