// SPDX-License-Identifier: Apache-2.0
// Merge-insert (upsert): MergeInsertBuilder and its execution.
//
// Plan (one attempt, against one version of the target):
//  1. Hash the key columns of every live target row: key bytes -> row address. This
//     is the only structure proportional to the target (keys and addresses, not rows).
//  2. Stream the source batch by batch: rows whose key is in the table are matched
//     (updated, deleted, left alone or refused as configured), the others inserted.
//     Rows to write (updated and inserted) go straight into new data files; the
//     addresses of the matched target rows are remembered (their old copies are deleted,
//     and a target row matched twice is an error, as in Lance).
//  3. With delete-not-matched-by-source, the target is scanned again and every live row
//     whose address was not matched (and that satisfies the condition) is deleted.
//  4. One Lance `Update` transaction: new deletion files (or removed fragments) for the
//     touched fragments and the new fragments.
// Memory: O(target rows) for the key table and the matched set, plus one source batch.
#include <algorithm>
#include <cstring>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "dataset/fragment_reader.h"
#include "dataset/mutation_internal.h"
#include "lance/core/compute.h"
#include "lance/macros.h"
#include "table/deletion.h"
#include "table/manifest.h"
#include "table/predicate/predicate.h"

namespace lance {
namespace table_internal {
namespace {

// Appends the bytes of row `i` of `column` to `key`; false when the value is null
// (a null key never matches, as in SQL joins).
Result<bool> AppendKeyBytes(const Array& column, int64_t i, std::string* key) {
  if (column.IsNull(i)) return false;
  const DataType& type = *column.type();
  if (type.id() == TypeId::kBool) {
    key->push_back(static_cast<const BooleanArray&>(column).Value(i) ? '\1' : '\0');
    return true;
  }
  if (type.is_binary_like()) {
    std::string_view view;
    if (type.id() == TypeId::kUtf8 || type.id() == TypeId::kBinary) {
      view = static_cast<const BinaryArray&>(column).GetView(i);
    } else {
      view = static_cast<const LargeBinaryArray&>(column).GetView(i);
    }
    const auto len = static_cast<uint64_t>(view.size());
    key->append(reinterpret_cast<const char*>(&len), sizeof(len));
    key->append(view);
    return true;
  }
  if (type.id() == TypeId::kFixedSizeBinary) {
    key->append(static_cast<const FixedSizeBinaryArray&>(column).GetView(i));
    return true;
  }
  if (type.is_fixed_width() && type.byte_width() > 0 &&
      column.data()->buffers.size() > 1 && column.data()->buffers[1]) {
    const int width = type.byte_width();
    const uint8_t* base = column.data()->buffers[1]->data();
    key->append(reinterpret_cast<const char*>(base + (column.offset() + i) * width),
                static_cast<size_t>(width));
    return true;
  }
  return Status::NotImplemented("merge_insert: key columns of type ", type.ToString(),
                                " are not supported (use integers, strings, binaries, "
                                "booleans, dates or timestamps)");
}

// The key of each row (nullopt where a key column is null).
Result<std::vector<std::optional<std::string>>> RowKeys(const std::vector<ArrayPtr>& keys,
                                                        int64_t rows) {
  std::vector<std::optional<std::string>> out(static_cast<size_t>(rows));
  for (int64_t i = 0; i < rows; ++i) {
    std::string key;
    bool valid = true;
    for (const ArrayPtr& column : keys) {
      LANCE_ASSIGN_OR_RAISE(bool ok, AppendKeyBytes(*column, i, &key));
      if (!ok) {
        valid = false;
        break;
      }
    }
    if (valid) out[static_cast<size_t>(i)] = std::move(key);
  }
  return out;
}

uint64_t Address(uint64_t fragment, uint64_t row) { return (fragment << 32) | row; }

struct Attempt {
  std::shared_ptr<DatasetImpl> ds;
  MergeInsertResult result;
};

class MergeJob {
 public:
  MergeJob(std::shared_ptr<DatasetImpl> ds, const MergeInsertParams& params)
      : ds_(std::move(ds)), params_(params) {}

  Result<Attempt> Run(RecordBatchReader& source);

