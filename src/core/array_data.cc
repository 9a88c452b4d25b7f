// SPDX-License-Identifier: Apache-2.0

#include "lance/core/array_data.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>
#include <limits>
#include <utility>

#include "lance/core/visit_type.h"

namespace lance {

namespace {

// null_count is a plain field (the C Data Interface reads and writes it directly) but it
// is also a lazily filled cache on a logically immutable, shared object. Going through
// atomic_ref keeps concurrent GetNullCount() calls on the same ArrayData race-free.
int64_t LoadNullCount(const int64_t& field) {
  return std::atomic_ref<int64_t>(const_cast<int64_t&>(field))
      .load(std::memory_order_relaxed);
}

bool HasValidityBuffer(const ArrayData& data) {
  return !data.buffers.empty() && data.buffers[0] != nullptr;
}

bool IsNullType(const ArrayData& data) {
  return data.type && data.type->id() == TypeId::kNull;
}

// The null count of an array without a validity bitmap: none, except for the null type
// whose slots are all null.
int64_t NullsWithoutBitmap(const ArrayData& data) {
  return IsNullType(data) ? data.length : 0;
}

}  // namespace

ArrayDataPtr ArrayData::Make(DataTypePtr type, int64_t length,
                             std::vector<BufferPtr> buffers, int64_t null_count,
                             int64_t offset, std::vector<ArrayDataPtr> children,
                             ArrayDataPtr dictionary) {
  auto data = std::make_shared<ArrayData>();
  data->type = std::move(type);
  data->length = length;
  data->offset = offset;
  data->buffers = std::move(buffers);
  data->children = std::move(children);
  data->dictionary = std::move(dictionary);
  // Without a validity bitmap every slot is valid (null arrays: every slot is null);
  // knowing that up front saves a later scan and lets slices inherit the count.
  data->null_count = HasValidityBuffer(*data) ? null_count : NullsWithoutBitmap(*data);
  return data;
}

int64_t ArrayData::GetNullCount() {
  std::atomic_ref<int64_t> cached(null_count);
  int64_t count = cached.load(std::memory_order_relaxed);
  if (count != kUnknownNullCount) return count;
  if (!HasValidityBuffer(*this)) {
    count = NullsWithoutBitmap(*this);
  } else {
    count = length - bit_util::CountSetBits(buffers[0]->data(), offset, length);
  }
  cached.store(count, std::memory_order_relaxed);
  return count;
}

bool ArrayData::IsValid(int64_t i) const {
  if (!HasValidityBuffer(*this)) return !IsNullType(*this);
  return bit_util::GetBit(buffers[0]->data(), offset + i);
}

ArrayDataPtr ArrayData::Slice(int64_t slice_offset, int64_t slice_length) const {
  // Clamped like std::string::substr so that a slice never reaches past the parent.
  slice_offset = std::clamp<int64_t>(slice_offset, 0, length);
  slice_length = std::clamp<int64_t>(slice_length, 0, length - slice_offset);
  auto out = std::make_shared<ArrayData>();
  out->type = type;
  out->length = slice_length;
  out->offset = offset + slice_offset;
  out->buffers = buffers;
  out->children = children;
  out->dictionary = dictionary;
  const int64_t parent_nulls = LoadNullCount(null_count);
  if (IsNullType(*this) && !HasValidityBuffer(*this)) {
    out->null_count = slice_length;
  } else if (parent_nulls == 0 || (slice_offset == 0 && slice_length == length)) {
    out->null_count = parent_nulls;
  } else {
    out->null_count = kUnknownNullCount;
  }
  return out;
}

int NumBuffersForType(const DataType& type) {
  return VisitType(type, [](auto traits) {
    using T = decltype(traits);
    if constexpr (T::kIsBaseBinary) {
      return 3;  // validity, offsets, data
    } else if constexpr (T::kId == TypeId::kFixedSizeList || T::kId == TypeId::kStruct ||
                         T::kId == TypeId::kNull) {
      return 1;
    } else {
      // Validity plus one of: values, value bits, offsets or dictionary indices.
      return 2;
    }
  });
}

int64_t IntegerValueAt(const ArrayData& data, int64_t i) {
  const int64_t at = data.offset + i;
  const uint8_t* raw = data.buffers[1]->data();
  const TypeId id = data.type->id() == TypeId::kDictionary ? data.type->index_type()->id()
                                                           : data.type->id();
  switch (id) {
    case TypeId::kInt8:
      return reinterpret_cast<const int8_t*>(raw)[at];
    case TypeId::kUInt8:
      return raw[at];
    case TypeId::kInt16:
      return reinterpret_cast<const int16_t*>(raw)[at];
    case TypeId::kUInt16:
      return reinterpret_cast<const uint16_t*>(raw)[at];
    case TypeId::kInt32:
      return reinterpret_cast<const int32_t*>(raw)[at];
    case TypeId::kUInt32:
      return reinterpret_cast<const uint32_t*>(raw)[at];
    case TypeId::kInt64:
      return reinterpret_cast<const int64_t*>(raw)[at];
    case TypeId::kUInt64: {
      const uint64_t u = reinterpret_cast<const uint64_t*>(raw)[at];
      return u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
                 ? -1
                 : static_cast<int64_t>(u);
    }
    default:
      return -1;
  }
}

namespace bit_util {

int64_t CountSetBits(const uint8_t* bits, int64_t offset, int64_t length) {
  if (length <= 0) return 0;
  int64_t count = 0;
  int64_t i = offset;
  const int64_t end = offset + length;
  while (i < end && (i & 7) != 0) {
    count += GetBit(bits, i);
    ++i;
  }
  int64_t whole_bytes = (end - i) >> 3;
  const uint8_t* p = bits + (i >> 3);
  i += whole_bytes * 8;
  // Word-at-a-time popcount; memcpy avoids unaligned loads being undefined behaviour.
  while (whole_bytes >= 8) {
    uint64_t word;
    std::memcpy(&word, p, sizeof(word));
    count += std::popcount(word);
    p += 8;
    whole_bytes -= 8;
  }
  while (whole_bytes > 0) {
    count += std::popcount(static_cast<unsigned>(*p));
    ++p;
    --whole_bytes;
  }
  while (i < end) {
    count += GetBit(bits, i);
    ++i;
  }
  return count;
}

void CopyBits(const uint8_t* src, int64_t src_offset, int64_t length, uint8_t* dst,
              int64_t dst_offset) {
  if (length <= 0) return;
  int64_t i = 0;
  if ((src_offset & 7) == 0 && (dst_offset & 7) == 0) {
    const int64_t whole_bytes = length >> 3;
    std::memmove(dst + (dst_offset >> 3), src + (src_offset >> 3),
                 static_cast<size_t>(whole_bytes));
    i = whole_bytes * 8;
  } else {
    // Align the destination first so the middle can be written a byte at a time, each
    // byte assembled from at most two source bytes.
    while (i < length && ((dst_offset + i) & 7) != 0) {
      SetBitTo(dst, dst_offset + i, GetBit(src, src_offset + i));
      ++i;
    }
    uint8_t* out = dst + ((dst_offset + i) >> 3);
    while (length - i >= 8) {
      const int64_t pos = src_offset + i;
      const int shift = static_cast<int>(pos & 7);
      const uint8_t* in = src + (pos >> 3);
      // When shift > 0 the 8 wanted bits straddle in[0] and in[1], both inside the range.
      *out++ = shift == 0
                   ? in[0]
                   : static_cast<uint8_t>((in[0] >> shift) | (in[1] << (8 - shift)));
      i += 8;
    }
  }
  // The tail is written bit by bit so bits of dst beyond the range are preserved.
  for (; i < length; ++i) {
    SetBitTo(dst, dst_offset + i, GetBit(src, src_offset + i));
  }
}

}  // namespace bit_util
}  // namespace lance
