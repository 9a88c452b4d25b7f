# SPDX-License-Identifier: Apache-2.0
"""lance_cpp.namespace.RestNamespace and RestAdapter (the native REST client and server)
against each other and against pylance 14's RestNamespace / RestAdapter: every operation
of the core's namespace interface over HTTP, DynamicContextProvider headers as a server
receives them (compared with what pylance's client sends), authentication, and datasets
opened and written through a REST namespace.
"""

from __future__ import annotations

import http.server
import json
import threading

import pyarrow as pa
import pytest
import lance_namespace as ln
from lance_namespace_urllib3_client import models as m

import lance
import lance.namespace
import lance_cpp
import lance_cpp.namespace


def table(n=10, offset=0):
    return pa.table({"id": pa.array(range(offset, offset + n), pa.int64()),
                     "s": [f"v{i}" for i in range(offset, offset + n)]})


def ipc(tbl: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, tbl.schema) as writer:
        writer.write_table(tbl)
    return sink.getvalue().to_pybytes()


def read_ipc(data: bytes) -> pa.Table:
    try:
        return pa.ipc.open_stream(data).read_all()
    except pa.ArrowInvalid:
        return pa.ipc.open_file(data).read_all()


def server(kind, root, **kwargs):
    props = {"root": str(root)}
    props.update(kwargs.pop("props", {}))
    if kind == "ours":
        return lance_cpp.namespace.RestAdapter("dir", props, port=0, **kwargs)
    return lance.namespace.RestAdapter("dir", props, port=0)


def client(kind, adapter, **props):
    uri = f"http://127.0.0.1:{adapter.port}"
    if kind == "ours":
        return lance_cpp.namespace.RestNamespace(uri=uri, **props)
    return lance.namespace.RestNamespace(uri=uri, **props)


def test_client_identity_and_bad_properties_as_pylance():
    uri = "http://127.0.0.1:1"
    ours = lance_cpp.namespace.RestNamespace(uri=uri, **{"header.Authorization": "secret"})
    theirs = lance.namespace.RestNamespace(uri=uri, **{"header.Authorization": "secret"})
    assert ours.namespace_id() == theirs.namespace_id()
    assert "secret" not in ours.namespace_id() and "secret" not in repr(ours)
    assert repr(ours) == repr(theirs)
    for impl in (lance_cpp, lance):
        with pytest.raises(ValueError, match="uri"):
            impl.namespace.RestNamespace()


# -- the adapter ---------------------------------------------------------------------------


def test_adapter_lifecycle(tmp_path):
    adapter = lance_cpp.namespace.RestAdapter("dir", {"root": str(tmp_path)}, port=0)
    assert adapter.port == 0
    with adapter:
        assert adapter.port > 0
        assert "RestAdapter(host='127.0.0.1'" in repr(adapter)
        ns = client("ours", adapter)
        assert ns.list_namespaces(ln.ListNamespacesRequest(id=[])).namespaces == []
        assert "RestNamespace" in ns.namespace_id()
    adapter.stop()  # idempotent
    with pytest.raises(ValueError, match="unknown namespace implementation"):
        lance_cpp.namespace.RestAdapter("nope", {})


# -- every operation -----------------------------------------------------------------------


def namespace_and_table_ops(ns):
    """The namespace and table catalogue operations, the data operations and reads:
    what every pairing of clients and servers supports."""
    ns.create_namespace(ln.CreateNamespaceRequest(id=["db"]))
    assert ns.list_namespaces(ln.ListNamespacesRequest(id=[])).namespaces == ["db"]
    ns.namespace_exists(ln.NamespaceExistsRequest(id=["db"]))
    with pytest.raises(ln.NamespaceNotFoundError):
        ns.namespace_exists(ln.NamespaceExistsRequest(id=["nope"]))
    ns.describe_namespace(ln.DescribeNamespaceRequest(id=["db"]))
    t = ["db", "t"]
    created = ns.create_table(ln.CreateTableRequest(id=t), ipc(table(10)))
    assert created.version == 1
    with pytest.raises(ln.TableAlreadyExistsError):
        ns.create_table(ln.CreateTableRequest(id=t), ipc(table(1)))
    assert ns.list_tables(ln.ListTablesRequest(id=["db"])).tables == ["t"]
    ns.table_exists(ln.TableExistsRequest(id=t))
    with pytest.raises(ln.TableNotFoundError):
        ns.describe_table(ln.DescribeTableRequest(id=["db", "missing"]))
    described = ns.describe_table(ln.DescribeTableRequest(id=t))
    assert described.table == "t" and described.location
    assert ns.count_table_rows(ln.CountTableRowsRequest(id=t)).count == 10
    inserted = ns.insert_into_table(ln.InsertIntoTableRequest(id=t), ipc(table(5, 10)))
    assert inserted.version == 2
    assert ns.count_table_rows(ln.CountTableRowsRequest(id=t, predicate="id >= 5")).count == 10
    answer = ns.query_table(ln.QueryTableRequest(
        id=t, k=100, filter="id < 3", vector=m.QueryTableRequestVector(),
        columns=m.QueryTableRequestColumns(column_names=["id"])))
    assert read_ipc(answer.data).column("id").to_pylist() == [0, 1, 2]
    ns.declare_table(ln.DeclareTableRequest(id=["db", "declared"]))
    assert "declared" in ns.list_tables(ln.ListTablesRequest(id=["db"])).tables
    return t


