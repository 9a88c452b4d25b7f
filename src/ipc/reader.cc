// SPDX-License-Identifier: Apache-2.0

#include "lance/ipc/reader.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ipc/ipc_internal.h"
#include "lance/macros.h"

namespace lance::ipc {

namespace {

using internal::kArrowMagic;
using internal::kArrowMagicSize;
using internal::MessageView;
namespace fb = internal::fb;

// Leading magic padded to 8 bytes, and the trailer: int32 footer length + magic.
constexpr int64_t kFileHeaderSize = 8;
constexpr int64_t kFileTrailerSize = 4 + kArrowMagicSize;

struct Block {
  int64_t offset;
  int32_t metadata_length;
  int64_t body_length;
};

// Messages of a header other than RecordBatch where a record batch is expected.
Status UnexpectedHeader(const MessageView& view) {
  const fb::MessageHeader header = view.message->header_type();
  return Status::Corrupt(std::string("expected a RecordBatch message, found ") +
                         internal::MessageHeaderName(header));
}

// Reads one footer block (a record batch or dictionary block), checked against `limit`.
Result<Block> ReadBlock(const flatbuffers::Vector<const fb::Block*>* blocks, uint32_t i,
                        int64_t limit, const char* kind) {
  // Copied out field by field: struct vectors are only verified 4-byte aligned.
  const uint8_t* raw = blocks->Data() + i * sizeof(fb::Block);
  const Block block{LoadLE<int64_t>(raw), LoadLE<int32_t>(raw + 8),
                    LoadLE<int64_t>(raw + 16)};
  if (block.offset < kFileHeaderSize || block.offset >= limit ||
      block.metadata_length <= 0 || block.body_length < 0 ||
      block.metadata_length > limit - block.offset ||
      block.body_length > limit - block.offset - block.metadata_length) {
    return Status::Corrupt(kind, " block ", i, " [offset ", block.offset, ", metadata ",
                           block.metadata_length, ", body ", block.body_length,
                           "] lies outside the file's ", limit, " bytes of messages");
  }
  return block;
}

}  // namespace

// ---- IpcFileReader -----------------------------------------------------------------

struct IpcFileReader::State {
  BufferPtr bytes;
  int64_t footer_start = 0;
  internal::DecodedSchema schema;
  // Every dictionary of the file, read at Open(): they apply to all record batches.
  internal::DictionaryMemo dictionaries;
  std::vector<Block> blocks;
};

IpcFileReader::IpcFileReader(std::unique_ptr<State> state) : state_(std::move(state)) {}
IpcFileReader::~IpcFileReader() = default;

Result<std::shared_ptr<IpcFileReader>> IpcFileReader::Open(BufferPtr file_bytes) {
  if (!file_bytes) return Status::Invalid("IPC file reader: no bytes");
  constexpr const char* kContext = "opening an Arrow IPC file";
  const int64_t size = file_bytes->size();
  const uint8_t* data = file_bytes->data();
  if (size < kFileHeaderSize + kFileTrailerSize) {
    return Status::Corrupt("Arrow IPC file of ", size, " bytes is too short")
        .WithContext(kContext);
  }
  if (std::memcmp(data, kArrowMagic, kArrowMagicSize) != 0 ||
      std::memcmp(data + size - kArrowMagicSize, kArrowMagic, kArrowMagicSize) != 0) {
    return Status::Corrupt("missing the ARROW1 magic bytes at the start or end")
        .WithContext(kContext);
  }
  const int32_t footer_length = LoadLE<int32_t>(data + size - kFileTrailerSize);
  const int64_t max_footer = size - kFileHeaderSize - kFileTrailerSize;
  if (footer_length <= 0 || footer_length > max_footer) {
    return Status::Corrupt("footer length ", footer_length, " does not fit in the ", size,
                           "-byte file")
        .WithContext(kContext);
  }
  auto state = std::make_unique<State>();
  state->bytes = std::move(file_bytes);
  state->footer_start = size - kFileTrailerSize - footer_length;
  BufferPtr footer_bytes =
      Buffer::Slice(state->bytes, state->footer_start, footer_length);
  auto footer = internal::VerifyFooter(&footer_bytes);
  if (!footer.ok()) return footer.status().WithContext(kContext);
  auto schema = internal::SchemaFromFlatbuffer((*footer)->schema());
  if (!schema.ok()) return schema.status().WithContext(kContext);
  state->schema = std::move(schema).MoveValueUnsafe();

  if (const auto* blocks = (*footer)->record_batches()) {
    state->blocks.reserve(blocks->size());
    for (uint32_t i = 0; i < blocks->size(); ++i) {
      auto block = ReadBlock(blocks, i, state->footer_start, "record batch");
      if (!block.ok()) return block.status().WithContext(kContext);
      state->blocks.push_back(*block);
    }
  }
  // Dictionaries are read in file order (a delta extends what came before it).
  if (const auto* blocks = (*footer)->dictionaries()) {
    for (uint32_t i = 0; i < blocks->size(); ++i) {
      const std::string context =
          "reading dictionary batch " + std::to_string(i) + " of an Arrow IPC file";
      auto block = ReadBlock(blocks, i, state->footer_start, "dictionary");
      if (!block.ok()) return block.status().WithContext(kContext);
      auto view =
          internal::ReadMessageAt(state->bytes, block->offset, state->footer_start);
      if (!view.ok()) return view.status().WithContext(context);
      if (view->end_of_stream) {
        return Status::Corrupt("block points at an end-of-stream marker")
            .WithContext(context);
      }
      LANCE_RETURN_NOT_OK_CTX(
          internal::ReadDictionaryBatch(*view->message, state->schema, view->body,
                                        &state->dictionaries),
          context);
    }
  }
  return std::shared_ptr<IpcFileReader>(new IpcFileReader(std::move(state)));
}

const SchemaPtr& IpcFileReader::schema() const { return state_->schema.schema; }

int IpcFileReader::num_record_batches() const {
  return static_cast<int>(state_->blocks.size());
}

Result<RecordBatchPtr> IpcFileReader::ReadRecordBatch(int i) const {
  if (i < 0 || i >= num_record_batches()) {
    return Status::Invalid("record batch index ", i,
                           " is out of range; the IPC file has ", num_record_batches());
  }
  const std::string context =
      "reading record batch " + std::to_string(i) + " of an Arrow IPC file";
  const Block& block = state_->blocks[i];
  auto view = internal::ReadMessageAt(state_->bytes, block.offset, state_->footer_start);
  if (!view.ok()) return view.status().WithContext(context);
  if (view->end_of_stream) {
    return Status::Corrupt("block points at an end-of-stream marker")
        .WithContext(context);
  }
  if (view->message->header_type() != fb::MessageHeader::RecordBatch) {
    return UnexpectedHeader(*view).WithContext(context);
  }
  auto batch = internal::RecordBatchFromMessage(*view->message, state_->schema,
                                                state_->dictionaries, view->body);
  if (!batch.ok()) return batch.status().WithContext(context);
  return batch;
}

Result<TablePtr> IpcFileReader::ReadTable() const {
  std::vector<RecordBatchPtr> batches;
  batches.reserve(state_->blocks.size());
  for (int i = 0; i < num_record_batches(); ++i) {
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr batch, ReadRecordBatch(i));
    batches.push_back(std::move(batch));
  }
  return std::make_shared<Table>(state_->schema.schema, std::move(batches));
}

