// SPDX-License-Identifier: Apache-2.0
// Decoding of RecordBatch messages into arrays.
//
// The message lists one FieldNode per array and the body buffers of all arrays, both in
// depth-first pre-order over the schema. Everything in them is untrusted, so every node
// length, buffer range, decompressed size and offset is checked here; arrays handed out
// can be accessed without further bounds checks (UTF-8 validity excepted).

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ipc/compression_internal.h"
#include "ipc/ipc_internal.h"
#include "lance/core/array.h"
#include "lance/core/array_data.h"
#include "lance/core/concatenate.h"
#include "lance/macros.h"

namespace lance::ipc::internal {

namespace {

// Backs empty buffers and the lone zero offset of an empty offsets buffer, so that
// arrays of length 0 never need an allocation and always have readable buffers.
alignas(64) constexpr uint8_t kZeroBytes[64] = {};

BufferPtr ZeroBuffer(int64_t size) { return std::make_shared<Buffer>(kZeroBytes, size); }

// a * b, or false on overflow (both operands non-negative).
bool CheckedMul(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_mul_overflow(a, b, out);
}

struct Node {
  int64_t length;
  int64_t null_count;
};

class BatchLoader {
 public:
  // `first_ordinal` is the dictionary ordinal of the first dictionary-encoded field the
  // loader will meet (0 for a record batch; the values of a dictionary start after the
  // dictionary's own ordinal).
  BatchLoader(const fb::RecordBatch& batch, BufferPtr body, IpcCompression codec,
              const DictionaryLayout& layout, const DictionaryMemo& memo,
              int64_t first_ordinal)
      : nodes_(batch.nodes()),
        buffers_(batch.buffers()),
        body_(std::move(body)),
        codec_(codec),
        layout_(layout),
        memo_(memo),
        ordinal_(first_ordinal) {}

  Result<ArrayDataPtr> Load(const Field& field, int depth) {
    if (depth > kMaxNestingDepth) return Fail(field, "nested too deeply");
    const DataType& type = *field.type();
    LANCE_ASSIGN_OR_RAISE(const Node node, NextNode(field));
    const int64_t length = node.length;
    if (type.id() == TypeId::kNull) {
      // No buffers at all; every slot is null whatever the node says.
      return ArrayData::Make(field.type(), length, {nullptr}, length);
    }
    std::vector<BufferPtr> buffers;
    std::vector<ArrayDataPtr> children;
    LANCE_ASSIGN_OR_RAISE(BufferPtr validity, LoadValidity(field, node));
    buffers.push_back(std::move(validity));

    switch (type.id()) {
      case TypeId::kBool: {
        LANCE_ASSIGN_OR_RAISE(BufferPtr values, NextBuffer(field, "values"));
        LANCE_RETURN_NOT_OK(
            CheckSize(field, "values", *values, bit_util::BytesForBits(length)));
        buffers.push_back(std::move(values));
        break;
      }
      case TypeId::kUtf8:
      case TypeId::kBinary:
        LANCE_RETURN_NOT_OK(LoadBinary<int32_t>(field, length, &buffers));
        break;
      case TypeId::kLargeUtf8:
      case TypeId::kLargeBinary:
        LANCE_RETURN_NOT_OK(LoadBinary<int64_t>(field, length, &buffers));
        break;
      case TypeId::kList:
      case TypeId::kMap:
        LANCE_RETURN_NOT_OK(LoadList<int32_t>(field, length, depth, &buffers, &children));
        break;
      case TypeId::kDictionary:
        return LoadDictionary(field, node, std::move(buffers[0]));
      case TypeId::kLargeList:
        LANCE_RETURN_NOT_OK(LoadList<int64_t>(field, length, depth, &buffers, &children));
        break;
      case TypeId::kFixedSizeList: {
        LANCE_ASSIGN_OR_RAISE(ArrayDataPtr child, Load(*type.fields()[0], depth + 1));
        int64_t needed = 0;
        if (!CheckedMul(length, type.fixed_size(), &needed) || child->length < needed) {
          return Fail(field, "child has " + std::to_string(child->length) + " values, " +
                                 std::to_string(length) + " lists of " +
                                 std::to_string(type.fixed_size()) + " need more");
        }
        children.push_back(std::move(child));
        break;
      }
      case TypeId::kStruct:
        for (const FieldPtr& child_field : type.fields()) {
          LANCE_ASSIGN_OR_RAISE(ArrayDataPtr child, Load(*child_field, depth + 1));
          if (child->length < length) {
            return Fail(field, "child '" + child_field->name() + "' has " +
                                   std::to_string(child->length) +
                                   " values, fewer than " + std::to_string(length));
          }
          children.push_back(std::move(child));
        }
        break;
      default: {
        // Every remaining lance type is fixed width: ints, floats, date32, timestamp,
        // fixed_size_binary (possibly 0 bytes wide).
        const int64_t width = type.byte_width();
        if (width < 0) return Status::NotImplemented("cannot load ", type.ToString());
        LANCE_ASSIGN_OR_RAISE(BufferPtr values, NextBuffer(field, "values"));
        int64_t needed = 0;
        if (!CheckedMul(length, width, &needed)) return Fail(field, "length overflows");
        LANCE_RETURN_NOT_OK(CheckSize(field, "values", *values, needed));
        buffers.push_back(std::move(values));
        break;
      }
    }
    return ArrayData::Make(field.type(), length, std::move(buffers), node.null_count,
                           /*offset=*/0, std::move(children));
  }

