// SPDX-License-Identifier: Apache-2.0
// Random access: Dataset::Take and TakeFromFragment. Positions among live rows are
// mapped to fragments and, through the deletion vectors, to physical row offsets; each
// data file then reads only what holds those rows (LanceFileReader::Take).

#include <algorithm>
#include <numeric>
#include <set>

#include "dataset/dataset_internal.h"
#include "dataset/fragment_reader.h"
#include "dataset/projection.h"
#include "lance/core/builder.h"
#include "lance/core/compute.h"
#include "lance/core/concatenate.h"
#include "lance/macros.h"
#include "lance/str_cat.h"

namespace lance {

namespace ti = table_internal;
namespace pb = table_internal::pb;

namespace {

constexpr const char* kRowIdColumn = "_rowid";

struct Projection {
  std::vector<int> columns;  // top-level field indices to read
  /// Per read column: the parts of it to keep (struct fields requested by path).
  std::vector<ti::PruneNode> prune;
  std::vector<FieldPtr> pruned;  // per read column: its output field
  bool schema_order = true;      // order of kept struct fields (else: request order)
  bool row_id = false;
  int row_id_position = -1;  // position of _rowid among the outputs
  SchemaPtr schema;
};

// `schema_order`: pylance's LanceDataset.take keeps the schema's order of a pruned
// struct's fields, LanceFragment.take the order they were asked in.
Result<Projection> Project(const DatasetImpl& ds, const TakeOptions& options,
                           bool schema_order) {
  const Schema& full = *ds.schema.schema();
  Projection out;
  out.schema_order = schema_order;
  std::vector<std::string> names = options.columns;
  if (names.empty()) {
    for (const FieldPtr& f : full.fields()) names.push_back(f->name());
  }
  // Output slots in order of first mention: a read column index, or -1 for _rowid. A
  // column named twice is taken once (as pylance's take does).
  std::vector<int> slots;
  for (const std::string& name : names) {
    if (name == kRowIdColumn && full.GetFieldIndex(name) < 0) {
      if (!out.row_id) {
        out.row_id = true;
        slots.push_back(-1);
      }
      continue;
    }
    LANCE_ASSIGN_OR_RAISE(ti::FieldPath path,
                          ti::ResolveFieldPath(full, name, "Take", ds.uri,
                                               /*through_lists=*/true));
    auto it = std::find(out.columns.begin(), out.columns.end(), path.top);
    size_t k = static_cast<size_t>(it - out.columns.begin());
    if (it == out.columns.end()) {
      out.columns.push_back(path.top);
      out.prune.emplace_back();
      slots.push_back(static_cast<int>(k));
    }
    out.prune[k].Add(path.children);
  }
  if (options.with_row_id && !out.row_id) {
    out.row_id = true;
    slots.push_back(-1);
  }
  std::vector<FieldPtr> fields;
  for (size_t k = 0; k < out.columns.size(); ++k) {
    out.pruned.push_back(out.prune[k].Prune(full.field(out.columns[k]), schema_order));
  }
  for (int slot : slots) {
    if (slot < 0) {
      out.row_id_position = static_cast<int>(fields.size());
      fields.push_back(field(kRowIdColumn, uint64(), true));
    } else {
      fields.push_back(out.pruned[static_cast<size_t>(slot)]);
    }
  }
  out.schema = schema(std::move(fields), full.metadata());
  return out;
}

/// Physical offsets of the live rows at `logical` (ascending) positions.
std::vector<int64_t> ToPhysical(const std::vector<int64_t>& logical,
                                const ti::DeletionVector& deleted) {
  std::vector<int64_t> out;
  out.reserve(logical.size());
  size_t d = 0;
  for (int64_t pos : logical) {
    // physical = pos + number of deleted rows at or before physical.
    int64_t physical = pos + static_cast<int64_t>(d);
    while (d < deleted.size() && static_cast<int64_t>(deleted[d]) <= physical) {
      ++d;
      ++physical;
    }
    out.push_back(physical);
  }
  return out;
}

/// Output batch for `rows` of a fragment in the projection's layout.
Result<RecordBatchPtr> TakeRows(const DatasetImpl& ds, const pb::DataFragment& fragment,
                                const Projection& projection,
                                const std::vector<int64_t>& rows) {
  LANCE_ASSIGN_OR_RAISE(
      RecordBatchPtr batch,
      ti::TakeFromFragment(ds, fragment, projection.columns, rows, projection.row_id));
  std::vector<ArrayPtr> columns;
  for (size_t k = 0; k < projection.columns.size(); ++k) {
    const ArrayPtr& column = batch->column(static_cast<int>(k));
    columns.push_back(projection.prune[k].whole()
                          ? column
                          : projection.prune[k].Apply(column, projection.pruned[k],
                                                      projection.schema_order));
  }
  if (projection.row_id) {
    columns.insert(columns.begin() + projection.row_id_position, batch->columns().back());
  }
  return RecordBatch::Make(projection.schema, batch->num_rows(), std::move(columns));
}

/// The rows of `parts` (one per sorted unique row) reordered to the caller's order.
Result<TablePtr> Reorder(const Projection& projection,
                         const std::vector<RecordBatchPtr>& parts,
                         const std::vector<int64_t>& sorted,
                         const std::vector<int64_t>& indices) {
  std::vector<ArrayPtr> columns;
  const int n = projection.schema->num_fields();
  for (int c = 0; c < n; ++c) {
    std::vector<ArrayPtr> pieces;
    pieces.reserve(parts.size());
    for (const auto& part : parts) pieces.push_back(part->column(c));
    ArrayPtr column;
    if (pieces.empty()) {
      LANCE_ASSIGN_OR_RAISE(auto builder,
                            MakeBuilder(projection.schema->field(c)->type()));
      LANCE_ASSIGN_OR_RAISE(column, builder->Finish());
    } else if (pieces.size() == 1) {
      column = pieces[0];
    } else {
      LANCE_ASSIGN_OR_RAISE(column, Concatenate(pieces));
    }
    columns.push_back(std::move(column));
  }
  LANCE_RETURN_NOT_OK(compute::ReorderRows(sorted, indices, &columns));
  const int64_t rows = static_cast<int64_t>(indices.size());
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr batch,
                        RecordBatch::Make(projection.schema, rows, std::move(columns)));
  return Table::Make(projection.schema, {batch});
}

}  // namespace