// ---- IpcStreamReader ---------------------------------------------------------------

struct IpcStreamReader::State {
  BufferPtr bytes;
  int64_t offset = 0;
  int64_t batch_index = 0;
  int64_t dictionary_index = 0;
  bool done = false;
  internal::DecodedSchema schema;
  // The dictionaries as of the current position (streams may replace or extend them).
  internal::DictionaryMemo dictionaries;
};

IpcStreamReader::IpcStreamReader(std::unique_ptr<State> state)
    : state_(std::move(state)) {}
IpcStreamReader::~IpcStreamReader() = default;

Result<std::unique_ptr<IpcStreamReader>> IpcStreamReader::Open(BufferPtr stream_bytes) {
  if (!stream_bytes) return Status::Invalid("IPC stream reader: no bytes");
  constexpr const char* kContext = "reading the schema of an Arrow IPC stream";
  auto view = internal::ReadMessageAt(stream_bytes, 0, stream_bytes->size());
  if (!view.ok()) return view.status().WithContext(kContext);
  if (view->end_of_stream) {
    return Status::Corrupt("stream ends before its schema message").WithContext(kContext);
  }
  const fb::Schema* fb_schema = view->message->header_as_Schema();
  if (fb_schema == nullptr) {
    return Status::Corrupt("stream starts with a ",
                           internal::MessageHeaderName(view->message->header_type()),
                           " message instead of a Schema")
        .WithContext(kContext);
  }
  auto schema = internal::SchemaFromFlatbuffer(fb_schema);
  if (!schema.ok()) return schema.status().WithContext(kContext);
  auto state = std::make_unique<State>();
  state->bytes = std::move(stream_bytes);
  state->offset = view->end_offset;
  state->schema = std::move(schema).MoveValueUnsafe();
  return std::unique_ptr<IpcStreamReader>(new IpcStreamReader(std::move(state)));
}

