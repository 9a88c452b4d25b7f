// SPDX-License-Identifier: Apache-2.0

#include "lance/core/builder.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>

#include "lance/core/decimal.h"
#include "lance/macros.h"

namespace lance {

namespace {

Status CheckIsValidVector(size_t values, const std::vector<bool>& is_valid) {
  if (!is_valid.empty() && is_valid.size() != values) {
    return Status::Invalid("appending values: " + std::to_string(values) +
                           " values but " + std::to_string(is_valid.size()) +
                           " validity flags");
  }
  return Status::OK();
}

// Placeholder slots under a null parent: nulls where the child allows them, so readers of
// the child alone see "no value"; empty values where it does not, so the child stays
// valid against its own field.
Status AppendPlaceholders(ArrayBuilder* child, const Field& field, int64_t count) {
  if (count == 0) return Status::OK();
  return field.nullable() ? child->AppendNulls(count) : child->AppendEmptyValues(count);
}

Status CheckCount(int64_t count) {
  LANCE_PRECHECK(count >= 0, "appending a negative number of slots");
  return Status::OK();
}

}  // namespace

// ---------------------------------------------------------------------------------------
// BitmapBuilder

Status BitmapBuilder::Reserve(int64_t additional_bits) {
  const int64_t needed =
      bit_util::BytesForBits(length_ + additional_bits) - bytes_.length();
  return needed > 0 ? bytes_.Reserve(needed) : Status::OK();
}

// Grows the byte buffer to cover `count` more bits. Bytes come in zeroed, and bits at or
// past length_ are never set, so new bits start out as 0.
Status BitmapBuilder::Extend(int64_t count) {
  const int64_t needed = bit_util::BytesForBits(length_ + count) - bytes_.length();
  return needed > 0 ? bytes_.AppendZeros(needed) : Status::OK();
}

Status BitmapBuilder::Append(bool value) {
  if ((length_ & 7) == 0) LANCE_RETURN_NOT_OK(bytes_.AppendZeros(1));
  if (value) {
    bit_util::SetBit(bytes_.mutable_data(), length_);
  } else {
    ++false_count_;
  }
  ++length_;
  return Status::OK();
}

Status BitmapBuilder::AppendN(int64_t count, bool value) {
  if (count <= 0) return Status::OK();
  LANCE_RETURN_NOT_OK(Extend(count));
  if (!value) {
    false_count_ += count;
    length_ += count;
    return Status::OK();
  }
  uint8_t* bits = bytes_.mutable_data();
  int64_t i = length_;
  const int64_t end = length_ + count;
  for (; i < end && (i & 7) != 0; ++i) bit_util::SetBit(bits, i);
  const int64_t whole_bytes = (end - i) >> 3;
  std::memset(bits + (i >> 3), 0xff, static_cast<size_t>(whole_bytes));
  i += whole_bytes * 8;
  for (; i < end; ++i) bit_util::SetBit(bits, i);
  length_ = end;
  return Status::OK();
}

Status BitmapBuilder::AppendBits(const uint8_t* bits, int64_t offset, int64_t count) {
  if (count <= 0) return Status::OK();
  LANCE_RETURN_NOT_OK(Extend(count));
  bit_util::CopyBits(bits, offset, count, bytes_.mutable_data(), length_);
  false_count_ += count - bit_util::CountSetBits(bits, offset, count);
  length_ += count;
  return Status::OK();
}

Result<BufferPtr> BitmapBuilder::Finish() {
  LANCE_ASSIGN_OR_RAISE(BufferPtr out, bytes_.Finish());
  Reset();
  return out;
}

void BitmapBuilder::Reset() {
  bytes_.Reset();
  length_ = 0;
  false_count_ = 0;
}

// ---------------------------------------------------------------------------------------
// ArrayBuilder

ArrayBuilder::ArrayBuilder(DataTypePtr type) : type_(std::move(type)) {}
ArrayBuilder::~ArrayBuilder() = default;

Status ArrayBuilder::AppendArraySlice(const ArrayData& data, int64_t offset,
                                      int64_t length) {
  if (!data.type || !data.type->Equals(*type_)) {
    return Status::Invalid("appending a " + (data.type ? data.type->ToString() : "null") +
                           " array to a " + type_->ToString() + " builder");
  }
  if (offset < 0 || length < 0 || offset > data.length - length) {
    return Status::Invalid("appending slots [" + std::to_string(offset) + ", +" +
                           std::to_string(length) + ") of an array of length " +
                           std::to_string(data.length));
  }
  if (length == 0) return Status::OK();
  return DoAppendArraySlice(data, offset, length);
}

Status ArrayBuilder::Reserve(int64_t additional) {
  LANCE_RETURN_NOT_OK(CheckCount(additional));
  return validity_.Reserve(additional);
}

Result<ArrayPtr> ArrayBuilder::Finish() {
  LANCE_ASSIGN_OR_RAISE(ArrayDataPtr data, FinishData());
  return MakeArray(std::move(data));
}

Result<ArrayDataPtr> ArrayBuilder::FinishData() {
  LANCE_ASSIGN_OR_RAISE(ArrayDataPtr data, DoFinish());
  Reset();
  return data;
}

void ArrayBuilder::Reset() {
  length_ = 0;
  null_count_ = 0;
  validity_.Reset();
}

Status ArrayBuilder::AppendValidity(bool valid) {
  LANCE_RETURN_NOT_OK(validity_.Append(valid));
  ++length_;
  if (!valid) ++null_count_;
  return Status::OK();
}

Status ArrayBuilder::AppendValidity(int64_t count, bool valid) {
  LANCE_RETURN_NOT_OK(validity_.AppendN(count, valid));
  length_ += count;
  if (!valid) null_count_ += count;
  return Status::OK();
}

Status ArrayBuilder::AppendValiditySlice(const ArrayData& data, int64_t offset,
                                         int64_t length) {
  if (data.buffers.empty() || !data.buffers[0]) return AppendValidity(length, true);
  const int64_t before = validity_.false_count();
  LANCE_RETURN_NOT_OK(
      validity_.AppendBits(data.buffers[0]->data(), data.offset + offset, length));
  length_ += length;
  null_count_ += validity_.false_count() - before;
  return Status::OK();
}

Result<BufferPtr> ArrayBuilder::FinishValidity() {
  if (null_count_ == 0) {
    validity_.Reset();
    return BufferPtr();
  }
  return validity_.Finish();
}

// ---------------------------------------------------------------------------------------
// BooleanBuilder

BooleanBuilder::BooleanBuilder() : ArrayBuilder(boolean()) {}

Status BooleanBuilder::Append(bool value) {
  LANCE_RETURN_NOT_OK(values_.Append(value));
  return AppendValidity(true);
}

Status BooleanBuilder::AppendValues(const std::vector<bool>& values,
                                    const std::vector<bool>& is_valid) {
  LANCE_RETURN_NOT_OK(CheckIsValidVector(values.size(), is_valid));
  LANCE_RETURN_NOT_OK(Reserve(static_cast<int64_t>(values.size())));
  for (size_t i = 0; i < values.size(); ++i) {
    const bool valid = is_valid.empty() || is_valid[i];
    LANCE_RETURN_NOT_OK(values_.Append(valid && values[i]));
    LANCE_RETURN_NOT_OK(AppendValidity(valid));
  }
  return Status::OK();
}

Status BooleanBuilder::AppendNulls(int64_t count) {
  LANCE_RETURN_NOT_OK(CheckCount(count));
  LANCE_RETURN_NOT_OK(values_.AppendN(count, false));
  return AppendValidity(count, false);
}

Status BooleanBuilder::AppendEmptyValues(int64_t count) {
  LANCE_RETURN_NOT_OK(CheckCount(count));
  LANCE_RETURN_NOT_OK(values_.AppendN(count, false));
  return AppendValidity(count, true);
}

Status BooleanBuilder::Reserve(int64_t additional) {
  LANCE_RETURN_NOT_OK(ArrayBuilder::Reserve(additional));
  return values_.Reserve(additional);
}

void BooleanBuilder::Reset() {
  ArrayBuilder::Reset();
  values_.Reset();
}

Result<ArrayDataPtr> BooleanBuilder::DoFinish() {
  LANCE_ASSIGN_OR_RAISE(BufferPtr validity, FinishValidity());
  LANCE_ASSIGN_OR_RAISE(BufferPtr values, values_.Finish());
  return ArrayData::Make(type_, length_, {std::move(validity), std::move(values)},
                         null_count_);
}

Status BooleanBuilder::DoAppendArraySlice(const ArrayData& data, int64_t offset,
                                          int64_t length) {
  if (!data.buffers[1]) return Status::Invalid("appending a bool array without values");
  LANCE_RETURN_NOT_OK(
      values_.AppendBits(data.buffers[1]->data(), data.offset + offset, length));
  return AppendValiditySlice(data, offset, length);
}

// ---------------------------------------------------------------------------------------
// NumericBuilder

namespace {

template <typename CType>
DataTypePtr DefaultNumericType() {
  if constexpr (std::is_same_v<CType, int8_t>) return int8();
  if constexpr (std::is_same_v<CType, int16_t>) return int16();
  if constexpr (std::is_same_v<CType, int32_t>) return int32();
  if constexpr (std::is_same_v<CType, int64_t>) return int64();
  if constexpr (std::is_same_v<CType, uint8_t>) return uint8();
  if constexpr (std::is_same_v<CType, uint16_t>) return uint16();
  if constexpr (std::is_same_v<CType, uint32_t>) return uint32();
  if constexpr (std::is_same_v<CType, uint64_t>) return uint64();
  if constexpr (std::is_same_v<CType, float>) return float32();
  if constexpr (std::is_same_v<CType, double>) return float64();
}

}  // namespace

template <typename CType>
NumericBuilder<CType>::NumericBuilder(DataTypePtr type)
    : ArrayBuilder(type ? std::move(type) : DefaultNumericType<CType>()) {}

template <typename CType>
Status NumericBuilder<CType>::Append(CType value) {
  LANCE_RETURN_NOT_OK(values_.AppendValue(value));
  return AppendValidity(true);
}

template <typename CType>
Status NumericBuilder<CType>::AppendValues(const CType* values, int64_t count,
                                           const uint8_t* valid_bytes) {
  LANCE_RETURN_NOT_OK(CheckCount(count));
  LANCE_RETURN_NOT_OK(
      values_.Append(values, count * static_cast<int64_t>(sizeof(CType))));
  if (valid_bytes == nullptr) return AppendValidity(count, true);
  for (int64_t i = 0; i < count; ++i) {
    LANCE_RETURN_NOT_OK(AppendValidity(valid_bytes[i] != 0));
  }
  return Status::OK();
}

template <typename CType>
Status NumericBuilder<CType>::AppendValues(const std::vector<CType>& values,
                                           const std::vector<bool>& is_valid) {
  LANCE_RETURN_NOT_OK(CheckIsValidVector(values.size(), is_valid));
  const auto count = static_cast<int64_t>(values.size());
  LANCE_RETURN_NOT_OK(Reserve(count));
  for (int64_t i = 0; i < count; ++i) {
    const bool valid = is_valid.empty() || is_valid[i];
    // Null slots store 0 so that the bytes behind a null are deterministic.
    LANCE_RETURN_NOT_OK(values_.AppendValue(valid ? values[i] : CType{}));
    LANCE_RETURN_NOT_OK(AppendValidity(valid));
  }
  return Status::OK();
}

template <typename CType>
Status NumericBuilder<CType>::AppendNulls(int64_t count) {
  LANCE_RETURN_NOT_OK(CheckCount(count));
  LANCE_RETURN_NOT_OK(values_.AppendZeros(count * static_cast<int64_t>(sizeof(CType))));
  return AppendValidity(count, false);
}

template <typename CType>
Status NumericBuilder<CType>::AppendEmptyValues(int64_t count) {
  LANCE_RETURN_NOT_OK(CheckCount(count));
  LANCE_RETURN_NOT_OK(values_.AppendZeros(count * static_cast<int64_t>(sizeof(CType))));
  return AppendValidity(count, true);
}

template <typename CType>
Status NumericBuilder<CType>::Reserve(int64_t additional) {
  LANCE_RETURN_NOT_OK(ArrayBuilder::Reserve(additional));
  return values_.Reserve(additional * static_cast<int64_t>(sizeof(CType)));
}

template <typename CType>
void NumericBuilder<CType>::Reset() {
  ArrayBuilder::Reset();
  values_.Reset();
}

template <typename CType>
Result<ArrayDataPtr> NumericBuilder<CType>::DoFinish() {
  if (type_->byte_width() != static_cast<int>(sizeof(CType)) || !type_->is_primitive()) {
    return Status::Invalid("finishing a numeric builder: type " + type_->ToString() +
                           " does not store " + std::to_string(sizeof(CType)) +
                           "-byte values");
  }
  LANCE_ASSIGN_OR_RAISE(BufferPtr validity, FinishValidity());
  LANCE_ASSIGN_OR_RAISE(BufferPtr values, values_.Finish());
  return ArrayData::Make(type_, length_, {std::move(validity), std::move(values)},
                         null_count_);
}

template <typename CType>
Status NumericBuilder<CType>::DoAppendArraySlice(const ArrayData& data, int64_t offset,
                                                 int64_t length) {
  if (!data.buffers[1])
    return Status::Invalid("appending a numeric array without values");
  const CType* src = data.buffers[1]->data_as<CType>() + data.offset + offset;
  LANCE_RETURN_NOT_OK(values_.Append(src, length * static_cast<int64_t>(sizeof(CType))));
  return AppendValiditySlice(data, offset, length);
}

template class NumericBuilder<int8_t>;
template class NumericBuilder<int16_t>;
template class NumericBuilder<int32_t>;
template class NumericBuilder<int64_t>;
template class NumericBuilder<uint8_t>;
template class NumericBuilder<uint16_t>;
template class NumericBuilder<uint32_t>;
template class NumericBuilder<uint64_t>;
template class NumericBuilder<float>;
template class NumericBuilder<double>;

// ---------------------------------------------------------------------------------------
// BaseBinaryBuilder

template <typename OffsetT>
BaseBinaryBuilder<OffsetT>::BaseBinaryBuilder(DataTypePtr type)
    : ArrayBuilder(std::move(type)) {}

template <typename OffsetT>
Status BaseBinaryBuilder<OffsetT>::CheckCapacity(int64_t extra_bytes) const {
  if (data_.length() + extra_bytes > std::numeric_limits<OffsetT>::max()) {
    return Status::Invalid(
        "appending to a " + type_->ToString() +
        " builder: " + std::to_string(data_.length() + extra_bytes) +
        " value bytes do not fit 32-bit offsets (use the large_ type)");
  }
  return Status::OK();
}

template <typename OffsetT>
Status BaseBinaryBuilder<OffsetT>::Append(std::string_view value) {
  const auto size = static_cast<int64_t>(value.size());
  LANCE_RETURN_NOT_OK(CheckCapacity(size));
  LANCE_RETURN_NOT_OK(offsets_.AppendValue(static_cast<OffsetT>(data_.length())));
  LANCE_RETURN_NOT_OK(data_.Append(value.data(), size));
  return AppendValidity(true);
}

template <typename OffsetT>
Status BaseBinaryBuilder<OffsetT>::AppendValues(const std::vector<std::string>& values,
                                                const std::vector<bool>& is_valid) {
  LANCE_RETURN_NOT_OK(CheckIsValidVector(values.size(), is_valid));
  LANCE_RETURN_NOT_OK(Reserve(static_cast<int64_t>(values.size())));
  for (size_t i = 0; i < values.size(); ++i) {
    if (is_valid.empty() || is_valid[i]) {
      LANCE_RETURN_NOT_OK(Append(values[i]));
    } else {
      LANCE_RETURN_NOT_OK(AppendNulls(1));
    }
  }
  return Status::OK();
}

template <typename OffsetT>
Status BaseBinaryBuilder<OffsetT>::AppendNulls(int64_t count) {
  LANCE_RETURN_NOT_OK(CheckCount(count));
  LANCE_RETURN_NOT_OK(offsets_.Reserve(count * static_cast<int64_t>(sizeof(OffsetT))));
  const auto start = static_cast<OffsetT>(data_.length());
  for (int64_t i = 0; i < count; ++i) LANCE_RETURN_NOT_OK(offsets_.AppendValue(start));
  return AppendValidity(count, false);
}

template <typename OffsetT>
Status BaseBinaryBuilder<OffsetT>::AppendEmptyValues(int64_t count) {
  LANCE_RETURN_NOT_OK(CheckCount(count));
  LANCE_RETURN_NOT_OK(offsets_.Reserve(count * static_cast<int64_t>(sizeof(OffsetT))));
  const auto start = static_cast<OffsetT>(data_.length());
  for (int64_t i = 0; i < count; ++i) LANCE_RETURN_NOT_OK(offsets_.AppendValue(start));
  return AppendValidity(count, true);
}

template <typename OffsetT>
Status BaseBinaryBuilder<OffsetT>::Reserve(int64_t additional) {
  LANCE_RETURN_NOT_OK(ArrayBuilder::Reserve(additional));
  return offsets_.Reserve(additional * static_cast<int64_t>(sizeof(OffsetT)));
}

template <typename OffsetT>
void BaseBinaryBuilder<OffsetT>::Reset() {
  ArrayBuilder::Reset();
  offsets_.Reset();
  data_.Reset();
}

template <typename OffsetT>
std::string_view BaseBinaryBuilder<OffsetT>::GetView(int64_t i) const {
  const auto* offsets = reinterpret_cast<const OffsetT*>(offsets_.data());
  const int64_t begin = offsets[i];
  const int64_t end = i + 1 < length_ ? offsets[i + 1] : data_.length();
  if (begin == end) return {};
  return {reinterpret_cast<const char*>(data_.data()) + begin,
          static_cast<size_t>(end - begin)};
}

template <typename OffsetT>
Result<ArrayDataPtr> BaseBinaryBuilder<OffsetT>::DoFinish() {
  LANCE_RETURN_NOT_OK(offsets_.AppendValue(static_cast<OffsetT>(data_.length())));
  LANCE_ASSIGN_OR_RAISE(BufferPtr validity, FinishValidity());
  LANCE_ASSIGN_OR_RAISE(BufferPtr offsets, offsets_.Finish());
  LANCE_ASSIGN_OR_RAISE(BufferPtr data, data_.Finish());
  return ArrayData::Make(type_, length_,
                         {std::move(validity), std::move(offsets), std::move(data)},
                         null_count_);
}

template <typename OffsetT>
Status BaseBinaryBuilder<OffsetT>::DoAppendArraySlice(const ArrayData& data,
                                                      int64_t offset, int64_t length) {
  if (!data.buffers[1])
    return Status::Invalid("appending a binary array without offsets");
  const OffsetT* src = data.buffers[1]->data_as<OffsetT>() + data.offset + offset;
  const int64_t first = src[0];
  const int64_t bytes = src[length] - first;
  LANCE_RETURN_NOT_OK(CheckCapacity(bytes));
  // Rebase: the copied bytes land at data_.length() instead of at `first`.
  const int64_t shift = data_.length() - first;
  if (length > 0) {
    // One reservation and a plain loop: appending offset by offset (a capacity check
    // and a memcpy each) dominated concatenating short strings.
    LANCE_ASSIGN_OR_RAISE(
        uint8_t * at, offsets_.Extend(length * static_cast<int64_t>(sizeof(OffsetT))));
    OffsetT* dst = reinterpret_cast<OffsetT*>(at);
    for (int64_t i = 0; i < length; ++i) dst[i] = static_cast<OffsetT>(src[i] + shift);
  }
  if (bytes > 0) {
    if (!data.buffers[2]) return Status::Invalid("appending a binary array without data");
    LANCE_RETURN_NOT_OK(data_.Append(data.buffers[2]->data() + first, bytes));
  }
  return AppendValiditySlice(data, offset, length);
}

template class BaseBinaryBuilder<int32_t>;
template class BaseBinaryBuilder<int64_t>;

// ---------------------------------------------------------------------------------------
// FixedSizeBinaryBuilder

FixedSizeBinaryBuilder::FixedSizeBinaryBuilder(DataTypePtr type)
    : ArrayBuilder(std::move(type)), byte_width_(std::max(0, type_->byte_width())) {}

Status FixedSizeBinaryBuilder::Append(std::string_view value) {
  if (static_cast<int64_t>(value.size()) != byte_width_) {
    return Status::Invalid("appending a " + std::to_string(value.size()) +
                           "-byte value to a " + type_->ToString() + " builder");
  }
  LANCE_RETURN_NOT_OK(values_.Append(value.data(), byte_width_));
  return AppendValidity(true);
}

Status FixedSizeBinaryBuilder::AppendValues(const std::vector<std::string>& values,
                                            const std::vector<bool>& is_valid) {
  LANCE_RETURN_NOT_OK(CheckIsValidVector(values.size(), is_valid));
  LANCE_RETURN_NOT_OK(Reserve(static_cast<int64_t>(values.size())));
  for (size_t i = 0; i < values.size(); ++i) {
    if (is_valid.empty() || is_valid[i]) {
      LANCE_RETURN_NOT_OK(Append(values[i]));
    } else {
      LANCE_RETURN_NOT_OK(AppendNulls(1));
    }
  }
  return Status::OK();
}

Status FixedSizeBinaryBuilder::AppendNulls(int64_t count) {
  LANCE_RETURN_NOT_OK(CheckCount(count));
  LANCE_RETURN_NOT_OK(values_.AppendZeros(count * byte_width_));
  return AppendValidity(count, false);
}

Status FixedSizeBinaryBuilder::AppendEmptyValues(int64_t count) {
  LANCE_RETURN_NOT_OK(CheckCount(count));
  LANCE_RETURN_NOT_OK(values_.AppendZeros(count * byte_width_));
  return AppendValidity(count, true);
}

Status FixedSizeBinaryBuilder::Reserve(int64_t additional) {
  LANCE_RETURN_NOT_OK(ArrayBuilder::Reserve(additional));
  return values_.Reserve(additional * byte_width_);
}

void FixedSizeBinaryBuilder::Reset() {
  ArrayBuilder::Reset();
  values_.Reset();
}

Result<ArrayDataPtr> FixedSizeBinaryBuilder::DoFinish() {
  LANCE_ASSIGN_OR_RAISE(BufferPtr validity, FinishValidity());
  LANCE_ASSIGN_OR_RAISE(BufferPtr values, values_.Finish());
  return ArrayData::Make(type_, length_, {std::move(validity), std::move(values)},
                         null_count_);
}

Status FixedSizeBinaryBuilder::DoAppendArraySlice(const ArrayData& data, int64_t offset,
                                                  int64_t length) {
  if (byte_width_ > 0) {
    if (!data.buffers[1]) {
      return Status::Invalid("appending a fixed_size_binary array without values");
    }
    LANCE_RETURN_NOT_OK(
        values_.Append(data.buffers[1]->data() + (data.offset + offset) * byte_width_,
                       length * byte_width_));
  }
  return AppendValiditySlice(data, offset, length);
}

// ---------------------------------------------------------------------------------------
// DecimalBuilder

Status DecimalBuilder::AppendUnscaled(int64_t unscaled) {
  uint8_t bytes[32];
  DecimalFromInt64(unscaled, byte_width(), bytes);
  if (!DecimalFitsPrecision(bytes, byte_width(), type_->precision())) {
    return Status::Invalid("appending unscaled value " + std::to_string(unscaled) +
                           " to a " + type_->ToString() + " builder: more than " +
                           std::to_string(type_->precision()) + " digits");
  }
  return Append(bytes);
}

Status DecimalBuilder::AppendDecimalText(std::string_view text) {
  uint8_t bytes[32];
  LANCE_RETURN_NOT_OK(ParseDecimal(text, *type_, bytes));
  return Append(bytes);
}

// ---------------------------------------------------------------------------------------
// NullBuilder

NullBuilder::NullBuilder() : ArrayBuilder(null()) {}

// Null arrays carry no bitmap, so the validity builder is bypassed: only the counts move.
Status NullBuilder::AppendNulls(int64_t count) {
  LANCE_RETURN_NOT_OK(CheckCount(count));
  length_ += count;
  null_count_ += count;
  return Status::OK();
}

Status NullBuilder::AppendEmptyValues(int64_t count) { return AppendNulls(count); }

Result<ArrayDataPtr> NullBuilder::DoFinish() {
  return ArrayData::Make(type_, length_, {nullptr}, length_);
}

Status NullBuilder::DoAppendArraySlice(const ArrayData& data, int64_t offset,
                                       int64_t length) {
  return AppendNulls(length);
}

// ---------------------------------------------------------------------------------------
// BaseListBuilder

template <typename OffsetT>
BaseListBuilder<OffsetT>::BaseListBuilder(std::unique_ptr<ArrayBuilder> value_builder,
                                          DataTypePtr type)
    : ArrayBuilder(std::move(type)), value_builder_(std::move(value_builder)) {
  if (!type_) {
    type_ = std::is_same_v<OffsetT, int32_t> ? list(value_builder_->type())
                                             : large_list(value_builder_->type());
  }
}

template <typename OffsetT>
Status BaseListBuilder<OffsetT>::CheckChildLength(int64_t extra) const {
  if (value_builder_->length() + extra > std::numeric_limits<OffsetT>::max()) {
    return Status::Invalid("appending to a " + type_->ToString() + " builder: " +
                           std::to_string(value_builder_->length() + extra) +
                           " child values do not fit 32-bit offsets (use large_list)");
  }
  return Status::OK();
}

template <typename OffsetT>
Status BaseListBuilder<OffsetT>::Append(bool is_valid) {
  LANCE_RETURN_NOT_OK(CheckChildLength(0));
  LANCE_RETURN_NOT_OK(
      offsets_.AppendValue(static_cast<OffsetT>(value_builder_->length())));
  return AppendValidity(is_valid);
}

template <typename OffsetT>
Status BaseListBuilder<OffsetT>::AppendNulls(int64_t count) {
  LANCE_RETURN_NOT_OK(CheckCount(count));
  LANCE_RETURN_NOT_OK(CheckChildLength(0));
  const auto start = static_cast<OffsetT>(value_builder_->length());
  LANCE_RETURN_NOT_OK(offsets_.Reserve(count * static_cast<int64_t>(sizeof(OffsetT))));
  for (int64_t i = 0; i < count; ++i) LANCE_RETURN_NOT_OK(offsets_.AppendValue(start));
  return AppendValidity(count, false);
}

template <typename OffsetT>
Status BaseListBuilder<OffsetT>::AppendEmptyValues(int64_t count) {
  LANCE_RETURN_NOT_OK(CheckCount(count));
  LANCE_RETURN_NOT_OK(CheckChildLength(0));
  const auto start = static_cast<OffsetT>(value_builder_->length());
  LANCE_RETURN_NOT_OK(offsets_.Reserve(count * static_cast<int64_t>(sizeof(OffsetT))));
  for (int64_t i = 0; i < count; ++i) LANCE_RETURN_NOT_OK(offsets_.AppendValue(start));
  return AppendValidity(count, true);
}

template <typename OffsetT>
Status BaseListBuilder<OffsetT>::Reserve(int64_t additional) {
  LANCE_RETURN_NOT_OK(ArrayBuilder::Reserve(additional));
  return offsets_.Reserve(additional * static_cast<int64_t>(sizeof(OffsetT)));
}

template <typename OffsetT>
void BaseListBuilder<OffsetT>::Reset() {
  ArrayBuilder::Reset();
  offsets_.Reset();
  value_builder_->Reset();
}

template <typename OffsetT>
Result<ArrayDataPtr> BaseListBuilder<OffsetT>::DoFinish() {
  const DataTypePtr& item_type = type_->value_type();
  if (!item_type || !item_type->Equals(*value_builder_->type())) {
    return Status::Invalid("finishing a " + type_->ToString() +
                           " builder: the value builder" + " builds " +
                           value_builder_->type()->ToString());
  }
  LANCE_RETURN_NOT_OK(CheckChildLength(0));
  // Finish the child first: if it fails, this builder is left untouched and can go on.
  const auto end_offset = static_cast<OffsetT>(value_builder_->length());
  LANCE_ASSIGN_OR_RAISE(ArrayDataPtr child, value_builder_->FinishData());
  LANCE_RETURN_NOT_OK(offsets_.AppendValue(end_offset));
  LANCE_ASSIGN_OR_RAISE(BufferPtr validity, FinishValidity());
  LANCE_ASSIGN_OR_RAISE(BufferPtr offsets, offsets_.Finish());
  return ArrayData::Make(type_, length_, {std::move(validity), std::move(offsets)},
                         null_count_, 0, {std::move(child)});
}

template <typename OffsetT>
Status BaseListBuilder<OffsetT>::DoAppendArraySlice(const ArrayData& data, int64_t offset,
                                                    int64_t length) {
  if (!data.buffers[1] || data.children.empty()) {
    return Status::Invalid("appending a list array without offsets or child");
  }
  const OffsetT* src = data.buffers[1]->data_as<OffsetT>() + data.offset + offset;
  const int64_t first = src[0];
  const int64_t items = src[length] - first;
  LANCE_RETURN_NOT_OK(CheckChildLength(items));
  // Only the items spanned by the copied slots are copied, so offsets shift by where
  // they land in the child builder.
  const int64_t shift = value_builder_->length() - first;
  if (length > 0) {
    // One reservation and a plain loop: appending offset by offset (a capacity check
    // and a memcpy each) dominated concatenating short strings.
    LANCE_ASSIGN_OR_RAISE(
        uint8_t * at, offsets_.Extend(length * static_cast<int64_t>(sizeof(OffsetT))));
    OffsetT* dst = reinterpret_cast<OffsetT*>(at);
    for (int64_t i = 0; i < length; ++i) dst[i] = static_cast<OffsetT>(src[i] + shift);
  }
  LANCE_RETURN_NOT_OK(value_builder_->AppendArraySlice(*data.children[0], first, items));
  return AppendValiditySlice(data, offset, length);
}

template class BaseListBuilder<int32_t>;
template class BaseListBuilder<int64_t>;

ListBuilder::ListBuilder(std::unique_ptr<ArrayBuilder> value_builder, DataTypePtr type)
    : BaseListBuilder<int32_t>(std::move(value_builder), std::move(type)) {}

LargeListBuilder::LargeListBuilder(std::unique_ptr<ArrayBuilder> value_builder,
                                   DataTypePtr type)
    : BaseListBuilder<int64_t>(std::move(value_builder), std::move(type)) {}

// ---------------------------------------------------------------------------------------
// FixedSizeListBuilder

FixedSizeListBuilder::FixedSizeListBuilder(std::unique_ptr<ArrayBuilder> value_builder,
                                           int32_t list_size)
    : ArrayBuilder(fixed_size_list(value_builder->type(), list_size)),
      value_builder_(std::move(value_builder)),
      list_size_(list_size) {}

FixedSizeListBuilder::FixedSizeListBuilder(std::unique_ptr<ArrayBuilder> value_builder,
                                           DataTypePtr type)
    : ArrayBuilder(std::move(type)),
      value_builder_(std::move(value_builder)),
      list_size_(type_->fixed_size()) {}

Status FixedSizeListBuilder::Append(bool is_valid) {
  if (!is_valid) return AppendNulls(1);
  return AppendValidity(true);
}

Status FixedSizeListBuilder::AppendNulls(int64_t count) {
  LANCE_RETURN_NOT_OK(CheckCount(count));
  LANCE_RETURN_NOT_OK(
      AppendPlaceholders(value_builder_.get(), *type_->fields()[0], count * list_size_));
  return AppendValidity(count, false);
}

Status FixedSizeListBuilder::AppendEmptyValues(int64_t count) {
  LANCE_RETURN_NOT_OK(CheckCount(count));
  LANCE_RETURN_NOT_OK(value_builder_->AppendEmptyValues(count * list_size_));
  return AppendValidity(count, true);
}

Status FixedSizeListBuilder::Reserve(int64_t additional) {
  LANCE_RETURN_NOT_OK(ArrayBuilder::Reserve(additional));
  if (list_size_ > 0 && additional > std::numeric_limits<int64_t>::max() / list_size_) {
    return Status::Invalid("reserving " + std::to_string(additional) + " lists of " +
                           std::to_string(list_size_) + " items overflows");
  }
  return value_builder_->Reserve(additional * list_size_);
}

void FixedSizeListBuilder::Reset() {
  ArrayBuilder::Reset();
  value_builder_->Reset();
}

Result<ArrayDataPtr> FixedSizeListBuilder::DoFinish() {
  const DataTypePtr& item_type = type_->value_type();
  if (!item_type || !item_type->Equals(*value_builder_->type())) {
    return Status::Invalid("finishing a " + type_->ToString() +
                           " builder: the value builder" + " builds " +
                           value_builder_->type()->ToString());
  }
  if (value_builder_->length() != length_ * list_size_) {
    return Status::Invalid("finishing a " + type_->ToString() +
                           " builder: " + std::to_string(length_) + " slots need " +
                           std::to_string(length_ * list_size_) + " child values, got " +
                           std::to_string(value_builder_->length()));
  }
  LANCE_ASSIGN_OR_RAISE(ArrayDataPtr child, value_builder_->FinishData());
  LANCE_ASSIGN_OR_RAISE(BufferPtr validity, FinishValidity());
  return ArrayData::Make(type_, length_, {std::move(validity)}, null_count_, 0,
                         {std::move(child)});
}

Status FixedSizeListBuilder::DoAppendArraySlice(const ArrayData& data, int64_t offset,
                                                int64_t length) {
  if (data.children.empty()) {
    return Status::Invalid("appending a fixed_size_list array without child");
  }
  LANCE_RETURN_NOT_OK(value_builder_->AppendArraySlice(
      *data.children[0], (data.offset + offset) * list_size_, length * list_size_));
  return AppendValiditySlice(data, offset, length);
}

// ---------------------------------------------------------------------------------------
// StructBuilder

StructBuilder::StructBuilder(DataTypePtr type,
                             std::vector<std::unique_ptr<ArrayBuilder>> field_builders)
    : ArrayBuilder(std::move(type)), field_builders_(std::move(field_builders)) {}

Status StructBuilder::Append(bool is_valid) {
  if (!is_valid) return AppendNulls(1);
  return AppendValidity(true);
}

Status StructBuilder::AppendNulls(int64_t count) {
  LANCE_RETURN_NOT_OK(CheckCount(count));
  const auto& fields = type_->fields();
  for (size_t i = 0; i < field_builders_.size() && i < fields.size(); ++i) {
    LANCE_RETURN_NOT_OK(AppendPlaceholders(field_builders_[i].get(), *fields[i], count));
  }
  return AppendValidity(count, false);
}

Status StructBuilder::AppendEmptyValues(int64_t count) {
  LANCE_RETURN_NOT_OK(CheckCount(count));
  for (auto& child : field_builders_) {
    LANCE_RETURN_NOT_OK(child->AppendEmptyValues(count));
  }
  return AppendValidity(count, true);
}

void StructBuilder::Reset() {
  ArrayBuilder::Reset();
  for (auto& child : field_builders_) child->Reset();
}

Result<ArrayDataPtr> StructBuilder::DoFinish() {
  const auto& fields = type_->fields();
  if (fields.size() != field_builders_.size()) {
    return Status::Invalid("finishing a " + type_->ToString() +
                           " builder: " + std::to_string(field_builders_.size()) +
                           " field builders for " + std::to_string(fields.size()) +
                           " fields");
  }
  for (size_t i = 0; i < fields.size(); ++i) {
    const ArrayBuilder& child = *field_builders_[i];
    if (!child.type()->Equals(*fields[i]->type())) {
      return Status::Invalid("finishing a " + type_->ToString() + " builder: field '" +
                             fields[i]->name() + "' is built as " +
                             child.type()->ToString());
    }
    if (child.length() != length_) {
      return Status::Invalid("finishing a " + type_->ToString() + " builder: field '" +
                             fields[i]->name() + "' has " +
                             std::to_string(child.length()) + " values for " +
                             std::to_string(length_) + " slots");
    }
  }
  std::vector<ArrayDataPtr> children;
  children.reserve(field_builders_.size());
  for (auto& child : field_builders_) {
    LANCE_ASSIGN_OR_RAISE(ArrayDataPtr data, child->FinishData());
    children.push_back(std::move(data));
  }
  LANCE_ASSIGN_OR_RAISE(BufferPtr validity, FinishValidity());
  return ArrayData::Make(type_, length_, {std::move(validity)}, null_count_, 0,
                         std::move(children));
}

Status StructBuilder::DoAppendArraySlice(const ArrayData& data, int64_t offset,
                                         int64_t length) {
  if (data.children.size() != field_builders_.size()) {
    return Status::Invalid("appending a struct array with " +
                           std::to_string(data.children.size()) +
                           " children to a builder" + " with " +
                           std::to_string(field_builders_.size()) + " fields");
  }
  for (size_t i = 0; i < field_builders_.size(); ++i) {
    LANCE_RETURN_NOT_OK(field_builders_[i]->AppendArraySlice(
        *data.children[i], data.offset + offset, length));
  }
  return AppendValiditySlice(data, offset, length);
}

// ---------------------------------------------------------------------------------------
// MapBuilder

namespace {

std::unique_ptr<ArrayBuilder> MakeEntriesBuilder(const DataTypePtr& map_type,
                                                 std::unique_ptr<ArrayBuilder> keys,
                                                 std::unique_ptr<ArrayBuilder> items) {
  std::vector<std::unique_ptr<ArrayBuilder>> fields;
  fields.push_back(std::move(keys));
  fields.push_back(std::move(items));
  return std::make_unique<StructBuilder>(map_type->value_type(), std::move(fields));
}

}  // namespace

MapBuilder::MapBuilder(DataTypePtr type, std::unique_ptr<ArrayBuilder> key_builder,
                       std::unique_ptr<ArrayBuilder> item_builder)
    : BaseListBuilder<int32_t>(
          MakeEntriesBuilder(type, std::move(key_builder), std::move(item_builder)),
          type) {
  auto* entries = static_cast<StructBuilder*>(value_builder());
  key_builder_ = entries->field_builder(0);
  item_builder_ = entries->field_builder(1);
}

Status MapBuilder::SyncEntries() {
  auto* entries = static_cast<StructBuilder*>(value_builder());
  if (item_builder_->length() != key_builder_->length()) {
    return Status::Invalid("appending to a " + type_->ToString() + " builder: " +
                           std::to_string(key_builder_->length()) + " keys but " +
                           std::to_string(item_builder_->length()) + " items");
  }
  while (entries->length() < key_builder_->length()) {
    LANCE_RETURN_NOT_OK(entries->Append(true));
  }
  return Status::OK();
}

Status MapBuilder::Append(bool is_valid) {
  LANCE_RETURN_NOT_OK(SyncEntries());
  return BaseListBuilder<int32_t>::Append(is_valid);
}

Status MapBuilder::AppendNulls(int64_t count) {
  LANCE_RETURN_NOT_OK(SyncEntries());
  return BaseListBuilder<int32_t>::AppendNulls(count);
}

Status MapBuilder::AppendEmptyValues(int64_t count) {
  LANCE_RETURN_NOT_OK(SyncEntries());
  return BaseListBuilder<int32_t>::AppendEmptyValues(count);
}

Result<ArrayDataPtr> MapBuilder::DoFinish() {
  LANCE_RETURN_NOT_OK(SyncEntries());
  if (key_builder_->null_count() > 0) {
    return Status::Invalid("finishing a " + type_->ToString() +
                           " builder: " + std::to_string(key_builder_->null_count()) +
                           " keys are null; map keys must not be null");
  }
  return BaseListBuilder<int32_t>::DoFinish();
}

Status MapBuilder::DoAppendArraySlice(const ArrayData& data, int64_t offset,
                                      int64_t length) {
  LANCE_RETURN_NOT_OK(SyncEntries());
  return BaseListBuilder<int32_t>::DoAppendArraySlice(data, offset, length);
}

// ---------------------------------------------------------------------------------------
// DictionaryBuilder

namespace {

// Largest index an index type can hold.
int64_t MaxIndex(TypeId id) {
  switch (id) {
    case TypeId::kInt8:
      return std::numeric_limits<int8_t>::max();
    case TypeId::kUInt8:
      return std::numeric_limits<uint8_t>::max();
    case TypeId::kInt16:
      return std::numeric_limits<int16_t>::max();
    case TypeId::kUInt16:
      return std::numeric_limits<uint16_t>::max();
    case TypeId::kInt32:
      return std::numeric_limits<int32_t>::max();
    case TypeId::kUInt32:
      return std::numeric_limits<uint32_t>::max();
    default:
      return std::numeric_limits<int64_t>::max();
  }
}

// Whether values of `type` can be deduplicated by their bytes.
bool IsMemoizable(const DataType& type) {
  return type.id() == TypeId::kBool || type.is_binary_like() ||
         (type.is_fixed_width() && type.byte_width() > 0);
}

// The bytes identifying valid slot i of `data` (memoizable types only).
std::string MemoKey(const ArrayData& data, int64_t i) {
  const DataType& type = *data.type;
  if (type.id() == TypeId::kBool) {
    return std::string(
        1, bit_util::GetBit(data.buffers[1]->data(), data.offset + i) ? '\1' : '\0');
  }
  if (type.is_binary_like()) {
    const bool large =
        type.id() == TypeId::kLargeUtf8 || type.id() == TypeId::kLargeBinary;
    int64_t begin;
    int64_t end;
    if (large) {
      const int64_t* offsets = data.buffers[1]->data_as<int64_t>() + data.offset;
      begin = offsets[i];
      end = offsets[i + 1];
    } else {
      const int32_t* offsets = data.buffers[1]->data_as<int32_t>() + data.offset;
      begin = offsets[i];
      end = offsets[i + 1];
    }
    if (end == begin) return std::string();
    return std::string(reinterpret_cast<const char*>(data.buffers[2]->data()) + begin,
                       static_cast<size_t>(end - begin));
  }
  const int64_t width = type.byte_width();
  return std::string(
      reinterpret_cast<const char*>(data.buffers[1]->data()) + (data.offset + i) * width,
      static_cast<size_t>(width));
}

// The key of the "empty" value AppendEmptyValue() produces: all zero bytes, or "".
std::string EmptyMemoKey(const DataType& type) {
  if (type.id() == TypeId::kBool) return std::string(1, '\0');
  if (type.is_binary_like()) return std::string();
  return std::string(static_cast<size_t>(std::max(0, type.byte_width())), '\0');
}

}  // namespace

struct DictionaryBuilder::State {
  int index_width = 0;
  int64_t max_index = 0;
  BufferBuilder indices;
  // The dictionary is either lent (`shared`, not copied until a new value must be added)
  // or being built in `values`, with `memo` mapping value bytes to their entry.
  ArrayDataPtr shared;
  std::unique_ptr<ArrayBuilder> values;
  bool memoizable = false;
  std::unordered_map<std::string, int64_t> memo;
  int64_t empty_index = -1;  // entry used by AppendEmptyValues(), once known

