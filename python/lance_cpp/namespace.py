# SPDX-License-Identifier: Apache-2.0
"""Lance Namespaces for lance_cpp, shaped as pylance's ``lance.namespace``.

This module provides:

1. The ``LanceNamespace`` base class and the request/response models of the
   ``lance_namespace`` package, re-exported as pylance re-exports them, so a namespace
   written for pylance (a ``LanceNamespace`` subclass) works unchanged: pass it as
   ``namespace_client=`` (alias ``namespace=``) with ``table_id=`` to
   ``lance_cpp.dataset`` / ``write_dataset`` / the ``lance_cpp.file`` classes. The native
   core calls it from its own threads, taking the GIL for each call.
2. ``DirectoryNamespace(**properties)``: the native (C++) directory namespace, taking and
   returning those models and raising the ``lance_namespace`` errors
   (``TableNotFoundError``, ...). Passed to the core as is, it is called natively.
3. ``RestNamespace(context_provider=None, **properties)``: the native REST namespace
   client (the same operations over HTTP; a ``DynamicContextProvider`` adds
   per-request headers), and ``RestAdapter``: the native REST server over any
   namespace, as pylance's.
4. ``LanceNamespaceStorageOptionsProvider(namespace, table_id)``: a
   ``lance_cpp.io.StorageOptionsProvider`` whose fetch is ``describe_table``.

The native namespaces implement every operation of the core's ``LanceNamespace``
(tables, data, schema, versions, tags, transactions); the spec's others (indices,
branches, materialized views) raise ``UnsupportedOperationError`` from the base class.
"""

import importlib
import threading
from abc import ABC, abstractmethod
from typing import Any, Dict, List, Optional

import lance_namespace as _ln
from lance_namespace import (
    AlterTableAddColumnsRequest,
    AlterTableAddColumnsResponse,
    AlterTableAlterColumnsRequest,
    AlterTableAlterColumnsResponse,
    AlterTableBackfillColumnsRequest,
    AlterTableBackfillColumnsResponse,
    AlterTableDropColumnsRequest,
    AlterTableDropColumnsResponse,
    AlterTransactionRequest,
    AlterTransactionResponse,
    AnalyzeTableQueryPlanRequest,
    CountTableRowsRequest,
    CountTableRowsResponse,
    CreateEmptyTableRequest,
    CreateEmptyTableResponse,
    CreateMaterializedViewRequest,
    CreateMaterializedViewResponse,
    CreateNamespaceRequest,
    CreateNamespaceResponse,
    CreateTableBranchRequest,
    CreateTableBranchResponse,
    CreateTableIndexRequest,
    CreateTableIndexResponse,
    CreateTableRequest,
    CreateTableResponse,
    CreateTableTagRequest,
    CreateTableTagResponse,
    DeclareTableRequest,
    DeclareTableResponse,
    DeleteFromTableRequest,
    DeleteFromTableResponse,
    DeleteTableBranchRequest,
    DeleteTableBranchResponse,
    DeleteTableTagRequest,
    DeleteTableTagResponse,
    DeregisterTableRequest,
    DeregisterTableResponse,
    DescribeNamespaceRequest,
    DescribeNamespaceResponse,
    DescribeTableIndexStatsRequest,
    DescribeTableIndexStatsResponse,
    DescribeTableRequest,
    DescribeTableResponse,
    DescribeTableVersionRequest,
    DescribeTableVersionResponse,
    DescribeTransactionRequest,
    DescribeTransactionResponse,
    DropNamespaceRequest,
    DropNamespaceResponse,
    DropTableIndexRequest,
    DropTableIndexResponse,
    DropTableRequest,
    DropTableResponse,
    ExplainTableQueryPlanRequest,
    GetTableStatsRequest,
    GetTableStatsResponse,
    GetTableTagVersionRequest,
    GetTableTagVersionResponse,
    InsertIntoTableRequest,
    InsertIntoTableResponse,
    LanceNamespace,
    ListNamespacesRequest,
    ListNamespacesResponse,
    ListTableBranchesRequest,
    ListTableBranchesResponse,
    ListTableIndicesRequest,
    ListTableIndicesResponse,
    ListTablesRequest,
    ListTablesResponse,
    ListTableTagsRequest,
    ListTableTagsResponse,
    ListTableVersionsRequest,
    ListTableVersionsResponse,
    MergeInsertIntoTableRequest,
    MergeInsertIntoTableResponse,
    NamespaceExistsRequest,
    NamespaceExistsResponse,
    QueryTableRequest,
    QueryTableResponse,
    RefreshMaterializedViewRequest,
    RefreshMaterializedViewResponse,
    RegisterTableRequest,
    RegisterTableResponse,
    RenameTableRequest,
    RenameTableResponse,
    RestoreTableRequest,
    RestoreTableResponse,
    TableExistsRequest,
    TableExistsResponse,
    UpdateTableRequest,
    UpdateTableResponse,
    UpdateTableSchemaMetadataRequest,
    UpdateTableSchemaMetadataResponse,
    UpdateTableTagRequest,
    UpdateTableTagResponse,
)

