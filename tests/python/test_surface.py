# SPDX-License-Identifier: Apache-2.0
"""pylance's read-only LanceDataset surface on lance_cpp, side by side with pylance 14.0.2
on the same datasets: data_stats (bytes on disk per field), dataset_stats, sample,
_take_rows, slice, to_pandas (dataset, scanner, fragment), fragments, indices and the
cheap properties."""

import random
import warnings

import pyarrow as pa
import pytest

from _indices import assert_same_indices
from conftest import Impl


def _table(n=1000):
    return pa.table({
        "a": pa.array(range(n), pa.int64()),
        "s": [None if i % 7 == 3 else f"s{i}" for i in range(n)],
        "st": [{"x": i, "y": str(i)} for i in range(n)],
        "l": [[i, i + 1] if i % 5 else None for i in range(n)],
        "f": pa.array([i / 3 for i in range(n)], pa.float32()),
    })


def _stats(ds):
    return [(f.id, f.bytes_on_disk) for f in ds.stats.data_stats().fields]


def _write_both(tmp_path, writer, version, deletes=True):
    """The same dataset written by `writer` (pylance or lance_cpp): 4 fragments, some
    rows deleted; returns its uri."""
    uri = str(tmp_path / f"{writer.name}-{version}.lance")
    writer.mod.write_dataset(_table(), uri, data_storage_version=version,
                             max_rows_per_file=300)
    if deletes:
        writer.mod.dataset(uri).delete("a % 10 = 3")
    return uri


@pytest.mark.parametrize("version", ["2.0", "2.1", "2.2"])
@pytest.mark.parametrize("writer", ["pylance", "lance_cpp"])
def test_data_stats_equal_pylance(tmp_path, both, writer, version):
    uri = _write_both(tmp_path, both[writer], version)
    pl = both["pylance"].mod.dataset(uri)
    cpp = both["lance_cpp"].mod.dataset(uri)
    expected = _stats(pl)
    assert _stats(cpp) == expected
    assert len(expected) == 8 and sum(b for _, b in expected) > 0
    stats = cpp.stats.data_stats()
    assert type(stats).__name__ == "DataStatistics"
    assert type(stats.fields[0]).__name__ == "FieldStatistics"
    assert stats == both["lance_cpp"].mod.DataStatistics(
        fields=[both["lance_cpp"].mod.FieldStatistics(id=i, bytes_on_disk=b)
                for i, b in expected])
    for max_rows in (1024, 300, 200):
        assert cpp.stats.dataset_stats(max_rows) == pl.stats.dataset_stats(max_rows)
    assert cpp.stats.dataset_stats() == {"num_deleted_rows": 100, "num_fragments": 4,
                                         "num_small_files": 4}


def test_data_stats_after_mixed_appends(tmp_path, both):
    """pylance writes 2.1, lance_cpp appends, pylance appends: both count every file."""
    uri = str(tmp_path / "mixed.lance")
    both["pylance"].mod.write_dataset(_table(200), uri, data_storage_version="2.1")
    both["lance_cpp"].mod.write_dataset(_table(300), uri, mode="append")
    both["pylance"].mod.write_dataset(_table(100), uri, mode="append")
    pl = both["pylance"].mod.dataset(uri)
    cpp = both["lance_cpp"].mod.dataset(uri)
    assert _stats(cpp) == _stats(pl)
    assert cpp.stats.dataset_stats() == pl.stats.dataset_stats()


def test_sample_picks_the_rows_pylance_picks(tmp_path, both):
    uri = _write_both(tmp_path, both["pylance"], "2.2")
    pl = both["pylance"].mod.dataset(uri)
    cpp = both["lance_cpp"].mod.dataset(uri)
    for seed, randomize in ((1, True), (2, False), (3, True)):
        random.seed(seed)
        expected = pl.sample(25, columns=["a", "s"], randomize_order=randomize)
        random.seed(seed)
        got = cpp.sample(25, columns=["a", "s"], randomize_order=randomize)
        assert got.to_pydict() == expected.to_pydict()
        assert got.schema.names == expected.schema.names
        assert got.num_rows == 25
    random.seed(9)
    whole = cpp.sample(900)
    assert sorted(whole.column("a").to_pylist()) == pl.to_table().column("a").to_pylist()
    for impl in (pl, cpp):
        with pytest.raises(ValueError):
            impl.sample(901)


