// SPDX-License-Identifier: Apache-2.0
// Corrupt input: truncation, random byte flips and targeted damage must give an error
// Status (never a crash, hang or out-of-bounds access; run under ASan+UBSan too).

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "ipc/ipc_internal.h"
#include "lance/ipc/reader.h"
#include "lance/ipc/writer.h"
#include "tests/ipc/ipc_test_util.h"
#include "tests/testing/matchers.h"

namespace lance::ipc {
namespace {

using ::lance::testing::IsError;
using ::lance::testing::IsErrorWith;
using namespace ::lance::ipc::testing;  // NOLINT(build/namespaces)

// A buffer whose allocation is exactly `bytes.size()` long, so that ASan reports any
// read past the end (Buffer::CopyFrom pads to 64 bytes, which would hide it).
BufferPtr ExactBuffer(const std::string& bytes) {
  std::shared_ptr<uint8_t[]> storage(new uint8_t[bytes.size() + (bytes.empty() ? 1 : 0)]);
  std::memcpy(storage.get(), bytes.data(), bytes.size());
  return std::make_shared<Buffer>(storage.get(), static_cast<int64_t>(bytes.size()),
                                  storage);
}

std::string ToString(const BufferPtr& buffer) {
  return std::string(reinterpret_cast<const char*>(buffer->data()), buffer->size());
}

// Uses every returned batch the way a caller would, so that a batch which passed the
// reader's checks but is still unsafe shows up under the sanitizers.
void Touch(const RecordBatch& batch) {
  for (const ArrayPtr& column : batch.columns()) {
    const Status st = column->Validate();
    // Arrow does not check UTF-8 on read and neither do we; everything else that
    // Validate() checks must already hold.
    if (!st.ok()) {
      EXPECT_NE(st.message().find("UTF-8"), std::string::npos) << st.ToString();
    }
    (void)column->ToString();
    EXPECT_TRUE(column->Equals(*column));
  }
}

// Returns the first error of reading everything, or OK with the number of rows read.
Status ReadAllFile(const BufferPtr& bytes, int64_t* rows = nullptr) {
  LANCE_ASSIGN_OR_RAISE(auto reader, IpcFileReader::Open(bytes));
  int64_t total = 0;
  for (int i = 0; i < reader->num_record_batches(); ++i) {
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr batch, reader->ReadRecordBatch(i));
    Touch(*batch);
    total += batch->num_rows();
  }
  if (rows) *rows = total;
  return Status::OK();
}

Status ReadAllStream(const BufferPtr& bytes, int64_t* rows = nullptr) {
  LANCE_ASSIGN_OR_RAISE(auto reader, IpcStreamReader::Open(bytes));
  int64_t total = 0;
  while (true) {
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr batch, reader->Next());
    if (!batch) break;
    Touch(*batch);
    total += batch->num_rows();
  }
  if (rows) *rows = total;
  return Status::OK();
}

// Small inputs with compressed and uncompressed bodies, nested types and nulls.
std::vector<std::string> FileInputs() {
  std::vector<std::string> files;
  for (const char* name :
       {"pyarrow_row_ids_zstd.arrow", "lance_deletions/1-2-13321176393809221197.arrow",
        "pyarrow_types_lz4.arrow", "pyarrow_types_none.arrow"}) {
    files.push_back(ReadFileToString(DataPath(name)));
    EXPECT_FALSE(files.back().empty()) << name;
  }
  RecordBatchPtr batch = TypesBatch();
  IpcWriteOptions options;
  options.compression = IpcCompression::kZstd;
  auto written = WriteIpcFile(batch->schema(), {batch, batch->Slice(1, 2)}, options);
  EXPECT_TRUE(written.ok());
  if (written.ok()) files.push_back(ToString(*written));
  return files;
}

