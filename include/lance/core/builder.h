// SPDX-License-Identifier: Apache-2.0
/// \file builder.h
/// \brief Builders that append values and produce Arrow-layout arrays.
///
/// A builder accumulates slots and hands them over with Finish(), after which it is empty
/// and can be reused. Buffers are 64-byte aligned with zeroed padding; the validity
/// bitmap is omitted (a null buffer) when no slot is null.
///
/// Nested builders own their child builders:
///  - ListBuilder / LargeListBuilder: Append() opens a slot, then append that slot's
///    items to value_builder();
///  - FixedSizeListBuilder: Append() marks a valid slot, then append exactly list_size()
///    items to value_builder();
///  - StructBuilder: Append() marks a valid slot, then append exactly one value to each
///    field_builder(i);
///  - MapBuilder: Append() opens a slot, then append that slot's entries as one key to
///    key_builder() and one item to item_builder() per entry;
///  - DictionaryBuilder: append values (they are dictionary-encoded as they come) or
///    indices into a dictionary given up front (see the class).
/// AppendNull()/AppendNulls() on nested builders keep children aligned themselves: a null
/// fixed_size_list slot appends list_size() placeholders to the child, a null struct slot
/// appends one placeholder to every field (a null when the child field is nullable, an
/// empty value otherwise). A null list slot appends nothing to the child.
///
/// Builders are not thread-safe.

#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lance/core/array.h"
#include "lance/core/buffer.h"
#include "lance/core/type.h"
#include "lance/result.h"

namespace lance {

/// \brief Appends bits (LSB first) into a 64-byte aligned buffer.
class BitmapBuilder {
 public:
  Status Reserve(int64_t additional_bits);
  Status Append(bool value);
  /// \brief Appends `count` copies of `value`.
  Status AppendN(int64_t count, bool value);
  /// \brief Appends bits[offset, offset + count).
  Status AppendBits(const uint8_t* bits, int64_t offset, int64_t count);
  int64_t length() const { return length_; }
  int64_t false_count() const { return false_count_; }
  /// \brief The bytes written so far (null before the first append).
  const uint8_t* data() const { return bytes_.data(); }
  /// \brief BytesForBits(length()) bytes; resets the builder.
  Result<BufferPtr> Finish();
  void Reset();

 private:
  Status Extend(int64_t count);

  BufferBuilder bytes_;
  int64_t length_ = 0;
  int64_t false_count_ = 0;
};

/// \brief Base of all builders.
class ArrayBuilder {
 public:
  explicit ArrayBuilder(DataTypePtr type);
  virtual ~ArrayBuilder();
  ArrayBuilder(const ArrayBuilder&) = delete;
  ArrayBuilder& operator=(const ArrayBuilder&) = delete;

  const DataTypePtr& type() const { return type_; }
  /// \brief Slots appended so far.
  int64_t length() const { return length_; }
  int64_t null_count() const { return null_count_; }

  Status AppendNull() { return AppendNulls(1); }
  virtual Status AppendNulls(int64_t count) = 0;
  /// \brief Appends `count` valid "zero" slots: 0, false, "", [], or a struct of empty
  /// values. Used for placeholders under null parents of non-nullable children.
  virtual Status AppendEmptyValues(int64_t count) = 0;
  Status AppendEmptyValue() { return AppendEmptyValues(1); }
  /// \brief Appends slots [offset, offset + length) of `data` (indices relative to its
  /// offset), rebasing offsets and copying bits as needed.
  /// \return Invalid if the types differ or the range is out of bounds.
  Status AppendArraySlice(const ArrayData& data, int64_t offset, int64_t length);
  Status AppendArraySlice(const Array& array, int64_t offset, int64_t length) {
    return AppendArraySlice(*array.data(), offset, length);
  }
  /// \brief Appends every slot of `array`.
  Status AppendArray(const Array& array) {
    return AppendArraySlice(array, 0, array.length());
  }
  /// \brief Pre-allocates room for `additional` more slots (children are not reserved).
  virtual Status Reserve(int64_t additional);

  /// \brief The array built so far; the builder is reset on success.
  Result<ArrayPtr> Finish();
  /// \brief As Finish(), returning the ArrayData.
  Result<ArrayDataPtr> FinishData();
  /// \brief Discards everything appended (including in child builders).
  virtual void Reset();

