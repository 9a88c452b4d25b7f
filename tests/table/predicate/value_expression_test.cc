// SPDX-License-Identifier: Apache-2.0
// Value expressions (ValueExpression::Parse / Evaluate): result types, broadcast
// literals, NULLs and errors naming what is unknown. The casts an UPDATE needs to store a
// value into a column are core's (tests/core/cast_test.cc).
#include "table/predicate/value_expression.h"

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
using namespace predicate_testing;  // NOLINT: Build, Check, ExpectArray, MakeBatch, Opt

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

// Expects each expression of `cases` to fail to parse against `schema` (Invalid) with a
// message holding its text. A failure is reported at this line and names the expression.
void ExpectExpressionErrors(const Schema& schema, const ParseErrorCases& cases) {
  for (const auto& [expression, text] : cases) {
    EXPECT_THAT(ValueExpression::Parse(expression, schema).status(),
                IsErrorWith(StatusCode::kInvalid, text))
        << expression;
  }
}

TEST(ValueExpression, ColumnsArithmeticAndTypes) {
  auto batch = Sample();
  ExpectArray(Eval("x", *batch), batch->GetColumnByName("x"), "x");
  ExpectArray(Eval("i + x", *batch),
              Build(Int64Builder(), Opt<int64_t>{11, 18, std::nullopt, std::nullopt}),
              "i + x");
  ExpectArray(Eval("i * 2", *batch),
              Build(Int32Builder(), Opt<int32_t>{2, -4, std::nullopt, 80}), "i * 2");
  ExpectArray(Eval("f * 2", *batch),
              Build(DoubleBuilder(), Opt<double>{3, std::nullopt, -0.5, 16}), "f * 2");
  auto e = ValueExpression::Parse("i + x", *batch->schema());
  ASSERT_TRUE(e.ok());
  EXPECT_EQ((*e)->type()->id(), TypeId::kInt64);
  EXPECT_EQ((*e)->ReferencedColumns(), (std::vector<std::string>{"i", "x"}));
}

// As Lance's resolve step: a literal next to a column at the root takes its type.
TEST(ValueExpression, RootLiteralTakesTheColumnType) {
  auto batch = MakeBatch({
      {"i8", Build(Int8Builder(), Opt<int8_t>{100, -1, std::nullopt})},
      {"g", Build(FloatBuilder(), Opt<float>{1.0F, 2.0F, std::nullopt})},
  });
  ExpectArray(Eval("i8 + 100", *batch),
              Build(Int8Builder(), Opt<int8_t>{-56, 99, std::nullopt}), "wraps in int8");
  ExpectArray(Eval("2 * i8", *batch),
              Build(Int8Builder(), Opt<int8_t>{-56, -2, std::nullopt}), "literal left");
  ExpectArray(Eval("g * 0.1", *batch),
              Build(FloatBuilder(), Opt<float>{0.1F, 0.2F, std::nullopt}), "float32");
  ExpectArray(Eval("(i8 + 100) > 0", *batch),
              Build(BooleanBuilder(), Opt<bool>{true, true, std::nullopt}),
              "below the root: int64");
  ExpectArray(Eval("i8 - 0.5", *batch),
              Build(DoubleBuilder(), Opt<double>{99.5, -1.5, std::nullopt}), "fraction");
  EXPECT_THAT(ValueExpression::Parse("i8 + 200", *batch->schema()).status(),
              IsErrorWith(StatusCode::kInvalid, "200"));
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
  ExpectExpressionErrors(*batch->schema(), {
                                               {"nope + 1", "no column named 'nope'"},
                                               {"x +", "cannot parse expression 'x +'"},
                                               {"1 / 0", "Divide by zero"},
                                           });
  auto div = ValueExpression::Parse("x / (i - i)", *batch->schema());
  ASSERT_TRUE(div.ok());
  EXPECT_THAT((*div)->Evaluate(*batch).status(),
              IsErrorWith(StatusCode::kInvalid, "expression 'x / (i - i)'"));
}

