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

TypeOffset TypeToFlatbuffer(FlatBufferBuilder* fbb, const DataType& type) {
  switch (type.id()) {
    case TypeId::kBool:
      return {fb::Type::Bool, fb::CreateBool(*fbb).Union()};
    case TypeId::kInt8:
      return IntType(fbb, 8, true);
    case TypeId::kInt16:
      return IntType(fbb, 16, true);
    case TypeId::kInt32:
      return IntType(fbb, 32, true);
    case TypeId::kInt64:
      return IntType(fbb, 64, true);
    case TypeId::kUInt8:
      return IntType(fbb, 8, false);
    case TypeId::kUInt16:
      return IntType(fbb, 16, false);
    case TypeId::kUInt32:
      return IntType(fbb, 32, false);
    case TypeId::kUInt64:
      return IntType(fbb, 64, false);
    case TypeId::kFloat16:
      return FloatType(fbb, fb::Precision::HALF);
    case TypeId::kFloat32:
      return FloatType(fbb, fb::Precision::SINGLE);
    case TypeId::kFloat64:
      return FloatType(fbb, fb::Precision::DOUBLE);
    case TypeId::kUtf8:
      return {fb::Type::Utf8, fb::CreateUtf8(*fbb).Union()};
    case TypeId::kLargeUtf8:
      return {fb::Type::LargeUtf8, fb::CreateLargeUtf8(*fbb).Union()};
    case TypeId::kBinary:
      return {fb::Type::Binary, fb::CreateBinary(*fbb).Union()};
    case TypeId::kLargeBinary:
      return {fb::Type::LargeBinary, fb::CreateLargeBinary(*fbb).Union()};
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
    case TypeId::kList:
      return {fb::Type::List, fb::CreateList(*fbb).Union()};
    case TypeId::kLargeList:
      return {fb::Type::LargeList, fb::CreateLargeList(*fbb).Union()};
    case TypeId::kFixedSizeList:
      return {fb::Type::FixedSizeList,
              fb::CreateFixedSizeList(*fbb, type.fixed_size()).Union()};
    case TypeId::kStruct:
      return {fb::Type::Struct_, fb::CreateStruct_(*fbb).Union()};
  }
  return {fb::Type::NONE, 0};
}

Offset<fb::Field> FieldToFlatbuffer(FlatBufferBuilder* fbb, const Field& field) {
  auto name = fbb->CreateString(field.name());
  const TypeOffset type = TypeToFlatbuffer(fbb, *field.type());
  std::vector<Offset<fb::Field>> children;
  for (const FieldPtr& child : field.type()->fields()) {
    children.push_back(FieldToFlatbuffer(fbb, *child));
  }
  // Always present, even when empty: some Arrow versions reject a field without it.
  auto children_vector = fbb->CreateVector(children);
  auto metadata = KeyValuesToFlatbuffer(fbb, field.metadata());
  return fb::CreateField(*fbb, name, field.nullable(), type.type, type.value,
                         /*dictionary=*/0, children_vector, metadata);
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
  const bool is_signed = type->is_signed();
  switch (type->bit_width()) {
    case 8:
      return is_signed ? int8() : uint8();
    case 16:
      return is_signed ? int16() : uint16();
    case 32:
      return is_signed ? int32() : uint32();
    case 64:
      return is_signed ? int64() : uint64();
    default:
      return FieldError(name,
                        "Int type with bit width " + std::to_string(type->bit_width()));
  }
}

Result<DataTypePtr> FloatFromFlatbuffer(const fb::FloatingPoint* type,
                                        const std::string& name) {
  if (type == nullptr) return FieldError(name, "FloatingPoint type without its table");
  switch (type->precision()) {
    case fb::Precision::HALF:
      return float16();
    case fb::Precision::SINGLE:
      return float32();
    case fb::Precision::DOUBLE:
      return float64();
  }
  return FieldError(name, "FloatingPoint type with precision " +
                              std::to_string(static_cast<int>(type->precision())));
}

