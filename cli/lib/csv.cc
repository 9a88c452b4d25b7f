// SPDX-License-Identifier: Apache-2.0
#include "lib/csv.h"

namespace lance::cli {

CsvReader::CsvReader(std::string_view text) : s_(text) {
  if (s_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
}

Result<bool> CsvReader::Next(CsvRecord* record) {
  record->fields.clear();
  // Skip empty lines.
  while (pos_ < s_.size() && (s_[pos_] == '\n' || s_.substr(pos_, 2) == "\r\n")) {
    pos_ += s_[pos_] == '\n' ? 1 : 2;
    ++line_;
  }
  if (pos_ >= s_.size()) return false;
  record->line = line_;
  while (true) {
    CsvField field;
    if (pos_ < s_.size() && s_[pos_] == '"') {
      field.quoted = true;
      const int64_t start_line = line_;
      ++pos_;
      while (true) {
        if (pos_ >= s_.size()) {
          return Status::Invalid("line " + std::to_string(start_line) +
                                 ": unterminated quoted field");
        }
        const char c = s_[pos_];
        if (c == '"') {
          if (pos_ + 1 < s_.size() && s_[pos_ + 1] == '"') {
            field.text.push_back('"');
            pos_ += 2;
            continue;
          }
          ++pos_;
          break;
        }
        if (c == '\n') ++line_;
        field.text.push_back(c);
        ++pos_;
      }
      if (pos_ < s_.size() && s_[pos_] != ',' && s_[pos_] != '\n' &&
          s_.substr(pos_, 2) != "\r\n") {
        return Status::Invalid("line " + std::to_string(line_) +
                               ": unexpected text after a closing quote");
      }
    } else {
      const size_t start = pos_;
      while (pos_ < s_.size() && s_[pos_] != ',' && s_[pos_] != '\n' &&
             s_.substr(pos_, 2) != "\r\n") {
        ++pos_;
      }
      field.text.assign(s_.substr(start, pos_ - start));
    }
    record->fields.push_back(std::move(field));
    if (pos_ >= s_.size()) return true;
    if (s_[pos_] == ',') {
      ++pos_;
      continue;
    }
    pos_ += s_[pos_] == '\n' ? 1 : 2;  // LF or CRLF
    ++line_;
    return true;
  }
}

}  // namespace lance::cli
