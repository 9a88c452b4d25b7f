# SPDX-License-Identifier: Apache-2.0
"""Directory namespaces exchanged with LanceDB-node's namespace support (real Lance 8.0.0:
`connectNamespace("dir", {root, manifestEnabled, extraProperties})`, driven through
tools/oracle/ns_oracle.cjs), on local disk (test_namespace_s3.py does the same on RGW):

  1. roots lance-cpp writes (lance-ns) in the plain layout and in manifest mode, nested
     namespaces and multi-level table ids included, are listed and read by LanceDB-node;
  2. tables LanceDB-node creates and appends to (file format 2.0) in the plain layout are
     listed, described and read by lance-ns;
  3. several lance-ns PROCESSES declaring at once, in both layouts: different ids all land,
     one id has exactly one winner and the others get TableAlreadyExists.

Without node, the oracle's node_modules or lance-ns the tests fail (never skip).
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any, Dict, List, Sequence

import lance.namespace as lance_ns
import pytest
from lance_namespace import ListTablesRequest

from conftest import ORACLE_DIR
from node_jobs import NodeJobs, describe_ns_job, require_node
from test_namespace_dir import LanceNs, make_tree, ns_bin, rows  # noqa: F401  (ns_bin: a fixture)

NS_ORACLE = ORACLE_DIR / "ns_oracle.cjs"


class NsOracle(NodeJobs):
    """Runs one batch of jobs through ns_oracle.cjs (one node process)."""

    def __init__(self, scratch: Path, scrub=lambda text: text):
        super().__init__(NS_ORACLE, scratch, "ns", describe=describe_ns_job, scrub=scrub)


@pytest.fixture(scope="module")
def ns_node(tmp_path_factory) -> NsOracle:
    require_node(ORACLE_DIR)
    return NsOracle(tmp_path_factory.mktemp("ns-node"))


def tree_jobs(job: Dict[str, Any]) -> List[Dict[str, Any]]:
    """Jobs listing and reading the tree top, team/{events, later}, team/sub/deep (shared
    with test_namespace_s3.py): namespaces, team's namespaces and properties, the tables
    of each level, then the three tables' rows."""
    return [
        {**job, "op": "namespaces"},
        {**job, "op": "namespaces", "namespace": ["team"]},
        {**job, "op": "describe_ns", "namespace": ["team"]},
        {**job, "op": "tables"},
        {**job, "op": "tables", "namespace": ["team"]},
        {**job, "op": "tables", "namespace": ["team", "sub"]},
        {**job, "op": "read", "name": "top"},
        {**job, "op": "read", "namespace": ["team"], "name": "events"},
        {**job, "op": "read", "namespace": ["team", "sub"], "name": "deep"},
    ]


# -- races between processes (shared with test_namespace_s3.py) ----------------------------


def race(ours: LanceNs, ids: Sequence[Sequence[str]], lead_ms: int) -> List[Dict[str, Any]]:
    """Starts one `lance-ns declare` process per id, all told to declare at the same instant
    (--start-at, `lead_ms` from now: enough for every process to open the namespace first);
    returns {"rc", "out"} per process, in the order of `ids`."""
    start_at = int(time.time() * 1000) + lead_ms
    procs = []
    for table_id in ids:
        cmd = [str(ours.binary), "declare", "--start-at", str(start_at)]
        for prop in ours.props:
            cmd += ["--prop", prop]
        for part in table_id:
            cmd += ["--id", part]
        procs.append(subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      text=True))
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        late = int(time.time() * 1000) - start_at
        results.append({"rc": proc.returncode, "out": out, "err": err, "late_ms": late})
    for r in results:
        assert r["rc"] in (0, 1), f"lance-ns crashed ({r['rc']}): {r['out']}{r['err']}"
        r["json"] = json.loads(r["out"])
        # On S3 these hold the secret key, and the json ends up in assertion messages.
        r["json"].pop("storage_options", None)
    return results


