// SPDX-License-Identifier: Apache-2.0
// An RFC 4180 CSV record reader over text held in memory.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lance/result.h"

namespace lance::cli {

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
class CsvReader {
 public:
  explicit CsvReader(std::string_view text);
  /// \brief The next record; false at the end of the input.
  /// \return Invalid naming the line of a malformed record.
  Result<bool> Next(CsvRecord* record);

 private:
  std::string_view s_;
  size_t pos_ = 0;
  int64_t line_ = 1;
};

}  // namespace lance::cli
