// SPDX-License-Identifier: Apache-2.0
// Write -> read round trips through the Arrow IPC file and stream formats.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "ipc/compression_internal.h"
#include "ipc/ipc_internal.h"
#include "lance/ipc/reader.h"
#include "lance/ipc/writer.h"
#include "tests/ipc/ipc_test_util.h"
#include "tests/testing/matchers.h"

namespace lance::ipc {
namespace {

using ::lance::testing::IsError;
using ::lance::testing::IsErrorWith;
using ::lance::testing::IsOk;
using namespace ::lance::ipc::testing;  // NOLINT(build/namespaces)

enum class Format { kFile, kStream };

IpcWriteOptions Options(IpcCompression compression) {
  IpcWriteOptions options;
  options.compression = compression;
  return options;
}

Result<BufferPtr> Write(Format format, const SchemaPtr& schema,
                        const std::vector<RecordBatchPtr>& batches,
                        const IpcWriteOptions& options) {
  return format == Format::kFile ? WriteIpcFile(schema, batches, options)
                                 : WriteIpcStream(schema, batches, options);
}

Result<TablePtr> Read(Format format, BufferPtr bytes) {
  return format == Format::kFile ? ReadIpcFile(std::move(bytes))
                                 : ReadIpcStream(std::move(bytes));
}

// Writes `batches`, reads them back and compares batch by batch.
void CheckRoundTrip(Format format, IpcCompression compression, const SchemaPtr& schema,
                    const std::vector<RecordBatchPtr>& batches) {
  ASSERT_OK_AND_ASSIGN(BufferPtr bytes,
                       Write(format, schema, batches, Options(compression)));
  ASSERT_OK_AND_ASSIGN(TablePtr table, Read(format, bytes));
  ASSERT_TRUE(table->schema()->Equals(*schema, /*check_metadata=*/true));
  ASSERT_EQ(table->batches().size(), batches.size());
  for (size_t i = 0; i < batches.size(); ++i) {
    SCOPED_TRACE("batch " + std::to_string(i));
    ExpectBatchesEqual(*batches[i], *table->batches()[i]);
  }
}

// Arrays of every type with many slots and pseudo-random nulls, so that slices start
// at bit offsets that are not multiples of 8 and span several bitmap bytes.
RecordBatchPtr LargeBatch(int64_t rows, uint32_t seed) {
  std::mt19937 rng(seed);
  auto maybe = [&](auto v) -> Opt<decltype(v)> {
    if (rng() % 5 == 0) return kNull;
    return v;
  };
  std::vector<Opt<bool>> bools;
  std::vector<Opt<int16_t>> i16s;
  std::vector<Opt<uint64_t>> u64s;
  std::vector<Opt<double>> f64s;
  std::vector<Opt<std::string>> strings;
  std::vector<Opt<std::string>> fixed;
  std::vector<Opt<int64_t>> list_sizes;
  std::vector<Opt<int32_t>> list_values;
  std::vector<bool> struct_valid;
  for (int64_t i = 0; i < rows; ++i) {
    bools.push_back(maybe(rng() % 2 == 0));
    i16s.push_back(maybe(static_cast<int16_t>(rng())));
    u64s.push_back(maybe(static_cast<uint64_t>(rng()) << 20));
    f64s.push_back(maybe(static_cast<double>(rng()) / 7.0));
    strings.push_back(maybe(std::string(rng() % 9, static_cast<char>('a' + i % 26))));
    fixed.push_back(maybe(std::string(2, static_cast<char>('A' + i % 26))));
    const auto size = maybe(static_cast<int64_t>(rng() % 4));
    list_sizes.push_back(size);
    for (int64_t k = 0; k < size.value_or(0); ++k) {
      list_values.push_back(maybe(static_cast<int32_t>(rng() % 1000)));
    }
    struct_valid.push_back(rng() % 4 != 0);
  }
  std::vector<Opt<float>> fsl_values;
  for (int64_t i = 0; i < rows * 3; ++i) fsl_values.push_back(maybe(i * 0.5f));
  std::vector<bool> fsl_valid;
  for (int64_t i = 0; i < rows; ++i) fsl_valid.push_back(rng() % 3 != 0);

  auto struct_type = struct_({field("s", utf8()), field("n", int16())});
  SchemaPtr s = schema({
      field("bool", boolean()),
      field("i16", int16()),
      field("u64", uint64()),
      field("f64", float64()),
      field("utf8", utf8()),
      field("large_binary", large_binary()),
      field("fsb2", fixed_size_binary(2)),
      field("list", list(int32())),
      field("large_list", large_list(int32())),
      field("fsl", fixed_size_list(float32(), 3)),
      field("struct", struct_type),
  });
  std::vector<ArrayPtr> columns = {
      Bools(bools),
      Numeric<int16_t>(int16(), i16s),
      Numeric<uint64_t>(uint64(), u64s),
      Numeric<double>(float64(), f64s),
      Strings(utf8(), strings),
      Strings(large_binary(), strings),
      FixedBinary(2, fixed),
      Lists(list(int32()), list_sizes, Numeric<int32_t>(int32(), list_values)),
      Lists(large_list(int32()), list_sizes, Numeric<int32_t>(int32(), list_values)),
      Nested(fixed_size_list(float32(), 3), fsl_valid,
             {Numeric<float>(float32(), fsl_values)}),
      Nested(struct_type, struct_valid,
             {Strings(utf8(), strings), Numeric<int16_t>(int16(), i16s)}),
  };
  return std::make_shared<RecordBatch>(s, rows, std::move(columns));
}

class RoundTripTest
    : public ::testing::TestWithParam<std::tuple<Format, IpcCompression>> {
 protected:
  Format format() const { return std::get<0>(GetParam()); }
  IpcCompression compression() const { return std::get<1>(GetParam()); }
};

TEST_P(RoundTripTest, EveryTypeWithNullsAndNesting) {
  RecordBatchPtr batch = TypesBatch();
  CheckRoundTrip(format(), compression(), batch->schema(), {batch});
}

TEST_P(RoundTripTest, MultipleBatches) {
  RecordBatchPtr batch = TypesBatch();
  CheckRoundTrip(format(), compression(), batch->schema(),
                 {batch, batch->Slice(1, 3), batch->Slice(2, 1), batch});
}

TEST_P(RoundTripTest, EmptyBatch) {
  RecordBatchPtr batch = TypesBatch();
  CheckRoundTrip(format(), compression(), batch->schema(), {batch->Slice(0, 0)});
  CheckRoundTrip(format(), compression(), batch->schema(), {batch->Slice(4, 0)});
}

TEST_P(RoundTripTest, NoBatches) {
  CheckRoundTrip(format(), compression(), TypesSchema(), {});
}

TEST_P(RoundTripTest, EverySliceOfEveryType) {
  // Sliced input must be written as if it started at slot 0: bitmaps re-packed at any
  // bit offset, offsets rebased, list and struct children cut to the referenced range.
  RecordBatchPtr batch = TypesBatch();
  for (int64_t offset = 0; offset <= batch->num_rows(); ++offset) {
    for (int64_t length = 0; offset + length <= batch->num_rows(); ++length) {
      SCOPED_TRACE("slice " + std::to_string(offset) + "+" + std::to_string(length));
      CheckRoundTrip(format(), compression(), batch->schema(),
                     {batch->Slice(offset, length)});
    }
  }
}

TEST_P(RoundTripTest, LargeSlicesAtOddBitOffsets) {
  RecordBatchPtr batch = LargeBatch(300, 7);
  CheckRoundTrip(format(), compression(), batch->schema(),
                 {batch, batch->Slice(13, 150), batch->Slice(1, 298),
                  batch->Slice(299, 1), batch->Slice(64, 64)});
}

TEST_P(RoundTripTest, SlicedChildrenInsideNestedArrays) {
  // A struct whose children are themselves slices (own offsets) and a list whose child
  // is a slice: both offsets must compose with the parent's.
  ArrayPtr ints = Numeric<int32_t>(int32(), {9, 9, 1, kNull, 3, 4, 5, 6})->Slice(2);
  ArrayPtr strs = Strings(utf8(), {"skip", "a", kNull, "ccc", "dd", "e", "f"})->Slice(1);
  auto struct_type = struct_({field("i", int32()), field("s", utf8())});
  ArrayPtr st = Nested(struct_type, {true, true, false, true, true, true}, {ints, strs});
  ArrayPtr list_array =
      Lists(list(int32()), {2, kNull, 1, 3},
            Numeric<int32_t>(int32(), {7, 7, 1, 2, 3, 4, 5, 6})->Slice(2));
  SchemaPtr s = schema({field("st", struct_type), field("l", list(int32()))});
  auto batch = std::make_shared<RecordBatch>(
      s, 3, std::vector<ArrayPtr>{st->Slice(2, 3), list_array->Slice(1, 3)});
  CheckRoundTrip(format(), compression(), s, {batch});
}

TEST_P(RoundTripTest, NonZeroFirstOffsetIsRebased) {
  // Not a slice, yet the offsets start at 3: only bytes [3, 11) may be written.
  std::vector<int32_t> offsets = {3, 5, 5, 11};
  BufferPtr offsets_buffer = BytesBuffer(offsets.data(), 16);
  BufferPtr data = BufferOf("xxxabcdefgh");
  ArrayPtr strings =
      MakeArray(ArrayData::Make(utf8(), 3, {nullptr, offsets_buffer, data}));
  SchemaPtr s = schema({field("s", utf8())});
  auto batch = std::make_shared<RecordBatch>(s, 3, std::vector<ArrayPtr>{strings});
  CheckRoundTrip(format(), compression(), s, {batch});
  ASSERT_OK_AND_ASSIGN(BufferPtr bytes,
                       Write(format(), s, {batch}, Options(compression())));
  ASSERT_OK_AND_ASSIGN(TablePtr table, Read(format(), bytes));
  const auto& read = static_cast<const StringArray&>(*table->batches()[0]->column(0));
  EXPECT_EQ(read.value_offset(0), 0);
  EXPECT_EQ(read.GetView(0), "ab");
  EXPECT_EQ(read.GetView(2), "cdefgh");
}

TEST_P(RoundTripTest, DeletionFileShape) {
  std::vector<Opt<uint32_t>> ids;
  for (uint32_t i = 0; i < 5000; ++i) ids.push_back(i * 7 + (i % 3));
  SchemaPtr s = schema({field("row_id", uint32(), /*nullable=*/false)});
  auto batch = std::make_shared<RecordBatch>(
      s, 5000, std::vector<ArrayPtr>{Numeric<uint32_t>(uint32(), ids)});
  CheckRoundTrip(format(), compression(), s, {batch});
}

INSTANTIATE_TEST_SUITE_P(
    AllFormats, RoundTripTest,
    ::testing::Combine(::testing::Values(Format::kFile, Format::kStream),
                       ::testing::Values(IpcCompression::kNone, IpcCompression::kLz4Frame,
                                         IpcCompression::kZstd)),
    [](const auto& info) {
      return std::string(std::get<0>(info.param) == Format::kFile ? "File" : "Stream") +
             "_" + IpcCompressionName(std::get<1>(info.param));
    });

// ---- Layout of the output
// --------------------------------------------------------------

// Walks the messages of a stream and checks the framing and body alignment rules.
void CheckLayout(const BufferPtr& stream, int64_t start, int64_t limit) {
  int64_t offset = start;
  int messages = 0;
  while (true) {
    ASSERT_EQ(offset % 8, 0) << "message " << messages << " is not 8-byte aligned";
    ASSERT_OK_AND_ASSIGN(internal::MessageView view,
                         internal::ReadMessageAt(stream, offset, limit));
    if (view.end_of_stream) break;
    ++messages;
    EXPECT_EQ(view.metadata->size() % 8, 0) << "metadata not padded to 8 bytes";
    EXPECT_EQ(view.body->size() % 8, 0) << "body length not a multiple of 8";
    if (const auto* batch = view.message->header_as_RecordBatch()) {
      for (const auto* buffer : *batch->buffers()) {
        EXPECT_EQ(buffer->offset() % 8, 0) << "body buffer at " << buffer->offset();
        EXPECT_LE(buffer->offset() + buffer->length(), view.body->size());
      }
    }
    offset = view.end_offset;
  }
  EXPECT_EQ(messages, 3);  // schema + 2 batches
}

TEST(IpcLayoutTest, MessagesAndBuffersAreAligned) {
  RecordBatchPtr batch = TypesBatch();
  for (IpcCompression c :
       {IpcCompression::kNone, IpcCompression::kLz4Frame, IpcCompression::kZstd}) {
    SCOPED_TRACE(IpcCompressionName(c));
    ASSERT_OK_AND_ASSIGN(
        BufferPtr stream,
        WriteIpcStream(batch->schema(), {batch, batch->Slice(1, 2)}, Options(c)));
    CheckLayout(stream, 0, stream->size());
    const std::string tail(
        reinterpret_cast<const char*>(stream->data()) + stream->size() - 8, 8);
    EXPECT_EQ(tail, std::string("\xff\xff\xff\xff\0\0\0\0", 8)) << "end-of-stream marker";

    ASSERT_OK_AND_ASSIGN(
        BufferPtr file,
        WriteIpcFile(batch->schema(), {batch, batch->Slice(1, 2)}, Options(c)));
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(file->data()), 8),
              std::string("ARROW1\0\0", 8));
    EXPECT_EQ(
        std::string(reinterpret_cast<const char*>(file->data()) + file->size() - 6, 6),
        "ARROW1");
    CheckLayout(file, 8, file->size() - 10);
  }
}

