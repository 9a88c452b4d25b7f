// SPDX-License-Identifier: Apache-2.0
//
// The SQL functions of the predicate language (MakeFunction, bound_expr.h): string
// functions over UTF-8 code points, abs / round, coalesce / nullif and date_part, each a
// row-by-row node (MakeRow in value_expression.cc). The names and their semantics follow
// DataFusion, which evaluates them in Lance.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "lance/core/ascii.h"
#include "lance/macros.h"
#include "table/predicate/bound_expr.h"
#include "table/predicate/kernel_util.h"

namespace lance::table {

namespace pi = predicate_internal;

namespace {

using pi::int128;
using pi::Literal;
using pi::TypeName;

constexpr int64_t kNanosPerSecond = 1000000000;
constexpr int128 kNanosPerDay = int128{86400} * kNanosPerSecond;

// ---- UTF-8 helpers ------------------------------------------------------------------

// Decodes the code point at s[*i] and advances *i (an invalid byte is taken as itself).
uint32_t NextCodePoint(std::string_view s, size_t* i) {
  const auto b0 = static_cast<unsigned char>(s[*i]);
  int len = 1;
  uint32_t cp = b0;
  if (b0 >= 0xF0) {
    len = 4;
    cp = b0 & 0x07;
  } else if (b0 >= 0xE0) {
    len = 3;
    cp = b0 & 0x0F;
  } else if (b0 >= 0xC0) {
    len = 2;
    cp = b0 & 0x1F;
  }
  if (*i + static_cast<size_t>(len) > s.size()) len = 1;
  if (len == 1) {
    ++*i;
    return b0;
  }
  for (int k = 1; k < len; ++k) {
    cp = (cp << 6) | (static_cast<unsigned char>(s[*i + static_cast<size_t>(k)]) & 0x3F);
  }
  *i += static_cast<size_t>(len);
  return cp;
}

void PutCodePoint(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// Simple case mappings of Latin (ASCII, Latin-1, Latin Extended-A), Greek and Cyrillic;
// other code points are left as they are.
uint32_t ToLowerCp(uint32_t c) {
  if (c >= 'A' && c <= 'Z') return c + 32;
  if (c < 0x80) return c;
  if (c >= 0xC0 && c <= 0xDE && c != 0xD7) return c + 32;
  if (c >= 0x100 && c <= 0x137 && c % 2 == 0) return c + 1;
  if (c >= 0x139 && c <= 0x148 && c % 2 == 1) return c + 1;
  if (c >= 0x14A && c <= 0x177 && c % 2 == 0) return c + 1;
  if (c == 0x178) return 0xFF;
  if (c >= 0x179 && c <= 0x17E && c % 2 == 1) return c + 1;
  if (c >= 0x391 && c <= 0x3A9 && c != 0x3A2) return c + 32;
  if (c >= 0x410 && c <= 0x42F) return c + 32;
  if (c >= 0x400 && c <= 0x40F) return c + 80;
  return c;
}

uint32_t ToUpperCp(uint32_t c) {
  if (c >= 'a' && c <= 'z') return c - 32;
  if (c < 0x80) return c;
  if (c >= 0xE0 && c <= 0xFE && c != 0xF7) return c - 32;
  if (c == 0xFF) return 0x178;
  if (c >= 0x101 && c <= 0x137 && c % 2 == 1) return c - 1;
  if (c >= 0x13A && c <= 0x148 && c % 2 == 0) return c - 1;
  if (c >= 0x14B && c <= 0x177 && c % 2 == 1) return c - 1;
  if (c >= 0x17A && c <= 0x17E && c % 2 == 0) return c - 1;
  if (c >= 0x3B1 && c <= 0x3C9 && c != 0x3C2) return c - 32;
  if (c == 0x3C2) return 0x3A3;
  if (c >= 0x430 && c <= 0x44F) return c - 32;
  if (c >= 0x450 && c <= 0x45F) return c - 80;
  return c;
}

bool IsCased(uint32_t cp) { return ToLowerCp(cp) != cp || ToUpperCp(cp) != cp; }

std::string MapCase(std::string_view s, bool upper) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  uint32_t previous = 0;
  while (i < s.size()) {
    const uint32_t cp = NextCodePoint(s, &i);
    if (upper && cp == 0xDF) {  // ß has no single upper-case letter
      out += "SS";
    } else if (!upper && cp == 0x3A3 && IsCased(previous)) {
      // Σ ends a word as ς (as Rust's to_lowercase): a cased letter before, none after.
      size_t next = i;
      const bool more = next < s.size() && IsCased(NextCodePoint(s, &next));
      PutCodePoint(more ? 0x3C3 : 0x3C2, &out);
    } else {
      PutCodePoint(upper ? ToUpperCp(cp) : ToLowerCp(cp), &out);
    }
    previous = cp;
  }
  return out;
}

std::vector<uint32_t> CodePoints(std::string_view s) {
  std::vector<uint32_t> out;
  size_t i = 0;
  while (i < s.size()) out.push_back(NextCodePoint(s, &i));
  return out;
}

int64_t CharCount(std::string_view s) {
  int64_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

// Byte offset of character `k` (0-based, clamped to the end).
size_t CharOffset(std::string_view s, int64_t k) {
  size_t i = 0;
  while (k > 0 && i < s.size()) {
    NextCodePoint(s, &i);
    --k;
  }
  return i;
}

std::string Trimmed(std::string_view s, std::string_view chars, bool left, bool right) {
  const std::vector<uint32_t> set = CodePoints(chars);
  auto in_set = [&](uint32_t cp) {
    return std::find(set.begin(), set.end(), cp) != set.end();
  };
  size_t begin = 0;
  if (left) {
    while (begin < s.size()) {
      size_t next = begin;
      if (!in_set(NextCodePoint(s, &next))) break;
      begin = next;
    }
  }
  size_t end = s.size();
  if (right) {
    while (end > begin) {
      size_t start = end - 1;
      while (start > begin && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80)
        --start;
      size_t probe = start;
      if (!in_set(NextCodePoint(s, &probe))) break;
      end = start;
    }
  }
  return std::string(s.substr(begin, end - begin));
}

// ---- dates ---------------------------------------------------------------------------

struct Civil {
  int64_t year;
  int month;  // 1..12
  int day;    // 1..31
};

// Proleptic Gregorian date of a day count since 1970-01-01.
Civil CivilFromDays(int64_t z) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  const int month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  return {yoe + era * 400 + (month <= 2 ? 1 : 0), month, day};
}

int64_t DaysFromCivil(int64_t y, int m, int d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

// ISO 8601 week number (1..53) of a day count.
int IsoWeek(int64_t days) {
  const int64_t dow = ((days + 3) % 7 + 7) % 7;  // Monday = 0
  const int64_t thursday = days - dow + 3;
  const Civil c = CivilFromDays(thursday);
  const int64_t jan1 = DaysFromCivil(c.year, 1, 1);
  return static_cast<int>((thursday - jan1) / 7 + 1);
}

enum class DatePart : uint8_t {
  kYear,
  kQuarter,
  kMonth,
  kWeek,
  kDay,
  kDow,
  kDoy,
  kHour,
  kMinute,
  kSecond,
  kMillisecond,
  kMicrosecond,
  kNanosecond,
  kEpoch,
};

std::optional<DatePart> ParseDatePart(std::string_view name) {
  struct Entry {
    std::string_view name;
    DatePart part;
  };
  static constexpr Entry kParts[] = {
      {"year", DatePart::kYear},
      {"years", DatePart::kYear},
      {"quarter", DatePart::kQuarter},
      {"month", DatePart::kMonth},
      {"months", DatePart::kMonth},
      {"week", DatePart::kWeek},
      {"weeks", DatePart::kWeek},
      {"day", DatePart::kDay},
      {"days", DatePart::kDay},
      {"dow", DatePart::kDow},
      {"doy", DatePart::kDoy},
      {"hour", DatePart::kHour},
      {"hours", DatePart::kHour},
      {"minute", DatePart::kMinute},
      {"minutes", DatePart::kMinute},
      {"second", DatePart::kSecond},
      {"seconds", DatePart::kSecond},
      {"millisecond", DatePart::kMillisecond},
      {"milliseconds", DatePart::kMillisecond},
      {"microsecond", DatePart::kMicrosecond},
      {"microseconds", DatePart::kMicrosecond},
      {"nanosecond", DatePart::kNanosecond},
      {"nanoseconds", DatePart::kNanosecond},
      {"epoch", DatePart::kEpoch},
  };
  for (const auto& e : kParts) {
    if (EqualsIgnoreAsciiCase(name, e.name)) return e.part;
  }
  return std::nullopt;
}

// The part of a wall-clock time given as nanoseconds since the epoch.
Literal ExtractPart(DatePart part, int128 nanos) {
  const int128 days128 = pi::FloorDiv(nanos, kNanosPerDay);
  const auto days = static_cast<int64_t>(days128);
  const auto in_day = static_cast<int64_t>(nanos - days128 * kNanosPerDay);
  const Civil c = CivilFromDays(days);
  const int64_t second_nanos = in_day % (int64_t{60} * kNanosPerSecond);
  switch (part) {
    case DatePart::kYear:
      return Literal::Int(c.year);
    case DatePart::kQuarter:
      return Literal::Int((c.month - 1) / 3 + 1);
    case DatePart::kMonth:
      return Literal::Int(c.month);
    case DatePart::kWeek:
      return Literal::Int(IsoWeek(days));
    case DatePart::kDay:
      return Literal::Int(c.day);
    case DatePart::kDow:
      return Literal::Int(((days + 4) % 7 + 7) % 7);  // Sunday = 0
    case DatePart::kDoy:
      return Literal::Int(days - DaysFromCivil(c.year, 1, 1) + 1);
    case DatePart::kHour:
      return Literal::Int(in_day / (int64_t{3600} * kNanosPerSecond));
    case DatePart::kMinute:
      return Literal::Int(in_day / (int64_t{60} * kNanosPerSecond) % 60);
    case DatePart::kSecond:
      return Literal::Int(second_nanos / kNanosPerSecond);
    case DatePart::kMillisecond:
      return Literal::Int(second_nanos / 1000000);
    case DatePart::kMicrosecond:
      return Literal::Int(second_nanos / 1000);
    case DatePart::kNanosecond:
      return Literal::Int(second_nanos);
    case DatePart::kEpoch: {
      Literal l = Literal::Float(0);
      l.float_value = static_cast<double>(nanos) / 1e9;
      return l;
    }
  }
  return Literal::Null();
}

Status RequireArgs(std::string_view name, const std::vector<pi::ExprPtr>& args,
                   size_t min, size_t max) {
  if (args.size() < min || args.size() > max) {
    std::string want = min == max ? std::to_string(min)
                                  : std::to_string(min) + " to " + std::to_string(max);
    if (max == SIZE_MAX) want = "at least " + std::to_string(min);
    return Status::Invalid("function '", name, "' takes ", want, " argument",
                           (min == 1 && max == 1) ? "" : "s", ", not ", args.size());
  }
  return Status::OK();
}

bool IsStringOrNull(const pi::Expr& e) {
  return !e.type() || e.type()->id() == TypeId::kNull ||
         e.type()->id() == TypeId::kUtf8 || e.type()->id() == TypeId::kLargeUtf8;
}

Status RequireString(std::string_view name, const pi::Expr& e) {
  if (IsStringOrNull(e)) return Status::OK();
  return Status::Invalid("function '", name, "' needs a string, but ", e.ToString(),
                         " is ", TypeName(e));
}

Status RequireNumber(std::string_view name, const pi::Expr& e) {
  if (!e.type() || e.type()->is_integer() || e.type()->is_floating()) {
    return Status::OK();
  }
  return Status::Invalid("function '", name, "' needs a number, but ", e.ToString(),
                         " is ", TypeName(e));
}

DataTypePtr StringResult(const pi::Expr& e) {
  return e.type() && e.type()->id() == TypeId::kLargeUtf8 ? large_utf8() : utf8();
}
// Equality of two non-NULL values of types that meet (nullif).
bool SameValue(const Literal& a, const Literal& b) {
  using K = Literal::Kind;
  if (a.is_numeric() && b.is_numeric()) {
    if (a.kind == K::kInt && b.kind == K::kInt) return a.int_value == b.int_value;
    const double x = a.kind == K::kInt ? static_cast<double>(a.int_value) : a.float_value;
    const double y = b.kind == K::kInt ? static_cast<double>(b.int_value) : b.float_value;
    return x == y;
  }
  if (a.kind != b.kind) {
    if (a.kind == K::kDate && b.kind == K::kTimestamp) {
      return int128{a.days} * kNanosPerDay == b.nanos;
    }
    if (a.kind == K::kTimestamp && b.kind == K::kDate) {
      return int128{b.days} * kNanosPerDay == a.nanos;
    }
    return false;
  }
  switch (a.kind) {
    case K::kBool:
      return a.bool_value == b.bool_value;
    case K::kString:
      return a.string_value == b.string_value;
    case K::kDate:
      return a.days == b.days;
    case K::kTimestamp:
      return a.nanos == b.nanos;
    default:
      return false;
  }
}

int64_t AsInt(const Literal& l) {
  if (l.kind == Literal::Kind::kFloat) return static_cast<int64_t>(l.float_value);
  return static_cast<int64_t>(l.int_value);
}

Literal FloatValue(double v) {
  Literal l = Literal::Float(0);
  l.float_value = v;
  return l;
}

}  // namespace

namespace predicate_internal {

namespace {

// The factories of the SQL functions MakeFunction knows; `name` is the lower-case
// name the query used (some functions have aliases).
Result<ExprPtr> MakeCaseMapping(const std::string& name, std::vector<ExprPtr> args) {
  LANCE_RETURN_NOT_OK(RequireArgs(name, args, 1, 1));
  LANCE_RETURN_NOT_OK(RequireString(name, *args[0]));
  const bool upper = name == "upper";
  const DataTypePtr type = StringResult(*args[0]);
  return MakeRow(name, std::move(args), type, true,
                 [upper](const std::vector<Literal>& a) -> Result<Literal> {
                   return Literal::String(MapCase(a[0].string_value, upper));
                 });
}

Result<ExprPtr> MakeLength(const std::string& name, std::vector<ExprPtr> args) {
  LANCE_RETURN_NOT_OK(RequireArgs(name, args, 1, 1));
  if (!IsStringOrNull(*args[0])) {
    LANCE_ASSIGN_OR_RAISE(args[0], MakeCast(args[0], utf8()));
  }
  const bool bytes = name == "octet_length";
  const DataTypePtr type =
      args[0]->type() && args[0]->type()->id() == TypeId::kLargeUtf8 ? int64() : int32();
  return MakeRow(
      name, std::move(args), type, true,
      [bytes](const std::vector<Literal>& a) -> Result<Literal> {
        const std::string& s = a[0].string_value;
        return Literal::Int(bytes ? static_cast<int64_t>(s.size()) : CharCount(s));
      });
}

Result<ExprPtr> MakeConcat(const std::string& name, std::vector<ExprPtr> args) {
  LANCE_RETURN_NOT_OK(RequireArgs(name, args, 1, SIZE_MAX));
  for (auto& a : args) {
    if (!IsStringOrNull(*a)) {
      LANCE_ASSIGN_OR_RAISE(a, MakeCast(a, utf8()));
    }
  }
  return MakeRow(name, std::move(args), utf8(), false,
                 [](const std::vector<Literal>& a) -> Result<Literal> {
                   std::string out;
                   for (const auto& v : a) {
                     if (!v.is_null()) out += v.string_value;
                   }
                   return Literal::String(std::move(out));
                 });
}

Result<ExprPtr> MakeSubstring(const std::string& name, std::vector<ExprPtr> args) {
  LANCE_RETURN_NOT_OK(RequireArgs(name, args, 2, 3));
  LANCE_RETURN_NOT_OK(RequireString(name, *args[0]));
  for (size_t k = 1; k < args.size(); ++k) {
    if (args[k]->type() && !args[k]->type()->is_integer()) {
      return Status::Invalid("function '", name, "' needs integer positions, but ",
                             args[k]->ToString(), " is ", TypeName(*args[k]));
    }
  }
  const DataTypePtr type = StringResult(*args[0]);
  return MakeRow(name, std::move(args), type, true,
                 [](const std::vector<Literal>& a) -> Result<Literal> {
                   const std::string& s = a[0].string_value;
                   const int64_t start = AsInt(a[1]);  // 1-based, may be <= 0
                   int64_t end = std::numeric_limits<int64_t>::max();  // exclusive
                   if (a.size() > 2) {
                     const int64_t len = AsInt(a[2]);
                     if (len < 0) {
                       return Status::Invalid("negative substring length ", len);
                     }
                     end = start > std::numeric_limits<int64_t>::max() - len
                               ? std::numeric_limits<int64_t>::max()
                               : start + len;
                   }
                   const int64_t from = std::max<int64_t>(start, 1);
                   if (end <= from) return Literal::String("");
                   const size_t b = CharOffset(s, from - 1);
                   const size_t e = end == std::numeric_limits<int64_t>::max()
                                        ? s.size()
                                        : CharOffset(s, end - 1);
                   return Literal::String(s.substr(b, e - b));
                 });
}

Result<ExprPtr> MakeTrim(const std::string& name, std::vector<ExprPtr> args) {
  LANCE_RETURN_NOT_OK(RequireArgs(name, args, 1, 2));
  for (const auto& a : args) LANCE_RETURN_NOT_OK(RequireString(name, *a));
  const bool left = name != "rtrim";
  const bool right = name != "ltrim";
  const DataTypePtr type = StringResult(*args[0]);
  return MakeRow(name, std::move(args), type, true,
                 [left, right](const std::vector<Literal>& a) -> Result<Literal> {
                   const std::string_view chars =
                       a.size() > 1 ? std::string_view(a[1].string_value) : " ";
                   return Literal::String(Trimmed(a[0].string_value, chars, left, right));
                 });
}

Result<ExprPtr> MakeReplace(const std::string& name, std::vector<ExprPtr> args) {
  LANCE_RETURN_NOT_OK(RequireArgs(name, args, 3, 3));
  for (const auto& a : args) LANCE_RETURN_NOT_OK(RequireString(name, *a));
  const DataTypePtr type = StringResult(*args[0]);
  return MakeRow(name, std::move(args), type, true,
                 [](const std::vector<Literal>& a) -> Result<Literal> {
                   const std::string& s = a[0].string_value;
                   const std::string& from = a[1].string_value;
                   const std::string& to = a[2].string_value;
                   std::string out;
                   if (from.empty()) {
                     // An empty pattern matches before every character and at the end.
                     size_t i = 0;
                     while (i < s.size()) {
                       out += to;
                       const size_t start = i;
                       NextCodePoint(s, &i);
                       out.append(s, start, i - start);
                     }
                     return Literal::String(out + to);
                   }
                   size_t pos = 0;
                   while (true) {
                     const size_t hit = s.find(from, pos);
                     if (hit == std::string::npos) break;
                     out.append(s, pos, hit - pos);
                     out += to;
                     pos = hit + from.size();
                   }
                   out.append(s, pos, std::string::npos);
                   return Literal::String(std::move(out));
                 });
}

Result<ExprPtr> MakeAffixTest(const std::string& name, std::vector<ExprPtr> args) {
  LANCE_RETURN_NOT_OK(RequireArgs(name, args, 2, 2));
  for (const auto& a : args) LANCE_RETURN_NOT_OK(RequireString(name, *a));
  const bool starts = name == "starts_with";
  return MakeRow(name, std::move(args), boolean(), true,
                 [starts](const std::vector<Literal>& a) -> Result<Literal> {
                   const std::string_view s = a[0].string_value;
                   const std::string_view p = a[1].string_value;
                   return Literal::Bool(starts ? s.starts_with(p) : s.ends_with(p));
                 });
}

Result<ExprPtr> MakeStrpos(const std::string& name, std::vector<ExprPtr> args) {
  LANCE_RETURN_NOT_OK(RequireArgs(name, args, 2, 2));
  for (const auto& a : args) LANCE_RETURN_NOT_OK(RequireString(name, *a));
  return MakeRow(name, std::move(args), int32(), true,
                 [](const std::vector<Literal>& a) -> Result<Literal> {
                   const std::string_view s = a[0].string_value;
                   const size_t hit = s.find(a[1].string_value);
                   // 1-based character position; 0 when absent.
                   if (hit == std::string_view::npos) return Literal::Int(0);
                   return Literal::Int(CharCount(s.substr(0, hit)) + 1);
                 });
}

Result<ExprPtr> MakeReverse(const std::string& name, std::vector<ExprPtr> args) {
  LANCE_RETURN_NOT_OK(RequireArgs(name, args, 1, 1));
  LANCE_RETURN_NOT_OK(RequireString(name, *args[0]));
  const DataTypePtr type = StringResult(*args[0]);
  return MakeRow(name, std::move(args), type, true,
                 [](const std::vector<Literal>& a) -> Result<Literal> {
                   std::vector<uint32_t> cps = CodePoints(a[0].string_value);
                   std::string out;
                   out.reserve(a[0].string_value.size());
                   for (auto it = cps.rbegin(); it != cps.rend(); ++it) {
                     PutCodePoint(*it, &out);
                   }
                   return Literal::String(std::move(out));
                 });
}

Result<ExprPtr> MakeNullif(const std::string& name, std::vector<ExprPtr> args) {
  LANCE_RETURN_NOT_OK(RequireArgs(name, args, 2, 2));
  DataTypePtr type = CommonType(args[0]->type(), args[1]->type());
  if (!type && args[0]->type() && args[1]->type()) {
    return Status::Invalid("nullif arguments do not share a type: ", args[0]->ToString(),
                           " is ", TypeName(*args[0]), " and ", args[1]->ToString(),
                           " is ", TypeName(*args[1]));
  }
  if (!type) return MakeLiteral(Literal::Null());
  return MakeRow(name, std::move(args), type, false,
                 [](const std::vector<Literal>& a) -> Result<Literal> {
                   if (a[0].is_null() || a[1].is_null()) return a[0];
                   return SameValue(a[0], a[1]) ? Literal::Null() : a[0];
                 });
}

Result<ExprPtr> MakeAbs(const std::string& name, std::vector<ExprPtr> args) {
  LANCE_RETURN_NOT_OK(RequireArgs(name, args, 1, 1));
  LANCE_RETURN_NOT_OK(RequireNumber(name, *args[0]));
  const DataTypePtr type = args[0]->type() ? args[0]->type() : int64();
  return MakeRow(
      name, std::move(args), type, true,
      [](const std::vector<Literal>& a) -> Result<Literal> {
        if (a[0].kind == Literal::Kind::kFloat) {
          return FloatValue(std::fabs(a[0].float_value));
        }
        return Literal::Int(a[0].int_value < 0 ? -a[0].int_value : a[0].int_value);
      });
}

Result<ExprPtr> MakeRound(const std::string& name, std::vector<ExprPtr> args) {
  LANCE_RETURN_NOT_OK(RequireArgs(name, args, 1, 2));
  LANCE_RETURN_NOT_OK(RequireNumber(name, *args[0]));
  if (args.size() > 1 && args[1]->type() && !args[1]->type()->is_integer()) {
    return Status::Invalid("function 'round' needs an integer number of places, but ",
                           args[1]->ToString(), " is ", TypeName(*args[1]));
  }
  const bool single = args[0]->type() && (args[0]->type()->id() == TypeId::kFloat32 ||
                                          args[0]->type()->id() == TypeId::kFloat16);
  return MakeRow(name, std::move(args), single ? float32() : float64(), true,
                 [single](const std::vector<Literal>& a) -> Result<Literal> {
                   const int64_t places = a.size() > 1 ? AsInt(a[1]) : 0;
                   const double x = a[0].kind == Literal::Kind::kFloat
                                        ? a[0].float_value
                                        : static_cast<double>(a[0].int_value);
                   if (single) {
                     // Computed in float32, as DataFusion does for float32 input.
                     const float scale = std::pow(10.0F, static_cast<float>(places));
                     return FloatValue(std::round(static_cast<float>(x) * scale) / scale);
                   }
                   const double scale = std::pow(10.0, static_cast<double>(places));
                   return FloatValue(std::round(x * scale) / scale);
                 });
}

Result<ExprPtr> MakeCoalesce(const std::string& name, std::vector<ExprPtr> args) {
  LANCE_RETURN_NOT_OK(RequireArgs(name, args, 1, SIZE_MAX));
  DataTypePtr type;
  for (const auto& a : args) {
    DataTypePtr next = CommonType(type, a->type());
    if (!next && a->type()) {
      return Status::Invalid("coalesce arguments do not share a type: ", a->ToString(),
                             " is ", TypeName(*a), " but an earlier one is ",
                             type->ToString());
    }
    type = next;
  }
  if (!type) return MakeLiteral(Literal::Null());
  return MakeRow(name, std::move(args), type, false,
                 [](const std::vector<Literal>& a) -> Result<Literal> {
                   for (const auto& v : a) {
                     if (!v.is_null()) return v;
                   }
                   return Literal::Null();
                 });
}

Result<ExprPtr> MakeDatePart(const std::string& name, std::vector<ExprPtr> args) {
  LANCE_RETURN_NOT_OK(RequireArgs(name, args, 2, 2));
  const Literal* part_lit = args[0]->literal();
  if (!part_lit || part_lit->kind != Literal::Kind::kString) {
    return Status::Invalid(
        "function 'date_part' needs the part as a string literal "
        "('year', 'month', ...), not ",
        args[0]->ToString());
  }
  auto part = ParseDatePart(part_lit->string_value);
  if (!part) {
    return Status::Invalid("date_part does not know the part '", part_lit->string_value,
                           "' (year, quarter, month, week, day, dow, doy, hour, minute, "
                           "second, millisecond, microsecond, nanosecond, epoch)");
  }
  const DataTypePtr& t = args[1]->type();
  if (t && t->id() != TypeId::kDate32 && t->id() != TypeId::kTimestamp) {
    return Status::Invalid("date_part needs a date or timestamp, but ",
                           args[1]->ToString(), " is ", TypeName(*args[1]));
  }
  int64_t offset = 0;
  if (t) {
    LANCE_ASSIGN_OR_RAISE(offset, ZoneOffset(*t));
  }
  const DatePart p = *part;
  std::vector<ExprPtr> operand{args[1]};
  return MakeRow("date_part('" + AsciiToLower(part_lit->string_value) + "')",
                 std::move(operand), p == DatePart::kEpoch ? float64() : int32(), true,
                 [p, offset](const std::vector<Literal>& a) -> Result<Literal> {
                   const int128 nanos =
                       a[0].kind == Literal::Kind::kDate
                           ? int128{a[0].days} * kNanosPerDay
                           : a[0].nanos + int128{offset} * kNanosPerSecond;
                   return ExtractPart(p, nanos);
                 });
}

using FunctionFactory = Result<ExprPtr> (*)(const std::string& name,
                                            std::vector<ExprPtr> args);

struct FunctionEntry {
  std::string_view name;
  FunctionFactory make;
};

constexpr FunctionEntry kFunctions[] = {
    {"lower", MakeCaseMapping},
    {"upper", MakeCaseMapping},
    {"length", MakeLength},
    {"char_length", MakeLength},
    {"character_length", MakeLength},
    {"octet_length", MakeLength},
    {"concat", MakeConcat},
    {"substr", MakeSubstring},
    {"substring", MakeSubstring},
    {"trim", MakeTrim},
    {"btrim", MakeTrim},
    {"ltrim", MakeTrim},
    {"rtrim", MakeTrim},
    {"replace", MakeReplace},
    {"starts_with", MakeAffixTest},
    {"ends_with", MakeAffixTest},
    {"strpos", MakeStrpos},
    {"instr", MakeStrpos},
    {"reverse", MakeReverse},
    {"nullif", MakeNullif},
    {"abs", MakeAbs},
    {"round", MakeRound},
    {"coalesce", MakeCoalesce},
    {"date_part", MakeDatePart},
    {"datepart", MakeDatePart},
};

}  // namespace

Result<ExprPtr> MakeFunction(std::string_view name_in, std::vector<ExprPtr> args) {
  const std::string name = AsciiToLower(name_in);
  for (const FunctionEntry& f : kFunctions) {
    if (f.name == name) return f.make(name, std::move(args));
  }
  return Status::Invalid("unknown function '", std::string(name_in), "'");
}

}  // namespace predicate_internal

}  // namespace lance::table
