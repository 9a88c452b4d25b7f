// SPDX-License-Identifier: Apache-2.0
/// \file temporal.h
/// \brief The proleptic Gregorian calendar and ISO-8601 text for dates, times of day and
/// timestamps: the one implementation behind filter literals, the CLI's import and scan
/// output and the pretty printer.
///
/// The calendar is computed here rather than with std::chrono::year_month_day because
/// std::chrono::year stops at +-32767, while date32 / timestamp values reach far beyond.

#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "lance/core/type.h"
#include "lance/result.h"

namespace lance {

inline constexpr int64_t kSecondsPerDay = 86'400;
inline constexpr int64_t kNanosPerSecond = 1'000'000'000;
inline constexpr int64_t kNanosPerDay = kSecondsPerDay * kNanosPerSecond;

struct CivilDate {
  int64_t year;
  int month;  // 1..12
  int day;    // 1..31
};

/// \brief Days since 1970-01-01 of a proleptic Gregorian date (no range checks on year).
int64_t DaysFromCivil(int64_t year, int month, int day);
/// \brief The date `days` after 1970-01-01.
CivilDate CivilFromDays(int64_t days);
bool IsLeapYear(int64_t year);
/// \brief Days in `month` (1..12) of `year`.
int DaysInMonth(int64_t year, int month);

/// \brief a / b rounded toward negative infinity (b > 0).
int64_t FloorDiv(int64_t a, int64_t b);

// --- formatting ------------------------------------------------------------------------

/// \brief Appends YYYY-MM-DD. Years outside 0000..9999 get a sign and at least four
/// digits ("-0044-03-15", "+10000-01-01").
void AppendIsoDate(int64_t days, std::string* out);
std::string FormatIsoDate(int64_t days);
/// \brief Appends HH:MM:SS for a second of the day in [0, 86400).
void AppendClock(int64_t second_of_day, std::string* out);
/// \brief Appends '.' and `ticks` as exactly `digits` digits; nothing when digits is 0.
void AppendFraction(int64_t ticks, int digits, std::string* out);
/// \brief Appends '.' and the nanoseconds with trailing zeros dropped; nothing for 0.
void AppendTrimmedNanos(int64_t nanos, std::string* out);
/// \brief "Z" for 0, otherwise +HH:MM (and :SS when the offset has seconds).
std::string FormatUtcOffset(int32_t seconds_east);

/// \brief Fraction digits of a time unit: s 0, ms 3, us 6, ns 9.
int TimeUnitDigits(TimeUnit unit);

/// \brief Appends a timestamp of `unit` ticks since the epoch as ISO-8601: date,
/// `separator`, HH:MM:SS and the unit's fraction digits, then by the column's zone
/// `tz` (time_zone.h): "" (no zone) nothing; a fixed zone (UTC, +05:30, Etc/GMT+8) the
/// wall-clock time there and its offset ("Z" for UTC); a zone with rules, which needs a
/// tz database we do not have, the UTC instant with "Z" (still the right instant).
void AppendIsoTimestamp(int64_t value, TimeUnit unit, std::string_view tz, char separator,
                        std::string* out);
/// \brief AppendIsoTimestamp with 'T'.
std::string FormatIsoTimestamp(int64_t value, TimeUnit unit, std::string_view tz);

/// \brief A time of day (time32 / time64 ticks of `unit` since midnight) as HH:MM:SS plus
/// the unit's fraction digits; a value outside a day (invalid in Arrow) as its integer.
void AppendIsoTimeOfDay(int64_t value, TimeUnit unit, std::string* out);

// --- parsing ---------------------------------------------------------------------------

/// \brief "Z" / "z", or +HH, +HHMM, +HH:MM, +HHMMSS, +HH:MM:SS (also with '-'), covering
/// all of `text`: seconds east of UTC. nullopt otherwise (hours above 23 included).
std::optional<int32_t> ParseUtcOffset(std::string_view text);

/// \brief The parts of an ISO-8601 date-time, not yet combined (see IsoDateTime::Ticks).
struct IsoDateTime {
  int64_t days = 0;           // the date, days since 1970-01-01
  int64_t second_of_day = 0;  // 0 without a time part
  std::string_view fraction;  // the digits after '.' or ',' (a view into the text)
  bool has_time = false;
  std::optional<int32_t> offset_seconds;  // set when the text ends in Z or an offset

  /// \brief Ticks of 10^-digits seconds since the epoch, as UTC when the text had an
  /// offset and as wall-clock time otherwise. nullopt when the fraction has a non-zero
  /// digit finer than `digits`.
  std::optional<__int128> Ticks(int digits) const;
};

/// \brief The fraction digits as ticks of 10^-digits seconds: "5" at 3 digits is 500;
/// nullopt when a non-zero digit is finer than `digits` ("1234" at 3 digits).
std::optional<int64_t> FractionTicks(std::string_view fraction, int digits);

/// \brief Parses YYYY-MM-DD, optionally followed by 'T', 't' or ' ' and
/// HH:MM[:SS[(.|,)digits]], optionally followed by a UTC offset (ParseUtcOffset). The
/// year has 4 to 9 digits and an optional sign; month and day 1 or 2 digits. Errors are
/// Invalid with a short reason ("expected YYYY-MM-DD", "day out of range", ...), meant to
/// be wrapped by the caller with the text and the type it wanted.
Result<IsoDateTime> ParseIsoDateTime(std::string_view text);

/// \brief Parses HH:MM[:SS[(.|,)digits]] covering all of `text` (fraction in `fraction`).
Result<int64_t> ParseIsoTimeOfDay(std::string_view text, std::string_view* fraction);

}  // namespace lance
