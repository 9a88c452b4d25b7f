// SPDX-License-Identifier: Apache-2.0
// Arrow C Data Interface and C Stream Interface: the import half (see c_data.cc for the
// design notes and the layout helpers shared with export).

#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "core/c_data_internal.h"
#include "lance/core/array_data.h"
#include "lance/core/buffer.h"
#include "lance/core/c_data.h"
#include "lance/core/text.h"
#include "lance/macros.h"

namespace lance {

namespace {

// ------------------------------------------------------------------------------------
// Schema import
// ------------------------------------------------------------------------------------

// Calls the producer's release once, whatever path the import takes.
class SchemaReleaser {
 public:
  explicit SchemaReleaser(ArrowSchema* schema) : schema_(schema) {}
  ~SchemaReleaser() {
    if (schema_ != nullptr && schema_->release != nullptr) {
      schema_->release(schema_);
      // The spec requires the producer to do this; doing it again guards against a
      // producer that forgets, so the struct reads as released to our caller.
      schema_->release = nullptr;
    }
  }
  SchemaReleaser(const SchemaReleaser&) = delete;
  SchemaReleaser& operator=(const SchemaReleaser&) = delete;

 private:
  ArrowSchema* schema_;
};

Status SchemaError(const Status& st, const std::string& path) {
  return st.WithContext("importing ArrowSchema" + path);
}

Result<KeyValueMetadata> DecodeMetadata(const char* bytes, const std::string& path) {
  KeyValueMetadata out;
  if (bytes == nullptr) return out;
  auto read_int32 = [&bytes]() {
    int32_t v;
    std::memcpy(&v, bytes, sizeof(v));
    bytes += sizeof(v);
    return v;
  };
  const int32_t n = read_int32();
  if (n < 0) {
    return SchemaError(
        Status::Invalid("metadata has a negative entry count " + std::to_string(n)),
        path);
  }
  out.reserve(static_cast<size_t>(n));
  for (int32_t i = 0; i < n; ++i) {
    const int32_t key_len = read_int32();
    if (key_len < 0) {
      return SchemaError(
          Status::Invalid("metadata key " + std::to_string(i) + " has a negative length"),
          path);
    }
    std::string key(bytes, static_cast<size_t>(key_len));
    bytes += key_len;
    const int32_t value_len = read_int32();
    if (value_len < 0) {
      return SchemaError(
          Status::Invalid("metadata value of '" + key + "' has a negative length"), path);
    }
    std::string value(bytes, static_cast<size_t>(value_len));
    bytes += value_len;
    out.emplace_back(std::move(key), std::move(value));
  }
  return out;
}

// Parses the N of "w:N" / "+w:N": decimal digits only, fitting int32.
bool ParseSize(std::string_view digits, int32_t* out) {
  // ParseDecimalInteger alone would take a sign.
  if (digits.empty() || digits.size() > 10 || digits[0] == '-') return false;
  const std::optional<int32_t> v = ParseDecimalInteger<int32_t>(digits);
  if (!v) return false;
  *out = *v;
  return true;
}

Result<FieldPtr> ImportFieldNode(const ArrowSchema* schema, const std::string& path);

Result<DataTypePtr> ImportTypeNode(const ArrowSchema* schema, const std::string& path);

// The node being imported, with the pieces of its error messages.
struct TypeNode {
  const ArrowSchema* schema;
  const std::string& path;
  std::string_view format;
  std::string quoted;  // the format in quotes, for messages

  Status ExpectChildren(int64_t n) const {
    if (schema->n_children == n) return Status::OK();
    return SchemaError(
        Status::Invalid("format " + quoted + " takes " + std::to_string(n) +
                        " children, got " + std::to_string(schema->n_children)),
        path);
  }

  Result<std::vector<FieldPtr>> ImportChildren() const {
    std::vector<FieldPtr> fields;
    fields.reserve(static_cast<size_t>(schema->n_children));
    for (int64_t i = 0; i < schema->n_children; ++i) {
      const ArrowSchema* child = schema->children[i];
      if (child == nullptr) {
        return SchemaError(Status::Invalid("child " + std::to_string(i) + " is NULL"),
                           path);
      }
      const char* name = child->name != nullptr ? child->name : "";
      LANCE_ASSIGN_OR_RAISE(FieldPtr f,
                            ImportFieldNode(child, cdata::ChildPath(path, i, name)));
      fields.push_back(std::move(f));
    }
    return fields;
  }

