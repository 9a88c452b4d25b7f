# SPDX-License-Identifier: Apache-2.0
"""`lance-cpp serve` on an RGW root with credential vending on, used by real Lance.

The server is a DirectoryNamespace on s3://<bucket>/<unique prefix> whose own I/O uses the
RGW user's long-lived key and which vends, on every describe/declare, STS AssumeRole
credentials whose session policy allows only the table's prefix. The clients get nothing
but the server's URI:

  1. pylance 14's RestNamespace: create a namespace and tables, add rows, open, query,
     list, drop; real Lance's S3 client reads and writes with the vended credentials;
  2. LanceDB-node's connectNamespace("rest", {uri}): the same story from Lance 8.0.0;
  3. scoping: the credentials vended for one table are refused by RGW on another table's
     prefix (and work on their own), for reads and for writes;
  4. read-only vending: a server with permission=read vends credentials that cannot write.

The S3 coordinates come from LANCE_S3_* (the RGW of scripts/run_tests.sh); without them
the tests fail (never skip).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path
from typing import Dict, List

import lance
import lance.namespace as lance_ns
import pyarrow as pa
import pytest
from lance_namespace import (CreateNamespaceRequest, DescribeTableRequest, DropTableRequest,
                             ListTablesRequest)

from conftest import cpp_bin
from test_namespace_s3 import S3, s3  # noqa: F401  (s3: a fixture)
from test_rest_server_interop import clicks_jobs, node_rest_jobs

ROLE_VAR = "LANCE_S3_STS_ROLE_ARN"


class VendingServer:
    """`lance-cpp serve` over a directory namespace on an RGW root with vending on. The
    namespace's own key is passed as --ns-prop storage.* (it never reaches a client)."""

    def __init__(self, s3: S3, root: str, permission: str, scratch: Path):  # noqa: F811
        role = os.environ.get(ROLE_VAR)
        if not role:
            pytest.fail(f"{ROLE_VAR} is not set: these tests need the RGW with STS that "
                        "scripts/run_tests.sh starts")
        props = {"root": root, **s3.storage_props,
                 "credential_vendor.enabled": "true",
                 "credential_vendor.permission": permission,
                 "credential_vendor.aws_role_arn": role,
                 "credential_vendor.aws_region": s3.region}
        self.s3 = s3
        self.log = scratch / "access.log"
        cmd = [str(cpp_bin()), "serve", "--namespace", "dir", "--port", "0",
               "--access-log", str(self.log)]
        for k, v in props.items():
            cmd += ["--ns-prop", f"{k}={v}"]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)
        line = self.proc.stdout.readline().strip()
        if not line.startswith("serving "):
            self.proc.kill()
            pytest.fail(s3.scrub(f"lance-cpp serve did not start: {line!r} "
                                 f"{self.proc.stderr.read()}"))
        self.uri = line.rsplit(" on ", 1)[1]

    def stop(self) -> str:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        assert self.proc.wait(timeout=30) == 0
        output = self.proc.stdout.read() + self.proc.stderr.read()
        __import__("_secret_ledger").keep("lance-cpp serve", output)  # for the scan
        return output

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()

    def log_has_no_secret(self, *secrets: str) -> bool:
        text = self.log.read_text()
        return all(secret and secret not in text for secret in secrets)


@pytest.fixture(scope="module")
def served(s3: S3, tmp_path_factory):  # noqa: F811
    server = VendingServer(s3, s3.root("rest-vending"), "admin",
                           tmp_path_factory.mktemp("rest-vending"))
    yield server
    output = server.stop()
    assert s3.secret_key not in output


def rows(n: int, start: int = 0) -> pa.Table:
    return pa.table({"id": pa.array(range(start, start + n), pa.int64()),
                     "name": pa.array([f"r{i}" for i in range(start, start + n)])})


def _vended(ns, table_id: List[str]) -> Dict[str, str]:
    return ns.describe_table(DescribeTableRequest(id=table_id, vend_credentials=True)) \
        .storage_options


