// SPDX-License-Identifier: Apache-2.0
/// \file array.h
/// \brief Immutable arrays over ArrayData, with typed accessors.
///
/// `MakeArray(data)` wraps an ArrayData in the subclass matching its type:
///
/// | TypeId                   | class                         |
/// |--------------------------|-------------------------------|
/// | kBool                    | BooleanArray                  |
/// | kInt8 .. kUInt64         | Int8Array .. UInt64Array      |
/// | kFloat16                 | HalfFloatArray (uint16 bits)  |
/// | kFloat32, kFloat64       | FloatArray, DoubleArray       |
/// | kDate32, kTimestamp      | Date32Array, TimestampArray   |
/// | kBinary, kUtf8           | BinaryArray, StringArray      |
/// | kLargeBinary, kLargeUtf8 | LargeBinaryArray, LargeStringArray |
/// | kFixedSizeBinary         | FixedSizeBinaryArray          |
/// | kList, kLargeList        | ListArray, LargeListArray     |
/// | kFixedSizeList           | FixedSizeListArray            |
/// | kStruct                  | StructArray                   |
/// | kNull                    | NullArray                     |
/// | kDecimal128, kDecimal256 | Decimal128Array, Decimal256Array |
/// | kDate64, kDuration       | Date64Array, DurationArray (int64) |
/// | kTime32, kTime64         | Time32Array (int32), Time64Array (int64) |
/// | kDictionary              | DictionaryArray               |
/// | kMap                     | MapArray                      |
///
/// Numeric arrays are `NumericArray<CType>` instantiations, so Date32Array and
/// Time32Array are the same class as Int32Array, TimestampArray, Date64Array,
/// Time64Array and DurationArray as Int64Array, and HalfFloatArray as UInt16Array; the
/// logical type is always available from `type()`.
///
/// Every index `i` taken by an accessor is relative to the array's own offset. Accessors
/// do not bounds-check; call Validate() on untrusted data first.

#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lance/core/array_data.h"
#include "lance/core/type.h"
#include "lance/result.h"

namespace lance {

class Array;
using ArrayPtr = std::shared_ptr<Array>;

/// \brief Base of all arrays: a typed view of one ArrayData. Immutable and thread-safe.
class Array {
 public:
  explicit Array(ArrayDataPtr data) : data_(std::move(data)) {}
  virtual ~Array() = default;

  const ArrayDataPtr& data() const { return data_; }
  const DataTypePtr& type() const { return data_->type; }
  TypeId type_id() const { return data_->type->id(); }
  int64_t length() const { return data_->length; }
  int64_t offset() const { return data_->offset; }
  int64_t null_count() const { return data_->GetNullCount(); }
  bool IsValid(int64_t i) const { return data_->IsValid(i); }
  bool IsNull(int64_t i) const { return !data_->IsValid(i); }
  /// \brief The validity bitmap, or nullptr when every slot is valid. Bit `offset() + i`
  /// belongs to slot i.
  const BufferPtr& null_bitmap() const;
  /// \brief null_bitmap()->data() or nullptr.
  const uint8_t* null_bitmap_data() const {
    return data_->buffers.empty() || !data_->buffers[0] ? nullptr
                                                        : data_->buffers[0]->data();
  }

  /// \brief Zero-copy view of [offset, offset + length), clamped to this array.
  ArrayPtr Slice(int64_t offset, int64_t length) const;
  /// \brief Zero-copy view of [offset, length()).
  ArrayPtr Slice(int64_t offset) const { return Slice(offset, length() - offset); }

  /// \brief Logical equality (values and nulls; ignores offsets and buffer padding).
  ///
  /// Types must be equal (DataType::Equals). Values under null slots are ignored, nested
  /// types compare recursively, dictionary arrays compare the values their slots stand
  /// for (so two encodings of the same values are equal). Floating point compares by
  /// value with NaN equal to NaN and -0.0 equal to +0.0, so an array always equals itself
  /// and a round trip through a file compares equal.
  bool Equals(const Array& other) const;
  bool Equals(const ArrayPtr& other) const { return other && Equals(*other); }
  /// \brief Checks buffer sizes, offsets monotonicity and child lengths.
  ///
  /// Full validation, recursive over children and dictionaries, as Arrow C++'s
  /// ValidateFull: buffer count and sizes against offset + length, null_count against
  /// the bitmap, offsets non-decreasing and within the data/child, child types against
  /// the parent type, UTF-8 for utf8 arrays, decimal values within their precision, times
  /// of day within [0, 24h), date64 values whole days, dictionary indices within the
  /// dictionary, and map entries and keys non-null.
  /// \return Invalid describing the first problem found.
  Status Validate() const;
  /// \brief Readable rendering: "[1, null, 3]".
  ///
  /// Strings are quoted, binary is x'hex', nested values render recursively
  /// ("[[1, 2], null]", "[{x: 1, y: \"a\"}]"); more than 20 elements are elided in the
  /// middle (" ..."). See pretty_print.h for options.
  std::string ToString() const;

