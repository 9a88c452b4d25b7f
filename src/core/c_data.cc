// SPDX-License-Identifier: Apache-2.0
// Arrow C Data Interface and C Stream Interface: export and import (see c_data.h).
//
// Design notes:
// * Exported structs own a heap-allocated "private" object per node (ArrowSchema or
//   ArrowArray), holding everything the struct points to: strings, buffer-pointer arrays,
//   child structs and (for arrays) a shared reference to the ArrayData. Each child has
//   its own private object, so a consumer may move a child out and release it
//   independently; a parent only releases children whose `release` is still set.
// * Imported arrays move the root ArrowArray into one heap guard shared (as the Buffer
//   owner) by every buffer of the tree; the guard's destructor calls the producer's
//   release once. The C interface carries no buffer sizes, so they are derived from the
//   type, offset and length, and the inputs are checked enough that no derived size
//   makes us read outside what a well-formed producer must have provided.
// * Schemas are small and copied out eagerly, so a schema is released as soon as it has
//   been read.

#include "lance/core/c_data.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "lance/core/array_data.h"
#include "lance/core/buffer.h"
#include "lance/macros.h"

namespace lance {
namespace {

// Zeroed memory that stands in for buffers whose required size is (nearly) empty: the
// spec lets producers pass NULL for zero-sized buffers, but many consumers dereference
// buffer pointers unconditionally (e.g. offsets[0] of an empty utf8 array), so export
// never hands out NULL for a non-validity buffer and import never creates a lance Buffer
// with a NULL data pointer.
alignas(64) constexpr uint8_t kZeros[64] = {};

// ------------------------------------------------------------------------------------
// Layout helpers shared by export and import
// ------------------------------------------------------------------------------------

// Buffers of the Arrow C layout, including the validity slot (array_data.h table). Kept
// local rather than using NumBuffersForType so that import validation does not depend on
// how the rest of core interprets a malformed type. The null type differs from lance's
// ArrayData: C has no buffer at all, lance one (always null) validity slot.
int ExpectedBuffers(TypeId id) {
  switch (id) {
    case TypeId::kUtf8:
    case TypeId::kLargeUtf8:
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
      return 3;
    case TypeId::kFixedSizeList:
    case TypeId::kStruct:
      return 1;
    case TypeId::kNull:
      return 0;
    default:
      return 2;
  }
}

// Buffers of the lance ArrayData for `id` (see ExpectedBuffers).
int LanceBuffers(TypeId id) { return id == TypeId::kNull ? 1 : ExpectedBuffers(id); }

// Width in bytes of one offset for offset-carrying layouts; 0 for other layouts.
int OffsetWidth(TypeId id) {
  switch (id) {
    case TypeId::kUtf8:
    case TypeId::kBinary:
    case TypeId::kList:
    case TypeId::kMap:
      return 4;
    case TypeId::kLargeUtf8:
    case TypeId::kLargeBinary:
    case TypeId::kLargeList:
      return 8;
    default:
      return 0;
  }
}

bool IsBinaryLike(TypeId id) {
  return id == TypeId::kUtf8 || id == TypeId::kLargeUtf8 || id == TypeId::kBinary ||
         id == TypeId::kLargeBinary;
}

// Bytes per value of the values buffer (buffer 1) of byte-aligned fixed-width layouts;
// 0 for bool (bit-packed) and for layouts without a values buffer.
int64_t ValueWidth(const DataType& type) {
  if (type.id() == TypeId::kDictionary) {  // the indices
    return type.index_type() != nullptr && type.index_type()->is_integer()
               ? type.index_type()->byte_width()
               : 0;
  }
  // DataType::byte_width is -1 for bool, null and the nested and variable layouts.
  return std::max(type.byte_width(), 0);
}

// Number of child arrays/fields the layout prescribes; -1 means "one per struct field".
int64_t ExpectedChildren(const DataType& type) {
  switch (type.id()) {
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kFixedSizeList:
    case TypeId::kMap:
      return 1;
    case TypeId::kStruct:
      return type.num_fields();
    default:
      return 0;
  }
}

bool CheckedMul(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_mul_overflow(a, b, out);
}
bool CheckedAdd(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_add_overflow(a, b, out);
}

// Reads offsets[index] without assuming the pointer is suitably aligned: the spec only
// recommends alignment, and an unaligned typed load is undefined behaviour.
int64_t ReadOffset(const uint8_t* offsets, int width, int64_t index) {
  if (width == 4) {
    int32_t v;
    std::memcpy(&v, offsets + index * 4, sizeof(v));
    return v;
  }
  int64_t v;
  std::memcpy(&v, offsets + index * 8, sizeof(v));
  return v;
}

std::string ChildPath(const std::string& parent, int64_t index, std::string_view name) {
  std::string path = parent;
  path.append(parent.empty() ? " child " : " > child ");
  path.append(std::to_string(index));
  path.append(" ('");
  path.append(name);
  path.append("')");
  return path;
}

// ------------------------------------------------------------------------------------
// Schema export
// ------------------------------------------------------------------------------------

char TimeUnitChar(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond:
      return 's';
    case TimeUnit::kMilli:
      return 'm';
    case TimeUnit::kMicro:
      return 'u';
    case TimeUnit::kNano:
      return 'n';
  }
  return '?';
}

Result<std::string> FormatOf(const DataType& type) {
  switch (type.id()) {
    case TypeId::kBool:
      return std::string("b");
    case TypeId::kInt8:
      return std::string("c");
    case TypeId::kUInt8:
      return std::string("C");
    case TypeId::kInt16:
      return std::string("s");
    case TypeId::kUInt16:
      return std::string("S");
    case TypeId::kInt32:
      return std::string("i");
    case TypeId::kUInt32:
      return std::string("I");
    case TypeId::kInt64:
      return std::string("l");
    case TypeId::kUInt64:
      return std::string("L");
    case TypeId::kFloat16:
      return std::string("e");
    case TypeId::kFloat32:
      return std::string("f");
    case TypeId::kFloat64:
      return std::string("g");
    case TypeId::kUtf8:
      return std::string("u");
    case TypeId::kLargeUtf8:
      return std::string("U");
    case TypeId::kBinary:
      return std::string("z");
    case TypeId::kLargeBinary:
      return std::string("Z");
    case TypeId::kFixedSizeBinary:
      return "w:" + std::to_string(type.fixed_size());
    case TypeId::kDate32:
      return std::string("tdD");
    case TypeId::kTimestamp:
      return std::string("ts") + TimeUnitChar(type.unit()) + ":" + type.timezone();
    case TypeId::kList:
      return std::string("+l");
    case TypeId::kLargeList:
      return std::string("+L");
    case TypeId::kFixedSizeList:
      return "+w:" + std::to_string(type.fixed_size());
    case TypeId::kStruct:
      return std::string("+s");
    case TypeId::kNull:
      return std::string("n");
    case TypeId::kDecimal128:
      return "d:" + std::to_string(type.precision()) + "," + std::to_string(type.scale());
    case TypeId::kDecimal256:
      return "d:" + std::to_string(type.precision()) + "," +
             std::to_string(type.scale()) + ",256";
    case TypeId::kDate64:
      return std::string("tdm");
    case TypeId::kTime32:
    case TypeId::kTime64:
      return std::string("tt") + TimeUnitChar(type.unit());
    case TypeId::kDuration:
      return std::string("tD") + TimeUnitChar(type.unit());
    case TypeId::kMap:
      return std::string("+m");
    case TypeId::kDictionary:
      // A dictionary is described by its indices; the values go to `dictionary`.
      if (type.index_type() == nullptr || !type.index_type()->is_integer()) {
        return Status::Invalid("dictionary type " + type.ToString() +
                               " has no integer index type");
      }
      return FormatOf(*type.index_type());
  }
  return Status::NotImplemented("no Arrow format for type id " +
                                std::to_string(static_cast<int>(type.id())));
}

void AppendInt32(std::string* out, int32_t v) {
  char bytes[sizeof(v)];
  std::memcpy(bytes, &v, sizeof(v));
  out->append(bytes, sizeof(v));
}

// The spec's binary metadata encoding: int32 pair count, then per pair int32 key length,
// key bytes, int32 value length, value bytes; native endianness, no terminator. Empty
// metadata is exported as a NULL pointer (signalled here by an empty string).
Result<std::string> EncodeMetadata(const KeyValueMetadata& metadata) {
  std::string out;
  if (metadata.empty()) return out;
  constexpr size_t kMax = static_cast<size_t>(std::numeric_limits<int32_t>::max());
  if (metadata.size() > kMax) return Status::Invalid("too many metadata entries");
  AppendInt32(&out, static_cast<int32_t>(metadata.size()));
  for (const auto& [key, value] : metadata) {
    if (key.size() > kMax || value.size() > kMax) {
      return Status::Invalid("metadata entry '" + key.substr(0, 64) +
                             "' is larger than 2 GiB");
    }
    AppendInt32(&out, static_cast<int32_t>(key.size()));
    out.append(key);
    AppendInt32(&out, static_cast<int32_t>(value.size()));
    out.append(value);
  }
  return out;
}

// Everything an exported ArrowSchema node points to.
struct SchemaExport {
  std::string format;
  std::string name;
  std::string metadata;
  std::vector<ArrowSchema> children;  // sized once, so child addresses stay stable
  std::vector<ArrowSchema*> child_ptrs;
  ArrowSchema
      dictionary{};  // the value type of a dictionary type (release == NULL if none)

