// SPDX-License-Identifier: Apache-2.0
// Caps on what an Arrow IPC stream declares (limits.h): what MeasureIpcStream counts,
// each cap refusing with its own detail kind, hostile lengths refused before anything
// is allocated, damaged input refused as Corrupt (run under ASan+UBSan too, where an
// allocation of 2^62 bytes or an overflowing sum would abort the test).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "ipc/ipc_internal.h"
#include "lance/ipc/limits.h"
#include "lance/ipc/reader.h"
#include "lance/ipc/writer.h"
#include "tests/ipc/ipc_test_util.h"
#include "tests/testing/matchers.h"

namespace lance::ipc {
namespace {

using namespace ::lance::testing;  // NOLINT(build/namespaces): the test helpers
using ::testing::HasSubstr;
using namespace ::lance::ipc::testing;  // NOLINT(build/namespaces)
using Kind = IpcLimitDetail::Kind;

constexpr int64_t kMiB = int64_t{1} << 20;

std::string_view View(const BufferPtr& bytes) { return bytes->ToStringView(); }

IpcWriteOptions Compressed(IpcCompression compression) {
  IpcWriteOptions options;
  options.compression = compression;
  return options;
}

// The stream most tests measure: TypesBatch(), then its rows [offset, offset + length).
Result<BufferPtr> TypesStream(int64_t offset, int64_t length,
                              IpcCompression compression = IpcCompression::kNone) {
  RecordBatchPtr batch = TypesBatch();
  return WriteIpcStream(batch->schema(), {batch, batch->Slice(offset, length)},
                        Compressed(compression));
}

// Asserts that `status` refuses a cap of kind `kind` with these numbers, both in the
// detail and in the message.
void ExpectLimit(const Status& status, Kind kind, int64_t limit, int64_t declared) {
  ASSERT_THAT(status, IsError(StatusCode::kInvalid));
  const auto* detail = status.detail_as<IpcLimitDetail>();
  ASSERT_NE(detail, nullptr) << status.ToString();
  EXPECT_EQ(detail->kind(), kind) << status.ToString();
  EXPECT_EQ(detail->limit(), limit);
  EXPECT_EQ(detail->declared(), declared);
  EXPECT_THAT(status.message(), HasSubstr("declares " + std::to_string(declared)));
  EXPECT_THAT(status.message(), HasSubstr("over the limit of " + std::to_string(limit)));
  EXPECT_THAT(status.message(), HasSubstr(std::string(IpcLimitKindName(kind))));
}

// `n` int64 zeros: as compressible as data gets.
ArrayPtr Zeros(int64_t n) {
  auto values = Buffer::Allocate(n * 8);
  EXPECT_TRUE(values.ok());
  return MakeArray(ArrayData::Make(int64(), n, {nullptr, *values}));
}

RecordBatchPtr BatchOf(const std::string& name, const ArrayPtr& column) {
  SchemaPtr s = schema({field(name, column->type())});
  return std::make_shared<RecordBatch>(s, column->length(),
                                       std::vector<ArrayPtr>{column});
}

// The bytes of every body buffer of every batch message of an uncompressed stream, per
// message (0 for the schema), and whether each dictionary batch is a delta: an oracle
// for MeasureIpcStream's count, written from the flatbuffers alone.
struct MessageBytes {
  bool dictionary = false;
  bool delta = false;
  int64_t buffer_bytes = 0;
};

std::vector<MessageBytes> UncompressedMessageBytes(const BufferPtr& stream) {
  std::vector<MessageBytes> out;
  int64_t offset = 0;
  while (offset < stream->size()) {
    auto view = internal::ReadMessageAt(stream, offset, stream->size());
    EXPECT_TRUE(view.ok()) << view.status().ToString();
    if (!view.ok() || view->end_of_stream) break;
    MessageBytes entry;
    const internal::fb::RecordBatch* batch = view->message->header_as_RecordBatch();
    if (const auto* dictionary = view->message->header_as_DictionaryBatch()) {
      entry.dictionary = true;
      entry.delta = dictionary->is_delta();
      batch = dictionary->data();
    }
    if (batch != nullptr) {
      EXPECT_EQ(batch->compression(), nullptr) << "the oracle reads uncompressed streams";
      for (const internal::fb::Buffer* buffer : *batch->buffers()) {
        entry.buffer_bytes += buffer->length();
      }
    }
    out.push_back(entry);
    offset = view->end_offset;
  }
  return out;
}

// The stream framed as before Arrow 0.15: int32 lengths without the continuation
// marker, ended by four zero bytes.
std::string LegacyFraming(const BufferPtr& stream) {
  std::string legacy;
  int64_t offset = 0;
  while (true) {
    auto view = internal::ReadMessageAt(stream, offset, stream->size());
    EXPECT_TRUE(view.ok()) << view.status().ToString();
    if (!view.ok() || view->end_of_stream) break;
    const auto* start = reinterpret_cast<const char*>(stream->data());
    legacy.append(start + offset + 4, view->end_offset - offset - 4);
    offset = view->end_offset;
  }
  legacy.append(4, '\0');
  return legacy;
}

// The bytes of message `index` (0 = schema), framing included.
std::string MessageAt(const BufferPtr& stream, int index) {
  int64_t offset = 0;
  for (int i = 0;; ++i) {
    auto view = internal::ReadMessageAt(stream, offset, stream->size());
    EXPECT_TRUE(view.ok()) << view.status().ToString();
    if (!view.ok() || view->end_of_stream) return "";
    if (i == index) {
      return std::string(View(stream).substr(offset, view->end_offset - offset));
    }
    offset = view->end_offset;
  }
}

// Overwrites the 8-byte length prefix of the first `count` compressed buffers (those
// with a prefix other than -1) of the stream's record batches with `declared`.
std::string WithPrefixes(const BufferPtr& stream, int count, int64_t declared) {
  std::string bytes(View(stream));
  int64_t offset = 0;
  int patched = 0;
  while (patched < count) {
    auto view = internal::ReadMessageAt(stream, offset, stream->size());
    EXPECT_TRUE(view.ok()) << view.status().ToString();
    if (!view.ok() || view->end_of_stream) break;
    const int64_t body_start = view->body->data() - stream->data();
    if (const auto* batch = view->message->header_as_RecordBatch()) {
      for (const internal::fb::Buffer* buffer : *batch->buffers()) {
        if (patched == count || buffer->length() < 8) continue;
        const int64_t at = body_start + buffer->offset();
        int64_t prefix = 0;
        std::memcpy(&prefix, bytes.data() + at, 8);
        if (prefix == -1) continue;
        std::memcpy(bytes.data() + at, &declared, 8);
        ++patched;
      }
    }
    offset = view->end_offset;
  }
  EXPECT_EQ(patched, count) << "the stream has fewer compressed buffers";
  return bytes;
}

// A copy of `bytes` in an allocation of exactly its size, so that ASan reports any read
// past the end.
class ExactBytes {
 public:
  explicit ExactBytes(std::string_view bytes)
      : data_(new char[bytes.size() + (bytes.empty() ? 1 : 0)]), size_(bytes.size()) {
    std::memcpy(data_.get(), bytes.data(), bytes.size());
  }
  std::string_view view() const { return {data_.get(), size_}; }