TEST(ValueExpression, SyntaxErrorsNameWhatWasExpected) {
  auto batch = Sample();
  const Schema& schema = *batch->schema();
  ExpectExpressionErrors(
      schema, {
                  {"CAST(x AS)", "expected a type name at position 9"},
                  {"CAST(x INT)", "expected AS in CAST"},
                  {"CASE WHEN b THEN 1", "WHEN, ELSE or END in CASE"},
                  {"CASE x END", "expected WHEN in CASE"},
                  {"EXTRACT(year d)", "expected FROM in EXTRACT"},
                  {"lower(s", "',' or ')' after a function argument"},
                  {"concat()", "takes at least 1 argument"},
                  {"x || 1", "|| joins strings"},
                  {"CAST(x AS TIMESTAMP(4))", "precision must be 0, 3, 6 or 9"},
                  {"date_part(s, x)", "part as a string literal"},
                  {"abs(s)", "function 'abs' needs a number"},
              });
  EXPECT_THAT(Predicate::Parse("lower(s)", schema).status(),
              IsErrorWith(StatusCode::kInvalid, "must be a boolean expression"));
}

TEST(ValueExpression, ColumnsNamedLikeKeywordsStillWork) {
  auto batch = MakeBatch({
      {"case", Build(Int32Builder(), Opt<int32_t>{1, 2})},
      {"lower", Build(StringBuilder(), Opt<std::string>{"A", "b"})},
  });
  ExpectMatching(*batch, {
                             {"case = 2", {1}},
                             {"case > 0 AND lower = 'b'", {1}},
                         });
  ExpectArray(Eval("lower(lower)", *batch),
              Build(StringBuilder(), Opt<std::string>{"a", "b"}), "function of a column");
  ExpectArray(Eval("CASE WHEN case = 1 THEN 'one' END", *batch),
              Build(StringBuilder(), Opt<std::string>{"one", std::nullopt}), "both");
}

TEST(ValueExpression, PrecedenceOfConcatAndCaseInsensitiveNames) {
  auto batch = Sample();
  // || binds tighter than comparisons, as + does.
  ExpectArray(Eval("s || 'x' = 'ax'", *batch),
              Build(BooleanBuilder(), Opt<bool>{true, false, std::nullopt, false}), "||");
  ExpectArray(Eval("CoAlEsCe(i, 0) + 1", *batch),
              Build(Int64Builder(), Opt<int64_t>{2, -1, 1, 41}), "mixed-case name");
  auto e = ValueExpression::Parse("lower(s) || CAST(i AS STRING)", *batch->schema());
  ASSERT_TRUE(e.ok());
  EXPECT_EQ((*e)->ReferencedColumns(), (std::vector<std::string>{"s", "i"}));
  EXPECT_EQ((*e)->type()->id(), TypeId::kUtf8);
}

TEST(ValueExpression, UnicodeCase) {
  auto batch = MakeBatch(
      {{"s", Build(StringBuilder(), Opt<std::string>{"ΣΑΣ ΟΔΟΣ", "straße", "ДОМ"})}});
  ExpectArray(Eval("lower(s)", *batch),
              Build(StringBuilder(), Opt<std::string>{"σας οδος", "straße", "дом"}),
              "final sigma");
  ExpectArray(Eval("upper(s)", *batch),
              Build(StringBuilder(), Opt<std::string>{"ΣΑΣ ΟΔΟΣ", "STRASSE", "ДОМ"}),
              "ß");
}

