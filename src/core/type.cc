// SPDX-License-Identifier: Apache-2.0

#include "lance/core/type.h"

#include <algorithm>
#include <initializer_list>
#include <iterator>
#include <string>
#include <utility>

#include "lance/core/visit_type.h"

namespace lance {

DataType::DataType(TypeId id, int32_t fixed_size, TimeUnit unit, std::string timezone,
                   std::vector<FieldPtr> children, int32_t precision, int32_t scale,
                   bool flag, DataTypePtr index_type, DataTypePtr dictionary_value_type)
    : id_(id),
      fixed_size_(fixed_size),
      unit_(unit),
      timezone_(std::move(timezone)),
      children_(std::move(children)),
      precision_(precision),
      scale_(scale),
      flag_(flag),
      index_type_(std::move(index_type)),
      dictionary_value_type_(std::move(dictionary_value_type)) {}

int DataType::bit_width() const {
  // The widths fixed by the type id are its traits' kByteWidth; bool, null and
  // fixed_size_binary are the fixed-width types whose width is not a C type's.
  if (id_ == TypeId::kBool) return 1;
  if (id_ == TypeId::kNull) return 0;
  if (id_ == TypeId::kFixedSizeBinary) return 8 * fixed_size_;
  const int bytes =
      VisitTypeId(id_, [](auto traits) { return decltype(traits)::kByteWidth; });
  return bytes < 0 ? -1 : 8 * bytes;
}

int DataType::byte_width() const {
  if (id_ == TypeId::kBool || id_ == TypeId::kNull) return -1;
  if (id_ == TypeId::kFixedSizeBinary) return fixed_size_;
  const int bits = bit_width();
  return bits < 0 ? -1 : bits / 8;
}

namespace {
// References returned for the misuse cases must outlive the call, hence statics.
const DataTypePtr kNoType;
const FieldPtr kNoField;
}  // namespace

const DataTypePtr& DataType::value_type() const {
  if (id_ == TypeId::kDictionary) return dictionary_value_type_;
  if (!is_list_like() || children_.empty() || !children_[0]) return kNoType;
  return children_[0]->type();
}

const FieldPtr& DataType::key_field() const {
  const DataTypePtr& entries = value_type();
  if (id_ != TypeId::kMap || !entries || entries->num_fields() != 2) return kNoField;
  return entries->fields()[0];
}

const FieldPtr& DataType::item_field() const {
  const DataTypePtr& entries = value_type();
  if (id_ != TypeId::kMap || !entries || entries->num_fields() != 2) return kNoField;
  return entries->fields()[1];
}

const DataTypePtr& DataType::key_type() const {
  const FieldPtr& f = key_field();
  return f ? f->type() : kNoType;
}

const DataTypePtr& DataType::item_type() const {
  const FieldPtr& f = item_field();
  return f ? f->type() : kNoType;
}

namespace {

// Whether `id` is one of `ids`: the type families below are lists of ids.
bool IdIn(TypeId id, std::initializer_list<TypeId> ids) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

}  // namespace

bool DataType::is_integer() const {
  return is_signed_integer() ||
         IdIn(id_, {TypeId::kUInt8, TypeId::kUInt16, TypeId::kUInt32, TypeId::kUInt64});
}

bool DataType::is_signed_integer() const {
  return IdIn(id_, {TypeId::kInt8, TypeId::kInt16, TypeId::kInt32, TypeId::kInt64});
}

bool DataType::is_floating() const {
  return IdIn(id_, {TypeId::kFloat16, TypeId::kFloat32, TypeId::kFloat64});
}

bool DataType::is_primitive() const {
  return id_ == TypeId::kBool || is_integer() || is_floating() || is_temporal();
}

bool DataType::is_fixed_width() const {
  return is_primitive() || is_decimal() || id_ == TypeId::kFixedSizeBinary ||
         id_ == TypeId::kNull;
}

bool DataType::is_temporal() const {
  return IdIn(id_, {TypeId::kDate32, TypeId::kDate64, TypeId::kTime32, TypeId::kTime64,
                    TypeId::kTimestamp, TypeId::kDuration});
}

bool DataType::is_binary_like() const {
  return IdIn(id_,
              {TypeId::kUtf8, TypeId::kLargeUtf8, TypeId::kBinary, TypeId::kLargeBinary});
}

bool DataType::is_list_like() const {
  return IdIn(id_,
              {TypeId::kList, TypeId::kLargeList, TypeId::kFixedSizeList, TypeId::kMap});
}

bool DataType::is_nested() const { return is_list_like() || id_ == TypeId::kStruct; }

namespace {

bool SameType(const DataTypePtr& a, const DataTypePtr& b, bool check_metadata) {
  if (a == b) return true;
  if (!a || !b) return false;
  return a->Equals(*b, check_metadata);
}

}  // namespace

bool DataType::Equals(const DataType& other, bool check_metadata) const {
  if (this == &other) return true;
  if (id_ != other.id_) return false;
  switch (id_) {
    case TypeId::kFixedSizeBinary:
      return fixed_size_ == other.fixed_size_;
    case TypeId::kTimestamp:
      return unit_ == other.unit_ && timezone_ == other.timezone_;
    case TypeId::kTime32:
    case TypeId::kTime64:
    case TypeId::kDuration:
      return unit_ == other.unit_;
    case TypeId::kDecimal128:
    case TypeId::kDecimal256:
      return precision_ == other.precision_ && scale_ == other.scale_;
    case TypeId::kDictionary:
      return flag_ == other.flag_ &&
             SameType(index_type_, other.index_type_, check_metadata) &&
             SameType(dictionary_value_type_, other.dictionary_value_type_,
                      check_metadata);
    case TypeId::kMap: {
      // As for lists, the names ("entries", "key", "value") carry no meaning and differ
      // between producers; types, the item's nullability and keys_sorted do.
      if (flag_ != other.flag_) return false;
      const FieldPtr& ak = key_field();
      const FieldPtr& bk = other.key_field();
      const FieldPtr& ai = item_field();
      const FieldPtr& bi = other.item_field();
      if (!ak || !bk || !ai || !bi) return !ak == !bk && !ai == !bi;
      if (ai->nullable() != bi->nullable()) return false;
      if (check_metadata &&
          (ak->metadata() != bk->metadata() || ai->metadata() != bi->metadata())) {
        return false;
      }
      return SameType(ak->type(), bk->type(), check_metadata) &&
             SameType(ai->type(), bi->type(), check_metadata);
    }
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kFixedSizeList: {
      if (fixed_size_ != other.fixed_size_) return false;
      if (children_.size() != 1 || other.children_.size() != 1) {
        return children_.size() == other.children_.size();
      }
      // The item field's name is ignored: producers disagree on it ("item" in Arrow,
      // "element" in Parquet-derived data) and it carries no meaning for a list.
      const Field& a = *children_[0];
      const Field& b = *other.children_[0];
      if (a.nullable() != b.nullable()) return false;
      if (check_metadata && a.metadata() != b.metadata()) return false;
      return SameType(a.type(), b.type(), check_metadata);
    }
    case TypeId::kStruct: {
      if (children_.size() != other.children_.size()) return false;
      for (size_t i = 0; i < children_.size(); ++i) {
        if (!children_[i]->Equals(*other.children_[i], check_metadata)) return false;
      }
      return true;
    }
    default:
      return true;
  }
}

namespace {

// The names of the types without parameters; ToString() of the others is built.
constexpr std::pair<TypeId, const char*> kPrimitiveNames[] = {
    {TypeId::kBool, "bool"},     {TypeId::kInt8, "int8"},
    {TypeId::kInt16, "int16"},   {TypeId::kInt32, "int32"},
    {TypeId::kInt64, "int64"},   {TypeId::kUInt8, "uint8"},
    {TypeId::kUInt16, "uint16"}, {TypeId::kUInt32, "uint32"},
    {TypeId::kUInt64, "uint64"}, {TypeId::kFloat16, "float16"},
    {TypeId::kFloat32, "float"}, {TypeId::kFloat64, "double"},
    {TypeId::kUtf8, "utf8"},     {TypeId::kLargeUtf8, "large_utf8"},
    {TypeId::kBinary, "binary"}, {TypeId::kLargeBinary, "large_binary"},
    {TypeId::kDate32, "date32"}, {TypeId::kDate64, "date64[ms]"},
    {TypeId::kNull, "null"},
};

const char* PrimitiveName(TypeId id) {
  for (const auto& [type_id, name] : kPrimitiveNames) {
    if (type_id == id) return name;
  }
  return nullptr;
}

std::string ChildToString(const std::vector<FieldPtr>& children) {
  if (children.empty() || !children[0]) return "?";
  return children[0]->ToString();
}

}  // namespace

std::string DataType::ToString() const {
  if (const char* name = PrimitiveName(id_)) return name;
  switch (id_) {
    case TypeId::kFixedSizeBinary:
      return "fixed_size_binary[" + std::to_string(fixed_size_) + "]";
    case TypeId::kTimestamp: {
      std::string out = "timestamp[";
      out += TimeUnitSuffix(unit_);
      if (!timezone_.empty()) out += ", tz=" + timezone_;
      out += "]";
      return out;
    }
    case TypeId::kList:
      return "list<" + ChildToString(children_) + ">";
    case TypeId::kLargeList:
      return "large_list<" + ChildToString(children_) + ">";
    case TypeId::kFixedSizeList:
      return "fixed_size_list<" + ChildToString(children_) + ">[" +
             std::to_string(fixed_size_) + "]";
    case TypeId::kStruct: {
      std::string out = "struct<";
      for (size_t i = 0; i < children_.size(); ++i) {
        if (i > 0) out += ", ";
        out += children_[i] ? children_[i]->ToString() : "?";
      }
      out += ">";
      return out;
    }
    case TypeId::kDecimal128:
    case TypeId::kDecimal256:
      return std::string(id_ == TypeId::kDecimal128 ? "decimal128(" : "decimal256(") +
             std::to_string(precision_) + ", " + std::to_string(scale_) + ")";
    case TypeId::kTime32:
      return std::string("time32[") + TimeUnitSuffix(unit_) + "]";
    case TypeId::kTime64:
      return std::string("time64[") + TimeUnitSuffix(unit_) + "]";
    case TypeId::kDuration:
      return std::string("duration[") + TimeUnitSuffix(unit_) + "]";
    case TypeId::kDictionary:
      return "dictionary<values=" +
             (dictionary_value_type_ ? dictionary_value_type_->ToString() : "?") +
             ", indices=" + (index_type_ ? index_type_->ToString() : "?") +
             ", ordered=" + (flag_ ? "1" : "0") + ">";
    case TypeId::kMap: {
      const FieldPtr& key = key_field();
      const FieldPtr& item = item_field();
      if (!key || !item) return "map<?>";
      // Arrow C++'s spelling: names are shown only when they are not the standard ones.
      std::string out = "map<" + (key->type() ? key->type()->ToString() : "?");
      if (key->name() != "key") out += " ('" + key->name() + "')";
      out += ", " + (item->type() ? item->type()->ToString() : "?");
      if (item->name() != "value") out += " ('" + item->name() + "')";
      if (!item->nullable()) out += " not null";
      if (flag_) out += ", keys_sorted";
      out += ">";
      return out;
    }
    default:
      return "unknown";
  }
}

namespace {

DataTypePtr MakeSimple(TypeId id) {
  return std::make_shared<const DataType>(id, 0, TimeUnit::kSecond, std::string(),
                                          std::vector<FieldPtr>{});
}

}  // namespace

// Parameterless types are immutable, so one shared instance per process is enough and
// saves an allocation per column per batch. Function-local statics are thread-safe.
#define LANCE_SINGLETON_TYPE(fn, id)                 \
  DataTypePtr fn() {                                 \
    static const DataTypePtr kType = MakeSimple(id); \
    return kType;                                    \
  }

LANCE_SINGLETON_TYPE(boolean, TypeId::kBool)
LANCE_SINGLETON_TYPE(int8, TypeId::kInt8)
LANCE_SINGLETON_TYPE(int16, TypeId::kInt16)
LANCE_SINGLETON_TYPE(int32, TypeId::kInt32)
LANCE_SINGLETON_TYPE(int64, TypeId::kInt64)
LANCE_SINGLETON_TYPE(uint8, TypeId::kUInt8)
LANCE_SINGLETON_TYPE(uint16, TypeId::kUInt16)
LANCE_SINGLETON_TYPE(uint32, TypeId::kUInt32)
LANCE_SINGLETON_TYPE(uint64, TypeId::kUInt64)
LANCE_SINGLETON_TYPE(float16, TypeId::kFloat16)
LANCE_SINGLETON_TYPE(float32, TypeId::kFloat32)
LANCE_SINGLETON_TYPE(float64, TypeId::kFloat64)
LANCE_SINGLETON_TYPE(utf8, TypeId::kUtf8)
LANCE_SINGLETON_TYPE(large_utf8, TypeId::kLargeUtf8)
LANCE_SINGLETON_TYPE(binary, TypeId::kBinary)
LANCE_SINGLETON_TYPE(large_binary, TypeId::kLargeBinary)
LANCE_SINGLETON_TYPE(date32, TypeId::kDate32)
LANCE_SINGLETON_TYPE(null, TypeId::kNull)

#undef LANCE_SINGLETON_TYPE

DataTypePtr integer_type(int bit_width, bool is_signed) {
  // Row i: the 8 << i bit types, unsigned then signed.
  static constexpr DataTypePtr (*kTypes[][2])() = {
      {uint8, int8}, {uint16, int16}, {uint32, int32}, {uint64, int64}};
  for (size_t i = 0; i < std::size(kTypes); ++i) {
    if (bit_width == 8 << i) return kTypes[i][is_signed ? 1 : 0]();
  }
  return nullptr;
}

DataTypePtr fixed_size_binary(int32_t byte_width) {
  return std::make_shared<const DataType>(TypeId::kFixedSizeBinary, byte_width,
                                          TimeUnit::kSecond, std::string(),
                                          std::vector<FieldPtr>{});
}

DataTypePtr timestamp(TimeUnit unit, std::string timezone) {
  return std::make_shared<const DataType>(TypeId::kTimestamp, 0, unit,
                                          std::move(timezone), std::vector<FieldPtr>{});
}

DataTypePtr date64() {
  static const DataTypePtr kType = std::make_shared<const DataType>(
      TypeId::kDate64, 0, TimeUnit::kMilli, std::string(), std::vector<FieldPtr>{});
  return kType;
}

namespace {

DataTypePtr MakeUnitType(TypeId id, TimeUnit unit) {
  return std::make_shared<const DataType>(id, 0, unit, std::string(),
                                          std::vector<FieldPtr>{});
}

DataTypePtr MakeDecimal(TypeId id, int32_t precision, int32_t scale) {
  return std::make_shared<const DataType>(id, 0, TimeUnit::kSecond, std::string(),
                                          std::vector<FieldPtr>{}, precision, scale);
}

}  // namespace

DataTypePtr time32(TimeUnit unit) { return MakeUnitType(TypeId::kTime32, unit); }
DataTypePtr time64(TimeUnit unit) { return MakeUnitType(TypeId::kTime64, unit); }
DataTypePtr duration(TimeUnit unit) { return MakeUnitType(TypeId::kDuration, unit); }

DataTypePtr decimal128(int32_t precision, int32_t scale) {
  return MakeDecimal(TypeId::kDecimal128, precision, scale);
}

DataTypePtr decimal256(int32_t precision, int32_t scale) {
  return MakeDecimal(TypeId::kDecimal256, precision, scale);
}

DataTypePtr dictionary(DataTypePtr index_type, DataTypePtr value_type, bool ordered) {
  return std::make_shared<const DataType>(
      TypeId::kDictionary, 0, TimeUnit::kSecond, std::string(), std::vector<FieldPtr>{},
      0, 0, ordered, std::move(index_type), std::move(value_type));
}

namespace {

DataTypePtr MakeMap(FieldPtr entries, bool keys_sorted) {
  return std::make_shared<const DataType>(
      TypeId::kMap, 0, TimeUnit::kSecond, std::string(),
      std::vector<FieldPtr>{std::move(entries)}, 0, 0, keys_sorted);
}

}  // namespace

DataTypePtr map(DataTypePtr key_type, DataTypePtr item_type, bool keys_sorted) {
  return map(field("key", std::move(key_type), /*nullable=*/false),
             field("value", std::move(item_type)), keys_sorted);
}

DataTypePtr map(FieldPtr key_field, FieldPtr item_field, bool keys_sorted) {
  if (key_field && key_field->nullable()) key_field = key_field->WithNullable(false);
  auto entries = field("entries", struct_({std::move(key_field), std::move(item_field)}),
                       /*nullable=*/false);
  return MakeMap(std::move(entries), keys_sorted);
}

Result<DataTypePtr> MapFromEntries(FieldPtr entries, bool keys_sorted) {
  if (!entries || !entries->type()) {
    return Status::Invalid("making a map type: the entries field is missing");
  }
  const DataType& type = *entries->type();
  if (type.id() != TypeId::kStruct || type.num_fields() != 2) {
    return Status::Invalid(
        "making a map type: entries must be a struct of key and value, "
        "got " +
        type.ToString());
  }
  if (entries->nullable()) {
    return Status::Invalid("making a map type: the entries field '" + entries->name() +
                           "' must not be nullable");
  }
  for (const FieldPtr& f : type.fields()) {
    if (!f || !f->type()) {
      return Status::Invalid("making a map type: a field of the entries has no type");
    }
  }
  if (type.fields()[0]->nullable()) {
    return Status::Invalid("making a map type: the key field '" +
                           type.fields()[0]->name() + "' must not be nullable");
  }
  return MakeMap(std::move(entries), keys_sorted);
}

Status ValidateTypeParameters(const DataType& type) {
  switch (type.id()) {
    case TypeId::kDecimal128:
    case TypeId::kDecimal256: {
      const int32_t max = type.id() == TypeId::kDecimal128 ? kMaxDecimal128Precision
                                                           : kMaxDecimal256Precision;
      if (type.precision() < 1 || type.precision() > max) {
        return Status::Invalid(type.ToString() + ": precision must be in [1, " +
                               std::to_string(max) + "]");
      }
      return Status::OK();
    }
    case TypeId::kTime32:
      if (type.unit() != TimeUnit::kSecond && type.unit() != TimeUnit::kMilli) {
        return Status::Invalid(std::string("time32 takes the unit s or ms, not ") +
                               TimeUnitSuffix(type.unit()));
      }
      return Status::OK();
    case TypeId::kTime64:
      if (type.unit() != TimeUnit::kMicro && type.unit() != TimeUnit::kNano) {
        return Status::Invalid(std::string("time64 takes the unit us or ns, not ") +
                               TimeUnitSuffix(type.unit()));
      }
      return Status::OK();
    case TypeId::kDictionary:
      if (!type.index_type() || !type.index_type()->is_integer()) {
        return Status::Invalid(
            "dictionary indices must be an integer type, got " +
            (type.index_type() ? type.index_type()->ToString() : std::string("none")));
      }
      if (!type.value_type()) {
        return Status::Invalid("dictionary type without a value type");
      }
      return Status::OK();
    case TypeId::kMap:
      if (type.num_fields() != 1 || !type.key_field() || !type.item_field()) {
        return Status::Invalid("map type without a struct<key, value> entries field");
      }
      if (type.key_field()->nullable()) {
        return Status::Invalid("map keys must not be nullable");
      }
      return Status::OK();
    default:
      return Status::OK();
  }
}

namespace {

DataTypePtr MakeList(TypeId id, FieldPtr value_field, int32_t list_size) {
  return std::make_shared<const DataType>(id, list_size, TimeUnit::kSecond, std::string(),
                                          std::vector<FieldPtr>{std::move(value_field)});
}

}  // namespace

DataTypePtr list(DataTypePtr value_type) {
  return list(field("item", std::move(value_type)));
}
DataTypePtr list(FieldPtr value_field) {
  return MakeList(TypeId::kList, std::move(value_field), 0);
}
DataTypePtr large_list(DataTypePtr value_type) {
  return large_list(field("item", std::move(value_type)));
}
DataTypePtr large_list(FieldPtr value_field) {
  return MakeList(TypeId::kLargeList, std::move(value_field), 0);
}
DataTypePtr fixed_size_list(DataTypePtr value_type, int32_t list_size) {
  return fixed_size_list(field("item", std::move(value_type)), list_size);
}
DataTypePtr fixed_size_list(FieldPtr value_field, int32_t list_size) {
  return MakeList(TypeId::kFixedSizeList, std::move(value_field), list_size);
}

DataTypePtr struct_(std::vector<FieldPtr> fields) {
  return std::make_shared<const DataType>(TypeId::kStruct, 0, TimeUnit::kSecond,
                                          std::string(), std::move(fields));
}

// ---------------------------------------------------------------------------------------
// Field

Field::Field(std::string name, DataTypePtr type, bool nullable, KeyValueMetadata metadata)
    : name_(std::move(name)),
      type_(std::move(type)),
      nullable_(nullable),
      metadata_(std::move(metadata)) {}

FieldPtr Field::WithName(std::string name) const {
  return std::make_shared<const Field>(std::move(name), type_, nullable_, metadata_);
}
FieldPtr Field::WithType(DataTypePtr type) const {
  return std::make_shared<const Field>(name_, std::move(type), nullable_, metadata_);
}
FieldPtr Field::WithNullable(bool nullable) const {
  return std::make_shared<const Field>(name_, type_, nullable, metadata_);
}
FieldPtr Field::WithMetadata(KeyValueMetadata metadata) const {
  return std::make_shared<const Field>(name_, type_, nullable_, std::move(metadata));
}

bool Field::Equals(const Field& other, bool check_metadata) const {
  if (this == &other) return true;
  if (name_ != other.name_ || nullable_ != other.nullable_) return false;
  if (check_metadata && metadata_ != other.metadata_) return false;
  return SameType(type_, other.type_, check_metadata);
}

std::string Field::ToString() const {
  std::string out = name_ + ": " + (type_ ? type_->ToString() : std::string("?"));
  if (!nullable_) out += " not null";
  return out;
}

FieldPtr field(std::string name, DataTypePtr type, bool nullable,
               KeyValueMetadata metadata) {
  return std::make_shared<const Field>(std::move(name), std::move(type), nullable,
                                       std::move(metadata));
}

// ---------------------------------------------------------------------------------------
// Schema

Schema::Schema(std::vector<FieldPtr> fields, KeyValueMetadata metadata)
    : fields_(std::move(fields)), metadata_(std::move(metadata)) {}

int Schema::GetFieldIndex(const std::string& name) const {
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (fields_[i]->name() == name) return static_cast<int>(i);
  }
  return -1;
}

