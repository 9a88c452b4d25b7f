// SPDX-License-Identifier: Apache-2.0
#include "lib/scalar_codec.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <system_error>
#include <type_traits>

#include "lance/core/ascii.h"
#include "lance/core/temporal.h"
#include "lance/macros.h"
#include "lib/json.h"

namespace lance::cli {

namespace {

// Lays out a decimal given its significant digits (no leading/trailing zeros except a
// lone "0") and the power of ten of the first digit, the way std::to_chars does for
// shortest output: fixed unless scientific is strictly shorter.
std::string LayoutDecimal(bool negative, const std::string& digits, int exp10) {
  const int n = static_cast<int>(digits.size());
  std::string fixed;
  if (exp10 >= n - 1) {
    fixed = digits + std::string(static_cast<size_t>(exp10 - n + 1), '0');
  } else if (exp10 >= 0) {
    fixed = digits.substr(0, static_cast<size_t>(exp10 + 1)) + "." +
            digits.substr(static_cast<size_t>(exp10 + 1));
  } else {
    fixed = "0." + std::string(static_cast<size_t>(-exp10 - 1), '0') + digits;
  }
  std::string sci = digits.substr(0, 1);
  if (n > 1) sci += "." + digits.substr(1);
  sci += exp10 < 0 ? "e-" : "e+";
  const int abs_exp = exp10 < 0 ? -exp10 : exp10;
  if (abs_exp < 10) sci += "0";
  sci += std::to_string(abs_exp);
  std::string out = negative ? "-" : "";
  out += sci.size() < fixed.size() ? sci : fixed;
  return out;
}

// Splits to_chars scientific output ("-1.2340e-05") into digits and exponent.
std::string RelayoutScientific(std::string_view sci) {
  bool negative = false;
  if (!sci.empty() && sci[0] == '-') {
    negative = true;
    sci.remove_prefix(1);
  }
  const size_t e = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e)) {
    if (c != '.') digits.push_back(c);
  }
  int exp10 = 0;
  std::string_view exp_text = sci.substr(e + 1);
  if (!exp_text.empty() && exp_text[0] == '+') exp_text.remove_prefix(1);
  std::from_chars(exp_text.data(), exp_text.data() + exp_text.size(), exp10);
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  if (digits == "0") exp10 = 0;
  return LayoutDecimal(negative, digits, exp10);
}

const char* NonFiniteName(double value) {
  if (std::isnan(value)) return "NaN";
  return value > 0 ? "Infinity" : "-Infinity";
}

template <typename T>
std::string FormatShortest(T value) {
  if (!std::isfinite(value)) return NonFiniteName(value);
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), value);
  return std::string(buf, res.ptr);
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

const char* IntegerTypeName(int bits, bool is_signed) {
  switch (bits) {
    case 8:
      return is_signed ? "int8" : "uint8";
    case 16:
      return is_signed ? "int16" : "uint16";
    case 32:
      return is_signed ? "int32" : "uint32";
    default:
      return is_signed ? "int64" : "uint64";
  }
}

}  // namespace

// --- formatting ------------------------------------------------------------------------

std::string FormatHalf(uint16_t bits) {
  const double value = HalfToDouble(bits);
  if (!std::isfinite(value)) return NonFiniteName(value);
  // A half has 11 significant bits, so at most 5 significant decimal digits are needed.
  char buf[64];
  for (int precision = 0; precision < 5; ++precision) {
    auto res = std::to_chars(buf, buf + sizeof(buf), value, std::chars_format::scientific,
                             precision);
    double back = 0;
    std::from_chars(buf, res.ptr, back);
    if (DoubleToHalf(back) == bits || (value == 0 && back == 0)) {
      return RelayoutScientific(
          std::string_view(buf, static_cast<size_t>(res.ptr - buf)));
    }
  }
  auto res =
      std::to_chars(buf, buf + sizeof(buf), value, std::chars_format::scientific, 5);
  return RelayoutScientific(std::string_view(buf, static_cast<size_t>(res.ptr - buf)));
}

