// SPDX-License-Identifier: Apache-2.0
// DirectoryNamespace: table data, schema, version, tag and transaction operations. Each
// finds its table as DescribeTable does (same lookup, same errors), opens its directory
// with the namespace's own (resolved) storage access, as DescribeTable's
// load_detailed_metadata does, and runs the core's Dataset operation on it. create_table,
// rename_table and list_all_tables need the layout and `__manifest`, so they live in
// directory_namespace.cc.

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "lance/core/ascii.h"
#include "lance/core/buffer.h"
#include "lance/format/lance_schema.h"
#include "lance/io/object_store.h"
#include "lance/io/object_store_registry.h"
#include "lance/ipc/reader.h"
#include "lance/ipc/writer.h"
#include "lance/macros.h"
#include "lance/namespace/directory_namespace.h"
#include "namespace/directory_internal.h"
#include "namespace/manifest_table.h"

namespace lance::ns {

using internal::Quote;

// -- Shared helpers (declared in directory_internal.h)
// ---------------------------------------

namespace internal {

Result<TablePtr> ReadIpcRequest(std::string_view data, std::string_view what) {
  if (data.empty()) {
    return NamespaceError(ErrorCode::kInvalidInput,
                          std::string(what) +
                              ": request data (an Arrow IPC stream) is "
                              "required");
  }
  // A copy: the body of a request is not 8-byte aligned and must not be kept alive.
  LANCE_ASSIGN_OR_RAISE(BufferPtr bytes,
                        Buffer::CopyFrom(data.data(), static_cast<int64_t>(data.size())));
  auto table = ipc::ReadIpcStream(bytes);
  if (!table.ok()) {
    return NamespaceError(
        ErrorCode::kInvalidInput,
        std::string(what) + ": invalid Arrow IPC stream: " + table.status().message());
  }
  return *table;
}

std::unique_ptr<RecordBatchReader> TableReader(const TablePtr& table) {
  return RecordBatchReader::FromBatches(table->schema(), table->batches());
}

Status TableOpError(const Status& status, std::string_view what) {
  if (status.ok()) return status;
  if (status.detail_as<NamespaceErrorDetail>() != nullptr)
    return status.WithContext(what);
  std::string message = std::string(what) + ": " + status.message();
  if (status.IsInvalid()) return NamespaceError(ErrorCode::kInvalidInput, message);
  if (status.IsConflict()) {
    return NamespaceError(ErrorCode::kConcurrentModification, message);
  }
  return status.WithContext(what);
}

}  // namespace internal

namespace {

using internal::TableOpError;

std::string TableText(const Identifier& id) {
  return "table id " + Quote(JoinIdentifier(id, internal::kDelimiter));
}

/// `branch` fields: the core has no branches, only "main".
Status CheckBranch(const std::optional<std::string>& branch, std::string_view op) {
  if (!branch || *branch == "main") return Status::OK();
  return NamespaceError(ErrorCode::kUnsupported,
                        std::string(op) + " on branch " + Quote(*branch) +
                            ": branches are not supported (only 'main')");
}

Result<uint64_t> CheckedVersion(int64_t version, const Identifier& id) {
  if (version < 0) {
    return NamespaceError(
        ErrorCode::kInvalidInput,
        "negative version " + std::to_string(version) + " for " + TableText(id));
  }
  return static_cast<uint64_t>(version);
}

Status VersionNotFound(int64_t version, const Identifier& id) {
  return NamespaceError(
      ErrorCode::kTableVersionNotFound,
      "Version " + std::to_string(version) + " not found for " + TableText(id));
}

/// InvalidInput "<what>: <problem>", for a request the operation cannot take as it is.
Status InvalidRequest(std::string_view what, std::string_view problem) {
  return NamespaceError(ErrorCode::kInvalidInput,
                        std::string(what) + ": " + std::string(problem));
}

/// Opens the table `id` (at `version`, else the latest).
/// \return TableNotFound (also for a declared table without a version);
/// TableVersionNotFound; InvalidInput for a negative version.
Result<std::shared_ptr<Dataset>> OpenTable(DirectoryNamespace::Impl& impl,
                                           const Identifier& id,
                                           std::optional<int64_t> version = {}) {
  LANCE_ASSIGN_OR_RAISE(std::string uri, internal::TableUri(impl, id));
  OpenOptions open;
  open.access = internal::TableAccess(impl);
  if (version) {
    LANCE_ASSIGN_OR_RAISE(open.version, CheckedVersion(*version, id));
  }
  auto ds = Dataset::Open(uri, open);
  if (ds.ok()) return *ds;
  if (ds.status().IsNotFound()) {
    if (version) return VersionNotFound(*version, id);
    return NamespaceError(ErrorCode::kTableNotFound,
                          TableText(id) + " has no version yet (only declared)");
  }
  return TableOpError(ds.status(), "opening " + TableText(id));
}

/// Columns named by a request must exist (top-level names; dotted paths and "_rowid"
/// are left to the core).
Status CheckColumnsExist(const Dataset& ds, const std::vector<std::string>& columns,
                         const Identifier& id) {
  for (const std::string& column : columns) {
    if (column == "_rowid" || column.find('.') != std::string::npos) continue;
    if (ds.schema()->GetFieldIndex(column) < 0) {
      return NamespaceError(ErrorCode::kTableColumnNotFound,
                            "column " + Quote(column) + " not found in " + TableText(id));
    }
  }
  return Status::OK();
}

/// OpenTable, then CheckColumnsExist for the columns a request names.
Result<std::shared_ptr<Dataset>> OpenTableWithColumns(
    DirectoryNamespace::Impl& impl, const Identifier& id,
    const std::vector<std::string>& columns, std::optional<int64_t> version = {}) {
  LANCE_ASSIGN_OR_RAISE(auto ds, OpenTable(impl, id, version));
  LANCE_RETURN_NOT_OK(CheckColumnsExist(*ds, columns, id));
  return ds;
}

/// "30s", "500ms", "2m", "1.5s" or a bare number of seconds.
Result<double> ParseTimeoutSeconds(const std::string& text) {
  std::string number = text;
  double scale = 1.0;
  auto strip = [&](std::string_view suffix, double factor) {
    if (number.size() > suffix.size() &&
        number.compare(number.size() - suffix.size(), suffix.size(), suffix) == 0) {
      number.resize(number.size() - suffix.size());
      scale = factor;
      return true;
    }
    return false;
  };
  if (!strip("ms", 0.001) && !strip("s", 1.0) && !strip("m", 60.0)) strip("h", 3600.0);
  double value = 0;
  const char* end = number.data() + number.size();
  auto parsed = std::from_chars(number.data(), end, value);
  if (number.empty() || parsed.ec != std::errc() || parsed.ptr != end || value < 0) {
    return NamespaceError(
        ErrorCode::kInvalidInput,
        "invalid timeout " + Quote(text) + " (expected e.g. \"30s\" or \"500ms\")");
  }
  return value * scale;
}

/// The spec's JsonArrowDataType ({"type": "int64"}): Lance's names (lance-namespace
/// schema.rs: null, bool/boolean, [u]int8..64, float32/64, utf8, binary), then Lance's
/// logical type names ("string", "large_string", "double", "date32:day", ...).
Result<DataTypePtr> ParseJsonDataType(const JsonValue& value, std::string_view column) {
  auto json = nlohmann::json::parse(value.json, nullptr, /*allow_exceptions=*/false);
  const std::string what = "data_type of column " + Quote(column);
  if (json.is_discarded() || !json.is_object() || !json.contains("type") ||
      !json["type"].is_string()) {
    return NamespaceError(
        ErrorCode::kInvalidInput,
        what + " must be an object {\"type\": \"<name>\"}, got " + value.json);
  }
  std::string name = json["type"].get<std::string>();
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  static const std::map<std::string, DataTypePtr (*)()> kNames = {
      {"null", null},       {"bool", boolean},
      {"boolean", boolean}, {"int8", int8},
      {"uint8", uint8},     {"int16", int16},
      {"uint16", uint16},   {"int32", int32},
      {"uint32", uint32},   {"int64", int64},
      {"uint64", uint64},   {"float16", float16},
      {"float32", float32}, {"float64", float64},
      {"utf8", utf8},       {"large_utf8", large_utf8},
      {"binary", binary},   {"large_binary", large_binary},
      {"date32", date32},   {"date64", date64},
  };
  if (auto it = kNames.find(name); it != kNames.end()) return it->second();
  auto logical = format::DataTypeFromLogicalType(name);
  if (logical.ok()) return *logical;
  return NamespaceError(ErrorCode::kInvalidInput,
                        "unsupported " + what + ": " + Quote(name));
}

// -- Reading versions and transactions from the table's files
// ---------------------------------------
// The core does not expose transaction uuids or manifest file names, so they are read
// from `_versions/` and `_transactions/` with the table's store; only two protobuf
// fields are needed (Manifest.transaction_file = 12; Transaction.read_version = 1,
// uuid = 2, operation = the oneof field 100..199), read with a minimal wire scan.

bool ReadVarint(std::string_view bytes, size_t* pos, uint64_t* out) {
  uint64_t value = 0;
  for (int shift = 0; shift < 64 && *pos < bytes.size(); shift += 7) {
    const auto byte = static_cast<uint8_t>(bytes[(*pos)++]);
    value |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *out = value;
      return true;
    }
  }
  return false;
}

struct WireField {
  uint32_t number = 0;
  uint64_t varint = 0;          // wire type 0
  std::string_view bytes = {};  // wire type 2
};

/// The top-level fields of a protobuf message. \return false when malformed.
bool ScanMessage(std::string_view message, std::vector<WireField>* fields) {
  size_t pos = 0;
  while (pos < message.size()) {
    uint64_t key = 0;
    if (!ReadVarint(message, &pos, &key)) return false;
    WireField field;
    field.number = static_cast<uint32_t>(key >> 3);
    switch (key & 7) {
      case 0:
        if (!ReadVarint(message, &pos, &field.varint)) return false;
        break;
      case 1:
        if (message.size() - pos < 8) return false;
        pos += 8;
        break;
      case 2: {
        uint64_t length = 0;
        if (!ReadVarint(message, &pos, &length) || message.size() - pos < length) {
          return false;
        }
        field.bytes = message.substr(pos, length);
        pos += length;
        break;
      }
      case 5:
        if (message.size() - pos < 4) return false;
        pos += 4;
        break;
      default:
        return false;
    }
    fields->push_back(field);
  }
  return true;
}

uint64_t LoadLittleEndian(std::string_view bytes, size_t pos, int width) {
  uint64_t value = 0;
  for (int i = width - 1; i >= 0; --i) {
    value = (value << 8) | static_cast<uint8_t>(bytes[pos + static_cast<size_t>(i)]);
  }
  return value;
}

struct ManifestFile {
  uint64_t version = 0;
  std::string key;   // in the store
  std::string path;  // relative to the table: "_versions/<name>"
  int64_t size = 0;
};

/// The table's store (shared through the registry's cache) and its key.
Result<io::ResolvedLocation> TableStore(const Dataset& ds) {
  return io::ResolveObjectStore(ds.uri(), ds.storage_access());
}

std::string TableKey(const io::ResolvedLocation& table, std::string_view rel) {
  if (table.path.empty()) return std::string(rel);
  return table.path + "/" + std::string(rel);
}

/// Every `_versions/*.manifest`, ascending: V2 names are 20 digits holding
/// u64::MAX - version, V1 names the version itself.
Result<std::vector<ManifestFile>> ListManifestFiles(const io::ResolvedLocation& table) {
  LANCE_ASSIGN_OR_RAISE(io::ListResult listing,
                        table.store->ListAll(TableKey(table, "_versions/"), false));
  std::vector<ManifestFile> out;
  constexpr std::string_view kSuffix = ".manifest";
  for (const io::ObjectMeta& meta : listing.objects) {
    std::string_view name(meta.path);
    name =
        name.substr(name.rfind('/') == std::string_view::npos ? 0 : name.rfind('/') + 1);
    if (name.size() <= kSuffix.size() ||
        name.substr(name.size() - kSuffix.size()) != kSuffix) {
      continue;
    }
    const std::string_view digits = name.substr(0, name.size() - kSuffix.size());
    uint64_t number = 0;
    auto parsed = std::from_chars(digits.data(), digits.data() + digits.size(), number);
    if (parsed.ec != std::errc() || parsed.ptr != digits.data() + digits.size()) continue;
    ManifestFile file;
    file.version =
        digits.size() == 20 ? std::numeric_limits<uint64_t>::max() - number : number;
    file.key = meta.path;
    file.path = "_versions/" + std::string(name);
    file.size = meta.size;
    out.push_back(std::move(file));
  }
  std::sort(out.begin(), out.end(), [](const ManifestFile& a, const ManifestFile& b) {
    return a.version < b.version;
  });
  return out;
}

std::string OperationName(uint32_t field) {
  static constexpr std::string_view kNames[] = {"Append",
                                                "Delete",
                                                "Overwrite",
                                                "CreateIndex",
                                                "Rewrite",
                                                "Merge",
                                                "Restore",
                                                "ReserveFragments",
                                                "Update",
                                                "Project",
                                                "UpdateConfig",
                                                "DataReplacement",
                                                "UpdateMemWalState",
                                                "Clone",
                                                "UpdateBases",
                                                "DataOverlay"};
  if (field >= 100 && field - 100 < std::size(kNames)) {
    return std::string(kNames[field - 100]);
  }
  return "Unknown(" + std::to_string(field) + ")";
}

/// The transaction that committed a version.
struct CommittedTxn {
  std::string uuid;
  uint64_t read_version = 0;
  std::optional<std::string> operation;
};

/// Fills `txn` from a Transaction message.
void ReadTransactionMessage(std::string_view message, CommittedTxn* txn) {
  std::vector<WireField> fields;
  if (!ScanMessage(message, &fields)) return;
  for (const WireField& field : fields) {
    if (field.number == 1) txn->read_version = field.varint;
    if (field.number == 2) txn->uuid = std::string(field.bytes);
    if (field.number >= 100 && field.number < 200) {
      txn->operation = OperationName(field.number);
    }
  }
}

/// The transaction a manifest file records: inline (Manifest.transaction_section = 21,
/// a u32 length and the Transaction message) or as Manifest.transaction_file = 12
/// ("<read_version>-<uuid>.txn" under `_transactions/`, read for the operation only when
/// `with_operation`). nullopt when the manifest records none.
/// \return Corrupt for a manifest that does not decode; errors of the store.
Result<std::optional<CommittedTxn>> ReadCommittedTransaction(
    const io::ResolvedLocation& table, const std::string& key, std::string_view path,
    bool with_operation) {
  LANCE_ASSIGN_OR_RAISE(BufferPtr buffer, table.store->Read(key));
  const std::string_view bytes = buffer->ToStringView();
  constexpr size_t kFooter = 16;  // u64 manifest offset, u16 x2 version, "LANC"
  auto corrupt = [&]() {
    return Status::Corrupt("manifest " + std::string(path) + " does not decode");
  };
  if (bytes.size() < kFooter + 4 || bytes.substr(bytes.size() - 4) != "LANC") {
    return corrupt();
  }
  const uint64_t pos = LoadLittleEndian(bytes, bytes.size() - kFooter, 8);
  const uint64_t end = bytes.size() - kFooter;
  if (pos > end || end - pos < 4) return corrupt();
  std::vector<WireField> fields;
  if (!ScanMessage(bytes.substr(pos + 4, end - pos - 4), &fields)) return corrupt();
  std::string_view file_name;
  std::optional<uint64_t> section;
  for (const WireField& field : fields) {
    if (field.number == 12) file_name = field.bytes;
    if (field.number == 21) section = field.varint;
  }
  CommittedTxn txn;
  if (section) {
    if (*section > pos || pos - *section < 4) return corrupt();
    const uint64_t length = LoadLittleEndian(bytes, *section, 4);
    if (length > pos - *section - 4) return corrupt();
    ReadTransactionMessage(bytes.substr(*section + 4, length), &txn);
    if (!txn.uuid.empty()) return txn;
  }
  // "<read_version>-<uuid>.txn"
  const size_t dash = file_name.find('-');
  constexpr std::string_view kTxn = ".txn";
  if (dash == std::string_view::npos || file_name.size() < dash + 1 + kTxn.size() ||
      file_name.substr(file_name.size() - kTxn.size()) != kTxn) {
    return std::optional<CommittedTxn>();
  }
  txn.uuid =
      std::string(file_name.substr(dash + 1, file_name.size() - kTxn.size() - dash - 1));
  const std::string_view read_version = file_name.substr(0, dash);
  std::from_chars(read_version.data(), read_version.data() + read_version.size(),
                  txn.read_version);
  if (with_operation) {
    // Kept unless cleaned up; without it the operation stays unknown.
    auto file =
        table.store->Read(TableKey(table, "_transactions/" + std::string(file_name)));
    if (file.ok()) {
      ReadTransactionMessage((*file)->ToStringView(), &txn);
    } else if (!file.status().IsNotFound()) {
      return file.status();
    }
  }
  return txn;
}

/// A response that reports only the version the change committed.
template <typename Response>
Response AtVersion(const Dataset& ds) {
  Response response;
  response.version = static_cast<int64_t>(ds.version());
  return response;
}

/// Fills the response fields every write reports.
template <typename Response>
Status SetCommitted(const Dataset& ds, Response* response) {
  response->version = static_cast<int64_t>(ds.version());
  LANCE_ASSIGN_OR_RAISE(response->transaction_id, internal::CommittedTransactionId(ds));
  return Status::OK();
}

/// Rows summary of fragment lengths (nearest-rank percentiles).
FragmentSummary Summarize(std::vector<int64_t> lengths) {
  FragmentSummary summary;
  if (lengths.empty()) return summary;
  std::sort(lengths.begin(), lengths.end());
  auto rank = [&](int percent) {
    const size_t n = lengths.size();
    size_t index = (static_cast<size_t>(percent) * n + 99) / 100;
    index = std::clamp<size_t>(index, 1, n) - 1;
    return lengths[index];
  };
  int64_t total = 0;
  for (int64_t length : lengths) total += length;
  summary.min = lengths.front();
  summary.max = lengths.back();
  summary.mean = total / static_cast<int64_t>(lengths.size());
  summary.p25 = rank(25);
  summary.p50 = rank(50);
  summary.p75 = rank(75);
  summary.p99 = rank(99);
  return summary;
}

}  // namespace

