# SPDX-License-Identifier: Apache-2.0
"""Maintenance across engines: datasets real Lance 8 (LanceDB-node) writes are compacted,
restored, tagged and cleaned by lance-cpp (its CLI), and Lance 8 and pylance 14 still read
every remaining version exactly as lance-cpp does; and the other way round."""

from __future__ import annotations

import json
import os
import subprocess
from datetime import timedelta
from pathlib import Path

import lance
import pyarrow as pa
import pytest

from conftest import SOURCE_DIR, _find_interop_bin, assert_tables_equal, write_ipc


def _cli_bin() -> str:
    explicit = os.environ.get("LANCE_CPP_BIN")
    if explicit:
        return explicit
    # Beside lance-interop: <build>/tools/interop/lance-interop -> <build>/cli/lance-cpp.
    candidate = _find_interop_bin().parents[2] / "cli" / "lance-cpp"
    if not candidate.exists():
        candidate = SOURCE_DIR / "build" / "cli" / "lance-cpp"
    if not candidate.exists():
        pytest.fail(f"lance-cpp not found (set LANCE_CPP_BIN); tried {candidate}")
    return str(candidate)


def _cli(*args) -> str:
    proc = subprocess.run([_cli_bin(), *map(str, args)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _cli_json(*args):
    return json.loads(_cli(*args))


def _rows(a: int, b: int) -> pa.Table:
    return pa.table({"rid": pa.array(range(a, b), pa.int64()),
                     "s": pa.array([f"v{i}" for i in range(a, b)], pa.utf8())})


def _node_dataset(node, tmp_path, name, pieces):
    """A dataset created by Lance 8: one fragment per piece."""
    uri = tmp_path / f"{name}.lance"
    files = [write_ipc(p, tmp_path / f"{name}-{i}.arrow") for i, p in enumerate(pieces)]
    node.run_ok([{"op": "create", "uri": uri, "ipc": files, "v2_names": True,
                  "storage_version": "2.0"}])
    return uri


def _every_version_equal(interop, uri):
    for v in lance.dataset(str(uri)).versions():
        assert_tables_equal(interop.read(uri, version=v["version"]),
                            lance.dataset(str(uri), version=v["version"]).to_table(),
                            what=f"version {v['version']}")


def test_lance8_dataset_compacted_restored_cleaned_by_lance_cpp(tmp_path, interop, node):
    uri = _node_dataset(node, tmp_path, "lifecycle",
                        [_rows(i * 10, i * 10 + 10) for i in range(6)])
    assert interop.delete(uri, "rid < 3") == 7
    m = _cli_json("compact", uri, "--target-rows-per-fragment", 1000)
    assert (m["fragments_removed"], m["fragments_added"]) == (6, 1)
    # Lance 8 reads the compacted version, and every version reads equal everywhere.
    assert node.run_ok([{"op": "count", "uri": uri}]) == [57]
    _every_version_equal(interop, uri)
    r = _cli_json("restore", uri, "--version", 3)
    # Versions 8 and 9 are the compaction (id reservation, Rewrite), as Lance commits it.
    assert r == {"restored_version": 3, "version": 10}
    assert node.run_ok([{"op": "count", "uri": uri}]) == [30]
    assert _cli("tag", uri, "create", "compacted", 9) == ""
    st = _cli_json("cleanup", uri, "--older-than", "0", "--ignore-tagged")
    assert st["old_versions"] == 8  # 1-8 (9 tagged, 10 latest)
    assert [v["version"] for v in lance.dataset(str(uri)).versions()] == [9, 10]
    assert lance.dataset(str(uri), version="compacted").count_rows() == 57
    assert node.run_ok([{"op": "count", "uri": uri}]) == [30]
    _every_version_equal(interop, uri)


def test_pylance_maintenance_read_by_lance_cpp_and_lance8(tmp_path, interop, node):
    uri = _node_dataset(node, tmp_path, "pymaint", [_rows(0, 20), _rows(20, 25), _rows(25, 30)])
    ds = lance.dataset(str(uri))
    ds.delete("rid % 5 = 0")
    ds = lance.dataset(str(uri))
    ds.optimize.compact_files(target_rows_per_fragment=1000)
    ds = lance.dataset(str(uri))
    tagged = ds.version
    ds.tags.create("py", tagged)
    ds.update_config({"owner": "py"})
    _every_version_equal(interop, uri)
    listed = _cli_json("tag", uri, "list")
    assert listed["py"]["version"] == tagged
    st = _cli_json("cleanup", uri, "--older-than", "0", "--ignore-tagged")
    assert st["old_versions"] >= 2
    assert node.run_ok([{"op": "count", "uri": uri}]) == [24]
    lance.dataset(str(uri), version="py").restore()
    _every_version_equal(interop, uri)
    assert node.run_ok([{"op": "count", "uri": uri}]) == [24]
    # Our cleanup removes the version before the restore; nothing is left for pylance.
    got = _cli_json("cleanup", uri, "--older-than", "0", "--ignore-tagged")
    want = lance.dataset(str(uri)).cleanup_old_versions(older_than=timedelta(0),
                                                        error_if_tagged_old_versions=False)
    assert got["old_versions"] == 1 and got["bytes_removed"] > 0
    assert want.old_versions == 0