  // Children still present (not moved out by the consumer) go with the parent; this also
  // cleans up partially built nodes when an export fails half-way.
  ~SchemaExport() {
    for (ArrowSchema& child : children) {
      if (child.release != nullptr) child.release(&child);
    }
    if (dictionary.release != nullptr) dictionary.release(&dictionary);
  }
};

void ReleaseExportedSchema(ArrowSchema* schema) {
  if (schema == nullptr || schema->release == nullptr) return;
  delete static_cast<SchemaExport*>(schema->private_data);
  schema->private_data = nullptr;
  schema->release = nullptr;
}

Status ExportSchemaNode(std::string name, const DataType& type, int64_t flags,
                        const KeyValueMetadata& metadata, ArrowSchema* out);

Status ExportFieldNode(const Field& field, ArrowSchema* out) {
  if (field.type() == nullptr) {
    return Status::Invalid("field '" + field.name() + "' has no type");
  }
  return ExportSchemaNode(field.name(), *field.type(),
                          field.nullable() ? ARROW_FLAG_NULLABLE : 0, field.metadata(),
                          out);
}

// Fills `*out` only on success; on error every child exported so far is released by the
// SchemaExport destructor.
Status ExportSchemaNode(std::string name, const DataType& type, int64_t flags,
                        const KeyValueMetadata& metadata, ArrowSchema* out) {
  auto priv = std::make_unique<SchemaExport>();
  LANCE_ASSIGN_OR_RAISE(priv->format, FormatOf(type));
  priv->name = std::move(name);
  LANCE_ASSIGN_OR_RAISE(priv->metadata, EncodeMetadata(metadata));

  const std::vector<FieldPtr>& fields = type.fields();
  if (static_cast<int64_t>(fields.size()) != ExpectedChildren(type)) {
    return Status::Invalid("type " + type.ToString() + " has " +
                           std::to_string(fields.size()) + " child fields, expected " +
                           std::to_string(ExpectedChildren(type)));
  }
  priv->children.resize(fields.size());  // value-initialised: release == NULL
  priv->child_ptrs.resize(fields.size());
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i] == nullptr) {
      return Status::Invalid("type " + type.ToString() + " has a null child field " +
                             std::to_string(i));
    }
    LANCE_RETURN_NOT_OK_CTX(
        ExportFieldNode(*fields[i], &priv->children[i]),
        "exporting child field " + std::to_string(i) + " ('" + fields[i]->name() + "')");
    priv->child_ptrs[i] = &priv->children[i];
  }

  if (type.id() == TypeId::kDictionary) {
    if (type.value_type() == nullptr) {
      return Status::Invalid("dictionary type " + type.ToString() + " has no value type");
    }
    LANCE_RETURN_NOT_OK_CTX(ExportSchemaNode("", *type.value_type(), ARROW_FLAG_NULLABLE,
                                             {}, &priv->dictionary),
                            "exporting the dictionary value type");
    if (type.ordered()) flags |= ARROW_FLAG_DICTIONARY_ORDERED;
  }
  if (type.keys_sorted()) flags |= ARROW_FLAG_MAP_KEYS_SORTED;

  out->format = priv->format.c_str();
  out->name = priv->name.c_str();
  out->metadata = priv->metadata.empty() ? nullptr : priv->metadata.data();
  out->flags = flags;
  out->n_children = static_cast<int64_t>(fields.size());
  out->children = fields.empty() ? nullptr : priv->child_ptrs.data();
  out->dictionary = priv->dictionary.release != nullptr ? &priv->dictionary : nullptr;
  out->release = &ReleaseExportedSchema;
  out->private_data = priv.release();
  return Status::OK();
}

