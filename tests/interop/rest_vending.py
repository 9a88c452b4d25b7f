# SPDX-License-Identifier: Apache-2.0
"""What test_rest_vending_rgw.py and test_rest_vending_azure.py share: `lance-cpp serve`
over a vending directory namespace (VendingServer) and the client stories both stores run
(pylance 14's RestNamespace, LanceDB-node's connectNamespace("rest"), read-only vending).
Each test file passes its store's namespace properties and checks its own credentials."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path
from typing import Callable, Dict, List, Tuple

import lance
import lance.namespace as lance_ns
import pyarrow as pa
import pytest
from lance_namespace import (CreateNamespaceRequest, DescribeTableRequest, DropTableRequest,
                             ListTablesRequest)

import _secret_ledger
from conftest import cpp_bin
from test_rest_server_interop import clicks_jobs, node_rest_jobs


class VendingServer:
    """`lance-cpp serve --namespace dir` with the namespace properties `props` (the store's
    own credentials among them: --ns-prop storage.*, never handed to a client); `scrub`
    removes them from a start-up failure's message."""

    def __init__(self, props: Dict[str, str], scrub: Callable[[str], str], scratch: Path):
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
            pytest.fail(scrub(f"lance-cpp serve did not start: {line!r} "
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
        return all(secret and secret not in text for secret in secrets)


def rows(n: int, start: int = 0) -> pa.Table:
    return pa.table({"id": pa.array(range(start, start + n), pa.int64()),
                     "name": pa.array([f"r{i}" for i in range(start, start + n)])})


def vended(ns, table_id: List[str]) -> Dict[str, str]:
    """The storage options describe_table vends for `table_id`."""
    return dict(ns.describe_table(DescribeTableRequest(id=table_id, vend_credentials=True))
                .storage_options)


def pylance_create_and_append(served: VendingServer) -> Tuple[object, object, object]:
    """pylance's RestNamespace on `served`: namespace "shop", table "orders" written (10
    rows), appended (5), opened, queried and listed. Returns (namespace, the written
    dataset, the opened one)."""
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
    return ns, ds, opened


def pylance_drop(ns) -> None:
    """Drops shop/orders (pylance_create_and_append's); the namespace is then empty."""
    ns.drop_table(DropTableRequest(id=["shop", "orders"]))
    assert ns.list_tables(ListTablesRequest(id=["shop"])).tables == []


def read_only_story(make_server: Callable[[str, Path], VendingServer], tmp_path_factory,
                    scratch: str, check_vended: Callable[[Dict[str, str]], None]) -> str:
    """Table "t" (6 rows) seeded through a permission=write server, then served by a
    permission=read one (make_server(permission, scratch dir)): read through it, its
    vended credentials (after check_vended, which may drop keys) cannot append. Returns
    the table's URI."""
    with make_server("write", tmp_path_factory.mktemp(f"{scratch}-seed")) as writer:
        ns = lance_ns.RestNamespace(uri=writer.uri)
        lance.write_dataset(rows(6), namespace_client=ns, table_id=["t"])
    with make_server("read", tmp_path_factory.mktemp(f"{scratch}-read")) as reader:
        ns = lance_ns.RestNamespace(uri=reader.uri)
        ds = lance.dataset(namespace_client=ns, table_id=["t"])
        assert ds.count_rows() == 6
        creds = vended(ns, ["t"])
        check_vended(creds)
        with pytest.raises(Exception):
            lance.write_dataset(rows(1, 50), ds.uri, mode="append", storage_options=creds)
    return ds.uri


def node_client_story(served: VendingServer, tmp_path) -> None:
    """Lance 8.0.0 (LanceDB-node) creates, appends, reads, lists and drops through
    `served`; its store client uses only what the server vended."""
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
