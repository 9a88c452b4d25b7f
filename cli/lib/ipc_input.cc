// SPDX-License-Identifier: Apache-2.0
#include "lib/ipc_input.h"

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "lance/core/buffer.h"
#include "lance/ipc/reader.h"
#include "lance/macros.h"
#include "lance/str_cat.h"
#include "lib/input_source.h"
#include "lib/json.h"

namespace lance::cli {

namespace {

constexpr uint32_t kContinuation = 0xFFFFFFFFU;
// The end-of-stream marker: a continuation and a zero metadata length.
constexpr char kEndOfStream[8] = {'\xFF', '\xFF', '\xFF', '\xFF', 0, 0, 0, 0};
// Message header types (Message.fbs, union MessageHeader).
constexpr uint8_t kHeaderSchema = 1;
constexpr uint8_t kHeaderDictionaryBatch = 2;
constexpr uint8_t kHeaderRecordBatch = 3;
// A message's metadata larger than this is refused (Arrow's own limit is far lower in
// practice; this only stops a corrupt length from allocating gigabytes).
constexpr int64_t kMaxMetadataBytes = int64_t{1} << 30;
// The same for one message body read from a pipe (a file's own size bounds it there).
constexpr int64_t kMaxBodyBytes = int64_t{1} << 36;

template <typename T>
T Load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

// Reads a few fields of a flatbuffer table without the generated code: just what is
// needed to find the length of a message's body and the blocks of a file's footer. Every
// offset is checked against the buffer; the full verification happens in lance::ipc when
// the message is decoded.
class FlatTable {
 public:
  static Result<FlatTable> Root(std::string_view buf, const char* what) {
    FlatTable t{buf, 0, what};
    LANCE_ASSIGN_OR_RAISE(auto off, t.U32At(0));
    t.table_ = off;
    LANCE_RETURN_NOT_OK(t.Check(t.table_, 4));
    return t;
  }
  // The position of field `id`, or 0 when it is absent.
  Result<size_t> FieldPos(int id) const {
    LANCE_RETURN_NOT_OK(Check(table_, 4));
    const int64_t vtable =
        static_cast<int64_t>(table_) - Load<int32_t>(buf_.data() + table_);
    if (vtable < 0) return Corrupt();
    LANCE_RETURN_NOT_OK(Check(static_cast<size_t>(vtable), 4));
    const uint16_t vsize = Load<uint16_t>(buf_.data() + vtable);
    const size_t entry = 4 + 2 * static_cast<size_t>(id);
    if (entry + 2 > vsize) return size_t{0};
    LANCE_RETURN_NOT_OK(Check(static_cast<size_t>(vtable) + entry, 2));
    const uint16_t off = Load<uint16_t>(buf_.data() + vtable + entry);
    return off == 0 ? size_t{0} : table_ + off;
  }
  template <typename T>
  Result<T> Scalar(int id, T fallback) const {
    LANCE_ASSIGN_OR_RAISE(auto pos, FieldPos(id));
    if (pos == 0) return fallback;
    LANCE_RETURN_NOT_OK(Check(pos, sizeof(T)));
    return Load<T>(buf_.data() + pos);
  }
  // A vector of structs of `size` bytes: its first element's position and its length.
  Result<std::pair<size_t, uint32_t>> StructVector(int id, size_t size) const {
    LANCE_ASSIGN_OR_RAISE(auto pos, FieldPos(id));
    if (pos == 0) return std::pair<size_t, uint32_t>{0, 0};
    LANCE_ASSIGN_OR_RAISE(auto rel, U32At(pos));
    const size_t vec = pos + rel;
    LANCE_ASSIGN_OR_RAISE(auto count, U32At(vec));
    LANCE_RETURN_NOT_OK(Check(vec + 4, static_cast<size_t>(count) * size));
    return std::pair<size_t, uint32_t>{vec + 4, count};
  }
  const char* data() const { return buf_.data(); }