TEST(IpcLayoutTest, UncompressedReadIsZeroCopy) {
  RecordBatchPtr batch = TypesBatch();
  ASSERT_OK_AND_ASSIGN(BufferPtr file, WriteIpcFile(*batch));
  ASSERT_OK_AND_ASSIGN(auto reader, IpcFileReader::Open(file));
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr read, reader->ReadRecordBatch(0));
  const BufferPtr& values = read->GetColumnByName("i64")->data()->buffers[1];
  EXPECT_GE(values->data(), file->data());
  EXPECT_LE(values->data() + values->size(), file->data() + file->size());
}

TEST(IpcLayoutTest, MisalignedInputIsReadThroughCopies) {
  RecordBatchPtr batch = TypesBatch();
  ASSERT_OK_AND_ASSIGN(BufferPtr file, WriteIpcFile(*batch));
  // The same bytes at an odd address: every typed buffer must be realigned.
  ASSERT_OK_AND_ASSIGN(BufferPtr padded, Buffer::Allocate(file->size() + 1));
  std::memcpy(padded->mutable_data() + 1, file->data(), file->size());
  BufferPtr odd = Buffer::Slice(padded, 1, file->size());
  ASSERT_OK_AND_ASSIGN(TablePtr table, ReadIpcFile(odd));
  ExpectBatchesEqual(*batch, *table->batches()[0]);
}

