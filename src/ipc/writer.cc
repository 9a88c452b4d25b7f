// SPDX-License-Identifier: Apache-2.0

#include "lance/ipc/writer.h"

#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ipc/compression_internal.h"
#include "ipc/ipc_internal.h"
#include "lance/core/array.h"
#include "lance/core/array_data.h"
#include "lance/macros.h"

namespace lance::ipc {

namespace {

using internal::kContinuationMarker;
using internal::PaddedLength;
namespace fb = internal::fb;

// Collects the field nodes and body buffers of one record batch, in the depth-first
// pre-order the format prescribes. Sliced arrays are normalised here so that the
// output always starts at slot 0: bitmaps are re-packed when the slice does not start
// on a byte boundary, offsets are rebased to start at 0, and children are cut to the
// range the parent references. A null entry in `buffers` is an empty buffer.
class BatchSerializer {
 public:
  Status Visit(const ArrayDataPtr& data, const std::string& path) {
    const DataType& type = *data->type;
    const int64_t offset = data->offset;
    const int64_t length = data->length;
    if (offset < 0 || length < 0) return Fail(path, "negative offset or length");
    if (static_cast<int>(data->buffers.size()) < NumBuffersForType(type)) {
      return Fail(path, "has " + std::to_string(data->buffers.size()) + " buffers, " +
                            type.ToString() + " needs " +
                            std::to_string(NumBuffersForType(type)));
    }
    const int64_t null_count = data->GetNullCount();
    nodes_.emplace_back(length, null_count);
    if (type.id() == TypeId::kNull) return Status::OK();  // no buffers at all
    if (null_count > 0) {
      LANCE_ASSIGN_OR_RAISE(BufferPtr bitmap,
                            SliceBitmap(data->buffers[0], offset, length, path));
      buffers_.push_back(std::move(bitmap));
    } else {
      // Arrow writers send an empty validity buffer when nothing is null.
      buffers_.emplace_back();
    }

    switch (type.id()) {
      case TypeId::kBool: {
        LANCE_ASSIGN_OR_RAISE(BufferPtr bits,
                              SliceBitmap(data->buffers[1], offset, length, path));
        buffers_.push_back(std::move(bits));
        return Status::OK();
      }
      case TypeId::kUtf8:
      case TypeId::kBinary:
        return VisitBinary<int32_t>(*data, path);
      case TypeId::kLargeUtf8:
      case TypeId::kLargeBinary:
        return VisitBinary<int64_t>(*data, path);
      case TypeId::kList:
      case TypeId::kMap:
        return VisitList<int32_t>(*data, path);
      case TypeId::kLargeList:
        return VisitList<int64_t>(*data, path);
      case TypeId::kDictionary: {
        // Only the indices: the values travel in dictionary batches.
        const int64_t width = type.index_type()->byte_width();
        LANCE_ASSIGN_OR_RAISE(BufferPtr indices,
                              SliceBytes(data->buffers[1], offset * width, length * width,
                                         path, "indices"));
        buffers_.push_back(std::move(indices));
        return Status::OK();
      }
      case TypeId::kFixedSizeList: {
        const int64_t size = type.fixed_size();
        LANCE_ASSIGN_OR_RAISE(ArrayDataPtr child,
                              ChildRange(*data, offset * size, length * size, path));
        return Visit(child, path + "." + type.fields()[0]->name());
      }
      case TypeId::kStruct:
        // Struct children are indexed like the struct: the struct's offset applies to
        // them on top of their own.
        for (int i = 0; i < type.num_fields(); ++i) {
          if (static_cast<int>(data->children.size()) <= i || !data->children[i]) {
            return Fail(path, "is missing child " + std::to_string(i));
          }
          const ArrayDataPtr& child = data->children[i];
          if (child->length < offset + length) {
            return Fail(path,
                        "child " + std::to_string(i) + " is shorter than the struct");
          }
          LANCE_RETURN_NOT_OK(
              Visit(child->Slice(offset, length), path + "." + type.fields()[i]->name()));
        }
        return Status::OK();
      default: {
        const int64_t width = type.byte_width();
        if (width < 0) return Status::NotImplemented("cannot write ", type.ToString());
        LANCE_ASSIGN_OR_RAISE(
            BufferPtr values,
            SliceBytes(data->buffers[1], offset * width, length * width, path, "values"));
        buffers_.push_back(std::move(values));
        return Status::OK();
      }
    }
  }

