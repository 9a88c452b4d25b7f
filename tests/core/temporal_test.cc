// SPDX-License-Identifier: Apache-2.0
#include "lance/core/temporal.h"

#include <gtest/gtest.h>

namespace lance {
namespace {

TEST(Calendar, RoundTripsAcrossEras) {
  EXPECT_EQ(DaysFromCivil(1970, 1, 1), 0);
  EXPECT_EQ(DaysFromCivil(2000, 3, 1), 11017);
  EXPECT_EQ(DaysFromCivil(1969, 12, 31), -1);
  EXPECT_EQ(DaysFromCivil(0, 3, 1), -719468);
  for (int64_t d = -800'000; d <= 3'000'000; d += 97) {
    const CivilDate c = CivilFromDays(d);
    ASSERT_EQ(DaysFromCivil(c.year, c.month, c.day), d) << d;
    ASSERT_GE(c.day, 1);
    ASSERT_LE(c.day, DaysInMonth(c.year, c.month));
  }
  EXPECT_TRUE(IsLeapYear(2000));
  EXPECT_FALSE(IsLeapYear(1900));
  EXPECT_EQ(DaysInMonth(2024, 2), 29);
  EXPECT_EQ(DaysInMonth(2023, 2), 28);
  EXPECT_EQ(FloorDiv(-1, 86400), -1);
  EXPECT_EQ(FloorDiv(86400, 86400), 1);
}

TEST(IsoFormat, DatesClockFractionsOffsets) {
  EXPECT_EQ(FormatIsoDate(0), "1970-01-01");
  EXPECT_EQ(FormatIsoDate(DaysFromCivil(-44, 3, 15)), "-0044-03-15");
  EXPECT_EQ(FormatIsoDate(DaysFromCivil(10000, 1, 1)), "+10000-01-01");
  EXPECT_EQ(FormatIsoDate(DaysFromCivil(5, 6, 7)), "0005-06-07");
  std::string s;
  AppendClock(3 * 3600 + 4 * 60 + 5, &s);
  AppendFraction(42, 6, &s);
  EXPECT_EQ(s, "03:04:05.000042");
  s.clear();
  AppendFraction(7, 0, &s);
  AppendTrimmedNanos(0, &s);
  EXPECT_EQ(s, "");
  AppendTrimmedNanos(120'000'000, &s);
  EXPECT_EQ(s, ".12");
  EXPECT_EQ(FormatUtcOffset(0), "Z");
  EXPECT_EQ(FormatUtcOffset(-8 * 3600), "-08:00");
  EXPECT_EQ(FormatUtcOffset(5 * 3600 + 30 * 60), "+05:30");
  EXPECT_EQ(FormatUtcOffset(3661), "+01:01:01");
}

TEST(IsoParse, Offsets) {
  EXPECT_EQ(ParseUtcOffset("Z"), 0);
  EXPECT_EQ(ParseUtcOffset("+08"), 8 * 3600);
  EXPECT_EQ(ParseUtcOffset("-0530"), -(5 * 3600 + 30 * 60));
  EXPECT_EQ(ParseUtcOffset("+05:30:15"), 5 * 3600 + 30 * 60 + 15);
  EXPECT_FALSE(ParseUtcOffset("+24:00"));
  EXPECT_FALSE(ParseUtcOffset("+8"));
  EXPECT_FALSE(ParseUtcOffset("08:00"));
  EXPECT_FALSE(ParseUtcOffset(""));
}

TEST(IsoParse, FractionsOfAnyPrecision) {
  EXPECT_EQ(FractionTicks("5", 3), 500);
  EXPECT_EQ(FractionTicks("123456789", 9), 123456789);
  EXPECT_EQ(FractionTicks("1230000000000", 3), 123);
  EXPECT_FALSE(FractionTicks("1234", 3));
  EXPECT_EQ(FractionTicks("", 6), 0);
  EXPECT_EQ(FractionTicks("9", 0), std::nullopt);
  EXPECT_EQ(FractionTicks("000", 0), 0);
}

TEST(IsoParse, DateTimes) {
  auto t = ParseIsoDateTime("2024-02-29T23:59:58.25+01:00");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->days, DaysFromCivil(2024, 2, 29));
  EXPECT_EQ(t->second_of_day, 86398);
  EXPECT_EQ(t->fraction, "25");
  EXPECT_TRUE(t->has_time);
  EXPECT_EQ(t->offset_seconds, 3600);
  EXPECT_EQ(t->Ticks(3),
            (static_cast<__int128>(t->days) * 86400 + 86398 - 3600) * 1000 + 250);

