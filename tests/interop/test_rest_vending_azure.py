# SPDX-License-Identifier: Apache-2.0
"""`lance-cpp serve` on an Azure (Azurite) root with credential vending on, used by real Lance.

The Azure twin of test_rest_vending_rgw.py. The server is a DirectoryNamespace on
az://<container>/<unique prefix> whose own I/O uses the account key (--ns-prop storage.*,
never handed to a client) and which vends, on every describe/declare, a service SAS signed
with that key (azure_storage_sas_token + azure_storage_account_name + expires_at_millis,
scope in lance_cpp_vended_scope). The clients get nothing but the server's URI:

  1. pylance 14's RestNamespace: create a namespace and tables, add rows, open, query,
     list, drop; real Lance's Azure client (object_store) reads and writes with the vended
     SAS only (the answer holds the endpoint, no key);
  2. LanceDB-node's connectNamespace("rest", {uri}): the same story from Lance 8.0.0;
  3. read-only vending: a server with permission=read vends a SAS Azurite refuses writes
     with.
The server's output and access log never hold the key or a SAS signature.

The Azure coordinates come from LANCE_AZURE_* (the Azurite of scripts/run_tests.sh);
without them the tests fail (never skip).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import uuid
from pathlib import Path
from typing import Dict, List

import lance
import lance.namespace as lance_ns
import pyarrow as pa
import pytest
from lance_namespace import (CreateNamespaceRequest, DescribeTableRequest, DropTableRequest,
                             ListTablesRequest)

import _secret_ledger
from conftest import cpp_bin
from test_rest_server_interop import clicks_jobs, node_rest_jobs


def _env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        pytest.fail(f"{name} is not set: these tests need the Azurite that "
                    "scripts/run_tests.sh starts", pytrace=False)
    return value


class Azure:
    def __init__(self) -> None:
        self.endpoint = _env("LANCE_AZURE_ENDPOINT")
        self.account = _env("LANCE_AZURE_ACCOUNT")
        self.key = _env("LANCE_AZURE_KEY")
        self.container = _env("LANCE_AZURE_CONTAINER")
        # Azurite's published development key: not put in the secrets ledger (as
        # scripts/run_tests.sh does not); these tests assert its absence themselves.

    @property
    def storage_options(self) -> Dict[str, str]:
        return {"azure_storage_account_name": self.account,
                "azure_storage_account_key": self.key,
                "azure_storage_endpoint": self.endpoint,
                "allow_http": "true"}

    def root(self, what: str) -> str:
        return f"az://{self.container}/interop-{what}-{uuid.uuid4().hex[:12]}"

    def scrub(self, text: str) -> str:
        return text.replace(self.key, "<key>")


@pytest.fixture(scope="module")
def azure() -> Azure:
    return Azure()


def _sig(options: Dict[str, str]) -> str:
    sas = options.get("azure_storage_sas_token", "")
    return sas.split("sig=", 1)[1].split("&", 1)[0] if "sig=" in sas else ""


class VendingServer:
    """`lance-cpp serve` over a directory namespace on an Azurite root with vending on."""

    def __init__(self, azure: Azure, root: str, permission: str, scratch: Path):
        props = {"root": root,
                 **{f"storage.{k}": v for k, v in azure.storage_options.items()},
                 "credential_vendor.enabled": "true",
                 "credential_vendor.permission": permission}
        self.azure = azure
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
            pytest.fail(azure.scrub(f"lance-cpp serve did not start: {line!r} "
                                    f"{self.proc.stderr.read()}"))
        self.uri = line.rsplit(" on ", 1)[1]

    def stop(self) -> str:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        assert self.proc.wait(timeout=30) == 0
        output = self.proc.stdout.read() + self.proc.stderr.read()
        _secret_ledger.keep("lance-cpp serve", output)  # for the scan
        return output

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()

    def log_has_no_secret(self, *secrets: str) -> bool:
        text = self.log.read_text()
        return "sig=" not in text and all(s and s not in text for s in secrets)


@pytest.fixture(scope="module")
def served(azure: Azure, tmp_path_factory):
    server = VendingServer(azure, azure.root("rest-vending"), "admin",
                           tmp_path_factory.mktemp("rest-vending-azure"))
    yield server
    output = server.stop()
    assert azure.key not in output
    assert "sig=" not in output


def rows(n: int, start: int = 0) -> pa.Table:
    return pa.table({"id": pa.array(range(start, start + n), pa.int64()),
                     "name": pa.array([f"r{i}" for i in range(start, start + n)])})


def _vended(ns, table_id: List[str]) -> Dict[str, str]:
    return dict(ns.describe_table(DescribeTableRequest(id=table_id, vend_credentials=True))
                .storage_options)


def test_pylance_client_full_story_with_vended_sas(served, azure: Azure) -> None:
    ns = lance_ns.RestNamespace(uri=served.uri)
    ns.create_namespace(CreateNamespaceRequest(id=["shop"]))
    ds = lance.write_dataset(rows(10), namespace_client=ns, table_id=["shop", "orders"])
    assert ds.count_rows() == 10
    assert ds.uri.startswith(f"az://{azure.container}/")
    lance.write_dataset(rows(5, 10), namespace_client=ns, table_id=["shop", "orders"],
                        mode="append")
    opened = lance.dataset(namespace_client=ns, table_id=["shop", "orders"])
    assert opened.count_rows() == 15
    assert opened.version == 2
    assert opened.to_table().sort_by("id").equals(rows(15))
    assert opened.to_table(filter="id >= 12").num_rows == 3
    assert ns.list_tables(ListTablesRequest(id=["shop"])).tables == ["orders"]

    options = _vended(ns, ["shop", "orders"])
    # A SAS signed with the server's key, never the key itself.
    assert _sig(options)
    assert options["azure_storage_account_name"] == azure.account
    assert int(options["expires_at_millis"]) > 0
    assert "refresh_offset_millis" in options
    assert options["lance_cpp_vended_scope"] == f"container:{azure.container}"
    assert azure.key not in json.dumps(options)
    assert "azure_storage_account_key" not in options
    # pylance with just those options (no key) reads the table at its location.
    bare = {k: v for k, v in options.items() if k != "lance_cpp_vended_scope"}
    assert lance.dataset(opened.uri, storage_options=bare).count_rows() == 15
    # ... and without the SAS it is refused (Azurite checks every request).
    no_sas = {k: v for k, v in bare.items() if k != "azure_storage_sas_token"}
    with pytest.raises(Exception):
        lance.dataset(opened.uri, storage_options=no_sas).count_rows()

    ns.drop_table(DropTableRequest(id=["shop", "orders"]))
    assert ns.list_tables(ListTablesRequest(id=["shop"])).tables == []
    assert served.log_has_no_secret(azure.key, _sig(options))


def test_read_permission_vends_a_sas_that_cannot_write(azure: Azure,
                                                       tmp_path_factory) -> None:
    root = azure.root("rest-read")
    with VendingServer(azure, root, "write", tmp_path_factory.mktemp("az-seed")) as writer:
        ns = lance_ns.RestNamespace(uri=writer.uri)
        lance.write_dataset(rows(6), namespace_client=ns, table_id=["t"])
    with VendingServer(azure, root, "read", tmp_path_factory.mktemp("az-read")) as reader:
        ns = lance_ns.RestNamespace(uri=reader.uri)
        ds = lance.dataset(namespace_client=ns, table_id=["t"])
        assert ds.count_rows() == 6
        creds = _vended(ns, ["t"])
        sp = dict(p.split("=", 1) for p in creds["azure_storage_sas_token"].split("&")
                  if "=" in p)["sp"]
        assert set(sp) <= set("rl"), sp
        creds.pop("lance_cpp_vended_scope", None)
        with pytest.raises(Exception):
            lance.write_dataset(rows(1, 50), ds.uri, mode="append", storage_options=creds)
    check = lance.dataset(ds.uri, storage_options=azure.storage_options)
    assert check.count_rows() == 6
    assert check.version == 1


def test_lancedb_node_client_with_vended_sas(served, azure: Azure, tmp_path) -> None:
    """Lance 8.0.0 (LanceDB-node) creates, appends, reads, lists and drops through our
    server; its Azure client uses only the SAS the server vended."""
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
    assert served.log_has_no_secret(azure.key)