// ---- Compression details --------------------------------------------------------------

TEST(IpcCompressionTest, IncompressibleBuffersAreStoredRaw) {
  std::mt19937_64 rng(1);
  std::vector<uint64_t> noise(64);
  for (auto& v : noise) v = rng();
  BufferPtr random = BytesBuffer(noise.data(), 512);
  for (IpcCompression c : {IpcCompression::kLz4Frame, IpcCompression::kZstd}) {
    SCOPED_TRACE(IpcCompressionName(c));
    ASSERT_OK_AND_ASSIGN(BufferPtr stored, internal::CompressBodyBuffer(c, 1, *random));
    int64_t prefix = 0;
    std::memcpy(&prefix, stored->data(), 8);
    EXPECT_EQ(prefix, -1);
    EXPECT_EQ(stored->size(), 8 + 512);
    ASSERT_OK_AND_ASSIGN(BufferPtr back, internal::DecompressBodyBuffer(c, stored));
    EXPECT_TRUE(back->Equals(*random));
  }
}

TEST(IpcCompressionTest, CompressibleBuffersShrink) {
  std::vector<uint32_t> ids(4096);
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<uint32_t>(i % 16);
  BufferPtr data = BytesBuffer(ids.data(), 4 * 4096);
  for (IpcCompression c : {IpcCompression::kLz4Frame, IpcCompression::kZstd}) {
    SCOPED_TRACE(IpcCompressionName(c));
    ASSERT_OK_AND_ASSIGN(BufferPtr stored, internal::CompressBodyBuffer(c, 3, *data));
    int64_t prefix = 0;
    std::memcpy(&prefix, stored->data(), 8);
    EXPECT_EQ(prefix, 4 * 4096);
    EXPECT_LT(stored->size(), data->size() / 2);
    ASSERT_OK_AND_ASSIGN(BufferPtr back, internal::DecompressBodyBuffer(c, stored));
    EXPECT_TRUE(back->Equals(*data));
    // Declaring one byte more or less than the frame holds is caught.
    for (int64_t delta : {-1, 1}) {
      ASSERT_OK_AND_ASSIGN(BufferPtr copy,
                           Buffer::CopyFrom(stored->data(), stored->size()));
      const int64_t wrong = prefix + delta;
      std::memcpy(copy->mutable_data(), &wrong, 8);
      EXPECT_THAT(internal::DecompressBodyBuffer(c, copy), IsError(StatusCode::kCorrupt));
    }
  }
}

