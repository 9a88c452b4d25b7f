// SPDX-License-Identifier: Apache-2.0
// What an Arrow IPC stream declares, read from its metadata alone (see limits.h).

#include "lance/ipc/limits.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ipc/ipc_internal.h"
#include "lance/core/enum_names.h"
#include "lance/macros.h"

namespace lance::ipc {

namespace {

namespace fb = internal::fb;

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kPrefixSize = 8;
constexpr int64_t kNotCompressed = -1;

// Counts saturate instead of wrapping: a stream choosing lengths that overflow when
// added must still exceed every cap.
int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t sum = 0;
  return __builtin_add_overflow(a, b, &sum) ? kInt64Max : sum;
}

struct SchemaShape {
  int64_t columns = 0;
  int64_t depth = 0;
  // Dictionary id -> decoded bytes of its current dictionary, -1 before the first
  // batch of the id.
  std::map<int64_t, int64_t> dictionaries;
};

// Walks the field tree with an explicit stack rather than recursion, so that no schema
// can exhaust the call stack; its frames take 16 bytes per level, and the flatbuffers
// verifier has already bounded the depth of tables (64) and their number.
Result<SchemaShape> ShapeOf(const fb::Schema& schema) {
  using Fields = flatbuffers::Vector<flatbuffers::Offset<fb::Field>>;
  struct Frame {
    const Fields* fields;
    uint32_t next;
  };
  SchemaShape shape;
  std::vector<Frame> stack;
  if (schema.fields() != nullptr) stack.push_back({schema.fields(), 0});
  while (!stack.empty()) {
    Frame& top = stack.back();
    if (top.next >= top.fields->size()) {
      stack.pop_back();
      continue;
    }
    const fb::Field* field = top.fields->Get(top.next++);
    if (field == nullptr) return Status::Corrupt("schema holds a null field");
    shape.columns = SaturatingAdd(shape.columns, 1);
    shape.depth = std::max(shape.depth, static_cast<int64_t>(stack.size()));
    if (const fb::DictionaryEncoding* encoding = field->dictionary()) {
      shape.dictionaries.emplace(encoding->id(), -1);
    }
    const Fields* children = field->children();
    // `top` is not used past this point: the push may reallocate the stack.
    if (children != nullptr && children->size() > 0) stack.push_back({children, 0});
  }
  return shape;
}

// Mirrors the reader's codec check (loader.cc), so that both refuse the same streams
// with the same code; the codec itself does not matter here, only that buffers carry
// the length prefix.
Result<bool> IsCompressed(const fb::RecordBatch& batch) {
  const fb::BodyCompression* compression = batch.compression();
  if (compression == nullptr) return false;
  if (compression->method() != fb::BodyCompressionMethod::BUFFER) {
    return Status::NotImplemented("body compression method ",
                                  static_cast<int>(compression->method()),
                                  " is not supported");
  }
  if (compression->codec() != fb::CompressionType::LZ4_FRAME &&
      compression->codec() != fb::CompressionType::ZSTD) {
    return Status::NotImplemented("body compression codec ",
                                  static_cast<int>(compression->codec()),
                                  " is not supported");
  }
  return true;
}

struct BatchFootprint {
  int64_t decoded_bytes = 0;
  int64_t max_array_length = 0;
};

// The decoded bytes of every buffer and the longest node of one batch. Every buffer is
// counted, including those the reader skips (validity bitmaps of fields without nulls):
// Arrow C++ decompresses them all, so a stream must be valid and within the caps either
// way.
Result<BatchFootprint> FootprintOf(const fb::RecordBatch& batch, const Buffer& body) {
  LANCE_ASSIGN_OR_RAISE(const bool compressed, IsCompressed(batch));
  BatchFootprint out;
  if (const auto* nodes = batch.nodes()) {
    for (uint32_t i = 0; i < nodes->size(); ++i) {
      // Struct vectors are only verified 4-byte aligned: fields are copied out.
      const uint8_t* raw = nodes->Data() + i * sizeof(fb::FieldNode);
      const int64_t length = LoadLE<int64_t>(raw);
      const int64_t null_count = LoadLE<int64_t>(raw + 8);
      if (length < 0 || null_count < 0 || null_count > length) {
        return Status::Corrupt("field node ", i, " has length ", length,
                               " and null count ", null_count);
      }
      out.max_array_length = std::max(out.max_array_length, length);
    }
  }
  if (const auto* buffers = batch.buffers()) {
    for (uint32_t i = 0; i < buffers->size(); ++i) {
      const uint8_t* raw = buffers->Data() + i * sizeof(fb::Buffer);
      const int64_t offset = LoadLE<int64_t>(raw);
      const int64_t length = LoadLE<int64_t>(raw + 8);
      if (offset < 0 || length < 0 || offset > body.size() ||
          length > body.size() - offset) {
        return Status::Corrupt("buffer ", i, " [", offset, ", +", length,
                               ") lies outside the ", body.size(), "-byte message body");
      }
      int64_t decoded = length;
      // Empty buffers stay empty under compression: no prefix.
      if (compressed && length > 0) {
        if (length < kPrefixSize) {
          return Status::Corrupt("compressed buffer ", i, " of ", length,
                                 " bytes is shorter than its 8-byte length prefix");
        }
        const int64_t prefix = LoadLE<int64_t>(body.data() + offset);
        if (prefix == kNotCompressed) {
          decoded = length - kPrefixSize;
        } else if (prefix < 0) {
          return Status::Corrupt("compressed buffer ", i, " declares a negative length ",
                                 prefix);
        } else {
          decoded = prefix;
        }
      }
      out.decoded_bytes = SaturatingAdd(out.decoded_bytes, decoded);
    }
  }
  return out;
}

Status LimitError(IpcLimitDetail::Kind kind, int64_t limit, int64_t declared,
                  std::string_view what) {
  Status status =
      Status::Invalid("the Arrow IPC stream declares ", declared, " ", what,
                      ", over the limit of ", limit, " (", IpcLimitKindName(kind), ")");
  return status.WithDetail(std::make_shared<IpcLimitDetail>(kind, limit, declared));
}

Status CheckNotNegative(int64_t value, const char* name) {
  if (value < 0)
    return Status::Invalid("IpcLimits::", name, " is negative (", value, ")");
  return Status::OK();
}

Status ValidateLimits(const IpcLimits& limits) {
  LANCE_RETURN_NOT_OK(CheckNotNegative(limits.max_decoded_bytes, "max_decoded_bytes"));
  LANCE_RETURN_NOT_OK(CheckNotNegative(limits.max_rows, "max_rows"));
  LANCE_RETURN_NOT_OK(CheckNotNegative(limits.max_array_length, "max_array_length"));
  LANCE_RETURN_NOT_OK(CheckNotNegative(limits.max_columns, "max_columns"));
  return CheckNotNegative(limits.max_nesting_depth, "max_nesting_depth");
}

}  // namespace