  Status Unsupported() const {
    return SchemaError(Status::NotImplemented("unsupported format " + quoted), path);
  }

  Status Malformed(const std::string& what, const std::string& expected) const {
    return SchemaError(Status::Invalid("malformed " + what + " format " + quoted +
                                       " (expected " + expected + ")"),
                       path);
  }
};

bool TimeUnitOf(char c, TimeUnit* unit) {
  switch (c) {
    case 's':
      *unit = TimeUnit::kSecond;
      return true;
    case 'm':
      *unit = TimeUnit::kMilli;
      return true;
    case 'u':
      *unit = TimeUnit::kMicro;
      return true;
    case 'n':
      *unit = TimeUnit::kNano;
      return true;
    default:
      return false;
  }
}

Result<DataTypePtr> ImportDictionaryType(const TypeNode& node) {
  const ArrowSchema* schema = node.schema;
  // The format describes the indices; the dictionary schema the values.
  ArrowSchema index_only = *schema;
  index_only.dictionary = nullptr;
  LANCE_ASSIGN_OR_RAISE(DataTypePtr index_type, ImportTypeNode(&index_only, node.path));
  if (!index_type->is_integer()) {
    return SchemaError(Status::Invalid("dictionary indices must be an integer type, "
                                       "got format " +
                                       node.quoted),
                       node.path);
  }
  if (schema->dictionary->release == nullptr) {
    return SchemaError(Status::Invalid("the dictionary schema has been released"),
                       node.path);
  }
  LANCE_ASSIGN_OR_RAISE(DataTypePtr value_type,
                        ImportTypeNode(schema->dictionary, node.path + " dictionary"));
  return dictionary(std::move(index_type), std::move(value_type),
                    (schema->flags & ARROW_FLAG_DICTIONARY_ORDERED) != 0);
}

// "d:P,S" or "d:P,S,W" with W the bit width (128 when absent).
Result<DataTypePtr> ImportDecimalType(const TypeNode& node) {
  std::string_view rest = node.format.substr(2);
  const size_t comma = rest.find(',');
  int32_t precision = 0;
  int32_t scale = 0;
  int32_t width = 128;
  bool ok =
      comma != std::string_view::npos && ParseSize(rest.substr(0, comma), &precision);
  if (ok) {
    std::string_view after = rest.substr(comma + 1);
    const size_t comma2 = after.find(',');
    std::string_view scale_text = after.substr(0, comma2);
    const bool negative = !scale_text.empty() && scale_text[0] == '-';
    ok = ParseSize(negative ? scale_text.substr(1) : scale_text, &scale);
    if (negative) scale = -scale;
    if (ok && comma2 != std::string_view::npos) {
      ok = ParseSize(after.substr(comma2 + 1), &width);
    }
  }
  if (!ok) return node.Malformed("decimal", "'d:precision,scale[,bitwidth]'");
  if (width != 128 && width != 256) {
    return SchemaError(
        Status::NotImplemented("decimal bit width " + std::to_string(width) + " in " +
                               node.quoted + " is not supported (only 128 and 256)"),
        node.path);
  }
  LANCE_RETURN_NOT_OK(node.ExpectChildren(0));
  DataTypePtr type =
      width == 128 ? decimal128(precision, scale) : decimal256(precision, scale);
  Status st = ValidateTypeParameters(*type);
  if (!st.ok()) {
    return SchemaError(
        Status::Invalid("decimal format " + node.quoted + ": " + st.message()),
        node.path);
  }
  return type;
}

// Dates, times, durations and timestamps ("td*", "tt*", "tD*", "ts*"); NULL when the
// format is none of them.
Result<DataTypePtr> ImportTemporalType(const TypeNode& node) {
  const std::string_view format = node.format;
  if (format == "tdD" || format == "tdm") {
    LANCE_RETURN_NOT_OK(node.ExpectChildren(0));
    return format == "tdD" ? date32() : date64();
  }
  if (format.size() == 3 &&
      (format.substr(0, 2) == "tt" || format.substr(0, 2) == "tD")) {
    TimeUnit unit;
    if (!TimeUnitOf(format[2], &unit)) return node.Unsupported();
    LANCE_RETURN_NOT_OK(node.ExpectChildren(0));
    if (format[1] == 'D') return duration(unit);
    // time32 carries seconds or milliseconds, time64 micro- or nanoseconds.
    return unit == TimeUnit::kSecond || unit == TimeUnit::kMilli ? time32(unit)
                                                                 : time64(unit);
  }
  if (format.size() >= 3 && format.substr(0, 2) == "ts") {
    TimeUnit unit;
    if (!TimeUnitOf(format[2], &unit)) return node.Unsupported();
    if (format.size() < 4 || format[3] != ':') {
      return node.Malformed("timestamp",
                            "'ts" + std::string(1, format[2]) + ":[timezone]'");
    }
    LANCE_RETURN_NOT_OK(node.ExpectChildren(0));
    return timestamp(unit, std::string(format.substr(4)));
  }
  return DataTypePtr();
}

// Lists, structs and maps ("+..."); NULL when the format is none of them.
Result<DataTypePtr> ImportNestedType(const TypeNode& node) {
  const std::string_view format = node.format;
  if (format == "+l" || format == "+L") {
    LANCE_RETURN_NOT_OK(node.ExpectChildren(1));
    LANCE_ASSIGN_OR_RAISE(auto fields, node.ImportChildren());
    return format == "+l" ? list(fields[0]) : large_list(fields[0]);
  }
  if (format.substr(0, 3) == "+w:") {
    int32_t size = 0;
    if (!ParseSize(format.substr(3), &size)) {
      return node.Malformed("fixed-size list", "'+w:<list size>'");
    }
    LANCE_RETURN_NOT_OK(node.ExpectChildren(1));
    LANCE_ASSIGN_OR_RAISE(auto fields, node.ImportChildren());
    return fixed_size_list(fields[0], size);
  }
  if (format == "+s") {
    LANCE_ASSIGN_OR_RAISE(auto fields, node.ImportChildren());
    return struct_(std::move(fields));
  }
  if (format == "+m") {
    LANCE_RETURN_NOT_OK(node.ExpectChildren(1));
    LANCE_ASSIGN_OR_RAISE(auto fields, node.ImportChildren());
    auto type =
        MapFromEntries(fields[0], (node.schema->flags & ARROW_FLAG_MAP_KEYS_SORTED) != 0);
    if (!type.ok()) return SchemaError(type.status(), node.path);
    return type;
  }
  return DataTypePtr();
}

Result<DataTypePtr> ImportTypeNode(const ArrowSchema* schema, const std::string& path) {
  if (schema->format == nullptr) {
    return SchemaError(Status::Invalid("format is NULL"), path);
  }
  const std::string_view format(schema->format);
  const TypeNode node{schema, path, format, "'" + std::string(format) + "'"};
  if (schema->dictionary != nullptr) return ImportDictionaryType(node);
  if (schema->n_children < 0) {
    return SchemaError(
        Status::Invalid("negative n_children " + std::to_string(schema->n_children)),
        path);
  }
  if (schema->n_children > 0 && schema->children == nullptr) {
    return SchemaError(
        Status::Invalid("n_children is " + std::to_string(schema->n_children) +
                        " but children is NULL"),
        path);
  }
  if (format.size() == 1) {
    DataTypePtr type = cdata::PrimitiveOfFormat(format[0]);
    if (type == nullptr) return node.Unsupported();
    LANCE_RETURN_NOT_OK(node.ExpectChildren(0));
    return type;
  }
  if (format.substr(0, 1) == "t") {
    LANCE_ASSIGN_OR_RAISE(DataTypePtr type, ImportTemporalType(node));
    if (type != nullptr) return type;
    return node.Unsupported();
  }
  if (format.substr(0, 2) == "d:") return ImportDecimalType(node);
  if (format.substr(0, 2) == "w:") {
    int32_t width = 0;
    if (!ParseSize(format.substr(2), &width)) {
      return node.Malformed("fixed-size binary", "'w:<byte width>'");
    }
    LANCE_RETURN_NOT_OK(node.ExpectChildren(0));
    return fixed_size_binary(width);
  }
  LANCE_ASSIGN_OR_RAISE(DataTypePtr nested, ImportNestedType(node));
  if (nested != nullptr) return nested;
  return node.Unsupported();
}

Result<FieldPtr> ImportFieldNode(const ArrowSchema* schema, const std::string& path) {
  if (schema->release == nullptr) {
    // Only reachable for children: the consumer moved this child out of its parent.
    return SchemaError(Status::Invalid("struct has been released (moved out?)"), path);
  }
  LANCE_ASSIGN_OR_RAISE(DataTypePtr type, ImportTypeNode(schema, path));
  LANCE_ASSIGN_OR_RAISE(KeyValueMetadata metadata,
                        DecodeMetadata(schema->metadata, path));
  return field(schema->name != nullptr ? schema->name : "", std::move(type),
               (schema->flags & ARROW_FLAG_NULLABLE) != 0, std::move(metadata));
}

Status CheckSchemaInput(const ArrowSchema* schema) {
  if (schema == nullptr) return Status::Invalid("When importing ArrowSchema: it is NULL");
  if (schema->release == nullptr) {
    return Status::Invalid("When importing ArrowSchema: it has already been released");
  }
  return Status::OK();
}

// ------------------------------------------------------------------------------------
// Array import
// ------------------------------------------------------------------------------------

// Owns a moved-in C struct (an ArrowArray tree, an ArrowArrayStream): the producer's
// release is called once, when the owner goes.
template <typename CStruct>
struct CStructOwner {
  CStruct c{};

