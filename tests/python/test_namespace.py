# SPDX-License-Identifier: Apache-2.0
"""lance_cpp.namespace: the lance_namespace models and base class re-exported as pylance
does, our native DirectoryNamespace side by side with pylance's on the same root, and
Python namespaces called by the native core (from its own threads) through
``namespace_client=``.
"""

from __future__ import annotations

import threading

import pyarrow as pa
import pytest
import lance_namespace as ln
from lance_namespace.errors import TableNotFoundError
from lance_namespace import (
    CreateEmptyTableRequest,
    CreateEmptyTableResponse,
    CreateNamespaceRequest,
    DeclareTableRequest,
    DeregisterTableRequest,
    DescribeNamespaceRequest,
    DescribeTableRequest,
    DropNamespaceRequest,
    DropTableRequest,
    LanceNamespace,
    ListNamespacesRequest,
    ListTablesRequest,
    NamespaceExistsRequest,
    RegisterTableRequest,
    TableExistsRequest,
)

import lance
import lance.namespace
import lance_cpp
import lance_cpp.namespace
from lance_cpp import _lance_cpp

from _vending import IMPLS, impl, key_vendor, load_impl, s3env  # noqa: F401


def table(n=10, offset=0):
    return pa.table({"id": pa.array(range(offset, offset + n), pa.int64()),
                     "s": [f"v{i}" for i in range(offset, offset + n)]})


# -- the module surface ---------------------------------------------------------------------


def test_reexports_match_pylance():
    reexported = [
        name for name in dir(lance.namespace)
        if getattr(getattr(lance.namespace, name), "__module__", "").startswith("lance_namespace")
    ]
    assert "LanceNamespace" in reexported and "DescribeTableRequest" in reexported
    assert len(reexported) >= 80
    for name in reexported:
        assert getattr(lance_cpp.namespace, name) is getattr(lance.namespace, name), name
    for name in ["DirectoryNamespace", "DynamicContextProvider"]:
        assert name in lance_cpp.namespace.__all__
    assert issubclass(lance_cpp.namespace.DirectoryNamespace, ln.LanceNamespace)


def test_storage_options_provider_names():
    cls = lance_cpp.namespace.LanceNamespaceStorageOptionsProvider
    assert lance_cpp.LanceNamespaceStorageOptionsProvider is cls
    assert issubclass(cls, lance_cpp.io.StorageOptionsProvider)
    with pytest.raises(ValueError):
        cls(None, ["t"])


def test_namespace_storage_options_provider_fetches_with_describe_table(tmp_path):
    class Vending(LanceNamespace):
        def __init__(self):
            self.calls = 0

        def namespace_id(self):
            return "Vending { }"

        def describe_table(self, request):
            self.calls += 1
            assert request.id == ["a", "b"]
            return ln.DescribeTableResponse(location="memory://x", storage_options={
                "aws_access_key_id": "AK", "aws_secret_access_key": "SK",
                "expires_at_millis": "99999999999999"})

    ns = Vending()
    provider = lance_cpp.LanceNamespaceStorageOptionsProvider(ns, ["a", "b"])
    assert provider.fetch_storage_options()["aws_access_key_id"] == "AK"
    assert ns.calls == 1
    assert provider.provider_id() == (
        'LanceNamespaceStorageOptionsProvider { namespace: Vending { }, table_id: ["a", "b"] }')
    # Called by the core (converted to the native provider over the Python namespace):
    # expired seed -> exactly one describe_table however many threads ask.
    expired = {"aws_access_key_id": "OLD", "aws_secret_access_key": "OLD",
               "expires_at_millis": "1000"}
    assert _lance_cpp._hammer_provider(provider, expired, 8, 10) == 80
    assert ns.calls == 2


# -- our DirectoryNamespace next to pylance's ----------------------------------------------


def _strip(model):
    """The fields both implementations fill, for comparison."""
    d = model.model_dump()
    d.pop("context", None)
    return d


def test_directory_namespace_matches_pylance(tmp_path):
    root = str(tmp_path / "root")
    ours = lance_cpp.namespace.DirectoryNamespace(root=root)
    theirs = lance.namespace.DirectoryNamespace(root=root)
    assert ours.namespace_id() == theirs.namespace_id()

    # Writes alternate between the two: each must see the other's.
    ours.create_namespace(CreateNamespaceRequest(id=["ns1"]))
    theirs.create_namespace(CreateNamespaceRequest(id=["ns2"]))
    ours.declare_table(DeclareTableRequest(id=["t_ours"]))
    theirs.declare_table(DeclareTableRequest(id=["t_theirs"]))
    ours.declare_table(DeclareTableRequest(id=["ns1", "n_ours"]))
    theirs.declare_table(DeclareTableRequest(id=["ns1", "n_theirs"]))

    for ns in (ours, theirs):
        assert ns.list_namespaces(ListNamespacesRequest(id=[])).namespaces == ["ns1", "ns2"]
        assert ns.list_tables(ListTablesRequest(id=[])).tables == ["t_ours", "t_theirs"]
        assert ns.list_tables(ListTablesRequest(id=["ns1"])).tables == ["n_ours", "n_theirs"]
        assert ns.list_tables(ListTablesRequest(id=["ns2"])).tables == []

    for ident in (["t_ours"], ["t_theirs"], ["ns1", "n_ours"], ["ns1", "n_theirs"]):
        a = ours.describe_table(DescribeTableRequest(id=ident))
        b = theirs.describe_table(DescribeTableRequest(id=ident))
        assert (a.table, a.namespace, a.location) == (b.table, b.namespace, b.location), ident
        ours.table_exists(TableExistsRequest(id=ident))
        theirs.table_exists(TableExistsRequest(id=ident))

    page1 = ours.list_tables(ListTablesRequest(id=["ns1"], limit=1))
    assert page1 == theirs.list_tables(ListTablesRequest(id=["ns1"], limit=1))
    assert page1.tables == ["n_ours"]
    page2 = ours.list_tables(ListTablesRequest(id=["ns1"], limit=1, page_token=page1.page_token))
    assert page2.tables == ["n_theirs"]

    assert _strip(ours.describe_namespace(DescribeNamespaceRequest(id=["ns1"]))) == _strip(
        theirs.describe_namespace(DescribeNamespaceRequest(id=["ns1"])))
    ours.namespace_exists(NamespaceExistsRequest(id=["ns2"]))