 protected:
  virtual Result<ArrayDataPtr> DoFinish() = 0;
  virtual Status DoAppendArraySlice(const ArrayData& data, int64_t offset,
                                    int64_t length) = 0;

  // Record the validity of appended slots and advance length()/null_count().
  Status AppendValidity(bool valid);
  Status AppendValidity(int64_t count, bool valid);
  Status AppendValiditySlice(const ArrayData& data, int64_t offset, int64_t length);
  /// \brief The bitmap, or nullptr when there were no nulls.
  Result<BufferPtr> FinishValidity();

  // Shared by the builders that keep `width` bytes a slot in one buffer (values or
  // offsets): ArrayBuilder::Reserve plus room for `additional` slots of `buffer`.
  Status ReserveSlots(BufferBuilder* buffer, int64_t width, int64_t additional);
  // Appends `count` slots of `width` zero bytes to `values`, valid or null.
  Status AppendZeroedSlots(BufferBuilder* values, int64_t width, int64_t count,
                           bool valid);
  // The array of a builder with one buffer after the validity: finishes both.
  // Instantiated for BufferBuilder and BitmapBuilder (builder.cc).
  template <typename ValuesBuilder>
  Result<ArrayDataPtr> FinishWithValues(ValuesBuilder* values);

  DataTypePtr type_;
  int64_t length_ = 0;
  int64_t null_count_ = 0;
  BitmapBuilder validity_;
};

class BooleanBuilder : public ArrayBuilder {
 public:
  using value_type = bool;
  BooleanBuilder();
  Status Append(bool value);
  /// \brief Appends values; slot i is null when `is_valid` is non-empty and
  /// is_valid[i] is false. REQUIRES: is_valid empty or as long as values.
  Status AppendValues(const std::vector<bool>& values,
                      const std::vector<bool>& is_valid = {});
  Status AppendNulls(int64_t count) override;
  Status AppendEmptyValues(int64_t count) override;
  Status Reserve(int64_t additional) override;
  void Reset() override;

 protected:
  Result<ArrayDataPtr> DoFinish() override;
  Status DoAppendArraySlice(const ArrayData& data, int64_t offset,
                            int64_t length) override;

 private:
  BitmapBuilder values_;
};

/// \brief Fixed-width values of C type `CType`.
///
/// Instantiated for int8_t .. uint64_t, float and double. The logical type defaults to
/// the natural one for CType (uint16_t -> uint16, ...); pass another type of the same
/// width (float16, date32, timestamp) to the constructor, or use the subclasses below.
template <typename CType>
class NumericBuilder : public ArrayBuilder {
 public:
  using value_type = CType;
  explicit NumericBuilder(DataTypePtr type = nullptr);
  Status Append(CType value);
  /// \brief Appends `count` values; slot i is null when valid_bytes && !valid_bytes[i].
  Status AppendValues(const CType* values, int64_t count,
                      const uint8_t* valid_bytes = nullptr);
  Status AppendValues(const std::vector<CType>& values,
                      const std::vector<bool>& is_valid = {});
  Status AppendNulls(int64_t count) override;
  Status AppendEmptyValues(int64_t count) override;
  Status Reserve(int64_t additional) override;
  void Reset() override;
  /// \brief Value of slot i appended so far (0 for nulls).
  CType GetValue(int64_t i) const {
    return reinterpret_cast<const CType*>(values_.data())[i];
  }

 protected:
  Result<ArrayDataPtr> DoFinish() override;
  Status DoAppendArraySlice(const ArrayData& data, int64_t offset,
                            int64_t length) override;

 private:
  static constexpr int64_t kWidth = sizeof(CType);

