// SPDX-License-Identifier: Apache-2.0
// Value expressions (ValueExpression::Parse / Evaluate) and CastArray: result types,
// broadcast literals, NULLs, errors naming what is unknown, and the casts an UPDATE needs
// to store a value into a column.
#include "table/predicate/expression.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "lance/core/builder.h"
#include "lance/core/record_batch.h"
#include "tests/table/predicate/test_util.h"
#include "tests/testing/matchers.h"

namespace lance::table {
namespace {

using ::lance::testing::IsErrorWith;
using namespace predicate_testing;  // NOLINT: Build, Check, MakeBatch, Opt

RecordBatchPtr Sample() {
  return MakeBatch({
      {"i", Build(Int32Builder(), Opt<int32_t>{1, -2, std::nullopt, 40})},
      {"x", Build(Int64Builder(), Opt<int64_t>{10, 20, 30, std::nullopt})},
      {"f", Build(DoubleBuilder(), Opt<double>{1.5, std::nullopt, -0.25, 8})},
      {"s", Build(StringBuilder(), Opt<std::string>{"a", "bc", std::nullopt, "été"})},
      {"b", Build(BooleanBuilder(), Opt<bool>{true, false, std::nullopt, true})},
  });
}

ArrayPtr Eval(const std::string& text, const RecordBatch& batch) {
  auto expr = ValueExpression::Parse(text, *batch.schema());
  EXPECT_TRUE(expr.ok()) << text << ": " << expr.status().ToString();
  if (!expr.ok()) return nullptr;
  auto out = (*expr)->Evaluate(batch);
  EXPECT_TRUE(out.ok()) << text << ": " << out.status().ToString();
  if (!out.ok()) return nullptr;
  EXPECT_EQ((*out)->length(), batch.num_rows()) << text;
  return *out;
}

void ExpectArray(const ArrayPtr& got, const ArrayPtr& want, const std::string& what) {
  ASSERT_TRUE(got) << what;
  EXPECT_TRUE(got->type()->Equals(*want->type()))
      << what << ": " << got->type()->ToString() << " vs " << want->type()->ToString();
  EXPECT_TRUE(got->Equals(*want))
      << what << ": " << got->ToString() << " vs " << want->ToString();
}

TEST(ValueExpression, ColumnsArithmeticAndTypes) {
  auto batch = Sample();
  ExpectArray(Eval("x", *batch), batch->GetColumnByName("x"), "x");
  ExpectArray(Eval("i + x", *batch),
              Build(Int64Builder(), Opt<int64_t>{11, 18, std::nullopt, std::nullopt}),
              "i + x");
  ExpectArray(Eval("i * 2", *batch),
              Build(Int64Builder(), Opt<int64_t>{2, -4, std::nullopt, 80}), "i * 2");
  ExpectArray(Eval("f * 2", *batch),
              Build(DoubleBuilder(), Opt<double>{3, std::nullopt, -0.5, 16}), "f * 2");
  auto e = ValueExpression::Parse("i + x", *batch->schema());
  ASSERT_TRUE(e.ok());
  EXPECT_EQ((*e)->type()->id(), TypeId::kInt64);
  EXPECT_EQ((*e)->ReferencedColumns(), (std::vector<std::string>{"i", "x"}));
}

TEST(ValueExpression, LiteralsAreBroadcast) {
  auto batch = Sample();
  ExpectArray(Eval("42", *batch), Build(Int64Builder(), Opt<int64_t>{42, 42, 42, 42}),
              "42");
  ExpectArray(Eval("'hi'", *batch),
              Build(StringBuilder(), Opt<std::string>{"hi", "hi", "hi", "hi"}), "'hi'");
  ExpectArray(Eval("1 + 2.5", *batch),
              Build(DoubleBuilder(), Opt<double>{3.5, 3.5, 3.5, 3.5}), "1 + 2.5");
  ExpectArray(Eval("DATE '2024-01-02'", *batch),
              Build(Date32Builder(), Opt<int32_t>{19724, 19724, 19724, 19724}), "date");
  auto null = Eval("NULL", *batch);
  ASSERT_TRUE(null);
  EXPECT_EQ(null->type_id(), TypeId::kNull);
  EXPECT_EQ(null->null_count(), 4);
  auto e = ValueExpression::Parse("NULL", *batch->schema());
  ASSERT_TRUE(e.ok());
  EXPECT_EQ((*e)->type(), nullptr);
}

TEST(ValueExpression, ComparisonsAndLogicKeepNulls) {
  auto batch = Sample();
  ExpectArray(Eval("x > 15", *batch),
              Build(BooleanBuilder(), Opt<bool>{false, true, true, std::nullopt}),
              "x > 15");
  ExpectArray(Eval("b AND i > 0", *batch),
              Build(BooleanBuilder(), Opt<bool>{true, false, std::nullopt, true}),
              "b AND i > 0");
  ExpectArray(Eval("b OR i > 0", *batch),
              Build(BooleanBuilder(), Opt<bool>{true, false, std::nullopt, true}),
              "b OR i > 0");
  ExpectArray(Eval("s IS NULL", *batch),
              Build(BooleanBuilder(), Opt<bool>{false, false, true, false}), "s IS NULL");
  ExpectArray(Eval("NOT b", *batch),
              Build(BooleanBuilder(), Opt<bool>{false, true, std::nullopt, false}),
              "NOT b");
}

TEST(ValueExpression, ErrorsNameTheProblem) {
  auto batch = Sample();
  EXPECT_THAT(ValueExpression::Parse("nope + 1", *batch->schema()).status(),
              IsErrorWith(StatusCode::kInvalid, "no column named 'nope'"));
  EXPECT_THAT(ValueExpression::Parse("x +", *batch->schema()).status(),
              IsErrorWith(StatusCode::kInvalid, "cannot parse expression 'x +'"));
  EXPECT_THAT(ValueExpression::Parse("1 / 0", *batch->schema()).status(),
              IsErrorWith(StatusCode::kInvalid, "Divide by zero"));
  auto div = ValueExpression::Parse("x / (i - i)", *batch->schema());
  ASSERT_TRUE(div.ok());
  EXPECT_THAT((*div)->Evaluate(*batch).status(),
              IsErrorWith(StatusCode::kInvalid, "expression 'x / (i - i)'"));
}

TEST(CastArray, IntegersWidenNarrowAndCheckRange) {
  auto ints = Build(Int64Builder(), Opt<int64_t>{1, std::nullopt, -128, 127});
  ExpectArray(CastArray(ints, int8()).value(),
              Build(Int8Builder(), Opt<int8_t>{1, std::nullopt, -128, 127}), "int8");
  ExpectArray(CastArray(Build(Int8Builder(), Opt<int8_t>{-1, 5}), int64()).value(),
              Build(Int64Builder(), Opt<int64_t>{-1, 5}), "widen");
  EXPECT_THAT(CastArray(Build(Int64Builder(), Opt<int64_t>{1, 300}), int8()).status(),
              IsErrorWith(StatusCode::kInvalid, "300"));
  EXPECT_THAT(CastArray(Build(Int64Builder(), Opt<int64_t>{-1}), uint32()).status(),
              IsErrorWith(StatusCode::kInvalid, "out of range"));
  // uint64 beyond int64 does not fit int64.
  EXPECT_FALSE(
      CastArray(Build(UInt64Builder(), Opt<uint64_t>{1ULL << 63}), int64()).ok());
}

TEST(CastArray, FloatsAndIntegers) {
  ExpectArray(
      CastArray(Build(Int32Builder(), Opt<int32_t>{3, std::nullopt}), float64()).value(),
      Build(DoubleBuilder(), Opt<double>{3, std::nullopt}), "int->double");
  ExpectArray(CastArray(Build(DoubleBuilder(), Opt<double>{2.9, -2.9}), int32()).value(),
              Build(Int32Builder(), Opt<int32_t>{2, -2}), "double->int truncates");
  EXPECT_FALSE(
      CastArray(Build(DoubleBuilder(), Opt<double>{std::nan("")}), int32()).ok());
  EXPECT_FALSE(CastArray(Build(DoubleBuilder(), Opt<double>{1e10}), int32()).ok());
  ExpectArray(CastArray(Build(DoubleBuilder(), Opt<double>{0.1}), float32()).value(),
              Build(FloatBuilder(), Opt<float>{0.1F}), "double->float");
}

TEST(CastArray, StringsBoolsAndNumbers) {
  ExpectArray(
      CastArray(Build(StringBuilder(), Opt<std::string>{"12", " -3 ", std::nullopt}),
                int16())
          .value(),
      Build(Int16Builder(), Opt<int16_t>{12, -3, std::nullopt}), "str->int");
  EXPECT_THAT(CastArray(Build(StringBuilder(), Opt<std::string>{"1x"}), int16()).status(),
              IsErrorWith(StatusCode::kInvalid, "'1x'"));
  ExpectArray(CastArray(Build(StringBuilder(), Opt<std::string>{"2.5", "NaN"}), float64())
                  .value(),
              Build(DoubleBuilder(), Opt<double>{2.5, std::nan("")}), "str->double");
  ExpectArray(CastArray(Build(Int64Builder(), Opt<int64_t>{-7}), utf8()).value(),
              Build(StringBuilder(), Opt<std::string>{"-7"}), "int->str");
  ExpectArray(CastArray(Build(DoubleBuilder(), Opt<double>{1.5, 2}), utf8()).value(),
              Build(StringBuilder(), Opt<std::string>{"1.5", "2.0"}), "double->str");
  ExpectArray(CastArray(Build(BooleanBuilder(), Opt<bool>{true, false}), int32()).value(),
              Build(Int32Builder(), Opt<int32_t>{1, 0}), "bool->int");
  ExpectArray(CastArray(Build(Int32Builder(), Opt<int32_t>{0, 5}), boolean()).value(),
              Build(BooleanBuilder(), Opt<bool>{false, true}), "int->bool");
  ExpectArray(
      CastArray(Build(StringBuilder(), Opt<std::string>{"true", "F"}), boolean()).value(),
      Build(BooleanBuilder(), Opt<bool>{true, false}), "str->bool");
  ExpectArray(CastArray(Build(BooleanBuilder(), Opt<bool>{true}), utf8()).value(),
              Build(StringBuilder(), Opt<std::string>{"true"}), "bool->str");
  ExpectArray(
      CastArray(Build(StringBuilder(), Opt<std::string>{"x"}), large_utf8()).value(),
      Build(LargeStringBuilder(), Opt<std::string>{"x"}), "str->large");
}

TEST(CastArray, DatesAndTimestamps) {
  auto dates = Build(Date32Builder(), Opt<int32_t>{19724, std::nullopt});
  const int64_t day_us = int64_t{86400} * 1000000;
  ExpectArray(CastArray(dates, timestamp(TimeUnit::kMicro)).value(),
              Build(TimestampBuilder(timestamp(TimeUnit::kMicro)),
                    Opt<int64_t>{19724 * day_us, std::nullopt}),
              "date->ts");
  auto ts = Build(TimestampBuilder(timestamp(TimeUnit::kMicro)),
                  Opt<int64_t>{19724 * day_us + 5, -1});
  ExpectArray(CastArray(ts, date32()).value(),
              Build(Date32Builder(), Opt<int32_t>{19724, -1}), "ts->date floors");
  ExpectArray(CastArray(ts, timestamp(TimeUnit::kNano)).value(),
              Build(TimestampBuilder(timestamp(TimeUnit::kNano)),
                    Opt<int64_t>{(19724 * day_us + 5) * 1000, -1000}),
              "us->ns");
  ExpectArray(
      CastArray(Build(StringBuilder(), Opt<std::string>{"2024-01-02", std::nullopt}),
                date32())
          .value(),
      Build(Date32Builder(), Opt<int32_t>{19724, std::nullopt}), "str->date");
  ExpectArray(CastArray(Build(StringBuilder(), Opt<std::string>{"2024-01-02 00:00:01"}),
                        timestamp(TimeUnit::kSecond))
                  .value(),
              Build(TimestampBuilder(timestamp(TimeUnit::kSecond)),
                    Opt<int64_t>{int64_t{19724} * 86400 + 1}),
              "str->ts");
  // Wall-clock strings are read in the column's zone; instants stay instants.
  ExpectArray(CastArray(Build(StringBuilder(), Opt<std::string>{"2024-01-02 05:30:00",
                                                                "2024-01-02 00:00:00Z"}),
                        timestamp(TimeUnit::kSecond, "+05:30"))
                  .value(),
              Build(TimestampBuilder(timestamp(TimeUnit::kSecond, "+05:30")),
                    Opt<int64_t>{int64_t{19724} * 86400, int64_t{19724} * 86400}),
              "str->zoned ts");
  EXPECT_FALSE(
      CastArray(Build(StringBuilder(), Opt<std::string>{"2024-13-01"}), date32()).ok());
  ExpectArray(CastArray(dates, utf8()).value(),
              Build(StringBuilder(), Opt<std::string>{"2024-01-02", std::nullopt}),
              "date->str");
}

TEST(CastArray, NullsBecomeAnyType) {
  auto nulls = NullArray::Make(3);
  for (const auto& type : {int8(), float64(), utf8(), boolean(), date32(),
                           timestamp(TimeUnit::kMicro, "UTC")}) {
    auto out = CastArray(nulls, type);
    ASSERT_TRUE(out.ok()) << type->ToString();
    EXPECT_TRUE((*out)->type()->Equals(*type));
    EXPECT_EQ((*out)->null_count(), 3);
  }
  EXPECT_THAT(CastArray(Build(Date32Builder(), Opt<int32_t>{1}), boolean()).status(),
              IsErrorWith(StatusCode::kInvalid, "cannot cast date32"));
}

}  // namespace
}  // namespace lance::table
