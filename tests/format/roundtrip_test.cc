// SPDX-License-Identifier: Apache-2.0
// LanceFileWriter -> LanceFileReader round trips.

#include <google/protobuf/any.pb.h>
#include <gtest/gtest.h>

#include "format/proto/encodings_v2_0.pb.h"
#include "format/proto/encodings_v2_1.pb.h"
#include "format/proto/file2.pb.h"
#include "lance/core/compute.h"
#include "lance/core/concatenate.h"
#include "lance/format/file_reader.h"
#include "lance/format/file_writer.h"
#include "lance/io/memory_object_store.h"
#include "lance/str_cat.h"
#include "tests/format/file_inspect.h"
#include "tests/format/format_test_util.h"
#include "tests/testing/matchers.h"
#include "tests/testing/type_lists.h"

namespace lance::format {
namespace {

using ::lance::format::testing::RandomBatch;
using ::lance::format::testing::RandomOptions;
using ::lance::testing::IsError;
using ::lance::testing::IsErrorWith;

class RoundTripBase : public ::testing::Test {
 protected:
  /// The file version every write of the test uses.
  virtual LanceFileVersion version() const = 0;

  std::shared_ptr<io::MemoryObjectStore> store_ =
      std::make_shared<io::MemoryObjectStore>();

  /// A writer of `path` in the test's store, at the test's file version.
  Result<std::unique_ptr<LanceFileWriter>> OpenWriter(const std::string& path,
                                                      const LanceSchema& ls,
                                                      FileWriterOptions options = {}) {
    options.version = version();
    return LanceFileWriter::Open(store_, path, ls, options);
  }

  Result<WrittenFile> Write(const std::string& path, const SchemaPtr& schema,
                            const std::vector<RecordBatchPtr>& batches,
                            FileWriterOptions options = {}) {
    LANCE_ASSIGN_OR_RAISE(LanceSchema ls, LanceSchema::Assign(schema));
    LANCE_ASSIGN_OR_RAISE(auto writer, OpenWriter(path, ls, std::move(options)));
    for (const auto& b : batches) LANCE_RETURN_NOT_OK(writer->WriteBatch(*b));
    return writer->Close();
  }

  Result<TablePtr> ReadAll(const std::string& path, FileReadOptions options = {}) {
    LANCE_ASSIGN_OR_RAISE(auto reader, LanceFileReader::Open(store_, path));
    return reader->ReadTable(options);
  }

