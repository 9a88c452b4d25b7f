// SPDX-License-Identifier: Apache-2.0

#include "lance/core/record_batch.h"

#include <algorithm>
#include <string>
#include <utility>

#include "lance/core/builder.h"
#include "lance/core/concatenate.h"
#include "lance/core/pretty_print.h"
#include "lance/macros.h"

namespace lance {

namespace {

// Cells wider than this are cut so one long string cannot push every other column off
// the screen.
constexpr size_t kMaxCellWidth = 48;

// Display width of UTF-8 text: code points, not bytes, so non-ASCII text still aligns.
size_t DisplayWidth(std::string_view s) {
  size_t width = 0;
  for (char c : s) {
    if ((static_cast<unsigned char>(c) & 0xc0) != 0x80) ++width;
  }
  return width;
}

std::string Truncate(std::string cell) {
  if (DisplayWidth(cell) <= kMaxCellWidth) return cell;
  // Cut at a code point boundary kMaxCellWidth - 3 code points in, then mark the cut.
  size_t seen = 0;
  size_t cut = 0;
  for (; cut < cell.size(); ++cut) {
    if ((static_cast<unsigned char>(cell[cut]) & 0xc0) != 0x80) {
      if (seen == kMaxCellWidth - 3) break;
      ++seen;
    }
  }
  cell.resize(cut);
  cell += "...";
  return cell;
}

void AppendPadded(const std::string& text, size_t width, bool right_align,
                  std::string* out) {
  const size_t pad = width - std::min(width, DisplayWidth(text));
  if (right_align) out->append(pad, ' ');
  out->append(text);
  if (!right_align) out->append(pad, ' ');
}

// Renders `shown_rows` rows of `columns` under a "name: type" header, then a footer with
// the row count (and how many rows were left out).
std::string FormatTable(const Schema& schema, const std::vector<ArrayPtr>& columns,
                        int64_t shown_rows, int64_t total_rows) {
  const size_t num_columns = columns.size();
  std::vector<std::vector<std::string>> cells(num_columns);
  std::vector<size_t> widths(num_columns, 0);
  std::vector<bool> right_align(num_columns, false);
  std::vector<std::string> headers(num_columns);
  PrettyPrintOptions options;
  options.window = 5;
  for (size_t c = 0; c < num_columns; ++c) {
    headers[c] = Truncate(schema.field(static_cast<int>(c))->ToString());
    widths[c] = DisplayWidth(headers[c]);
    const DataType& type = *columns[c]->type();
    right_align[c] = type.is_integer() || type.is_floating() || type.is_decimal() ||
                     type.id() == TypeId::kDuration;
    cells[c].reserve(static_cast<size_t>(shown_rows));
    for (int64_t r = 0; r < shown_rows; ++r) {
      cells[c].push_back(Truncate(FormatValue(*columns[c], r, options)));
      widths[c] = std::max(widths[c], DisplayWidth(cells[c].back()));
    }
  }

  std::string out;
  for (size_t c = 0; c < num_columns; ++c) {
    if (c > 0) out += " | ";
    AppendPadded(headers[c], widths[c], false, &out);
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  out += '\n';
  for (size_t c = 0; c < num_columns; ++c) {
    if (c > 0) out += "-+-";
    out.append(widths[c], '-');
  }
  out += '\n';
  for (int64_t r = 0; r < shown_rows; ++r) {
    for (size_t c = 0; c < num_columns; ++c) {
      if (c > 0) out += " | ";
      AppendPadded(cells[c][static_cast<size_t>(r)], widths[c], right_align[c], &out);
    }
    // Left-aligned last columns leave trailing blanks; drop them.
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += '\n';
  }
  if (shown_rows < total_rows) {
    out += "... " + std::to_string(total_rows - shown_rows) + " more rows (" +
           std::to_string(total_rows) + " total)\n";
  } else {
    out += "(" + std::to_string(total_rows) + (total_rows == 1 ? " row)\n" : " rows)\n");
  }
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// RecordBatch

RecordBatch::RecordBatch(SchemaPtr schema, int64_t num_rows,
                         std::vector<ArrayPtr> columns)
    : schema_(std::move(schema)), num_rows_(num_rows), columns_(std::move(columns)) {}

Result<RecordBatchPtr> RecordBatch::Make(SchemaPtr schema, int64_t num_rows,
                                         std::vector<ArrayPtr> columns) {
  if (!schema) return Status::Invalid("making a record batch: schema is null");
  if (num_rows < 0) {
    return Status::Invalid("making a record batch: negative row count " +
                           std::to_string(num_rows));
  }
  if (static_cast<int>(columns.size()) != schema->num_fields()) {
    return Status::Invalid("making a record batch: " + std::to_string(columns.size()) +
                           " columns for a schema of " +
                           std::to_string(schema->num_fields()) + " fields");
  }
  for (size_t i = 0; i < columns.size(); ++i) {
    const Field& f = *schema->field(static_cast<int>(i));
    if (!columns[i]) {
      return Status::Invalid("making a record batch: column '" + f.name() + "' is null");
    }
    if (!columns[i]->type()->Equals(*f.type())) {
      return Status::Invalid("making a record batch: column '" + f.name() +
                             "' has type " + columns[i]->type()->ToString() +
                             " but the schema says " + f.type()->ToString());
    }
    if (columns[i]->length() != num_rows) {
      return Status::Invalid("making a record batch: column '" + f.name() + "' has " +
                             std::to_string(columns[i]->length()) + " rows, expected " +
                             std::to_string(num_rows));
    }
  }
  return std::make_shared<RecordBatch>(std::move(schema), num_rows, std::move(columns));
}

Result<RecordBatchPtr> RecordBatch::FromStructArray(const ArrayPtr& array) {
  if (!array) return Status::Invalid("making a record batch from a null struct array");
  if (array->type_id() != TypeId::kStruct) {
    return Status::Invalid("making a record batch from a " + array->type()->ToString() +
                           " array: a struct array is required");
  }
  // Re-wrapping guarantees a StructArray whatever subclass the caller handed over.
  auto as_struct = std::static_pointer_cast<StructArray>(MakeArray(array->data()));
  std::vector<ArrayPtr> columns = as_struct->fields();
  for (size_t i = 0; i < columns.size(); ++i) {
    if (!columns[i] || columns[i]->length() != array->length()) {
      return Status::Invalid("making a record batch from a struct array: field " +
                             std::to_string(i) + " is shorter than the struct");
    }
  }
  return Make(::lance::schema(array->type()->fields()), array->length(),
              std::move(columns));
}

ArrayPtr RecordBatch::GetColumnByName(const std::string& name) const {
  const int i = schema_->GetFieldIndex(name);
  return i < 0 ? nullptr : columns_[i];
}

RecordBatchPtr RecordBatch::Slice(int64_t offset, int64_t length) const {
  offset = std::clamp<int64_t>(offset, 0, num_rows_);
  length = std::clamp<int64_t>(length, 0, num_rows_ - offset);
  std::vector<ArrayPtr> sliced;
  sliced.reserve(columns_.size());
  for (const auto& column : columns_) sliced.push_back(column->Slice(offset, length));
  return std::make_shared<RecordBatch>(schema_, length, std::move(sliced));
}

Result<ArrayPtr> RecordBatch::ToStructArray() const {
  LANCE_ASSIGN_OR_RAISE(auto array,
                        StructArray::Make(columns_, schema_->fields(), num_rows_));
  return ArrayPtr(std::move(array));
}

Result<RecordBatchPtr> RecordBatch::SelectColumns(const std::vector<int>& indices) const {
  std::vector<FieldPtr> fields;
  std::vector<ArrayPtr> columns;
  fields.reserve(indices.size());
  columns.reserve(indices.size());
  for (int i : indices) {
    if (i < 0 || i >= num_columns()) {
      return Status::Invalid("selecting column " + std::to_string(i) +
                             " of a batch with " + std::to_string(num_columns()) +
                             " columns");
    }
    fields.push_back(schema_->field(i));
    columns.push_back(columns_[i]);
  }
  return std::make_shared<RecordBatch>(
      ::lance::schema(std::move(fields), schema_->metadata()), num_rows_,
      std::move(columns));
}

bool RecordBatch::Equals(const RecordBatch& other, bool check_metadata) const {
  if (this == &other) return true;
  if (num_rows_ != other.num_rows_) return false;
  if (!schema_->Equals(*other.schema_, check_metadata)) return false;
  for (size_t i = 0; i < columns_.size(); ++i) {
    if (!columns_[i]->Equals(*other.columns_[i])) return false;
  }
  return true;
}

std::string RecordBatch::ToString(int64_t max_rows) const {
  const int64_t shown = std::clamp<int64_t>(max_rows, 0, num_rows_);
  return FormatTable(*schema_, columns_, shown, num_rows_);
}

// ---------------------------------------------------------------------------------------
// Table

Table::Table(SchemaPtr schema, std::vector<RecordBatchPtr> batches)
    : schema_(std::move(schema)), batches_(std::move(batches)) {}

Result<std::shared_ptr<Table>> Table::Make(SchemaPtr schema,
                                           std::vector<RecordBatchPtr> batches) {
  if (!schema) return Status::Invalid("making a table: schema is null");
  for (size_t i = 0; i < batches.size(); ++i) {
    if (!batches[i]) {
      return Status::Invalid("making a table: batch " + std::to_string(i) + " is null");
    }
    if (!batches[i]->schema()->Equals(*schema)) {
      return Status::Invalid("making a table: batch " + std::to_string(i) +
                             " has a different schema");
    }
  }
  return std::make_shared<Table>(std::move(schema), std::move(batches));
}

int64_t Table::num_rows() const {
  int64_t rows = 0;
  for (const auto& batch : batches_) rows += batch->num_rows();
  return rows;
}

Result<RecordBatchPtr> Table::CombineBatches() const {
  if (batches_.size() == 1) return batches_[0];
  std::vector<ArrayPtr> columns;
  columns.reserve(schema_->fields().size());
  for (int c = 0; c < schema_->num_fields(); ++c) {
    if (batches_.empty()) {
      LANCE_ASSIGN_OR_RAISE(auto builder, MakeBuilder(schema_->field(c)->type()));
      LANCE_ASSIGN_OR_RAISE(ArrayPtr empty, builder->Finish());
      columns.push_back(std::move(empty));
      continue;
    }
    std::vector<ArrayPtr> chunks;
    chunks.reserve(batches_.size());
    for (const auto& batch : batches_) chunks.push_back(batch->column(c));
    LANCE_ASSIGN_OR_RAISE(ArrayPtr combined, Concatenate(chunks));
    columns.push_back(std::move(combined));
  }
  return RecordBatch::Make(schema_, num_rows(), std::move(columns));
}

bool Table::Equals(const Table& other, bool check_metadata) const {
  if (this == &other) return true;
  if (!schema_->Equals(*other.schema_, check_metadata)) return false;
  if (num_rows() != other.num_rows()) return false;
  auto mine = CombineBatches();
  auto theirs = other.CombineBatches();
  if (!mine.ok() || !theirs.ok()) return false;
  // Schemas were compared above; batches carry the table's schema up to metadata.
  return (*mine)->Equals(**theirs, /*check_metadata=*/false);
}

std::string Table::ToString(int64_t max_rows) const {
  const int64_t total = num_rows();
  const int64_t shown = std::clamp<int64_t>(max_rows, 0, total);
  // Only the rows that are shown are gathered, so printing a large table stays cheap.
  std::vector<std::vector<ArrayPtr>> chunks(schema_->fields().size());
  int64_t gathered = 0;
  for (const auto& batch : batches_) {
    if (gathered >= shown) break;
    const int64_t take = std::min(batch->num_rows(), shown - gathered);
    if (take == 0) continue;
    for (int c = 0; c < schema_->num_fields(); ++c) {
      chunks[c].push_back(batch->column(c)->Slice(0, take));
    }
    gathered += take;
  }
  std::vector<ArrayPtr> columns;
  for (auto& column_chunks : chunks) {
    if (column_chunks.empty()) {
      // No rows are shown; the column is only consulted for its type.
      auto builder =
          MakeBuilder(schema_->field(static_cast<int>(columns.size()))->type());
      if (!builder.ok()) return builder.status().ToString();
      auto empty = (*builder)->Finish();
      if (!empty.ok()) return empty.status().ToString();
      columns.push_back(*empty);
      continue;
    }
    auto combined = Concatenate(column_chunks);
    if (!combined.ok()) return combined.status().ToString();
    columns.push_back(*combined);
  }
  return FormatTable(*schema_, columns, shown, total);
}

// ---------------------------------------------------------------------------------------
// RecordBatchReader

Result<TablePtr> RecordBatchReader::ToTable() {
  std::vector<RecordBatchPtr> batches;
  while (true) {
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr batch, Next());
    if (!batch) break;
    batches.push_back(std::move(batch));
  }
  return Table::Make(schema(), std::move(batches));
}

namespace {

class InMemoryReader : public RecordBatchReader {
 public:
  InMemoryReader(SchemaPtr schema, std::vector<RecordBatchPtr> batches)
      : schema_(std::move(schema)), batches_(std::move(batches)) {}

  SchemaPtr schema() const override { return schema_; }

  Result<RecordBatchPtr> Next() override {
    if (next_ >= batches_.size()) return RecordBatchPtr();
    RecordBatchPtr batch = batches_[next_++];
    // The factory cannot fail, so a mismatching batch is reported when it is reached.
    if (!batch || !batch->schema()->Equals(*schema_)) {
      return Status::Invalid("reading in-memory batch " + std::to_string(next_ - 1) +
                             ": it does not match the reader's schema");
    }
    return batch;
  }

 private:
  SchemaPtr schema_;
  std::vector<RecordBatchPtr> batches_;
  size_t next_ = 0;
};

}  // namespace

std::unique_ptr<RecordBatchReader> RecordBatchReader::FromBatches(
    SchemaPtr schema, std::vector<RecordBatchPtr> batches) {
  return std::make_unique<InMemoryReader>(std::move(schema), std::move(batches));
}

}  // namespace lance
