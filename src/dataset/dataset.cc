// SPDX-License-Identifier: Apache-2.0
// Dataset: open, write (create / append / overwrite), commit of distributed writes,
// delete, versions. Reads live in scan.cc, the commit protocol in commit.cc.
#include "lance/dataset/dataset.h"

#include <algorithm>
#include <map>
#include <set>

#include "dataset/dataset_internal.h"
#include "dataset/fragment_internal.h"
#include "dataset/fragment_reader.h"
#include "dataset/fragment_sink.h"
#include "format/schema_proto.h"
#include "lance/format/file_writer.h"
#include "lance/io/object_store_registry.h"
#include "lance/io/refreshing_credentials.h"
#include "lance/macros.h"
#include "table/commit.h"
#include "table/deletion.h"
#include "table/ids.h"
#include "table/transaction.h"

namespace lance {

namespace ti = table_internal;
namespace pb = ::lance::table;

Result<WriteMode> ParseWriteMode(const std::string& text) {
  if (text == "create") return WriteMode::kCreate;
  if (text == "append") return WriteMode::kAppend;
  if (text == "overwrite") return WriteMode::kOverwrite;
  return Status::Invalid("Unknown write mode '" + text +
                         "' (expected create, append or overwrite)");
}

namespace table_internal {
namespace {

// "2.0" / "2.1" for manifests that lack data_format (written before Lance 0.16).
std::string InferStorageVersion(const pb::Manifest& m) {
  if (m.has_data_format() && !m.data_format().version().empty()) {
    return m.data_format().version();
  }
  for (const auto& frag : m.fragments()) {
    for (const auto& file : frag.files()) {
      if (file.file_major_version() == 2) {
        return "2." + std::to_string(file.file_minor_version());
      }
      // Early v2 files were recorded as 0.3.
      if (file.file_major_version() == 0 && file.file_minor_version() == 3) return "2.0";
      return "0.1";
    }
  }
  return (m.writer_feature_flags() & kFlagUseV2Format) ? "2.0" : "0.1";
}

}  // namespace

Result<std::shared_ptr<DatasetImpl>> MakeDatasetImpl(std::string uri,
                                                     io::StorageAccess access,
                                                     DatasetDir dir,
                                                     LoadedManifest manifest) {
  auto impl = std::make_shared<DatasetImpl>();
  impl->uri = std::move(uri);
  impl->access = std::move(access);
  impl->dir = std::move(dir);
  impl->manifest = std::move(manifest);
  const pb::Manifest& m = impl->manifest.manifest;
  const std::string name = impl->manifest_uri();
  LANCE_RETURN_NOT_OK(CheckReaderFlags(m, name));
  auto schema = format::SchemaFromProtoFields(m.fields(), m.schema_metadata());
  if (!schema.ok()) {
    const Status& st = schema.status();
    if (st.IsNotImplemented()) return st.WithContext("reading the schema of " + name);
    return Status::Corrupt("Manifest " + name +
                           " has an invalid schema: " + st.message());
  }
  impl->schema = std::move(*schema);
  std::set<int32_t> ids(impl->schema.field_ids().begin(), impl->schema.field_ids().end());
  for (const pb::DataFragment& frag : m.fragments()) {
    for (const pb::DataFile& file : frag.files()) {
      if (file.file_major_version() >= 2 &&
          file.column_indices_size() != file.fields_size()) {
        return Status::Corrupt("Manifest " + name + ": data file " + file.path() +
                               " of fragment " + std::to_string(frag.id()) + " lists " +
                               std::to_string(file.fields_size()) + " fields but " +
                               std::to_string(file.column_indices_size()) + " columns");
      }
    }
    impl->fragments.push_back(FragmentFromProto(frag));
  }
  impl->data_storage_version = InferStorageVersion(m);
  return impl;
}

}  // namespace table_internal

namespace {

// Where a dataset lives: its directory and the access its store was resolved with
// (resolved, so that versions opened later -- CheckoutVersion, commits -- resolve
// exactly like the first and share its credentials source).
struct Location {
  ti::DatasetDir dir;
  io::StorageAccess access;
};

Result<Location> ResolveDataset(const std::string& uri, const io::StorageAccess& access) {
  if (uri.empty()) return Status::Invalid("Dataset URI is empty");
  LANCE_ASSIGN_OR_RAISE(io::ResolvedLocation loc, io::ResolveObjectStore(uri, access));
  return Location{ti::DatasetDir(std::move(loc.store), std::move(loc.path)),
                  std::move(loc.access)};
}

Status NoDataset(const ti::DatasetDir& dir) {
  return Status::NotFound("No Lance dataset at " + dir.Uri() +
                          " (no manifest under _versions/)");
}

Result<std::shared_ptr<DatasetImpl>> LoadImpl(const std::string& uri, const Location& at,
                                              const ti::ManifestLocation& location) {
  LANCE_ASSIGN_OR_RAISE(ti::LoadedManifest loaded, ti::ReadManifest(at.dir, location));
  return ti::MakeDatasetImpl(uri, at.access, at.dir, std::move(loaded));
}

// Opens `version` (latest when absent) with clear NotFound messages.
Result<std::shared_ptr<DatasetImpl>> LoadVersion(const std::string& uri,
                                                 const Location& at,
                                                 std::optional<uint64_t> version) {
  const ti::DatasetDir& dir = at.dir;
  if (!version) {
    LANCE_ASSIGN_OR_RAISE(auto latest, ti::FindLatestManifest(dir));
    if (!latest) return NoDataset(dir);
    return LoadImpl(uri, at, *latest);
  }
  auto location = ti::FindManifest(dir, *version);
  if (!location.ok()) {
    if (!location.status().IsNotFound()) return location.status();
    LANCE_ASSIGN_OR_RAISE(auto latest, ti::FindLatestManifest(dir));
    if (!latest) return NoDataset(dir);
    return Status::NotFound("Version " + std::to_string(*version) + " of dataset " +
                            dir.Uri() + " does not exist (latest is " +
                            std::to_string(latest->version) + ")");
  }
  return LoadImpl(uri, at, *location);
}

std::shared_ptr<Dataset> Wrap(std::shared_ptr<DatasetImpl> impl) {
  return std::make_shared<Dataset>(std::move(impl));
}

// -- Writing data files ---------------------------------------------------------------

// For each field of `target`, the index of the column of `input` that feeds it.
// \return Invalid describing the first mismatch.
Result<std::vector<int>> MatchSchema(const Schema& input, const Schema& target) {
  if (input.num_fields() != target.num_fields()) {
    return Status::Invalid("The data has " + std::to_string(input.num_fields()) +
                           " columns but the dataset has " +
                           std::to_string(target.num_fields()) + ".\nData schema:\n" +
                           input.ToString() + "\nDataset schema:\n" + target.ToString());
  }
  std::vector<int> mapping;
  for (const FieldPtr& f : target.fields()) {
    const int index = input.GetFieldIndex(f->name());
    if (index < 0) {
      return Status::Invalid("The data has no column '" + f->name() +
                             "' that the dataset has.\nData schema:\n" +
                             input.ToString() + "\nDataset schema:\n" +
                             target.ToString());
    }
    const FieldPtr& in = input.field(index);
    if (!ti::TypesCompatible(*in->type(), *f->type())) {
      return Status::Invalid("Column '" + f->name() + "' has type " +
                             in->type()->ToString() + " but the dataset stores " +
                             f->type()->ToString());
    }
    mapping.push_back(index);
  }
  return mapping;
}

// Invalid if a struct member or list item that `type` declares non-nullable holds a
// null in `array` (top-level nullability is checked by the caller).
Status CheckNestedNulls(const Array& array, const DataType& type,
                        const std::string& path) {
  const ArrayData& data = *array.data();
  for (int i = 0; i < type.num_fields() && i < static_cast<int>(data.children.size());
       ++i) {
    const Field& child = *type.fields()[i];
    ArrayPtr child_array = MakeArray(data.children[i]);
    const std::string child_path = path + "." + child.name();
    if (!child.nullable() && child_array->null_count() > 0) {
      return Status::Invalid("Field '" + child_path +
                             "' is not nullable in the dataset but the data has nulls");
    }
    LANCE_RETURN_NOT_OK(CheckNestedNulls(*child_array, *child.type(), child_path));
  }
  return Status::OK();
}

// `batch` with the target's column order, field names and types.
Result<RecordBatchPtr> ConformBatch(const RecordBatch& batch,
                                    const std::vector<int>& mapping,
                                    const SchemaPtr& target) {
  if (batch.num_columns() != static_cast<int>(mapping.size())) {
    return Status::Invalid("A batch has " + std::to_string(batch.num_columns()) +
                           " columns, its stream's schema " +
                           std::to_string(mapping.size()));
  }
  std::vector<ArrayPtr> columns;
  for (int i = 0; i < target->num_fields(); ++i) {
    const FieldPtr& f = target->field(i);
    const ArrayPtr& column = batch.column(mapping[i]);
    if (!ti::TypesCompatible(*column->type(), *f->type())) {
      return Status::Invalid("Column '" + f->name() + "' has type " +
                             column->type()->ToString() + " but the dataset stores " +
                             f->type()->ToString());
    }
    if (!f->nullable() && column->null_count() > 0) {
      return Status::Invalid("Column '" + f->name() +
                             "' is not nullable in the dataset but the data has " +
                             std::to_string(column->null_count()) + " nulls");
    }
    LANCE_RETURN_NOT_OK(CheckNestedNulls(*column, *f->type(), f->name()));
    columns.push_back(ti::Relabel(column, f->type()));
  }
  return RecordBatch::Make(target, batch.num_rows(), std::move(columns));
}

// Writes `data` into new data files of at most max_rows_per_file rows each, one
// fragment per file (ids unassigned).
Result<std::vector<pb::DataFragment>> WriteDataFiles(const ti::DatasetDir& dir,
                                                     RecordBatchReader& data,
                                                     const format::LanceSchema& schema,
                                                     format::LanceFileVersion version,
                                                     const WriteParams& params) {
  if (params.max_rows_per_file <= 0) {
    return Status::Invalid("max_rows_per_file must be positive");
  }
  if (params.max_rows_per_group <= 0) {
    return Status::Invalid("max_rows_per_group must be positive");
  }
  LANCE_ASSIGN_OR_RAISE(std::vector<int> mapping,
                        MatchSchema(*data.schema(), *schema.schema()));

  ti::FragmentSink sink(dir, schema, version,
                        {params.max_rows_per_file, params.max_rows_per_group});
  while (true) {
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr next, data.Next());
    if (!next) break;
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr batch,
                          ConformBatch(*next, mapping, schema.schema()));
    LANCE_RETURN_NOT_OK(sink.Write(*batch));
  }
  return sink.Finish();
}

