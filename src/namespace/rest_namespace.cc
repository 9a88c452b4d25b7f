// SPDX-License-Identifier: Apache-2.0
// RestNamespace: the Lance REST namespace client. (Skeleton: not implemented yet.)

#include "lance/namespace/rest_namespace.h"

#include <string>
#include <utility>

namespace lance::ns {

class RestNamespace::Impl {};

RestNamespace::RestNamespace(std::unique_ptr<Impl> impl, RestNamespaceOptions options)
    : impl_(std::move(impl)), options_(std::move(options)) {}
RestNamespace::~RestNamespace() = default;

Result<std::shared_ptr<RestNamespace>> RestNamespace::FromProperties(
    const Properties&, std::shared_ptr<DynamicContextProvider>) {
  return Status::NotImplemented("RestNamespace is not implemented yet");
}
Result<std::shared_ptr<RestNamespace>> RestNamespace::Make(RestNamespaceOptions) {
  return Status::NotImplemented("RestNamespace is not implemented yet");
}
std::string RestNamespace::namespace_id() const {
  return "RestNamespace { endpoint: \"" + options_.uri + "\", delimiter: \"" +
         options_.delimiter + "\" }";
}

Result<ListNamespacesResponse> RestNamespace::ListNamespaces(
    const ListNamespacesRequest&) {
  return Unsupported("list_namespaces");
}
Result<DescribeNamespaceResponse> RestNamespace::DescribeNamespace(
    const DescribeNamespaceRequest&) {
  return Unsupported("describe_namespace");
}
Result<CreateNamespaceResponse> RestNamespace::CreateNamespace(
    const CreateNamespaceRequest&) {
  return Unsupported("create_namespace");
}
Result<DropNamespaceResponse> RestNamespace::DropNamespace(const DropNamespaceRequest&) {
  return Unsupported("drop_namespace");
}
Status RestNamespace::NamespaceExists(const NamespaceExistsRequest&) {
  return Unsupported("namespace_exists");
}
Result<ListTablesResponse> RestNamespace::ListTables(const ListTablesRequest&) {
  return Unsupported("list_tables");
}
Result<DescribeTableResponse> RestNamespace::DescribeTable(const DescribeTableRequest&) {
  return Unsupported("describe_table");
}
Result<DeclareTableResponse> RestNamespace::DeclareTable(const DeclareTableRequest&) {
  return Unsupported("declare_table");
}
Result<CreateEmptyTableResponse> RestNamespace::CreateEmptyTable(
    const CreateEmptyTableRequest&) {
  return Unsupported("create_empty_table");
}
Result<RegisterTableResponse> RestNamespace::RegisterTable(const RegisterTableRequest&) {
  return Unsupported("register_table");
}
Result<DeregisterTableResponse> RestNamespace::DeregisterTable(
    const DeregisterTableRequest&) {
  return Unsupported("deregister_table");
}
Status RestNamespace::TableExists(const TableExistsRequest&) {
  return Unsupported("table_exists");
}
Result<DropTableResponse> RestNamespace::DropTable(const DropTableRequest&) {
  return Unsupported("drop_table");
}
Result<CreateTableResponse> RestNamespace::CreateTable(const CreateTableRequest&,
                                                       std::string_view) {
  return Unsupported("create_table");
}
Result<RenameTableResponse> RestNamespace::RenameTable(const RenameTableRequest&) {
  return Unsupported("rename_table");
}
Result<ListAllTablesResponse> RestNamespace::ListAllTables(const ListAllTablesRequest&) {
  return Unsupported("list_all_tables");
}
Result<int64_t> RestNamespace::CountTableRows(const CountTableRowsRequest&) {
  return Unsupported("count_table_rows");
}
Result<InsertIntoTableResponse> RestNamespace::InsertIntoTable(
    const InsertIntoTableRequest&, std::string_view) {
  return Unsupported("insert_into_table");
}
Result<MergeInsertIntoTableResponse> RestNamespace::MergeInsertIntoTable(
    const MergeInsertIntoTableRequest&, std::string_view) {
  return Unsupported("merge_insert_into_table");
}
Result<DeleteFromTableResponse> RestNamespace::DeleteFromTable(
    const DeleteFromTableRequest&) {
  return Unsupported("delete_from_table");
}
Result<UpdateTableResponse> RestNamespace::UpdateTable(const UpdateTableRequest&) {
  return Unsupported("update_table");
}
Result<std::string> RestNamespace::QueryTable(const QueryTableRequest&) {
  return Unsupported("query_table");
}
Result<AlterTableAddColumnsResponse> RestNamespace::AlterTableAddColumns(
    const AlterTableAddColumnsRequest&) {
  return Unsupported("alter_table_add_columns");
}
Result<AlterTableAlterColumnsResponse> RestNamespace::AlterTableAlterColumns(
    const AlterTableAlterColumnsRequest&) {
  return Unsupported("alter_table_alter_columns");
}
Result<AlterTableDropColumnsResponse> RestNamespace::AlterTableDropColumns(
    const AlterTableDropColumnsRequest&) {
  return Unsupported("alter_table_drop_columns");
}
Result<UpdateTableSchemaMetadataResponse> RestNamespace::UpdateTableSchemaMetadata(
    const UpdateTableSchemaMetadataRequest&) {
  return Unsupported("update_table_schema_metadata");
}
Result<GetTableStatsResponse> RestNamespace::GetTableStats(const GetTableStatsRequest&) {
  return Unsupported("get_table_stats");
}
Result<ListTableVersionsResponse> RestNamespace::ListTableVersions(
    const ListTableVersionsRequest&) {
  return Unsupported("list_table_versions");
}
Result<DescribeTableVersionResponse> RestNamespace::DescribeTableVersion(
    const DescribeTableVersionRequest&) {
  return Unsupported("describe_table_version");
}
Result<RestoreTableResponse> RestNamespace::RestoreTable(const RestoreTableRequest&) {
  return Unsupported("restore_table");
}
Result<ListTableTagsResponse> RestNamespace::ListTableTags(const ListTableTagsRequest&) {
  return Unsupported("list_table_tags");
}
Result<CreateTableTagResponse> RestNamespace::CreateTableTag(
    const CreateTableTagRequest&) {
  return Unsupported("create_table_tag");
}
Result<DeleteTableTagResponse> RestNamespace::DeleteTableTag(
    const DeleteTableTagRequest&) {
  return Unsupported("delete_table_tag");
}
Result<GetTableTagVersionResponse> RestNamespace::GetTableTagVersion(
    const GetTableTagVersionRequest&) {
  return Unsupported("get_table_tag_version");
}
Result<UpdateTableTagResponse> RestNamespace::UpdateTableTag(
    const UpdateTableTagRequest&) {
  return Unsupported("update_table_tag");
}
Result<DescribeTransactionResponse> RestNamespace::DescribeTransaction(
    const DescribeTransactionRequest&) {
  return Unsupported("describe_transaction");
}
Result<AlterTransactionResponse> RestNamespace::AlterTransaction(
    const AlterTransactionRequest&) {
  return Unsupported("alter_transaction");
}

std::string FormEncode(std::string_view text) { return std::string(text); }
Result<std::string> FormDecode(std::string_view text) { return std::string(text); }

}  // namespace lance::ns
