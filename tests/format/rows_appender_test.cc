// SPDX-License-Identifier: Apache-2.0
// RowsAppender: joining the segments a Take picks (chunk by chunk, page by page) into one
// LeafRows, levels materialized where segments differ, values concatenated once.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "format/structural/levels.h"
#include "lance/core/array.h"
#include "lance/core/builder.h"
#include "tests/testing/matchers.h"

namespace lance::format::structural {
namespace {

using ::lance::testing::IsError;

ArrayDataPtr Ints(const std::vector<int32_t>& v) {
  Int32Builder b;
  for (int32_t x : v) EXPECT_TRUE(b.Append(x).ok());
  return b.FinishData().value();
}

ArrayDataPtr Strs(const std::vector<std::string>& v) {
  StringBuilder b;
  for (const auto& x : v) EXPECT_TRUE(b.Append(x).ok());
  return b.FinishData().value();
}

LeafRows Flat(ArrayDataPtr values, std::vector<uint16_t> def = {}) {
  LeafRows rows;
  rows.num_rows = values->length;
  rows.def = std::move(def);
  rows.values = std::move(values);
  return rows;
}

TEST(RowsAppenderTest, JoinsValuesAndMaterializesDefinitionLevels) {
  RowsAppender out;
  ASSERT_OK(out.Append(Flat(Ints({1, 2}))));            // no nulls: no levels
  ASSERT_OK(out.Append(Flat(Ints({3, 4, 5}), {0, 1, 0})));  // a null in the middle
  ASSERT_OK(out.Append(Flat(Ints({}))));                 // an empty segment
  ASSERT_OK(out.Append(Flat(Ints({6}))));
  ASSERT_OK_AND_ASSIGN(LeafRows rows, out.Finish(int32()));
  EXPECT_EQ(rows.num_rows, 6);
  EXPECT_TRUE(rows.rep.empty());
  EXPECT_EQ(rows.def, (std::vector<uint16_t>{0, 0, 0, 1, 0, 0}));
  EXPECT_TRUE(MakeArray(rows.values)->Equals(*MakeArray(Ints({1, 2, 3, 4, 5, 6}))));
}

TEST(RowsAppenderTest, ManyStringSegmentsAndSlices) {
  RowsAppender out;
  std::vector<std::string> expected;
  for (int i = 0; i < 300; ++i) {
    std::vector<std::string> piece = {"a" + std::to_string(i), "", "bc" + std::to_string(i)};
    // A slice with a non-zero offset, as picked rows of a chunk may be.
    ASSERT_OK(out.Append(Flat(MakeArray(Strs(piece))->Slice(1, 2)->data())));
    expected.push_back("");
    expected.push_back(piece[2]);
  }
  ASSERT_OK_AND_ASSIGN(LeafRows rows, out.Finish(utf8()));
  EXPECT_EQ(rows.num_rows, 600);
  EXPECT_TRUE(rows.def.empty());
  EXPECT_TRUE(MakeArray(rows.values)->Equals(*MakeArray(Strs(expected))));
}

TEST(RowsAppenderTest, EmptyGivesAnEmptyArrayOfTheType) {
  RowsAppender out;
  ASSERT_OK_AND_ASSIGN(LeafRows rows, out.Finish(utf8()));
  EXPECT_EQ(rows.num_rows, 0);
  ASSERT_NE(rows.values, nullptr);
  EXPECT_EQ(rows.values->length, 0);
  EXPECT_TRUE(rows.values->type->Equals(*utf8()));
}

TEST(RowsAppenderTest, RepetitionMustBeInEverySegment) {
  LeafRows list;
  list.num_rows = 1;
  list.rep = {1, 0};
  list.values = Ints({7, 8});
  RowsAppender a;
  ASSERT_OK(a.Append(Flat(Ints({1}))));
  EXPECT_THAT(a.Append(list), IsError(StatusCode::kCorrupt));
  RowsAppender b;
  ASSERT_OK(b.Append(list));
  EXPECT_THAT(b.Append(Flat(Ints({1}))), IsError(StatusCode::kCorrupt));
  RowsAppender c;
  ASSERT_OK(c.Append(list));
  ASSERT_OK(c.Append(list));
  ASSERT_OK_AND_ASSIGN(LeafRows rows, c.Finish(int32()));
  EXPECT_EQ(rows.num_rows, 2);
  EXPECT_EQ(rows.rep, (std::vector<uint16_t>{1, 0, 1, 0}));
  EXPECT_TRUE(MakeArray(rows.values)->Equals(*MakeArray(Ints({7, 8, 7, 8}))));
}

}  // namespace
}  // namespace lance::format::structural