 private:
  Status Validate(const Schema& source_schema);
  Status BuildKeyTable();
  Status ProcessBatch(const RecordBatch& raw);
  Status WriteUpdates(const RecordBatch& source, const std::vector<int64_t>& source_rows,
                      const std::vector<uint64_t>& targets);
  Status DeleteNotMatchedBySource();
  Result<RecordBatchPtr> FullRows(const RecordBatch& source,
                                  const std::vector<int64_t>& rows,
                                  const RecordBatch* target);

  std::shared_ptr<DatasetImpl> ds_;
  const MergeInsertParams& params_;
  std::vector<int> key_columns_;        // dataset top-level indices
  std::vector<int> source_to_dataset_;  // per source column
  std::vector<int> dataset_to_source_;  // per dataset column, -1 if absent
  std::unordered_multimap<std::string, uint64_t> keys_;
  std::unordered_set<uint64_t> matched_;
  std::map<uint64_t, DeletionVector> deletions_;  // per fragment id
  std::shared_ptr<const table::Predicate> condition_;
  SchemaPtr condition_schema_;
  std::unique_ptr<FragmentSink> sink_;
  MergeInsertResult result_;
};

Status MergeJob::Validate(const Schema& source_schema) {
  const Schema& target = *ds_->schema.schema();
  if (params_.on.empty()) {
    return Status::Invalid("merge_insert: at least one key column (on) is required");
  }
  LANCE_ASSIGN_OR_RAISE(key_columns_,
                        ColumnIndices(*ds_, params_.on, "merge_insert key"));
  dataset_to_source_.assign(static_cast<size_t>(target.num_fields()), -1);
  for (int i = 0; i < source_schema.num_fields(); ++i) {
    const std::string& name = source_schema.field(i)->name();
    const int index = target.GetFieldIndex(name);
    if (index < 0) {
      return Status::Invalid("merge_insert: the source column '", name,
                             "' does not exist in the dataset at ", ds_->uri);
    }
    if (!TypesCompatible(*source_schema.field(i)->type(), *target.field(index)->type())) {
      // As Lance: the source must have the dataset's types (no implicit cast).
      return Status::Invalid("merge_insert: the source column '", name, "' has type ",
                             source_schema.field(i)->type()->ToString(),
                             " but the dataset stores ",
                             target.field(index)->type()->ToString());
    }
    if (dataset_to_source_[static_cast<size_t>(index)] >= 0) {
      return Status::Invalid("merge_insert: the source has column '", name, "' twice");
    }
    dataset_to_source_[static_cast<size_t>(index)] = i;
    source_to_dataset_.push_back(index);
  }
  if (!params_.insert_not_matched && params_.when_matched == WhenMatched::kDoNothing &&
      !params_.delete_not_matched_by_source) {
    return Status::Invalid(
        "merge_insert: the merge insert job is not configured to change the data in any "
        "way (set when_matched_update_all, when_not_matched_insert_all, ...)");
  }
  for (size_t k = 0; k < key_columns_.size(); ++k) {
    if (dataset_to_source_[static_cast<size_t>(key_columns_[k])] < 0) {
      return Status::Invalid("merge_insert: the key column '", params_.on[k],
                             "' is missing from the source data");
    }
  }
  if (params_.when_matched == WhenMatched::kUpdateAll &&
      !params_.matched_condition.empty()) {
    // The condition sees two structs, `source` and `target`, of the dataset's columns.
    auto as_struct = [&](const std::string& name) {
      return field(name, struct_(target.fields()), true);
    };
    condition_schema_ = std::make_shared<Schema>(
        std::vector<FieldPtr>{as_struct("source"), as_struct("target")});
    auto parsed = table::Predicate::Parse(params_.matched_condition, *condition_schema_);
    if (!parsed.ok()) {
      return parsed.status().WithContext(StrCat(
          "merge_insert: the when-matched condition (", params_.matched_condition, ")"));
    }
    condition_ = std::move(*parsed);
  }
  return Status::OK();
}

Status MergeJob::BuildKeyTable() {
  for (const pb::DataFragment& frag : ds_->proto().fragments()) {
    LANCE_ASSIGN_OR_RAISE(DeletionVector deleted, LoadDeletions(*ds_, frag));
    const std::unordered_set<uint32_t> gone(deleted.begin(), deleted.end());
    LANCE_ASSIGN_OR_RAISE(auto reader,
                          FragmentReader::Open(*ds_, frag, key_columns_, 8192));
    while (true) {
      LANCE_ASSIGN_OR_RAISE(auto next, reader->Next());
      if (!next) break;
      LANCE_ASSIGN_OR_RAISE(auto keys,
                            RowKeys(next->batch->columns(), next->batch->num_rows()));
      for (size_t i = 0; i < keys.size(); ++i) {
        const auto row = static_cast<uint64_t>(next->start_row) + i;
        if (!keys[i] || gone.count(static_cast<uint32_t>(row)) != 0) continue;
        keys_.emplace(std::move(*keys[i]), Address(frag.id(), row));
      }
    }
  }
  return Status::OK();
}

// Rows `rows` of `source` as whole dataset rows: source columns where the source has
// them, else the target's (matched rows) or nulls (inserted rows).
Result<RecordBatchPtr> MergeJob::FullRows(const RecordBatch& source,
                                          const std::vector<int64_t>& rows,
                                          const RecordBatch* target) {
  const SchemaPtr& schema = ds_->schema.schema();
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr picked, compute::TakeBatch(source, rows));
  std::vector<ArrayPtr> columns;
  for (int c = 0; c < schema->num_fields(); ++c) {
    const int s = dataset_to_source_[static_cast<size_t>(c)];
    ArrayPtr column;
    if (s >= 0) {
      column = picked->column(s);
    } else if (target != nullptr) {
      column = target->column(c);
    } else {
      LANCE_ASSIGN_OR_RAISE(column, MakeNullArray(schema->field(c)->type(),
                                                  static_cast<int64_t>(rows.size())));
    }
    LANCE_ASSIGN_OR_RAISE(column,
                          ConformColumn(column, *schema->field(c), "merge_insert"));
    columns.push_back(std::move(column));
  }
  return RecordBatch::Make(schema, static_cast<int64_t>(rows.size()), std::move(columns));
}

Status MergeJob::WriteUpdates(const RecordBatch& source,
                              const std::vector<int64_t>& source_rows,
                              const std::vector<uint64_t>& targets) {
  if (source_rows.empty()) return Status::OK();
  const SchemaPtr& schema = ds_->schema.schema();
  const bool need_target =
      condition_ != nullptr ||
      std::any_of(dataset_to_source_.begin(), dataset_to_source_.end(),
                  [](int s) { return s < 0; });
  RecordBatchPtr target_rows;
  if (need_target) {
    // The old rows, fetched fragment by fragment, back in the order of `targets`.
    std::map<uint64_t, std::vector<int64_t>> by_fragment;
    for (uint64_t addr : targets) {
      by_fragment[addr >> 32].push_back(static_cast<int64_t>(addr & 0xffffffffULL));
    }
    std::vector<int> all(static_cast<size_t>(schema->num_fields()));
    for (int i = 0; i < schema->num_fields(); ++i) all[static_cast<size_t>(i)] = i;
    std::map<uint64_t, std::pair<RecordBatchPtr, std::vector<int64_t>>> fetched;
    for (auto& [frag_id, rows] : by_fragment) {
      std::sort(rows.begin(), rows.end());
      rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
      const pb::DataFragment* frag = nullptr;
      for (const auto& f : ds_->proto().fragments()) {
        if (f.id() == frag_id) frag = &f;
      }
      if (frag == nullptr)
        return Status::Invalid("merge_insert: lost fragment ", frag_id);
      LANCE_ASSIGN_OR_RAISE(RecordBatchPtr batch,
                            TakeFromFragment(*ds_, *frag, all, rows, false));
      fetched[frag_id] = {batch, rows};
    }
    std::vector<RecordBatchPtr> parts;
    for (uint64_t addr : targets) {
      auto& [batch, rows] = fetched[addr >> 32];
      const auto pos = std::lower_bound(rows.begin(), rows.end(),
                                        static_cast<int64_t>(addr & 0xffffffffULL)) -
                       rows.begin();
      parts.push_back(batch->Slice(pos, 1));
    }
    LANCE_ASSIGN_OR_RAISE(auto table, Table::Make(schema, std::move(parts)));
    LANCE_ASSIGN_OR_RAISE(target_rows, table->CombineBatches());
  }
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr new_rows,
                        FullRows(source, source_rows, target_rows.get()));
  std::vector<int64_t> keep;
  if (condition_) {
    LANCE_ASSIGN_OR_RAISE(ArrayPtr src_struct, new_rows->ToStructArray());
    LANCE_ASSIGN_OR_RAISE(ArrayPtr tgt_struct, target_rows->ToStructArray());
    LANCE_ASSIGN_OR_RAISE(
        auto both,
        RecordBatch::Make(condition_schema_, new_rows->num_rows(),
                          {Relabel(src_struct, condition_schema_->field(0)->type()),
                           Relabel(tgt_struct, condition_schema_->field(1)->type())}));
    LANCE_ASSIGN_OR_RAISE(ArrayPtr mask, condition_->Evaluate(*both));
    LANCE_ASSIGN_OR_RAISE(keep, compute::SelectedIndices(*mask));
    LANCE_ASSIGN_OR_RAISE(new_rows, compute::TakeBatch(*new_rows, keep));
  } else {
    keep.resize(targets.size());
    for (size_t i = 0; i < keep.size(); ++i) keep[i] = static_cast<int64_t>(i);
  }
  for (int64_t i : keep) {
    const uint64_t addr = targets[static_cast<size_t>(i)];
    deletions_[addr >> 32].push_back(static_cast<uint32_t>(addr & 0xffffffffULL));
  }
  result_.num_updated_rows += keep.size();
  if (new_rows->num_rows() > 0) LANCE_RETURN_NOT_OK(sink_->Write(*new_rows));
  return Status::OK();
}

Status MergeJob::ProcessBatch(const RecordBatch& batch) {
  std::vector<ArrayPtr> key_arrays;
  const SchemaPtr& schema = ds_->schema.schema();
  for (int k : key_columns_) {
    const int s = dataset_to_source_[static_cast<size_t>(k)];
    LANCE_ASSIGN_OR_RAISE(
        ArrayPtr key,
        ConformColumn(batch.column(s), *schema->field(k)->WithNullable(true),
                      "merge_insert key"));
    key_arrays.push_back(std::move(key));
  }
  LANCE_ASSIGN_OR_RAISE(auto keys, RowKeys(key_arrays, batch.num_rows()));
  std::vector<int64_t> insert_rows;
  std::vector<int64_t> update_rows;
  std::vector<uint64_t> update_targets;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (!keys[i]) {
      insert_rows.push_back(static_cast<int64_t>(i));
      continue;
    }
    auto [begin, end] = keys_.equal_range(*keys[i]);
    if (begin == end) {
      insert_rows.push_back(static_cast<int64_t>(i));
      continue;
    }
    for (auto it = begin; it != end; ++it) {
      const uint64_t addr = it->second;
      if (!matched_.insert(addr).second &&
          params_.when_matched != WhenMatched::kDoNothing) {
        return Status::Invalid(
            "merge_insert: ambiguous merge inserts are prohibited: several source rows "
            "match the same target row (fragment ",
            addr >> 32, ", row ", addr & 0xffffffffULL,
            "); make sure each target row is matched by at most one source row");
      }
      switch (params_.when_matched) {
        case WhenMatched::kFail:
          return Status::Invalid(
              "merge_insert: a source row matches an existing row and when_matched is "
              "'fail'");
        case WhenMatched::kDelete:
          deletions_[addr >> 32].push_back(static_cast<uint32_t>(addr & 0xffffffffULL));
          ++result_.num_deleted_rows;
          break;
        case WhenMatched::kUpdateAll:
          update_rows.push_back(static_cast<int64_t>(i));
          update_targets.push_back(addr);
          break;
        case WhenMatched::kDoNothing:
          break;
      }
    }
  }
  LANCE_RETURN_NOT_OK(WriteUpdates(batch, update_rows, update_targets));
  if (params_.insert_not_matched && !insert_rows.empty()) {
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr rows, FullRows(batch, insert_rows, nullptr));
    LANCE_RETURN_NOT_OK(sink_->Write(*rows));
    result_.num_inserted_rows += insert_rows.size();
  }
  return Status::OK();
}