Status SchemaToTransaction(const format::LanceSchema& schema,
                           pb::Transaction::Overwrite* op) {
  LANCE_RETURN_NOT_OK(format::SchemaToProtoFields(schema, op->mutable_schema()));
  for (const auto& [k, v] : schema.schema()->metadata()) {
    (*op->mutable_schema_metadata())[k] = v;
  }
  return Status::OK();
}

// Every field id a fragment's data files name must exist in the schema.
Status CheckFragmentFields(const pb::DataFragment& frag,
                           const format::LanceSchema& schema, const std::string& what) {
  const std::set<int32_t> ids(schema.field_ids().begin(), schema.field_ids().end());
  if (frag.files_size() == 0) {
    return Status::Invalid(what + ": a fragment has no data files");
  }
  for (const pb::DataFile& file : frag.files()) {
    if (file.path().empty() || file.path().find('/') != std::string::npos) {
      return Status::Invalid(what + ": data file path '" + file.path() +
                             "' must be a bare file name under data/");
    }
    if (file.column_indices_size() != file.fields_size() &&
        file.file_major_version() >= 2) {
      return Status::Invalid(what + ": data file " + file.path() +
                             " lists a different number of fields and columns");
    }
    for (int32_t id : file.fields()) {
      if (id >= 0 && ids.count(id) == 0) {
        return Status::Invalid(what + ": data file " + file.path() + " stores field id " +
                               std::to_string(id) + ", which the schema does not have");
      }
    }
  }
  return Status::OK();
}