  std::vector<fb::FieldNode>& nodes() { return nodes_; }
  std::vector<BufferPtr>& buffers() { return buffers_; }

 private:
  static Status Fail(const std::string& path, const std::string& what) {
    return Status::Invalid("column '", path, "' ", what);
  }

  static Result<BufferPtr> SliceBytes(const BufferPtr& buffer, int64_t start,
                                      int64_t length, const std::string& path,
                                      const char* role) {
    if (length == 0) return BufferPtr();
    if (!buffer || buffer->size() < start + length) {
      return Fail(path, std::string("has a ") + role + " buffer smaller than its slots");
    }
    return Buffer::Slice(buffer, start, length);
  }

  // Bits [bit_offset, bit_offset + length) of `bitmap`, starting at bit 0.
  static Result<BufferPtr> SliceBitmap(const BufferPtr& bitmap, int64_t bit_offset,
                                       int64_t length, const std::string& path) {
    if (length == 0) return BufferPtr();
    const int64_t bytes = bit_util::BytesForBits(length);
    if (!bitmap || bitmap->size() < bit_util::BytesForBits(bit_offset + length)) {
      return Fail(path, "has a bitmap smaller than its slots");
    }
    if (bit_offset % 8 == 0) return Buffer::Slice(bitmap, bit_offset / 8, bytes);
    LANCE_ASSIGN_OR_RAISE(BufferPtr out, Buffer::Allocate(bytes));
    bit_util::CopyBits(bitmap->data(), bit_offset, length, out->mutable_data(), 0);
    return out;
  }

  // Appends the offsets of slots [offset, offset + length) rebased to start at 0 and
  // returns the referenced range [*first, *last) of the data or child.
  template <typename OffsetT>
  Status AppendOffsets(const ArrayData& data, const std::string& path, int64_t* first,
                       int64_t* last) {
    constexpr int64_t kWidth = sizeof(OffsetT);
    const BufferPtr& offsets = data.buffers[1];
    if (data.length == 0) {
      // One zero offset: a valid offsets buffer for zero slots.
      *first = *last = 0;
      LANCE_ASSIGN_OR_RAISE(BufferPtr zero, Buffer::Allocate(kWidth));
      buffers_.push_back(std::move(zero));
      return Status::OK();
    }
    if (!offsets || offsets->size() < (data.offset + data.length + 1) * kWidth) {
      return Fail(path, "has an offsets buffer smaller than its slots");
    }
    // Caller-provided buffers need not be aligned; read through memcpy.
    const uint8_t* raw = offsets->data() + data.offset * kWidth;
    const OffsetT begin = LoadLE<OffsetT>(raw);
    const OffsetT end = LoadLE<OffsetT>(raw + data.length * kWidth);
    if (begin < 0 || end < begin) return Fail(path, "has invalid offsets");
    *first = begin;
    *last = end;
    const int64_t size = (data.length + 1) * kWidth;
    if (begin == 0) {
      buffers_.push_back(Buffer::Slice(offsets, data.offset * kWidth, size));
      return Status::OK();
    }
    LANCE_ASSIGN_OR_RAISE(BufferPtr rebased, Buffer::Allocate(size));
    uint8_t* out = rebased->mutable_data();
    for (int64_t i = 0; i <= data.length; ++i) {
      const OffsetT value = LoadLE<OffsetT>(raw + i * kWidth) - begin;
      std::memcpy(out + i * kWidth, &value, kWidth);
    }
    buffers_.push_back(std::move(rebased));
    return Status::OK();
  }