def test_directory_namespace_errors_match_pylance(tmp_path):
    root = str(tmp_path / "root")
    ours = lance_cpp.namespace.DirectoryNamespace(root=root)
    theirs = lance.namespace.DirectoryNamespace(root=root)
    ours.declare_table(DeclareTableRequest(id=["t"]))
    cases = [
        (lambda ns: ns.describe_table(DescribeTableRequest(id=["missing"])),
         ln.TableNotFoundError),
        (lambda ns: ns.table_exists(TableExistsRequest(id=["missing"])), ln.TableNotFoundError),
        (lambda ns: ns.declare_table(DeclareTableRequest(id=["t"])), ln.TableAlreadyExistsError),
        (lambda ns: ns.namespace_exists(NamespaceExistsRequest(id=["nope"])),
         ln.NamespaceNotFoundError),
        (lambda ns: ns.create_namespace(CreateNamespaceRequest(id=["a", "b"])),
         ln.NamespaceNotFoundError),
    ]
    for call, expected in cases:
        for ns in (ours, theirs):
            with pytest.raises(expected):
                call(ns)


def test_register_deregister_drop_match_pylance(tmp_path):
    root = tmp_path / "root"
    ours = lance_cpp.namespace.DirectoryNamespace(root=str(root))
    theirs = lance.namespace.DirectoryNamespace(root=str(root))
    lance.write_dataset(table(), str(root / "data" / "external.lance"),
                        data_storage_version="2.0")
    ours.create_namespace(CreateNamespaceRequest(id=["reg"]))
    ours.register_table(RegisterTableRequest(id=["reg", "ext"],
                                             location="data/external.lance"))
    a = ours.describe_table(DescribeTableRequest(id=["reg", "ext"]))
    b = theirs.describe_table(DescribeTableRequest(id=["reg", "ext"]))
    assert a.location == b.location
    assert lance_cpp.dataset(namespace_client=ours, table_id=["reg", "ext"]).to_table().equals(
        table())

    ours.deregister_table(DeregisterTableRequest(id=["reg", "ext"]))
    for ns in (ours, theirs):
        with pytest.raises(ln.TableNotFoundError):
            ns.describe_table(DescribeTableRequest(id=["reg", "ext"]))
    assert (root / "data" / "external.lance").exists()  # data stays

    theirs.declare_table(DeclareTableRequest(id=["reg", "gone"]))
    ours.drop_table(DropTableRequest(id=["reg", "gone"]))
    assert theirs.list_tables(ListTablesRequest(id=["reg"])).tables == []
    ours.drop_namespace(DropNamespaceRequest(id=["reg"]))
    assert theirs.list_namespaces(ListNamespacesRequest(id=[])).namespaces == []


def test_datasets_cross_through_both_namespaces(tmp_path):
    root = str(tmp_path / "root")
    ours = lance_cpp.namespace.DirectoryNamespace(root=root)
    theirs = lance.namespace.DirectoryNamespace(root=root)
    ours.create_namespace(CreateNamespaceRequest(id=["db"]))

    lance.write_dataset(table(10), namespace_client=theirs, table_id=["db", "by_pylance"],
                        data_storage_version="2.0")
    lance_cpp.write_dataset(table(20), namespace_client=ours, table_id=["db", "by_cpp"])

    assert lance_cpp.dataset(namespace_client=ours, table_id=["db", "by_pylance"]).to_table(
    ).equals(table(10))
    assert lance.dataset(namespace_client=theirs, table_id=["db", "by_cpp"]).to_table().equals(
        table(20))
    # `namespace=` is accepted as an alias of namespace_client
    assert lance_cpp.dataset(namespace=theirs, table_id=["db", "by_cpp"]).count_rows() == 20


# -- Python namespaces called by the core --------------------------------------------------


class _LoggedWrapper(LanceNamespace):
    """Wraps a namespace and logs, in order, the operations called on it (self.calls)."""

    def __init__(self, inner):
        self.inner = inner
        self.calls = []

    def _forward(self, op, request):
        self.calls.append(op)
        return getattr(self.inner, op)(request)