Result<std::optional<std::string>> internal::CommittedTransactionId(const Dataset& ds) {
  LANCE_ASSIGN_OR_RAISE(io::ResolvedLocation table, TableStore(ds));
  // The manifest of the version under Lance's V2 name, else its V1 name.
  char v2[32];
  std::snprintf(v2, sizeof(v2), "%020llu",
                static_cast<unsigned long long>(std::numeric_limits<uint64_t>::max() -
                                                ds.version()));
  for (const std::string& path :
       {"_versions/" + std::string(v2) + ".manifest",
        "_versions/" + std::to_string(ds.version()) + ".manifest"}) {
    auto txn = ReadCommittedTransaction(table, TableKey(table, path), path,
                                        /*with_operation=*/false);
    if (txn.ok()) {
      if (!*txn) return std::optional<std::string>();
      return std::optional<std::string>((*txn)->uuid);
    }
    if (!txn.status().IsNotFound()) return txn.status();
  }
  return std::optional<std::string>();
}

// -- Data
// ---------------------------------------------------------------------------------

Result<int64_t> DirectoryNamespace::CountTableRows(const CountTableRowsRequest& request) {
  LANCE_RETURN_NOT_OK(CheckBranch(request.branch, "count_table_rows"));
  LANCE_ASSIGN_OR_RAISE(auto ds, OpenTable(*impl_, request.id, request.version));
  auto count = ds->CountRows(request.predicate.value_or(""));
  if (!count.ok()) {
    return TableOpError(count.status(), "counting rows of " + TableText(request.id));
  }
  return *count;
}

