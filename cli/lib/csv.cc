// SPDX-License-Identifier: Apache-2.0
#include "lib/csv.h"

#include <algorithm>

#include "lance/macros.h"
#include "lib/input_source.h"

namespace lance::cli {

CsvReader::CsvReader(std::string_view text) : s_(text) {
  if (s_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
}

CsvReader::CsvReader(ByteSource* source)
    : source_(source), eof_(false), bom_checked_(false) {}

Status CsvReader::Refill() {
  Status st = RefillBuffer(source_, kChunkBytes, &buf_, &pos_, &eof_);
  s_ = buf_;  // the buffer may have moved, on success or not
  LANCE_RETURN_NOT_OK(st);
  if (!bom_checked_ && (buf_.size() >= 3 || eof_)) {
    if (s_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
    bom_checked_ = true;
  }
  return Status::OK();
}

Result<bool> CsvReader::Next(CsvRecord* record) {
  while (true) {
    const size_t pos = pos_;
    const int64_t line = line_;
    Step step = Step::kNeedMore;
    if (bom_checked_) {
      LANCE_ASSIGN_OR_RAISE(step, TryNext(record));
    }
    if (step != Step::kNeedMore) return step == Step::kRecord;
    // The record runs past the text held: read on and split it again.
    pos_ = pos;
    line_ = line;
    LANCE_RETURN_NOT_OK(Refill());
  }
}

// Splits the record at pos_. Running out of text before the record ends is kNeedMore
// unless the input has ended (then the end of the text ends the record).
Result<CsvReader::Step> CsvReader::TryNext(CsvRecord* record) {
  const std::string_view s = s_;
  const size_t n = s.size();
  record->fields.clear();
  // Skip empty lines.
  while (pos_ < n &&
         (s[pos_] == '\n' || (s[pos_] == '\r' && pos_ + 1 < n && s[pos_ + 1] == '\n'))) {
    pos_ += s[pos_] == '\n' ? 1 : 2;
    ++line_;
  }
  if (pos_ >= n) return eof_ ? Step::kEnd : Step::kNeedMore;
  if (s[pos_] == '\r' && pos_ + 1 >= n && !eof_) return Step::kNeedMore;
  record->line = line_;
  while (true) {
    CsvField field;
    if (pos_ < n && s[pos_] == '"') {
      field.quoted = true;
      const int64_t start_line = line_;
      ++pos_;
      while (true) {
        if (pos_ >= n) {
          if (!eof_) return Step::kNeedMore;
          return Status::Invalid("line " + std::to_string(start_line) +
                                 ": unterminated quoted field");
        }
        const char c = s[pos_];
        if (c == '"') {
          if (pos_ + 1 >= n && !eof_) return Step::kNeedMore;
          if (pos_ + 1 < n && s[pos_ + 1] == '"') {
            field.text.push_back('"');
            pos_ += 2;
            continue;
          }
          ++pos_;
          break;
        }
        // Copy the run up to the next quote at once.
        size_t end = pos_;
        while (end < n && s[end] != '"') {
          if (s[end] == '\n') ++line_;
          ++end;
        }
        field.text.append(s.substr(pos_, end - pos_));
        pos_ = end;
      }
      if (pos_ >= n && !eof_) return Step::kNeedMore;
      if (pos_ < n && s[pos_] == '\r' && pos_ + 1 >= n && !eof_) return Step::kNeedMore;
      if (pos_ < n && s[pos_] != ',' && s[pos_] != '\n' && s.substr(pos_, 2) != "\r\n") {
        return Status::Invalid("line " + std::to_string(line_) +
                               ": unexpected text after a closing quote");
      }
    } else {
      const size_t start = pos_;
      size_t end = pos_;
      while (end < n && s[end] != ',' && s[end] != '\n') ++end;
      if (end >= n && !eof_) return Step::kNeedMore;
      pos_ = end;
      if (end < n && s[end] == '\n' && end > start && s[end - 1] == '\r') --pos_;
      field.text.assign(s.substr(start, pos_ - start));
    }
    record->fields.push_back(std::move(field));
    if (pos_ >= n) return Step::kRecord;
    if (s[pos_] == ',') {
      ++pos_;
      continue;
    }
    pos_ += s[pos_] == '\n' ? 1 : 2;  // LF or CRLF
    ++line_;
    return Step::kRecord;
  }
}

}  // namespace lance::cli
