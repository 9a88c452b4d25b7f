// SPDX-License-Identifier: Apache-2.0
// The shared parts of the builders (validity, the ArrayBuilder base) and MakeBuilder.
// Each family of builders lives in its own file: builder_primitive.cc,
// builder_binary.cc, builder_nested.cc, builder_dictionary.cc.

#include "lance/core/builder.h"

#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/builder_internal.h"
#include "lance/core/visit_type.h"
#include "lance/macros.h"

namespace lance {

namespace internal {

Status CheckIsValidVector(size_t values, const std::vector<bool>& is_valid) {
  if (!is_valid.empty() && is_valid.size() != values) {
    return Status::Invalid("appending values: " + std::to_string(values) +
                           " values but " + std::to_string(is_valid.size()) +
                           " validity flags");
  }
  return Status::OK();
}

Status AppendPlaceholders(ArrayBuilder* child, const Field& field, int64_t count) {
  if (count == 0) return Status::OK();
  return field.nullable() ? child->AppendNulls(count) : child->AppendEmptyValues(count);
}

Status CheckCount(int64_t count) {
  LANCE_PRECHECK(count >= 0, "appending a negative number of slots");
  return Status::OK();
}

}  // namespace internal

using internal::CheckCount;

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

Status ArrayBuilder::ReserveSlots(BufferBuilder* buffer, int64_t width,
                                  int64_t additional) {
  LANCE_RETURN_NOT_OK(ArrayBuilder::Reserve(additional));
  return buffer->Reserve(additional * width);
}

Status ArrayBuilder::AppendZeroedSlots(BufferBuilder* values, int64_t width,
                                       int64_t count, bool valid) {
  LANCE_RETURN_NOT_OK(CheckCount(count));
  LANCE_RETURN_NOT_OK(values->AppendZeros(count * width));
  return AppendValidity(count, valid);
}

template <typename ValuesBuilder>
Result<ArrayDataPtr> ArrayBuilder::FinishWithValues(ValuesBuilder* values) {
  LANCE_ASSIGN_OR_RAISE(BufferPtr validity, FinishValidity());
  LANCE_ASSIGN_OR_RAISE(BufferPtr data, values->Finish());
  return ArrayData::Make(type_, length_, {std::move(validity), std::move(data)},
                         null_count_);
}

template Result<ArrayDataPtr> ArrayBuilder::FinishWithValues(BufferBuilder* values);
template Result<ArrayDataPtr> ArrayBuilder::FinishWithValues(BitmapBuilder* values);

// ---------------------------------------------------------------------------------------
// MakeBuilder

namespace {

using BuilderPtr = std::unique_ptr<ArrayBuilder>;

// The parameters of a leaf type that its builder relies on.
Status CheckLeafParameters(const DataType& type) {
  if (type.id() == TypeId::kFixedSizeBinary && type.fixed_size() < 0) {
    return Status::Invalid("making a builder for " + type.ToString() +
                           ": negative byte width");
  }
  if (type.id() == TypeId::kTime32 || type.id() == TypeId::kTime64 || type.is_decimal()) {
    return ValidateTypeParameters(type).WithContext("making a builder");
  }
  return Status::OK();
}

// List-like builders wrap the builder of their item type.
template <typename B>
Result<BuilderPtr> MakeListBuilder(const DataTypePtr& type) {
  if (!type->value_type()) {
    return Status::Invalid("making a builder for " + type->ToString() + ": no item type");
  }
  LANCE_ASSIGN_OR_RAISE(auto child, MakeBuilder(type->value_type()));
  if (type->fixed_size() < 0) {
    return Status::Invalid("making a builder for " + type->ToString() +
                           ": negative list size");
  }
  return std::make_unique<B>(std::move(child), type);
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
  return VisitType(*type, [&](auto traits) -> Result<BuilderPtr> {
    using T = decltype(traits);
    using B = typename T::BuilderType;
    constexpr TypeId kId = T::kId;
    if constexpr (kId == TypeId::kList || kId == TypeId::kLargeList ||
                  kId == TypeId::kFixedSizeList) {
      return MakeListBuilder<B>(type);
    } else if constexpr (kId == TypeId::kStruct) {
      return MakeStructBuilder(type);
    } else if constexpr (kId == TypeId::kMap) {
      LANCE_RETURN_NOT_OK(ValidateTypeParameters(*type).WithContext("making a builder"));
      LANCE_ASSIGN_OR_RAISE(auto keys, MakeBuilder(type->key_type()));
      LANCE_ASSIGN_OR_RAISE(auto items, MakeBuilder(type->item_type()));
      return std::make_unique<MapBuilder>(type, std::move(keys), std::move(items));
    } else if constexpr (kId == TypeId::kDictionary) {
      LANCE_RETURN_NOT_OK(ValidateTypeParameters(*type).WithContext("making a builder"));
      // Checks that the value type can be built before the builder relies on it.
      LANCE_RETURN_NOT_OK(MakeBuilder(type->value_type()).status());
      return std::make_unique<DictionaryBuilder>(type);
    } else {
      LANCE_RETURN_NOT_OK(CheckLeafParameters(*type));
      // Builders of parameterless types are made from nothing (their type is fixed).
      if constexpr (std::is_constructible_v<B, DataTypePtr>) {
        return std::make_unique<B>(type);
      } else {
        return std::make_unique<B>();
      }
    }
  });
}

}  // namespace lance