 private:
  Status Fail(const Field& field, const std::string& what) const {
    return Status::Corrupt("field '" + field.name() + "' (" + field.type()->ToString() +
                           "): " + what);
  }

  Status CheckSize(const Field& field, const char* role, const Buffer& buffer,
                   int64_t needed) const {
    if (buffer.size() < needed) {
      return Fail(field, std::string(role) + " buffer has " +
                             std::to_string(buffer.size()) + " bytes, " +
                             std::to_string(needed) + " needed");
    }
    return Status::OK();
  }

  Result<Node> NextNode(const Field& field) {
    const int64_t count = nodes_ == nullptr ? 0 : nodes_->size();
    if (node_index_ >= count) {
      return Fail(field,
                  "the record batch has only " + std::to_string(count) + " field nodes");
    }
    // Struct vectors are only verified to 4-byte alignment; copying the fields out
    // avoids misaligned 8-byte loads on corrupt input.
    const uint8_t* raw = nodes_->Data() + node_index_ * sizeof(fb::FieldNode);
    ++node_index_;
    Node node{LoadLE<int64_t>(raw), LoadLE<int64_t>(raw + 8)};
    if (node.length < 0 || node.null_count < 0 || node.null_count > node.length) {
      return Fail(field, "field node has length " + std::to_string(node.length) +
                             " and null count " + std::to_string(node.null_count));
    }
    return node;
  }

  // The next body buffer, bounds-checked; decompressed unless `decode` is false (for
  // buffers that are skipped).
  Result<BufferPtr> NextBuffer(const Field& field, const char* role, bool decode = true) {
    const int64_t count = buffers_ == nullptr ? 0 : buffers_->size();
    if (buffer_index_ >= count) {
      return Fail(field, std::string("no ") + role +
                             " buffer: the record batch lists only " +
                             std::to_string(count) + " buffers");
    }
    const uint8_t* raw = buffers_->Data() + buffer_index_ * sizeof(fb::Buffer);
    ++buffer_index_;
    const int64_t offset = LoadLE<int64_t>(raw);
    const int64_t length = LoadLE<int64_t>(raw + 8);
    if (offset < 0 || length < 0 || offset > body_->size() ||
        length > body_->size() - offset) {
      return Fail(field, std::string(role) + " buffer [" + std::to_string(offset) +
                             ", +" + std::to_string(length) + ") lies outside the " +
                             std::to_string(body_->size()) + "-byte message body");
    }
    BufferPtr buffer = Buffer::Slice(body_, offset, length);
    if (!decode) return buffer;
    if (codec_ != IpcCompression::kNone) {
      auto decompressed = DecompressBodyBuffer(codec_, buffer);
      if (!decompressed.ok()) {
        return Fail(field,
                    std::string(role) + " buffer: " + decompressed.status().message());
      }
      buffer = std::move(decompressed).MoveValueUnsafe();
    }
    return EnsureAligned(std::move(buffer));
  }

  Result<BufferPtr> LoadValidity(const Field& field, const Node& node) {
    if (node.null_count == 0) {
      // Writers may omit the bitmap or send one of all ones; either way it is not needed.
      LANCE_RETURN_NOT_OK(NextBuffer(field, "validity", /*decode=*/false));
      return BufferPtr();
    }
    LANCE_ASSIGN_OR_RAISE(BufferPtr bitmap, NextBuffer(field, "validity"));
    LANCE_RETURN_NOT_OK(
        CheckSize(field, "validity", *bitmap, bit_util::BytesForBits(node.length)));
    // Cheap, and it turns bit flips in bitmaps into errors instead of wrong nulls.
    const int64_t nulls =
        node.length - bit_util::CountSetBits(bitmap->data(), 0, node.length);
    if (nulls != node.null_count) {
      return Fail(field, "validity bitmap has " + std::to_string(nulls) +
                             " nulls, the field node says " +
                             std::to_string(node.null_count));
    }
    return bitmap;
  }