class CountingNamespace(LanceNamespace):
    """A pylance-style namespace: wraps a DirectoryNamespace and counts table calls."""

    def __init__(self, inner):
        self.inner = inner
        self.counts = {}
        self.threads = set()
        self._lock = threading.Lock()

    def _count(self, op):
        with self._lock:
            self.counts[op] = self.counts.get(op, 0) + 1
            self.threads.add(threading.get_ident())

    def namespace_id(self):
        return f"Counting {{ {self.inner.namespace_id()} }}"

    def describe_table(self, request):
        self._count("describe_table")
        return self.inner.describe_table(request)

    def declare_table(self, request):
        self._count("declare_table")
        return self.inner.declare_table(request)

    def list_tables(self, request):
        self._count("list_tables")
        return self.inner.list_tables(request)


def test_python_namespace_call_counts_match_pylance(impl, tmp_path):
    ns = CountingNamespace(impl.namespace.DirectoryNamespace(root=str(tmp_path / "root")))
    kwargs = {"data_storage_version": "2.0"} if impl is lance else {}
    ds = impl.write_dataset(table(10), namespace_client=ns, table_id=["t"], **kwargs)
    assert ds.count_rows() == 10
    assert ns.counts == {"declare_table": 1}
    impl.write_dataset(table(5, 10), namespace_client=ns, table_id=["t"], mode="append")
    assert ns.counts == {"declare_table": 1, "describe_table": 1}
    opened = impl.dataset(namespace_client=ns, table_id=["t"])
    assert opened.to_table().equals(pa.concat_tables([table(10), table(5, 10)]))
    assert ns.counts == {"declare_table": 1, "describe_table": 2}
    # pylance: the namespace's TableNotFoundError; lance_cpp: LanceNotFoundError.
    expected = TableNotFoundError if impl is lance else lance_cpp.LanceNotFoundError
    with pytest.raises(expected, match="missing"):
        impl.dataset(namespace_client=ns, table_id=["missing"])


def test_ops_metrics_match_pylance(impl, tmp_path):
    ns = impl.namespace.DirectoryNamespace(root=str(tmp_path / "root"),
                                           ops_metrics_enabled="true")
    kwargs = {"data_storage_version": "2.0"} if impl is lance else {}
    impl.write_dataset(table(3), namespace_client=ns, table_id=["m"], **kwargs)
    impl.dataset(namespace_client=ns, table_id=["m"]).count_rows()
    ns.list_tables(ListTablesRequest(id=[]))
    assert ns.retrieve_ops_metrics() == {"declare_table": 1, "describe_table": 1,
                                         "list_tables": 1}
    ns.reset_ops_metrics()
    assert ns.retrieve_ops_metrics() == {}


def test_declare_falls_back_to_create_empty_table(tmp_path):
    # pylance 14 does not fall back (it raises); the native core does, as Lance's
    # writers did when declare_table was introduced.
    class OldNamespace(_LoggedWrapper):
        def __init__(self, inner, how):
            super().__init__(inner)
            self.how = how

        def namespace_id(self):
            return "Old"

        def declare_table(self, request):
            self.calls.append("declare_table")
            if self.how == "raise":
                raise NotImplementedError("declare_table")
            return super().declare_table(request)  # UnsupportedOperationError

        def create_empty_table(self, request):
            self.calls.append("create_empty_table")
            location = self.inner.declare_table(DeclareTableRequest(id=request.id)).location
            return CreateEmptyTableResponse(location=location)

        def describe_table(self, request):
            return self._forward("describe_table", request)

    for how in ("raise", "base"):
        inner = lance_cpp.namespace.DirectoryNamespace(root=str(tmp_path / how))
        ns = OldNamespace(inner, how)
        lance_cpp.write_dataset(table(4), namespace_client=ns, table_id=["old"])
        assert ns.calls == ["declare_table", "create_empty_table"], how
        assert lance_cpp.dataset(namespace_client=ns, table_id=["old"]).count_rows() == 4

    class Nothing(LanceNamespace):
        def namespace_id(self):
            return "Nothing"

    with pytest.raises(NotImplementedError):
        lance_cpp.write_dataset(table(1), namespace_client=Nothing(), table_id=["x"])


def test_python_namespace_called_from_many_cpp_threads(tmp_path):
    inner = lance_cpp.namespace.DirectoryNamespace(root=str(tmp_path / "root"))
    inner.declare_table(DeclareTableRequest(id=["t"]))
    ns = CountingNamespace(inner)
    ns_id, results = _lance_cpp._call_namespace(ns, "describe_table", {"id": ["t"]}, 16)
    assert ns_id == ns.namespace_id()
    assert ns.counts == {"describe_table": 16}
    assert threading.get_ident() not in ns.threads
    assert all(r["location"] == results[0]["location"] for r in results)
    assert results[0]["table"] == "t"

    # pylance's own DirectoryNamespace works behind the adapter too
    theirs = lance.namespace.DirectoryNamespace(root=str(tmp_path / "root"))
    _, results = _lance_cpp._call_namespace(theirs, "list_tables", {"id": []}, 8)
    assert results == [{"tables": ["t"]}] * 8


