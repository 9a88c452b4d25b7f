# SPDX-License-Identifier: Apache-2.0
"""Maintenance operations (issue 12 item 5): compaction, cleanup, restore, tags, checkout
by tag / timestamp, config and metadata -- run by real pylance 14 and by lance_cpp on
copies of the same dataset, which must give equal tables and equal metrics / stats, and
sequences crossing the engines."""

import os
import shutil
import subprocess
import sys
import threading
import time
from datetime import datetime, timedelta

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import lance  # real pylance: the oracle

_BUILD = os.environ.get("LANCE_PYTHON_BUILD_DIR")
if _BUILD and _BUILD not in sys.path:
    sys.path.insert(0, _BUILD)
import lance_cpp as lc  # noqa: E402 - from the build tree (a missing build fails)


def _data(n=100, start=0):
    return pa.table({"a": pa.array(range(start, start + n), pa.int64()),
                     "b": pa.array([f"s{i}" for i in range(start, start + n)])})


def _sorted(t):
    return t.sort_by("a")


def _pylance_dataset(path, n=100, rows_per_file=20, version="2.0"):
    """A dataset written by pylance: n rows in files of rows_per_file, a few deletes."""
    lance.write_dataset(_data(n), path, max_rows_per_file=rows_per_file,
                        data_storage_version=version)
    return str(path)


def _twins(tmp_path, build):
    """Two byte-identical copies (mtimes kept) of a dataset `build` writes."""
    a = tmp_path / "pylance"
    build(a)
    b = tmp_path / "lance_cpp"
    shutil.copytree(a, b, copy_function=shutil.copy2)
    return str(a), str(b)


def _files(path):
    root = shutil.os.path.abspath(path)
    out = set()
    for dirpath, _, names in shutil.os.walk(root):
        for n in names:
            rel = shutil.os.path.relpath(shutil.os.path.join(dirpath, n), root)
            if not rel.startswith("_versions/") and not rel.startswith("_refs/"):
                out.add(rel)
    return out


def _metrics(m):
    return (m.fragments_removed, m.fragments_added, m.files_removed, m.files_added)


# ---- compaction ---------------------------------------------------------------------

COMPACT_CASES = [
    # (deletes, options)
    ([], dict(target_rows_per_fragment=50)),
    (["a < 5"], dict(target_rows_per_fragment=50)),
    (["a >= 40 and a < 55"], dict(target_rows_per_fragment=30)),
    (["a = 3"], dict(target_rows_per_fragment=10)),  # only materialisation (5% < 10%)
    (["a < 3"], dict(target_rows_per_fragment=10, materialize_deletions_threshold=0.1)),
    (["a < 3"], dict(target_rows_per_fragment=10, materialize_deletions=False)),
    (["a < 30", "a > 90"], dict(target_rows_per_fragment=1000, max_rows_per_group=7)),
    ([], dict(target_rows_per_fragment=20)),  # nothing to do
]


@pytest.mark.parametrize("deletes,options", COMPACT_CASES)
def test_compact_files_matches_pylance(tmp_path, deletes, options):
    def build(p):
        _pylance_dataset(p)
        ds = lance.dataset(str(p))
        for d in deletes:
            ds.delete(d)

    a, b = _twins(tmp_path, build)
    theirs = lance.dataset(a)
    ours = lc.dataset(b)
    m_theirs = theirs.optimize.compact_files(**options)
    m_ours = ours.optimize.compact_files(**options)
    assert _metrics(m_ours) == _metrics(m_theirs)
    t_theirs = lance.dataset(a).to_table()
    t_ours = lance.dataset(b).to_table()  # pylance reads what we committed
    assert _sorted(t_ours).equals(_sorted(t_theirs))
    assert lc.dataset(b).to_table().equals(t_ours)
    # Same fragment layout (row counts, deletions gone where materialised).
    shape = lambda p: sorted((f.count_rows(), f.metadata.deletion_file is not None)
                             for f in lance.dataset(p).get_fragments())
    assert shape(b) == shape(a)
    if m_ours.fragments_removed:
        # Two versions, as pylance: ReserveFragments, then the Rewrite.
        assert ours.version == lc.dataset(b).version
        assert lance.dataset(b).version == lance.dataset(a).version == 1 + 2 + len(deletes)