  // Loads an offsets buffer of `length` + 1 entries, checks that they are non-negative
  // and non-decreasing, and returns the last one through `end`.
  template <typename OffsetT>
  Result<BufferPtr> LoadOffsets(const Field& field, int64_t length, int64_t* end) {
    LANCE_ASSIGN_OR_RAISE(BufferPtr offsets, NextBuffer(field, "offsets"));
    if (length == 0 && offsets->size() < static_cast<int64_t>(sizeof(OffsetT))) {
      // Writers may send no offsets at all for an empty array.
      *end = 0;
      return ZeroBuffer(sizeof(OffsetT));
    }
    if (length > std::numeric_limits<int64_t>::max() / 8 - 1) {
      return Fail(field, "length overflows");
    }
    LANCE_RETURN_NOT_OK(CheckSize(field, "offsets", *offsets,
                                  (length + 1) * static_cast<int64_t>(sizeof(OffsetT))));
    const OffsetT* values = offsets->data_as<OffsetT>();
    if (values[0] < 0) return Fail(field, "negative first offset");
    for (int64_t i = 0; i < length; ++i) {
      if (values[i + 1] < values[i]) {
        return Fail(field, "offsets decrease at slot " + std::to_string(i));
      }
    }
    *end = static_cast<int64_t>(values[length]);
    return offsets;
  }

  template <typename OffsetT>
  Status LoadBinary(const Field& field, int64_t length, std::vector<BufferPtr>* buffers) {
    int64_t end = 0;
    LANCE_ASSIGN_OR_RAISE(BufferPtr offsets, LoadOffsets<OffsetT>(field, length, &end));
    LANCE_ASSIGN_OR_RAISE(BufferPtr data, NextBuffer(field, "data"));
    if (end > data->size()) {
      return Fail(field, "offsets reach byte " + std::to_string(end) + " of a " +
                             std::to_string(data->size()) + "-byte data buffer");
    }
    buffers->push_back(std::move(offsets));
    buffers->push_back(std::move(data));
    return Status::OK();
  }

  template <typename OffsetT>
  Status LoadList(const Field& field, int64_t length, int depth,
                  std::vector<BufferPtr>* buffers, std::vector<ArrayDataPtr>* children) {
    int64_t end = 0;
    LANCE_ASSIGN_OR_RAISE(BufferPtr offsets, LoadOffsets<OffsetT>(field, length, &end));
    // The child's node and buffers follow this list's buffers in pre-order.
    LANCE_ASSIGN_OR_RAISE(ArrayDataPtr child,
                          Load(*field.type()->fields()[0], depth + 1));
    if (end > child->length) {
      return Fail(field, "offsets reach slot " + std::to_string(end) +
                             " of a child with " + std::to_string(child->length) +
                             " values");
    }
    buffers->push_back(std::move(offsets));
    children->push_back(std::move(child));
    return Status::OK();
  }

  // Indices (checked against the dictionary of the field's id) plus that dictionary.
  Result<ArrayDataPtr> LoadDictionary(const Field& field, const Node& node,
                                      BufferPtr validity) {
    const DataType& type = *field.type();
    const int64_t ordinal = ordinal_;
    // The dictionary's own values (and their dictionaries) are not in this batch.
    ordinal_ += CountDictionaryFields(type);
    if (ordinal < 0 || ordinal >= static_cast<int64_t>(layout_.ids.size())) {
      return Fail(field, "no dictionary id for this field");
    }
    const int64_t id = layout_.ids[static_cast<size_t>(ordinal)];
    auto found = memo_.find(id);
    if (found == memo_.end() || !found->second) {
      return Fail(field, "dictionary id " + std::to_string(id) +
                             " has not been sent before this batch");
    }
    const int64_t length = node.length;
    const int64_t width = type.index_type()->byte_width();
    LANCE_ASSIGN_OR_RAISE(BufferPtr indices, NextBuffer(field, "indices"));
    int64_t needed = 0;
    if (!CheckedMul(length, width, &needed)) return Fail(field, "length overflows");
    LANCE_RETURN_NOT_OK(CheckSize(field, "indices", *indices, needed));
    auto data = ArrayData::Make(field.type(), length, {std::move(validity), indices},
                                node.null_count, 0, {}, found->second);
    const int64_t dictionary_length = found->second->length;
    for (int64_t i = 0; i < length; ++i) {
      if (!data->IsValid(i)) continue;
      const int64_t index = IntegerValueAt(*data, i);
      if (index < 0 || index >= dictionary_length) {
        return Fail(field, "index " + std::to_string(index) + " of slot " +
                               std::to_string(i) + " lies outside the dictionary of " +
                               std::to_string(dictionary_length) + " values (id " +
                               std::to_string(id) + ")");
      }
    }
    return data;
  }