std::vector<std::string> StreamInputs() {
  std::vector<std::string> streams = {
      ReadFileToString(DataPath("pyarrow_types_none.arrows"))};
  RecordBatchPtr batch = TypesBatch();
  for (IpcCompression c : {IpcCompression::kLz4Frame, IpcCompression::kZstd}) {
    IpcWriteOptions options;
    options.compression = c;
    auto written = WriteIpcStream(batch->schema(), {batch, batch->Slice(1, 3)}, options);
    EXPECT_TRUE(written.ok());
    if (written.ok()) streams.push_back(ToString(*written));
  }
  return streams;
}

// Offsets at which a stream may end cleanly: after each message, before the marker.
std::set<int64_t> MessageBoundaries(const std::string& stream) {
  std::set<int64_t> ends;
  BufferPtr bytes = ExactBuffer(stream);
  int64_t offset = 0;
  while (offset < bytes->size()) {
    auto view = internal::ReadMessageAt(bytes, offset, bytes->size());
    if (!view.ok()) break;
    offset = view->end_offset;
    ends.insert(offset);
    if (view->end_of_stream) break;
  }
  return ends;
}

TEST(IpcCorruptTest, EveryTruncatedFileFails) {
  for (const std::string& file : FileInputs()) {
    SCOPED_TRACE("file of " + std::to_string(file.size()) + " bytes");
    ASSERT_OK(ReadAllFile(ExactBuffer(file)));
    for (size_t length = 0; length < file.size(); ++length) {
      const Status st = ReadAllFile(ExactBuffer(file.substr(0, length)));
      ASSERT_FALSE(st.ok()) << "truncated to " << length << " bytes";
      ASSERT_TRUE(st.IsCorrupt()) << st.ToString();
    }
  }
}

TEST(IpcCorruptTest, TruncatedStreamsFailUnlessCutBetweenMessages) {
  for (const std::string& stream : StreamInputs()) {
    int64_t full_rows = 0;
    ASSERT_OK(ReadAllStream(ExactBuffer(stream), &full_rows));
    const std::set<int64_t> boundaries = MessageBoundaries(stream);
    ASSERT_EQ(boundaries.size(), 4u);  // schema, 2 batches, end-of-stream marker
    for (size_t length = 0; length < stream.size(); ++length) {
      int64_t rows = 0;
      const Status st = ReadAllStream(ExactBuffer(stream.substr(0, length)), &rows);
      if (boundaries.count(static_cast<int64_t>(length))) {
        // A stream may end after any message; it then holds fewer batches.
        ASSERT_OK(st);
        EXPECT_LE(rows, full_rows);
      } else {
        ASSERT_FALSE(st.ok()) << "truncated to " << length << " bytes";
        ASSERT_TRUE(st.IsCorrupt()) << st.ToString();
      }
    }
  }
}

TEST(IpcCorruptTest, RandomByteFlipsNeverCrash) {
  // Flips in value bytes are undetectable without checksums, so a flipped input may
  // read successfully; what matters is that every outcome is a Status or a batch that
  // is safe to use. Most flips hit metadata, offsets or compressed data and must fail.
  std::mt19937 rng(20240531);
  int detected = 0;
  int total = 0;
  auto flip_and_read = [&](const std::string& input, bool is_file) {
    for (int round = 0; round < 600; ++round) {
      std::string damaged = input;
      const int flips = 1 + static_cast<int>(rng() % 4);
      for (int f = 0; f < flips; ++f) {
        damaged[rng() % damaged.size()] ^= static_cast<char>(1 + rng() % 255);
      }
      const BufferPtr bytes = ExactBuffer(damaged);
      const Status st = is_file ? ReadAllFile(bytes) : ReadAllStream(bytes);
      ++total;
      if (!st.ok()) {
        ++detected;
        EXPECT_TRUE(st.IsCorrupt() || st.IsNotImplemented() || st.IsInvalid())
            << st.ToString();
      }
    }
  };
  for (const std::string& file : FileInputs()) flip_and_read(file, true);
  for (const std::string& stream : StreamInputs()) flip_and_read(stream, false);
  RecordProperty("detected", detected);
  RecordProperty("total", total);
  EXPECT_GT(detected, total / 4) << detected << " of " << total << " flips detected";
}

