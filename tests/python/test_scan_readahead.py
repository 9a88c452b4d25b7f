# SPDX-License-Identifier: Apache-2.0
"""Scan read-ahead (ScanOptions::fragment_readahead / batch_readahead; docs/architecture.md,
"Threads and memory"): whatever the read-ahead, a scan returns exactly what real Lance
returns, in the same order, on a dataset of many fragments with deletions, filters, offsets,
limits and row ids."""

import lance
import pyarrow as pa
import pytest

from conftest import load

lance_cpp = load("lance_cpp")

ROWS = 20_000


@pytest.fixture(scope="module")
def uri(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("readahead") / "t.lance")
    table = pa.table({"id": pa.array(range(ROWS), pa.int64()),
                      "s": pa.array([f"row-{i}" for i in range(ROWS)])})
    # 20 fragments of 1000 rows, written by real Lance, with deletions in some of them.
    lance.write_dataset(table, path, max_rows_per_file=1000, max_rows_per_group=250,
                        data_storage_version="2.1")
    lance.dataset(path).delete("id % 7 = 0 OR (id >= 3000 AND id < 4000)")
    return path


SCANS = [
    dict(),
    dict(filter="id % 3 = 1"),
    dict(offset=4321),
    dict(offset=2500, limit=3000),
    dict(limit=17),
    dict(filter="id > 15000", offset=10, limit=500),
    dict(columns=["s"], with_row_id=True),
    dict(filter="s LIKE 'row-1%'", columns=["id"]),
]


@pytest.mark.parametrize("scan", SCANS, ids=[str(s) for s in SCANS])
@pytest.mark.parametrize("readahead", [(1, 1), (2, 3), (8, 16)])
def test_readahead_never_changes_results(uri, scan, readahead):
    expected = lance.dataset(uri).to_table(**scan)
    frag, batch = readahead
    got = lance_cpp.dataset(uri).to_table(batch_size=300, fragment_readahead=frag,
                                          batch_readahead=batch, **scan)
    assert got.num_rows == expected.num_rows
    assert got.equals(expected), f"{scan} with read-ahead {readahead}"
    # Streaming gives the same rows too (batches handed over one by one).
    batches = list(lance_cpp.dataset(uri).to_batches(batch_size=300, fragment_readahead=frag,
                                                     batch_readahead=batch, **scan))
    streamed = pa.Table.from_batches(batches, schema=got.schema) if batches else got.slice(0, 0)
    assert streamed.equals(got)


def test_abandoning_a_scan_midway_is_clean(uri):
    # Tasks in flight when the reader goes away finish or are dropped; nothing leaks into
    # the next scan.
    for _ in range(5):
        reader = lance_cpp.dataset(uri).scanner(batch_size=100, fragment_readahead=8,
                                                batch_readahead=8).to_reader()
        first = reader.read_next_batch()
        assert first.num_rows > 0
        del reader
    assert lance_cpp.dataset(uri).count_rows() == lance.dataset(uri).count_rows()


@pytest.mark.parametrize("bad", [0, -1, 1.5, True])
def test_readahead_must_be_a_positive_integer(uri, bad):
    ds = lance_cpp.dataset(uri)
    with pytest.raises(ValueError, match="fragment_readahead must be a positive integer"):
        ds.to_table(fragment_readahead=bad)
    with pytest.raises(ValueError, match="batch_readahead must be a positive integer"):
        ds.scanner(batch_readahead=bad)
