// SPDX-License-Identifier: Apache-2.0
// An RFC 4180 CSV record reader over text held in memory or read in chunks.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lance/result.h"

namespace lance::cli {

class ByteSource;

struct CsvField {
  std::string text;
  /// \brief Whether the field was enclosed in double quotes ("" is an empty string,
  /// an empty unquoted field is a null).
  bool quoted = false;
};

struct CsvRecord {
  std::vector<CsvField> fields;
  /// \brief 1-based line on which the record starts.
  int64_t line = 0;
};

/// \brief Splits text into records.
///
/// Fields are separated by ',' and records by LF or CRLF. A field that starts with '"'
/// is quoted: it ends at the next lone '"', may contain separators and line breaks, and
/// "" inside it is one '"'. Text after a closing quote other than a separator or the end
/// of the record is an error, as is an unterminated quote. A quote inside an unquoted
/// field is kept literally. Empty lines are skipped; a UTF-8 byte order mark at the very
/// start is ignored.
///
/// Over a ByteSource the text is read in chunks of kChunkBytes; only the record being
/// read (and the rest of its chunk) is held, however long the input.
class CsvReader {
 public:
  static constexpr size_t kChunkBytes = 1 << 20;
  explicit CsvReader(std::string_view text);
  explicit CsvReader(ByteSource* source);
  /// \brief The next record; false at the end of the input.
  /// \return Invalid naming the line of a malformed record.
  Result<bool> Next(CsvRecord* record);

 private:
  enum class Step : uint8_t { kEnd, kRecord, kNeedMore };
  Result<Step> TryNext(CsvRecord* record);
  Status Refill();

  ByteSource* source_ = nullptr;
  std::string buf_;     // the text read so far and not yet consumed (source mode)
  std::string_view s_;  // the text being split (buf_ in source mode)
  size_t pos_ = 0;
  int64_t line_ = 1;
  bool eof_ = true;
  bool bom_checked_ = true;
};

}  // namespace lance::cli