TEST(IpcCompressionTest, ImplausibleDeclaredLengthIsRejectedBeforeAllocating) {
  std::string stored(8 + 16, '\0');
  const int64_t huge = int64_t{1} << 50;
  std::memcpy(stored.data(), &huge, 8);
  for (IpcCompression c : {IpcCompression::kLz4Frame, IpcCompression::kZstd}) {
    EXPECT_THAT(internal::DecompressBodyBuffer(c, BufferOf(stored)),
                IsErrorWith(StatusCode::kCorrupt, "more than"));
  }
  EXPECT_THAT(internal::DecompressBodyBuffer(IpcCompression::kZstd, BufferOf("short")),
              IsErrorWith(StatusCode::kCorrupt, "prefix"));
}

// ---- API behaviour --------------------------------------------------------------------

TEST(IpcWriterTest, RejectsBatchesThatDoNotMatchTheSchema) {
  RecordBatchPtr batch = TypesBatch();
  SchemaPtr other = schema({field("x", int64())});
  ASSERT_OK_AND_ASSIGN(auto writer, IpcWriter::MakeFileWriter(other));
  EXPECT_THAT(writer->WriteRecordBatch(*batch),
              IsErrorWith(StatusCode::kInvalid, "columns"));
  SchemaPtr retyped = schema({field("id", int64())});
  auto one =
      std::make_shared<RecordBatch>(retyped, 4, std::vector<ArrayPtr>{batch->column(0)});
  ASSERT_OK_AND_ASSIGN(auto writer2, IpcWriter::MakeStreamWriter(retyped));
  EXPECT_THAT(writer2->WriteRecordBatch(*one), IsErrorWith(StatusCode::kInvalid, "type"));
}