// The columns an append writes: all of the dataset's, or (as Lance allows) only those
// the data has, when every column it lacks is nullable; the fragments' data files then
// hold only those fields and the others read as nulls. Field ids and the dataset's order
// are kept. \return Invalid naming a missing non-nullable column; extra or mistyped
// columns are reported by MatchSchema.
Result<format::LanceSchema> AppendedColumns(const DatasetImpl& existing,
                                            const Schema& data) {
  const SchemaPtr& target = existing.schema.schema();
  std::vector<std::string> present;
  std::vector<std::string> missing;
  for (const FieldPtr& f : target->fields()) {
    if (data.GetFieldIndex(f->name()) >= 0) {
      present.push_back(f->name());
    } else if (!f->nullable()) {
      return Status::Invalid("Cannot append to ", existing.uri,
                             ": the data lacks column '", f->name(),
                             "', which is not nullable.\nData schema:\n", data.ToString(),
                             "\nDataset schema:\n", target->ToString());
    } else {
      missing.push_back(f->name());
    }
  }
  if (missing.empty() || present.empty() ||
      static_cast<int>(present.size()) != data.num_fields()) {
    return existing.schema;  // MatchSchema names the mismatch
  }
  return existing.schema.Project(present);
}

struct WritePlan {
  format::LanceSchema schema;
  format::LanceFileVersion version = format::LanceFileVersion::kV2_0;
  bool append = false;
};

