// SPDX-License-Identifier: Apache-2.0
/// \file type.h
/// \brief Logical data types, fields and schemas with Arrow's semantics.
///
/// Types are immutable and shared (`DataTypePtr`); build them with the factory functions
/// below (`int64()`, `list(utf8())`, `struct_({field("x", int32())})`, ...). Every type
/// maps one-to-one onto an Arrow type so that the C Data Interface (c_data.h) is
/// lossless.
///
/// Type families (the predicates below):
///
/// | family          | types                                                          |
/// |-----------------|----------------------------------------------------------------|
/// | primitive       | bool, ints, floats, date32/64, time32/64, timestamp, duration  |
/// | fixed width     | primitive + fixed_size_binary + decimal128/256 (+ null, 0 bits)|
/// | binary-like     | utf8, large_utf8, binary, large_binary                         |
/// | list-like       | list, large_list, fixed_size_list, map                         |
/// | nested          | list-like + struct                                             |
///
/// As in Arrow C++, decimals are fixed-width but not primitive (their values are 16/32
/// raw bytes, not a C number), null is neither (it has no buffers), and a dictionary type
/// is none of these: its layout is that of its index type plus a separate dictionary.

#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "lance/result.h"

namespace lance {

enum class TypeId : uint8_t {
  kBool,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUInt8,
  kUInt16,
  kUInt32,
  kUInt64,
  kFloat16,  ///< IEEE half precision, stored as uint16_t bits
  kFloat32,
  kFloat64,
  kUtf8,             ///< int32 offsets
  kLargeUtf8,        ///< int64 offsets
  kBinary,           ///< int32 offsets
  kLargeBinary,      ///< int64 offsets
  kFixedSizeBinary,  ///< byte_width() bytes per value
  kDate32,           ///< days since the UNIX epoch, int32
  kTimestamp,        ///< int64 in unit() since the epoch, optional timezone
  kList,             ///< int32 offsets + one child
  kLargeList,        ///< int64 offsets + one child
  kFixedSizeList,    ///< list_size() child values per slot
  kStruct,           ///< one child per field
  kNull,             ///< every slot null; no buffers
  kDecimal128,       ///< 16-byte little-endian two's complement, precision() / scale()
  kDecimal256,       ///< 32-byte little-endian two's complement, precision() / scale()
  kDate64,      ///< milliseconds since the UNIX epoch, int64 (whole days by convention)
  kTime32,      ///< time of day, int32 in unit() (s or ms)
  kTime64,      ///< time of day, int64 in unit() (us or ns)
  kDuration,    ///< int64 in unit()
  kDictionary,  ///< index_type() indices into a dictionary of value_type()
  kMap,         ///< list<entries: struct<key, value>> with int32 offsets
};

enum class TimeUnit : uint8_t { kSecond, kMilli, kMicro, kNano };

class DataType;
class Field;
class Schema;
using DataTypePtr = std::shared_ptr<const DataType>;
using FieldPtr = std::shared_ptr<const Field>;
using SchemaPtr = std::shared_ptr<const Schema>;

/// \brief Ordered string key/value pairs (Arrow's KeyValueMetadata).
using KeyValueMetadata = std::vector<std::pair<std::string, std::string>>;

/// \brief A logical type. Immutable; compare with Equals(), never by pointer.
class DataType {
 public:
  TypeId id() const { return id_; }

  /// \brief Bits per value for fixed-width types (1 for bool, 8*N for fixed_size_binary,
  /// 128/256 for decimals, 0 for null); -1 for variable-width, nested and dictionary
  /// types (a dictionary's indices are index_type()->bit_width() wide).
  int bit_width() const;
  /// \brief Bytes per value for byte-aligned fixed-width types; -1 otherwise (incl. bool
  /// and null).
  int byte_width() const;
  /// \brief N of fixed_size_binary[N] or fixed_size_list<T, N>; 0 otherwise.
  int32_t fixed_size() const { return fixed_size_; }
  /// \brief Unit of timestamp, time32, time64 and duration (date64 reports kMilli).
  TimeUnit unit() const { return unit_; }
  /// \brief Timezone of a timestamp; empty means naive (no zone).
  const std::string& timezone() const { return timezone_; }
  /// \brief Decimal digits of a decimal type; 0 otherwise.
  int32_t precision() const { return precision_; }
  /// \brief Digits after the decimal point of a decimal type (may be negative); 0
  /// otherwise.
  int32_t scale() const { return scale_; }
  /// \brief Whether a dictionary's order is meaningful (ARROW_FLAG_DICTIONARY_ORDERED).
  bool ordered() const { return id_ == TypeId::kDictionary && flag_; }
  /// \brief Whether a map's keys are sorted in every slot (ARROW_FLAG_MAP_KEYS_SORTED).
  bool keys_sorted() const { return id_ == TypeId::kMap && flag_; }
  /// \brief Child fields: one for list types and map ("entries"), one per member for
  /// struct; empty otherwise (a dictionary's value type is not a child).
  const std::vector<FieldPtr>& fields() const { return children_; }
  int num_fields() const { return static_cast<int>(children_.size()); }
  /// \brief The item type of a list/large_list/fixed_size_list, the entries struct of a
  /// map (as in Arrow C++), or the dictionary value type of a dictionary; null otherwise.
  const DataTypePtr& value_type() const;
  /// \brief The index type of a dictionary (an integer type); null otherwise.
  const DataTypePtr& index_type() const { return index_type_; }
  /// \brief The key field / type of a map; null otherwise.
  const FieldPtr& key_field() const;
  const DataTypePtr& key_type() const;
  /// \brief The item ("value") field / type of a map; null otherwise.
  const FieldPtr& item_field() const;
  const DataTypePtr& item_type() const;