// Values the same expressions give in pylance 14.0.2 (to_table(columns={"v": expr})).
TEST(ValueExpression, StringFunctions) {
  auto batch = MakeBatch({
      {"s",
       Build(StringBuilder(), Opt<std::string>{"Abc", "bc", std::nullopt, "été Ünï"})},
      {"i", Build(Int32Builder(), Opt<int32_t>{1, -2, std::nullopt, 40})},
  });
  auto strs = [](Opt<std::string> v) { return Build(StringBuilder(), v); };
  auto i32 = [](Opt<int32_t> v) { return Build(Int32Builder(), v); };
  ExpectArray(Eval("lower(s)", *batch), strs({"abc", "bc", std::nullopt, "été ünï"}),
              "lower");
  ExpectArray(Eval("UPPER(s)", *batch), strs({"ABC", "BC", std::nullopt, "ÉTÉ ÜNÏ"}),
              "upper");
  ExpectArray(Eval("concat(s, 'x', NULL)", *batch),
              strs({"Abcx", "bcx", "x", "été Ünïx"}), "concat skips NULLs");
  ExpectArray(Eval("s || 'x'", *batch), strs({"Abcx", "bcx", std::nullopt, "été Ünïx"}),
              "|| propagates NULLs");
  ExpectArray(Eval("s || i", *batch), strs({"Abc1", "bc-2", std::nullopt, "été Ünï40"}),
              "|| casts numbers");
  ExpectArray(Eval("concat(s, i)", *batch), strs({"Abc1", "bc-2", "", "été Ünï40"}),
              "concat casts numbers");
  ExpectArray(Eval("length(s)", *batch), i32({3, 2, std::nullopt, 7}), "length");
  ExpectArray(Eval("char_length(s)", *batch), i32({3, 2, std::nullopt, 7}),
              "char_length");
  ExpectArray(Eval("octet_length(s)", *batch), i32({3, 2, std::nullopt, 11}),
              "octet_length");
  ExpectArray(Eval("length(i)", *batch), i32({1, 2, std::nullopt, 2}),
              "length of a number");
  ExpectArray(Eval("ltrim(s, 'A')", *batch), strs({"bc", "bc", std::nullopt, "été Ünï"}),
              "ltrim");
  ExpectArray(Eval("btrim(s, 'Ac')", *batch), strs({"b", "b", std::nullopt, "été Ünï"}),
              "btrim");
  ExpectArray(Eval("rtrim(concat(s, '  '))", *batch), strs({"Abc", "bc", "", "été Ünï"}),
              "rtrim");
  // lance-cpp extensions (pylance rejects SUBSTR / SUBSTRING syntax): 1-based characters.
  ExpectArray(Eval("substr(s, 2)", *batch), strs({"bc", "c", std::nullopt, "té Ünï"}),
              "substr");
  ExpectArray(Eval("substring(s FROM 2 FOR 2)", *batch),
              strs({"bc", "c", std::nullopt, "té"}), "substring from for");
  ExpectArray(Eval("substr(s, 0, 2)", *batch), strs({"A", "b", std::nullopt, "é"}),
              "substr from 0");
  ExpectExpressionErrors(*batch->schema(),
                         {
                             {"lower(i)", "function 'lower' needs a string"},
                             {"foo(i)", "unknown function 'foo'"},
                             {"lower(s, s)", "takes 1 argument"},
                         });
}

TEST(ValueExpression, MoreStringFunctionsAndNullif) {
  auto batch = MakeBatch({
      {"s", Build(StringBuilder(), Opt<std::string>{"Abc", "bc", std::nullopt, "été Ü"})},
      {"i", Build(Int32Builder(), Opt<int32_t>{1, -2, std::nullopt, 40})},
  });
  auto strs = [](Opt<std::string> v) { return Build(StringBuilder(), v); };
  ExpectArray(Eval("replace(s, 'b', 'X')", *batch),
              strs({"AXc", "Xc", std::nullopt, "été Ü"}), "replace");
  ExpectArray(Eval("replace(s, '', '-')", *batch),
              strs({"-A-b-c-", "-b-c-", std::nullopt, "-é-t-é- -Ü-"}), "replace empty");
  ExpectArray(Eval("strpos(s, 'Ü')", *batch),
              Build(Int32Builder(), Opt<int32_t>{0, 0, std::nullopt, 5}), "strpos chars");
  ExpectArray(Eval("reverse(s)", *batch), strs({"cbA", "cb", std::nullopt, "Ü été"}),
              "reverse");
  ExpectArray(Eval("starts_with(s, 'A')", *batch),
              Build(BooleanBuilder(), Opt<bool>{true, false, std::nullopt, false}), "sw");
  ExpectArray(Eval("nullif(i, 1)", *batch),
              Build(Int64Builder(), Opt<int64_t>{std::nullopt, -2, std::nullopt, 40}),
              "nullif");
  ExpectArray(Eval("nullif(s, 'bc')", *batch),
              strs({"Abc", std::nullopt, std::nullopt, "été Ü"}), "nullif str");
}