 protected:
  ArrayDataPtr data_;
};

/// \brief Wraps ArrayData in the Array subclass matching its type (nullptr for nullptr).
ArrayPtr MakeArray(ArrayDataPtr data);

/// \brief Validity bitmap and values bits of a bool array.
class BooleanArray : public Array {
 public:
  explicit BooleanArray(ArrayDataPtr data);
  bool Value(int64_t i) const { return bit_util::GetBit(values_, data_->offset + i); }
  /// \brief The value bits; bit `offset() + i` belongs to slot i.
  const uint8_t* values_bitmap() const { return values_; }
  /// \brief Number of valid slots holding true.
  int64_t true_count() const;

 private:
  const uint8_t* values_ = nullptr;
};

/// \brief Fixed-width values of C type `CType` (ints, floats, date32, timestamp,
/// float16 as uint16 bits).
template <typename CType>
class NumericArray : public Array {
 public:
  using value_type = CType;
  explicit NumericArray(ArrayDataPtr data) : Array(std::move(data)) {
    if (data_->buffers.size() > 1 && data_->buffers[1]) {
      raw_values_ = data_->buffers[1]->template data_as<CType>() + data_->offset;
    }
  }
  CType Value(int64_t i) const { return raw_values_[i]; }
  /// \brief Values starting at slot 0 of this array (offset already applied).
  const CType* raw_values() const { return raw_values_; }
  /// \brief The values buffer (not offset-adjusted).
  const BufferPtr& values() const { return data_->buffers[1]; }

 private:
  const CType* raw_values_ = nullptr;
};

using Int8Array = NumericArray<int8_t>;
using Int16Array = NumericArray<int16_t>;
using Int32Array = NumericArray<int32_t>;
using Int64Array = NumericArray<int64_t>;
using UInt8Array = NumericArray<uint8_t>;
using UInt16Array = NumericArray<uint16_t>;
using UInt32Array = NumericArray<uint32_t>;
using UInt64Array = NumericArray<uint64_t>;
/// \brief IEEE half floats as their uint16 bit patterns.
using HalfFloatArray = NumericArray<uint16_t>;
using FloatArray = NumericArray<float>;
using DoubleArray = NumericArray<double>;
/// \brief Days since the UNIX epoch.
using Date32Array = NumericArray<int32_t>;
/// \brief Ticks of type()->unit() since the UNIX epoch (UTC).
using TimestampArray = NumericArray<int64_t>;
/// \brief Milliseconds since the UNIX epoch.
using Date64Array = NumericArray<int64_t>;
/// \brief Seconds or milliseconds since midnight.
using Time32Array = NumericArray<int32_t>;
/// \brief Microseconds or nanoseconds since midnight.
using Time64Array = NumericArray<int64_t>;
/// \brief Ticks of type()->unit().
using DurationArray = NumericArray<int64_t>;

/// \brief The null type: every slot is null and there is no data.
class NullArray : public Array {
 public:
  explicit NullArray(ArrayDataPtr data) : Array(std::move(data)) {}
  /// \brief An array of `length` nulls.
  static std::shared_ptr<NullArray> Make(int64_t length);
};

/// \brief Variable-length byte strings with `OffsetT` offsets.
template <typename OffsetT>
class BaseBinaryArray : public Array {
 public:
  using offset_type = OffsetT;
  explicit BaseBinaryArray(ArrayDataPtr data) : Array(std::move(data)) {
    if (data_->buffers.size() > 1 && data_->buffers[1]) {
      raw_offsets_ = data_->buffers[1]->template data_as<OffsetT>() + data_->offset;
    }
    if (data_->buffers.size() > 2 && data_->buffers[2]) {
      raw_data_ = data_->buffers[2]->data();
    }
  }
  /// \brief The bytes of slot i (empty for null slots in well-formed data).
  std::string_view GetView(int64_t i) const {
    const OffsetT begin = raw_offsets_[i];
    const OffsetT end = raw_offsets_[i + 1];
    if (end == begin) return {};
    return {reinterpret_cast<const char*>(raw_data_) + begin,
            static_cast<size_t>(end - begin)};
  }
  std::string GetString(int64_t i) const { return std::string(GetView(i)); }
  /// \brief Start of slot i in the data buffer.
  OffsetT value_offset(int64_t i) const { return raw_offsets_[i]; }
  OffsetT value_length(int64_t i) const { return raw_offsets_[i + 1] - raw_offsets_[i]; }
  /// \brief length() + 1 offsets starting at slot 0 of this array (offset applied).
  const OffsetT* raw_value_offsets() const { return raw_offsets_; }
  /// \brief Start of the data buffer; offsets index into it directly.
  const uint8_t* raw_data() const { return raw_data_; }
  const BufferPtr& value_offsets() const { return data_->buffers[1]; }
  const BufferPtr& value_data() const { return data_->buffers[2]; }
  /// \brief Bytes spanned by this array's slots.
  int64_t total_values_length() const {
    return length() == 0 ? 0 : raw_offsets_[length()] - raw_offsets_[0];
  }