  CStructOwner() = default;
  CStructOwner(const CStructOwner&) = delete;
  CStructOwner& operator=(const CStructOwner&) = delete;
  ~CStructOwner() {
    if (c.release != nullptr) c.release(&c);
  }
};

// Shared by every lance Buffer imported from the array.
using ImportedArrayGuard = CStructOwner<ArrowArray>;
using GuardPtr = std::shared_ptr<ImportedArrayGuard>;

// Moves `*array` into a fresh guard and marks the source released, so the caller can
// neither import nor release it a second time.
Result<GuardPtr> TakeArray(ArrowArray* array) {
  if (array == nullptr) return Status::Invalid("When importing ArrowArray: it is NULL");
  if (array->release == nullptr) {
    return Status::Invalid("When importing ArrowArray: it has already been released");
  }
  auto guard = std::make_shared<ImportedArrayGuard>();
  guard->c = *array;
  array->release = nullptr;
  array->private_data = nullptr;
  return guard;
}

class ArrayImporter {
 public:
  explicit ArrayImporter(GuardPtr guard) : guard_(std::move(guard)) {}

  Result<ArrayDataPtr> Import(const ArrowArray* array, const DataTypePtr& type,
                              const std::string& path) {
    auto result = ImportLevel(array, type, path);
    if (result.ok()) return result;
    Status st = std::move(result).status();
    // A failed child has already said where it failed (its errors pass through this
    // wrapper at its own level); only errors of this level still need the context.
    if (st.message().rfind("When importing", 0) == 0) return st;
    return st.WithContext("importing ArrowArray" + path + " of type " +
                          (type != nullptr ? type->ToString() : std::string("null")));
  }

