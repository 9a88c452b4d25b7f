// SPDX-License-Identifier: Apache-2.0
// Reading a dataset: fragments (read by fragment_reader.cc) with their deletion vectors
// applied, filters, projection, offset/limit. A scan streams one fragment at a time,
// so memory is bounded by the batch size and the pages the format layer keeps, not by
// the dataset.

#include <algorithm>
#include <cstring>
#include <deque>
#include <set>

#include "dataset/dataset_internal.h"
#include "dataset/fragment_reader.h"
#include "dataset/projection.h"
#include "lance/core/builder.h"
#include "lance/core/compute.h"
#include "lance/format/file_reader.h"
#include "lance/io/executor.h"
#include "lance/macros.h"
#include "table/predicate/value_expression.h"

namespace lance::table_internal {

namespace {

constexpr const char* kRowIdColumn = "_rowid";

// a AND b over boolean selections, where a null selection means "every row", and a null
// slot in `b` drops the row (SQL: only TRUE selects).
Result<ArrayPtr> AndSelections(const ArrayPtr& a, const ArrayPtr& b) {
  const int64_t n = b->length();
  if (!a && b->null_count() == 0) return b;
  LANCE_ASSIGN_OR_RAISE(BufferPtr bits, Buffer::Allocate(bit_util::BytesForBits(n)));
  uint8_t* out = bits->mutable_data();
  const auto& bb = static_cast<const BooleanArray&>(*b);
  const auto* ab = a ? &static_cast<const BooleanArray&>(*a) : nullptr;
  for (int64_t i = 0; i < n; ++i) {
    const bool keep = bb.IsValid(i) && bb.Value(i) && (ab == nullptr || ab->Value(i));
    if (keep) bit_util::SetBit(out, i);
  }
  return MakeArray(ArrayData::Make(boolean(), n, {nullptr, std::move(bits)}, 0));
}

// Where an output column comes from.
struct OutputColumn {
  int read_position = -1;     // index into the read columns; -1 for the row id
  std::vector<int> children;  // struct fields below the read column (nested projection)
  /// A computed column (ScanOptions::projections), evaluated on the kept rows.
  std::shared_ptr<const table::ValueExpression> expression;
  std::string name;  // of the computed column, for error messages
};

// What every task of one scan shares; immutable once the scan starts.
struct ScanPlan {
  std::shared_ptr<const DatasetImpl> ds;
  SchemaPtr output_schema;
  std::vector<int> read_columns;
  std::vector<OutputColumn> outputs;
  std::shared_ptr<const table::Predicate> predicate;
  int64_t batch_size = 0;
  /// Batches a read-ahead task decodes before handing them over.
  int batches_per_chunk = 1;
};

// One fragment being scanned. Its chunk tasks run strictly one after another (each is
// spawned when the previous one has been taken), so the members need no lock.
struct FragmentScan {
  const pb::DataFragment* fragment = nullptr;
  std::unique_ptr<FragmentReader> reader;  // opened by the first task unless primed
  DeletionVector deletions;
  size_t deletion_pos = 0;
};

// What one read-ahead task produces: the fragment's next batches, deletions, filter and
// projection applied (offset and limit are the consumer's: they depend on what came
// before).
struct Chunk {
  std::vector<RecordBatchPtr> batches;
  bool last = false;  // the fragment has no more rows
};

Status OpenFragment(const ScanPlan& plan, FragmentScan* scan) {
  LANCE_ASSIGN_OR_RAISE(scan->reader,
                        FragmentReader::Open(*plan.ds, *scan->fragment, plan.read_columns,
                                             plan.batch_size));
  LANCE_ASSIGN_OR_RAISE(scan->deletions, LoadDeletions(*plan.ds, *scan->fragment));
  return Status::OK();
}

// Deletions, filter and projection on one batch of a fragment.
Result<RecordBatchPtr> ProcessBatch(const ScanPlan& plan, FragmentScan* scan,
                                    const FragmentBatch& fb) {
  const RecordBatch& batch = *fb.batch;
  const int64_t n = batch.num_rows();
  const int64_t start = fb.start_row;
  const DeletionVector& deletions = scan->deletions;
  size_t& deletion_pos = scan->deletion_pos;
  // selection: row i survives deletions and the filter (null: every row survives).
  // Kept as a bitmap so a filter's mask is used as it is, without a per-row pass.
  ArrayPtr selection;
  while (deletion_pos < deletions.size() && deletions[deletion_pos] < start) {
    ++deletion_pos;
  }
  if (deletion_pos < deletions.size() && deletions[deletion_pos] < start + n) {
    LANCE_ASSIGN_OR_RAISE(BufferPtr bits, Buffer::Allocate(bit_util::BytesForBits(n)));
    std::memset(bits->mutable_data(), 0xFF, static_cast<size_t>(bits->size()));
    while (deletion_pos < deletions.size() && deletions[deletion_pos] < start + n) {
      bit_util::ClearBit(bits->mutable_data(), deletions[deletion_pos] - start);
      ++deletion_pos;
    }
    selection = MakeArray(ArrayData::Make(boolean(), n, {nullptr, std::move(bits)}, 0));
  }
  if (plan.predicate) {
    LANCE_ASSIGN_OR_RAISE(ArrayPtr mask, plan.predicate->Evaluate(batch));
    if (mask->type_id() != TypeId::kBool || mask->length() != n) {
      return Status::Invalid("Filter evaluation returned " + mask->type()->ToString() +
                             " of length " + std::to_string(mask->length()));
    }
    LANCE_ASSIGN_OR_RAISE(selection, AndSelections(selection, mask));
  }

  const uint64_t fragment_id = scan->fragment->id();
  std::vector<ArrayPtr> columns;
  columns.reserve(plan.outputs.size());
  std::vector<size_t> computed;  // positions of expression outputs, filled below
  for (const OutputColumn& out : plan.outputs) {
    if (out.expression) {
      computed.push_back(columns.size());
      columns.emplace_back();
    } else if (out.read_position >= 0) {
      LANCE_ASSIGN_OR_RAISE(ArrayPtr column,
                            ExtractPath(batch.column(out.read_position), out.children));
      columns.push_back(std::move(column));
    } else {
      UInt64Builder ids;
      LANCE_RETURN_NOT_OK(ids.Reserve(n));
      for (int64_t i = 0; i < n; ++i) {
        LANCE_RETURN_NOT_OK(
            ids.Append((fragment_id << 32) | static_cast<uint64_t>(start + i)));
      }
      LANCE_ASSIGN_OR_RAISE(ArrayPtr array, ids.Finish());
      columns.push_back(std::move(array));
    }
  }
  int64_t rows = n;
  if (selection) {
    rows = static_cast<const BooleanArray&>(*selection).true_count();
    if (rows != n) {
      for (ArrayPtr& c : columns) {
        if (c) {
          LANCE_ASSIGN_OR_RAISE(c, compute::Filter(*c, *selection));
        }
      }
    }
  }
  if (!computed.empty() && rows > 0) {
    // Expressions see only the rows the scan returns (as in pylance, where the
    // projection runs after the filter): a row filtered out cannot fail a CAST.
    RecordBatchPtr kept = fb.batch;
    if (rows != n) {
      LANCE_ASSIGN_OR_RAISE(kept, compute::FilterBatch(batch, *selection));
    }
    for (size_t p : computed) {
      const OutputColumn& out = plan.outputs[p];
      Result<ArrayPtr> values = out.expression->Evaluate(*kept);
      if (!values.ok()) {
        return Status(values.status().code(),
                      "Scan: column '" + out.name + "': " + values.status().message());
      }
      columns[p] = *values;
    }
  } else {
    for (size_t p : computed) {
      const DataTypePtr& type = plan.output_schema->field(static_cast<int>(p))->type();
      LANCE_ASSIGN_OR_RAISE(columns[p], MakeNullArray(type, 0));
    }
  }
  return RecordBatch::Make(plan.output_schema, rows, std::move(columns));
}

// One read-ahead task: opens the fragment if needed, then decodes and processes up to
// plan.batches_per_chunk batches.
Result<Chunk> ReadChunk(const ScanPlan& plan, FragmentScan* scan) {
  if (!scan->reader) LANCE_RETURN_NOT_OK(OpenFragment(plan, scan));
  Chunk chunk;
  while (static_cast<int>(chunk.batches.size()) < plan.batches_per_chunk) {
    LANCE_ASSIGN_OR_RAISE(auto next, scan->reader->Next());
    if (!next) {
      chunk.last = true;
      scan->reader.reset();  // frees the fragment's pages before the scan moves on
      break;
    }
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr out, ProcessBatch(plan, scan, *next));
    if (out->num_rows() > 0) chunk.batches.push_back(std::move(out));
  }
  return chunk;
}

// A dataset scan with read-ahead: up to `fragment_readahead` fragments are read at once
// on the I/O executor, each by a chain of tasks that decode a few batches at a time
// (decode overlaps the consumer, and on object stores several fragments' requests are
// in flight). Results come out in fragment order, and errors when their turn comes.
// Offset and limit are applied here, in order; a limited scan reads ahead one fragment.
class DatasetScanner : public RecordBatchReader {
 public:
  DatasetScanner(std::shared_ptr<const ScanPlan> plan, const ScanOptions& options)
      : plan_(std::move(plan)),
        to_skip_(std::max<int64_t>(0, options.offset)),
        remaining_(options.limit ? std::max<int64_t>(0, *options.limit) : -1),
        readahead_(options.limit || options.offset > 0
                       ? 1
                       : std::max(1, options.fragment_readahead)) {}

