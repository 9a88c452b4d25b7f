// SPDX-License-Identifier: Apache-2.0

#include "lance/core/array.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "lance/core/ascii.h"
#include "lance/core/decimal.h"
#include "lance/core/pretty_print.h"
#include "lance/core/visit_type.h"
#include "lance/macros.h"

namespace lance {

namespace {

bool HasValidity(const ArrayData& data) {
  return !data.buffers.empty() && data.buffers[0] != nullptr;
}

}  // namespace

const BufferPtr& Array::null_bitmap() const {
  static const BufferPtr kNone;
  return data_->buffers.empty() ? kNone : data_->buffers[0];
}

ArrayPtr Array::Slice(int64_t offset, int64_t length) const {
  return MakeArray(data_->Slice(offset, length));
}

std::string Array::ToString() const { return PrettyPrint(*this); }

// ---------------------------------------------------------------------------------------
// Typed arrays

BooleanArray::BooleanArray(ArrayDataPtr data) : Array(std::move(data)) {
  if (data_->buffers.size() > 1 && data_->buffers[1]) values_ = data_->buffers[1]->data();
}

int64_t BooleanArray::true_count() const {
  if (!HasValidity(*data_))
    return bit_util::CountSetBits(values_, data_->offset, length());
  const uint8_t* validity = data_->buffers[0]->data();
  int64_t count = 0;
  for (int64_t i = data_->offset; i < data_->offset + length(); ++i) {
    count += bit_util::GetBit(validity, i) && bit_util::GetBit(values_, i);
  }
  return count;
}

FixedSizeBinaryArray::FixedSizeBinaryArray(ArrayDataPtr data) : Array(std::move(data)) {
  byte_width_ = std::max(0, data_->type->byte_width());
  if (data_->buffers.size() > 1 && data_->buffers[1]) {
    raw_values_ = data_->buffers[1]->data() + data_->offset * byte_width_;
  }
}

std::shared_ptr<NullArray> NullArray::Make(int64_t length) {
  return std::make_shared<NullArray>(ArrayData::Make(null(), length, {nullptr}, length));
}

std::string DecimalArray::FormatValue(int64_t i) const {
  return FormatDecimal(GetValue(i), byte_width(), scale());
}

MapArray::MapArray(ArrayDataPtr data) : ListArray(std::move(data)) {
  if (values() && values()->type_id() == TypeId::kStruct) {
    const auto& entries = static_cast<const StructArray&>(*values());
    if (entries.num_fields() == 2) {
      keys_ = entries.field(0);
      items_ = entries.field(1);
    }
  }
}

DictionaryArray::DictionaryArray(ArrayDataPtr data) : Array(std::move(data)) {
  if (data_->type->index_type()) {
    auto indices = std::make_shared<ArrayData>(*data_);
    indices->type = data_->type->index_type();
    indices->dictionary = nullptr;
    indices_ = MakeArray(std::move(indices));
  }
  dictionary_ = MakeArray(data_->dictionary);
}

int64_t DictionaryArray::GetValueIndex(int64_t i) const {
  return IntegerValueAt(*data_, i);
}

Result<std::shared_ptr<DictionaryArray>> DictionaryArray::Make(
    DataTypePtr type, const ArrayPtr& indices, const ArrayPtr& dictionary) {
  if (!type || type->id() != TypeId::kDictionary || !indices || !dictionary) {
    return Status::Invalid(
        "making a dictionary array: needs a dictionary type, indices "
        "and a dictionary");
  }
  if (!indices->type()->Equals(*type->index_type())) {
    return Status::Invalid("making a " + type->ToString() + " array: indices are " +
                           indices->type()->ToString());
  }
  if (!dictionary->type()->Equals(*type->value_type())) {
    return Status::Invalid("making a " + type->ToString() + " array: the dictionary is " +
                           dictionary->type()->ToString());
  }
  auto data = std::make_shared<ArrayData>(*indices->data());
  data->type = std::move(type);
  data->dictionary = dictionary->data();
  auto out = std::make_shared<DictionaryArray>(std::move(data));
  LANCE_RETURN_NOT_OK(out->Validate());
  return out;
}

FixedSizeListArray::FixedSizeListArray(ArrayDataPtr data) : Array(std::move(data)) {
  list_size_ = data_->type->fixed_size();
  if (!data_->children.empty()) values_ = MakeArray(data_->children[0]);
}

StructArray::StructArray(ArrayDataPtr data) : Array(std::move(data)) {
  fields_.reserve(data_->children.size());
  for (const auto& child : data_->children) {
    ArrayPtr array = MakeArray(child);
    // Fields are exposed as the struct sees them, so callers never have to apply the
    // struct's offset themselves.
    if (array && (data_->offset != 0 || array->length() != data_->length)) {
      array = array->Slice(data_->offset, data_->length);
    }
    fields_.push_back(std::move(array));
  }
}

Result<std::shared_ptr<StructArray>> StructArray::Make(
    const std::vector<ArrayPtr>& children, const std::vector<FieldPtr>& fields,
    int64_t length, BufferPtr null_bitmap, int64_t null_count, int64_t offset) {
  if (children.size() != fields.size()) {
    return Status::Invalid("making a struct array: " + std::to_string(children.size()) +
                           " children but " + std::to_string(fields.size()) + " fields");
  }
  if (length < 0) {
    if (children.empty()) {
      return Status::Invalid(
          "making a struct array without fields needs an explicit length");
    }
    length = children[0]->length() - offset;
  }
  LANCE_PRECHECK(offset >= 0 && length >= 0,
                 "making a struct array: negative offset or length");
  std::vector<ArrayDataPtr> child_data;
  child_data.reserve(children.size());
  for (size_t i = 0; i < children.size(); ++i) {
    if (!children[i] || !fields[i]) {
      return Status::Invalid("making a struct array: child " + std::to_string(i) +
                             " is null");
    }
    if (!children[i]->type()->Equals(*fields[i]->type())) {
      return Status::Invalid("making a struct array: child '" + fields[i]->name() +
                             "' has type " + children[i]->type()->ToString() +
                             " but the field says " + fields[i]->type()->ToString());
    }
    if (children[i]->length() < offset + length) {
      return Status::Invalid("making a struct array: child '" + fields[i]->name() +
                             "' has " + std::to_string(children[i]->length()) +
                             " rows, need " + std::to_string(offset + length));
    }
    child_data.push_back(children[i]->data());
  }
  if (null_bitmap && null_bitmap->size() < bit_util::BytesForBits(offset + length)) {
    return Status::Invalid("making a struct array: validity bitmap too small");
  }
  auto data = ArrayData::Make(struct_(fields), length, {std::move(null_bitmap)},
                              null_count, offset, std::move(child_data));
  return std::make_shared<StructArray>(std::move(data));
}

Result<std::shared_ptr<StructArray>> StructArray::Make(
    const std::vector<ArrayPtr>& children, const std::vector<std::string>& names) {
  if (children.size() != names.size()) {
    return Status::Invalid("making a struct array: " + std::to_string(children.size()) +
                           " children but " + std::to_string(names.size()) + " names");
  }
  std::vector<FieldPtr> fields;
  fields.reserve(names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    if (!children[i]) {
      return Status::Invalid("making a struct array: child '" + names[i] + "' is null");
    }
    fields.push_back(::lance::field(names[i], children[i]->type()));
  }
  return Make(children, fields);
}

ArrayPtr StructArray::GetFieldByName(const std::string& name) const {
  const auto& type_fields = data_->type->fields();
  for (size_t i = 0; i < type_fields.size() && i < fields_.size(); ++i) {
    if (type_fields[i]->name() == name) return fields_[i];
  }
  return nullptr;
}

ArrayPtr MakeArray(ArrayDataPtr data) {
  if (!data || !data->type) return nullptr;
  ArrayPtr array = VisitType(*data->type, [&](auto traits) -> ArrayPtr {
    return std::make_shared<typename decltype(traits)::ArrayType>(std::move(data));
  });
  // An id outside the enum (only through a bad cast) still gets the base class.
  return array ? array : std::make_shared<Array>(std::move(data));
}

// ---------------------------------------------------------------------------------------
// Equality

namespace {

bool HalfEquals(uint16_t a, uint16_t b) {
  const bool a_nan = (a & 0x7c00) == 0x7c00 && (a & 0x03ff) != 0;
  const bool b_nan = (b & 0x7c00) == 0x7c00 && (b & 0x03ff) != 0;
  if (a_nan || b_nan) return a_nan && b_nan;
  if ((a & 0x7fff) == 0 && (b & 0x7fff) == 0) return true;  // +0 == -0
  return a == b;
}

template <typename T>
bool FloatEquals(T a, T b) {
  return a == b || (std::isnan(a) && std::isnan(b));
}

class RangeComparer {
 public:
  // Compares slots [ai, ai + n) of a with [bi, bi + n) of b (indices relative to each
  // array's offset). The caller has established that the types are equal.
  bool Equal(const ArrayData& a, int64_t ai, const ArrayData& b, int64_t bi, int64_t n) {
    if (n == 0) return true;
    const bool a_has = HasValidity(a);
    const bool b_has = HasValidity(b);
    if (!a_has && !b_has) return ValuesEqual(a, ai, b, bi, n);
    for (int64_t k = 0; k < n; ++k) {
      if (a.IsValid(ai + k) != b.IsValid(bi + k)) return false;
    }
    // Compare maximal runs of valid slots so fixed-width data still goes through memcmp
    // and nested children are compared range-wise rather than slot by slot.
    int64_t k = 0;
    while (k < n) {
      while (k < n && !a.IsValid(ai + k)) ++k;
      const int64_t run_start = k;
      while (k < n && a.IsValid(ai + k)) ++k;
      if (k > run_start &&
          !ValuesEqual(a, ai + run_start, b, bi + run_start, k - run_start)) {
        return false;
      }
    }
    return true;
  }