def mutation_ops(ns, t):
    """Merge-insert, update, delete and the schema changes (after
    namespace_and_table_ops)."""
    merged = ns.merge_insert_into_table(
        ln.MergeInsertIntoTableRequest(id=t, on=["id"], when_matched_update_all=True,
                                       when_not_matched_insert_all=True),
        ipc(pa.table({"id": pa.array([0, 100], pa.int64()), "s": ["new0", "new100"]})))
    assert (merged.num_updated_rows, merged.num_inserted_rows) == (1, 1)
    updated = ns.update_table(ln.UpdateTableRequest(id=t, predicate="id = 1",
                                                    updates=[["s", "'one'"]]))
    assert updated.updated_rows == 1
    deleted = ns.delete_from_table(ln.DeleteFromTableRequest(id=t, predicate="id >= 12"))
    assert ns.count_table_rows(ln.CountTableRowsRequest(id=t)).count == 12
    assert deleted.version > updated.version
    ns.alter_table_add_columns(ln.AlterTableAddColumnsRequest(
        id=t, new_columns=[m.AddColumnsEntry(name="d", expression="id * 2")]))
    ns.alter_table_alter_columns(ln.AlterTableAlterColumnsRequest(
        id=t, alterations=[m.AlterColumnsEntry(path="d", rename="e")]))
    answer = ns.query_table(ln.QueryTableRequest(id=t, k=1, filter="id = 3",
                                                 vector=m.QueryTableRequestVector()))
    assert read_ipc(answer.data).column("e").to_pylist() == [6]
    ns.alter_table_drop_columns(ln.AlterTableDropColumnsRequest(id=t, columns=["e"]))
    answer = ns.query_table(ln.QueryTableRequest(id=t, k=0, vector=m.QueryTableRequestVector()))
    assert read_ipc(answer.data).column_names == ["id", "s"]


def every_other_op(ns, t):
    """Schema metadata, stats, versions, tags, transactions, rename, drop (after
    mutation_ops)."""
    ns.update_table_schema_metadata(ln.UpdateTableSchemaMetadataRequest(
        id=t, metadata={"owner": "me"}))
    stats = ns.get_table_stats(ln.GetTableStatsRequest(id=t))
    assert stats.num_rows == 12 and stats.fragment_stats.num_fragments >= 1
    versions = ns.list_table_versions(ln.ListTableVersionsRequest(id=t))
    numbers = sorted(v.version for v in versions.versions)
    assert numbers[0] == 1 and len(numbers) >= 8
    request = ln.DescribeTableVersionRequest(id=t, version=1)
    if isinstance(ns, lance.namespace.RestNamespace):
        # pylance 14's client takes and returns dicts for this one operation
        first = ns.describe_table_version(request.model_dump())["version"]
        assert first["version"] == 1 and first["manifest_path"]
    else:
        first = ns.describe_table_version(request).version
        assert first.version == 1 and first.manifest_path
    ns.create_table_tag(ln.CreateTableTagRequest(id=t, tag="first", version=1))
    tags = ns.list_table_tags(ln.ListTableTagsRequest(id=t)).tags
    assert tags["first"].version == 1
    assert ns.get_table_tag_version(
        ln.GetTableTagVersionRequest(id=t, tag="first")).version == 1
    ns.update_table_tag(ln.UpdateTableTagRequest(id=t, tag="first", version=2))
    assert ns.get_table_tag_version(
        ln.GetTableTagVersionRequest(id=t, tag="first")).version == 2
    ns.delete_table_tag(ln.DeleteTableTagRequest(id=t, tag="first"))
    with pytest.raises(ln.TableTagNotFoundError):
        ns.get_table_tag_version(ln.GetTableTagVersionRequest(id=t, tag="first"))
    ns.restore_table(ln.RestoreTableRequest(id=t, version=1))
    assert ns.count_table_rows(ln.CountTableRowsRequest(id=t)).count == 10
    insert = ns.insert_into_table(ln.InsertIntoTableRequest(id=t), ipc(table(1, 50)))
    if insert.transaction_id:
        txn = ns.describe_transaction(ln.DescribeTransactionRequest(
            id=t + [insert.transaction_id]))
        assert txn.status.upper() == "SUCCEEDED"
    all_tables = ns.list_all_tables(ln.ListTablesRequest())
    assert "db$t" in all_tables.tables
    ns.rename_table(ln.RenameTableRequest(id=t, new_table_name="t2"))
    assert "t2" in ns.list_tables(ln.ListTablesRequest(id=["db"])).tables
    ns.drop_table(ln.DropTableRequest(id=["db", "t2"]))
    ns.deregister_table(ln.DeregisterTableRequest(id=["db", "declared"]))
    assert ns.list_tables(ln.ListTablesRequest(id=["db"])).tables == []
    ns.drop_namespace(ln.DropNamespaceRequest(id=["db"]))
    assert ns.list_namespaces(ln.ListNamespacesRequest(id=[])).namespaces == []


