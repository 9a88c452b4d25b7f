// SPDX-License-Identifier: Apache-2.0
/// \file visit_type.h
/// \brief Compile-time facts about each TypeId (`TypeTraits<Id>`) and one switch that
/// turns a run-time type id into a call on those facts (`VisitType`).
///
/// Code that needs different behaviour per type writes one generic lambda instead of a
/// `switch (type.id())`:
///
/// \code
///   return VisitType(*data.type, [&](auto traits) -> Result<ArrayDataPtr> {
///     using T = decltype(traits);
///     if constexpr (T::kIsNumeric) return GatherFixed<typename T::CType>(...);
///     else return UnsupportedType(*data.type, "gathering");
///   });
/// \endcode
///
/// Each branch is instantiated for every type id, so branches use `if constexpr` on the
/// traits below. A visitor may also be a struct with overloaded call operators, one per
/// `TypeTraits<...>` it handles plus a template fallback.

#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "lance/core/type.h"
#include "lance/status.h"

namespace lance {

// The array and builder classes are only named here (the traits carry them as types);
// include array.h / builder.h to use them.
class BooleanArray;
template <typename CType>
class NumericArray;
class NullArray;
class BinaryArray;
class StringArray;
class LargeBinaryArray;
class LargeStringArray;
class FixedSizeBinaryArray;
class Decimal128Array;
class Decimal256Array;
class ListArray;
class LargeListArray;
class FixedSizeListArray;
class StructArray;
class MapArray;
class DictionaryArray;
class BooleanBuilder;
template <typename CType>
class NumericBuilder;
class HalfFloatBuilder;
class Date32Builder;
class TimestampBuilder;
class Date64Builder;
class Time32Builder;
class Time64Builder;
class DurationBuilder;
class NullBuilder;
class BinaryBuilder;
class StringBuilder;
class LargeBinaryBuilder;
class LargeStringBuilder;
class FixedSizeBinaryBuilder;
class Decimal128Builder;
class Decimal256Builder;
class ListBuilder;
class LargeListBuilder;
class FixedSizeListBuilder;
class StructBuilder;
class MapBuilder;
class DictionaryBuilder;

/// \brief Every TypeId, in declaration order: X(Name) for TypeId::kName.
#define LANCE_TYPE_ID_LIST(X) \
  X(Bool)                     \
  X(Int8)                     \
  X(Int16)                    \
  X(Int32)                    \
  X(Int64)                    \
  X(UInt8)                    \
  X(UInt16)                   \
  X(UInt32)                   \
  X(UInt64)                   \
  X(Float16)                  \
  X(Float32)                  \
  X(Float64)                  \
  X(Utf8)                     \
  X(LargeUtf8)                \
  X(Binary)                   \
  X(LargeBinary)              \
  X(FixedSizeBinary)          \
  X(Date32)                   \
  X(Timestamp)                \
  X(List)                     \
  X(LargeList)                \
  X(FixedSizeList)            \
  X(Struct)                   \
  X(Null)                     \
  X(Decimal128)               \
  X(Decimal256)               \
  X(Date64)                   \
  X(Time32)                   \
  X(Time64)                   \
  X(Duration)                 \
  X(Dictionary)               \
  X(Map)

/// \brief Number of TypeId values.
inline constexpr int kNumTypeIds = 0
#define LANCE_TYPE_ID_COUNT_ONE(Name) +1
    LANCE_TYPE_ID_LIST(LANCE_TYPE_ID_COUNT_ONE)
#undef LANCE_TYPE_ID_COUNT_ONE
    ;

namespace visit_type_internal {

/// The facts shared by every type; each specialization overrides what applies to it.
template <TypeId Id>
struct TraitsBase {
  static constexpr TypeId kId = Id;
  /// The C type of one value in the values buffer; void when values are not an array
  /// of a C type (bool is bit-packed, so it is void too).
  using CType = void;
  /// int32_t / int64_t for offset-based binary and list types; void otherwise.
  using OffsetType = void;
  /// Bytes per value fixed by the type id alone; -1 when not (bool, null,
  /// fixed_size_binary, variable-width and nested types), as DataType::byte_width().
  static constexpr int kByteWidth = -1;
  /// Values are a plain array of CType: ints, floats (float16 as uint16_t bits) and the
  /// temporal types.
  static constexpr bool kIsNumeric = false;
  /// utf8, large_utf8, binary, large_binary.
  static constexpr bool kIsBaseBinary = false;
  /// list, large_list, map (offset-based lists).
  static constexpr bool kIsBaseList = false;
};

template <TypeId Id, typename C>
struct NumericTraits : TraitsBase<Id> {
  using CType = C;
  static constexpr int kByteWidth = static_cast<int>(sizeof(C));
  static constexpr bool kIsNumeric = true;
  using ArrayType = NumericArray<C>;
};

template <TypeId Id, typename O, typename A, typename B>
struct BaseBinaryTraits : TraitsBase<Id> {
  using OffsetType = O;
  static constexpr bool kIsBaseBinary = true;
  using ArrayType = A;
  using BuilderType = B;
};

template <TypeId Id, typename O, typename A, typename B>
struct BaseListTraits : TraitsBase<Id> {
  using OffsetType = O;
  static constexpr bool kIsBaseList = true;
  using ArrayType = A;
  using BuilderType = B;
};

template <TypeId Id, typename A, typename B>
struct OtherTraits : TraitsBase<Id> {
  using ArrayType = A;
  using BuilderType = B;
};

}  // namespace visit_type_internal

/// \brief Compile-time facts about one type id: kId, CType, OffsetType, kByteWidth,
/// kIsNumeric, kIsBaseBinary, kIsBaseList, ArrayType (the class MakeArray returns) and
/// BuilderType (the class MakeBuilder returns).
template <TypeId Id>
struct TypeTraits;

#define LANCE_NUMERIC_TRAITS(Name, C, Builder)                   \
  template <>                                                    \
  struct TypeTraits<TypeId::k##Name>                             \
      : visit_type_internal::NumericTraits<TypeId::k##Name, C> { \
    using BuilderType = Builder;                                 \
  };
