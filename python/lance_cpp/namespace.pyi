# SPDX-License-Identifier: Apache-2.0
from abc import ABC, abstractmethod
from typing import Any, Dict, List, Optional

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

from .io import StorageOptionsProvider

__all__ = [
    "DirectoryNamespace",
    "DynamicContextProvider",
    "LanceNamespaceStorageOptionsProvider",
]

class DynamicContextProvider(ABC):
    @abstractmethod
    def provide_context(self, info: Dict[str, str]) -> Dict[str, str]: ...

class DirectoryNamespace(LanceNamespace):
    def __init__(self, session: Any = None, context_provider: Any = None, **properties: Any) -> None: ...
    def namespace_id(self) -> str: ...
    def retrieve_ops_metrics(self) -> Dict[str, int]: ...
    def reset_ops_metrics(self) -> None: ...
    def create_namespace(self, request: CreateNamespaceRequest) -> CreateNamespaceResponse: ...
    def list_namespaces(self, request: ListNamespacesRequest) -> ListNamespacesResponse: ...
    def describe_namespace(self, request: DescribeNamespaceRequest) -> DescribeNamespaceResponse: ...
    def drop_namespace(self, request: DropNamespaceRequest) -> DropNamespaceResponse: ...
    def namespace_exists(self, request: NamespaceExistsRequest) -> NamespaceExistsResponse: ...
    def list_tables(self, request: ListTablesRequest) -> ListTablesResponse: ...
    def describe_table(self, request: DescribeTableRequest) -> DescribeTableResponse: ...
    def declare_table(self, request: DeclareTableRequest) -> DeclareTableResponse: ...
    def create_empty_table(self, request: Any) -> Any: ...
    def register_table(self, request: RegisterTableRequest) -> RegisterTableResponse: ...
    def deregister_table(self, request: DeregisterTableRequest) -> DeregisterTableResponse: ...
    def table_exists(self, request: TableExistsRequest) -> TableExistsResponse: ...
    def drop_table(self, request: DropTableRequest) -> DropTableResponse: ...

class LanceNamespaceStorageOptionsProvider(StorageOptionsProvider):
    namespace: LanceNamespace
    table_id: List[str]
    def __init__(self, namespace: LanceNamespace, table_id: List[str]) -> None: ...
    def fetch_storage_options(self) -> Optional[Dict[str, str]]: ...
    def provider_id(self) -> str: ...