  BufferBuilder values_;
};

extern template class NumericBuilder<int8_t>;
extern template class NumericBuilder<int16_t>;
extern template class NumericBuilder<int32_t>;
extern template class NumericBuilder<int64_t>;
extern template class NumericBuilder<uint8_t>;
extern template class NumericBuilder<uint16_t>;
extern template class NumericBuilder<uint32_t>;
extern template class NumericBuilder<uint64_t>;
extern template class NumericBuilder<float>;
extern template class NumericBuilder<double>;

using Int8Builder = NumericBuilder<int8_t>;
using Int16Builder = NumericBuilder<int16_t>;
using Int32Builder = NumericBuilder<int32_t>;
using Int64Builder = NumericBuilder<int64_t>;
using UInt8Builder = NumericBuilder<uint8_t>;
using UInt16Builder = NumericBuilder<uint16_t>;
using UInt32Builder = NumericBuilder<uint32_t>;
using UInt64Builder = NumericBuilder<uint64_t>;
using FloatBuilder = NumericBuilder<float>;
using DoubleBuilder = NumericBuilder<double>;

/// \brief float16 values given as their IEEE half-precision bit patterns.
class HalfFloatBuilder : public NumericBuilder<uint16_t> {
 public:
  HalfFloatBuilder() : NumericBuilder<uint16_t>(float16()) {}
};

/// \brief date32 values: days since the UNIX epoch.
class Date32Builder : public NumericBuilder<int32_t> {
 public:
  Date32Builder() : NumericBuilder<int32_t>(date32()) {}
};

/// \brief timestamp values in the type's unit since the UNIX epoch (UTC).
class TimestampBuilder : public NumericBuilder<int64_t> {
 public:
  /// \brief REQUIRES: type is a timestamp type.
  explicit TimestampBuilder(DataTypePtr type)
      : NumericBuilder<int64_t>(std::move(type)) {}
};

/// \brief date64 values: milliseconds since the UNIX epoch (whole days).
class Date64Builder : public NumericBuilder<int64_t> {
 public:
  Date64Builder() : NumericBuilder<int64_t>(date64()) {}
};

/// \brief time32 values: seconds or milliseconds since midnight.
class Time32Builder : public NumericBuilder<int32_t> {
 public:
  /// \brief REQUIRES: type is a time32 type.
  explicit Time32Builder(DataTypePtr type) : NumericBuilder<int32_t>(std::move(type)) {}
};

/// \brief time64 values: microseconds or nanoseconds since midnight.
class Time64Builder : public NumericBuilder<int64_t> {
 public:
  /// \brief REQUIRES: type is a time64 type.
  explicit Time64Builder(DataTypePtr type) : NumericBuilder<int64_t>(std::move(type)) {}
};

/// \brief duration values in the type's unit.
class DurationBuilder : public NumericBuilder<int64_t> {
 public:
  /// \brief REQUIRES: type is a duration type.
  explicit DurationBuilder(DataTypePtr type) : NumericBuilder<int64_t>(std::move(type)) {}
};

/// \brief Arrays of the null type: every slot is null. AppendEmptyValues() appends nulls
/// too (there is no other value).
class NullBuilder : public ArrayBuilder {
 public:
  NullBuilder();
  Status AppendNulls(int64_t count) override;
  Status AppendEmptyValues(int64_t count) override;

 protected:
  Result<ArrayDataPtr> DoFinish() override;
  Status DoAppendArraySlice(const ArrayData& data, int64_t offset,
                            int64_t length) override;
};

/// \brief Variable-length byte strings with `OffsetT` offsets.
/// Instantiated for int32_t (binary, utf8) and int64_t (large_binary, large_utf8).
template <typename OffsetT>
class BaseBinaryBuilder : public ArrayBuilder {
 public:
  using value_type = std::string;
  using offset_type = OffsetT;
  /// \brief REQUIRES: a binary-like type whose offsets are OffsetT.
  explicit BaseBinaryBuilder(DataTypePtr type);
  /// \return Invalid when 32-bit offsets would overflow (use the large_ variant).
  Status Append(std::string_view value);
  Status Append(const uint8_t* value, int64_t length) {
    return Append(std::string_view(reinterpret_cast<const char*>(value),
                                   static_cast<size_t>(length)));
  }
  Status AppendValues(const std::vector<std::string>& values,
                      const std::vector<bool>& is_valid = {});
  Status AppendNulls(int64_t count) override;
  Status AppendEmptyValues(int64_t count) override;
  Status Reserve(int64_t additional) override;
  /// \brief Pre-allocates room for `bytes` more value bytes.
  Status ReserveData(int64_t bytes) { return data_.Reserve(bytes); }
  void Reset() override;
  /// \brief Total value bytes appended so far.
  int64_t value_data_length() const { return data_.length(); }
  /// \brief Bytes of slot i appended so far.
  std::string_view GetView(int64_t i) const;

 protected:
  Result<ArrayDataPtr> DoFinish() override;
  Status DoAppendArraySlice(const ArrayData& data, int64_t offset,
                            int64_t length) override;

 private:
  Status CheckCapacity(int64_t extra_bytes) const;
  // `count` empty strings, valid or null (AppendEmptyValues / AppendNulls).
  Status AppendEmptySlots(int64_t count, bool valid);

