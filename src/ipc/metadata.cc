// SPDX-License-Identifier: Apache-2.0
// Schema <-> flatbuffers conversion and message framing.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ipc/ipc_internal.h"
#include "lance/macros.h"

namespace lance::ipc::internal {

namespace {

using flatbuffers::FlatBufferBuilder;
using flatbuffers::Offset;

// ---- Writing ------------------------------------------------------------------------

Offset<flatbuffers::Vector<Offset<fb::KeyValue>>> KeyValuesToFlatbuffer(
    FlatBufferBuilder* fbb, const KeyValueMetadata& metadata) {
  // An absent vector reads back as "no metadata", and saves a few bytes per field.
  if (metadata.empty()) return 0;
  std::vector<Offset<fb::KeyValue>> entries;
  entries.reserve(metadata.size());
  for (const auto& [key, value] : metadata) {
    entries.push_back(
        fb::CreateKeyValue(*fbb, fbb->CreateString(key), fbb->CreateString(value)));
  }
  return fbb->CreateVector(entries);
}

struct TypeOffset {
  fb::Type type;
  Offset<void> value;
};

TypeOffset IntType(FlatBufferBuilder* fbb, int bit_width, bool is_signed) {
  return {fb::Type::Int, fb::CreateInt(*fbb, bit_width, is_signed).Union()};
}

TypeOffset FloatType(FlatBufferBuilder* fbb, fb::Precision precision) {
  return {fb::Type::FloatingPoint, fb::CreateFloatingPoint(*fbb, precision).Union()};
}

fb::TimeUnit ToFlatbuffer(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond:
      return fb::TimeUnit::SECOND;
    case TimeUnit::kMilli:
      return fb::TimeUnit::MILLISECOND;
    case TimeUnit::kMicro:
      return fb::TimeUnit::MICROSECOND;
    case TimeUnit::kNano:
      return fb::TimeUnit::NANOSECOND;
  }
  return fb::TimeUnit::SECOND;
}

// The types without parameters: a flatbuffer table of their own, empty.
template <fb::Type kType, auto Create>
TypeOffset PlainType(FlatBufferBuilder* fbb) {
  return {kType, Create(*fbb).Union()};
}

struct PlainTypeMaker {
  TypeId id;
  TypeOffset (*make)(FlatBufferBuilder* fbb);
};
constexpr PlainTypeMaker kPlainTypes[] = {
    {TypeId::kBool, PlainType<fb::Type::Bool, fb::CreateBool>},
    {TypeId::kUtf8, PlainType<fb::Type::Utf8, fb::CreateUtf8>},
    {TypeId::kLargeUtf8, PlainType<fb::Type::LargeUtf8, fb::CreateLargeUtf8>},
    {TypeId::kBinary, PlainType<fb::Type::Binary, fb::CreateBinary>},
    {TypeId::kLargeBinary, PlainType<fb::Type::LargeBinary, fb::CreateLargeBinary>},
    {TypeId::kList, PlainType<fb::Type::List, fb::CreateList>},
    {TypeId::kLargeList, PlainType<fb::Type::LargeList, fb::CreateLargeList>},
    {TypeId::kStruct, PlainType<fb::Type::Struct_, fb::CreateStruct_>},
    {TypeId::kNull, PlainType<fb::Type::Null, fb::CreateNull>},
};

TypeOffset TypeToFlatbuffer(FlatBufferBuilder* fbb, const DataType& type) {
  if (type.is_integer()) return IntType(fbb, type.bit_width(), type.is_signed_integer());
  for (const PlainTypeMaker& plain : kPlainTypes) {
    if (plain.id == type.id()) return plain.make(fbb);
  }
  switch (type.id()) {
    case TypeId::kFloat16:
      return FloatType(fbb, fb::Precision::HALF);
    case TypeId::kFloat32:
      return FloatType(fbb, fb::Precision::SINGLE);
    case TypeId::kFloat64:
      return FloatType(fbb, fb::Precision::DOUBLE);
    case TypeId::kFixedSizeBinary:
      return {fb::Type::FixedSizeBinary,
              fb::CreateFixedSizeBinary(*fbb, type.fixed_size()).Union()};
    case TypeId::kDate32:
      return {fb::Type::Date, fb::CreateDate(*fbb, fb::DateUnit::DAY).Union()};
    case TypeId::kTimestamp: {
      // A naive timestamp has no timezone string at all (an empty one would mean UTC
      // to some readers).
      auto tz = type.timezone().empty() ? 0 : fbb->CreateString(type.timezone());
      return {fb::Type::Timestamp,
              fb::CreateTimestamp(*fbb, ToFlatbuffer(type.unit()), tz).Union()};
    }
    case TypeId::kFixedSizeList:
      return {fb::Type::FixedSizeList,
              fb::CreateFixedSizeList(*fbb, type.fixed_size()).Union()};
    case TypeId::kDecimal128:
    case TypeId::kDecimal256:
      return {fb::Type::Decimal,
              fb::CreateDecimal(*fbb, type.precision(), type.scale(), type.bit_width())
                  .Union()};
    case TypeId::kDate64:
      return {fb::Type::Date, fb::CreateDate(*fbb, fb::DateUnit::MILLISECOND).Union()};
    case TypeId::kTime32:
    case TypeId::kTime64:
      return {fb::Type::Time,
              fb::CreateTime(*fbb, ToFlatbuffer(type.unit()), type.bit_width()).Union()};
    case TypeId::kDuration:
      return {fb::Type::Duration,
              fb::CreateDuration(*fbb, ToFlatbuffer(type.unit())).Union()};
    case TypeId::kMap:
      return {fb::Type::Map, fb::CreateMap(*fbb, type.keys_sorted()).Union()};
    case TypeId::kDictionary:
      break;  // described by its value type (FieldToFlatbuffer)
    default:  // the integer and plain types, above
      break;
  }
  return {fb::Type::NONE, 0};
}

// `*next_ordinal` numbers the dictionary-encoded fields in pre-order; each gets its
// ordinal as dictionary id (see DictionaryLayout).
Result<Offset<fb::Field>> FieldToFlatbuffer(FlatBufferBuilder* fbb, const Field& field,
                                            int64_t* next_ordinal) {
  auto name = fbb->CreateString(field.name());
  const DataType* type = field.type().get();
  Offset<fb::DictionaryEncoding> dictionary = 0;
  if (type->id() == TypeId::kDictionary) {
    const DataType& index = *type->index_type();
    const DataType& values = *type->value_type();
    if (values.id() == TypeId::kDictionary) {
      return Status::NotImplemented("field '" + field.name() + "' (" + type->ToString() +
                                    "): Arrow IPC cannot describe a dictionary of "
                                    "dictionary-encoded values");
    }
    auto index_type = fb::CreateInt(*fbb, index.bit_width(), index.is_signed_integer());
    dictionary = fb::CreateDictionaryEncoding(*fbb, (*next_ordinal)++, index_type,
                                              type->ordered());
    type = &values;
  }
  const TypeOffset type_offset = TypeToFlatbuffer(fbb, *type);
  std::vector<Offset<fb::Field>> children;
  for (const FieldPtr& child : type->fields()) {
    LANCE_ASSIGN_OR_RAISE(auto offset, FieldToFlatbuffer(fbb, *child, next_ordinal));
    children.push_back(offset);
  }
  // Always present, even when empty: some Arrow versions reject a field without it.
  auto children_vector = fbb->CreateVector(children);
  auto metadata = KeyValuesToFlatbuffer(fbb, field.metadata());
  return fb::CreateField(*fbb, name, field.nullable(), type_offset.type,
                         type_offset.value, dictionary, children_vector, metadata);
}

// ---- Reading ------------------------------------------------------------------------

std::string StringOf(const flatbuffers::String* s) {
  return s ? s->str() : std::string();
}

KeyValueMetadata KeyValuesFromFlatbuffer(
    const flatbuffers::Vector<Offset<fb::KeyValue>>* entries) {
  KeyValueMetadata metadata;
  if (entries == nullptr) return metadata;
  metadata.reserve(entries->size());
  for (const fb::KeyValue* entry : *entries) {
    metadata.emplace_back(StringOf(entry->key()), StringOf(entry->value()));
  }
  return metadata;
}

std::string TypeName(fb::Type type) {
  const char* name = fb::EnumNameType(type);
  if (name != nullptr && name[0] != '\0') return name;
  return "#" + std::to_string(static_cast<int>(type));
}

Status FieldError(const std::string& name, const std::string& what) {
  return Status::Corrupt("field '" + name + "': " + what);
}

Result<DataTypePtr> IntFromFlatbuffer(const fb::Int* type, const std::string& name) {
  if (type == nullptr) return FieldError(name, "Int type without its table");
  if (DataTypePtr t = integer_type(type->bit_width(), type->is_signed())) return t;
  return FieldError(name, "Int type with bit width " + std::to_string(type->bit_width()));
}

// What the flatbuffer enum value `value` (0, 1, ...) stands for: table[value]; another
// value is a FieldError "<what> <value>".
template <typename Enum, typename T, size_t N>
Result<T> FromEnum(Enum value, const T (&table)[N], const std::string& name,
                   const std::string& what) {
  const auto i = static_cast<size_t>(value);
  if (i < N) return table[i];
  return FieldError(name, what + " " + std::to_string(static_cast<int>(value)));
}

Result<DataTypePtr> FloatFromFlatbuffer(const fb::FloatingPoint* type,
                                        const std::string& name) {
  if (type == nullptr) return FieldError(name, "FloatingPoint type without its table");
  // HALF, SINGLE, DOUBLE.
  const DataTypePtr floats[] = {float16(), float32(), float64()};
  return FromEnum(type->precision(), floats, name, "FloatingPoint type with precision");
}

Result<TimeUnit> UnitFromFlatbuffer(fb::TimeUnit unit, const char* what,
                                    const std::string& name) {
  // SECOND .. NANOSECOND.
  static constexpr TimeUnit kUnits[] = {TimeUnit::kSecond, TimeUnit::kMilli,
                                        TimeUnit::kMicro, TimeUnit::kNano};
  return FromEnum(unit, kUnits, name, std::string(what) + " type with unit");
}

Result<DataTypePtr> TimestampFromFlatbuffer(const fb::Timestamp* type,
                                            const std::string& name) {
  if (type == nullptr) return FieldError(name, "Timestamp type without its table");
  LANCE_ASSIGN_OR_RAISE(TimeUnit unit,
                        UnitFromFlatbuffer(type->unit(), "Timestamp", name));
  return timestamp(unit, StringOf(type->timezone()));
}

Result<DataTypePtr> DecimalFromFlatbuffer(const fb::Decimal* type,
                                          const std::string& name) {
  if (type == nullptr) return FieldError(name, "Decimal type without its table");
  DataTypePtr out;
  switch (type->bit_width()) {
    case 128:
      out = decimal128(type->precision(), type->scale());
      break;
    case 256:
      out = decimal256(type->precision(), type->scale());
      break;
    case 32:
    case 64:
      return Status::NotImplemented("field '" + name + "': Arrow decimal" +
                                    std::to_string(type->bit_width()) +
                                    " is not supported");
    default:
      return FieldError(
          name, "Decimal type with bit width " + std::to_string(type->bit_width()));
  }
  Status st = ValidateTypeParameters(*out);
  if (!st.ok()) return FieldError(name, st.message());
  return out;
}

Result<DataTypePtr> TimeFromFlatbuffer(const fb::Time* type, const std::string& name) {
  if (type == nullptr) return FieldError(name, "Time type without its table");
  LANCE_ASSIGN_OR_RAISE(TimeUnit unit, UnitFromFlatbuffer(type->unit(), "Time", name));
  const bool short_unit = unit == TimeUnit::kSecond || unit == TimeUnit::kMilli;
  // The bit width is implied by the unit; a disagreeing one means a broken writer.
  if (type->bit_width() != (short_unit ? 32 : 64)) {
    return FieldError(name, "Time type with unit " + std::string(TimeUnitSuffix(unit)) +
                                " and bit width " + std::to_string(type->bit_width()));
  }
  return short_unit ? time32(unit) : time64(unit);
}

Result<DataTypePtr> TypeFromFlatbuffer(const fb::Field& field, const std::string& name,
                                       std::vector<FieldPtr> children) {
  const fb::Type type = field.type_type();
  auto one_child = [&]() -> Status {
    if (children.size() != 1) {
      return FieldError(name, TypeName(type) + " type with " +
                                  std::to_string(children.size()) +
                                  " children instead of 1");
    }
    return Status::OK();
  };
  switch (type) {
    case fb::Type::Int:
      return IntFromFlatbuffer(field.type_as_Int(), name);
    case fb::Type::FloatingPoint:
      return FloatFromFlatbuffer(field.type_as_FloatingPoint(), name);
    case fb::Type::Bool:
      return boolean();
    case fb::Type::Utf8:
      return utf8();
    case fb::Type::LargeUtf8:
      return large_utf8();
    case fb::Type::Binary:
      return binary();
    case fb::Type::LargeBinary:
      return large_binary();
    case fb::Type::FixedSizeBinary: {
      const fb::FixedSizeBinary* fsb = field.type_as_FixedSizeBinary();
      if (fsb == nullptr || fsb->byte_width() < 0) {
        return FieldError(name, "FixedSizeBinary type without a valid byte width");
      }
      return fixed_size_binary(fsb->byte_width());
    }
    case fb::Type::Date: {
      const fb::Date* date = field.type_as_Date();
      if (date == nullptr) return FieldError(name, "Date type without its table");
      // DAY, MILLISECOND.
      const DataTypePtr dates[] = {date32(), date64()};
      return FromEnum(date->unit(), dates, name, "Date type with unit");
    }
    case fb::Type::Timestamp:
      return TimestampFromFlatbuffer(field.type_as_Timestamp(), name);
    case fb::Type::Null:
      return null();
    case fb::Type::Decimal:
      return DecimalFromFlatbuffer(field.type_as_Decimal(), name);
    case fb::Type::Time:
      return TimeFromFlatbuffer(field.type_as_Time(), name);
    case fb::Type::Duration: {
      const fb::Duration* d = field.type_as_Duration();
      if (d == nullptr) return FieldError(name, "Duration type without its table");
      LANCE_ASSIGN_OR_RAISE(TimeUnit unit,
                            UnitFromFlatbuffer(d->unit(), "Duration", name));
      return duration(unit);
    }
    case fb::Type::Map: {
      LANCE_RETURN_NOT_OK(one_child());
      const fb::Map* m = field.type_as_Map();
      if (m == nullptr) return FieldError(name, "Map type without its table");
      auto type = MapFromEntries(std::move(children[0]), m->keys_sorted());
      if (!type.ok()) return FieldError(name, type.status().message());
      return type;
    }
    case fb::Type::List:
      LANCE_RETURN_NOT_OK(one_child());
      return list(std::move(children[0]));
    case fb::Type::LargeList:
      LANCE_RETURN_NOT_OK(one_child());
      return large_list(std::move(children[0]));
    case fb::Type::FixedSizeList: {
      LANCE_RETURN_NOT_OK(one_child());
      const fb::FixedSizeList* fsl = field.type_as_FixedSizeList();
      if (fsl == nullptr || fsl->list_size() < 0) {
        return FieldError(name, "FixedSizeList type without a valid list size");
      }
      return fixed_size_list(std::move(children[0]), fsl->list_size());
    }
    case fb::Type::Struct_:
      return struct_(std::move(children));
    case fb::Type::NONE:
      return FieldError(name, "no type");
    default:
      return Status::NotImplemented("field '" + name + "': Arrow type " + TypeName(type) +
                                    " is not supported");
  }
}

// Decodes `field`, numbering its dictionary-encoded fields in pre-order into `layout`.
Result<FieldPtr> FieldFromFlatbuffer(const fb::Field* field, int depth,
                                     DictionaryLayout* layout) {
  if (field == nullptr) return Status::Corrupt("schema holds a null field");
  std::string name = StringOf(field->name());
  if (depth > kMaxNestingDepth) {
    return FieldError(
        name, "types nest deeper than " + std::to_string(kMaxNestingDepth) + " levels");
  }
  const fb::DictionaryEncoding* encoding = field->dictionary();
  int64_t ordinal = -1;
  if (encoding != nullptr) {
    // The ordinal is taken before the children are visited: pre-order.
    ordinal = static_cast<int64_t>(layout->ids.size());
    layout->ids.push_back(encoding->id());
  }
  std::vector<FieldPtr> children;
  if (const auto* fb_children = field->children()) {
    children.reserve(fb_children->size());
    for (const fb::Field* child : *fb_children) {
      LANCE_ASSIGN_OR_RAISE(FieldPtr decoded,
                            FieldFromFlatbuffer(child, depth + 1, layout));
      children.push_back(std::move(decoded));
    }
  }
  LANCE_ASSIGN_OR_RAISE(DataTypePtr type,
                        TypeFromFlatbuffer(*field, name, std::move(children)));
  if (encoding != nullptr) {
    // Absent index type: signed int32, as the specification says.
    DataTypePtr index_type = int32();
    if (const fb::Int* index = encoding->index_type()) {
      LANCE_ASSIGN_OR_RAISE(index_type, IntFromFlatbuffer(index, name));
    }
    const DataTypePtr value_type = type;
    auto [it, inserted] = layout->by_id.try_emplace(
        encoding->id(), DictionaryLayout::Entry{value_type, ordinal});
    if (!inserted && !it->second.value_type->Equals(*value_type)) {
      return FieldError(name, "dictionary id " + std::to_string(encoding->id()) +
                                  " is used for values of type " +
                                  value_type->ToString() + " and of type " +
                                  it->second.value_type->ToString());
    }
    type = dictionary(std::move(index_type), value_type, encoding->is_ordered());
  }
  return lance::field(std::move(name), std::move(type), field->nullable(),
                      KeyValuesFromFlatbuffer(field->custom_metadata()));
}

Status CheckVersion(fb::MetadataVersion version, const char* what) {
  if (version < fb::MetadataVersion::V4) {
    return Status::NotImplemented(std::string(what) + " uses Arrow metadata version V" +
                                  std::to_string(static_cast<int>(version) + 1) +
                                  "; only V4 and V5 are supported");
  }
  // Newer versions are unknown; reading them as V5 could silently misread data.
  if (version > fb::MetadataVersion::V5) {
    return Status::NotImplemented(std::string(what) + " uses unknown metadata version " +
                                  std::to_string(static_cast<int>(version) + 1));
  }
  return Status::OK();
}

}  // namespace

