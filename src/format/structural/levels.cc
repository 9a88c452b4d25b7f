// SPDX-License-Identifier: Apache-2.0
// Repetition / definition levels of the structural formats (2.1, 2.2) and the
// reconstruction of Arrow structure from them.

#include "format/structural/levels.h"

#include <algorithm>

#include "lance/core/array.h"
#include "lance/core/concatenate.h"
#include "lance/macros.h"

namespace lance::format::structural {

namespace {

Status CorruptLevels(const std::string& message) {
  return Status::Corrupt("repetition/definition levels: ", message);
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Levels

Result<Levels> Levels::Make(const google::protobuf::RepeatedField<int>& layers) {
  Levels out;
  if (layers.empty() || layers.size() > 64) {
    return CorruptLevels("a page has " + std::to_string(layers.size()) + " layers");
  }
  out.cut_layer.push_back(-1);
  out.cut_empty.push_back(false);
  bool seen_list = false;
  for (int i = 0; i < layers.size(); ++i) {
    const auto layer = static_cast<pb21::RepDefLayer>(layers[i]);
    out.layers.push_back(layer);
    auto add_level = [&](bool empty) {
      out.cut_layer.push_back(i);
      out.cut_empty.push_back(empty);
      ++out.max_def;
      if (!seen_list) ++out.max_visible_def;
    };
    switch (layer) {
      case pb21::ALL_VALID_ITEM:
        break;
      case pb21::NULLABLE_ITEM:
        add_level(false);
        break;
      case pb21::ALL_VALID_LIST:
        seen_list = true;
        ++out.max_rep;
        break;
      case pb21::NULLABLE_LIST:
        seen_list = true;
        ++out.max_rep;
        add_level(false);
        break;
      case pb21::EMPTYABLE_LIST:
        seen_list = true;
        ++out.max_rep;
        add_level(true);
        break;
      case pb21::NULL_AND_EMPTY_LIST:
        seen_list = true;
        ++out.max_rep;
        add_level(false);
        add_level(true);
        break;
      default:
        return CorruptLevels("unknown layer kind " + std::to_string(layers[i]));
    }
  }
  // Levels added while a list was the innermost seen are invisible; max_visible_def
  // counted only those before the first list.
  return out;
}

bool Levels::is_list_layer(int layer) const {
  const auto kind = layers[layer];
  return kind == pb21::ALL_VALID_LIST || kind == pb21::NULLABLE_LIST ||
         kind == pb21::EMPTYABLE_LIST || kind == pb21::NULL_AND_EMPTY_LIST;
}

// ---------------------------------------------------------------------------------------
// Row slicing

Result<RowIndex> IndexRows(const Levels& levels, const LeafRows& rows) {
  RowIndex index;
  if (rows.rep.empty()) return index;
  const int64_t n = static_cast<int64_t>(rows.rep.size());
  const uint16_t max_rep = static_cast<uint16_t>(levels.max_rep);
  const bool has_def = !rows.def.empty();
  index.level_start.reserve(static_cast<size_t>(rows.num_rows) + 1);
  index.value_start.reserve(static_cast<size_t>(rows.num_rows) + 1);
  int64_t visible = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (rows.rep[i] == max_rep) {
      index.level_start.push_back(i);
      index.value_start.push_back(visible);
    } else if (i == 0) {
      return CorruptLevels("the first item of a page does not start a row");
    }
    if (!has_def || rows.def[i] <= levels.max_visible_def) ++visible;
  }
  if (static_cast<int64_t>(index.level_start.size()) != rows.num_rows) {
    return CorruptLevels("levels hold " + std::to_string(index.level_start.size()) +
                         " rows, the page says " + std::to_string(rows.num_rows));
  }
  index.level_start.push_back(n);
  index.value_start.push_back(visible);
  return index;
}

Result<LeafRows> SliceRows(const LeafRows& rows, const RowIndex* index, int64_t begin,
                           int64_t end) {
  LeafRows out;
  out.num_rows = end - begin;
  int64_t level_begin = begin, level_end = end, value_begin = begin, value_end = end;
  if (!rows.rep.empty()) {
    level_begin = index->level_start[begin];
    level_end = index->level_start[end];
    value_begin = index->value_start[begin];
    value_end = index->value_start[end];
    out.rep.assign(rows.rep.begin() + level_begin, rows.rep.begin() + level_end);
  } else if (!rows.def.empty() && rows.values &&
             rows.values->length != static_cast<int64_t>(rows.def.size())) {
    return CorruptLevels("values do not match the levels");
  }
  if (!rows.def.empty()) {
    out.def.assign(rows.def.begin() + level_begin, rows.def.begin() + level_end);
  }
  if (value_end > rows.values->length || value_begin > value_end) {
    return CorruptLevels("fewer values than visible items");
  }
  out.values = rows.values->Slice(value_begin, value_end - value_begin);
  return out;
}

Status RowsAppender::Append(LeafRows more) {
  LeafRows* rows = &rows_;
  const int64_t had_levels = rows->num_levels();
  if (!more.rep.empty() || !rows->rep.empty()) {
    if (more.rep.empty() || (rows->rep.empty() && had_levels > 0)) {
      return CorruptLevels("segments of one column disagree on repetition");
    }
    rows->rep.insert(rows->rep.end(), more.rep.begin(), more.rep.end());
  }
  if (!more.def.empty() || !rows->def.empty()) {
    if (rows->def.empty()) rows->def.assign(static_cast<size_t>(had_levels), 0);
    if (more.def.empty()) {
      rows->def.insert(rows->def.end(), static_cast<size_t>(more.num_levels()), 0);
    } else {
      rows->def.insert(rows->def.end(), more.def.begin(), more.def.end());
    }
  }
  rows->num_rows += more.num_rows;
  if (more.values && (more.values->length > 0 || pieces_.empty())) {
    // An empty first piece is kept only so that Finish has a typed array to return.
    if (!pieces_.empty() && pieces_.front()->length == 0) pieces_.clear();
    pieces_.push_back(std::move(more.values));
  }
  return Status::OK();
}

Result<LeafRows> RowsAppender::Finish(const DataTypePtr& type) {
  LeafRows out = std::move(rows_);
  rows_ = LeafRows();
  if (pieces_.size() == 1) {
    out.values = std::move(pieces_.front());
  } else if (pieces_.empty()) {
    LANCE_ASSIGN_OR_RAISE(auto builder, MakeBuilder(type));
    LANCE_ASSIGN_OR_RAISE(out.values, builder->FinishData());
  } else {
    std::vector<ArrayPtr> arrays;
    arrays.reserve(pieces_.size());
    for (ArrayDataPtr& p : pieces_) arrays.push_back(MakeArray(std::move(p)));
    LANCE_ASSIGN_OR_RAISE(ArrayPtr joined, Concatenate(arrays));
    out.values = joined->data();
  }
  pieces_.clear();
  return out;
}

// ---------------------------------------------------------------------------------------
// PathBuilder

PathBuilder::PathBuilder(std::vector<NodeKind> path)
    : path_(std::move(path)), state_(path_.size()) {}

Status PathBuilder::AppendSlot(size_t k, bool valid) {
  NodeState& s = state_[k];
  if (!valid && !s.has_bitmap) {
    LANCE_RETURN_NOT_OK(s.validity.AppendN(s.length, true));
    s.has_bitmap = true;
  }
  if (s.has_bitmap) LANCE_RETURN_NOT_OK(s.validity.Append(valid));
  if (!valid) ++s.null_count;
  if (path_[k] == NodeKind::kList) {
    s.starts.push_back(k + 1 < state_.size() ? state_[k + 1].length : 0);
  }
  ++s.length;
  return Status::OK();
}

Status PathBuilder::AppendValidRun(size_t k, int64_t n) {
  NodeState& s = state_[k];
  if (s.has_bitmap) LANCE_RETURN_NOT_OK(s.validity.AppendN(n, true));
  s.length += n;
  return Status::OK();
}

Status PathBuilder::Append(const Levels& levels, const LeafRows& rows) {
  const size_t m = path_.size();
  if (levels.layers.size() != m) {
    return CorruptLevels("a page has " + std::to_string(levels.layers.size()) +
                         " layers for a field path of " + std::to_string(m));
  }
  // Layer i (innermost first) belongs to node m - 1 - i.
  for (size_t k = 0; k < m; ++k) {
    const bool list_layer = levels.is_list_layer(static_cast<int>(m - 1 - k));
    if (list_layer != (path_[k] == NodeKind::kList)) {
      return CorruptLevels("the page's layers do not match the field's structure");
    }
  }
  const int64_t num_levels = rows.num_levels();
  if (!rows.rep.empty() && static_cast<int64_t>(rows.rep.size()) != num_levels) {
    return CorruptLevels("repetition and definition streams differ in length");
  }
  if (!rows.def.empty() && static_cast<int64_t>(rows.def.size()) != num_levels) {
    return CorruptLevels("repetition and definition streams differ in length");
  }
  if (levels.max_rep > 0 && rows.rep.empty() && num_levels > 0) {
    return CorruptLevels("a list page without repetition levels");
  }
  int64_t visible = 0;
  if (rows.rep.empty()) {
    // No lists: one item per row, every node gets one slot per row.
    if (rows.def.empty()) {
      for (size_t k = 0; k < m; ++k) LANCE_RETURN_NOT_OK(AppendValidRun(k, num_levels));
    } else {
      for (size_t k = 0; k < m; ++k) {
        const int layer = static_cast<int>(m - 1 - k);
        // A node is valid unless the item is cut at its layer or above.
        for (int64_t i = 0; i < num_levels; ++i) {
          const uint16_t d = rows.def[i];
          if (d > levels.max_def) return CorruptLevels("definition level out of range");
          LANCE_RETURN_NOT_OK(AppendSlot(k, d == 0 || levels.cut_layer[d] < layer));
        }
      }
    }
    visible = num_levels;
  } else {
    // start_node[r]: the first node that gets a new slot for an item with rep r.
    std::vector<size_t> start_node(static_cast<size_t>(levels.max_rep) + 1, 0);
    {
      int list_number = 0;  // counting from the innermost list
      for (size_t k = m; k-- > 0;) {
        if (path_[k] == NodeKind::kList) {
          ++list_number;
          // An item with rep == list_number - 1 starts a new element of this list.
          start_node[static_cast<size_t>(list_number - 1)] = k + 1;
        }
      }
      start_node[static_cast<size_t>(levels.max_rep)] = 0;
    }
    const uint16_t max_rep = static_cast<uint16_t>(levels.max_rep);
    const bool has_def = !rows.def.empty();
    for (int64_t i = 0; i < num_levels; ++i) {
      const uint16_t r = rows.rep[i];
      const uint16_t d = has_def ? rows.def[i] : 0;
      if (r > max_rep) return CorruptLevels("repetition level out of range");
      if (d > levels.max_def) return CorruptLevels("definition level out of range");
      const size_t s = start_node[r];
      // The node at which the item stops (m: it reaches the leaf).
      size_t cut = m;
      bool empty = false;
      if (d > 0) {
        cut = m - 1 - static_cast<size_t>(levels.cut_layer[d]);
        empty = levels.cut_empty[d];
      }
      if (cut < s) {
        return CorruptLevels("an item continues a list that is null or empty");
      }
      size_t k = s;
      for (; k < cut && k < m; ++k) LANCE_RETURN_NOT_OK(AppendSlot(k, true));
      if (k < m) {
        // k == cut: an empty list is a valid slot without children; a null list or
        // struct a null slot, and nulls continue down through structs to the leaf or the
        // first list below.
        LANCE_RETURN_NOT_OK(AppendSlot(k, empty));
        if (!empty && path_[k] != NodeKind::kList) {
          for (++k; k < m; ++k) {
            LANCE_RETURN_NOT_OK(AppendSlot(k, false));
            if (path_[k] == NodeKind::kList) break;
          }
          if (k == m) ++visible;
        }
      } else {
        ++visible;
      }
    }
  }
  const int64_t have = rows.values ? rows.values->length : 0;
  if (have != visible) {
    return CorruptLevels(std::to_string(visible) + " visible items but " +
                         std::to_string(have) + " values");
  }
  if (rows.values) value_pieces_.push_back(rows.values);
  return Status::OK();
}

Status PathBuilder::Finish() {
  nodes_.resize(path_.size());
  for (size_t k = 0; k < path_.size(); ++k) {
    NodeState& s = state_[k];
    Node& out = nodes_[k];
    out.length = s.length;
    out.null_count = s.null_count;
    if (s.null_count > 0) {
      LANCE_ASSIGN_OR_RAISE(out.validity, s.validity.Finish());
    }
    if (path_[k] == NodeKind::kList) {
      out.offsets = std::move(s.starts);
      out.offsets.push_back(k + 1 < state_.size() ? state_[k + 1].length : 0);
    }
  }
  if (value_pieces_.size() == 1) {
    values_ = value_pieces_[0];
  } else if (!value_pieces_.empty()) {
    std::vector<ArrayPtr> arrays;
    for (const auto& piece : value_pieces_) arrays.push_back(MakeArray(piece));
    LANCE_ASSIGN_OR_RAISE(ArrayPtr joined, Concatenate(arrays));
    values_ = joined->data();
  }
  return Status::OK();
}

}  // namespace lance::format::structural