def test_pylance_client_full_story_with_vended_credentials(served, s3: S3) -> None:  # noqa: F811
    ns = lance_ns.RestNamespace(uri=served.uri)
    ns.create_namespace(CreateNamespaceRequest(id=["shop"]))
    ds = lance.write_dataset(rows(10), namespace_client=ns, table_id=["shop", "orders"])
    assert ds.count_rows() == 10
    lance.write_dataset(rows(5, 10), namespace_client=ns, table_id=["shop", "orders"],
                        mode="append")
    opened = lance.dataset(namespace_client=ns, table_id=["shop", "orders"])
    assert opened.count_rows() == 15
    assert opened.to_table(filter="id >= 12").num_rows == 3
    assert ns.list_tables(ListTablesRequest(id=["shop"])).tables == ["orders"]

    options = _vended(ns, ["shop", "orders"])
    # Temporary, scoped credentials, never the server's own key.
    assert options["aws_access_key_id"] != s3.access_key
    assert options.get("aws_session_token")
    assert int(options["expires_at_millis"]) > 0
    assert "refresh_offset_millis" in options
    assert s3.secret_key not in json.dumps(options)

    ns.drop_table(DropTableRequest(id=["shop", "orders"]))
    assert ns.list_tables(ListTablesRequest(id=["shop"])).tables == []
    assert served.log_has_no_secret(s3.secret_key, options["aws_secret_access_key"],
                                    options["aws_session_token"])


def test_vended_credentials_are_scoped_to_their_table(served, s3: S3) -> None:  # noqa: F811
    ns = lance_ns.RestNamespace(uri=served.uri)
    ns.create_namespace(CreateNamespaceRequest(id=["scope"]))
    a = lance.write_dataset(rows(3), namespace_client=ns, table_id=["scope", "a"])
    b = lance.write_dataset(rows(4), namespace_client=ns, table_id=["scope", "b"])
    creds_a = _vended(ns, ["scope", "a"])
    # Their own table: read and append work with the bare credentials.
    assert lance.dataset(a.uri, storage_options=creds_a).count_rows() == 3
    lance.write_dataset(rows(1, 100), a.uri, mode="append", storage_options=creds_a)
    assert lance.dataset(a.uri, storage_options=creds_a).count_rows() == 4
    # Another table's prefix: RGW refuses both reading and writing.
    with pytest.raises(Exception) as read_err:
        lance.dataset(b.uri, storage_options=creds_a).count_rows()
    assert "403" in str(read_err.value) or "AccessDenied" in str(read_err.value) \
        or "Forbidden" in str(read_err.value) or "denied" in str(read_err.value).lower()
    with pytest.raises(Exception):
        lance.write_dataset(rows(1, 200), b.uri, mode="append", storage_options=creds_a)
    assert lance.dataset(namespace_client=ns, table_id=["scope", "b"]).count_rows() == 4


def test_read_permission_vends_credentials_that_cannot_write(s3: S3,  # noqa: F811
                                                             tmp_path_factory) -> None:
    root = s3.root("rest-read")
    # Seed a table with a write server, then serve the same root read-only.
    with VendingServer(s3, root, "write", tmp_path_factory.mktemp("rest-seed")) as writer:
        ns = lance_ns.RestNamespace(uri=writer.uri)
        lance.write_dataset(rows(6), namespace_client=ns, table_id=["t"])
    with VendingServer(s3, root, "read", tmp_path_factory.mktemp("rest-read")) as reader:
        ns = lance_ns.RestNamespace(uri=reader.uri)
        ds = lance.dataset(namespace_client=ns, table_id=["t"])
        assert ds.count_rows() == 6
        creds = _vended(ns, ["t"])
        with pytest.raises(Exception):
            lance.write_dataset(rows(1, 50), ds.uri, mode="append", storage_options=creds)
    check = lance.dataset(ds.uri, storage_options=s3.storage_options)
    assert check.count_rows() == 6


def test_lancedb_node_client_with_vended_credentials(served, s3: S3, tmp_path) -> None:  # noqa: F811
    """Lance 8.0.0 (LanceDB-node) creates, appends, reads, lists and drops through our
    server; its S3 client uses only the credentials the server vended."""
    jobs = node_rest_jobs(tmp_path)
    u = {"uri": served.uri}
    values = jobs.run_ok(clicks_jobs(served.uri, "node") + [
        {**u, "op": "read", "namespace": ["node"], "name": "clicks", "filter": "x > 1"},
        {**u, "op": "tables", "namespace": ["node"]},
        {**u, "op": "drop", "namespace": ["node"], "name": "clicks"},
        {**u, "op": "tables", "namespace": ["node"]},
    ])
    assert values[1] == 1 and values[2] == 2
    assert values[3]["x"] == [2, 3] and values[3]["version"] == 2
    assert values[4] == ["clicks"]
    assert values[6] == []
    assert served.log_has_no_secret(s3.secret_key)
