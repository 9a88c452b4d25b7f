// SPDX-License-Identifier: Apache-2.0
// Dataset::Update (UPDATE t SET col = expr WHERE pred) and the helpers the mutations
// share (mutation_internal.h).
//
// An update rewrites whole rows, as Lance's REWRITE_ROWS mode: in each fragment holding
// matched rows, those rows are marked deleted (a new deletion file, or the fragment is
// removed when no row is left) and their new values are written into new fragments.
// Fragments without a match are not touched. The commit is Lance's `Update` operation.
#include <algorithm>
#include <set>
#include <thread>

#include "dataset/fragment_reader.h"
#include "dataset/mutation_internal.h"
#include "lance/core/cast.h"
#include "lance/core/compute.h"
#include "lance/macros.h"
#include "table/commit.h"
#include "table/deletion.h"
#include "table/ids.h"
#include "table/predicate/predicate.h"
#include "table/predicate/value_expression.h"

namespace lance {
namespace table_internal {

// -- Shared helpers
// ----------------------------------------------------------------------

Result<format::LanceFileVersion> WritableVersion(const DatasetImpl& ds,
                                                 std::string_view what) {
  auto version = format::ParseFileVersion(ds.data_storage_version);
  if (!version.ok()) return version.status().WithContext(StrCat(what, " on ", ds.uri));
  if (*version == format::LanceFileVersion::kLegacy) {
    return Status::NotImplemented(what, " on the dataset at ", ds.uri,
                                  " is not supported: it is in the legacy file format, "
                                  "which lance-cpp reads but does not write");
  }
  return *version;
}

Result<std::vector<int>> ColumnIndices(const DatasetImpl& ds,
                                       const std::vector<std::string>& names,
                                       std::string_view what) {
  std::vector<int> out;
  for (const std::string& name : names) {
    const int index = ds.schema.schema()->GetFieldIndex(name);
    if (index < 0) {
      return Status::Invalid(what, ": column '", name,
                             "' does not exist in the dataset at ", ds.uri);
    }
    out.push_back(index);
  }
  return out;
}

Result<ArrayPtr> ConformColumn(const ArrayPtr& values, const Field& field,
                               std::string_view what) {
  ArrayPtr out;
  if (TypesCompatible(*values->type(), *field.type())) {
    out = Relabel(values, field.type());
  } else if (values->type_id() == TypeId::kNull) {
    LANCE_ASSIGN_OR_RAISE(out, MakeNullArray(field.type(), values->length()));
  } else {
    auto cast = compute::Cast(values, field.type());
    if (!cast.ok()) {
      return cast.status().WithContext(
          StrCat(what, ": storing a value of type ", values->type()->ToString(),
                 " into column '", field.name(), "' of type ", field.type()->ToString()));
    }
    out = Relabel(*cast, field.type());
  }
  if (!field.nullable() && out->null_count() > 0) {
    return Status::Invalid(what, ": column '", field.name(),
                           "' is not nullable but the new values have ",
                           out->null_count(), " nulls");
  }
  return out;
}

Result<std::shared_ptr<DatasetImpl>> CommitMutation(const DatasetImpl& ds,
                                                    pb::Transaction txn) {
  CommitOptions options;
  LANCE_ASSIGN_OR_RAISE(LoadedManifest committed,
                        CommitTransaction(ds.dir, &ds.manifest, std::move(txn), options));
  return MakeDatasetImpl(ds.uri, ds.access, ds.dir, std::move(committed));
}

Status RunWithRetries(const MutationRetry& retry,
                      const std::function<Status(uint32_t)>& attempt) {
  const auto start = std::chrono::steady_clock::now();
  const int max_attempts = 1 + std::max(0, retry.conflict_retries);
  Status last;
  for (int i = 1; i <= max_attempts; ++i) {
    if (i > 1) {
      const double elapsed =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (elapsed >= retry.retry_timeout_seconds) {
        return last.WithContext(StrCat("giving up after ", i - 1,
                                       " attempts: the retry timeout of ",
                                       retry.retry_timeout_seconds, " s passed"));
      }
      // A short, growing pause lets the competing writer finish.
      std::this_thread::sleep_for(std::chrono::milliseconds(std::min(50 * (i - 1), 500)));
    }
    last = attempt(static_cast<uint32_t>(i));
    if (last.ok() || !last.IsConflict() || !last.retryable()) return last;
  }
  return last.WithContext(StrCat("giving up after ", max_attempts, " attempts"));
}

int32_t MaxFieldIdInUse(const DatasetImpl& ds) {
  int32_t max_id = ds.schema.max_field_id();
  for (const pb::DataFragment& frag : ds.proto().fragments()) {
    for (const pb::DataFile& file : frag.files()) {
      for (int32_t id : file.fields()) max_id = std::max(max_id, id);
    }
  }
  return max_id;
}

Result<std::vector<uint32_t>> MatchedRows(const Array& mask, int64_t start_row) {
  LANCE_ASSIGN_OR_RAISE(std::vector<int64_t> selected, compute::SelectedIndices(mask));
  std::vector<uint32_t> out;
  out.reserve(selected.size());
  for (int64_t i : selected) out.push_back(static_cast<uint32_t>(start_row + i));
  return out;
}

Status AddDeletionToUpdate(const DatasetImpl& ds, const pb::DataFragment& frag,
                           const DeletionVector& deleted, pb::Transaction::Update* op) {
  if (deleted.empty()) return Status::OK();
  LANCE_ASSIGN_OR_RAISE(DeletionVector existing, LoadDeletions(ds, frag));
  DeletionVector merged = MergeDeletions(existing, deleted);
  LANCE_ASSIGN_OR_RAISE(int64_t physical, FragmentPhysicalRows(ds, frag));
  if (static_cast<int64_t>(merged.size()) >= physical) {
    op->add_removed_fragment_ids(frag.id());
    return Status::OK();
  }
  LANCE_ASSIGN_OR_RAISE(
      pb::DeletionFile file,
      WriteDeletionFile(ds.dir, frag.id(), ds.proto().version(), merged));
  pb::DataFragment* updated = op->add_updated_fragments();
  *updated = frag;
  *updated->mutable_deletion_file() = file;
  return Status::OK();
}

namespace {

struct CompiledUpdate {
  int column = 0;  // top-level index of the updated column
  std::shared_ptr<const table::ValueExpression> expr;
};

Result<std::vector<CompiledUpdate>> CompileUpdates(
    const DatasetImpl& ds,
    const std::vector<std::pair<std::string, std::string>>& updates) {
  const SchemaPtr& schema = ds.schema.schema();
  if (updates.empty()) return Status::Invalid("Update needs at least one column to set");
  std::vector<CompiledUpdate> compiled;
  std::set<int> seen;
  for (const auto& [name, text] : updates) {
    const int index = schema->GetFieldIndex(name);
    if (index < 0) {
      return Status::Invalid("Update: column '", name,
                             "' does not exist in the dataset at ", ds.uri);
    }
    if (!seen.insert(index).second) {
      return Status::Invalid("Update: column '", name, "' is set more than once");
    }
    auto expr = table::ValueExpression::Parse(text, *schema);
    if (!expr.ok()) {
      return expr.status().WithContext(
          StrCat("Update: the expression for column '", name, "' (", text, ")"));
    }
    compiled.push_back(CompiledUpdate{index, *expr});
  }
  return compiled;
}

// The plan of one Update attempt, and what it has written so far.
struct UpdatePlan {
  std::vector<CompiledUpdate> compiled;
  std::shared_ptr<const table::Predicate> predicate;  // null: every row
  // Every column is read: matched rows are written whole into the new fragments.
  std::vector<int> all_columns;
  uint64_t updated_rows = 0;
};

// Writes the new values of the live rows `live` of `batch` into `sink`.
Status WriteUpdatedRows(const DatasetImpl& ds, const UpdatePlan& plan,
                        const RecordBatch& batch, const std::vector<int64_t>& live,
                        FragmentSink* sink) {
  const SchemaPtr& schema = ds.schema.schema();
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr old_rows, compute::TakeBatch(batch, live));
  std::vector<ArrayPtr> columns = old_rows->columns();
  for (const CompiledUpdate& u : plan.compiled) {
    LANCE_ASSIGN_OR_RAISE(ArrayPtr values, u.expr->Evaluate(*old_rows));
    LANCE_ASSIGN_OR_RAISE(columns[static_cast<size_t>(u.column)],
                          ConformColumn(values, *schema->field(u.column), "Update"));
  }
  LANCE_ASSIGN_OR_RAISE(auto new_rows,
                        RecordBatch::Make(schema, old_rows->num_rows(), columns));
  return sink->Write(*new_rows);
}

// Rewrites the matched rows of `frag` into `sink` and marks them deleted in `op`.
Status UpdateFragment(const DatasetImpl& ds, const pb::DataFragment& frag,
                      UpdatePlan* plan, FragmentSink* sink, pb::Transaction::Update* op) {
  LANCE_ASSIGN_OR_RAISE(DeletionVector existing, LoadDeletions(ds, frag));
  const std::set<uint32_t> deleted(existing.begin(), existing.end());
  LANCE_ASSIGN_OR_RAISE(auto reader,
                        FragmentReader::Open(ds, frag, plan->all_columns, 8192));
  DeletionVector matched;
  while (true) {
    LANCE_ASSIGN_OR_RAISE(auto next, reader->Next());
    if (!next) break;
    const RecordBatch& batch = *next->batch;
    // Rows to update: live and matching the predicate.
    std::vector<int64_t> rows;
    ArrayPtr mask;
    if (plan->predicate) {
      LANCE_ASSIGN_OR_RAISE(mask, plan->predicate->Evaluate(batch));
      LANCE_ASSIGN_OR_RAISE(rows, compute::SelectedIndices(*mask));
    } else {
      rows.resize(static_cast<size_t>(batch.num_rows()));
      for (int64_t i = 0; i < batch.num_rows(); ++i) rows[static_cast<size_t>(i)] = i;
    }
    std::vector<int64_t> live;
    for (int64_t r : rows) {
      const auto offset = static_cast<uint32_t>(next->start_row + r);
      if (deleted.count(offset) == 0) {
        live.push_back(r);
        matched.push_back(offset);
      }
    }
    if (live.empty()) continue;
    LANCE_RETURN_NOT_OK(WriteUpdatedRows(ds, *plan, batch, live, sink));
    plan->updated_rows += live.size();
  }
  return AddDeletionToUpdate(ds, frag, matched, op);
}

// One attempt of Update on `ds`: plans, writes and commits.
Result<std::pair<std::shared_ptr<DatasetImpl>, uint64_t>> UpdateOnce(
    const std::shared_ptr<DatasetImpl>& ds,
    const std::vector<std::pair<std::string, std::string>>& updates,
    const std::string& where, const UpdateOptions& options) {
  const SchemaPtr& schema = ds->schema.schema();
  UpdatePlan plan;
  LANCE_ASSIGN_OR_RAISE(plan.compiled, CompileUpdates(*ds, updates));
  if (!where.empty()) {
    auto parsed = table::Predicate::Parse(where, *schema);
    if (!parsed.ok()) {
      return parsed.status().WithContext(
          StrCat("Update: the where clause (", where, ")"));
    }
    plan.predicate = std::move(*parsed);
  }
  LANCE_ASSIGN_OR_RAISE(format::LanceFileVersion version, WritableVersion(*ds, "Update"));
  plan.all_columns.resize(static_cast<size_t>(schema->num_fields()));
  for (int i = 0; i < schema->num_fields(); ++i) {
    plan.all_columns[static_cast<size_t>(i)] = i;
  }

  pb::Transaction txn;
  txn.set_read_version(ds->proto().version());
  pb::Transaction::Update* op = txn.mutable_update();
  FragmentSink sink(ds->dir, ds->schema, version, SinkSizes(options.write));
  for (const pb::DataFragment& frag : ds->proto().fragments()) {
    LANCE_RETURN_NOT_OK(UpdateFragment(*ds, frag, &plan, &sink, op));
  }
  LANCE_ASSIGN_OR_RAISE(std::vector<pb::DataFragment> fragments, sink.Finish());
  for (auto& f : fragments) *op->add_new_fragments() = std::move(f);
  // Lance records the ids of the updated columns here (indices on other columns keep
  // the new fragments); its REWRITE_ROWS mode is the default (0).
  for (const CompiledUpdate& u : plan.compiled) {
    for (int32_t id : ds->schema.SubtreeIds(u.column)) {
      op->add_fields_for_preserving_frag_bitmap(static_cast<uint32_t>(id));
    }
  }
  // Like Lance, an update that matches nothing still commits a version.
  LANCE_ASSIGN_OR_RAISE(auto committed, CommitMutation(*ds, std::move(txn)));
  return std::make_pair(std::move(committed), plan.updated_rows);
}

}  // namespace
}  // namespace table_internal

Result<UpdateResult> Dataset::Update(
    const std::vector<std::pair<std::string, std::string>>& updates,
    const std::string& where, const UpdateOptions& options) {
  namespace ti = table_internal;
  UpdateResult result;
  std::shared_ptr<DatasetImpl> current = impl_;
  Status st = ti::RunWithRetries(options.retry, [&](uint32_t attempt) -> Status {
    result.num_attempts = attempt;
    if (attempt > 1) {
      // Plan again on the latest version.
      LANCE_ASSIGN_OR_RAISE(current, ti::LoadLatest(*current));
    }
    LANCE_ASSIGN_OR_RAISE(auto done, ti::UpdateOnce(current, updates, where, options));
    current = std::move(done.first);
    result.num_rows_updated = done.second;
    return Status::OK();
  });
  LANCE_RETURN_NOT_OK(st);
  impl_ = std::move(current);
  return result;
}

}  // namespace lance