// ------------------------------------------------------------------------------------
// Array export
// ------------------------------------------------------------------------------------

// Everything an exported ArrowArray node points to. `data` keeps this level's lance
// buffers alive; children hold their own ArrayData, so each node is independent.
struct ArrayExport {
  ArrayDataPtr data;
  std::vector<const void*> buffers;
  std::vector<ArrowArray> children;  // sized once, so child addresses stay stable
  std::vector<ArrowArray*> child_ptrs;
  ArrowArray dictionary{};  // the values of a dictionary array (release == NULL if none)

  ~ArrayExport() {
    for (ArrowArray& child : children) {
      if (child.release != nullptr) child.release(&child);
    }
    if (dictionary.release != nullptr) dictionary.release(&dictionary);
  }
};

void ReleaseExportedArray(ArrowArray* array) {
  if (array == nullptr || array->release == nullptr) return;
  delete static_cast<ArrayExport*>(array->private_data);
  array->private_data = nullptr;
  array->release = nullptr;
}

void FillExportedArray(std::unique_ptr<ArrayExport> priv, int64_t length,
                       int64_t null_count, int64_t offset, ArrowArray* out) {
  out->length = length;
  out->null_count = null_count;
  out->offset = offset;
  out->n_buffers = static_cast<int64_t>(priv->buffers.size());
  out->n_children = static_cast<int64_t>(priv->children.size());
  out->buffers = priv->buffers.data();
  out->children = priv->children.empty() ? nullptr : priv->child_ptrs.data();
  out->dictionary = priv->dictionary.release != nullptr ? &priv->dictionary : nullptr;
  out->release = &ReleaseExportedArray;
  out->private_data = priv.release();
}