TEST(ValueExpression, NumericFunctionsCoalesceAndCase) {
  auto batch = MakeBatch({
      {"i", Build(Int32Builder(), Opt<int32_t>{1, -2, std::nullopt, 40})},
      {"x", Build(Int64Builder(), Opt<int64_t>{10, 20, 30, std::nullopt})},
      {"f", Build(DoubleBuilder(), Opt<double>{1.5, std::nullopt, -0.25, -8.25})},
      {"g", Build(FloatBuilder(), Opt<float>{1.5F, std::nullopt, 2.25F, -8.0F})},
      {"s", Build(StringBuilder(), Opt<std::string>{"a", std::nullopt, "c", "d"})},
  });
  auto i64 = [](Opt<int64_t> v) { return Build(Int64Builder(), v); };
  auto f64 = [](Opt<double> v) { return Build(DoubleBuilder(), v); };
  ExpectArray(Eval("abs(i)", *batch),
              Build(Int32Builder(), Opt<int32_t>{1, 2, std::nullopt, 40}), "abs");
  ExpectArray(Eval("round(f)", *batch), f64({2, std::nullopt, -0.0, -8}), "round");
  ExpectArray(Eval("round(f, 1)", *batch), f64({1.5, std::nullopt, -0.3, -8.3}),
              "round 1");
  ExpectArray(Eval("round(g, 1)", *batch),
              Build(FloatBuilder(), Opt<float>{1.5F, std::nullopt, 2.3F, -8.0F}),
              "round float32");
  ExpectArray(Eval("round(i)", *batch), f64({1, -2, std::nullopt, 40}), "round int");
  ExpectArray(Eval("COALESCE(i, x)", *batch), i64({1, -2, 30, 40}), "coalesce int64");
  ExpectArray(Eval("coalesce(i, 0)", *batch), i64({1, -2, 0, 40}), "coalesce literal");
  ExpectArray(Eval("coalesce(i, 1.5)", *batch), f64({1, -2, 1.5, 40}), "coalesce float");
  ExpectArray(Eval("coalesce(s, 'z')", *batch),
              Build(StringBuilder(), Opt<std::string>{"a", "z", "c", "d"}),
              "coalesce str");
  auto strs = [](Opt<std::string> v) { return Build(StringBuilder(), v); };
  ExpectArray(Eval("CASE WHEN i > 0 THEN 'p' END", *batch),
              strs({"p", std::nullopt, std::nullopt, "p"}), "case without else");
  ExpectArray(Eval("CASE WHEN i > 0 THEN 'p' WHEN i < 0 THEN 'n' ELSE 'z' END", *batch),
              strs({"p", "n", "z", "p"}), "case else");
  ExpectArray(Eval("CASE i WHEN 1 THEN x WHEN 40 THEN 0 END", *batch),
              i64({10, std::nullopt, std::nullopt, 0}), "simple case");
  // Branches are computed only on their rows: no division by zero here.
  ExpectArray(Eval("CASE WHEN i - i = 0 AND i = 1 THEN 0 ELSE x / (i - 1) END", *batch),
              i64({0, -6, std::nullopt, std::nullopt}), "lazy branches");
  ExpectExpressionErrors(*batch->schema(),
                         {
                             {"CASE WHEN i THEN 1 END", "boolean condition"},
                             {"coalesce(i, s)", "do not share a type"},
                         });
}