Result<InsertIntoTableResponse> DirectoryNamespace::InsertIntoTable(
    const InsertIntoTableRequest& request, std::string_view data) {
  LANCE_RETURN_NOT_OK(CheckBranch(request.branch, "insert_into_table"));
  WriteParams params;
  params.access = internal::TableAccess(*impl_);
  params.mode = WriteMode::kAppend;
  if (request.mode && EqualsIgnoreAsciiCase(*request.mode, "overwrite")) {
    params.mode = WriteMode::kOverwrite;
  } else if (request.mode && !EqualsIgnoreAsciiCase(*request.mode, "append")) {
    return NamespaceError(ErrorCode::kInvalidInput, "unknown insert_into_table mode " +
                                                        Quote(*request.mode) +
                                                        " (append or overwrite)");
  }
  const std::string what = "inserting into " + TableText(request.id);
  LANCE_ASSIGN_OR_RAISE(TablePtr rows, internal::ReadIpcRequest(data, what));
  LANCE_ASSIGN_OR_RAISE(std::string uri, internal::TableUri(*impl_, request.id));
  auto reader = internal::TableReader(rows);
  auto ds = Dataset::Write(*reader, uri, params);
  if (!ds.ok()) return TableOpError(ds.status(), what);
  InsertIntoTableResponse response;
  response.num_inserted_rows = rows->num_rows();
  LANCE_RETURN_NOT_OK(SetCommitted(**ds, &response));
  return response;
}