IpcLimits IpcLimits::Unlimited() {
  IpcLimits limits;
  limits.max_decoded_bytes = kInt64Max;
  limits.max_rows = kInt64Max;
  limits.max_array_length = kInt64Max;
  limits.max_columns = kInt64Max;
  limits.max_nesting_depth = std::numeric_limits<int>::max();
  return limits;
}

namespace {

// The IpcLimits field of each kind.
constexpr auto kLimitKindNames = MakeEnumNames<IpcLimitDetail::Kind>(
    "max_decoded_bytes", "max_rows", "max_array_length", "max_columns",
    "max_nesting_depth");
static_assert(kLimitKindNames.size() == EnumCount(IpcLimitDetail::Kind::kNestingDepth));

}  // namespace

std::string_view IpcLimitKindName(IpcLimitDetail::Kind kind) {
  return kLimitKindNames.Name(kind, "unknown");
}

std::string IpcLimitDetail::ToString() const {
  return StrCat(IpcLimitKindName(kind_), ": ", declared_, " declared, limit ", limit_);
}

namespace {

// Charges a dictionary batch to `stats`; `dictionaries` maps the ids of the schema to
// the decoded size of their current dictionary (negative before the first batch).
Status MeasureDictionaryBatch(const fb::Message& message, const Buffer& body,
                              std::map<int64_t, int64_t>* dictionaries,
                              IpcStreamStats* stats) {
  const fb::DictionaryBatch* batch = message.header_as_DictionaryBatch();
  // The verifier accepts a union whose type is set but whose table is absent.
  if (batch == nullptr || batch->data() == nullptr) {
    return Status::Corrupt("dictionary batch without data");
  }
  auto dictionary = dictionaries->find(batch->id());
  if (dictionary == dictionaries->end()) {
    return Status::Corrupt("dictionary batch for id ", batch->id(),
                           ": no field of the schema uses this id");
  }
  const fb::RecordBatch& data = *batch->data();
  if (data.length() < 0) {
    return Status::Corrupt("dictionary batch has negative length ", data.length());
  }
  LANCE_ASSIGN_OR_RAISE(BatchFootprint footprint, FootprintOf(data, body));
  int64_t& current = dictionary->second;
  int64_t charged = footprint.decoded_bytes;
  if (batch->is_delta() && current >= 0) {
    // The reader appends a delta by concatenating into a new dictionary: the old
    // values are copied once more for every delta, and this is what bounds a
    // stream of many small deltas.
    current = SaturatingAdd(current, footprint.decoded_bytes);
    charged = SaturatingAdd(charged, current);
  } else {
    current = footprint.decoded_bytes;
  }
  stats->decoded_bytes = SaturatingAdd(stats->decoded_bytes, charged);
  stats->max_array_length = std::max(stats->max_array_length, footprint.max_array_length);
  ++stats->dictionary_batches;
  return Status::OK();
}

Status MeasureRecordBatch(const fb::Message& message, const Buffer& body,
                          IpcStreamStats* stats) {
  const fb::RecordBatch* batch = message.header_as_RecordBatch();
  if (batch == nullptr) {
    return Status::Corrupt("record batch message without its header");
  }
  if (batch->length() < 0) {
    return Status::Corrupt("record batch has negative length ", batch->length());
  }
  LANCE_ASSIGN_OR_RAISE(BatchFootprint footprint, FootprintOf(*batch, body));
  stats->rows = SaturatingAdd(stats->rows, batch->length());
  stats->decoded_bytes = SaturatingAdd(stats->decoded_bytes, footprint.decoded_bytes);
  stats->max_array_length = std::max(stats->max_array_length, footprint.max_array_length);
  ++stats->record_batches;
  return Status::OK();
}

// Measures a batch message (anything else is an error) into `stats`.
Status MeasureBatchMessage(const internal::MessageView& view,
                           std::map<int64_t, int64_t>* dictionaries,
                           IpcStreamStats* stats) {
  const fb::Message& message = *view.message;
  const fb::MessageHeader header = message.header_type();
  if (header == fb::MessageHeader::DictionaryBatch) {
    return MeasureDictionaryBatch(message, *view.body, dictionaries, stats);
  }
  if (header == fb::MessageHeader::RecordBatch) {
    return MeasureRecordBatch(message, *view.body, stats);
  }
  return Status::Corrupt("expected a RecordBatch or DictionaryBatch message, found ",
                         internal::MessageHeaderName(header));
}

}  // namespace

