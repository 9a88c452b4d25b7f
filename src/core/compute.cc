// SPDX-License-Identifier: Apache-2.0
//
// Filter and Take. Both are implemented as one recursive "gather": Take gathers the given
// slots, Filter turns its mask into slot indices and gathers those. Fixed-width and
// boolean arrays get a dedicated Filter loop that reads the mask a word at a time,
// because that is the path scans take for every column of every batch.

#include "lance/core/compute.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <utility>

#include "lance/core/visit_type.h"
#include "lance/macros.h"

namespace lance::compute {

namespace {

const uint8_t* ValidityBits(const ArrayData& data) {
  return data.buffers.empty() || !data.buffers[0] ? nullptr : data.buffers[0]->data();
}

// Validity of the gathered slots; {nullptr, 0} when every gathered slot is valid so the
// result carries no bitmap at all.
Result<std::pair<BufferPtr, int64_t>> GatherValidity(const ArrayData& data,
                                                     const int64_t* indices, int64_t n) {
  const uint8_t* bits = ValidityBits(data);
  if (bits == nullptr || data.null_count == 0) return std::pair<BufferPtr, int64_t>{};
  LANCE_ASSIGN_OR_RAISE(BufferPtr out, Buffer::Allocate(bit_util::BytesForBits(n)));
  uint8_t* dst = out->mutable_data();
  int64_t nulls = 0;
  for (int64_t k = 0; k < n; ++k) {
    if (bit_util::GetBit(bits, data.offset + indices[k])) {
      bit_util::SetBit(dst, k);
    } else {
      ++nulls;
    }
  }
  if (nulls == 0) return std::pair<BufferPtr, int64_t>{};
  return std::pair<BufferPtr, int64_t>{std::move(out), nulls};
}

template <typename T>
Result<BufferPtr> GatherFixed(const ArrayData& data, const int64_t* indices, int64_t n) {
  LANCE_ASSIGN_OR_RAISE(BufferPtr out,
                        Buffer::Allocate(n * static_cast<int64_t>(sizeof(T))));
  if (n == 0) return out;
  const T* src = data.buffers[1]->data_as<T>() + data.offset;
  T* dst = out->mutable_data_as<T>();
  for (int64_t k = 0; k < n; ++k) dst[k] = src[indices[k]];
  return out;
}

Result<BufferPtr> GatherBytes(const ArrayData& data, int32_t width,
                              const int64_t* indices, int64_t n) {
  LANCE_ASSIGN_OR_RAISE(BufferPtr out, Buffer::Allocate(n * width));
  if (n == 0 || width == 0) return out;
  const uint8_t* src = data.buffers[1]->data() + data.offset * width;
  uint8_t* dst = out->mutable_data();
  for (int64_t k = 0; k < n; ++k) {
    std::memcpy(dst + k * width, src + indices[k] * width, static_cast<size_t>(width));
  }
  return out;
}

Result<BufferPtr> GatherBits(const ArrayData& data, const int64_t* indices, int64_t n) {
  LANCE_ASSIGN_OR_RAISE(BufferPtr out, Buffer::Allocate(bit_util::BytesForBits(n)));
  const uint8_t* src = data.buffers[1]->data();
  uint8_t* dst = out->mutable_data();
  for (int64_t k = 0; k < n; ++k) {
    if (bit_util::GetBit(src, data.offset + indices[k])) bit_util::SetBit(dst, k);
  }
  return out;
}

Result<ArrayDataPtr> Gather(const ArrayData& data, const int64_t* indices, int64_t n);

// The offsets of the gathered slots of an offset layout (binary, lists): each selected
// slot keeps its length, null slots (per `valid`) become empty. `overflow` ends the error
// when the total does not fit OffsetT ("... <total><overflow>").
template <typename OffsetT>
Result<BufferPtr> GatherOffsets(const ArrayData& data, const int64_t* indices, int64_t n,
                                const uint8_t* valid, const char* overflow) {
  const OffsetT* offsets = data.buffers[1]->data_as<OffsetT>() + data.offset;
  LANCE_ASSIGN_OR_RAISE(
      BufferPtr out_offsets,
      Buffer::Allocate((n + 1) * static_cast<int64_t>(sizeof(OffsetT))));
  OffsetT* dst_offsets = out_offsets->mutable_data_as<OffsetT>();
  int64_t total = 0;
  for (int64_t k = 0; k < n; ++k) {
    dst_offsets[k] = static_cast<OffsetT>(total);
    if (valid && !bit_util::GetBit(valid, k)) continue;
    total += static_cast<int64_t>(offsets[indices[k] + 1]) - offsets[indices[k]];
    if (total > std::numeric_limits<OffsetT>::max()) {
      return Status::Invalid("gathering " + data.type->ToString() +
                             " values: " + std::to_string(total) + overflow);
    }
  }
  dst_offsets[n] = static_cast<OffsetT>(total);
  return out_offsets;
}

template <typename OffsetT>
Result<ArrayDataPtr> GatherBinary(const ArrayData& data, const int64_t* indices,
                                  int64_t n, BufferPtr validity, int64_t nulls) {
  const OffsetT* offsets = data.buffers[1]->data_as<OffsetT>() + data.offset;
  // The offsets first size the data buffer (and reject int32 overflow before allocating
  // it).
  LANCE_ASSIGN_OR_RAISE(
      BufferPtr out_offsets,
      GatherOffsets<OffsetT>(data, indices, n, validity ? validity->data() : nullptr,
                             " bytes do not fit 32-bit offsets (use the large_ type)"));
  const OffsetT* dst_offsets = out_offsets->data_as<OffsetT>();
  const int64_t total = dst_offsets[n];
  // kShortCopy bytes of slack let short values be copied with a fixed-size memcpy
  // (inlined to a couple of moves) instead of a library call per value; the slack is
  // trimmed.
  constexpr int64_t kShortCopy = 16;
  LANCE_ASSIGN_OR_RAISE(BufferPtr out_data, Buffer::Allocate(total + kShortCopy));
  out_data->Resize(total);
  if (total > 0) {
    const uint8_t* src = data.buffers[2]->data();
    const int64_t src_size = data.buffers[2]->size();
    uint8_t* dst = out_data->mutable_data();
    for (int64_t k = 0; k < n; ++k) {
      const int64_t len = static_cast<int64_t>(dst_offsets[k + 1]) - dst_offsets[k];
      const int64_t start = offsets[indices[k]];
      if (len <= kShortCopy && start + kShortCopy <= src_size) {
        // Copies a few bytes past the value; later values overwrite them.
        std::memcpy(dst + dst_offsets[k], src + start, kShortCopy);
      } else if (len > 0) {
        std::memcpy(dst + dst_offsets[k], src + start, static_cast<size_t>(len));
      }
    }
  }
  return ArrayData::Make(
      data.type, n, {std::move(validity), std::move(out_offsets), std::move(out_data)},
      nulls);
}

template <typename OffsetT>
Result<ArrayDataPtr> GatherList(const ArrayData& data, const int64_t* indices, int64_t n,
                                BufferPtr validity, int64_t nulls) {
  const OffsetT* offsets = data.buffers[1]->data_as<OffsetT>() + data.offset;
  const uint8_t* valid = validity ? validity->data() : nullptr;
  LANCE_ASSIGN_OR_RAISE(
      BufferPtr out_offsets,
      GatherOffsets<OffsetT>(data, indices, n, valid,
                             " child values do not fit 32-bit offsets"));
  const int64_t total = out_offsets->data_as<OffsetT>()[n];
  // The child is gathered at the concatenation of the selected ranges; list offsets index
  // the child relative to the child's own offset, which is what Gather expects.
  std::vector<int64_t> child_indices;
  child_indices.reserve(static_cast<size_t>(total));
  for (int64_t k = 0; k < n; ++k) {
    if (valid && !bit_util::GetBit(valid, k)) continue;
    for (int64_t j = offsets[indices[k]]; j < offsets[indices[k] + 1]; ++j) {
      child_indices.push_back(j);
    }
  }
  LANCE_ASSIGN_OR_RAISE(ArrayDataPtr child,
                        Gather(*data.children[0], child_indices.data(),
                               static_cast<int64_t>(child_indices.size())));
  return ArrayData::Make(data.type, n, {std::move(validity), std::move(out_offsets)},
                         nulls, 0, {std::move(child)});
}

Result<ArrayDataPtr> GatherFixedSizeList(const ArrayData& data, const int64_t* indices,
                                         int64_t n, BufferPtr validity, int64_t nulls) {
  // Null slots keep their list_size() placeholders: the layout requires them.
  const int64_t size = data.type->fixed_size();
  std::vector<int64_t> child_indices(static_cast<size_t>(n * size));
  for (int64_t k = 0; k < n; ++k) {
    const int64_t start = (data.offset + indices[k]) * size;
    for (int64_t j = 0; j < size; ++j) child_indices[k * size + j] = start + j;
  }
  LANCE_ASSIGN_OR_RAISE(ArrayDataPtr child,
                        Gather(*data.children[0], child_indices.data(),
                               static_cast<int64_t>(child_indices.size())));
  return ArrayData::Make(data.type, n, {std::move(validity)}, nulls, 0,
                         {std::move(child)});
}

Result<ArrayDataPtr> GatherStruct(const ArrayData& data, const int64_t* indices,
                                  int64_t n, BufferPtr validity, int64_t nulls) {
  // Struct slot i is slot offset + i of every child (children keep their own offsets).
  std::vector<int64_t> shifted;
  const int64_t* child_indices = indices;
  if (data.offset != 0) {
    shifted.resize(static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k) shifted[k] = indices[k] + data.offset;
    child_indices = shifted.data();
  }
  std::vector<ArrayDataPtr> children;
  children.reserve(data.children.size());
  for (const auto& child : data.children) {
    LANCE_ASSIGN_OR_RAISE(ArrayDataPtr taken, Gather(*child, child_indices, n));
    children.push_back(std::move(taken));
  }
  return ArrayData::Make(data.type, n, {std::move(validity)}, nulls, 0,
                         std::move(children));
}

// Gathers slots `indices` (relative to data.offset, already bounds-checked) into a fresh
// offset-0 ArrayData of the same type.
Result<ArrayDataPtr> Gather(const ArrayData& data, const int64_t* indices, int64_t n) {
  LANCE_ASSIGN_OR_RAISE(auto validity, GatherValidity(data, indices, n));
  // Plain variables, not a structured binding: the lambda below captures them, which
  // clang 14 (the fuzz build) does not allow for bindings.
  BufferPtr bitmap = std::move(validity.first);
  const int64_t nulls = validity.second;
  const DataType& type = *data.type;
  return VisitType(type, [&](auto traits) -> Result<ArrayDataPtr> {
    using T = decltype(traits);
    constexpr TypeId kId = T::kId;
    BufferPtr values;
    if constexpr (T::kIsBaseBinary) {
      return GatherBinary<typename T::OffsetType>(data, indices, n, std::move(bitmap),
                                                  nulls);
    } else if constexpr (T::kIsBaseList) {
      return GatherList<typename T::OffsetType>(data, indices, n, std::move(bitmap),
                                                nulls);
    } else if constexpr (kId == TypeId::kFixedSizeList) {
      return GatherFixedSizeList(data, indices, n, std::move(bitmap), nulls);
    } else if constexpr (kId == TypeId::kStruct) {
      return GatherStruct(data, indices, n, std::move(bitmap), nulls);
    } else if constexpr (kId == TypeId::kNull) {
      return ArrayData::Make(data.type, n, {nullptr}, n);
    } else if constexpr (kId == TypeId::kDictionary) {
      // The indices are gathered; the dictionary is shared as it is.
      const int width = type.index_type()->byte_width();
      LANCE_ASSIGN_OR_RAISE(values, GatherBytes(data, width, indices, n));
      return ArrayData::Make(data.type, n, {std::move(bitmap), std::move(values)}, nulls,
                             0, {}, data.dictionary);
    } else if constexpr (kId == TypeId::kBool) {
      LANCE_ASSIGN_OR_RAISE(values, GatherBits(data, indices, n));
    } else if constexpr (T::kIsNumeric) {
      // Values are moved as unsigned words of their width: bits, not numbers.
      LANCE_ASSIGN_OR_RAISE(
          values, GatherFixed<SameWidthUInt<typename T::CType>>(data, indices, n));
    } else {  // fixed_size_binary, decimals
      LANCE_ASSIGN_OR_RAISE(
          values, GatherBytes(data, std::max(0, type.byte_width()), indices, n));
    }
    return ArrayData::Make(data.type, n, {std::move(bitmap), std::move(values)}, nulls);
  });
}

// Checks the buffers Gather dereferences, so that malformed arrays fail cleanly instead
// of crashing (nested children are checked as Gather recurses into them).
Status CheckGatherable(const ArrayData& data) {
  const DataType& type = *data.type;
  const int needed = NumBuffersForType(type);
  if (static_cast<int>(data.buffers.size()) < needed) {
    return Status::Invalid("array of type " + type.ToString() + " has " +
                           std::to_string(data.buffers.size()) + " buffers, expected " +
                           std::to_string(needed));
  }
  for (int i = 1; i < needed; ++i) {
    if (!data.buffers[i] && data.length > 0) {
      // A zero-width fixed_size_binary or an all-empty string array may omit data.
      const bool optional =
          (type.id() == TypeId::kFixedSizeBinary && type.fixed_size() == 0) ||
          (type.is_binary_like() && i == 2);
      if (!optional) {
        return Status::Invalid("array of type " + type.ToString() +
                               " is missing buffer " + std::to_string(i));
      }
    }
  }
  if (type.id() == TypeId::kDictionary &&
      (!data.dictionary || !type.index_type() || !type.index_type()->is_integer())) {
    return Status::Invalid("dictionary array of type " + type.ToString() +
                           " has no dictionary or no integer indices");
  }
  if ((type.is_list_like() && data.children.size() != 1) ||
      (type.id() == TypeId::kStruct &&
       static_cast<int>(data.children.size()) != type.num_fields())) {
    return Status::Invalid("array of type " + type.ToString() + " has " +
                           std::to_string(data.children.size()) + " children");
  }
  for (const auto& child : data.children) {
    if (!child)
      return Status::Invalid("array of type " + type.ToString() + " has a null child");
    LANCE_RETURN_NOT_OK(CheckGatherable(*child));
  }
  return Status::OK();
}

// The mask as a plain bitmap at bit offset 0: value AND valid, so a null mask slot drops
// its row exactly like false does.
Result<BufferPtr> SelectionBitmap(const Array& mask, int64_t* selected) {
  const int64_t n = mask.length();
  LANCE_ASSIGN_OR_RAISE(BufferPtr out, Buffer::Allocate(bit_util::BytesForBits(n)));
  uint8_t* dst = out->mutable_data();
  if (n > 0)
    bit_util::CopyBits(mask.data()->buffers[1]->data(), mask.offset(), n, dst, 0);
  if (const uint8_t* valid = mask.null_bitmap_data(); valid && mask.null_count() > 0) {
    LANCE_ASSIGN_OR_RAISE(BufferPtr aligned, Buffer::Allocate(bit_util::BytesForBits(n)));
    bit_util::CopyBits(valid, mask.offset(), n, aligned->mutable_data(), 0);
    const uint8_t* v = aligned->data();
    for (int64_t i = 0; i < bit_util::BytesForBits(n); ++i) dst[i] &= v[i];
  }
  // Bits past n must be zero: the filter loops read the selection in whole words.
  if (n % 8 != 0) dst[n / 8] &= static_cast<uint8_t>((1u << (n % 8)) - 1);
  *selected = n == 0 ? 0 : bit_util::CountSetBits(dst, 0, n);
  return out;
}

// Reads 64 selection bits starting at bit 64 * w. The selection bitmap is allocated here
// (zero-padded to 64 bytes) and its bits past n are cleared, so whole words are safe.
inline uint64_t SelectionWord(const uint8_t* bits, int64_t w) {
  uint64_t word;
  std::memcpy(&word, bits + w * 8, sizeof(word));
  return word;
}

// Calls fn(i) for every set bit i of the selection, ascending.
template <typename Fn>
void ForEachSelected(const uint8_t* sel, int64_t n, Fn&& fn) {
  const int64_t words = (n + 63) / 64;
  for (int64_t w = 0; w < words; ++w) {
    uint64_t word = SelectionWord(sel, w);
    while (word != 0) {
      fn(w * 64 + std::countr_zero(word));
      word &= word - 1;
    }
  }
}

std::vector<int64_t> IndicesOfSetBits(const uint8_t* bits, int64_t n, int64_t count) {
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(count));
  ForEachSelected(bits, n, [&](int64_t i) { out.push_back(i); });
  return out;
}

template <typename T>
void FilterValues(const T* src, const uint8_t* sel, int64_t n, T* dst) {
  const int64_t words = (n + 63) / 64;
  for (int64_t w = 0; w < words; ++w) {
    uint64_t word = SelectionWord(sel, w);
    const T* base = src + w * 64;
    if (word == ~uint64_t{0}) {
      // Dense stretch: one copy instead of 64 scattered ones.
      std::memcpy(dst, base, 64 * sizeof(T));
      dst += 64;
      continue;
    }
    while (word != 0) {
      *dst++ = base[std::countr_zero(word)];
      word &= word - 1;
    }
  }
}

// Filter for fixed-width and boolean arrays: reads the selection a word at a time and
// copies values directly, without materialising indices.
Result<ArrayDataPtr> FilterPrimitive(const ArrayData& data, const uint8_t* sel, int64_t n,
                                     int64_t count) {
  const DataType& type = *data.type;
  BufferPtr bitmap;
  int64_t nulls = 0;
  const uint8_t* valid = ValidityBits(data);
  if (valid && data.null_count != 0) {
    LANCE_ASSIGN_OR_RAISE(bitmap, Buffer::Allocate(bit_util::BytesForBits(count)));
    uint8_t* dst = bitmap->mutable_data();
    int64_t k = 0;
    ForEachSelected(sel, n, [&](int64_t i) {
      if (bit_util::GetBit(valid, data.offset + i)) {
        bit_util::SetBit(dst, k);
      } else {
        ++nulls;
      }
      ++k;
    });
    if (nulls == 0) bitmap.reset();
  }
  BufferPtr values;
  if (type.id() == TypeId::kBool) {
    LANCE_ASSIGN_OR_RAISE(values, Buffer::Allocate(bit_util::BytesForBits(count)));
    const uint8_t* src = data.buffers[1]->data();
    uint8_t* dst = values->mutable_data();
    int64_t k = 0;
    ForEachSelected(sel, n, [&](int64_t i) {
      if (bit_util::GetBit(src, data.offset + i)) bit_util::SetBit(dst, k);
      ++k;
    });
  } else {
    const int64_t width = type.byte_width();
    LANCE_ASSIGN_OR_RAISE(values, Buffer::Allocate(count * width));
    if (count > 0 && width > 0) {
      const uint8_t* src = data.buffers[1]->data() + data.offset * width;
      uint8_t* dst = values->mutable_data();
      switch (width) {
        case 1:
          FilterValues(src, sel, n, dst);
          break;
        case 2:
          FilterValues(reinterpret_cast<const uint16_t*>(src), sel, n,
                       reinterpret_cast<uint16_t*>(dst));
          break;
        case 4:
          FilterValues(reinterpret_cast<const uint32_t*>(src), sel, n,
                       reinterpret_cast<uint32_t*>(dst));
          break;
        case 8:
          FilterValues(reinterpret_cast<const uint64_t*>(src), sel, n,
                       reinterpret_cast<uint64_t*>(dst));
          break;
        default:
          ForEachSelected(sel, n, [&](int64_t i) {
            std::memcpy(dst, src + i * width, static_cast<size_t>(width));
            dst += width;
          });
          break;
      }
    }
  }
  return ArrayData::Make(data.type, count, {std::move(bitmap), std::move(values)}, nulls);
}

// Primitive, fixed_size_binary and decimal types: one value of byte_width() bytes (or
// a bit) per slot in buffer 1.
bool IsFixedWidthOrBool(const DataType& type) {
  return type.is_fixed_width() && type.id() != TypeId::kNull;
}

Status CheckMaskBuffers(const Array& mask) {
  if (mask.length() > 0 &&
      (mask.data()->buffers.size() < 2 || !mask.data()->buffers[1])) {
    return Status::Invalid("boolean mask has no values buffer");
  }
  return Status::OK();
}

Status CheckMask(const Array& values, const Array& mask) {
  if (mask.type_id() != TypeId::kBool) {
    return Status::Invalid("filter mask must be boolean, got " + mask.type()->ToString());
  }
  if (mask.length() != values.length()) {
    return Status::Invalid("filter mask has " + std::to_string(mask.length()) +
                           " slots but the values have " +
                           std::to_string(values.length()));
  }
  return CheckMaskBuffers(mask);
}

Status CheckIndices(const std::vector<int64_t>& indices, int64_t length) {
  for (size_t k = 0; k < indices.size(); ++k) {
    if (indices[k] < 0 || indices[k] >= length) {
      return Status::Invalid("take index " + std::to_string(indices[k]) + " (position " +
                             std::to_string(k) + ") is out of range for " +
                             std::to_string(length) + " rows");
    }
  }
  return Status::OK();
}

Result<ArrayPtr> FilterChecked(const Array& values, const uint8_t* sel, int64_t count) {
  const int64_t n = values.length();
  // Make sure the (lazily computed) null count is known before the gathers consult it.
  values.null_count();
  if (IsFixedWidthOrBool(*values.type())) {
    LANCE_ASSIGN_OR_RAISE(ArrayDataPtr out,
                          FilterPrimitive(*values.data(), sel, n, count));
    return MakeArray(std::move(out));
  }
  const std::vector<int64_t> indices = IndicesOfSetBits(sel, n, count);
  LANCE_ASSIGN_OR_RAISE(ArrayDataPtr out, Gather(*values.data(), indices.data(),
                                                 static_cast<int64_t>(indices.size())));
  return MakeArray(std::move(out));
}

}  // namespace