def test_take_rows_by_address(tmp_path, both):
    uri = _write_both(tmp_path, both["pylance"], "2.1")
    pl = both["pylance"].mod.dataset(uri)
    cpp = both["lance_cpp"].mod.dataset(uri)
    f1, f3 = 1 << 32, 3 << 32
    addresses = [0, f1 | 3, f1 | 2, 5, f3 | 99, 13, f1 | 4, 0]  # 3, 13, f1|3 deleted
    for columns in (None, ["s"], ["st", "a"], ["a", "_rowid"], ["a", "_rowaddr"],
                    ["_rowaddr", "_rowid"]):
        expected = pl._take_rows(addresses, columns=columns)
        got = cpp._take_rows(addresses, columns=columns)
        assert got.to_pydict() == expected.to_pydict(), columns
        assert got.schema.names == expected.schema.names
    assert cpp._take_rows(pa.array(addresses, pa.uint64())).num_rows == 6
    for impl in (pl, cpp):
        with pytest.raises((ValueError, OSError)):
            impl._take_rows([7 << 32])
        with pytest.raises((ValueError, OSError)):
            impl._take_rows([f1 | 300])
    # The ids a scan hands out take back the same rows.
    scanned = cpp.to_table(columns=["a"], with_row_id=True, filter="a > 880")
    back = cpp._take_rows(scanned.column("_rowid"), columns=["a"])
    assert back.column("a").to_pylist() == scanned.column("a").to_pylist()


def test_head_slice_and_to_pandas(tmp_path, both):
    uri = _write_both(tmp_path, both["pylance"], "2.2")
    pl = both["pylance"].mod.dataset(uri)
    cpp = both["lance_cpp"].mod.dataset(uri)
    assert cpp.head(7).equals(pl.head(7))
    assert cpp.head(5, columns=["a"], filter="a > 100").equals(
        pl.head(5, columns=["a"], filter="a > 100"))
    assert cpp.slice(290, 310).equals(pl.slice(290, 310))
    assert cpp.slice(5, 5, columns=["s"]).equals(pl.slice(5, 5, columns=["s"]))
    for impl in (pl, cpp):
        with pytest.raises(ValueError):
            impl.slice(-1, 3)
        with pytest.raises(ValueError):
            impl.slice(4, 3)
    expected = pl.to_pandas(columns=["a", "s"], filter="a < 50", limit=20, offset=3)
    got = cpp.to_pandas(columns=["a", "s"], filter="a < 50", limit=20, offset=3)
    assert got.equals(expected)
    # Scan arguments given as keywords, pandas' own arguments passed through.
    got = cpp.to_pandas(columns=["a"], with_row_id=True, use_threads=False)
    assert got.equals(pl.to_pandas(columns=["a"], with_row_id=True, use_threads=False))
    assert cpp.scanner(filter="a > 990").to_pandas().equals(
        pl.scanner(filter="a > 990").to_pandas())
    scanner = cpp.scanner(columns=["a"], filter="a > 500")
    assert scanner.head(4).equals(pl.scanner(columns=["a"], filter="a > 500").head(4))
    assert scanner.dataset_schema == pl.schema
    assert sum(b.num_rows for b in scanner.scan_batches()) == pl.count_rows("a > 500")
    for s in (scanner, pl.scanner()):
        with pytest.raises(NotImplementedError):
            s.take([0])
    with pytest.raises(NotImplementedError, match="explain_plan"):
        scanner.explain_plan()
    with pytest.raises(ValueError):
        cpp.to_pandas(blob_mode="nope")


def test_fragments_as_pylance(tmp_path, both):
    uri = _write_both(tmp_path, both["pylance"], "2.1")
    pl = both["pylance"].mod.dataset(uri)
    cpp = both["lance_cpp"].mod.dataset(uri)
    pl_frags, cpp_frags = pl.get_fragments(), cpp.get_fragments()
    assert [f.fragment_id for f in cpp_frags] == [f.fragment_id for f in pl_frags]
    assert list(cpp.fragment_ids()) == list(pl.fragment_ids())
    assert cpp.get_fragment(99) is None and pl.get_fragment(99) is None
    for pf, cf in zip(pl_frags, cpp_frags):
        assert cf.count_rows() == pf.count_rows()
        assert cf.count_rows("a % 2 = 0") == pf.count_rows("a % 2 = 0")
        assert (cf.physical_rows, cf.num_deletions) == (pf.physical_rows, pf.num_deletions)
        assert cf.head(3).equals(pf.head(3))
        assert cf.take([0, 2, 5], columns=["a", "s"]).equals(
            pf.take([0, 2, 5], columns=["a", "s"]))
        assert cf.to_table(columns=["st"], filter="a > 400").equals(
            pf.to_table(columns=["st"], filter="a > 400"))
        assert cf.scanner(columns=["a"], limit=4, offset=2).to_table().equals(
            pf.scanner(columns=["a"], limit=4, offset=2).to_table())
        assert cf.to_pandas(columns=["a", "f"]).equals(pf.to_pandas(columns=["a", "f"]))
        assert cf.to_pandas(filter="a > 100", limit=5).equals(
            pf.to_pandas(filter="a > 100", limit=5))
        assert cf.schema == pf.schema
        for frag in (pf, cf):
            with pytest.raises(NotImplementedError):
                frag.partition_expression
            with pytest.raises(NotImplementedError):
                frag.physical_schema
        session = cf.open_session(columns=["a"])
        assert session.take([0, 2]).to_pydict() == \
            pf.open_session(columns=["a"]).take([0, 2]).to_pydict()
    one = cpp.get_fragment(2)
    assert one.to_table().equals(pl.get_fragment(2).to_table())