 private:
  FlatTable(std::string_view buf, size_t table, const char* what)
      : buf_(buf), table_(table), what_(what) {}
  Status Corrupt() const {
    return Status::Corrupt(StrCat("the ", what_, " flatbuffer is malformed"));
  }
  Status Check(size_t pos, size_t n) const {
    if (pos > buf_.size() || n > buf_.size() - pos) return Corrupt();
    return Status::OK();
  }
  Result<uint32_t> U32At(size_t pos) const {
    LANCE_RETURN_NOT_OK(Check(pos, 4));
    return Load<uint32_t>(buf_.data() + pos);
  }
  std::string_view buf_;
  size_t table_;
  const char* what_;
};

struct MessageInfo {
  uint8_t header_type = 0;
  int64_t body_length = 0;
};

// Message { version: short (0); header_type: ubyte (1); header (2); bodyLength: long (3)
// }
Result<MessageInfo> ReadMessageInfo(std::string_view metadata) {
  LANCE_ASSIGN_OR_RAISE(auto table, FlatTable::Root(metadata, "IPC message"));
  MessageInfo info;
  LANCE_ASSIGN_OR_RAISE(info.header_type, table.Scalar<uint8_t>(1, 0));
  LANCE_ASSIGN_OR_RAISE(info.body_length, table.Scalar<int64_t>(3, 0));
  if (info.body_length < 0)
    return Status::Corrupt("an IPC message has a negative body length");
  return info;
}

// Decodes the record batch whose message ends `bytes`, which start with the schema and
// dictionary messages, through lance::ipc's stream reader. The batch's buffers are
// slices of `bytes` (no copy).
Result<RecordBatchPtr> DecodeBatch(std::string bytes) {
  bytes.append(kEndOfStream, sizeof(kEndOfStream));
  LANCE_ASSIGN_OR_RAISE(auto reader,
                        ipc::IpcStreamReader::Open(Buffer::FromString(std::move(bytes))));
  LANCE_ASSIGN_OR_RAISE(auto batch, reader->Next());
  if (batch == nullptr)
    return Status::Corrupt("an IPC record batch message held no batch");
  return batch;
}

Result<SchemaPtr> DecodeSchema(const std::string& schema_message) {
  std::string bytes = schema_message;
  bytes.append(kEndOfStream, sizeof(kEndOfStream));
  LANCE_ASSIGN_OR_RAISE(auto reader,
                        ipc::IpcStreamReader::Open(Buffer::FromString(std::move(bytes))));
  return reader->schema();
}

// Reads exactly n bytes from a sequential source; false if it ends first.
Result<bool> ReadFull(ByteSource* source, char* out, size_t n) {
  size_t done = 0;
  while (done < n) {
    LANCE_ASSIGN_OR_RAISE(auto got, source->Read(out + done, n - done));
    if (got == 0) return false;
    done += got;
  }
  return true;
}

class IpcStreamInput : public RecordBatchReader {
 public:
  explicit IpcStreamInput(FileSource* source) : source_(source) {}

  Status Init() {
    std::string message;
    MessageInfo info;
    LANCE_ASSIGN_OR_RAISE(auto more, ReadMessage(&message, &info));
    if (!more || info.header_type != kHeaderSchema) {
      return Status::Invalid(JsonQuote(source_->path()),
                             " is not an Arrow IPC stream: it does not start with a "
                             "schema message");
    }
    prefix_ = std::move(message);
    LANCE_ASSIGN_OR_RAISE(schema_, DecodeSchema(prefix_));
    return Status::OK();
  }

  SchemaPtr schema() const override { return schema_; }

  Result<RecordBatchPtr> Next() override {
    while (!done_) {
      // The message is read straight after a copy of the prefix, in the buffer it is
      // decoded from.
      std::string bytes = prefix_;
      MessageInfo info;
      LANCE_ASSIGN_OR_RAISE(auto more, ReadMessage(&bytes, &info));
      if (!more) {
        done_ = true;
        break;
      }
      if (info.header_type == kHeaderDictionaryBatch) {
        // Kept, in order, for the batches that follow (replacements and deltas apply as
        // the reader meets them).
        prefix_ = std::move(bytes);
        continue;
      }
      if (info.header_type == kHeaderRecordBatch) return DecodeBatch(std::move(bytes));
      return Status::Corrupt("unexpected IPC message (header type ",
                             static_cast<int>(info.header_type), ") in ",
                             JsonQuote(source_->path()));
    }
    return RecordBatchPtr();
  }