  bool is_integer() const;
  bool is_signed_integer() const;
  bool is_floating() const;
  /// \brief bool, ints, floats, date32/64, time32/64, timestamp, duration.
  bool is_primitive() const;
  /// \brief Primitive, fixed_size_binary, decimals and null: one fixed-size value per
  /// slot.
  bool is_fixed_width() const;
  bool is_decimal() const {
    return id_ == TypeId::kDecimal128 || id_ == TypeId::kDecimal256;
  }
  /// \brief date32/64, time32/64, timestamp, duration.
  bool is_temporal() const;
  bool is_binary_like() const;  ///< utf8, large_utf8, binary, large_binary
  bool is_list_like() const;    ///< list, large_list, fixed_size_list, map
  bool is_nested() const;       ///< list-like or struct

  /// \brief Structural equality; with check_metadata also compares child field metadata.
  bool Equals(const DataType& other, bool check_metadata = false) const;
  /// \brief Arrow-style spelling: "int64", "list<item: utf8>", "timestamp[us, tz=UTC]".
  std::string ToString() const;

  // Prefer the factory functions; public for std::make_shared.
  DataType(TypeId id, int32_t fixed_size, TimeUnit unit, std::string timezone,
           std::vector<FieldPtr> children, int32_t precision = 0, int32_t scale = 0,
           bool flag = false, DataTypePtr index_type = nullptr,
           DataTypePtr dictionary_value_type = nullptr);