Result<WritePlan> PlanWrite(const std::shared_ptr<DatasetImpl>& existing,
                            const SchemaPtr& data_schema, const WriteParams& params) {
  WritePlan plan;
  // The requested version is checked even when an append ignores it, as pylance does:
  // an unknown spelling is a ValueError there ("Unknown Lance storage version: 2.9").
  Result<format::LanceFileVersion> requested =
      format::ParseWritableFileVersion(params.data_storage_version);
  if (!requested.ok() && requested.status().IsInvalid()) {
    return Status::Invalid(
        "Unknown Lance storage version: " + params.data_storage_version +
        " (expected 2.0, 2.1, 2.2 or stable)");
  }
  if (existing && params.mode == WriteMode::kAppend) {
    // Appends keep the dataset's schema (and field ids) and file version, whatever the
    // caller asked for.
    auto version = format::ParseFileVersion(existing->data_storage_version);
    if (!version.ok()) {
      return version.status().WithContext("appending to the dataset at " + existing->uri);
    }
    if (*version == format::LanceFileVersion::kLegacy) {
      return Status::NotImplemented(
          "Appending to the dataset at " + existing->uri +
          " is not supported: it is in the legacy file format (" +
          existing->data_storage_version +
          "), which lance-cpp reads but does not write (it writes 2.0, 2.1 and 2.2 "
          "files); overwrite the dataset to convert it");
    }
    LANCE_ASSIGN_OR_RAISE(plan.schema, AppendedColumns(*existing, *data_schema));
    LANCE_RETURN_NOT_OK(MatchSchema(*data_schema, *plan.schema.schema()).status());
    plan.version = *version;
    plan.append = true;
    return plan;
  }
  LANCE_RETURN_NOT_OK(requested.status());
  plan.version = *requested;
  LANCE_ASSIGN_OR_RAISE(plan.schema, format::LanceSchema::Assign(data_schema, 0));
  return plan;
}

// The transaction of a public DeleteOp against `base` (its read version). Updated
// fragments are recorded whole, as Lance records them: the base's fragment with the new
// deletion file, so that nothing the caller did not mean to change (data files, row
// counts, fields this library does not know) is rewritten.
Status DeleteToTransaction(const DeleteOp& op, const DatasetImpl& base,
                           pb::Transaction::Delete* out) {
  std::map<uint64_t, const pb::DataFragment*> fragments;
  for (const pb::DataFragment& frag : base.proto().fragments())
    fragments[frag.id()] = &frag;
  std::set<uint64_t> named;
  auto check = [&](uint64_t id) -> Result<const pb::DataFragment*> {
    auto it = fragments.find(id);
    if (it == fragments.end()) {
      return Status::Invalid("Delete: fragment ", id, " is not in version ",
                             base.proto().version(), " of ", base.uri);
    }
    if (!named.insert(id).second) {
      return Status::Invalid("Delete: fragment ", id, " is named more than once");
    }
    return it->second;
  };
  for (const FragmentMetadata& updated : op.updated_fragments) {
    LANCE_ASSIGN_OR_RAISE(const pb::DataFragment* frag, check(updated.id));
    pb::DataFragment* target = out->add_updated_fragments();
    *target = *frag;
    if (updated.deletion_file) {
      const uint64_t deleted = updated.deletion_file->num_deleted_rows;
      if (frag->physical_rows() > 0 && deleted >= frag->physical_rows()) {
        return Status::Invalid(
            "Delete: the deletion file of fragment ", updated.id, " deletes ", deleted,
            " of its ", frag->physical_rows(),
            " rows; remove the fragment instead (deleted_fragment_ids)");
      }
      *target->mutable_deletion_file() = ti::FragmentToProto(updated).deletion_file();
    } else {
      target->clear_deletion_file();
    }
  }
  for (uint64_t id : op.deleted_fragment_ids) {
    LANCE_RETURN_NOT_OK(check(id).status());
    out->add_deleted_fragment_ids(id);
  }
  out->set_predicate(op.predicate);
  return Status::OK();
}