Result<MergeInsertIntoTableResponse> DirectoryNamespace::MergeInsertIntoTable(
    const MergeInsertIntoTableRequest& request, std::string_view data) {
  LANCE_RETURN_NOT_OK(CheckBranch(request.branch, "merge_insert_into_table"));
  const std::string what = "merge-inserting into " + TableText(request.id);
  if (!request.on || request.on->empty()) {
    return InvalidRequest(what, "'on' must name at least one key column");
  }
  std::optional<double> timeout;
  if (request.timeout) {
    LANCE_ASSIGN_OR_RAISE(timeout, ParseTimeoutSeconds(*request.timeout));
  }
  LANCE_ASSIGN_OR_RAISE(TablePtr rows, internal::ReadIpcRequest(data, what));
  LANCE_ASSIGN_OR_RAISE(auto ds, OpenTableWithColumns(*impl_, request.id, *request.on));
  MergeInsertBuilder builder = ds->MergeInsert(*request.on);
  if (request.when_matched_update_all.value_or(false)) {
    builder.WhenMatchedUpdateAll(request.when_matched_update_all_filt.value_or(""));
  }
  if (request.when_not_matched_insert_all.value_or(false)) {
    builder.WhenNotMatchedInsertAll();
  }
  if (request.when_not_matched_by_source_delete.value_or(false)) {
    builder.WhenNotMatchedBySourceDelete(
        request.when_not_matched_by_source_delete_filt.value_or(""));
  }
  if (timeout) builder.RetryTimeout(*timeout);
  auto result = builder.Execute(
      [&]() -> Result<RecordBatchReaderPtr> { return internal::TableReader(rows); });
  if (!result.ok()) return TableOpError(result.status(), what);
  MergeInsertIntoTableResponse response;
  response.num_inserted_rows = static_cast<int64_t>(result->num_inserted_rows);
  response.num_updated_rows = static_cast<int64_t>(result->num_updated_rows);
  response.num_deleted_rows = static_cast<int64_t>(result->num_deleted_rows);
  LANCE_RETURN_NOT_OK(SetCommitted(*ds, &response));
  return response;
}