// ---- Targeted damage
// --------------------------------------------------------------------

// A stream written by us plus the location of its record batch message, so tests can
// damage specific fields. Our output is 64-byte aligned, so the metadata is not copied
// and its pointers point into `bytes`.
class TargetedTest : public ::testing::Test {
 protected:
  void Load(const RecordBatch& batch, IpcCompression compression) {
    IpcWriteOptions options;
    options.compression = compression;
    ASSERT_OK_AND_ASSIGN(BufferPtr stream, WriteIpcStream(batch, options));
    bytes_ = ToString(stream);
    ASSERT_OK_AND_ASSIGN(auto schema_view,
                         internal::ReadMessageAt(stream, 0, stream->size()));
    message_offset_ = schema_view.end_offset;
    ASSERT_OK_AND_ASSIGN(
        auto view, internal::ReadMessageAt(stream, message_offset_, stream->size()));
    const auto* record_batch = view.message->header_as_RecordBatch();
    ASSERT_NE(record_batch, nullptr);
    nodes_at_ = record_batch->nodes()->Data() - stream->data();
    buffers_at_ = record_batch->buffers()->Data() - stream->data();
    body_at_ = view.body->data() - stream->data();
    body_size_ = view.body->size();
  }

  template <typename T>
  T Get(int64_t at) const {
    T v;
    std::memcpy(&v, bytes_.data() + at, sizeof(T));
    return v;
  }
  template <typename T>
  void Put(int64_t at, T v) {
    std::memcpy(bytes_.data() + at, &v, sizeof(T));
  }
  int64_t NodeField(int node, int field) const {
    return nodes_at_ + node * 16 + field * 8;
  }
  int64_t BufferField(int buffer, int field) const {
    return buffers_at_ + buffer * 16 + field * 8;
  }
  // File offset of the data of body buffer `i`.
  int64_t BufferData(int i) const { return body_at_ + Get<int64_t>(BufferField(i, 0)); }

  Status Read() const { return ReadAllStream(ExactBuffer(bytes_)); }

  static RecordBatchPtr RowIds(int n) {
    std::vector<Opt<uint32_t>> ids;
    for (int i = 0; i < n; ++i) ids.push_back(static_cast<uint32_t>(i % 10));
    SchemaPtr s = schema({field("row_id", uint32(), false)});
    return std::make_shared<RecordBatch>(
        s, n, std::vector<ArrayPtr>{Numeric<uint32_t>(uint32(), ids)});
  }

  static RecordBatchPtr StringsAndLists() {
    SchemaPtr s = schema({field("s", utf8()), field("l", list(int32())),
                          field("f", fixed_size_list(int32(), 2))});
    return std::make_shared<RecordBatch>(
        s, 3,
        std::vector<ArrayPtr>{
            Strings(utf8(), {"ab", kNull, "cde"}),
            Lists(list(int32()), {2, kNull, 1}, Numeric<int32_t>(int32(), {1, 2, 3})),
            Nested(fixed_size_list(int32(), 2), {true, true, true},
                   {Numeric<int32_t>(int32(), {1, 2, 3, 4, 5, 6})})});
  }

  std::string bytes_;
  int64_t message_offset_ = 0;
  int64_t nodes_at_ = 0;
  int64_t buffers_at_ = 0;
  int64_t body_at_ = 0;
  int64_t body_size_ = 0;
};

TEST_F(TargetedTest, BufferOutsideTheBody) {
  Load(*RowIds(1000), IpcCompression::kZstd);
  ASSERT_OK(Read());
  Put<int64_t>(BufferField(1, 0), body_size_ + 8);
  EXPECT_THAT(Read(), IsErrorWith(StatusCode::kCorrupt, "outside"));
  Load(*RowIds(1000), IpcCompression::kZstd);
  Put<int64_t>(BufferField(1, 1), int64_t{1} << 62);
  EXPECT_THAT(Read(), IsErrorWith(StatusCode::kCorrupt, "outside"));
  Load(*RowIds(1000), IpcCompression::kZstd);
  Put<int64_t>(BufferField(1, 0), -8);
  EXPECT_THAT(Read(), IsErrorWith(StatusCode::kCorrupt, "outside"));
}