std::string FormatFloat(float value) { return FormatShortest(value); }
std::string FormatDouble(double value) { return FormatShortest(value); }

std::string Base64Encode(std::string_view bytes) {
  static const char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  const auto b = [&](size_t k) {
    return static_cast<uint32_t>(static_cast<uint8_t>(bytes[k]));
  };
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t v = (b(i) << 16) | (b(i + 1) << 8) | b(i + 2);
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(kAlphabet[(v >> 6) & 63]);
    out.push_back(kAlphabet[v & 63]);
  }
  const size_t rest = bytes.size() - i;
  if (rest == 1) {
    const uint32_t v = b(i) << 16;
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.append("==");
  } else if (rest == 2) {
    const uint32_t v = (b(i) << 16) | (b(i + 1) << 8);
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(kAlphabet[(v >> 6) & 63]);
    out.push_back('=');
  }
  return out;
}

Result<std::string> Base64Decode(std::string_view text) {
  const auto value_of = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string_view body = text;
  if (body.size() % 4 == 0) {
    // Up to two '=' of padding at the end of a padded text.
    for (int k = 0; k < 2 && !body.empty() && body.back() == '='; ++k)
      body.remove_suffix(1);
  }
  if (body.size() % 4 == 1) {
    return Status::Invalid(QuoteForMessage(text) + " is not valid base64 (bad length)");
  }
  std::string out;
  out.reserve(body.size() * 3 / 4);
  uint32_t acc = 0;
  int bits = 0;
  for (char c : body) {
    const int v = value_of(c);
    if (v < 0) {
      return Status::Invalid(QuoteForMessage(text) + " is not valid base64");
    }
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  return out;
}

// --- parsing ---------------------------------------------------------------------------

std::string QuoteForMessage(std::string_view text) {
  constexpr size_t kMax = 40;
  if (text.size() <= kMax) return JsonQuote(text);
  size_t cut = kMax;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return JsonQuote(text.substr(0, cut)) + "...";
}

bool LooksLikeInteger(std::string_view text) {
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) text.remove_prefix(1);
  if (text.empty()) return false;
  for (char c : text) {
    if (!IsDigit(c)) return false;
  }
  return true;
}

template <typename T>
Result<T> ParseInteger(std::string_view text) {
  const char* name =
      IntegerTypeName(static_cast<int>(sizeof(T) * 8), std::is_signed_v<T>);
  if (!LooksLikeInteger(text)) {
    return Status::Invalid(QuoteForMessage(text) + " is not a valid " + name);
  }
  std::string_view body = text;
  bool negative = false;
  if (body[0] == '+' || body[0] == '-') {
    negative = body[0] == '-';
    body.remove_prefix(1);
  }
  const auto out_of_range = [&] {
    return Status::Invalid(QuoteForMessage(text) + " is out of range for " + name);
  };
  if constexpr (std::is_signed_v<T>) {
    // Parse the magnitude as uint64 so that the minimum value is exact.
    uint64_t magnitude = 0;
    auto res = std::from_chars(body.data(), body.data() + body.size(), magnitude);
    if (res.ec != std::errc()) return out_of_range();
    const uint64_t limit = static_cast<uint64_t>(std::numeric_limits<T>::max());
    if (negative) {
      if (magnitude > limit + 1) return out_of_range();
      if (magnitude == limit + 1) return std::numeric_limits<T>::min();
      return static_cast<T>(-static_cast<T>(magnitude));
    }
    if (magnitude > limit) return out_of_range();
    return static_cast<T>(magnitude);
  } else {
    uint64_t magnitude = 0;
    auto res = std::from_chars(body.data(), body.data() + body.size(), magnitude);
    if (res.ec != std::errc()) return out_of_range();
    if (negative) {
      if (magnitude != 0) return out_of_range();
      return static_cast<T>(0);
    }
    if (magnitude > std::numeric_limits<T>::max()) return out_of_range();
    return static_cast<T>(magnitude);
  }
}