 private:
  // Every slot in both ranges is valid.
  bool ValuesEqual(const ArrayData& a, int64_t ai, const ArrayData& b, int64_t bi,
                   int64_t n) {
    const DataType& type = *a.type;
    switch (type.id()) {
      case TypeId::kBool: {
        const uint8_t* av = a.buffers[1]->data();
        const uint8_t* bv = b.buffers[1]->data();
        for (int64_t k = 0; k < n; ++k) {
          if (bit_util::GetBit(av, a.offset + ai + k) !=
              bit_util::GetBit(bv, b.offset + bi + k)) {
            return false;
          }
        }
        return true;
      }
      case TypeId::kFloat16:
        return FloatLike<uint16_t>(a, ai, b, bi, n, HalfEquals);
      case TypeId::kFloat32:
        return FloatLike<float>(a, ai, b, bi, n, FloatEquals<float>);
      case TypeId::kFloat64:
        return FloatLike<double>(a, ai, b, bi, n, FloatEquals<double>);
      case TypeId::kUtf8:
      case TypeId::kBinary:
        return BinaryEqual<int32_t>(a, ai, b, bi, n);
      case TypeId::kLargeUtf8:
      case TypeId::kLargeBinary:
        return BinaryEqual<int64_t>(a, ai, b, bi, n);
      case TypeId::kList:
      case TypeId::kMap:
        return ListEqual<int32_t>(a, ai, b, bi, n);
      case TypeId::kNull:
        return true;
      case TypeId::kDictionary:
        return DictionaryEqual(a, ai, b, bi, n);
      case TypeId::kLargeList:
        return ListEqual<int64_t>(a, ai, b, bi, n);
      case TypeId::kFixedSizeList: {
        const int64_t size = type.fixed_size();
        return Equal(*a.children[0], (a.offset + ai) * size, *b.children[0],
                     (b.offset + bi) * size, n * size);
      }
      case TypeId::kStruct: {
        for (size_t f = 0; f < a.children.size(); ++f) {
          if (!Equal(*a.children[f], a.offset + ai, *b.children[f], b.offset + bi, n)) {
            return false;
          }
        }
        return true;
      }
      default: {
        // Integers, date32, timestamp and fixed_size_binary: bytes are values.
        const int64_t width = type.byte_width();
        const uint8_t* av = a.buffers[1]->data() + (a.offset + ai) * width;
        const uint8_t* bv = b.buffers[1]->data() + (b.offset + bi) * width;
        return std::memcmp(av, bv, static_cast<size_t>(n * width)) == 0;
      }
    }
  }

