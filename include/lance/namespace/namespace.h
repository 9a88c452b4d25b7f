// SPDX-License-Identifier: Apache-2.0
/// \file namespace.h
/// \brief LanceNamespace: the Lance Namespace API (a catalog of namespaces and tables),
/// its request/response types and its error kinds.
///
/// Shaped after Lance's `LanceNamespace` trait (rust/lance-namespace) and the Lance
/// Namespace spec (lance-namespace `docs/src/rest.yaml`): operations take a request
/// struct and return a response struct whose fields carry the spec's JSON names (`id`,
/// `location`, `storage_options`, `version`, `page_token`, ...), so that a REST layer
/// maps them one to one. Optional spec fields are std::optional here; an absent field
/// is "not sent".
///
/// Every operation except namespace_id() has a default that returns NotImplemented with
/// the spec error kind Unsupported ("<op> is not supported by <namespace_id>"); callers
/// handle that (a writer falls back from declare_table to create_empty_table, as Lance
/// does).
///
/// Errors: a failed operation returns a lance::Status whose code is one of the generic
/// codes (NotFound, AlreadyExists, Invalid, NotImplemented, Conflict, ...), whose message
/// starts with the spec's error name for people ("TableNotFound: table id 'a$b'"), and
/// which carries a NamespaceErrorDetail with the spec's code, so that
/// NamespaceErrorCode() recovers it (for the REST layer and the Python exceptions) while
/// generic callers keep deciding on Status codes.

#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lance/namespace/operation_signature.h"
#include "lance/result.h"
#include "lance/status.h"

namespace lance::ns {

/// \brief A namespace or table identifier: its levels, outermost first. The root
/// namespace is the empty id; a table in the root is a one-element id.
using Identifier = std::vector<std::string>;
/// \brief String properties (namespace/table properties, storage options).
using Properties = std::map<std::string, std::string>;

// -- Errors
// -------------------------------------------------------------------------------

/// \brief The Lance Namespace spec's error codes (lance-namespace
/// `docs/src/client/operations/errors.md`; python `lance_namespace.errors.ErrorCode`).
/// The numeric values are the spec's and are what a REST server sends.
enum class ErrorCode : int {
  kUnsupported = 0,
  kNamespaceNotFound = 1,
  kNamespaceAlreadyExists = 2,
  kNamespaceNotEmpty = 3,
  kTableNotFound = 4,
  kTableAlreadyExists = 5,
  kTableIndexNotFound = 6,
  kTableIndexAlreadyExists = 7,
  kTableTagNotFound = 8,
  kTableTagAlreadyExists = 9,
  kTransactionNotFound = 10,
  kTableVersionNotFound = 11,
  kTableColumnNotFound = 12,
  kInvalidInput = 13,
  kConcurrentModification = 14,
  kPermissionDenied = 15,
  kUnauthenticated = 16,
  kServiceUnavailable = 17,
  kInternal = 18,
  kInvalidTableState = 19,
  kTableSchemaValidationError = 20,
  kThrottling = 21,
  kTableBranchNotFound = 22,
  kTableBranchAlreadyExists = 23,
};

/// \brief The spec's name of a code: "TableNotFound", "InvalidInput", ...
std::string_view ErrorCodeName(ErrorCode code);

/// \brief The code named `name` (as ErrorCodeName prints it). \return nullopt if none.
std::optional<ErrorCode> ErrorCodeFromName(std::string_view name);

/// \brief The generic Status code an error kind maps to: *NotFound -> NotFound,
/// *AlreadyExists -> AlreadyExists, InvalidInput / TableSchemaValidationError ->
/// Invalid, Unsupported -> NotImplemented, NamespaceNotEmpty / ConcurrentModification /
/// InvalidTableState -> Conflict, PermissionDenied -> Forbidden, Unauthenticated ->
/// Unauthorized, ServiceUnavailable / Throttling -> Unavailable (retryable), Internal ->
/// Unknown.
StatusCode StatusCodeFor(ErrorCode code);

/// \brief The spec error kind of a Status made by NamespaceError. Survives WithContext
/// (and every copy of the Status); it is the only thing NamespaceErrorCode reads.
class NamespaceErrorDetail final : public StatusDetail {
 public:
  explicit NamespaceErrorDetail(ErrorCode code) : code_(code) {}
  ErrorCode code() const { return code_; }
  std::string_view type_id() const override { return "lance::ns::NamespaceErrorDetail"; }
  /// \brief "namespace error <Name> (<number>)".
  std::string ToString() const override;