namespace table_internal {

Result<RecordBatchPtr> TakeFromFragment(const DatasetImpl& ds,
                                        const pb::DataFragment& fragment,
                                        const std::vector<int>& columns,
                                        const std::vector<int64_t>& rows,
                                        bool with_row_id) {
  const std::string name = "fragment " + std::to_string(fragment.id()) + " of " + ds.uri;
  LANCE_ASSIGN_OR_RAISE(int64_t physical, FragmentPhysicalRows(ds, fragment));
  for (int64_t r : rows) {
    if (r < 0 || r >= physical) {
      return Status::Invalid("Take: row " + std::to_string(r) + " is outside the " +
                             std::to_string(physical) + " rows of " + name);
    }
  }
  LANCE_ASSIGN_OR_RAISE(ColumnPlacement placement, PlaceColumns(ds, fragment, columns));
  std::vector<FieldPtr> fields;
  fields.reserve(columns.size());
  for (int c : columns) fields.push_back(ds.schema.schema()->field(c));
  std::vector<ArrayPtr> out(columns.size());
  const int64_t n = static_cast<int64_t>(rows.size());
  for (int f = 0; f < fragment.files_size(); ++f) {
    const auto& held = placement.per_file[static_cast<size_t>(f)];
    if (held.empty()) continue;
    const pb::DataFile& file = fragment.files(f);
    const std::string path = ds.dir.Uri("data/" + file.path());
    LANCE_ASSIGN_OR_RAISE(auto reader, OpenDataFile(ds, fragment, file));
    if (reader->num_rows() != physical) {
      return Status::Corrupt(StrCat("Data file ", path, " has ", reader->num_rows(),
                                    " rows but the manifest says ", name, " has ",
                                    physical));
    }
    std::vector<int32_t> ids;
    ids.reserve(held.size());
    for (const auto& [pos, id] : held) ids.push_back(id);
    auto batch = reader->Take(rows, ids);
    if (!batch.ok()) {
      const Status& st = batch.status();
      if (st.message().find(file.path()) != std::string::npos) return st;
      return st.WithContext("reading data file " + path);
    }
    for (size_t k = 0; k < held.size(); ++k) {
      const int p = held[k].first;
      LANCE_ASSIGN_OR_RAISE(out[p], MatchColumnType((*batch)->column(static_cast<int>(k)),
                                                    *fields[p], path));
    }
  }
  for (int p : placement.null_positions) {
    LANCE_ASSIGN_OR_RAISE(out[p], MakeNullArray(fields[p]->type(), n));
  }
  if (with_row_id) {
    UInt64Builder ids;
    LANCE_RETURN_NOT_OK(ids.Reserve(n));
    for (int64_t r : rows) {
      LANCE_RETURN_NOT_OK(ids.Append((fragment.id() << 32) | static_cast<uint64_t>(r)));
    }
    LANCE_ASSIGN_OR_RAISE(ArrayPtr array, ids.Finish());
    out.push_back(std::move(array));
    fields.push_back(field(kRowIdColumn, uint64(), true));
  }
  return RecordBatch::Make(schema(std::move(fields)), n, std::move(out));
}

}  // namespace table_internal