 private:
  const OffsetT* raw_offsets_ = nullptr;
  const uint8_t* raw_data_ = nullptr;
};

class BinaryArray : public BaseBinaryArray<int32_t> {
 public:
  using BaseBinaryArray::BaseBinaryArray;
};
/// \brief utf8: a BinaryArray whose bytes are UTF-8.
class StringArray : public BinaryArray {
 public:
  using BinaryArray::BinaryArray;
};
class LargeBinaryArray : public BaseBinaryArray<int64_t> {
 public:
  using BaseBinaryArray::BaseBinaryArray;
};
/// \brief large_utf8: a LargeBinaryArray whose bytes are UTF-8.
class LargeStringArray : public LargeBinaryArray {
 public:
  using LargeBinaryArray::LargeBinaryArray;
};

/// \brief byte_width() bytes per slot (fixed_size_binary, and decimals).
class FixedSizeBinaryArray : public Array {
 public:
  explicit FixedSizeBinaryArray(ArrayDataPtr data);
  int32_t byte_width() const { return byte_width_; }
  const uint8_t* GetValue(int64_t i) const { return raw_values_ + i * byte_width_; }
  std::string_view GetView(int64_t i) const {
    return {reinterpret_cast<const char*>(GetValue(i)), static_cast<size_t>(byte_width_)};
  }
  std::string GetString(int64_t i) const { return std::string(GetView(i)); }
  /// \brief Bytes of slot 0 of this array (offset applied).
  const uint8_t* raw_values() const { return raw_values_; }

 private:
  int32_t byte_width_ = 0;
  const uint8_t* raw_values_ = nullptr;
};

/// \brief Decimal values: byte_width() (16 or 32) bytes of little-endian two's complement
/// per slot, the unscaled integer; the value is unscaled * 10^-scale().
class DecimalArray : public FixedSizeBinaryArray {
 public:
  using FixedSizeBinaryArray::FixedSizeBinaryArray;
  int32_t precision() const { return type()->precision(); }
  int32_t scale() const { return type()->scale(); }
  /// \brief The exact decimal text of slot i ("123.45"), whatever its validity.
  std::string FormatValue(int64_t i) const;
};
class Decimal128Array : public DecimalArray {
 public:
  using DecimalArray::DecimalArray;
};
class Decimal256Array : public DecimalArray {
 public:
  using DecimalArray::DecimalArray;
};

/// \brief Variable-length lists with `OffsetT` offsets into one child array.
template <typename OffsetT>
class BaseListArray : public Array {
 public:
  using offset_type = OffsetT;
  explicit BaseListArray(ArrayDataPtr data) : Array(std::move(data)) {
    if (data_->buffers.size() > 1 && data_->buffers[1]) {
      raw_offsets_ = data_->buffers[1]->template data_as<OffsetT>() + data_->offset;
    }
    if (!data_->children.empty()) values_ = MakeArray(data_->children[0]);
  }
  /// \brief The whole child array; slot i spans [value_offset(i), value_offset(i + 1)).
  const ArrayPtr& values() const { return values_; }
  OffsetT value_offset(int64_t i) const { return raw_offsets_[i]; }
  OffsetT value_length(int64_t i) const { return raw_offsets_[i + 1] - raw_offsets_[i]; }
  /// \brief The child values of slot i as a zero-copy slice.
  ArrayPtr value_slice(int64_t i) const {
    return values_->Slice(value_offset(i), value_length(i));
  }
  /// \brief length() + 1 offsets starting at slot 0 of this array (offset applied).
  const OffsetT* raw_value_offsets() const { return raw_offsets_; }
  const BufferPtr& value_offsets() const { return data_->buffers[1]; }
  const DataTypePtr& value_type() const { return data_->type->value_type(); }