def test_compact_files_v22_and_every_version_readable_by_pylance(tmp_path):
    uri = str(tmp_path / "ds")
    ds = lc.write_dataset(_data(60), uri, max_rows_per_file=10, data_storage_version="2.2")
    ds.delete("a % 7 = 0")
    ds.optimize.compact_files(target_rows_per_fragment=25)
    lc.write_dataset(_data(5, 60), uri, mode="append")
    ds = lc.dataset(uri)
    ds.optimize.compact_files(target_rows_per_fragment=1000)
    assert len(ds.get_fragments()) == 1
    for v in lance.dataset(uri).versions():
        theirs = lance.dataset(uri, version=v["version"]).to_table()
        ours = lc.dataset(uri, version=v["version"]).to_table()
        assert ours.equals(theirs)
    assert lance.dataset(uri).count_rows() == 60 - 9 + 5


def test_compact_files_transaction_is_a_rewrite(tmp_path):
    uri = _pylance_dataset(tmp_path / "ds")
    ds = lc.dataset(uri)
    ds.optimize.compact_files(target_rows_per_fragment=1000)
    # pylance reads our transaction: a Rewrite with one group of 5 -> 1 fragments.
    txn = lance.dataset(uri).read_transaction(ds.version) \
        if hasattr(lance.LanceDataset, "read_transaction") else None
    if txn is not None:
        op = txn.operation
        assert type(op).__name__ == "Rewrite"
        assert len(op.groups) == 1
        assert len(op.groups[0].old_fragments) == 5
        assert len(op.groups[0].new_fragments) == 1
    else:  # pylance 14 exposes it through get_transactions
        txns = lance.dataset(uri).get_transactions(1)
        assert type(txns[0].operation).__name__ == "Rewrite"


# ---- conflicts: compaction vs concurrent append / delete -----------------------------

def _race(tmp_path, engine, concurrent):
    """Opens the dataset with `engine`, lets pylance commit `concurrent`, then compacts
    the stale handle. Returns (outcome, table) where outcome is "ok" or "conflict"."""
    uri = _pylance_dataset(tmp_path / engine)
    mod = lance if engine == "pylance" else lc
    stale = mod.dataset(uri)
    concurrent(lance.dataset(uri), uri)
    try:
        stale.optimize.compact_files(target_rows_per_fragment=1000)
        outcome = "ok"
    except Exception as e:  # noqa: BLE001 - both engines' conflict errors
        assert "onflict" in str(e) or "retry" in str(e).lower(), str(e)
        outcome = "conflict"
    return outcome, lance.dataset(uri).to_table()


CONCURRENT = {
    "append": lambda ds, uri: lance.write_dataset(_data(10, 100), uri, mode="append",
                                                  data_storage_version="2.0"),
    "delete_same_fragment": lambda ds, uri: ds.delete("a = 3"),
    "update_config": lambda ds, uri: ds.update_config({"k": "v"}),
    "overwrite": lambda ds, uri: lance.write_dataset(_data(7), uri, mode="overwrite",
                                                     data_storage_version="2.0"),
}


@pytest.mark.parametrize("name", sorted(CONCURRENT))
def test_compaction_conflicts_as_pylance(tmp_path, name):
    theirs = _race(tmp_path, "pylance", CONCURRENT[name])
    ours = _race(tmp_path, "lance_cpp", CONCURRENT[name])
    assert ours[0] == theirs[0]
    assert _sorted(ours[1]).equals(_sorted(theirs[1]))


