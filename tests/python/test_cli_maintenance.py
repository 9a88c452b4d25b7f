# SPDX-License-Identifier: Apache-2.0
"""The CLI's maintenance verbs (compact, cleanup, tag, restore): --help, JSON output
equal to what pylance 14 returns for the same operation, and results pylance reads."""

import shutil
from datetime import timedelta
from pathlib import Path

import pyarrow as pa
import pytest

import lance
from _cli import run, run_json


def _data(n, start=0):
    return pa.table({"a": pa.array(range(start, start + n), pa.int64())})


def _twins(tmp_path, build):
    a, b = tmp_path / "pylance", tmp_path / "cli"
    build(a)
    shutil.copytree(a, b, copy_function=shutil.copy2)
    return str(a), str(b)


@pytest.mark.parametrize("verb", ["compact", "cleanup", "tag", "restore"])
def test_help(verb):
    out = run(verb, "--help").stdout
    assert out.startswith(f"Usage: lance-cpp {verb} URI")


def test_compact_matches_pylance(tmp_path):
    def build(p):
        lance.write_dataset(_data(200), str(p), max_rows_per_file=20,
                            data_storage_version="2.0")
        lance.dataset(str(p)).delete("a < 15")

    a, b = _twins(tmp_path, build)
    m = lance.dataset(a).optimize.compact_files(target_rows_per_fragment=50)
    got = run_json("compact", b, "--target-rows-per-fragment", 50)
    assert (got["fragments_removed"], got["fragments_added"], got["files_removed"],
            got["files_added"]) == (m.fragments_removed, m.fragments_added,
                                    m.files_removed, m.files_added)
    # Version 3 reserves the new fragments' ids, 4 is the Rewrite, as pylance commits them.
    assert got["read_version"] == 2 and got["version"] == 4 == lance.dataset(a).version
    assert lance.dataset(b).to_table().sort_by("a").equals(
        lance.dataset(a).to_table().sort_by("a"))


def _build_three_versions(p):
    """Write 5 fragments, delete from them, compact: three versions with old files."""
    lance.write_dataset(_data(50), str(p), max_rows_per_file=10, data_storage_version="2.0")
    lance.dataset(str(p)).delete("a < 15")
    lance.dataset(str(p)).optimize.compact_files(target_rows_per_fragment=1000)


def test_cleanup_matches_pylance_and_refuses_tagged(tmp_path):
    a, b = _twins(tmp_path, _build_three_versions)
    lance.dataset(b).tags.create("old", 1)
    proc = run("cleanup", b, "--older-than", "0", check=False)
    assert proc.returncode != 0 and "old" in proc.stderr
    ignored = run_json("cleanup", b, "--older-than", "0s", "--ignore-tagged")
    assert ignored["old_versions"] == 2  # versions 2 and 3; 1 is tagged, 4 latest
    run("tag", b, "delete", "old")
    lance.dataset(a).cleanup_old_versions(older_than=timedelta(0))
    got = run_json("cleanup", b, "--older-than", "0")
    assert got["old_versions"] == 1
    assert [v["version"] for v in lance.dataset(b).versions()] == \
        [v["version"] for v in lance.dataset(a).versions()] == [4]
    assert run("cleanup", b, check=False).returncode != 0  # --older-than required
    assert run_json("cleanup", b, "--retain-versions", 1)["old_versions"] == 0
    assert run("cleanup", b, "--older-than", "3y", check=False).returncode != 0



@pytest.mark.parametrize("age,removed", [("0", 3), ("0ms", 3), ("0s", 3), ("0m", 3),
                                         ("0h", 3), ("0d", 3), ("0w", 3), ("999999ms", 0),
                                         ("9000s", 0), ("600m", 0), ("50h", 0), ("9d", 0),
                                         ("3w", 0)])
