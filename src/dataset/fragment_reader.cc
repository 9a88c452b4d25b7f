// SPDX-License-Identifier: Apache-2.0
// Reading one fragment (fragment_reader.h): its data files opened and stitched side by
// side, columns no data file holds read as nulls, columns relabelled to the dataset
// schema's names, and the fragment's row counts and deletion vector. Scans (scan.cc),
// takes (take.cc) and the mutations build on these.

#include "dataset/fragment_reader.h"

#include <algorithm>
#include <cstring>
#include <set>

#include "dataset/dataset_internal.h"
#include "lance/core/builder.h"
#include "lance/format/file_reader.h"
#include "lance/macros.h"

namespace lance::table_internal {

// ---------------------------------------------------------------------------------------
// Type helpers

bool TypesCompatible(const DataType& actual, const DataType& expected) {
  if (actual.id() != expected.id()) return false;
  if (actual.fixed_size() != expected.fixed_size()) return false;
  if (actual.id() == TypeId::kTimestamp &&
      (actual.unit() != expected.unit() || actual.timezone() != expected.timezone())) {
    return false;
  }
  if (actual.num_fields() != expected.num_fields()) return false;
  for (int i = 0; i < actual.num_fields(); ++i) {
    const Field& a = *actual.fields()[i];
    const Field& e = *expected.fields()[i];
    if (actual.id() == TypeId::kStruct && a.name() != e.name()) return false;
    if (!TypesCompatible(*a.type(), *e.type())) return false;
  }
  return true;
}

namespace {

ArrayDataPtr RelabelData(const ArrayDataPtr& data, const DataTypePtr& type) {
  auto out = std::make_shared<ArrayData>(*data);
  out->type = type;
  for (size_t i = 0; i < out->children.size() && i < type->fields().size(); ++i) {
    out->children[i] = RelabelData(out->children[i], type->fields()[i]->type());
  }
  return out;
}

}  // namespace

ArrayPtr Relabel(const ArrayPtr& array, const DataTypePtr& type) {
  if (array->type()->Equals(*type)) return array;
  return MakeArray(RelabelData(array->data(), type));
}

Result<ArrayPtr> MakeNullArray(const DataTypePtr& type, int64_t length) {
  LANCE_ASSIGN_OR_RAISE(auto builder, MakeBuilder(type));
  LANCE_RETURN_NOT_OK(builder->AppendNulls(length));
  return builder->Finish();
}

// ---------------------------------------------------------------------------------------
// Fragment-level reads

struct FragmentReader::Source {
  std::string path;  // URI, for messages
  RecordBatchReaderPtr stream;
  std::vector<int> positions;  // output positions of the file's columns, in read order
  RecordBatchPtr current;
  int64_t pos = 0;
  bool done = false;
};

FragmentReader::~FragmentReader() = default;

namespace {

Status CheckDataFile(const DatasetImpl& ds, const pb::DataFragment& fragment,
                     const pb::DataFile& file) {
  if (file.has_base_id()) {
    return Status::NotImplemented("Data file " + file.path() + " of fragment " +
                                  std::to_string(fragment.id()) + " of " + ds.uri +
                                  " lives in another base path, which lance-cpp does not "
                                  "support");
  }
  if (file.path().empty()) {
    return Status::Corrupt("Manifest " + ds.manifest_uri() + ": fragment " +
                           std::to_string(fragment.id()) +
                           " has a data file without a path");
  }
  return Status::OK();
}

// Errors of the format layer usually name the file already; make sure they do.
Status NameDataFile(const Status& st, const DatasetImpl& ds, const std::string& path) {
  if (st.ok() || st.message().find(path) != std::string::npos) return st;
  return st.WithContext("reading data file " + ds.dir.Uri("data/" + path));
}

}  // namespace

Result<std::shared_ptr<format::LanceFileReader>> OpenDataFile(
    const DatasetImpl& ds, const pb::DataFragment& fragment, const pb::DataFile& file) {
  LANCE_RETURN_NOT_OK(CheckDataFile(ds, fragment, file));
  format::FileReaderOptions options;
  if (file.file_size_bytes() > 0 &&
      file.file_size_bytes() <= static_cast<uint64_t>(INT64_MAX)) {
    options.file_size = static_cast<int64_t>(file.file_size_bytes());
  }
  auto reader = format::LanceFileReader::Open(ds.dir.store(),
                                              ds.dir.Key("data/" + file.path()), options);
  if (!reader.ok()) return NameDataFile(reader.status(), ds, file.path());
  return reader;
}

Result<int64_t> FragmentPhysicalRows(const DatasetImpl& ds,
                                     const pb::DataFragment& fragment) {
  // Lance before 0.8.x could record a wrong physical_rows (the post-deletion count);
  // like Lance, trust it only from writers that record their version.
  if (fragment.physical_rows() > 0 && ds.proto().has_writer_version()) {
    if (fragment.physical_rows() > static_cast<uint64_t>(INT64_MAX)) {
      return Status::Corrupt("Manifest " + ds.manifest_uri() + ": fragment " +
                             std::to_string(fragment.id()) + " claims " +
                             std::to_string(fragment.physical_rows()) + " rows");
    }
    return static_cast<int64_t>(fragment.physical_rows());
  }
  if (fragment.files_size() == 0) return 0;
  // Old writers left physical_rows unset: the data file knows.
  LANCE_ASSIGN_OR_RAISE(auto reader, OpenDataFile(ds, fragment, fragment.files(0)));
  return reader->num_rows();
}

Result<DeletionVector> LoadDeletions(const DatasetImpl& ds,
                                     const pb::DataFragment& fragment) {
  if (!fragment.has_deletion_file()) return DeletionVector{};
  LANCE_ASSIGN_OR_RAISE(int64_t rows, FragmentPhysicalRows(ds, fragment));
  return ReadDeletionFile(ds.dir, fragment.id(), fragment.deletion_file(),
                          static_cast<uint64_t>(rows));
}

Result<int64_t> FragmentLiveRows(const DatasetImpl& ds,
                                 const pb::DataFragment& fragment) {
  LANCE_ASSIGN_OR_RAISE(int64_t rows, FragmentPhysicalRows(ds, fragment));
  if (!fragment.has_deletion_file()) return rows;
  uint64_t deleted = fragment.deletion_file().num_deleted_rows();
  if (deleted == 0) {
    // Written by a Lance that did not record the count: count the file.
    LANCE_ASSIGN_OR_RAISE(DeletionVector dv, LoadDeletions(ds, fragment));
    deleted = dv.size();
  }
  if (deleted > static_cast<uint64_t>(rows)) {
    return Status::Corrupt("Manifest " + ds.manifest_uri() + ": fragment " +
                           std::to_string(fragment.id()) + " deletes " +
                           std::to_string(deleted) + " of its " + std::to_string(rows) +
                           " rows");
  }
  return rows - static_cast<int64_t>(deleted);
}

Result<ArrayPtr> MatchColumnType(ArrayPtr column, const Field& expected,
                                 const std::string& path) {
  if (column->type()->Equals(*expected.type())) return column;
  if (!TypesCompatible(*column->type(), *expected.type())) {
    return Status::Corrupt("Data file " + path + " stores column '" + expected.name() +
                           "' as " + column->type()->ToString() +
                           " but the dataset schema says " + expected.type()->ToString());
  }
  return Relabel(column, expected.type());
}

Result<ColumnPlacement> PlaceColumns(const DatasetImpl& ds,
                                     const pb::DataFragment& fragment,
                                     const std::vector<int>& columns) {
  // Which data file holds each column: the last one listing any id of its subtree
  // (v2.0 files list every id, v2.1+ files only leaves; later files supersede earlier
  // ones when columns were rewritten).
  ColumnPlacement out;
  out.per_file.resize(static_cast<size_t>(fragment.files_size()));
  for (size_t p = 0; p < columns.size(); ++p) {
    const Field& field = *ds.schema.schema()->field(columns[p]);
    for (const auto& [key, value] : field.metadata()) {
      // Lance 2.2 blob columns: the manifest declares struct<data, uri> but the data file
      // holds blob descriptions (kind, position, size, blob_id, blob_uri) pointing into
      // sidecar blob files. Reading them as the declared type would be wrong data.
      if (key == "ARROW:extension:name" && value == "lance.blob.v2") {
        return Status::NotImplemented(
            "column '" + field.name() + "' of " + ds.uri +
            " is a Lance blob column (lance.blob.v2), which this build cannot read; "
            "project the other columns");
      }
    }
    const std::vector<int32_t> subtree = ds.schema.SubtreeIds(columns[p]);
    const std::set<int32_t> ids(subtree.begin(), subtree.end());
    int holder = -1;
    for (int f = fragment.files_size() - 1; f >= 0 && holder < 0; --f) {
      for (int32_t id : fragment.files(f).fields()) {
        if (ids.count(id) != 0) {
          holder = f;
          break;
        }
      }
    }
    if (holder < 0) {
      out.null_positions.push_back(static_cast<int>(p));
    } else {
      out.per_file[holder].push_back({static_cast<int>(p), subtree.front()});
    }
  }
  return out;
}

Result<std::unique_ptr<FragmentReader>> FragmentReader::Open(
    const DatasetImpl& ds, const pb::DataFragment& fragment,
    const std::vector<int>& columns, int64_t batch_size) {
  std::unique_ptr<FragmentReader> out(new FragmentReader());
  out->batch_size_ = std::max<int64_t>(1, batch_size);
  out->fragment_name_ = "fragment " + std::to_string(fragment.id()) + " of " + ds.uri;
  std::vector<FieldPtr> fields;
  fields.reserve(columns.size());
  for (int c : columns) fields.push_back(ds.schema.schema()->field(c));
  out->schema_ = ::lance::schema(std::move(fields));

  LANCE_ASSIGN_OR_RAISE(ColumnPlacement placement, PlaceColumns(ds, fragment, columns));
  out->null_positions_ = std::move(placement.null_positions);
  const auto& per_file = placement.per_file;

  int64_t physical = !ds.proto().has_writer_version()
                         ? 0  // taken from the data files below, as Lance does
                     : fragment.physical_rows() <= static_cast<uint64_t>(INT64_MAX)
                         ? static_cast<int64_t>(fragment.physical_rows())
                         : -1;
  if (physical < 0) {
    return Status::Corrupt("Manifest " + ds.manifest_uri() + ": " + out->fragment_name_ +
                           " has an impossible row count");
  }
  for (int f = 0; f < fragment.files_size(); ++f) {
    if (per_file[f].empty()) continue;
    const pb::DataFile& file = fragment.files(f);
    LANCE_ASSIGN_OR_RAISE(auto reader, OpenDataFile(ds, fragment, file));
    const std::string path = ds.dir.Uri("data/" + file.path());
    if (physical == 0) physical = reader->num_rows();
    if (reader->num_rows() != physical) {
      return Status::Corrupt("Data file " + path + " has " +
                             std::to_string(reader->num_rows()) +
                             " rows but the manifest says " + out->fragment_name_ +
                             " has " + std::to_string(physical));
    }
    format::FileReadOptions read;
    read.batch_size = out->batch_size_;
    auto source = std::make_unique<Source>();
    source->path = path;
    for (const auto& [pos, id] : per_file[f]) {
      read.field_ids.push_back(id);
      source->positions.push_back(pos);
    }
    auto stream = reader->Read(read);
    if (!stream.ok()) return NameDataFile(stream.status(), ds, file.path());
    source->stream = std::move(*stream);
    out->sources_.push_back(std::move(source));
  }
  if (fragment.files_size() == 0 && physical > 0) {
    return Status::Corrupt("Manifest " + ds.manifest_uri() + ": " + out->fragment_name_ +
                           " has " + std::to_string(physical) +
                           " rows but no data files");
  }
  if (out->sources_.empty() && fragment.files_size() > 0) {
    // No column comes from a file (a count, or columns added later), so rows are
    // produced from the count alone: check it against a data file so that a damaged
    // manifest cannot make us produce billions of rows.
    LANCE_ASSIGN_OR_RAISE(auto reader, OpenDataFile(ds, fragment, fragment.files(0)));
    if (physical == 0) physical = reader->num_rows();
    if (reader->num_rows() != physical) {
      return Status::Corrupt(
          "Data file " + ds.dir.Uri("data/" + fragment.files(0).path()) + " has " +
          std::to_string(reader->num_rows()) + " rows but the manifest says " +
          out->fragment_name_ + " has " + std::to_string(physical));
    }
  }
  out->physical_rows_ = physical;
  return out;
}

Result<std::optional<FragmentBatch>> FragmentReader::Next() {
  if (row_ >= physical_rows_) {
    // Files must not hold more rows than the fragment claims.
    for (auto& s : sources_) {
      if (s->done) continue;
      if (s->current && s->pos < s->current->num_rows()) {
        return Status::Corrupt("Data file " + s->path + " holds more rows than " +
                               fragment_name_ + " records");
      }
    }
    return std::optional<FragmentBatch>();
  }
  int64_t n = std::min(batch_size_, physical_rows_ - row_);
  for (auto& s : sources_) {
    while (!s->done && (!s->current || s->pos >= s->current->num_rows())) {
      auto next = s->stream->Next();
      if (!next.ok()) {
        if (next.status().message().find(s->path) != std::string::npos)
          return next.status();
        return next.status().WithContext("reading data file " + s->path);
      }
      s->current = std::move(*next);
      s->pos = 0;
      if (!s->current) s->done = true;
    }
    if (s->done) {
      return Status::Corrupt(
          "Data file " + s->path + " ended at row " + std::to_string(row_) + " of the " +
          std::to_string(physical_rows_) + " rows of " + fragment_name_);
    }
    if (s->current->num_columns() != static_cast<int>(s->positions.size())) {
      return Status::Corrupt("Data file " + s->path + " returned " +
                             std::to_string(s->current->num_columns()) +
                             " columns, expected " + std::to_string(s->positions.size()));
    }
    n = std::min(n, s->current->num_rows() - s->pos);
  }
  std::vector<ArrayPtr> columns(schema_->num_fields());
  for (auto& s : sources_) {
    for (size_t k = 0; k < s->positions.size(); ++k) {
      const int p = s->positions[k];
      LANCE_ASSIGN_OR_RAISE(
          columns[p],
          MatchColumnType(s->current->column(static_cast<int>(k))->Slice(s->pos, n),
                          *schema_->field(p), s->path));
    }
    s->pos += n;
  }
  for (int p : null_positions_) {
    LANCE_ASSIGN_OR_RAISE(columns[p], MakeNullArray(schema_->field(p)->type(), n));
  }
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr batch,
                        RecordBatch::Make(schema_, n, std::move(columns)));
  FragmentBatch out{std::move(batch), row_};
  row_ += n;
  return std::optional<FragmentBatch>(std::move(out));
}

}  // namespace lance::table_internal
