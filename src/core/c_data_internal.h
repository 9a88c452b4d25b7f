// SPDX-License-Identifier: Apache-2.0
// Internal: the layout helpers the export (c_data_export.cc) and import
// (c_data_import.cc) halves of the Arrow C Data Interface share, defined in c_data.cc.
// Not installed.

#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "lance/core/type.h"
#include "lance/result.h"

namespace lance::cdata {

// Zeroed memory that stands in for buffers whose required size is (nearly) empty: the
// spec lets producers pass NULL for zero-sized buffers, but many consumers dereference
// buffer pointers unconditionally (e.g. offsets[0] of an empty utf8 array), so export
// never hands out NULL for a non-validity buffer and import never creates a lance Buffer
// with a NULL data pointer.
alignas(64) inline constexpr uint8_t kZeros[64] = {};

// Buffers of the Arrow C layout, including the validity slot: lance's ArrayData layout
// (NumBuffersForType), except that the null type has no buffer at all in C where lance
// has one (always null) validity slot.
int ExpectedBuffers(const DataType& type);

// The type of a one-character format ("b", "i", "u", ...), or NULL when there is none.
DataTypePtr PrimitiveOfFormat(char c);
// The one-character format of a type without parameters, or '\0' when it has none.
char PrimitiveFormatOf(TypeId id);

// Width in bytes of one offset for offset-carrying layouts; 0 for other layouts.
int OffsetWidth(TypeId id);

bool IsBinaryLike(TypeId id);

// Bytes per value of the values buffer (buffer 1) of byte-aligned fixed-width layouts;
// 0 for bool (bit-packed) and for layouts without a values buffer.
int64_t ValueWidth(const DataType& type);

// Number of child arrays/fields the layout prescribes; -1 means "one per struct field".
int64_t ExpectedChildren(const DataType& type);

// a * b and a + b into *out; false when the result overflows int64.
inline bool CheckedMul(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_mul_overflow(a, b, out);
}
inline bool CheckedAdd(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_add_overflow(a, b, out);
}

// The end of slots [offset, offset + length), or Invalid when either is negative or the
// end overflows.
Result<int64_t> SlotsEnd(int64_t offset, int64_t length);

// Reads offsets[index] without assuming the pointer is suitably aligned: the spec only
// recommends alignment, and an unaligned typed load is undefined behaviour.
int64_t ReadOffset(const uint8_t* offsets, int width, int64_t index);

// The path of child `index` named `name` of the node at `parent`, for error messages.
std::string ChildPath(const std::string& parent, int64_t index, std::string_view name);

}  // namespace lance::cdata