int64_t CountDictionaryFields(const DataType& type) {
  int64_t count = 0;
  const DataType* t = &type;
  if (t->id() == TypeId::kDictionary) {
    count = 1;
    t = t->value_type().get();
    if (t == nullptr) return count;
  }
  for (const FieldPtr& child : t->fields()) {
    if (child && child->type()) count += CountDictionaryFields(*child->type());
  }
  return count;
}

Result<flatbuffers::Offset<fb::Schema>> SchemaToFlatbuffer(FlatBufferBuilder* fbb,
                                                           const Schema& schema) {
  std::vector<Offset<fb::Field>> fields;
  fields.reserve(schema.fields().size());
  int64_t next_ordinal = 0;
  for (const FieldPtr& field : schema.fields()) {
    LANCE_ASSIGN_OR_RAISE(auto offset, FieldToFlatbuffer(fbb, *field, &next_ordinal));
    fields.push_back(offset);
  }
  auto fields_vector = fbb->CreateVector(fields);
  auto metadata = KeyValuesToFlatbuffer(fbb, schema.metadata());
  return fb::CreateSchema(*fbb, fb::Endianness::Little, fields_vector, metadata);
}

Result<DecodedSchema> SchemaFromFlatbuffer(const fb::Schema* schema) {
  if (schema == nullptr) return Status::Corrupt("missing schema");
  if (schema->endianness() != fb::Endianness::Little) {
    return Status::NotImplemented("big-endian Arrow IPC data is not supported");
  }
  DecodedSchema out;
  std::vector<FieldPtr> fields;
  if (const auto* fb_fields = schema->fields()) {
    fields.reserve(fb_fields->size());
    for (const fb::Field* field : *fb_fields) {
      LANCE_ASSIGN_OR_RAISE(FieldPtr decoded,
                            FieldFromFlatbuffer(field, 0, &out.dictionaries));
      fields.push_back(std::move(decoded));
    }
  }
  out.schema = lance::schema(std::move(fields),
                             KeyValuesFromFlatbuffer(schema->custom_metadata()));
  return out;
}

