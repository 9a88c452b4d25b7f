// SPDX-License-Identifier: Apache-2.0
// Builders of nested values: lists, fixed-size lists, structs, maps.

#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/builder_internal.h"
#include "lance/core/builder.h"
#include "lance/macros.h"

namespace lance {

using internal::AppendEmptyOffsets;
using internal::AppendPlaceholders;
using internal::CheckCount;

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
Status BaseListBuilder<OffsetT>::AppendEmptyLists(int64_t count, bool valid) {
  LANCE_RETURN_NOT_OK(CheckCount(count));
  LANCE_RETURN_NOT_OK(CheckChildLength(0));
  LANCE_RETURN_NOT_OK(
      AppendEmptyOffsets<OffsetT>(&offsets_, value_builder_->length(), count));
  return AppendValidity(count, valid);
}

template <typename OffsetT>
Status BaseListBuilder<OffsetT>::AppendNulls(int64_t count) {
  return AppendEmptyLists(count, false);
}

template <typename OffsetT>
Status BaseListBuilder<OffsetT>::AppendEmptyValues(int64_t count) {
  return AppendEmptyLists(count, true);
}

template <typename OffsetT>
Status BaseListBuilder<OffsetT>::Reserve(int64_t additional) {
  return ReserveSlots(&offsets_, sizeof(OffsetT), additional);
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

}  // namespace lance