  SchemaPtr schema() const override { return plan_->output_schema; }

  // Opens the first fragment to read on this thread, so that Scan() itself reports files
  // it cannot read (for example a file version this build does not decode).
  Status Prime() {
    LANCE_RETURN_NOT_OK(Fill(/*open_first_here=*/true));
    return Status::OK();
  }

  Result<RecordBatchPtr> Next() override {
    while (true) {
      if (remaining_ == 0) return RecordBatchPtr();
      if (ready_pos_ < ready_.size()) {
        RecordBatchPtr out = std::move(ready_[ready_pos_++]);
        out = ApplyOffsetAndLimit(std::move(out));
        if (out && out->num_rows() > 0) return out;
        continue;
      }
      ready_.clear();
      ready_pos_ = 0;
      if (window_.empty()) {
        LANCE_RETURN_NOT_OK(Fill(false));
        if (window_.empty()) return RecordBatchPtr();
      }
      Slot& slot = window_.front();
      LANCE_ASSIGN_OR_RAISE(Chunk chunk, slot.next.Get());
      if (chunk.last) {
        window_.pop_front();
      } else {
        slot.next = Spawn(slot.scan);  // the fragment's next batches, while these go out
      }
      // The batches count before any fragment Fill considers skipping.
      ready_ = std::move(chunk.batches);
      LANCE_RETURN_NOT_OK(Fill(false));
    }
  }