  BufferBuilder offsets_;  // start offset of each slot; the end offset is added at Finish
  BufferBuilder data_;
};

extern template class BaseBinaryBuilder<int32_t>;
extern template class BaseBinaryBuilder<int64_t>;

class BinaryBuilder : public BaseBinaryBuilder<int32_t> {
 public:
  BinaryBuilder() : BaseBinaryBuilder<int32_t>(binary()) {}

 protected:
  explicit BinaryBuilder(DataTypePtr type)
      : BaseBinaryBuilder<int32_t>(std::move(type)) {}
};
class StringBuilder : public BinaryBuilder {
 public:
  StringBuilder() : BinaryBuilder(utf8()) {}
};
class LargeBinaryBuilder : public BaseBinaryBuilder<int64_t> {
 public:
  LargeBinaryBuilder() : BaseBinaryBuilder<int64_t>(large_binary()) {}

 protected:
  explicit LargeBinaryBuilder(DataTypePtr type)
      : BaseBinaryBuilder<int64_t>(std::move(type)) {}
};
class LargeStringBuilder : public LargeBinaryBuilder {
 public:
  LargeStringBuilder() : LargeBinaryBuilder(large_utf8()) {}
};

/// \brief byte_width() bytes per slot (fixed_size_binary; base of the decimal builders).
class FixedSizeBinaryBuilder : public ArrayBuilder {
 public:
  using value_type = std::string;
  /// \brief REQUIRES: type is fixed_size_binary or a decimal.
  explicit FixedSizeBinaryBuilder(DataTypePtr type);
  /// \return Invalid unless value.size() == byte_width().
  Status Append(std::string_view value);
  Status Append(const uint8_t* value) {
    return Append(std::string_view(reinterpret_cast<const char*>(value),
                                   static_cast<size_t>(byte_width_)));
  }
  Status AppendValues(const std::vector<std::string>& values,
                      const std::vector<bool>& is_valid = {});
  Status AppendNulls(int64_t count) override;
  Status AppendEmptyValues(int64_t count) override;
  Status Reserve(int64_t additional) override;
  void Reset() override;
  int32_t byte_width() const { return byte_width_; }

 protected:
  Result<ArrayDataPtr> DoFinish() override;
  Status DoAppendArraySlice(const ArrayData& data, int64_t offset,
                            int64_t length) override;

 private:
  int32_t byte_width_;
  BufferBuilder values_;
};

/// \brief Decimal values. Append() takes the raw byte_width() bytes (little-endian two's
/// complement unscaled integer); the helpers below take an unscaled integer or text.
class DecimalBuilder : public FixedSizeBinaryBuilder {
 public:
  /// \brief REQUIRES: type is decimal128 or decimal256.
  explicit DecimalBuilder(DataTypePtr type) : FixedSizeBinaryBuilder(std::move(type)) {}
  /// \brief Appends the value unscaled * 10^-scale.
  /// \return Invalid if it has more than precision() digits.
  Status AppendUnscaled(int64_t unscaled);
  /// \brief Appends the value of exact decimal text ("123.45", "-1e-2"); see
  /// ParseDecimal() in decimal.h. \return Invalid for text that is not exactly
  /// representable in the type.
  Status AppendDecimalText(std::string_view text);
};
class Decimal128Builder : public DecimalBuilder {
 public:
  /// \brief REQUIRES: type is decimal128.
  explicit Decimal128Builder(DataTypePtr type) : DecimalBuilder(std::move(type)) {}
};
class Decimal256Builder : public DecimalBuilder {
 public:
  /// \brief REQUIRES: type is decimal256.
  explicit Decimal256Builder(DataTypePtr type) : DecimalBuilder(std::move(type)) {}
};

/// \brief Variable-length lists with `OffsetT` offsets. Instantiated for int32_t and
/// int64_t.
template <typename OffsetT>
class BaseListBuilder : public ArrayBuilder {
 public:
  using offset_type = OffsetT;
  /// \brief REQUIRES: type is a list type whose item type is value_builder->type().
  BaseListBuilder(std::unique_ptr<ArrayBuilder> value_builder, DataTypePtr type);
  /// \brief Opens slot length(): items appended to value_builder() until the next
  /// Append/AppendNull/Finish belong to it.
  Status Append(bool is_valid = true);
  Status AppendNulls(int64_t count) override;
  Status AppendEmptyValues(int64_t count) override;
  Status Reserve(int64_t additional) override;
  void Reset() override;
  ArrayBuilder* value_builder() const { return value_builder_.get(); }

