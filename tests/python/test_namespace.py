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

from _vending import IMPLS, impl, load_impl, s3env  # noqa: F401


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
    with pytest.raises(Exception):
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
    class OldNamespace(LanceNamespace):
        def __init__(self, inner, how):
            self.inner = inner
            self.how = how
            self.calls = []

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
            self.calls.append("describe_table")
            return self.inner.describe_table(request)

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
    lance_cpp.write_dataset(table(7), namespace_client=ours, table_id=["db", "data"])
    assert lance.dataset(namespace_client=theirs, table_id=["db", "data"],
                         storage_options=s3env.options()).count_rows() == 7