 private:
  const OffsetT* raw_offsets_ = nullptr;
  ArrayPtr values_;
};

class ListArray : public BaseListArray<int32_t> {
 public:
  using BaseListArray::BaseListArray;
};
class LargeListArray : public BaseListArray<int64_t> {
 public:
  using BaseListArray::BaseListArray;
};

/// \brief map<K, V>: a list of "entries" structs {key, value} with int32 offsets. Slot i
/// holds entries [value_offset(i), value_offset(i + 1)) of keys() and items().
class MapArray : public ListArray {
 public:
  explicit MapArray(ArrayDataPtr data);
  /// \brief The keys / items of all entries (the entries struct's fields, zero-copy).
  const ArrayPtr& keys() const { return keys_; }
  const ArrayPtr& items() const { return items_; }
  bool keys_sorted() const { return type()->keys_sorted(); }

 private:
  ArrayPtr keys_;
  ArrayPtr items_;
};

/// \brief list_size() child values per slot; slot i is child slots
/// [(offset() + i) * list_size(), +list_size()).
class FixedSizeListArray : public Array {
 public:
  explicit FixedSizeListArray(ArrayDataPtr data);
  int32_t list_size() const { return list_size_; }
  /// \brief The whole child array (not adjusted for this array's offset).
  const ArrayPtr& values() const { return values_; }
  int64_t value_offset(int64_t i) const { return (data_->offset + i) * list_size_; }
  int32_t value_length(int64_t /*i*/ = 0) const { return list_size_; }
  ArrayPtr value_slice(int64_t i) const {
    return values_->Slice(value_offset(i), list_size_);
  }
  const DataTypePtr& value_type() const { return data_->type->value_type(); }

 private:
  int32_t list_size_ = 0;
  ArrayPtr values_;
};

/// \brief Integer indices into a dictionary of values: slot i is dictionary()[index(i)].
///
/// Nulls are those of the indices (a valid index may still point at a null value).
class DictionaryArray : public Array {
 public:
  explicit DictionaryArray(ArrayDataPtr data);

  /// \brief A dictionary array of `type` over `indices` (an integer array of
  /// type->index_type(), its offset and validity kept) and `dictionary` (type->
  /// value_type()). \return Invalid if the types disagree or an index is out of range.
  static Result<std::shared_ptr<DictionaryArray>> Make(DataTypePtr type,
                                                       const ArrayPtr& indices,
                                                       const ArrayPtr& dictionary);

  /// \brief The indices as an integer array (same offset, length and validity).
  const ArrayPtr& indices() const { return indices_; }
  /// \brief The values.
  const ArrayPtr& dictionary() const { return dictionary_; }
  /// \brief Index of slot i, widened to int64 (meaningless for null slots).
  int64_t GetValueIndex(int64_t i) const;
  const DataTypePtr& index_type() const { return type()->index_type(); }
  const DataTypePtr& value_type() const { return type()->value_type(); }

 private:
  ArrayPtr indices_;
  ArrayPtr dictionary_;
};

/// \brief One child array per field; slot i of the struct is slot i of every field().
class StructArray : public Array {
 public:
  explicit StructArray(ArrayDataPtr data);

  /// \brief A struct array over `children` (all of length `length`, or of the children's
  /// common length when length < 0), with an optional validity bitmap.
  /// \return Invalid if lengths or counts disagree.
  static Result<std::shared_ptr<StructArray>> Make(const std::vector<ArrayPtr>& children,
                                                   const std::vector<FieldPtr>& fields,
                                                   int64_t length = -1,
                                                   BufferPtr null_bitmap = nullptr,
                                                   int64_t null_count = kUnknownNullCount,
                                                   int64_t offset = 0);
  /// \brief As above, with nullable fields named `names` typed after the children.
  static Result<std::shared_ptr<StructArray>> Make(const std::vector<ArrayPtr>& children,
                                                   const std::vector<std::string>& names);

  int num_fields() const { return static_cast<int>(fields_.size()); }
  /// \brief Field i as seen through this struct: offset and length applied (zero-copy).
  const ArrayPtr& field(int i) const { return fields_[i]; }
  /// \brief The field named `name`, or nullptr.
  ArrayPtr GetFieldByName(const std::string& name) const;
  const std::vector<ArrayPtr>& fields() const { return fields_; }

 private:
  std::vector<ArrayPtr> fields_;
};

}  // namespace lance