ti::NamingScheme SchemeFor(bool v2) {
  return v2 ? ti::NamingScheme::kV2 : ti::NamingScheme::kV1;
}

}  // namespace

// -- Dataset
// ------------------------------------------------------------------------------

Dataset::Dataset(std::shared_ptr<DatasetImpl> impl) : impl_(std::move(impl)) {}

Result<std::shared_ptr<Dataset>> Dataset::Open(const std::string& uri,
                                               OpenOptions options) {
  LANCE_ASSIGN_OR_RAISE(Location at, ResolveDataset(uri, options.access));
  LANCE_ASSIGN_OR_RAISE(auto impl, LoadVersion(uri, at, options.version));
  return Wrap(std::move(impl));
}

const std::string& Dataset::uri() const { return impl_->uri; }
const io::StorageAccess& Dataset::storage_access() const { return impl_->access; }
std::optional<io::ProviderRefreshStats> Dataset::credential_stats() const {
  const auto* source = dynamic_cast<const io::RefreshingCredentialsSource*>(
      impl_->access.credentials.get());
  if (source == nullptr) return std::nullopt;
  return io::ToProviderRefreshStats(*source);
}
uint64_t Dataset::version() const { return impl_->proto().version(); }
SchemaPtr Dataset::schema() const { return impl_->schema.schema(); }
const std::vector<FragmentMetadata>& Dataset::fragments() const {
  return impl_->fragments;
}
std::string Dataset::data_storage_version() const { return impl_->data_storage_version; }

Result<uint64_t> Dataset::LatestVersion() const {
  LANCE_ASSIGN_OR_RAISE(auto latest, ti::FindLatestManifest(impl_->dir));
  if (!latest) return NoDataset(impl_->dir);
  return latest->version;
}

Result<int64_t> Dataset::CountRows(const std::string& filter) const {
  if (filter.empty()) {
    int64_t total = 0;
    for (const pb::DataFragment& frag : impl_->proto().fragments()) {
      LANCE_ASSIGN_OR_RAISE(int64_t live, ti::FragmentLiveRows(*impl_, frag));
      total += live;
    }
    return total;
  }
  ScanOptions options;
  options.filter = filter;
  LANCE_ASSIGN_OR_RAISE(auto reader,
                        ti::MakeScanner(impl_, options, /*count_only=*/true));
  int64_t total = 0;
  while (true) {
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr batch, reader->Next());
    if (!batch) break;
    total += batch->num_rows();
  }
  return total;
}

Result<RecordBatchReaderPtr> Dataset::Scan(const ScanOptions& options) const {
  return ti::MakeScanner(impl_, options, /*count_only=*/false);
}

Result<TablePtr> Dataset::ToTable(const ScanOptions& options) const {
  LANCE_ASSIGN_OR_RAISE(auto reader, Scan(options));
  return reader->ToTable();
}

