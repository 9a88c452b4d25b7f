// SPDX-License-Identifier: Apache-2.0
#include "table/predicate/predicate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "lance/core/builder.h"
#include "lance/core/record_batch.h"
#include "lance/core/temporal.h"
#include "tests/table/predicate/test_util.h"
#include "tests/testing/matchers.h"

namespace lance::table {
namespace {

using ::lance::testing::IsErrorWith;
using namespace predicate_testing;  // NOLINT: Build, Check, Matching, ...

Result<std::shared_ptr<const Predicate>> Parse(const std::string& text,
                                               const RecordBatch& batch) {
  return Predicate::Parse(text, *batch.schema());
}

std::string ErrorMessage(const std::string& text, const RecordBatch& batch) {
  Status st = ParseStatus(text, batch);
  EXPECT_TRUE(st.IsInvalid()) << text << " -> " << st.ToString();
  return st.message();
}

// ---- comparison references ------------------------------------------------------------

enum class Op { kEq, kNe, kLt, kLe, kGt, kGe };
constexpr Op kOps[] = {Op::kEq, Op::kNe, Op::kLt, Op::kLe, Op::kGt, Op::kGe};
constexpr const char* kOpSpellings[][2] = {{"=", "=="},  {"!=", "<>"}, {"<", "<"},
                                           {"<=", "<="}, {">", ">"},   {">=", ">="}};

Op Swapped(Op op) {
  switch (op) {
    case Op::kLt:
      return Op::kGt;
    case Op::kLe:
      return Op::kGe;
    case Op::kGt:
      return Op::kLt;
    case Op::kGe:
      return Op::kLe;
    default:
      return op;
  }
}

template <typename T>
bool Holds(Op op, const T& a, const T& b) {
  switch (op) {
    case Op::kEq:
      return a == b;
    case Op::kNe:
      return a != b;
    case Op::kLt:
      return a < b;
    case Op::kLe:
      return a <= b;
    case Op::kGt:
      return a > b;
    case Op::kGe:
      return a >= b;
  }
  return false;
}

// Checks `col OP lit` and `lit OP' col` (both spellings of each operator) for every
// literal against ref(row, op, literal index) -> matches.
void SweepOperators(const RecordBatch& batch, const std::string& column,
                    const std::vector<std::string>& literals,
                    const std::function<bool(int64_t, Op, size_t)>& ref) {
  for (size_t li = 0; li < literals.size(); ++li) {
    for (int o = 0; o < 6; ++o) {
      const Op op = kOps[o];
      Rows expected;
      for (int64_t r = 0; r < batch.num_rows(); ++r) {
        if (ref(r, op, li)) expected.push_back(r);
      }
      for (int spelling = 0; spelling < 2; ++spelling) {
        const std::string sym = kOpSpellings[o][spelling];
        const std::string direct = column + " " + sym + " " + literals[li];
        EXPECT_EQ(Matching(direct, batch), expected) << direct;
      }
      // lit OP col == col SWAPPED(OP) lit
      const int swapped = static_cast<int>(Swapped(op));
      const std::string reversed =
          literals[li] + " " + kOpSpellings[swapped][0] + " " + column;
      EXPECT_EQ(Matching(reversed, batch), expected) << reversed;
    }
  }
}

// ---- integers
// ------------------------------------------------------------------------------

// Literals spanning every integer range boundary, fractions and huge floats. Compared
// exactly: long double holds every int64/uint64 and every double exactly.
const std::vector<std::string> kIntLiterals = {"0",
                                               "1",
                                               "-1",
                                               "127",
                                               "128",
                                               "-128",
                                               "-129",
                                               "255",
                                               "256",
                                               "32767",
                                               "-32768",
                                               "65535",
                                               "2147483647",
                                               "-2147483648",
                                               "4294967295",
                                               "9223372036854775807",
                                               "-9223372036854775808",
                                               "9223372036854775808",
                                               "18446744073709551615",
                                               "18446744073709551616",
                                               "2.5",
                                               "-2.5",
                                               "3.0",
                                               "-0.0",
                                               "1e30",
                                               "-1e30",
                                               "1.5e2",
                                               "127.5",
                                               "-128.5",
                                               "0.999"};

long double LiteralValue(const std::string& text) {
  return std::strtold(text.c_str(), nullptr);
}

template <typename BuilderT, typename T>
void IntegerSweep() {
  const T lo = std::numeric_limits<T>::min();
  const T hi = std::numeric_limits<T>::max();
  Opt<T> values = {T(0),      T(1),      std::nullopt, T(2),   T(3),         lo,    hi,
                   T(hi - 1), T(lo + 1), T(127),       T(100), std::nullopt, T(150)};
  if constexpr (std::is_signed_v<T>) {
    values.push_back(T(-1));
    values.push_back(T(-3));
    values.push_back(T(-128));
  }
  auto batch = MakeBatch({{"x", Build(BuilderT(), values)}});
  SweepOperators(*batch, "x", kIntLiterals, [&](int64_t r, Op op, size_t li) {
    if (!values[r]) return false;
    return Holds(op, static_cast<long double>(*values[r]),
                 LiteralValue(kIntLiterals[li]));
  });
}

TEST(PredicateIntegers, Int8) { IntegerSweep<Int8Builder, int8_t>(); }
TEST(PredicateIntegers, Int16) { IntegerSweep<Int16Builder, int16_t>(); }
TEST(PredicateIntegers, Int32) { IntegerSweep<Int32Builder, int32_t>(); }
TEST(PredicateIntegers, Int64) { IntegerSweep<Int64Builder, int64_t>(); }
TEST(PredicateIntegers, UInt8) { IntegerSweep<UInt8Builder, uint8_t>(); }
TEST(PredicateIntegers, UInt16) { IntegerSweep<UInt16Builder, uint16_t>(); }
TEST(PredicateIntegers, UInt32) { IntegerSweep<UInt32Builder, uint32_t>(); }
TEST(PredicateIntegers, UInt64) { IntegerSweep<UInt64Builder, uint64_t>(); }

TEST(PredicateIntegers, LargeUInt64ValuesAreExact) {
  auto batch = MakeBatch(
      {{"u", Build(UInt64Builder(),
                   Opt<uint64_t>{18446744073709551615ull, 18446744073709551614ull,
                                 9223372036854775808ull, 0})}});
  ExpectMatching(*batch, {
                             {"u = 18446744073709551615", {0}},
                             {"u < 18446744073709551615", {1, 2, 3}},
                             {"u >= 9223372036854775808", {0, 1, 2}},
                             {"u > -1", {0, 1, 2, 3}},
                             {"u IN (18446744073709551614, -5)", {1}},
                         });
}

TEST(PredicateIntegers, Int64ExtremesAndNegativeLiterals) {
  auto batch = MakeBatch(
      {{"i", Build(Int64Builder(),
                   Opt<int64_t>{std::numeric_limits<int64_t>::min(), -5, 5, std::nullopt,
                                std::numeric_limits<int64_t>::max()})}});
  ExpectMatching(*batch, {
                             {"i = -9223372036854775808", {0}},
                             {"i > -5", {2, 4}},
                             {"i >= - 5", {1, 2, 4}},
                             {"i = -(-5)", {2}},
                             {"i = +5", {2}},
                             {"i < -9.2e18", {0}},
                             {"i > 9.3e18", {}},
                         });
}

// ---- floating point
// ------------------------------------------------------------------------

// Column against a (never NaN) literal, as Lance answers it (checked with pylance): IEEE
// order for numbers, so -0.0 equals 0.0; +NaN is above every number (`f > 1e300` matches
// NaN and inf) and -NaN below every number.
int FloatThreeWay(double a, double b) {
  if (std::isnan(a)) return std::signbit(a) ? -1 : 1;
  return a < b ? -1 : (a > b ? 1 : 0);
}

bool HoldsThreeWay(Op op, int c) { return Holds(op, c, 0); }

const std::vector<std::string> kFloatLiterals = {
    "0",     "-0.0",   "0.0",  "0.1",          "1.5", "-1.5",  "2",
    "1e300", "-1e300", "1e39", "3.4028235e38", "-7",  "1e-50", "100000000000000000000"};

TEST(PredicateFloats, Float64) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  Opt<double> values = {0.1,   nan,  -0.0,  0.0,    std::nullopt,
                        inf,   -inf, 1.5,   -1.5,   2.0,
                        1e300, -7.0, 1e-50, 5e-324, std::copysign(nan, -1.0)};
  auto batch = MakeBatch({{"f", Build(DoubleBuilder(), values)}});
  SweepOperators(*batch, "f", kFloatLiterals, [&](int64_t r, Op op, size_t li) {
    if (!values[r]) return false;
    const double lit = std::strtod(kFloatLiterals[li].c_str(), nullptr);
    return HoldsThreeWay(op, FloatThreeWay(*values[r], lit));
  });
}

TEST(PredicateFloats, Float32ComparesWithTheLiteralRoundedToFloat) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  Opt<float> values = {0.1f,
                       nan,
                       -0.0f,
                       0.0f,
                       std::nullopt,
                       inf,
                       -inf,
                       1.5f,
                       -1.5f,
                       2.0f,
                       std::numeric_limits<float>::max(),
                       -7.0f,
                       1e-45f,
                       std::copysign(nan, -1.0f)};
  auto batch = MakeBatch({{"f", Build(FloatBuilder(), values)}});
  SweepOperators(*batch, "f", kFloatLiterals, [&](int64_t r, Op op, size_t li) {
    if (!values[r]) return false;
    const double d = std::strtod(kFloatLiterals[li].c_str(), nullptr);
    // Rounded to float as Lance casts the literal; beyond the float range -> +-inf.
    const float lit = std::fabs(d) > 3.5e38 ? static_cast<float>(d > 0 ? inf : -inf)
                                            : static_cast<float>(d);
    return HoldsThreeWay(op, FloatThreeWay(*values[r], lit));
  });
  // Pinned facts: 0.1 matches the float 0.1f (pylance: `f32 = 0.1` -> 1 row).
  EXPECT_EQ(Matching("f = 0.1", *batch), (Rows{0}));
  EXPECT_EQ(Matching("f > 1e300", *batch), (Rows{1}));  // only NaN exceeds +inf
}