  auto naive = ParseIsoDateTime("1970-01-01 00:00");
  ASSERT_TRUE(naive.ok());
  EXPECT_FALSE(naive->offset_seconds);
  EXPECT_EQ(naive->Ticks(9), 0);

  auto wide = ParseIsoDateTime("-0044-3-5");
  ASSERT_TRUE(wide.ok());
  EXPECT_EQ(wide->days, DaysFromCivil(-44, 3, 5));
  EXPECT_FALSE(wide->has_time);

  EXPECT_EQ(ParseIsoDateTime("2023-02-29").status().message(), "day out of range");
  EXPECT_EQ(ParseIsoDateTime("2023-13-01").status().message(), "month out of range");
  EXPECT_EQ(ParseIsoDateTime("23-01-01").status().message(), "expected YYYY-MM-DD");
  EXPECT_EQ(ParseIsoDateTime("2023-01-01T24:00").status().message(),
            "time of day out of range");
  EXPECT_EQ(ParseIsoDateTime("2023-01-01T10:00:00.").status().message(),
            "expected digits after the decimal point");
  EXPECT_FALSE(ParseIsoDateTime("2023-01-01T10:00 UTC").ok());
  EXPECT_FALSE(ParseIsoDateTime("2023-01-011").ok());
}

TEST(IsoParse, TimeOfDay) {
  std::string_view fraction;
  auto t = ParseIsoTimeOfDay("12:34:56,789", &fraction);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(*t, 12 * 3600 + 34 * 60 + 56);
  EXPECT_EQ(fraction, "789");
  EXPECT_FALSE(ParseIsoTimeOfDay("12:34x", &fraction).ok());
  EXPECT_FALSE(ParseIsoTimeOfDay("1:00", &fraction).ok());
}

}  // namespace
}  // namespace lance

namespace lance {
namespace {

TEST(IsoFormat, TimestampsInTheColumnZone) {
  EXPECT_EQ(FormatIsoTimestamp(0, TimeUnit::kSecond, ""), "1970-01-01T00:00:00");
  EXPECT_EQ(FormatIsoTimestamp(-1, TimeUnit::kMilli, "UTC"), "1969-12-31T23:59:59.999Z");
  // Etc/GMT+8 is UTC-08:00 (POSIX sign): 08:00 UTC is midnight there.
  EXPECT_EQ(FormatIsoTimestamp(8 * 3600 * 1'000'000LL, TimeUnit::kMicro, "Etc/GMT+8"),
            "1970-01-01T00:00:00.000000-08:00");
  EXPECT_EQ(FormatIsoTimestamp(0, TimeUnit::kSecond, "+05:30"),
            "1970-01-01T05:30:00+05:30");
  // A zone with rules: the UTC instant, marked Z.
  EXPECT_EQ(FormatIsoTimestamp(0, TimeUnit::kSecond, "America/New_York"),
            "1970-01-01T00:00:00Z");
  EXPECT_EQ(FormatIsoTimestamp(INT64_MAX, TimeUnit::kSecond, "+14:00").substr(0, 1), "+");
  std::string s;
  AppendIsoTimestamp(-1, TimeUnit::kNano, "", ' ', &s);
  EXPECT_EQ(s, "1969-12-31 23:59:59.999999999");
  EXPECT_EQ(TimeUnitDigits(TimeUnit::kMicro), 6);
  s.clear();
  AppendIsoTimeOfDay(3'723'004, TimeUnit::kMilli, &s);
  EXPECT_EQ(s, "01:02:03.004");
  s.clear();
  AppendIsoTimeOfDay(-5, TimeUnit::kSecond, &s);
  EXPECT_EQ(s, "-5");
}

}  // namespace
}  // namespace lance