Result<std::unique_ptr<IpcStreamReader>> IpcStreamReader::Open(BufferPtr stream_bytes,
                                                               const IpcLimits& limits) {
  if (!stream_bytes) return Status::Invalid("IPC stream reader: no bytes");
  LANCE_RETURN_NOT_OK(CheckIpcStreamLimits(stream_bytes->ToStringView(), limits));
  return Open(std::move(stream_bytes));
}

SchemaPtr IpcStreamReader::schema() const { return state_->schema.schema; }

Result<RecordBatchPtr> IpcStreamReader::Next() {
  State& state = *state_;
  while (true) {
    // A stream may also simply end after its last message, without the marker.
    if (state.done || state.offset == state.bytes->size()) {
      state.done = true;
      return RecordBatchPtr();
    }
    const std::string context = "reading record batch " +
                                std::to_string(state.batch_index) +
                                " of an Arrow IPC stream";
    auto view = internal::ReadMessageAt(state.bytes, state.offset, state.bytes->size());
    if (!view.ok()) return view.status().WithContext(context);
    if (view->end_of_stream) {
      state.done = true;
      return RecordBatchPtr();
    }
    if (view->message->header_type() == fb::MessageHeader::DictionaryBatch) {
      // Dictionaries (new, replaced or extended) apply to the batches that follow.
      LANCE_RETURN_NOT_OK_CTX(
          internal::ReadDictionaryBatch(*view->message, state.schema, view->body,
                                        &state.dictionaries),
          "reading dictionary batch " + std::to_string(state.dictionary_index) +
              " of an Arrow IPC stream");
      state.offset = view->end_offset;
      ++state.dictionary_index;
      continue;
    }
    if (view->message->header_type() != fb::MessageHeader::RecordBatch) {
      return UnexpectedHeader(*view).WithContext(context);
    }
    auto batch = internal::RecordBatchFromMessage(*view->message, state.schema,
                                                  state.dictionaries, view->body);
    if (!batch.ok()) return batch.status().WithContext(context);
    state.offset = view->end_offset;
    ++state.batch_index;
    return batch;
  }
}

// ---- Convenience ---------------------------------------------------------------------

Result<TablePtr> ReadIpcFile(BufferPtr file_bytes) {
  LANCE_ASSIGN_OR_RAISE(auto reader, IpcFileReader::Open(std::move(file_bytes)));
  return reader->ReadTable();
}

namespace {

Result<TablePtr> ReadAll(IpcStreamReader& reader) {
  std::vector<RecordBatchPtr> batches;
  while (true) {
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr batch, reader.Next());
    if (!batch) break;
    batches.push_back(std::move(batch));
  }
  return std::make_shared<Table>(reader.schema(), std::move(batches));
}

}  // namespace

Result<TablePtr> ReadIpcStream(BufferPtr stream_bytes) {
  LANCE_ASSIGN_OR_RAISE(auto reader, IpcStreamReader::Open(std::move(stream_bytes)));
  return ReadAll(*reader);
}

Result<TablePtr> ReadIpcStream(BufferPtr stream_bytes, const IpcLimits& limits) {
  LANCE_ASSIGN_OR_RAISE(auto reader,
                        IpcStreamReader::Open(std::move(stream_bytes), limits));
  return ReadAll(*reader);
}

}  // namespace lance::ipc