Result<BufferPtr> EnsureAligned(BufferPtr buffer) {
  if (reinterpret_cast<uintptr_t>(buffer->data()) % kIpcAlignment == 0) return buffer;
  return Buffer::CopyFrom(buffer->data(), buffer->size());
}

const char* MessageHeaderName(fb::MessageHeader header) {
  const char* name = fb::EnumNameMessageHeader(header);
  return name != nullptr && name[0] != '\0' ? name : "unknown";
}

Result<MessageView> ReadMessageAt(const BufferPtr& bytes, int64_t offset, int64_t limit) {
  const std::string where = "message at offset " + std::to_string(offset);
  if (offset < 0 || limit > bytes->size() || offset > limit) {
    return Status::Corrupt(where + " lies outside the " + std::to_string(limit) +
                           " bytes holding messages");
  }
  const int64_t available = limit - offset;
  const uint8_t* p = bytes->data() + offset;
  if (available < 4) {
    return Status::Corrupt(where + " is truncated: " + std::to_string(available) +
                           " bytes left, its length prefix needs 4");
  }
  int64_t prefix = 4;
  int32_t metadata_length = LoadLE<int32_t>(p);
  if (LoadLE<uint32_t>(p) == kContinuationMarker) {
    if (available < 8) {
      return Status::Corrupt(where + " is truncated inside its 8-byte prefix");
    }
    prefix = 8;
    metadata_length = LoadLE<int32_t>(p + 4);
  }
  MessageView view;
  if (metadata_length == 0) {
    view.end_of_stream = true;
    view.end_offset = offset + prefix;
    return view;
  }
  if (metadata_length < 0 || metadata_length > available - prefix) {
    return Status::Corrupt(where + " declares " + std::to_string(metadata_length) +
                           " metadata bytes but " + std::to_string(available - prefix) +
                           " remain");
  }
  LANCE_ASSIGN_OR_RAISE(view.metadata, EnsureAligned(Buffer::Slice(bytes, offset + prefix,
                                                                   metadata_length)));
  flatbuffers::Verifier verifier(view.metadata->data(),
                                 static_cast<size_t>(view.metadata->size()));
  if (!fb::VerifyMessageBuffer(verifier)) {
    return Status::Corrupt(where + ": metadata is not a valid flatbuffer Message");
  }
  view.message = fb::GetMessage(view.metadata->data());
  LANCE_RETURN_NOT_OK(CheckVersion(view.message->version(), where.c_str()));
  const int64_t body_start = offset + prefix + metadata_length;
  const int64_t body_length = view.message->body_length();
  if (body_length < 0 || body_length > limit - body_start) {
    return Status::Corrupt(where + " declares a body of " + std::to_string(body_length) +
                           " bytes but " + std::to_string(limit - body_start) +
                           " remain");
  }
  view.body = Buffer::Slice(bytes, body_start, body_length);
  view.end_offset = body_start + body_length;
  return view;
}

Result<const fb::Footer*> VerifyFooter(BufferPtr* footer) {
  LANCE_ASSIGN_OR_RAISE(*footer, EnsureAligned(std::move(*footer)));
  flatbuffers::Verifier verifier((*footer)->data(),
                                 static_cast<size_t>((*footer)->size()));
  if (!verifier.VerifyBuffer<fb::Footer>(nullptr)) {
    return Status::Corrupt("file footer is not a valid flatbuffer Footer");
  }
  const fb::Footer* decoded = flatbuffers::GetRoot<fb::Footer>((*footer)->data());
  LANCE_RETURN_NOT_OK(CheckVersion(decoded->version(), "file footer"));
  return decoded;
}

}  // namespace lance::ipc::internal
