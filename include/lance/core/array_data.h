// SPDX-License-Identifier: Apache-2.0
/// \file array_data.h
/// \brief ArrayData: the physical, Arrow-layout description of an array.
///
/// Buffers follow the Arrow columnar format exactly, so they can be exported through the
/// C Data Interface without copying:
///
/// | type                          | buffers                                  | children
/// |
/// |-------------------------------|------------------------------------------|----------|
/// | null                          | (always null) validity                   | - | |
/// bool                          | validity, value bits                     | -        |
/// | ints, floats, temporal types  | validity, values                         | - | |
/// decimal128 / decimal256       | validity, values (16 / 32 bytes each)    | -        |
/// | fixed_size_binary[N]          | validity, values (N bytes each)          | - | |
/// utf8, binary                  | validity, int32 offsets (length+1), data | -        |
/// | large_utf8, large_binary      | validity, int64 offsets (length+1), data | - | |
/// list, map                     | validity, int32 offsets (length+1)       | values   |
/// | large_list                    | validity, int64 offsets (length+1)       | values |
/// | fixed_size_list<T, N>         | validity                                 | values |
/// | struct                        | validity                                 | 1/field |
/// | dictionary<V, I>              | validity, indices (I)  + `dictionary`     | - |
///
/// The validity buffer may be null when there are no nulls. `offset` is in logical slots
/// (bits for bool and validity) and applies to this level only; children of struct carry
/// their own offsets, while list children are indexed through the parent's offsets and
/// fixed_size_list children at (offset + i) * N.
///
/// Null arrays keep one buffer slot, always null (as in Arrow C++; the C Data Interface
/// and IPC carry no buffer for them); every slot is null, so their null_count is their
/// length. A map's child is its "entries" struct, whose two children are keys and items.
/// A dictionary array's buffers hold the indices; its values live in `dictionary`, a
/// whole array of the value type shared by every slice (its own offset and length apply;
/// indices are relative to its slot 0).

#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "lance/core/buffer.h"
#include "lance/core/type.h"

namespace lance {

/// \brief null_count value meaning "not computed yet".
inline constexpr int64_t kUnknownNullCount = -1;

struct ArrayData;
using ArrayDataPtr = std::shared_ptr<ArrayData>;

struct ArrayData {
  DataTypePtr type;
  int64_t length = 0;
  /// \brief Number of null slots in [offset, offset + length), or kUnknownNullCount.
  int64_t null_count = kUnknownNullCount;
  int64_t offset = 0;
  std::vector<BufferPtr> buffers;
  std::vector<ArrayDataPtr> children;
  /// \brief The dictionary (values) of a dictionary array; null for every other type.
  ArrayDataPtr dictionary;

  static ArrayDataPtr Make(DataTypePtr type, int64_t length,
                           std::vector<BufferPtr> buffers,
                           int64_t null_count = kUnknownNullCount, int64_t offset = 0,
                           std::vector<ArrayDataPtr> children = {},
                           ArrayDataPtr dictionary = nullptr);

  /// \brief null_count, computed from the validity bitmap (and cached) if unknown.
  int64_t GetNullCount();
  /// \brief True if slot i (relative to offset) is valid (not null).
  bool IsValid(int64_t i) const;
  /// \brief A view of [offset, offset + length) sharing all buffers. Cheap, O(1).
  ArrayDataPtr Slice(int64_t offset, int64_t length) const;
};

/// \brief Number of buffers the Arrow layout prescribes for `type` (see table above).
int NumBuffersForType(const DataType& type);

/// \brief Slot i (relative to the offset) of an integer ArrayData, or the index of slot i
/// of a dictionary ArrayData, widened to int64. A uint64 above INT64_MAX reads as -1 (it
/// can index nothing). REQUIRES: an integer or dictionary type with a values buffer.
int64_t IntegerValueAt(const ArrayData& data, int64_t i);

namespace bit_util {
inline bool GetBit(const uint8_t* bits, int64_t i) { return (bits[i >> 3] >> (i & 7)) & 1; }
inline void SetBit(uint8_t* bits, int64_t i) { bits[i >> 3] |= static_cast<uint8_t>(1u << (i & 7)); }
inline void ClearBit(uint8_t* bits, int64_t i) {
  bits[i >> 3] &= static_cast<uint8_t>(~(1u << (i & 7)));
}
inline void SetBitTo(uint8_t* bits, int64_t i, bool v) { v ? SetBit(bits, i) : ClearBit(bits, i); }
inline int64_t BytesForBits(int64_t bits) { return (bits + 7) >> 3; }
/// \brief Number of set bits in bits[offset, offset + length).
int64_t CountSetBits(const uint8_t* bits, int64_t offset, int64_t length);
/// \brief Copies bits src[src_offset, +length) to dst[dst_offset, +length).
void CopyBits(const uint8_t* src, int64_t src_offset, int64_t length, uint8_t* dst,
              int64_t dst_offset);
}  // namespace bit_util

}  // namespace lance