def test_python_namespace_errors_keep_their_kind(tmp_path):
    class Failing(LanceNamespace):
        def namespace_id(self):
            return "Failing"

        def describe_table(self, request):
            raise ln.TableNotFoundError(f"no table {request.id}")

        def list_tables(self, request):
            raise NotImplementedError("list_tables")

        def declare_table(self, request):
            raise ValueError("bad request")

        def table_exists(self, request):
            raise ln.PermissionDeniedError("denied")

    ns = Failing()
    (code, message), = _lance_cpp._call_namespace(ns, "describe_table", {"id": ["t"]}, 1)[1]
    assert code == int(ln.ErrorCode.TABLE_NOT_FOUND)
    assert "no table ['t']" in message and "Failing" in message
    (code, _), = _lance_cpp._call_namespace(ns, "list_tables", {"id": []}, 1)[1]
    assert code == int(ln.ErrorCode.UNSUPPORTED)
    (code, _), = _lance_cpp._call_namespace(ns, "list_namespaces", {"id": []}, 1)[1]
    assert code == int(ln.ErrorCode.UNSUPPORTED)  # the base class' UnsupportedOperationError
    (code, _), = _lance_cpp._call_namespace(ns, "declare_table", {"id": ["t"]}, 1)[1]
    assert code == int(ln.ErrorCode.INVALID_INPUT)
    (code, _), = _lance_cpp._call_namespace(ns, "table_exists", {"id": ["t"]}, 1)[1]
    assert code == int(ln.ErrorCode.PERMISSION_DENIED)

    with pytest.raises(FileNotFoundError):
        lance_cpp.dataset(namespace_client=ns, table_id=["t"])


def test_our_directory_namespace_is_called_natively(tmp_path):
    ours = lance_cpp.namespace.DirectoryNamespace(root=str(tmp_path / "root"))
    ours.declare_table(DeclareTableRequest(id=["t"]))
    calls = []
    # An instance attribute would be called by a Python adapter; the core unwraps the
    # native object instead, so it is not.
    ours.describe_table = lambda request: calls.append(request) or (_ for _ in ()).throw(
        AssertionError("called through Python"))
    _, results = _lance_cpp._call_namespace(ours, "describe_table", {"id": ["t"]}, 4)
    assert calls == []
    assert results[0]["table"] == "t"

    # A subclass may override methods, so it goes through Python.
    class Sub(lance_cpp.namespace.DirectoryNamespace):
        seen = 0

        def describe_table(self, request):
            Sub.seen += 1
            return super().describe_table(request)

    sub = Sub(root=str(tmp_path / "root"))
    _, results = _lance_cpp._call_namespace(sub, "describe_table", {"id": ["t"]}, 4)
    assert Sub.seen == 4
    assert results[0]["table"] == "t"


def test_not_a_namespace_is_type_error(tmp_path):
    with pytest.raises(TypeError):
        _lance_cpp._call_namespace(object(), "list_tables", {"id": []}, 1)


def test_directory_namespace_on_rgw_matches_pylance(s3env):
    props = {"root": s3env.unique_uri("ns")}
    props.update({f"storage.{k}": v for k, v in s3env.options().items()})
    ours = lance_cpp.namespace.DirectoryNamespace(**props)
    theirs = lance.namespace.DirectoryNamespace(**props)
    ours.create_namespace(CreateNamespaceRequest(id=["db"]))
    ours.declare_table(DeclareTableRequest(id=["top"]))
    # (pylance's own declare fails on RGW: its empty multipart part gets 411
    # MissingContentLength, so pylance only reads here)
    ours.declare_table(DeclareTableRequest(id=["db", "inner"]))
    for ns in (ours, theirs):
        assert ns.list_tables(ListTablesRequest(id=[])).tables == ["top"]
        assert ns.list_tables(ListTablesRequest(id=["db"])).tables == ["inner"]
        assert ns.list_namespaces(ListNamespacesRequest(id=[])).namespaces == ["db"]
    for ident in (["top"], ["db", "inner"]):
        a = ours.describe_table(DescribeTableRequest(id=ident))
        b = theirs.describe_table(DescribeTableRequest(id=ident))
        assert a.location == b.location
    # Neither namespace hands its root's credentials to clients without a vendor (ours
    # the endpoint and region, pylance 14 nothing): both engines are given them, as
    # pylance 14's users do.
    answered = ours.describe_table(DescribeTableRequest(id=["top"])).storage_options
    assert answered["aws_endpoint"] == s3env.options()["aws_endpoint"]
    assert not any("secret" in k or "key_id" in k for k in answered)
    assert theirs.describe_table(DescribeTableRequest(id=["top"])).storage_options is None
    lance_cpp.write_dataset(table(7), namespace_client=ours, table_id=["db", "data"],
                            storage_options=s3env.options())
    assert lance.dataset(namespace_client=theirs, table_id=["db", "data"],
                         storage_options=s3env.options()).count_rows() == 7


# -- issue 13: every operation, exports, option merge, namespace-opened datasets ---------------


def _ipc(tbl: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, tbl.schema) as writer:
        writer.write_table(tbl)
    return sink.getvalue().to_pybytes()