def strip_file(location: str) -> str:
    return location[len("file://"):] if location.startswith("file://") else location


def check_race_different_ids(ours: LanceNs, ns_id: List[str], n: int, lead_ms: int) -> List[str]:
    names = [f"t{i}" for i in range(n)]
    results = race(ours, [ns_id + [name] for name in names], lead_ms)
    failed = [r["json"] for r in results if r["rc"] != 0]
    assert not failed, f"declarations of different ids failed: {failed}"
    locations = [r["json"]["location"] for r in results]
    assert len(set(locations)) == n, locations
    assert ours("list-tables", *ns_id)["tables"] == names
    for name, location in zip(names, locations):
        described = ours("describe", *ns_id, name, detailed=True)
        # As real Lance: in manifest mode a root-level declaration answers with the
        # file:// URI and describe with the plain path.
        assert strip_file(described["location"]) == strip_file(location)
        assert described["is_only_declared"] is True
    return names


def check_race_same_id(ours: LanceNs, table_id: List[str], n: int, lead_ms: int) -> str:
    results = race(ours, [table_id] * n, lead_ms)
    winners = [r["json"] for r in results if r["rc"] == 0]
    losers = [r["json"] for r in results if r["rc"] != 0]
    assert len(winners) == 1, f"{len(winners)} winners: {[r['json'] for r in results]}"
    assert [l["error"] for l in losers] == ["TableAlreadyExists"] * (n - 1), losers
    location = winners[0]["location"]
    ns_id, name = table_id[:-1], table_id[-1]
    assert ours("list-tables", *ns_id)["tables"].count(name) == 1
    assert strip_file(ours("describe", *table_id)["location"]) == strip_file(location)
    # The winner's table is usable, and the id stays taken.
    assert ours("declare", *table_id, expect_error=True)["error"] == "TableAlreadyExists"
    return location


# -- 1. Roots written here, read by LanceDB-node -------------------------------------------


def test_plain_root_written_here_is_read_by_node(ns_bin: Path, ns_node: NsOracle,
                                                 tmp_path: Path) -> None:
    root = tmp_path / "plain"
    ours = LanceNs(ns_bin, root, manifest=False)
    ours("create", "events", rows=3)
    ours("create", "big", rows=1000)
    ours("declare", "declared")
    ours("create", "gone", rows=1)
    ours("drop", "gone")
    ours("create", "hidden", rows=1)
    ours("deregister", "hidden")
    job = {"root": str(root), "manifest": False}
    tables, events, big, namespaces = ns_node.run_ok([
        {**job, "op": "tables"},
        {**job, "op": "read", "name": "events"},
        {**job, "op": "read", "name": "big"},
        {**job, "op": "namespaces"},
    ])
    assert tables == ["big", "declared", "events"] == ours("list-tables")["tables"]
    assert events == {"version": 1, **rows(3)}
    assert big == {"version": 1, **rows(1000)}
    assert namespaces == []
    # Opening a deregistered or dropped table fails there as here.
    results = ns_node.run([{**job, "op": "read", "name": "hidden"},
                           {**job, "op": "read", "name": "gone"}])
    assert [r["ok"] for r in results] == [False, False], results


def test_manifest_root_written_here_is_read_by_node(ns_bin: Path, ns_node: NsOracle,
                                                    tmp_path: Path) -> None:
    root = tmp_path / "managed"
    ours = LanceNs(ns_bin, root, manifest=True)
    make_tree(ours)
    job = {"root": str(root), "manifest": True}
    values = ns_node.run_ok(tree_jobs(job))
    assert values[0] == ["team"]
    assert values[1] == ["sub"]
    assert values[2] == {"owner": "ann"}
    assert values[3] == ["top"] == ours("list-tables")["tables"]
    assert values[4] == ["events", "later"] == ours("list-tables", "team")["tables"]
    assert values[5] == ["deep"]
    assert values[6] == {"version": 1, **rows(2)}
    assert values[7] == {"version": 1, **rows(4)}
    assert values[8] == {"version": 1, **rows(5)}


