// SPDX-License-Identifier: Apache-2.0
// Arrow arrays to repetition / definition levels and leaf values.

#include "format/structural/shred.h"

#include <algorithm>
#include <cstring>

#include "lance/core/array.h"
#include "lance/core/concatenate.h"
#include "lance/macros.h"

namespace lance::format::structural {

namespace {

/// Approximate stored bytes of slots [offset, offset + length) of `data`.
int64_t EstimateBytes(const ArrayData& data, int64_t offset, int64_t length) {
  const DataType& type = *data.type;
  switch (type.id()) {
    case TypeId::kUtf8:
    case TypeId::kBinary:
    case TypeId::kLargeUtf8:
    case TypeId::kLargeBinary: {
      if (data.buffers.size() < 2 || !data.buffers[1] || length == 0) return 4 * length;
      const int64_t s = data.offset + offset;
      const bool large = type.id() == TypeId::kLargeUtf8 || type.id() == TypeId::kLargeBinary;
      const int64_t begin = large ? data.buffers[1]->data_as<int64_t>()[s]
                                  : data.buffers[1]->data_as<int32_t>()[s];
      const int64_t end = large ? data.buffers[1]->data_as<int64_t>()[s + length]
                                : data.buffers[1]->data_as<int32_t>()[s + length];
      return (end - begin) + 4 * length;
    }
    case TypeId::kFixedSizeList: {
      if (data.children.empty()) return length;
      const int64_t dim = type.fixed_size();
      return EstimateBytes(*data.children[0], (data.offset + offset) * dim, length * dim);
    }
    case TypeId::kStruct: {
      int64_t total = 0;
      for (const auto& child : data.children) {
        total += EstimateBytes(*child, data.offset + offset, length);
      }
      return total;
    }
    default: {
      const int bits = type.bit_width();
      return bits <= 0 ? length : (bits * length + 7) / 8;
    }
  }
}

int64_t OffsetAt(const ArrayData& list, int64_t physical) {
  // list and map: int32 offsets; large_list: int64.
  if (list.type->id() == TypeId::kLargeList) {
    return list.buffers[1]->data_as<int64_t>()[physical];
  }
  return list.buffers[1]->data_as<int32_t>()[physical];
}

}  // namespace

LeafShredder::LeafShredder(std::vector<NodeKind> path, std::vector<int> child_index)
    : path_(std::move(path)),
      child_index_(std::move(child_index)),
      list_rep_(path_.size(), 0),
      has_null_(path_.size(), 0),
      has_empty_(path_.size(), 0) {
  int list_number = 0;
  for (size_t k = path_.size(); k-- > 0;) {
    if (path_[k] == NodeKind::kList) {
      ++list_number;
      list_rep_[k] = static_cast<uint16_t>(list_number - 1);
    }
  }
  max_rep_ = static_cast<uint16_t>(list_number);
}

void LeafShredder::Emit(uint16_t rep, int cut_node, bool empty) {
  if (max_rep_ > 0) rep_.push_back(rep);
  if (cut_node >= 0) {
    if (cut_.empty() && levels_ > 0) cut_.assign(static_cast<size_t>(levels_), 0);
    cut_.push_back(static_cast<uint16_t>(1 + 2 * cut_node + (empty ? 1 : 0)));
    (empty ? has_empty_ : has_null_)[static_cast<size_t>(cut_node)] = 1;
  } else if (!cut_.empty()) {
    cut_.push_back(0);
  }
  ++levels_;
}

void LeafShredder::FlushRun() {
  if (run_array_ != nullptr && run_end_ > run_start_) {
    pieces_.push_back(run_array_->Slice(run_start_, run_end_ - run_start_));
    value_bytes_ += EstimateBytes(*run_array_, run_start_, run_end_ - run_start_);
  }
  run_array_ = nullptr;
}

void LeafShredder::AddValue(const ArrayData& leaf, int64_t index) {
  if (run_array_ == &leaf && index == run_end_) {
    ++run_end_;
  } else {
    FlushRun();
    run_array_ = &leaf;
    run_start_ = index;
    run_end_ = index + 1;
  }
  ++values_;
}

Status LeafShredder::Visit(size_t k, int64_t index, uint16_t rep) {
  const ArrayData& a = *arrays_[k];
  const size_t m = path_.size() - 1;
  if (!a.IsValid(index)) {
    Emit(rep, static_cast<int>(k), false);
    if (path_[k] == NodeKind::kList) return Status::OK();
    // A null struct or leaf: the item is visible (it has a value slot) unless a list
    // lies below.
    int64_t i = index;
    for (size_t q = k; q < m; ++q) {
      if (path_[q + 1] == NodeKind::kList) return Status::OK();
      i = arrays_[q]->offset + i;
    }
    AddValue(*arrays_[m], i);
    return Status::OK();
  }
  if (k == m) {
    Emit(rep, -1, false);
    AddValue(a, index);
    ++valid_values_;
    return Status::OK();
  }
  if (path_[k] == NodeKind::kList) {
    const int64_t start = OffsetAt(a, a.offset + index);
    const int64_t end = OffsetAt(a, a.offset + index + 1);
    if (end < start) return Status::Invalid("list offsets decrease");
    if (start == end) {
      Emit(rep, static_cast<int>(k), true);
      return Status::OK();
    }
    for (int64_t j = start; j < end; ++j) {
      LANCE_RETURN_NOT_OK(Visit(k + 1, j, j == start ? rep : list_rep_[k]));
    }
    return Status::OK();
  }
  return Visit(k + 1, a.offset + index, rep);
}

Status LeafShredder::Append(const ArrayData& top, int64_t offset, int64_t length) {
  // The arrays along the path.
  arrays_.assign(path_.size(), nullptr);
  arrays_[0] = &top;
  for (size_t k = 0; k + 1 < path_.size(); ++k) {
    const ArrayData& a = *arrays_[k];
    const size_t c = path_[k] == NodeKind::kList ? 0 : static_cast<size_t>(child_index_[k]);
    if (c >= a.children.size() || !a.children[c]) {
      return Status::Invalid("array of type " + a.type->ToString() + " lacks child " +
                             std::to_string(c));
    }
    arrays_[k + 1] = a.children[c].get();
  }
  const size_t m = path_.size() - 1;
  if (max_rep_ == 0) {
    // No lists: one item per row. A row is cut at its outermost null node.
    bool any_null = false;
    for (size_t k = 0; k <= m; ++k) {
      // Node k's slot for row r is arrays_[k]'s logical index base_k + r.
      any_null |= arrays_[k]->null_count != 0;
    }
    int64_t base_leaf = offset;
    for (size_t k = 0; k < m; ++k) base_leaf = arrays_[k]->offset + base_leaf;
    if (any_null) {
      std::vector<int> cut(static_cast<size_t>(length), -1);
      int64_t base = offset;
      for (size_t k = 0; k <= m; ++k) {
        const ArrayData& a = *arrays_[k];
        for (int64_t r = 0; r < length; ++r) {
          if (cut[static_cast<size_t>(r)] < 0 && !a.IsValid(base + r)) {
            cut[static_cast<size_t>(r)] = static_cast<int>(k);
          }
        }
        base = a.offset + base;
      }
      for (int64_t r = 0; r < length; ++r) {
        const int c = cut[static_cast<size_t>(r)];
        Emit(0, c, false);
        if (c < 0) ++valid_values_;
      }
    } else {
      if (!cut_.empty()) cut_.insert(cut_.end(), static_cast<size_t>(length), 0);
      levels_ += length;
      valid_values_ += length;
    }
    FlushRun();
    pieces_.push_back(arrays_[m]->Slice(base_leaf, length));
    value_bytes_ += EstimateBytes(*arrays_[m], base_leaf, length);
    values_ += length;
    rows_ += length;
    return Status::OK();
  }
  for (int64_t r = 0; r < length; ++r) {
    LANCE_RETURN_NOT_OK(Visit(0, offset + r, max_rep_));
  }
  FlushRun();
  rows_ += length;
  return Status::OK();
}

Result<LeafShredder::Page> LeafShredder::Finish() {
  FlushRun();
  Page page;
  page.rows = rows_;
  const size_t n = path_.size();
  // Layers, innermost first, from what the page holds at each node.
  google::protobuf::RepeatedField<int> layers;
  for (size_t k = n; k-- > 0;) {
    pb21::RepDefLayer layer;
    if (path_[k] == NodeKind::kList) {
      if (has_null_[k] && has_empty_[k]) {
        layer = pb21::NULL_AND_EMPTY_LIST;
      } else if (has_null_[k]) {
        layer = pb21::NULLABLE_LIST;
      } else if (has_empty_[k]) {
        layer = pb21::EMPTYABLE_LIST;
      } else {
        layer = pb21::ALL_VALID_LIST;
      }
    } else {
      layer = has_null_[k] ? pb21::NULLABLE_ITEM : pb21::ALL_VALID_ITEM;
    }
    page.layers.push_back(layer);
    layers.Add(layer);
  }
  LANCE_ASSIGN_OR_RAISE(page.levels, Levels::Make(layers));
  // Definition level of each (node, empty) cut: the numbering Levels::Make assigned.
  std::vector<uint16_t> def_of(2 * n + 1, 0);
  for (size_t d = 1; d < page.levels.cut_layer.size(); ++d) {
    const size_t node = n - 1 - static_cast<size_t>(page.levels.cut_layer[d]);
    def_of[1 + 2 * node + (page.levels.cut_empty[d] ? 1 : 0)] = static_cast<uint16_t>(d);
  }
  page.data.num_rows = rows_;
  page.data.rep = std::move(rep_);
  if (!cut_.empty()) {
    page.data.def.resize(cut_.size());
    for (size_t i = 0; i < cut_.size(); ++i) page.data.def[i] = def_of[cut_[i]];
  }
  if (pieces_.empty()) {
    page.data.values = nullptr;
  } else if (pieces_.size() == 1) {
    page.data.values = pieces_[0];
  } else {
    std::vector<ArrayPtr> arrays;
    arrays.reserve(pieces_.size());
    for (const auto& p : pieces_) arrays.push_back(MakeArray(p));
    LANCE_ASSIGN_OR_RAISE(ArrayPtr joined, Concatenate(arrays));
    page.data.values = joined->data();
  }
  page.valid_values = valid_values_;
  // Reset.
  rows_ = levels_ = values_ = valid_values_ = value_bytes_ = 0;
  rep_ = {};
  cut_ = {};
  std::fill(has_null_.begin(), has_null_.end(), 0);
  std::fill(has_empty_.begin(), has_empty_.end(), 0);
  pieces_.clear();
  return page;
}

}  // namespace lance::format::structural
