// SPDX-License-Identifier: Apache-2.0
// Arrow IPC for the types beyond the original set (null, decimals, date64, times,
// durations, maps, dictionaries): pyarrow-written goldens, round trips through our
// writer, dictionary batches (deltas, replacements, shared ids) and corrupt input.

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "ipc/ipc_internal.h"
#include "lance/core/array.h"
#include "lance/core/builder.h"
#include "lance/ipc/reader.h"
#include "lance/ipc/writer.h"
#include "tests/ipc/ipc_test_util.h"
#include "tests/testing/matchers.h"

namespace lance::ipc {
namespace {

using ::lance::testing::IsError;
using ::lance::testing::IsErrorWith;
using namespace ::lance::ipc::testing;  // NOLINT(build/namespaces)

// What pyarrow wrote (make_golden.py, new_types_table()): per column, the lance type
// and the rendering of the 4 rows.
struct ExpectedColumn {
  const char* name;
  const char* type;
  const char* values;
};
const ExpectedColumn kNewTypes[] = {
    {"null", "null", "[null, null, null, null]"},
    {"dec128", "decimal128(10, 2)", "[123.45, null, -0.01, 99999999.99]"},
    {"dec128_neg_scale", "decimal128(5, -2)", "[1000, -500, null, 0]"},
    {"dec256", "decimal256(40, 3)",
     "[1234567890123456789012345678901234567.890, null, -1.000, 0.001]"},
    {"date64", "date64[ms]", "[1970-01-01, null, 2024-02-29, 1969-12-31]"},
    {"time32_s", "time32[s]", "[00:00:00, 12:34:56, null, 23:59:59]"},
    {"time32_ms", "time32[ms]", "[12:34:56.789, null, 00:00:00.000, 23:59:59.999]"},
    {"time64_us", "time64[us]",
     "[00:00:00.000001, 12:34:56.789012, null, 23:59:59.999999]"},
    {"time64_ns", "time64[ns]",
     "[null, 00:00:00.000000001, 12:34:56.789012345, 23:59:59.999999999]"},
    {"dur_s", "duration[s]", "[1s, -2s, null, 4611686018427387904s]"},
    {"dur_ms", "duration[ms]", "[1500ms, null, 0ms, -1ms]"},
    {"dur_us", "duration[us]", "[null, 1us, 2us, 3us]"},
    {"dur_ns", "duration[ns]",
     "[-9223372036854775808ns, 0ns, null, 9223372036854775807ns]"},
    {"dict_utf8", "dictionary<values=utf8, indices=int32, ordered=0>",
     "[\"banana\", null, \"apple\", \"banana\"]"},
    {"dict_i64_u16", "dictionary<values=int64, indices=uint16, ordered=0>",
     "[-30, 10, null, -30]"},
    {"dict_ordered_i8", "dictionary<values=utf8, indices=int8, ordered=1>",
     "[\"lo\", \"hi\", \"hi\", null]"},
    {"map", "map<utf8, int32>", "[{\"a\": 1, \"b\": null}, null, {}, {\"c\": 3}]"},
    {"map_sorted", "map<utf8, int32, keys_sorted>",
     "[{\"a\": 1}, {\"x\": 2, \"y\": 3}, null, {}]"},
    {"map_nested", "map<int64, list<item: utf8>>",
     "[{1: [\"x\"]}, null, {2: [], 3: null}, {}]"},
    {"list_dict", "list<item: dictionary<values=utf8, indices=int16, ordered=0>>",
     "[[\"a\", \"b\"], null, [], [\"b\"]]"},
    {"struct_new",
     "struct<n: null, d: decimal128(4, 1), t: time32[s], m: map<utf8, double>>",
     "[{n: null, d: 1.5, t: 00:00:01, m: {\"k\": 1.5}}, null, "
     "{n: null, d: null, t: null, m: null}, {n: null, d: -2.5, t: 23:59:59, m: {}}]"},
    {"fsl_dec", "fixed_size_list<item: decimal128(5, 2)>[2]",
     "[[1.00, null], null, [-3.50, 4.25], [0.00, 0.01]]"},
};

void ExpectNewTypesBatch(const RecordBatch& batch) {
  ASSERT_EQ(batch.num_rows(), 4);
  ASSERT_EQ(batch.num_columns(), static_cast<int>(std::size(kNewTypes)));
  const Schema& schema = *batch.schema();
  EXPECT_EQ(schema.metadata(),
            (KeyValueMetadata{{"origin", "make_golden.py new types"}}));
  for (int i = 0; i < batch.num_columns(); ++i) {
    const ExpectedColumn& expected = kNewTypes[i];
    SCOPED_TRACE(expected.name);
    EXPECT_EQ(schema.field(i)->name(), expected.name);
    EXPECT_EQ(schema.field(i)->type()->ToString(), expected.type);
    EXPECT_EQ(batch.column(i)->ToString(), expected.values);
    EXPECT_OK(batch.column(i)->Validate());
  }
  EXPECT_FALSE(schema.field(12)->nullable());  // dur_ns is declared not null
  // Map entries and keys keep Arrow's names and nullability.
  const DataType& m = *schema.field(16)->type();
  EXPECT_EQ(m.fields()[0]->name(), "entries");
  EXPECT_FALSE(m.fields()[0]->nullable());
  EXPECT_EQ(m.key_field()->name(), "key");
  EXPECT_FALSE(m.key_field()->nullable());
  EXPECT_EQ(m.item_field()->name(), "value");
}

// The second batch of the goldens is the first sliced to rows [1, 4).
void ExpectSliceBatch(const RecordBatch& first, const RecordBatch& second) {
  RecordBatchPtr expected = first.Slice(1, 3);
  ExpectBatchesEqual(*expected, second);
}

TEST(IpcNewTypesGoldenTest, PyArrowFile) {
  ASSERT_OK_AND_ASSIGN(auto reader,
                       IpcFileReader::Open(LoadGolden("pyarrow_new_types.arrow")));
  ASSERT_EQ(reader->num_record_batches(), 2);
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr first, reader->ReadRecordBatch(0));
  ExpectNewTypesBatch(*first);
  ASSERT_OK_AND_ASSIGN(RecordBatchPtr second, reader->ReadRecordBatch(1));
  ExpectSliceBatch(*first, *second);
}

TEST(IpcNewTypesGoldenTest, PyArrowZstdFile) {
  ASSERT_OK_AND_ASSIGN(TablePtr table,
                       ReadIpcFile(LoadGolden("pyarrow_new_types_zstd.arrow")));
  ASSERT_EQ(table->batches().size(), 1u);
  ExpectNewTypesBatch(*table->batches()[0]);
}

TEST(IpcNewTypesGoldenTest, PyArrowStream) {
  ASSERT_OK_AND_ASSIGN(TablePtr table,
                       ReadIpcStream(LoadGolden("pyarrow_new_types.arrows")));
  ASSERT_EQ(table->batches().size(), 2u);
  ExpectNewTypesBatch(*table->batches()[0]);
  ExpectSliceBatch(*table->batches()[0], *table->batches()[1]);
}

// make_golden.py dictionary_stream_batches(): one dictionary column over 3 batches.
void ExpectDictionaryBatches(const std::vector<RecordBatchPtr>& batches, size_t count) {
  const char* kValues[] = {"[\"a\", \"b\", null]", "[\"c\", \"a\"]",
                           "[\"x\", \"x\", null]"};
  const char* kDictionaries[] = {"[\"a\", \"b\"]", "[\"a\", \"b\", \"c\"]", "[\"x\"]"};
  const char* kInts[] = {"[1, 2, 3]", "[4, 5]", "[6, 7, 8]"};
  ASSERT_EQ(batches.size(), count);
  for (size_t i = 0; i < count; ++i) {
    SCOPED_TRACE("batch " + std::to_string(i));
    const auto& dict = static_cast<const DictionaryArray&>(*batches[i]->column(0));
    EXPECT_EQ(dict.ToString(), kValues[i]);
    EXPECT_EQ(dict.dictionary()->ToString(), kDictionaries[i]);
    EXPECT_EQ(batches[i]->column(1)->ToString(), kInts[i]);
    EXPECT_OK(dict.Validate());
  }
}

TEST(IpcNewTypesGoldenTest, PyArrowDictionaryDeltaAndReplacementStream) {
  ASSERT_OK_AND_ASSIGN(TablePtr table,
                       ReadIpcStream(LoadGolden("pyarrow_dictionary_deltas.arrows")));
  ExpectDictionaryBatches(table->batches(), 3);
}

TEST(IpcNewTypesGoldenTest, PyArrowDictionaryDeltaFile) {
  // In a file every dictionary batch (the delta included) is read up front, so both
  // record batches see the extended dictionary; their values are unchanged.
  ASSERT_OK_AND_ASSIGN(TablePtr table,
                       ReadIpcFile(LoadGolden("pyarrow_dictionary_deltas.arrow")));
  ASSERT_EQ(table->batches().size(), 2u);
  EXPECT_EQ(table->batches()[0]->column(0)->ToString(), "[\"a\", \"b\", null]");
  EXPECT_EQ(table->batches()[1]->column(0)->ToString(), "[\"c\", \"a\"]");
  EXPECT_EQ(static_cast<const DictionaryArray&>(*table->batches()[0]->column(0))
                .dictionary()
                ->ToString(),
            "[\"a\", \"b\", \"c\"]");
}

// ---- Our writer --------------------------------------------------------------------

std::vector<RecordBatchPtr> PyArrowNewTypes() {
  auto table = ReadIpcFile(LoadGolden("pyarrow_new_types.arrow"));
  EXPECT_TRUE(table.ok()) << table.status().ToString();
  return table.ok() ? (*table)->batches() : std::vector<RecordBatchPtr>{};
}

std::vector<RecordBatchPtr> DictionaryBatches() {
  auto table = ReadIpcStream(LoadGolden("pyarrow_dictionary_deltas.arrows"));
  EXPECT_TRUE(table.ok()) << table.status().ToString();
  return table.ok() ? (*table)->batches() : std::vector<RecordBatchPtr>{};
}

TEST(IpcNewTypesRoundTripTest, EveryCompressionFileAndStream) {
  const std::vector<RecordBatchPtr> batches = PyArrowNewTypes();
  ASSERT_EQ(batches.size(), 2u);
  const SchemaPtr schema = batches[0]->schema();
  for (IpcCompression compression :
       {IpcCompression::kNone, IpcCompression::kLz4Frame, IpcCompression::kZstd}) {
    SCOPED_TRACE(IpcCompressionName(compression));
    IpcWriteOptions options;
    options.compression = compression;
    ASSERT_OK_AND_ASSIGN(BufferPtr file, WriteIpcFile(schema, batches, options));
    ASSERT_OK_AND_ASSIGN(TablePtr from_file, ReadIpcFile(file));
    ASSERT_OK_AND_ASSIGN(BufferPtr stream, WriteIpcStream(schema, batches, options));
    ASSERT_OK_AND_ASSIGN(TablePtr from_stream, ReadIpcStream(stream));
    for (const TablePtr& table : {from_file, from_stream}) {
      ASSERT_EQ(table->batches().size(), 2u);
      ExpectNewTypesBatch(*table->batches()[0]);
      ExpectBatchesEqual(*batches[1], *table->batches()[1]);
    }
  }
}

TEST(IpcNewTypesRoundTripTest, SlicedColumnsAreNormalised) {
  const std::vector<RecordBatchPtr> batches = PyArrowNewTypes();
  ASSERT_FALSE(batches.empty());
  for (int64_t offset = 0; offset < 4; ++offset) {
    RecordBatchPtr slice = batches[0]->Slice(offset, 4 - offset);
    ASSERT_OK_AND_ASSIGN(BufferPtr bytes, WriteIpcStream(*slice));
    ASSERT_OK_AND_ASSIGN(TablePtr table, ReadIpcStream(bytes));
    ASSERT_EQ(table->batches().size(), 1u);
    ExpectBatchesEqual(*slice, *table->batches()[0]);
  }
}

// Our writer sends a delta for a dictionary that grew and a replacement for one that
// changed otherwise; the reader applies both.
TEST(IpcNewTypesRoundTripTest, DictionaryDeltasAndReplacementsInStreams) {
  const std::vector<RecordBatchPtr> batches = DictionaryBatches();
  ASSERT_EQ(batches.size(), 3u);
  ASSERT_OK_AND_ASSIGN(BufferPtr stream, WriteIpcStream(batches[0]->schema(), batches));
  ASSERT_OK_AND_ASSIGN(auto reader, IpcStreamReader::Open(stream));
  std::vector<RecordBatchPtr> read;
  while (true) {
    ASSERT_OK_AND_ASSIGN(RecordBatchPtr batch, reader->Next());
    if (!batch) break;
    read.push_back(batch);
  }
  ExpectDictionaryBatches(read, 3);
  // Count the dictionary messages and their delta flags.
  int64_t offset = 0;
  std::vector<bool> deltas;
  while (true) {
    ASSERT_OK_AND_ASSIGN(auto view,
                         internal::ReadMessageAt(stream, offset, stream->size()));
    if (view.end_of_stream) break;
    if (const auto* dict = view.message->header_as_DictionaryBatch()) {
      deltas.push_back(dict->is_delta());
    }
    offset = view.end_offset;
  }
  EXPECT_EQ(deltas, (std::vector<bool>{false, true, false}));
}

TEST(IpcNewTypesRoundTripTest, FileAcceptsDeltasButNotReplacements) {
  const std::vector<RecordBatchPtr> batches = DictionaryBatches();
  ASSERT_EQ(batches.size(), 3u);
  ASSERT_OK_AND_ASSIGN(auto writer, IpcWriter::MakeFileWriter(batches[0]->schema()));
  ASSERT_OK(writer->WriteRecordBatch(*batches[0]));
  ASSERT_OK(writer->WriteRecordBatch(*batches[1]));  // a delta
  EXPECT_THAT(writer->WriteRecordBatch(*batches[2]),
              IsErrorWith(StatusCode::kInvalid, "cannot replace a dictionary"));
  ASSERT_OK_AND_ASSIGN(BufferPtr file, writer->Finish());
  ASSERT_OK_AND_ASSIGN(TablePtr table, ReadIpcFile(file));
  ASSERT_EQ(table->batches().size(), 2u);
  EXPECT_EQ(table->batches()[1]->column(0)->ToString(), "[\"c\", \"a\"]");
}

TEST(IpcNewTypesRoundTripTest, UnchangedDictionaryIsSentOnce) {
  const std::vector<RecordBatchPtr> batches = DictionaryBatches();
  ASSERT_EQ(batches.size(), 3u);
  // The same batch three times, and an equal-but-distinct dictionary once.
  std::vector<RecordBatchPtr> same = {batches[0], batches[0], batches[0]->Slice(1, 2)};
  ASSERT_OK_AND_ASSIGN(BufferPtr file, WriteIpcFile(batches[0]->schema(), same));
  ASSERT_OK_AND_ASSIGN(auto bytes_copy, Buffer::CopyFrom(file->data(), file->size()));
  int64_t offset = 8;
  int dictionary_messages = 0;
  while (true) {
    ASSERT_OK_AND_ASSIGN(auto view, internal::ReadMessageAt(file, offset, file->size()));
    if (view.end_of_stream) break;
    if (view.message->header_type() == internal::fb::MessageHeader::DictionaryBatch) {
      ++dictionary_messages;
    }
    offset = view.end_offset;
  }
  EXPECT_EQ(dictionary_messages, 1);
  ASSERT_OK_AND_ASSIGN(TablePtr table, ReadIpcFile(file));
  EXPECT_EQ(table->batches()[2]->column(0)->ToString(), "[\"b\", null]");
}

TEST(IpcNewTypesRoundTripTest, NestedDictionariesInValuesAndSharedIds) {
  // A dictionary whose values are structs holding another dictionary-encoded field.
  auto inner_type = dictionary(int8(), utf8());
  auto value_type = struct_({field("tag", inner_type), field("n", int32())});
  auto outer_type = dictionary(int32(), value_type);
  DictionaryBuilder inner(inner_type);
  ASSERT_OK(inner.AppendValues(*Strings(utf8(), {"red", "blue", "red"})));
  ASSERT_OK_AND_ASSIGN(ArrayPtr tags, inner.Finish());
  ArrayPtr values = Nested(value_type, {true, true, true},
                           {tags, Numeric<int32_t>(int32(), {1, 2, 3})});
  ASSERT_OK_AND_ASSIGN(
      auto outer, DictionaryArray::Make(
                      outer_type, Numeric<int32_t>(int32(), {2, kNull, 0, 1}), values));
  auto s = schema({field("outer", outer_type), field("plain", int64())});
  auto batch = std::make_shared<RecordBatch>(
      s, 4, std::vector<ArrayPtr>{outer, Numeric<int64_t>(int64(), {1, 2, 3, 4})});
  ASSERT_OK_AND_ASSIGN(BufferPtr bytes, WriteIpcFile(*batch));
  ASSERT_OK_AND_ASSIGN(TablePtr table, ReadIpcFile(bytes));
  ASSERT_EQ(table->batches().size(), 1u);
  ExpectBatchesEqual(*batch, *table->batches()[0]);
  EXPECT_EQ(table->batches()[0]->column(0)->ToString(),
            "[{tag: \"red\", n: 3}, null, {tag: \"red\", n: 1}, {tag: \"blue\", n: 2}]");

  // A dictionary of dictionaries cannot be described in IPC.
  auto bad = schema({field("d", dictionary(int32(), dictionary(int8(), utf8())))});
  EXPECT_THAT(IpcWriter::MakeStreamWriter(bad),
              IsErrorWith(StatusCode::kNotImplemented, "dictionary"));
}

// ---- Corrupt input -------------------------------------------------------------------

// A stream with one dictionary column whose index 1 points past a 1-value dictionary:
// the writer does not validate, the reader must.
TEST(IpcNewTypesCorruptTest, IndexOutsideTheDictionary) {
  auto type = dictionary(int32(), utf8());
  auto data = ArrayData::Make(
      type, 2, {nullptr, Numeric<int32_t>(int32(), {0, 1})->data()->buffers[1]}, 0, 0, {},
      Strings(utf8(), {"only"})->data());
  auto s = schema({field("d", type)});
  auto batch =
      std::make_shared<RecordBatch>(s, 2, std::vector<ArrayPtr>{MakeArray(data)});
  ASSERT_OK_AND_ASSIGN(BufferPtr stream, WriteIpcStream(*batch));
  EXPECT_THAT(
      ReadIpcStream(stream),
      IsErrorWith(StatusCode::kCorrupt, "index 1 of slot 1 lies outside the dictionary"));
  ASSERT_OK_AND_ASSIGN(BufferPtr file, WriteIpcFile(*batch));
  ASSERT_OK_AND_ASSIGN(auto reader, IpcFileReader::Open(file));
  EXPECT_THAT(reader->ReadRecordBatch(0), IsError(StatusCode::kCorrupt));
}

// Rebuilds `stream` without its DictionaryBatch messages.
BufferPtr DropDictionaryMessages(const BufferPtr& stream) {
  std::string out;
  int64_t offset = 0;
  while (true) {
    auto view = internal::ReadMessageAt(stream, offset, stream->size());
    if (!view.ok()) return nullptr;
    const bool keep =
        view->end_of_stream ||
        view->message->header_type() != internal::fb::MessageHeader::DictionaryBatch;
    if (keep) {
      out.append(reinterpret_cast<const char*>(stream->data()) + offset,
                 static_cast<size_t>(view->end_offset - offset));
    }
    if (view->end_of_stream) break;
    offset = view->end_offset;
  }
  return BufferOf(out);
}

TEST(IpcNewTypesCorruptTest, BatchBeforeItsDictionary) {
  const std::vector<RecordBatchPtr> batches = DictionaryBatches();
  ASSERT_FALSE(batches.empty());
  ASSERT_OK_AND_ASSIGN(BufferPtr stream, WriteIpcStream(*batches[0]));
  BufferPtr stripped = DropDictionaryMessages(stream);
  ASSERT_NE(stripped, nullptr);
  EXPECT_THAT(ReadIpcStream(stripped),
              IsErrorWith(StatusCode::kCorrupt, "dictionary id 0 has not been sent"));
}

TEST(IpcNewTypesCorruptTest, DamagedGoldensFailCleanly) {
  // Every single-byte truncation point and a sweep of byte flips over the dictionary
  // and map-heavy golden either reads or fails with a Status (ASan guards the rest).
  BufferPtr golden = LoadGolden("pyarrow_new_types.arrows");
  const std::string bytes(reinterpret_cast<const char*>(golden->data()), golden->size());
  for (size_t cut = 0; cut < bytes.size(); cut += 7) {
    auto result = ReadIpcStream(BufferOf(bytes.substr(0, cut)));
    if (result.ok()) {
      for (const auto& batch : (*result)->batches()) {
        for (const auto& column : batch->columns()) (void)column->ToString();
      }
    }
  }
  for (size_t at = 0; at < bytes.size(); at += 3) {
    std::string damaged = bytes;
    damaged[at] = static_cast<char>(damaged[at] ^ 0x5a);
    auto result = ReadIpcStream(BufferOf(damaged));
    if (result.ok()) {
      for (const auto& batch : (*result)->batches()) {
        for (const auto& column : batch->columns()) (void)column->ToString();
      }
    }
  }
}

// Hand-made schemas with broken type parameters.
Result<internal::DecodedSchema> DecodeOneField(
    const std::function<flatbuffers::Offset<internal::fb::Field>(
        flatbuffers::FlatBufferBuilder*)>& make) {
  flatbuffers::FlatBufferBuilder fbb;
  auto f = make(&fbb);
  auto fields =
      fbb.CreateVector(std::vector<flatbuffers::Offset<internal::fb::Field>>{f});
  fbb.Finish(internal::fb::CreateSchema(fbb, internal::fb::Endianness::Little, fields));
  const auto* schema = flatbuffers::GetRoot<internal::fb::Schema>(fbb.GetBufferPointer());
  return internal::SchemaFromFlatbuffer(schema);
}

TEST(IpcNewTypesCorruptTest, BadTypeParameters) {
  namespace fb = internal::fb;
  // A field "x" whose type table `make_type` builds.
  auto with = [](auto make_type, fb::Type type) {
    return [make_type, type](flatbuffers::FlatBufferBuilder* fbb) {
      return fb::CreateField(*fbb, fbb->CreateString("x"), true, type, make_type(fbb));
    };
  };
  EXPECT_THAT(DecodeOneField(with(
                  [](auto* fbb) { return fb::CreateDecimal(*fbb, 10, 2, 64).Union(); },
                  fb::Type::Decimal)),
              IsErrorWith(StatusCode::kNotImplemented, "decimal64"));
  EXPECT_THAT(DecodeOneField(with(
                  [](auto* fbb) { return fb::CreateDecimal(*fbb, 10, 2, 100).Union(); },
                  fb::Type::Decimal)),
              IsErrorWith(StatusCode::kCorrupt, "bit width 100"));
  EXPECT_THAT(DecodeOneField(with(
                  [](auto* fbb) { return fb::CreateDecimal(*fbb, 50, 2, 128).Union(); },
                  fb::Type::Decimal)),
              IsErrorWith(StatusCode::kCorrupt, "precision"));
  EXPECT_THAT(DecodeOneField(with(
                  [](auto* fbb) {
                    return fb::CreateTime(*fbb, fb::TimeUnit::NANOSECOND, 32).Union();
                  },
                  fb::Type::Time)),
              IsErrorWith(StatusCode::kCorrupt, "bit width 32"));
  EXPECT_THAT(DecodeOneField(with(
                  [](auto* fbb) {
                    return fb::CreateTime(*fbb, fb::TimeUnit::SECOND, 64).Union();
                  },
                  fb::Type::Time)),
              IsError(StatusCode::kCorrupt));
  // Defaults: Time is MILLISECOND/32, Duration MILLISECOND, Date MILLISECOND.
  ASSERT_OK_AND_ASSIGN(
      auto time_default,
      DecodeOneField(
          with([](auto* fbb) { return fb::CreateTime(*fbb).Union(); }, fb::Type::Time)));
  EXPECT_EQ(time_default.schema->field(0)->type()->ToString(), "time32[ms]");
  ASSERT_OK_AND_ASSIGN(
      auto duration_default,
      DecodeOneField(with([](auto* fbb) { return fb::CreateDuration(*fbb).Union(); },
                          fb::Type::Duration)));
  EXPECT_EQ(duration_default.schema->field(0)->type()->ToString(), "duration[ms]");
  ASSERT_OK_AND_ASSIGN(
      auto date_default,
      DecodeOneField(
          with([](auto* fbb) { return fb::CreateDate(*fbb).Union(); }, fb::Type::Date)));
  EXPECT_EQ(date_default.schema->field(0)->type()->ToString(), "date64[ms]");
  // A map without its entries child, or with nullable keys.
  EXPECT_THAT(DecodeOneField(with([](auto* fbb) { return fb::CreateMap(*fbb).Union(); },
                                  fb::Type::Map)),
              IsErrorWith(StatusCode::kCorrupt, "children instead of 1"));
  EXPECT_THAT(
      DecodeOneField([](flatbuffers::FlatBufferBuilder* fbb) {
        auto key = fb::CreateField(*fbb, fbb->CreateString("key"), /*nullable=*/true,
                                   fb::Type::Utf8, fb::CreateUtf8(*fbb).Union());
        auto value =
            fb::CreateField(*fbb, fbb->CreateString("value"), true, fb::Type::Int,
                            fb::CreateInt(*fbb, 32, true).Union());
        auto entries = fb::CreateField(
            *fbb, fbb->CreateString("entries"), false, fb::Type::Struct_,
            fb::CreateStruct_(*fbb).Union(), 0,
            fbb->CreateVector(std::vector<flatbuffers::Offset<fb::Field>>{key, value}));
        return fb::CreateField(
            *fbb, fbb->CreateString("m"), true, fb::Type::Map,
            fb::CreateMap(*fbb).Union(), 0,
            fbb->CreateVector(std::vector<flatbuffers::Offset<fb::Field>>{entries}));
      }),
      IsErrorWith(StatusCode::kCorrupt, "key field 'key' must not be nullable"));
  // Dictionary encodings: the index type defaults to int32; a float index is corrupt;
  // one id with two value types is corrupt.
  ASSERT_OK_AND_ASSIGN(
      auto no_index, DecodeOneField([](flatbuffers::FlatBufferBuilder* fbb) {
        return fb::CreateField(*fbb, fbb->CreateString("d"), true, fb::Type::Utf8,
                               fb::CreateUtf8(*fbb).Union(),
                               fb::CreateDictionaryEncoding(*fbb, 7));
      }));
  EXPECT_EQ(no_index.schema->field(0)->type()->ToString(),
            "dictionary<values=utf8, indices=int32, ordered=0>");
  EXPECT_EQ(no_index.dictionaries.ids, (std::vector<int64_t>{7}));
  EXPECT_THAT(DecodeOneField([](flatbuffers::FlatBufferBuilder* fbb) {
                return fb::CreateField(
                    *fbb, fbb->CreateString("d"), true, fb::Type::Utf8,
                    fb::CreateUtf8(*fbb).Union(),
                    fb::CreateDictionaryEncoding(*fbb, 7, fb::CreateInt(*fbb, 24, true)));
              }),
              IsErrorWith(StatusCode::kCorrupt, "bit width 24"));
  EXPECT_THAT(DecodeOneField([](flatbuffers::FlatBufferBuilder* fbb) {
                auto a = fb::CreateField(*fbb, fbb->CreateString("a"), true,
                                         fb::Type::Utf8, fb::CreateUtf8(*fbb).Union(),
                                         fb::CreateDictionaryEncoding(*fbb, 3));
                auto b = fb::CreateField(*fbb, fbb->CreateString("b"), true,
                                         fb::Type::Binary, fb::CreateBinary(*fbb).Union(),
                                         fb::CreateDictionaryEncoding(*fbb, 3));
                return fb::CreateField(
                    *fbb, fbb->CreateString("s"), true, fb::Type::Struct_,
                    fb::CreateStruct_(*fbb).Union(), 0,
                    fbb->CreateVector(std::vector<flatbuffers::Offset<fb::Field>>{a, b}));
              }),
              IsErrorWith(StatusCode::kCorrupt, "dictionary id 3"));
}

// ---- Files written by lance-cpp, checked with pyarrow
// ----------------------------------

struct LanceWrittenNew {
  const char* name;
  bool is_file;
  bool dictionaries;  // the dictionary delta/replacement stream instead of the new types
};
constexpr LanceWrittenNew kLanceWrittenNew[] = {
    {"lance_written_new_types.arrow", true, false},
    {"lance_written_new_types.arrows", false, false},
    {"lance_written_dictionary_deltas.arrows", false, true},
};

Result<BufferPtr> WriteLanceNewGolden(const LanceWrittenNew& spec) {
  const std::vector<RecordBatchPtr> batches =
      spec.dictionaries ? DictionaryBatches() : PyArrowNewTypes();
  if (batches.empty()) return Status::Invalid("golden input missing");
  return spec.is_file ? WriteIpcFile(batches[0]->schema(), batches)
                      : WriteIpcStream(batches[0]->schema(), batches);
}

// A tool, not a test: rewrites the lance_written_new_types / dictionary files. Run with
//   ipc_test --gtest_also_run_disabled_tests --gtest_filter='*RegenerateNew*'
// then `make_golden.py --check`.
TEST(LanceWrittenNewTypesTest, DISABLED_RegenerateNew) {
  for (const LanceWrittenNew& spec : kLanceWrittenNew) {
    ASSERT_OK_AND_ASSIGN(BufferPtr bytes, WriteLanceNewGolden(spec));
    WriteGolden(spec.name, *bytes);
  }
}

TEST(LanceWrittenNewTypesTest, CommittedFilesReadAndAreByteStable) {
  for (const LanceWrittenNew& spec : kLanceWrittenNew) {
    SCOPED_TRACE(spec.name);
    BufferPtr committed = LoadGolden(spec.name);
    ASSERT_NE(committed, nullptr);
    ASSERT_OK_AND_ASSIGN(
        TablePtr table, spec.is_file ? ReadIpcFile(committed) : ReadIpcStream(committed));
    if (spec.dictionaries) {
      ExpectDictionaryBatches(table->batches(), 3);
    } else {
      ASSERT_EQ(table->batches().size(), 2u);
      ExpectNewTypesBatch(*table->batches()[0]);
    }
    // Uncompressed output depends only on this library: it must not drift from the bytes
    // pyarrow was checked against.
    ASSERT_OK_AND_ASSIGN(BufferPtr now, WriteLanceNewGolden(spec));
    EXPECT_TRUE(now->Equals(*committed));
  }
}

}  // namespace
}  // namespace lance::ipc
