# SPDX-License-Identifier: Apache-2.0
"""Real Lance as the client of `lance-cpp serve` (a directory namespace on local disk):

  1. pylance 14's `lance.namespace.RestNamespace(uri=...)`: namespaces, declare + write
     (`lance.write_dataset(..., namespace_client=, table_id=)`), append, open and query
     (`lance.dataset(namespace_client=, table_id=)`), list, describe, exists, drop, and the
     spec's errors surfacing as pylance's typed exceptions;
  2. LanceDB-node's `connectNamespace("rest", {uri})` (tools/oracle/rest_oracle.cjs):
     namespaces and tables created, rows added, opened, queried, listed and dropped;
  3. authentication (x-api-key from LANCE_SERVE_API_KEYS), the access log without
     secrets, and SIGTERM ending the server with exit 0 while a client is connected.

The S3 / vending variant is test_rest_vending_interop.py's. Never skipped: a missing
lance-cpp, node or oracle fails the test.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Dict, List, Optional

import lance
import lance_namespace as ln
import pyarrow as pa
import pytest
from lance.namespace import RestNamespace
from lance_namespace import errors as ln_errors

from conftest import ORACLE_DIR, cpp_bin
from node_jobs import NodeJobs, describe_ns_job, require_node

REST_ORACLE = ORACLE_DIR / "rest_oracle.cjs"


class Served:
    """A `lance-cpp serve` process on an ephemeral port over a directory root."""

    def __init__(self, root: Path, log: Path, extra: Optional[List[str]] = None,
                 env: Optional[Dict[str, str]] = None):
        binary = cpp_bin()
        if not binary.exists():
            pytest.fail(f"lance-cpp not found at {binary} (build the lance-cpp target)")
        root.mkdir(parents=True, exist_ok=True)
        cmd = [str(binary), "serve", "--namespace", "dir", "--ns-prop", f"root={root}",
               "--port", "0", "--access-log", str(log)] + (extra or [])
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, env={**os.environ, **(env or {})})
        line = self.proc.stdout.readline().strip()
        if not line.startswith("serving "):
            self.proc.kill()
            pytest.fail(f"lance-cpp serve did not start: {line!r} {self.proc.stderr.read()}")
        assert "DirectoryNamespace" in line, line
        # A server bound to every address is reached on loopback.
        self.uri = line.rsplit(" on ", 1)[1].replace("//0.0.0.0:", "//127.0.0.1:")
        assert self.uri.startswith(("http://127.0.0.1:", "https://127.0.0.1:")), line
        self.output = ""
        self.log = log

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        rc = self.proc.wait(timeout=30)
        output = self.proc.stdout.read() + self.proc.stderr.read()
        __import__("_secret_ledger").keep("lance-cpp serve", output)  # for the scan
        self.output = output
        return rc

    def log_lines(self) -> List[dict]:
        return [json.loads(line) for line in self.log.read_text().splitlines() if line]


@pytest.fixture
def served(tmp_path):
    server = Served(tmp_path / "root", tmp_path / "access.log")
    yield server
    assert server.stop() == 0


def _rows(start: int, n: int) -> pa.Table:
    return pa.table({"x": pa.array(range(start, start + n), pa.int64()),
                     "s": [f"r{i}" for i in range(start, start + n)]})


def test_pylance_rest_namespace_round_trip(served):
    ns = RestNamespace(uri=served.uri)
    ns.create_namespace(ln.CreateNamespaceRequest(id=["team"]))
    ns.create_namespace(ln.CreateNamespaceRequest(id=["team", "sub"]))
    assert ns.list_namespaces(ln.ListNamespacesRequest(id=[])).namespaces == ["team"]
    assert ns.list_namespaces(ln.ListNamespacesRequest(id=["team"])).namespaces == ["sub"]
    ns.namespace_exists(ln.NamespaceExistsRequest(id=["team"]))
    with pytest.raises(ln_errors.NamespaceAlreadyExistsError):
        ns.create_namespace(ln.CreateNamespaceRequest(id=["team"]))

    ds = lance.write_dataset(_rows(0, 5), namespace_client=ns, table_id=["team", "events"],
                             mode="create")
    assert ds.version == 1 and ds.count_rows() == 5
    ds = lance.write_dataset(_rows(5, 3), namespace_client=ns, table_id=["team", "events"],
                             mode="append")
    assert ds.version == 2
    lance.write_dataset(_rows(100, 2), namespace_client=ns, table_id=["team", "sub", "deep"],
                        mode="create")

    opened = lance.dataset(namespace_client=ns, table_id=["team", "events"])
    assert opened.count_rows() == 8
    assert sorted(opened.to_table(filter="x >= 6").column("x").to_pylist()) == [6, 7]
    assert ns.list_tables(ln.ListTablesRequest(id=["team"])).tables == ["events"]
    assert ns.list_tables(ln.ListTablesRequest(id=["team", "sub"])).tables == ["deep"]
    described = ns.describe_table(ln.DescribeTableRequest(id=["team", "events"]))
    assert described.location == opened.uri or described.location.endswith(
        Path(opened.uri).name)
    ns.table_exists(ln.TableExistsRequest(id=["team", "events"]))

    with pytest.raises(ln_errors.TableNotFoundError):
        ns.describe_table(ln.DescribeTableRequest(id=["team", "nope"]))
    with pytest.raises(ln_errors.NamespaceNotFoundError):
        ns.describe_namespace(ln.DescribeNamespaceRequest(id=["nope"]))
    with pytest.raises(ln_errors.NamespaceNotEmptyError):
        ns.drop_namespace(ln.DropNamespaceRequest(id=["team"]))

    ns.drop_table(ln.DropTableRequest(id=["team", "events"]))
    with pytest.raises(ln_errors.TableNotFoundError):
        ns.table_exists(ln.TableExistsRequest(id=["team", "events"]))
    assert ns.list_tables(ln.ListTablesRequest(id=["team"])).tables == []

    routes = {(line["route"], line["status"]) for line in served.log_lines()}
    assert ("/v1/table/{id}/declare", 200) in routes
    assert ("/v1/table/{id}/describe", 404) in routes
    assert ("/v1/table/{id}/drop", 200) in routes


def node_rest_jobs(tmp_path) -> NodeJobs:
    """LanceDB-node's connectNamespace("rest", ...) (tools/oracle/rest_oracle.cjs)."""
    require_node(ORACLE_DIR)
    return NodeJobs(REST_ORACLE, tmp_path / "node", "rest", describe=describe_ns_job)