def test_every_operation_ours_against_ours(tmp_path):
    with server("ours", tmp_path / "root") as adapter:
        ns = client("ours", adapter, ops_metrics_enabled="true")
        t = namespace_and_table_ops(ns)
        mutation_ops(ns, t)
        every_other_op(ns, t)
        # the server routed exactly the calls the client made (one request per call)
        client_ops = ns.retrieve_ops_metrics()
        server_ops = adapter.retrieve_ops_metrics()
        assert client_ops == server_ops
        assert server_ops["count_table_rows"] >= 4 and server_ops["query_table"] == 3
        adapter.reset_ops_metrics()
        assert adapter.retrieve_ops_metrics() == {}


@pytest.mark.parametrize("pair", [("ours", "pylance"), ("pylance", "ours")],
                         ids=["our-client-their-server", "their-client-our-server"])
def test_core_operations_across_implementations(tmp_path, pair):
    client_kind, server_kind = pair
    with server(server_kind, tmp_path / "root") as adapter:
        ns = client(client_kind, adapter)
        t = namespace_and_table_ops(ns)
        # the table the server wrote is a Lance dataset pylance reads at its location
        location = ns.describe_table(ln.DescribeTableRequest(id=["db", "t"])).location
        assert lance.dataset(location).count_rows() == 15
        mutation_ops(ns, t)
        assert lance.dataset(location).count_rows() == 12


def test_every_operation_pylance_client_against_our_server(tmp_path):
    """pylance 14's own client drives every remaining operation on our server (schema
    metadata as the spec's bare map, stats, versions, tags, restore, transactions,
    list-all, rename, drop)."""
    with server("ours", tmp_path / "root") as adapter:
        ns = client("pylance", adapter)
        t = namespace_and_table_ops(ns)
        mutation_ops(ns, t)
        every_other_op(ns, t)
        ops = adapter.retrieve_ops_metrics()
        assert ops["update_table_schema_metadata"] == 1 and ops["rename_table"] == 1


def test_errors_keep_their_kind_over_rest(tmp_path):
    with server("ours", tmp_path / "root") as adapter:
        ns = client("ours", adapter)
        with pytest.raises(ln.TableNotFoundError):
            ns.count_table_rows(ln.CountTableRowsRequest(id=["missing"]))
        ns.create_namespace(ln.CreateNamespaceRequest(id=["db"]))
        with pytest.raises(ln.NamespaceNotFoundError):
            ns.describe_namespace(ln.DescribeNamespaceRequest(id=["missing"]))
        with pytest.raises(ln.UnsupportedOperationError):
            ns.query_table(ln.QueryTableRequest(
                id=["db", "t"], k=1,
                vector=m.QueryTableRequestVector(single_vector=[1.0, 2.0])))
        with pytest.raises(ln.NamespaceAlreadyExistsError):
            ns.create_namespace(ln.CreateNamespaceRequest(id=["db"]))


# -- datasets through a REST namespace --------------------------------------------------------