template Result<int8_t> ParseInteger<int8_t>(std::string_view);
template Result<int16_t> ParseInteger<int16_t>(std::string_view);
template Result<int32_t> ParseInteger<int32_t>(std::string_view);
template Result<int64_t> ParseInteger<int64_t>(std::string_view);
template Result<uint8_t> ParseInteger<uint8_t>(std::string_view);
template Result<uint16_t> ParseInteger<uint16_t>(std::string_view);
template Result<uint32_t> ParseInteger<uint32_t>(std::string_view);
template Result<uint64_t> ParseInteger<uint64_t>(std::string_view);

namespace {

// Special values and the decimal syntax check shared by the float parsers. Returns
// true and sets *special for NaN / infinities.
Result<bool> ClassifyFloatText(std::string_view text, const char* type_name,
                               double* special) {
  std::string_view body = text;
  bool negative = false;
  if (!body.empty() && (body[0] == '+' || body[0] == '-')) {
    negative = body[0] == '-';
    body.remove_prefix(1);
  }
  if (EqualsIgnoreAsciiCase(body, "nan")) {
    *special = std::numeric_limits<double>::quiet_NaN();
    if (negative) *special = -*special;
    return true;
  }
  if (EqualsIgnoreAsciiCase(body, "inf") || EqualsIgnoreAsciiCase(body, "infinity")) {
    *special = negative ? -std::numeric_limits<double>::infinity()
                        : std::numeric_limits<double>::infinity();
    return true;
  }
  // digits [. digits] [e [+-] digits], at least one digit in the mantissa.
  size_t p = 0, mantissa_digits = 0;
  while (p < body.size() && IsDigit(body[p])) ++p, ++mantissa_digits;
  if (p < body.size() && body[p] == '.') {
    ++p;
    while (p < body.size() && IsDigit(body[p])) ++p, ++mantissa_digits;
  }
  bool ok = mantissa_digits > 0;
  if (ok && p < body.size() && (body[p] == 'e' || body[p] == 'E')) {
    ++p;
    if (p < body.size() && (body[p] == '+' || body[p] == '-')) ++p;
    size_t exp_digits = 0;
    while (p < body.size() && IsDigit(body[p])) ++p, ++exp_digits;
    ok = exp_digits > 0;
  }
  if (!ok || p != body.size()) {
    return Status::Invalid(QuoteForMessage(text) + " is not a valid " + type_name);
  }
  return false;
}

template <typename T>
Result<T> ParseFloating(std::string_view text, const char* type_name) {
  double special = 0;
  auto kind = ClassifyFloatText(text, type_name, &special);
  if (!kind.ok()) return kind.status();
  if (*kind) return static_cast<T>(special);
  std::string_view body = text;
  if (body[0] == '+') body.remove_prefix(1);
  T value = 0;
  auto res = std::from_chars(body.data(), body.data() + body.size(), value);
  if (res.ec == std::errc() && res.ptr == body.data() + body.size()) return value;
  if (res.ec == std::errc::result_out_of_range) {
    // Overflow is an error; underflow rounds to zero (or a subnormal).
    const double magnitude = std::strtod(std::string(body).c_str(), nullptr);
    if (std::fabs(magnitude) < 1) return static_cast<T>(magnitude);
    return Status::Invalid(QuoteForMessage(text) + " is out of range for " + type_name);
  }
  return Status::Invalid(QuoteForMessage(text) + " is not a valid " + type_name);
}

}  // namespace

Result<double> ParseDouble(std::string_view text) {
  return ParseFloating<double>(text, "float64");
}

Result<float> ParseFloat(std::string_view text) {
  return ParseFloating<float>(text, "float32");
}

Result<uint16_t> ParseHalf(std::string_view text) {
  auto value = ParseFloating<double>(text, "float16");
  if (!value.ok()) return value.status();
  const uint16_t bits = DoubleToHalf(*value);
  if (std::isfinite(*value) && (bits & 0x7FFF) == 0x7C00) {
    return Status::Invalid(QuoteForMessage(text) + " is out of range for float16");
  }
  return bits;
}