from . import _lance_cpp
from .io import StorageOptionsProvider

__all__ = [
    "DirectoryNamespace",
    "RestNamespace",
    "RestAdapter",
    "DynamicContextProvider",
    "LanceNamespaceStorageOptionsProvider",
]


class DynamicContextProvider(ABC):
    """Per-request context for namespace operations (pylance's interface).

    ``RestNamespace`` calls ``provide_context`` before every request with
    ``{"operation": <op name>, "object_id": <joined id>}`` (with the GIL, from whatever
    thread makes the request); returned keys ``headers.<Name>`` become the HTTP header
    ``<Name>``, other keys are sent as ``x-lance-ctx-<key>`` headers. The native
    ``DirectoryNamespace`` makes no requests and does not call it.
    """

    @abstractmethod
    def provide_context(self, info: Dict[str, str]) -> Dict[str, str]:
        """Return context key-value pairs for the operation described by ``info``."""


_CONTEXT_PREFIX = "dynamic_context_provider."
_CONTEXT_IMPL = "dynamic_context_provider.impl"


def _create_context_provider_from_properties(
    properties: Dict[str, str],
) -> Optional[DynamicContextProvider]:
    """The provider named by ``dynamic_context_provider.impl`` ("module.Class"),
    constructed with the other ``dynamic_context_provider.*`` properties (prefix
    stripped) as keyword arguments; None when no impl is configured (pylance's rule)."""
    impl_path = properties.get(_CONTEXT_IMPL)
    if not impl_path:
        return None
    if "." not in impl_path:
        raise ValueError(
            f"Invalid context provider class path '{impl_path}'. "
            "Expected format: 'module.ClassName' (e.g., 'my_module.MyProvider')"
        )
    module_path, class_name = impl_path.rsplit(".", 1)
    try:
        module = importlib.import_module(module_path)
    except ModuleNotFoundError as e:
        raise ValueError(
            f"Failed to import module '{module_path}' for context provider: {e}"
        ) from e
    try:
        provider_class = getattr(module, class_name)
    except AttributeError as e:
        raise ValueError(
            f"Class '{class_name}' not found in module '{module_path}': {e}"
        ) from e
    kwargs = {
        key[len(_CONTEXT_PREFIX):]: value
        for key, value in properties.items()
        if key.startswith(_CONTEXT_PREFIX) and key != _CONTEXT_IMPL
    }
    return provider_class(**kwargs)


def _filter_context_provider_properties(properties: Dict[str, str]) -> Dict[str, str]:
    """The properties without the ``dynamic_context_provider.*`` keys (handled here)."""
    return {k: v for k, v in properties.items() if not k.startswith(_CONTEXT_PREFIX)}