def clicks_jobs(uri: str, namespace: str) -> List[dict]:
    """Node jobs that create namespace `namespace` on the server at `uri`, its table
    "clicks" with x = 1, 2 (s = a, b), and append x = 3 (s = c): versions 1 and 2."""
    u = {"uri": uri, "namespace": [namespace]}
    return [{**u, "op": "create_ns"},
            {**u, "op": "create", "name": "clicks", "x": [1, 2], "s": ["a", "b"]},
            {**u, "op": "add", "name": "clicks", "x": [3], "s": ["c"]}]


def test_lancedb_node_rest_namespace(served, tmp_path):
    jobs = node_rest_jobs(tmp_path)
    u = {"uri": served.uri}
    values = jobs.run_ok(clicks_jobs(served.uri, "web") + [
        {**u, "op": "create", "name": "top", "x": [9], "s": ["z"]},
        {**u, "op": "read", "namespace": ["web"], "name": "clicks"},
        {**u, "op": "read", "namespace": ["web"], "name": "clicks", "filter": "x > 1"},
        {**u, "op": "namespaces"},
        {**u, "op": "tables", "namespace": ["web"]},
        {**u, "op": "tables"},
        {**u, "op": "drop", "namespace": ["web"], "name": "clicks"},
        {**u, "op": "tables", "namespace": ["web"]},
        {**u, "op": "drop_ns", "namespace": ["web"]},
        {**u, "op": "namespaces"},
    ])
    assert values[1] == 1 and values[2] == 2
    assert values[4] == {"version": 2, "count": 3, "x": [1, 2, 3], "s": ["a", "b", "c"]}
    assert values[5]["x"] == [2, 3]
    assert values[6] == ["web"]
    assert values[7] == ["clicks"]
    assert values[8] == ["top"]
    assert values[10] == []
    assert values[12] == []

    # What node wrote, pylance reads through the same server.
    ns = RestNamespace(uri=served.uri)
    top = lance.dataset(namespace_client=ns, table_id=["top"])
    assert top.to_table().column("s").to_pylist() == ["z"]

    # Errors reach node typed by their spec code.
    results = jobs.run([{**u, "op": "read", "namespace": ["web"], "name": "gone"},
                        {**u, "op": "create_ns", "namespace": ["x", "y"]}])
    assert not results[0]["ok"] and "not found" in results[0]["error"].lower()
    assert not results[1]["ok"]