def test_cleanup_duration_units(tmp_path, age, removed):
    """Every unit --older-than takes: a zero age removes the old versions, a large one
    none (the versions are seconds old)."""
    b = str(tmp_path / "ds")
    _build_three_versions(b)
    got = run_json("cleanup", b, "--older-than", age, "--dry-run")
    assert got["old_versions"] == removed

def _tree(root):
    return {str(p.relative_to(root)) for p in Path(root).rglob("*") if p.is_file()}


def test_cleanup_dry_run_lists_without_deleting(tmp_path):
    """--dry-run prints the stats a real run would (which pylance's cleanup agrees with)
    plus the paths, deletes nothing, and never lists what the kept version references;
    an orphan data file (a write whose commit never happened) is listed with
    --delete-unverified."""
    a, b = _twins(tmp_path, _build_three_versions)
    before = _tree(b)
    dry = run_json("cleanup", b, "--older-than", "0", "--dry-run")
    assert dry["dry_run"] is True and _tree(b) == before
    stats = lance.dataset(a).cleanup_old_versions(older_than=timedelta(0))
    for key in ("old_versions", "data_files_removed", "deletion_files_removed",
                "transaction_files_removed", "bytes_removed"):
        assert dry[key] == getattr(stats, key), key
    assert len(dry["paths"]) == (dry["old_versions"] + dry["data_files_removed"]
                                 + dry["deletion_files_removed"]
                                 + dry["transaction_files_removed"])
    kept = {"data/" + f.path for fr in lance.dataset(b).get_fragments()
            for f in fr.metadata.files}
    assert kept and not kept & set(dry["paths"])
    # The real run removes exactly the listed files; pylance reads the same rows after.
    real = run_json("cleanup", b, "--older-than", "0")
    assert "paths" not in real and real["old_versions"] == dry["old_versions"]
    assert before - _tree(b) == set(dry["paths"])
    assert lance.dataset(b).to_table().sort_by("a").equals(
        lance.dataset(a).to_table().sort_by("a"))

    # An orphan: fragments written, never committed.
    frags = lance.fragment.write_fragments(_data(5, 1000), b, mode="append",
                                           data_storage_version="2.0")
    orphan = "data/" + frags[0].files[0].path
    young = run_json("cleanup", b, "--older-than", "0", "--dry-run")
    assert orphan not in young["paths"]  # unverified and young: kept by default
    unverified = run_json("cleanup", b, "--older-than", "0", "--delete-unverified", "--dry-run")
    assert orphan in unverified["paths"] and unverified["data_files_removed"] == 1
    assert orphan in _tree(b)
    help_text = run("cleanup", "--help").stdout
    assert "--dry-run" in help_text


def test_tags_and_restore(tmp_path):
    uri = str(tmp_path / "ds")
    lance.write_dataset(_data(10), uri, data_storage_version="2.0")
    lance.dataset(uri).delete("a < 4")
    run("tag", uri, "create", "first", 1)
    lance.dataset(uri).tags.create("second", 2)
    listed = run_json("tag", uri, "list")
    assert {k: v["version"] for k, v in listed.items()} == {"first": 1, "second": 2}
    assert lance.dataset(uri).tags.list()["first"]["version"] == 1
    run("tag", uri, "update", "first", 2)
    assert lance.dataset(uri).tags.get_version("first") == 2
    assert run("tag", uri, "create", "second", 1, check=False).returncode != 0
    got = run_json("restore", uri, "--version", 1)
    assert got == {"restored_version": 1, "version": 3}
    assert lance.dataset(uri).count_rows() == 10
    got = run_json("restore", uri, "--tag", "second")
    assert got == {"restored_version": 2, "version": 4}
    assert lance.dataset(uri).count_rows() == 6
    run("tag", uri, "delete", "second")
    assert set(lance.dataset(uri).tags.list()) == {"first"}
    assert run("restore", uri, check=False).returncode != 0
    assert run("tag", uri, "frobnicate", check=False).returncode != 0