FieldPtr Schema::GetFieldByName(const std::string& name) const {
  const int i = GetFieldIndex(name);
  return i < 0 ? nullptr : fields_[i];
}

Result<SchemaPtr> Schema::Project(const std::vector<std::string>& names) const {
  std::vector<FieldPtr> projected;
  projected.reserve(names.size());
  for (const auto& name : names) {
    const int i = GetFieldIndex(name);
    if (i < 0) {
      return Status::Invalid("projecting schema: no column named '" + name + "'");
    }
    projected.push_back(fields_[i]);
  }
  return std::make_shared<const Schema>(std::move(projected), metadata_);
}

SchemaPtr Schema::WithMetadata(KeyValueMetadata metadata) const {
  return std::make_shared<const Schema>(fields_, std::move(metadata));
}

bool Schema::Equals(const Schema& other, bool check_metadata) const {
  if (this == &other) return true;
  if (fields_.size() != other.fields_.size()) return false;
  if (check_metadata && metadata_ != other.metadata_) return false;
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (!fields_[i]->Equals(*other.fields_[i], check_metadata)) return false;
  }
  return true;
}

std::string Schema::ToString() const {
  std::string out;
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (i > 0) out += "\n";
    out += fields_[i]->ToString();
  }
  return out;
}

SchemaPtr schema(std::vector<FieldPtr> fields, KeyValueMetadata metadata) {
  return std::make_shared<const Schema>(std::move(fields), std::move(metadata));
}

namespace {

struct TimeUnitInfo {
  int64_t ticks_per_second;
  const char* suffix;
};

// The facts of each TimeUnit, in its order.
constexpr TimeUnitInfo kTimeUnits[] = {
    {1, "s"}, {1'000, "ms"}, {1'000'000, "us"}, {1'000'000'000, "ns"}};

// nullptr for a value outside the enum (only possible through a bad cast).
const TimeUnitInfo* FindTimeUnit(TimeUnit unit) {
  const auto i = static_cast<size_t>(unit);
  return i < std::size(kTimeUnits) ? &kTimeUnits[i] : nullptr;
}

}  // namespace

int64_t TicksPerSecond(TimeUnit unit) {
  const TimeUnitInfo* info = FindTimeUnit(unit);
  return info ? info->ticks_per_second : 1;
}

const char* TimeUnitSuffix(TimeUnit unit) {
  const TimeUnitInfo* info = FindTimeUnit(unit);
  return info ? info->suffix : "?";
}

}  // namespace lance