def _every_operation():
    """(op, request, canned response, has_data) for every operation of the core's
    namespace interface, with nested models, maps of models and JSON values."""
    from lance_namespace_urllib3_client import models as m

    t = ["db", "t"]
    return [
        ("list_namespaces", ln.ListNamespacesRequest(id=["db"], page_token="a", limit=2),
         ln.ListNamespacesResponse(namespaces=["x", "y"], page_token="y")),
        ("describe_namespace", ln.DescribeNamespaceRequest(id=["db"]),
         ln.DescribeNamespaceResponse(properties={"k": "v"})),
        ("create_namespace", ln.CreateNamespaceRequest(id=["db"], mode="exist_ok",
                                                       properties={"k": "v"}),
         ln.CreateNamespaceResponse(properties={"k": "v"})),
        ("drop_namespace", ln.DropNamespaceRequest(id=["db"], mode="skip", behavior="cascade"),
         ln.DropNamespaceResponse(properties={"k": "v"})),
        ("list_tables", ln.ListTablesRequest(id=["db"], limit=5, include_declared=False),
         ln.ListTablesResponse(tables=["t"], page_token="t")),
        ("describe_table", ln.DescribeTableRequest(id=t, version=3, vend_credentials=True),
         ln.DescribeTableResponse(table="t", namespace=["db"], version=3, location="/x/t",
                                  storage_options={"a": "b"}, is_only_declared=False)),
        ("declare_table", ln.DeclareTableRequest(id=t, location="/x/t"),
         ln.DeclareTableResponse(location="/x/t", storage_options={"a": "b"})),
        ("create_empty_table", CreateEmptyTableRequest(id=t),
         CreateEmptyTableResponse(location="/x/t")),
        ("register_table", ln.RegisterTableRequest(id=t, location="/x/t", mode="create"),
         ln.RegisterTableResponse(location="/x/t")),
        ("deregister_table", ln.DeregisterTableRequest(id=t),
         ln.DeregisterTableResponse(id=t, location="/x/t")),
        ("drop_table", ln.DropTableRequest(id=t), ln.DropTableResponse(id=t, location="/x/t")),
        ("rename_table", ln.RenameTableRequest(id=t, new_table_name="u",
                                               new_namespace_id=["other"]),
         ln.RenameTableResponse(transaction_id="tx")),
        ("list_all_tables", ln.ListTablesRequest(limit=3, page_token="a"),
         ln.ListTablesResponse(tables=["db$t"])),
        ("delete_from_table", ln.DeleteFromTableRequest(id=t, predicate="id > 3"),
         ln.DeleteFromTableResponse(version=4)),
        ("update_table", ln.UpdateTableRequest(id=t, predicate="id = 1",
                                               updates=[["s", "'x'"], ["id", "id + 1"]]),
         ln.UpdateTableResponse(updated_rows=1, version=5)),
        ("alter_table_add_columns", ln.AlterTableAddColumnsRequest(
            id=t, new_columns=[m.AddColumnsEntry(name="d", expression="id * 2")]),
         ln.AlterTableAddColumnsResponse(version=6)),
        ("alter_table_alter_columns", ln.AlterTableAlterColumnsRequest(
            id=t, alterations=[m.AlterColumnsEntry(path="d", rename="e", nullable=True,
                                                   data_type={"type": "int64"})]),
         ln.AlterTableAlterColumnsResponse(version=7)),
        ("alter_table_drop_columns", ln.AlterTableDropColumnsRequest(id=t, columns=["e"]),
         ln.AlterTableDropColumnsResponse(version=8)),
        ("update_table_schema_metadata", ln.UpdateTableSchemaMetadataRequest(
            id=t, metadata={"k": "v"}),
         ln.UpdateTableSchemaMetadataResponse(metadata={"k": "v"})),
        ("get_table_stats", ln.GetTableStatsRequest(id=t),
         ln.GetTableStatsResponse(total_bytes=10, num_rows=3, num_indices=0,
                                  fragment_stats=m.FragmentStats(
                                      num_fragments=2, num_small_fragments=2,
                                      lengths=m.FragmentSummary(min=1, max=2, mean=1, p25=1,
                                                                p50=1, p75=2, p99=2)))),
        ("list_table_versions", ln.ListTableVersionsRequest(id=t, limit=2, descending=True),
         ln.ListTableVersionsResponse(versions=[
             m.TableVersion(version=2, manifest_path="_versions/2.manifest",
                            manifest_size=100, timestamp_millis=5, metadata={"a": "b"}),
             m.TableVersion(version=1, manifest_path="_versions/1.manifest")])),
        ("describe_table_version", ln.DescribeTableVersionRequest(id=t, version=1),
         ln.DescribeTableVersionResponse(version=m.TableVersion(
             version=1, manifest_path="_versions/1.manifest", e_tag="e"))),
        ("restore_table", ln.RestoreTableRequest(id=t, version=1),
         ln.RestoreTableResponse(transaction_id="tx")),
        ("list_table_tags", ln.ListTableTagsRequest(id=t, limit=1),
         ln.ListTableTagsResponse(tags={"v1": m.TagContents(version=1, manifestSize=42)},
                                  page_token="v1")),
        ("create_table_tag", ln.CreateTableTagRequest(id=t, tag="v1", version=1),
         ln.CreateTableTagResponse(transaction_id="tx")),
        ("delete_table_tag", ln.DeleteTableTagRequest(id=t, tag="v1"),
         ln.DeleteTableTagResponse()),
        ("get_table_tag_version", ln.GetTableTagVersionRequest(id=t, tag="v1"),
         ln.GetTableTagVersionResponse(version=1)),
        ("update_table_tag", ln.UpdateTableTagRequest(id=t, tag="v1", version=2),
         ln.UpdateTableTagResponse()),
        ("describe_transaction", ln.DescribeTransactionRequest(id=t + ["uuid"]),
         ln.DescribeTransactionResponse(status="SUCCEEDED", properties={"version": "2"})),
        ("alter_transaction", ln.AlterTransactionRequest(
            id=t + ["uuid"], actions=[m.AlterTransactionAction(
                set_status_action=m.AlterTransactionSetStatus(status="FAILED"))]),
         ln.AlterTransactionResponse(status="FAILED")),
        ("create_table", ln.CreateTableRequest(id=t, mode="overwrite"),
         ln.CreateTableResponse(location="/x/t", version=1)),
        ("insert_into_table", ln.InsertIntoTableRequest(id=t, mode="append"),
         ln.InsertIntoTableResponse(num_inserted_rows=3, version=2)),
        ("merge_insert_into_table", ln.MergeInsertIntoTableRequest(
            id=t, on=["id"], when_matched_update_all=True, when_not_matched_insert_all=True,
            timeout="30s"),
         ln.MergeInsertIntoTableResponse(num_updated_rows=1, num_inserted_rows=2, version=3)),
    ]


