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
3. ``LanceNamespaceStorageOptionsProvider(namespace, table_id)``: a
   ``lance_cpp.io.StorageOptionsProvider`` whose fetch is ``describe_table``.
"""

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
    "DynamicContextProvider",
    "LanceNamespaceStorageOptionsProvider",
]


class DynamicContextProvider(ABC):
    """Per-request context for namespace operations (pylance's interface).

    Accepted for signature compatibility: the native DirectoryNamespace makes no network
    requests, so it does not call the provider.
    """

    @abstractmethod
    def provide_context(self, info: Dict[str, str]) -> Dict[str, str]:
        """Return context key-value pairs for the operation described by ``info``."""


def _is_true(value: object) -> bool:
    return str(value).lower() == "true"


class DirectoryNamespace(LanceNamespace):
    """Directory-based Lance Namespace implemented natively (C++).

    Parameters
    ----------
    session : optional
        Accepted for compatibility with pylance; unused.
    context_provider : DynamicContextProvider, optional
        Accepted for compatibility with pylance; unused.
    **properties
        - root (required): root directory path or URI (``s3://bucket/prefix``, ...)
        - manifest_enabled (optional, default "true"): keep a ``__manifest`` table
        - dir_listing_enabled (optional, default "true"): also find root-level tables
          by listing ``<name>.lance`` directories
        - storage.* (optional): storage options of the root (prefix stripped), also
          returned as ``storage_options`` by describe_table / declare_table
        - ops_metrics_enabled (optional): "true" to count calls per operation
          (``retrieve_ops_metrics()``), as pylance does
    """

    def __init__(
        self, session: Any = None, context_provider: Any = None, **properties: Any
    ) -> None:
        str_properties = {str(k): str(v) for k, v in properties.items()}
        self._ops_metrics_enabled = _is_true(
            str_properties.get("ops_metrics_enabled", "false")
        )
        self._ops_metrics: Dict[str, int] = {}
        self._ops_lock = threading.Lock()
        self._inner = _lance_cpp._DirectoryNamespace(str_properties)

    # -- identity and metrics ---------------------------------------------------------

    def namespace_id(self) -> str:
        """Return a human-readable unique identifier for this namespace instance."""
        return self._inner.namespace_id()

    def __repr__(self) -> str:
        return f"DirectoryNamespace({self._inner.namespace_id()})"

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

    # -- namespace operations ---------------------------------------------------------

    def create_namespace(self, request: CreateNamespaceRequest) -> CreateNamespaceResponse:
        self._count("create_namespace")
        return CreateNamespaceResponse.from_dict(
            self._inner.create_namespace(request.model_dump())
        )

    def list_namespaces(self, request: ListNamespacesRequest) -> ListNamespacesResponse:
        self._count("list_namespaces")
        return ListNamespacesResponse.from_dict(
            self._inner.list_namespaces(request.model_dump())
        )

    def describe_namespace(
        self, request: DescribeNamespaceRequest
    ) -> DescribeNamespaceResponse:
        self._count("describe_namespace")
        return DescribeNamespaceResponse.from_dict(
            self._inner.describe_namespace(request.model_dump())
        )

    def drop_namespace(self, request: DropNamespaceRequest) -> DropNamespaceResponse:
        self._count("drop_namespace")
        return DropNamespaceResponse.from_dict(
            self._inner.drop_namespace(request.model_dump())
        )

    def namespace_exists(self, request: NamespaceExistsRequest) -> NamespaceExistsResponse:
        self._count("namespace_exists")
        self._inner.namespace_exists(request.model_dump())
        return NamespaceExistsResponse()

    # -- table operations -------------------------------------------------------------

    def list_tables(self, request: ListTablesRequest) -> ListTablesResponse:
        self._count("list_tables")
        return ListTablesResponse.from_dict(self._inner.list_tables(request.model_dump()))

    def describe_table(self, request: DescribeTableRequest) -> DescribeTableResponse:
        self._count("describe_table")
        return DescribeTableResponse.from_dict(
            self._inner.describe_table(request.model_dump())
        )

    def declare_table(self, request: DeclareTableRequest) -> DeclareTableResponse:
        self._count("declare_table")
        return DeclareTableResponse.from_dict(
            self._inner.declare_table(request.model_dump())
        )

    def create_empty_table(self, request: Any) -> Any:
        """Deprecated spec operation: as declare_table."""
        self._count("create_empty_table")
        return _ln.CreateEmptyTableResponse.from_dict(
            self._inner.create_empty_table(request.model_dump())
        )

    def register_table(self, request: RegisterTableRequest) -> RegisterTableResponse:
        self._count("register_table")
        return RegisterTableResponse.from_dict(
            self._inner.register_table(request.model_dump())
        )

    def deregister_table(self, request: DeregisterTableRequest) -> DeregisterTableResponse:
        self._count("deregister_table")
        return DeregisterTableResponse.from_dict(
            self._inner.deregister_table(request.model_dump())
        )

    def table_exists(self, request: TableExistsRequest) -> TableExistsResponse:
        self._count("table_exists")
        self._inner.table_exists(request.model_dump())
        return TableExistsResponse()

    def drop_table(self, request: DropTableRequest) -> DropTableResponse:
        self._count("drop_table")
        return DropTableResponse.from_dict(self._inner.drop_table(request.model_dump()))


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
