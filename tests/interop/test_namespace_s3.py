# SPDX-License-Identifier: Apache-2.0
"""Directory namespaces on S3 (the Ceph RGW that scripts/run_tests.sh starts) exchanged with
real Lance: each root is s3://<bucket>/<unique prefix>, configured only through the
namespace's `storage.*` properties (endpoint, region, key pair, allow_http).

  1. roots lance-cpp writes (lance-ns) in the plain layout and in manifest mode, nested
     ids included, are listed, described and read by pylance's DirectoryNamespace and by
     LanceDB-node's connectNamespace("dir", ...) (tools/oracle/ns_oracle.cjs);
  2. tables real Lance creates in the plain layout with file format 2.0 (pylance
     write_dataset into <root>/<name>.lance, LanceDB-node createTable through its
     namespace) are listed, described and read by lance-ns;
  3. several lance-ns PROCESSES declaring at once on the same S3 root, in both layouts:
     different ids all land, one id has exactly one winner, the others TableAlreadyExists.

Real Lance's DirectoryNamespace returns no storage options from describe_table (its
`storage.*` serve only its own I/O), so real Lance opens tables with the options passed
again; lance-cpp's returns them (see include/lance/namespace/directory_namespace.h).

The S3 coordinates come from LANCE_S3_*; without them the tests fail (never skip).
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any, Dict, List

import lance
import lance.namespace as lance_ns
import pyarrow as pa
import pytest
from lance_namespace import (DescribeNamespaceRequest, DescribeTableRequest,
                             ListNamespacesRequest, ListTablesRequest)

from test_namespace_dir import (LanceNs, expect_declared_and_missing, make_tree,
                                ns_bin, rows)  # noqa: F401  (ns_bin: a fixture)
from test_namespace_node import (N_PROCS, NsOracle, check_race_different_ids,
                                 check_race_same_id, tree_jobs)
from s3_env import S3Env

# Processes open the namespace (and __manifest) over HTTP before they race.
S3_LEAD_MS = 4000


class S3(S3Env):
    """The test server (s3_env.py), with namespace roots under the run prefix."""

    def __init__(self) -> None:
        super().__init__("interop-ns-s3", "the S3 namespace tests")

    @property
    def storage_props(self) -> Dict[str, str]:
        return {f"storage.{k}": v for k, v in self.storage_options.items()}

    def root(self, name: str) -> str:
        return f"s3://{self.bucket}/{self.run_prefix}/{uuid.uuid4().hex[:8]}-{name}"


@pytest.fixture(scope="module")
def s3():
    env = S3()
    yield env
    env.cleanup()


def printed_options(options: Dict[str, str]) -> Dict[str, str]:
    """``options`` as lance-ns prints them: each secret value replaced by its 64-bit FNV-1a
    fingerprint (tools/namespace/lance_ns.cc), so that no secret reaches its stdout."""
    def fnv1a64(value: str) -> str:
        h = 14695981039346656037
        for byte in value.encode():
            h = ((h ^ byte) * 1099511628211) % (1 << 64)
        return f"<secret fnv1a64:{h:016x}>"
    return {k: fnv1a64(v) if k in ("aws_secret_access_key", "aws_session_token") else v
            for k, v in options.items()}


class S3LanceNs(LanceNs):
    """lance-ns on an S3 root with the storage.* properties; failures are scrubbed of the
    secret (it is on the command line)."""

    def __init__(self, binary: Path, s3: S3, root: str, manifest: bool):
        super().__init__(binary, root, manifest)  # type: ignore[arg-type]
        self.props += [f"{k}={v}" for k, v in s3.storage_props.items()]
        self.s3 = s3

    # Stands for returned storage options equal to the namespace's storage.* without its
    # credentials: no namespace hands its own key to clients without a vendor.
    SAME_OPTIONS = "<the namespace's storage options but its credentials>"

    def __call__(self, *args: Any, **kwargs: Any) -> Dict[str, Any]:
        try:
            out = super().__call__(*args, **kwargs)
        except AssertionError as e:
            raise AssertionError(self.s3.scrub(str(e))) from None
        if "storage_options" in out:
            public = {k: v for k, v in self.s3.storage_options.items()
                      if k not in ("aws_access_key_id", "aws_secret_access_key")}
            same = out["storage_options"] == printed_options(public)
            out["storage_options"] = self.SAME_OPTIONS if same else "<other options>"
        return out


@pytest.fixture(scope="module")
def ns_node_s3(tmp_path_factory, s3) -> NsOracle:
    from conftest import ORACLE_DIR
    from node_jobs import require_node
    require_node(ORACLE_DIR)
    return NsOracle(tmp_path_factory.mktemp("ns-node-s3"), scrub=s3.scrub)


def py_dir(s3: S3, root: str, manifest: bool) -> lance_ns.DirectoryNamespace:
    return lance_ns.DirectoryNamespace(root=root, manifest_enabled="true" if manifest else "false",
                                       **s3.storage_props)


def py_read(s3: S3, ns: lance_ns.DirectoryNamespace, table_id: List[str]) -> Dict[str, Any]:
    return lance.dataset(namespace_client=ns, table_id=table_id,
                         storage_options=s3.storage_options).to_table().to_pydict()


# -- 1. Roots written here, read by real Lance ---------------------------------------------


def test_plain_root_written_here_is_read_on_s3(ns_bin: Path, s3: S3, ns_node_s3: NsOracle) -> None:
    root = s3.root("plain")
    ours = S3LanceNs(ns_bin, s3, root, manifest=False)
    assert ours("create", "events", rows=3) == {"location": f"{root}/events.lance", "version": 1}
    ours("create", "big", rows=1000)
    assert ours("declare", "declared") == {"location": f"{root}/declared.lance",
                                           "storage_options": S3LanceNs.SAME_OPTIONS}
    ours("create", "gone", rows=1)
    ours("drop", "gone")
    ours("create", "hidden", rows=2)
    ours("deregister", "hidden")
    assert ours("list-tables")["tables"] == ["big", "declared", "events"]

    theirs = py_dir(s3, root, manifest=False)
    assert theirs.list_tables(ListTablesRequest(id=[])).tables == ["big", "declared", "events"]
    described = theirs.describe_table(
        DescribeTableRequest(id=["events"], load_detailed_metadata=True))
    assert described.location == f"{root}/events.lance" == ours("describe", "events")["location"]
    assert described.version == 1
    expect_declared_and_missing(theirs)
    assert py_read(s3, theirs, ["events"]) == rows(3)
    assert py_read(s3, theirs, ["big"]) == rows(1000)

    job = {"root": root, "manifest": False, "s3": True}
    assert ns_node_s3.run_ok([
        {**job, "op": "tables"},
        {**job, "op": "read", "name": "events"},
        {**job, "op": "read", "name": "big"},
    ]) == [["big", "declared", "events"], {"version": 1, **rows(3)}, {"version": 1, **rows(1000)}]


def test_manifest_root_written_here_is_read_on_s3(ns_bin: Path, s3: S3,
                                                  ns_node_s3: NsOracle) -> None:
    root = s3.root("managed")
    ours = S3LanceNs(ns_bin, s3, root, manifest=True)
    events, _ = make_tree(ours)
    ghost = ours("declare", "ghost", "x")  # a namespace never created, as Lance allows
    assert events["location"].startswith(f"{root}/")
    assert ghost["storage_options"] == S3LanceNs.SAME_OPTIONS

    theirs = py_dir(s3, root, manifest=True)
    assert theirs.list_namespaces(ListNamespacesRequest(id=[])).namespaces == ["team"]
    assert theirs.list_namespaces(ListNamespacesRequest(id=["team"])).namespaces == ["sub"]
    assert theirs.describe_namespace(
        DescribeNamespaceRequest(id=["team"])).properties == {"owner": "ann"}
    for ns_id, tables in [([], ["top"]), (["team"], ["events", "later"]),
                          (["team", "sub"], ["deep"]), (["ghost"], ["x"])]:
        assert theirs.list_tables(ListTablesRequest(id=ns_id)).tables == tables
        assert ours("list-tables", *ns_id)["tables"] == tables
    described = theirs.describe_table(DescribeTableRequest(id=["team", "events"]))
    assert described.location == events["location"] == \
        ours("describe", "team", "events")["location"]
    assert described.properties == {"k": "v"}
    assert py_read(s3, theirs, ["top"]) == rows(2)
    assert py_read(s3, theirs, ["team", "events"]) == rows(4)
    assert py_read(s3, theirs, ["team", "sub", "deep"]) == rows(5)

    job = {"root": root, "manifest": True, "s3": True}
    values = ns_node_s3.run_ok(tree_jobs(job))
    assert values == [["team"], ["sub"], {"owner": "ann"}, ["top"], ["events", "later"],
                      ["deep"], {"version": 1, **rows(2)}, {"version": 1, **rows(4)},
                      {"version": 1, **rows(5)}]


# -- 2. Tables real Lance creates (file format 2.0), read here -----------------------------


def test_real_lance_plain_root_is_read_here_on_s3(ns_bin: Path, s3: S3,
                                                  ns_node_s3: NsOracle) -> None:
    root = s3.root("theirs")
    # pylance: straight into <root>/<name>.lance (its DirectoryNamespace's declare_table
    # writes the empty marker as a multipart upload, which RGW refuses: 411
    # MissingContentLength for the empty part).
    data = pa.table({"x": pa.array([5, 6, 7], pa.int64()), "s": ["a", "b", None]})
    lance.write_dataset(data, f"{root}/py.lance", mode="create", data_storage_version="2.0",
                        storage_options=s3.storage_options)
    more = pa.table({"x": pa.array([8], pa.int64()), "s": ["d"]})
    lance.write_dataset(more, f"{root}/py.lance", mode="append",
                        storage_options=s3.storage_options)
    # LanceDB-node through its directory namespace.
    job = {"root": root, "manifest": False, "s3": True}
    assert ns_node_s3.run_ok([
        {**job, "op": "create", "name": "node", "x": [1, 2], "s": ["p", None],
         "storage_version": "2.0"},
        {**job, "op": "add", "name": "node", "x": [3], "s": ["r"]},
    ]) == [1, 2]

    ours = S3LanceNs(ns_bin, s3, root, manifest=False)
    assert ours("list-tables")["tables"] == ["node", "py"]
    for name, want in [("py", {"x": [5, 6, 7, 8], "s": ["a", "b", None, "d"]}),
                       ("node", {"x": [1, 2, 3], "s": ["p", None, "r"]})]:
        described = ours("describe", name, detailed=True)
        assert described["location"] == f"{root}/{name}.lance"
        assert described["version"] == 2 and described["is_only_declared"] is False
        assert described["storage_options"] == S3LanceNs.SAME_OPTIONS
        # (pylance 14 answers none at all without a vendor.)
        assert py_dir(s3, root, manifest=False).describe_table(
            DescribeTableRequest(id=[name])).storage_options is None
        assert ours("read", name) == {"location": f"{root}/{name}.lance", "version": 2, **want}
        assert ours("declare", name, expect_error=True)["error"] == "TableAlreadyExists"
    # A manifest-mode lance-ns finds the same tables by listing directories.
    managed = S3LanceNs(ns_bin, s3, root, manifest=True)
    assert managed("list-tables")["tables"] == ["node", "py"]
    assert managed("read", "py")["x"] == [5, 6, 7, 8]


# -- 3. Concurrent declarations from several processes on one S3 root ----------------------


@pytest.mark.parametrize("manifest", [False, True], ids=["plain", "manifest"])
def test_processes_declaring_on_s3(ns_bin: Path, s3: S3, manifest: bool) -> None:
    root = s3.root("race")
    ours = S3LanceNs(ns_bin, s3, root, manifest=manifest)
    if manifest:
        ours("create-namespace", "team")
    names = check_race_different_ids(ours, [], N_PROCS, S3_LEAD_MS)
    check_race_same_id(ours, ["same"], N_PROCS, S3_LEAD_MS)
    theirs = py_dir(s3, root, manifest)
    assert theirs.list_tables(ListTablesRequest(id=[])).tables == sorted(names + ["same"])
    if manifest:
        nested = check_race_different_ids(ours, ["team"], N_PROCS, S3_LEAD_MS)
        check_race_same_id(ours, ["team", "same"], N_PROCS, S3_LEAD_MS)
        assert theirs.list_tables(ListTablesRequest(id=["team"])).tables == \
            sorted(nested + ["same"])