  template <typename T, typename Eq>
  static bool FloatLike(const ArrayData& a, int64_t ai, const ArrayData& b, int64_t bi,
                        int64_t n, Eq eq) {
    const T* av = a.buffers[1]->data_as<T>() + a.offset + ai;
    const T* bv = b.buffers[1]->data_as<T>() + b.offset + bi;
    for (int64_t k = 0; k < n; ++k) {
      if (!eq(av[k], bv[k])) return false;
    }
    return true;
  }

  // True if both offset ranges describe the same sequence of lengths.
  template <typename OffsetT>
  static bool SameShape(const OffsetT* ao, const OffsetT* bo, int64_t n) {
    for (int64_t k = 1; k <= n; ++k) {
      if (ao[k] - ao[0] != bo[k] - bo[0]) return false;
    }
    return true;
  }

  template <typename OffsetT>
  static bool BinaryEqual(const ArrayData& a, int64_t ai, const ArrayData& b, int64_t bi,
                          int64_t n) {
    const OffsetT* ao = a.buffers[1]->data_as<OffsetT>() + a.offset + ai;
    const OffsetT* bo = b.buffers[1]->data_as<OffsetT>() + b.offset + bi;
    if (!SameShape(ao, bo, n)) return false;
    const int64_t bytes = ao[n] - ao[0];
    if (bytes == 0) return true;
    return std::memcmp(a.buffers[2]->data() + ao[0], b.buffers[2]->data() + bo[0],
                       static_cast<size_t>(bytes)) == 0;
  }