def test_compaction_rebases_over_delete_of_other_fragment(tmp_path):
    # Fragments 0..4 hold 20 rows; target 30 compacts nothing but ... use deletes on a
    # fragment outside the rewritten groups: only fragments 0-1 are small.
    uri = str(tmp_path / "ds")
    lance.write_dataset(_data(40), uri, max_rows_per_file=20, data_storage_version="2.0")
    lance.write_dataset(_data(200, 40), uri, mode="append", max_rows_per_file=200,
                        data_storage_version="2.0")
    stale = lc.dataset(uri)
    lance.dataset(uri).delete("a = 100")  # fragment 2, not a candidate (200 rows)
    m = stale.optimize.compact_files(target_rows_per_fragment=100)
    assert _metrics(m) == (2, 1, 2, 1)
    t = lance.dataset(uri).to_table()
    assert t.num_rows == 239
    assert 100 not in t["a"].to_pylist()


def test_delete_after_concurrent_compaction_is_retryable_conflict(tmp_path):
    uri = _pylance_dataset(tmp_path / "ds")
    stale = lc.dataset(uri)
    lance.dataset(uri).optimize.compact_files(target_rows_per_fragment=1000)
    # Our delete planned on the old fragments: pylance's compaction rewrote them.
    with pytest.raises(lc.LanceIOError, match="Commit conflict"):
        stale._native.delete("a = 1")
    # The public delete re-plans on the latest version and succeeds.
    stale.delete("a = 1")
    assert lance.dataset(uri).count_rows() == 99


# ---- restore, checkout by tag / timestamp -------------------------------------------

def test_restore_matches_pylance(tmp_path):
    def build(p):
        _pylance_dataset(p)
        ds = lance.dataset(str(p))
        ds.delete("a < 50")
        lance.write_dataset(_data(5, 500), str(p), mode="append")

    a, b = _twins(tmp_path, build)
    lance.dataset(a, version=1).restore()
    lc.dataset(b, version=1).restore()
    ta, tb = lance.dataset(a), lance.dataset(b)
    assert tb.version == ta.version == 4
    assert tb.to_table().equals(ta.to_table())
    assert lc.dataset(b).to_table().equals(ta.to_table())
    assert [f.fragment_id for f in tb.get_fragments()] == \
        [f.fragment_id for f in ta.get_fragments()]
    # Both record a Restore of version 1.
    assert type(tb.get_transactions(1)[0].operation).__name__ == "Restore"
    assert tb.get_transactions(1)[0].operation.version == 1


def test_checkout_by_number_tag_and_timestamp(tmp_path):
    uri = _pylance_dataset(tmp_path / "ds")
    ds = lc.dataset(uri)
    time.sleep(0.05)
    stamp = datetime.now()
    time.sleep(0.05)
    ds.delete("a < 10")
    ds.tags.create("before", 1)
    assert lc.dataset(uri, version="before").count_rows() == 100
    assert ds.checkout_version("before").version == 1
    assert ds.checkout_version(stamp).version == 1
    assert ds.checkout_version(datetime.now()).version == 2
    assert lance.dataset(uri, version="before").count_rows() == 100
    # lance.dataset(asof=...) as pylance: the latest version at or before the time.
    assert lc.dataset(uri, asof=stamp).version == lance.dataset(uri, asof=stamp).version == 1
    assert lc.dataset(uri, asof=datetime.now()).version == 2
    with pytest.raises(ValueError):
        lc.dataset(uri, version=1, asof=stamp)
    with pytest.raises(lc.LanceNotFoundError, match="committed at or before"):
        ds.checkout_version(datetime(2000, 1, 1))
    with pytest.raises(lc.LanceNotFoundError, match="Tag nope does not exist"):
        ds.checkout_version("nope")


# ---- tags ----------------------------------------------------------------------------

