// SPDX-License-Identifier: Apache-2.0
/// \file type.h
/// \brief Logical data types, fields and schemas with Arrow's semantics.
///
/// Types are immutable and shared (`DataTypePtr`); build them with the factory functions
/// below (`int64()`, `list(utf8())`, `struct_({field("x", int32())})`, ...). Every type maps
/// one-to-one onto an Arrow type so that the C Data Interface (c_data.h) is lossless.

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

  /// \brief Bits per value for fixed-width types (1 for bool, 8*N for fixed_size_binary);
  /// -1 for variable-width and nested types.
  int bit_width() const;
  /// \brief Bytes per value for byte-aligned fixed-width types; -1 otherwise (incl. bool).
  int byte_width() const;
  /// \brief N of fixed_size_binary[N] or fixed_size_list<T, N>; 0 otherwise.
  int32_t fixed_size() const { return fixed_size_; }
  TimeUnit unit() const { return unit_; }
  /// \brief Timezone of a timestamp; empty means naive (no zone).
  const std::string& timezone() const { return timezone_; }
  /// \brief Child fields: one for list types, one per member for struct; empty otherwise.
  const std::vector<FieldPtr>& fields() const { return children_; }
  int num_fields() const { return static_cast<int>(children_.size()); }
  /// \brief The item type of a list/large_list/fixed_size_list. REQUIRES: is_list_like().
  const DataTypePtr& value_type() const;

  bool is_integer() const;
  bool is_floating() const;
  bool is_primitive() const;    ///< bool, ints, floats, date32, timestamp
  bool is_binary_like() const;  ///< utf8, large_utf8, binary, large_binary
  bool is_list_like() const;    ///< list, large_list, fixed_size_list
  bool is_nested() const;       ///< list-like or struct

  /// \brief Structural equality; with check_metadata also compares child field metadata.
  bool Equals(const DataType& other, bool check_metadata = false) const;
  /// \brief Arrow-style spelling: "int64", "list<item: utf8>", "timestamp[us, tz=UTC]".
  std::string ToString() const;

  // Prefer the factory functions; public for std::make_shared.
  DataType(TypeId id, int32_t fixed_size, TimeUnit unit, std::string timezone,
           std::vector<FieldPtr> children);

 private:
  TypeId id_;
  int32_t fixed_size_ = 0;
  TimeUnit unit_ = TimeUnit::kSecond;
  std::string timezone_;
  std::vector<FieldPtr> children_;
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

}  // namespace lance