Result<DeleteFromTableResponse> DirectoryNamespace::DeleteFromTable(
    const DeleteFromTableRequest& request) {
  LANCE_RETURN_NOT_OK(CheckBranch(request.branch, "delete_from_table"));
  const std::string what = "deleting from " + TableText(request.id);
  if (request.predicate.empty()) {
    return InvalidRequest(what, "a predicate is required");
  }
  // Lance retries a delete whose conflict is retryable (planned again on the latest
  // version); pylance's default is 10 retries.
  constexpr int kAttempts = 11;
  Status deleted;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    LANCE_ASSIGN_OR_RAISE(auto ds, OpenTable(*impl_, request.id));
    deleted = ds->Delete(request.predicate);
    if (deleted.ok()) {
      DeleteFromTableResponse response;
      LANCE_RETURN_NOT_OK(SetCommitted(*ds, &response));
      return response;
    }
    if (!deleted.IsConflict() || !deleted.retryable()) break;
  }
  return TableOpError(deleted, what);
}

Result<UpdateTableResponse> DirectoryNamespace::UpdateTable(
    const UpdateTableRequest& request) {
  LANCE_RETURN_NOT_OK(CheckBranch(request.branch, "update_table"));
  const std::string what = "updating " + TableText(request.id);
  if (request.updates.empty()) {
    return InvalidRequest(what, "no updates given");
  }
  std::vector<std::pair<std::string, std::string>> updates;
  std::vector<std::string> columns;
  for (const std::vector<std::string>& update : request.updates) {
    if (update.size() != 2) {
      return InvalidRequest(what, "each update must be [column, expression]");
    }
    updates.emplace_back(update[0], update[1]);
    columns.push_back(update[0]);
  }
  LANCE_ASSIGN_OR_RAISE(auto ds, OpenTableWithColumns(*impl_, request.id, columns));
  auto result = ds->Update(updates, request.predicate.value_or(""));
  if (!result.ok()) return TableOpError(result.status(), what);
  UpdateTableResponse response;
  response.updated_rows = static_cast<int64_t>(result->num_rows_updated);
  response.version = static_cast<int64_t>(ds->version());
  LANCE_ASSIGN_OR_RAISE(response.transaction_id, internal::CommittedTransactionId(*ds));
  return response;
}

Result<std::string> DirectoryNamespace::QueryTable(const QueryTableRequest& request) {
  LANCE_RETURN_NOT_OK(CheckBranch(request.branch, "query_table"));
  const std::string what = "querying " + TableText(request.id);
  if (request.vector &&
      ((request.vector->single_vector && !request.vector->single_vector->empty()) ||
       (request.vector->multi_vector && !request.vector->multi_vector->empty()))) {
    return NamespaceError(ErrorCode::kUnsupported,
                          what + ": vector search is not supported by " + namespace_id() +
                              " (lance-cpp has no vector indices); send an empty vector "
                              "for a plain scan");
  }
  if (request.k < 0 || request.offset.value_or(0) < 0) {
    return InvalidRequest(what, "k and offset must not be negative");
  }
  const std::vector<std::string> names =
      request.columns ? request.columns->column_names.value_or(std::vector<std::string>{})
                      : std::vector<std::string>{};
  LANCE_ASSIGN_OR_RAISE(auto ds,
                        OpenTableWithColumns(*impl_, request.id, names, request.version));
  ScanOptions scan;
  if (request.columns) {
    if (request.columns->column_aliases && !request.columns->column_aliases->empty()) {
      for (const std::string& name : names) scan.projections.emplace_back(name, name);
      for (const auto& [alias, expression] : *request.columns->column_aliases) {
        scan.projections.emplace_back(alias, expression);
      }
    } else {
      scan.columns = names;
    }
  }
  scan.filter = request.filter.value_or("");
  if (request.k > 0) scan.limit = request.k;
  scan.offset = request.offset.value_or(0);
  scan.with_row_id = request.with_row_id.value_or(false);
  auto table = ds->ToTable(scan);
  if (!table.ok()) return TableOpError(table.status(), what);
  auto bytes = ipc::WriteIpcStream(**table);
  if (!bytes.ok()) return TableOpError(bytes.status(), what);
  return std::string((*bytes)->ToStringView());
}

// -- Schema
// -------------------------------------------------------------------------------