def test_tags_cross_engines(tmp_path):
    uri = _pylance_dataset(tmp_path / "ds")
    lance.dataset(uri).delete("a < 10")
    theirs = lance.dataset(uri)
    ours = lc.dataset(uri)
    theirs.tags.create("pyl", 1)
    ours.tags.create("cpp", 2)
    lt, lo = theirs.tags.list(), ours.tags.list()
    assert set(lt) == set(lo) == {"pyl", "cpp"}
    for name in lt:
        for key in ("version", "manifest_size", "branch", "metadata"):
            assert lo[name][key] == lt[name][key], (name, key)
        assert abs((lo[name]["created_at"] - lt[name]["created_at"]).total_seconds()) < 1
    assert ours.tags.get_version("pyl") == 1
    assert theirs.tags.get_version("cpp") == 2
    ours.tags.update("pyl", 2)
    assert lance.dataset(uri).tags.get_version("pyl") == 2
    theirs.tags.update("cpp", 1)
    assert ours.tags.get_version("cpp") == 1
    ours.tags.delete("cpp")
    assert set(lance.dataset(uri).tags.list()) == {"pyl"}
    with pytest.raises(lc.LanceAlreadyExistsError, match="Tag pyl already exists"):
        ours.tags.create("pyl", 1)  # exists
    with pytest.raises(lc.LanceNotFoundError, match="Cannot tag version 99"):
        ours.tags.create("x", 99)  # no such version
    with pytest.raises(lc.LanceNotFoundError, match="Tag cpp does not exist"):
        ours.tags.delete("cpp")  # gone
    with pytest.raises(lc.LanceInvalidInputError, match="Invalid tag name 'a/b'"):
        ours.tags.create("a/b", 1)


# ---- cleanup -------------------------------------------------------------------------

def _history(p):
    """Versions 1..5 by pylance: write, delete, append, compact (2 versions)."""
    _pylance_dataset(p)
    ds = lance.dataset(str(p))
    ds.delete("a < 10")
    lance.write_dataset(_data(10, 100), str(p), mode="append", data_storage_version="2.0")
    lance.dataset(str(p)).optimize.compact_files(target_rows_per_fragment=1000)


CLEANUP_CASES = [
    dict(older_than=timedelta(0)),
    dict(retain_versions=2),
    dict(retain_versions=3, older_than=timedelta(0)),
    dict(older_than=timedelta(0), delete_unverified=True),
    dict(older_than=timedelta(days=1)),
]


@pytest.mark.parametrize("kwargs", CLEANUP_CASES)
def test_cleanup_matches_pylance(tmp_path, kwargs):
    a, b = _twins(tmp_path, _history)
    # An unreferenced data file (a failed write): kept unless delete_unverified.
    for p in (a, b):
        shutil.copy2(shutil.os.path.join(p, "data", sorted(shutil.os.listdir(
            shutil.os.path.join(p, "data")))[0]), shutil.os.path.join(p, "data", "stray.lance"))
    s_theirs = lance.dataset(a).cleanup_old_versions(**kwargs)
    s_ours = lc.dataset(b).cleanup_old_versions(**kwargs)
    for key in ("bytes_removed", "old_versions", "data_files_removed",
                "transaction_files_removed", "deletion_files_removed",
                "index_files_removed"):
        assert getattr(s_ours, key) == getattr(s_theirs, key), key
    assert _files(b) == _files(a)
    assert [v["version"] for v in lance.dataset(b).versions()] == \
        [v["version"] for v in lance.dataset(a).versions()]
    for v in lance.dataset(b).versions():
        assert lc.dataset(b, version=v["version"]).to_table().equals(
            lance.dataset(a, version=v["version"]).to_table())


@pytest.mark.parametrize("error", [True, False])
def test_cleanup_tagged_versions_as_pylance(tmp_path, error):
    a, b = _twins(tmp_path, _history)
    lance.dataset(a).tags.create("keep", 2)
    lc.dataset(b).tags.create("keep", 2)
    outcomes = []
    for mod, p in ((lance, a), (lc, b)):
        try:
            s = mod.dataset(p).cleanup_old_versions(older_than=timedelta(0),
                                                    error_if_tagged_old_versions=error)
            outcomes.append(("ok", s.old_versions, s.bytes_removed))
        except Exception as e:  # noqa: BLE001
            assert "tag" in str(e)
            outcomes.append(("error",))
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][0] == ("error" if error else "ok")
    assert _files(a) == _files(b)
    # The tagged version stays fully readable.
    assert lance.dataset(b, version="keep").to_table().equals(
        lance.dataset(a, version="keep").to_table())


