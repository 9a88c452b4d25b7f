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

#include "lance/core/float16.h"
#include "lance/core/temporal.h"
#include "lance/core/time_zone.h"
#include "lance/macros.h"
#include "table/predicate/kernel_util.h"

namespace lance::table::predicate_internal {

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
// The grammar, calendar and zones are core's (include/lance/core/temporal.h and
// time_zone.h); these adapt them to literals (nanoseconds in an int128).

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

std::optional<int64_t> FixedZoneOffsetSeconds(std::string_view tz) {
  return FixedZoneOffset(tz);
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