 protected:
  Result<ArrayDataPtr> DoFinish() override;
  Status DoAppendArraySlice(const ArrayData& data, int64_t offset,
                            int64_t length) override;

 private:
  Status CheckChildLength(int64_t extra) const;
  // `count` empty lists, valid or null (AppendEmptyValues / AppendNulls).
  Status AppendEmptyLists(int64_t count, bool valid);

  std::unique_ptr<ArrayBuilder> value_builder_;
  BufferBuilder offsets_;  // start offset of each slot; the end offset is added at Finish
};

extern template class BaseListBuilder<int32_t>;
extern template class BaseListBuilder<int64_t>;

class ListBuilder : public BaseListBuilder<int32_t> {
 public:
  /// \brief With type == nullptr the type is list<item: value_builder->type()>.
  explicit ListBuilder(std::unique_ptr<ArrayBuilder> value_builder,
                       DataTypePtr type = nullptr);
};
class LargeListBuilder : public BaseListBuilder<int64_t> {
 public:
  /// \brief With type == nullptr the type is large_list<item: value_builder->type()>.
  explicit LargeListBuilder(std::unique_ptr<ArrayBuilder> value_builder,
                            DataTypePtr type = nullptr);
};

class FixedSizeListBuilder : public ArrayBuilder {
 public:
  /// \brief Type fixed_size_list<item: value_builder->type()>[list_size].
  FixedSizeListBuilder(std::unique_ptr<ArrayBuilder> value_builder, int32_t list_size);
  /// \brief REQUIRES: type is fixed_size_list over value_builder->type().
  FixedSizeListBuilder(std::unique_ptr<ArrayBuilder> value_builder, DataTypePtr type);
  /// \brief Marks slot length() valid (false: null, with placeholders appended to the
  /// child); for a valid slot append list_size() items to value_builder().
  Status Append(bool is_valid = true);
  Status AppendNulls(int64_t count) override;
  Status AppendEmptyValues(int64_t count) override;
  /// \brief Room for `additional` lists, and for their list_size() items each in the
  /// value builder (so that appending whole arrays copies the values once).
  Status Reserve(int64_t additional) override;
  void Reset() override;
  ArrayBuilder* value_builder() const { return value_builder_.get(); }
  int32_t list_size() const { return list_size_; }

 protected:
  Result<ArrayDataPtr> DoFinish() override;
  Status DoAppendArraySlice(const ArrayData& data, int64_t offset,
                            int64_t length) override;

 private:
  std::unique_ptr<ArrayBuilder> value_builder_;
  int32_t list_size_;
};

class StructBuilder : public ArrayBuilder {
 public:
  /// \brief REQUIRES: type is a struct whose field types match the builders, in order.
  StructBuilder(DataTypePtr type,
                std::vector<std::unique_ptr<ArrayBuilder>> field_builders);
  /// \brief Marks slot length() valid (false: null, with placeholders appended to every
  /// field); for a valid slot append one value to every field_builder(i).
  Status Append(bool is_valid = true);
  Status AppendNulls(int64_t count) override;
  Status AppendEmptyValues(int64_t count) override;
  void Reset() override;
  int num_fields() const { return static_cast<int>(field_builders_.size()); }
  ArrayBuilder* field_builder(int i) const { return field_builders_[i].get(); }

 protected:
  Result<ArrayDataPtr> DoFinish() override;
  Status DoAppendArraySlice(const ArrayData& data, int64_t offset,
                            int64_t length) override;

 private:
  std::vector<std::unique_ptr<ArrayBuilder>> field_builders_;
};

/// \brief map<K, V>: a list builder whose values are the "entries" struct.
///
/// Append() opens slot length(); then append each entry's key to key_builder() and its
/// item to item_builder() (the same number of each; keys must not be null). The entries
/// struct is kept in step with the key builder automatically.
class MapBuilder : public BaseListBuilder<int32_t> {
 public:
  /// \brief REQUIRES: type is a map over key_builder->type() / item_builder->type().
  MapBuilder(DataTypePtr type, std::unique_ptr<ArrayBuilder> key_builder,
             std::unique_ptr<ArrayBuilder> item_builder);
  /// \brief Opens slot length() (false: a null slot without entries).
  Status Append(bool is_valid = true);
  Status AppendNulls(int64_t count) override;
  Status AppendEmptyValues(int64_t count) override;
  ArrayBuilder* key_builder() const { return key_builder_; }
  ArrayBuilder* item_builder() const { return item_builder_; }