TEST_F(TargetedTest, CompressedLengthPrefix) {
  Load(*RowIds(1000), IpcCompression::kZstd);
  const int64_t prefix_at = BufferData(1);
  ASSERT_EQ(Get<int64_t>(prefix_at), 4000);
  Put<int64_t>(prefix_at, int64_t{1} << 50);
  EXPECT_THAT(Read(), IsErrorWith(StatusCode::kCorrupt, "more than"));
  Put<int64_t>(prefix_at, 4001);
  EXPECT_THAT(Read(), IsErrorWith(StatusCode::kCorrupt, "zstd"));
  Put<int64_t>(prefix_at, -7);
  EXPECT_THAT(Read(), IsErrorWith(StatusCode::kCorrupt, "negative"));
  // A shorter buffer than its prefix.
  Load(*RowIds(1000), IpcCompression::kLz4Frame);
  Put<int64_t>(BufferField(1, 1), 5);
  EXPECT_THAT(Read(), IsErrorWith(StatusCode::kCorrupt, "prefix"));
  // Garbage instead of a frame.
  Load(*RowIds(1000), IpcCompression::kLz4Frame);
  Put<uint64_t>(BufferData(1) + 8, 0x0123456789abcdefULL);
  EXPECT_THAT(Read(), IsErrorWith(StatusCode::kCorrupt, "lz4"));
}

TEST_F(TargetedTest, FieldNodes) {
  Load(*RowIds(100), IpcCompression::kNone);
  Put<int64_t>(NodeField(0, 0), -1);
  EXPECT_THAT(Read(), IsErrorWith(StatusCode::kCorrupt, "field node"));
  Load(*RowIds(100), IpcCompression::kNone);
  Put<int64_t>(NodeField(0, 0), 1000);  // more rows than the values buffer holds
  EXPECT_THAT(Read(), IsErrorWith(StatusCode::kCorrupt, "values buffer"));
  Load(*RowIds(100), IpcCompression::kNone);
  Put<int64_t>(NodeField(0, 1), 3);  // nulls, but no validity bitmap was written
  EXPECT_THAT(Read(), IsErrorWith(StatusCode::kCorrupt, "validity buffer"));
}

TEST_F(TargetedTest, OffsetsAndChildren) {
  // Buffers: s validity, s offsets, s data, l validity, l offsets, l.item validity,
  // l.item values, f validity, f.item validity, f.item values.
  Load(*StringsAndLists(), IpcCompression::kNone);
  ASSERT_OK(Read());
  Put<int32_t>(BufferData(1) + 4, 9);  // offsets 0, 9, 2, 5
  EXPECT_THAT(Read(), IsErrorWith(StatusCode::kCorrupt, "offsets decrease"));
  Load(*StringsAndLists(), IpcCompression::kNone);
  Put<int32_t>(BufferData(1) + 12, 64);
  EXPECT_THAT(Read(), IsErrorWith(StatusCode::kCorrupt, "data buffer"));
  Load(*StringsAndLists(), IpcCompression::kNone);
  Put<int32_t>(BufferData(1), -1);
  EXPECT_THAT(Read(), IsErrorWith(StatusCode::kCorrupt, "negative first offset"));
  Load(*StringsAndLists(), IpcCompression::kNone);
  Put<int32_t>(BufferData(4) + 12, 4);  // list offsets 0, 2, 2, 4 over 3 child values
  EXPECT_THAT(Read(), IsErrorWith(StatusCode::kCorrupt, "child with 3 values"));
  Load(*StringsAndLists(), IpcCompression::kNone);
  Put<int64_t>(NodeField(4, 0), 5);  // fixed_size_list child: 5 values for 3 x 2
  EXPECT_THAT(Read(), IsErrorWith(StatusCode::kCorrupt, "child has 5 values"));
}