  template <typename OffsetT>
  Status VisitBinary(const ArrayData& data, const std::string& path) {
    int64_t first = 0;
    int64_t last = 0;
    LANCE_RETURN_NOT_OK(AppendOffsets<OffsetT>(data, path, &first, &last));
    LANCE_ASSIGN_OR_RAISE(BufferPtr bytes,
                          SliceBytes(data.buffers[2], first, last - first, path, "data"));
    buffers_.push_back(std::move(bytes));
    return Status::OK();
  }

  template <typename OffsetT>
  Status VisitList(const ArrayData& data, const std::string& path) {
    int64_t first = 0;
    int64_t last = 0;
    LANCE_RETURN_NOT_OK(AppendOffsets<OffsetT>(data, path, &first, &last));
    LANCE_ASSIGN_OR_RAISE(ArrayDataPtr child,
                          ChildRange(data, first, last - first, path));
    return Visit(child, path + "." + data.type->fields()[0]->name());
  }

  // Child slots [start, start + length) of a list-like array (relative to the child's
  // own offset).
  static Result<ArrayDataPtr> ChildRange(const ArrayData& data, int64_t start,
                                         int64_t length, const std::string& path) {
    if (data.children.empty() || !data.children[0]) return Fail(path, "has no child");
    const ArrayDataPtr& child = data.children[0];
    if (child->length < start + length) {
      return Fail(path, "references child slots past the child's length");
    }
    return child->Slice(start, length);
  }

  std::vector<fb::FieldNode> nodes_;
  std::vector<BufferPtr> buffers_;
};

// The dictionaries of one record batch, by dictionary ordinal (the pre-order numbering of
// dictionary-encoded fields shared with the schema; see DictionaryLayout), with the
// ordinal of the dictionary whose values contain each one (-1 at the batch level).
struct CollectedDictionaries {
  std::vector<ArrayDataPtr> values;
  std::vector<int64_t> parent;
};

// Walks `data` (of `type`) in the schema's pre-order, recording every dictionary.
// Malformed data is skipped here; the serializer reports it.
void CollectDictionaries(const DataType& type, const ArrayDataPtr& data, int64_t parent,
                         int64_t* next, CollectedDictionaries* out) {
  if (type.id() == TypeId::kDictionary) {
    const int64_t ordinal = (*next)++;
    if (ordinal < static_cast<int64_t>(out->values.size())) {
      out->values[ordinal] = data ? data->dictionary : nullptr;
      out->parent[ordinal] = parent;
    }
    const DataTypePtr& value_type = type.value_type();
    const ArrayDataPtr dictionary = data ? data->dictionary : nullptr;
    for (size_t i = 0; value_type && i < value_type->fields().size(); ++i) {
      const ArrayDataPtr child = dictionary && i < dictionary->children.size()
                                     ? dictionary->children[i]
                                     : nullptr;
      CollectDictionaries(*value_type->fields()[i]->type(), child, ordinal, next, out);
    }
    return;
  }
  for (size_t i = 0; i < type.fields().size(); ++i) {
    const ArrayDataPtr child =
        data && i < data->children.size() ? data->children[i] : nullptr;
    CollectDictionaries(*type.fields()[i]->type(), child, parent, next, out);
  }
}

// Appends `0xFFFFFFFF <int32 length> <flatbuffer> <zero padding>` and returns the
// framed size. The padding keeps the body, and so every later message, 8-byte aligned.
Result<int64_t> AppendMetadata(const flatbuffers::FlatBufferBuilder& fbb,
                               BufferBuilder* out) {
  const int64_t size = fbb.GetSize();
  const int64_t padded = PaddedLength(size);
  if (padded > std::numeric_limits<int32_t>::max()) {
    return Status::Invalid("IPC message metadata exceeds 2 GiB");
  }
  const int32_t length = static_cast<int32_t>(padded);
  LANCE_RETURN_NOT_OK(out->AppendValue(kContinuationMarker));
  LANCE_RETURN_NOT_OK(out->AppendValue(length));
  LANCE_RETURN_NOT_OK(out->Append(fbb.GetBufferPointer(), size));
  LANCE_RETURN_NOT_OK(out->AppendZeros(padded - size));
  return 8 + padded;
}

}  // namespace

class IpcWriter::Impl {
 public:
  Impl(SchemaPtr schema, IpcWriteOptions options, bool is_file)
      : schema_(std::move(schema)), options_(options), is_file_(is_file) {}