Result<std::vector<VersionInfo>> Dataset::Versions() const {
  LANCE_ASSIGN_OR_RAISE(auto locations, ti::ListManifests(impl_->dir));
  std::vector<VersionInfo> out;
  for (const ti::ManifestLocation& loc : locations) {
    LANCE_ASSIGN_OR_RAISE(ti::LoadedManifest loaded, ti::ReadManifest(impl_->dir, loc));
    const pb::Manifest& m = loaded.manifest;
    VersionInfo info;
    info.version = m.version();
    info.timestamp_ms = m.timestamp().seconds() * 1000 + m.timestamp().nanos() / 1000000;
    // The summary pylance reports in versions()[i]["metadata"].
    uint64_t files = 0, file_rows = 0, deletion_files = 0, deleted_rows = 0, bytes = 0;
    for (const pb::DataFragment& f : m.fragments()) {
      files += f.files_size();
      file_rows += f.physical_rows();
      for (const pb::DataFile& file : f.files()) bytes += file.file_size_bytes();
      if (f.has_deletion_file()) {
        ++deletion_files;
        deleted_rows += f.deletion_file().num_deleted_rows();
      }
    }
    info.metadata["total_fragments"] = std::to_string(m.fragments_size());
    info.metadata["total_data_files"] = std::to_string(files);
    info.metadata["total_data_file_rows"] = std::to_string(file_rows);
    info.metadata["total_deletion_files"] = std::to_string(deletion_files);
    info.metadata["total_deletion_file_rows"] = std::to_string(deleted_rows);
    info.metadata["total_rows"] =
        std::to_string(file_rows >= deleted_rows ? file_rows - deleted_rows : 0);
    info.metadata["total_files_size"] = std::to_string(bytes);
    out.push_back(std::move(info));
  }
  return out;
}

Result<std::shared_ptr<Dataset>> Dataset::CheckoutVersion(uint64_t version) const {
  LANCE_ASSIGN_OR_RAISE(
      auto impl, LoadVersion(impl_->uri, Location{impl_->dir, impl_->access}, version));
  return Wrap(std::move(impl));
}

Status Dataset::Delete(const std::string& predicate_text) {
  const std::shared_ptr<DatasetImpl> ds = impl_;
  if (predicate_text.empty()) {
    return Status::Invalid("Delete needs a predicate (use \"true\" to delete every row)");
  }
  LANCE_ASSIGN_OR_RAISE(auto predicate,
                        table::Predicate::Parse(predicate_text, *ds->schema.schema()));
  std::vector<int> columns;
  for (const std::string& name : predicate->ReferencedColumns()) {
    const int index = ds->schema.schema()->GetFieldIndex(name);
    if (index < 0)
      return Status::Invalid("Delete predicate references unknown column " + name);
    columns.push_back(index);
  }
  const uint64_t read_version = ds->proto().version();
  pb::Transaction txn;
  txn.set_read_version(read_version);
  pb::Transaction::Delete* op = txn.mutable_delete_();
  op->set_predicate(predicate_text);

  for (const pb::DataFragment& frag : ds->proto().fragments()) {
    LANCE_ASSIGN_OR_RAISE(ti::DeletionVector existing, ti::LoadDeletions(*ds, frag));
    LANCE_ASSIGN_OR_RAISE(auto reader,
                          ti::FragmentReader::Open(*ds, frag, columns, 8192));
    ti::DeletionVector matched;
    while (true) {
      LANCE_ASSIGN_OR_RAISE(auto next, reader->Next());
      if (!next) break;
      LANCE_ASSIGN_OR_RAISE(ArrayPtr mask, predicate->Evaluate(*next->batch));
      if (mask->type_id() != TypeId::kBool || mask->length() != next->batch->num_rows()) {
        return Status::Invalid("Delete predicate evaluation returned a wrong mask");
      }
      const auto& bools = static_cast<const BooleanArray&>(*mask);
      for (int64_t i = 0; i < bools.length(); ++i) {
        if (bools.IsValid(i) && bools.Value(i)) {
          matched.push_back(static_cast<uint32_t>(next->start_row + i));
        }
      }
    }
    ti::DeletionVector merged = ti::MergeDeletions(existing, matched);
    if (merged.size() == existing.size()) continue;  // nothing new in this fragment
    if (static_cast<int64_t>(merged.size()) >= reader->physical_rows()) {
      // Lance drops a fully deleted fragment instead of writing a deletion file.
      op->add_deleted_fragment_ids(frag.id());
      continue;
    }
    LANCE_ASSIGN_OR_RAISE(
        pb::DeletionFile file,
        ti::WriteDeletionFile(ds->dir, frag.id(), read_version, merged));
    pb::DataFragment* updated = op->add_updated_fragments();
    *updated = frag;
    *updated->mutable_deletion_file() = file;
  }
  // Like Lance, a delete that matches nothing still commits a version.
  ti::CommitOptions options;
  LANCE_ASSIGN_OR_RAISE(
      ti::LoadedManifest committed,
      ti::CommitTransaction(ds->dir, &ds->manifest, std::move(txn), options));
  LANCE_ASSIGN_OR_RAISE(
      impl_, ti::MakeDatasetImpl(ds->uri, ds->access, ds->dir, std::move(committed)));
  return Status::OK();
}

