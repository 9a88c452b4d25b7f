// SPDX-License-Identifier: Apache-2.0
#include "lance/core/temporal.h"

#include <string>

#include "lance/core/time_zone.h"
#include "lance/macros.h"

namespace lance {

namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Reads between min and max digits at text[*pos]; advances pos.
bool ReadDigits(std::string_view text, size_t* pos, int min, int max, int64_t* out) {
  int64_t value = 0;
  int count = 0;
  while (*pos < text.size() && count < max && IsDigit(text[*pos])) {
    value = value * 10 + (text[*pos] - '0');
    ++*pos;
    ++count;
  }
  *out = value;
  return count >= min;
}

// At most 20 bytes of `s` for an error message.
std::string Shorten(std::string_view s) {
  return s.size() <= 20 ? std::string(s) : std::string(s.substr(0, 20)) + "...";
}

bool Expect(std::string_view text, size_t* pos, char c) {
  if (*pos < text.size() && text[*pos] == c) {
    ++*pos;
    return true;
  }
  return false;
}

void AppendPadded(int64_t value, int width, std::string* out) {
  char buf[24];
  int n = 0;
  do {
    buf[n++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value > 0);
  for (int k = n; k < width; ++k) out->push_back('0');
  while (n > 0) out->push_back(buf[--n]);
}

// Parses HH:MM[:SS[(.|,)digits]] at text[*pos]; leaves pos after it.
Status ParseClock(std::string_view text, size_t* pos, int64_t* second_of_day,
                  std::string_view* fraction) {
  int64_t h = 0, m = 0, s = 0;
  if (!ReadDigits(text, pos, 2, 2, &h) || !Expect(text, pos, ':') ||
      !ReadDigits(text, pos, 2, 2, &m)) {
    return Status::Invalid("expected HH:MM");
  }
  *fraction = {};
  if (Expect(text, pos, ':')) {
    if (!ReadDigits(text, pos, 2, 2, &s)) return Status::Invalid("expected HH:MM:SS");
    if (*pos < text.size() && (text[*pos] == '.' || text[*pos] == ',')) {
      const size_t start = ++*pos;
      while (*pos < text.size() && IsDigit(text[*pos])) ++*pos;
      if (*pos == start)
        return Status::Invalid("expected digits after the decimal point");
      *fraction = text.substr(start, *pos - start);
    }
  }
  if (h > 23 || m > 59 || s > 59) return Status::Invalid("time of day out of range");
  *second_of_day = (h * 60 + m) * 60 + s;
  return Status::OK();
}

}  // namespace

int64_t DaysFromCivil(int64_t year, int month, int day) {
  // Eras of 400 years (146097 days) counted from 0000-03-01, so that the leap day is the
  // last day of a year.
  year -= month <= 2 ? 1 : 0;
  const int64_t era = (year >= 0 ? year : year - 399) / 400;
  const int64_t year_of_era = year - era * 400;                       // [0, 399]
  const int64_t month_index = (month + 9) % 12;                       // March = 0
  const int64_t day_of_year = (153 * month_index + 2) / 5 + day - 1;  // [0, 365]
  const int64_t day_of_era =
      year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + day_of_era - 719468;  // 719468: 0000-03-01 to 1970-01-01
}

CivilDate CivilFromDays(int64_t days) {
  days += 719468;
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const int64_t day_of_era = days - era * 146097;
  const int64_t year_of_era =
      (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
  const int64_t day_of_year =
      day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  const int64_t month_index = (5 * day_of_year + 2) / 153;
  const int day = static_cast<int>(day_of_year - (153 * month_index + 2) / 5 + 1);
  const int month =
      static_cast<int>(month_index < 10 ? month_index + 3 : month_index - 9);
  return {year_of_era + era * 400 + (month <= 2 ? 1 : 0), month, day};
}

bool IsLeapYear(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int DaysInMonth(int64_t year, int month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && IsLeapYear(year) ? 29 : kDays[month - 1];
}

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if (a % b != 0 && a < 0) --q;
  return q;
}

void AppendIsoDate(int64_t days, std::string* out) {
  const CivilDate c = CivilFromDays(days);
  if (c.year < 0) {
    out->push_back('-');
    AppendPadded(-c.year, 4, out);
  } else {
    if (c.year > 9999) out->push_back('+');
    AppendPadded(c.year, 4, out);
  }
  out->push_back('-');
  AppendPadded(c.month, 2, out);
  out->push_back('-');
  AppendPadded(c.day, 2, out);
}

std::string FormatIsoDate(int64_t days) {
  std::string out;
  AppendIsoDate(days, &out);
  return out;
}

void AppendClock(int64_t second_of_day, std::string* out) {
  AppendPadded(second_of_day / 3600, 2, out);
  out->push_back(':');
  AppendPadded(second_of_day / 60 % 60, 2, out);
  out->push_back(':');
  AppendPadded(second_of_day % 60, 2, out);
}

void AppendFraction(int64_t ticks, int digits, std::string* out) {
  if (digits <= 0) return;
  out->push_back('.');
  AppendPadded(ticks, digits, out);
}

void AppendTrimmedNanos(int64_t nanos, std::string* out) {
  if (nanos == 0) return;
  std::string digits;
  AppendPadded(nanos, 9, &digits);
  while (digits.back() == '0') digits.pop_back();
  out->push_back('.');
  out->append(digits);
}

std::string FormatUtcOffset(int32_t seconds_east) {
  if (seconds_east == 0) return "Z";
  std::string out(1, seconds_east < 0 ? '-' : '+');
  const int64_t a = seconds_east < 0 ? -static_cast<int64_t>(seconds_east) : seconds_east;
  AppendPadded(a / 3600, 2, &out);
  out.push_back(':');
  AppendPadded(a / 60 % 60, 2, &out);
  if (a % 60 != 0) {
    out.push_back(':');
    AppendPadded(a % 60, 2, &out);
  }
  return out;
}

int TimeUnitDigits(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond:
      return 0;
    case TimeUnit::kMilli:
      return 3;
    case TimeUnit::kMicro:
      return 6;
    case TimeUnit::kNano:
      return 9;
  }
  return 0;
}

void AppendIsoTimestamp(int64_t value, TimeUnit unit, std::string_view tz, char separator,
                        std::string* out) {
  const int64_t per_second = TicksPerSecond(unit);
  const int64_t seconds = FloorDiv(value, per_second);
  int64_t fraction =
      value % per_second;  // seconds * per_second may overflow; this cannot
  if (fraction < 0) fraction += per_second;
  std::string suffix;
  __int128 local = seconds;  // second-unit values near INT64_MAX plus an offset
  if (!tz.empty()) {
    const std::optional<int32_t> offset = FixedZoneOffset(tz);
    local += offset.value_or(0);
    suffix = FormatUtcOffset(offset.value_or(0));
  }
  __int128 days = local / kSecondsPerDay;
  if (local % kSecondsPerDay < 0) --days;
  AppendIsoDate(static_cast<int64_t>(days), out);
  out->push_back(separator);
  AppendClock(static_cast<int64_t>(local - days * kSecondsPerDay), out);
  AppendFraction(fraction, TimeUnitDigits(unit), out);
  out->append(suffix);
}

std::string FormatIsoTimestamp(int64_t value, TimeUnit unit, std::string_view tz) {
  std::string out;
  AppendIsoTimestamp(value, unit, tz, 'T', &out);
  return out;
}

void AppendIsoTimeOfDay(int64_t value, TimeUnit unit, std::string* out) {
  const int64_t per_second = TicksPerSecond(unit);
  if (value < 0 || value >= kSecondsPerDay * per_second) {
    out->append(std::to_string(value));
    return;
  }
  AppendClock(value / per_second, out);
  AppendFraction(value % per_second, TimeUnitDigits(unit), out);
}

std::optional<int32_t> ParseUtcOffset(std::string_view text) {
  if (text.size() == 1 && (text[0] == 'Z' || text[0] == 'z')) return 0;
  if (text.empty() || (text[0] != '+' && text[0] != '-')) return std::nullopt;
  size_t p = 1;
  int64_t h = 0, m = 0, s = 0;
  if (!ReadDigits(text, &p, 2, 2, &h)) return std::nullopt;
  if (p < text.size()) {
    Expect(text, &p, ':');
    if (!ReadDigits(text, &p, 2, 2, &m)) return std::nullopt;
    if (p < text.size()) {
      Expect(text, &p, ':');
      if (!ReadDigits(text, &p, 2, 2, &s)) return std::nullopt;
    }
  }
  if (p != text.size() || h > 23 || m > 59 || s > 59) return std::nullopt;
  const auto seconds = static_cast<int32_t>((h * 60 + m) * 60 + s);
  return text[0] == '-' ? -seconds : seconds;
}

std::optional<int64_t> FractionTicks(std::string_view fraction, int digits) {
  int64_t ticks = 0;
  for (size_t k = 0; k < fraction.size(); ++k) {
    const int digit = fraction[k] - '0';
    if (static_cast<int>(k) < digits) {
      ticks = ticks * 10 + digit;
    } else if (digit != 0) {
      return std::nullopt;
    }
  }
  for (int k = static_cast<int>(fraction.size()); k < digits; ++k) ticks *= 10;
  return ticks;
}

std::optional<__int128> IsoDateTime::Ticks(int digits) const {
  const auto fraction_ticks = FractionTicks(fraction, digits);
  if (!fraction_ticks) return std::nullopt;
  __int128 per_second = 1;
  for (int k = 0; k < digits; ++k) per_second *= 10;
  const __int128 seconds = static_cast<__int128>(days) * kSecondsPerDay + second_of_day -
                           offset_seconds.value_or(0);
  return seconds * per_second + *fraction_ticks;
}

Result<IsoDateTime> ParseIsoDateTime(std::string_view text) {
  IsoDateTime out;
  size_t p = 0;
  const bool negative = !text.empty() && text[0] == '-';
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) ++p;
  int64_t year = 0, month = 0, day = 0;
  const size_t year_start = p;
  if (!ReadDigits(text, &p, 4, 9, &year) || p - year_start < 4 ||
      !Expect(text, &p, '-') || !ReadDigits(text, &p, 1, 2, &month) ||
      !Expect(text, &p, '-') || !ReadDigits(text, &p, 1, 2, &day)) {
    return Status::Invalid("expected YYYY-MM-DD");
  }
  if (p < text.size() && IsDigit(text[p])) return Status::Invalid("expected YYYY-MM-DD");
  if (negative) year = -year;
  if (month < 1 || month > 12) return Status::Invalid("month out of range");
  if (day < 1 || day > DaysInMonth(year, static_cast<int>(month))) {
    return Status::Invalid("day out of range");
  }
  out.days = DaysFromCivil(year, static_cast<int>(month), static_cast<int>(day));
  if (p < text.size() && (text[p] == 'T' || text[p] == 't' || text[p] == ' ')) {
    ++p;
    LANCE_RETURN_NOT_OK(ParseClock(text, &p, &out.second_of_day, &out.fraction));
    out.has_time = true;
  }
  if (p < text.size()) {
    out.offset_seconds = ParseUtcOffset(text.substr(p));
    if (!out.offset_seconds) {
      return Status::Invalid("unexpected text '", Shorten(text.substr(p)),
                             "' after the date");
    }
  }
  return out;
}

Result<int64_t> ParseIsoTimeOfDay(std::string_view text, std::string_view* fraction) {
  size_t p = 0;
  int64_t second_of_day = 0;
  LANCE_RETURN_NOT_OK(ParseClock(text, &p, &second_of_day, fraction));
  if (p != text.size()) {
    return Status::Invalid("unexpected text '", Shorten(text.substr(p)),
                           "' after the time");
  }
  return second_of_day;
}

}  // namespace lance
