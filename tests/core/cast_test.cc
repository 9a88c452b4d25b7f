// SPDX-License-Identifier: Apache-2.0
// compute::Cast (SQL CAST of arrays, as UPDATE and schema evolution store values into
// columns of another type), its vectorised numeric widening and its scalar reader /
// writer.
#include "lance/core/cast.h"

#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "lance/core/builder.h"
#include "tests/testing/array_helpers.h"
#include "tests/testing/matchers.h"

namespace lance::compute {
namespace {

using namespace ::lance::testing;  // NOLINT(build/namespaces): the test helpers

TEST(CastTest, SlicedInput) {
  auto ints = Build(Int64Builder(), Opt<int64_t>{1, 2, std::nullopt, 4})->Slice(1, 3);
  ExpectArray(Cast(ints, utf8()).value(),
              Build(StringBuilder(), Opt<std::string>{"2", std::nullopt, "4"}), "sliced");
}

TEST(CastTest, IntegersWidenNarrowAndCheckRange) {
  auto ints = Build(Int64Builder(), Opt<int64_t>{1, std::nullopt, -128, 127});
  ExpectArray(Cast(ints, int8()).value(),
              Build(Int8Builder(), Opt<int8_t>{1, std::nullopt, -128, 127}), "int8");
  ExpectArray(Cast(Build(Int8Builder(), Opt<int8_t>{-1, 5}), int64()).value(),
              Build(Int64Builder(), Opt<int64_t>{-1, 5}), "widen");
  EXPECT_THAT(Cast(Build(Int64Builder(), Opt<int64_t>{1, 300}), int8()).status(),
              IsErrorWith(StatusCode::kInvalid, "300"));
  EXPECT_THAT(Cast(Build(Int64Builder(), Opt<int64_t>{-1}), uint32()).status(),
              IsErrorWith(StatusCode::kInvalid, "out of range"));
  // uint64 beyond int64 does not fit int64.
  EXPECT_FALSE(Cast(Build(UInt64Builder(), Opt<uint64_t>{1ULL << 63}), int64()).ok());
}

TEST(CastTest, FloatsAndIntegers) {
  ExpectArray(
      Cast(Build(Int32Builder(), Opt<int32_t>{3, std::nullopt}), float64()).value(),
      Build(DoubleBuilder(), Opt<double>{3, std::nullopt}), "int->double");
  ExpectArray(Cast(Build(DoubleBuilder(), Opt<double>{2.9, -2.9}), int32()).value(),
              Build(Int32Builder(), Opt<int32_t>{2, -2}), "double->int truncates");
  EXPECT_FALSE(Cast(Build(DoubleBuilder(), Opt<double>{std::nan("")}), int32()).ok());
  EXPECT_FALSE(Cast(Build(DoubleBuilder(), Opt<double>{1e10}), int32()).ok());
  ExpectArray(Cast(Build(DoubleBuilder(), Opt<double>{0.1}), float32()).value(),
              Build(FloatBuilder(), Opt<float>{0.1F}), "double->float");
}

TEST(CastTest, StringsBoolsAndNumbers) {
  ExpectArray(
      Cast(Build(StringBuilder(), Opt<std::string>{"12", " -3 ", std::nullopt}), int16())
          .value(),
      Build(Int16Builder(), Opt<int16_t>{12, -3, std::nullopt}), "str->int");
  EXPECT_THAT(Cast(Build(StringBuilder(), Opt<std::string>{"1x"}), int16()).status(),
              IsErrorWith(StatusCode::kInvalid, "'1x'"));
  ExpectArray(
      Cast(Build(StringBuilder(), Opt<std::string>{"2.5", "NaN"}), float64()).value(),
      Build(DoubleBuilder(), Opt<double>{2.5, std::nan("")}), "str->double");
  ExpectArray(Cast(Build(Int64Builder(), Opt<int64_t>{-7}), utf8()).value(),
              Build(StringBuilder(), Opt<std::string>{"-7"}), "int->str");
  ExpectArray(Cast(Build(DoubleBuilder(), Opt<double>{1.5, 2}), utf8()).value(),
              Build(StringBuilder(), Opt<std::string>{"1.5", "2.0"}), "double->str");
  ExpectArray(Cast(Build(BooleanBuilder(), Opt<bool>{true, false}), int32()).value(),
              Build(Int32Builder(), Opt<int32_t>{1, 0}), "bool->int");
  ExpectArray(Cast(Build(Int32Builder(), Opt<int32_t>{0, 5}), boolean()).value(),
              Build(BooleanBuilder(), Opt<bool>{false, true}), "int->bool");
  ExpectArray(
      Cast(Build(StringBuilder(), Opt<std::string>{"true", "F"}), boolean()).value(),
      Build(BooleanBuilder(), Opt<bool>{true, false}), "str->bool");
  ExpectArray(Cast(Build(BooleanBuilder(), Opt<bool>{true}), utf8()).value(),
              Build(StringBuilder(), Opt<std::string>{"true"}), "bool->str");
  ExpectArray(Cast(Build(StringBuilder(), Opt<std::string>{"x"}), large_utf8()).value(),
              Build(LargeStringBuilder(), Opt<std::string>{"x"}), "str->large");
}

TEST(CastTest, DatesAndTimestamps) {
  auto dates = Build(Date32Builder(), Opt<int32_t>{19724, std::nullopt});
  const int64_t day_us = int64_t{86400} * 1000000;
  ExpectArray(Cast(dates, timestamp(TimeUnit::kMicro)).value(),
              Build(TimestampBuilder(timestamp(TimeUnit::kMicro)),
                    Opt<int64_t>{19724 * day_us, std::nullopt}),
              "date->ts");
  auto ts = Build(TimestampBuilder(timestamp(TimeUnit::kMicro)),
                  Opt<int64_t>{19724 * day_us + 5, -1});
  ExpectArray(Cast(ts, date32()).value(), Build(Date32Builder(), Opt<int32_t>{19724, -1}),
              "ts->date floors");
  ExpectArray(Cast(ts, timestamp(TimeUnit::kNano)).value(),
              Build(TimestampBuilder(timestamp(TimeUnit::kNano)),
                    Opt<int64_t>{(19724 * day_us + 5) * 1000, -1000}),
              "us->ns");
  ExpectArray(
      Cast(Build(StringBuilder(), Opt<std::string>{"2024-01-02", std::nullopt}), date32())
          .value(),
      Build(Date32Builder(), Opt<int32_t>{19724, std::nullopt}), "str->date");
  ExpectArray(Cast(Build(StringBuilder(), Opt<std::string>{"2024-01-02 00:00:01"}),
                   timestamp(TimeUnit::kSecond))
                  .value(),
              Build(TimestampBuilder(timestamp(TimeUnit::kSecond)),
                    Opt<int64_t>{int64_t{19724} * 86400 + 1}),
              "str->ts");
  // Wall-clock strings are read in the column's zone; instants stay instants.
  ExpectArray(Cast(Build(StringBuilder(),
                         Opt<std::string>{"2024-01-02 05:30:00", "2024-01-02 00:00:00Z"}),
                   timestamp(TimeUnit::kSecond, "+05:30"))
                  .value(),
              Build(TimestampBuilder(timestamp(TimeUnit::kSecond, "+05:30")),
                    Opt<int64_t>{int64_t{19724} * 86400, int64_t{19724} * 86400}),
              "str->zoned ts");
  EXPECT_FALSE(
      Cast(Build(StringBuilder(), Opt<std::string>{"2024-13-01"}), date32()).ok());
  ExpectArray(Cast(dates, utf8()).value(),
              Build(StringBuilder(), Opt<std::string>{"2024-01-02", std::nullopt}),
              "date->str");
}

TEST(CastTest, NullsBecomeAnyType) {
  auto nulls = NullArray::Make(3);
  for (const auto& type : {int8(), float64(), utf8(), boolean(), date32(),
                           timestamp(TimeUnit::kMicro, "UTC")}) {
    auto out = Cast(nulls, type);
    ASSERT_TRUE(out.ok()) << type->ToString();
    EXPECT_TRUE((*out)->type()->Equals(*type));
    EXPECT_EQ((*out)->null_count(), 3);
  }
  EXPECT_THAT(Cast(Build(Date32Builder(), Opt<int32_t>{1}), boolean()).status(),
              IsErrorWith(StatusCode::kInvalid, "cannot cast date32"));
}

TEST(CastTest, NumericWideningKeepsTheValidityOfASlice) {
  auto ints =
      Build(Int16Builder(), Opt<int16_t>{1, 2, std::nullopt, -4, 5, 6, 7, 8, 9, 10})
          ->Slice(1, 4);
  ExpectArray(CastNumeric(*ints, int64()).value(),
              Build(Int64Builder(), Opt<int64_t>{2, std::nullopt, -4, 5}),
              "int16->int64");
  ExpectArray(CastNumeric(*ints, float64()).value(),
              Build(DoubleBuilder(), Opt<double>{2, std::nullopt, -4, 5}),
              "int16->double");
  EXPECT_TRUE(IsLosslessNumericWidening(*uint32(), *int64()));
  EXPECT_FALSE(IsLosslessNumericWidening(*uint32(), *int32()));
  EXPECT_FALSE(IsLosslessNumericWidening(*float64(), *float32()));
  EXPECT_THAT(CastNumeric(*ints, int8()).status(),
              IsErrorWith(StatusCode::kInvalid, "would narrow"));
}

TEST(CastTest, ScalarsReadWriteAndSpell) {
  auto strs = Build(StringBuilder(), Opt<std::string>{"a'b", std::nullopt});
  auto reader = ScalarReader::Make(strs);
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ(reader->Get(0).ToString(), "'a''b'");
  EXPECT_TRUE(reader->Get(1).is_null());
  EXPECT_EQ(Scalar::Date(19724).ToString(), "DATE '2024-01-02'");
  EXPECT_EQ(Scalar::Int(-7).KindName(), "integer");
  EXPECT_EQ(Scalar::Int(int128{1} << 63).number_type()->ToString(), "uint64");
  ExpectArray(BroadcastScalar(Scalar::Int(3), int32(), 2).value(),
              Build(Int32Builder(), Opt<int32_t>{3, 3}), "broadcast");
  EXPECT_TRUE(ScalarReader::Make(NullArray::Make(1)).ok());
  EXPECT_THAT(
      ScalarReader::Make(Build(Time32Builder(time32(TimeUnit::kSecond)), Opt<int32_t>{1}))
          .status(),
      IsErrorWith(StatusCode::kNotImplemented, "casting values of type time32"));
}

}  // namespace
}  // namespace lance::compute