 private:
  // Appends one message (prefix, metadata and body) to *message; false at the end of
  // the stream (an end-of-stream marker, a zero length or the end of the input).
  Result<bool> ReadMessage(std::string* message, MessageInfo* info) {
    const size_t base = message->size();
    char head[8];
    LANCE_ASSIGN_OR_RAISE(auto got, ReadFull(source_, head, 4));
    if (!got) return false;
    if (schema_ == nullptr && std::memcmp(head, "ARRO", 4) == 0) {
      return Status::Invalid(
          JsonQuote(source_->path()),
          " holds the Arrow IPC file format, which is read from its footer at the end: "
          "give a regular file, or send the IPC stream format through pipes and stdin");
    }
    size_t prefix = 4;
    int32_t length = Load<int32_t>(head);
    if (Load<uint32_t>(head) == kContinuation) {
      LANCE_ASSIGN_OR_RAISE(got, ReadFull(source_, head + 4, 4));
      if (!got) return Status::Corrupt("the IPC stream ends inside a message prefix");
      prefix = 8;
      length = Load<int32_t>(head + 4);
    }
    if (length == 0) return false;
    if (length < 0 || length > kMaxMetadataBytes) {
      return Status::Corrupt("an IPC message declares ", length, " metadata bytes");
    }
    message->append(head, prefix);
    message->resize(base + prefix + static_cast<size_t>(length));
    LANCE_ASSIGN_OR_RAISE(got, ReadFull(source_, message->data() + base + prefix,
                                        static_cast<size_t>(length)));
    if (!got) return Status::Corrupt("the IPC stream ends inside a message's metadata");
    LANCE_ASSIGN_OR_RAISE(
        *info, ReadMessageInfo(std::string_view(*message).substr(base + prefix)));
    // A corrupt length must not become a huge allocation: a file's remaining size
    // bounds it, and for pipes kMaxBodyBytes does.
    const int64_t left =
        source_->seekable() ? source_->size() - source_->bytes_read() : kMaxBodyBytes;
    if (info->body_length > left) {
      return Status::Corrupt("an IPC message declares a body of ", info->body_length,
                             " bytes but ", left, " can follow");
    }
    const size_t before = message->size();
    // Room for the end-of-stream marker DecodeBatch adds, so that it does not reallocate.
    message->reserve(before + static_cast<size_t>(info->body_length) +
                     sizeof(kEndOfStream));
    message->resize(before + static_cast<size_t>(info->body_length));
    LANCE_ASSIGN_OR_RAISE(got, ReadFull(source_, message->data() + before,
                                        static_cast<size_t>(info->body_length)));
    if (!got) return Status::Corrupt("the IPC stream ends inside a message's body");
    return true;
  }

  FileSource* source_;
  SchemaPtr schema_;
  std::string prefix_;  // the schema message, then every dictionary message so far
  bool done_ = false;
};

struct Block {
  int64_t offset = 0;
  int32_t metadata_length = 0;
  int64_t body_length = 0;
};

class IpcFileInput : public RecordBatchReader {
 public:
  explicit IpcFileInput(FileSource* source) : source_(source) {}

  Status Init() {
    const int64_t size = source_->size();
    const std::string where = JsonQuote(source_->path());
    if (!source_->seekable()) {
      return Status::Invalid(
          "the Arrow IPC file format needs a regular file (the footer "
          "is at its end); send the stream format for stdin and pipes "
          "(--format arrows)");
    }
    if (size < 18) return Status::Invalid(where, " is too short for an Arrow IPC file");
    char tail[10];
    LANCE_RETURN_NOT_OK(source_->ReadAt(size - 10, tail, 10));
    char magic[8];
    LANCE_RETURN_NOT_OK(source_->ReadAt(0, magic, 8));
    if (std::memcmp(tail + 4, "ARROW1", 6) != 0 || std::memcmp(magic, "ARROW1", 6) != 0) {
      return Status::Invalid(where, " is not an Arrow IPC file (no ARROW1 magic bytes)");
    }
    const int32_t footer_length = Load<int32_t>(tail);
    if (footer_length <= 0 || footer_length > size - 18) {
      return Status::Corrupt(where, ": the IPC footer length ", footer_length,
                             " does not fit the file");
    }
    footer_end_ = size - 10;
    std::string footer(static_cast<size_t>(footer_length), '\0');
    LANCE_RETURN_NOT_OK(
        source_->ReadAt(footer_end_ - footer_length, footer.data(), footer.size()));
    // Footer { version (0); schema (1); dictionaries: [Block] (2); recordBatches (3) }
    LANCE_ASSIGN_OR_RAISE(auto table, FlatTable::Root(footer, "IPC footer"));
    LANCE_ASSIGN_OR_RAISE(auto dictionaries, ReadBlocks(table, 2));
    LANCE_ASSIGN_OR_RAISE(batches_, ReadBlocks(table, 3));
    // The schema message follows the 8 magic bytes; the dictionaries apply to every
    // batch.
    LANCE_ASSIGN_OR_RAISE(prefix_, ReadSchemaMessage());
    LANCE_ASSIGN_OR_RAISE(schema_, DecodeSchema(prefix_));
    for (const Block& block : dictionaries) {
      LANCE_RETURN_NOT_OK(ReadBlock(block, &prefix_));
    }
    return Status::OK();
  }

