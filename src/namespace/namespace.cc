// SPDX-License-Identifier: Apache-2.0
#include "lance/namespace/namespace.h"

#include <algorithm>
#include <array>
#include <memory>
#include <utility>

#include "lance/core/enum_names.h"
#include "lance/macros.h"
#include "lance/namespace/directory_namespace.h"
#include "lance/namespace/operations.h"
#include "lance/namespace/rest_namespace.h"
#include "lance/str_cat.h"

namespace lance::ns {

namespace {

struct CodeInfo {
  ErrorCode code;
  std::string_view name;
  StatusCode status;
  /// The kind a Status of code `status` that carries no spec kind stands for (one row per
  /// such code; a code with none, e.g. NotFound, stands for Internal).
  bool plain = false;
};

// One table for the spec name and the generic code of every kind, both ways, so the
// mappings cannot drift apart.
constexpr std::array<CodeInfo, 24> kCodes = {{
    {ErrorCode::kUnsupported, "Unsupported", StatusCode::kNotImplemented, true},
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
    {ErrorCode::kInvalidInput, "InvalidInput", StatusCode::kInvalid, true},
    {ErrorCode::kConcurrentModification, "ConcurrentModification", StatusCode::kConflict,
     true},
    {ErrorCode::kPermissionDenied, "PermissionDenied", StatusCode::kForbidden, true},
    {ErrorCode::kUnauthenticated, "Unauthenticated", StatusCode::kUnauthorized, true},
    {ErrorCode::kServiceUnavailable, "ServiceUnavailable", StatusCode::kUnavailable,
     true},
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
  // An expired token fails authentication as a refused one does.
  const StatusCode code = status.code() == StatusCode::kTokenExpired
                              ? StatusCode::kUnauthorized
                              : status.code();
  for (const CodeInfo& info : kCodes) {
    if (info.plain && info.status == code) return info.code;
  }
  return ErrorCode::kInternal;
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

// Every operation: Unsupported, named with its spec name.
#define LANCE_NS_OPERATION(Method, wire, Body, Reply, ...)                               \
  LANCE_NS_RESULT(Method, Reply) LanceNamespace::Method(LANCE_NS_PARAMS(Method, Body)) { \
    return Unsupported(#wire);                                                           \
  }
#include "lance/namespace/operations.def"
#undef LANCE_NS_OPERATION

// -- The operation table
// -------------------------------------------------------------------

const std::vector<OperationInfo>& AllOperations() {
  static const std::vector<OperationInfo> kOperations = [] {
    std::vector<OperationInfo> out;
#define LANCE_NS_OPERATION(...) out.push_back(LANCE_NS_OPERATION_INFO(__VA_ARGS__));
#define LANCE_NS_UNBACKED_OPERATION(wire, Http, Area, route)                            \
  out.push_back(OperationInfo{#wire, #Http, LANCE_NS_AREA_(Area), route,                \
                              VendPermission::kWrite, false, false, RequestBody::kJson, \
                              ReplyBody::kModel, "", "", false});
#include "lance/namespace/operations.def"
#undef LANCE_NS_UNBACKED_OPERATION
#undef LANCE_NS_OPERATION
    return out;
  }();
  return kOperations;
}

// kTableGlobal's routes (e.g. /v1/table/{id}/...) sit under "table" too.
constexpr auto kAreaPathSegments = MakeEnumNames<OperationArea>(
    "namespace", "table", "transaction", "materialized_view", "table");
static_assert(kAreaPathSegments.size() == EnumCount(OperationArea::kTableGlobal));

std::string_view AreaPathSegment(OperationArea area) {
  return kAreaPathSegments.Name(area, "table");
}

bool OperationInfo::InQuery(std::string_view field) const {
  std::string_view rest = query_fields;
  while (!rest.empty()) {
    const size_t space = rest.find(' ');
    if (rest.substr(0, space) == field) return true;
    if (space == std::string_view::npos) break;
    rest.remove_prefix(space + 1);
  }
  return false;
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
