# SPDX-License-Identifier: Apache-2.0
"""The read-only surface (data_stats, dataset_stats, _take_rows, fragments, indices) on
datasets real Lance wrote or reshaped: the Lance 8.0.0 fixtures (LanceDB-node) and legacy
ones, and lance_cpp datasets that pylance 14.0.2 then evolved (add / drop / alter columns:
several data files per fragment, dropped fields still in the files), compacted and
indexed. lance_cpp must give pylance's answers on each."""

from __future__ import annotations

import sys
from pathlib import Path

import pyarrow as pa
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from v2x_common import SOURCE_DIR, cpp_module  # noqa: E402
from _indices import assert_same_indices  # noqa: E402  tests/python, loaded by conftest

import lance  # noqa: E402  pylance 14.0.2

FIXTURES = sorted(p for d in ("lance-8.0.0", "legacy")
                  for p in (SOURCE_DIR / "tests" / "data" / d).glob("*.lance"))


def _stats(ds):
    return [(f.id, f.bytes_on_disk) for f in ds.stats.data_stats().fields]


def _pylance_opens(path: Path) -> bool:
    try:
        lance.dataset(str(path)).schema
        return True
    except Exception:  # noqa: BLE001 -- a fixture pylance cannot read is not compared
        return False


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_fixture_surface_equals_pylance(path):
    assert FIXTURES, "no fixtures found"
    if not _pylance_opens(path):
        pytest.fail(f"pylance cannot open fixture {path}")
    pl = lance.dataset(str(path))
    cpp = cpp_module().dataset(str(path))
    assert _stats(cpp) == _stats(pl)
    assert cpp.stats.dataset_stats() == pl.stats.dataset_stats()
    assert cpp.max_field_id == pl.max_field_id
    assert cpp.has_index is pl.has_index
    assert [f.fragment_id for f in cpp.get_fragments()] == \
        [f.fragment_id for f in pl.get_fragments()]
    # Row ids from pylance's scan take the same rows back in lance_cpp (compared with
    # the scanned rows: pylance's own _take_rows panics on some fixture types).
    try:
        scanned = pl.to_table(with_row_id=True)
    except Exception:  # noqa: BLE001 -- e.g. dictionary_bad_keys: pylance refuses it
        # lance_cpp refuses it too, as a corrupt file (a Corrupt status: LanceIOError).
        with pytest.raises(cpp_module().LanceIOError, match="Corrupt: Lance file"):
            cpp.to_table()
        return
    rows = scanned.to_pylist()
    picked = list(range(len(rows)))[::3][::-1]
    ids = [rows[i].pop("_rowid") for i in picked]
    if ids:
        got = cpp._take_rows(ids)
        assert got.num_rows == len(ids)
        assert got.to_pylist() == [{k: v for k, v in rows[i].items() if k != "_rowid"}
                                   for i in picked]


def _base_table(n: int, start: int = 0) -> pa.Table:
    return pa.table({
        "id": pa.array(range(start, start + n), pa.int64()),
        "name": [f"n{i}" if i % 4 else None for i in range(start, start + n)],
        "pt": [{"x": float(i), "y": -float(i)} for i in range(start, start + n)],
        "tags": [[str(i % 3)] * (i % 3) for i in range(start, start + n)],
    })


@pytest.mark.parametrize("version", ["2.0", "2.1", "2.2"])
def test_evolved_by_pylance(tmp_path, version):
    cpp_lance = cpp_module()
    uri = str(tmp_path / f"evolved-{version}.lance")
    cpp_lance.write_dataset(_base_table(500), uri, data_storage_version=version,
                            max_rows_per_file=200)
    cpp_lance.write_dataset(_base_table(150, 500), uri, mode="append")
    cpp_lance.dataset(uri).delete("id % 9 = 0")

    def check(step: str) -> None:
        pl = lance.dataset(uri)
        cpp = cpp_lance.dataset(uri)
        assert _stats(cpp) == _stats(pl), step
        assert cpp.stats.dataset_stats(100) == pl.stats.dataset_stats(100), step
        assert cpp.max_field_id == pl.max_field_id, step
        ids = pl.to_table(columns=["id"], with_row_id=True).column("_rowid").to_pylist()
        pick = ids[::17] + ids[:3]
        assert cpp._take_rows(pick).to_pylist() == pl._take_rows(pick).to_pylist(), step
        for pf, cf in zip(pl.get_fragments(), cpp.get_fragments()):
            assert cf.count_rows("id % 2 = 1") == pf.count_rows("id % 2 = 1"), step
            assert cf.head(5).to_pylist() == pf.head(5).to_pylist(), step

    check("written by lance_cpp")
    # Lance's Merge: a second data file per fragment.
    lance.dataset(uri).add_columns({"twice": "id * 2"})
    check("add_columns")
    # Dropped fields stay in the data files; Lance no longer counts them.
    lance.dataset(uri).drop_columns(["name"])
    check("drop_columns")
    lance.dataset(uri).alter_columns({"path": "twice", "name": "double"})
    check("alter_columns")
    lance.dataset(uri).optimize.compact_files(target_rows_per_fragment=400)
    check("compact_files")
    cpp_lance.write_dataset(lance.dataset(uri).to_table().slice(0, 20), uri, mode="append")
    check("appended by lance_cpp")


def test_indices_of_a_lance_cpp_dataset_indexed_by_pylance(tmp_path):
    cpp_lance = cpp_module()
    uri = str(tmp_path / "indexed.lance")
    cpp_lance.write_dataset(_base_table(400), uri, max_rows_per_file=150)
    ds = lance.dataset(uri)
    ds.create_scalar_index("id", "BTREE")
    ds.create_scalar_index("tags", "LABEL_LIST", name="tag_idx")
    cpp_lance.write_dataset(_base_table(10, 400), uri, mode="append")
    pl = lance.dataset(uri)
    cpp = cpp_lance.dataset(uri)
    got = assert_same_indices(cpp, pl)
    # The appended fragment is not covered by the indices, in either.
    assert all(3 not in i["fragment_ids"] for i in got)