TEST_F(TargetedTest, ValidityBitmapDisagreesWithNullCount) {
  Load(*StringsAndLists(), IpcCompression::kNone);
  Put<uint8_t>(BufferData(0), 0x07);  // marks the null slot of "s" valid
  EXPECT_THAT(Read(), IsErrorWith(StatusCode::kCorrupt, "validity bitmap has 0 nulls"));
}

TEST_F(TargetedTest, MessageFraming) {
  Load(*RowIds(10), IpcCompression::kNone);
  Put<int32_t>(message_offset_ + 4, 1 << 30);
  EXPECT_THAT(Read(), IsErrorWith(StatusCode::kCorrupt, "metadata bytes"));
  Load(*RowIds(10), IpcCompression::kNone);
  Put<int32_t>(message_offset_ + 4, -16);
  EXPECT_THAT(Read(), IsErrorWith(StatusCode::kCorrupt, "metadata bytes"));
  Load(*RowIds(10), IpcCompression::kNone);
  for (int i = 0; i < 16; ++i) Put<uint8_t>(message_offset_ + 8 + i, 0xAB);
  EXPECT_THAT(Read(), IsErrorWith(StatusCode::kCorrupt, "not a valid flatbuffer"));
}

TEST(IpcCorruptFileTest, FooterAndMagic) {
  RecordBatchPtr batch = TypesBatch();
  ASSERT_OK_AND_ASSIGN(BufferPtr written, WriteIpcFile(*batch));
  const std::string file = ToString(written);
  const size_t n = file.size();
  auto read = [](std::string bytes) { return ReadAllFile(ExactBuffer(bytes)); };

  std::string bad = file;
  bad[0] = 'X';
  EXPECT_THAT(read(bad), IsErrorWith(StatusCode::kCorrupt, "ARROW1"));
  bad = file;
  bad[n - 1] = 'X';
  EXPECT_THAT(read(bad), IsErrorWith(StatusCode::kCorrupt, "ARROW1"));
  for (int32_t length : {0, -5, static_cast<int32_t>(n), 1 << 30}) {
    bad = file;
    std::memcpy(bad.data() + n - 10, &length, 4);
    EXPECT_THAT(read(bad), IsErrorWith(StatusCode::kCorrupt, "footer length"));
  }
  int32_t footer_length = 0;
  std::memcpy(&footer_length, file.data() + n - 10, 4);
  bad = file;
  for (int i = 0; i < 8; ++i) bad[n - 10 - footer_length + i] = '\x7f';
  EXPECT_THAT(read(bad), IsErrorWith(StatusCode::kCorrupt, "Footer"));
  EXPECT_THAT(read(std::string("ARROW1\0\0ARROW1", 14)), IsError(StatusCode::kCorrupt));
  EXPECT_THAT(read(""), IsError(StatusCode::kCorrupt));
}

TEST(IpcCorruptFileTest, StreamWithoutSchema) {
  EXPECT_THAT(ReadIpcStream(ExactBuffer(std::string("\xff\xff\xff\xff\0\0\0\0", 8))),
              IsErrorWith(StatusCode::kCorrupt, "before its schema"));
  EXPECT_THAT(ReadIpcStream(ExactBuffer("")),
              IsErrorWith(StatusCode::kCorrupt, "truncated"));
  // A record batch where the schema should be.
  RecordBatchPtr batch = TypesBatch();
  ASSERT_OK_AND_ASSIGN(BufferPtr stream, WriteIpcStream(*batch));
  ASSERT_OK_AND_ASSIGN(auto schema_view,
                       internal::ReadMessageAt(stream, 0, stream->size()));
  BufferPtr rest = Buffer::Slice(stream, schema_view.end_offset,
                                 stream->size() - schema_view.end_offset);
  EXPECT_THAT(ReadIpcStream(rest),
              IsErrorWith(StatusCode::kCorrupt, "instead of a Schema"));
}

}  // namespace
}  // namespace lance::ipc