TEST(PredicateFloats, NaNAndSignedZeroPinned) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto batch = MakeBatch(
      {{"f", Build(DoubleBuilder(), Opt<double>{nan, -0.0, 0.0, std::nullopt, 1.0})},
       {"g", Build(DoubleBuilder(), Opt<double>{nan, 0.0, -0.0, 1.0, nan})}});
  ExpectMatching(*batch, {
                             {"f = 0.0", {1, 2}},
                             {"f = -0.0", {1, 2}},
                             {"f < 0", {}},
                             {"f > 0.5", {0, 4}},
                             {"f != 1", {0, 1, 2}},
                             {"f = f", {0, 1, 2, 4}},
                             {"f != f", {}},
                         });
  // Two columns compare with total order: -0.0 < 0.0, NaN above everything.
  ExpectMatching(*batch, {
                             {"f = g", {0}},
                             {"f < g", {1, 4}},
                             {"f > g", {2}},
                             {"f IN (0.0, 1)", {1, 2, 4}},
                         });
}

TEST(PredicateFloats, MatchesPylanceOnSignedZerosAndSignedNaNs) {
  // The answers pylance 14 gives on this exact table (see the semantics comment in
  // predicate_kernels.cc): literals compare zeros by value and NaNs by sign, columns
  // compare with total order.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double neg_nan = std::copysign(nan, -1.0);
  auto batch = MakeBatch(
      {{"f", Build(DoubleBuilder(), Opt<double>{-0.0, 0.0, nan, 1.0, neg_nan})},
       {"g", Build(DoubleBuilder(), Opt<double>{0.0, -0.0, 1.0, nan, nan})},
       {"h", Build(FloatBuilder(), Opt<float>{-0.0f, 0.0f, std::nanf(""), 1.0f, 2.0f})}});
  ExpectMatching(*batch, {
                             {"f = 0.0", {0, 1}},
                             {"f = -0.0", {0, 1}},
                             {"f < 0.0", {4}},
                             {"f <= -0.0", {0, 1, 4}},
                             {"f > -0.0", {2, 3}},
                             {"f = g", {}},
                             {"f < g", {0, 3, 4}},
                             {"f > g", {1, 2}},
                             {"f != g", {0, 1, 2, 3, 4}},
                             {"f IN (0.0)", {0, 1}},
                             {"f IN (-0.0)", {0, 1}},
                             {"h = 0", {0, 1}},
                             {"h < 0", {}},
                             {"h = f", {0, 1, 2, 3}},
                             {"h < f", {}},
                             {"f > 1", {2}},
                             {"f != 1", {0, 1, 2, 4}},
                             {"f < -1e308", {4}},
                         });
}

TEST(PredicateFloats, HalfFloat) {
  // 1.5, 0.1 (as half: 0x2E66), NaN, -0, inf, null, 65504
  auto batch = MakeBatch(
      {{"h", Build(HalfFloatBuilder(), Opt<uint16_t>{0x3E00, 0x2E66, 0x7E00, 0x8000,
                                                     0x7C00, std::nullopt, 0x7BFF})}});
  ExpectMatching(*batch, {
                             {"h = 0.1", {1}},
                             {"h > 1", {0, 2, 4, 6}},
                             {"h > 1.4", {0, 2, 4, 6}},
                             {"h = 0", {3}},
                             {"h = 65504", {6}},
                             {"h = 65519", {6}},      // rounds to the max half
                             {"h >= 65520", {2, 4}},  // rounds to +inf
                             {"h IN (1.5, 0.1)", {0, 1}},
                             {"h < 0.0999", {3}},
                         });
}

// ---- strings and binaries
// ------------------------------------------------------------------

bool BytesLess(const std::string& a, const std::string& b) {
  const size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) {
    const auto x = static_cast<unsigned char>(a[i]), y = static_cast<unsigned char>(b[i]);
    if (x != y) return x < y;
  }
  return a.size() < b.size();
}

int BytesThreeWay(const std::string& a, const std::string& b) {
  return BytesLess(a, b) ? -1 : (BytesLess(b, a) ? 1 : 0);
}

template <typename BuilderT>
void StringSweep() {
  Opt<std::string> values = {
      "",     "a",  "ab",       std::nullopt, "b", "B", "\xc3\xa9t\xc3\xa9",
      "it's", "a ", "\xff\x01", "aa",         "ab"};
  auto batch = MakeBatch({{"s", Build(BuilderT(), values)}});
  const std::vector<std::pair<std::string, std::string>> literals = {
      {"''", ""},
      {"'a'", "a"},
      {"'ab'", "ab"},
      {"'it''s'", "it's"},
      {"\"ab\"", "ab"},
      {"'B'", "B"},
      {"'\xc3\xa9t\xc3\xa9'", "\xc3\xa9t\xc3\xa9"},
      {"'\xff'", "\xff"},
      {"'a '", "a "},
      {"'zzz'", "zzz"}};
  std::vector<std::string> spelled;
  for (const auto& l : literals) spelled.push_back(l.first);
  SweepOperators(*batch, "s", spelled, [&](int64_t r, Op op, size_t li) {
    if (!values[r]) return false;
    return HoldsThreeWay(op, BytesThreeWay(*values[r], literals[li].second));
  });
  EXPECT_EQ(Matching("s IN ('ab', 'b', NULL)", *batch).size(), 3u);
}

TEST(PredicateStrings, Utf8) { StringSweep<StringBuilder>(); }
TEST(PredicateStrings, LargeUtf8) { StringSweep<LargeStringBuilder>(); }
TEST(PredicateStrings, Binary) { StringSweep<BinaryBuilder>(); }
TEST(PredicateStrings, LargeBinary) { StringSweep<LargeBinaryBuilder>(); }

TEST(PredicateStrings, FixedSizeBinary) {
  auto batch = MakeBatch({{"fb", Build(FixedSizeBinaryBuilder(fixed_size_binary(2)),
                                       Opt<std::string>{"ab", std::nullopt, "cd", "ef",
                                                        std::string("\xff\x00", 2)})}});
  ExpectMatching(*batch, {
                             {"fb = 'ab'", {0}},
                             {"fb > 'c'", {2, 3, 4}},
                             {"fb = 'abc'", {}},
                             {"fb != 'a'", {0, 2, 3, 4}},
                             {"fb IN ('cd', 'ef')", {2, 3}},
                             {"fb IS NULL", {1}},
                         });
}

TEST(PredicateStrings, SlicedColumnAndEscapes) {
  ArrayPtr s =
      Build(StringBuilder(), Opt<std::string>{"x", "it's", "a", std::nullopt, "b"});
  auto full = MakeBatch({{"s", s}});
  auto batch = full->Slice(1, 4);  // [it's, a, null, b]
  ExpectMatching(*batch, {
                             {"s = 'it''s'", {0}},
                             {"s >= 'a'", {0, 1, 3}},
                             {"s IS NULL", {2}},
                             {"s = \"it's\"", {0}},
                             {"s = 'it\"s'", {}},
                         });
}

// ---- booleans
// ------------------------------------------------------------------------------

TEST(PredicateBooleans, ComparisonsAndIsTrue) {
  Opt<bool> values = {true,         false, std::nullopt, true, false,
                      std::nullopt, true,  false,        true};
  auto batch = MakeBatch({{"b", Build(BooleanBuilder(), values)}});
  SweepOperators(*batch, "b", {"TRUE", "false", "True"},
                 [&](int64_t r, Op op, size_t li) {
                   if (!values[r]) return false;
                   return Holds(op, static_cast<int>(*values[r]), li == 1 ? 0 : 1);
                 });
  ExpectMatching(*batch, {
                             {"b", {0, 3, 6, 8}},
                             {"NOT b", {1, 4, 7}},
                             {"b IS TRUE", {0, 3, 6, 8}},
                             {"b IS NOT TRUE", {1, 2, 4, 5, 7}},
                             {"b IS FALSE", {1, 4, 7}},
                             {"b IS NOT FALSE", {0, 2, 3, 5, 6, 8}},
                             {"b IN (FALSE)", {1, 4, 7}},
                             {"b NOT IN (FALSE, NULL)", {}},
                         });
  // Sliced at a non-byte offset.
  auto sliced = batch->Slice(3, 6);  // [T, F, null, T, F, T]
  ExpectMatching(*sliced, {
                              {"b = false", {1, 4}},
                              {"b", {0, 3, 5}},
                          });
}