def _without_none(value):
    if isinstance(value, dict):
        return {k: _without_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_none(v) for v in value]
    return value


class _RecordingFake(LanceNamespace):
    """Answers every operation with a canned response and records what it received."""

    def __init__(self, cases):
        self.responses = {op: resp for op, _, resp in cases}
        self.received = {}

    def namespace_id(self):
        return "RecordingFake"

    def __getattribute__(self, name):
        responses = object.__getattribute__(self, "responses")
        if name in responses:
            def op(request, *data):
                object.__getattribute__(self, "received")[name] = (request, data)
                return responses[name]
            return op
        return object.__getattribute__(self, name)

    def count_table_rows(self, request):
        self.received["count_table_rows"] = (request, ())
        return ln.CountTableRowsResponse(count=7)

    def table_exists(self, request):
        self.received["table_exists"] = (request, ())
        return ln.TableExistsResponse()

    def query_table(self, request):
        self.received["query_table"] = (request, ())
        return ln.QueryTableResponse(data=_ipc(table(2)))


def test_python_namespace_gets_every_operation_from_the_core():
    # Every op of the core's interface crosses C++ both ways: the request model ->
    # C++ struct -> the Python namespace's request model, its response -> C++ -> dict.
    cases = _every_operation()
    fake = _RecordingFake(cases)
    core = _lance_cpp._as_core_namespace(fake)
    data = _ipc(table(3))
    for op, request, response in cases:
        args = (data,) if op in ("create_table", "insert_into_table",
                                 "merge_insert_into_table") else ()
        out = getattr(core, op)(request, *args)
        got_request, got_data = fake.received[op]
        want = _without_none(request.to_dict())
        want.pop("identity", None)
        assert _without_none(got_request.to_dict()) == want, op
        assert got_data == args, op
        assert type(response).from_dict(out) == response, op
    count = ln.CountTableRowsRequest(id=["db", "t"], predicate="id > 1", version=2)
    assert core.count_table_rows(count) == 7
    assert fake.received["count_table_rows"][0] == count
    from lance_namespace_urllib3_client import models as m

    query = ln.QueryTableRequest(id=["db", "t"], k=5, filter="id < 2", with_row_id=True,
                                 columns=m.QueryTableRequestColumns(column_names=["id"]),
                                 vector=m.QueryTableRequestVector(single_vector=[0.5, 1]))
    assert pa.ipc.open_stream(core.query_table(query)).read_all().equals(table(2))
    received = fake.received["query_table"][0]
    assert received.columns.column_names == ["id"] and received.k == 5
    assert received.vector.single_vector == [0.5, 1.0]
    # a plain scan (no vector) still reaches a Python namespace as the spec's model
    plain = core.query_table({"id": ["db", "t"], "k": 1})
    assert pa.ipc.open_stream(plain).read_all().equals(table(2))
    assert fake.received["query_table"][0].vector is not None
    # exists: success is the answer; an operation the namespace lacks is Unsupported
    assert core.table_exists(ln.TableExistsRequest(id=["db", "t"], version=3)) is None
    assert fake.received["table_exists"][0].version == 3
    with pytest.raises(ln.UnsupportedOperationError, match="namespace_exists"):
        core.namespace_exists(ln.NamespaceExistsRequest(id=["db"]))


def test_native_namespace_conversion_errors_name_the_field(tmp_path):
    ns = lance_cpp.namespace.DirectoryNamespace(root=str(tmp_path / "root"))
    with pytest.raises(TypeError, match=r"update_table.updates\[0\]"):
        ns._inner.update_table({"id": ["t"], "updates": ["s"]})
    with pytest.raises(TypeError, match=r"list_tables.limit: expected an int, got str"):
        ns._inner.list_tables({"id": [], "limit": "3"})
    with pytest.raises(TypeError, match="request_data must be bytes"):
        ns._inner.insert_into_table({"id": ["t"]}, "not bytes")


def test_native_namespaces_have_every_operation():
    ops = [op for op, _, _ in _every_operation()] + [
        "namespace_exists", "table_exists", "count_table_rows", "query_table"]
    for cls in (lance_cpp.namespace.DirectoryNamespace, lance_cpp.namespace.RestNamespace):
        for op in ops:
            method = getattr(cls, op)
            assert method is not getattr(LanceNamespace, op), (cls, op)
    for op in ops:
        assert hasattr(_lance_cpp._NativeNamespace, op), op