Result<int64_t> ParseDate(std::string_view text) {
  auto parsed = ParseIsoDateTime(text);
  if (!parsed.ok() || parsed->has_time || parsed->offset_seconds) {
    return Status::Invalid(
        QuoteForMessage(text), " is not a valid date (",
        parsed.ok() ? "expected YYYY-MM-DD" : parsed.status().message(), ")");
  }
  return parsed->days;
}

Result<int32_t> ParseDate32(std::string_view text) {
  LANCE_ASSIGN_OR_RAISE(int64_t days, ParseDate(text));
  if (days < std::numeric_limits<int32_t>::min() ||
      days > std::numeric_limits<int32_t>::max()) {
    return Status::Invalid(QuoteForMessage(text), " is out of range for date32");
  }
  return static_cast<int32_t>(days);
}

namespace {

Status TooManyFractionDigits(std::string_view text, std::string_view what,
                             TimeUnit unit) {
  return Status::Invalid(QuoteForMessage(text), " is not a valid ", what,
                         " (more fractional digits than unit '", TimeUnitSuffix(unit),
                         "' holds)");
}

}  // namespace

Result<int64_t> ParseTimestamp(std::string_view text, TimeUnit unit) {
  auto parsed = ParseIsoDateTime(text);
  if (!parsed.ok()) {
    return Status::Invalid(QuoteForMessage(text), " is not a valid timestamp (",
                           parsed.status().message(), ")");
  }
  const std::optional<__int128> ticks = parsed->Ticks(TimeUnitDigits(unit));
  if (!ticks) return TooManyFractionDigits(text, "timestamp", unit);
  if (*ticks < std::numeric_limits<int64_t>::min() ||
      *ticks > std::numeric_limits<int64_t>::max()) {
    return Status::Invalid(QuoteForMessage(text), " is out of range for timestamp[",
                           TimeUnitSuffix(unit), "]");
  }
  return static_cast<int64_t>(*ticks);
}

Result<int64_t> ParseTimeOfDay(std::string_view text, TimeUnit unit) {
  std::string_view fraction;
  auto second_of_day = ParseIsoTimeOfDay(text, &fraction);
  if (!second_of_day.ok()) {
    return Status::Invalid(QuoteForMessage(text), " is not a valid time of day (",
                           second_of_day.status().message(), ")");
  }
  const std::optional<int64_t> ticks = FractionTicks(fraction, TimeUnitDigits(unit));
  if (!ticks) return TooManyFractionDigits(text, "time of day", unit);
  return *second_of_day * TicksPerSecond(unit) + *ticks;
}

std::string FormatDate64(int64_t millis) {
  constexpr int64_t kMillisPerDay = 86'400'000;
  if (millis % kMillisPerDay == 0) return FormatIsoDate(millis / kMillisPerDay);
  return FormatIsoTimestamp(millis, TimeUnit::kMilli, "");
}

Result<int64_t> ParseDate64(std::string_view text) {
  constexpr int64_t kMillisPerDay = 86'400'000;
  if (auto days = ParseDate(text); days.ok()) {
    const __int128 millis = static_cast<__int128>(*days) * kMillisPerDay;
    if (millis < std::numeric_limits<int64_t>::min() ||
        millis > std::numeric_limits<int64_t>::max()) {
      return Status::Invalid(QuoteForMessage(text) + " is out of range for date64");
    }
    return static_cast<int64_t>(millis);
  }
  // What FormatDate64 prints for a value that is not a whole day.
  auto millis = ParseTimestamp(text, TimeUnit::kMilli);
  if (!millis.ok()) {
    return Status::Invalid(QuoteForMessage(text) + " is not a valid date (expected " +
                           "YYYY-MM-DD)");
  }
  return millis;
}

}  // namespace lance::cli
