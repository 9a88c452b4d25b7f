// SPDX-License-Identifier: Apache-2.0
// Internal: repetition and definition levels of Lance file formats 2.1 / 2.2, and how
// they turn back into Arrow structure.
//
// In the structural formats only leaf fields have columns; the struct and list layers
// above a leaf are folded into two u16 streams per item:
//   * definition level d: 0 = the item is valid all the way down; otherwise it names
//     the layer (innermost first) that is null or empty there. Each layer of a page's
//     `layers` takes level numbers in turn, innermost first: a nullable item/struct or
//     nullable list one (null), an emptyable list one (empty), a nullable-and-emptyable
//     list two (null, then empty); all-valid layers none.
//   * repetition level r: 0 continues the innermost list; r > 0 starts a new list at
//     list layer r (innermost = 1) and so a new element of list layer r + 1; r equal to
//     the number of list layers starts a new top-level row.
// An item cut off by a null or empty list has no value slot ("invisible"); an item cut
// off by a null struct, or a null leaf, still has one.

#pragma once

#include <cstdint>
#include <vector>

#include "format/proto/encodings_v2_1.pb.h"
#include "lance/core/array_data.h"
#include "lance/core/buffer.h"
#include "lance/core/builder.h"
#include "lance/result.h"

namespace lance::format::structural {

namespace pb21 = lance::encodings21;

/// What the levels of one page mean (its `layers`, innermost first).
struct Levels {
  std::vector<pb21::RepDefLayer> layers;
  /// Number of list layers.
  int max_rep = 0;
  /// Definition levels above this cut the item at a list: no value slot.
  uint16_t max_visible_def = 0;
  uint16_t max_def = 0;
  /// Per definition level 1..max_def (index d): the layer (innermost first) it names
  /// and whether it means "empty list" (else "null"). Index 0 is unused.
  std::vector<int> cut_layer;
  std::vector<bool> cut_empty;

  /// \return Corrupt for an unknown layer or more than 64 layers.
  static Result<Levels> Make(const google::protobuf::RepeatedField<int>& layers);
  bool is_list_layer(int layer) const;
  /// Whether a page of these layers has definition levels at all.
  bool has_def() const { return max_def > 0; }
};

/// Levels and values of consecutive rows of one leaf column (a page, a slice of one, or
/// the rows a Take picked, in order).
struct LeafRows {
  int64_t num_rows = 0;
  /// One level per item; empty when the page has no lists (one item per row).
  std::vector<uint16_t> rep;
  /// One level per item; empty when every item is valid.
  std::vector<uint16_t> def;
  /// The visible items, of the leaf's Arrow type, without validity (it comes from
  /// `def`). Null items hold arbitrary values.
  ArrayDataPtr values;

  int64_t num_levels() const {
    return !rep.empty() ? static_cast<int64_t>(rep.size())
                        : (!def.empty() ? static_cast<int64_t>(def.size()) : num_rows);
  }
};

/// Where each row of a LeafRows starts: level position and value position, one entry
/// per row plus a final one (computed from rep and def).
struct RowIndex {
  std::vector<int64_t> level_start;
  std::vector<int64_t> value_start;
};
/// \return Corrupt if the levels do not hold exactly rows.num_rows rows.
Result<RowIndex> IndexRows(const Levels& levels, const LeafRows& rows);
/// Rows [begin, end) of `rows` (RowIndex from IndexRows; null when there are no lists).
Result<LeafRows> SliceRows(const LeafRows& rows, const RowIndex* index, int64_t begin,
                           int64_t end);
/// Joins segments of one leaf column (the rows a Take picked, page by page or chunk by
/// chunk) into one LeafRows: levels materialized as needed, the values concatenated
/// once in Finish. (Joining the values on every append copied everything gathered so
/// far each time: quadratic in the number of segments, which a Take has hundreds of.)
class RowsAppender {
 public:
  /// Appends `more` (`levels` of all segments must match).
  Status Append(LeafRows more);
  /// The joined rows; `type` is the values' type, for an empty result.
  Result<LeafRows> Finish(const DataTypePtr& type);

 private:
  LeafRows rows_;  // levels and row count; the values are in pieces_
  std::vector<ArrayDataPtr> pieces_;
};

/// The nodes of a leaf's path, from its top-level field down to the leaf.
enum class NodeKind : uint8_t { kItem, kList };

/// Rebuilds the Arrow structure of one leaf's path from levels: validity per node,
/// offsets of the list nodes, the leaf's values. Segments (pages, slices) are appended
/// in row order; their Levels may differ (a page without nulls says all-valid).
class PathBuilder {
 public:
  explicit PathBuilder(std::vector<NodeKind> path);

  /// \return Corrupt if the layers do not fit the path, or the levels are inconsistent
  /// (an item continuing a list that is null, more visible items than values, ...).
  Status Append(const Levels& levels, const LeafRows& rows);

  struct Node {
    int64_t length = 0;
    int64_t null_count = 0;
    BufferPtr validity;           ///< null when null_count == 0
    std::vector<int64_t> offsets;  ///< list nodes: length + 1 entries
  };
  /// Finishes every node and the leaf values (concatenated).
  Status Finish();
  const Node& node(size_t depth) const { return nodes_[depth]; }
  const ArrayDataPtr& values() const { return values_; }
  size_t depth() const { return path_.size(); }

 private:
  struct NodeState {
    int64_t length = 0;
    int64_t null_count = 0;
    BitmapBuilder validity;  // materialized at the first null
    bool has_bitmap = false;
    std::vector<int64_t> starts;
  };
  Status AppendSlot(size_t k, bool valid);
  Status AppendValidRun(size_t k, int64_t n);

  std::vector<NodeKind> path_;
  std::vector<NodeState> state_;
  std::vector<ArrayDataPtr> value_pieces_;
  std::vector<Node> nodes_;
  ArrayDataPtr values_;
};

}  // namespace lance::format::structural