Result<TablePtr> Dataset::Take(const std::vector<int64_t>& indices,
                               const TakeOptions& options) const {
  LANCE_ASSIGN_OR_RAISE(Projection projection,
                        Project(*impl_, options, /*schema_order=*/true));
  const auto& fragments = impl_->proto().fragments();
  // Live rows before each fragment.
  std::vector<int64_t> starts = {0};
  for (const pb::DataFragment& frag : fragments) {
    LANCE_ASSIGN_OR_RAISE(int64_t live, ti::FragmentLiveRows(*impl_, frag));
    starts.push_back(starts.back() + live);
  }
  const int64_t total = starts.back();
  for (int64_t i : indices) {
    if (i < 0 || i >= total) {
      return Status::Invalid("Take: index " + std::to_string(i) + " is outside the " +
                             std::to_string(total) + " rows of dataset " + impl_->uri);
    }
  }
  std::vector<int64_t> sorted = indices;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::vector<RecordBatchPtr> parts;
  size_t i = 0;
  for (int f = 0; f < fragments.size() && i < sorted.size(); ++f) {
    std::vector<int64_t> logical;
    while (i < sorted.size() && sorted[i] < starts[f + 1])
      logical.push_back(sorted[i++] - starts[f]);
    if (logical.empty()) continue;
    LANCE_ASSIGN_OR_RAISE(ti::DeletionVector deleted,
                          ti::LoadDeletions(*impl_, fragments[f]));
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr part, TakeRows(*impl_, fragments[f], projection,
                                                        ToPhysical(logical, deleted)));
    parts.push_back(std::move(part));
  }
  return Reorder(projection, parts, sorted, indices);
}

Result<TablePtr> Dataset::TakeFromFragment(uint64_t fragment_id,
                                           const std::vector<int64_t>& indices,
                                           const TakeOptions& options) const {
  LANCE_ASSIGN_OR_RAISE(Projection projection,
                        Project(*impl_, options, /*schema_order=*/false));
  const pb::DataFragment* fragment = nullptr;
  for (const pb::DataFragment& frag : impl_->proto().fragments()) {
    if (frag.id() == fragment_id) fragment = &frag;
  }
  if (fragment == nullptr) {
    return Status::NotFound("Take: no fragment " + std::to_string(fragment_id) +
                            " in version " + std::to_string(version()) + " of dataset " +
                            impl_->uri);
  }
  LANCE_ASSIGN_OR_RAISE(int64_t live, ti::FragmentLiveRows(*impl_, *fragment));
  for (int64_t i : indices) {
    if (i < 0 || i >= live) {
      return Status::Invalid("Take: index " + std::to_string(i) + " is outside the " +
                             std::to_string(live) + " rows of fragment " +
                             std::to_string(fragment_id) + " of dataset " + impl_->uri);
    }
  }
  std::vector<int64_t> sorted = indices;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::vector<RecordBatchPtr> parts;
  if (!sorted.empty()) {
    LANCE_ASSIGN_OR_RAISE(ti::DeletionVector deleted,
                          ti::LoadDeletions(*impl_, *fragment));
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr part, TakeRows(*impl_, *fragment, projection,
                                                        ToPhysical(sorted, deleted)));
    parts.push_back(std::move(part));
  }
  return Reorder(projection, parts, sorted, indices);
}

}  // namespace lance