Result<AlterTableAddColumnsResponse> DirectoryNamespace::AlterTableAddColumns(
    const AlterTableAddColumnsRequest& request) {
  LANCE_RETURN_NOT_OK(CheckBranch(request.branch, "alter_table_add_columns"));
  const std::string what = "adding columns to " + TableText(request.id);
  if (request.new_columns.empty()) {
    return InvalidRequest(what, "no columns given");
  }
  std::vector<std::pair<std::string, std::string>> expressions;
  for (const AddColumnsEntry& entry : request.new_columns) {
    if (!entry.expression || entry.expression->empty()) {
      return InvalidRequest(what,
                            "column " + Quote(entry.name) + " needs a SQL expression");
    }
    expressions.emplace_back(entry.name, *entry.expression);
  }
  LANCE_ASSIGN_OR_RAISE(auto ds, OpenTable(*impl_, request.id));
  LANCE_RETURN_NOT_OK(TableOpError(ds->AddColumns(expressions), what));
  return AtVersion<AlterTableAddColumnsResponse>(*ds);
}

Result<AlterTableAlterColumnsResponse> DirectoryNamespace::AlterTableAlterColumns(
    const AlterTableAlterColumnsRequest& request) {
  LANCE_RETURN_NOT_OK(CheckBranch(request.branch, "alter_table_alter_columns"));
  const std::string what = "altering columns of " + TableText(request.id);
  if (request.alterations.empty()) {
    return InvalidRequest(what, "no alterations given");
  }
  std::vector<ColumnAlteration> alterations;
  std::vector<std::string> paths;
  for (const AlterColumnsEntry& entry : request.alterations) {
    ColumnAlteration alteration;
    alteration.path = entry.path;
    alteration.rename = entry.rename;
    alteration.nullable = entry.nullable;
    if (entry.data_type) {
      LANCE_ASSIGN_OR_RAISE(alteration.data_type,
                            ParseJsonDataType(*entry.data_type, entry.path));
    }
    paths.push_back(entry.path);
    alterations.push_back(std::move(alteration));
  }
  LANCE_ASSIGN_OR_RAISE(auto ds, OpenTableWithColumns(*impl_, request.id, paths));
  LANCE_RETURN_NOT_OK(TableOpError(ds->AlterColumns(alterations), what));
  return AtVersion<AlterTableAlterColumnsResponse>(*ds);
}

Result<AlterTableDropColumnsResponse> DirectoryNamespace::AlterTableDropColumns(
    const AlterTableDropColumnsRequest& request) {
  LANCE_RETURN_NOT_OK(CheckBranch(request.branch, "alter_table_drop_columns"));
  const std::string what = "dropping columns of " + TableText(request.id);
  if (request.columns.empty()) {
    return InvalidRequest(what, "no columns given");
  }
  LANCE_ASSIGN_OR_RAISE(auto ds,
                        OpenTableWithColumns(*impl_, request.id, request.columns));
  LANCE_RETURN_NOT_OK(TableOpError(ds->DropColumns(request.columns), what));
  AlterTableDropColumnsResponse response;
  LANCE_RETURN_NOT_OK(SetCommitted(*ds, &response));
  return response;
}

Result<UpdateTableSchemaMetadataResponse> DirectoryNamespace::UpdateTableSchemaMetadata(
    const UpdateTableSchemaMetadataRequest& request) {
  LANCE_RETURN_NOT_OK(CheckBranch(request.branch, "update_table_schema_metadata"));
  const std::string what = "updating the schema metadata of " + TableText(request.id);
  LANCE_ASSIGN_OR_RAISE(auto ds, OpenTable(*impl_, request.id));
  // Upsert, as Lance's update_schema_metadata: given keys replace, others stay.
  std::map<std::string, std::string> metadata;
  for (const auto& [key, value] : ds->schema()->metadata()) metadata[key] = value;
  for (const auto& [key, value] : request.metadata.value_or(Properties{})) {
    metadata[key] = value;
  }
  LANCE_RETURN_NOT_OK(TableOpError(ds->ReplaceSchemaMetadata(metadata), what));
  UpdateTableSchemaMetadataResponse response;
  response.metadata = Properties(metadata.begin(), metadata.end());
  LANCE_ASSIGN_OR_RAISE(response.transaction_id, internal::CommittedTransactionId(*ds));
  return response;
}

Result<GetTableStatsResponse> DirectoryNamespace::GetTableStats(
    const GetTableStatsRequest& request) {
  LANCE_RETURN_NOT_OK(CheckBranch(request.branch, "get_table_stats"));
  const std::string what = "computing the stats of " + TableText(request.id);
  LANCE_ASSIGN_OR_RAISE(auto ds, OpenTable(*impl_, request.id));
  GetTableStatsResponse response;
  auto data_stats = ds->DataStats();
  if (!data_stats.ok()) return TableOpError(data_stats.status(), what);
  for (const FieldStatistics& field : data_stats->fields) {
    response.total_bytes += static_cast<int64_t>(field.bytes_on_disk);
  }
  auto indices = ds->Indices();
  if (!indices.ok()) return TableOpError(indices.status(), what);
  response.num_indices = static_cast<int64_t>(indices->size());
  // Small fragments: the ones compaction would rewrite (fewer physical rows than its
  // default target_rows_per_fragment).
  const int64_t small = CompactionOptions{}.target_rows_per_fragment;
  std::vector<int64_t> lengths;
  for (const FragmentMetadata& fragment : ds->fragments()) {
    lengths.push_back(static_cast<int64_t>(fragment.num_rows()));
    response.num_rows += lengths.back();
    if (static_cast<int64_t>(fragment.physical_rows) < small) {
      ++response.fragment_stats.num_small_fragments;
    }
  }
  response.fragment_stats.num_fragments = static_cast<int64_t>(lengths.size());
  response.fragment_stats.lengths = Summarize(std::move(lengths));
  return response;
}