TEST(IpcWriterTest, FinishTwiceAndWriteAfterFinishFail) {
  RecordBatchPtr batch = TypesBatch();
  ASSERT_OK_AND_ASSIGN(auto writer, IpcWriter::MakeFileWriter(batch->schema()));
  ASSERT_OK(writer->WriteRecordBatch(*batch));
  EXPECT_EQ(writer->num_record_batches(), 1);
  ASSERT_OK(writer->Finish());
  EXPECT_THAT(writer->Finish(), IsError(StatusCode::kInvalid));
  EXPECT_THAT(writer->WriteRecordBatch(*batch), IsError(StatusCode::kInvalid));
}

TEST(IpcWriterTest, RejectsBadOptions) {
  IpcWriteOptions options;
  options.compression = IpcCompression::kZstd;
  options.zstd_level = 1000;
  EXPECT_THAT(IpcWriter::MakeFileWriter(TypesSchema(), options),
              IsErrorWith(StatusCode::kInvalid, "zstd level"));
  EXPECT_THAT(IpcWriter::MakeFileWriter(nullptr), IsError(StatusCode::kInvalid));
}

TEST(IpcWriterTest, RejectsArraysWithShortBuffers) {
  // Claims 10 int32 values over a 16-byte buffer.
  std::vector<int32_t> four = {1, 2, 3, 4};
  ArrayPtr bad =
      MakeArray(ArrayData::Make(int32(), 10, {nullptr, BytesBuffer(four.data(), 16)}));
  SchemaPtr s = schema({field("x", int32())});
  auto batch = std::make_shared<RecordBatch>(s, 10, std::vector<ArrayPtr>{bad});
  EXPECT_THAT(WriteIpcFile(*batch), IsErrorWith(StatusCode::kInvalid, "'x'"));
}

