// SPDX-License-Identifier: Apache-2.0
#include "lance/namespace/namespace.h"

#include <algorithm>
#include <array>
#include <memory>
#include <utility>

#include "lance/macros.h"
#include "lance/namespace/directory_namespace.h"
#include "lance/namespace/rest_namespace.h"
#include "lance/str_cat.h"

namespace lance::ns {

namespace {

struct CodeInfo {
  ErrorCode code;
  std::string_view name;
  StatusCode status;
};

// One table for the spec name and the generic code of every kind, so the two mappings
// cannot drift apart.
constexpr std::array<CodeInfo, 24> kCodes = {{
    {ErrorCode::kUnsupported, "Unsupported", StatusCode::kNotImplemented},
    {ErrorCode::kNamespaceNotFound, "NamespaceNotFound", StatusCode::kNotFound},
    {ErrorCode::kNamespaceAlreadyExists, "NamespaceAlreadyExists",
     StatusCode::kAlreadyExists},
    {ErrorCode::kNamespaceNotEmpty, "NamespaceNotEmpty", StatusCode::kConflict},
    {ErrorCode::kTableNotFound, "TableNotFound", StatusCode::kNotFound},
    {ErrorCode::kTableAlreadyExists, "TableAlreadyExists", StatusCode::kAlreadyExists},
    {ErrorCode::kTableIndexNotFound, "TableIndexNotFound", StatusCode::kNotFound},
    {ErrorCode::kTableIndexAlreadyExists, "TableIndexAlreadyExists",
     StatusCode::kAlreadyExists},
    {ErrorCode::kTableTagNotFound, "TableTagNotFound", StatusCode::kNotFound},
    {ErrorCode::kTableTagAlreadyExists, "TableTagAlreadyExists",
     StatusCode::kAlreadyExists},
    {ErrorCode::kTransactionNotFound, "TransactionNotFound", StatusCode::kNotFound},
    {ErrorCode::kTableVersionNotFound, "TableVersionNotFound", StatusCode::kNotFound},
    {ErrorCode::kTableColumnNotFound, "TableColumnNotFound", StatusCode::kNotFound},
    {ErrorCode::kInvalidInput, "InvalidInput", StatusCode::kInvalid},
    {ErrorCode::kConcurrentModification, "ConcurrentModification", StatusCode::kConflict},
    {ErrorCode::kPermissionDenied, "PermissionDenied", StatusCode::kForbidden},
    {ErrorCode::kUnauthenticated, "Unauthenticated", StatusCode::kUnauthorized},
    {ErrorCode::kServiceUnavailable, "ServiceUnavailable", StatusCode::kUnavailable},
    {ErrorCode::kInternal, "Internal", StatusCode::kUnknown},
    {ErrorCode::kInvalidTableState, "InvalidTableState", StatusCode::kConflict},
    {ErrorCode::kTableSchemaValidationError, "TableSchemaValidationError",
     StatusCode::kInvalid},
    {ErrorCode::kThrottling, "Throttling", StatusCode::kUnavailable},
    {ErrorCode::kTableBranchNotFound, "TableBranchNotFound", StatusCode::kNotFound},
    {ErrorCode::kTableBranchAlreadyExists, "TableBranchAlreadyExists",
     StatusCode::kAlreadyExists},
}};

const CodeInfo* Find(ErrorCode code) {
  for (const CodeInfo& info : kCodes) {
    if (info.code == code) return &info;
  }
  return nullptr;
}

}  // namespace

std::string_view ErrorCodeName(ErrorCode code) {
  const CodeInfo* info = Find(code);
  return info ? info->name : "Internal";
}

std::optional<ErrorCode> ErrorCodeFromName(std::string_view name) {
  for (const CodeInfo& info : kCodes) {
    if (info.name == name) return info.code;
  }
  return std::nullopt;
}

StatusCode StatusCodeFor(ErrorCode code) {
  const CodeInfo* info = Find(code);
  return info ? info->status : StatusCode::kUnknown;
}

std::string NamespaceErrorDetail::ToString() const {
  return StrCat("namespace error ", ErrorCodeName(code_), " (", static_cast<int>(code_),
                ")");
}

Status NamespaceError(ErrorCode code, std::string_view message) {
  const StatusCode status = StatusCodeFor(code);
  // Throttling and unavailability are worth retrying; nothing else is.
  const bool retryable = status == StatusCode::kUnavailable;
  return Status(status, StrCat(ErrorCodeName(code), ": ", message), retryable,
                std::make_shared<const NamespaceErrorDetail>(code));
}

ErrorCode NamespaceErrorCode(const Status& status) {
  if (const auto* detail = status.detail_as<NamespaceErrorDetail>())
    return detail->code();
  switch (status.code()) {
    case StatusCode::kNotImplemented:
      return ErrorCode::kUnsupported;
    case StatusCode::kInvalid:
      return ErrorCode::kInvalidInput;
    case StatusCode::kConflict:
      return ErrorCode::kConcurrentModification;
    case StatusCode::kForbidden:
      return ErrorCode::kPermissionDenied;
    case StatusCode::kUnauthorized:
    case StatusCode::kTokenExpired:
      return ErrorCode::kUnauthenticated;
    case StatusCode::kUnavailable:
      return ErrorCode::kServiceUnavailable;
    default:
      return ErrorCode::kInternal;
  }
}

// -- Defaults
// -----------------------------------------------------------------------------

Status LanceNamespace::Unsupported(std::string_view op) const {
  std::string message(op);
  message += " is not supported by ";
  message += namespace_id();
  return NamespaceError(ErrorCode::kUnsupported, message);
}

std::shared_ptr<LanceNamespace> LanceNamespace::WithVendPermissionCap(VendPermission) {
  return nullptr;
}

Result<ListNamespacesResponse> LanceNamespace::ListNamespaces(
    const ListNamespacesRequest&) {
  return Unsupported("list_namespaces");
}
Result<DescribeNamespaceResponse> LanceNamespace::DescribeNamespace(
    const DescribeNamespaceRequest&) {
  return Unsupported("describe_namespace");
}
Result<CreateNamespaceResponse> LanceNamespace::CreateNamespace(
    const CreateNamespaceRequest&) {
  return Unsupported("create_namespace");
}
Result<DropNamespaceResponse> LanceNamespace::DropNamespace(const DropNamespaceRequest&) {
  return Unsupported("drop_namespace");
}
Status LanceNamespace::NamespaceExists(const NamespaceExistsRequest&) {
  return Unsupported("namespace_exists");
}
Result<ListTablesResponse> LanceNamespace::ListTables(const ListTablesRequest&) {
  return Unsupported("list_tables");
}
Result<DescribeTableResponse> LanceNamespace::DescribeTable(const DescribeTableRequest&) {
  return Unsupported("describe_table");
}
Result<DeclareTableResponse> LanceNamespace::DeclareTable(const DeclareTableRequest&) {
  return Unsupported("declare_table");
}
Result<CreateEmptyTableResponse> LanceNamespace::CreateEmptyTable(
    const CreateEmptyTableRequest&) {
  return Unsupported("create_empty_table");
}
Result<RegisterTableResponse> LanceNamespace::RegisterTable(const RegisterTableRequest&) {
  return Unsupported("register_table");
}
Result<DeregisterTableResponse> LanceNamespace::DeregisterTable(
    const DeregisterTableRequest&) {
  return Unsupported("deregister_table");
}
Status LanceNamespace::TableExists(const TableExistsRequest&) {
  return Unsupported("table_exists");
}
Result<DropTableResponse> LanceNamespace::DropTable(const DropTableRequest&) {
  return Unsupported("drop_table");
}

Result<CreateTableResponse> LanceNamespace::CreateTable(const CreateTableRequest&,
                                                        std::string_view) {
  return Unsupported("create_table");
}
Result<RenameTableResponse> LanceNamespace::RenameTable(const RenameTableRequest&) {
  return Unsupported("rename_table");
}
Result<ListAllTablesResponse> LanceNamespace::ListAllTables(const ListAllTablesRequest&) {
  return Unsupported("list_all_tables");
}
Result<int64_t> LanceNamespace::CountTableRows(const CountTableRowsRequest&) {
  return Unsupported("count_table_rows");
}
Result<InsertIntoTableResponse> LanceNamespace::InsertIntoTable(
    const InsertIntoTableRequest&, std::string_view) {
  return Unsupported("insert_into_table");
}
Result<MergeInsertIntoTableResponse> LanceNamespace::MergeInsertIntoTable(
    const MergeInsertIntoTableRequest&, std::string_view) {
  return Unsupported("merge_insert_into_table");
}
Result<DeleteFromTableResponse> LanceNamespace::DeleteFromTable(
    const DeleteFromTableRequest&) {
  return Unsupported("delete_from_table");
}
Result<UpdateTableResponse> LanceNamespace::UpdateTable(const UpdateTableRequest&) {
  return Unsupported("update_table");
}
Result<std::string> LanceNamespace::QueryTable(const QueryTableRequest&) {
  return Unsupported("query_table");
}
Result<AlterTableAddColumnsResponse> LanceNamespace::AlterTableAddColumns(
    const AlterTableAddColumnsRequest&) {
  return Unsupported("alter_table_add_columns");
}
Result<AlterTableAlterColumnsResponse> LanceNamespace::AlterTableAlterColumns(
    const AlterTableAlterColumnsRequest&) {
  return Unsupported("alter_table_alter_columns");
}
Result<AlterTableDropColumnsResponse> LanceNamespace::AlterTableDropColumns(
    const AlterTableDropColumnsRequest&) {
  return Unsupported("alter_table_drop_columns");
}
Result<UpdateTableSchemaMetadataResponse> LanceNamespace::UpdateTableSchemaMetadata(
    const UpdateTableSchemaMetadataRequest&) {
  return Unsupported("update_table_schema_metadata");
}
Result<GetTableStatsResponse> LanceNamespace::GetTableStats(const GetTableStatsRequest&) {
  return Unsupported("get_table_stats");
}
Result<ListTableVersionsResponse> LanceNamespace::ListTableVersions(
    const ListTableVersionsRequest&) {
  return Unsupported("list_table_versions");
}
Result<DescribeTableVersionResponse> LanceNamespace::DescribeTableVersion(
    const DescribeTableVersionRequest&) {
  return Unsupported("describe_table_version");
}
Result<RestoreTableResponse> LanceNamespace::RestoreTable(const RestoreTableRequest&) {
  return Unsupported("restore_table");
}
Result<ListTableTagsResponse> LanceNamespace::ListTableTags(const ListTableTagsRequest&) {
  return Unsupported("list_table_tags");
}
Result<CreateTableTagResponse> LanceNamespace::CreateTableTag(
    const CreateTableTagRequest&) {
  return Unsupported("create_table_tag");
}
Result<DeleteTableTagResponse> LanceNamespace::DeleteTableTag(
    const DeleteTableTagRequest&) {
  return Unsupported("delete_table_tag");
}
Result<GetTableTagVersionResponse> LanceNamespace::GetTableTagVersion(
    const GetTableTagVersionRequest&) {
  return Unsupported("get_table_tag_version");
}
Result<UpdateTableTagResponse> LanceNamespace::UpdateTableTag(
    const UpdateTableTagRequest&) {
  return Unsupported("update_table_tag");
}
Result<DescribeTransactionResponse> LanceNamespace::DescribeTransaction(
    const DescribeTransactionRequest&) {
  return Unsupported("describe_transaction");
}
Result<AlterTransactionResponse> LanceNamespace::AlterTransaction(
    const AlterTransactionRequest&) {
  return Unsupported("alter_transaction");
}

// -- Helpers
// ------------------------------------------------------------------------------

Result<std::shared_ptr<LanceNamespace>> ConnectNamespace(const std::string& impl,
                                                         const Properties& properties) {
  if (impl == "dir" || impl == "directory" || impl == "DirectoryNamespace") {
    LANCE_ASSIGN_OR_RAISE(auto dir, DirectoryNamespace::FromProperties(properties));
    return std::static_pointer_cast<LanceNamespace>(dir);
  }
  if (impl == "rest" || impl == "RestNamespace") {
    LANCE_ASSIGN_OR_RAISE(auto rest, RestNamespace::FromProperties(properties));
    return std::static_pointer_cast<LanceNamespace>(rest);
  }
  return Status::NotImplemented("namespace implementation '" + impl +
                                "' is not available (known: dir, rest)");
}

std::string JoinIdentifier(const Identifier& id, std::string_view delimiter) {
  std::string out;
  for (size_t i = 0; i < id.size(); ++i) {
    if (i > 0) out += delimiter;
    out += id[i];
  }
  return out;
}

std::optional<std::string> Paginate(std::vector<std::string>* names,
                                    const std::optional<std::string>& page_token,
                                    const std::optional<int32_t>& limit) {
  std::sort(names->begin(), names->end());
  names->erase(std::unique(names->begin(), names->end()), names->end());
  if (page_token) {
    auto first = std::upper_bound(names->begin(), names->end(), *page_token);
    names->erase(names->begin(), first);
  }
  if (limit && *limit >= 0 && names->size() > static_cast<size_t>(*limit)) {
    std::optional<std::string> next;
    if (*limit > 0) next = (*names)[*limit - 1];
    names->resize(*limit);
    return next;
  }
  return std::nullopt;
}

}  // namespace lance::ns