 private:
  std::unique_ptr<char[]> data_;
  size_t size_;
};

// ---- What is counted ------------------------------------------------------------------

TEST(IpcLimitsTest, MeasuresWhatAStreamDeclares) {
  ASSERT_OK_AND_ASSIGN(BufferPtr stream, TypesStream(1, 3));
  ASSERT_OK_AND_ASSIGN(IpcStreamStats stats, MeasureIpcStream(View(stream)));
  EXPECT_EQ(stats.rows, 4 + 3);
  EXPECT_EQ(stats.record_batches, 2);
  EXPECT_EQ(stats.dictionary_batches, 0);
  // 28 top-level fields; list_i32, large_list_utf8 and fsl_f32 have a child each,
  // struct two, and nested list<struct<a, b: list<utf8>>> four below it.
  EXPECT_EQ(stats.columns, 28 + 1 + 1 + 1 + 2 + 4);
  // nested -> its struct -> b -> b's utf8 items.
  EXPECT_EQ(stats.nesting_depth, 4);
  // The fixed-size list's child: 4 lists of 2 floats.
  EXPECT_EQ(stats.max_array_length, 8);
  int64_t buffer_bytes = 0;
  for (const MessageBytes& m : UncompressedMessageBytes(stream)) {
    buffer_bytes += m.buffer_bytes;
  }
  EXPECT_GT(buffer_bytes, 0);
  EXPECT_EQ(stats.decoded_bytes, buffer_bytes);
}

TEST(IpcLimitsTest, CompressedStreamsCountTheirDecodedSize) {
  // The prefix of a compressed buffer is the length the uncompressed stream stores, and
  // a buffer kept raw (-1) counts the bytes after it: every codec counts the same.
  ASSERT_OK_AND_ASSIGN(BufferPtr plain, TypesStream(2, 2));
  ASSERT_OK_AND_ASSIGN(IpcStreamStats expected, MeasureIpcStream(View(plain)));
  for (IpcCompression c : {IpcCompression::kLz4Frame, IpcCompression::kZstd}) {
    SCOPED_TRACE(IpcCompressionName(c));
    ASSERT_OK_AND_ASSIGN(BufferPtr stream, TypesStream(2, 2, c));
    ASSERT_OK_AND_ASSIGN(IpcStreamStats stats, MeasureIpcStream(View(stream)));
    EXPECT_EQ(stats.decoded_bytes, expected.decoded_bytes);
    EXPECT_EQ(stats.rows, expected.rows);
    EXPECT_EQ(stats.columns, expected.columns);
    EXPECT_EQ(stats.nesting_depth, expected.nesting_depth);
    EXPECT_EQ(stats.max_array_length, expected.max_array_length);
  }
}

TEST(IpcLimitsTest, DictionaryDeltasCountTheDictionaryTheyExtend) {
  // pyarrow's stream: a dictionary, a batch, a delta, a batch, a replacement, a batch.
  BufferPtr stream = LoadGolden("pyarrow_dictionary_deltas.arrows");
  const std::vector<MessageBytes> messages = UncompressedMessageBytes(stream);
  int64_t expected = 0;
  int64_t dictionary = 0;
  int deltas = 0;
  for (const MessageBytes& m : messages) {
    expected += m.buffer_bytes;
    if (!m.dictionary) continue;
    if (m.delta) {
      // The reader concatenates the old values and the delta into a new dictionary.
      dictionary += m.buffer_bytes;
      expected += dictionary;
      ++deltas;
    } else {
      dictionary = m.buffer_bytes;
    }
  }
  ASSERT_EQ(deltas, 1);
  ASSERT_OK_AND_ASSIGN(IpcStreamStats stats, MeasureIpcStream(View(stream)));
  EXPECT_EQ(stats.dictionary_batches, 3);
  EXPECT_EQ(stats.record_batches, 3);
  EXPECT_EQ(stats.decoded_bytes, expected);
}

TEST(IpcLimitsTest, ManySmallDeltasCostWhatTheReaderCopies) {
  // Every delta makes the reader copy the whole dictionary so far, so 200 deltas of
  // 8 values are charged as the 1 + 2 + ... + 200 chunks the concatenations write.
  std::vector<std::string> values;
  std::vector<RecordBatchPtr> batches;
  SchemaPtr s = schema({field("d", dictionary(int32(), utf8()))});
  for (int i = 0; i < 200; ++i) {
    for (int j = 0; j < 8; ++j) values.push_back("v" + std::to_string(i * 8 + j));
    std::vector<Opt<std::string>> dict(values.begin(), values.end());
    const int32_t index = i * 8;
    ArrayPtr column = MakeArray(ArrayData::Make(s->field(0)->type(), 1,
                                                {nullptr, BytesBuffer(&index, 4)}, 0, 0,
                                                {}, Strings(utf8(), dict)->data()));
    batches.push_back(std::make_shared<RecordBatch>(s, 1, std::vector<ArrayPtr>{column}));
  }
  ASSERT_OK_AND_ASSIGN(BufferPtr stream, WriteIpcStream(s, batches));
  ASSERT_OK_AND_ASSIGN(IpcStreamStats stats, MeasureIpcStream(View(stream)));
  ASSERT_EQ(stats.dictionary_batches, 200);
  int64_t sent = 0;
  for (const MessageBytes& m : UncompressedMessageBytes(stream)) sent += m.buffer_bytes;
  // Well over what is sent: the copies grow quadratically with the number of deltas.
  EXPECT_GT(stats.decoded_bytes, 50 * sent);
  ExpectLimit(CheckIpcStreamLimits(View(stream),
                                   [&] {
                                     IpcLimits limits;
                                     limits.max_decoded_bytes = 10 * sent;
                                     return limits;
                                   }()),
              Kind::kDecodedBytes, 10 * sent, stats.decoded_bytes);
}

// ---- Every cap ------------------------------------------------------------------------

TEST(IpcLimitsTest, NormalStreamsPassTheDefaults) {
  std::vector<BufferPtr> streams;
  for (IpcCompression c :
       {IpcCompression::kNone, IpcCompression::kLz4Frame, IpcCompression::kZstd}) {
    ASSERT_OK_AND_ASSIGN(BufferPtr stream, TypesStream(1, 2, c));
    streams.push_back(stream);
  }
  for (const char* golden :
       {"pyarrow_types_none.arrows", "pyarrow_new_types.arrows",
        "pyarrow_dictionary_deltas.arrows", "lance_written_types_none.arrows",
        "lance_written_new_types.arrows", "lance_written_dictionary_deltas.arrows"}) {
    streams.push_back(LoadGolden(golden));
  }
  for (size_t i = 0; i < streams.size(); ++i) {
    SCOPED_TRACE("stream " + std::to_string(i));
    EXPECT_THAT(CheckIpcStreamLimits(View(streams[i]), IpcLimits::Defaults()), IsOk());
    EXPECT_THAT(CheckIpcStreamLimits(View(streams[i]), IpcLimits::Unlimited()), IsOk());
    // The reader with limits reads exactly what the reader without them does.
    ASSERT_OK_AND_ASSIGN(TablePtr unchecked, ReadIpcStream(streams[i]));
    ASSERT_OK_AND_ASSIGN(TablePtr checked, ReadIpcStream(streams[i], IpcLimits{}));
    ASSERT_EQ(checked->batches().size(), unchecked->batches().size());
    for (size_t b = 0; b < checked->batches().size(); ++b) {
      ExpectBatchesEqual(*unchecked->batches()[b], *checked->batches()[b]);
    }
  }
}

TEST(IpcLimitsTest, EachCapIsInclusiveAndHasItsOwnKind) {
  ASSERT_OK_AND_ASSIGN(BufferPtr stream, TypesStream(1, 3, IpcCompression::kZstd));
  ASSERT_OK_AND_ASSIGN(IpcStreamStats stats, MeasureIpcStream(View(stream)));
  IpcLimits exact;
  exact.max_decoded_bytes = stats.decoded_bytes;
  exact.max_rows = stats.rows;
  exact.max_array_length = stats.max_array_length;
  exact.max_columns = stats.columns;
  exact.max_nesting_depth = static_cast<int>(stats.nesting_depth);
  EXPECT_THAT(CheckIpcStreamLimits(View(stream), exact), IsOk());

  struct Case {
    Kind kind;
    int64_t declared;
    void (*lower)(IpcLimits*);
  };
  const Case cases[] = {
      {Kind::kDecodedBytes, stats.decoded_bytes,
       [](IpcLimits* l) { --l->max_decoded_bytes; }},
      {Kind::kRows, stats.rows, [](IpcLimits* l) { --l->max_rows; }},
      {Kind::kArrayLength, stats.max_array_length,
       [](IpcLimits* l) { --l->max_array_length; }},
      {Kind::kColumns, stats.columns, [](IpcLimits* l) { --l->max_columns; }},
      {Kind::kNestingDepth, stats.nesting_depth,
       [](IpcLimits* l) { --l->max_nesting_depth; }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(IpcLimitKindName(c.kind)));
    IpcLimits limits = exact;
    c.lower(&limits);
    ExpectLimit(CheckIpcStreamLimits(View(stream), limits), c.kind, c.declared - 1,
                c.declared);
    // The same refusal from the reading entry points, before any decoding.
    ExpectLimit(ReadIpcStream(stream, limits).status(), c.kind, c.declared - 1,
                c.declared);
    ExpectLimit(IpcStreamReader::Open(stream, limits).status(), c.kind, c.declared - 1,
                c.declared);
  }
}

TEST(IpcLimitsTest, SmallZstdStreamDeclaringManyBytesIsRefused) {
  // 64 MiB of zeros compress to a few KiB; the stream declares the 64 MiB.
  const int64_t n = 8 * kMiB;
  RecordBatchPtr batch = BatchOf("zeros", Zeros(n));
  ASSERT_OK_AND_ASSIGN(BufferPtr stream,
                       WriteIpcStream(*batch, Compressed(IpcCompression::kZstd)));
  EXPECT_LT(stream->size(), 64 * 1024);
  IpcLimits limits;
  limits.max_decoded_bytes = kMiB;
  const Status status = CheckIpcStreamLimits(View(stream), limits);
  ExpectLimit(status, Kind::kDecodedBytes, kMiB, 64 * kMiB);
  EXPECT_EQ(status.message(),
            "the Arrow IPC stream declares 67108864 decoded bytes, over the limit of "
            "1048576 (max_decoded_bytes)");
  EXPECT_TRUE(status.detail_as<IpcLimitDetail>()->is_size_limit());
  ExpectLimit(ReadIpcStream(stream, limits).status(), Kind::kDecodedBytes, kMiB,
              64 * kMiB);
  // Within the default gigabyte it reads, and the reader without limits is unchanged.
  ASSERT_OK_AND_ASSIGN(TablePtr table, ReadIpcStream(stream, IpcLimits::Defaults()));
  EXPECT_EQ(table->num_rows(), n);
  ASSERT_OK_AND_ASSIGN(TablePtr unchecked, ReadIpcStream(stream));
  EXPECT_EQ(unchecked->num_rows(), n);
}

TEST(IpcLimitsTest, RowsOverTheCapAreRefused) {
  ArrayPtr column = Zeros(100);
  RecordBatchPtr batch = BatchOf("x", column);
  ASSERT_OK_AND_ASSIGN(BufferPtr stream,
                       WriteIpcStream(batch->schema(), {batch, batch, batch}));
  IpcLimits limits;
  limits.max_rows = 250;
  const Status status = CheckIpcStreamLimits(View(stream), limits);
  ExpectLimit(status, Kind::kRows, 250, 300);
  EXPECT_THAT(status.message(), HasSubstr("300 rows, over the limit of 250"));
  limits.max_rows = 300;
  EXPECT_THAT(CheckIpcStreamLimits(View(stream), limits), IsOk());
}

TEST(IpcLimitsTest, ArraysWithoutBytesAreBoundedByTheirLength) {
  // A null column costs no body bytes at all, whatever its length.
  const int64_t n = 1000000;
  ArrayPtr nulls = MakeArray(ArrayData::Make(null(), n, {nullptr}, n));
  RecordBatchPtr batch = BatchOf("n", nulls);
  ASSERT_OK_AND_ASSIGN(BufferPtr stream, WriteIpcStream(*batch));
  ASSERT_OK_AND_ASSIGN(IpcStreamStats stats, MeasureIpcStream(View(stream)));
  EXPECT_EQ(stats.decoded_bytes, 0);
  EXPECT_EQ(stats.max_array_length, n);
  IpcLimits limits;
  limits.max_array_length = n - 1;
  ExpectLimit(CheckIpcStreamLimits(View(stream), limits), Kind::kArrayLength, n - 1, n);

  // Nested children count too: one list of 1000 values.
  const std::vector<Opt<int8_t>> thousand(1000, int8_t{7});
  ArrayPtr list_column = Lists(list(int8()), {1000}, Numeric<int8_t>(int8(), thousand));
  ASSERT_OK_AND_ASSIGN(BufferPtr lists, WriteIpcStream(*BatchOf("l", list_column)));
  limits.max_array_length = 999;
  ExpectLimit(CheckIpcStreamLimits(View(lists), limits), Kind::kArrayLength, 999, 1000);
}

TEST(IpcLimitsTest, WideSchemasAreRefused) {
  std::vector<FieldPtr> fields;
  std::vector<ArrayPtr> columns;
  for (int i = 0; i < 200; ++i) {
    fields.push_back(field("c" + std::to_string(i), int32()));
    columns.push_back(Numeric<int32_t>(int32(), {i}));
  }
  auto batch = std::make_shared<RecordBatch>(schema(fields), 1, columns);
  ASSERT_OK_AND_ASSIGN(BufferPtr stream, WriteIpcStream(*batch));
  IpcLimits limits;
  limits.max_columns = 100;
  const Status status = CheckIpcStreamLimits(View(stream), limits);
  ExpectLimit(status, Kind::kColumns, 100, 200);
  EXPECT_FALSE(status.detail_as<IpcLimitDetail>()->is_size_limit());

  // Fields count at every level: a struct of three children is four.
  SchemaPtr with_struct = schema({field(
      "s", struct_({field("a", int8()), field("b", int8()), field("c", int8())}))});
  ASSERT_OK_AND_ASSIGN(BufferPtr struct_stream, WriteIpcStream(with_struct, {}));
  limits.max_columns = 3;
  ExpectLimit(CheckIpcStreamLimits(View(struct_stream), limits), Kind::kColumns, 3, 4);
  limits.max_columns = 4;
  EXPECT_THAT(CheckIpcStreamLimits(View(struct_stream), limits), IsOk());
}

TEST(IpcLimitsTest, DeepSchemasAreRefused) {
  // A top-level primitive is one level.
  ASSERT_OK_AND_ASSIGN(BufferPtr flat, WriteIpcStream(schema({field("x", int32())}), {}));
  IpcLimits limits;
  limits.max_nesting_depth = 1;
  EXPECT_THAT(CheckIpcStreamLimits(View(flat), limits), IsOk());
  limits.max_nesting_depth = 0;
  ExpectLimit(CheckIpcStreamLimits(View(flat), limits), Kind::kNestingDepth, 0, 1);

  // Ten structs around an int32, and ten lists around one: eleven levels each.
  DataTypePtr structs = int32();
  DataTypePtr lists = int32();
  for (int i = 0; i < 10; ++i) {
    structs = struct_({field("f", structs)});
    lists = list(lists);
  }
  for (const DataTypePtr& type : {structs, lists}) {
    SCOPED_TRACE(type->ToString());
    ASSERT_OK_AND_ASSIGN(BufferPtr stream,
                         WriteIpcStream(schema({field("deep", type)}), {}));
    limits.max_nesting_depth = 5;
    const Status status = CheckIpcStreamLimits(View(stream), limits);
    ExpectLimit(status, Kind::kNestingDepth, 5, 11);
    EXPECT_FALSE(status.detail_as<IpcLimitDetail>()->is_size_limit());
    limits.max_nesting_depth = 11;
    EXPECT_THAT(CheckIpcStreamLimits(View(stream), limits), IsOk());
  }
}

// A schema message whose fields nest `depth` levels, built directly with flatbuffers.
std::string NestedSchemaMessage(int depth) {
  namespace fb = internal::fb;
  flatbuffers::FlatBufferBuilder fbb;
  auto inner = fb::CreateField(fbb, fbb.CreateString("leaf"), true, fb::Type::Int,
                               fb::CreateInt(fbb, 32, true).Union());
  for (int i = 1; i < depth; ++i) {
    std::vector<flatbuffers::Offset<fb::Field>> children = {inner};
    auto children_vector = fbb.CreateVector(children);
    inner = fb::CreateField(fbb, fbb.CreateString("s"), true, fb::Type::Struct_,
                            fb::CreateStruct_(fbb).Union(), 0, children_vector);
  }
  std::vector<flatbuffers::Offset<fb::Field>> fields = {inner};
  auto schema = fb::CreateSchema(fbb, fb::Endianness::Little, fbb.CreateVector(fields));
  fbb.Finish(fb::CreateMessage(fbb, fb::MetadataVersion::V5, fb::MessageHeader::Schema,
                               schema.Union(), 0));
  std::string metadata(reinterpret_cast<const char*>(fbb.GetBufferPointer()),
                       fbb.GetSize());
  metadata.resize(internal::PaddedLength(static_cast<int64_t>(metadata.size())), '\0');
  std::string message(8, '\0');
  const uint32_t marker = internal::kContinuationMarker;
  const int32_t length = static_cast<int32_t>(metadata.size());
  std::memcpy(message.data(), &marker, 4);
  std::memcpy(message.data() + 4, &length, 4);
  return message + metadata;
}

TEST(IpcLimitsTest, DepthBombsAreRefusedWithoutRecursion) {
  // Within what the flatbuffers verifier accepts, the depth is counted exactly.
  const std::string forty = NestedSchemaMessage(40);
  ASSERT_OK_AND_ASSIGN(IpcStreamStats stats, MeasureIpcStream(forty));
  EXPECT_EQ(stats.nesting_depth, 40);
  EXPECT_EQ(stats.columns, 40);
  IpcLimits limits;
  limits.max_nesting_depth = 20;
  ExpectLimit(CheckIpcStreamLimits(forty, limits), Kind::kNestingDepth, 20, 40);
  // Far deeper is not a valid flatbuffer Message: Corrupt, for the reader too.
  const std::string bomb = NestedSchemaMessage(100000);
  EXPECT_THAT(CheckIpcStreamLimits(bomb, IpcLimits::Unlimited()),
              IsError(StatusCode::kCorrupt));
  EXPECT_THAT(IpcStreamReader::Open(BufferOf(bomb)), IsError(StatusCode::kCorrupt));
}

// ---- Hostile lengths ------------------------------------------------------------------

TEST(IpcLimitsTest, PrefixClaiming2To62BytesIsRefusedWithoutAllocating) {
  RecordBatchPtr batch = BatchOf("zeros", Zeros(4096));
  ASSERT_OK_AND_ASSIGN(BufferPtr stream,
                       WriteIpcStream(*batch, Compressed(IpcCompression::kZstd)));
  const int64_t claim = int64_t{1} << 62;
  const std::string hostile = WithPrefixes(stream, 1, claim);
  ExpectLimit(CheckIpcStreamLimits(hostile, IpcLimits::Defaults()), Kind::kDecodedBytes,
              IpcLimits::Defaults().max_decoded_bytes, claim);
  ExpectLimit(ReadIpcStream(BufferOf(hostile), IpcLimits::Defaults()).status(),
              Kind::kDecodedBytes, IpcLimits::Defaults().max_decoded_bytes, claim);
  // Unchanged: the reader without limits refuses it as implausible for zstd.
  EXPECT_THAT(ReadIpcStream(BufferOf(hostile)),
              IsErrorWith(StatusCode::kCorrupt, "more than"));
}

TEST(IpcLimitsTest, OverflowingSumsSaturate) {
  // Two buffers declaring INT64_MAX each: the sum saturates instead of wrapping (which
  // UBSan would report, and which could wrap to a small number).
  RecordBatchPtr batch = std::make_shared<RecordBatch>(
      schema({field("a", int64()), field("b", int64())}), 4096,
      std::vector<ArrayPtr>{Zeros(4096), Zeros(4096)});
  ASSERT_OK_AND_ASSIGN(BufferPtr stream,
                       WriteIpcStream(*batch, Compressed(IpcCompression::kZstd)));
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  const std::string hostile = WithPrefixes(stream, 2, kMax);
  ASSERT_OK_AND_ASSIGN(IpcStreamStats stats, MeasureIpcStream(hostile));
  EXPECT_EQ(stats.decoded_bytes, kMax);
  IpcLimits limits = IpcLimits::Unlimited();
  EXPECT_THAT(CheckIpcStreamLimits(hostile, limits), IsOk());
  limits.max_decoded_bytes = kMax - 1;
  ExpectLimit(CheckIpcStreamLimits(hostile, limits), Kind::kDecodedBytes, kMax - 1, kMax);
}

TEST(IpcLimitsTest, MalformedPrefixesAreCorrupt) {
  RecordBatchPtr batch = BatchOf("zeros", Zeros(4096));
  ASSERT_OK_AND_ASSIGN(BufferPtr stream,
                       WriteIpcStream(*batch, Compressed(IpcCompression::kLz4Frame)));
  for (int64_t prefix : {int64_t{-2}, std::numeric_limits<int64_t>::min()}) {
    SCOPED_TRACE(prefix);
    EXPECT_THAT(CheckIpcStreamLimits(WithPrefixes(stream, 1, prefix), IpcLimits{}),
                IsErrorWith(StatusCode::kCorrupt, "negative length"));
  }
  // -1 means stored raw: the bytes after the prefix are what is decoded.
  ASSERT_OK_AND_ASSIGN(IpcStreamStats raw, MeasureIpcStream(WithPrefixes(stream, 1, -1)));
  EXPECT_LT(raw.decoded_bytes, stream->size());
}

TEST(IpcLimitsTest, NegativeCapsAreInvalidArguments) {
  ASSERT_OK_AND_ASSIGN(BufferPtr stream, WriteIpcStream(*BatchOf("x", Zeros(3))));
  IpcLimits limits;
  limits.max_rows = -1;
  const Status status = CheckIpcStreamLimits(View(stream), limits);
  EXPECT_THAT(status, IsErrorWith(StatusCode::kInvalid, "max_rows is negative"));
  EXPECT_EQ(status.detail_as<IpcLimitDetail>(), nullptr);
  // Checked before the bytes are read.
  EXPECT_THAT(CheckIpcStreamLimits("garbage", limits), IsError(StatusCode::kInvalid));
}

// ---- Framing and damage ---------------------------------------------------------------

TEST(IpcLimitsTest, LegacyFramingIsMeasuredAlike) {
  ASSERT_OK_AND_ASSIGN(BufferPtr stream, TypesStream(1, 2, IpcCompression::kZstd));
  ASSERT_OK_AND_ASSIGN(IpcStreamStats modern, MeasureIpcStream(View(stream)));
  const std::string legacy = LegacyFraming(stream);
  ASSERT_OK_AND_ASSIGN(IpcStreamStats old, MeasureIpcStream(ExactBytes(legacy).view()));
  EXPECT_EQ(old.decoded_bytes, modern.decoded_bytes);
  EXPECT_EQ(old.rows, modern.rows);
  EXPECT_EQ(old.record_batches, 2);
  // Without the end-of-stream marker the stream simply ends after its last message.
  ASSERT_OK_AND_ASSIGN(IpcStreamStats no_eos,
                       MeasureIpcStream(View(stream).substr(0, stream->size() - 8)));
  EXPECT_EQ(no_eos.rows, modern.rows);
  // Bytes after the end-of-stream marker are not read.
  const std::string trailing = std::string(View(stream)) + "garbage after the end";
  ASSERT_OK_AND_ASSIGN(IpcStreamStats after, MeasureIpcStream(trailing));
  EXPECT_EQ(after.rows, modern.rows);
}

TEST(IpcLimitsTest, TruncatedStreamsAreCorruptLikeForTheReader) {
  ASSERT_OK_AND_ASSIGN(BufferPtr stream, TypesStream(1, 2, IpcCompression::kZstd));
  for (int64_t size = 0; size < stream->size(); ++size) {
    SCOPED_TRACE("first " + std::to_string(size) + " bytes");
    const ExactBytes bytes(View(stream).substr(0, size));
    const Status checked = CheckIpcStreamLimits(bytes.view(), IpcLimits{});
    // Cut at a message boundary the stream is shorter, else it is damaged; the reader
    // agrees on which.
    const Status read = ReadIpcStream(BufferOf(std::string(bytes.view()))).status();
    if (checked.ok()) {
      EXPECT_THAT(read, IsOk());
    } else {
      EXPECT_THAT(checked, IsError(StatusCode::kCorrupt));
      EXPECT_FALSE(read.ok());
    }
  }
}

TEST(IpcLimitsTest, GarbageIsCorruptNeverACrash) {
  const std::string cases[] = {
      "",
      std::string("\xff\xff\xff\xff", 4),
      std::string("\xff\xff\xff\xff\x00\x00\x00\x00", 8),  // ends before the schema
      std::string("\xff\xff\xff\xff\xff\xff\xff\xff", 8),  // metadata length -1
      std::string("\x00\x00\x00\x80", 4),                  // legacy length INT32_MIN
      std::string("\xff\xff\xff\xff\xff\xff\xff\x7f", 8),  // INT32_MAX metadata bytes
      std::string("\x10\x00\x00\x00", 4) + std::string(16, '\xee'),
  };
  for (const std::string& bytes : cases) {
    SCOPED_TRACE(::testing::PrintToString(bytes));
    EXPECT_THAT(CheckIpcStreamLimits(ExactBytes(bytes).view(), IpcLimits{}),
                IsError(StatusCode::kCorrupt));
  }
  std::mt19937_64 rng(28);
  for (int i = 0; i < 500; ++i) {
    std::string bytes(rng() % 300, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    if (i % 2 == 0 && bytes.size() >= 8) {
      // A continuation marker and a plausible length reach the flatbuffer verifier.
      const uint32_t marker = internal::kContinuationMarker;
      const int32_t length = static_cast<int32_t>(bytes.size() - 8);
      std::memcpy(bytes.data(), &marker, 4);
      std::memcpy(bytes.data() + 4, &length, 4);
    }
    const Status status = CheckIpcStreamLimits(ExactBytes(bytes).view(), IpcLimits{});
    EXPECT_TRUE(status.IsCorrupt() || status.IsNotImplemented()) << status.ToString();
  }
}

TEST(IpcLimitsTest, ByteFlipsNeverCrashAndAgreeWithTheReader) {
  BufferPtr dictionaries = LoadGolden("pyarrow_dictionary_deltas.arrows");
  ASSERT_OK_AND_ASSIGN(BufferPtr zstd, TypesStream(1, 2, IpcCompression::kZstd));
  std::mt19937_64 rng(2028);
  int passed = 0;
  int damaged = 0;
  for (const BufferPtr& stream : {zstd, dictionaries}) {
    for (int i = 0; i < 1500; ++i) {
      std::string bytes(View(stream));
      const int flips = 1 + static_cast<int>(rng() % 4);
      for (int f = 0; f < flips; ++f) {
        bytes[rng() % bytes.size()] ^= static_cast<char>(1 + rng() % 255);
      }
      SCOPED_TRACE("flip round " + std::to_string(i));
      auto stats = MeasureIpcStream(ExactBytes(bytes).view());
      const Status checked = CheckIpcStreamLimits(ExactBytes(bytes).view(), IpcLimits{});
      if (checked.IsInvalid()) {
        // A flip may raise a declared size over a cap, never make another kind of
        // Invalid.
        ASSERT_NE(checked.detail_as<IpcLimitDetail>(), nullptr) << checked.ToString();
        continue;
      }
      if (!checked.ok()) {
        EXPECT_TRUE(checked.IsCorrupt() || checked.IsNotImplemented())
            << checked.ToString();
        ++damaged;
        continue;
      }
      ++passed;
      ASSERT_TRUE(stats.ok());
      // What passed the check and decodes holds exactly the rows the check counted.
      auto table = ReadIpcStream(BufferOf(bytes), IpcLimits{});
      if (table.ok()) {
        EXPECT_EQ((*table)->num_rows(), stats->rows);
      }
    }
  }
  // Both outcomes are exercised (most flips land in bodies, which are not checked).
  EXPECT_GT(passed, 100);
  EXPECT_GT(damaged, 100);
}

TEST(IpcLimitsTest, MessagesOutOfPlaceAreCorrupt) {
  // A dictionary batch whose id no field of the schema uses, and a second schema.
  BufferPtr dictionaries = LoadGolden("pyarrow_dictionary_deltas.arrows");
  ASSERT_OK_AND_ASSIGN(BufferPtr plain, WriteIpcStream(*BatchOf("x", Zeros(3))));
  const std::string stray_dictionary = MessageAt(plain, 0) + MessageAt(dictionaries, 1);
  EXPECT_THAT(CheckIpcStreamLimits(stray_dictionary, IpcLimits{}),
              IsErrorWith(StatusCode::kCorrupt, "no field of the schema uses this id"));
  EXPECT_THAT(ReadIpcStream(BufferOf(stray_dictionary)), IsError(StatusCode::kCorrupt));
  const std::string two_schemas = MessageAt(plain, 0) + MessageAt(plain, 0);
  EXPECT_THAT(CheckIpcStreamLimits(two_schemas, IpcLimits{}),
              IsErrorWith(StatusCode::kCorrupt, "found Schema"));
  EXPECT_THAT(ReadIpcStream(BufferOf(two_schemas)), IsError(StatusCode::kCorrupt));
  // A file is not a stream.
  ASSERT_OK_AND_ASSIGN(BufferPtr file, WriteIpcFile(*BatchOf("x", Zeros(3))));
  EXPECT_THAT(CheckIpcStreamLimits(View(file), IpcLimits{}),
              IsError(StatusCode::kCorrupt));
}

TEST(IpcLimitsTest, DetailNamesItsCap) {
  const IpcLimitDetail detail(Kind::kRows, 100, 1000);
  EXPECT_EQ(detail.ToString(), "max_rows: 1000 declared, limit 100");
  EXPECT_EQ(detail.type_id(), IpcLimitDetail::kTypeId);
  EXPECT_EQ(IpcLimitKindName(Kind::kDecodedBytes), "max_decoded_bytes");
  EXPECT_EQ(IpcLimitKindName(Kind::kArrayLength), "max_array_length");
  EXPECT_EQ(IpcLimitKindName(Kind::kColumns), "max_columns");
  EXPECT_EQ(IpcLimitKindName(Kind::kNestingDepth), "max_nesting_depth");
  EXPECT_TRUE(IpcLimitDetail(Kind::kArrayLength, 1, 2).is_size_limit());
  EXPECT_FALSE(IpcLimitDetail(Kind::kColumns, 1, 2).is_size_limit());
  // The detail survives added context, as a server adds it.
  const Status status =
      Status::Invalid("x").WithDetail(std::make_shared<IpcLimitDetail>(detail));
  EXPECT_NE(status.WithContext("decoding the request").detail_as<IpcLimitDetail>(),
            nullptr);
}

}  // namespace
}  // namespace lance::ipc
