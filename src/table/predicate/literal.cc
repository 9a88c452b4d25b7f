// SPDX-License-Identifier: Apache-2.0
//
// Operators and literals of the predicate language: spelling, rounding of numbers to a
// column's float width, and the temporal literal grammar.

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#include "lance/macros.h"
#include "table/predicate/kernel_util.h"

namespace lance::table::predicate_internal {

// ---- float16
// ----------------------------------------------------------------------------

float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1Fu;
  const uint32_t mant = h & 0x3FFu;
  uint32_t bits;
  if (exp == 0x1F) {
    bits = sign | 0x7F800000u | (mant << 13);
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  } else {
    // Zero or subnormal: mant * 2^-24 is exact in float.
    const float magnitude = static_cast<float>(mant) * 0x1p-24f;
    return sign ? -magnitude : magnitude;
  }
  return std::bit_cast<float>(bits);
}

// Round-to-nearest-even conversion of a double to the nearest float16, returned widened
// to float: the value a float16 column would hold.
float RoundToHalf(double d) {
  // A NaN keeps its sign: Lance orders NaNs by it.
  if (std::isnan(d)) return static_cast<float>(d);
  const bool negative = std::signbit(d);
  const double a = std::fabs(d);
  double r;
  if (a >= 65520.0) {  // halfway between 65504 (max half) and 65536 rounds to infinity
    r = std::numeric_limits<double>::infinity();
  } else if (a < 0x1p-14) {
    // Subnormal range: multiples of 2^-24.
    r = std::nearbyint(a * 0x1p24) * 0x1p-24;
  } else {
    int e;
    std::frexp(a, &e);                           // a = f * 2^e, f in [0.5, 1)
    const double ulp = std::ldexp(1.0, e - 11);  // 10 mantissa bits below the leading one
    r = std::nearbyint(a / ulp) * ulp;
  }
  return static_cast<float>(negative ? -r : r);
}

// Round-to-nearest conversion to float that is defined for every finite double (a plain
// cast of an out-of-range value is undefined behaviour).
float RoundToFloat(double d) {
  constexpr double kMax = std::numeric_limits<float>::max();
  constexpr double kOverflow =
      0x1.ffffffp+127;  // FLT_MAX + half an ulp: ties to even -> inf
  // The conversion of a NaN is defined and keeps its sign (Lance orders NaNs by it).
  if (std::isnan(d)) return static_cast<float>(d);
  if (d >= kOverflow) return std::numeric_limits<float>::infinity();
  if (d <= -kOverflow) return -std::numeric_limits<float>::infinity();
  if (d > kMax) return std::numeric_limits<float>::max();
  if (d < -kMax) return -std::numeric_limits<float>::max();
  return static_cast<float>(d);
}

uint16_t HalfBits(double d) {
  const float r = RoundToHalf(d);
  const uint16_t sign = std::signbit(r) ? 0x8000u : 0;
  const float a = std::fabs(r);
  if (std::isnan(r)) return static_cast<uint16_t>(sign | 0x7E00u);
  if (std::isinf(r)) return static_cast<uint16_t>(sign | 0x7C00u);
  if (a < 0x1p-14f) {
    // Zero or subnormal: a multiple of 2^-24, exactly.
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(a * 0x1p24f));
  }
  int e;
  const float m = std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1), exact in 11 bits
  const auto mantissa = static_cast<uint16_t>((m * 2.0f - 1.0f) * 1024.0f);
  return static_cast<uint16_t>(sign | ((e - 1 + 15) << 10) | mantissa);
}

// ---- public helpers
// ----------------------------------------------------------------------

std::string_view CmpOpSymbol(CmpOp op) {
  switch (op) {
    case CmpOp::kEq:
      return "=";
    case CmpOp::kNe:
      return "!=";
    case CmpOp::kLt:
      return "<";
    case CmpOp::kLe:
      return "<=";
    case CmpOp::kGt:
      return ">";
    case CmpOp::kGe:
      return ">=";
  }
  return "?";
}

CmpOp SwapSides(CmpOp op) {
  switch (op) {
    case CmpOp::kLt:
      return CmpOp::kGt;
    case CmpOp::kLe:
      return CmpOp::kGe;
    case CmpOp::kGt:
      return CmpOp::kLt;
    case CmpOp::kGe:
      return CmpOp::kLe;
    default:
      return op;
  }
}