def test_authentication_and_access_log(tmp_path):
    key = "k3y-SECRET-value"
    server = Served(tmp_path / "root", tmp_path / "access.log",
                    env={"LANCE_SERVE_API_KEYS": f"other,{key}"})
    try:
        assert key not in " ".join(server.proc.args)
        # No key: 401 / Unauthenticated; a wrong one: 403 / PermissionDenied.
        for headers, status, code in (({}, 401, 16), ({"x-api-key": "wrong"}, 403, 15)):
            req = urllib.request.Request(f"{server.uri}/v1/namespace/%24/list",
                                         headers=headers)
            with pytest.raises(urllib.error.HTTPError) as err:
                urllib.request.urlopen(req, timeout=30)
            assert err.value.code == status
            body = json.loads(err.value.read())
            assert body["code"] == code and body["error"] and body["instance"]
        ns = RestNamespace(uri=server.uri, **{"header.x-api-key": key})
        ns.create_namespace(ln.CreateNamespaceRequest(id=["a"]))
        lance.write_dataset(_rows(0, 2), namespace_client=ns, table_id=["a", "t"])
        assert lance.dataset(namespace_client=ns, table_id=["a", "t"]).count_rows() == 2
        with pytest.raises(ln_errors.LanceNamespaceError):
            RestNamespace(uri=server.uri).list_namespaces(ln.ListNamespacesRequest(id=[]))
    finally:
        assert server.stop() == 0
    text = server.log.read_text()
    assert key not in text and "SECRET" not in text
    lines = server.log_lines()
    statuses = [line["status"] for line in lines]
    assert statuses[:2] == [401, 403]
    assert 200 in statuses
    assert all({"method", "route", "status", "duration_ms"} <= set(line) for line in lines)


def _certificates(directory: Path) -> Dict[str, str]:
    """A CA and a server certificate for 127.0.0.1 it signs (openssl CLI)."""
    directory.mkdir(parents=True, exist_ok=True)
    d = str(directory)
    (directory / "ext.cnf").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    steps = [
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
         "-subj", "/CN=test-ca", "-keyout", f"{d}/ca.key", "-out", f"{d}/ca.pem"],
        ["openssl", "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=server",
         "-keyout", f"{d}/server.key", "-out", f"{d}/server.csr"],
        ["openssl", "x509", "-req", "-in", f"{d}/server.csr", "-CA", f"{d}/ca.pem",
         "-CAkey", f"{d}/ca.key", "-CAcreateserial", "-days", "2", "-extfile",
         f"{d}/ext.cnf", "-out", f"{d}/server.pem"],
    ]
    for step in steps:
        subprocess.run(step, check=True, capture_output=True)
    return {"ca": f"{d}/ca.pem", "cert": f"{d}/server.pem", "key": f"{d}/server.key"}


