// SPDX-License-Identifier: Apache-2.0
// Internal: turning Arrow arrays into the levels and values of one leaf column
// (the writing half of levels.h).
//
// For each item a leaf receives, the shredder records its repetition level and where
// it stops: nowhere (a value), or at a node of its path that is null or an empty list.
// Which layers a page declares -- and so how definition levels are numbered -- depends
// on whether the page holds nulls / empty lists at each node, so the numbering happens
// when the page is cut (Levels()).

#pragma once

#include <cstdint>
#include <vector>

#include "format/structural/levels.h"
#include "lance/core/array_data.h"
#include "lance/result.h"

namespace lance::format::structural {

class LeafShredder {
 public:
  /// `path`: the leaf's nodes from the top-level field down; `child_index[k]`: which
  /// child of node k (a struct) leads to the leaf (ignored for list nodes).
  LeafShredder(std::vector<NodeKind> path, std::vector<int> child_index);

  /// Appends rows [offset, offset + length) of the top-level array `top` (indices
  /// relative to its offset).
  Status Append(const ArrayData& top, int64_t offset, int64_t length);

  int64_t rows() const { return rows_; }
  /// Bytes buffered (values and levels), to decide when a page is full.
  int64_t buffered_bytes() const { return value_bytes_ + 4 * levels_; }

  /// The page so far: its layers, levels (numbered for those layers) and values (the
  /// visible items, concatenated, without validity). Resets the shredder.
  struct Page {
    int64_t rows = 0;
    std::vector<pb21::RepDefLayer> layers;  ///< innermost first
    Levels levels;
    LeafRows data;
    /// Visible items that are valid (definition 0).
    int64_t valid_values = 0;
  };
  Result<Page> Finish();

 private:
  void Emit(uint16_t rep, int cut_node, bool empty);
  void AddValue(const ArrayData& leaf, int64_t index);
  void FlushRun();
  Status Visit(size_t k, int64_t index, uint16_t rep);

  std::vector<NodeKind> path_;
  std::vector<int> child_index_;
  std::vector<uint16_t> list_rep_;  // rep of a continuing item, per list node
  uint16_t max_rep_ = 0;
  // The arrays along the path for the batch being appended.
  std::vector<const ArrayData*> arrays_;

  int64_t rows_ = 0;
  int64_t levels_ = 0;
  std::vector<uint16_t> rep_;
  /// Per item: 0 = a value; 1 + 2 * node + empty = cut there. Empty until the first cut.
  std::vector<uint16_t> cut_;
  std::vector<char> has_null_;
  std::vector<char> has_empty_;
  std::vector<ArrayDataPtr> pieces_;
  int64_t values_ = 0;
  int64_t valid_values_ = 0;
  int64_t value_bytes_ = 0;
  // Current run of consecutive leaf slots.
  const ArrayData* run_array_ = nullptr;
  int64_t run_start_ = 0;
  int64_t run_end_ = 0;
};

}  // namespace lance::format::structural