 private:
  // Wraps producer memory as a lance Buffer owned by the guard; NULL is accepted only for
  // buffers that are empty.
  Result<BufferPtr> Wrap(const void* pointer, int64_t size, int index) {
    if (pointer == nullptr) {
      if (size == 0) return std::make_shared<Buffer>(cdata::kZeros, 0);
      return Status::Invalid("buffer " + std::to_string(index) + " is NULL but " +
                             std::to_string(size) + " bytes are required");
    }
    return std::make_shared<Buffer>(static_cast<const uint8_t*>(pointer), size, guard_);
  }

  Result<ArrayDataPtr> ImportLevel(const ArrowArray* array, const DataTypePtr& type,
                                   const std::string& path) {
    if (array == nullptr) return Status::Invalid("struct pointer is NULL");
    if (type == nullptr) return Status::Invalid("the expected type is null");
    if (array->release == nullptr) {
      // Only reachable for children: the consumer moved this child out of its parent.
      return Status::Invalid("struct has been released (moved out?)");
    }
    const TypeId id = type->id();
    if ((array->dictionary != nullptr) != (id == TypeId::kDictionary)) {
      return Status::Invalid(array->dictionary != nullptr
                                 ? "the array has a dictionary but its type " +
                                       type->ToString() + " is not a dictionary type"
                                 : "the dictionary-encoded array has no dictionary");
    }
    const int64_t length = array->length;
    const int64_t offset = array->offset;
    LANCE_ASSIGN_OR_RAISE(const int64_t end, cdata::SlotsEnd(offset, length));
    int64_t null_count = array->null_count;
    if (null_count < -1 || null_count > length) {
      return Status::Invalid("invalid null_count " + std::to_string(null_count) +
                             " for length " + std::to_string(length));
    }
    const int n_buffers = cdata::ExpectedBuffers(*type);
    if (array->n_buffers != n_buffers) {
      return Status::Invalid("n_buffers is " + std::to_string(array->n_buffers) +
                             ", expected " + std::to_string(n_buffers));
    }
    if (array->buffers == nullptr && n_buffers > 0) {
      return Status::Invalid("buffers is NULL");
    }
    const int64_t n_children = cdata::ExpectedChildren(*type);
    if (array->n_children != n_children) {
      return Status::Invalid("n_children is " + std::to_string(array->n_children) +
                             ", expected " + std::to_string(n_children));
    }
    if (n_children > 0 && array->children == nullptr) {
      return Status::Invalid("children is NULL");
    }
    if (type->num_fields() != n_children) {
      return Status::Invalid("type has " + std::to_string(type->num_fields()) +
                             " child fields, expected " + std::to_string(n_children));
    }

    if (id == TypeId::kNull) {
      // Every slot is null whatever the producer put in null_count.
      return ArrayData::Make(type, length, {nullptr}, length, offset);
    }
    std::vector<BufferPtr> buffers(n_buffers);
    if (array->buffers[0] == nullptr) {
      if (null_count > 0) {
        return Status::Invalid("null_count is " + std::to_string(null_count) +
                               " but the validity buffer is NULL");
      }
      null_count = 0;  // no bitmap means no nulls, so the count is known
    } else {
      LANCE_ASSIGN_OR_RAISE(buffers[0],
                            Wrap(array->buffers[0], bit_util::BytesForBits(end), 0));
    }

    int64_t child_required = 0;
    if (id == TypeId::kBool) {
      LANCE_ASSIGN_OR_RAISE(buffers[1],
                            Wrap(array->buffers[1], bit_util::BytesForBits(end), 1));
    } else if (const int64_t width = cdata::ValueWidth(*type);
               width > 0 || id == TypeId::kFixedSizeBinary) {
      int64_t size = 0;
      if (width < 0 || !cdata::CheckedMul(end, width, &size)) {
        return Status::Invalid("values buffer size overflows");
      }
      LANCE_ASSIGN_OR_RAISE(buffers[1], Wrap(array->buffers[1], size, 1));
    } else if (const int ow = cdata::OffsetWidth(id); ow > 0) {
      int64_t size = 0;
      if (!cdata::CheckedAdd(end, 1, &size) || !cdata::CheckedMul(size, ow, &size)) {
        return Status::Invalid("offsets buffer size overflows");
      }
      if (array->buffers[1] == nullptr && length == 0) {
        // Producers commonly omit the offsets of an empty array although the layout
        // asks for offset + 1 entries; supply zeros so lance code can rely on them.
        if (size <= static_cast<int64_t>(sizeof(cdata::kZeros))) {
          buffers[1] = std::make_shared<Buffer>(cdata::kZeros, size);
        } else {
          LANCE_ASSIGN_OR_RAISE(buffers[1], Buffer::Allocate(size));
        }
      } else {
        LANCE_ASSIGN_OR_RAISE(buffers[1], Wrap(array->buffers[1], size, 1));
      }
      const int64_t first = cdata::ReadOffset(buffers[1]->data(), ow, offset);
      const int64_t last = cdata::ReadOffset(buffers[1]->data(), ow, end);
      if (first < 0 || last < first) {
        return Status::Invalid(
            "offsets at " + std::to_string(offset) + " and " + std::to_string(end) +
            " are out of order: " + std::to_string(first) + ", " + std::to_string(last));
      }
      if (cdata::IsBinaryLike(id)) {
        LANCE_ASSIGN_OR_RAISE(buffers[2], Wrap(array->buffers[2], last, 2));
      } else {
        child_required = last;
      }
    } else if (id == TypeId::kFixedSizeList) {
      if (!cdata::CheckedMul(end, type->fixed_size(), &child_required)) {
        return Status::Invalid("child length overflows");
      }
    } else if (id == TypeId::kStruct) {
      child_required = end;
    }

    std::vector<ArrayDataPtr> children;
    children.reserve(static_cast<size_t>(n_children));
    for (int64_t i = 0; i < n_children; ++i) {
      const FieldPtr& child_field = type->fields()[i];
      if (child_field == nullptr) {
        return Status::Invalid("child field " + std::to_string(i) +
                               " of the type is null");
      }
      const std::string child_path = cdata::ChildPath(path, i, child_field->name());
      LANCE_ASSIGN_OR_RAISE(ArrayDataPtr child,
                            Import(array->children[i], child_field->type(), child_path));
      if (child->length < child_required) {
        return Status::Invalid("child " + std::to_string(i) + " has length " +
                               std::to_string(child->length) + " but the parent needs " +
                               std::to_string(child_required));
      }
      children.push_back(std::move(child));
    }
    ArrayDataPtr dictionary;
    if (id == TypeId::kDictionary) {
      if (type->value_type() == nullptr) {
        return Status::Invalid("the dictionary type has no value type");
      }
      LANCE_ASSIGN_OR_RAISE(dictionary, Import(array->dictionary, type->value_type(),
                                               path + " dictionary"));
    }
    return ArrayData::Make(type, length, std::move(buffers), null_count, offset,
                           std::move(children), std::move(dictionary));
  }

