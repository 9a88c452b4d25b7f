# SPDX-License-Identifier: Apache-2.0
"""Filter semantics next to real Lance: hand-picked predicates over every literal kind of
lance-cpp's SQL subset (src/table/predicate/predicate.h), NULL logic and type edges, counted by
lance-cpp, pylance and LanceDB-node on one file-format-2.0 dataset pylance wrote.
(test_oracle_written.py adds seeded random predicates over random schemas.)"""

from __future__ import annotations

import lance
import pyarrow as pa
import pytest

N = 12


def _table() -> pa.Table:
    ints = range(N)
    return pa.table({
        "rid": pa.array(ints, pa.int64()),
        "ts_s": pa.array([-20_000_000_000 + i * 4_000_000_000 for i in ints],
                         pa.int64()).cast(pa.timestamp("s")),
        "ts_ms": pa.array([981_173_106_789 + i for i in ints], pa.int64()).cast(pa.timestamp("ms")),
        "ts_us": pa.array([i * 2_000_000_000_000_000 for i in ints],
                          pa.int64()).cast(pa.timestamp("us")),
        "ts_ns": pa.array([i * 3_600_000_000_000 for i in ints], pa.int64()).cast(pa.timestamp("ns")),
        "ts_tz": pa.array([i * 3_600_000_000 for i in ints],
                          pa.int64()).cast(pa.timestamp("us", "America/New_York")),
        "ts_utc": pa.array([i * 3_600_000 for i in ints], pa.int64()).cast(pa.timestamp("ms", "UTC")),
        "d": pa.array([18_000 + i * 100 for i in ints], pa.int32()).cast(pa.date32()),
        "u64": pa.array([2**63 + i if i % 2 else i for i in ints], pa.uint64()),
        "i8": pa.array([-128 + i * 23 for i in ints], pa.int8()),
        "f32": pa.array([0.1 * i for i in ints], pa.float32()),
        "f64": pa.array([0.1 * i for i in ints], pa.float64()),
        "s": pa.array(["it's", "a", "B", "é", "z", None, "", "ab", "abc", "漢", "Z", "a'b"]),
        "ls": pa.array(["x" * i for i in ints], pa.large_utf8()),
        "b": pa.array([i % 3 == 0 if i % 4 else None for i in ints], pa.bool_()),
        "n": pa.array([i if i % 3 else None for i in ints], pa.int32()),
        "st": pa.StructArray.from_arrays(
            [pa.array([i if i % 2 else None for i in ints], pa.int32()),
             pa.array([str(i) for i in ints])], names=["x", "y"]),
    })


AGREED = [
    # timestamps (naive) and dates, literals of several precisions
    "ts_ms = timestamp '2001-02-03 04:05:06.789'",
    "ts_ms > timestamp '2001-02-03 04:05:06.7895'",
    "ts_s < timestamp '1970-01-01'",
    "ts_s < date '1970-01-01'",
    "ts_s >= timestamp '1969-05-14 08:53:20.5'",
    # (Real Lance truncates literals to microseconds: '...09:00:00.000000001' would
    # compare as 09:00:00 there, so no nanosecond digits here.)
    "ts_ns >= timestamp '1970-01-01 05:00:00' AND ts_ns < timestamp '1970-01-01 09:00:00.000001'",
    "ts_us IN (timestamp '1970-01-01 00:00:00', timestamp '2033-05-18 03:33:20')",
    "d >= date '2020-02-29'",
    "d > timestamp '2020-01-01 12:00:00'",
    "d IN (date '2019-04-14', date '2019-07-23')",
    "ts_utc >= timestamp '1970-01-01 03:00:00'",
    # integers, unsigned beyond int64, floats
    "u64 > 9223372036854775807",
    "u64 < 5",
    "i8 >= -128 AND i8 < 0",
    "f32 = 0.1",
    "f32 = 0.30000001192092896",
    "f32 > 0.3",
    "f64 = 0.30000000000000004",
    "f64 > 3",
    "f64 > 1.5e-1",
    # strings: quotes, byte order, unicode, empty
    "s = 'it''s'",
    "s < 'b'",
    "s > 'Z'",
    "s >= 'é'",
    "s IN ('a', 'a''b')",
    "s != ''",
    "ls > 'xxxx'",
    # NULL logic
    "n IN (1, NULL)",
    "n NOT IN (1, NULL)",
    "NOT (n IN (1, 2))",
    "n = NULL",
    "n != NULL",
    "NULL IS NULL",
    "n is not null",
    "s IS NOT NULL AND NOT (s = 'a')",
    # booleans
    "b", "NOT b", "b = TRUE", "b != FALSE", "b IS NULL",
    # struct members, literal on the left, precedence, quoting, case
    "st.x > 5", "st.y = '3'", "st.x IS NULL",
    "3 < n",
    "rid >= 2 AND rid <= 5 OR rid = 11",
    "NOT rid = 3 AND rid < 5",
    "`rid` < 3",
    "RID < 3",
]

