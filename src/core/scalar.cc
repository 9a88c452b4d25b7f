// SPDX-License-Identifier: Apache-2.0
//
// The cast's scalar (cast.h): its factories and spellings, and the number, date and
// timestamp conversions it is read and written with. The grammar, calendar and zones
// are core's (temporal.h, time_zone.h); these adapt them to nanoseconds in an int128.

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "lance/core/cast.h"
#include "lance/core/enum_names.h"
#include "lance/core/temporal.h"
#include "lance/core/time_zone.h"

namespace lance::compute {

namespace {
constexpr int128 kInt64Min = std::numeric_limits<int64_t>::min();
constexpr int128 kInt64Max = std::numeric_limits<int64_t>::max();
}  // namespace

std::string Int128ToString(int128 v) {
  if (v == 0) return "0";
  const bool negative = v < 0;
  unsigned __int128 u =
      negative ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  std::string digits;
  while (u > 0) {
    digits.push_back(static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  }
  if (negative) digits.push_back('-');
  std::reverse(digits.begin(), digits.end());
  return digits;
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

std::optional<int32_t> ParseDate(std::string_view text) {
  auto parsed = ParseIsoDateTime(text);
  if (!parsed.ok() || parsed->has_time || parsed->offset_seconds ||
      parsed->days < std::numeric_limits<int32_t>::min() ||
      parsed->days > std::numeric_limits<int32_t>::max()) {
    return std::nullopt;
  }
  return static_cast<int32_t>(parsed->days);
}

std::optional<ParsedTimestamp> ParseTimestamp(std::string_view text) {
  auto parsed = ParseIsoDateTime(text);
  if (!parsed.ok()) return std::nullopt;
  const std::optional<int128> nanos = parsed->Ticks(9);
  if (!nanos) return std::nullopt;
  return ParsedTimestamp{*nanos, parsed->offset_seconds.has_value()};
}

std::string FormatDate(int64_t days) { return FormatIsoDate(days); }

std::string FormatTimestamp(int128 nanos) {
  int128 days = nanos / kNanosPerDay;
  int128 rem = nanos % kNanosPerDay;
  if (rem < 0) {
    rem += kNanosPerDay;
    --days;
  }
  std::string out;
  AppendIsoDate(static_cast<int64_t>(days), &out);
  out.push_back(' ');
  AppendClock(static_cast<int64_t>(rem / kNanosPerSecond), &out);
  AppendTrimmedNanos(static_cast<int64_t>(rem % kNanosPerSecond), &out);
  return out;
}

Result<int64_t> ZoneOffset(const DataType& type) {
  if (type.id() != TypeId::kTimestamp || type.timezone().empty()) return int64_t{0};
  auto offset = FixedZoneOffset(type.timezone());
  if (!offset) {
    return Status::NotImplemented("converting timestamps of time zone '", type.timezone(),
                                  "' needs its rules, which lance-cpp does not have");
  }
  return *offset;
}

namespace {

// A scalar of `kind` whose value is in `member`.
template <auto kMember, typename V>
Scalar WithValue(Scalar::Kind kind, V value) {
  Scalar s;
  s.kind = kind;
  s.*kMember = std::move(value);
  return s;
}

}  // namespace

Scalar Scalar::Bool(bool v) { return WithValue<&Scalar::bool_value>(Kind::kBool, v); }
Scalar Scalar::Int(int128 v) { return WithValue<&Scalar::int_value>(Kind::kInt, v); }
Scalar Scalar::Float(double v) {
  return WithValue<&Scalar::float_value>(Kind::kFloat, v);
}
Scalar Scalar::String(std::string v) {
  return WithValue<&Scalar::string_value>(Kind::kString, std::move(v));
}
Scalar Scalar::Date(int32_t days) { return WithValue<&Scalar::days>(Kind::kDate, days); }
Scalar Scalar::Timestamp(int128 nanos, bool has_zone) {
  Scalar s = WithValue<&Scalar::nanos>(Kind::kTimestamp, nanos);
  s.has_zone = has_zone;
  return s;
}

namespace {

constexpr auto kKindNames = MakeEnumNames<Scalar::Kind>(
    "null", "boolean", "integer", "float", "string", "date", "timestamp");
static_assert(kKindNames.size() == EnumCount(Scalar::Kind::kTimestamp));

}  // namespace

std::string_view Scalar::KindName() const { return kKindNames.Name(kind, "?"); }

std::string Scalar::ToString() const {
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

DataTypePtr Scalar::number_type() const {
  if (kind == Kind::kFloat) return float64();
  if (kind != Kind::kInt) return nullptr;
  // -2^63 can only be written as minus 9223372036854775808, and Lance parses the digits
  // on their own: 2^63 is a uint64, and minus that a float64.
  if (int_value > kInt64Min && int_value <= kInt64Max) return int64();
  constexpr int128 kUInt64Max = std::numeric_limits<uint64_t>::max();
  if (int_value > kInt64Max && int_value <= kUInt64Max) {
    return uint64();
  }
  return float64();
}

}  // namespace lance::compute