  GuardPtr guard_;
};

Result<ArrayDataPtr> ImportFromGuard(const GuardPtr& guard, const DataTypePtr& type) {
  if (type == nullptr) return Status::Invalid("When importing ArrowArray: type is null");
  ArrayImporter importer(guard);
  return importer.Import(&guard->c, type, "");
}

// Turns the children of an imported struct into record batch columns. A struct's offset
// and length apply to its children, which the columns must carry themselves.
Result<RecordBatchPtr> StructToBatch(const ArrayDataPtr& data, SchemaPtr schema) {
  const int64_t nulls = data->GetNullCount();
  if (nulls > 0) {
    return Status::Invalid("When importing a record batch: the struct ArrowArray has " +
                           std::to_string(nulls) + " top-level nulls");
  }
  std::vector<ArrayPtr> columns;
  columns.reserve(data->children.size());
  for (const ArrayDataPtr& child : data->children) {
    if (data->offset == 0 && child->length == data->length) {
      columns.push_back(MakeArray(child));
      continue;
    }
    auto sliced = std::make_shared<ArrayData>(*child);
    sliced->offset = child->offset + data->offset;
    sliced->length = data->length;
    sliced->null_count = child->null_count == 0 ? 0 : kUnknownNullCount;
    columns.push_back(MakeArray(std::move(sliced)));
  }
  return RecordBatch::Make(std::move(schema), data->length, std::move(columns));
}

// ------------------------------------------------------------------------------------
// Stream import
// ------------------------------------------------------------------------------------

struct ImportedStream : CStructOwner<ArrowArrayStream> {
  Status Error(const char* callback, int code) {
    std::string msg = std::string("ArrowArrayStream ") + callback +
                      " failed with errno " + std::to_string(code) + " (" +
                      std::generic_category().message(code) + ")";
    const char* detail = c.get_last_error != nullptr ? c.get_last_error(&c) : nullptr;
    if (detail != nullptr) {
      msg.append(": ");
      msg.append(detail);
    }
    return Status::IOError(std::move(msg));
  }
};

class ImportedRecordBatchReader : public RecordBatchReader {
 public:
  ImportedRecordBatchReader(std::unique_ptr<ImportedStream> stream, SchemaPtr schema)
      : stream_(std::move(stream)), schema_(std::move(schema)) {}

