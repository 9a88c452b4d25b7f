// SPDX-License-Identifier: Apache-2.0
#include "lib/scalar_codec.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "tests/testing/matchers.h"

namespace lance::cli {
namespace {

using ::lance::testing::IsErrorWith;

TEST(Half, ConversionsAreExactAndRoundToNearestEven) {
  EXPECT_EQ(HalfToDouble(0x3C00), 1.0);
  EXPECT_EQ(HalfToDouble(0xC000), -2.0);
  EXPECT_EQ(HalfToDouble(0x7BFF), 65504.0);
  EXPECT_EQ(HalfToDouble(0x0001), std::ldexp(1.0, -24));
  EXPECT_TRUE(std::isinf(HalfToDouble(0x7C00)));
  EXPECT_TRUE(std::isnan(HalfToDouble(0x7E00)));
  EXPECT_EQ(DoubleToHalf(1.0), 0x3C00);
  EXPECT_EQ(DoubleToHalf(-0.0), 0x8000);
  EXPECT_EQ(DoubleToHalf(65504.0), 0x7BFF);
  EXPECT_EQ(DoubleToHalf(65519.0), 0x7BFF);
  EXPECT_EQ(DoubleToHalf(65520.0), 0x7C00);  // ties to even -> overflow
  EXPECT_EQ(DoubleToHalf(1e9), 0x7C00);
  EXPECT_EQ(DoubleToHalf(std::ldexp(1.0, -25)), 0x0000);            // tie to even (zero)
  EXPECT_EQ(DoubleToHalf(std::ldexp(3.0, -25)), 0x0002);            // 1.5 units -> 2
  EXPECT_EQ(DoubleToHalf(1.0 + std::ldexp(1.0, -11)), 0x3C00);      // tie -> even
  EXPECT_EQ(DoubleToHalf(1.0 + 3 * std::ldexp(1.0, -11)), 0x3C02);  // tie -> even
  EXPECT_EQ(DoubleToHalf(std::ldexp(1023.5, -24)),
            0x0400);  // subnormal carries to normal
  EXPECT_EQ(DoubleToHalf(std::nan("")) & 0x7C00, 0x7C00);
  // Every finite half survives a trip through double.
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    const auto h = static_cast<uint16_t>(bits);
    if ((h & 0x7C00) == 0x7C00 && (h & 0x03FF) != 0) continue;  // NaN payloads
    ASSERT_EQ(DoubleToHalf(HalfToDouble(h)), h) << bits;
  }
}

TEST(FormatFloats, ShortestRoundTripAtOwnWidth) {
  EXPECT_EQ(FormatFloat(0.1f), "0.1");
  EXPECT_EQ(FormatDouble(0.1), "0.1");
  EXPECT_EQ(FormatDouble(static_cast<double>(0.1f)), "0.10000000149011612");
  EXPECT_EQ(FormatFloat(1.0f), "1");
  EXPECT_EQ(FormatFloat(-0.0f), "-0");
  EXPECT_EQ(FormatDouble(1e21), "1e+21");
  EXPECT_EQ(FormatDouble(123456.0), "123456");
  EXPECT_EQ(FormatFloat(std::numeric_limits<float>::max()), "3.4028235e+38");
  EXPECT_EQ(FormatFloat(std::numeric_limits<float>::denorm_min()), "1e-45");
  EXPECT_EQ(FormatDouble(std::numeric_limits<double>::denorm_min()), "5e-324");
  EXPECT_EQ(FormatDouble(std::nan("")), "NaN");
  EXPECT_EQ(FormatFloat(std::numeric_limits<float>::infinity()), "Infinity");
  EXPECT_EQ(FormatDouble(-std::numeric_limits<double>::infinity()), "-Infinity");
}

TEST(FormatFloats, HalfIsShortestForHalf) {
  EXPECT_EQ(FormatHalf(DoubleToHalf(0.1)), "0.1");  // the half is 0.0999755859375
  EXPECT_EQ(FormatHalf(0x3C00), "1");
  EXPECT_EQ(FormatHalf(0x3555), "0.3333");
  EXPECT_EQ(FormatHalf(0x7BFF), "65500");  // 65504 is the nearest half to 65500
  EXPECT_EQ(FormatHalf(0x0001), "6e-08");
  EXPECT_EQ(FormatHalf(0x0400), "6.104e-05");
  EXPECT_EQ(FormatHalf(0x8000), "-0");
  EXPECT_EQ(FormatHalf(0x0000), "0");
  EXPECT_EQ(FormatHalf(0x7C00), "Infinity");
  EXPECT_EQ(FormatHalf(0xFC00), "-Infinity");
  EXPECT_EQ(FormatHalf(0x7E00), "NaN");
  EXPECT_EQ(FormatHalf(DoubleToHalf(-2.5)), "-2.5");
  EXPECT_EQ(FormatHalf(DoubleToHalf(1000)), "1000");
  // Every finite half prints as text that parses back to the same bits.
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    const auto h = static_cast<uint16_t>(bits);
    if ((h & 0x7C00) == 0x7C00) continue;
    const std::string text = FormatHalf(h);
    auto back = ParseHalf(text);
    ASSERT_TRUE(back.ok()) << text;
    ASSERT_EQ(*back, h) << bits << " -> " << text;
    ASSERT_LE(text.size(), 11u) << text;
  }
}

