// SPDX-License-Identifier: Apache-2.0
// CSV and JSON-lines input for `import`: schema inference and conversion to record
// batches, with errors that name the input line and the column.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "lance/core/record_batch.h"
#include "lance/result.h"

namespace lance::cli {

enum class InputFormat : uint8_t { kCsv, kJsonLines };

/// \brief "csv", or "jsonl" / "ndjson" / "json" (all JSON lines).
Result<InputFormat> ParseInputFormat(std::string_view name);
/// \brief From the file extension: .csv, or .jsonl / .ndjson / .json.
Result<InputFormat> InputFormatFromPath(std::string_view path);

struct ImportOptions {
  InputFormat format = InputFormat::kJsonLines;
  /// \brief The columns to produce; null means infer from the input.
  SchemaPtr schema;
  /// \brief Rows per record batch.
  int64_t batch_rows = 8192;
};

/// \brief Infers a schema from the whole input (see docs/cli.md for the rules).
///
/// JSON lines: integers -> int64 (uint64 when some exceed int64 and none is negative,
/// float64 when they also include negatives), numbers with a fraction or exponent ->
/// float64, true/false -> bool, strings -> utf8, arrays -> list<item>, objects ->
/// struct<...>; columns in order of first appearance. A column seen with two
/// incompatible kinds is Invalid, except that the strings "NaN", "Infinity" and
/// "-Infinity" count as numbers in a float column.
/// CSV: int64 when every value is an integer (uint64 if they only fit that), else
/// float64 when every value is a number, else bool when every value is true/false, else
/// utf8. Columns without any value are utf8 in both formats.
Result<SchemaPtr> InferSchema(std::string_view text, InputFormat format);

/// \brief Batches converted from CSV or JSON-lines text held in memory.
///
/// Values are checked against the schema as they are read; the first bad value ends the
/// stream with Invalid("line N, column 'c': ..."). Missing JSON keys and missing CSV
/// columns are nulls; keys or CSV columns that are not in the schema are Invalid.
class ImportReader : public RecordBatchReader {
 public:
  /// \brief With options.schema null, the schema is inferred first (a pass over the
  /// input).
  static Result<std::unique_ptr<ImportReader>> Make(std::string text,
                                                    ImportOptions options);
  ~ImportReader() override;

  SchemaPtr schema() const override;
  Result<RecordBatchPtr> Next() override;
  /// \brief Rows returned in batches so far.
  int64_t rows_read() const;

 private:
  class Impl;
  explicit ImportReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// \brief Convenience: the whole input as a table.
Result<TablePtr> ImportText(std::string text, ImportOptions options);

}  // namespace lance::cli