// The pointer to export for non-validity buffer `index` that must hold `required` bytes.
// A missing or short buffer is only tolerated when it can be replaced by kZeros without
// changing any value a consumer may legitimately read (an empty array, or an empty data
// buffer); anything else would let the consumer read out of bounds.
Result<const void*> ExportBufferPointer(const BufferPtr& buffer, int index,
                                        int64_t required, int64_t length) {
  if (buffer != nullptr && buffer->size() >= required && buffer->data() != nullptr) {
    return static_cast<const void*>(buffer->data());
  }
  if ((length == 0 || required == 0) &&
      required <= static_cast<int64_t>(sizeof(kZeros))) {
    return static_cast<const void*>(kZeros);
  }
  if (buffer == nullptr || buffer->data() == nullptr) {
    return Status::Invalid("buffer " + std::to_string(index) + " is missing but " +
                           std::to_string(required) + " bytes are required");
  }
  return Status::Invalid("buffer " + std::to_string(index) + " has " +
                         std::to_string(buffer->size()) + " bytes but " +
                         std::to_string(required) + " are required");
}

Status ExportArrayNode(const ArrayDataPtr& data, ArrowArray* out,
                       const std::string& path);

// A null array: no buffers in C, every slot null.
Status ExportNullArray(const ArrayDataPtr& data, int64_t length, int64_t offset,
                       ArrowArray* out) {
  if (data->buffers[0] != nullptr) {
    return Status::Invalid("a null array has a validity buffer");
  }
  // No buffers in C; `buffers` still points at a (null) entry for consumers that look.
  auto priv = std::make_unique<ArrayExport>();
  priv->data = data;
  priv->buffers.assign(1, nullptr);
  FillExportedArray(std::move(priv), length, length, offset, out);
  out->n_buffers = 0;
  return Status::OK();
}

// Validity: passed through as is, NULL when absent.
Status ExportValidity(const ArrayData& data, int64_t end, ArrayExport* priv) {
  const BufferPtr& validity = data.buffers[0];
  if (validity != nullptr) {
    const int64_t required = bit_util::BytesForBits(end);
    if (validity->size() < required) {
      return Status::Invalid("validity buffer has " + std::to_string(validity->size()) +
                             " bytes but " + std::to_string(required) + " are required");
    }
    priv->buffers[0] = validity->data();
  }
  return Status::OK();
}

Status ExportDictionary(const ArrayData& data, const std::string& path,
                        ArrayExport* priv) {
  const DataType& type = *data.type;
  const TypeId id = type.id();
  if ((data.dictionary != nullptr) != (id == TypeId::kDictionary)) {
    return Status::Invalid(data.dictionary != nullptr
                               ? "a non-dictionary array has a dictionary"
                               : "a dictionary array has no dictionary");
  }
  if (id != TypeId::kDictionary) return Status::OK();
  if (ValueWidth(type) <= 0) {
    return Status::Invalid("dictionary type " + type.ToString() +
                           " has no integer index type");
  }
  if (data.dictionary->type == nullptr || type.value_type() == nullptr ||
      !data.dictionary->type->Equals(*type.value_type())) {
    return Status::Invalid("the dictionary does not have the value type " +
                           type.ToString());
  }
  return ExportArrayNode(data.dictionary, &priv->dictionary, path + " dictionary");
}