Result<IpcStreamStats> MeasureIpcStream(std::string_view stream_bytes) {
  // A view, not a copy: nothing here outlives the call. Metadata that is not 8-byte
  // aligned is copied by ReadMessageAt (flatbuffers verification needs alignment);
  // that is proportional to the metadata.
  const auto bytes =
      std::make_shared<Buffer>(reinterpret_cast<const uint8_t*>(stream_bytes.data()),
                               static_cast<int64_t>(stream_bytes.size()));
  const int64_t size = bytes->size();

  constexpr const char* kSchemaContext = "reading the schema of an Arrow IPC stream";
  auto schema_view = internal::ReadMessageAt(bytes, 0, size);
  if (!schema_view.ok()) return schema_view.status().WithContext(kSchemaContext);
  if (schema_view->end_of_stream) {
    return Status::Corrupt("stream ends before its schema message")
        .WithContext(kSchemaContext);
  }
  const fb::Schema* schema = schema_view->message->header_as_Schema();
  if (schema == nullptr) {
    return Status::Corrupt(
               "stream starts with a ",
               internal::MessageHeaderName(schema_view->message->header_type()),
               " message instead of a Schema")
        .WithContext(kSchemaContext);
  }
  auto shape = ShapeOf(*schema);
  if (!shape.ok()) return shape.status().WithContext(kSchemaContext);

  IpcStreamStats stats;
  stats.columns = shape->columns;
  stats.nesting_depth = shape->depth;
  int64_t offset = schema_view->end_offset;
  int64_t index = 1;
  // A stream may also simply end after its last message, without the marker.
  while (offset < size) {
    const std::string context =
        "reading message " + std::to_string(index) + " of an Arrow IPC stream";
    auto view = internal::ReadMessageAt(bytes, offset, size);
    if (!view.ok()) return view.status().WithContext(context);
    if (view->end_of_stream) break;
    Status st = MeasureBatchMessage(*view, &shape->dictionaries, &stats);
    if (!st.ok()) return st.WithContext(context);
    offset = view->end_offset;
    ++index;
  }
  return stats;
}

Status CheckIpcStreamLimits(const IpcStreamStats& stats, const IpcLimits& limits) {
  using Kind = IpcLimitDetail::Kind;
  LANCE_RETURN_NOT_OK(ValidateLimits(limits));
  // The schema's shape first: it is known before any batch, and a client sending too
  // wide a schema should hear that rather than the size its batches happen to have.
  if (stats.nesting_depth > limits.max_nesting_depth) {
    return LimitError(Kind::kNestingDepth, limits.max_nesting_depth, stats.nesting_depth,
                      "levels of nested fields");
  }
  if (stats.columns > limits.max_columns) {
    return LimitError(Kind::kColumns, limits.max_columns, stats.columns,
                      "fields (counted at every nesting level)");
  }
  if (stats.max_array_length > limits.max_array_length) {
    return LimitError(Kind::kArrayLength, limits.max_array_length, stats.max_array_length,
                      "values in one array");
  }
  if (stats.rows > limits.max_rows) {
    return LimitError(Kind::kRows, limits.max_rows, stats.rows, "rows");
  }
  if (stats.decoded_bytes > limits.max_decoded_bytes) {
    return LimitError(Kind::kDecodedBytes, limits.max_decoded_bytes, stats.decoded_bytes,
                      "decoded bytes");
  }
  return Status::OK();
}

Status CheckIpcStreamLimits(std::string_view stream_bytes, const IpcLimits& limits) {
  // A bad argument is reported before the stream is read.
  LANCE_RETURN_NOT_OK(ValidateLimits(limits));
  LANCE_ASSIGN_OR_RAISE(const IpcStreamStats stats, MeasureIpcStream(stream_bytes));
  return CheckIpcStreamLimits(stats, limits);
}

}  // namespace lance::ipc
