// SPDX-License-Identifier: Apache-2.0
#include "lib/table_printer.h"

#include <algorithm>

namespace lance::cli {

size_t DisplayWidth(std::string_view text) {
  size_t n = 0;
  for (char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  }
  return n;
}

std::string TruncateDisplay(std::string_view text, size_t width) {
  if (DisplayWidth(text) <= width) return std::string(text);
  const size_t keep = width > 3 ? width - 3 : 0;
  size_t points = 0, i = 0;
  for (; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
      if (points == keep) break;
      ++points;
    }
  }
  return std::string(text.substr(0, i)) + std::string(std::min<size_t>(3, width), '.');
}

TablePrinter::TablePrinter(std::vector<std::string> header, std::vector<bool> right_align,
                           size_t max_cell_width)
    : header_(std::move(header)),
      right_align_(std::move(right_align)),
      max_cell_width_(max_cell_width) {
  right_align_.resize(header_.size(), false);
}

void TablePrinter::AddRow(std::vector<std::string> cells) {
  cells.resize(header_.size());
  if (max_cell_width_ > 0) {
    for (auto& c : cells) c = TruncateDisplay(c, max_cell_width_);
  }
  rows_.push_back(std::move(cells));
}

std::string TablePrinter::Render() const {
  const size_t n = header_.size();
  std::vector<size_t> widths(n, 0);
  for (size_t c = 0; c < n; ++c) widths[c] = DisplayWidth(header_[c]);
  for (const auto& row : rows_) {
    for (size_t c = 0; c < n; ++c) widths[c] = std::max(widths[c], DisplayWidth(row[c]));
  }
  std::string out;
  const auto emit = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (size_t c = 0; c < n; ++c) {
      if (c > 0) line.append("  ");
      const size_t pad = widths[c] - DisplayWidth(cells[c]);
      if (right_align_[c]) line.append(pad, ' ');
      line.append(cells[c]);
      if (!right_align_[c]) line.append(pad, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out.append(line);
    out.push_back('\n');
  };
  emit(header_);
  std::vector<std::string> rule;
  for (size_t c = 0; c < n; ++c) rule.emplace_back(widths[c], '-');
  emit(rule);
  for (const auto& row : rows_) emit(row);
  return out;
}

}  // namespace lance::cli