def test_read_only_properties(tmp_path, both):
    uri = _write_both(tmp_path, both["pylance"], "2.2")
    meta_uri = str(tmp_path / "meta.lance")
    both["pylance"].mod.write_dataset(
        _table(10).replace_schema_metadata({"owner": "ada"}), meta_uri)
    for u in (uri, meta_uri):
        pl = both["pylance"].mod.dataset(u)
        cpp = both["lance_cpp"].mod.dataset(u)
        assert cpp.max_field_id == pl.max_field_id
        assert cpp.has_stable_row_ids is pl.has_stable_row_ids is False
        assert cpp.has_index is pl.has_index is False
        assert cpp.describe_indices() == pl.describe_indices() == []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            assert cpp.list_indices() == pl.list_indices() == []
        assert cpp.schema_metadata == pl.schema_metadata
        assert cpp.initial_storage_options == pl.initial_storage_options
        for impl in (pl, cpp):
            with pytest.raises(NotImplementedError):
                impl.partition_expression
            with pytest.raises(NotImplementedError):
                impl.replace_schema(pl.schema)
        got, expected = cpp.get_version(), pl.get_version()
        assert (got["version"], got["metadata"]) == (expected["version"], expected["metadata"])
    assert both["lance_cpp"].mod.dataset(meta_uri).schema_metadata == {"owner": "ada"}


def test_validate(tmp_path, both):
    uri = _write_both(tmp_path, both["lance_cpp"], "2.1")
    pl = both["pylance"].mod.dataset(uri)
    cpp = both["lance_cpp"].mod.dataset(uri)
    for ds in (pl, cpp):
        assert ds.validate() is None
        assert all(f.validate() is None for f in ds.get_fragments())
    # Fragment 0's data file replaced by fragment 3's (100 rows, not 300).
    frags = cpp.get_fragments()
    data = tmp_path / "lance_cpp-2.1.lance" / "data"
    (data / frags[0].data_files()[0].path).write_bytes(
        (data / frags[3].data_files()[0].path).read_bytes())
    for ds in (both["pylance"].mod.dataset(uri), both["lance_cpp"].mod.dataset(uri)):
        with pytest.raises(OSError):
            ds.validate()
        with pytest.raises(OSError):
            ds.get_fragments()[0].validate()
        assert ds.get_fragments()[1].validate() is None


def test_checkout_latest(tmp_path, both):
    uri = str(tmp_path / "latest.lance")
    both["pylance"].mod.write_dataset(_table(10), uri)
    handles = {n: both[n].mod.dataset(uri) for n in ("pylance", "lance_cpp")}
    both["pylance"].mod.write_dataset(_table(5), uri, mode="append")
    for name, ds in handles.items():
        assert ds.version == 1 and ds.count_rows() == 10, name
        assert ds.checkout_latest() is None
        assert ds.version == 2 and ds.count_rows() == 15, name


def test_indices_built_by_pylance(tmp_path, both):
    uri = str(tmp_path / "indexed.lance")
    pl = both["pylance"].mod.write_dataset(_table(300), uri, max_rows_per_file=100)
    pl.create_scalar_index("a", "BTREE")
    pl.create_scalar_index("s", "BITMAP", name="by_s")
    # lance_cpp appends and deletes keep them.
    cpp = both["lance_cpp"].mod.dataset(uri)
    cpp.delete("a = 4")
    both["lance_cpp"].mod.write_dataset(_table(10), uri, mode="append")
    pl = both["pylance"].mod.dataset(uri)
    cpp = both["lance_cpp"].mod.dataset(uri)
    got = assert_same_indices(cpp, pl)
    assert [i["name"] for i in got] == ["a_idx", "by_s"]
    with pytest.raises(NotImplementedError, match="describe_indices"):
        cpp.describe_indices()
    with pytest.raises(NotImplementedError, match="index_stats"):
        cpp.stats.index_stats("a_idx")
    assert _stats(cpp) == _stats(pl)


def test_exports(lance_cpp):
    import lance

    for name in ("DataStatistics", "FieldStatistics", "LanceFragment"):
        assert name in lance.__all__ and name in lance_cpp.__all__
        assert hasattr(lance_cpp, name)
    assert lance_cpp.LanceFragment is lance_cpp.fragment.LanceFragment
    assert Impl("lance_cpp").mod is lance_cpp