// -- Writing ----------------------------------------------------------------------------

// What Write and WriteFragments share before they part ways (one commits, the other
// hands the fragments back): the dataset resolved, the latest version loaded unless
// mode create forbids one, the plan made and the data files written.
struct StagedWrite {
  Location at;
  std::shared_ptr<DatasetImpl> existing;
  WritePlan plan;
  std::vector<pb::DataFragment> fragments;
};

// `name_latest_version` picks the create-conflict message: Write names the version
// found and the modes that would work (as pylance does), WriteFragments only the place.
Result<StagedWrite> StageWrite(RecordBatchReader& data, const std::string& uri,
                               const WriteParams& params, bool name_latest_version) {
  StagedWrite staged;
  LANCE_ASSIGN_OR_RAISE(staged.at, ResolveDataset(uri, params.access));
  const ti::DatasetDir& dir = staged.at.dir;
  LANCE_ASSIGN_OR_RAISE(auto latest, ti::FindLatestManifest(dir));
  if (latest) {
    if (params.mode == WriteMode::kCreate) {
      std::string message = "A Lance dataset already exists at " + dir.Uri();
      if (name_latest_version) {
        message += " (version " + std::to_string(latest->version) +
                   "); use mode append or overwrite";
      }
      return Status::AlreadyExists(message);
    }
    LANCE_ASSIGN_OR_RAISE(staged.existing, LoadImpl(uri, staged.at, *latest));
  }
  LANCE_ASSIGN_OR_RAISE(staged.plan, PlanWrite(staged.existing, data.schema(), params));
  LANCE_ASSIGN_OR_RAISE(staged.fragments, WriteDataFiles(dir, data, staged.plan.schema,
                                                         staged.plan.version, params));
  return staged;
}

Result<std::shared_ptr<Dataset>> Dataset::Write(RecordBatchReader& data,
                                                const std::string& uri,
                                                WriteParams params) {
  LANCE_ASSIGN_OR_RAISE(StagedWrite staged,
                        StageWrite(data, uri, params, /*name_latest_version=*/true));
  const Location& at = staged.at;
  const ti::DatasetDir& dir = at.dir;
  const std::shared_ptr<DatasetImpl>& existing = staged.existing;
  const WritePlan& plan = staged.plan;
  std::vector<pb::DataFragment>& fragments = staged.fragments;

  pb::Transaction txn;
  txn.set_read_version(existing ? existing->proto().version() : 0);
  if (plan.append) {
    // An append of no rows still commits a version with an empty Append, as Lance does
    // (the operation must be set even without fragments).
    pb::Transaction::Append* op = txn.mutable_append();
    for (auto& f : fragments) *op->add_fragments() = std::move(f);
  } else {
    pb::Transaction::Overwrite* op = txn.mutable_overwrite();
    for (auto& f : fragments) *op->add_fragments() = std::move(f);
    LANCE_RETURN_NOT_OK(SchemaToTransaction(plan.schema, op));
  }
  ti::CommitOptions options;
  options.max_retries = std::max(0, params.commit_retries);
  options.new_dataset_scheme = SchemeFor(params.enable_v2_manifest_paths);
  options.data_storage_version = std::string(format::FileVersionString(plan.version));
  auto committed = ti::CommitTransaction(dir, existing ? &existing->manifest : nullptr,
                                         std::move(txn), options);
  if (!committed.ok()) {
    if (committed.status().IsConflict() && params.mode == WriteMode::kCreate) {
      return Status::AlreadyExists(
          "The dataset at " + dir.Uri() +
          " was created concurrently by another writer: " + committed.status().message());
    }
    return committed.status();
  }
  LANCE_ASSIGN_OR_RAISE(auto impl,
                        ti::MakeDatasetImpl(uri, at.access, dir, std::move(*committed)));
  return Wrap(std::move(impl));
}