  void ExpectRoundTrip(const SchemaPtr& schema,
                       const std::vector<RecordBatchPtr>& batches,
                       FileWriterOptions options = {}, int64_t batch_size = 8192) {
    ASSERT_OK_AND_ASSIGN(WrittenFile written, Write("f.lance", schema, batches, options));
    ASSERT_OK_AND_ASSIGN(auto expected, Table::Make(schema, batches));
    EXPECT_EQ(written.num_rows, expected->num_rows());
    FileReadOptions ro;
    ro.batch_size = batch_size;
    ASSERT_OK_AND_ASSIGN(TablePtr actual, ReadAll("f.lance", ro));
    ASSERT_EQ(actual->num_rows(), expected->num_rows());
    if (!actual->Equals(*expected)) {
      ASSERT_OK_AND_ASSIGN(auto a, actual->CombineBatches());
      ASSERT_OK_AND_ASSIGN(auto e, expected->CombineBatches());
      for (int c = 0; c < e->num_columns(); ++c) {
        EXPECT_TRUE(a->column(c)->Equals(*e->column(c)))
            << "column " << schema->field(c)->ToString() << "\nexpected "
            << e->column(c)->ToString() << "\nactual   " << a->column(c)->ToString();
      }
      FAIL();
    }
  }
};

/// Every test of the file format, for each version we write.
class RoundTripTest : public RoundTripBase,
                      public ::testing::WithParamInterface<LanceFileVersion> {
 protected:
  LanceFileVersion version() const override { return GetParam(); }
};

/// What only file format 2.0 does (layout details, struct nulls pushed down).
class V20RoundTripTest : public RoundTripBase {
 protected:
  LanceFileVersion version() const override { return LanceFileVersion::kV2_0; }
};

std::vector<DataTypePtr> AllLeafTypes() {
  return ::lance::testing::FlatTypes(
      5, {timestamp(TimeUnit::kMicro, "UTC"), timestamp(TimeUnit::kNano),
          fixed_size_list(float32(), 4), fixed_size_list(boolean(), 3),
          fixed_size_list(int64(), 2)});
}

std::vector<DataTypePtr> NestedTypes() {
  auto st = struct_({field("a", int32()), field("b", utf8())});
  return {st,
          list(int32()),
          large_list(large_utf8()),
          list(st),
          struct_({field("tags", list(utf8())), field("n", float64())}),
          list(list(int8())),
          list(fixed_size_list(float32(), 3)),
          large_list(struct_({field("inner", struct_({field("z", boolean())}))})),
          struct_({})};
}

TEST_P(RoundTripTest, EveryTypeWithNullPatterns) {
  std::vector<DataTypePtr> types = AllLeafTypes();
  for (const auto& t : NestedTypes()) types.push_back(t);
  for (const auto& type : types) {
    for (double p : {0.0, 0.3, 1.0}) {
      SCOPED_TRACE(type->ToString() + " null probability " + std::to_string(p));
      auto schema = lance::schema({field("c", type)});
      RandomOptions opts;
      opts.null_probability = p;
      ASSERT_OK_AND_ASSIGN(auto batch, RandomBatch(schema, 300, 7, opts));
      ExpectRoundTrip(schema, {batch});
    }
  }
}

// One column c0, c1, ... per leaf and nested type.
SchemaPtr EveryTypeSchema() {
  std::vector<FieldPtr> fields;
  for (const auto& types : {AllLeafTypes(), NestedTypes()}) {
    for (const auto& t : types) fields.push_back(field(StrCat("c", fields.size()), t));
  }
  return lance::schema(fields);
}

TEST_P(RoundTripTest, ManyColumnsManyBatchesMultiPage) {
  auto schema = EveryTypeSchema();
  std::vector<RecordBatchPtr> batches;
  for (int b = 0; b < 5; ++b) {
    ASSERT_OK_AND_ASSIGN(auto batch, RandomBatch(schema, 200 + 37 * b, 100 + b));
    batches.push_back(batch);
  }
  FileWriterOptions options;
  options.page_bytes = 512;
  for (int64_t batch_size : {1, 7, 64, 1000, 100000}) {
    SCOPED_TRACE("batch_size " + std::to_string(batch_size));
    ExpectRoundTrip(schema, batches, options, batch_size);
  }
  // Small page_bytes really produced many pages, each starting on a 64-byte boundary.
  ASSERT_OK_AND_ASSIGN(auto bytes, store_->Read("f.lance"));
  ASSERT_OK_AND_ASSIGN(auto info, testing::InspectFile(bytes->ToStringView()));
  if (version() == LanceFileVersion::kV2_0) {
    EXPECT_EQ(info.footer.major, 0);  // 2.0 files say 0.3
    EXPECT_EQ(info.footer.minor, 3);
  } else {
    EXPECT_EQ(info.footer.major, 2);
    EXPECT_EQ(info.footer.minor, version() == LanceFileVersion::kV2_1 ? 1 : 2);
  }
  int max_pages = 0;
  for (const auto& col : info.columns) max_pages = std::max(max_pages, col.pages_size());
  EXPECT_GT(max_pages, 5);
  for (const auto& col : info.columns) {
    for (const auto& page : col.pages()) {
      for (uint64_t off : page.buffer_offsets()) EXPECT_EQ(off % 64, 0u);
    }
  }
}

TEST_P(RoundTripTest, TakeMatchesTheRowsOfEveryTypeAcrossPagesAndChunks) {
  // Take decodes only the chunks / values holding the rows and picks them chunk by
  // chunk; rows spread over many pages and chunks, unsorted and repeated, must come out
  // exactly as the input's rows, nulls included.
  auto schema = EveryTypeSchema();
  RandomOptions opts;
  opts.null_probability = 0.25;
  ASSERT_OK_AND_ASSIGN(auto batch, RandomBatch(schema, 3000, 77, opts));
  for (int64_t page_bytes : {int64_t{600}, int64_t{1} << 20}) {
    SCOPED_TRACE("page_bytes " + std::to_string(page_bytes));
    FileWriterOptions options;
    options.page_bytes = page_bytes;
    ASSERT_OK(Write("t.lance", schema, {batch}, options).status());
    ASSERT_OK_AND_ASSIGN(auto reader, LanceFileReader::Open(store_, "t.lance"));
    std::mt19937_64 rng(5);
    std::vector<std::vector<int64_t>> cases = {{0}, {2999}, {2999, 0, 1500, 1500, 7}};
    for (size_t n : {size_t{40}, size_t{700}, size_t{3000}}) {
      std::vector<int64_t> rows(n);
      for (auto& r : rows) r = std::uniform_int_distribution<int64_t>(0, 2999)(rng);
      cases.push_back(rows);
    }
    std::vector<int64_t> all(3000);
    for (int64_t r = 0; r < 3000; ++r) all[static_cast<size_t>(r)] = r;
    cases.push_back(all);
    for (const auto& rows : cases) {
      SCOPED_TRACE(::testing::Message() << rows.size() << " rows");
      ASSERT_OK_AND_ASSIGN(auto taken, reader->Take(rows));
      ASSERT_OK_AND_ASSIGN(auto expected, compute::TakeBatch(*batch, rows));
      ASSERT_EQ(taken->num_rows(), expected->num_rows());
      for (int c = 0; c < expected->num_columns(); ++c) {
        EXPECT_TRUE(taken->column(c)->Equals(*expected->column(c)))
            << "column " << schema->field(c)->ToString();
      }
    }
  }
}

TEST_P(RoundTripTest, TakeOfFsstStringsDecompressesThePickedValues) {
  // Long strings in big pages: the writer compresses them with FSST (2.1+), and Take
  // decompresses only the picked strings of each chunk. 2.0 has no FSST: there the same
  // take runs over plain string pages.
  auto schema = lance::schema({field("s", utf8()), field("l", large_utf8())});
  RandomOptions opts;
  opts.null_probability = 0.1;
  opts.max_string_length = 60;
  ASSERT_OK_AND_ASSIGN(auto batch, RandomBatch(schema, 20000, 3, opts));
  ASSERT_OK(Write("fsst.lance", schema, {batch}).status());
  ASSERT_OK_AND_ASSIGN(auto bytes, store_->Read("fsst.lance"));
  ASSERT_OK_AND_ASSIGN(auto info, testing::InspectFile(bytes->ToStringView()));
  int fsst_pages = 0;
  for (const auto& column : info.columns) {
    if (version() == LanceFileVersion::kV2_0) break;
    for (const auto& page : column.pages()) {
      google::protobuf::Any any;
      ASSERT_TRUE(any.ParseFromString(page.encoding().direct().encoding()));
      lance::encodings21::PageLayout layout;
      ASSERT_TRUE(layout.ParseFromString(any.value()));
      if (layout.mini_block_layout().value_compression().has_fsst()) ++fsst_pages;
    }
  }
  if (version() != LanceFileVersion::kV2_0) {
    ASSERT_GT(fsst_pages, 0) << "the data no longer makes the writer choose FSST";
  }
  ASSERT_OK_AND_ASSIGN(auto reader, LanceFileReader::Open(store_, "fsst.lance"));
  std::mt19937_64 rng(9);
  for (size_t n : {size_t{1}, size_t{100}, size_t{5000}}) {
    std::vector<int64_t> rows(n);
    for (auto& r : rows) r = std::uniform_int_distribution<int64_t>(0, 19999)(rng);
    ASSERT_OK_AND_ASSIGN(auto taken, reader->Take(rows));
    ASSERT_OK_AND_ASSIGN(auto expected, compute::TakeBatch(*batch, rows));
    for (int c = 0; c < 2; ++c) {
      EXPECT_TRUE(taken->column(c)->Equals(*expected->column(c)))
          << n << " rows, column " << c;
    }
  }
}

TEST_F(V20RoundTripTest, PagesNeverSplitRowsAndCarryPriority) {
  auto schema = lance::schema({field("l", list(int64())), field("x", int32())});
  ASSERT_OK_AND_ASSIGN(auto batch, RandomBatch(schema, 3000, 5));
  FileWriterOptions options;
  options.page_bytes = 1024;
  ASSERT_OK(Write("p.lance", schema, {batch}, options).status());
  ASSERT_OK_AND_ASSIGN(auto bytes, store_->Read("p.lance"));
  ASSERT_OK_AND_ASSIGN(auto info, testing::InspectFile(bytes->ToStringView()));
  // Offsets column (0): priority is the first row of each page.
  uint64_t row = 0;
  for (const auto& page : info.columns[0].pages()) {
    EXPECT_EQ(page.priority(), row);
    row += page.length();
  }
  EXPECT_EQ(row, 3000u);
  // Item column (1) pages begin at the first item of a top-level row.
  ASSERT_GT(info.columns[1].pages_size(), 2);
  uint64_t items = 0;
  const auto& list = static_cast<const ListArray&>(*batch->column(0));
  for (const auto& page : info.columns[1].pages()) {
    const int64_t r = static_cast<int64_t>(page.priority());
    EXPECT_EQ(static_cast<uint64_t>(list.value_offset(r)), items);
    items += page.length();
  }
  ExpectRoundTrip(schema, {batch}, options, 333);
}

TEST_P(RoundTripTest, EmptyValuesVersusNulls) {
  StringBuilder sb;
  ASSERT_OK(sb.AppendValues({"", "a", "", "bc", ""}, {true, true, false, true, true}));
  ASSERT_OK_AND_ASSIGN(auto strings, sb.Finish());
  ListBuilder lb(std::make_unique<Int32Builder>());
  auto* ib = static_cast<Int32Builder*>(lb.value_builder());
  ASSERT_OK(lb.Append(true));  // []
  ASSERT_OK(lb.AppendNull());  // null
  ASSERT_OK(lb.Append(true));
  ASSERT_OK(ib->Append(1));
  ASSERT_OK(ib->AppendNull());  // [1, null]
  ASSERT_OK(lb.Append(true));   // []
  ASSERT_OK(lb.AppendNull());
  ASSERT_OK_AND_ASSIGN(auto lists, lb.Finish());
  auto schema = lance::schema({field("s", utf8()), field("l", list(int32()))});
  ASSERT_OK_AND_ASSIGN(auto batch, RecordBatch::Make(schema, 5, {strings, lists}));
  ExpectRoundTrip(schema, {batch});
  ASSERT_OK_AND_ASSIGN(auto t, ReadAll("f.lance"));
  ASSERT_OK_AND_ASSIGN(auto b, t->CombineBatches());
  EXPECT_TRUE(b->column(0)->IsValid(0));
  EXPECT_TRUE(b->column(0)->IsNull(2));
  EXPECT_TRUE(b->column(1)->IsValid(0));
  EXPECT_TRUE(b->column(1)->IsNull(1));
}

TEST_P(RoundTripTest, AllEmptyListsAndEmptyFile) {
  ListBuilder lb(std::make_unique<Int32Builder>());
  for (int i = 0; i < 10; ++i) ASSERT_OK(i % 3 ? lb.Append(true) : lb.AppendNull());
  ASSERT_OK_AND_ASSIGN(auto lists, lb.Finish());
  auto schema = lance::schema({field("l", list(int32()))});
  ASSERT_OK_AND_ASSIGN(auto batch, RecordBatch::Make(schema, 10, {lists}));
  ExpectRoundTrip(schema, {batch});
  ExpectRoundTrip(schema, {});
  ASSERT_OK_AND_ASSIGN(auto reader, LanceFileReader::Open(store_, "f.lance"));
  EXPECT_EQ(reader->num_rows(), 0);
}

TEST_P(RoundTripTest, SlicedInputs) {
  auto schema =
      lance::schema({field("i", int32()), field("b", boolean()), field("s", utf8()),
                     field("l", list(utf8())),
                     field("st", struct_({field("x", int16()), field("y", utf8())})),
                     field("v", fixed_size_list(float32(), 3))});
  ASSERT_OK_AND_ASSIGN(auto batch, RandomBatch(schema, 500, 11));
  std::vector<RecordBatchPtr> slices = {batch->Slice(3, 100), batch->Slice(101, 1),
                                        batch->Slice(250, 0), batch->Slice(255, 245)};
  ExpectRoundTrip(schema, slices);
  FileWriterOptions options;
  options.page_bytes = 300;
  ExpectRoundTrip(schema, slices, options, 17);
}

TEST_F(V20RoundTripTest, StructNullsBecomeNullChildren) {
  auto st = struct_({field("x", int32()), field("l", list(int32()))});
  auto schema = lance::schema({field("st", st)});
  RandomOptions opts;
  opts.null_structs = true;
  opts.null_probability = 0.4;
  ASSERT_OK_AND_ASSIGN(auto batch, RandomBatch(schema, 200, 3, opts));
  ASSERT_OK(Write("s.lance", schema, {batch}).status());
  ASSERT_OK_AND_ASSIGN(auto t, ReadAll("s.lance"));
  ASSERT_OK_AND_ASSIGN(auto b, t->CombineBatches());
  const auto& in = static_cast<const StructArray&>(*batch->column(0));
  const auto& out = static_cast<const StructArray&>(*b->column(0));
  EXPECT_EQ(out.null_count(), 0);
  for (int64_t i = 0; i < 200; ++i) {
    if (in.IsNull(i)) {
      EXPECT_TRUE(out.field(0)->IsNull(i)) << i;
      EXPECT_TRUE(out.field(1)->IsNull(i)) << i;
    } else {
      EXPECT_EQ(testing::SlotToJson(*in.field(0), i),
                testing::SlotToJson(*out.field(0), i));
      EXPECT_EQ(testing::SlotToJson(*in.field(1), i),
                testing::SlotToJson(*out.field(1), i));
    }
  }
}

TEST_P(RoundTripTest, ProjectionRangesAndBatchSizes) {
  auto schema = lance::schema(
      {field("a", int64()), field("s", utf8()),
       field("st", struct_({field("x", int32()), field("l", list(utf8()))})),
       field("v", fixed_size_list(float32(), 8)),
       field("ll", large_list(list(int16())))});
  ASSERT_OK_AND_ASSIGN(auto batch, RandomBatch(schema, 2500, 21));
  FileWriterOptions options;
  options.page_bytes = 700;
  ASSERT_OK_AND_ASSIGN(WrittenFile written, Write("r.lance", schema, {batch}, options));
  if (version() == LanceFileVersion::kV2_0) {
    // Every field is a column.
    EXPECT_EQ(written.field_ids, (std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
    EXPECT_EQ(written.column_indices, written.field_ids);
  } else {
    // Only leaves: a, s, st.x, st.l.item, v, ll.item.item.
    EXPECT_EQ(written.field_ids, (std::vector<int32_t>{0, 1, 3, 5, 6, 9}));
    EXPECT_EQ(written.column_indices, (std::vector<int32_t>{0, 1, 2, 3, 4, 5}));
  }
  EXPECT_EQ(written.major_version, 2u);
  EXPECT_EQ(written.minor_version, version() == LanceFileVersion::kV2_0   ? 0u
                                   : version() == LanceFileVersion::kV2_1 ? 1u
                                                                          : 2u);
  ASSERT_OK_AND_ASSIGN(auto meta, store_->Head("r.lance"));
  EXPECT_EQ(written.size_bytes, meta.size);

  ASSERT_OK_AND_ASSIGN(auto reader, LanceFileReader::Open(store_, "r.lance"));
  EXPECT_EQ(reader->num_rows(), 2500);
  EXPECT_EQ(reader->version(), version());
  struct Case {
    std::vector<int32_t> ids;
    int64_t offset, length, batch_size;
  };
  // Top-level ids: a 0, s 1, st 2, v 6, ll 7.
  std::vector<Case> cases = {
      {{}, 0, -1, 100},      {{7, 0}, 17, 1000, 33},       {{2}, 2499, 1, 5},
      {{6, 1}, 1234, 0, 10}, {{7, 2, 0}, 600, 1899, 4096}, {{6}, 100, 2000, 1}};
  for (const auto& c : cases) {
    SCOPED_TRACE(::testing::Message() << "offset " << c.offset << " length " << c.length);
    FileReadOptions ro;
    ro.field_ids = c.ids;
    ro.offset = c.offset;
    ro.length = c.length;
    ro.batch_size = c.batch_size;
    ASSERT_OK_AND_ASSIGN(auto stream, reader->Read(ro));
    std::vector<RecordBatchPtr> got;
    ASSERT_NO_FATAL_FAILURE(testing::ReadBatches(*stream, c.batch_size, &got));
    const int64_t length = c.length < 0 ? 2500 - c.offset : c.length;
    ASSERT_EQ(testing::TotalRows(got), length);
    std::vector<int> indices;
    for (int32_t id : c.ids) indices.push_back(reader->schema().TopLevelIndexOfId(id));
    if (c.ids.empty()) indices = {0, 1, 2, 3, 4};
    ASSERT_OK_AND_ASSIGN(auto expected_batch,
                         batch->Slice(c.offset, length)->SelectColumns(indices));
    ASSERT_OK_AND_ASSIGN(auto expected,
                         Table::Make(expected_batch->schema(), {expected_batch}));
    ASSERT_OK_AND_ASSIGN(auto actual, Table::Make(stream->schema(), got));
    EXPECT_TRUE(actual->Equals(*expected));
  }
  FileReadOptions bad;
  bad.field_ids = {3};  // st.x: not a top-level field
  EXPECT_THAT(reader->Read(bad), IsErrorWith(StatusCode::kInvalid, "field id 3"));
  bad = {};
  bad.offset = 2501;
  EXPECT_THAT(reader->Read(bad), IsError(StatusCode::kInvalid));
  bad = {};
  bad.offset = 2000;
  bad.length = 501;
  EXPECT_THAT(reader->Read(bad), IsError(StatusCode::kInvalid));
  bad = {};
  bad.batch_size = 0;
  EXPECT_THAT(reader->Read(bad), IsError(StatusCode::kInvalid));
}

TEST_P(RoundTripTest, SchemaMetadataAndIdsSurvive) {
  auto schema = lance::schema({field("a", int32(), false, {{"k", "v"}}),
                               field("b", struct_({field("c", utf8())}))},
                              {{"dataset", "x"}});
  ASSERT_OK_AND_ASSIGN(LanceSchema ls, LanceSchema::Make(schema, {4, 9, 2}));
  ASSERT_OK_AND_ASSIGN(auto writer, OpenWriter("m.lance", ls));
  ASSERT_OK_AND_ASSIGN(auto batch, RandomBatch(schema, 10, 1));
  ASSERT_OK(writer->WriteBatch(*batch));
  EXPECT_EQ(writer->num_rows_written(), 10);
  ASSERT_OK_AND_ASSIGN(WrittenFile w, writer->Close());
  if (version() == LanceFileVersion::kV2_0) {
    EXPECT_EQ(w.field_ids, (std::vector<int32_t>{4, 9, 2}));
    EXPECT_EQ(w.column_indices, (std::vector<int32_t>{0, 1, 2}));
  } else {
    EXPECT_EQ(w.field_ids, (std::vector<int32_t>{4, 2}));  // leaves only
    EXPECT_EQ(w.column_indices, (std::vector<int32_t>{0, 1}));
  }
  ASSERT_OK_AND_ASSIGN(auto reader, LanceFileReader::Open(store_, "m.lance"));
  EXPECT_TRUE(reader->schema().Equals(ls)) << reader->schema().schema()->ToString();
  FileReadOptions ro;
  ro.field_ids = {9};
  ASSERT_OK_AND_ASSIGN(auto t, reader->ReadTable(ro));
  EXPECT_EQ(t->schema()->field(0)->name(), "b");
  EXPECT_EQ(t->num_rows(), 10);
}

TEST_P(RoundTripTest, WriterErrorsAndVisibility) {
  auto schema = lance::schema({field("a", int32())});
  ASSERT_OK_AND_ASSIGN(LanceSchema ls, LanceSchema::Assign(schema));
  FileWriterOptions legacy;
  legacy.version = LanceFileVersion::kLegacy;
  EXPECT_THAT(LanceFileWriter::Open(store_, "x.lance", ls, legacy),
              IsError(StatusCode::kNotImplemented));

  ASSERT_OK_AND_ASSIGN(auto writer, OpenWriter("x.lance", ls));
  ASSERT_OK_AND_ASSIGN(auto batch, RandomBatch(schema, 10, 1));
  ASSERT_OK(writer->WriteBatch(*batch));
  auto other = lance::schema({field("a", int64())});
  ASSERT_OK_AND_ASSIGN(auto wrong, RandomBatch(other, 10, 1));
  EXPECT_THAT(writer->WriteBatch(*wrong), IsError(StatusCode::kInvalid));
  EXPECT_THAT(store_->Head("x.lance"), IsError(StatusCode::kNotFound));
  ASSERT_OK(writer->Close().status());
  EXPECT_OK(store_->Head("x.lance").status());
  EXPECT_THAT(writer->WriteBatch(*batch), IsError(StatusCode::kInvalid));
  EXPECT_THAT(writer->Close(), IsError(StatusCode::kInvalid));

  ASSERT_OK_AND_ASSIGN(auto aborted, LanceFileWriter::Open(store_, "y.lance", ls));
  ASSERT_OK(aborted->WriteBatch(*batch));
  ASSERT_OK(aborted->Abort());
  EXPECT_THAT(store_->Head("y.lance"), IsError(StatusCode::kNotFound));
  {
    ASSERT_OK_AND_ASSIGN(auto dropped, LanceFileWriter::Open(store_, "z.lance", ls));
    ASSERT_OK(dropped->WriteBatch(*batch));
  }
  EXPECT_THAT(store_->Head("z.lance"), IsError(StatusCode::kNotFound));
}

TEST_P(RoundTripTest, OpenErrors) {
  EXPECT_THAT(LanceFileReader::Open(store_, "missing.lance"),
              IsError(StatusCode::kNotFound));
  ASSERT_OK(store_->Put("tiny.lance", "LANC"));
  EXPECT_THAT(LanceFileReader::Open(store_, "tiny.lance"),
              IsErrorWith(StatusCode::kCorrupt, "tiny.lance"));
  ASSERT_OK(store_->Put("junk.lance", std::string(100, 'x')));
  EXPECT_THAT(LanceFileReader::Open(store_, "junk.lance"),
              IsErrorWith(StatusCode::kCorrupt, "junk.lance"));
}

TEST_P(RoundTripTest, ConcurrentStreamsOnOneReader) {
  auto schema = lance::schema({field("a", int64()), field("s", list(utf8()))});
  ASSERT_OK_AND_ASSIGN(auto batch, RandomBatch(schema, 4000, 9));
  FileWriterOptions options;
  options.page_bytes = 2000;
  ASSERT_OK(Write("c.lance", schema, {batch}, options).status());
  ASSERT_OK_AND_ASSIGN(auto reader, LanceFileReader::Open(store_, "c.lance"));
  ASSERT_OK_AND_ASSIGN(auto expected, Table::Make(schema, {batch}));
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      FileReadOptions ro;
      ro.batch_size = 100 + t * 50;
      auto table = reader->ReadTable(ro);
      if (table.ok() && (*table)->Equals(*expected)) ++ok;
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(ok.load(), 4);
}

/// What the structural formats (2.1 and 2.2) do that 2.0 cannot (2.0 pushes struct nulls
/// down into the children: V20RoundTripTest).
class StructuralRoundTripTest : public RoundTripTest {};

TEST_P(StructuralRoundTripTest, StructNullsArePreserved) {
  auto st = struct_({field("x", int32()), field("l", list(int32())),
                     field("inner", struct_({field("s", utf8())}))});
  auto schema = lance::schema({field("st", st), field("ls", list(st))});
  RandomOptions opts;
  opts.null_structs = true;
  opts.null_probability = 0.3;
  ASSERT_OK_AND_ASSIGN(auto batch, RandomBatch(schema, 400, 3, opts));
  ExpectRoundTrip(schema, {batch});
  FileWriterOptions small;
  small.page_bytes = 256;
  ExpectRoundTrip(schema, {batch->Slice(0, 150), batch->Slice(150, 250)}, small, 37);
}

// Fixed-size lists of booleans are sized in bits, so long ones with item nulls still go
// to mini-blocks as pylance writes them (a full-zip page cannot hold the item bits).
TEST_P(StructuralRoundTripTest, LongBooleanVectorsWithNulls) {
  for (int32_t n : {300, 2048, 3000}) {
    SCOPED_TRACE(n);
    auto schema = lance::schema({field("v", fixed_size_list(boolean(), n))});
    RandomOptions opts;
    opts.null_probability = 0.1;
    ASSERT_OK_AND_ASSIGN(auto batch, RandomBatch(schema, 40, 11, opts));
    ExpectRoundTrip(schema, {batch});
  }
}

// Structs with Lance's "lance-encoding:packed" hint: fixed-width children as one packed
// column (2.1 and 2.2), variable-width and fixed-size-list children zipped per row (2.2
// only); nulls in children and sub-byte children refused as pylance refuses them.
TEST_P(RoundTripTest, PackedStructs) {
  if (version() == LanceFileVersion::kV2_0) {
    // 2.0 ignores the hint and stores an ordinary struct.
    auto st = struct_({field("a", int32(), false), field("b", float64(), false)});
    auto schema =
        lance::schema({field("p", st, true, {{"lance-encoding:packed", "true"}})});
    ASSERT_OK_AND_ASSIGN(auto batch, RandomBatch(schema, 300, 4));
    ExpectRoundTrip(schema, {batch});
    return;
  }
  const KeyValueMetadata packed = {{"lance-encoding:packed", "true"}};
  RandomOptions opts;
  opts.null_probability = 0.2;
  opts.null_structs = true;
  auto fixed =
      struct_({field("a", int32(), false), field("b", float64(), false),
               field("c", uint8(), false), field("d", fixed_size_binary(3), false)});
  auto fixed_schema = lance::schema({field("p", fixed, true, packed)});
  ASSERT_OK_AND_ASSIGN(auto fixed_batch, RandomBatch(fixed_schema, 3000, 5, opts));
  ExpectRoundTrip(fixed_schema, {fixed_batch});
  FileWriterOptions small;
  small.page_bytes = 4096;
  ExpectRoundTrip(fixed_schema,
                  {fixed_batch->Slice(0, 1000), fixed_batch->Slice(1000, 2000)}, small,
                  333);

  auto variable =
      struct_({field("id", int32(), false), field("name", utf8(), false),
               field("blob", large_binary(), false),
               field("v", fixed_size_list(field("item", float32(), false), 2), false)});
  auto variable_schema = lance::schema({field("p", variable, true, packed)});
  ASSERT_OK_AND_ASSIGN(auto variable_batch, RandomBatch(variable_schema, 2000, 6, opts));
  if (version() == LanceFileVersion::kV2_1) {
    EXPECT_THAT(Write("v.lance", variable_schema, {variable_batch}).status(),
                IsErrorWith(StatusCode::kNotImplemented, "needs file format 2.2"));
  } else {
    // Null struct rows come back with empty / zero children (the row stores nothing), so
    // compare the struct validity and the children of the valid rows.
    ASSERT_OK(Write("v.lance", variable_schema, {variable_batch}).status());
    ASSERT_OK_AND_ASSIGN(TablePtr read, ReadAll("v.lance"));
    ASSERT_OK_AND_ASSIGN(auto combined, read->CombineBatches());
    const auto& expected = static_cast<const StructArray&>(*variable_batch->column(0));
    const auto& actual = static_cast<const StructArray&>(*combined->column(0));
    ASSERT_EQ(actual.length(), expected.length());
    for (int64_t i = 0; i < expected.length(); ++i) {
      ASSERT_EQ(actual.IsValid(i), expected.IsValid(i)) << "row " << i;
      if (!expected.IsValid(i)) continue;
      for (int c = 0; c < 4; ++c) {
        // (By value: Lance keeps no item nullability for fixed-size lists.)
        ASSERT_EQ(actual.field(c)->Slice(i, 1)->ToString(),
                  expected.field(c)->Slice(i, 1)->ToString())
            << "row " << i << " child " << c;
      }
    }
  }

  auto with_nulls = struct_({field("a", int32()), field("b", int32())});
  auto nulls_schema = lance::schema({field("p", with_nulls, true, packed)});
  ASSERT_OK_AND_ASSIGN(auto nulls_batch, RandomBatch(nulls_schema, 200, 7, opts));
  EXPECT_THAT(Write("n.lance", nulls_schema, {nulls_batch}).status(),
              IsErrorWith(StatusCode::kNotImplemented, "child 'a' has nulls"));

  auto bools = struct_({field("a", int32(), false), field("b", boolean(), false)});
  auto bools_schema = lance::schema({field("p", bools, true, packed)});
  ASSERT_OK_AND_ASSIGN(auto bools_batch, RandomBatch(bools_schema, 200, 8));
  EXPECT_THAT(Write("b.lance", bools_schema, {bools_batch}).status(),
              IsErrorWith(StatusCode::kNotImplemented, "child 'b' of type bool"));
}

// Maps need 2.2 (pylance refuses them in 2.1 too); 2.0 has no map layout either.
TEST_P(RoundTripTest, MapsNeedFileFormat22) {
  MapBuilder mb(map(utf8(), int32()), std::make_unique<StringBuilder>(),
                std::make_unique<Int32Builder>());
  ASSERT_OK(mb.Append(true));
  ASSERT_OK(static_cast<StringBuilder*>(mb.key_builder())->Append("k"));
  ASSERT_OK(static_cast<Int32Builder*>(mb.item_builder())->Append(1));
  ASSERT_OK(mb.AppendNull());
  ASSERT_OK_AND_ASSIGN(auto maps, mb.Finish());
  auto schema = lance::schema({field("m", maps->type())});
  ASSERT_OK_AND_ASSIGN(auto batch, RecordBatch::Make(schema, 2, {maps}));
  if (version() == LanceFileVersion::kV2_2) {
    ExpectRoundTrip(schema, {batch});
  } else {
    EXPECT_THAT(Write("m.lance", schema, {batch}).status(),
                IsError(StatusCode::kNotImplemented));
  }
}

std::string VersionName(const ::testing::TestParamInfo<LanceFileVersion>& info) {
  std::string v(FileVersionString(info.param));
  return "V" + v.replace(v.find('.'), 1, "_");
}

INSTANTIATE_TEST_SUITE_P(Versions, RoundTripTest,
                         ::testing::Values(LanceFileVersion::kV2_0,
                                           LanceFileVersion::kV2_1,
                                           LanceFileVersion::kV2_2),
                         VersionName);
INSTANTIATE_TEST_SUITE_P(Versions, StructuralRoundTripTest,
                         ::testing::Values(LanceFileVersion::kV2_1,
                                           LanceFileVersion::kV2_2),
                         VersionName);

}  // namespace
}  // namespace lance::format
