// SPDX-License-Identifier: Apache-2.0
// Arithmetic in filters (+ - * / % and unary minus): precedence, DataFusion's typing,
// wrapping and failing integer operations, IEEE floats, NULLs, Lance's re-typing of
// constant trees next to a column, short circuits, and errors with positions. Expected
// answers were checked against pylance 14.0.2 (tests/python/test_filter_arith.py runs a
// randomised comparison with it).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "lance/core/builder.h"
#include "lance/core/float16.h"
#include "lance/core/record_batch.h"
#include "table/predicate/bound_expr.h"
#include "table/predicate/predicate.h"
#include "tests/table/predicate/test_util.h"
#include "tests/testing/matchers.h"

namespace lance::table {
namespace {

namespace pi = predicate_internal;
using ::lance::testing::IsErrorWith;
using namespace predicate_testing;  // NOLINT: Build, Check, Matching, ...

// float16 columns from float values (exactly representable ones).
ArrayPtr Halves(const Opt<float>& values) {
  Opt<uint16_t> bits;
  for (const auto& v : values) {
    bits.push_back(v ? std::optional<uint16_t>(DoubleToHalf(*v)) : std::nullopt);
  }
  return Build(HalfFloatBuilder(), bits);
}

// Parses (which must succeed) and evaluates.
Status EvaluateStatus(const std::string& text, const RecordBatch& batch) {
  auto pred = Predicate::Parse(text, *batch.schema());
  if (!pred.ok()) return Status::Invalid("PARSE FAILED: " + pred.status().ToString());
  return (*pred)->Evaluate(batch).status();
}

// Expects each filter of `cases` to parse but fail to evaluate on `batch` (Invalid) with
// a message holding its text. A failure is reported at this line and names the filter.
void ExpectEvaluationErrors(const RecordBatch& batch, const ParseErrorCases& cases) {
  for (const auto& [filter, text] : cases) {
    EXPECT_THAT(EvaluateStatus(filter, batch), IsErrorWith(StatusCode::kInvalid, text))
        << filter;
  }
}

// i: int64 with extremes and NULLs; j: small divisors (with a zero under a NULL of i);
// f / g / h: the same floats as float64 / float32 / float16.
RecordBatchPtr MixedBatch() {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  return MakeBatch({
      {"rid", Build(Int64Builder(), Opt<int64_t>{0, 1, 2, 3, 4, 5, 6, 7})},
      {"i",
       Build(Int64Builder(), Opt<int64_t>{7, -7, 5, kMax, std::nullopt, 0, kMin, -1})},
      {"j", Build(Int64Builder(), Opt<int64_t>{2, 2, -3, 1, 0, std::nullopt, 1, 3})},
      {"i8",
       Build(Int8Builder(), Opt<int8_t>{100, -56, -128, 127, std::nullopt, 3, 7, -7})},
      {"u8", Build(UInt8Builder(), Opt<uint8_t>{200, 44, 0, 255, std::nullopt, 3, 7, 1})},
      {"u64", Build(UInt64Builder(), Opt<uint64_t>{7, 0, 18446744073709551615ull, 1, 2, 3,
                                                   4, std::nullopt})},
      {"f", Build(DoubleBuilder(),
                  Opt<double>{3.5, -3.5, 3.0, 1.5, std::nullopt, 0.0, -0.0, nan})},
      {"g",
       Build(FloatBuilder(), Opt<float>{3.5f, -3.5f, 3.0f, 0.1f, std::nullopt, 0.0f,
                                        -0.0f, std::numeric_limits<float>::quiet_NaN()})},
      {"h", Halves(Opt<float>{3.5f, -3.5f, 3.0f, 2048.0f, std::nullopt, 0.0f, -0.0f,
                              65504.0f})},
      {"s",
       Build(StringBuilder(), Opt<std::string>{"a", "b", "c", "d", "e", "f", "g", "h"})},
      {"d", Build(Date32Builder(), Opt<int32_t>{0, 1, 2, 3, 4, 5, 6, 7})},
  });
}

// ---- grammar
// ---------------------------------------------------------------------------

TEST(PredicateArith, PrecedenceAndAssociativity) {
  auto batch = MixedBatch();
  // Each rendering parses back to itself.
  ExpectRenderings(
      *batch, {
                  {"i + j * 2 > 0", "((i + (j * 2)) > 0)"},
                  {"(i + j) * 2 > 0", "(((i + j) * 2) > 0)"},
                  {"i - j - 1 > 0", "(((i - j) - 1) > 0)"},
                  {"i / j / 2 > 0", "(((i / j) / 2) > 0)"},
                  {"i % 7 = 3", "((i % 7) = 3)"},
                  {"i * j % 4 = 1", "(((i * j) % 4) = 1)"},
                  {"i + j % 4 = 1", "((i + (j % 4)) = 1)"},
                  {"-i * j > 0", "(((-i) * j) > 0)"},
                  {"i * -j > 0", "((i * (-j)) > 0)"},
                  {"- -i > 0", "((-(-i)) > 0)"},
                  {"-(i + j) > 0", "((-(i + j)) > 0)"},
                  {"i+j>j*2", "((i + j) > (j * 2))"},
                  {"NOT i + 1 > 2", "(NOT ((i + 1) > 2))"},
                  {"i + 1 > 2 AND j - 1 < 0 OR i % 2 = 0",
                   "((((i + 1) > 2) AND ((j - 1) < 0)) OR ((i % 2) = 0))"},
                  {"i BETWEEN j + 1 AND j * 3", "((i >= (j + 1)) AND (i <= (j * 3)))"},
                  {"i + 0 IN (1 + 1, 2 * 3)", "((i + 0) IN ((1 + 1), (2 * 3)))"},
                  {"(i + j) IS NULL", "((i + j) IS NULL)"},
                  {"f = 7 / 2", "(f = (7 / 2))"},
                  {"7 / 2 = f", "((7 / 2) = f)"},
                  {"-2 * 3 = i", "((-2 * 3) = i)"},
                  {"f = -(2)", "(f = (-(2)))"},
                  {"i > 1 + -1", "(i > (1 + -1))"},
                  {"i > 1 - - 1", "(i > (1 - -1))"},
              });
  // The same precedence when evaluated: 7 + 2 * 2 = 11, (7 + 2) * 2 = 18.
  ExpectMatching(*batch, {
                             {"i + j * 2 = 11", {0}},
                             {"(i + j) * 2 = 18", {0}},
                             {"i - j - 1 = 4", {0}},         // (7 - 2) - 1
                             {"100 / 10 / 5 = i - 5", {0}},  // (100 / 10) / 5 = 2
                             {"i % 4 * 2 = 6", {0, 3}},      // (7 % 4) * 2, MAX too
                         });
}

TEST(PredicateArith, ReferencedColumnsIncludeBothSides) {
  auto batch = MixedBatch();
  ASSERT_OK_AND_ASSIGN(auto pred, Predicate::Parse("i + j * 2 > -f", *batch->schema()));
  EXPECT_EQ(pred->ReferencedColumns(), (std::vector<std::string>{"i", "j", "f"}));
  ASSERT_OK_AND_ASSIGN(pred, Predicate::Parse("1 + 1 = 2", *batch->schema()));
  EXPECT_TRUE(pred->ReferencedColumns().empty());
}

// ---- typing
// ----------------------------------------------------------------------------

// The result type of `a OP b` for two columns of the given types (DataFusion's
// mathematics_numerical_coercion, as pylance reported it for every pair).
std::string ResultType(const DataTypePtr& a, const DataTypePtr& b) {
  auto left = pi::MakeColumn({"a"}, a);
  auto right = pi::MakeColumn({"b"}, b);
  auto e = pi::MakeArith(left, pi::ArithOp::kAdd, right);
  if (!e.ok()) return std::string(StatusCodeName(e.status().code()));
  return (*e)->type()->ToString();
}

TEST(PredicateArith, ResultTypesFollowDataFusion) {
  const std::vector<DataTypePtr> types = {int8(),    int16(),   int32(),  int64(),
                                          uint8(),   uint16(),  uint32(), uint64(),
                                          float16(), float32(), float64()};
  // Rows and columns in the order above; "dec" is where Lance makes a decimal128.
  const std::vector<std::vector<std::string>> expected = {
      {"int8", "int16", "int32", "int64", "int16", "int32", "int64", "dec", "halffloat",
       "float", "double"},
      {"int16", "int16", "int32", "int64", "int16", "int32", "int64", "dec", "halffloat",
       "float", "double"},
      {"int32", "int32", "int32", "int64", "int32", "int32", "int64", "dec", "halffloat",
       "float", "double"},
      {"int64", "int64", "int64", "int64", "int64", "int64", "int64", "dec", "halffloat",
       "float", "double"},
      {"int16", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
       "halffloat", "float", "double"},
      {"int32", "int32", "int32", "int64", "uint16", "uint16", "uint32", "uint64",
       "halffloat", "float", "double"},
      {"int64", "int64", "int64", "int64", "uint32", "uint32", "uint32", "uint64",
       "halffloat", "float", "double"},
      {"dec", "dec", "dec", "dec", "uint64", "uint64", "uint64", "uint64", "halffloat",
       "float", "double"},
      {"halffloat", "halffloat", "halffloat", "halffloat", "halffloat", "halffloat",
       "halffloat", "halffloat", "halffloat", "float", "double"},
      {"float", "float", "float", "float", "float", "float", "float", "float", "float",
       "float", "double"},
      {"double", "double", "double", "double", "double", "double", "double", "double",
       "double", "double", "double"},
  };
  for (size_t r = 0; r < types.size(); ++r) {
    for (size_t c = 0; c < types.size(); ++c) {
      std::string want = expected[r][c];
      if (want == "dec") want = "NotImplemented";
      // The type names of this library spell float16/32/64 its own way.
      const std::string got = ResultType(types[r], types[c]);
      const std::string got_named = got == types[8]->ToString()    ? "halffloat"
                                    : got == types[9]->ToString()  ? "float"
                                    : got == types[10]->ToString() ? "double"
                                                                   : got;
      EXPECT_EQ(got_named, want) << types[r]->ToString() << " + " << types[c]->ToString();
    }
  }
}

TEST(PredicateArith, LiteralsTakeLancesTypes) {
  auto batch = MixedBatch();
  // i8 + 1 is int64 (no wrap at 127), i8 + i8 stays int8 (wraps).
  ExpectMatching(*batch, {
                             {"i8 + 1 = 128", {3}},
                             {"i8 + i8 = -2", {3}},      // 127 + 127 wraps
                             {"i8 + i8 = -56", {0}},     // 100 + 100 wraps
                             {"u8 + u8 = 144", {0}},     // 200 + 200 wraps
                             {"u8 * 200 = 40000", {0}},  // int64: no wrap
                             {"u8 - 1 = -1", {2}},       // int64: 0 - 1
                             {"u8 - u8 + 0 = 0", {0, 1, 2, 3, 5, 6, 7}},
                         });
  // A float literal makes the result float64: 7 / 2.0 = 3.5, 7 / 2 = 3.
  ExpectMatching(*batch, {
                             {"i / 2.0 = 3.5", {0}},
                             {"i / 2 = 3", {0}},
                         });
  // uint64 with an int64 literal is a decimal for Lance: not supported here.
  EXPECT_THAT(ParseStatus("u64 + 1 > 0", *batch),
              IsErrorWith(StatusCode::kNotImplemented, "decimal128(20, 0)"));
  EXPECT_EQ(Matching("u64 + u64 = 18446744073709551614", *batch), (Rows{2}));
  // Integers beyond int64 are uint64 literals, beyond that float64, as Lance parses
  // them: an exact comparison, then one in float64 (where MAX is 2^63).
  ExpectMatching(*batch, {
                             {"i + 0 < 9223372036854775808", {0, 1, 2, 3, 5, 6, 7}},
                             {"i + 0 < 9223372036854775808.0", {0, 1, 2, 5, 6, 7}},
                             {"u64 + 9223372036854775808 = 9223372036854775815", {0}},
                         });
  EXPECT_THAT(ParseStatus("i - 9223372036854775808 > 0", *batch),
              IsErrorWith(StatusCode::kNotImplemented, "decimal128(20, 0)"));
  EXPECT_EQ(Matching("i * -9223372036854775808 = 0", *batch), (Rows{5}));  // float64
}

// ---- integers
// --------------------------------------------------------------------------

// Every operator on every integer type, against a reference computed with the type's
// wrap-around: `x OP y = z` must hold on every row where x and y are not NULL.
template <typename T, typename BuilderT>
void IntegerOperators() {
  using Lim = std::numeric_limits<T>;
  std::mt19937_64 rng(sizeof(T) * 7 + Lim::is_signed);
  Opt<T> xs, ys;
  const std::vector<T> specials = {Lim::min(),
                                   Lim::max(),
                                   0,
                                   1,
                                   static_cast<T>(Lim::max() - 1),
                                   static_cast<T>(Lim::min() + 1)};
  for (int k = 0; k < 200; ++k) {
    const T x = k < 6 ? specials[k] : static_cast<T>(rng());
    T y = k % 7 == 3 ? specials[k % 6] : static_cast<T>(rng());
    if (k % 11 == 0) y = static_cast<T>(rng() % 9);
    xs.push_back(k % 13 == 5 ? std::nullopt : std::optional<T>(x));
    ys.push_back(k % 17 == 2 ? std::nullopt : std::optional<T>(y));
  }
  for (const char* op : {"+", "-", "*", "/", "%"}) {
    SCOPED_TRACE(std::string(op) + " on " + BuilderT().type()->ToString());
    Opt<T> zs;
    Opt<T> x_used, y_used;
    for (size_t r = 0; r < xs.size(); ++r) {
      std::optional<T> x = xs[r], y = ys[r];
      // Division by zero and MIN / -1 fail: leave them out here (tested below).
      if ((op[0] == '/' || op[0] == '%') && y &&
          (*y == 0 || (Lim::is_signed && *y == static_cast<T>(-1)))) {
        y = static_cast<T>(3);
      }
      x_used.push_back(x);
      y_used.push_back(y);
      if (!x || !y) {
        zs.push_back(std::nullopt);
        continue;
      }
      // Reference: exact in __int128, then reduced modulo 2^bits (two's complement).
      const __int128 a = *x, b = *y;
      __int128 exact = 0;
      switch (op[0]) {
        case '+':
          exact = a + b;
          break;
        case '-':
          exact = a - b;
          break;
        case '*':
          exact = static_cast<__int128>(static_cast<unsigned __int128>(a) *
                                        static_cast<unsigned __int128>(b));
          break;
        case '/':
          exact = a / b;  // C++ truncates toward zero, like Rust
          break;
        default:
          exact = a % b;  // sign of the dividend
      }
      using U = std::make_unsigned_t<T>;
      zs.push_back(static_cast<T>(static_cast<U>(static_cast<unsigned __int128>(exact))));
    }
    auto batch = MakeBatch({{"x", Build(BuilderT(), x_used)},
                            {"y", Build(BuilderT(), y_used)},
                            {"z", Build(BuilderT(), zs)}});
    Rows all;
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      if (zs[r]) all.push_back(r);
    }
    const std::string text = std::string("x ") + op + " y";
    EXPECT_EQ(Matching(text + " = z", *batch), all);
    EXPECT_EQ(Matching(text + " != z", *batch), Rows{});
    EXPECT_EQ(Matching("(" + text + ") IS NULL", *batch).size(), xs.size() - all.size());
  }
}

TEST(PredicateArith, IntegerOperatorsWrapAndTruncate) {
  IntegerOperators<int8_t, Int8Builder>();
  IntegerOperators<int16_t, Int16Builder>();
  IntegerOperators<int32_t, Int32Builder>();
  IntegerOperators<int64_t, Int64Builder>();
  IntegerOperators<uint8_t, UInt8Builder>();
  IntegerOperators<uint16_t, UInt16Builder>();
  IntegerOperators<uint32_t, UInt32Builder>();
  IntegerOperators<uint64_t, UInt64Builder>();
}

TEST(PredicateArith, DivisionTruncatesAndModuloTakesTheDividendsSign) {
  auto batch = MakeBatch({{"a", Build(Int64Builder(), Opt<int64_t>{7, -7, 7, -7})},
                          {"b", Build(Int64Builder(), Opt<int64_t>{2, 2, -2, -2})}});
  ExpectMatching(*batch, {
                             {"a / b = 3", {0, 3}},
                             {"a / b = -3", {1, 2}},
                             {"a % b = 1", {0, 2}},
                             {"a % b = -1", {1, 3}},
                             {"a % 4 = -3", {1, 3}},
                             {"-7 / 2 = -3 AND -7 % 2 = -1 AND a = 7", {0, 2}},
                         });
}

TEST(PredicateArith, OverflowWrapsExceptDivision) {
  auto batch = MixedBatch();
  // i = [7, -7, 5, MAX, NULL, 0, MIN, -1]
  ExpectMatching(*batch, {
                             {"i + 1 = -9223372036854775807 - 1", {3}},  // MAX + 1
                             {"i - 1 = 9223372036854775807", {6}},       // MIN - 1
                             {"i * 2 = -2", {3, 7}},                     // MAX * 2
                             {"i * 2 = 0", {5, 6}},                      // MIN * 2
                             {"-i = i AND i != 0", {6}},                 // -MIN
                             {"i % -1 = 0", {0, 1, 2, 3, 5, 6, 7}},      // MIN % -1
                             {"-i8 = i8 AND i8 != 0", {2}},              // -(-128)
                         });
  // MIN / -1 has no int64 result: an error, as arrow's checked division gives.
  EXPECT_THAT(EvaluateStatus("i / -1 > 0", *batch),
              IsErrorWith(StatusCode::kInvalid,
                          "Arithmetic overflow: -9223372036854775808 / -1 does not fit "
                          "int64"));
  auto i8 = MakeBatch({{"x", Build(Int8Builder(), Opt<int8_t>{-128})},
                       {"y", Build(Int8Builder(), Opt<int8_t>{-1})}});
  EXPECT_THAT(EvaluateStatus("x / y > 0", *i8),
              IsErrorWith(StatusCode::kInvalid, "-128 / -1 does not fit int8"));
  EXPECT_EQ(Matching("x % y = 0", *i8), (Rows{0}));
  // Constants wrap in int64 too.
  EXPECT_EQ(Matching("i = 9223372036854775807 + 1", *batch), (Rows{6}));
}

TEST(PredicateArith, DivisionAndModuloByZeroFailOnEvaluatedRowsOnly) {
  auto batch = MixedBatch();
  // j = [2, 2, -3, 1, 0, NULL, 1, 3]; the zero sits on a row where i is NULL.
  ExpectMatching(*batch, {
                             {"i / j = 3", {0}},
                             {"(i % j) IS NULL", {4, 5}},
                         });
  EXPECT_THAT(
      EvaluateStatus("rid / j > 0", *batch),
      IsErrorWith(StatusCode::kInvalid,
                  "filter 'rid / j > 0': cannot evaluate (rid / j): Divide by zero "
                  "error"));
  ExpectEvaluationErrors(*batch, {
                                     {"rid % j > 0", "Divide by zero error"},
                                     {"i % 0 > 0", "Divide by zero error"},
                                 });
  // A NULL divisor or dividend is no error.
  ExpectMatching(*batch, {
                             {"i / NULL > 0", {}},
                             {"NULL % 0 IS NULL", {0, 1, 2, 3, 4, 5, 6, 7}},
                         });
  // Floats divide by zero into infinities and NaN.
  // 0.0 / 0.0 is the CPU's default NaN, negative on x86 (as in pylance); NaN / 0 keeps
  // the NaN of row 7, positive, which sorts above every number.
  ExpectMatching(*batch, {
                             {"f / 0 > 1e308", {0, 2, 3, 7}},
                             {"i / 0.0 < 0", {1, 5, 6, 7}},
                         });
}

TEST(PredicateArith, FailingConstantsFailWhenEvaluated) {
  auto batch = MixedBatch();
  // 1 / 0 is left to evaluation (as DataFusion does): the filter parses...
  ASSERT_OK_AND_ASSIGN(auto pred, Predicate::Parse("rid > 1 / 0", *batch->schema()));
  EXPECT_EQ(pred->ToString(), "(rid > (1 / 0))");
  // ...and fails on data, unless a short circuit skips it.
  EXPECT_THAT(pred->Evaluate(*batch), IsErrorWith(StatusCode::kInvalid, "(1 / 0)"));
  ExpectMatching(*batch, {
                             {"rid < 0 AND rid > 1 / 0", {}},
                             {"FALSE AND rid > 1 / 0", {}},
                             {"rid >= 0 OR rid > (1 + 1) % 0", {0, 1, 2, 3, 4, 5, 6, 7}},
                         });
  EXPECT_THAT(EvaluateStatus("rid > 1 / 0 AND rid < 0", *batch),
              IsErrorWith(StatusCode::kInvalid, "Divide by zero"));
  // Float constants do not fail.
  EXPECT_EQ(Matching("f < 1 / 0", *batch), (Rows{0, 1, 2, 3, 5, 6}));  // f < inf
}

TEST(PredicateArith, ShortCircuitsFollowDataFusion) {
  auto batch = MixedBatch();
  // i / j overflows on row 6 (MIN / 1 is fine: 6 has j = 1) -- use i / (j - 1), which
  // divides by zero on rows 3 and 6 and is fine elsewhere.
  // AND with a left side TRUE on at most a fifth of the rows evaluates the right side on
  // those rows only.
  EXPECT_EQ(Matching("rid = 0 AND i / (j - 1) > 0", *batch), (Rows{0}));
  EXPECT_THAT(EvaluateStatus("rid = 3 AND i / (j - 1) > 0", *batch),
              IsErrorWith(StatusCode::kInvalid, "Divide by zero"));
  // Two rows of eight is more than a fifth: the right side runs on every row.
  EXPECT_THAT(EvaluateStatus("rid IN (0, 1) AND i / (j - 1) > 0", *batch),
              IsErrorWith(StatusCode::kInvalid, "Divide by zero"));
  // A left side with NULLs never short-circuits.
  EXPECT_THAT(EvaluateStatus("i > 100 AND i / (j - 1) > 0", *batch),
              IsErrorWith(StatusCode::kInvalid, "Divide by zero"));
  // FALSE everywhere (AND) or TRUE everywhere (OR) skips the right side.
  ExpectMatching(*batch, {
                             {"rid > 100 AND i / (j - 1) > 0", {}},
                             {"rid >= 0 OR i / (j - 1) > 0", {0, 1, 2, 3, 4, 5, 6, 7}},
                         });
  EXPECT_THAT(EvaluateStatus("rid > 0 OR i / (j - 1) > 0", *batch),
              IsErrorWith(StatusCode::kInvalid, "Divide by zero"));
  // The pre-selected rows give the same answer as a full evaluation.
  ExpectMatching(*batch, {
                             {"rid = 2 AND (i * j = -15 OR i IS NULL)", {2}},
                             {"rid = 2 AND NOT (i + j) IS NULL AND j < 0", {2}},
                         });
}

TEST(PredicateArith, NullsPropagate) {
  auto batch = MixedBatch();
  // Row 4 has i NULL, row 5 has j NULL.
  ExpectMatching(*batch, {
                             {"(i + j) IS NULL", {4, 5}},
                             {"(i + NULL) IS NULL", {0, 1, 2, 3, 4, 5, 6, 7}},
                             {"i + j > -100 OR i + j <= -100", {0, 1, 2, 3, 6, 7}},
                             {"NOT (i - j < 0)", {0, 2, 3, 6}},
                             {"-f IS NULL AND -i IS NULL", {4}},
                             {"i + 1 = NULL", {}},
                             {"NULL + NULL IS NULL", {0, 1, 2, 3, 4, 5, 6, 7}},
                         });
}

// ---- floats
// ----------------------------------------------------------------------------

TEST(PredicateArith, FloatArithmeticIsIeee) {
  auto batch = MixedBatch();
  // f = [3.5, -3.5, 3.0, 1.5, NULL, 0.0, -0.0, NaN]
  ExpectMatching(*batch, {
                             {"f * 2 = 7", {0}},
                             {"f % 2 = 1.5", {0, 3}},  // fmod
                             {"f % 2 = -1.5", {1}},
                             {"f / 0 = 1 / 0.0", {0, 2, 3}},     // inf
                             {"f - f = 0", {0, 1, 2, 3, 5, 6}},  // NaN - NaN
                             {"f + i = 10.5", {0}},              // int64 widened
                             {"f + 0.5 = 4", {0}},
                         });
  // Zeros compare as IEEE numbers (-0.0 = 0.0) against a literal...
  ExpectMatching(*batch, {
                             {"f * 1 = 0", {5, 6}},
                             {"-f > 0", {1}},
                         });
  // ...and NaN by its sign: a sign flip makes the NaN of row 7 the lowest value.
  ExpectMatching(*batch, {
                             {"f > 1e300", {7}},
                             {"-f < -1e300", {7}},
                         });
  // float32 arithmetic stays float32 (0.1f + 0 is not 0.1 as a float64).
  ExpectMatching(*batch, {
                             {"g + 0 = 0.1", {}},
                             {"g = 0.1", {3}},  // a column takes the literal's type
                             {"g * 2 = 7", {0}},
                             {"g + i = 10.5", {0}},
                         });
  // float16 arithmetic rounds to float16: 2048 + 1 is 2048, 65504 * 2 is inf.
  ExpectMatching(*batch, {
                             {"h + 1 = 2048", {3}},
                             {"h + 1 = 2049.0", {}},
                             {"h * 2 > 1e300", {7}},
                             {"h + h = 7", {0}},
                             {"-h = -3.5", {0}},
                         });
}

TEST(PredicateArith, ComparisonsMeetInDataFusionsCommonType) {
  auto batch = MakeBatch({
      {"big", Build(Int64Builder(), Opt<int64_t>{16777217, 2049, 9007199254740993, 1})},
      {"g",
       Build(FloatBuilder(), Opt<float>{16777216.0f, 2048.0f, 9007199254740992.0f, 1})},
      {"h", Halves(Opt<float>{65504.0f, 2048.0f, 1.0f, 1.0f})},
      {"f",
       Build(DoubleBuilder(), Opt<double>{16777216.0, 2048.0, 9007199254740992.0, 1})},
  });
  // An integer meets float32 as float32, float16 as float16, float64 as float64.
  ExpectMatching(*batch, {
                             {"big = g", {0, 2, 3}},
                             {"big + 0 = g * 1", {0, 2, 3}},
                             {"big = h", {1, 3}},
                             {"big = f", {2, 3}},
                             {"g = h", {1, 3}},
                         });
  // A computed integer meets a float64 literal as float64, an integer one exactly.
  ExpectMatching(*batch, {
                             {"big + 0 = 9007199254740992.0", {2}},
                             {"big + 0 = 9007199254740992", {}},
                         });
  // A computed float32 meets an int64 literal as float32, a float64 one as float64.
  ExpectMatching(*batch, {
                             {"g + 0 = 16777217", {0}},
                             {"g + 0 = 16777217.0", {}},
                             {"h + 0 = 2049", {1}},
                             {"h + 0 IN (2049)", {1}},
                             {"h + 0 IN (2049.0)", {}},
                             {"big + 0 IN (2049, 9007199254740992.0)", {1, 2}},
                         });
}

// ---- Lance's resolve step
// --------------------------------------------------------------

TEST(PredicateArith, ConstantTreesNextToAColumnAreComputedInItsType) {
  auto batch = MixedBatch();
  // f = [3.5, -3.5, 3.0, ...]: the tree is computed in float64 when the column is on the
  // left, in int64 otherwise.
  ExpectMatching(*batch, {
                             {"f = 7 / 2", {0}},
                             {"f = -7 / 2", {1}},
                             {"7 / 2 = f", {2}},
                             {"f + 0 = 7 / 2", {2}},
                             {"f = 7 / -(2)", {}},        // -(2) is not a literal: -3
                             {"f = 7 / 2 + i * 0", {2}},  // a column inside: int64
                         });
  // Only through AND / OR (and parentheses), not under NOT or IS.
  ExpectMatching(*batch, {
                             {"(f = 7 / 2) AND rid >= 0 OR FALSE", {0}},
                             {"NOT (f = 7 / 2)", {0, 1, 3, 5, 6, 7}},
                             {"(f = 7 / 2) IS TRUE", {2}},
                         });
  // BETWEEN bounds and IN items on a column too.
  ExpectMatching(*batch, {
                             {"f BETWEEN 7 / 2 AND 4", {0}},
                             {"f IN (7 / 2, 1 + 0.5)", {0, 3}},
                         });
  // int8: 100 + 100 wraps to -56; a literal that does not fit int8 is an error.
  ExpectMatching(*batch, {
                             {"i8 = 100 + 100", {1}},
                             {"i8 BETWEEN 100 + 100 AND 0", {1, 7}},
                             {"i8 = 127 + 1", {2}},
                             {"u8 = 0 - 1", {3}},
                             {"u64 = 0 - 1", {2}},
                         });
  EXPECT_THAT(
      ParseStatus("i8 = 1000 - 999", *batch),
      IsErrorWith(StatusCode::kInvalid,
                  "cannot compute (1000 - 999) in int8 (Lance computes constant "
                  "arithmetic compared with a column in the column's type): literal "
                  "1000 cannot be converted to int8 at position 3"));
  EXPECT_THAT(
      ParseStatus("i = 2 * 1.5", *batch),
      IsErrorWith(StatusCode::kInvalid, "literal 1.5 cannot be converted to int64"));
  EXPECT_THAT(ParseStatus("h = 70000 + 0", *batch),
              IsErrorWith(StatusCode::kInvalid, "literal 70000 cannot be converted"));
  // With a column inside the tree nothing is converted: 1000 - 999 + i * 0 is int64.
  EXPECT_EQ(Matching("i8 = 1000 - 997 + i * 0", *batch), (Rows{5}));
  // float32 and float16 columns compute in their own precision.
  ExpectMatching(*batch, {
                             {"g = 0.05 + 0.05", {3}},  // 0.05f + 0.05f = 0.1f
                             {"h = 2048 + 1", {3}},     // rounds to 2048
                             {"h = 65504 + 16", {}},    // inf
                         });
  // A zero divisor in the column's type fails on evaluation; in float64 it is inf.
  EXPECT_THAT(EvaluateStatus("i = 1 / 0", *batch),
              IsErrorWith(StatusCode::kInvalid, "Divide by zero"));
  EXPECT_EQ(Matching("f < 1 / 0", *batch), (Rows{0, 1, 2, 3, 5, 6}));
}

TEST(PredicateArith, LiteralsNotResolvedFollowDataFusion) {
  auto batch = MixedBatch();
  // g = [3.5, -3.5, 3.0, 0.1f, NULL, 0.0, -0.0, NaN]: next to the column at the top
  // level 0.1 becomes 0.1f; under NOT DataFusion compares in float64, where 0.1f != 0.1.
  ExpectMatching(*batch, {
                             {"g = 0.1", {3}},
                             {"0.1 = g", {3}},
                             {"g IN (0.1)", {3}},
                             {"NOT (g = 0.1)", {0, 1, 2, 3, 5, 6, 7}},
                             {"NOT (g != 0.1)", {}},
                             {"(g = 0.1) IS TRUE", {}},
                             {"NOT (g IN (0.1))", {0, 1, 2, 3, 5, 6, 7}},
                         });
}

// ---- unary minus
// -----------------------------------------------------------------------

TEST(PredicateArith, UnaryMinus) {
  auto batch = MixedBatch();
  EXPECT_EQ(Matching("-i > 3", *batch), (Rows{1}));
  EXPECT_EQ(Matching("-(i + j) = -9", *batch), (Rows{0}));
  EXPECT_EQ(Matching("- -i = 7", *batch), (Rows{0}));
  EXPECT_EQ(Matching("-i8 = 56", *batch), (Rows{1}));
  EXPECT_EQ(Matching("-f = 3.5", *batch), (Rows{1}));
  EXPECT_EQ(Matching("-g = -3.5", *batch), (Rows{0}));
  EXPECT_EQ(Matching("+i = 7", *batch), (Rows{0}));
  EXPECT_EQ(Matching("i = -(3 + 4) * -1", *batch), (Rows{0}));
  EXPECT_THAT(ParseStatus("-u8 > 0", *batch),
              IsErrorWith(StatusCode::kInvalid,
                          "unary minus does not apply to u8 of unsigned type uint8"));
  EXPECT_THAT(
      ParseStatus("i > 0 AND -s = 'a'", *batch),
      IsErrorWith(StatusCode::kInvalid,
                  "unary minus needs numeric operands, but s is utf8 at position 10"));
  EXPECT_THAT(ParseStatus("+s = 'a'", *batch),
              IsErrorWith(StatusCode::kInvalid, "unary + needs a numeric operand"));
}

// ---- errors
// ----------------------------------------------------------------------------

TEST(PredicateArith, ErrorsNamePositionAndTypes) {
  auto batch = MixedBatch();
  ExpectParseErrors(
      *batch, StatusCode::kInvalid,
      {{"i +", "cannot parse filter 'i +': expected a value at position 3"},
       {"i + * j > 0", "expected a value at position 4 but found '*'"},
       {"(i + j > 0", "expected ')' at position 10"},
       {"i % > 0", "expected a value at position 4"},
       {"i + s > 0",
        "invalid filter 'i + s > 0': arithmetic '+' needs numeric operands, but s is "
        "utf8 "
        "at position 2"},
       {"i * TRUE > 0", "but TRUE is bool at position 2"},
       {"i > 0 AND (i > 0) + 1 > 0",
        "arithmetic '+' needs numeric operands, but (i > 0) is bool at position 18"},
       {"i + 1", "the filter must be a boolean expression, but (i + 1) is int64"},
       {"i + 1 AND i > 0", "AND needs a boolean operand"},
       {"s LIKE 'a' + 'b'", "arithmetic '+' needs numeric operands"},
       {"i IN (1, j + 1)", "IN lists hold literals only, not (j + 1)"},
       {"i IN (1 / 0)", "Divide by zero"}});
  ExpectParseErrors(
      *batch, StatusCode::kNotImplemented,
      {{"d + 1 > 0",
        "arithmetic '+' on d of type date32 is not supported in lance-cpp filters"},
       {"i - DATE '2024-01-01' > 0", "at position 2"},
       {"u64 * i > 0",
        "arithmetic '*' on u64 (uint64) and i (int64): Lance computes uint64 with a "
        "signed integer"}});
}

// ---- randomised
// ------------------------------------------------------------------------

// Random expressions over int64 columns with NULLs, checked against a reference that
// computes the same tree with wrap-around in uint64. Divisors are non-zero literals, so
// nothing fails.
struct RefExpr {
  std::string text;
  std::function<std::optional<int64_t>(int64_t row)> eval;
};

int64_t Wrap(uint64_t v) { return static_cast<int64_t>(v); }

RefExpr RandomExpr(std::mt19937_64& rng, const std::vector<Opt<int64_t>>& cols,
                   int depth) {
  const int pick = static_cast<int>(rng() % (depth <= 0 ? 2 : 7));
  if (pick == 0) {
    const int c = static_cast<int>(rng() % cols.size());
    const auto* col = &cols[c];
    return {std::string(1, static_cast<char>('a' + c)),
            [col](int64_t r) { return (*col)[r]; }};
  }
  if (pick == 1) {
    const int64_t v = static_cast<int64_t>(rng() % 41) - 20;
    return {std::to_string(v), [v](int64_t) { return std::optional<int64_t>(v); }};
  }
  if (pick == 2) {
    RefExpr inner = RandomExpr(rng, cols, depth - 1);
    auto f = inner.eval;
    return {"-(" + inner.text + ")", [f](int64_t r) -> std::optional<int64_t> {
              auto v = f(r);
              if (!v) return std::nullopt;
              return Wrap(0 - static_cast<uint64_t>(*v));
            }};
  }
  const char op = "+-*/%"[pick - 3 + (pick == 6 ? static_cast<int>(rng() % 2) : 0)];
  RefExpr left = RandomExpr(rng, cols, depth - 1);
  RefExpr right;
  if (op == '/' || op == '%') {
    const int64_t v = static_cast<int64_t>(rng() % 9) + 2;  // never 0 or -1
    right = {std::to_string(v), [v](int64_t) { return std::optional<int64_t>(v); }};
  } else {
    right = RandomExpr(rng, cols, depth - 1);
  }
  auto l = left.eval, rf = right.eval;
  return {"(" + left.text + " " + op + " " + right.text + ")",
          [l, rf, op](int64_t r) -> std::optional<int64_t> {
            auto a = l(r), b = rf(r);
            if (!a || !b) return std::nullopt;
            const auto ua = static_cast<uint64_t>(*a), ub = static_cast<uint64_t>(*b);
            switch (op) {
              case '+':
                return Wrap(ua + ub);
              case '-':
                return Wrap(ua - ub);
              case '*':
                return Wrap(ua * ub);
              case '/':
                return *a / *b;
              default:
                return *a % *b;
            }
          }};
}

TEST(PredicateArith, RandomIntegerExpressionsMatchAReference) {
  std::mt19937_64 rng(2024);
  const int64_t n = 600;
  std::vector<Opt<int64_t>> cols(3);
  for (auto& col : cols) {
    for (int64_t r = 0; r < n; ++r) {
      const uint64_t kind = rng() % 10;
      if (kind == 0) {
        col.push_back(std::nullopt);
      } else if (kind == 1) {
        col.push_back(static_cast<int64_t>(rng()));  // anything: overflows happen
      } else {
        col.push_back(static_cast<int64_t>(rng() % 201) - 100);
      }
    }
  }
  auto full = MakeBatch({{"a", Build(Int64Builder(), cols[0])},
                         {"b", Build(Int64Builder(), cols[1])},
                         {"c", Build(Int64Builder(), cols[2])}});
  for (int k = 0; k < 120; ++k) {
    RefExpr e = RandomExpr(rng, cols, 3);
    const int64_t bound = static_cast<int64_t>(rng() % 61) - 30;
    const char* cmp = k % 3 == 0 ? " > " : (k % 3 == 1 ? " <= " : " != ");
    const std::string text = e.text + cmp + std::to_string(bound);
    const int64_t offset = k % 4 == 0 ? 0 : static_cast<int64_t>(rng() % 50);
    auto batch = full->Slice(offset, n - offset - 7);
    Rows expected;
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      auto v = e.eval(offset + r);
      if (!v) continue;
      const bool hit = k % 3 == 0 ? *v > bound : (k % 3 == 1 ? *v <= bound : *v != bound);
      if (hit) expected.push_back(r);
    }
    EXPECT_EQ(Matching(text, *batch), expected) << text << " (offset " << offset << ")";
  }
}

}  // namespace
}  // namespace lance::table