OUT_OF_NS_RANGE = [
    "ts_us < timestamp '2500-01-01 00:00:00'",
    "ts_s > timestamp '1500-06-01 12:00:00'",
    "ts_ms < timestamp '2500-06-01 12:00:00'",
    "ts_us = timestamp '2033-05-18 03:33:20' OR ts_us > timestamp '9999-12-31 23:59:59'",
    # beyond a nanosecond column the literal is NULL: nothing matches, not even with NOT
    "ts_ns < timestamp '2500-01-01 00:00:00'",
    "NOT (ts_ns > timestamp '1500-01-01 00:00:00')",
    "ts_ns IN (timestamp '2500-01-01 00:00:00', timestamp '1970-01-01 00:00:00')",
]

# (literal without a zone, the same instant with America/New_York's offset in 1969/1970)
ZONED_NAIVE_LITERAL = [
    ("ts_tz > timestamp '1970-01-01 05:00:00'", "ts_tz > timestamp '1970-01-01 05:00:00-05:00'"),
    ("ts_tz = timestamp '1969-12-31 19:00:00'", "ts_tz = timestamp '1969-12-31 19:00:00-05:00'"),
    ("ts_tz IN (timestamp '1969-12-31 19:00:00', timestamp '1969-12-31 20:00:00')",
     "ts_tz IN (timestamp '1969-12-31 19:00:00-05:00', timestamp '1970-01-01 01:00:00Z')"),
]


@pytest.fixture(scope="module")
def predicate_dataset(session_dir, node):
    """The dataset, and node's counts for every predicate of this file."""
    uri = session_dir / "predicates.lance"
    lance.write_dataset(_table(), str(uri), data_storage_version="2.0")
    every = AGREED + OUT_OF_NS_RANGE + [naive for naive, _ in ZONED_NAIVE_LITERAL]
    counts = node.run_ok([{"op": "count", "uri": uri, "filter": p} for p in every])
    return uri, dict(zip(every, counts))


def _check(predicate_dataset, interop, predicate, ours=None):
    """lance-cpp on `ours` (default: the same predicate) answers what pylance and node
    answer on `predicate`."""
    uri, node_counts = predicate_dataset
    ours = ours or predicate
    want = lance.dataset(str(uri)).count_rows(filter=predicate)
    assert node_counts[predicate] == want, "the oracles disagree"
    assert interop.count(uri, filter=ours) == want, ours
    got = interop.read(uri, filter=ours, columns=["rid"])
    assert sorted(got.column("rid").to_pylist()) == sorted(
        lance.dataset(str(uri)).to_table(filter=predicate, columns=["rid"]).column("rid").to_pylist())


@pytest.mark.parametrize("predicate", AGREED)
def test_predicate_agrees_with_real_lance(predicate_dataset, interop, predicate):
    _check(predicate_dataset, interop, predicate)


