// SPDX-License-Identifier: Apache-2.0
// Input for `import`: CSV and JSON lines (schema inference from a prefix and conversion
// to record batches, with errors that name the input line and the column), read in
// chunks so that memory stays bounded; Arrow IPC files and streams (ipc_input.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "lance/core/record_batch.h"
#include "lance/result.h"

namespace lance::cli {

class ByteSource;

enum class InputFormat : uint8_t {
  kCsv,
  kJsonLines,
  /// \brief Arrow IPC: the file format ("ARROW1" magic) or, without it, the stream
  /// format (told apart by the first bytes).
  kArrow,
  /// \brief Arrow IPC stream format (also from stdin).
  kArrowStream,
  /// \brief Parquet: recognized so that it can be refused with a clear message.
  kParquet,
};

/// \brief Whether the format is text that ImportReader converts (CSV, JSON lines).
inline bool IsTextFormat(InputFormat f) {
  return f == InputFormat::kCsv || f == InputFormat::kJsonLines;
}

/// \brief "csv"; "jsonl" / "ndjson" / "json" (all JSON lines); "arrow" / "ipc" /
/// "feather" (Arrow IPC file or stream); "arrows" / "arrow-stream" (IPC stream);
/// "parquet".
Result<InputFormat> ParseInputFormat(std::string_view name);
/// \brief From the file extension: .csv; .jsonl / .ndjson / .json; .arrow / .ipc /
/// .feather; .arrows; .parquet.
Result<InputFormat> InputFormatFromPath(std::string_view path);

/// \brief Rows and bytes at the start of the input that schema inference reads when no
/// schema is given (DuckDB samples 20480 rows by default; pyarrow one 1 MiB block).
inline constexpr int64_t kDefaultInferRows = 20480;
inline constexpr int64_t kDefaultInferBytes = 16 << 20;

struct ImportOptions {
  InputFormat format = InputFormat::kJsonLines;
  /// \brief The columns to produce; null means infer from the input.
  SchemaPtr schema;
  /// \brief Rows per record batch.
  int64_t batch_rows = 8192;
  /// \brief A batch also ends after the row whose input text brings it to this many
  /// bytes (<= 0: no limit), so that wide rows do not make huge batches.
  int64_t batch_bytes = 16 << 20;
  /// \brief Without a schema, types are inferred from the first `infer_rows` rows,
  /// stopping early after the row that ends past the first `infer_bytes` bytes (<= 0:
  /// no limit, the whole input is read first and held in memory).
  int64_t infer_rows = kDefaultInferRows;
  int64_t infer_bytes = kDefaultInferBytes;
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

/// \brief Batches converted from CSV or JSON-lines text, read from a ByteSource in
/// chunks: memory holds one batch being built (batch_rows rows, at most about
/// batch_bytes of input text) and about one chunk of text (plus the inference sample
/// until it has been converted), whatever the input's size.
///
/// Values are checked against the schema as they are read; the first bad value ends the
/// stream with Invalid("line N, column 'c': ..."). Missing JSON keys and missing CSV
/// columns are nulls; keys or CSV columns that are not in the schema are Invalid. When
/// the schema was inferred from a sample and a later row does not fit it, the message
/// says so (the types are never widened afterwards: batches already written keep them).
class ImportReader : public RecordBatchReader {
 public:
  /// \brief With options.schema null, the schema is inferred first from a sample of
  /// the input (ImportOptions::infer_rows / infer_bytes), which is then read again.
  /// `source` must outlive the reader.
  static Result<std::unique_ptr<ImportReader>> Make(ByteSource* source,
                                                    ImportOptions options);
  /// \brief The same over text held in memory.
  static Result<std::unique_ptr<ImportReader>> Make(std::string text,
                                                    ImportOptions options);
  ~ImportReader() override;

  SchemaPtr schema() const override;
  Result<RecordBatchPtr> Next() override;
  /// \brief Rows returned in batches so far.
  int64_t rows_read() const;
  /// \brief Rows the schema was inferred from (0 when it was given).
  int64_t rows_sampled() const;

 private:
  class Impl;
  explicit ImportReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// \brief Convenience: the whole input as a table.
Result<TablePtr> ImportText(std::string text, ImportOptions options);

}  // namespace lance::cli
