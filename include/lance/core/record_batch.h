// SPDX-License-Identifier: Apache-2.0
/// \file record_batch.h
/// \brief RecordBatch (equal-length columns + schema), Table and RecordBatchReader.

#pragma once

#include <memory>
#include <string>
#include <vector>

#include "lance/core/array.h"
#include "lance/core/type.h"
#include "lance/result.h"

namespace lance {

class RecordBatch;
using RecordBatchPtr = std::shared_ptr<RecordBatch>;

/// \brief Columns of equal length with a schema. Immutable, shareable across threads.
class RecordBatch {
 public:
  /// \brief Validates that columns match the schema's types and all have num_rows rows.
  static Result<RecordBatchPtr> Make(SchemaPtr schema, int64_t num_rows,
                                     std::vector<ArrayPtr> columns);
  /// \brief From a struct array: one column per struct field (the struct's nulls are dropped).
  static Result<RecordBatchPtr> FromStructArray(const ArrayPtr& array);

  const SchemaPtr& schema() const { return schema_; }
  int64_t num_rows() const { return num_rows_; }
  int num_columns() const { return static_cast<int>(columns_.size()); }
  const ArrayPtr& column(int i) const { return columns_[i]; }
  const std::vector<ArrayPtr>& columns() const { return columns_; }
  /// \brief The column named `name`, or nullptr.
  ArrayPtr GetColumnByName(const std::string& name) const;

  RecordBatchPtr Slice(int64_t offset, int64_t length) const;
  /// \brief A struct array whose children are the columns (no nulls).
  Result<ArrayPtr> ToStructArray() const;
  Result<RecordBatchPtr> SelectColumns(const std::vector<int>& indices) const;

  bool Equals(const RecordBatch& other, bool check_metadata = false) const;
  /// \brief A readable table: header, one row per line, capped at max_rows.
  std::string ToString(int64_t max_rows = 20) const;

  RecordBatch(SchemaPtr schema, int64_t num_rows, std::vector<ArrayPtr> columns);

 private:
  SchemaPtr schema_;
  int64_t num_rows_;
  std::vector<ArrayPtr> columns_;
};

/// \brief A schema plus a sequence of batches (Arrow's Table, chunked).
class Table {
 public:
  static Result<std::shared_ptr<Table>> Make(SchemaPtr schema,
                                             std::vector<RecordBatchPtr> batches);
  const SchemaPtr& schema() const { return schema_; }
  const std::vector<RecordBatchPtr>& batches() const { return batches_; }
  int64_t num_rows() const;
  /// \brief One batch holding all rows (concatenated).
  Result<RecordBatchPtr> CombineBatches() const;
  /// \brief Row-wise equality, ignoring how rows are split into batches.
  bool Equals(const Table& other, bool check_metadata = false) const;
  std::string ToString(int64_t max_rows = 20) const;

  Table(SchemaPtr schema, std::vector<RecordBatchPtr> batches);

 private:
  SchemaPtr schema_;
  std::vector<RecordBatchPtr> batches_;
};
using TablePtr = std::shared_ptr<Table>;

/// \brief A pull-based stream of record batches with a fixed schema.
///
/// Not thread-safe: one consumer at a time.
class RecordBatchReader {
 public:
  virtual ~RecordBatchReader() = default;
  virtual SchemaPtr schema() const = 0;
  /// \brief The next batch, or nullptr at the end of the stream.
  virtual Result<RecordBatchPtr> Next() = 0;
  /// \brief Drains the stream into a Table.
  Result<TablePtr> ToTable();

  /// \brief A reader over batches already in memory.
  static std::unique_ptr<RecordBatchReader> FromBatches(SchemaPtr schema,
                                                        std::vector<RecordBatchPtr> batches);
};
using RecordBatchReaderPtr = std::unique_ptr<RecordBatchReader>;

}  // namespace lance