  // Dictionary arrays compare by the values their slots stand for, so two encodings of
  // the same values are equal (as their decoded forms would be).
  bool DictionaryEqual(const ArrayData& a, int64_t ai, const ArrayData& b, int64_t bi,
                       int64_t n) {
    const bool same_dictionary =
        a.dictionary == b.dictionary ||
        (a.dictionary && b.dictionary && a.dictionary->length == b.dictionary->length &&
         Equal(*a.dictionary, 0, *b.dictionary, 0, a.dictionary->length));
    for (int64_t k = 0; k < n; ++k) {
      const int64_t ia = IndexAt(a, ai + k);
      const int64_t ib = IndexAt(b, bi + k);
      if (same_dictionary) {
        if (ia != ib) return false;
        continue;
      }
      if (!Equal(*a.dictionary, ia, *b.dictionary, ib, 1)) return false;
    }
    return true;
  }

  static int64_t IndexAt(const ArrayData& data, int64_t i) {
    return IntegerValueAt(data, i);
  }

  template <typename OffsetT>
  bool ListEqual(const ArrayData& a, int64_t ai, const ArrayData& b, int64_t bi,
                 int64_t n) {
    const OffsetT* ao = a.buffers[1]->data_as<OffsetT>() + a.offset + ai;
    const OffsetT* bo = b.buffers[1]->data_as<OffsetT>() + b.offset + bi;
    if (!SameShape(ao, bo, n)) return false;
    return Equal(*a.children[0], ao[0], *b.children[0], bo[0], ao[n] - ao[0]);
  }
};

}  // namespace

bool Array::Equals(const Array& other) const {
  if (this == &other) return true;
  if (!type()->Equals(*other.type())) return false;
  if (length() != other.length()) return false;
  if (data_ == other.data_) return true;
  return RangeComparer().Equal(*data_, 0, *other.data_, 0, length());
}

// ---------------------------------------------------------------------------------------
// Validation

namespace {

class Validator {
 public:
  Status Validate(const ArrayData& data) {
    if (!data.type) return Status::Invalid("validating array: type is null");
    const DataType& type = *data.type;
    const std::string what = "validating " + type.ToString() + " array: ";
    if (data.length < 0) return Status::Invalid(what + "negative length");
    if (data.offset < 0) return Status::Invalid(what + "negative offset");
    if (data.offset > std::numeric_limits<int64_t>::max() - data.length - 1) {
      return Status::Invalid(what + "offset + length overflows");
    }
    const int64_t end = data.offset + data.length;
    const int expected_buffers = NumBuffersForType(type);
    if (static_cast<int>(data.buffers.size()) != expected_buffers) {
      return Status::Invalid(what + "expected " + std::to_string(expected_buffers) +
                             " buffers, got " + std::to_string(data.buffers.size()));
    }
    LANCE_RETURN_NOT_OK(ValidateTypeParameters(type).WithContext(what));
    size_t expected_children = 0;
    if (type.is_list_like()) expected_children = 1;
    if (type.id() == TypeId::kStruct) expected_children = type.fields().size();
    if (data.children.size() != expected_children) {
      return Status::Invalid(what + "expected " + std::to_string(expected_children) +
                             " children, got " + std::to_string(data.children.size()));
    }
    for (const auto& child : data.children) {
      if (!child) return Status::Invalid(what + "a child is null");
    }

    const int64_t null_count =
        std::atomic_ref<int64_t>(const_cast<int64_t&>(data.null_count)).load();
    if (null_count < kUnknownNullCount || null_count > data.length) {
      return Status::Invalid(what + "null_count " + std::to_string(null_count) +
                             " out of range for length " + std::to_string(data.length));
    }
    if ((data.dictionary != nullptr) != (type.id() == TypeId::kDictionary)) {
      return Status::Invalid(what + (data.dictionary ? "unexpected dictionary"
                                                     : "the dictionary is missing"));
    }
    if (type.id() == TypeId::kNull) {
      // Every slot is null and there is nothing else to check.
      if (HasValidity(data)) return Status::Invalid(what + "a null array has a bitmap");
      if (null_count != kUnknownNullCount && null_count != data.length) {
        return Status::Invalid(what + "null_count is " + std::to_string(null_count) +
                               " but every one of the " + std::to_string(data.length) +
                               " slots is null");
      }
      return Status::OK();
    }
    if (HasValidity(data)) {
      LANCE_RETURN_NOT_OK(CheckSize(what, "validity bitmap", data.buffers[0],
                                    bit_util::BytesForBits(end)));
      const int64_t actual =
          data.length -
          bit_util::CountSetBits(data.buffers[0]->data(), data.offset, data.length);
      if (null_count != kUnknownNullCount && null_count != actual) {
        return Status::Invalid(what + "null_count is " + std::to_string(null_count) +
                               " but the bitmap has " + std::to_string(actual) +
                               " nulls");
      }
    } else if (null_count > 0) {
      return Status::Invalid(what + "null_count is " + std::to_string(null_count) +
                             " but there is no validity bitmap");
    }

    if (std::optional<Status> st = ValidateByTraits(what, data)) return *st;
    switch (type.id()) {
      case TypeId::kBool:
        return CheckSize(what, "value bitmap", data.buffers[1],
                         bit_util::BytesForBits(end));
      case TypeId::kFixedSizeBinary:
        if (type.fixed_size() < 0) return Status::Invalid(what + "negative byte width");
        return CheckSize(what, "values", data.buffers[1], end * type.fixed_size());
      case TypeId::kDecimal128:
      case TypeId::kDecimal256: {
        LANCE_RETURN_NOT_OK(
            CheckSize(what, "values", data.buffers[1], end * type.byte_width()));
        for (int64_t i = 0; i < data.length; ++i) {
          if (!data.IsValid(i)) continue;
          const uint8_t* value =
              data.buffers[1]->data() + (data.offset + i) * type.byte_width();
          if (!DecimalFitsPrecision(value, type.byte_width(), type.precision())) {
            return Status::Invalid(what + "slot " + std::to_string(i) + " (" +
                                   FormatDecimal(value, type.byte_width(), type.scale()) +
                                   ") has more than " + std::to_string(type.precision()) +
                                   " digits");
          }
        }
        return Status::OK();
      }
      case TypeId::kDictionary:
        return ValidateDictionary(what, data);
      case TypeId::kFixedSizeList: {
        LANCE_RETURN_NOT_OK(ValidateChild(what, data, 0, type.value_type()));
        if (type.fixed_size() < 0) return Status::Invalid(what + "negative list size");
        const int64_t needed = end * type.fixed_size();
        if (data.children[0]->length < needed) {
          return Status::Invalid(what + "child has " +
                                 std::to_string(data.children[0]->length) +
                                 " values, need " + std::to_string(needed));
        }
        return Status::OK();
      }
      case TypeId::kStruct: {
        for (int f = 0; f < type.num_fields(); ++f) {
          LANCE_RETURN_NOT_OK(ValidateChild(what, data, f, type.fields()[f]->type()));
          if (data.children[f]->length < end) {
            return Status::Invalid(what + "field '" + type.fields()[f]->name() +
                                   "' has " + std::to_string(data.children[f]->length) +
                                   " rows, need " + std::to_string(end));
          }
        }
        return Status::OK();
      }
      default:
        return CheckSize(what, "values", data.buffers[1], end * type.byte_width());
    }
  }

