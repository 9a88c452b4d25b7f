# SPDX-License-Identifier: Apache-2.0
"""Directory namespaces exchanged with real Lance (pylance's `lance.namespace.DirectoryNamespace`).

  1. roots lance-cpp writes (tools/namespace lance-ns) in the plain layout and in manifest
     mode -- nested namespaces, multi-level table ids, properties, declared-only tables,
     deregistered and dropped tables -- are listed, described and read by pylance;
  2. lance-cpp's `__manifest` has exactly the schema of the one pylance creates;
  3. pylance declares and writes tables (file format 2.0) in the plain layout and in a
     manifest root lance-cpp created; lance-cpp lists, describes and reads them;
  4. a manifest root pylance created (its `__manifest` is file format 2.2) is listed,
     described and read here, and lance-ns writes into it (pylance sees the result).

lance-ns is found through LANCE_NS_BIN or the first build*/tools/namespace/lance-ns;
without it the tests fail (never skip).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any, Dict, List, Tuple

import lance
import lance.namespace as lance_ns
import pyarrow as pa
import pytest
from lance_namespace import (CreateNamespaceRequest, DeclareTableRequest,
                             DescribeNamespaceRequest, DescribeTableRequest,
                             ListNamespacesRequest, ListTablesRequest, TableExistsRequest)

from conftest import find_built, require_built


def _find_ns_bin() -> Path:
    env = os.environ.get("LANCE_NS_BIN")
    if env:
        return Path(env)
    # Next to the lance-interop ctest hands us, else the first build directory with one.
    interop = os.environ.get("LANCE_INTEROP_BIN")
    if interop:
        candidate = Path(interop).parent.parent / "namespace" / "lance-ns"
        if candidate.exists():
            return candidate
    return find_built("LANCE_NS_BIN", "tools/namespace/lance-ns")


class LanceNs:
    """Runs lance-ns on one root; returns its JSON (raising on failure unless asked)."""

    def __init__(self, binary: Path, root: Path, manifest: bool):
        self.binary = binary
        self.props = [f"root={root}", f"manifest_enabled={'true' if manifest else 'false'}"]

    def __call__(self, command: str, *ids: str, expect_error: bool = False,
                 **options: Any) -> Dict[str, Any]:
        cmd = [str(self.binary), command]
        for prop in self.props:
            cmd += ["--prop", prop]
        for part in ids:
            cmd += ["--id", part]
        for key, value in options.items():
            if key == "properties":
                for k, v in value.items():
                    cmd += ["--property", f"{k}={v}"]
            elif value is True:
                cmd.append(f"--{key.replace('_', '-')}")
            else:
                cmd += [f"--{key.replace('_', '-')}", str(value)]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        if expect_error:
            assert proc.returncode == 1, f"{cmd} should have failed: {proc.stdout}{proc.stderr}"
            return json.loads(proc.stdout)
        assert proc.returncode == 0, f"{' '.join(cmd)} failed: {proc.stdout}{proc.stderr}"
        return json.loads(proc.stdout)


@pytest.fixture(scope="module")
def ns_bin() -> Path:
    return require_built(_find_ns_bin(), "LANCE_NS_BIN")


def rows(n: int) -> Dict[str, List[Any]]:
    """What `lance-ns create --rows n` writes."""
    return {"x": list(range(n)), "s": [f"row{i}" for i in range(n)]}


def py_dir(root: Path, manifest: bool) -> lance_ns.DirectoryNamespace:
    return lance_ns.DirectoryNamespace(root=str(root),
                                       manifest_enabled="true" if manifest else "false")


def py_read(ns: lance_ns.DirectoryNamespace, table_id: List[str]) -> Dict[str, List[Any]]:
    return lance.dataset(namespace_client=ns, table_id=table_id).to_table().to_pydict()


# -- 1. Roots written here, read by pylance ------------------------------------------------


def test_plain_root_written_here_is_read_by_pylance(ns_bin: Path, tmp_path: Path) -> None:
    root = tmp_path / "plain"
    ours = LanceNs(ns_bin, root, manifest=False)
    created = ours("create", "events", rows=3)
    assert created == {"location": f"{root}/events.lance", "version": 1}
    assert ours("declare", "declared") == {"location": f"{root}/declared.lance"}
    ours("create", "gone", rows=1)
    ours("create", "hidden", rows=2)
    for name in ["a", "b", "c"]:
        ours("declare", name)
    ours("drop", "gone")
    ours("deregister", "hidden")
    # Lance's markers, and no version for declared tables.
    assert (root / "declared.lance" / ".lance-reserved").exists()
    assert not (root / "declared.lance" / "_versions").exists()
    assert (root / "hidden.lance" / ".lance-deregistered").exists()
    assert not (root / "__manifest").exists()

    theirs = py_dir(root, manifest=False)
    listed = theirs.list_tables(ListTablesRequest(id=[]))
    assert listed.tables == ["a", "b", "c", "declared", "events"]
    assert listed.tables == ours("list-tables")["tables"]
    # Pagination agrees page by page.
    token = None
    while True:
        page = theirs.list_tables(ListTablesRequest(id=[], limit=2, page_token=token))
        mine = ours("list-tables", limit=2, **({"page_token": token} if token else {}))
        assert page.tables == mine["tables"]
        assert page.page_token == mine["page_token"]
        token = page.page_token
        if token is None:
            break

    described = theirs.describe_table(DescribeTableRequest(id=["events"]))
    assert described.location == f"{root}/events.lance"
    assert described.location == ours("describe", "events")["location"]
    detailed = theirs.describe_table(
        DescribeTableRequest(id=["events"], load_detailed_metadata=True))
    assert detailed.version == 1
    assert ours("describe", "events", detailed=True)["version"] == 1
    assert py_read(theirs, ["events"]) == rows(3)
    expect_declared_and_missing(theirs)
    assert ours("describe", "hidden", expect_error=True)["error"] == "TableNotFound"
    assert ours("describe", "gone", expect_error=True)["code"] == 4


def expect_declared_and_missing(theirs) -> None:
    """pylance's namespace sees table "declared" as declared only (no version) and finds
    neither "gone" nor "hidden" (shared with test_namespace_s3.py)."""
    declared = theirs.describe_table(
        DescribeTableRequest(id=["declared"], load_detailed_metadata=True))
    assert declared.is_only_declared is True and declared.version is None
    for missing in (["gone"], ["hidden"]):
        with pytest.raises(Exception):
            theirs.describe_table(DescribeTableRequest(id=missing))


def make_tree(ours) -> Tuple[Dict[str, Any], Dict[str, Any]]:
    """Writes the tree shared by the manifest-root tests (here, test_namespace_node.py,
    test_namespace_s3.py): namespaces team (owner ann) and team/sub, tables top (2 rows),
    team/events (4 rows, property k=v), team/sub/deep (5 rows), and team/later declared
    only. Returns what creating events and deep printed."""
    ours("create-namespace", "team", properties={"owner": "ann"})
    ours("create-namespace", "team", "sub")
    ours("create", "top", rows=2)
    events = ours("create", "team", "events", rows=4, properties={"k": "v"})
    deep = ours("create", "team", "sub", "deep", rows=5)
    ours("declare", "team", "later")
    return events, deep


def test_manifest_root_written_here_is_read_by_pylance(ns_bin: Path, tmp_path: Path) -> None:
    root = tmp_path / "managed"
    ours = LanceNs(ns_bin, root, manifest=True)
    events, deep = make_tree(ours)
    ghost = ours("declare", "ghost", "x")  # in a namespace never created, as Lance allows
    # Root-level tables keep <name>.lance; nested ones are "<8 hex>_<ns>$<name>".
    assert (root / "top.lance" / "_versions").is_dir()
    for created, object_id in [(events, "team$events"), (deep, "team$sub$deep"),
                               (ghost, "ghost$x")]:
        prefix = f"file://{root}/"
        assert created["location"].startswith(prefix)
        assert re.fullmatch(r"[0-9a-f]{8}_" + re.escape(object_id),
                            created["location"][len(prefix):]), created

    theirs = py_dir(root, manifest=True)
    assert theirs.list_namespaces(ListNamespacesRequest(id=[])).namespaces == ["team"]
    assert theirs.list_namespaces(ListNamespacesRequest(id=["team"])).namespaces == ["sub"]
    assert theirs.describe_namespace(
        DescribeNamespaceRequest(id=["team"])).properties == {"owner": "ann"}
    assert theirs.list_tables(ListTablesRequest(id=[])).tables == ["top"]
    assert theirs.list_tables(ListTablesRequest(id=["team"])).tables == ["events", "later"]
    assert theirs.list_tables(ListTablesRequest(id=["team", "sub"])).tables == ["deep"]
    assert theirs.list_tables(ListTablesRequest(id=["ghost"])).tables == ["x"]
    for ns_id in ([], ["team"], ["team", "sub"], ["ghost"]):
        assert ours("list-tables", *ns_id)["tables"] == \
            theirs.list_tables(ListTablesRequest(id=ns_id)).tables

    described = theirs.describe_table(DescribeTableRequest(id=["team", "events"]))
    assert described.location == events["location"]
    assert described.properties == {"k": "v"}
    assert described.namespace == ["team"] and described.table == "events"
    mine = ours("describe", "team", "events")
    assert mine["location"] == described.location
    assert mine["properties"] == described.properties
    assert "version" not in mine
    top = theirs.describe_table(DescribeTableRequest(id=["top"]))
    assert top.location == ours("describe", "top")["location"] == f"{root}/top.lance"
    theirs.table_exists(TableExistsRequest(id=["ghost", "x"]))

    assert py_read(theirs, ["team", "events"]) == rows(4)
    assert py_read(theirs, ["team", "sub", "deep"]) == rows(5)
    assert py_read(theirs, ["top"]) == rows(2)
    assert ours("read", "team", "sub", "deep")["x"] == rows(5)["x"]


def test_manifest_schema_matches_pylances(ns_bin: Path, tmp_path: Path) -> None:
    ours = LanceNs(ns_bin, tmp_path / "ours", manifest=True)
    ours("declare", "t")
    py_dir(tmp_path / "theirs", manifest=True).declare_table(DeclareTableRequest(id=["t"]))
    mine = lance.dataset(str(tmp_path / "ours" / "__manifest"))
    theirs = lance.dataset(str(tmp_path / "theirs" / "__manifest"))
    # Names, types, nullability and field metadata (the primary-key position).
    assert mine.schema.equals(theirs.schema, check_metadata=True), \
        f"{mine.schema}\n!=\n{theirs.schema}"
    assert mine.to_table().to_pylist() == theirs.to_table().to_pylist()


# -- 3. Tables pylance writes, read here ---------------------------------------------------


def test_pylance_plain_root_is_read_here(ns_bin: Path, tmp_path: Path) -> None:
    root = tmp_path / "py-plain"
    theirs = py_dir(root, manifest=False)
    data = pa.table({"x": pa.array([5, 6, 7], pa.int64()), "s": ["a", "b", None]})
    lance.write_dataset(data, namespace_client=theirs, table_id=["made"], mode="create",
                        data_storage_version="2.0")
    more = pa.table({"x": pa.array([8], pa.int64()), "s": ["d"]})
    lance.write_dataset(more, namespace_client=theirs, table_id=["made"], mode="append")
    theirs.declare_table(DeclareTableRequest(id=["only_declared"]))

    ours = LanceNs(ns_bin, root, manifest=False)
    assert ours("list-tables")["tables"] == ["made", "only_declared"]
    described = ours("describe", "made", detailed=True)
    assert described["location"] == f"{root}/made.lance"
    assert described["version"] == 2
    assert ours("read", "made") == {"location": f"{root}/made.lance", "version": 2,
                                    "x": [5, 6, 7, 8], "s": ["a", "b", None, "d"]}
    declared = ours("describe", "only_declared", detailed=True)
    assert declared["is_only_declared"] is True and "version" not in declared
    assert ours("declare", "made", expect_error=True)["error"] == "TableAlreadyExists"
    assert ours("declare", "only_declared", expect_error=True)["error"] == "TableAlreadyExists"


def test_pylance_writes_into_manifest_root_made_here(ns_bin: Path, tmp_path: Path) -> None:
    root = tmp_path / "shared"
    ours = LanceNs(ns_bin, root, manifest=True)
    ours("create-namespace", "team")
    ours("create", "team", "mine", rows=2)

    theirs = py_dir(root, manifest=True)
    theirs.create_namespace(CreateNamespaceRequest(id=["team", "py"], properties={"a": "b"}))
    data = pa.table({"x": pa.array([1, 2], pa.int64()), "s": ["p", "q"]})
    lance.write_dataset(data, namespace_client=theirs, table_id=["team", "theirs"],
                        mode="create", data_storage_version="2.0")
    theirs.declare_table(DeclareTableRequest(id=["team", "py", "decl"]))

    assert ours("list-tables", "team")["tables"] == ["mine", "theirs"]
    assert ours("list-namespaces", "team")["namespaces"] == ["py"]
    assert ours("list-tables", "team", "py")["tables"] == ["decl"]
    read = ours("read", "team", "theirs")
    assert read["x"] == [1, 2] and read["s"] == ["p", "q"]
    assert read["location"] == theirs.describe_table(
        DescribeTableRequest(id=["team", "theirs"])).location
    # And the root stays readable by pylance after both wrote to it.
    assert theirs.list_tables(ListTablesRequest(id=["team"])).tables == ["mine", "theirs"]
    assert py_read(theirs, ["team", "mine"]) == rows(2)
    # Either side refuses a duplicate.
    assert ours("declare", "team", "theirs", expect_error=True)["error"] == "TableAlreadyExists"
    with pytest.raises(Exception):
        theirs.declare_table(DeclareTableRequest(id=["team", "mine"]))


def test_pylance_manifest_root_is_read_and_written_here(ns_bin: Path, tmp_path: Path) -> None:
    """A manifest root pylance created (its `__manifest` is file format 2.2, rewritten by
    an Overwrite on every change) is listed, described and read here; lance-ns then
    records namespaces and tables in it (keeping its version and schema) and pylance
    sees them; pylance keeps working on it afterwards."""
    root = tmp_path / "py-managed"
    theirs = py_dir(root, manifest=True)
    theirs.create_namespace(CreateNamespaceRequest(id=["team"], properties={"owner": "ann"}))
    theirs.create_namespace(CreateNamespaceRequest(id=["team", "sub"]))
    theirs.declare_table(DeclareTableRequest(id=["team", "t"]))
    data = pa.table({"x": pa.array([1, 2, 3], pa.int64()), "s": ["p", None, "r"]})
    lance.write_dataset(data, namespace_client=theirs, table_id=["team", "made22"])
    lance.write_dataset(data.slice(0, 2), namespace_client=theirs,
                        table_id=["team", "sub", "made21"], data_storage_version="2.1")
    manifest = lance.dataset(str(root / "__manifest"))
    assert manifest.data_storage_version == "2.2"
    schema_before = manifest.schema

    ours = LanceNs(ns_bin, root, manifest=True)
    assert ours("list-namespaces")["namespaces"] == ["team"]
    assert ours("list-namespaces", "team")["namespaces"] == ["sub"]
    assert ours("list-tables", "team")["tables"] == ["made22", "t"]
    assert ours("list-tables", "team", "sub")["tables"] == ["made21"]
    for table_id in (["team", "made22"], ["team", "t"], ["team", "sub", "made21"]):
        mine = ours("describe", *table_id)
        described = theirs.describe_table(DescribeTableRequest(id=table_id))
        assert mine["location"] == described.location, table_id
    assert ours("describe", "team", "t", detailed=True)["is_only_declared"] is True
    read = ours("read", "team", "made22")
    assert read["x"] == [1, 2, 3] and read["s"] == ["p", None, "r"] and read["version"] == 1
    assert ours("read", "team", "sub", "made21")["x"] == [1, 2]

    # lance-ns writes into pylance's root.
    ours("create-namespace", "team", "cpp", properties={"k": "v"})
    created = ours("create", "team", "cpp", "rows", rows=4)
    ours("declare", "team", "later")
    ours("drop", "team", "t")
    assert ours("declare", "team", "made22", expect_error=True)["error"] == \
        "TableAlreadyExists"
    manifest = lance.dataset(str(root / "__manifest"))
    assert manifest.data_storage_version == "2.2"  # appends keep the root's version
    assert manifest.schema.equals(schema_before, check_metadata=True)
    assert theirs.list_namespaces(ListNamespacesRequest(id=["team"])).namespaces == \
        ["cpp", "sub"]
    assert theirs.describe_namespace(
        DescribeNamespaceRequest(id=["team", "cpp"])).properties == {"k": "v"}
    assert theirs.list_tables(ListTablesRequest(id=["team"])).tables == ["later", "made22"]
    assert theirs.describe_table(
        DescribeTableRequest(id=["team", "cpp", "rows"])).location == created["location"]
    assert py_read(theirs, ["team", "cpp", "rows"]) == rows(4)
    # pylance keeps managing it (its next change rewrites __manifest), lance-ns follows.
    theirs.declare_table(DeclareTableRequest(id=["team", "again"]))
    assert ours("list-tables", "team")["tables"] == ["again", "later", "made22"]
    assert ours("list-namespaces", "team")["namespaces"] == ["cpp", "sub"]