  SchemaPtr schema() const override { return schema_; }

  Result<RecordBatchPtr> Next() override {
    if (next_ >= batches_.size()) return RecordBatchPtr();
    std::string bytes = prefix_;
    LANCE_RETURN_NOT_OK(ReadBlock(batches_[next_++], &bytes));
    return DecodeBatch(std::move(bytes));
  }

 private:
  Result<std::vector<Block>> ReadBlocks(const FlatTable& table, int id) const {
    // struct Block { offset: long; metaDataLength: int; (4 bytes padding) bodyLength:
    // long }
    LANCE_ASSIGN_OR_RAISE(auto vec, table.StructVector(id, 24));
    std::vector<Block> blocks;
    for (uint32_t i = 0; i < vec.second; ++i) {
      const char* p = table.data() + vec.first + 24 * static_cast<size_t>(i);
      Block b{Load<int64_t>(p), Load<int32_t>(p + 8), Load<int64_t>(p + 16)};
      if (b.offset < 8 || b.metadata_length <= 0 || b.body_length < 0 ||
          b.metadata_length > footer_end_ - b.offset ||
          b.body_length > footer_end_ - b.offset - b.metadata_length) {
        return Status::Corrupt(JsonQuote(source_->path()), ": IPC block ", i,
                               " lies outside the file");
      }
      blocks.push_back(b);
    }
    return blocks;
  }

  // Appends the block's message to *bytes.
  Status ReadBlock(const Block& b, std::string* bytes) {
    const size_t base = bytes->size();
    const auto n = static_cast<size_t>(b.metadata_length + b.body_length);
    bytes->reserve(base + n + sizeof(kEndOfStream));
    bytes->resize(base + n);
    return source_->ReadAt(b.offset, bytes->data() + base, n);
  }

  Result<std::string> ReadSchemaMessage() {
    char head[8];
    LANCE_RETURN_NOT_OK(source_->ReadAt(8, head, 8));
    int64_t prefix = 4;
    int32_t length = Load<int32_t>(head);
    if (Load<uint32_t>(head) == kContinuation) {
      prefix = 8;
      length = Load<int32_t>(head + 4);
    }
    if (length <= 0 || length > footer_end_ - 8 - prefix) {
      return Status::Corrupt(JsonQuote(source_->path()),
                             ": no schema message after the IPC magic bytes");
    }
    std::string message(static_cast<size_t>(prefix + length), '\0');
    LANCE_RETURN_NOT_OK(source_->ReadAt(8, message.data(), message.size()));
    return message;
  }

  FileSource* source_;
  SchemaPtr schema_;
  std::string prefix_;
  std::vector<Block> batches_;
  size_t next_ = 0;
  int64_t footer_end_ = 0;
};

}  // namespace

Result<std::unique_ptr<RecordBatchReader>> OpenIpcStreamInput(FileSource* source) {
  auto reader = std::make_unique<IpcStreamInput>(source);
  LANCE_RETURN_NOT_OK(reader->Init());
  return std::unique_ptr<RecordBatchReader>(std::move(reader));
}

Result<std::unique_ptr<RecordBatchReader>> OpenIpcFileInput(FileSource* source) {
  auto reader = std::make_unique<IpcFileInput>(source);
  LANCE_RETURN_NOT_OK(reader->Init());
  return std::unique_ptr<RecordBatchReader>(std::move(reader));
}

Result<std::unique_ptr<RecordBatchReader>> OpenIpcInput(FileSource* source) {
  if (source->seekable() && source->size() >= 6) {
    char magic[6];
    LANCE_RETURN_NOT_OK(source->ReadAt(0, magic, 6));
    if (std::memcmp(magic, "ARROW1", 6) == 0) return OpenIpcFileInput(source);
  }
  return OpenIpcStreamInput(source);
}

}  // namespace lance::cli
