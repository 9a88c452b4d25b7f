// SPDX-License-Identifier: Apache-2.0
// Arrow C Data Interface and C Stream Interface: export and import (see c_data.h).
//
// Design notes:
// * Exported structs own a heap-allocated "private" object per node (ArrowSchema or
//   ArrowArray), holding everything the struct points to: strings, buffer-pointer arrays,
//   child structs and (for arrays) a shared reference to the ArrayData. Each child has
//   its own private object, so a consumer may move a child out and release it
//   independently; a parent only releases children whose `release` is still set.
// * Imported arrays move the root ArrowArray into one heap guard shared (as the Buffer
//   owner) by every buffer of the tree; the guard's destructor calls the producer's
//   release once. The C interface carries no buffer sizes, so they are derived from the
//   type, offset and length, and the inputs are checked enough that no derived size
//   makes us read outside what a well-formed producer must have provided.
// * Schemas are small and copied out eagerly, so a schema is released as soon as it has
//   been read.

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

#include "core/c_data_internal.h"
#include "lance/core/array_data.h"
#include "lance/core/visit_type.h"

namespace lance::cdata {

int ExpectedBuffers(const DataType& type) {
  return type.id() == TypeId::kNull ? 0 : NumBuffersForType(type);
}

Result<int64_t> SlotsEnd(int64_t offset, int64_t length) {
  int64_t end = 0;
  if (length < 0 || offset < 0 || !CheckedAdd(offset, length, &end)) {
    return Status::Invalid("invalid offset " + std::to_string(offset) + " / length " +
                           std::to_string(length));
  }
  return end;
}

namespace {

// The types without parameters, which the format names by one character.
struct PrimitiveFormat {
  char code;
  TypeId id;
  DataTypePtr (*make)();
};
const PrimitiveFormat kPrimitiveFormats[] = {
    {'b', TypeId::kBool, boolean},    {'c', TypeId::kInt8, int8},
    {'C', TypeId::kUInt8, uint8},     {'s', TypeId::kInt16, int16},
    {'S', TypeId::kUInt16, uint16},   {'i', TypeId::kInt32, int32},
    {'I', TypeId::kUInt32, uint32},   {'l', TypeId::kInt64, int64},
    {'L', TypeId::kUInt64, uint64},   {'e', TypeId::kFloat16, float16},
    {'f', TypeId::kFloat32, float32}, {'g', TypeId::kFloat64, float64},
    {'u', TypeId::kUtf8, utf8},       {'U', TypeId::kLargeUtf8, large_utf8},
    {'z', TypeId::kBinary, binary},   {'Z', TypeId::kLargeBinary, large_binary},
    {'n', TypeId::kNull, null},
};

}  // namespace

DataTypePtr PrimitiveOfFormat(char c) {
  for (const PrimitiveFormat& format : kPrimitiveFormats) {
    if (format.code == c) return format.make();
  }
  return nullptr;
}

char PrimitiveFormatOf(TypeId id) {
  for (const PrimitiveFormat& format : kPrimitiveFormats) {
    if (format.id == id) return format.code;
  }
  return '\0';
}

// Width in bytes of one offset for offset-carrying layouts; 0 for other layouts.
int OffsetWidth(TypeId id) {
  return VisitTypeId(id, [](auto traits) {
    using Offset = typename decltype(traits)::OffsetType;
    if constexpr (std::is_void_v<Offset>) {
      return 0;
    } else {
      return static_cast<int>(sizeof(Offset));
    }
  });
}

bool IsBinaryLike(TypeId id) {
  return id == TypeId::kUtf8 || id == TypeId::kLargeUtf8 || id == TypeId::kBinary ||
         id == TypeId::kLargeBinary;
}

// Bytes per value of the values buffer (buffer 1) of byte-aligned fixed-width layouts;
// 0 for bool (bit-packed) and for layouts without a values buffer.
int64_t ValueWidth(const DataType& type) {
  if (type.id() == TypeId::kDictionary) {  // the indices
    return type.index_type() != nullptr && type.index_type()->is_integer()
               ? type.index_type()->byte_width()
               : 0;
  }
  // DataType::byte_width is -1 for bool, null and the nested and variable layouts.
  return std::max(type.byte_width(), 0);
}

// Number of child arrays/fields the layout prescribes; -1 means "one per struct field".
int64_t ExpectedChildren(const DataType& type) {
  if (type.is_list_like()) return 1;
  return type.id() == TypeId::kStruct ? type.num_fields() : 0;
}

// Reads offsets[index] without assuming the pointer is suitably aligned: the spec only
// recommends alignment, and an unaligned typed load is undefined behaviour.
int64_t ReadOffset(const uint8_t* offsets, int width, int64_t index) {
  if (width == 4) {
    int32_t v;
    std::memcpy(&v, offsets + index * 4, sizeof(v));
    return v;
  }
  int64_t v;
  std::memcpy(&v, offsets + index * 8, sizeof(v));
  return v;
}

std::string ChildPath(const std::string& parent, int64_t index, std::string_view name) {
  std::string path = parent;
  path.append(parent.empty() ? " child " : " > child ");
  path.append(std::to_string(index));
  path.append(" ('");
  path.append(name);
  path.append("')");
  return path;
}

}  // namespace lance::cdata