def test_pylance_compacts_we_clean_pylance_restores(tmp_path):
    uri = str(tmp_path / "ds")
    lc.write_dataset(_data(50), uri, max_rows_per_file=10, data_storage_version="2.0")
    ours = lc.dataset(uri)
    ours.delete("a < 5")
    lance.dataset(uri).optimize.compact_files(target_rows_per_fragment=1000)
    lc.write_dataset(_data(5, 50), uri, mode="append")
    ours = lc.dataset(uri)
    ours.tags.create("compacted", 4)
    stats = ours.cleanup_old_versions(older_than=timedelta(0),
                                      error_if_tagged_old_versions=False)
    assert stats.old_versions == 3  # versions 1-3 (4 tagged, 5 latest)
    assert [v["version"] for v in lance.dataset(uri).versions()] == [4, 5]
    lance.dataset(uri, version="compacted").restore()
    assert lance.dataset(uri).version == 6
    for v in (4, 5, 6):
        assert lc.dataset(uri, version=v).to_table().equals(
            lance.dataset(uri, version=v).to_table())
    assert lc.dataset(uri).count_rows() == 45


_WRITER = r"""
import sys, lance, pyarrow as pa
uri, rounds = sys.argv[1], int(sys.argv[2])
for i in range(rounds):
    t = pa.table({"a": pa.array(range(1000 + 10 * i, 1010 + 10 * i), pa.int64()),
                  "b": pa.array([f"w{i}"] * 10)})
    lance.write_dataset(t, uri, mode="append", data_storage_version="2.0")
    if i % 3 == 2:
        lance.dataset(uri).delete(f"a = {1000 + 10 * i}")
"""


def test_cleanup_never_removes_what_kept_versions_reference(tmp_path):
    uri = _pylance_dataset(tmp_path / "ds", n=50, rows_per_file=10)
    ours = lc.dataset(uri)
    for i in range(3):
        ours.delete(f"a = {i}")
    # A pylance writer in another process and a lance_cpp writer in a thread commit while
    # cleanup runs again and again.
    proc = subprocess.Popen([sys.executable, "-c", _WRITER, uri, "12"])
    stop = threading.Event()
    errors = []

    def cpp_writer():
        i = 0
        while not stop.is_set() and i < 12:
            try:
                lc.write_dataset(_data(5, 5000 + 5 * i), uri, mode="append")
                lc.dataset(uri).delete(f"a = {5000 + 5 * i}")
            except Exception as e:  # noqa: BLE001 - a conflict is fine, data loss is not
                if "onflict" not in str(e):
                    errors.append(e)
            i += 1

    th = threading.Thread(target=cpp_writer)
    th.start()
    runs = removed = 0
    while proc.poll() is None or th.is_alive():
        removed += lc.dataset(uri).cleanup_old_versions(older_than=timedelta(0)).old_versions
        runs += 1
        # Every version still listed is fully readable by both engines.
        for v in lc.dataset(uri).versions():
            try:
                lc.dataset(uri, version=v["version"]).to_table()
            except Exception as e:  # noqa: BLE001
                # The version may have been cleaned between listing and opening.
                assert "not exist" in str(e) or "NotFound" in type(e).__name__ or \
                    "not found" in str(e).lower(), str(e)
    th.join()
    stop.set()
    assert proc.returncode == 0
    assert not errors, errors
    assert runs > 0 and removed > 0  # cleanup did remove versions while writers ran
    final = lc.dataset(uri)
    final.cleanup_old_versions(older_than=timedelta(0))
    for v in lance.dataset(uri).versions():
        assert lance.dataset(uri, version=v["version"]).to_table().equals(
            lc.dataset(uri, version=v["version"]).to_table())
    t = lance.dataset(uri).to_table()
    assert pc.sum(pc.equal(t["b"], "w10")).as_py() == 10  # pylance appends whole
    assert pc.sum(pc.equal(t["b"], "w11")).as_py() == 9  # ... and its delete applied
    assert t.num_rows == lc.dataset(uri).count_rows()