LANCE_NUMERIC_TRAITS(Int8, int8_t, NumericBuilder<int8_t>)
LANCE_NUMERIC_TRAITS(Int16, int16_t, NumericBuilder<int16_t>)
LANCE_NUMERIC_TRAITS(Int32, int32_t, NumericBuilder<int32_t>)
LANCE_NUMERIC_TRAITS(Int64, int64_t, NumericBuilder<int64_t>)
LANCE_NUMERIC_TRAITS(UInt8, uint8_t, NumericBuilder<uint8_t>)
LANCE_NUMERIC_TRAITS(UInt16, uint16_t, NumericBuilder<uint16_t>)
LANCE_NUMERIC_TRAITS(UInt32, uint32_t, NumericBuilder<uint32_t>)
LANCE_NUMERIC_TRAITS(UInt64, uint64_t, NumericBuilder<uint64_t>)
LANCE_NUMERIC_TRAITS(Float16, uint16_t, HalfFloatBuilder)
LANCE_NUMERIC_TRAITS(Float32, float, NumericBuilder<float>)
LANCE_NUMERIC_TRAITS(Float64, double, NumericBuilder<double>)
LANCE_NUMERIC_TRAITS(Date32, int32_t, Date32Builder)
LANCE_NUMERIC_TRAITS(Timestamp, int64_t, TimestampBuilder)
LANCE_NUMERIC_TRAITS(Date64, int64_t, Date64Builder)
LANCE_NUMERIC_TRAITS(Time32, int32_t, Time32Builder)
LANCE_NUMERIC_TRAITS(Time64, int64_t, Time64Builder)
LANCE_NUMERIC_TRAITS(Duration, int64_t, DurationBuilder)
#undef LANCE_NUMERIC_TRAITS

#define LANCE_OFFSET_TRAITS(Name, Family, O, Array, Builder) \
  template <>                                                \
  struct TypeTraits<TypeId::k##Name>                         \
      : visit_type_internal::Family<TypeId::k##Name, O, Array, Builder> {};
LANCE_OFFSET_TRAITS(Utf8, BaseBinaryTraits, int32_t, StringArray, StringBuilder)
LANCE_OFFSET_TRAITS(Binary, BaseBinaryTraits, int32_t, BinaryArray, BinaryBuilder)
LANCE_OFFSET_TRAITS(LargeUtf8, BaseBinaryTraits, int64_t, LargeStringArray,
                    LargeStringBuilder)
LANCE_OFFSET_TRAITS(LargeBinary, BaseBinaryTraits, int64_t, LargeBinaryArray,
                    LargeBinaryBuilder)
LANCE_OFFSET_TRAITS(List, BaseListTraits, int32_t, ListArray, ListBuilder)
LANCE_OFFSET_TRAITS(LargeList, BaseListTraits, int64_t, LargeListArray, LargeListBuilder)
LANCE_OFFSET_TRAITS(Map, BaseListTraits, int32_t, MapArray, MapBuilder)
#undef LANCE_OFFSET_TRAITS

