// SPDX-License-Identifier: Apache-2.0
#include "lance/core/record_batch.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lance/core/builder.h"
#include "tests/testing/array_helpers.h"
#include "tests/testing/matchers.h"

namespace lance {
namespace {

using namespace ::lance::testing;  // NOLINT(build/namespaces): the test helpers

SchemaPtr IdNameSchema() { return schema({field("id", int64()), field("name", utf8())}); }

RecordBatchPtr IdNameBatch(const std::vector<int64_t>& ids,
                           const std::vector<std::string>& names) {
  return RecordBatch::Make(IdNameSchema(), static_cast<int64_t>(ids.size()),
                           {I64(ids), Str(names)})
      .value();
}

TEST(RecordBatchTest, MakeValidatesColumns) {
  auto s = IdNameSchema();
  ASSERT_OK_AND_ASSIGN(auto batch,
                       RecordBatch::Make(s, 2, {I64({1, 2}), Str({"a", "b"})}));
  EXPECT_EQ(batch->num_rows(), 2);
  EXPECT_EQ(batch->num_columns(), 2);
  EXPECT_EQ(batch->schema(), s);
  EXPECT_EQ(batch->column(1)->ToString(), "[\"a\", \"b\"]");
  EXPECT_EQ(batch->columns().size(), 2u);

  EXPECT_THAT(RecordBatch::Make(s, 2, {I64({1, 2}), Str({"a"})}),
              IsErrorWith(StatusCode::kInvalid, "'name' has 1 rows"));
  EXPECT_THAT(RecordBatch::Make(s, 3, {I64({1, 2}), Str({"a", "b"})}),
              IsErrorWith(StatusCode::kInvalid, "'id' has 2 rows"));
  EXPECT_THAT(RecordBatch::Make(s, 2, {Str({"a", "b"}), I64({1, 2})}),
              IsErrorWith(StatusCode::kInvalid, "type"));
  EXPECT_THAT(RecordBatch::Make(s, 2, {I64({1, 2})}),
              IsErrorWith(StatusCode::kInvalid, "1 columns"));
  EXPECT_THAT(RecordBatch::Make(s, 2, {I64({1, 2}), nullptr}),
              IsError(StatusCode::kInvalid));
  EXPECT_THAT(RecordBatch::Make(nullptr, 0, {}), IsError(StatusCode::kInvalid));
  EXPECT_THAT(RecordBatch::Make(schema({}), -1, {}), IsError(StatusCode::kInvalid));
  ASSERT_OK_AND_ASSIGN(auto empty, RecordBatch::Make(schema({}), 5, {}));
  EXPECT_EQ(empty->num_rows(), 5);
}

TEST(RecordBatchTest, AccessSliceAndSelect) {
  auto batch = IdNameBatch({1, 2, 3, 4}, {"a", "b", "c", "d"});
  EXPECT_EQ(batch->GetColumnByName("name"), batch->column(1));
  EXPECT_EQ(batch->GetColumnByName("nope"), nullptr);

  auto slice = batch->Slice(1, 2);
  EXPECT_EQ(slice->num_rows(), 2);
  EXPECT_EQ(slice->column(0)->ToString(), "[2, 3]");
  EXPECT_EQ(slice->column(1)->ToString(), "[\"b\", \"c\"]");
  EXPECT_EQ(batch->Slice(3, 10)->num_rows(), 1);

  ASSERT_OK_AND_ASSIGN(auto selected, batch->SelectColumns({1, 0}));
  EXPECT_EQ(selected->schema()->field(0)->name(), "name");
  EXPECT_EQ(selected->column(1), batch->column(0));
  EXPECT_THAT(batch->SelectColumns({2}), IsError(StatusCode::kInvalid));
  EXPECT_THAT(batch->SelectColumns({-1}), IsError(StatusCode::kInvalid));
}

TEST(RecordBatchTest, Equals) {
  auto a = IdNameBatch({1, 2}, {"a", "b"});
  EXPECT_TRUE(a->Equals(*IdNameBatch({1, 2}, {"a", "b"})));
  EXPECT_FALSE(a->Equals(*IdNameBatch({1, 2}, {"a", "c"})));
  EXPECT_FALSE(a->Equals(*IdNameBatch({1}, {"a"})));
  EXPECT_TRUE(IdNameBatch({0, 1, 2}, {"z", "a", "b"})->Slice(1, 2)->Equals(*a));
  auto renamed = RecordBatch::Make(schema({field("id", int64()), field("label", utf8())}),
                                   2, a->columns())
                     .value();
  EXPECT_FALSE(a->Equals(*renamed));
  auto with_meta =
      RecordBatch::Make(IdNameSchema()->WithMetadata({{"k", "v"}}), 2, a->columns())
          .value();
  EXPECT_TRUE(a->Equals(*with_meta));
  EXPECT_FALSE(a->Equals(*with_meta, /*check_metadata=*/true));
}

TEST(RecordBatchTest, StructArrayRoundTrip) {
  auto batch = IdNameBatch({1, 2, 3}, {"a", "b", "c"});
  ASSERT_OK_AND_ASSIGN(auto array, batch->ToStructArray());
  EXPECT_TRUE(array->type()->Equals(*struct_(IdNameSchema()->fields())));
  EXPECT_EQ(array->null_count(), 0);
  EXPECT_EQ(array->ToString(),
            "[{id: 1, name: \"a\"}, {id: 2, name: \"b\"}, {id: 3, name: \"c\"}]");
  ASSERT_OK_AND_ASSIGN(auto back, RecordBatch::FromStructArray(array));
  EXPECT_TRUE(back->Equals(*batch));

  // A sliced struct array maps to a batch of the sliced rows.
  ASSERT_OK_AND_ASSIGN(auto from_slice, RecordBatch::FromStructArray(array->Slice(1, 2)));
  EXPECT_TRUE(from_slice->Equals(*batch->Slice(1, 2)));

  EXPECT_THAT(RecordBatch::FromStructArray(I64({1})),
              IsErrorWith(StatusCode::kInvalid, "struct"));
  EXPECT_THAT(RecordBatch::FromStructArray(nullptr), IsError(StatusCode::kInvalid));

  ASSERT_OK_AND_ASSIGN(auto no_columns, RecordBatch::Make(schema({}), 4, {}));
  ASSERT_OK_AND_ASSIGN(auto empty_struct, no_columns->ToStructArray());
  EXPECT_EQ(empty_struct->length(), 4);
}

TEST(RecordBatchTest, ToStringRendersATable) {
  auto tags_array = testing::StringLists(
      {testing::StringItems{"x", "y"}, std::nullopt, testing::StringItems{}});
  auto s =
      schema({field("id", int64()), field("name", utf8()), field("tags", list(utf8()))});
  ASSERT_OK_AND_ASSIGN(
      auto batch,
      RecordBatch::Make(s, 3,
                        {I64({1, 0, 30}, {true, false, true}),
                         Str({"a", "", "ccc"}, {true, false, true}), tags_array}));
  const std::string expected =
      "id: int64 | name: utf8 | tags: list<item: utf8>\n"
      "----------+------------+-----------------------\n"
      "        1 | \"a\"        | [\"x\", \"y\"]\n"
      "     null | null       | null\n"
      "       30 | \"ccc\"      | []\n"
      "(3 rows)\n";
  EXPECT_EQ(batch->ToString(), expected);

  const std::string truncated =
      "id: int64 | name: utf8 | tags: list<item: utf8>\n"
      "----------+------------+-----------------------\n"
      "        1 | \"a\"        | [\"x\", \"y\"]\n"
      "... 2 more rows (3 total)\n";
  EXPECT_EQ(batch->ToString(1), truncated);
}

TEST(RecordBatchTest, ToStringTruncatesWideCells) {
  std::string long_text(100, 'w');
  auto batch =
      RecordBatch::Make(schema({field("t", utf8())}), 1, {Str({long_text})}).value();
  const std::string out = batch->ToString();
  EXPECT_NE(out.find("..."), std::string::npos);
  EXPECT_EQ(out.find(long_text), std::string::npos);
}

// ---------------------------------------------------------------------------------------
// Table

TEST(TableTest, EqualityIgnoresBatchBoundaries) {
  auto whole = IdNameBatch({1, 2, 3, 4, 5}, {"a", "b", "c", "d", "e"});
  ASSERT_OK_AND_ASSIGN(
      auto t1, Table::Make(IdNameSchema(), {whole->Slice(0, 2), whole->Slice(2, 3)}));
  ASSERT_OK_AND_ASSIGN(
      auto t2, Table::Make(IdNameSchema(),
                           {whole->Slice(0, 1), whole->Slice(1, 0), whole->Slice(1, 4)}));
  ASSERT_OK_AND_ASSIGN(auto t3, Table::Make(IdNameSchema(), {whole}));
  EXPECT_EQ(t1->num_rows(), 5);
  EXPECT_TRUE(t1->Equals(*t2));
  EXPECT_TRUE(t2->Equals(*t3));
  EXPECT_TRUE(t3->Equals(*t1));

  auto other = IdNameBatch({1, 2, 3, 4, 6}, {"a", "b", "c", "d", "e"});
  ASSERT_OK_AND_ASSIGN(
      auto t4, Table::Make(IdNameSchema(), {other->Slice(0, 3), other->Slice(3, 2)}));
  EXPECT_FALSE(t1->Equals(*t4));
  ASSERT_OK_AND_ASSIGN(auto t5, Table::Make(IdNameSchema(), {whole->Slice(0, 4)}));
  EXPECT_FALSE(t1->Equals(*t5));
}

TEST(TableTest, CombineBatches) {
  auto a = IdNameBatch({1, 2}, {"a", "b"});
  auto b = IdNameBatch({3}, {"c"});
  ASSERT_OK_AND_ASSIGN(auto table, Table::Make(IdNameSchema(), {a, b}));
  ASSERT_OK_AND_ASSIGN(auto combined, table->CombineBatches());
  EXPECT_TRUE(combined->Equals(*IdNameBatch({1, 2, 3}, {"a", "b", "c"})));
  EXPECT_EQ(combined->column(0)->offset(), 0);

  ASSERT_OK_AND_ASSIGN(auto empty, Table::Make(IdNameSchema(), {}));
  EXPECT_EQ(empty->num_rows(), 0);
  ASSERT_OK_AND_ASSIGN(auto empty_batch, empty->CombineBatches());
  EXPECT_EQ(empty_batch->num_rows(), 0);
  EXPECT_EQ(empty_batch->num_columns(), 2);
  EXPECT_TRUE(empty_batch->column(1)->type()->Equals(*utf8()));
  EXPECT_EQ(empty->ToString(),
            "id: int64 | name: utf8\n----------+-----------\n(0 rows)\n");
}

TEST(TableTest, MakeRejectsMismatchedBatches) {
  auto other = RecordBatch::Make(schema({field("id", int32())}), 1,
                                 {ArrayFromVector<Int32Builder>({1}).value()})
                   .value();
  EXPECT_THAT(Table::Make(IdNameSchema(), {other}), IsError(StatusCode::kInvalid));
  EXPECT_THAT(Table::Make(IdNameSchema(), {nullptr}), IsError(StatusCode::kInvalid));
  EXPECT_THAT(Table::Make(nullptr, {}), IsError(StatusCode::kInvalid));
}

TEST(TableTest, ToStringSpansBatches) {
  auto a = IdNameBatch({1, 2}, {"a", "b"});
  auto b = IdNameBatch({3, 4}, {"c", "d"});
  ASSERT_OK_AND_ASSIGN(auto table, Table::Make(IdNameSchema(), {a, b}));
  const std::string expected =
      "id: int64 | name: utf8\n"
      "----------+-----------\n"
      "        1 | \"a\"\n"
      "        2 | \"b\"\n"
      "        3 | \"c\"\n"
      "... 1 more rows (4 total)\n";
  EXPECT_EQ(table->ToString(3), expected);
}

// ---------------------------------------------------------------------------------------
// RecordBatchReader

TEST(RecordBatchReaderTest, FromBatchesAndToTable) {
  auto a = IdNameBatch({1, 2}, {"a", "b"});
  auto b = IdNameBatch({3}, {"c"});
  auto reader = RecordBatchReader::FromBatches(IdNameSchema(), {a, b});
  EXPECT_TRUE(reader->schema()->Equals(*IdNameSchema()));
  ASSERT_OK_AND_ASSIGN(auto first, reader->Next());
  EXPECT_EQ(first, a);
  ASSERT_OK_AND_ASSIGN(auto second, reader->Next());
  EXPECT_EQ(second, b);
  ASSERT_OK_AND_ASSIGN(auto end, reader->Next());
  EXPECT_EQ(end, nullptr);
  ASSERT_OK_AND_ASSIGN(auto again, reader->Next());
  EXPECT_EQ(again, nullptr);

  auto reader2 = RecordBatchReader::FromBatches(IdNameSchema(), {a, b});
  ASSERT_OK_AND_ASSIGN(auto table, reader2->ToTable());
  EXPECT_EQ(table->num_rows(), 3);
  EXPECT_EQ(table->batches().size(), 2u);
  ASSERT_OK_AND_ASSIGN(
      auto expected,
      Table::Make(IdNameSchema(), {IdNameBatch({1, 2, 3}, {"a", "b", "c"})}));
  EXPECT_TRUE(table->Equals(*expected));
}

TEST(RecordBatchReaderTest, MismatchedBatchIsReported) {
  auto bad = RecordBatch::Make(schema({field("x", utf8())}), 1, {Str({"x"})}).value();
  auto reader =
      RecordBatchReader::FromBatches(IdNameSchema(), {IdNameBatch({1}, {"a"}), bad});
  ASSERT_OK(reader->Next());
  EXPECT_THAT(reader->Next(), IsError(StatusCode::kInvalid));
  auto reader2 = RecordBatchReader::FromBatches(IdNameSchema(), {bad});
  EXPECT_THAT(reader2->ToTable(), IsError(StatusCode::kInvalid));
}

}  // namespace
}  // namespace lance