  int64_t dictionary_length() const { return shared ? shared->length : values->length(); }

  Status AppendRaw(int64_t index) {
    switch (index_width) {
      case 1:
        return indices.AppendValue(static_cast<uint8_t>(index));
      case 2:
        return indices.AppendValue(static_cast<uint16_t>(index));
      case 4:
        return indices.AppendValue(static_cast<uint32_t>(index));
      default:
        return indices.AppendValue(static_cast<uint64_t>(index));
    }
  }

  // Turns a lent dictionary into one being built, so that values can be added.
  Status Materialize() {
    if (!shared) return Status::OK();
    ArrayDataPtr dict = std::move(shared);
    shared = nullptr;
    LANCE_RETURN_NOT_OK(values->AppendArraySlice(*dict, 0, dict->length));
    if (memoizable) {
      for (int64_t i = 0; i < dict->length; ++i) {
        if (dict->IsValid(i)) memo.emplace(MemoKey(*dict, i), i);
      }
    }
    return Status::OK();
  }

  // The dictionary entry for valid slot i of `data` (of the value type), added if new.
  Result<int64_t> Encode(const ArrayData& data, int64_t i) {
    std::string key;
    if (memoizable) {
      key = MemoKey(data, i);
      if (shared) LANCE_RETURN_NOT_OK(Materialize());
      auto it = memo.find(key);
      if (it != memo.end()) return it->second;
    } else {
      LANCE_RETURN_NOT_OK(Materialize());
    }
    const int64_t index = values->length();
    LANCE_RETURN_NOT_OK(values->AppendArraySlice(data, i, 1));
    if (memoizable) memo.emplace(std::move(key), index);
    return index;
  }
};

DictionaryBuilder::DictionaryBuilder(DataTypePtr type)
    : ArrayBuilder(std::move(type)), state_(std::make_unique<State>()) {
  const DataTypePtr& index_type = type_->index_type();
  state_->index_width = index_type ? std::max(1, index_type->byte_width()) : 4;
  state_->max_index = index_type ? MaxIndex(index_type->id()) : 0;
  const DataTypePtr& value_type = type_->value_type();
  state_->memoizable = value_type && IsMemoizable(*value_type);
  if (value_type) {
    auto values = MakeBuilder(value_type);
    if (values.ok()) state_->values = std::move(values).MoveValueUnsafe();
  }
  // A value type without a builder is reported by MakeBuilder (which checks first); a
  // directly constructed builder over it still needs a values builder to exist.
  if (!state_->values) state_->values = std::make_unique<NullBuilder>();
}

DictionaryBuilder::~DictionaryBuilder() = default;

int64_t DictionaryBuilder::dictionary_length() const {
  return state_->dictionary_length();
}

Status DictionaryBuilder::SetDictionary(const ArrayPtr& dictionary) {
  if (!dictionary || !dictionary->type()->Equals(*type_->value_type())) {
    return Status::Invalid("setting the dictionary of a " + type_->ToString() +
                           " builder: expected an array of " +
                           type_->value_type()->ToString());
  }
  if (length_ > 0 || state_->dictionary_length() > 0) {
    return Status::Invalid("setting the dictionary of a " + type_->ToString() +
                           " builder that already has one");
  }
  state_->shared = dictionary->data();
  return Status::OK();
}

Status DictionaryBuilder::AppendIndex(int64_t index) {
  if (index < 0 || index >= state_->dictionary_length()) {
    return Status::Invalid("appending index " + std::to_string(index) + " to a " +
                           type_->ToString() + " builder whose dictionary has " +
                           std::to_string(state_->dictionary_length()) + " values");
  }
  LANCE_RETURN_NOT_OK(state_->AppendRaw(index));
  return AppendValidity(true);
}

Status DictionaryBuilder::AppendIndices(const Array& indices) {
  if (!indices.type()->is_integer()) {
    return Status::Invalid("appending indices of type " + indices.type()->ToString() +
                           " to a " + type_->ToString() + " builder");
  }
  for (int64_t i = 0; i < indices.length(); ++i) {
    if (indices.IsNull(i)) {
      LANCE_RETURN_NOT_OK(AppendNulls(1));
    } else {
      LANCE_RETURN_NOT_OK(AppendIndex(IntegerValueAt(*indices.data(), i)));
    }
  }
  return Status::OK();
}

Status DictionaryBuilder::AppendValues(const Array& values, int64_t offset,
                                       int64_t length) {
  if (!values.type()->Equals(*type_->value_type())) {
    return Status::Invalid("dictionary-encoding " + values.type()->ToString() +
                           " values in a " + type_->ToString() + " builder");
  }
  if (offset < 0 || length < 0 || offset > values.length() - length) {
    return Status::Invalid("appending values [" + std::to_string(offset) + ", +" +
                           std::to_string(length) + ") of an array of length " +
                           std::to_string(values.length()));
  }
  const ArrayData& data = *values.data();
  for (int64_t i = offset; i < offset + length; ++i) {
    if (!data.IsValid(i)) {
      LANCE_RETURN_NOT_OK(AppendNulls(1));
      continue;
    }
    LANCE_ASSIGN_OR_RAISE(const int64_t index, state_->Encode(data, i));
    LANCE_RETURN_NOT_OK(state_->AppendRaw(index));
    LANCE_RETURN_NOT_OK(AppendValidity(true));
  }
  return Status::OK();
}

Status DictionaryBuilder::AppendNulls(int64_t count) {
  LANCE_RETURN_NOT_OK(CheckCount(count));
  LANCE_RETURN_NOT_OK(state_->indices.AppendZeros(count * state_->index_width));
  return AppendValidity(count, false);
}

Status DictionaryBuilder::AppendEmptyValues(int64_t count) {
  LANCE_RETURN_NOT_OK(CheckCount(count));
  if (count == 0) return Status::OK();
  State& st = *state_;
  if (st.empty_index < 0 || st.empty_index >= st.dictionary_length()) {
    st.empty_index = -1;
    if (st.memoizable) {
      LANCE_RETURN_NOT_OK(st.Materialize());
      auto it = st.memo.find(EmptyMemoKey(*type_->value_type()));
      if (it != st.memo.end()) st.empty_index = it->second;
    }
    if (st.empty_index < 0) {
      LANCE_RETURN_NOT_OK(st.Materialize());
      st.empty_index = st.values->length();
      LANCE_RETURN_NOT_OK(st.values->AppendEmptyValue());
      if (st.memoizable)
        st.memo.emplace(EmptyMemoKey(*type_->value_type()), st.empty_index);
    }
  }
  for (int64_t i = 0; i < count; ++i) LANCE_RETURN_NOT_OK(st.AppendRaw(st.empty_index));
  return AppendValidity(count, true);
}

void DictionaryBuilder::Reset() {
  ArrayBuilder::Reset();
  state_->indices.Reset();
  state_->shared = nullptr;
  state_->values->Reset();
  state_->memo.clear();
  state_->empty_index = -1;
}

Result<ArrayDataPtr> DictionaryBuilder::DoFinish() {
  State& st = *state_;
  if (st.dictionary_length() - 1 > st.max_index) {
    return Status::Invalid("finishing a " + type_->ToString() +
                           " builder: " + std::to_string(st.dictionary_length()) +
                           " dictionary values do not fit " +
                           type_->index_type()->ToString() + " indices");
  }
  ArrayDataPtr dictionary = st.shared;
  if (!dictionary) {
    LANCE_ASSIGN_OR_RAISE(dictionary, st.values->FinishData());
  }
  LANCE_ASSIGN_OR_RAISE(BufferPtr validity, FinishValidity());
  LANCE_ASSIGN_OR_RAISE(BufferPtr indices, st.indices.Finish());
  auto out = ArrayData::Make(type_, length_, {std::move(validity), std::move(indices)},
                             null_count_, 0, {}, std::move(dictionary));
  st.shared = nullptr;
  st.memo.clear();
  st.empty_index = -1;
  return out;
}

Status DictionaryBuilder::DoAppendArraySlice(const ArrayData& data, int64_t offset,
                                             int64_t length) {
  if (!data.dictionary || data.buffers.size() < 2 || !data.buffers[1]) {
    return Status::Invalid("appending a dictionary array without indices or dictionary");
  }
  State& st = *state_;
  if (!st.shared && st.dictionary_length() == 0 && st.memo.empty()) {
    st.shared = data.dictionary;  // the first dictionary is lent, not copied
  }
  bool same = st.shared && st.shared == data.dictionary;
  if (!same && st.shared && st.shared->length == data.dictionary->length) {
    same = MakeArray(st.shared)->Equals(*MakeArray(data.dictionary));
  }
  if (same) {
    // Same dictionary, same index type: the indices are copied as they are.
    LANCE_RETURN_NOT_OK(st.indices.Append(
        data.buffers[1]->data() + (data.offset + offset) * st.index_width,
        length * st.index_width));
    return AppendValiditySlice(data, offset, length);
  }
  // Another dictionary: decode and re-encode each value.
  for (int64_t i = offset; i < offset + length; ++i) {
    if (!data.IsValid(i)) {
      LANCE_RETURN_NOT_OK(AppendNulls(1));
      continue;
    }
    const int64_t index = IntegerValueAt(data, i);
    if (index < 0 || index >= data.dictionary->length) {
      return Status::Invalid("appending a dictionary array: index " +
                             std::to_string(index) + " is outside its dictionary");
    }
    if (!data.dictionary->IsValid(index)) {
      // A valid slot pointing at a null value reads as null.
      LANCE_RETURN_NOT_OK(AppendNulls(1));
      continue;
    }
    LANCE_ASSIGN_OR_RAISE(const int64_t encoded, st.Encode(*data.dictionary, index));
    LANCE_RETURN_NOT_OK(st.AppendRaw(encoded));
    LANCE_RETURN_NOT_OK(AppendValidity(true));
  }
  return Status::OK();
}

// ---------------------------------------------------------------------------------------
// MakeBuilder

namespace {

using BuilderPtr = std::unique_ptr<ArrayBuilder>;

// Leaf builders are made from their type, or from nothing when their type has no
// parameters.
template <typename B>
BuilderPtr WithType(const DataTypePtr& type) {
  return std::make_unique<B>(type);
}
template <typename B>
BuilderPtr WithoutType(const DataTypePtr&) {
  return std::make_unique<B>();
}

struct LeafBuilderMaker {
  TypeId id;
  BuilderPtr (*make)(const DataTypePtr&);
};
const LeafBuilderMaker kLeafBuilderMakers[] = {
    {TypeId::kNull, WithoutType<NullBuilder>},
    {TypeId::kBool, WithoutType<BooleanBuilder>},
    {TypeId::kInt8, WithType<Int8Builder>},
    {TypeId::kInt16, WithType<Int16Builder>},
    {TypeId::kInt32, WithType<Int32Builder>},
    {TypeId::kInt64, WithType<Int64Builder>},
    {TypeId::kUInt8, WithType<UInt8Builder>},
    {TypeId::kUInt16, WithType<UInt16Builder>},
    {TypeId::kUInt32, WithType<UInt32Builder>},
    {TypeId::kUInt64, WithType<UInt64Builder>},
    {TypeId::kFloat16, WithoutType<HalfFloatBuilder>},
    {TypeId::kFloat32, WithType<FloatBuilder>},
    {TypeId::kFloat64, WithType<DoubleBuilder>},
    {TypeId::kDate32, WithoutType<Date32Builder>},
    {TypeId::kDate64, WithoutType<Date64Builder>},
    {TypeId::kTimestamp, WithType<TimestampBuilder>},
    {TypeId::kDuration, WithType<DurationBuilder>},
    {TypeId::kTime32, WithType<Time32Builder>},
    {TypeId::kTime64, WithType<Time64Builder>},
    {TypeId::kDecimal128, WithType<Decimal128Builder>},
    {TypeId::kDecimal256, WithType<Decimal256Builder>},
    {TypeId::kBinary, WithoutType<BinaryBuilder>},
    {TypeId::kUtf8, WithoutType<StringBuilder>},
    {TypeId::kLargeBinary, WithoutType<LargeBinaryBuilder>},
    {TypeId::kLargeUtf8, WithoutType<LargeStringBuilder>},
    {TypeId::kFixedSizeBinary, WithType<FixedSizeBinaryBuilder>},
};

// The builder of a type without children; NULL for the other types.
Result<BuilderPtr> MakeLeafBuilder(const DataTypePtr& type) {
  switch (type->id()) {
    case TypeId::kTime32:
    case TypeId::kTime64:
    case TypeId::kDecimal128:
    case TypeId::kDecimal256:
      LANCE_RETURN_NOT_OK(ValidateTypeParameters(*type).WithContext("making a builder"));
      break;
    case TypeId::kFixedSizeBinary:
      if (type->fixed_size() < 0) {
        return Status::Invalid("making a builder for " + type->ToString() +
                               ": negative byte width");
      }
      break;
    default:
      break;
  }
  for (const LeafBuilderMaker& maker : kLeafBuilderMakers) {
    if (maker.id == type->id()) return maker.make(type);
  }
  return BuilderPtr();
}

Result<BuilderPtr> MakeListBuilder(const DataTypePtr& type) {
  if (!type->value_type()) {
    return Status::Invalid("making a builder for " + type->ToString() + ": no item type");
  }
  LANCE_ASSIGN_OR_RAISE(auto child, MakeBuilder(type->value_type()));
  if (type->id() == TypeId::kList) {
    return std::make_unique<ListBuilder>(std::move(child), type);
  }
  if (type->id() == TypeId::kLargeList) {
    return std::make_unique<LargeListBuilder>(std::move(child), type);
  }
  if (type->fixed_size() < 0) {
    return Status::Invalid("making a builder for " + type->ToString() +
                           ": negative list size");
  }
  return std::make_unique<FixedSizeListBuilder>(std::move(child), type);
}

Result<BuilderPtr> MakeStructBuilder(const DataTypePtr& type) {
  std::vector<BuilderPtr> children;
  for (const auto& f : type->fields()) {
    if (!f || !f->type()) {
      return Status::Invalid("making a builder for " + type->ToString() +
                             ": a field has no type");
    }
    LANCE_ASSIGN_OR_RAISE(auto child, MakeBuilder(f->type()));
    children.push_back(std::move(child));
  }
  return std::make_unique<StructBuilder>(type, std::move(children));
}

}  // namespace

Result<std::unique_ptr<ArrayBuilder>> MakeBuilder(const DataTypePtr& type) {
  if (!type) return Status::Invalid("making a builder for a null type");
  std::unique_ptr<ArrayBuilder> out;
  switch (type->id()) {
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kFixedSizeList:
      return MakeListBuilder(type);
    case TypeId::kStruct:
      return MakeStructBuilder(type);
    case TypeId::kMap: {
      LANCE_RETURN_NOT_OK(ValidateTypeParameters(*type).WithContext("making a builder"));
      LANCE_ASSIGN_OR_RAISE(auto keys, MakeBuilder(type->key_type()));
      LANCE_ASSIGN_OR_RAISE(auto items, MakeBuilder(type->item_type()));
      return std::make_unique<MapBuilder>(type, std::move(keys), std::move(items));
    }
    case TypeId::kDictionary: {
      LANCE_RETURN_NOT_OK(ValidateTypeParameters(*type).WithContext("making a builder"));
      // Checks that the value type can be built before the builder relies on it.
      LANCE_RETURN_NOT_OK(MakeBuilder(type->value_type()).status());
      return std::make_unique<DictionaryBuilder>(type);
    }
    default:
      LANCE_ASSIGN_OR_RAISE(out, MakeLeafBuilder(type));
      break;
  }
  if (!out) {
    return Status::NotImplemented("making a builder for type " + type->ToString());
  }
  return out;
}

}  // namespace lance