def test_exports_cover_pylance_104_and_14():
    # pylance 1.0.4 (the credential-provider release) and 14.0.2: every public name of
    # lance.namespace exists in lance_cpp.namespace, the models being the same objects.
    pylance_104 = [  # lance/namespace.py of the pylance-1.0.4 wheel: __all__ + re-exports
        "DirectoryNamespace", "RestNamespace", "RestAdapter",
        "LanceNamespaceStorageOptionsProvider", "DynamicContextProvider",
        "CreateEmptyTableRequest", "CreateEmptyTableResponse", "CreateNamespaceRequest",
        "CreateNamespaceResponse", "CreateTableRequest", "CreateTableResponse",
        "DeclareTableRequest", "DeclareTableResponse", "DeregisterTableRequest",
        "DeregisterTableResponse", "DescribeNamespaceRequest", "DescribeNamespaceResponse",
        "DescribeTableRequest", "DescribeTableResponse", "DropNamespaceRequest",
        "DropNamespaceResponse", "DropTableRequest", "DropTableResponse", "LanceNamespace",
        "ListNamespacesRequest", "ListNamespacesResponse", "ListTablesRequest",
        "ListTablesResponse", "NamespaceExistsRequest", "RegisterTableRequest",
        "RegisterTableResponse", "TableExistsRequest", "StorageOptionsProvider",
    ]
    pylance_14 = [n for n in dir(lance.namespace)
                  if not n.startswith("_") and n not in ("ABC", "Dict", "Optional",
                                                         "abstractmethod")
                  and not n.startswith("Py")]
    for name in sorted(set(pylance_104) | set(pylance_14)):
        assert hasattr(lance_cpp.namespace, name), name
        theirs = getattr(lance.namespace, name, None)
        if getattr(theirs, "__module__", "").startswith("lance_namespace"):
            assert getattr(lance_cpp.namespace, name) is theirs, name
    for name in ("DirectoryNamespace", "RestNamespace", "RestAdapter",
                 "DynamicContextProvider", "LanceNamespaceStorageOptionsProvider"):
        assert name in lance_cpp.namespace.__all__
    assert lance_cpp.namespace.CreateEmptyTableRequest is ln.CreateEmptyTableRequest
    assert issubclass(lance_cpp.namespace.RestNamespace, ln.LanceNamespace)


def test_directory_namespace_new_operations_return_models(tmp_path):
    ns = lance_cpp.namespace.DirectoryNamespace(root=str(tmp_path / "root"))
    created = ns.create_table(ln.CreateTableRequest(id=["t"]), _ipc(table(4)))
    assert isinstance(created, ln.CreateTableResponse) and created.version == 1
    assert ns.count_table_rows(ln.CountTableRowsRequest(id=["t"])).count == 4
    inserted = ns.insert_into_table(ln.InsertIntoTableRequest(id=["t"]), _ipc(table(2, 4)))
    assert inserted.version == 2
    from lance_namespace_urllib3_client import models as m

    answer = ns.query_table(ln.QueryTableRequest(id=["t"], k=0, filter="id >= 4",
                                                 vector=m.QueryTableRequestVector()))
    assert isinstance(answer, ln.QueryTableResponse)
    assert pa.ipc.open_stream(answer.data).read_all().equals(table(2, 4))
    versions = ns.list_table_versions(ln.ListTableVersionsRequest(id=["t"]))
    assert sorted(v.version for v in versions.versions) == [1, 2]
    ns.create_table_tag(ln.CreateTableTagRequest(id=["t"], tag="first", version=1))
    tags = ns.list_table_tags(ln.ListTableTagsRequest(id=["t"])).tags
    assert tags["first"].version == 1 and tags["first"].manifest_size > 0
    stats = ns.get_table_stats(ln.GetTableStatsRequest(id=["t"]))
    assert stats.num_rows == 6 and stats.fragment_stats.num_fragments == 2
    # pylance's DirectoryNamespace reads what ours wrote
    theirs = lance.namespace.DirectoryNamespace(root=str(tmp_path / "root"))
    assert theirs.count_table_rows(ln.CountTableRowsRequest(id=["t"])).count == 6


def test_storage_options_merge_rule():
    merge = _lance_cpp._merge_storage_options
    user = {"aws_region": "mine", "aws_access_key_id": "AKIAMINE",
            "aws_secret_access_key": "mine", "timeout": "5s"}
    vended = {"aws_region": "theirs", "aws_endpoint": "http://theirs",
              "aws_access_key_id": "AKIAVEND", "aws_secret_access_key": "vended",
              "aws_session_token": "tok", "expires_at_millis": "9"}
    assert merge(user, vended) == {
        "aws_region": "mine", "timeout": "5s", "aws_endpoint": "http://theirs",
        "aws_access_key_id": "AKIAVEND", "aws_secret_access_key": "vended",
        "aws_session_token": "tok", "expires_at_millis": "9"}
    assert merge(user, {}) == user


class _OptionsNamespace(_LoggedWrapper):
    """A directory namespace whose table answers carry storage options (harmless on a
    local root) and, when asked, pylance 14's managed_versioning flag."""

    def __init__(self, root, options, managed=False):
        super().__init__(lance_cpp.namespace.DirectoryNamespace(root=root))
        self.options = options
        self.managed = managed

    def namespace_id(self):
        return "OptionsNamespace"

    def _answer(self, response):
        response.storage_options = dict(self.options)
        if self.managed:
            response.managed_versioning = True
        return response

    def describe_table(self, request):
        return self._answer(self._forward("describe_table", request))

    def declare_table(self, request):
        return self._answer(self._forward("declare_table", request))


