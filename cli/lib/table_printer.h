// SPDX-License-Identifier: Apache-2.0
// Aligned plain-text tables for human-readable output.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace lance::cli {

/// \brief Columns of text, padded to the widest cell (measured in code points), with a
/// dashed rule under the header. Right-aligned columns suit numbers.
class TablePrinter {
 public:
  /// \brief `max_cell_width` > 0 truncates longer cells, ending them with "...".
  TablePrinter(std::vector<std::string> header, std::vector<bool> right_align,
               size_t max_cell_width = 0);
  void AddRow(std::vector<std::string> cells);
  size_t num_rows() const { return rows_.size(); }
  /// \brief Header, rule and rows, each line ending in '\n'; trailing spaces trimmed.
  std::string Render() const;

 private:
  std::vector<std::string> header_;
  std::vector<bool> right_align_;
  size_t max_cell_width_;
  std::vector<std::vector<std::string>> rows_;
};

/// \brief Code points in UTF-8 text (bytes that are not continuation bytes).
size_t DisplayWidth(std::string_view text);
/// \brief At most `width` code points, the last three replaced by "..." when cut.
std::string TruncateDisplay(std::string_view text, size_t width);

}  // namespace lance::cli
