// SPDX-License-Identifier: Apache-2.0
// Arrow C Data Interface and C Stream Interface: the export half (see c_data.cc for the
// design notes and the layout helpers shared with import).

#include <cerrno>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/c_data_internal.h"
#include "lance/core/array_data.h"
#include "lance/core/buffer.h"
#include "lance/core/c_data.h"
#include "lance/macros.h"

namespace lance {

namespace {

// ------------------------------------------------------------------------------------
// Schema export
// ------------------------------------------------------------------------------------

// The format's unit letter: the first of lance's unit suffix (s, ms, us, ns).
char TimeUnitChar(TimeUnit unit) { return TimeUnitSuffix(unit)[0]; }

Result<std::string> FormatOf(const DataType& type) {
  if (const char code = cdata::PrimitiveFormatOf(type.id()); code != '\0') {
    return std::string(1, code);
  }
  switch (type.id()) {
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
    default:  // the one-character formats, above
      break;
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

// The child nodes and the dictionary node an exported node (ArrowSchema or ArrowArray)
// owns.
template <typename CStruct>
struct ExportedNodes {
  std::vector<CStruct> children;  // sized once, so child addresses stay stable
  std::vector<CStruct*> child_ptrs;
  // Of a schema: the dictionary's value type; of an array: its values (release == NULL
  // if none).
  CStruct dictionary{};

  // Children still present (not moved out by the consumer) go with the parent; this also
  // cleans up partially built nodes when an export fails half-way.
  ~ExportedNodes() {
    for (CStruct& child : children) {
      if (child.release != nullptr) child.release(&child);
    }
    if (dictionary.release != nullptr) dictionary.release(&dictionary);
  }
};

// The `release` of an exported node whose private data is a `Private`.
template <typename Private, typename CStruct>
void ReleaseExported(CStruct* node) {
  if (node == nullptr || node->release == nullptr) return;
  delete static_cast<Private*>(node->private_data);
  node->private_data = nullptr;
  node->release = nullptr;
}

// Everything an exported ArrowSchema node points to.
struct SchemaExport : ExportedNodes<ArrowSchema> {
  std::string format;
  std::string name;
  std::string metadata;
};

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
  if (static_cast<int64_t>(fields.size()) != cdata::ExpectedChildren(type)) {
    return Status::Invalid("type " + type.ToString() + " has " +
                           std::to_string(fields.size()) + " child fields, expected " +
                           std::to_string(cdata::ExpectedChildren(type)));
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
  out->release = &ReleaseExported<SchemaExport, ArrowSchema>;
  out->private_data = priv.release();
  return Status::OK();
}

// ------------------------------------------------------------------------------------
// Array export
// ------------------------------------------------------------------------------------

// Everything an exported ArrowArray node points to. `data` keeps this level's lance
// buffers alive; children hold their own ArrayData, so each node is independent.
struct ArrayExport : ExportedNodes<ArrowArray> {
  ArrayDataPtr data;
  std::vector<const void*> buffers;
};

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
  out->release = &ReleaseExported<ArrayExport, ArrowArray>;
  out->private_data = priv.release();
}

// The pointer to export for non-validity buffer `index` that must hold `required` bytes.
// A missing or short buffer is only tolerated when it can be replaced by cdata::kZeros
// without changing any value a consumer may legitimately read (an empty array, or an
// empty data buffer); anything else would let the consumer read out of bounds.
Result<const void*> ExportBufferPointer(const BufferPtr& buffer, int index,
                                        int64_t required, int64_t length) {
  if (buffer != nullptr && buffer->size() >= required && buffer->data() != nullptr) {
    return static_cast<const void*>(buffer->data());
  }
  if ((length == 0 || required == 0) &&
      required <= static_cast<int64_t>(sizeof(cdata::kZeros))) {
    return static_cast<const void*>(cdata::kZeros);
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
  if (cdata::ValueWidth(type) <= 0) {
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
  } else if (const int64_t width = cdata::ValueWidth(type);
             width > 0 || id == TypeId::kFixedSizeBinary) {
    int64_t required = 0;
    if (!cdata::CheckedMul(end, width, &required)) {
      return Status::Invalid("values size overflows");
    }
    LANCE_ASSIGN_OR_RAISE(priv->buffers[1],
                          ExportBufferPointer(data.buffers[1], 1, required, length));
  } else if (const int ow = cdata::OffsetWidth(id); ow > 0) {
    int64_t required = 0;
    if (!cdata::CheckedAdd(end, 1, &required) ||
        !cdata::CheckedMul(required, ow, &required)) {
      return Status::Invalid("offsets size overflows");
    }
    LANCE_ASSIGN_OR_RAISE(priv->buffers[1],
                          ExportBufferPointer(data.buffers[1], 1, required, length));
    const auto* offsets = static_cast<const uint8_t*>(priv->buffers[1]);
    const int64_t first = cdata::ReadOffset(offsets, ow, data.offset);
    const int64_t last = cdata::ReadOffset(offsets, ow, end);
    if (first < 0 || last < first) {
      return Status::Invalid("offsets [" + std::to_string(first) + ", " +
                             std::to_string(last) + "] are out of order");
    }
    if (cdata::IsBinaryLike(id)) {
      LANCE_ASSIGN_OR_RAISE(priv->buffers[2],
                            ExportBufferPointer(data.buffers[2], 2, last, length));
    } else {
      child_required = last;
    }
  } else if (id == TypeId::kFixedSizeList) {
    if (!cdata::CheckedMul(end, type.fixed_size(), &child_required)) {
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
    const std::string child_path = cdata::ChildPath(
        path, static_cast<int64_t>(i),
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
  LANCE_ASSIGN_OR_RAISE(const int64_t end, cdata::SlotsEnd(offset, length));
  const int n_buffers = NumBuffersForType(type);
  if (static_cast<int>(data->buffers.size()) != n_buffers) {
    return Status::Invalid(type.ToString() + " ArrayData has " +
                           std::to_string(data->buffers.size()) + " buffers, expected " +
                           std::to_string(n_buffers));
  }
  if (id == TypeId::kNull) return ExportNullArray(data, length, offset, out);
  const int64_t expected_children = cdata::ExpectedChildren(type);
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

// Hands the exported `*c_array` to `*out` once `export_schema` (the caller's schema, when
// it asked for one) has succeeded; releases it otherwise, so a failed export leaves
// nothing to release.
template <typename ExportSchemaFn>
Status HandOver(ArrowArray* c_array, ArrowArray* out,
                const ExportSchemaFn& export_schema) {
  Status st = export_schema();
  if (!st.ok()) {
    c_array->release(c_array);
    return st;
  }
  *out = *c_array;
  return Status::OK();
}

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
  return HandOver(&c_array, out, [&] {
    return out_schema ? ExportType(*array.type(), out_schema) : Status::OK();
  });
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
    const std::string path = cdata::ChildPath("", i, batch.schema()->field(i)->name());
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
  return HandOver(&c_array, out, [&] {
    return out_schema ? ExportSchema(*batch.schema(), out_schema) : Status::OK();
  });
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

}  // namespace lance