// Exports the value / offset / data buffers of slots [offset, end) and returns the
// minimum length the child must have, derived from this level's offsets.
Result<int64_t> ExportValueBuffers(const ArrayData& data, int64_t end,
                                   ArrayExport* priv) {
  const DataType& type = *data.type;
  const TypeId id = type.id();
  const int64_t length = data.length;
  int64_t child_required = 0;
  if (id == TypeId::kBool) {
    LANCE_ASSIGN_OR_RAISE(
        priv->buffers[1],
        ExportBufferPointer(data.buffers[1], 1, bit_util::BytesForBits(end), length));
  } else if (const int64_t width = ValueWidth(type);
             width > 0 || id == TypeId::kFixedSizeBinary) {
    int64_t required = 0;
    if (!CheckedMul(end, width, &required)) {
      return Status::Invalid("values size overflows");
    }
    LANCE_ASSIGN_OR_RAISE(priv->buffers[1],
                          ExportBufferPointer(data.buffers[1], 1, required, length));
  } else if (const int ow = OffsetWidth(id); ow > 0) {
    int64_t required = 0;
    if (!CheckedAdd(end, 1, &required) || !CheckedMul(required, ow, &required)) {
      return Status::Invalid("offsets size overflows");
    }
    LANCE_ASSIGN_OR_RAISE(priv->buffers[1],
                          ExportBufferPointer(data.buffers[1], 1, required, length));
    const auto* offsets = static_cast<const uint8_t*>(priv->buffers[1]);
    const int64_t first = ReadOffset(offsets, ow, data.offset);
    const int64_t last = ReadOffset(offsets, ow, end);
    if (first < 0 || last < first) {
      return Status::Invalid("offsets [" + std::to_string(first) + ", " +
                             std::to_string(last) + "] are out of order");
    }
    if (IsBinaryLike(id)) {
      LANCE_ASSIGN_OR_RAISE(priv->buffers[2],
                            ExportBufferPointer(data.buffers[2], 2, last, length));
    } else {
      child_required = last;
    }
  } else if (id == TypeId::kFixedSizeList) {
    if (!CheckedMul(end, type.fixed_size(), &child_required)) {
      return Status::Invalid("child size overflows");
    }
  } else if (id == TypeId::kStruct) {
    child_required = end;
  }
  return child_required;
}

Status ExportChildren(const ArrayData& data, const std::string& path,
                      int64_t child_required, ArrayExport* priv) {
  priv->children.resize(data.children.size());  // value-initialised: release == NULL
  priv->child_ptrs.resize(data.children.size());
  for (size_t i = 0; i < data.children.size(); ++i) {
    const ArrayDataPtr& child = data.children[i];
    const std::vector<FieldPtr>& fields = data.type->fields();
    const std::string child_path =
        ChildPath(path, static_cast<int64_t>(i),
                  i < fields.size() && fields[i] != nullptr ? fields[i]->name() : "");
    if (child == nullptr) {
      return Status::Invalid("child array is null").WithContext("exporting" + child_path);
    }
    if (child->length < child_required) {
      return Status::Invalid("child has " + std::to_string(child->length) +
                             " slots but the parent needs " +
                             std::to_string(child_required))
          .WithContext("exporting" + child_path);
    }
    LANCE_RETURN_NOT_OK(ExportArrayNode(child, &priv->children[i], child_path));
    priv->child_ptrs[i] = &priv->children[i];
  }
  return Status::OK();
}

Status ExportArrayLevel(const ArrayDataPtr& data, ArrowArray* out,
                        const std::string& path) {
  if (data == nullptr) return Status::Invalid("ArrayData is null");
  if (data->type == nullptr) return Status::Invalid("ArrayData has no type");
  const DataType& type = *data->type;
  const TypeId id = type.id();
  const int64_t length = data->length;
  const int64_t offset = data->offset;
  int64_t end = 0;
  if (length < 0 || offset < 0 || !CheckedAdd(offset, length, &end)) {
    return Status::Invalid("invalid offset " + std::to_string(offset) + " / length " +
                           std::to_string(length));
  }
  const int n_buffers = LanceBuffers(id);
  if (static_cast<int>(data->buffers.size()) != n_buffers) {
    return Status::Invalid(type.ToString() + " ArrayData has " +
                           std::to_string(data->buffers.size()) + " buffers, expected " +
                           std::to_string(n_buffers));
  }
  if (id == TypeId::kNull) return ExportNullArray(data, length, offset, out);
  const int64_t expected_children = ExpectedChildren(type);
  if (static_cast<int64_t>(data->children.size()) != expected_children) {
    return Status::Invalid(type.ToString() + " ArrayData has " +
                           std::to_string(data->children.size()) +
                           " children, expected " + std::to_string(expected_children));
  }

  auto priv = std::make_unique<ArrayExport>();
  priv->data = data;
  priv->buffers.assign(n_buffers, nullptr);
  LANCE_RETURN_NOT_OK(ExportValidity(*data, end, priv.get()));
  const int64_t null_count = data->GetNullCount();
  if (data->buffers[0] == nullptr && null_count > 0) {
    return Status::Invalid("null_count is " + std::to_string(null_count) +
                           " but there is no validity buffer");
  }
  LANCE_RETURN_NOT_OK(ExportDictionary(*data, path, priv.get()));
  LANCE_ASSIGN_OR_RAISE(const int64_t child_required,
                        ExportValueBuffers(*data, end, priv.get()));
  LANCE_RETURN_NOT_OK(ExportChildren(*data, path, child_required, priv.get()));
  FillExportedArray(std::move(priv), length, null_count, offset, out);
  return Status::OK();
}

