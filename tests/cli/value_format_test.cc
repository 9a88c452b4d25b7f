// SPDX-License-Identifier: Apache-2.0
#include "lib/value_format.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "lance/core/builder.h"
#include "lib/scalar_codec.h"
#include "tests/testing/cli_helpers.h"
#include "tests/testing/matchers.h"

namespace lance::cli {
namespace {

using ::lance::testing::Json;
using ::lance::testing::Text;

template <typename BuilderT, typename... Args>
ArrayPtr Make(std::vector<typename BuilderT::value_type> values,
              std::vector<bool> valid = {}) {
  auto r = ArrayFromVector<BuilderT>(values, valid);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return *r;
}

template <typename BuilderT>
ArrayPtr MakeTyped(DataTypePtr type, std::vector<typename BuilderT::value_type> values,
                   std::vector<bool> valid = {}) {
  auto r = ArrayFromVector<BuilderT>(std::move(type), values, valid);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return *r;
}

TEST(JsonValues, IntegersAreExact) {
  EXPECT_EQ(Json(Make<Int64Builder>({std::numeric_limits<int64_t>::min(), 0,
                                     std::numeric_limits<int64_t>::max(), 7},
                                    {true, true, true, false})),
            "-9223372036854775808 0 9223372036854775807 null");
  EXPECT_EQ(Json(Make<UInt64Builder>({std::numeric_limits<uint64_t>::max(), 1})),
            "18446744073709551615 1");
  EXPECT_EQ(Json(Make<Int8Builder>({-128, 127})), "-128 127");
  EXPECT_EQ(Json(Make<UInt8Builder>({255})), "255");
  EXPECT_EQ(Json(Make<Int16Builder>({-32768})), "-32768");
  EXPECT_EQ(Json(Make<UInt16Builder>({65535})), "65535");
  EXPECT_EQ(Json(Make<Int32Builder>({std::numeric_limits<int32_t>::min()})),
            "-2147483648");
  EXPECT_EQ(Json(Make<UInt32Builder>({4294967295u})), "4294967295");
  EXPECT_EQ(Json(Make<BooleanBuilder>({true, false, true}, {true, true, false})),
            "true false null");
}

TEST(JsonValues, FloatsShortestAtTheirWidth) {
  const float nan_f = std::numeric_limits<float>::quiet_NaN();
  const float inf_f = std::numeric_limits<float>::infinity();
  EXPECT_EQ(Json(Make<FloatBuilder>({0.1f, -1.5f, nan_f, inf_f, -inf_f, 1e-45f, 3e38f})),
            R"(0.1 -1.5 "NaN" "Infinity" "-Infinity" 1e-45 3e+38)");
  EXPECT_EQ(Json(Make<DoubleBuilder>(
                {0.1, 1.0 / 3, -0.0, 1e300, std::numeric_limits<double>::quiet_NaN()})),
            R"(0.1 0.3333333333333333 -0 1e+300 "NaN")");
  HalfFloatBuilder hb;
  ASSERT_OK(hb.AppendValues({DoubleToHalf(0.1), DoubleToHalf(1.0 / 3), 0x7BFF, 0x7C00,
                             0xFE00, DoubleToHalf(-2.0)}));
  ASSERT_OK(hb.AppendNull());
  ASSERT_OK_AND_ASSIGN(ArrayPtr halves, hb.Finish());
  EXPECT_EQ(Json(halves), R"(0.1 0.3333 65500 "Infinity" "NaN" -2 null)");
  EXPECT_EQ(Text(halves), "0.1|0.3333|65500|Infinity|NaN|-2|null");
}

TEST(JsonValues, StringsAndBinary) {
  EXPECT_EQ(Json(Make<StringBuilder>({"plain", "q\"\\", "a\nb\x01", "caf\xC3\xA9", ""},
                                     {true, true, true, true, false})),
            R"("plain" "q\"\\" "a\nb\u0001" "café" null)");
  LargeStringBuilder lsb;
  ASSERT_OK(lsb.Append("large"));
  ASSERT_OK_AND_ASSIGN(ArrayPtr large, lsb.Finish());
  EXPECT_EQ(Json(large), R"("large")");
  EXPECT_EQ(Json(Make<BinaryBuilder>({std::string("\x00\xff", 2), "foo", ""})),
            R"("AP8=" "Zm9v" "")");
  LargeBinaryBuilder lbb;
  ASSERT_OK(lbb.Append("hi"));
  ASSERT_OK_AND_ASSIGN(ArrayPtr large_bin, lbb.Finish());
  EXPECT_EQ(Json(large_bin), R"("aGk=")");
  EXPECT_EQ(Json(MakeTyped<FixedSizeBinaryBuilder>(fixed_size_binary(3), {"abc", "xyz"},
                                                   {true, false})),
            R"("YWJj" null)");
  // Table text: unquoted, control characters still escaped, quotes kept as they are.
  EXPECT_EQ(Text(Make<StringBuilder>({"a \"b\"", "x\ny"})), "a \"b\"|x\\ny");
}

TEST(JsonValues, DatesAndTimestamps) {
  EXPECT_EQ(Json(Make<Date32Builder>(
                {0, -1, 19782, -719529, std::numeric_limits<int32_t>::min()})),
            R"("1970-01-01" "1969-12-31" "2024-02-29" "-0001-12-31" "-5877641-06-23")");
  EXPECT_EQ(Json(MakeTyped<TimestampBuilder>(timestamp(TimeUnit::kSecond), {0, -1})),
            R"("1970-01-01T00:00:00" "1969-12-31T23:59:59")");
  EXPECT_EQ(Json(MakeTyped<TimestampBuilder>(timestamp(TimeUnit::kMilli, "UTC"), {1})),
            R"("1970-01-01T00:00:00.001Z")");
  EXPECT_EQ(Json(MakeTyped<TimestampBuilder>(timestamp(TimeUnit::kMicro), {-1})),
            R"("1969-12-31T23:59:59.999999")");
  EXPECT_EQ(Json(MakeTyped<TimestampBuilder>(timestamp(TimeUnit::kNano, "Etc/UTC"),
                                             {1'000'000'001}, {true})),
            R"("1970-01-01T00:00:01.000000001Z")");
  EXPECT_EQ(
      Json(MakeTyped<TimestampBuilder>(timestamp(TimeUnit::kSecond, "+01:00"), {0})),
      R"("1970-01-01T01:00:00+01:00")");
  EXPECT_EQ(Text(MakeTyped<TimestampBuilder>(timestamp(TimeUnit::kSecond, "UTC"), {0})),
            "1970-01-01T00:00:00Z");
}

// The column of PredicateTemporal.EtcGmtColumnOneZonePolicy (tests/table/predicate): the
// filter reads `ts = timestamp '1970-01-01 00:00:00'` as midnight in Etc/GMT+8 (UTC-8),
// i.e. row 1; scan prints that row as the same wall-clock time, with its offset.
TEST(JsonValues, TimestampsPrintInTheColumnZone) {
  constexpr int64_t kHourUs = 3'600'000'000;
  auto column = MakeTyped<TimestampBuilder>(timestamp(TimeUnit::kMicro, "Etc/GMT+8"),
                                            {0, 8 * kHourUs, 16 * kHourUs});
  EXPECT_EQ(Json(column),
            R"("1969-12-31T16:00:00.000000-08:00" "1970-01-01T00:00:00.000000-08:00" )"
            R"("1970-01-01T08:00:00.000000-08:00")");
  EXPECT_EQ(Text(column),
            "1969-12-31T16:00:00.000000-08:00|1970-01-01T00:00:00.000000-08:00|"
            "1970-01-01T08:00:00.000000-08:00");
  // A zone with rules (no tz database in this build): the UTC instant, marked Z.
  EXPECT_EQ(
      Json(MakeTyped<TimestampBuilder>(timestamp(TimeUnit::kSecond, "Asia/Tokyo"), {0})),
      R"("1970-01-01T00:00:00Z")");
}

TEST(JsonValues, Nested) {
  // list<int64>: [1, null], null, []
  ListBuilder lb(std::make_unique<Int64Builder>());
  auto* items = static_cast<Int64Builder*>(lb.value_builder());
  ASSERT_OK(lb.Append());
  ASSERT_OK(items->Append(1));
  ASSERT_OK(items->AppendNull());
  ASSERT_OK(lb.AppendNull());
  ASSERT_OK(lb.Append());
  ASSERT_OK_AND_ASSIGN(ArrayPtr lists, lb.Finish());
  EXPECT_EQ(Json(lists), "[1,null] null []");
  EXPECT_EQ(Text(lists), "[1,null]|null|[]");
  // A slice keeps offsets right.
  EXPECT_EQ(Json(lists->Slice(1, 2)), "null []");

  // struct<a: utf8, b: fixed_size_list<float32, 2>>
  auto type = struct_({field("a", utf8()), field("b", fixed_size_list(float32(), 2))});
  ASSERT_OK_AND_ASSIGN(auto builder, MakeBuilder(type));
  auto* sb = static_cast<StructBuilder*>(builder.get());
  auto* a = static_cast<StringBuilder*>(sb->field_builder(0));
  auto* b = static_cast<FixedSizeListBuilder*>(sb->field_builder(1));
  auto* bf = static_cast<FloatBuilder*>(b->value_builder());
  ASSERT_OK(sb->Append());
  ASSERT_OK(a->Append("x\ty"));
  ASSERT_OK(b->Append());
  ASSERT_OK(bf->Append(0.5f));
  ASSERT_OK(bf->Append(std::numeric_limits<float>::infinity()));
  ASSERT_OK(sb->AppendNull());
  ASSERT_OK(sb->Append());
  ASSERT_OK(a->AppendNull());
  ASSERT_OK(b->AppendNull());
  ASSERT_OK_AND_ASSIGN(ArrayPtr structs, sb->Finish());
  EXPECT_EQ(Json(structs),
            R"({"a":"x\ty","b":[0.5,"Infinity"]} null {"a":null,"b":null})");
  EXPECT_EQ(Json(structs->Slice(2)), R"({"a":null,"b":null})");
}

TEST(JsonValues, RowsInSchemaOrder) {
  auto s = schema({field("z", int64()), field("a", utf8())});
  ASSERT_OK_AND_ASSIGN(auto batch, RecordBatch::Make(s, 2,
                                                     {Make<Int64Builder>({1, 2}),
                                                      Make<StringBuilder>({"x", "y"})}));
  std::string out;
  AppendJsonRow(*batch, 1, &out);
  EXPECT_EQ(out, R"({"z":2,"a":"y"})");
}

}  // namespace
}  // namespace lance::cli