Literal Literal::Bool(bool v) {
  Literal l;
  l.kind = Kind::kBool;
  l.bool_value = v;
  return l;
}
Literal Literal::Int(int128 v) {
  Literal l;
  l.kind = Kind::kInt;
  l.int_value = v;
  return l;
}
Literal Literal::Float(double v) {
  Literal l;
  l.kind = Kind::kFloat;
  l.float_value = v;
  return l;
}
Literal Literal::String(std::string v) {
  Literal l;
  l.kind = Kind::kString;
  l.string_value = std::move(v);
  return l;
}
Literal Literal::Date(int32_t days) {
  Literal l;
  l.kind = Kind::kDate;
  l.days = days;
  return l;
}
Literal Literal::Timestamp(int128 nanos, bool has_zone) {
  Literal l;
  l.kind = Kind::kTimestamp;
  l.nanos = nanos;
  l.has_zone = has_zone;
  return l;
}

std::string_view Literal::KindName() const {
  switch (kind) {
    case Kind::kNull:
      return "null";
    case Kind::kBool:
      return "boolean";
    case Kind::kInt:
      return "integer";
    case Kind::kFloat:
      return "float";
    case Kind::kString:
      return "string";
    case Kind::kDate:
      return "date";
    case Kind::kTimestamp:
      return "timestamp";
  }
  return "?";
}

std::string Literal::ToString() const {
  switch (kind) {
    case Kind::kNull:
      return "NULL";
    case Kind::kBool:
      return bool_value ? "TRUE" : "FALSE";
    case Kind::kInt:
      return Int128ToString(int_value);
    case Kind::kFloat: {
      char buf[64];
      auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), float_value);
      std::string s(buf, ec == std::errc() ? end : buf);
      // Keep it a float literal when read back.
      if (s.find_first_of(".eE") == std::string::npos) s += ".0";
      return s;
    }
    case Kind::kString: {
      std::string out = "'";
      for (char c : string_value) {
        if (c == '\'') out += '\'';
        out += c;
      }
      return out + "'";
    }
    case Kind::kDate:
      return "DATE '" + FormatDate(days) + "'";
    case Kind::kTimestamp:
      // An instant keeps a zone so that it reads back the same on zoned columns.
      return "TIMESTAMP '" + FormatTimestamp(nanos) + (has_zone ? "Z'" : "'");
  }
  return "?";
}

// ---- dates and timestamps
// ----------------------------------------------------------------

// Days since 1970-01-01 of a proleptic Gregorian date. Works on 400-year eras (146097
// days each) counted from 0000-03-01 so that the leap day is the last day of a year.
int64_t DaysFromCivil(int64_t year, int month, int day) {
  year -= month <= 2 ? 1 : 0;
  const int64_t era = (year >= 0 ? year : year - 399) / 400;
  const int64_t year_of_era = year - era * 400;                       // [0, 399]
  const int64_t month_index = (month + 9) % 12;                       // March = 0
  const int64_t day_of_year = (153 * month_index + 2) / 5 + day - 1;  // [0, 365]
  const int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 +
                             day_of_year;  // [0, 146096]
  return era * 146097 + day_of_era -
         719468;  // 719468: days from 0000-03-01 to 1970-01-01
}