 private:
  static Status CheckSize(const std::string& what, const char* name,
                          const BufferPtr& buffer, int64_t needed) {
    if (needed == 0) return Status::OK();
    const int64_t size = buffer ? buffer->size() : 0;
    if (size < needed) {
      return Status::Invalid(what + name + " buffer has " + std::to_string(size) +
                             " bytes, need " + std::to_string(needed));
    }
    return Status::OK();
  }

  // The checks the type traits select: the offsets of the binary and list types (by
  // their width), the range of time and date64 values (by their C type); nullopt for
  // the other types.
  std::optional<Status> ValidateByTraits(const std::string& what, const ArrayData& data) {
    return VisitType(*data.type, [&](auto traits) -> std::optional<Status> {
      using T = decltype(traits);
      constexpr TypeId kId = T::kId;
      if constexpr (T::kIsBaseBinary) {
        return ValidateBinary<typename T::OffsetType>(what, data);
      } else if constexpr (kId == TypeId::kMap) {
        return ValidateMap(what, data);
      } else if constexpr (T::kIsBaseList) {
        return ValidateList<typename T::OffsetType>(what, data);
      } else if constexpr (kId == TypeId::kTime32 || kId == TypeId::kTime64 ||
                           kId == TypeId::kDate64) {
        return ValidateTemporal<typename T::CType>(what, data);
      } else {
        return std::nullopt;
      }
    });
  }