# -- 2. Tables LanceDB-node creates, read here ---------------------------------------------


def test_node_plain_root_is_read_here(ns_bin: Path, ns_node: NsOracle, tmp_path: Path) -> None:
    root = tmp_path / "node-plain"
    job = {"root": str(root), "manifest": False}
    versions = ns_node.run_ok([
        {**job, "op": "create", "name": "made", "x": [5, 6, 7], "s": ["a", "b", None],
         "storage_version": "2.0"},
        {**job, "op": "add", "name": "made", "x": [8], "s": ["d"]},
        {**job, "op": "create", "name": "other", "x": [1], "s": ["one"],
         "storage_version": "2.0"},
    ])
    assert versions == [1, 2, 1]
    ours = LanceNs(ns_bin, root, manifest=False)
    assert ours("list-tables")["tables"] == ["made", "other"]
    described = ours("describe", "made", detailed=True)
    assert described["location"] == f"{root}/made.lance"
    assert described["version"] == 2 and described["is_only_declared"] is False
    assert ours("read", "made") == {"location": f"{root}/made.lance", "version": 2,
                                    "x": [5, 6, 7, 8], "s": ["a", "b", None, "d"]}
    assert ours("read", "other")["s"] == ["one"]
    assert ours("declare", "made", expect_error=True)["error"] == "TableAlreadyExists"
    # And what lance-cpp adds to that root, LanceDB-node reads.
    ours("create", "ours", rows=3)
    assert ns_node.run_ok([{**job, "op": "tables"}, {**job, "op": "read", "name": "ours"}]) == \
        [["made", "other", "ours"], {"version": 1, **rows(3)}]


# -- 3. Concurrent declarations from several processes (local disk) ------------------------

N_PROCS = 6
LOCAL_LEAD_MS = 1500


def _race_root(ns_bin: Path, tmp_path: Path, manifest: bool):
    """lance-ns and pylance's DirectoryNamespace on one fresh local root; with `manifest`,
    namespace "team" exists (which creates __manifest before any race)."""
    root = tmp_path / "race"
    ours = LanceNs(ns_bin, root, manifest=manifest)
    if manifest:
        ours("create-namespace", "team")
    theirs = lance_ns.DirectoryNamespace(root=str(root),
                                         manifest_enabled="true" if manifest else "false")
    return ours, theirs


@pytest.mark.parametrize("manifest", [False, True], ids=["plain", "manifest"])
def test_processes_declaring_different_ids_all_land(ns_bin: Path, tmp_path: Path,
                                                    manifest: bool) -> None:
    ours, theirs = _race_root(ns_bin, tmp_path, manifest)
    names = check_race_different_ids(ours, [], N_PROCS, LOCAL_LEAD_MS)
    assert theirs.list_tables(ListTablesRequest(id=[])).tables == names
    if manifest:
        # Nested ids: every declaration is a __manifest commit.
        nested = check_race_different_ids(ours, ["team"], N_PROCS, LOCAL_LEAD_MS)
        assert theirs.list_tables(ListTablesRequest(id=["team"])).tables == nested


@pytest.mark.parametrize("manifest", [False, True], ids=["plain", "manifest"])
def test_processes_declaring_one_id_have_one_winner(ns_bin: Path, tmp_path: Path,
                                                    manifest: bool) -> None:
    ours, theirs = _race_root(ns_bin, tmp_path, manifest)
    for attempt in range(2):
        check_race_same_id(ours, [f"same{attempt}"], N_PROCS, LOCAL_LEAD_MS)
        if manifest:
            check_race_same_id(ours, ["team", f"same{attempt}"], N_PROCS, LOCAL_LEAD_MS)
    assert theirs.list_tables(ListTablesRequest(id=[])).tables == ["same0", "same1"]
    if manifest:
        assert theirs.list_tables(ListTablesRequest(id=["team"])).tables == ["same0", "same1"]