namespace {

struct Civil {
  int64_t year;
  int month;
  int day;
};

Civil CivilFromDays(int64_t days) {
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

bool IsLeap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int DaysInMonth(int64_t year, int month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && IsLeap(year) ? 29 : kDays[month - 1];
}

// Reads between min and max digits at text[*pos]; advances pos.
bool ReadDigits(std::string_view text, size_t* pos, int min, int max, int64_t* out) {
  int64_t value = 0;
  int count = 0;
  while (*pos < text.size() && count < max && text[*pos] >= '0' && text[*pos] <= '9') {
    value = value * 10 + (text[*pos] - '0');
    ++*pos;
    ++count;
  }
  *out = value;
  return count >= min;
}

bool Expect(std::string_view text, size_t* pos, char c) {
  if (*pos < text.size() && text[*pos] == c) {
    ++*pos;
    return true;
  }
  return false;
}

// Parses the date part; leaves pos after it.
bool ParseDatePart(std::string_view text, size_t* pos, int64_t* days) {
  int64_t year, month, day;
  if (!ReadDigits(text, pos, 4, 4, &year) || !Expect(text, pos, '-') ||
      !ReadDigits(text, pos, 1, 2, &month) || !Expect(text, pos, '-') ||
      !ReadDigits(text, pos, 1, 2, &day)) {
    return false;
  }
  if (month < 1 || month > 12 || day < 1 ||
      day > DaysInMonth(year, static_cast<int>(month))) {
    return false;
  }
  *days = DaysFromCivil(year, static_cast<int>(month), static_cast<int>(day));
  return true;
}

std::string Pad(int64_t v, int width) {
  std::string s = std::to_string(v);
  if (static_cast<int>(s.size()) < width) s.insert(0, width - s.size(), '0');
  return s;
}

}  // namespace

std::optional<int32_t> ParseDate(std::string_view text) {
  size_t pos = 0;
  int64_t days;
  if (!ParseDatePart(text, &pos, &days) || pos != text.size()) return std::nullopt;
  return static_cast<int32_t>(days);
}

std::optional<ParsedTimestamp> ParseTimestamp(std::string_view text) {
  size_t pos = 0;
  int64_t days;
  if (!ParseDatePart(text, &pos, &days)) return std::nullopt;
  int128 nanos = static_cast<int128>(days) * kNanosPerDay;
  bool has_zone = false;
  if (pos < text.size() && (text[pos] == 'T' || text[pos] == 't' || text[pos] == ' ')) {
    ++pos;
    int64_t hour, minute, second = 0;
    if (!ReadDigits(text, &pos, 2, 2, &hour) || !Expect(text, &pos, ':') ||
        !ReadDigits(text, &pos, 2, 2, &minute)) {
      return std::nullopt;
    }
    int64_t fraction = 0;
    if (Expect(text, &pos, ':')) {
      if (!ReadDigits(text, &pos, 2, 2, &second)) return std::nullopt;
      if (Expect(text, &pos, '.')) {
        const size_t start = pos;
        if (!ReadDigits(text, &pos, 1, 9, &fraction)) return std::nullopt;
        for (size_t d = pos - start; d < 9; ++d) fraction *= 10;
      }
    }
    if (hour > 23 || minute > 59 || second > 59) return std::nullopt;
    nanos += ((hour * 60 + minute) * 60 + second) * int128{1'000'000'000} + fraction;
    // A zone designator turns local time into UTC.
    if (pos < text.size()) {
      const char c = text[pos];
      if (c == 'Z' || c == 'z') {
        ++pos;
        has_zone = true;
      } else if (c == '+' || c == '-') {
        ++pos;
        int64_t oh, om = 0;
        if (!ReadDigits(text, &pos, 2, 2, &oh)) return std::nullopt;
        if (Expect(text, &pos, ':')) {
          if (!ReadDigits(text, &pos, 2, 2, &om)) return std::nullopt;
        } else if (pos < text.size()) {
          if (!ReadDigits(text, &pos, 2, 2, &om)) return std::nullopt;
        }
        if (oh > 23 || om > 59) return std::nullopt;
        const int128 offset = (oh * 60 + om) * int128{60'000'000'000};
        nanos += c == '+' ? -offset : offset;
        has_zone = true;
      }
    }
  }
  if (pos != text.size()) return std::nullopt;
  // Four-digit years keep |nanos| below 2^69: no overflow here.
  return ParsedTimestamp{nanos, has_zone};
}

std::string FormatDate(int64_t days) {
  const Civil c = CivilFromDays(days);
  return Pad(c.year, 4) + "-" + Pad(c.month, 2) + "-" + Pad(c.day, 2);
}

std::string FormatTimestamp(int128 nanos) {
  int64_t days = static_cast<int64_t>(nanos / kNanosPerDay);
  int64_t rem = static_cast<int64_t>(nanos % kNanosPerDay);
  if (rem < 0) {
    rem += kNanosPerDay;
    --days;
  }
  const int64_t secs = rem / 1'000'000'000;
  int64_t frac = rem % 1'000'000'000;
  std::string out = FormatDate(days) + " " + Pad(secs / 3600, 2) + ":" +
                    Pad(secs / 60 % 60, 2) + ":" + Pad(secs % 60, 2);
  if (frac != 0) {
    std::string digits = Pad(frac, 9);
    while (digits.back() == '0') digits.pop_back();
    out += "." + digits;
  }
  return out;
}

namespace {

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    auto lower = [](char c) {
      return c >= 'A' && c <= 'Z' ? static_cast<char>(c | 0x20) : c;
    };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

// +HH, +HHMM or +HH:MM (arrow's fixed-offset spellings) in seconds east of UTC.
std::optional<int64_t> ParseFixedOffset(std::string_view tz) {
  if (tz.empty() || (tz[0] != '+' && tz[0] != '-')) return std::nullopt;
  size_t pos = 1;
  int64_t hours, minutes = 0;
  if (!ReadDigits(tz, &pos, 2, 2, &hours)) return std::nullopt;
  if (pos < tz.size()) {
    Expect(tz, &pos, ':');
    if (!ReadDigits(tz, &pos, 2, 2, &minutes)) return std::nullopt;
  }
  if (pos != tz.size() || hours > 23 || minutes > 59) return std::nullopt;
  const int64_t seconds = (hours * 60 + minutes) * 60;
  return tz[0] == '-' ? -seconds : seconds;
}

// Etc/GMT+N is N hours *west* of UTC (POSIX sign), N in [0, 14]; also GMT+0, GMT-0.
std::optional<int64_t> ParseEtcGmt(std::string_view tz) {
  std::string_view rest;
  if (tz.size() > 7 && EqualsIgnoreCase(tz.substr(0, 7), "Etc/GMT")) {
    rest = tz.substr(7);
  } else if (tz.size() > 3 && EqualsIgnoreCase(tz.substr(0, 3), "GMT")) {
    rest = tz.substr(3);
  } else {
    return std::nullopt;
  }
  if (rest == "0") return 0;
  if (rest.size() < 2 || (rest[0] != '+' && rest[0] != '-')) return std::nullopt;
  size_t pos = 1;
  int64_t hours;
  if (!ReadDigits(rest, &pos, 1, 2, &hours) || pos != rest.size() || hours > 14) {
    return std::nullopt;
  }
  const bool is_etc = tz.size() > 7 && EqualsIgnoreCase(tz.substr(0, 4), "Etc/");
  if (!is_etc && hours != 0) return std::nullopt;  // GMT+5 is not a zone name
  return rest[0] == '+' ? -hours * 3600 : hours * 3600;
}

}  // namespace

std::optional<int64_t> FixedZoneOffsetSeconds(std::string_view tz) {
  if (tz.empty()) return 0;
  static constexpr std::string_view kUtcNames[] = {
      "UTC",      "Z",       "Zulu",          "UCT",      "Universal",
      "GMT",      "GMT0",    "Greenwich",     "Etc/UTC",  "Etc/UCT",
      "Etc/Zulu", "Etc/GMT", "Etc/Universal", "Etc/GMT0", "Etc/Greenwich"};
  for (std::string_view name : kUtcNames) {
    if (EqualsIgnoreCase(tz, name)) return 0;
  }
  if (auto offset = ParseFixedOffset(tz)) return offset;
  return ParseEtcGmt(tz);
}

Status CheckNaiveTimestampLiteral(const DataType& type, const Literal& lit,
                                  std::string_view column) {
  if (type.id() != TypeId::kTimestamp || FixedZoneOffsetSeconds(type.timezone())) {
    return Status::OK();
  }
  std::optional<ParsedTimestamp> ts;
  if (lit.kind == Literal::Kind::kTimestamp) {
    ts = ParsedTimestamp{lit.nanos, lit.has_zone};
  } else if (lit.kind == Literal::Kind::kString) {
    ts = ParseTimestamp(lit.string_value);
  }
  if (!ts || ts->has_zone) return Status::OK();
  const std::string what =
      column.empty() ? "a " + type.ToString() + " value"
                     : "column '" + std::string(column) + "' (" + type.ToString() + ")";
  return Status::NotImplemented(
      "comparing " + what +
      " with a timestamp literal without a zone needs timezone rules; write the "
      "literal with an offset, e.g. '" +
      FormatTimestamp(ts->nanos) + "-05:00'");
}

int64_t NanosPerUnit(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond:
      return 1'000'000'000;
    case TimeUnit::kMilli:
      return 1'000'000;
    case TimeUnit::kMicro:
      return 1'000;
    case TimeUnit::kNano:
      return 1;
  }
  return 1;
}

}  // namespace lance::table::predicate_internal