Status MergeJob::DeleteNotMatchedBySource() {
  const Schema& schema = *ds_->schema.schema();
  std::shared_ptr<const table::Predicate> predicate;
  std::vector<int> columns;
  if (!params_.not_matched_by_source_condition.empty()) {
    auto parsed =
        table::Predicate::Parse(params_.not_matched_by_source_condition, schema);
    if (!parsed.ok()) {
      return parsed.status().WithContext(
          StrCat("merge_insert: the not-matched-by-source condition (",
                 params_.not_matched_by_source_condition, ")"));
    }
    predicate = std::move(*parsed);
    LANCE_ASSIGN_OR_RAISE(columns, ColumnIndices(*ds_, predicate->ReferencedColumns(),
                                                 "merge_insert condition"));
  }
  for (const pb::DataFragment& frag : ds_->proto().fragments()) {
    LANCE_ASSIGN_OR_RAISE(DeletionVector deleted, LoadDeletions(*ds_, frag));
    const std::unordered_set<uint32_t> gone(deleted.begin(), deleted.end());
    DeletionVector& out = deletions_[frag.id()];
    auto consider = [&](uint64_t row) {
      if (gone.count(static_cast<uint32_t>(row)) != 0) return;
      if (matched_.count(Address(frag.id(), row)) != 0) return;
      out.push_back(static_cast<uint32_t>(row));
      ++result_.num_deleted_rows;
    };
    if (!predicate) {
      LANCE_ASSIGN_OR_RAISE(int64_t rows, FragmentPhysicalRows(*ds_, frag));
      for (int64_t r = 0; r < rows; ++r) consider(static_cast<uint64_t>(r));
      continue;
    }
    LANCE_ASSIGN_OR_RAISE(auto reader, FragmentReader::Open(*ds_, frag, columns, 8192));
    while (true) {
      LANCE_ASSIGN_OR_RAISE(auto next, reader->Next());
      if (!next) break;
      LANCE_ASSIGN_OR_RAISE(ArrayPtr mask, predicate->Evaluate(*next->batch));
      LANCE_ASSIGN_OR_RAISE(auto rows, compute::SelectedIndices(*mask));
      for (int64_t r : rows) consider(static_cast<uint64_t>(next->start_row + r));
    }
  }
  return Status::OK();
}