# ---- config and metadata -------------------------------------------------------------

def test_config_and_metadata_cross_engines(tmp_path):
    uri = _pylance_dataset(tmp_path / "ds")
    ours = lc.dataset(uri)
    assert ours.update_config({"k1": "v1", "k2": "v2"}) == {"k1": "v1", "k2": "v2"}
    assert lance.dataset(uri).config() == {"k1": "v1", "k2": "v2"}
    ours.delete_config_keys(["k1"])
    assert lance.dataset(uri).config() == {"k2": "v2"}
    lance.dataset(uri).update_config({"k3": "v3"})
    assert lc.dataset(uri).config() == {"k2": "v2", "k3": "v3"}
    # None removes a key; replace makes the config exactly the given keys, as pylance.
    copy = str(tmp_path / "copy")
    shutil.copytree(uri, copy, copy_function=shutil.copy2)
    for mod, where in ((lc, uri), (lance, copy)):
        got = mod.dataset(where).update_config({"k2": None, "k4": "v4"})
        assert got == {"k3": "v3", "k4": "v4"}, mod
        got = mod.dataset(where).update_config({"k5": "v5"}, replace=True)
        assert got == {"k5": "v5"}, mod
    assert lance.dataset(uri).config() == {"k5": "v5"}
    ours = lc.dataset(uri)
    ours.replace_schema_metadata({"owner": "me"})
    ours.replace_field_metadata("a", {"unit": "m"})
    schema = lance.dataset(uri).schema
    assert schema.metadata == {b"owner": b"me"}
    assert schema.field("a").metadata == {b"unit": b"m"}
    lance.dataset(uri).replace_schema_metadata({"x": "y"})
    assert lc.dataset(uri).schema.metadata == {b"x": b"y"}
    assert lc.dataset(uri).schema.field("a").metadata == {b"unit": b"m"}
    with pytest.raises(lc.LanceInvalidInputError, match="field nope"):
        lc.dataset(uri).replace_field_metadata("nope", {"a": "b"})
    # Every version reads equal in both engines.
    for v in lance.dataset(uri).versions():
        assert lc.dataset(uri, version=v["version"]).to_table().equals(
            lance.dataset(uri, version=v["version"]).to_table())


def test_versions_metadata_matches_pylance(tmp_path):
    uri = _pylance_dataset(tmp_path / "ds")
    ours = lc.dataset(uri)
    ours.delete("a < 10")
    ours.optimize.compact_files(target_rows_per_fragment=1000)
    ours.tags.create("t", 2)
    mine = lc.dataset(uri).versions()
    theirs = lance.dataset(uri).versions()
    assert [v["version"] for v in mine] == [v["version"] for v in theirs]
    assert [v["metadata"] for v in mine] == [v["metadata"] for v in theirs]


def test_restore_takes_the_restored_versions_indices(tmp_path):
    """Lance's Restore keeps the restored version's index section: an index built after
    rows were deleted must not serve the version where those rows are live again."""
    results = {}
    for name, mod in (("pylance", lance), ("lance_cpp", lc)):
        uri = str(tmp_path / name)
        lance.write_dataset(pa.table({"id": list(range(50))}), uri, max_rows_per_file=10)
        lance.dataset(uri).delete("id < 20")                     # v2
        lance.dataset(uri).create_scalar_index("id", "BTREE")   # v3, built without 0-19
        mod.dataset(uri, version=1).restore()                    # v4 = v1, no index
        ds = lance.dataset(uri)
        results[name] = (ds.version, ds.list_indices(), ds.count_rows("id = 5"),
                         sorted(ds.to_table(filter="id < 3")["id"].to_pylist()))
    assert results["lance_cpp"] == results["pylance"] == (4, [], 1, [0, 1, 2])
    # And the other way: restoring the indexed version keeps its index.
    uri = str(tmp_path / "lance_cpp")
    lc.dataset(uri, version=3).restore()
    assert [i["name"] for i in lance.dataset(uri).list_indices()] == ["id_idx"]
    assert lance.dataset(uri).count_rows("id = 25") == 1