TEST(IpcReaderTest, FileReaderRandomAccess) {
  RecordBatchPtr batch = TypesBatch();
  ASSERT_OK_AND_ASSIGN(
      BufferPtr file,
      WriteIpcFile(batch->schema(), {batch->Slice(0, 1), batch->Slice(1, 3)},
                   Options(IpcCompression::kZstd)));
  ASSERT_OK_AND_ASSIGN(auto reader, IpcFileReader::Open(file));
  EXPECT_TRUE(reader->schema()->Equals(*batch->schema(), true));
  ASSERT_EQ(reader->num_record_batches(), 2);
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr second, reader->ReadRecordBatch(1));
  ExpectBatchesEqual(*batch->Slice(1, 3), *second);
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr first, reader->ReadRecordBatch(0));
  ExpectBatchesEqual(*batch->Slice(0, 1), *first);
  EXPECT_THAT(reader->ReadRecordBatch(2), IsError(StatusCode::kInvalid));
  EXPECT_THAT(reader->ReadRecordBatch(-1), IsError(StatusCode::kInvalid));
}

TEST(IpcReaderTest, StreamReaderEndsCleanly) {
  RecordBatchPtr batch = TypesBatch();
  ASSERT_OK_AND_ASSIGN(BufferPtr stream, WriteIpcStream(*batch));
  ASSERT_OK_AND_ASSIGN(auto reader, IpcStreamReader::Open(stream));
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr first, reader->Next());
  ASSERT_NE(first, nullptr);
  for (int i = 0; i < 3; ++i) {
    ASSERT_OK_AND_ASSIGN(RecordBatchPtr end, reader->Next());
    EXPECT_EQ(end, nullptr);
  }
  // Without the end-of-stream marker the stream simply ends after the last message.
  BufferPtr no_eos = Buffer::Slice(stream, 0, stream->size() - 8);
  ASSERT_OK_AND_ASSIGN(TablePtr table, ReadIpcStream(no_eos));
  EXPECT_EQ(table->num_rows(), 4);
}

TEST(IpcReaderTest, LegacyFramingWithoutContinuationMarker) {
  // Before Arrow 0.15 a message started with its int32 metadata length alone, and the
  // stream ended with four zero bytes. The flatbuffers and bodies then sit at offsets
  // that are 4 mod 8, so this also exercises the realigning copies.
  RecordBatchPtr batch = TypesBatch();
  IpcWriteOptions options;
  options.compression = IpcCompression::kLz4Frame;
  ASSERT_OK_AND_ASSIGN(BufferPtr stream,
                       WriteIpcStream(batch->schema(), {batch, batch->Slice(1, 2)}, options));
  std::string legacy;
  int64_t offset = 0;
  while (true) {
    ASSERT_OK_AND_ASSIGN(internal::MessageView view,
                         internal::ReadMessageAt(stream, offset, stream->size()));
    if (view.end_of_stream) break;
    const auto* start = reinterpret_cast<const char*>(stream->data());
    legacy.append(start + offset + 4, view.end_offset - offset - 4);
    offset = view.end_offset;
  }
  legacy.append(4, '\0');
  ASSERT_OK_AND_ASSIGN(TablePtr table, ReadIpcStream(BufferOf(legacy)));
  ASSERT_EQ(table->batches().size(), 2u);
  ExpectBatchesEqual(*batch, *table->batches()[0]);
  ExpectBatchesEqual(*batch->Slice(1, 2), *table->batches()[1]);
}

TEST(IpcReaderTest, FileAndStreamAreNotInterchangeable) {
  RecordBatchPtr batch = TypesBatch();
  ASSERT_OK_AND_ASSIGN(BufferPtr stream, WriteIpcStream(*batch));
  EXPECT_THAT(ReadIpcFile(stream), IsErrorWith(StatusCode::kCorrupt, "ARROW1"));
  ASSERT_OK_AND_ASSIGN(BufferPtr file, WriteIpcFile(*batch));
  EXPECT_THAT(ReadIpcStream(file), IsError(StatusCode::kCorrupt));
  // The stream embedded in a file (after the 8 magic bytes) is a valid stream.
  ASSERT_OK_AND_ASSIGN(TablePtr table,
                       ReadIpcStream(Buffer::Slice(file, 8, file->size() - 8)));
  ExpectBatchesEqual(*batch, *table->batches()[0]);
}

}  // namespace
}  // namespace lance::ipc