Result<Attempt> MergeJob::Run(RecordBatchReader& source) {
  LANCE_RETURN_NOT_OK(Validate(*source.schema()));
  LANCE_ASSIGN_OR_RAISE(format::LanceFileVersion version,
                        WritableVersion(*ds_, "merge_insert"));
  sink_ = std::make_unique<FragmentSink>(ds_->dir, ds_->schema, version,
                                         SinkSizes(params_.write));
  LANCE_RETURN_NOT_OK(BuildKeyTable());
  while (true) {
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr batch, source.Next());
    if (!batch) break;
    if (batch->num_rows() == 0) continue;
    LANCE_RETURN_NOT_OK(ProcessBatch(*batch));
  }
  if (params_.delete_not_matched_by_source)
    LANCE_RETURN_NOT_OK(DeleteNotMatchedBySource());

  pb::Transaction txn;
  txn.set_read_version(ds_->proto().version());
  pb::Transaction::Update* op = txn.mutable_update();
  for (const pb::DataFragment& frag : ds_->proto().fragments()) {
    auto it = deletions_.find(frag.id());
    if (it == deletions_.end() || it->second.empty()) continue;
    DeletionVector& rows = it->second;
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    LANCE_RETURN_NOT_OK(AddDeletionToUpdate(*ds_, frag, rows, op));
  }
  LANCE_ASSIGN_OR_RAISE(std::vector<pb::DataFragment> fragments, sink_->Finish());
  for (auto& f : fragments) *op->add_new_fragments() = std::move(f);
  // As Lance: the ids of the columns the source writes.
  for (int c : source_to_dataset_) {
    for (int32_t id : ds_->schema.SubtreeIds(c)) {
      op->add_fields_for_preserving_frag_bitmap(static_cast<uint32_t>(id));
    }
  }
  LANCE_ASSIGN_OR_RAISE(auto committed, CommitMutation(*ds_, std::move(txn)));
  return Attempt{std::move(committed), result_};
}

}  // namespace