// ---- three-valued logic
// ----------------------------------------------------------------------

TEST(PredicateLogic, KleeneTruthTables) {
  // Every (a, b) pair over {TRUE, FALSE, NULL}.
  Opt<bool> a, b;
  const std::optional<bool> kValues[] = {true, false, std::nullopt};
  for (auto x : kValues) {
    for (auto y : kValues) {
      a.push_back(x);
      b.push_back(y);
    }
  }
  auto batch =
      MakeBatch({{"a", Build(BooleanBuilder(), a)}, {"b", Build(BooleanBuilder(), b)}});
  // rows: 0 TT, 1 TF, 2 TN, 3 FT, 4 FF, 5 FN, 6 NT, 7 NF, 8 NN
  ExpectMatching(*batch, {
                             {"a AND b", {0}},
                             {"(a AND b) IS FALSE", {1, 3, 4, 5, 7}},
                             {"(a AND b) IS NULL", {2, 6, 8}},
                             {"a OR b", {0, 1, 2, 3, 6}},
                             {"(a OR b) IS FALSE", {4}},
                             {"(a OR b) IS NULL", {5, 7, 8}},
                             {"NOT a", {3, 4, 5}},
                             {"(NOT a) IS NULL", {6, 7, 8}},
                             {"NOT (a AND b)", {1, 3, 4, 5, 7}},
                             {"NOT (a OR b)", {4}},
                         });
  // Literals mixed with columns.
  ExpectMatching(*batch, {
                             {"a AND NULL", {}},
                             {"(a AND NULL) IS FALSE", {3, 4, 5}},
                             {"a OR NULL", {0, 1, 2}},
                             {"(a OR NULL) IS NULL", {3, 4, 5, 6, 7, 8}},
                             {"a OR TRUE", {0, 1, 2, 3, 4, 5, 6, 7, 8}},
                             {"a AND FALSE", {}},
                         });
  EXPECT_EQ(Matching("(a AND FALSE) IS FALSE", *batch),
            (Rows{0, 1, 2, 3, 4, 5, 6, 7, 8}));
  // Comparisons of booleans with booleans.
  ExpectMatching(*batch, {
                             {"a = b", {0, 4}},
                             {"a < b", {3}},
                             {"a >= b", {0, 1, 4}},
                             {"(a = b) IS NULL", {2, 5, 6, 7, 8}},
                         });
}

TEST(PredicateLogic, LiteralOnlyFilters) {
  auto batch =
      MakeBatch({{"x", Build(Int32Builder(), Opt<int32_t>{1, std::nullopt, 3})}});
  const Rows all = {0, 1, 2};
  ExpectMatching(*batch, {
                             {"true", all},
                             {"FALSE", {}},
                             {"NULL", {}},
                             {"1 = 1", all},
                             {"1 = 2", {}},
                             {"1 < 2.5", all},
                             {"2.5 < 1", {}},
                             {"'b' > 'a'", all},
                             {"NULL IS NULL", all},
                             {"NULL = NULL", {}},
                             {"NOT NULL", {}},
                             {"1 IN (2, 1)", all},
                             {"1 NOT IN (2, NULL)", {}},
                             {"DATE '2024-01-02' > '2024-01-01'", all},
                             {"TIMESTAMP '2024-01-02 00:00:00' = DATE '2024-01-02'", all},
                             {"18446744073709551615 > 1.8e19", all},
                             {"true AND false OR true", all},
                         });
  EXPECT_EQ(Normalized("1 = 1", *batch), "TRUE");
  EXPECT_EQ(Normalized("NULL AND FALSE", *batch), "FALSE");
  EXPECT_EQ(Normalized("NULL OR TRUE", *batch), "TRUE");
  EXPECT_EQ(Normalized("NULL OR FALSE", *batch), "NULL");
  // Batches without rows.
  auto empty = batch->Slice(0, 0);
  ExpectMatching(*empty, {
                             {"x > 1", {}},
                             {"true", {}},
                         });
}

TEST(PredicateLogic, MixedCompoundFilters) {
  auto batch =
      MakeBatch({{"x", Build(Int64Builder(), Opt<int64_t>{1, 5, std::nullopt, 10, 20})},
                 {"s", Build(StringBuilder(),
                             Opt<std::string>{"a", std::nullopt, "c", "d", "e"})}});
  ExpectMatching(*batch, {
                             {"x > 1 AND s IS NOT NULL", {3, 4}},
                             {"x > 1 OR s = 'c'", {1, 2, 3, 4}},
                             {"NOT x > 5", {0, 1}},
                             {"NOT (x > 5) OR x IS NULL", {0, 1, 2}},
                             {"x > 1 AND x < 20 AND s != 'd'", {}},
                             {"x > 0 = true", {0, 1, 3, 4}},
                             {"(x > 5) = (s > 'c')", {0, 3, 4}},
                             {"x IS NULL = false", {0, 1, 3, 4}},
                         });
}

// ---- IN
// ------------------------------------------------------------------------------------

TEST(PredicateIn, NullSemantics) {
  auto batch =
      MakeBatch({{"i", Build(Int32Builder(), Opt<int32_t>{1, 2, 3, std::nullopt})}});
  ExpectMatching(*batch, {
                             {"i IN (1, 2)", {0, 1}},
                             {"i IN (1, 2, NULL)", {0, 1}},
                             {"i NOT IN (1, 2)", {2}},
                             {"i NOT IN (1, 2, NULL)", {}},
                             {"(i NOT IN (1, NULL)) IS NULL", {1, 2, 3}},
                             {"NOT (i IN (1, NULL))", {}},
                             {"i IN (NULL)", {}},
                             {"i IN (1, 2.5, 3.0, 1e20, -7)", {0, 2}},
                             {"i in (3)", {2}},
                         });
}

TEST(PredicateIn, LongListsAndEveryType) {
  std::vector<std::optional<int64_t>> values;
  for (int i = 0; i < 100; ++i)
    values.push_back(i % 10 == 9 ? std::nullopt : std::optional(i));
  auto batch = MakeBatch({{"x", Build(Int64Builder(), values)}});
  std::string list;
  Rows expected;
  for (int i = 0; i < 100; i += 3) {
    list += (list.empty() ? "" : ", ") + std::to_string(i);
    if (i % 10 != 9) expected.push_back(i);
  }
  EXPECT_EQ(Matching("x IN (" + list + ")", *batch), expected);
  Rows complement;
  for (int i = 0; i < 100; ++i) {
    if (i % 3 != 0 && i % 10 != 9) complement.push_back(i);
  }
  EXPECT_EQ(Matching("x NOT IN (" + list + ")", *batch), complement);

  auto mixed = MakeBatch(
      {{"s", Build(StringBuilder(), Opt<std::string>{"a", "b", std::nullopt, "c"})},
       {"f", Build(FloatBuilder(), Opt<float>{0.1f, 2.0f, 3.0f, std::nullopt})},
       {"d", Build(Date32Builder(), Opt<int32_t>{19724, 19725, std::nullopt, 0})},
       {"u8", Build(UInt8Builder(), Opt<uint8_t>{1, 255, 0, 7})}});
  ExpectMatching(*mixed,
                 {
                     {"s IN ('c', 'a', 'x', 'y', 'z', 'q', 'r', 't', 'u', 'v')", {0, 3}},
                     {"f IN (0.1, 3)", {0, 2}},
                     {"d IN (DATE '2024-01-02', '1970-01-01')", {0, 3}},
                     {"u8 IN (255, 256, -1, 7)", {1, 3}},
                 });
}

// ---- dates and timestamps
// ----------------------------------------------------------------------

TEST(PredicateTemporal, Date32) {
  // 2024-01-01 = 19723, 2024-01-02 = 19724, 1969-12-31 = -1
  auto batch = MakeBatch(
      {{"d", Build(Date32Builder(), Opt<int32_t>{19723, 19724, std::nullopt, -1, 0})}});
  EXPECT_EQ(Matching("d = date '2024-01-02'", *batch), (Rows{1}));
  EXPECT_EQ(Matching("d = DATE '2024-1-2'", *batch), (Rows{1}));
  EXPECT_EQ(Matching("d = '2024-01-02'", *batch), (Rows{1}));
  EXPECT_EQ(Matching("d > '2024-01-01'", *batch), (Rows{1}));
  EXPECT_EQ(Matching("d < date '1970-01-01'", *batch), (Rows{3}));
  EXPECT_EQ(Matching("d <= DATE '1970-01-01'", *batch), (Rows{3, 4}));
  EXPECT_EQ(Matching("'2024-01-01' <= d", *batch), (Rows{0, 1}));
  // Against timestamps a date is its midnight.
  EXPECT_EQ(Matching("d = timestamp '2024-01-02 00:00:00'", *batch), (Rows{1}));
  EXPECT_EQ(Matching("d = timestamp '2024-01-02 00:00:01'", *batch), Rows{});
  EXPECT_EQ(Matching("d < timestamp '2024-01-01 00:00:01'", *batch), (Rows{0, 3, 4}));
  EXPECT_EQ(Matching("d > '2024-01-01 12:00:00'", *batch), (Rows{1}));
  EXPECT_EQ(Matching("d >= DATE '2000-02-29'", *batch), (Rows{0, 1}));
}