// -- Versions
// -----------------------------------------------------------------------------

namespace {

/// Every version of the table with its manifest file, ascending.
Result<std::vector<TableVersion>> AllVersions(const Dataset& ds) {
  LANCE_ASSIGN_OR_RAISE(io::ResolvedLocation table, TableStore(ds));
  LANCE_ASSIGN_OR_RAISE(auto files, ListManifestFiles(table));
  LANCE_ASSIGN_OR_RAISE(auto infos, ds.Versions());
  std::map<uint64_t, const VersionInfo*> by_version;
  for (const VersionInfo& info : infos) by_version[info.version] = &info;
  std::vector<TableVersion> out;
  for (const ManifestFile& file : files) {
    TableVersion version;
    version.version = static_cast<int64_t>(file.version);
    version.manifest_path = file.path;
    version.manifest_size = file.size;
    if (auto it = by_version.find(file.version); it != by_version.end()) {
      version.timestamp_millis = it->second->timestamp_ms;
      version.metadata =
          Properties(it->second->metadata.begin(), it->second->metadata.end());
    }
    out.push_back(std::move(version));
  }
  return out;
}

}  // namespace

Result<ListTableVersionsResponse> DirectoryNamespace::ListTableVersions(
    const ListTableVersionsRequest& request) {
  LANCE_RETURN_NOT_OK(CheckBranch(request.branch, "list_table_versions"));
  const std::string what = "listing the versions of " + TableText(request.id);
  LANCE_ASSIGN_OR_RAISE(auto ds, OpenTable(*impl_, request.id));
  auto all = AllVersions(*ds);
  if (!all.ok()) return TableOpError(all.status(), what);
  std::vector<TableVersion> versions = std::move(*all);
  const bool descending = request.descending.value_or(false);
  if (descending) std::reverse(versions.begin(), versions.end());
  // page_token: the last version of the previous page (in the order asked).
  if (request.page_token) {
    int64_t after = 0;
    const std::string& token = *request.page_token;
    auto parsed = std::from_chars(token.data(), token.data() + token.size(), after);
    if (parsed.ec != std::errc() || parsed.ptr != token.data() + token.size()) {
      return InvalidRequest(what, "invalid page_token " + Quote(token));
    }
    std::erase_if(versions, [&](const TableVersion& v) {
      return descending ? v.version >= after : v.version <= after;
    });
  }
  ListTableVersionsResponse response;
  if (request.limit && *request.limit > 0 &&
      versions.size() > static_cast<size_t>(*request.limit)) {
    versions.resize(static_cast<size_t>(*request.limit));
    response.page_token = std::to_string(versions.back().version);
  }
  response.versions = std::move(versions);
  return response;
}

Result<DescribeTableVersionResponse> DirectoryNamespace::DescribeTableVersion(
    const DescribeTableVersionRequest& request) {
  LANCE_RETURN_NOT_OK(CheckBranch(request.branch, "describe_table_version"));
  const std::string what = "describing a version of " + TableText(request.id);
  LANCE_ASSIGN_OR_RAISE(auto ds, OpenTable(*impl_, request.id, request.version));
  auto all = AllVersions(*ds);
  if (!all.ok()) return TableOpError(all.status(), what);
  for (TableVersion& version : *all) {
    if (version.version == static_cast<int64_t>(ds->version())) {
      DescribeTableVersionResponse response;
      response.version = std::move(version);
      return response;
    }
  }
  return VersionNotFound(static_cast<int64_t>(ds->version()), request.id);
}

Result<RestoreTableResponse> DirectoryNamespace::RestoreTable(
    const RestoreTableRequest& request) {
  LANCE_RETURN_NOT_OK(CheckBranch(request.branch, "restore_table"));
  LANCE_ASSIGN_OR_RAISE(auto ds, OpenTable(*impl_, request.id, request.version));
  LANCE_RETURN_NOT_OK(TableOpError(ds->Restore(), "restoring version " +
                                                      std::to_string(request.version) +
                                                      " of " + TableText(request.id)));
  RestoreTableResponse response;
  LANCE_ASSIGN_OR_RAISE(response.transaction_id, internal::CommittedTransactionId(*ds));
  return response;
}

// -- Tags
// ---------------------------------------------------------------------------------

namespace {

Status TagNotFound(const std::string& tag, const Identifier& id) {
  return NamespaceError(ErrorCode::kTableTagNotFound,
                        "tag " + Quote(tag) + " not found in " + TableText(id));
}

}  // namespace

Result<ListTableTagsResponse> DirectoryNamespace::ListTableTags(
    const ListTableTagsRequest& request) {
  LANCE_ASSIGN_OR_RAISE(auto ds, OpenTable(*impl_, request.id));
  auto tags = ds->ListTags();
  if (!tags.ok()) {
    return TableOpError(tags.status(), "listing the tags of " + TableText(request.id));
  }
  std::vector<std::string> names;
  for (const auto& [name, info] : *tags) names.push_back(name);
  ListTableTagsResponse response;
  response.page_token = Paginate(&names, request.page_token, request.limit);
  for (const std::string& name : names) {
    const TagInfo& info = tags->at(name);
    TagContents contents;
    contents.branch = info.branch;
    contents.version = static_cast<int64_t>(info.version);
    contents.manifest_size = info.manifest_size;
    response.tags.emplace(name, contents);
  }
  return response;
}