 private:
  ErrorCode code_;
};

/// \brief A Status of kind `code`: StatusCodeFor(code), message "<Name>: <message>",
/// detail NamespaceErrorDetail{code}; retryable for ServiceUnavailable and Throttling.
Status NamespaceError(ErrorCode code, std::string_view message);

/// \brief The spec error kind of a failed Status: its NamespaceErrorDetail when it has
/// one, else derived from the generic code (NotImplemented -> Unsupported, Invalid ->
/// InvalidInput, Conflict -> ConcurrentModification, Forbidden -> PermissionDenied,
/// Unauthorized / TokenExpired -> Unauthenticated, Unavailable -> ServiceUnavailable,
/// anything else -> Internal). The message text is never read: a message that merely
/// contains "TableNotFound: " says nothing. REQUIRES: !status.ok().
ErrorCode NamespaceErrorCode(const Status& status);

// -- Requests and responses (spec field names)
// --------------------------------------------

struct ListNamespacesRequest {
  /// \brief The parent namespace (empty: the root).
  Identifier id = {};
  /// \brief Start after this name (the previous page's page_token).
  std::optional<std::string> page_token = {};
  /// \brief Most names in the page; absent: all.
  std::optional<int32_t> limit = {};
};
struct ListNamespacesResponse {
  /// \brief Names of the direct children (one level, not full ids), sorted.
  std::vector<std::string> namespaces = {};
  /// \brief Set when more names follow: pass it as the next request's page_token.
  std::optional<std::string> page_token = {};
};

struct DescribeNamespaceRequest {
  Identifier id = {};
};
struct DescribeNamespaceResponse {
  std::optional<Properties> properties = {};
};

struct CreateNamespaceRequest {
  Identifier id = {};
  /// \brief "create" (default: fail if it exists), "exist_ok" or "overwrite"
  /// (case-insensitive; "existok" accepted).
  std::optional<std::string> mode = {};
  std::optional<Properties> properties = {};
};
struct CreateNamespaceResponse {
  std::optional<std::string> transaction_id = {};
  std::optional<Properties> properties = {};
};

struct DropNamespaceRequest {
  Identifier id = {};
  /// \brief "fail" (default: NamespaceNotFound if missing) or "skip".
  std::optional<std::string> mode = {};
  /// \brief "restrict" (default: NamespaceNotEmpty if it has children) or "cascade".
  std::optional<std::string> behavior = {};
};
struct DropNamespaceResponse {
  std::optional<Properties> properties = {};
  /// \brief A list in the spec (unlike every other response's transaction_id).
  std::optional<std::vector<std::string>> transaction_id = {};
};

struct NamespaceExistsRequest {
  Identifier id = {};
};

struct ListTablesRequest {
  /// \brief The namespace whose tables are listed (empty: the root).
  Identifier id = {};
  std::optional<std::string> page_token = {};
  std::optional<int32_t> limit = {};
  /// \brief Whether declared tables without any version are listed (default true).
  std::optional<bool> include_declared = {};
};
struct ListTablesResponse {
  /// \brief Table names (last id level), sorted.
  std::vector<std::string> tables = {};
  std::optional<std::string> page_token = {};
};

struct DescribeTableRequest {
  Identifier id = {};
  /// \brief A version to describe (used with load_detailed_metadata).
  std::optional<int64_t> version = {};
  /// \brief Open the table to report its version (default false: location only).
  std::optional<bool> load_detailed_metadata = {};
  /// \brief Report whether the table is only declared (no version yet).
  std::optional<bool> check_declared = {};
  /// \brief Return storage options (default true).
  std::optional<bool> vend_credentials = {};
};
struct DescribeTableResponse {
  std::optional<std::string> table = {};
  std::optional<Identifier> namespace_ = {};  ///< JSON "namespace"
  /// \brief Set only when the table was opened (load_detailed_metadata).
  std::optional<int64_t> version = {};
  std::optional<std::string> location = {};
  std::optional<std::string> table_uri = {};
  /// \brief Options a client needs to access `location` (temporary credentials carry
  /// `expires_at_millis`).
  std::optional<Properties> storage_options = {};
  std::optional<Properties> properties = {};
  std::optional<Properties> metadata = {};
  std::optional<bool> is_only_declared = {};
};

struct DeclareTableRequest {
  Identifier id = {};
  /// \brief If set, must equal the location the namespace assigns.
  std::optional<std::string> location = {};
  std::optional<bool> vend_credentials = {};
  std::optional<Properties> properties = {};
};
struct DeclareTableResponse {
  std::optional<std::string> transaction_id = {};
  std::optional<std::string> location = {};
  std::optional<Properties> storage_options = {};
  std::optional<Properties> properties = {};
};

/// \brief Deprecated by the spec in favour of DeclareTable; kept as the fallback.
struct CreateEmptyTableRequest {
  Identifier id = {};
  std::optional<std::string> location = {};
  std::optional<bool> vend_credentials = {};
  std::optional<Properties> properties = {};
};
struct CreateEmptyTableResponse {
  std::optional<std::string> transaction_id = {};
  std::optional<std::string> location = {};
  std::optional<Properties> storage_options = {};
  std::optional<Properties> properties = {};
};

struct RegisterTableRequest {
  Identifier id = {};
  /// \brief Required by the spec.
  std::string location = {};
  std::optional<std::string> mode = {};
  std::optional<Properties> properties = {};
};
struct RegisterTableResponse {
  std::optional<std::string> transaction_id = {};
  std::optional<std::string> location = {};
  std::optional<Properties> properties = {};
};

struct DeregisterTableRequest {
  Identifier id = {};
};
struct DeregisterTableResponse {
  std::optional<std::string> transaction_id = {};
  std::optional<Identifier> id = {};
  std::optional<std::string> location = {};
  std::optional<Properties> properties = {};
};

struct TableExistsRequest {
  Identifier id = {};
  std::optional<int64_t> version = {};
};

struct DropTableRequest {
  Identifier id = {};
};
struct DropTableResponse {
  std::optional<std::string> transaction_id = {};
  std::optional<Identifier> id = {};
  std::optional<std::string> location = {};
  std::optional<Properties> properties = {};
};

// -- Table data, schema, version, tag and transaction operations (spec 0.13.0 models)
// ------
// Operations whose spec request carries an Arrow IPC stream take it as `data` (the
// stream's bytes); query_table answers with Arrow IPC stream bytes (as Lance's
// `Bytes`). Every field keeps the spec's JSON name; `branch` fields are accepted and
// must be absent or "main" (Unsupported otherwise: the core has no branches).

/// \brief A JSON value the core passes through without interpreting it (the spec's
/// free-form objects: an alteration's `data_type`, a transaction's actions): `json` is
/// its compact text.
struct JsonValue {
  std::string json = {};
  bool operator==(const JsonValue&) const = default;
};

struct CreateTableRequest {
  Identifier id = {};
  /// \brief "create" (default), "exist_ok" or "overwrite" (case-insensitive).
  std::optional<std::string> mode = {};
  std::optional<Properties> properties = {};
  std::optional<Properties> storage_options = {};
};
struct CreateTableResponse {
  std::optional<std::string> transaction_id = {};
  std::optional<std::string> location = {};
  std::optional<int64_t> version = {};
  std::optional<Properties> storage_options = {};
  std::optional<Properties> properties = {};
};

struct RenameTableRequest {
  Identifier id = {};
  std::string new_table_name = {};
  /// \brief The namespace of the renamed table (absent: the table's own).
  std::optional<Identifier> new_namespace_id = {};
};
struct RenameTableResponse {
  std::optional<std::string> transaction_id = {};
};

struct ListAllTablesRequest {
  std::optional<std::string> page_token = {};
  std::optional<int32_t> limit = {};
};
/// \brief Full table ids joined with the delimiter ("ns$t"), sorted.
/// \brief The same fields as ListTablesResponse (a type of its own, so that each
/// operation of operations.def has its own response model).
struct ListAllTablesResponse : ListTablesResponse {};

struct CountTableRowsRequest {
  Identifier id = {};
  std::optional<int64_t> version = {};
  std::optional<std::string> branch = {};
  /// \brief A filter (Lance SQL); absent: every row.
  std::optional<std::string> predicate = {};
};

struct InsertIntoTableRequest {
  Identifier id = {};
  std::optional<std::string> branch = {};
  /// \brief "append" (default) or "overwrite" (case-insensitive).
  std::optional<std::string> mode = {};
};
struct InsertIntoTableResponse {
  std::optional<std::string> transaction_id = {};
  std::optional<int64_t> num_inserted_rows = {};
  std::optional<int64_t> version = {};
};

struct MergeInsertIntoTableRequest {
  Identifier id = {};
  std::optional<std::string> branch = {};
  /// \brief Key columns (required, non-empty).
  std::optional<std::vector<std::string>> on = {};
  std::optional<bool> when_matched_update_all = {};
  std::optional<std::string> when_matched_update_all_filt = {};
  std::optional<bool> when_not_matched_insert_all = {};
  std::optional<bool> when_not_matched_by_source_delete = {};
  std::optional<std::string> when_not_matched_by_source_delete_filt = {};
  /// \brief Retry timeout, e.g. "30s" / "500ms".
  std::optional<std::string> timeout = {};
  std::optional<bool> use_index = {};
};
struct MergeInsertIntoTableResponse {
  std::optional<std::string> transaction_id = {};
  std::optional<int64_t> num_updated_rows = {};
  std::optional<int64_t> num_inserted_rows = {};
  std::optional<int64_t> num_deleted_rows = {};
  std::optional<int64_t> version = {};
};

struct DeleteFromTableRequest {
  Identifier id = {};
  std::optional<std::string> branch = {};
  /// \brief Required by the spec.
  std::string predicate = {};
};
struct DeleteFromTableResponse {
  std::optional<std::string> transaction_id = {};
  std::optional<int64_t> version = {};
};

struct UpdateTableRequest {
  Identifier id = {};
  std::optional<std::string> branch = {};
  std::optional<std::string> predicate = {};
  /// \brief [column, SQL expression] pairs (required by the spec).
  std::vector<std::vector<std::string>> updates = {};
  std::optional<Properties> properties = {};
};
struct UpdateTableResponse {
  std::optional<std::string> transaction_id = {};
  int64_t updated_rows = 0;
  int64_t version = 0;
  std::optional<Properties> properties = {};
};

struct QueryTableRequestColumns {
  std::optional<std::vector<std::string>> column_names = {};
  /// \brief output name -> SQL expression.
  std::optional<Properties> column_aliases = {};
};
struct QueryTableRequestVector {
  std::optional<std::vector<double>> single_vector = {};
  std::optional<std::vector<std::vector<double>>> multi_vector = {};
};
/// \brief A scan (filter, columns, k = limit, offset, version, with_row_id). Vector and
/// full-text search are Unsupported until the core has indices: a request whose vector
/// is non-empty is refused.
struct QueryTableRequest {
  Identifier id = {};
  std::optional<std::string> branch = {};
  std::optional<QueryTableRequestColumns> columns = {};
  std::optional<std::string> filter = {};
  /// \brief Most rows returned (the spec requires it; 0 = no limit here).
  int64_t k = 0;
  std::optional<int64_t> offset = {};
  std::optional<int64_t> version = {};
  std::optional<bool> with_row_id = {};
  std::optional<QueryTableRequestVector> vector = {};
  std::optional<std::string> vector_column = {};
  std::optional<bool> prefilter = {};
  std::optional<bool> fast_search = {};
  std::optional<bool> bypass_vector_index = {};
};

struct AddColumnsEntry {
  std::string name = {};
  /// \brief A SQL expression over the existing columns.
  std::optional<std::string> expression = {};
};
struct AlterTableAddColumnsRequest {
  Identifier id = {};
  std::optional<std::string> branch = {};
  std::vector<AddColumnsEntry> new_columns = {};
};
struct AlterTableAddColumnsResponse {
  int64_t version = 0;
};

struct AlterColumnsEntry {
  std::string path = {};
  /// \brief The spec's JsonArrowDataType object, e.g. {"type": "int64"}.
  std::optional<JsonValue> data_type = {};
  std::optional<std::string> rename = {};
  std::optional<bool> nullable = {};
};
struct AlterTableAlterColumnsRequest {
  Identifier id = {};
  std::optional<std::string> branch = {};
  std::vector<AlterColumnsEntry> alterations = {};
};
struct AlterTableAlterColumnsResponse {
  int64_t version = 0;
};

struct AlterTableDropColumnsRequest {
  Identifier id = {};
  std::optional<std::string> branch = {};
  std::vector<std::string> columns = {};
};
struct AlterTableDropColumnsResponse {
  std::optional<std::string> transaction_id = {};
  int64_t version = 0;
};

struct UpdateTableSchemaMetadataRequest {
  Identifier id = {};
  std::optional<std::string> branch = {};
  std::optional<Properties> metadata = {};
};
struct UpdateTableSchemaMetadataResponse {
  std::optional<Properties> metadata = {};
  std::optional<std::string> transaction_id = {};
};

struct FragmentSummary {
  int64_t min = 0;
  int64_t max = 0;
  int64_t mean = 0;
  int64_t p25 = 0;
  int64_t p50 = 0;
  int64_t p75 = 0;
  int64_t p99 = 0;
};
struct FragmentStats {
  int64_t num_fragments = 0;
  int64_t num_small_fragments = 0;
  FragmentSummary lengths = {};
};
struct GetTableStatsRequest {
  Identifier id = {};
  std::optional<std::string> branch = {};
};
struct GetTableStatsResponse {
  int64_t total_bytes = 0;
  int64_t num_rows = 0;
  int64_t num_indices = 0;
  FragmentStats fragment_stats = {};
};

struct TableVersion {
  int64_t version = 0;
  std::string manifest_path = {};
  std::optional<int64_t> manifest_size = {};
  std::optional<std::string> e_tag = {};
  std::optional<int64_t> timestamp_millis = {};
  std::optional<Properties> metadata = {};
};
struct ListTableVersionsRequest {
  Identifier id = {};
  std::optional<std::string> branch = {};
  std::optional<std::string> page_token = {};
  std::optional<int32_t> limit = {};
  std::optional<bool> descending = {};
};
struct ListTableVersionsResponse {
  std::vector<TableVersion> versions = {};
  std::optional<std::string> page_token = {};
};
struct DescribeTableVersionRequest {
  Identifier id = {};
  /// \brief Absent: the latest.
  std::optional<int64_t> version = {};
  std::optional<std::string> branch = {};
};
struct DescribeTableVersionResponse {
  TableVersion version = {};
};
struct RestoreTableRequest {
  Identifier id = {};
  int64_t version = 0;
  std::optional<std::string> branch = {};
};
struct RestoreTableResponse {
  std::optional<std::string> transaction_id = {};
};

struct TagContents {
  std::optional<std::string> branch = {};
  int64_t version = 0;
  int64_t manifest_size = 0;  ///< JSON "manifestSize"
};
struct ListTableTagsRequest {
  Identifier id = {};
  std::optional<std::string> page_token = {};
  std::optional<int32_t> limit = {};
};
struct ListTableTagsResponse {
  std::map<std::string, TagContents> tags = {};
  std::optional<std::string> page_token = {};
};
struct CreateTableTagRequest {
  Identifier id = {};
  std::string tag = {};
  int64_t version = 0;
  std::optional<std::string> branch = {};
};
struct CreateTableTagResponse {
  std::optional<std::string> transaction_id = {};
};
struct DeleteTableTagRequest {
  Identifier id = {};
  std::string tag = {};
};
struct DeleteTableTagResponse {
  std::optional<std::string> transaction_id = {};
};
struct GetTableTagVersionRequest {
  Identifier id = {};
  std::string tag = {};
};
struct GetTableTagVersionResponse {
  int64_t version = 0;
  std::optional<std::string> branch = {};
};
struct UpdateTableTagRequest {
  Identifier id = {};
  std::string tag = {};
  int64_t version = 0;
  std::optional<std::string> branch = {};
};
struct UpdateTableTagResponse {
  std::optional<std::string> transaction_id = {};
};

/// \brief A transaction of a table: `id` is the table id followed by the transaction's
/// uuid (the `transaction_id` a write returned, also the name of its
/// `_transactions/<read_version>-<uuid>.txn` file).
struct DescribeTransactionRequest {
  Identifier id = {};
};
struct DescribeTransactionResponse {
  /// \brief "SUCCEEDED" for a committed transaction (the only kind a directory
  /// namespace knows).
  std::string status = {};
  /// \brief operation, read_version, version (of the commit), uuid.
  std::optional<Properties> properties = {};
};
struct AlterTransactionRequest {
  Identifier id = {};
  /// \brief The spec's action objects (setStatusAction, ...): no core namespace alters
  /// transactions (committed ones are immutable).
  std::vector<JsonValue> actions = {};
};
/// \brief The same fields as DescribeTransactionResponse (a type of its own, as above).
struct AlterTransactionResponse : DescribeTransactionResponse {};

// -- The interface
// ------------------------------------------------------------------------

/// \brief What vended credentials may do (Lance's `credential_vendor.permission`), and
/// what a REST server's caller may do: read = list + get; write = read + put; admin =
/// write + delete. Ordered: a larger value allows more.
enum class VendPermission { kRead, kWrite, kAdmin };

/// \brief A Lance Namespace: a catalog of namespaces and tables.
///
/// Implementations must be thread-safe: every operation may be called concurrently.
/// Defaults return NotImplemented / Unsupported, so an implementation overrides what it
/// supports.
class LanceNamespace {
 public:
  virtual ~LanceNamespace() = default;