Result<std::vector<FragmentMetadata>> WriteFragments(RecordBatchReader& data,
                                                     const std::string& uri,
                                                     WriteParams params) {
  LANCE_ASSIGN_OR_RAISE(StagedWrite staged,
                        StageWrite(data, uri, params, /*name_latest_version=*/false));
  std::vector<FragmentMetadata> out;
  out.reserve(staged.fragments.size());
  for (const auto& f : staged.fragments) out.push_back(ti::FragmentFromProto(f));
  return out;
}

Result<std::shared_ptr<Dataset>> Dataset::Commit(const std::string& uri,
                                                 const Operation& op,
                                                 std::optional<uint64_t> read_version,
                                                 const io::StorageAccess& access) {
  LANCE_ASSIGN_OR_RAISE(Location at, ResolveDataset(uri, access));
  const ti::DatasetDir& dir = at.dir;
  std::shared_ptr<DatasetImpl> base;
  pb::Transaction txn;
  ti::CommitOptions options;

  if (const auto* overwrite = std::get_if<OverwriteOp>(&op)) {
    if (!overwrite->schema) return Status::Invalid("Overwrite needs a schema");
    LANCE_ASSIGN_OR_RAISE(auto schema, format::LanceSchema::Assign(overwrite->schema, 0));
    if (!read_version) {
      LANCE_ASSIGN_OR_RAISE(auto latest, ti::FindLatestManifest(dir));
      if (latest) {
        LANCE_ASSIGN_OR_RAISE(base, LoadImpl(uri, at, *latest));
      }
    } else if (*read_version > 0) {
      LANCE_ASSIGN_OR_RAISE(base, LoadVersion(uri, at, *read_version));
    }
    pb::Transaction::Overwrite* o = txn.mutable_overwrite();
    for (const FragmentMetadata& f : overwrite->fragments) {
      pb::DataFragment frag = ti::FragmentToProto(f);
      LANCE_RETURN_NOT_OK(CheckFragmentFields(frag, schema, "Overwrite"));
      *o->add_fragments() = std::move(frag);
    }
    LANCE_RETURN_NOT_OK(SchemaToTransaction(schema, o));
  } else if (const auto* append = std::get_if<AppendOp>(&op)) {
    if (!read_version) {
      return Status::Invalid(
          "Commit: read_version is required for Append (the version the "
          "fragments were written against)");
    }
    LANCE_ASSIGN_OR_RAISE(base, LoadVersion(uri, at, *read_version));
    pb::Transaction::Append* a = txn.mutable_append();  // set even without fragments
    for (const FragmentMetadata& f : append->fragments) {
      pb::DataFragment frag = ti::FragmentToProto(f);
      LANCE_RETURN_NOT_OK(CheckFragmentFields(frag, base->schema, "Append"));
      *a->add_fragments() = std::move(frag);
    }
  } else {
    if (!read_version) {
      return Status::Invalid(
          "Commit: read_version is required for Delete (the version whose fragments it "
          "names)");
    }
    LANCE_ASSIGN_OR_RAISE(base, LoadVersion(uri, at, *read_version));
    LANCE_RETURN_NOT_OK(
        DeleteToTransaction(std::get<DeleteOp>(op), *base, txn.mutable_delete_()));
  }
  txn.set_read_version(base ? base->proto().version() : 0);
  // A caller retrying this commit (after CommitStateUnknown, say) passes the same
  // fragments again: finding them committed means done, not append them twice
  // (docs/commit-protocol.md, "Lost acknowledgements").
  options.same_commit_by_content = true;
  LANCE_ASSIGN_OR_RAISE(ti::LoadedManifest committed,
                        ti::CommitTransaction(dir, base ? &base->manifest : nullptr,
                                              std::move(txn), options));
  LANCE_ASSIGN_OR_RAISE(auto impl,
                        ti::MakeDatasetImpl(uri, at.access, dir, std::move(committed)));
  return Wrap(std::move(impl));
}

}  // namespace lance
