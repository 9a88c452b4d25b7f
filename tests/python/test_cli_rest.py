# SPDX-License-Identifier: Apache-2.0
"""The CLI through a REST namespace (`--namespace rest --ns-prop uri=...`) served by real
Lance: pylance 14's `lance.namespace.RestAdapter` over a directory namespace. What the CLI
writes through the server, pylance reads back through its own RestNamespace client."""

import json
import socket

import lance
import lance.namespace
import pytest
from lance_namespace import DescribeTableRequest

from _cli import run


def _run(*args):
    """lance-cpp `args`; the tests look at its exit status themselves."""
    return run(*args, check=False, timeout=120)


@pytest.fixture
def served(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    with lance.namespace.RestAdapter("dir", {"root": str(root)}, port=0) as adapter:
        yield f"http://127.0.0.1:{adapter.port}"


def test_import_count_scan_through_pylances_rest_adapter(served, tmp_path):
    ns = ["--namespace", "rest", "--ns-prop", f"uri={served}"]
    csv = tmp_path / "rows.csv"
    csv.write_text("id,name\n1,a\n2,b\n3,c\n")
    more = tmp_path / "more.csv"
    more.write_text("id,name\n4,d\n")

    proc = _run("import", csv, *ns, "--table-id", "events")
    assert proc.returncode == 0, proc.stderr
    proc = _run("import", more, *ns, "--table-id", "events", "--mode", "append", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["version"] == 2

    proc = _run("count", *ns, "--table-id", "events")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "4\n"
    proc = _run("scan", *ns, "--table-id", "events", "--json", "--where", "id >= 3")
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert rows == [{"id": 3, "name": "c"}, {"id": 4, "name": "d"}]

    # Real Lance's REST client finds the same table, with the rows the CLI wrote.
    client = lance.namespace.RestNamespace(uri=served)
    location = client.describe_table(DescribeTableRequest(id=["events"])).location
    assert lance.dataset(location).count_rows() == 4


def test_missing_table_is_the_spec_error(served):
    proc = _run("count", "--namespace", "rest", "--ns-prop", f"uri={served}",
                "--table-id", "missing")
    assert proc.returncode == 1
    assert "TableNotFound" in proc.stderr


def test_unreachable_server_fails_cleanly_without_secrets():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = _run("count", "--namespace", "rest",
                "--ns-prop", f"uri=http://127.0.0.1:{port}",
                "--ns-prop", "header.Authorization=Bearer cli-secret",
                "--ns-prop", "max_retries=1", "--ns-prop", "retry_backoff_ms=1",
                "--table-id", "events")
    assert proc.returncode == 1
    assert "ServiceUnavailable" in proc.stderr
    assert f"127.0.0.1:{port}" in proc.stderr
    assert "cli-secret" not in proc.stderr + proc.stdout