TEST(ValueExpression, CastAndDateParts) {
  const int64_t us = 1000000;
  auto batch = MakeBatch({
      {"d", Build(Date32Builder(), Opt<int32_t>{19724, std::nullopt, -1, 11016})},
      {"ts", Build(TimestampBuilder(timestamp(TimeUnit::kMicro)),
                   Opt<int64_t>{1704164645123456, std::nullopt, -1 * us,
                                int64_t{951825600} * us})},
      {"x", Build(Int64Builder(), Opt<int64_t>{10, 20, 300, std::nullopt})},
      {"f", Build(DoubleBuilder(), Opt<double>{1.5, std::nullopt, std::nan(""), -8.25})},
  });
  auto i32 = [](Opt<int32_t> v) { return Build(Int32Builder(), v); };
  ExpectArray(Eval("date_part('year', d)", *batch), i32({2024, std::nullopt, 1969, 2000}),
              "year");
  ExpectArray(Eval("EXTRACT(month FROM d)", *batch), i32({1, std::nullopt, 12, 2}),
              "month");
  ExpectArray(Eval("date_part('dow', d)", *batch), i32({2, std::nullopt, 3, 2}), "dow");
  ExpectArray(Eval("date_part('doy', ts)", *batch), i32({2, std::nullopt, 365, 60}),
              "doy");
  ExpectArray(Eval("date_part('week', d)", *batch), i32({1, std::nullopt, 1, 9}), "week");
  ExpectArray(Eval("date_part('quarter', d)", *batch), i32({1, std::nullopt, 4, 1}), "q");
  ExpectArray(Eval("date_part('hour', ts)", *batch), i32({3, std::nullopt, 23, 12}),
              "hour");
  ExpectArray(Eval("date_part('minute', ts)", *batch), i32({4, std::nullopt, 59, 0}),
              "min");
  ExpectArray(Eval("date_part('second', ts)", *batch), i32({5, std::nullopt, 59, 0}),
              "sec");
  ExpectArray(Eval("date_part('millisecond', ts)", *batch),
              i32({5123, std::nullopt, 59000, 0}), "ms");
  ExpectArray(Eval("date_part('epoch', ts)", *batch),
              Build(DoubleBuilder(),
                    Opt<double>{1704164645.123456, std::nullopt, -1.0, 951825600.0}),
              "epoch");
  ExpectArray(Eval("CAST(x AS SMALLINT)", *batch),
              Build(Int16Builder(), Opt<int16_t>{10, 20, 300, std::nullopt}), "smallint");
  ExpectArray(Eval("CAST(x AS STRING)", *batch),
              Build(StringBuilder(), Opt<std::string>{"10", "20", "300", std::nullopt}),
              "string");
  ExpectArray(Eval("CAST(d AS TIMESTAMP)", *batch),
              Build(TimestampBuilder(timestamp(TimeUnit::kMicro)),
                    Opt<int64_t>{int64_t{19724} * 86400 * us, std::nullopt, -86400 * us,
                                 int64_t{11016} * 86400 * us}),
              "date -> timestamp(us)");
  ExpectArray(
      Eval("CAST(ts AS TIMESTAMP(3))", *batch),
      Build(TimestampBuilder(timestamp(TimeUnit::kMilli)),
            Opt<int64_t>{1704164645123, std::nullopt, -1000, int64_t{951825600000}}),
      "timestamp(3)");
  ExpectArray(Eval("CAST(x AS INT UNSIGNED)", *batch),
              Build(UInt32Builder(), Opt<uint32_t>{10, 20, 300, std::nullopt}),
              "unsigned");
  ExpectArray(Eval("d > CAST('2000-01-01' AS DATE)", *batch),
              Build(BooleanBuilder(), Opt<bool>{true, std::nullopt, false, true}),
              "folded cast literal");
  auto tiny = ValueExpression::Parse("CAST(x AS TINYINT)", *batch->schema());
  ASSERT_TRUE(tiny.ok());
  EXPECT_THAT((*tiny)->Evaluate(*batch).status(),
              IsErrorWith(StatusCode::kInvalid, "out of range"));
  auto nan = ValueExpression::Parse("CAST(f AS BIGINT)", *batch->schema());
  ASSERT_TRUE(nan.ok());
  EXPECT_THAT((*nan)->Evaluate(*batch).status(),
              IsErrorWith(StatusCode::kInvalid, "NaN"));
  ExpectExpressionErrors(*batch->schema(),
                         {
                             {"CAST('abc' AS INT)", "'abc'"},
                             {"CAST(x AS WIDGET)", "unknown type 'WIDGET'"},
                         });
  EXPECT_THAT(
      ValueExpression::Parse("date_part('fortnight', d)", *batch->schema()).status(),
      IsErrorWith(StatusCode::kInvalid, "'fortnight'"));
}

TEST(ValueExpression, FunctionsInFilters) {
  auto batch = MakeBatch({
      {"s", Build(StringBuilder(), Opt<std::string>{"Abc", "bc", std::nullopt, "ABD"})},
      {"i", Build(Int32Builder(), Opt<int32_t>{1, -2, std::nullopt, 40})},
  });
  EXPECT_EQ(Matching("lower(s) LIKE 'ab%'", *batch), (Rows{0, 3}));
  EXPECT_EQ(Matching("coalesce(i, 0) = 0", *batch), (Rows{2}));
  EXPECT_EQ(Matching("(i + 1) NOT IN (2, 41)", *batch), (Rows{1}));
  EXPECT_EQ(Matching("length(s) IS NULL", *batch), (Rows{2}));
  EXPECT_EQ(Matching("CASE WHEN i > 0 THEN s ELSE 'x' END = 'Abc'", *batch), (Rows{0}));
  EXPECT_EQ(Matching("s || '!' = 'bc!'", *batch), (Rows{1}));
  EXPECT_EQ(Matching("CAST(i AS STRING) = '40'", *batch), (Rows{3}));
}

}  // namespace
}  // namespace lance::table
