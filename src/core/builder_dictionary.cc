// SPDX-License-Identifier: Apache-2.0
// The dictionary builder: indices into a dictionary that is lent or built on the fly.

#include <algorithm>
#include <limits>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>

#include "core/builder_internal.h"
#include "lance/core/builder.h"
#include "lance/macros.h"

namespace lance {

using internal::CheckCount;

// ---------------------------------------------------------------------------------------
// DictionaryBuilder

namespace {

// Largest index an index type can hold: 2^(bits) - 1 with the sign bit left out; the
// 64-bit (and any other) types are capped at int64's.
int64_t MaxIndex(const DataType& type) {
  if (!type.is_integer() || type.byte_width() >= 8) {
    return std::numeric_limits<int64_t>::max();
  }
  const int bits = type.byte_width() * 8 - (type.is_signed_integer() ? 1 : 0);
  return (int64_t{1} << bits) - 1;
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
  state_->max_index = index_type ? MaxIndex(*index_type) : 0;
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

}  // namespace lance