def test_namespace_dataset_keeps_merged_options_and_provider(tmp_path):
    vended = {"aws_region": "theirs", "aws_access_key_id": "AKIAVEND",
              "aws_secret_access_key": "vended", "expires_at_millis": "99999999999999"}
    ns = _OptionsNamespace(str(tmp_path / "root"), vended)
    mine = {"aws_region": "mine", "aws_access_key_id": "AKIAMINE"}
    written = lance_cpp.write_dataset(table(4), namespace_client=ns, table_id=["t"],
                                      storage_options=mine)
    assert ns.calls == ["declare_table"]
    expected = {"aws_region": "mine", "aws_access_key_id": "AKIAVEND",
                "aws_secret_access_key": "vended", "expires_at_millis": "99999999999999"}
    assert written.initial_storage_options == expected
    ds = lance_cpp.dataset(namespace_client=ns, table_id=["t"], storage_options=mine)
    assert ns.calls == ["declare_table", "describe_table"]
    assert ds.initial_storage_options == expected
    provider = ds._storage_options_provider
    assert isinstance(provider, lance_cpp.namespace.LanceNamespaceStorageOptionsProvider)
    assert provider.namespace is ns and provider.table_id == ["t"]
    # commit, write_fragments and append with the dataset keep both, with no call
    frags = lance_cpp.fragment.write_fragments(table(2, 4), ds)
    committed = lance_cpp.LanceDataset.commit(
        ds, lance_cpp.LanceOperation.Append(frags), read_version=ds.version)
    assert committed.count_rows() == 6
    assert committed.initial_storage_options == expected
    assert committed._storage_options_provider is provider
    appended = lance_cpp.write_dataset(table(1, 6), committed, mode="append")
    assert appended.count_rows() == 7
    assert appended._storage_options_provider is provider
    assert appended.initial_storage_options == expected
    assert ns.calls == ["declare_table", "describe_table"]

    # ignore_namespace_table_storage_options: only the caller's options, no provider
    ignored = lance_cpp.dataset(namespace_client=ns, table_id=["t"], storage_options=mine,
                                ignore_namespace_table_storage_options=True)
    assert ignored.initial_storage_options == mine
    assert ignored._storage_options_provider is None
    assert ignored.count_rows() == 7
    appended = lance_cpp.write_dataset(table(1, 7), namespace_client=ns, table_id=["t"],
                                       mode="append",
                                       ignore_namespace_table_storage_options=True)
    assert appended.initial_storage_options is None
    assert appended.count_rows() == 8


def test_managed_versioning_is_refused_clearly(tmp_path):
    ns = _OptionsNamespace(str(tmp_path / "root"), {"a": "b"})
    lance_cpp.write_dataset(table(3), namespace_client=ns, table_id=["t"])
    ns.managed = True
    with pytest.raises(NotImplementedError, match="managed_versioning"):
        lance_cpp.dataset(namespace_client=ns, table_id=["t"])
    with pytest.raises(NotImplementedError, match="managed_versioning"):
        lance_cpp.write_dataset(table(1, 3), namespace_client=ns, table_id=["t"],
                                mode="append")
    with pytest.raises(NotImplementedError, match="managed_versioning"):
        lance_cpp.write_dataset(table(1), namespace_client=ns, table_id=["u"])
    ns.managed = False
    assert lance_cpp.dataset(namespace_client=ns, table_id=["t"]).count_rows() == 3
    with pytest.raises(NotImplementedError, match="namespace_client_managed_versioning"):
        lance_cpp.LanceDataset.commit(str(tmp_path / "root" / "t.lance"),
                                      lance_cpp.LanceOperation.Append([]), read_version=1,
                                      namespace_client_managed_versioning=True)


def test_vended_credentials_survive_commit_write_fragments_and_append(s3env, key_vendor):
    # On RGW, with no credentials of the caller: only the vended ones (kept by the
    # dataset opened through the namespace) can write fragments, commit and append.
    from _vending import VendingNamespace

    root = s3env.unique_uri("keep")
    ns = VendingNamespace(lance_cpp, s3env, key_vendor, root, ttl_s=60)
    lance_cpp.write_dataset(table(4), namespace_client=ns, table_id=["t"])
    ds = lance_cpp.dataset(namespace_client=ns, table_id=["t"])
    assert ns.counts() == {"describe": 1, "declare": 1, "create_empty": 0}
    frags = lance_cpp.fragment.write_fragments(table(2, 4), ds)
    committed = lance_cpp.LanceDataset.commit(
        ds, lance_cpp.LanceOperation.Append(frags), read_version=ds.version)
    appended = lance_cpp.write_dataset(table(1, 6), committed, mode="append")
    assert appended.count_rows() == 7
    # seeded with the vended key: no further describe_table within its lifetime
    assert ns.counts() == {"describe": 1, "declare": 1, "create_empty": 0}
    assert ds.initial_storage_options["aws_access_key_id"] == ns.vended[1]
    assert lance.dataset(root + "/t.lance", storage_options=s3env.options()).count_rows() == 7