Result<ArrayPtr> Filter(const Array& values, const Array& mask) {
  LANCE_RETURN_NOT_OK(CheckMask(values, mask));
  LANCE_RETURN_NOT_OK(CheckGatherable(*values.data()));
  int64_t count = 0;
  LANCE_ASSIGN_OR_RAISE(BufferPtr sel, SelectionBitmap(mask, &count));
  return FilterChecked(values, sel->data(), count);
}

Result<RecordBatchPtr> FilterBatch(const RecordBatch& batch, const Array& mask) {
  if (mask.type_id() != TypeId::kBool || mask.length() != batch.num_rows()) {
    return Status::Invalid("filter mask must be boolean with " +
                           std::to_string(batch.num_rows()) + " slots, got " +
                           mask.type()->ToString() + " with " +
                           std::to_string(mask.length()));
  }
  LANCE_RETURN_NOT_OK(CheckMaskBuffers(mask));
  int64_t count = 0;
  LANCE_ASSIGN_OR_RAISE(BufferPtr sel, SelectionBitmap(mask, &count));
  std::vector<ArrayPtr> columns;
  columns.reserve(batch.columns().size());
  for (int i = 0; i < batch.num_columns(); ++i) {
    const Array& column = *batch.column(i);
    LANCE_RETURN_NOT_OK_CTX(CheckGatherable(*column.data()),
                            "filtering column " + batch.schema()->field(i)->name());
    LANCE_ASSIGN_OR_RAISE(ArrayPtr out, FilterChecked(column, sel->data(), count));
    columns.push_back(std::move(out));
  }
  return RecordBatch::Make(batch.schema(), count, std::move(columns));
}