Result<DataTypePtr> TimestampFromFlatbuffer(const fb::Timestamp* type,
                                            const std::string& name) {
  if (type == nullptr) return FieldError(name, "Timestamp type without its table");
  TimeUnit unit;
  switch (type->unit()) {
    case fb::TimeUnit::SECOND:
      unit = TimeUnit::kSecond;
      break;
    case fb::TimeUnit::MILLISECOND:
      unit = TimeUnit::kMilli;
      break;
    case fb::TimeUnit::MICROSECOND:
      unit = TimeUnit::kMicro;
      break;
    case fb::TimeUnit::NANOSECOND:
      unit = TimeUnit::kNano;
      break;
    default:
      return FieldError(name, "Timestamp type with unit " +
                                  std::to_string(static_cast<int>(type->unit())));
  }
  return timestamp(unit, StringOf(type->timezone()));
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
      if (date->unit() != fb::DateUnit::DAY) {
        return Status::NotImplemented("field '" + name +
                                      "': Arrow date64 (milliseconds) is not supported");
      }
      return date32();
    }
    case fb::Type::Timestamp:
      return TimestampFromFlatbuffer(field.type_as_Timestamp(), name);
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

Result<FieldPtr> FieldFromFlatbuffer(const fb::Field* field, int depth) {
  if (field == nullptr) return Status::Corrupt("schema holds a null field");
  std::string name = StringOf(field->name());
  if (depth > kMaxNestingDepth) {
    return FieldError(
        name, "types nest deeper than " + std::to_string(kMaxNestingDepth) + " levels");
  }
  if (field->dictionary() != nullptr) {
    return Status::NotImplemented("field '" + name +
                                  "' is dictionary-encoded; not supported");
  }
  std::vector<FieldPtr> children;
  if (const auto* fb_children = field->children()) {
    children.reserve(fb_children->size());
    for (const fb::Field* child : *fb_children) {
      LANCE_ASSIGN_OR_RAISE(FieldPtr decoded, FieldFromFlatbuffer(child, depth + 1));
      children.push_back(std::move(decoded));
    }
  }
  LANCE_ASSIGN_OR_RAISE(DataTypePtr type,
                        TypeFromFlatbuffer(*field, name, std::move(children)));
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

flatbuffers::Offset<fb::Schema> SchemaToFlatbuffer(FlatBufferBuilder* fbb,
                                                   const Schema& schema) {
  std::vector<Offset<fb::Field>> fields;
  fields.reserve(schema.fields().size());
  for (const FieldPtr& field : schema.fields()) {
    fields.push_back(FieldToFlatbuffer(fbb, *field));
  }
  auto fields_vector = fbb->CreateVector(fields);
  auto metadata = KeyValuesToFlatbuffer(fbb, schema.metadata());
  return fb::CreateSchema(*fbb, fb::Endianness::Little, fields_vector, metadata);
}

Result<SchemaPtr> SchemaFromFlatbuffer(const fb::Schema* schema) {
  if (schema == nullptr) return Status::Corrupt("missing schema");
  if (schema->endianness() != fb::Endianness::Little) {
    return Status::NotImplemented("big-endian Arrow IPC data is not supported");
  }
  std::vector<FieldPtr> fields;
  if (const auto* fb_fields = schema->fields()) {
    fields.reserve(fb_fields->size());
    for (const fb::Field* field : *fb_fields) {
      LANCE_ASSIGN_OR_RAISE(FieldPtr decoded, FieldFromFlatbuffer(field, 0));
      fields.push_back(std::move(decoded));
    }
  }
  return lance::schema(std::move(fields),
                       KeyValuesFromFlatbuffer(schema->custom_metadata()));
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
  int32_t metadata_length = LoadUnaligned<int32_t>(p);
  if (LoadUnaligned<uint32_t>(p) == kContinuationMarker) {
    if (available < 8) {
      return Status::Corrupt(where + " is truncated inside its 8-byte prefix");
    }
    prefix = 8;
    metadata_length = LoadUnaligned<int32_t>(p + 4);
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