  Status Start() {
    if (is_file_) {
      LANCE_RETURN_NOT_OK(out_.Append(internal::kArrowMagic, internal::kArrowMagicSize));
      LANCE_RETURN_NOT_OK(out_.AppendZeros(8 - internal::kArrowMagicSize));
    }
    for (const FieldPtr& field : schema_->fields()) {
      num_dictionaries_ += internal::CountDictionaryFields(*field->type());
    }
    written_dictionaries_.resize(static_cast<size_t>(num_dictionaries_));
    flatbuffers::FlatBufferBuilder fbb;
    LANCE_ASSIGN_OR_RAISE(auto schema, internal::SchemaToFlatbuffer(&fbb, *schema_));
    fbb.Finish(fb::CreateMessage(fbb, fb::MetadataVersion::V5, fb::MessageHeader::Schema,
                                 schema.Union(), /*body_length=*/0));
    return AppendMetadata(fbb, &out_).status();
  }

  Status Write(const RecordBatch& batch) {
    if (finished_) return Status::Invalid("IPC writer: WriteRecordBatch after Finish");
    LANCE_RETURN_NOT_OK(CheckBatch(batch));
    BatchSerializer serializer;
    for (int i = 0; i < batch.num_columns(); ++i) {
      LANCE_RETURN_NOT_OK(
          serializer.Visit(batch.column(i)->data(), schema_->field(i)->name()));
    }
    if (num_dictionaries_ > 0) LANCE_RETURN_NOT_OK(WriteDictionaries(batch));
    return WriteMessage(&serializer, batch.num_rows(), /*dictionary_id=*/-1,
                        /*is_delta=*/false);
  }

  // Sends the dictionaries `batch` needs that the reader does not have yet: all of them
  // the first time; later, a delta when a dictionary grew by appending values, a
  // replacement when it changed otherwise (streams only: the file format allows no
  // replacement). Dictionaries inside dictionary values go first, and a replaced one
  // makes its enclosing dictionary be sent again too.
  Status WriteDictionaries(const RecordBatch& batch) {
    CollectedDictionaries current;
    current.values.resize(static_cast<size_t>(num_dictionaries_));
    current.parent.assign(static_cast<size_t>(num_dictionaries_), -1);
    int64_t next = 0;
    for (int i = 0; i < batch.num_columns(); ++i) {
      CollectDictionaries(*schema_->field(i)->type(), batch.column(i)->data(), -1, &next,
                          &current);
    }
    enum class Action { kNone, kFull, kDelta };
    std::vector<Action> actions(static_cast<size_t>(num_dictionaries_), Action::kNone);
    for (int64_t k = num_dictionaries_ - 1; k >= 0; --k) {
      const ArrayDataPtr& now = current.values[k];
      const ArrayDataPtr& before = written_dictionaries_[k];
      if (!now) {
        return Status::Invalid("IPC writer: dictionary-encoded field ", k,
                               " has no dictionary");
      }
      if (!before) {
        actions[k] = Action::kFull;
      } else if (actions[k] == Action::kNone && now != before &&
                 !MakeArray(now)->Equals(*MakeArray(before))) {
        const bool nested = internal::CountDictionaryFields(*now->type) > 0;
        if (!nested && now->length > before->length &&
            MakeArray(now)->Slice(0, before->length)->Equals(*MakeArray(before))) {
          actions[k] = Action::kDelta;
        } else {
          actions[k] = Action::kFull;
        }
      }
      if (actions[k] == Action::kFull && before && is_file_) {
        return Status::Invalid(
            "IPC writer: the dictionary of dictionary-encoded field ", k,
            " changed between record batches; the IPC file format cannot replace a "
            "dictionary (only extend it), use the stream format");
      }
      const int64_t parent = current.parent[k];
      if (actions[k] != Action::kNone && parent >= 0 && written_dictionaries_[parent]) {
        actions[parent] = Action::kFull;  // its values refer to the new dictionary
      }
    }
    for (int64_t k = num_dictionaries_ - 1; k >= 0; --k) {
      if (actions[k] == Action::kNone) continue;
      ArrayDataPtr values = current.values[k];
      if (actions[k] == Action::kDelta) {
        const int64_t old_length = written_dictionaries_[k]->length;
        values = values->Slice(old_length, values->length - old_length);
      }
      BatchSerializer serializer;
      LANCE_RETURN_NOT_OK(serializer.Visit(values, "dictionary " + std::to_string(k)));
      LANCE_RETURN_NOT_OK(
          WriteMessage(&serializer, values->length, k, actions[k] == Action::kDelta));
      written_dictionaries_[k] = current.values[k];
    }
    return Status::OK();
  }

