// SPDX-License-Identifier: Apache-2.0
// The `__manifest` table of a directory namespace. The facts matched (schema, metadata,
// row handling) come from Lance's rust/lance-namespace-impls/src/dir/manifest.rs.

#include "namespace/manifest_table.h"

#include <nlohmann/json.hpp>
#include <utility>

#include "lance/core/array.h"
#include "lance/core/builder.h"
#include "lance/core/record_batch.h"
#include "lance/macros.h"

namespace lance::ns::internal {

namespace {

constexpr std::string_view kManifestName = "__manifest";
// Lance's LANCE_UNENFORCED_PRIMARY_KEY_POSITION. Lance migrates a __manifest whose
// object_id lacks it (a write), so we create ours with it.
constexpr std::string_view kPrimaryKeyPositionKey =
    "lance-schema:unenforced-primary-key:position";
/// The file format of a new __manifest: pylance 14's.
constexpr std::string_view kManifestFileVersion = "2.2";
// Commit races on __manifest for deletes (appends retry inside Dataset::Write).
constexpr int kDeleteAttempts = 8;

/// Lance's manifest_schema(), field for field (names, types, nullability, metadata).
SchemaPtr ManifestSchema() {
  return schema({
      field("object_id", utf8(), /*nullable=*/false,
            KeyValueMetadata{{std::string(kPrimaryKeyPositionKey), "0"}}),
      field("object_type", utf8(), false),
      field("location", utf8(), true),
      field("metadata", utf8(), true),
      field("base_objects", list(field("object_id", utf8(), true)), true),
  });
}

/// A SQL string literal for our predicate language ('' escapes a quote).
std::string Literal(std::string_view value) {
  std::string out = "'";
  for (char c : value) {
    if (c == '\'') out += '\'';
    out += c;
  }
  out += '\'';
  return out;
}

}  // namespace

Result<std::optional<std::string>> PropertiesToJson(
    const std::optional<Properties>& props) {
  // Lance stores no metadata (null) for absent or empty properties.
  if (!props || props->empty()) return std::optional<std::string>();
  nlohmann::json json = nlohmann::json::object();
  for (const auto& [k, v] : *props) json[k] = v;
  return std::optional<std::string>(json.dump());
}

Result<std::optional<Properties>> PropertiesFromJson(
    const std::optional<std::string>& text, std::string_view object_id) {
  if (!text) return std::optional<Properties>();
  nlohmann::json json = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) {
    return NamespaceError(
        ErrorCode::kInternal,
        "the __manifest metadata of " + Quote(object_id) + " is not a JSON object");
  }
  Properties props;
  for (auto it = json.begin(); it != json.end(); ++it) {
    if (!it.value().is_string()) {
      return NamespaceError(ErrorCode::kInternal,
                            "the __manifest metadata of " + Quote(object_id) +
                                " has a non-string value for " + Quote(it.key()));
    }
    props[it.key()] = it.value().get<std::string>();
  }
  return std::optional<Properties>(std::move(props));
}

std::string ManifestTable::ManifestUri() const {
  return root + "/" + std::string(kManifestName);
}

OpenOptions ManifestTable::ManifestOpenOptions() const {
  OpenOptions open;
  open.access = access;
  return open;
}

Result<std::shared_ptr<Dataset>> ManifestTable::OpenManifest() {
  auto opened = Dataset::Open(ManifestUri(), ManifestOpenOptions());
  if (!opened.ok()) {
    return opened.status().WithContext("opening the namespace manifest " +
                                       Quote(ManifestUri()));
  }
  return opened;
}

Status ManifestTable::EnsureManifest() {
  auto opened = Dataset::Open(ManifestUri(), ManifestOpenOptions());
  if (opened.ok()) return Status::OK();
  if (!opened.status().IsNotFound()) {
    return opened.status().WithContext("opening the namespace manifest " +
                                       Quote(ManifestUri()));
  }
  SchemaPtr s = ManifestSchema();
  auto reader = RecordBatchReader::FromBatches(s, {});
  WriteParams params;
  params.mode = WriteMode::kCreate;
  // pylance 14 creates __manifest in file format 2.2 (LanceDB-node 0.31 in 2.1); later
  // appends keep whatever version the root's __manifest has, so roots made by either
  // stay as their creator made them.
  params.data_storage_version = std::string(kManifestFileVersion);
  params.access = access;
  auto written = Dataset::Write(*reader, ManifestUri(), params);
  if (written.ok() || written.status().IsAlreadyExists()) return Status::OK();
  return written.status().WithContext("creating the namespace manifest " +
                                      Quote(ManifestUri()));
}