  const flatbuffers::Vector<const fb::FieldNode*>* nodes_;
  const flatbuffers::Vector<const fb::Buffer*>* buffers_;
  BufferPtr body_;
  IpcCompression codec_;
  const DictionaryLayout& layout_;
  const DictionaryMemo& memo_;
  int64_t ordinal_;
  int64_t node_index_ = 0;
  int64_t buffer_index_ = 0;
};

Result<IpcCompression> CodecOf(const fb::RecordBatch& batch) {
  const fb::BodyCompression* compression = batch.compression();
  if (compression == nullptr) return IpcCompression::kNone;
  if (compression->method() != fb::BodyCompressionMethod::BUFFER) {
    return Status::NotImplemented("body compression method ",
                                  std::to_string(static_cast<int>(compression->method())),
                                  " is not supported");
  }
  switch (compression->codec()) {
    case fb::CompressionType::LZ4_FRAME:
      return IpcCompression::kLz4Frame;
    case fb::CompressionType::ZSTD:
      return IpcCompression::kZstd;
  }
  return Status::NotImplemented("body compression codec ",
                                std::to_string(static_cast<int>(compression->codec())),
                                " is not supported");
}

}  // namespace

Result<RecordBatchPtr> RecordBatchFromMessage(const fb::Message& message,
                                              const DecodedSchema& decoded,
                                              const DictionaryMemo& memo,
                                              const BufferPtr& body) {
  const SchemaPtr& schema = decoded.schema;
  const fb::RecordBatch* batch = message.header_as_RecordBatch();
  if (batch == nullptr) {
    return Status::Corrupt(std::string("expected a RecordBatch message, found ") +
                           MessageHeaderName(message.header_type()));
  }
  const int64_t num_rows = batch->length();
  if (num_rows < 0) {
    return Status::Corrupt("record batch has negative length ", num_rows);
  }
  LANCE_ASSIGN_OR_RAISE(const IpcCompression codec, CodecOf(*batch));
  BatchLoader loader(*batch, body, codec, decoded.dictionaries, memo, 0);
  std::vector<ArrayPtr> columns;
  columns.reserve(schema->fields().size());
  for (const FieldPtr& field : schema->fields()) {
    LANCE_ASSIGN_OR_RAISE(ArrayDataPtr data, loader.Load(*field, 0));
    if (data->length != num_rows) {
      return Status::Corrupt("column '" + field->name() + "' has " +
                             std::to_string(data->length) + " rows, the record batch " +
                             std::to_string(num_rows));
    }
    columns.push_back(MakeArray(std::move(data)));
  }
  // Types come from the schema and lengths were checked, so RecordBatch::Make's
  // validation would find nothing more.
  return std::make_shared<RecordBatch>(schema, num_rows, std::move(columns));
}

Status ReadDictionaryBatch(const fb::Message& message, const DecodedSchema& decoded,
                           const BufferPtr& body, DictionaryMemo* memo) {
  const fb::DictionaryBatch* batch = message.header_as_DictionaryBatch();
  if (batch == nullptr) {
    return Status::Corrupt(std::string("expected a DictionaryBatch message, found ") +
                           MessageHeaderName(message.header_type()));
  }
  const int64_t id = batch->id();
  const std::string what = "dictionary batch for id " + std::to_string(id);
  auto entry = decoded.dictionaries.by_id.find(id);
  if (entry == decoded.dictionaries.by_id.end()) {
    return Status::Corrupt(what, ": no field of the schema uses this id");
  }
  const fb::RecordBatch* data = batch->data();
  if (data == nullptr) return Status::Corrupt(what, ": no data");
  if (data->length() < 0) {
    return Status::Corrupt(what, ": negative length ", std::to_string(data->length()));
  }
  LANCE_ASSIGN_OR_RAISE(const IpcCompression codec, CodecOf(*data));
  // The values are a batch of one column of the value type; their own dictionary fields
  // follow this dictionary's ordinal.
  const Field values_field("values", entry->second.value_type);
  BatchLoader loader(*data, body, codec, decoded.dictionaries, *memo,
                     entry->second.ordinal + 1);
  auto loaded = loader.Load(values_field, 1);
  if (!loaded.ok()) return loaded.status().WithContext("reading the " + what);
  ArrayDataPtr values = std::move(loaded).MoveValueUnsafe();
  if (values->length != data->length()) {
    return Status::Corrupt(what, ": the values have ", std::to_string(values->length),
                           " rows, the batch says ", std::to_string(data->length()));
  }
  auto existing = memo->find(id);
  if (batch->is_delta() && existing != memo->end() && existing->second) {
    auto combined = Concatenate({MakeArray(existing->second), MakeArray(values)});
    if (!combined.ok()) {
      return combined.status().WithContext("appending the delta " + what);
    }
    values = (*combined)->data();
  }
  (*memo)[id] = std::move(values);
  return Status::OK();
}

}  // namespace lance::ipc::internal