TEST(FormatFloats, Float32RandomRoundTrip) {
  std::mt19937 rng(7);
  for (int i = 0; i < 20000; ++i) {
    uint32_t bits = rng();
    float f;
    std::memcpy(&f, &bits, sizeof(f));
    if (!std::isfinite(f)) continue;
    auto back = ParseFloat(FormatFloat(f));
    ASSERT_TRUE(back.ok());
    uint32_t back_bits;
    std::memcpy(&back_bits, &*back, sizeof(f));
    ASSERT_EQ(back_bits, bits) << FormatFloat(f);
  }
}

TEST(Dates, FormatProlepticGregorian) {
  EXPECT_EQ(FormatIsoDate(0), "1970-01-01");
  EXPECT_EQ(FormatIsoDate(-1), "1969-12-31");
  EXPECT_EQ(FormatIsoDate(19782), "2024-02-29");
  EXPECT_EQ(FormatIsoDate(-719162), "0001-01-01");
  EXPECT_EQ(FormatIsoDate(-719163), "0000-12-31");
  EXPECT_EQ(FormatIsoDate(-719528), "0000-01-01");
  EXPECT_EQ(FormatIsoDate(-719529), "-0001-12-31");
  EXPECT_EQ(FormatIsoDate(2932896), "9999-12-31");
  EXPECT_EQ(FormatIsoDate(2932897), "+10000-01-01");
  EXPECT_EQ(FormatIsoDate(std::numeric_limits<int32_t>::max()), "+5881580-07-11");
  EXPECT_EQ(FormatIsoDate(std::numeric_limits<int32_t>::min()), "-5877641-06-23");
  EXPECT_EQ(FormatIsoDate(-141427), "1582-10-15");  // Gregorian reform, no gap
}

TEST(Dates, ParseIsTheInverse) {
  for (int64_t d = -800000; d < 3000000; d += 997) {
    ASSERT_EQ(*ParseDate(FormatIsoDate(d)), d);
  }
  for (int64_t d : {int64_t{std::numeric_limits<int32_t>::min()},
                    int64_t{std::numeric_limits<int32_t>::max()}}) {
    EXPECT_EQ(*ParseDate32(FormatIsoDate(d)), d);
  }
  EXPECT_EQ(*ParseDate("2000-02-29"), 11016);
  EXPECT_THAT(ParseDate("1900-02-29"),
              IsErrorWith(StatusCode::kInvalid, "day out of range"));
  EXPECT_THAT(ParseDate("2024-13-01"), IsErrorWith(StatusCode::kInvalid, "month"));
  // One ISO grammar for filters and import (lance::ParseIsoDateTime): a one-digit month
  // or day is accepted, as DataFusion accepts it in a filter.
  EXPECT_EQ(*ParseDate("2024-1-01"), *ParseDate("2024-01-01"));
  EXPECT_THAT(ParseDate("24-01-01"), IsErrorWith(StatusCode::kInvalid, "YYYY-MM-DD"));
  EXPECT_THAT(ParseDate("2024-01-01x"),
              IsErrorWith(StatusCode::kInvalid, "not a valid date"));
  EXPECT_THAT(ParseDate32("+9999999-01-01"),
              IsErrorWith(StatusCode::kInvalid, "out of range"));
}