  SchemaPtr schema() const override { return schema_; }

  Result<RecordBatchPtr> Next() override {
    // After an error the spec only allows release and get_last_error, so the error is
    // remembered rather than asking the producer again.
    if (!error_.ok()) return error_;
    if (finished_) return RecordBatchPtr();
    ArrowArray array{};
    const int rc = stream_->c.get_next(&stream_->c, &array);
    if (rc != 0) {
      error_ = stream_->Error("get_next", rc);
      return error_;
    }
    if (array.release == nullptr) {
      finished_ = true;
      return RecordBatchPtr();
    }
    return ImportRecordBatch(&array, schema_);
  }

 private:
  std::unique_ptr<ImportedStream> stream_;
  SchemaPtr schema_;
  Status error_;
  bool finished_ = false;
};

}  // namespace

// ------------------------------------------------------------------------------------
// Public API
// ------------------------------------------------------------------------------------

Result<DataTypePtr> ImportType(ArrowSchema* schema) {
  LANCE_RETURN_NOT_OK(CheckSchemaInput(schema));
  SchemaReleaser releaser(schema);
  return ImportTypeNode(schema, "");
}

Result<FieldPtr> ImportField(ArrowSchema* schema) {
  LANCE_RETURN_NOT_OK(CheckSchemaInput(schema));
  SchemaReleaser releaser(schema);
  return ImportFieldNode(schema, "");
}

Result<SchemaPtr> ImportSchema(ArrowSchema* schema) {
  LANCE_RETURN_NOT_OK(CheckSchemaInput(schema));
  SchemaReleaser releaser(schema);
  if (schema->format == nullptr || std::string_view(schema->format) != "+s") {
    return Status::Invalid(
        std::string(
            "When importing ArrowSchema: a schema must be a struct ('+s'), got ") +
        (schema->format == nullptr ? "NULL" : "'" + std::string(schema->format) + "'"));
  }
  LANCE_ASSIGN_OR_RAISE(DataTypePtr type, ImportTypeNode(schema, ""));
  LANCE_ASSIGN_OR_RAISE(KeyValueMetadata metadata, DecodeMetadata(schema->metadata, ""));
  return lance::schema(type->fields(), std::move(metadata));
}

Result<ArrayPtr> ImportArray(ArrowArray* array, DataTypePtr type) {
  LANCE_ASSIGN_OR_RAISE(GuardPtr guard, TakeArray(array));
  LANCE_ASSIGN_OR_RAISE(ArrayDataPtr data, ImportFromGuard(guard, type));
  return MakeArray(std::move(data));
}

Result<ArrayPtr> ImportArray(ArrowArray* array, ArrowSchema* schema) {
  // Both inputs are consumed whatever fails, so take both before checking either.
  Result<GuardPtr> guard = TakeArray(array);
  Result<DataTypePtr> type = ImportType(schema);
  if (!guard.ok()) return guard.status();
  if (!type.ok()) return type.status();
  LANCE_ASSIGN_OR_RAISE(ArrayDataPtr data, ImportFromGuard(*guard, *type));
  return MakeArray(std::move(data));
}

Result<RecordBatchPtr> ImportRecordBatch(ArrowArray* array, SchemaPtr schema) {
  LANCE_ASSIGN_OR_RAISE(GuardPtr guard, TakeArray(array));
  if (schema == nullptr) {
    return Status::Invalid("When importing a record batch: schema is null");
  }
  LANCE_ASSIGN_OR_RAISE(ArrayDataPtr data,
                        ImportFromGuard(guard, struct_(schema->fields())));
  return StructToBatch(data, std::move(schema));
}

Result<RecordBatchPtr> ImportRecordBatch(ArrowArray* array, ArrowSchema* schema) {
  Result<GuardPtr> guard = TakeArray(array);
  Result<SchemaPtr> imported = ImportSchema(schema);
  if (!guard.ok()) return guard.status();
  if (!imported.ok()) return imported.status();
  LANCE_ASSIGN_OR_RAISE(ArrayDataPtr data,
                        ImportFromGuard(*guard, struct_((*imported)->fields())));
  return StructToBatch(data, *imported);
}

Result<std::unique_ptr<RecordBatchReader>> ImportRecordBatchReader(
    ArrowArrayStream* stream) {
  if (stream == nullptr) {
    return Status::Invalid("When importing ArrowArrayStream: it is NULL");
  }
  if (stream->release == nullptr) {
    return Status::Invalid(
        "When importing ArrowArrayStream: it has already been released");
  }
  auto holder = std::make_unique<ImportedStream>();
  holder->c = *stream;
  stream->release = nullptr;
  stream->private_data = nullptr;
  if (holder->c.get_schema == nullptr || holder->c.get_next == nullptr) {
    return Status::Invalid("When importing ArrowArrayStream: a callback is NULL");
  }
  ArrowSchema c_schema{};
  const int rc = holder->c.get_schema(&holder->c, &c_schema);
  if (rc != 0) return holder->Error("get_schema", rc);
  Result<SchemaPtr> schema = ImportSchema(&c_schema);
  if (!schema.ok()) {
    return schema.status().WithContext("importing the schema of an ArrowArrayStream");
  }
  return std::unique_ptr<RecordBatchReader>(
      new ImportedRecordBatchReader(std::move(holder), std::move(*schema)));
}

}  // namespace lance