  Status ValidateChild(const std::string& what, const ArrayData& data, int index,
                       const DataTypePtr& expected) {
    const ArrayData& child = *data.children[index];
    if (!child.type || !expected || !child.type->Equals(*expected)) {
      return Status::Invalid(what + "child " + std::to_string(index) + " has type " +
                             (child.type ? child.type->ToString() : "null") +
                             ", expected " + (expected ? expected->ToString() : "null"));
    }
    return Validate(child).WithContext(what + "child " + std::to_string(index));
  }

  // Checks offsets[offset .. offset + length] and returns their bounds through out
  // params.
  template <typename OffsetT>
  static Status CheckOffsets(const std::string& what, const ArrayData& data,
                             int64_t limit, const char* limit_name) {
    if (data.length == 0) return Status::OK();
    const int64_t count = data.offset + data.length + 1;
    LANCE_RETURN_NOT_OK(CheckSize(what, "offsets", data.buffers[1],
                                  count * static_cast<int64_t>(sizeof(OffsetT))));
    const OffsetT* offsets = data.buffers[1]->data_as<OffsetT>() + data.offset;
    if (offsets[0] < 0) {
      return Status::Invalid(what + "first offset " + std::to_string(offsets[0]) +
                             " is negative");
    }
    for (int64_t i = 0; i < data.length; ++i) {
      if (offsets[i + 1] < offsets[i]) {
        return Status::Invalid(what + "offset of slot " + std::to_string(i + 1) + " (" +
                               std::to_string(offsets[i + 1]) +
                               ") is less than offset of slot " + std::to_string(i) +
                               " (" + std::to_string(offsets[i]) + ")");
      }
    }
    if (offsets[data.length] > limit) {
      return Status::Invalid(what + "last offset " +
                             std::to_string(offsets[data.length]) + " exceeds the " +
                             limit_name + " length " + std::to_string(limit));
    }
    return Status::OK();
  }

  template <typename OffsetT>
  Status ValidateBinary(const std::string& what, const ArrayData& data) {
    const int64_t data_size = data.buffers[2] ? data.buffers[2]->size() : 0;
    LANCE_RETURN_NOT_OK(CheckOffsets<OffsetT>(what, data, data_size, "data buffer"));
    const TypeId id = data.type->id();
    if ((id != TypeId::kUtf8 && id != TypeId::kLargeUtf8) || data.length == 0) {
      return Status::OK();
    }
    const OffsetT* offsets = data.buffers[1]->data_as<OffsetT>() + data.offset;
    const char* bytes = data.buffers[2]
                            ? reinterpret_cast<const char*>(data.buffers[2]->data())
                            : nullptr;
    for (int64_t i = 0; i < data.length; ++i) {
      if (!data.IsValid(i) || offsets[i + 1] == offsets[i]) continue;
      std::string_view value(bytes + offsets[i],
                             static_cast<size_t>(offsets[i + 1] - offsets[i]));
      if (!IsValidUtf8(value)) {
        return Status::Invalid(what + "slot " + std::to_string(i) +
                               " is not valid UTF-8");
      }
    }
    return Status::OK();
  }

