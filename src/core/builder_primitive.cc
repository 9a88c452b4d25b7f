// SPDX-License-Identifier: Apache-2.0
// Builders of fixed-width values without children: boolean, numeric, null.

#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "core/builder_internal.h"
#include "lance/core/builder.h"
#include "lance/macros.h"

namespace lance {

using internal::CheckCount;
using internal::CheckIsValidVector;

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

Result<ArrayDataPtr> BooleanBuilder::DoFinish() { return FinishWithValues(&values_); }

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
  return AppendZeroedSlots(&values_, kWidth, count, false);
}

template <typename CType>
Status NumericBuilder<CType>::AppendEmptyValues(int64_t count) {
  return AppendZeroedSlots(&values_, kWidth, count, true);
}

template <typename CType>
Status NumericBuilder<CType>::Reserve(int64_t additional) {
  return ReserveSlots(&values_, kWidth, additional);
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
  return FinishWithValues(&values_);
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

}  // namespace lance