Result<std::vector<ManifestRow>> ManifestTable::ReadRows(const Dataset& ds,
                                                         const std::string& filter) {
  ScanOptions scan;
  scan.columns = {"object_id", "object_type", "location", "metadata"};
  scan.filter = filter;
  scan.with_row_id = true;
  LANCE_ASSIGN_OR_RAISE(RecordBatchReaderPtr reader, ds.Scan(scan));
  std::vector<ManifestRow> rows;
  while (true) {
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr batch, reader->Next());
    if (!batch) break;
    auto ids =
        std::dynamic_pointer_cast<StringArray>(batch->GetColumnByName("object_id"));
    auto types =
        std::dynamic_pointer_cast<StringArray>(batch->GetColumnByName("object_type"));
    auto locs =
        std::dynamic_pointer_cast<StringArray>(batch->GetColumnByName("location"));
    auto metas =
        std::dynamic_pointer_cast<StringArray>(batch->GetColumnByName("metadata"));
    auto addrs = std::dynamic_pointer_cast<UInt64Array>(batch->GetColumnByName("_rowid"));
    if (!ids || !types || !locs || !metas || !addrs) {
      return NamespaceError(ErrorCode::kInternal,
                            "the namespace manifest " + Quote(ManifestUri()) +
                                " does not have Lance's __manifest columns");
    }
    for (int64_t i = 0; i < batch->num_rows(); ++i) {
      ManifestRow row;
      row.object_id = ids->IsNull(i) ? "" : ids->GetString(i);
      row.object_type = types->IsNull(i) ? "" : types->GetString(i);
      if (locs->IsValid(i)) row.location = locs->GetString(i);
      if (metas->IsValid(i)) row.metadata = metas->GetString(i);
      row.row_address = addrs->Value(i);
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

Result<std::vector<ManifestRow>> ManifestTable::ReadLatest(const std::string& filter) {
  LANCE_ASSIGN_OR_RAISE(auto ds, OpenManifest());
  return ReadRows(*ds, filter);
}

Result<std::optional<ManifestRow>> ManifestTable::FindObject(std::string_view object_id,
                                                             std::string_view type) {
  std::string filter = "object_id = " + Literal(object_id);
  if (!type.empty()) filter += " AND object_type = " + Literal(type);
  LANCE_ASSIGN_OR_RAISE(auto rows, ReadLatest(filter));
  if (rows.empty()) return std::optional<ManifestRow>();
  return std::optional<ManifestRow>(std::move(rows.front()));
}

Result<RecordBatchPtr> ManifestTable::MakeRowBatch(const ManifestRow& row) {
  SchemaPtr s = ManifestSchema();
  StringBuilder ids, types, locs, metas;
  LANCE_RETURN_NOT_OK(ids.Append(row.object_id));
  LANCE_RETURN_NOT_OK(types.Append(row.object_type));
  LANCE_RETURN_NOT_OK(row.location ? locs.Append(*row.location) : locs.AppendNull());
  LANCE_RETURN_NOT_OK(row.metadata ? metas.Append(*row.metadata) : metas.AppendNull());
  BaseListBuilder<int32_t> bases(std::make_unique<StringBuilder>(), s->field(4)->type());
  LANCE_RETURN_NOT_OK(bases.AppendNull());
  std::vector<ArrayPtr> columns(5);
  LANCE_ASSIGN_OR_RAISE(columns[0], ids.Finish());
  LANCE_ASSIGN_OR_RAISE(columns[1], types.Finish());
  LANCE_ASSIGN_OR_RAISE(columns[2], locs.Finish());
  LANCE_ASSIGN_OR_RAISE(columns[3], metas.Finish());
  LANCE_ASSIGN_OR_RAISE(columns[4], bases.Finish());
  return RecordBatch::Make(s, 1, std::move(columns));
}

Status ManifestTable::RemoveFragment(const Dataset& ds, uint64_t fragment_id,
                                     std::string_view object_id) {
  DeleteOp op;
  op.deleted_fragment_ids.push_back(fragment_id);
  op.predicate = "object_id = " + Literal(object_id);
  auto committed = Dataset::Commit(ManifestUri(), op, ds.version(), access);
  if (!committed.ok()) {
    return committed.status().WithContext("removing the losing __manifest row of " +
                                          Quote(object_id));
  }
  return Status::OK();
}

Status ManifestTable::InsertUnique(const ManifestRow& row, ErrorCode duplicate,
                                   std::string_view what) {
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr batch, MakeRowBatch(row));
  auto reader = RecordBatchReader::FromBatches(batch->schema(), {batch});
  WriteParams params;
  params.mode = WriteMode::kAppend;
  params.access = access;
  auto written = Dataset::Write(*reader, ManifestUri(), params);
  if (!written.ok()) {
    if (written.status().IsConflict()) {
      return NamespaceError(ErrorCode::kConcurrentModification,
                            "appending " + std::string(what) + " to " +
                                Quote(ManifestUri()) + ": " + written.status().message());
    }
    return written.status().WithContext("appending " + std::string(what) + " to " +
                                        Quote(ManifestUri()));
  }
  const std::shared_ptr<Dataset>& ds = *written;
  if (ds->fragments().empty()) {
    return NamespaceError(
        ErrorCode::kInternal,
        "the manifest commit of " + std::string(what) + " has no fragment");
  }
  // Fragments are sorted by id and ours got the highest id when it was committed.
  const uint64_t mine = ds->fragments().back().id;
  LANCE_ASSIGN_OR_RAISE(auto rows,
                        ReadRows(*ds, "object_id = " + Literal(row.object_id)));
  if (rows.empty()) {
    return NamespaceError(ErrorCode::kInternal,
                          "the row of " + std::string(what) + " is missing from " +
                              Quote(ManifestUri()) + " right after its commit");
  }
  if ((rows.front().row_address >> 32) == mine) return Status::OK();
  LANCE_RETURN_NOT_OK(RemoveFragment(*ds, mine, row.object_id));
  return NamespaceError(duplicate, std::string(what) +
                                       " already exists (a concurrent "
                                       "writer recorded it first)");
}

Status ManifestTable::DeleteObject(std::string_view object_id, std::string_view type) {
  const std::string predicate =
      "object_id = " + Literal(object_id) + " AND object_type = " + Literal(type);
  Status last;
  for (int attempt = 0; attempt < kDeleteAttempts; ++attempt) {
    LANCE_ASSIGN_OR_RAISE(auto ds, OpenManifest());
    last = ds->Delete(predicate);
    if (last.ok() || !last.IsConflict()) break;
  }
  if (last.IsConflict()) {
    return NamespaceError(ErrorCode::kConcurrentModification,
                          "removing " + Quote(object_id) + " from " +
                              Quote(ManifestUri()) + ": " + last.message());
  }
  return last;
}

Status ManifestTable::CheckParentsExist(const Identifier& ns) {
  for (size_t i = 1; i <= ns.size(); ++i) {
    Identifier part(ns.begin(), ns.begin() + i);
    const std::string object_id = JoinIdentifier(part, kDelimiter);
    LANCE_ASSIGN_OR_RAISE(auto found, FindObject(object_id));
    if (!found) {
      return NamespaceError(ErrorCode::kNamespaceNotFound,
                            "parent namespace " + Quote(object_id));
    }
  }
  return Status::OK();
}

Result<std::map<std::string, ManifestRow>> ManifestTable::Children(
    const Identifier& parent, std::string_view type) {
  LANCE_ASSIGN_OR_RAISE(auto rows, ReadLatest("object_type = " + Literal(type)));
  const std::string prefix =
      parent.empty() ? "" : JoinIdentifier(parent, kDelimiter) + std::string(kDelimiter);
  std::map<std::string, ManifestRow> out;
  for (ManifestRow& row : rows) {
    if (row.object_id.compare(0, prefix.size(), prefix) != 0) continue;
    std::string rest = row.object_id.substr(prefix.size());
    if (rest.empty() || rest.find(kDelimiter) != std::string::npos) continue;
    out.emplace(std::move(rest), std::move(row));  // keeps the first (the winner)
  }
  return out;
}

}  // namespace lance::ns::internal