TEST(Timestamps, FormatEachUnitNaiveAndUtc) {
  EXPECT_EQ(FormatIsoTimestamp(0, TimeUnit::kSecond, ""), "1970-01-01T00:00:00");
  EXPECT_EQ(FormatIsoTimestamp(0, TimeUnit::kSecond, "UTC"), "1970-01-01T00:00:00Z");
  EXPECT_EQ(FormatIsoTimestamp(1'500, TimeUnit::kMilli, ""), "1970-01-01T00:00:01.500");
  EXPECT_EQ(FormatIsoTimestamp(-1, TimeUnit::kMilli, "UTC"), "1969-12-31T23:59:59.999Z");
  EXPECT_EQ(FormatIsoTimestamp(1'700'000'000'123'456, TimeUnit::kMicro, "Etc/UTC"),
            "2023-11-14T22:13:20.123456Z");
  EXPECT_EQ(FormatIsoTimestamp(1, TimeUnit::kNano, "utc"),
            "1970-01-01T00:00:00.000000001Z");
  EXPECT_EQ(FormatIsoTimestamp(-1, TimeUnit::kNano, ""), "1969-12-31T23:59:59.999999999");
  EXPECT_EQ(FormatIsoTimestamp(std::numeric_limits<int64_t>::max(), TimeUnit::kNano, "Z"),
            "2262-04-11T23:47:16.854775807Z");
  EXPECT_EQ(FormatIsoTimestamp(std::numeric_limits<int64_t>::min(), TimeUnit::kNano, ""),
            "1677-09-21T00:12:43.145224192");
  EXPECT_EQ(FormatIsoTimestamp(-62135596800, TimeUnit::kSecond, "+00:00"),
            "0001-01-01T00:00:00Z");
}

TEST(Timestamps, FormatOtherZones) {
  // A fixed offset prints local time with the offset; a named zone prints the UTC
  // instant.
  EXPECT_EQ(FormatIsoTimestamp(0, TimeUnit::kSecond, "+05:30"),
            "1970-01-01T05:30:00+05:30");
  EXPECT_EQ(FormatIsoTimestamp(0, TimeUnit::kMilli, "-08:00"),
            "1969-12-31T16:00:00.000-08:00");
  EXPECT_EQ(FormatIsoTimestamp(0, TimeUnit::kSecond, "America/New_York"),
            "1970-01-01T00:00:00Z");
  // Etc/GMT+8 is UTC-08:00: shown as wall-clock time there, as the filter reads it.
  EXPECT_EQ(FormatIsoTimestamp(8 * 3600, TimeUnit::kSecond, "Etc/GMT+8"),
            "1970-01-01T00:00:00-08:00");
}

TEST(Timestamps, Parse) {
  EXPECT_EQ(*ParseTimestamp("1970-01-01T00:00:01Z", TimeUnit::kMilli), 1000);
  EXPECT_EQ(*ParseTimestamp("1970-01-01", TimeUnit::kSecond), 0);
  EXPECT_EQ(*ParseTimestamp("1970-01-01 00:01", TimeUnit::kSecond), 60);
  EXPECT_EQ(*ParseTimestamp("1970-01-01T05:30:00+05:30", TimeUnit::kSecond), 0);
  EXPECT_EQ(*ParseTimestamp("1970-01-01T00:00:00-0100", TimeUnit::kSecond), 3600);
  EXPECT_EQ(*ParseTimestamp("1969-12-31T23:59:59.999999999", TimeUnit::kNano), -1);
  EXPECT_EQ(*ParseTimestamp("1970-01-01T00:00:00.5", TimeUnit::kMicro), 500000);
  EXPECT_EQ(*ParseTimestamp("1970-01-01T00:00:00.500000000Z", TimeUnit::kMilli), 500);
  EXPECT_EQ(*ParseTimestamp("2262-04-11T23:47:16.854775807Z", TimeUnit::kNano),
            std::numeric_limits<int64_t>::max());
  EXPECT_THAT(ParseTimestamp("2262-04-11T23:47:16.854775808Z", TimeUnit::kNano),
              IsErrorWith(StatusCode::kInvalid, "out of range"));
  EXPECT_THAT(ParseTimestamp("1970-01-01T00:00:00.1234", TimeUnit::kMilli),
              IsErrorWith(StatusCode::kInvalid, "fractional digits"));
  EXPECT_THAT(ParseTimestamp("1970-01-01T24:00:00", TimeUnit::kSecond),
              IsErrorWith(StatusCode::kInvalid, "out of range"));
  EXPECT_THAT(ParseTimestamp("1970-01-01T00:00:00 UTC", TimeUnit::kSecond),
              IsErrorWith(StatusCode::kInvalid, "unexpected text"));
  EXPECT_THAT(ParseTimestamp("yesterday", TimeUnit::kSecond),
              IsErrorWith(StatusCode::kInvalid, "not a valid timestamp"));
  // Every unit round-trips through its own text form, before and after the epoch.
  for (TimeUnit unit :
       {TimeUnit::kSecond, TimeUnit::kMilli, TimeUnit::kMicro, TimeUnit::kNano}) {
    for (int64_t v : {int64_t{0}, int64_t{-1}, int64_t{1}, int64_t{-86'400'000'123},
                      int64_t{1'700'000'000'123'456}}) {
      for (const char* tz : {"", "UTC", "+05:45", "-03:00", "Asia/Tokyo"}) {
        const std::string text = FormatIsoTimestamp(v, unit, tz);
        auto back = ParseTimestamp(text, unit);
        ASSERT_TRUE(back.ok()) << text << back.status().ToString();
        EXPECT_EQ(*back, v) << text;
      }
    }
  }
}

TEST(Integers, ExactAtTheLimits) {
  EXPECT_EQ(*ParseInteger<int64_t>("-9223372036854775808"),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(*ParseInteger<int64_t>("9223372036854775807"),
            std::numeric_limits<int64_t>::max());
  EXPECT_EQ(*ParseInteger<uint64_t>("18446744073709551615"),
            std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(*ParseInteger<int8_t>("-128"), -128);
  EXPECT_EQ(*ParseInteger<uint8_t>("+255"), 255);
  EXPECT_EQ(*ParseInteger<uint32_t>("-0"), 0u);
  EXPECT_THAT(ParseInteger<int64_t>("9223372036854775808"),
              IsErrorWith(StatusCode::kInvalid, "out of range for int64"));
  EXPECT_THAT(ParseInteger<uint64_t>("18446744073709551616"),
              IsErrorWith(StatusCode::kInvalid, "out of range for uint64"));
  EXPECT_THAT(ParseInteger<int8_t>("128"), IsErrorWith(StatusCode::kInvalid, "int8"));
  EXPECT_THAT(ParseInteger<uint16_t>("-1"), IsErrorWith(StatusCode::kInvalid, "uint16"));
  EXPECT_THAT(ParseInteger<int32_t>("1.0"),
              IsErrorWith(StatusCode::kInvalid, "not a valid"));
  EXPECT_THAT(ParseInteger<int32_t>(""),
              IsErrorWith(StatusCode::kInvalid, "not a valid"));
  EXPECT_THAT(ParseInteger<int32_t>("1e3"),
              IsErrorWith(StatusCode::kInvalid, "not a valid"));
}

TEST(FloatsParse, SpecialsRangesAndSyntax) {
  EXPECT_TRUE(std::isnan(*ParseDouble("NaN")));
  EXPECT_EQ(*ParseDouble("Infinity"), std::numeric_limits<double>::infinity());
  EXPECT_EQ(*ParseDouble("-Infinity"), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(*ParseDouble("-inf"), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(*ParseDouble("+1.5e3"), 1500.0);
  EXPECT_EQ(*ParseFloat("0.1"), 0.1f);
  EXPECT_EQ(*ParseDouble("1e-400"), 0.0);  // underflow rounds to zero
  EXPECT_THAT(ParseDouble("1e400"), IsErrorWith(StatusCode::kInvalid, "out of range"));
  EXPECT_THAT(ParseFloat("1e39"),
              IsErrorWith(StatusCode::kInvalid, "out of range for float32"));
  EXPECT_THAT(ParseHalf("65520"),
              IsErrorWith(StatusCode::kInvalid, "out of range for float16"));
  EXPECT_EQ(*ParseHalf("65519"), 0x7BFF);
  EXPECT_THAT(ParseDouble("0x10"),
              IsErrorWith(StatusCode::kInvalid, "not a valid float64"));
  EXPECT_THAT(ParseDouble("1.5abc"), IsErrorWith(StatusCode::kInvalid, "not a valid"));
  EXPECT_THAT(ParseDouble("e5"), IsErrorWith(StatusCode::kInvalid, "not a valid"));
}

TEST(Base64, EncodeDecode) {
  EXPECT_EQ(Base64Encode(""), "");
  EXPECT_EQ(Base64Encode("f"), "Zg==");
  EXPECT_EQ(Base64Encode("fo"), "Zm8=");
  EXPECT_EQ(Base64Encode("foo"), "Zm9v");
  EXPECT_EQ(Base64Encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(Base64Encode(std::string("\x00\xff\xfe", 3)), "AP/+");
  EXPECT_EQ(*Base64Decode("Zm9vYmE="), "fooba");
  EXPECT_EQ(*Base64Decode("Zm9vYmE"), "fooba");  // padding optional
  EXPECT_EQ(*Base64Decode("AP/+"), std::string("\x00\xff\xfe", 3));
  EXPECT_THAT(Base64Decode("Zm9v!"), IsErrorWith(StatusCode::kInvalid, "base64"));
  EXPECT_THAT(Base64Decode("Z"), IsErrorWith(StatusCode::kInvalid, "base64"));
  EXPECT_THAT(Base64Decode("Zm 9v"), IsErrorWith(StatusCode::kInvalid, "base64"));
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  EXPECT_EQ(*Base64Decode(Base64Encode(all)), all);
}

}  // namespace
}  // namespace lance::cli