Result<std::shared_ptr<DatasetImpl>> LoadLatest(const DatasetImpl& ds) {
  LANCE_ASSIGN_OR_RAISE(auto latest, FindLatestManifest(ds.dir));
  if (!latest) return Status::NotFound("The dataset at ", ds.uri, " disappeared");
  LANCE_ASSIGN_OR_RAISE(LoadedManifest loaded, ReadManifest(ds.dir, *latest));
  return MakeDatasetImpl(ds.uri, ds.access, ds.dir, std::move(loaded));
}

}  // namespace table_internal

MergeInsertBuilder::MergeInsertBuilder(std::shared_ptr<Dataset> dataset,
                                       std::vector<std::string> on)
    : dataset_(std::move(dataset)) {
  params_.on = std::move(on);
}

MergeInsertBuilder Dataset::MergeInsert(std::vector<std::string> on) {
  // A non-owning pointer: the caller keeps this object alive (documented in dataset.h).
  return MergeInsertBuilder(std::shared_ptr<Dataset>(std::shared_ptr<Dataset>(), this),
                            std::move(on));
}

MergeInsertBuilder& MergeInsertBuilder::WhenMatchedUpdateAll(std::string condition) {
  params_.when_matched = WhenMatched::kUpdateAll;
  params_.matched_condition = std::move(condition);
  return *this;
}
MergeInsertBuilder& MergeInsertBuilder::WhenMatchedDelete() {
  params_.when_matched = WhenMatched::kDelete;
  return *this;
}
MergeInsertBuilder& MergeInsertBuilder::WhenMatchedFail() {
  params_.when_matched = WhenMatched::kFail;
  return *this;
}
MergeInsertBuilder& MergeInsertBuilder::WhenMatchedDoNothing() {
  params_.when_matched = WhenMatched::kDoNothing;
  return *this;
}
MergeInsertBuilder& MergeInsertBuilder::WhenNotMatchedInsertAll() {
  params_.insert_not_matched = true;
  return *this;
}
MergeInsertBuilder& MergeInsertBuilder::WhenNotMatchedDoNothing() {
  params_.insert_not_matched = false;
  return *this;
}
MergeInsertBuilder& MergeInsertBuilder::WhenNotMatchedBySourceDelete(
    std::string condition) {
  params_.delete_not_matched_by_source = true;
  params_.not_matched_by_source_condition = std::move(condition);
  return *this;
}
MergeInsertBuilder& MergeInsertBuilder::ConflictRetries(int retries) {
  params_.retry.conflict_retries = retries;
  return *this;
}
MergeInsertBuilder& MergeInsertBuilder::RetryTimeout(double seconds) {
  params_.retry.retry_timeout_seconds = seconds;
  return *this;
}
MergeInsertBuilder& MergeInsertBuilder::WriteParams(MutationWriteParams params) {
  params_.write = params;
  return *this;
}