TEST(PredicateTemporal, TimestampsOfEveryUnit) {
  // 2024-01-02 03:04:05.5 UTC
  const int64_t secs = 1704164645;
  struct Case {
    TimeUnit unit;
    int64_t per_second;
  };
  for (const Case c :
       {Case{TimeUnit::kSecond, 1}, Case{TimeUnit::kMilli, 1000},
        Case{TimeUnit::kMicro, 1000000}, Case{TimeUnit::kNano, 1000000000}}) {
    for (const std::string tz : {"", "UTC"}) {
      SCOPED_TRACE(std::string(TimeUnitSuffix(c.unit)) + " " + tz);
      const int64_t half = c.per_second / 2;  // 0 for seconds
      auto batch = MakeBatch(
          {{"ts", Build(TimestampBuilder(timestamp(c.unit, tz)),
                        Opt<int64_t>{secs * c.per_second, secs * c.per_second + half,
                                     std::nullopt, -c.per_second})}});
      EXPECT_EQ(Matching("ts = timestamp '2024-01-02 03:04:05'", *batch),
                half ? Rows{0} : (Rows{0, 1}));
      // Second-unit columns see the literal truncated to 03:04:05 (arrow's cast).
      EXPECT_EQ(Matching("ts = TIMESTAMP '2024-01-02 03:04:05.5'", *batch),
                half ? Rows{1} : (Rows{0, 1}));
      EXPECT_EQ(Matching("ts > timestamp '2024-01-02 03:04:05.25'", *batch),
                half ? Rows{1} : Rows{});
      ExpectMatching(*batch,
                     {
                         {"ts >= timestamp '2024-01-02 03:04:04.999999999'", {0, 1}},
                         {"ts < '1970-01-01'", {3}},
                         {"ts = '1969-12-31 23:59:59'", {3}},
                         {"ts >= date '2024-01-02'", {0, 1}},
                     });
      EXPECT_EQ(Matching("ts = '2024-01-02T03:04:05Z'", *batch),
                half ? Rows{0} : (Rows{0, 1}));
      EXPECT_EQ(Matching("ts = '2024-01-02T04:04:05+01:00'", *batch),
                half ? Rows{0} : (Rows{0, 1}));
      EXPECT_EQ(Matching("ts = '2024-01-01 22:04:05-0500'", *batch),
                half ? Rows{0} : (Rows{0, 1}));
      EXPECT_EQ(
          Matching("ts IN (timestamp '2024-01-02 03:04:05.5', '1969-12-31 23:59:59')",
                   *batch),
          half ? (Rows{1, 3}) : (Rows{0, 1, 3}));
    }
  }
}

TEST(PredicateTemporal, ColumnsAgainstColumns) {
  auto batch = MakeBatch(
      {{"d", Build(Date32Builder(), Opt<int32_t>{1, 2, 3, std::nullopt})},
       {"ts", Build(TimestampBuilder(timestamp(TimeUnit::kMilli)),
                    Opt<int64_t>{86400000, 86400001, 0, 5})},
       {"tn", Build(TimestampBuilder(timestamp(TimeUnit::kNano)),
                    Opt<int64_t>{86400000000000, 86400001000000, 1, std::nullopt})}});
  ExpectMatching(*batch, {
                             {"d = ts", {0}},
                             {"d < ts", {}},
                             {"d > ts", {1, 2}},
                         });
  // Different units meet in the coarser one, truncating: 1 ns is 0 ms.
  ExpectMatching(*batch, {
                             {"ts = tn", {0, 1, 2}},
                             {"ts < tn", {}},
                         });
}

TEST(PredicateTemporal, TruncationTowardZeroMatchesPylance) {
  // Answers of pylance 14 on this table: literals and finer columns are cast to the
  // coarser unit by integer division (truncation toward zero, also before 1970).
  auto batch =
      MakeBatch({{"tss", Build(TimestampBuilder(timestamp(TimeUnit::kSecond)),
                               Opt<int64_t>{-2, -1, 0, 1, std::nullopt})},
                 {"tsu", Build(TimestampBuilder(timestamp(TimeUnit::kMicro)),
                               Opt<int64_t>{-1500000, -500000, 500000, 1000000, 3})},
                 {"d", Build(Date32Builder(), Opt<int32_t>{0, 1, -1, 2, 3})}});
  ExpectMatching(*batch, {
                             {"tss = timestamp '1969-12-31 23:59:59.5'", {2}},
                             {"tss = timestamp '1969-12-31 23:59:58.5'", {1}},
                             {"tss < timestamp '1969-12-31 23:59:59.5'", {0, 1}},
                             {"tss > timestamp '1970-01-01 00:00:00.5'", {3}},
                             {"tss = timestamp '1970-01-01 00:00:00.5'", {2}},
                             {"tss = tsu", {2, 3}},
                             {"tss < tsu", {0, 1}},
                             {"tss > tsu", {}},
                             {"tsu = tss", {2, 3}},
                             {"tss IN (timestamp '1970-01-01 00:00:00.9')", {2}},
                             {"d = tss", {}},
                             {"d < tsu", {2}},
                             {"tsu > date '1970-01-01'", {2, 3, 4}},
                         });
}

TEST(PredicateTemporal, LiteralsBeyondTheNanosecondRange) {
  // 1000-01-01, 1500-01-01, 2000-01-01, 2500-01-01, 3000-01-01 in seconds: int64
  // nanoseconds end at 1677-09-21 and 2262-04-11, coarser units hold them all.
  const int64_t secs[] = {-30610224000, -14831769600, 946684800, 16725225600,
                          32503680000};
  struct Case {
    TimeUnit unit;
    int64_t per_second;
  };
  for (const Case c : {Case{TimeUnit::kSecond, 1}, Case{TimeUnit::kMilli, 1000},
                       Case{TimeUnit::kMicro, 1000000}}) {
    SCOPED_TRACE(TimeUnitSuffix(c.unit));
    Opt<int64_t> values;
    for (int64_t s : secs) values.push_back(s * c.per_second);
    values.push_back(std::nullopt);
    auto batch = MakeBatch({{"ts", Build(TimestampBuilder(timestamp(c.unit)), values)}});
    ExpectMatching(*batch, {
                               {"ts < timestamp '2500-01-01 00:00:00'", {0, 1, 2}},
                               {"ts <= TIMESTAMP '2500-01-01'", {0, 1, 2, 3}},
                               {"ts = timestamp '2500-01-01 00:00:00'", {3}},
                               {"ts > timestamp '1500-01-01 00:00:00'", {2, 3, 4}},
                               {"ts = timestamp '1500-01-01T00:00:00'", {1}},
                               {"ts >= '3000-01-01'", {4}},
                               {"ts < '1000-01-01 00:00:00.001'", {0}},
                           });
    EXPECT_EQ(Matching("ts IN (timestamp '1500-01-01 00:00:00', '2500-01-01 00:00:00')",
                       *batch),
              (Rows{1, 3}));
    EXPECT_EQ(
        Matching("ts BETWEEN timestamp '1400-01-01' AND timestamp '2600-01-01'", *batch),
        (Rows{1, 2, 3}));
    // Truncation toward zero to the column's unit, before 1970 too.
    ExpectMatching(*batch, {
                               {"ts = timestamp '1499-12-31 23:59:59.9999999'", {1}},
                               {"ts = timestamp '2500-01-01 00:00:00.0000009'", {3}},
                           });
    // With a zone: 2500-01-01 05:00:00+05:00 is 2500-01-01 00:00:00 UTC.
    ExpectMatching(*batch, {
                               {"ts = timestamp '2500-01-01 05:00:00+05:00'", {3}},
                               {"ts < timestamp '1499-12-31 19:00:00-05:00'", {0}},
                           });
    EXPECT_EQ(Normalized("ts > timestamp '2500-01-01 05:00:00+05:00'", *batch),
              "(ts > TIMESTAMP '2500-01-01 00:00:00Z')");
    EXPECT_EQ(Normalized("ts > timestamp '1500-06-01 12:00:00.25'", *batch),
              "(ts > TIMESTAMP '1500-06-01 12:00:00.25')");
  }
  // Literals fold exactly, and dates meet far timestamps.
  auto dates = MakeBatch({{"d", Build(Date32Builder(), Opt<int32_t>{0, std::nullopt})}});
  ExpectMatching(*dates, {
                             {"timestamp '2500-01-01' > timestamp '1500-01-01'", {0, 1}},
                             {"d < timestamp '2500-01-01 12:00:00'", {0}},
                             {"d > timestamp '1500-01-01 12:00:00'", {0}},
                         });
}

