// SPDX-License-Identifier: Apache-2.0
// DirectoryNamespace: table data, schema, version, tag and transaction operations.
// (Skeleton: every operation answers Unsupported until implemented.)

#include <string>

#include "lance/namespace/directory_namespace.h"

namespace lance::ns {

Result<CreateTableResponse> DirectoryNamespace::CreateTable(const CreateTableRequest&,
                                                            std::string_view) {
  return Unsupported("create_table");
}
Result<RenameTableResponse> DirectoryNamespace::RenameTable(const RenameTableRequest&) {
  return Unsupported("rename_table");
}
Result<ListAllTablesResponse> DirectoryNamespace::ListAllTables(
    const ListAllTablesRequest&) {
  return Unsupported("list_all_tables");
}
Result<int64_t> DirectoryNamespace::CountTableRows(const CountTableRowsRequest&) {
  return Unsupported("count_table_rows");
}
Result<InsertIntoTableResponse> DirectoryNamespace::InsertIntoTable(
    const InsertIntoTableRequest&, std::string_view) {
  return Unsupported("insert_into_table");
}
Result<MergeInsertIntoTableResponse> DirectoryNamespace::MergeInsertIntoTable(
    const MergeInsertIntoTableRequest&, std::string_view) {
  return Unsupported("merge_insert_into_table");
}
Result<DeleteFromTableResponse> DirectoryNamespace::DeleteFromTable(
    const DeleteFromTableRequest&) {
  return Unsupported("delete_from_table");
}
Result<UpdateTableResponse> DirectoryNamespace::UpdateTable(const UpdateTableRequest&) {
  return Unsupported("update_table");
}
Result<std::string> DirectoryNamespace::QueryTable(const QueryTableRequest&) {
  return Unsupported("query_table");
}
Result<AlterTableAddColumnsResponse> DirectoryNamespace::AlterTableAddColumns(
    const AlterTableAddColumnsRequest&) {
  return Unsupported("alter_table_add_columns");
}
Result<AlterTableAlterColumnsResponse> DirectoryNamespace::AlterTableAlterColumns(
    const AlterTableAlterColumnsRequest&) {
  return Unsupported("alter_table_alter_columns");
}
Result<AlterTableDropColumnsResponse> DirectoryNamespace::AlterTableDropColumns(
    const AlterTableDropColumnsRequest&) {
  return Unsupported("alter_table_drop_columns");
}
Result<UpdateTableSchemaMetadataResponse> DirectoryNamespace::UpdateTableSchemaMetadata(
    const UpdateTableSchemaMetadataRequest&) {
  return Unsupported("update_table_schema_metadata");
}
Result<GetTableStatsResponse> DirectoryNamespace::GetTableStats(
    const GetTableStatsRequest&) {
  return Unsupported("get_table_stats");
}
Result<ListTableVersionsResponse> DirectoryNamespace::ListTableVersions(
    const ListTableVersionsRequest&) {
  return Unsupported("list_table_versions");
}
Result<DescribeTableVersionResponse> DirectoryNamespace::DescribeTableVersion(
    const DescribeTableVersionRequest&) {
  return Unsupported("describe_table_version");
}
Result<RestoreTableResponse> DirectoryNamespace::RestoreTable(
    const RestoreTableRequest&) {
  return Unsupported("restore_table");
}
Result<ListTableTagsResponse> DirectoryNamespace::ListTableTags(
    const ListTableTagsRequest&) {
  return Unsupported("list_table_tags");
}
Result<CreateTableTagResponse> DirectoryNamespace::CreateTableTag(
    const CreateTableTagRequest&) {
  return Unsupported("create_table_tag");
}
Result<DeleteTableTagResponse> DirectoryNamespace::DeleteTableTag(
    const DeleteTableTagRequest&) {
  return Unsupported("delete_table_tag");
}
Result<GetTableTagVersionResponse> DirectoryNamespace::GetTableTagVersion(
    const GetTableTagVersionRequest&) {
  return Unsupported("get_table_tag_version");
}
Result<UpdateTableTagResponse> DirectoryNamespace::UpdateTableTag(
    const UpdateTableTagRequest&) {
  return Unsupported("update_table_tag");
}
Result<DescribeTransactionResponse> DirectoryNamespace::DescribeTransaction(
    const DescribeTransactionRequest&) {
  return Unsupported("describe_transaction");
}

}  // namespace lance::ns