  /// Restricts the scan to the given fragment ids, in order.
  Status Restrict(const std::vector<uint64_t>& ids) {
    const auto& proto = plan_->ds->proto();
    restricted_ = true;
    for (uint64_t id : ids) {
      int found = -1;
      for (int i = 0; i < proto.fragments_size(); ++i) {
        if (proto.fragments(i).id() == id) found = i;
      }
      if (found < 0) {
        return Status::NotFound("Scan: no fragment " + std::to_string(id) +
                                " in dataset " + plan_->ds->uri);
      }
      fragment_order_.push_back(found);
    }
    return Status::OK();
  }

 private:
  struct Slot {
    std::shared_ptr<FragmentScan> scan;
    io::Pending<Chunk> next;
  };

  const pb::DataFragment& fragment(size_t i) const {
    return plan_->ds->proto().fragments(fragment_order_.empty() ? static_cast<int>(i)
                                                                : fragment_order_[i]);
  }
  size_t num_fragments() const {
    return fragment_order_.empty() && !restricted_
               ? static_cast<size_t>(plan_->ds->proto().fragments_size())
               : fragment_order_.size();
  }

  io::Pending<Chunk> Spawn(const std::shared_ptr<FragmentScan>& scan) {
    // The task holds the plan and the fragment alive by itself.
    return io::Executor::Default().Spawn(
        [plan = plan_, scan]() -> Result<Chunk> { return ReadChunk(*plan, scan.get()); });
  }