  // Writes a RecordBatch message, or with dictionary_id >= 0 a DictionaryBatch message,
  // of the nodes and buffers collected by `serializer`.
  Status WriteMessage(BatchSerializer* serializer, int64_t num_rows,
                      int64_t dictionary_id, bool is_delta) {
    std::vector<BufferPtr>& buffers = serializer->buffers();
    if (options_.compression != IpcCompression::kNone) {
      for (BufferPtr& buffer : buffers) {
        if (!buffer || buffer->size() == 0) continue;  // empty buffers get no prefix
        LANCE_ASSIGN_OR_RAISE(buffer,
                              internal::CompressBodyBuffer(options_.compression,
                                                           options_.zstd_level, *buffer));
      }
    }
    std::vector<fb::Buffer> layout;
    layout.reserve(buffers.size());
    int64_t body_length = 0;
    for (const BufferPtr& buffer : buffers) {
      const int64_t size = buffer ? buffer->size() : 0;
      layout.emplace_back(body_length, size);
      body_length += PaddedLength(size);
    }

    flatbuffers::FlatBufferBuilder fbb;
    auto nodes = fbb.CreateVectorOfStructs(serializer->nodes());
    auto buffer_specs = fbb.CreateVectorOfStructs(layout);
    flatbuffers::Offset<fb::BodyCompression> compression = 0;
    if (options_.compression == IpcCompression::kZstd) {
      compression = fb::CreateBodyCompression(fbb, fb::CompressionType::ZSTD);
    } else if (options_.compression == IpcCompression::kLz4Frame) {
      compression = fb::CreateBodyCompression(fbb, fb::CompressionType::LZ4_FRAME);
    }
    auto record_batch =
        fb::CreateRecordBatch(fbb, num_rows, nodes, buffer_specs, compression);
    if (dictionary_id >= 0) {
      auto dictionary_batch =
          fb::CreateDictionaryBatch(fbb, dictionary_id, record_batch, is_delta);
      fbb.Finish(fb::CreateMessage(fbb, fb::MetadataVersion::V5,
                                   fb::MessageHeader::DictionaryBatch,
                                   dictionary_batch.Union(), body_length));
    } else {
      fbb.Finish(fb::CreateMessage(fbb, fb::MetadataVersion::V5,
                                   fb::MessageHeader::RecordBatch, record_batch.Union(),
                                   body_length));
    }

    const int64_t message_offset = out_.length();
    LANCE_ASSIGN_OR_RAISE(const int64_t metadata_length, AppendMetadata(fbb, &out_));
    for (const BufferPtr& buffer : buffers) {
      const int64_t size = buffer ? buffer->size() : 0;
      if (size > 0) LANCE_RETURN_NOT_OK(out_.Append(buffer->data(), size));
      LANCE_RETURN_NOT_OK(out_.AppendZeros(PaddedLength(size) - size));
    }
    (dictionary_id >= 0 ? dictionary_blocks_ : blocks_)
        .emplace_back(message_offset, static_cast<int32_t>(metadata_length), body_length);
    return Status::OK();
  }