namespace {

// Take of indices already checked against values.length(); a malformed array's status
// carries `context` when there is one.
Result<ArrayPtr> TakeChecked(const Array& values, const std::vector<int64_t>& indices,
                             std::string_view context = {}) {
  Status gatherable = CheckGatherable(*values.data());
  if (!gatherable.ok()) {
    return context.empty() ? gatherable : gatherable.WithContext(context);
  }
  values.null_count();
  LANCE_ASSIGN_OR_RAISE(ArrayDataPtr out, Gather(*values.data(), indices.data(),
                                                 static_cast<int64_t>(indices.size())));
  return MakeArray(std::move(out));
}

}  // namespace

Result<ArrayPtr> Take(const Array& values, const std::vector<int64_t>& indices) {
  LANCE_RETURN_NOT_OK(CheckIndices(indices, values.length()));
  return TakeChecked(values, indices);
}

Result<RecordBatchPtr> TakeBatch(const RecordBatch& batch,
                                 const std::vector<int64_t>& indices) {
  LANCE_RETURN_NOT_OK(CheckIndices(indices, batch.num_rows()));
  std::vector<ArrayPtr> columns;
  columns.reserve(batch.columns().size());
  for (int i = 0; i < batch.num_columns(); ++i) {
    LANCE_ASSIGN_OR_RAISE(
        ArrayPtr out,
        TakeChecked(*batch.column(i), indices,
                    "taking from column " + batch.schema()->field(i)->name()));
    columns.push_back(std::move(out));
  }
  return RecordBatch::Make(batch.schema(), static_cast<int64_t>(indices.size()),
                           std::move(columns));
}