@pytest.mark.parametrize("predicate", OUT_OF_NS_RANGE)
def test_timestamp_literal_outside_nanosecond_range(predicate_dataset, interop, predicate):
    """Timestamp literals before 1677-09-21 or after 2262-04-11 compare with s/ms/us
    columns; against a ns column the literal's cast overflows to NULL, in real Lance as in
    lance-cpp."""
    _check(predicate_dataset, interop, predicate)


@pytest.mark.parametrize("naive,with_offset", ZONED_NAIVE_LITERAL)
def test_naive_timestamp_literal_on_zoned_column(predicate_dataset, interop, naive,
                                                 with_offset):
    """Real Lance reads a zone-less timestamp literal compared with a column of a named
    time zone as wall-clock time in that zone (here America/New_York, UTC-5 in January
    1970). lance-cpp has no timezone database: it refuses such a literal (NotImplemented,
    asking for an offset), and the literal written with the offset finds the rows real
    Lance finds for the zone-less one. (Real Lance itself mis-reads literals *with* an
    offset on zoned columns: it converts them to UTC, then reads that as local time again,
    so lance-cpp's instants cannot be checked against it directly.)"""
    proc = interop.run("count", predicate_dataset[0], "--filter", naive, check=False)
    assert proc.returncode != 0, proc.stdout
    assert "NotImplemented" in proc.stderr, proc.stderr
    assert ("comparing column 'ts_tz' (timestamp[us, tz=America/New_York]) with a timestamp "
            "literal without a zone needs timezone rules; write the literal with an offset, "
            "e.g. '") in proc.stderr, proc.stderr
    suggested = proc.stderr.split("e.g. '")[1].split("'")[0]
    assert f"timestamp '{suggested}'" in with_offset, (suggested, with_offset)
    _check(predicate_dataset, interop, naive, ours=with_offset)


FIXED_OFFSET = [
    "ts_fix >= timestamp '1969-12-31 20:00:00'",
    "ts_fix IN (timestamp '1969-12-31 16:00:00', timestamp '1969-12-31 19:00:00')",
    "ts_ist > timestamp '1970-01-01 05:30:00'",
    "ts_ist = timestamp '1970-01-01 07:30:00'",
    "ts_gmt8 < timestamp '1969-12-31 18:00:00'",
    "ts_gmt >= timestamp '1970-01-01 03:00:00'",
]


@pytest.fixture(scope="module")
def fixed_offset_dataset(session_dir):
    """Columns of fixed-offset and UTC zones (pylance only: LanceDB-node panics opening a
    dataset with a fixed-offset zone)."""
    uri = session_dir / "predicates_fixed_offset.lance"
    def hours(per_second):
        return pa.array([i * 3_600 * per_second for i in range(N)], pa.int64())
    lance.write_dataset(pa.table({
        "rid": pa.array(range(N), pa.int64()),
        "ts_fix": hours(1).cast(pa.timestamp("s", "-08:00")),
        "ts_ist": hours(1_000_000).cast(pa.timestamp("us", "+05:30")),
        "ts_gmt8": hours(1).cast(pa.timestamp("s", "Etc/GMT+8")),
        "ts_gmt": hours(1_000).cast(pa.timestamp("ms", "GMT")),
    }), str(uri), data_storage_version="2.0")
    return uri


@pytest.mark.parametrize("predicate", FIXED_OFFSET)
def test_naive_timestamp_literal_on_fixed_offset_column(fixed_offset_dataset, interop,
                                                        predicate):
    """A zone-less literal is local time in a fixed-offset (or UTC) column's zone."""
    uri = fixed_offset_dataset
    want = lance.dataset(str(uri)).to_table(filter=predicate, columns=["rid"])
    assert want.num_rows not in (0, N), "a predicate that tells zones apart"
    assert interop.count(uri, filter=predicate) == want.num_rows, predicate
    got = interop.read(uri, filter=predicate, columns=["rid"])
    assert sorted(got.column("rid").to_pylist()) == sorted(want.column("rid").to_pylist())