TEST(PredicateTemporal, LiteralsOutsideANanosecondColumnAreNull) {
  // As in pylance 14: the literal cast to timestamp[ns] overflows to NULL, so every
  // comparison with it is NULL (neither `<` nor `>` nor `!=` matches a row).
  const int64_t t2024 = 1704164645000000000;
  auto batch =
      MakeBatch({{"tn", Build(TimestampBuilder(timestamp(TimeUnit::kNano)),
                              Opt<int64_t>{t2024, 0, std::nullopt})},
                 {"tz", Build(TimestampBuilder(timestamp(TimeUnit::kNano, "UTC")),
                              Opt<int64_t>{t2024, 0, std::nullopt})}});
  for (const std::string col : {"tn", "tz"}) {
    SCOPED_TRACE(col);
    for (const std::string lit :
         {"timestamp '2500-01-01 00:00:00'", "timestamp '1500-01-01 00:00:00'",
          "'2500-01-01'", "timestamp '2262-04-11 23:47:16.854775808'",
          "timestamp '1677-09-21 00:12:43.145224191'",
          "timestamp '2262-04-12 00:00:00+00:00'"}) {
      SCOPED_TRACE(lit);
      for (const char* op : {"=", "!=", "<", "<=", ">", ">="}) {
        EXPECT_EQ(Matching(col + " " + op + " " + lit, *batch), Rows{});
        EXPECT_EQ(Matching("NOT (" + col + " " + op + " " + lit + ")", *batch), Rows{});
        EXPECT_EQ(Matching("(" + col + " " + op + " " + lit + ") IS NULL", *batch),
                  (Rows{0, 1, 2}));
      }
      EXPECT_EQ(Matching(col + " NOT IN (" + lit + ")", *batch), Rows{});
      EXPECT_EQ(
          Matching(col + " IN (" + lit + ", timestamp '1970-01-01 00:00:00')", *batch),
          (Rows{1}));
      EXPECT_EQ(Matching(col + " < " + lit + " OR " + col + " = '1970-01-01'", *batch),
                (Rows{1}));
    }
    // The ends of the range still fit.
    EXPECT_EQ(Matching(col + " < timestamp '2262-04-11 23:47:16.854775807'", *batch),
              (Rows{0, 1}));
    EXPECT_EQ(Matching(col + " > timestamp '1677-09-21 00:12:43.145224192'", *batch),
              (Rows{0, 1}));
  }
  EXPECT_EQ(Normalized("tn < timestamp '2500-01-01'", *batch),
            "(tn < TIMESTAMP '2500-01-01 00:00:00')");
}

TEST(PredicateTemporal, NaiveLiteralsOnZonedColumns) {
  // Instants 00:00, 01:00, 02:00, 03:00 UTC on 1970-01-01, and a null.
  const Opt<int64_t> hours = {0, 3600, 7200, 10800, std::nullopt};
  auto column = [&](TimeUnit unit, const std::string& tz) {
    Opt<int64_t> v;
    for (const auto& h : hours) v.push_back(h ? std::optional(*h * 1'000'000) : h);
    if (unit == TimeUnit::kSecond) v = hours;
    return Build(TimestampBuilder(timestamp(unit, tz)), v);
  };
  // UTC spellings: a literal without a zone is UTC.
  for (const std::string tz : {"UTC", "utc", "Z", "Etc/UTC", "GMT", "Etc/GMT", "Zulu",
                               "+00:00", "-00:00", "+0000", "Etc/GMT+0", "Etc/GMT-0"}) {
    SCOPED_TRACE(tz);
    auto batch = MakeBatch({{"ts", column(TimeUnit::kMicro, tz)}});
    ExpectMatching(*batch, {
                               {"ts >= timestamp '1970-01-01 02:00:00'", {2, 3}},
                               {"ts = '1970-01-01 01:00:00'", {1}},
                               {"ts = timestamp '1970-01-01 03:00:00+02:00'", {1}},
                           });
  }
  // Fixed offsets: the literal is local time there (as pylance 14 reads it).
  struct Fixed {
    std::string tz;
    std::string local_two_am_utc;  // 1970-01-01 02:00:00 UTC in that zone
  };
  for (const Fixed& f :
       {Fixed{"+05:30", "1970-01-01 07:30:00"}, Fixed{"+0530", "1970-01-01 07:30:00"},
        Fixed{"-08:00", "1969-12-31 18:00:00"}, Fixed{"-08", "1969-12-31 18:00:00"},
        Fixed{"Etc/GMT+8", "1969-12-31 18:00:00"},
        Fixed{"Etc/GMT-14", "1970-01-01 16:00:00"}}) {
    for (TimeUnit unit : {TimeUnit::kSecond, TimeUnit::kMicro}) {
      SCOPED_TRACE(f.tz + " " + std::string(TimeUnitSuffix(unit)));
      auto batch = MakeBatch({{"ts", column(unit, f.tz)}});
      const std::string lit = "timestamp '" + f.local_two_am_utc + "'";
      EXPECT_EQ(Matching("ts = " + lit, *batch), (Rows{2}));
      EXPECT_EQ(Matching("ts >= " + lit, *batch), (Rows{2, 3}));
      EXPECT_EQ(Matching(lit + " > ts", *batch), (Rows{0, 1}));
      EXPECT_EQ(Matching("ts IN (" + lit + ", '" + f.local_two_am_utc + "')", *batch),
                (Rows{2}));
      EXPECT_EQ(Matching("ts BETWEEN " + lit + " AND " + lit, *batch), (Rows{2}));
      // With a zone the literal is an instant, whatever the column's zone.
      ExpectMatching(*batch, {
                                 {"ts = timestamp '1970-01-01 02:00:00Z'", {2}},
                                 {"ts < '1970-01-01T03:00:00+01:00'", {0, 1}},
                             });
      // Dates are midnights UTC (as in pylance 14).
      EXPECT_EQ(Matching("ts > date '1970-01-01'", *batch), (Rows{1, 2, 3}));
      // The rendering keeps the instant.
      const std::string normalized = Normalized("ts = " + lit, *batch);
      EXPECT_EQ(Matching(normalized, *batch), (Rows{2})) << normalized;
    }
  }
}

// One time-zone policy for filters and the CLI (docs/cli.md, "Time zones"): values are
// instants; a literal without an offset is wall-clock time in the column's zone (as
// pylance 14 reads it); the CLI prints a value as wall-clock time in that zone with its
// offset (tests/cli/value_format_test.cc, TimestampsPrintInTheColumnZone, same column).
TEST(PredicateTemporal, EtcGmtColumnOneZonePolicy) {
  constexpr int64_t kHourUs = 3'600'000'000;
  const Opt<int64_t> values = {0, 8 * kHourUs, 16 * kHourUs};
  auto batch =
      MakeBatch({{"ts", Build(TimestampBuilder(timestamp(TimeUnit::kMicro, "Etc/GMT+8")),
                              values)}});
  // Etc/GMT+8 is UTC-08:00: local midnight is 08:00 UTC, row 1.
  ExpectMatching(*batch, {
                             {"ts = timestamp '1970-01-01 00:00:00'", {1}},
                             {"ts = timestamp '1970-01-01 08:00:00Z'", {1}},
                             {"ts < '1970-01-01 00:00:00'", {0}},
                         });
  // What the CLI prints for each row, used as a literal, selects exactly that row.
  for (int64_t row = 0; row < 3; ++row) {
    const std::string shown =
        FormatIsoTimestamp(*values[row], TimeUnit::kMicro, "Etc/GMT+8");
    EXPECT_EQ(Matching("ts = timestamp '" + shown + "'", *batch), (Rows{row})) << shown;
    // Without its offset the printed wall-clock time still means the same instant.
    const std::string naive = shown.substr(0, shown.size() - 6);
    EXPECT_EQ(Matching("ts = timestamp '" + naive + "'", *batch), (Rows{row})) << naive;
  }
}

TEST(PredicateTemporal, NaiveLiteralsOnNamedZonesAreNotImplemented) {
  auto batch = MakeBatch(
      {{"ts", Build(TimestampBuilder(timestamp(TimeUnit::kMicro, "America/New_York")),
                    Opt<int64_t>{0, 3600000000, 7200000000, std::nullopt})},
       {"eu", Build(TimestampBuilder(timestamp(TimeUnit::kSecond, "Europe/London")),
                    Opt<int64_t>{0, 3600, 7200, std::nullopt})}});
  const Status st = ParseStatus("ts = timestamp '1969-12-31 19:00:00'", *batch);
  EXPECT_TRUE(st.IsNotImplemented()) << st.ToString();
  EXPECT_EQ(
      st.message(),
      "invalid filter 'ts = timestamp '1969-12-31 19:00:00'': comparing column 'ts' "
      "(timestamp[us, tz=America/New_York]) with a timestamp literal without a zone "
      "needs timezone rules; write the literal with an offset, e.g. "
      "'1969-12-31 19:00:00-05:00' at position 3");
  for (const std::string filter :
       {"ts > timestamp '1970-01-01 05:00:00'", "timestamp '1970-01-01' < ts",
        "ts = '1970-01-01 05:00:00'", "ts < '1970-01-01'",
        "ts IN (timestamp '1970-01-01 00:00:00Z', timestamp '1970-01-01 05:00:00')",
        "ts BETWEEN timestamp '1970-01-01 00:00:00Z' AND timestamp '1970-01-02'",
        "eu >= timestamp '2500-01-01 00:00:00'", "ts IS NULL OR eu = '1970-01-01'"}) {
    EXPECT_THAT(ParseStatus(filter, *batch),
                IsErrorWith(StatusCode::kNotImplemented,
                            "with a timestamp literal without a zone needs timezone "
                            "rules; write the literal with an offset"))
        << filter;
  }
  // A literal with a zone is an instant; a date is midnight UTC; columns compare as is.
  ExpectMatching(*batch, {
                             {"ts = timestamp '1969-12-31 19:00:00-05:00'", {0}},
                             {"ts >= timestamp '1970-01-01 01:00:00Z'", {1, 2}},
                         });
  EXPECT_EQ(Matching("ts IN ('1970-01-01T02:00:00+00:00', timestamp "
                     "'1969-12-31 20:00:00-0500')",
                     *batch),
            (Rows{1, 2}));
  ExpectMatching(*batch, {
                             {"eu > timestamp '2500-01-01 00:00:00+01:00'", {}},
                             {"ts >= date '1970-01-01'", {0, 1, 2}},
                             {"ts = eu", {0, 1, 2}},
                         });
  EXPECT_EQ(Normalized("ts > timestamp '1970-01-01 02:00:00+02:00'", *batch),
            "(ts > TIMESTAMP '1970-01-01 00:00:00Z')");
  EXPECT_EQ(
      Matching(Normalized("ts > timestamp '1970-01-01 02:00:00+02:00'", *batch), *batch),
      (Rows{1, 2}));
}