Result<CreateTableTagResponse> DirectoryNamespace::CreateTableTag(
    const CreateTableTagRequest& request) {
  LANCE_RETURN_NOT_OK(CheckBranch(request.branch, "create_table_tag"));
  LANCE_ASSIGN_OR_RAISE(uint64_t version, CheckedVersion(request.version, request.id));
  LANCE_ASSIGN_OR_RAISE(auto ds, OpenTable(*impl_, request.id));
  Status created = ds->CreateTag(request.tag, version);
  if (created.IsAlreadyExists()) {
    return NamespaceError(
        ErrorCode::kTableTagAlreadyExists,
        "tag " + Quote(request.tag) + " already exists in " + TableText(request.id));
  }
  if (created.IsNotFound()) return VersionNotFound(request.version, request.id);
  LANCE_RETURN_NOT_OK(TableOpError(
      created, "creating tag " + Quote(request.tag) + " in " + TableText(request.id)));
  return CreateTableTagResponse{};
}

Result<DeleteTableTagResponse> DirectoryNamespace::DeleteTableTag(
    const DeleteTableTagRequest& request) {
  LANCE_ASSIGN_OR_RAISE(auto ds, OpenTable(*impl_, request.id));
  Status deleted = ds->DeleteTag(request.tag);
  if (deleted.IsNotFound()) return TagNotFound(request.tag, request.id);
  LANCE_RETURN_NOT_OK(TableOpError(
      deleted, "deleting tag " + Quote(request.tag) + " of " + TableText(request.id)));
  return DeleteTableTagResponse{};
}

Result<GetTableTagVersionResponse> DirectoryNamespace::GetTableTagVersion(
    const GetTableTagVersionRequest& request) {
  LANCE_ASSIGN_OR_RAISE(auto ds, OpenTable(*impl_, request.id));
  auto tags = ds->ListTags();
  if (!tags.ok()) {
    return TableOpError(tags.status(), "reading tag " + Quote(request.tag) + " of " +
                                           TableText(request.id));
  }
  auto it = tags->find(request.tag);
  if (it == tags->end()) return TagNotFound(request.tag, request.id);
  GetTableTagVersionResponse response;
  response.version = static_cast<int64_t>(it->second.version);
  response.branch = it->second.branch;
  return response;
}

Result<UpdateTableTagResponse> DirectoryNamespace::UpdateTableTag(
    const UpdateTableTagRequest& request) {
  LANCE_RETURN_NOT_OK(CheckBranch(request.branch, "update_table_tag"));
  LANCE_ASSIGN_OR_RAISE(uint64_t version, CheckedVersion(request.version, request.id));
  LANCE_ASSIGN_OR_RAISE(auto ds, OpenTable(*impl_, request.id));
  // The core answers NotFound for both an unknown tag and an unknown version.
  if (!ds->TagVersion(request.tag).ok()) return TagNotFound(request.tag, request.id);
  Status updated = ds->UpdateTag(request.tag, version);
  if (updated.IsNotFound()) return VersionNotFound(request.version, request.id);
  LANCE_RETURN_NOT_OK(TableOpError(
      updated, "updating tag " + Quote(request.tag) + " of " + TableText(request.id)));
  return UpdateTableTagResponse{};
}

// -- Transactions
// -------------------------------------------------------------------------

Result<DescribeTransactionResponse> DirectoryNamespace::DescribeTransaction(
    const DescribeTransactionRequest& request) {
  if (request.id.size() < 2) {
    return NamespaceError(ErrorCode::kInvalidInput,
                          "describe_transaction needs the table id followed by the "
                          "transaction id, got " +
                              Quote(JoinIdentifier(request.id, internal::kDelimiter)));
  }
  const Identifier table_id(request.id.begin(), request.id.end() - 1);
  const std::string& uuid = request.id.back();
  const std::string what =
      "describing transaction " + Quote(uuid) + " of " + TableText(table_id);
  auto not_found = [&]() {
    return NamespaceError(
        ErrorCode::kTransactionNotFound,
        "transaction " + Quote(uuid) + " not found in " + TableText(table_id));
  };
  if (uuid.empty() || uuid.find('/') != std::string::npos) return not_found();
  LANCE_ASSIGN_OR_RAISE(auto ds, OpenTable(*impl_, table_id));
  auto table = TableStore(*ds);
  if (!table.ok()) return TableOpError(table.status(), what);
  auto files = ListManifestFiles(*table);
  if (!files.ok()) return TableOpError(files.status(), what);
  // The committed version is the one whose manifest names the transaction file.
  for (const ManifestFile& file : *files) {
    // Only the operation of the match is read (its `.txn` file when not inline).
    auto txn = ReadCommittedTransaction(*table, file.key, file.path, false);
    if (!txn.ok()) return TableOpError(txn.status(), what);
    if (!*txn || (*txn)->uuid != uuid) continue;
    LANCE_ASSIGN_OR_RAISE(txn,
                          ReadCommittedTransaction(*table, file.key, file.path, true));
    Properties properties;
    properties["uuid"] = uuid;
    properties["version"] = std::to_string(file.version);
    properties["read_version"] = std::to_string((*txn)->read_version);
    if ((*txn)->operation) properties["operation"] = *(*txn)->operation;
    DescribeTransactionResponse response;
    response.status = "SUCCEEDED";
    response.properties = std::move(properties);
    return response;
  }
  return not_found();
}

Result<AlterTransactionResponse> DirectoryNamespace::AlterTransaction(
    const AlterTransactionRequest& request) {
  // Every transaction commits as it is made here, so none is left open to alter: the
  // interface's Unsupported answer.
  return LanceNamespace::AlterTransaction(request);
}

}  // namespace lance::ns