def _is_true(value: object) -> bool:
    return str(value).lower() == "true"


def _native_op(name: str, body: str, reply: str, spec_model: str) -> Any:
    """The method ``name`` of the native namespaces, from its row of the core's operation
    table (include/lance/namespace/operations.def): requests are passed as they come (a
    lance_namespace model or a dict), an Arrow IPC payload as ``request_data`` (bytes);
    the answer becomes the lance_namespace response model ``<spec_model>Response``."""
    response_model = getattr(_ln, spec_model + "Response")

    def answer(out: Any) -> Any:
        if reply == "status":
            return response_model()
        if reply == "count":
            return response_model(count=out)
        if reply == "arrow":
            return response_model(data=out)
        return response_model.from_dict(out)

    if body == "arrow":

        def op(self: "_NativeNamespaceBase", request: Any, request_data: bytes) -> Any:
            self._count(name)
            return answer(getattr(self._inner, name)(request, request_data))

        op.__doc__ = (
            f"The spec operation ``{name}`` with an Arrow IPC stream (bytes): returns a "
            f"{response_model.__name__}."
        )
    else:

        def op(self: "_NativeNamespaceBase", request: Any) -> Any:  # type: ignore[misc]
            self._count(name)
            return answer(getattr(self._inner, name)(request))

        op.__doc__ = f"The spec operation ``{name}``: returns a {response_model.__name__}."
    op.__name__ = name
    op.__qualname__ = f"_NativeNamespaceBase.{name}"
    return op


class _NativeNamespaceBase(LanceNamespace):
    """What the native (C++) namespaces share: every operation of the core's
    ``LanceNamespace`` taking and returning ``lance_namespace`` models, raising the
    ``lance_namespace`` errors, and pylance's operation metrics."""

    _inner: Any

    def _init_properties(self, context_provider: Any,
                         properties: Dict[str, Any]) -> Dict[str, str]:
        """The native namespace's properties (as strings, without the context provider's,
        which build `context_provider` when it is None); sets up the operation metrics."""
        str_properties = {str(k): str(v) for k, v in properties.items()}
        if context_provider is None:
            context_provider = _create_context_provider_from_properties(str_properties)
        self.context_provider = context_provider
        str_properties = _filter_context_provider_properties(str_properties)
        self._init_metrics(str_properties)
        return str_properties

    def _init_metrics(self, properties: Dict[str, str]) -> None:
        self._ops_metrics_enabled = _is_true(properties.get("ops_metrics_enabled", "false"))
        self._ops_metrics: Dict[str, int] = {}
        self._ops_lock = threading.Lock()

    def namespace_id(self) -> str:
        """Return a human-readable unique identifier for this namespace instance."""
        return self._inner.namespace_id()

    def _count(self, op: str) -> None:
        if self._ops_metrics_enabled:
            with self._ops_lock:
                self._ops_metrics[op] = self._ops_metrics.get(op, 0) + 1

    def retrieve_ops_metrics(self) -> Dict[str, int]:
        """Operation name -> number of calls (empty unless ops_metrics_enabled)."""
        with self._ops_lock:
            return dict(self._ops_metrics)

    def reset_ops_metrics(self) -> None:
        """Reset the operation counters."""
        with self._ops_lock:
            self._ops_metrics.clear()

    @property
    def _native_passthrough(self) -> bool:
        # The core calls the native object directly unless calls must be counted here.
        return not self._ops_metrics_enabled

    # Every operation of the core's table (the one list: operations.def).
    for _row in _lance_cpp._operations():
        locals()[_row[0]] = _native_op(*_row)
    del _row