  // Tops the window up to `readahead_` fragments, in order.
  Status Fill(bool open_first_here) {
    while (window_.size() < static_cast<size_t>(readahead_) &&
           next_fragment_ < num_fragments()) {
      const pb::DataFragment& frag = fragment(next_fragment_++);
      if (!plan_->predicate && to_skip_ > 0 && window_.empty() &&
          ready_pos_ >= ready_.size()) {
        // Without a filter a whole fragment can be skipped from the manifest counts
        // (only while nothing before it is pending: those rows count first).
        LANCE_ASSIGN_OR_RAISE(int64_t live, FragmentLiveRows(*plan_->ds, frag));
        if (live <= to_skip_) {
          to_skip_ -= live;
          continue;
        }
      }
      auto scan = std::make_shared<FragmentScan>();
      scan->fragment = &frag;
      if (open_first_here && window_.empty()) {
        LANCE_RETURN_NOT_OK(OpenFragment(*plan_, scan.get()));
      }
      Slot slot{scan, Spawn(scan)};
      window_.push_back(std::move(slot));
    }
    return Status::OK();
  }

  RecordBatchPtr ApplyOffsetAndLimit(RecordBatchPtr result) {
    if (to_skip_ > 0) {
      if (result->num_rows() <= to_skip_) {
        to_skip_ -= result->num_rows();
        return RecordBatchPtr();
      }
      result = result->Slice(to_skip_, result->num_rows() - to_skip_);
      to_skip_ = 0;
    }
    if (remaining_ >= 0) {
      if (result->num_rows() > remaining_) result = result->Slice(0, remaining_);
      remaining_ -= result->num_rows();
    }
    return result;
  }

  std::shared_ptr<const ScanPlan> plan_;
  int64_t to_skip_;
  int64_t remaining_;  // -1: no limit
  int readahead_;

  size_t next_fragment_ = 0;
  /// Positions in the manifest of the fragments to scan (empty: all, unless restricted).
  std::vector<int> fragment_order_;
  bool restricted_ = false;
  std::deque<Slot> window_;
  std::vector<RecordBatchPtr> ready_;
  size_t ready_pos_ = 0;
};
// What a scan reads and what it outputs, as MakeScanner works them out from the options.
struct ScanColumns {
  std::vector<int> read_columns;
  std::vector<OutputColumn> outputs;
  std::vector<FieldPtr> output_fields;