Status ReorderRows(const std::vector<int64_t>& sorted,
                   const std::vector<int64_t>& indices, std::vector<ArrayPtr>* columns) {
  if (sorted == indices) return Status::OK();
  std::vector<int64_t> positions(indices.size());
  for (size_t i = 0; i < indices.size(); ++i) {
    const auto it = std::lower_bound(sorted.begin(), sorted.end(), indices[i]);
    if (it == sorted.end() || *it != indices[i]) {
      return Status::Invalid("reordering rows: row " + std::to_string(indices[i]) +
                             " is not among the rows read");
    }
    positions[i] = it - sorted.begin();
  }
  for (ArrayPtr& column : *columns) {
    LANCE_ASSIGN_OR_RAISE(column, Take(*column, positions));
  }
  return Status::OK();
}

Result<std::vector<int64_t>> SelectedIndices(const Array& mask) {
  if (mask.type_id() != TypeId::kBool) {
    return Status::Invalid("selection mask must be boolean, got " +
                           mask.type()->ToString());
  }
  LANCE_RETURN_NOT_OK(CheckMaskBuffers(mask));
  int64_t count = 0;
  LANCE_ASSIGN_OR_RAISE(BufferPtr sel, SelectionBitmap(mask, &count));
  return IndicesOfSetBits(sel->data(), mask.length(), count);
}

}  // namespace lance::compute