class DirectoryNamespace(_NativeNamespaceBase):
    """Directory-based Lance Namespace implemented natively (C++).

    Parameters
    ----------
    session : optional
        Accepted for compatibility with pylance; unused.
    context_provider : DynamicContextProvider, optional
        Accepted for compatibility with pylance (also built from
        ``dynamic_context_provider.impl``); a directory makes no requests, so it is not
        called.
    **properties
        - root (required): root directory path or URI (``s3://bucket/prefix``, ...)
        - manifest_enabled (optional, default "true"): keep a ``__manifest`` table
        - dir_listing_enabled (optional, default "true"): also find root-level tables
          by listing ``<name>.lance`` directories
        - storage.* (optional): storage options of the root (prefix stripped), also
          returned as ``storage_options`` by describe_table / declare_table
        - credential_vendor.* (optional): credential vending (docs/rest.md)
        - ops_metrics_enabled (optional): "true" to count calls per operation
          (``retrieve_ops_metrics()``), as pylance does
    """

    def __init__(
        self, session: Any = None, context_provider: Any = None, **properties: Any
    ) -> None:
        str_properties = self._init_properties(context_provider, properties)
        self._inner = _lance_cpp._DirectoryNamespace(str_properties)

    def __repr__(self) -> str:
        return f"DirectoryNamespace({self._inner.namespace_id()})"


class RestNamespace(_NativeNamespaceBase):
    """Client of a Lance REST namespace server, implemented natively (C++).

    Parameters
    ----------
    context_provider : DynamicContextProvider, optional
        Called before every request for per-request headers. When None, built from
        ``dynamic_context_provider.impl`` ("module.Class") and the other
        ``dynamic_context_provider.*`` properties (its constructor's keyword
        arguments), as pylance does.
    **properties
        - uri (required): the server, e.g. ``http://127.0.0.1:2333``
        - delimiter (optional, default "$"): joins id parts in routes
        - header.<Name> (optional): a header sent on every request
        - tls.ssl_ca_cert, tls.cert_file, tls.key_file, tls.assert_hostname (optional)
        - connect_timeout_ms, read_timeout_ms, max_retries, retry_backoff_ms (optional)
        - ops_metrics_enabled (optional): "true" to count calls per operation
    """

    def __init__(self, context_provider: Any = None, **properties: Any) -> None:
        str_properties = self._init_properties(context_provider, properties)
        try:
            self._inner = _lance_cpp._RestNamespace(str_properties, self.context_provider)
        except _ln.LanceNamespaceError as e:
            # pylance raises ValueError for bad properties
            raise ValueError(f"Failed to create RestNamespace: {e}") from e

    def __repr__(self) -> str:
        return f"RestNamespace({self._inner.namespace_id()})"


def _backend_namespace(impl: Any, properties: Dict[str, str], session: Any) -> Any:
    if not isinstance(impl, str):
        return impl  # a namespace object: served as it is
    name = impl.strip()
    if name.lower() in ("dir", "directory", "directorynamespace"):
        return DirectoryNamespace(session=session, **properties)
    if name.lower() in ("rest", "restnamespace"):
        return RestNamespace(**properties)
    raise ValueError(
        f"RestAdapter: unknown namespace implementation '{impl}' (expected 'dir' or "
        "'rest', or a namespace object)"
    )