#define LANCE_OTHER_TRAITS(Name, Array, Builder) \
  template <>                                    \
  struct TypeTraits<TypeId::k##Name>             \
      : visit_type_internal::OtherTraits<TypeId::k##Name, Array, Builder> {};
LANCE_OTHER_TRAITS(Bool, BooleanArray, BooleanBuilder)
LANCE_OTHER_TRAITS(Null, NullArray, NullBuilder)
LANCE_OTHER_TRAITS(FixedSizeBinary, FixedSizeBinaryArray, FixedSizeBinaryBuilder)
LANCE_OTHER_TRAITS(FixedSizeList, FixedSizeListArray, FixedSizeListBuilder)
LANCE_OTHER_TRAITS(Struct, StructArray, StructBuilder)
LANCE_OTHER_TRAITS(Dictionary, DictionaryArray, DictionaryBuilder)
#undef LANCE_OTHER_TRAITS

template <>
struct TypeTraits<TypeId::kDecimal128>
    : visit_type_internal::OtherTraits<TypeId::kDecimal128, Decimal128Array,
                                       Decimal128Builder> {
  static constexpr int kByteWidth = 16;
};
template <>
struct TypeTraits<TypeId::kDecimal256>
    : visit_type_internal::OtherTraits<TypeId::kDecimal256, Decimal256Array,
                                       Decimal256Builder> {
  static constexpr int kByteWidth = 32;
};

/// \brief The unsigned integer as wide as C (1, 2, 4 or 8 bytes), for code that moves
/// values as bits rather than numbers (a float copied as a float may not keep a NaN's
/// payload everywhere; its bits always do).
template <typename C>
using SameWidthUInt = std::conditional_t<
    sizeof(C) == 1, uint8_t,
    std::conditional_t<sizeof(C) == 2, uint16_t,
                       std::conditional_t<sizeof(C) == 4, uint32_t, uint64_t>>>;

/// \brief The status of a visitor branch that does not handle a type: "<action> is not
/// supported for <type>" (NotImplemented).
inline Status UnsupportedType(const DataType& type, std::string_view action) {
  return Status::NotImplemented(std::string(action), " is not supported for ",
                                type.ToString());
}

/// \brief Calls `visitor(TypeTraits<id>{})` and returns its result. An id outside the
/// enum (only possible through a bad cast) yields Status::Invalid when the result type
/// can hold a Status, otherwise a value-initialized result.
template <typename Visitor>
auto VisitTypeId(TypeId id, Visitor&& visitor)
    -> std::invoke_result_t<Visitor, TypeTraits<TypeId::kNull>> {
  using R = std::invoke_result_t<Visitor, TypeTraits<TypeId::kNull>>;
  switch (id) {
#define LANCE_VISIT_TYPE_CASE(Name) \
  case TypeId::k##Name:             \
    return std::forward<Visitor>(visitor)(TypeTraits<TypeId::k##Name>{});
    LANCE_TYPE_ID_LIST(LANCE_VISIT_TYPE_CASE)
#undef LANCE_VISIT_TYPE_CASE
  }
  if constexpr (std::is_void_v<R>) {
    return;
  } else if constexpr (std::is_constructible_v<R, Status>) {
    return R(Status::Invalid("visiting an unknown type id ", static_cast<int>(id)));
  } else {
    return R{};
  }
}

/// \brief VisitTypeId on type.id().
template <typename Visitor>
auto VisitType(const DataType& type, Visitor&& visitor) {
  return VisitTypeId(type.id(), std::forward<Visitor>(visitor));
}

/// \brief Calls `visitor(TypeTraits<...>{})` with the traits of the C type that stores
/// a numeric type's values, for the types whose traits have kIsNumeric; other types get
/// UnsupportedType(type, action). For code that depends only on the physical values
/// (gather, hash, compare), not on the logical type.
template <typename Visitor>
auto VisitNumericType(const DataType& type, std::string_view action, Visitor&& visitor)
    -> std::invoke_result_t<Visitor, TypeTraits<TypeId::kInt8>> {
  return VisitType(
      type, [&](auto traits) -> std::invoke_result_t<Visitor, TypeTraits<TypeId::kInt8>> {
        if constexpr (decltype(traits)::kIsNumeric) {
          return visitor(traits);
        } else {
          return UnsupportedType(type, action);
        }
      });
}

}  // namespace lance