@pytest.mark.parametrize("server_kind", ["ours", "pylance"])
def test_datasets_through_rest_namespace(tmp_path, server_kind):
    with server(server_kind, tmp_path / "root") as adapter:
        ns = client("ours", adapter)
        ds = lance_cpp.write_dataset(table(5), namespace_client=ns, table_id=["t"])
        assert ds.count_rows() == 5
        lance_cpp.write_dataset(table(3, 5), namespace_client=ns, table_id=["t"],
                                mode="append")
        opened = lance_cpp.dataset(namespace_client=ns, table_id=["t"])
        assert opened.to_table().equals(pa.concat_tables([table(5), table(3, 5)]))
        # pylance's client reads what ours wrote through the server
        theirs = client("pylance", adapter)
        assert lance.dataset(namespace_client=theirs, table_id=["t"]).count_rows() == 8


# -- DynamicContextProvider: what the server receives -----------------------------------------


class _Recorder(http.server.BaseHTTPRequestHandler):
    """A REST "server" that records each request's method, path and headers and answers
    list_namespaces / describe_namespace with empty JSON."""

    requests = []

    def _answer(self):
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        type(self).requests.append((self.command, self.path, dict(self.headers)))
        body = json.dumps({"namespaces": [], "properties": {}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = _answer
    do_POST = _answer

    def log_message(self, *args):
        pass


@pytest.fixture
def recorder():
    _Recorder.requests = []
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


class TokenProvider(lance_cpp.namespace.DynamicContextProvider):
    """Records what it was asked; answers a bearer header and a plain context key."""

    def __init__(self, token="tok", tenant="acme"):
        self.token = token
        self.tenant = tenant
        self.infos = []

    def provide_context(self, info):
        self.infos.append(dict(info))
        return {"headers.Authorization": f"Bearer {self.token}", "tenant": self.tenant}


class TheirTokenProvider(lance.namespace.DynamicContextProvider):
    def __init__(self):
        self.infos = []

    def provide_context(self, info):
        self.infos.append(dict(info))
        return {"headers.Authorization": "Bearer tok", "tenant": "acme"}


def _lower(headers):
    return {k.lower(): v for k, v in headers.items()}


def test_context_provider_headers_reach_the_server_as_pylances_do(recorder):
    uri = f"http://127.0.0.1:{recorder.server_address[1]}"
    ours = TokenProvider()
    ns = lance_cpp.namespace.RestNamespace(context_provider=ours, uri=uri,
                                           **{"header.X-Static": "s"})
    ns.list_namespaces(ln.ListNamespacesRequest(id=["a", "b"]))
    ns.list_namespaces(ln.ListNamespacesRequest(id=["a", "b"]))
    our_requests = list(_Recorder.requests)
    _Recorder.requests.clear()
    theirs = TheirTokenProvider()
    lance.namespace.RestNamespace(context_provider=theirs, uri=uri,
                                  **{"header.X-Static": "s"}).list_namespaces(
        ln.ListNamespacesRequest(id=["a", "b"]))
    their_requests = list(_Recorder.requests)

    # the provider is called once per request, with pylance's info
    assert len(ours.infos) == 2 and len(our_requests) == 2
    assert ours.infos[0] == theirs.infos[0]
    (_, our_path, our_headers), (_, their_path, their_headers) = our_requests[0], their_requests[0]
    assert our_path == their_path
    ours_h, theirs_h = _lower(our_headers), _lower(their_headers)
    assert ours_h["authorization"] == theirs_h["authorization"] == "Bearer tok"
    assert ours_h["x-static"] == theirs_h["x-static"] == "s"
    assert ours_h["x-lance-ctx-tenant"] == "acme"


def test_context_provider_from_properties(recorder):
    uri = f"http://127.0.0.1:{recorder.server_address[1]}"
    ns = lance_cpp.namespace.RestNamespace(**{
        "uri": uri,
        "dynamic_context_provider.impl": f"{__name__}.TokenProvider",
        "dynamic_context_provider.token": "from-props",
        "dynamic_context_provider.tenant": "t1"})
    assert isinstance(ns.context_provider, TokenProvider)
    assert ns.context_provider.token == "from-props"
    ns.describe_namespace(ln.DescribeNamespaceRequest(id=["x"]))
    (_, _, headers), = _Recorder.requests
    assert _lower(headers)["authorization"] == "Bearer from-props"
    assert not any("dynamic_context_provider" in k.lower() for k in headers)
    with pytest.raises(ValueError, match="Invalid context provider class path"):
        lance_cpp.namespace.RestNamespace(uri=uri, **{"dynamic_context_provider.impl": "x"})
    with pytest.raises(ValueError, match="not found in module"):
        lance_cpp.namespace.RestNamespace(
            uri=uri, **{"dynamic_context_provider.impl": f"{__name__}.Nope"})


def test_context_provider_authenticates_against_our_server(tmp_path):
    with server("ours", tmp_path / "root", api_keys=["k1"]) as adapter:
        uri = f"http://127.0.0.1:{adapter.port}"

        class ApiKey(lance_cpp.namespace.DynamicContextProvider):
            def __init__(self, key):
                self.key = key

            def provide_context(self, info):
                return {"headers.x-api-key": self.key}

        good = lance_cpp.namespace.RestNamespace(context_provider=ApiKey("k1"), uri=uri)
        assert good.list_namespaces(ln.ListNamespacesRequest(id=[])).namespaces == []
        with pytest.raises(ln.UnauthenticatedError):
            lance_cpp.namespace.RestNamespace(uri=uri).list_namespaces(
                ln.ListNamespacesRequest(id=[]))
        with pytest.raises(ln.PermissionDeniedError):
            lance_cpp.namespace.RestNamespace(
                context_provider=ApiKey("wrong"), uri=uri).list_namespaces(
                ln.ListNamespacesRequest(id=[]))


def test_failing_context_provider_fails_the_call(recorder):
    class Broken(lance_cpp.namespace.DynamicContextProvider):
        def provide_context(self, info):
            raise RuntimeError("no token today")

    uri = f"http://127.0.0.1:{recorder.server_address[1]}"
    ns = lance_cpp.namespace.RestNamespace(context_provider=Broken(), uri=uri)
    with pytest.raises(Exception, match="no token today"):
        ns.list_namespaces(ln.ListNamespacesRequest(id=[]))
    assert _Recorder.requests == []


def test_our_server_over_a_python_namespace(tmp_path):
    # Any Python LanceNamespace can be served: the native server calls pylance's
    # DirectoryNamespace through the GIL for every operation, payloads included.
    class Counting(ln.LanceNamespace):
        def __init__(self, inner):
            self.inner = inner
            self.calls = []

        def namespace_id(self):
            return "Counting"

    def forwarding(name):
        def call(self, *args):
            self.calls.append(name)
            return getattr(self.inner, name)(*args)
        return call

    for op in ("create_namespace", "list_namespaces", "describe_namespace",
               "namespace_exists", "create_table", "declare_table", "describe_table",
               "list_tables", "table_exists", "count_table_rows", "insert_into_table",
               "query_table", "merge_insert_into_table", "update_table",
               "delete_from_table", "alter_table_add_columns", "alter_table_alter_columns",
               "alter_table_drop_columns"):
        setattr(Counting, op, forwarding(op))
    backend = Counting(lance.namespace.DirectoryNamespace(root=str(tmp_path / "root")))
    with lance_cpp.namespace.RestAdapter(backend, port=0) as adapter:
        ns = client("ours", adapter)
        t = namespace_and_table_ops(ns)
        mutation_ops(ns, t)
    assert backend.calls.count("create_table") == 2  # the second one: TableAlreadyExists
    assert backend.calls.count("query_table") == 3
    assert "merge_insert_into_table" in backend.calls


def test_context_provider_called_from_many_native_threads(tmp_path):
    # The core calls a native RestNamespace from its own threads: the Python provider
    # is called once per request, each time with the GIL.
    from lance_cpp import _lance_cpp

    with server("ours", tmp_path / "root", api_keys=["k"]) as adapter:
        class Key(lance_cpp.namespace.DynamicContextProvider):
            def __init__(self):
                self.lock = threading.Lock()
                self.threads = set()
                self.calls = 0

            def provide_context(self, info):
                with self.lock:
                    self.calls += 1
                    self.threads.add(threading.get_ident())
                return {"headers.x-api-key": "k"}

        provider = Key()
        ns = lance_cpp.namespace.RestNamespace(context_provider=provider,
                                               uri=f"http://127.0.0.1:{adapter.port}")
        ns.declare_table(ln.DeclareTableRequest(id=["t"]))
        _, results = _lance_cpp._call_namespace(ns, "describe_table", {"id": ["t"]}, 8)
        assert all(r["table"] == "t" for r in results), results
        assert provider.calls == 9 and len(provider.threads) >= 2
        assert adapter.retrieve_ops_metrics()["describe_table"] == 8