class RestAdapter:
    """A Lance REST namespace server (the native ``lance-cpp serve`` server) over a
    backend namespace, as pylance's ``RestAdapter``.

    Parameters
    ----------
    namespace_client_impl : str or LanceNamespace
        "dir" (a DirectoryNamespace of ``namespace_client_properties``) or "rest"; or
        any namespace object (a Python one is called with the GIL per request).
    namespace_client_properties : dict, optional
        Properties of the backend namespace (``dir``: DirectoryNamespace's).
    session : optional
        Accepted for compatibility with pylance.
    host : str, optional
        Address to bind (default "127.0.0.1").
    port : int, optional
        Port (default 2333, the spec's); 0 for an ephemeral one (read ``port`` after
        ``start()``).
    api_keys, bearer_tokens : list of str, optional
        When given, requests must carry one of them (``x-api-key`` or
        ``Authorization: Bearer``, either list accepted in either header): 401
        without, 403 for a wrong one. An entry may add a permission and a namespace:
        ``"KEY read"``, ``"KEY write team$a"`` (default ``admin``, everywhere); a key
        gets 403 for operations beyond them, and vended credentials never allow more.
    tls_cert_file, tls_key_file : str, optional
        Serve HTTPS with this PEM certificate chain and private key.
    """

    def __init__(
        self,
        namespace_client_impl: Any,
        namespace_client_properties: Optional[Dict[str, str]] = None,
        session: Any = None,
        host: Optional[str] = None,
        port: Optional[int] = None,
        *,
        api_keys: Optional[List[str]] = None,
        bearer_tokens: Optional[List[str]] = None,
        tls_cert_file: Optional[str] = None,
        tls_key_file: Optional[str] = None,
    ) -> None:
        properties = {
            str(k): str(v) for k, v in (namespace_client_properties or {}).items()
        }
        self.namespace_client_impl = namespace_client_impl
        self.host = host if host is not None else "127.0.0.1"
        self.backend = _backend_namespace(namespace_client_impl, properties, session)
        self._inner = _lance_cpp._RestAdapter(
            self.backend,
            self.host,
            2333 if port is None else int(port),
            [str(k) for k in (api_keys or [])] + [str(t) for t in (bearer_tokens or [])],
            str(tls_cert_file or ""),
            str(tls_key_file or ""),
        )

    @property
    def port(self) -> int:
        """The bound port (0 before ``start()``)."""
        return self._inner.port

    def start(self) -> None:
        """Start serving in background threads."""
        self._inner.start()

    def stop(self) -> None:
        """Stop accepting, let in-flight requests finish. Idempotent."""
        self._inner.stop()

    def retrieve_ops_metrics(self) -> Dict[str, int]:
        """Operation name (the spec's: "describe_table", ...) -> requests the server
        routed to it since it was made or last reset (authenticated requests, whatever
        their outcome)."""
        return dict(self._inner.ops_metrics())

    def reset_ops_metrics(self) -> None:
        """Reset the server's operation counters."""
        self._inner.reset_ops_metrics()

    def __enter__(self) -> "RestAdapter":
        self.start()
        return self

    def __exit__(self, exc_type: Any, exc_value: Any, traceback: Any) -> bool:
        self.stop()
        return False

    def __repr__(self) -> str:
        return f"RestAdapter(host='{self.host}', port={self.port})"


class LanceNamespaceStorageOptionsProvider(StorageOptionsProvider):
    """Storage options of one table, fetched with ``namespace.describe_table``.

    Each ``fetch_storage_options()`` is exactly one ``describe_table(id=table_id)``;
    the caching and the timing of refreshes belong to the native credentials source.

    Parameters
    ----------
    namespace : LanceNamespace
        The namespace that vends the table's storage options.
    table_id : list of str
        The table's identifier in the namespace.
    """

    namespace: LanceNamespace
    table_id: List[str]

    def __init__(self, namespace: LanceNamespace, table_id: List[str]) -> None:
        if namespace is None:
            raise ValueError("LanceNamespaceStorageOptionsProvider: namespace is None")
        if not table_id:
            raise ValueError("LanceNamespaceStorageOptionsProvider: table_id is empty")
        self.namespace = namespace
        self.table_id = list(table_id)

    def fetch_storage_options(self) -> Optional[Dict[str, str]]:
        response = self.namespace.describe_table(DescribeTableRequest(id=self.table_id))
        return response.storage_options

    def provider_id(self) -> str:
        # The native provider's format, so that the Python and native forms of one
        # provider share a cache.
        ids = ", ".join('"' + part + '"' for part in self.table_id)
        return (
            "LanceNamespaceStorageOptionsProvider { namespace: "
            f"{self.namespace.namespace_id()}, table_id: [{ids}] }}"
        )