def _key_file(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(0o600)
    return path


def test_tls_and_keyed_permissions_with_pylance_and_lancedb_node(tmp_path):
    """HTTPS with API keys from a file: pylance's RestNamespace and LanceDB-node trust the
    server's CA; a read key reads and is refused writes and drops (PermissionDenied)."""
    require_node(ORACLE_DIR)
    certs = _certificates(tmp_path / "certs")
    admin_key, read_key = "admin-k3y-SECRET", "read-k3y-SECRET"
    keys = _key_file(tmp_path / "keys.txt", f"{admin_key} admin\n{read_key} read\n")
    server = Served(tmp_path / "root", tmp_path / "access.log",
                    extra=["--tls-cert", certs["cert"], "--tls-key", certs["key"],
                           "--api-keys-file", str(keys)])
    try:
        assert server.uri.startswith("https://127.0.0.1:")
        tls = {"tls.ssl_ca_cert": certs["ca"]}
        admin = RestNamespace(uri=server.uri, **tls, **{"header.x-api-key": admin_key})
        admin.create_namespace(ln.CreateNamespaceRequest(id=["sec"]))
        lance.write_dataset(_rows(0, 4), namespace_client=admin, table_id=["sec", "t"])
        reader = RestNamespace(uri=server.uri, **tls, **{"header.x-api-key": read_key})
        assert lance.dataset(namespace_client=reader, table_id=["sec", "t"]).count_rows() == 4
        with pytest.raises(ln_errors.PermissionDeniedError):
            reader.drop_table(ln.DropTableRequest(id=["sec", "t"]))
        with pytest.raises(ln_errors.PermissionDeniedError):
            reader.declare_table(ln.DeclareTableRequest(id=["sec", "u"]))
        # Without the CA, pylance refuses the server's certificate.
        with pytest.raises(Exception):
            RestNamespace(uri=server.uri, **{"header.x-api-key": admin_key}).list_namespaces(
                ln.ListNamespacesRequest(id=[]))

        jobs = NodeJobs(REST_ORACLE, tmp_path / "node", "rest", describe=describe_ns_job,
                        scrub=lambda text: text.replace(admin_key, "<key>"))
        u = {"uri": server.uri, "properties": tls, "headers": {"x-api-key": admin_key}}
        values = jobs.run_ok([
            {**u, "op": "create", "namespace": ["sec"], "name": "node", "x": [1, 2],
             "s": ["a", "b"]},
            {**u, "op": "read", "namespace": ["sec"], "name": "t"},
            {**u, "op": "tables", "namespace": ["sec"]},
        ])
        assert values[0] == 1
        assert values[1]["count"] == 4
        assert sorted(values[2]) == ["node", "t"]
        refused = jobs.run([{"uri": server.uri, "properties": tls,
                             "headers": {"x-api-key": read_key}, "op": "create",
                             "namespace": ["sec"], "name": "nope", "x": [1], "s": ["a"]}])
        assert not refused[0]["ok"]
    finally:
        assert server.stop() == 0
    text = server.log.read_text()
    assert "SECRET" not in text
    assert any(line["status"] == 403 for line in server.log_lines())


def _serve_once(args: List[str], env: Optional[Dict[str, str]] = None,
                wait: float = 20.0) -> subprocess.CompletedProcess:
    """Runs `lance-cpp serve ARGS` expecting it to refuse to start (exits on its own)."""
    return subprocess.run([str(cpp_bin()), "serve", *args], capture_output=True,
                          text=True, timeout=wait, env={**os.environ, **(env or {})})


def test_serve_is_safe_by_default(tmp_path):
    root = tmp_path / "root"
    base = ["--namespace", "dir", "--ns-prop", f"root={root}", "--port", "0"]
    # Beyond loopback without keys and TLS: refused, saying what is missing.
    refused = _serve_once(base + ["--host", "0.0.0.0"])
    assert refused.returncode != 0
    assert "--insecure" in refused.stderr and "TLS" in refused.stderr
    # Keys on the command line: refused (visible in ps), the key never echoed.
    refused = _serve_once(base + ["--api-key", "cmdline-SECRET"])
    assert refused.returncode != 0 and "ps" in refused.stderr
    assert "cmdline-SECRET" not in refused.stderr + refused.stdout
    # A key file others can read: refused.
    loose = tmp_path / "loose.txt"
    loose.write_text("loose-SECRET admin\n")
    loose.chmod(0o644)
    refused = _serve_once(base + ["--api-keys-file", str(loose)])
    assert refused.returncode != 0 and "chmod 600" in refused.stderr
    assert "loose-SECRET" not in refused.stderr
    # --insecure: it serves, with a warning.
    server = Served(root, tmp_path / "access.log", extra=["--host", "0.0.0.0", "--insecure"])
    try:
        assert server.uri.startswith("http://")
    finally:
        assert server.stop() == 0
    assert "warning: serving on 0.0.0.0 without authentication or TLS" in server.output
    # Keys and TLS: a non-loopback bind starts without --insecure.
    certs = _certificates(tmp_path / "certs")
    keys = _key_file(tmp_path / "keys.txt", "k-SECRET admin\n")
    secured = Served(root, tmp_path / "access2.log",
                     extra=["--host", "0.0.0.0", "--tls-cert", certs["cert"],
                            "--tls-key", certs["key"], "--api-keys-file", str(keys)])
    assert secured.stop() == 0


def test_sigterm_finishes_in_flight_and_exits_zero(tmp_path):
    server = Served(tmp_path / "root", tmp_path / "access.log")
    ns = RestNamespace(uri=server.uri)
    ns.create_namespace(ln.CreateNamespaceRequest(id=["n"]))
    done = threading.Event()

    def hammer():
        try:
            while not done.is_set():
                ns.list_namespaces(ln.ListNamespacesRequest(id=[]))
        except BaseException:  # noqa: BLE001 - the server going away ends the loop
            pass

    threads = [threading.Thread(target=hammer) for _ in range(4)]
    for t in threads:
        t.start()

    def served_ok():
        # Complete lines only: the server may be writing the last one.
        text = server.log.read_text() if server.log.exists() else ""
        return sum(1 for line in text.split("\n")[:-1]
                   if line and json.loads(line)["status"] == 200)

    # The hammers are under way once the server logged some answers (an event, not a
    # sleep; the guard only stops a hang).
    guard = time.monotonic() + 120
    while served_ok() < 8 and time.monotonic() < guard:
        time.sleep(0.01)
    before_stop = served_ok()
    assert before_stop >= 8
    rc = server.stop()
    done.set()
    for t in threads:
        t.join(timeout=30)
    assert rc == 0
    assert not any(t.is_alive() for t in threads)
    # The port is closed afterwards.
    with pytest.raises(urllib.error.URLError, match="Connection refused"):
        urllib.request.urlopen(f"{server.uri}/v1/namespace/%24/list", timeout=5)
    # Nothing logged before the stop was lost.
    assert served_ok() >= before_stop