// ---- nested columns
// ------------------------------------------------------------------------

RecordBatchPtr NestedBatch() {
  auto inner_type = struct_({field("z", int32())});
  auto st_type = struct_({field("x", int32()), field("y", utf8()),
                          field("inner", inner_type), field("Mixed", int32())});
  std::vector<std::unique_ptr<ArrayBuilder>> inner_children;
  inner_children.push_back(std::make_unique<Int32Builder>());
  std::vector<std::unique_ptr<ArrayBuilder>> children;
  children.push_back(std::make_unique<Int32Builder>());
  children.push_back(std::make_unique<StringBuilder>());
  children.push_back(
      std::make_unique<StructBuilder>(inner_type, std::move(inner_children)));
  children.push_back(std::make_unique<Int32Builder>());
  StructBuilder st(st_type, std::move(children));
  auto* x = static_cast<Int32Builder*>(st.field_builder(0));
  auto* y = static_cast<StringBuilder*>(st.field_builder(1));
  auto* inner = static_cast<StructBuilder*>(st.field_builder(2));
  auto* z = static_cast<Int32Builder*>(inner->field_builder(0));
  auto* mixed = static_cast<Int32Builder*>(st.field_builder(3));
  // Row 0: a leading row that the test slices away.
  // rows (after slicing off row 0):
  // 0 {x: 1, y: "a", inner: {z: 10}}
  // 1 null
  // 2 {x: null, y: "c", inner: null}
  // 3 {x: 4, y: null, inner: {z: null}}
  // 4 {x: 5, y: "e", inner: {z: 50}}
  auto row = [&](std::optional<int32_t> xv, std::optional<std::string> yv,
                 int inner_state, std::optional<int32_t> zv) {
    Check(st.Append());
    xv ? Check(x->Append(*xv)) : Check(x->AppendNull());
    yv ? Check(y->Append(*yv)) : Check(y->AppendNull());
    if (inner_state == 0) {
      Check(inner->AppendNull());
    } else {
      Check(inner->Append());
      zv ? Check(z->Append(*zv)) : Check(z->AppendNull());
    }
    Check(mixed->Append(7));
  };
  row(99, "zz", 1, 99);
  row(1, "a", 1, 10);
  Check(st.AppendNull());
  row(std::nullopt, "c", 0, std::nullopt);
  row(4, std::nullopt, 1, std::nullopt);
  row(5, "e", 1, 50);
  ArrayPtr st_array = st.Finish().value();

  ListBuilder lists(std::make_unique<Int32Builder>());
  auto* items = static_cast<Int32Builder*>(lists.value_builder());
  Check(lists.Append());
  Check(lists.Append());
  Check(items->Append(1));
  Check(lists.AppendNull());
  Check(lists.Append());
  Check(lists.Append());
  Check(items->Append(2));
  Check(items->Append(3));
  Check(lists.AppendNull());
  ArrayPtr list_array = lists.Finish().value();
  ArrayPtr id = Build(Int32Builder(), Opt<int32_t>{0, 1, 2, 3, 4, 5});
  return MakeBatch({{"id", id}, {"st", st_array}, {"l", list_array}})->Slice(1, 5);
}

TEST(PredicateNested, StructFieldsPropagateParentNulls) {
  auto batch = NestedBatch();
  ExpectMatching(*batch, {
                             {"st.x = 1", {0}},
                             {"st.x IS NULL", {1, 2}},
                             {"st.x IS NOT NULL", {0, 3, 4}},
                             {"st IS NULL", {1}},
                             {"st IS NOT NULL", {0, 2, 3, 4}},
                             {"st.y IS NOT NULL", {0, 2, 4}},
                             {"st.y = 'c'", {2}},
                             {"`st`.`x` > 0", {0, 3, 4}},
                             {"st.inner.z > 0", {0, 4}},
                             {"st.inner.z IS NULL", {1, 2, 3}},
                             {"st.inner IS NULL", {1, 2}},
                             {"st.x IN (1, 4)", {0, 3}},
                             {"st.x < id", {}},
                             {"st.x <= id", {0, 3, 4}},
                             {"ST.MIXED = 7", {0, 2, 3, 4}},
                             {"st.`Mixed` = 7", {0, 2, 3, 4}},
                             {"l IS NULL", {1, 4}},
                             {"l IS NOT NULL AND st.x > 1", {3}},
                         });
  EXPECT_EQ(Normalized("st.inner.z > 0 and l is null", *batch),
            "((st.inner.z > 0) AND (l IS NULL))");
}

TEST(PredicateNested, ValidChildValuesUnderNullParentsAreNull) {
  // Arrow allows a struct slot to be null while its children hold valid values there; the
  // field must still read as NULL (DataFusion's get_field semantics).
  ArrayPtr x =
      Build(Int32Builder(), Opt<int32_t>{10, 20, 30, 40, 50, 60, 70, 80, 90, 100});
  ArrayPtr bits = Build(BooleanBuilder(), Opt<bool>{true, false, true, true, false, true,
                                                    true, true, true, false});
  const auto& bool_bits = static_cast<const BooleanArray&>(*bits);
  ASSERT_OK_AND_ASSIGN(auto bitmap, Buffer::CopyFrom(bool_bits.values_bitmap(), 2));
  ASSERT_OK_AND_ASSIGN(auto st,
                       StructArray::Make({x}, {field("x", int32())}, 10, bitmap));
  auto full = MakeBatch({{"st", st}});
  ExpectMatching(*full, {
                            {"st.x > 0", {0, 2, 3, 5, 6, 7, 8}},
                            {"st.x IS NULL", {1, 4, 9}},
                            {"st.x IN (20, 30)", {2}},
                        });
  // Sliced at a non-byte offset, parent bitmap and child both offset.
  auto batch = full->Slice(3, 7);  // x = 40..100, valid = [T, F, T, T, T, T, F]
  ExpectMatching(*batch, {
                             {"st.x >= 50", {2, 3, 4, 5}},
                             {"st.x IS NOT NULL", {0, 2, 3, 4, 5}},
                         });
}

TEST(PredicateNested, NullAndDictionaryColumnsUseLogicalNulls) {
  // A null column has no bitmap, yet every slot is null. A dictionary slot is null when
  // its index is or when the value the index points at is (legacy Lance files keep a
  // dictionary column's nulls there only); pylance (DataFusion) answers IS NULL so.
  ArrayPtr values = Build(StringBuilder(), Opt<std::string>{"p", std::nullopt, "q"});
  ArrayPtr indices =
      Build(Int16Builder(), Opt<int16_t>{0, 1, std::nullopt, 2, 1, 0, 1, 2, 1});
  ASSERT_OK_AND_ASSIGN(
      auto dict, DictionaryArray::Make(dictionary(int16(), utf8()), indices, values));
  ArrayPtr nulls = MakeArray(ArrayData::Make(null(), 9, {nullptr}, 9));
  auto full = MakeBatch({{"d", dict}, {"n", nulls}});
  ExpectMatching(*full, {
                            {"d IS NULL", {1, 2, 4, 6, 8}},
                            {"d IS NOT NULL", {0, 3, 5, 7}},
                            {"n IS NULL", {0, 1, 2, 3, 4, 5, 6, 7, 8}},
                            {"n IS NOT NULL", {}},
                            {"n IS NULL AND d IS NOT NULL", {0, 3, 5, 7}},
                        });
  // Sliced at a non-byte offset: indices 2, 1, 0, 1, 2.
  auto batch = full->Slice(3, 5);
  ExpectMatching(*batch, {
                             {"d IS NULL", {1, 3}},
                             {"n IS NOT NULL", {}},
                         });
  // A dictionary without null values keeps its index bitmap as it is.
  ArrayPtr plain_values = Build(StringBuilder(), Opt<std::string>{"p", "q"});
  ASSERT_OK_AND_ASSIGN(
      auto plain,
      DictionaryArray::Make(dictionary(int16(), utf8()),
                            Build(Int16Builder(), Opt<int16_t>{1, std::nullopt, 0}),
                            plain_values));
  EXPECT_EQ(Matching("d IS NULL", *MakeBatch({{"d", plain}})), (Rows{1}));
}