 protected:
  Result<ArrayDataPtr> DoFinish() override;
  Status DoAppendArraySlice(const ArrayData& data, int64_t offset,
                            int64_t length) override;

 private:
  // Marks as valid entries the keys/items appended since the last slot was opened.
  Status SyncEntries();

  ArrayBuilder* key_builder_;   // owned by the entries struct builder
  ArrayBuilder* item_builder_;  // owned by the entries struct builder
};

/// \brief Dictionary arrays, built two ways (which may be mixed):
///
///  - from values: AppendValues() / AppendArraySlice() of a plain array of value_type()
///    dictionary-encode each value: equal values share one dictionary entry (for
///    fixed-width and binary-like value types; other value types get one entry per
///    value), null values become null slots;
///  - from indices: SetDictionary(), then AppendIndices() / AppendIndex() into it.
///
/// Appending a dictionary array (AppendArraySlice) whose dictionary is the builder's own
/// (the same ArrayData, or equal values) copies its indices; the first dictionary array
/// appended to an empty builder lends it its dictionary. Any other dictionary array is
/// decoded and its values re-encoded. Finish() fails if the dictionary outgrows the index
/// type.
class DictionaryBuilder : public ArrayBuilder {
 public:
  /// \brief REQUIRES: type is a dictionary type.
  explicit DictionaryBuilder(DataTypePtr type);
  ~DictionaryBuilder() override;

  /// \brief Uses `dictionary` (value_type()) as the dictionary, sharing it. Only allowed
  /// while nothing has been appended and no dictionary exists yet.
  Status SetDictionary(const ArrayPtr& dictionary);
  /// \brief Appends a valid slot pointing at dictionary entry `index`.
  /// \return Invalid if the index is negative or not (yet) in the dictionary.
  Status AppendIndex(int64_t index);
  /// \brief Appends the slots of integer array `indices` (nulls stay null).
  Status AppendIndices(const Array& indices);
  /// \brief Dictionary-encodes slots [offset, offset + length) of `values` (an array of
  /// value_type(), not dictionary-encoded).
  Status AppendValues(const Array& values, int64_t offset, int64_t length);
  Status AppendValues(const Array& values) {
    return AppendValues(values, 0, values.length());
  }
  Status AppendNulls(int64_t count) override;
  /// \brief Appends slots pointing at an empty value ("" / 0 / ...), adding one to the
  /// dictionary when needed.
  Status AppendEmptyValues(int64_t count) override;
  void Reset() override;
  /// \brief Entries in the dictionary so far.
  int64_t dictionary_length() const;

 protected:
  Result<ArrayDataPtr> DoFinish() override;
  Status DoAppendArraySlice(const ArrayData& data, int64_t offset,
                            int64_t length) override;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// \brief A builder for any supported type, with child builders for nested types.
/// \return NotImplemented for unknown type ids, Invalid for a null or malformed type.
Result<std::unique_ptr<ArrayBuilder>> MakeBuilder(const DataTypePtr& type);

/// \brief Builds an array from `values` with a default-constructed BuilderT; slot i is
/// null when `is_valid` is non-empty and is_valid[i] is false.
///
/// `ArrayFromVector<Int64Builder>({1, 2, 3}, {true, false, true})` -> [1, null, 3].
template <typename BuilderT>
Result<ArrayPtr> ArrayFromVector(const std::vector<typename BuilderT::value_type>& values,
                                 const std::vector<bool>& is_valid = {}) {
  BuilderT builder;
  Status st = builder.AppendValues(values, is_valid);
  if (!st.ok()) return st;
  return builder.Finish();
}

/// \brief As above for builders constructed from a type (timestamp, fixed_size_binary).
template <typename BuilderT>
Result<ArrayPtr> ArrayFromVector(DataTypePtr type,
                                 const std::vector<typename BuilderT::value_type>& values,
                                 const std::vector<bool>& is_valid = {}) {
  BuilderT builder(std::move(type));
  Status st = builder.AppendValues(values, is_valid);
  if (!st.ok()) return st;
  return builder.Finish();
}

}  // namespace lance