// Errors of this level get "When exporting <path>:"; a failed child has already added
// its own (longer) context, which is passed through unchanged.
Status ExportArrayNode(const ArrayDataPtr& data, ArrowArray* out,
                       const std::string& path) {
  Status st = ExportArrayLevel(data, out, path);
  if (st.ok() || st.message().rfind("When exporting", 0) == 0) return st;
  const std::string what = data != nullptr && data->type != nullptr
                               ? data->type->ToString() + " array"
                               : std::string("array");
  return st.WithContext("exporting " + what + path);
}

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
  if (digits.empty() || digits.size() > 10) return false;
  int64_t v = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  if (v > std::numeric_limits<int32_t>::max()) return false;
  *out = static_cast<int32_t>(v);
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
      LANCE_ASSIGN_OR_RAISE(FieldPtr f, ImportFieldNode(child, ChildPath(path, i, name)));
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

// The type of a one-character format, or NULL when there is none.
DataTypePtr PrimitiveOfFormat(char c) {
  static const std::pair<char, DataTypePtr (*)()> kPrimitives[] = {
      {'b', boolean}, {'c', int8},       {'C', uint8},   {'s', int16},
      {'S', uint16},  {'i', int32},      {'I', uint32},  {'l', int64},
      {'L', uint64},  {'e', float16},    {'f', float32}, {'g', float64},
      {'u', utf8},    {'U', large_utf8}, {'z', binary},  {'Z', large_binary},
      {'n', null},
  };
  for (const auto& [code, make] : kPrimitives) {
    if (code == c) return make();
  }
  return nullptr;
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
    DataTypePtr type = PrimitiveOfFormat(format[0]);
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

// Owns a moved-in ArrowArray tree; shared by every lance Buffer imported from it.
struct ImportedArrayGuard {
  ArrowArray array{};

  ImportedArrayGuard() = default;
  ImportedArrayGuard(const ImportedArrayGuard&) = delete;
  ImportedArrayGuard& operator=(const ImportedArrayGuard&) = delete;
  ~ImportedArrayGuard() {
    if (array.release != nullptr) array.release(&array);
  }
};
using GuardPtr = std::shared_ptr<ImportedArrayGuard>;

// Moves `*array` into a fresh guard and marks the source released, so the caller can
// neither import nor release it a second time.
Result<GuardPtr> TakeArray(ArrowArray* array) {
  if (array == nullptr) return Status::Invalid("When importing ArrowArray: it is NULL");
  if (array->release == nullptr) {
    return Status::Invalid("When importing ArrowArray: it has already been released");
  }
  auto guard = std::make_shared<ImportedArrayGuard>();
  guard->array = *array;
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
      if (size == 0) return std::make_shared<Buffer>(kZeros, 0);
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
    int64_t end = 0;
    if (length < 0 || offset < 0 || !CheckedAdd(offset, length, &end)) {
      return Status::Invalid("invalid offset " + std::to_string(offset) + " / length " +
                             std::to_string(length));
    }
    int64_t null_count = array->null_count;
    if (null_count < -1 || null_count > length) {
      return Status::Invalid("invalid null_count " + std::to_string(null_count) +
                             " for length " + std::to_string(length));
    }
    const int n_buffers = ExpectedBuffers(id);
    if (array->n_buffers != n_buffers) {
      return Status::Invalid("n_buffers is " + std::to_string(array->n_buffers) +
                             ", expected " + std::to_string(n_buffers));
    }
    if (array->buffers == nullptr && n_buffers > 0) {
      return Status::Invalid("buffers is NULL");
    }
    const int64_t n_children = ExpectedChildren(*type);
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
    } else if (const int64_t width = ValueWidth(*type);
               width > 0 || id == TypeId::kFixedSizeBinary) {
      int64_t size = 0;
      if (width < 0 || !CheckedMul(end, width, &size)) {
        return Status::Invalid("values buffer size overflows");
      }
      LANCE_ASSIGN_OR_RAISE(buffers[1], Wrap(array->buffers[1], size, 1));
    } else if (const int ow = OffsetWidth(id); ow > 0) {
      int64_t size = 0;
      if (!CheckedAdd(end, 1, &size) || !CheckedMul(size, ow, &size)) {
        return Status::Invalid("offsets buffer size overflows");
      }
      if (array->buffers[1] == nullptr && length == 0) {
        // Producers commonly omit the offsets of an empty array although the layout
        // asks for offset + 1 entries; supply zeros so lance code can rely on them.
        if (size <= static_cast<int64_t>(sizeof(kZeros))) {
          buffers[1] = std::make_shared<Buffer>(kZeros, size);
        } else {
          LANCE_ASSIGN_OR_RAISE(buffers[1], Buffer::Allocate(size));
        }
      } else {
        LANCE_ASSIGN_OR_RAISE(buffers[1], Wrap(array->buffers[1], size, 1));
      }
      const int64_t first = ReadOffset(buffers[1]->data(), ow, offset);
      const int64_t last = ReadOffset(buffers[1]->data(), ow, end);
      if (first < 0 || last < first) {
        return Status::Invalid(
            "offsets at " + std::to_string(offset) + " and " + std::to_string(end) +
            " are out of order: " + std::to_string(first) + ", " + std::to_string(last));
      }
      if (IsBinaryLike(id)) {
        LANCE_ASSIGN_OR_RAISE(buffers[2], Wrap(array->buffers[2], last, 2));
      } else {
        child_required = last;
      }
    } else if (id == TypeId::kFixedSizeList) {
      if (!CheckedMul(end, type->fixed_size(), &child_required)) {
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
      const std::string child_path = ChildPath(path, i, child_field->name());
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
  return importer.Import(&guard->array, type, "");
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
// Stream export
// ------------------------------------------------------------------------------------

int ErrnoFor(const Status& st) {
  switch (st.code()) {
    case StatusCode::kInvalid:
      return EINVAL;
    case StatusCode::kNotImplemented:
      return ENOSYS;
    case StatusCode::kCancelled:
      return ECANCELED;
    default:
      return st.message().find("out of memory") != std::string::npos ? ENOMEM : EIO;
  }
}

struct StreamExport {
  std::shared_ptr<RecordBatchReader> reader;
  std::string last_error;  // what get_last_error points into
  int sticky_errno = 0;    // non-zero once Next() failed
  bool finished = false;

  int Fail(const Status& st) {
    last_error = st.ToString();
    return ErrnoFor(st);
  }
};

StreamExport* StateOf(ArrowArrayStream* stream) {
  return static_cast<StreamExport*>(stream->private_data);
}

// The callbacks are called from C (or other languages), which cannot unwind a C++
// exception; anything a user-provided reader throws becomes an error code instead.
int StreamGetSchema(ArrowArrayStream* stream, ArrowSchema* out) {
  StreamExport* state = StateOf(stream);
  try {
    if (out == nullptr) return state->Fail(Status::Invalid("get_schema: out is NULL"));
    SchemaPtr schema = state->reader->schema();
    if (schema == nullptr)
      return state->Fail(Status::Invalid("the reader has no schema"));
    Status st = ExportSchema(*schema, out);
    return st.ok() ? 0 : state->Fail(st);
  } catch (const std::exception& e) {
    state->last_error = std::string("exception in get_schema: ") + e.what();
  } catch (...) {
    state->last_error = "unknown exception in get_schema";
  }
  return EIO;
}

int StreamGetNext(ArrowArrayStream* stream, ArrowArray* out) {
  StreamExport* state = StateOf(stream);
  if (out == nullptr) return state->Fail(Status::Invalid("get_next: out is NULL"));
  if (state->sticky_errno != 0) return state->sticky_errno;
  if (state->finished) {
    out->release = nullptr;
    return 0;
  }
  try {
    Result<RecordBatchPtr> next = state->reader->Next();
    if (!next.ok()) {
      state->sticky_errno = state->Fail(next.status());
      return state->sticky_errno;
    }
    if (*next == nullptr) {
      state->finished = true;
      out->release = nullptr;
      return 0;
    }
    Status st = ExportRecordBatch(**next, out);
    return st.ok() ? 0 : state->Fail(st);
  } catch (const std::exception& e) {
    state->last_error = std::string("exception in get_next: ") + e.what();
  } catch (...) {
    state->last_error = "unknown exception in get_next";
  }
  state->sticky_errno = EIO;
  return EIO;
}

const char* StreamGetLastError(ArrowArrayStream* stream) {
  StreamExport* state = StateOf(stream);
  return state->last_error.empty() ? nullptr : state->last_error.c_str();
}

void StreamRelease(ArrowArrayStream* stream) {
  if (stream == nullptr || stream->release == nullptr) return;
  delete StateOf(stream);
  stream->private_data = nullptr;
  stream->release = nullptr;
}

// ------------------------------------------------------------------------------------
// Stream import
// ------------------------------------------------------------------------------------

struct ImportedStream {
  ArrowArrayStream stream{};

  ImportedStream() = default;
  ImportedStream(const ImportedStream&) = delete;
  ImportedStream& operator=(const ImportedStream&) = delete;
  ~ImportedStream() {
    if (stream.release != nullptr) stream.release(&stream);
  }

  Status Error(const char* callback, int code) {
    std::string msg = std::string("ArrowArrayStream ") + callback +
                      " failed with errno " + std::to_string(code) + " (" +
                      std::generic_category().message(code) + ")";
    const char* detail =
        stream.get_last_error != nullptr ? stream.get_last_error(&stream) : nullptr;
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
    const int rc = stream_->stream.get_next(&stream_->stream, &array);
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

Status ExportType(const DataType& type, ArrowSchema* out) {
  if (out == nullptr) return Status::Invalid("ExportType: out is NULL");
  return ExportSchemaNode("", type, ARROW_FLAG_NULLABLE, {}, out)
      .WithContext("exporting type " + type.ToString());
}

Status ExportField(const Field& field, ArrowSchema* out) {
  if (out == nullptr) return Status::Invalid("ExportField: out is NULL");
  return ExportFieldNode(field, out)
      .WithContext("exporting field '" + field.name() + "'");
}

Status ExportSchema(const Schema& schema, ArrowSchema* out) {
  if (out == nullptr) return Status::Invalid("ExportSchema: out is NULL");
  for (int i = 0; i < schema.num_fields(); ++i) {
    if (schema.field(i) == nullptr) {
      return Status::Invalid("When exporting a schema: field " + std::to_string(i) +
                             " is null");
    }
  }
  return ExportSchemaNode("", *struct_(schema.fields()), 0, schema.metadata(), out)
      .WithContext("exporting a schema");
}

Status ExportArray(const Array& array, ArrowArray* out, ArrowSchema* out_schema) {
  if (out == nullptr) return Status::Invalid("ExportArray: out is NULL");
  ArrowArray c_array{};
  LANCE_RETURN_NOT_OK(ExportArrayNode(array.data(), &c_array, ""));
  if (out_schema != nullptr) {
    Status st = ExportType(*array.type(), out_schema);
    if (!st.ok()) {
      c_array.release(&c_array);
      return st;
    }
  }
  *out = c_array;
  return Status::OK();
}

Status ExportRecordBatch(const RecordBatch& batch, ArrowArray* out,
                         ArrowSchema* out_schema) {
  if (out == nullptr) return Status::Invalid("ExportRecordBatch: out is NULL");
  const int64_t rows = batch.num_rows();
  // Built directly rather than through RecordBatch::ToStructArray: the root needs no
  // lance object of its own, only the columns' data.
  auto priv = std::make_unique<ArrayExport>();
  priv->buffers.assign(1, nullptr);
  priv->children.resize(batch.num_columns());
  priv->child_ptrs.resize(batch.num_columns());
  for (int i = 0; i < batch.num_columns(); ++i) {
    const ArrayPtr& column = batch.column(i);
    const std::string path = ChildPath("", i, batch.schema()->field(i)->name());
    if (column == nullptr || column->length() != rows) {
      return Status::Invalid("When exporting a record batch: column " +
                             std::to_string(i) + " does not have " +
                             std::to_string(rows) + " rows");
    }
    LANCE_RETURN_NOT_OK(ExportArrayNode(column->data(), &priv->children[i], path));
    priv->child_ptrs[i] = &priv->children[i];
  }
  ArrowArray c_array{};
  FillExportedArray(std::move(priv), rows, 0, 0, &c_array);
  if (out_schema != nullptr) {
    Status st = ExportSchema(*batch.schema(), out_schema);
    if (!st.ok()) {
      c_array.release(&c_array);
      return st;
    }
  }
  *out = c_array;
  return Status::OK();
}

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

Status ExportRecordBatchReader(std::shared_ptr<RecordBatchReader> reader,
                               ArrowArrayStream* out) {
  if (out == nullptr) return Status::Invalid("ExportRecordBatchReader: out is NULL");
  if (reader == nullptr)
    return Status::Invalid("ExportRecordBatchReader: reader is null");
  auto state = std::make_unique<StreamExport>();
  state->reader = std::move(reader);
  out->get_schema = &StreamGetSchema;
  out->get_next = &StreamGetNext;
  out->get_last_error = &StreamGetLastError;
  out->release = &StreamRelease;
  out->private_data = state.release();
  return Status::OK();
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
  holder->stream = *stream;
  stream->release = nullptr;
  stream->private_data = nullptr;
  if (holder->stream.get_schema == nullptr || holder->stream.get_next == nullptr) {
    return Status::Invalid("When importing ArrowArrayStream: a callback is NULL");
  }
  ArrowSchema c_schema{};
  const int rc = holder->stream.get_schema(&holder->stream, &c_schema);
  if (rc != 0) return holder->Error("get_schema", rc);
  Result<SchemaPtr> schema = ImportSchema(&c_schema);
  if (!schema.ok()) {
    return schema.status().WithContext("importing the schema of an ArrowArrayStream");
  }
  return std::unique_ptr<RecordBatchReader>(
      new ImportedRecordBatchReader(std::move(holder), std::move(*schema)));
}

}  // namespace lance