TEST(PredicateNested, Errors) {
  ExpectParseErrors(*NestedBatch(), StatusCode::kInvalid,
                    {{"st.w = 1", "no column named 'w' in struct 'st'"},
                     {"st.x.q = 1", "not a struct"},
                     {"l = 1", "only IS NULL applies to nested columns"},
                     {"st = st", "cannot compare"},
                     {"st.inner IN (1)", "IN does not apply"},
                     {"st. = 1", "expected a field name after '.' at position 4"}});
}

// ---- columns against columns
// ----------------------------------------------------------------

TEST(PredicateColumns, NumericAcrossWidthsAndSigns) {
  auto batch = MakeBatch(
      {{"i", Build(Int32Builder(), Opt<int32_t>{1, 2, 3, std::nullopt, 5, -1, 7})},
       {"j", Build(Int64Builder(), Opt<int64_t>{1, 3, 2, 4, std::nullopt, -1, 0})},
       {"u",
        Build(UInt64Builder(), Opt<uint64_t>{1, 2, 3, 4, 5, 18446744073709551615ull, 7})},
       {"f", Build(FloatBuilder(),
                   Opt<float>{1.0f, 2.5f, std::nanf(""), 4, 5, std::nullopt, 0})}});
  ExpectMatching(*batch, {
                             {"i < j", {1}},
                             {"i = j", {0, 5}},
                             {"i = u", {0, 1, 2, 4, 6}},
                             {"u > i", {5}},
                             {"i > f", {6}},
                             {"f > i", {1, 2}},
                             {"f = f", {0, 1, 2, 3, 4, 6}},
                             {"j != u", {1, 2, 5, 6}},
                         });
}

TEST(PredicateColumns, StringsAndMixedLayouts) {
  auto batch = MakeBatch(
      {{"a", Build(StringBuilder(), Opt<std::string>{"a", "b", std::nullopt, "d", ""})},
       {"b", Build(LargeStringBuilder(), Opt<std::string>{"a", "a", "c", "e", ""})},
       {"c", Build(BinaryBuilder(), Opt<std::string>{"b", "b", "c", "d", "\xff"})}});
  ExpectMatching(*batch, {
                             {"a = b", {0, 4}},
                             {"a > b", {1}},
                             {"c >= a", {0, 1, 3, 4}},
                             {"b < c", {0, 1, 4}},
                         });
}

// ---- LIKE / BETWEEN
// ---------------------------------------------------------------------------

TEST(PredicateLike, PatternsEscapesAndCase) {
  auto batch = MakeBatch(
      {{"s", Build(StringBuilder(),
                   Opt<std::string>{"a%b", "h\xc3\xa9llo", "hello", std::nullopt, "HELLO",
                                    "a_b", "axb", ""})}});
  EXPECT_EQ(Matching("s LIKE 'h_llo'", *batch),
            (Rows{1, 2}));  // '_' is one UTF-8 character
  ExpectMatching(*batch, {
                             {"s LIKE 'a\\%b'", {0}},
                             {"s LIKE 'a\\_b'", {5}},
                             {"s LIKE 'a_b'", {0, 5, 6}},
                             {"s ILIKE 'hello'", {2, 4}},
                             {"s ILIKE 'H%O'", {1, 2, 4}},
                             {"s NOT LIKE 'h%'", {0, 4, 5, 6, 7}},
                             {"s LIKE '%'", {0, 1, 2, 4, 5, 6, 7}},
                             {"s LIKE ''", {7}},
                             {"s LIKE '%llo'", {1, 2}},
                             {"s LIKE '%b%'", {0, 5, 6}},
                             {"s LIKE 'he%'", {2}},
                             {"s LIKE 'h%l%o'", {1, 2}},
                             {"s LIKE '%%%'", {0, 1, 2, 4, 5, 6, 7}},
                             {"s LIKE '_'", {}},
                             {"s LIKE '___'", {0, 5, 6}},
                             {"s LIKE NULL", {}},
                             {"(s LIKE NULL) IS NULL", {0, 1, 2, 3, 4, 5, 6, 7}},
                         });
  EXPECT_EQ(Matching("'abc' LIKE 'a%'", *batch).size(), 8u);
  EXPECT_THAT(ParseStatus("s LIKE 1", *batch),
              IsErrorWith(StatusCode::kInvalid, "pattern"));
}

TEST(PredicateBetween, InclusiveBoundsAndNegation) {
  auto batch = MakeBatch(
      {{"i", Build(Int32Builder(), Opt<int32_t>{1, 2, 3, std::nullopt, 5, 6, 7})}});
  ExpectMatching(*batch, {
                             {"i BETWEEN 2 AND 5", {1, 2, 4}},
                             {"i NOT BETWEEN 2 AND 5", {0, 5, 6}},
                             {"i between 2 and 5 and i != 3", {1, 4}},
                             {"i BETWEEN 2.5 AND 200", {2, 4, 5, 6}},
                         });
  EXPECT_EQ(Normalized("i BETWEEN 2 AND 5", *batch), "((i >= 2) AND (i <= 5))");
}

// ---- syntax
// --------------------------------------------------------------------------------

RecordBatchPtr SyntaxBatch() {
  return MakeBatch({{"x", Build(Int64Builder(), Opt<int64_t>{1, 2000, std::nullopt})},
                    {"s", Build(StringBuilder(), Opt<std::string>{"a", "b", "c"})},
                    {"sp ace", Build(Int32Builder(), Opt<int32_t>{1, 2, 3})},
                    {"MiXed", Build(Int32Builder(), Opt<int32_t>{1, 2, 3})},
                    {"date", Build(Date32Builder(), Opt<int32_t>{0, 1, 2})},
                    {"tick`s", Build(Int32Builder(), Opt<int32_t>{1, 2, 3})},
                    {"and", Build(Int32Builder(), Opt<int32_t>{1, 2, 3})}});
}

TEST(PredicateSyntax, NormalisedRendering) {
  auto batch = SyntaxBatch();
  // Each rendering parses back to itself.
  ExpectRenderings(
      *batch, {
                  {"x > 10 AND s IS NOT NULL", "((x > 10) AND (s IS NOT NULL))"},
                  {"x>10 and s is not null", "((x > 10) AND (s IS NOT NULL))"},
                  {"  x\t>\n10  ", "(x > 10)"},
                  {"10 < x", "(x > 10)"},
                  {"x == 1 OR x <> 2", "((x = 1) OR (x != 2))"},
                  {"a_and_b_or_c", "ERROR"},
                  {"not x = 1", "(NOT (x = 1))"},
                  {"NOT NOT x = 1", "(NOT (NOT (x = 1)))"},
                  {"x = 1 OR x = 2 AND x = 3", "((x = 1) OR ((x = 2) AND (x = 3)))"},
                  {"(x = 1 OR x = 2) AND x = 3", "(((x = 1) OR (x = 2)) AND (x = 3))"},
                  {"x IN (1, -2, 3.5)", "(x IN (1, -2, 3.5))"},
                  {"x not in (1)", "(x NOT IN (1))"},
                  {"s = 'it''s'", "(s = 'it''s')"},
                  {"x > 1e3", "(x > 1000.0)"},
                  {"x > 1.5E-3", "(x > 0.0015)"},
                  {"x > .5", "(x > 0.5)"},
                  {"x > 5.", "(x > 5.0)"},
                  {"x < 1e300", "(x < 1e+300)"},
                  {"x < 18446744073709551616", "(x < 18446744073709551616.0)"},
                  {"`sp ace` > 1", "(`sp ace` > 1)"},
                  {"`tick``s` = 1", "(`tick``s` = 1)"},
                  {"`and` = 1", "(`and` = 1)"},
                  {"mixed = 1", "(MiXed = 1)"},
                  {"MIXED = 1", "(MiXed = 1)"},
                  {"date > date '2024-01-01'", "(date > DATE '2024-01-01')"},
                  {"date = '1970-01-02'", "(date = '1970-01-02')"},
                  {"s > 'a' -- trailing comment", "(s > 'a')"},
                  {"s /* block */ > 'a'", "(s > 'a')"},
                  {"x>1and x<5", "((x > 1) AND (x < 5))"},
                  {"x IS NULL", "(x IS NULL)"},
                  {"(x > 1) IS NOT TRUE", "((x > 1) IS NOT TRUE)"},
                  {"s LIKE 'a%'", "(s LIKE 'a%')"},
                  {"s NOT ILIKE 'a%'", "(s NOT ILIKE 'a%')"},
                  {"x = NULL", "(x = NULL)"},
                  {"TIMESTAMP '2024-01-02 03:04:05.5' < date",
                   "(date > TIMESTAMP '2024-01-02 03:04:05.5')"},
                  {"timestamp = 1", "ERROR"},
                  {"x > 0 AND TRUE", "((x > 0) AND TRUE)"},
              });
  ExpectMatching(*batch, {
                             {"`sp ace` >= 2", {1, 2}},
                             {"`tick``s` = 3", {2}},
                             {"x > 1000.0", {1}},
                         });
}