  // The position of top-level column `index` among the columns read, added if new.
  int ReadPosition(int index) {
    auto it = std::find(read_columns.begin(), read_columns.end(), index);
    if (it != read_columns.end()) return static_cast<int>(it - read_columns.begin());
    read_columns.push_back(index);
    return static_cast<int>(read_columns.size() - 1);
  }
  void AddRowId() {
    outputs.push_back(OutputColumn{-1, {}, {}, {}});
    output_fields.push_back(field(kRowIdColumn, uint64(), /*nullable=*/true));
  }
};

// The outputs of options.projections: each a column, the row id or an expression.
Status AddProjections(const Schema& full, const ScanOptions& options,
                      const std::string& uri, ScanColumns* cols) {
  std::set<std::string> seen_outputs;
  for (const auto& [name, text] : options.projections) {
    if (!seen_outputs.insert(name).second) {
      return Status::Invalid("Scan: output column '" + name + "' is given twice");
    }
    if (text == kRowIdColumn && full.GetFieldIndex(text) < 0) {
      cols->outputs.push_back(OutputColumn{-1, {}, {}, name});  // the row id, renamed
      cols->output_fields.push_back(field(name, uint64(), /*nullable=*/true));
      continue;
    }
    // A plain column (or struct field path) comes out as `columns` would give it.
    Result<FieldPath> path = ResolveFieldPath(full, text, "Scan", uri);
    if (path.ok()) {
      cols->outputs.push_back(
          OutputColumn{cols->ReadPosition(path->top), path->children, {}, {}});
      const FieldPtr f = FlatField(full, *path, name);
      cols->output_fields.push_back(
          f->name() == name ? f : field(name, f->type(), f->nullable(), f->metadata()));
      continue;
    }
    Result<std::shared_ptr<const table::ValueExpression>> expr =
        table::ValueExpression::Parse(text, full);
    if (!expr.ok()) {
      return Status(expr.status().code(),
                    "Scan: column '" + name + "': " + expr.status().message());
    }
    for (const std::string& ref : (*expr)->ReferencedColumns()) {
      const int index = full.GetFieldIndex(ref);
      if (index < 0) {
        return Status::Invalid("Scan: column '", name, "' references unknown column '",
                               ref, "'");
      }
      cols->ReadPosition(index);
    }
    const DataTypePtr type = (*expr)->type() ? (*expr)->type() : null();
    cols->outputs.push_back(OutputColumn{-1, {}, *expr, name});
    cols->output_fields.push_back(field(name, type, /*nullable=*/true));
  }
  return Status::OK();
}

// The outputs of options.columns (every column when neither columns nor projections
// are given), then the row id if asked for.
Status AddColumns(const Schema& full, const ScanOptions& options, const std::string& uri,
                  ScanColumns* cols) {
  std::vector<std::string> names = options.columns;
  if (names.empty() && options.projections.empty()) {
    for (const FieldPtr& f : full.fields()) names.push_back(f->name());
  }
  std::set<std::string> seen;
  for (const std::string& name : names) {
    if (!seen.insert(name).second) {
      return Status::Invalid("Scan: column '" + name + "' is requested twice");
    }
    if (name == kRowIdColumn && full.GetFieldIndex(name) < 0) {
      // With with_row_id the row id goes last wherever it was named (as in pylance).
      if (!options.with_row_id) cols->AddRowId();
      continue;
    }
    // A top-level column, or a struct's field by its dotted path ("s.a"), which comes
    // out as a top-level column of that name, as in pylance.
    LANCE_ASSIGN_OR_RAISE(FieldPath path, ResolveFieldPath(full, name, "Scan", uri));
    cols->outputs.push_back(
        OutputColumn{cols->ReadPosition(path.top), path.children, {}, {}});
    cols->output_fields.push_back(FlatField(full, path, name));
  }
  if (options.with_row_id) cols->AddRowId();
  return Status::OK();
}

}  // namespace

Result<RecordBatchReaderPtr> MakeScanner(std::shared_ptr<const DatasetImpl> ds,
                                         const ScanOptions& options, bool count_only) {
  if (options.batch_size <= 0) {
    return Status::Invalid("Scan batch_size must be positive, got " +
                           std::to_string(options.batch_size));
  }
  if (options.offset < 0) return Status::Invalid("Scan offset must not be negative");
  if (options.limit && *options.limit < 0) {
    return Status::Invalid("Scan limit must not be negative");
  }
  const Schema& full = *ds->schema.schema();
  ScanColumns cols;
  if (!count_only) {
    if (!options.projections.empty() && !options.columns.empty()) {
      return Status::Invalid("Scan: give columns or projections, not both");
    }
    LANCE_RETURN_NOT_OK(AddProjections(full, options, ds->uri, &cols));
    LANCE_RETURN_NOT_OK(AddColumns(full, options, ds->uri, &cols));
  }

  std::shared_ptr<const table::Predicate> predicate;
  if (!options.filter.empty()) {
    LANCE_ASSIGN_OR_RAISE(predicate, table::Predicate::Parse(options.filter, full));
    for (const std::string& name : predicate->ReferencedColumns()) {
      const int index = full.GetFieldIndex(name);
      if (index < 0) {
        return Status::Invalid("Filter references unknown column '" + name + "'");
      }
      cols.ReadPosition(index);
    }
  }
  auto plan = std::make_shared<ScanPlan>();
  plan->ds = std::move(ds);
  plan->output_schema = schema(std::move(cols.output_fields), full.metadata());
  plan->read_columns = std::move(cols.read_columns);
  plan->outputs = std::move(cols.outputs);
  plan->predicate = std::move(predicate);
  plan->batch_size = std::max<int64_t>(1, options.batch_size);
  plan->batches_per_chunk = std::max(1, options.batch_readahead);
  auto scanner = std::make_unique<DatasetScanner>(std::move(plan), options);
  if (options.fragment_ids) LANCE_RETURN_NOT_OK(scanner->Restrict(*options.fragment_ids));
  LANCE_RETURN_NOT_OK(scanner->Prime());
  return RecordBatchReaderPtr(std::move(scanner));
}

}  // namespace lance::table_internal
