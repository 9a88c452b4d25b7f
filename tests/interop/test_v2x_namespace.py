# SPDX-License-Identifier: Apache-2.0
"""Directory namespace roots in the manifest layout with file format 2.1 / 2.2 tables,
exchanged between lance_cpp (``lance_cpp.namespace.DirectoryNamespace``), pylance 14.0.2
(``lance.namespace.DirectoryNamespace``; its ``__manifest`` table is file format 2.2) and
LanceDB-node 0.31.0 (``connectNamespace("dir")``, Lance 8.0.0, through
tools/oracle/nsmatrix.cjs):

  1. a root pylance made (nested namespaces with properties, tables in 2.1 and 2.2, a
     declared-only table) is listed, described and read by lance_cpp as by pylance;
  2. a root lance_cpp made (default versions: 2.2 tables and a 2.2 ``__manifest``, as
     pylance) is listed, described and read by pylance, which then writes into it;
     lance_cpp reads that back;
  3. the same two ways with LanceDB-node (its tables in its default 2.1 and in 2.2);
  4. a plain-layout root (no ``__manifest``) of pylance 2.2 tables read by lance_cpp.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List

import lance
import lance.namespace as pylance_ns
import pyarrow as pa
import pytest
from lance_namespace import (CreateNamespaceRequest, DeclareTableRequest,
                             DescribeNamespaceRequest, DescribeTableRequest,
                             ListNamespacesRequest, ListTablesRequest, TableExistsRequest)

import matrix_gen
from node_jobs import NodeJobs, describe_ns_job, require_node
from v2x_common import (ORACLE_DIR, assert_same, checked, cpp_module, read_ipc_stream,
                        specs)

NSMATRIX_JS = ORACLE_DIR / "nsmatrix.cjs"


@pytest.fixture(scope="module")
def cpp():
    return cpp_module()


def _data(n: int = 2000, start: int = 0) -> pa.Table:
    """Rows of the "mixed" matrix table: ints, floats, strings, lists, null structs."""
    return specs()["mixed"].table.slice(start, n)


def _theirs(root: Path, manifest: bool = True):
    return pylance_ns.DirectoryNamespace(root=str(root),
                                         manifest_enabled="true" if manifest else "false")


def _ours(cpp, root: Path, manifest: bool = True):
    return checked("DirectoryNamespace()", cpp.namespace.DirectoryNamespace, root=str(root),
                   manifest_enabled="true" if manifest else "false")


def _compare_listing(ours, theirs, namespaces: List[List[str]], tables: List[List[str]]):
    """list_namespaces / list_tables / describe_namespace of every namespace id and
    describe_table / table_exists of every table id: lance_cpp as pylance."""
    for ns_id in [[]] + namespaces:
        want = theirs.list_namespaces(ListNamespacesRequest(id=ns_id)).namespaces
        got = checked(f"list_namespaces({ns_id})", ours.list_namespaces,
                      ListNamespacesRequest(id=ns_id)).namespaces
        assert got == want, f"list_namespaces({ns_id})"
        want = theirs.list_tables(ListTablesRequest(id=ns_id)).tables
        got = checked(f"list_tables({ns_id})", ours.list_tables,
                      ListTablesRequest(id=ns_id)).tables
        assert got == want, f"list_tables({ns_id})"
    for ns_id in namespaces:
        want = theirs.describe_namespace(DescribeNamespaceRequest(id=ns_id)).properties
        got = checked(f"describe_namespace({ns_id})", ours.describe_namespace,
                      DescribeNamespaceRequest(id=ns_id)).properties
        assert (got or {}) == (want or {}), f"describe_namespace({ns_id})"
    for table_id in tables:
        want = theirs.describe_table(DescribeTableRequest(id=table_id))
        got = checked(f"describe_table({table_id})", ours.describe_table,
                      DescribeTableRequest(id=table_id))
        assert (got.table, got.namespace, got.location) == \
            (want.table, want.namespace, want.location), f"describe_table({table_id})"
        checked(f"table_exists({table_id})", ours.table_exists, TableExistsRequest(id=table_id))


def _compare_tables(cpp, ours, theirs, tables: List[List[str]]) -> None:
    """Every table read through each namespace: lance_cpp (through its namespace and through
    pylance's) equal to pylance."""
    for table_id in tables:
        want_ds = lance.dataset(namespace_client=theirs, table_id=table_id)
        want = want_ds.to_table()
        for client, label in ((ours, "lance_cpp's namespace"), (theirs, "pylance's namespace")):
            ds = checked(f"dataset({table_id}) via {label}", cpp.dataset,
                         namespace_client=client, table_id=table_id)
            assert ds.version == want_ds.version, f"{table_id} via {label}"
            assert ds.data_storage_version == want_ds.data_storage_version
            assert_same(checked(f"{table_id}: to_table()", ds.to_table), want,
                        f"{table_id} via {label}")


# -- 1. pylance's root read by lance_cpp ---------------------------------------------------


def test_pylance_manifest_root_read_by_cpp(cpp, tmp_path):
    root = tmp_path / "py-root"
    theirs = _theirs(root)
    theirs.create_namespace(CreateNamespaceRequest(id=["team"], properties={"owner": "ann"}))
    theirs.create_namespace(CreateNamespaceRequest(id=["team", "sub"]))
    lance.write_dataset(_data(), namespace_client=theirs, table_id=["top"])
    lance.write_dataset(_data(1500), namespace_client=theirs, table_id=["team", "events"],
                        data_storage_version="2.1")
    lance.write_dataset(_data(700, 100), namespace_client=theirs, table_id=["team", "events"],
                        mode="append")
    lance.write_dataset(_data(900), namespace_client=theirs, table_id=["team", "sub", "deep"],
                        data_storage_version="2.2")
    theirs.declare_table(DeclareTableRequest(id=["team", "later"]))
    # pylance keeps its namespace table in file format 2.2 (its default).
    assert lance.dataset(str(root / "__manifest")).data_storage_version == "2.2"
    tables = [["top"], ["team", "events"], ["team", "sub", "deep"]]
    assert [lance.dataset(namespace_client=theirs, table_id=t).data_storage_version
            for t in tables] == ["2.2", "2.1", "2.2"]

    ours = _ours(cpp, root)
    _compare_listing(ours, theirs, [["team"], ["team", "sub"]], tables + [["team", "later"]])
    _compare_tables(cpp, ours, theirs, tables)


# -- 2. lance_cpp's root read (and written to) by pylance -----------------------------------


def test_cpp_manifest_root_read_by_pylance(cpp, tmp_path):
    root = tmp_path / "cpp-root"
    ours = _ours(cpp, root)
    checked("create_namespace", ours.create_namespace,
            CreateNamespaceRequest(id=["team"], properties={"owner": "bob"}))
    checked("create_namespace", ours.create_namespace,
            CreateNamespaceRequest(id=["team", "sub"]))
    checked("write_dataset(top)", cpp.write_dataset, _data(), namespace_client=ours,
            table_id=["top"])
    checked("write_dataset(team/t21)", cpp.write_dataset, _data(1200),
            namespace_client=ours, table_id=["team", "t21"], data_storage_version="2.1")
    checked("write_dataset(team/sub/deep)", cpp.write_dataset, _data(800, 50),
            namespace_client=ours, table_id=["team", "sub", "deep"])
    checked("declare_table", ours.declare_table, DeclareTableRequest(id=["team", "later"]))
    # The namespace table and the tables in the default version, as pylance makes them.
    manifest = lance.dataset(str(root / "__manifest"))
    assert manifest.data_storage_version == "2.2", \
        f"lance_cpp's __manifest is file format {manifest.data_storage_version}, pylance's 2.2"
    theirs = _theirs(root)
    tables = [["top"], ["team", "t21"], ["team", "sub", "deep"]]
    assert [lance.dataset(namespace_client=theirs, table_id=t).data_storage_version
            for t in tables] == ["2.2", "2.1", "2.2"]
    _compare_listing(ours, theirs, [["team"], ["team", "sub"]], tables + [["team", "later"]])
    _compare_tables(cpp, ours, theirs, tables)

    # pylance writes into lance_cpp's root: a new table, an append; lance_cpp follows.
    lance.write_dataset(_data(300), namespace_client=theirs, table_id=["team", "py"])
    lance.write_dataset(_data(200, 1000), namespace_client=theirs, table_id=["top"],
                        mode="append")
    tables += [["team", "py"]]
    _compare_listing(ours, theirs, [["team"]], tables)
    _compare_tables(cpp, ours, theirs, tables)


# -- 3. LanceDB-node -------------------------------------------------------------------------


class NsNode(NodeJobs):
    """Batches of jobs through nsmatrix.cjs; run_ok gives their values."""

    def __init__(self, scratch: Path):
        super().__init__(NSMATRIX_JS, scratch, "ns", describe=describe_ns_job)


@pytest.fixture
def ns_node(tmp_path) -> NsNode:
    require_node(ORACLE_DIR)
    scratch = tmp_path / "ns-node"
    scratch.mkdir()
    return NsNode(scratch)


def test_node_manifest_root_read_by_cpp(cpp, ns_node, tmp_path):
    root = tmp_path / "node-root"
    ipc = tmp_path / "ipc"
    ipc.mkdir()
    files = [matrix_gen.write_ipc(_data(n, s), ipc / f"{i}.arrow")
             for i, (n, s) in enumerate([(1500, 0), (400, 2000), (900, 100)])]
    job = {"root": str(root), "manifest": True}
    ns_node.run_ok([
        {**job, "op": "create_namespace", "namespace": ["team"], "properties": {"k": "v"}},
        {**job, "op": "create", "name": "top", "ipc": str(files[0])},  # default: 2.1
        {**job, "op": "add", "name": "top", "ipc": str(files[1])},
        {**job, "op": "create", "namespace": ["team"], "name": "t22", "ipc": str(files[2]),
         "storage_version": "2.2"},
    ])
    theirs = _theirs(root)
    tables = [["top"], ["team", "t22"]]
    assert [lance.dataset(namespace_client=theirs, table_id=t).data_storage_version
            for t in tables] == ["2.1", "2.2"]
    ours = _ours(cpp, root)
    _compare_listing(ours, theirs, [["team"]], tables)
    _compare_tables(cpp, ours, theirs, tables)


def test_cpp_manifest_root_read_by_node(cpp, ns_node, tmp_path):
    root = tmp_path / "cpp-root"
    ours = _ours(cpp, root)
    checked("create_namespace", ours.create_namespace,
            CreateNamespaceRequest(id=["team"], properties={"owner": "cy"}))
    checked("write_dataset(top)", cpp.write_dataset, _data(1800), namespace_client=ours,
            table_id=["top"])
    checked("write_dataset(team/t21)", cpp.write_dataset, _data(600, 300),
            namespace_client=ours, table_id=["team", "t21"], data_storage_version="2.1")
    job = {"root": str(root), "manifest": True}
    out = tmp_path / "read"
    out.mkdir()
    values = ns_node.run_ok([
        {**job, "op": "namespaces"},
        {**job, "op": "describe_ns", "namespace": ["team"]},
        {**job, "op": "tables"},
        {**job, "op": "tables", "namespace": ["team"]},
        {**job, "op": "read", "name": "top", "out": str(out / "top.arrows")},
        {**job, "op": "read", "namespace": ["team"], "name": "t21",
         "out": str(out / "t21.arrows")},
    ])
    assert values[:4] == [["team"], {"owner": "cy"}, ["top"], ["t21"]]
    theirs = _theirs(root)
    for (table_id, path), read in zip([(["top"], "top"), (["team", "t21"], "t21")], values[4:]):
        want_ds = lance.dataset(namespace_client=theirs, table_id=table_id)
        assert read["version"] == want_ds.version
        assert_same(read_ipc_stream(out / f"{path}.arrows"), want_ds.to_table(),
                    f"LanceDB-node reading {table_id} (vs pylance)")


# -- 4. the plain layout -------------------------------------------------------------------


def test_pylance_plain_root_read_by_cpp(cpp, tmp_path):
    root = tmp_path / "plain"
    theirs = _theirs(root, manifest=False)
    lance.write_dataset(_data(), namespace_client=theirs, table_id=["a"])
    lance.write_dataset(_data(500), namespace_client=theirs, table_id=["b"],
                        data_storage_version="2.1")
    ours = _ours(cpp, root, manifest=False)
    _compare_listing(ours, theirs, [], [["a"], ["b"]])
    _compare_tables(cpp, ours, theirs, [["a"], ["b"]])