  Result<BufferPtr> Finish() {
    if (finished_) return Status::Invalid("IPC writer: Finish called twice");
    finished_ = true;
    // End-of-stream marker; files carry it too, for readers that read them as streams.
    LANCE_RETURN_NOT_OK(out_.AppendValue(kContinuationMarker));
    LANCE_RETURN_NOT_OK(out_.AppendValue(int32_t{0}));
    if (is_file_) {
      flatbuffers::FlatBufferBuilder fbb;
      LANCE_ASSIGN_OR_RAISE(auto schema, internal::SchemaToFlatbuffer(&fbb, *schema_));
      auto dictionaries = fbb.CreateVectorOfStructs(dictionary_blocks_);
      auto record_batches = fbb.CreateVectorOfStructs(blocks_);
      fbb.Finish(fb::CreateFooter(fbb, fb::MetadataVersion::V5, schema, dictionaries,
                                  record_batches));
      const int64_t size = fbb.GetSize();
      if (size > std::numeric_limits<int32_t>::max()) {
        return Status::Invalid("IPC file footer exceeds 2 GiB");
      }
      LANCE_RETURN_NOT_OK(out_.Append(fbb.GetBufferPointer(), size));
      LANCE_RETURN_NOT_OK(out_.AppendValue(static_cast<int32_t>(size)));
      LANCE_RETURN_NOT_OK(out_.Append(internal::kArrowMagic, internal::kArrowMagicSize));
    }
    return out_.Finish();
  }

  const SchemaPtr& schema() const { return schema_; }
  int64_t num_record_batches() const { return static_cast<int64_t>(blocks_.size()); }

 private:
  Status CheckBatch(const RecordBatch& batch) const {
    if (batch.num_columns() != schema_->num_fields()) {
      return Status::Invalid("IPC writer: record batch has ", batch.num_columns(),
                             " columns, the schema ",
                             std::to_string(schema_->num_fields()));
    }
    for (int i = 0; i < batch.num_columns(); ++i) {
      const ArrayPtr& column = batch.column(i);
      const FieldPtr& field = schema_->field(i);
      if (!column || !column->data() || !column->type()) {
        return Status::Invalid("IPC writer: column '" + field->name() + "' is null");
      }
      if (!column->type()->Equals(*field->type())) {
        return Status::Invalid("IPC writer: column '" + field->name() + "' has type " +
                               column->type()->ToString() + ", the schema " +
                               field->type()->ToString());
      }
      if (column->length() != batch.num_rows()) {
        return Status::Invalid("IPC writer: column '" + field->name() + "' has " +
                               std::to_string(column->length()) + " rows, the batch " +
                               std::to_string(batch.num_rows()));
      }
    }
    return Status::OK();
  }

