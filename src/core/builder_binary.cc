// SPDX-License-Identifier: Apache-2.0
// Builders of byte-string values: variable-length binary and string, fixed-size
// binary, decimal.

#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "core/builder_internal.h"
#include "lance/core/builder.h"
#include "lance/core/decimal.h"
#include "lance/macros.h"

namespace lance {

using internal::AppendEachOrNull;
using internal::AppendEmptyOffsets;
using internal::CheckCount;

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
  return AppendEachOrNull(this, values, is_valid);
}

template <typename OffsetT>
Status BaseBinaryBuilder<OffsetT>::AppendEmptySlots(int64_t count, bool valid) {
  LANCE_RETURN_NOT_OK(CheckCount(count));
  LANCE_RETURN_NOT_OK(AppendEmptyOffsets<OffsetT>(&offsets_, data_.length(), count));
  return AppendValidity(count, valid);
}

template <typename OffsetT>
Status BaseBinaryBuilder<OffsetT>::AppendNulls(int64_t count) {
  return AppendEmptySlots(count, false);
}

template <typename OffsetT>
Status BaseBinaryBuilder<OffsetT>::AppendEmptyValues(int64_t count) {
  return AppendEmptySlots(count, true);
}

template <typename OffsetT>
Status BaseBinaryBuilder<OffsetT>::Reserve(int64_t additional) {
  return ReserveSlots(&offsets_, sizeof(OffsetT), additional);
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
  return AppendEachOrNull(this, values, is_valid);
}

Status FixedSizeBinaryBuilder::AppendNulls(int64_t count) {
  return AppendZeroedSlots(&values_, byte_width_, count, false);
}

Status FixedSizeBinaryBuilder::AppendEmptyValues(int64_t count) {
  return AppendZeroedSlots(&values_, byte_width_, count, true);
}

Status FixedSizeBinaryBuilder::Reserve(int64_t additional) {
  return ReserveSlots(&values_, byte_width_, additional);
}

void FixedSizeBinaryBuilder::Reset() {
  ArrayBuilder::Reset();
  values_.Reset();
}

Result<ArrayDataPtr> FixedSizeBinaryBuilder::DoFinish() {
  return FinishWithValues(&values_);
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

}  // namespace lance