Result<MergeInsertResult> MergeInsertBuilder::Execute(RecordBatchReader& source) {
  namespace ti = table_internal;
  ti::MergeJob job(dataset_->impl_, params_);
  LANCE_ASSIGN_OR_RAISE(ti::Attempt done, job.Run(source));
  dataset_->impl_ = std::move(done.ds);
  return done.result;
}

Result<MergeInsertResult> MergeInsertBuilder::Execute(const MergeSourceFactory& factory) {
  namespace ti = table_internal;
  std::shared_ptr<DatasetImpl> current = dataset_->impl_;
  MergeInsertResult result;
  Status st = ti::RunWithRetries(params_.retry, [&](uint32_t attempt) -> Status {
    if (attempt > 1) {
      LANCE_ASSIGN_OR_RAISE(current, ti::LoadLatest(*current));
    }
    LANCE_ASSIGN_OR_RAISE(RecordBatchReaderPtr source, factory());
    ti::MergeJob job(current, params_);
    LANCE_ASSIGN_OR_RAISE(ti::Attempt done, job.Run(*source));
    current = std::move(done.ds);
    result = done.result;
    result.num_attempts = attempt;
    return Status::OK();
  });
  LANCE_RETURN_NOT_OK(st);
  dataset_->impl_ = std::move(current);
  return result;
}

}  // namespace lance