  SchemaPtr schema_;
  IpcWriteOptions options_;
  bool is_file_;
  bool finished_ = false;
  BufferBuilder out_;
  std::vector<fb::Block> blocks_;
  std::vector<fb::Block> dictionary_blocks_;
  int64_t num_dictionaries_ = 0;
  // The dictionary last sent for each dictionary ordinal (= id).
  std::vector<ArrayDataPtr> written_dictionaries_;
};

namespace {

Status ValidateOptions(const IpcWriteOptions& options) {
  switch (options.compression) {
    case IpcCompression::kNone:
    case IpcCompression::kLz4Frame:
      return Status::OK();
    case IpcCompression::kZstd:
      return internal::ValidateZstdLevel(options.zstd_level);
  }
  return Status::Invalid("IPC writer: unknown compression ",
                         std::to_string(static_cast<int>(options.compression)));
}

// IpcWriter::MakeFileWriter or MakeStreamWriter: the one-call writers differ only in it.
using MakeWriter = Result<std::unique_ptr<IpcWriter>> (*)(SchemaPtr, IpcWriteOptions);

Result<BufferPtr> WriteOne(MakeWriter make, const RecordBatch& batch,
                           const IpcWriteOptions& options) {
  LANCE_ASSIGN_OR_RAISE(auto writer, make(batch.schema(), options));
  LANCE_RETURN_NOT_OK(writer->WriteRecordBatch(batch));
  return writer->Finish();
}

Result<BufferPtr> WriteAll(MakeWriter make, const SchemaPtr& schema,
                           const std::vector<RecordBatchPtr>& batches,
                           const IpcWriteOptions& options) {
  LANCE_ASSIGN_OR_RAISE(auto writer, make(schema, options));
  for (const RecordBatchPtr& batch : batches) {
    if (!batch) return Status::Invalid("IPC writer: record batch is null");
    LANCE_RETURN_NOT_OK(writer->WriteRecordBatch(*batch));
  }
  return writer->Finish();
}

}  // namespace

IpcWriter::IpcWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
IpcWriter::~IpcWriter() = default;

Result<std::unique_ptr<IpcWriter>> IpcWriter::Make(SchemaPtr schema,
                                                   const IpcWriteOptions& options,
                                                   bool is_file) {
  if (!schema) return Status::Invalid("IPC writer: schema is null");
  LANCE_RETURN_NOT_OK(ValidateOptions(options));
  auto impl = std::make_unique<Impl>(std::move(schema), options, is_file);
  LANCE_RETURN_NOT_OK(impl->Start());
  return std::unique_ptr<IpcWriter>(new IpcWriter(std::move(impl)));
}

Result<std::unique_ptr<IpcWriter>> IpcWriter::MakeFileWriter(SchemaPtr schema,
                                                             IpcWriteOptions options) {
  return Make(std::move(schema), options, /*is_file=*/true);
}

Result<std::unique_ptr<IpcWriter>> IpcWriter::MakeStreamWriter(SchemaPtr schema,
                                                               IpcWriteOptions options) {
  return Make(std::move(schema), options, /*is_file=*/false);
}

Status IpcWriter::WriteRecordBatch(const RecordBatch& batch) {
  return impl_->Write(batch);
}

Result<BufferPtr> IpcWriter::Finish() { return impl_->Finish(); }

const SchemaPtr& IpcWriter::schema() const { return impl_->schema(); }

int64_t IpcWriter::num_record_batches() const { return impl_->num_record_batches(); }

Result<BufferPtr> WriteIpcFile(const RecordBatch& batch, const IpcWriteOptions& options) {
  return WriteOne(&IpcWriter::MakeFileWriter, batch, options);
}

Result<BufferPtr> WriteIpcFile(const SchemaPtr& schema,
                               const std::vector<RecordBatchPtr>& batches,
                               const IpcWriteOptions& options) {
  return WriteAll(&IpcWriter::MakeFileWriter, schema, batches, options);
}

Result<BufferPtr> WriteIpcFile(const Table& table, const IpcWriteOptions& options) {
  return WriteIpcFile(table.schema(), table.batches(), options);
}

Result<BufferPtr> WriteIpcStream(const RecordBatch& batch,
                                 const IpcWriteOptions& options) {
  return WriteOne(&IpcWriter::MakeStreamWriter, batch, options);
}

Result<BufferPtr> WriteIpcStream(const SchemaPtr& schema,
                                 const std::vector<RecordBatchPtr>& batches,
                                 const IpcWriteOptions& options) {
  return WriteAll(&IpcWriter::MakeStreamWriter, schema, batches, options);
}

Result<BufferPtr> WriteIpcStream(const Table& table, const IpcWriteOptions& options) {
  return WriteIpcStream(table.schema(), table.batches(), options);
}

}  // namespace lance::ipc