  /// \brief A readable identity, e.g. `DirectoryNamespace { root: "/data" }` (Lance's
  /// format). Part of LanceNamespaceStorageOptionsProvider::provider_id(), hence of store
  /// cache keys. Never contains a secret.
  virtual std::string namespace_id() const = 0;

  // Every operation of operations.def (the one list; its comments say what each does):
  // `virtual Result<DescribeTableResponse> DescribeTable(const DescribeTableRequest&
  // request);` and so on, `std::string_view data` after the request for Arrow bodies.
#define LANCE_NS_OPERATION(Method, wire, Body, Reply, ...) \
  virtual LANCE_NS_RESULT(Method, Reply) Method(LANCE_NS_PARAMS(Method, Body));
#include "lance/namespace/operations.def"
#undef LANCE_NS_OPERATION

  /// \brief This namespace as seen by a caller allowed no more than `permission`: the
  /// same tables and operations, but credentials it vends never allow more than
  /// `permission` (a REST server serves each API key through such a view). The default
  /// is null: the namespace cannot narrow what it vends, and a server then withholds
  /// vended credentials from callers below admin.
  virtual std::shared_ptr<LanceNamespace> WithVendPermissionCap(
      VendPermission permission);

 protected:
  /// \brief The default answer: NotImplemented, "Unsupported: <op> is not supported by
  /// <namespace_id()>".
  Status Unsupported(std::string_view op) const;
};

/// \brief Builds a namespace from Lance's connect arguments: `impl` "dir" (or its
/// spelled-out forms "directory", "DirectoryNamespace") with DirectoryNamespace
/// properties, or "rest" ("RestNamespace") with RestNamespace properties.
/// \return the namespace; Invalid for bad properties; NotImplemented for other impls.
Result<std::shared_ptr<LanceNamespace>> ConnectNamespace(const std::string& impl,
                                                         const Properties& properties);

/// \brief "a$b$c": the id joined with Lance's delimiter, for messages and manifest rows.
std::string JoinIdentifier(const Identifier& id, std::string_view delimiter = "$");

/// \brief Applies Lance's pagination to `names`: sorts them (dropping repeats, which
/// merged sources may produce), drops every name <= page_token, keeps `limit`
/// (absent or negative = no limit).
/// \return the next page token (the last kept name) when names were cut off by `limit`
/// (and limit > 0).
std::optional<std::string> Paginate(std::vector<std::string>* names,
                                    const std::optional<std::string>& page_token,
                                    const std::optional<int32_t>& limit);

}  // namespace lance::ns