 private:
  TypeId id_;
  int32_t fixed_size_ = 0;
  TimeUnit unit_ = TimeUnit::kSecond;
  std::string timezone_;
  std::vector<FieldPtr> children_;
  int32_t precision_ = 0;
  int32_t scale_ = 0;
  bool flag_ = false;  // dictionary: ordered; map: keys_sorted
  DataTypePtr index_type_;
  DataTypePtr dictionary_value_type_;
};

DataTypePtr boolean();
DataTypePtr int8();
DataTypePtr int16();
DataTypePtr int32();
DataTypePtr int64();
DataTypePtr uint8();
DataTypePtr uint16();
DataTypePtr uint32();
DataTypePtr uint64();
/// \brief The integer type of `bit_width` bits (8, 16, 32 or 64) and signedness;
/// nullptr for another width.
DataTypePtr integer_type(int bit_width, bool is_signed);
DataTypePtr float16();
DataTypePtr float32();
DataTypePtr float64();
DataTypePtr utf8();
DataTypePtr large_utf8();
DataTypePtr binary();
DataTypePtr large_binary();
DataTypePtr fixed_size_binary(int32_t byte_width);
DataTypePtr date32();
DataTypePtr timestamp(TimeUnit unit, std::string timezone = "");
/// \brief list<item: value_type> (item nullable).
DataTypePtr list(DataTypePtr value_type);
DataTypePtr list(FieldPtr value_field);
DataTypePtr large_list(DataTypePtr value_type);
DataTypePtr large_list(FieldPtr value_field);
DataTypePtr fixed_size_list(DataTypePtr value_type, int32_t list_size);
DataTypePtr fixed_size_list(FieldPtr value_field, int32_t list_size);
DataTypePtr struct_(std::vector<FieldPtr> fields);
/// \brief The null type: every slot is null, arrays carry no buffers.
DataTypePtr null();
/// \brief Maximum precision of decimal128 (38) and decimal256 (76).
inline constexpr int32_t kMaxDecimal128Precision = 38;
inline constexpr int32_t kMaxDecimal256Precision = 76;
/// \brief decimal128(precision, scale). REQUIRES: 1 <= precision <= 38 (checked by
/// importers and Array::Validate, not here).
DataTypePtr decimal128(int32_t precision, int32_t scale);
/// \brief decimal256(precision, scale). REQUIRES: 1 <= precision <= 76.
DataTypePtr decimal256(int32_t precision, int32_t scale);
/// \brief date64: milliseconds since the epoch.
DataTypePtr date64();
/// \brief time32[s|ms]. REQUIRES: unit is kSecond or kMilli.
DataTypePtr time32(TimeUnit unit);
/// \brief time64[us|ns]. REQUIRES: unit is kMicro or kNano.
DataTypePtr time64(TimeUnit unit);
DataTypePtr duration(TimeUnit unit);
/// \brief dictionary<values=value_type, indices=index_type, ordered>. REQUIRES:
/// index_type is an integer type (signed ones are recommended by Arrow).
DataTypePtr dictionary(DataTypePtr index_type, DataTypePtr value_type,
                       bool ordered = false);
/// \brief map<key_type, item_type> as Arrow builds it: list<entries: struct<key: K not
/// null, value: V> not null> with int32 offsets.
DataTypePtr map(DataTypePtr key_type, DataTypePtr item_type, bool keys_sorted = false);
/// \brief As above with explicit key and item fields (the key field is made
/// non-nullable).
DataTypePtr map(FieldPtr key_field, FieldPtr item_field, bool keys_sorted = false);
/// \brief A map over an existing entries field, keeping its names (for importers).
/// \return Invalid unless `entries` is a non-nullable struct of exactly two fields whose
/// first (the key) is non-nullable.
Result<DataTypePtr> MapFromEntries(FieldPtr entries, bool keys_sorted = false);
/// \brief Checks the parameters of a decimal, time or dictionary type that factories take
/// on trust (precision range, time unit, integer index type).
/// \return Invalid naming the problem.
Status ValidateTypeParameters(const DataType& type);

/// \brief A named, typed column slot. Immutable.
class Field {
 public:
  Field(std::string name, DataTypePtr type, bool nullable = true,
        KeyValueMetadata metadata = {});

  const std::string& name() const { return name_; }
  const DataTypePtr& type() const { return type_; }
  bool nullable() const { return nullable_; }
  const KeyValueMetadata& metadata() const { return metadata_; }

  FieldPtr WithName(std::string name) const;
  FieldPtr WithType(DataTypePtr type) const;
  FieldPtr WithNullable(bool nullable) const;
  FieldPtr WithMetadata(KeyValueMetadata metadata) const;

  bool Equals(const Field& other, bool check_metadata = false) const;
  /// \brief "name: type" plus " not null" when not nullable.
  std::string ToString() const;

 private:
  std::string name_;
  DataTypePtr type_;
  bool nullable_;
  KeyValueMetadata metadata_;
};

FieldPtr field(std::string name, DataTypePtr type, bool nullable = true,
               KeyValueMetadata metadata = {});

/// \brief An ordered list of fields plus schema-level metadata. Immutable.
class Schema {
 public:
  explicit Schema(std::vector<FieldPtr> fields, KeyValueMetadata metadata = {});

  const std::vector<FieldPtr>& fields() const { return fields_; }
  int num_fields() const { return static_cast<int>(fields_.size()); }
  const FieldPtr& field(int i) const { return fields_[i]; }
  const KeyValueMetadata& metadata() const { return metadata_; }

  /// \brief Index of the first field named `name`, or -1.
  int GetFieldIndex(const std::string& name) const;
  /// \brief The field named `name`, or nullptr.
  FieldPtr GetFieldByName(const std::string& name) const;
  /// \brief A schema with only the named fields, in the given order.
  /// \return Invalid naming the missing column if one does not exist.
  Result<SchemaPtr> Project(const std::vector<std::string>& names) const;

  SchemaPtr WithMetadata(KeyValueMetadata metadata) const;
  bool Equals(const Schema& other, bool check_metadata = false) const;
  /// \brief One field per line.
  std::string ToString() const;

 private:
  std::vector<FieldPtr> fields_;
  KeyValueMetadata metadata_;
};

SchemaPtr schema(std::vector<FieldPtr> fields, KeyValueMetadata metadata = {});

/// \brief "s", "ms", "us" or "ns".
const char* TimeUnitSuffix(TimeUnit unit);
/// \brief Ticks of `unit` per second: 1, 1e3, 1e6, 1e9.
int64_t TicksPerSecond(TimeUnit unit);

}  // namespace lance