// Each case is a filter that does not parse and the whole message naming where and why;
// a failure names the filter.
TEST(PredicateSyntax, ErrorsNamePositionAndExpectation) {
  auto batch = SyntaxBatch();
  const ParseErrorCases cases = {
      {"x >", "expected a value at position 3"},
      {"", "expected a value at position 0"},
      {"x > 1 AND", "expected a value at position 9"},
      {"(x > 1", "expected ')' at position 6"},
      {"x > 1)", "expected an operator or end of input at position 5 but found ')'"},
      {"x 1", "expected an operator or end of input at position 2 but found '1'"},
      {"s = 'abc", "expected a closing ' for the string starting at position 4"},
      {"x # 1", "unexpected character '#' at position 2"},
      {"x IS 1",
       "expected NOT, NULL, TRUE or FALSE after IS at position 5 but found '1'"},
      {"x IN 1", "expected '(' after IN at position 5 but found '1'"},
      {"x IN ()", "expected a value at position 6 but found ')'"},
      {"x IN (1,)", "expected a value at position 8 but found ')'"},
      {"x IN (1 2)", "expected ',' or ')' in the IN list at position 8 but found '2'"},
      {"x BETWEEN 1 OR 2", "expected AND in BETWEEN at position 12 but found 'OR'"},
      {"AND x = 1", "expected a value at position 0 but found 'AND'"},
      {"x = 1e", "expected an operator or end of input at position 5 but found 'e'"},
      {"x = 1 /* open", "expected a closing '*/' for the comment starting at position 6"},
      {"`x = 1", "expected a closing ` for the identifier starting at position 0"},
      {"x ! 1", "unexpected character '!' at position 2"},
  };
  for (const auto& [input, detail] : cases) {
    EXPECT_EQ(ErrorMessage(input, *batch),
              "cannot parse filter '" + input + "': " + detail)
        << input;
  }
}

// Filters that parse but do not bind: the first table's messages are compared whole,
// the rest must be kInvalid statuses whose message holds the given text. A failure
// names the filter.
TEST(PredicateSyntax, BindingErrors) {
  auto batch = SyntaxBatch();
  const std::vector<std::pair<std::string, std::string>> whole_messages = {
      {"y > 1",
       "invalid filter 'y > 1': no column named 'y' (available: x, s, sp ace, MiXed, "
       "date, tick`s, and) at position 0"},
      {"s = 1",
       "invalid filter 's = 1': cannot compare a utf8 value with integer literal 1 at "
       "position 2"},
      {"x = '3'",
       "invalid filter 'x = '3'': cannot compare a int64 value with string literal '3' "
       "at position 2"},
      {"x",
       "invalid filter 'x': the filter must be a boolean expression, but x is int64 at "
       "position 0"},
  };
  for (const auto& [input, message] : whole_messages) {
    EXPECT_EQ(ErrorMessage(input, *batch), message) << input;
  }
  EXPECT_EQ(ErrorMessage("`mixed` = 1", *batch).find("no column named 'mixed'") !=
                std::string::npos,
            true);
  ExpectParseErrors(
      *batch, StatusCode::kInvalid,
      {
          {"x = TRUE", "position 2"},
          {"s > x", "cannot compare a utf8 value with a int64 value"},
          {"date = 5", "date32"},
          {"date = 'yesterday'", "not a date"},
          {"date = DATE '2024-13-01'", "'2024-13-01' is not a date"},
          {"date = DATE '2023-02-29'", "is not a date"},
          {"date = TIMESTAMP '2024-01-01 25:00:00'", "is not a timestamp"},
          {"x IN (1, 'a')", "string literal 'a' at position 2"},
          {"x IN (1, x)", "IN lists hold literals only"},
          {"x > 1 AND s", "AND needs a boolean operand, but s is utf8 at position 6"},
          {"NOT x", "NOT needs"},
          {"x + 's' > 2",
           "arithmetic '+' needs numeric operands, but 's' is utf8 at position 2"},
          {"-s > 2", "unary minus needs numeric operands, but s is utf8 at position 0"},
          {"x > 1e999", "number 1e999 is out of range at position 4"},
          {"1 = 'a'", "cannot compare integer literal 1 with string"},
          {"s LIKE 'a' AND x LIKE 'b'", "LIKE applies to strings"},
          {"x IS TRUE", "IS TRUE"},
      });
}

TEST(PredicateSyntax, KeywordsAreCaseInsensitive) {
  auto batch = SyntaxBatch();
  const Rows expected = Matching("x IS NOT NULL AND NOT (s IN ('a')) OR FALSE", *batch);
  EXPECT_EQ(expected, (Rows{1}));
  ExpectMatching(*batch, {
                             {"x is not null and not (s in ('a')) or false", expected},
                             {"x Is NoT nUlL aNd NoT (s iN ('a')) Or FaLsE", expected},
                             {"s = 'b' AND true", {1}},
                             {"date = Date '1970-01-02'", {1}},
                             {"date = timestamp '1970-01-03 00:00:00'", {2}},
                         });
}

// ---- API
// ------------------------------------------------------------------------------------

TEST(PredicateApi, ReferencedColumnsAreTopLevelAndUnique) {
  auto batch = NestedBatch();
  ASSERT_OK_AND_ASSIGN(auto pred,
                       Parse("st.x > 1 AND (l IS NULL OR st.y = 'a') AND id IN (1) AND "
                             "st.inner.z < id AND 1 = 1",
                             *batch));
  EXPECT_EQ(pred->ReferencedColumns(), (std::vector<std::string>{"st", "l", "id"}));
  ASSERT_OK_AND_ASSIGN(pred, Parse("true", *batch));
  EXPECT_TRUE(pred->ReferencedColumns().empty());
}

TEST(PredicateApi, EvaluateChecksTheBatch) {
  auto batch = SyntaxBatch();
  ASSERT_OK_AND_ASSIGN(auto pred, Parse("x > 1", *batch));
  auto other = MakeBatch({{"s", Build(StringBuilder(), Opt<std::string>{"a"})}});
  EXPECT_THAT(pred->Evaluate(*other),
              IsErrorWith(StatusCode::kInvalid, "the batch has no column 'x'"));
  auto wrong = MakeBatch({{"x", Build(Int32Builder(), Opt<int32_t>{1})}});
  EXPECT_THAT(pred->Evaluate(*wrong),
              IsErrorWith(StatusCode::kInvalid, "has type int32"));
  // A batch holding only the referenced columns (a scan's projection) is enough.
  auto projected = MakeBatch({{"x", Build(Int64Builder(), Opt<int64_t>{1, 2})}});
  ASSERT_OK_AND_ASSIGN(auto mask, pred->Evaluate(*projected));
  EXPECT_EQ(static_cast<const BooleanArray&>(*mask).true_count(), 1);
}

// ---- larger randomised check
// ------------------------------------------------------------------

TEST(PredicateRandom, CompoundFilterMatchesReferenceOnSlicedBatches) {
  std::mt19937_64 rng(99);
  const int64_t n = 5000;
  Opt<int64_t> ints;
  Opt<double> doubles;
  Opt<std::string> strings;
  for (int64_t i = 0; i < n; ++i) {
    ints.push_back(rng() % 7 == 0 ? std::nullopt
                                  : std::optional<int64_t>(rng() % 2001 - 1000));
    doubles.push_back(rng() % 5 == 0
                          ? std::nullopt
                          : std::optional<double>((rng() % 20001) / 10.0 - 1000));
    strings.push_back(rng() % 6 == 0 ? std::nullopt
                                     : std::optional<std::string>(std::string(
                                           1, static_cast<char>('a' + rng() % 5))));
  }
  auto full = MakeBatch({{"i", Build(Int64Builder(), ints)},
                         {"d", Build(DoubleBuilder(), doubles)},
                         {"s", Build(StringBuilder(), strings)}});
  for (int64_t offset : {0, 1, 7, 13}) {
    auto batch = full->Slice(offset, n - offset - 3);
    Rows expected;
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      const auto& i = ints[offset + r];
      const auto& d = doubles[offset + r];
      const auto& s = strings[offset + r];
      // (i > 100 AND d <= 250.5) OR (s IN ('a','c') AND NOT i < 0), three-valued with
      // 1 = TRUE, 0 = FALSE, -1 = NULL.
      auto tv_and = [](int a, int b) {
        return (a == 0 || b == 0) ? 0 : (a < 0 || b < 0 ? -1 : 1);
      };
      auto tv_or = [](int a, int b) {
        return (a == 1 || b == 1) ? 1 : (a < 0 || b < 0 ? -1 : 0);
      };
      const int i_gt = i ? (*i > 100) : -1;
      const int d_le = d ? (*d <= 250.5) : -1;
      const int s_in = s ? (*s == "a" || *s == "c") : -1;
      const int i_ge0 = i ? !(*i < 0) : -1;
      const int result = tv_or(tv_and(i_gt, d_le), tv_and(s_in, i_ge0));
      if (result == 1) expected.push_back(r);
    }
    EXPECT_EQ(
        Matching("(i > 100 AND d <= 250.5) OR (s IN ('a', 'c') AND NOT i < 0)", *batch),
        expected)
        << "offset " << offset;
  }
}

}  // namespace
}  // namespace lance::table