  template <typename OffsetT>
  Status ValidateList(const std::string& what, const ArrayData& data) {
    LANCE_RETURN_NOT_OK(ValidateChild(what, data, 0, data.type->value_type()));
    return CheckOffsets<OffsetT>(what, data, data.children[0]->length, "child");
  }

  // A list of entries, where (as Arrow requires) no entry and no key referenced by a
  // slot is null.
  Status ValidateMap(const std::string& what, const ArrayData& data) {
    LANCE_RETURN_NOT_OK(ValidateList<int32_t>(what, data));
    if (data.length == 0) return Status::OK();
    const int32_t* offsets = data.buffers[1]->data_as<int32_t>() + data.offset;
    const ArrayData& entries = *data.children[0];
    if (entries.children.size() != 2) {
      return Status::Invalid(what + "the entries struct has " +
                             std::to_string(entries.children.size()) + " children");
    }
    const ArrayData& keys = *entries.children[0];
    for (int64_t j = offsets[0]; j < offsets[data.length]; ++j) {
      if (!entries.IsValid(j)) {
        return Status::Invalid(what + "entry " + std::to_string(j) + " is null");
      }
      if (!keys.IsValid(entries.offset + j)) {
        return Status::Invalid(what + "the key of entry " + std::to_string(j) +
                               " is null");
      }
    }
    return Status::OK();
  }

  // Values within the range Arrow allows: a time of day below 24 h, or a date64 that is
  // a whole number of days.
  template <typename T>
  Status ValidateTemporal(const std::string& what, const ArrayData& data) {
    const DataType& type = *data.type;
    LANCE_RETURN_NOT_OK(CheckSize(what, "values", data.buffers[1],
                                  (data.offset + data.length) * type.byte_width()));
    const T* values = data.buffers[1]->data_as<T>() + data.offset;
    constexpr int64_t kMillisPerDay = 86'400'000;
    const int64_t day = 86'400 * TicksPerSecond(type.unit());
    for (int64_t i = 0; i < data.length; ++i) {
      if (!data.IsValid(i)) continue;
      const int64_t v = values[i];
      if (type.id() == TypeId::kDate64) {
        if (v % kMillisPerDay != 0) {
          return Status::Invalid(what + "slot " + std::to_string(i) + " (" +
                                 std::to_string(v) + ") is not a whole number of days");
        }
      } else if (v < 0 || v >= day) {
        return Status::Invalid(what + "slot " + std::to_string(i) + " (" +
                               std::to_string(v) + ") is outside [0, " +
                               std::to_string(day) + ")");
      }
    }
    return Status::OK();
  }

  Status ValidateDictionary(const std::string& what, const ArrayData& data) {
    const DataType& type = *data.type;
    const DataType& index_type = *type.index_type();
    const int64_t end = data.offset + data.length;
    LANCE_RETURN_NOT_OK(
        CheckSize(what, "indices", data.buffers[1], end * index_type.byte_width()));
    const ArrayData& dict = *data.dictionary;
    if (!dict.type || !dict.type->Equals(*type.value_type())) {
      return Status::Invalid(what + "the dictionary has type " +
                             (dict.type ? dict.type->ToString() : "null") +
                             ", expected " + type.value_type()->ToString());
    }
    LANCE_RETURN_NOT_OK(Validate(dict).WithContext(what + "dictionary"));
    for (int64_t i = 0; i < data.length; ++i) {
      if (!data.IsValid(i)) continue;
      const int64_t index = IntegerValueAt(data, i);
      if (index < 0 || index >= dict.length) {
        return Status::Invalid(what + "index " + std::to_string(index) + " of slot " +
                               std::to_string(i) + " is outside the dictionary of " +
                               std::to_string(dict.length) + " values");
      }
    }
    return Status::OK();
  }
};

}  // namespace

Status Array::Validate() const { return Validator().Validate(*data_); }

}  // namespace lance
