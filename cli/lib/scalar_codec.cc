// SPDX-License-Identifier: Apache-2.0
#include "lib/scalar_codec.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <system_error>
#include <type_traits>

#include "lib/json.h"

namespace lance::cli {

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

namespace {


int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

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

int FractionDigits(TimeUnit unit) {
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

void AppendPadded(int64_t value, int width, std::string* out) {
  std::string digits = std::to_string(value);
  if (static_cast<int>(digits.size()) < width) {
    out->append(static_cast<size_t>(width) - digits.size(), '0');
  }
  out->append(digits);
}

void AppendYear(int64_t year, std::string* out) {
  if (year < 0) {
    out->push_back('-');
    // |INT64_MIN| cannot occur: years derived from int64 days are far smaller.
    AppendPadded(-year, 4, out);
  } else if (year > 9999) {
    out->push_back('+');
    AppendPadded(year, 4, out);
  } else {
    AppendPadded(year, 4, out);
  }
}

void AppendDate(int64_t days, std::string* out) {
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  AppendYear(y, out);
  out->push_back('-');
  AppendPadded(m, 2, out);
  out->push_back('-');
  AppendPadded(d, 2, out);
}

std::string OffsetSuffix(int32_t offset_seconds) {
  if (offset_seconds == 0) return "Z";
  std::string out(1, offset_seconds < 0 ? '-' : '+');
  const int32_t a = offset_seconds < 0 ? -offset_seconds : offset_seconds;
  AppendPadded(a / 3600, 2, &out);
  out.push_back(':');
  AppendPadded((a / 60) % 60, 2, &out);
  if (a % 60 != 0) {
    out.push_back(':');
    AppendPadded(a % 60, 2, &out);
  }
  return out;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Reads exactly `n` digits at text[*pos].
bool ReadDigits(std::string_view text, size_t* pos, int n, int64_t* out) {
  if (*pos + static_cast<size_t>(n) > text.size()) return false;
  int64_t v = 0;
  for (int k = 0; k < n; ++k) {
    const char c = text[*pos + static_cast<size_t>(k)];
    if (!IsDigit(c)) return false;
    v = v * 10 + (c - '0');
  }
  *pos += static_cast<size_t>(n);
  *out = v;
  return true;
}

bool IsLeapYear(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

unsigned DaysInMonth(int64_t y, unsigned m) {
  static const unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeapYear(y) ? 29 : kDays[m - 1];
}

// Parses the date at the start of `text`, leaving *pos after it.
Status ParseDatePrefix(std::string_view text, size_t* pos, int64_t* days) {
  size_t p = 0;
  bool negative = false;
  if (p < text.size() && (text[p] == '+' || text[p] == '-')) {
    negative = text[p] == '-';
    ++p;
  }
  const size_t year_start = p;
  while (p < text.size() && IsDigit(text[p])) ++p;
  const size_t year_digits = p - year_start;
  if (year_digits < 4 || year_digits > 9) {
    return Status::Invalid("expected YYYY-MM-DD");
  }
  int64_t year = 0;
  for (size_t k = year_start; k < p; ++k) year = year * 10 + (text[k] - '0');
  if (negative) year = -year;
  int64_t month, day;
  if (p >= text.size() || text[p] != '-') return Status::Invalid("expected YYYY-MM-DD");
  ++p;
  if (!ReadDigits(text, &p, 2, &month)) return Status::Invalid("expected YYYY-MM-DD");
  if (p >= text.size() || text[p] != '-') return Status::Invalid("expected YYYY-MM-DD");
  ++p;
  if (!ReadDigits(text, &p, 2, &day)) return Status::Invalid("expected YYYY-MM-DD");
  if (month < 1 || month > 12) return Status::Invalid("month out of range");
  if (day < 1 || day > DaysInMonth(year, static_cast<unsigned>(month))) {
    return Status::Invalid("day out of range");
  }
  *days = DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  *pos = p;
  return Status::OK();
}

// Parses "Z", "+HH", "+HHMM", "+HH:MM" (and seconds "+HH:MM:SS") covering all of `text`.
std::optional<int32_t> ParseOffsetText(std::string_view text) {
  if (text.size() == 1 && (text[0] == 'Z' || text[0] == 'z')) return 0;
  if (text.empty() || (text[0] != '+' && text[0] != '-')) return std::nullopt;
  const int sign = text[0] == '-' ? -1 : 1;
  size_t p = 1;
  int64_t h = 0, m = 0, s = 0;
  if (!ReadDigits(text, &p, 2, &h)) return std::nullopt;
  if (p < text.size()) {
    if (text[p] == ':') ++p;
    if (!ReadDigits(text, &p, 2, &m)) return std::nullopt;
    if (p < text.size()) {
      if (text[p] == ':') ++p;
      if (!ReadDigits(text, &p, 2, &s)) return std::nullopt;
    }
  }
  if (p != text.size() || h > 23 || m > 59 || s > 59) return std::nullopt;
  return static_cast<int32_t>(sign * (h * 3600 + m * 60 + s));
}

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

// --- float16 ---------------------------------------------------------------------------

double HalfToDouble(uint16_t bits) {
  const bool negative = (bits & 0x8000) != 0;
  const int exponent = (bits >> 10) & 0x1F;
  const int mantissa = bits & 0x3FF;
  double magnitude;
  if (exponent == 0) {
    magnitude = std::ldexp(static_cast<double>(mantissa), -24);
  } else if (exponent == 0x1F) {
    magnitude = mantissa == 0 ? std::numeric_limits<double>::infinity()
                              : std::numeric_limits<double>::quiet_NaN();
  } else {
    magnitude = std::ldexp(static_cast<double>(mantissa + 1024), exponent - 25);
  }
  return negative ? -magnitude : magnitude;
}

uint16_t DoubleToHalf(double value) {
  const uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  if (std::isnan(value)) return static_cast<uint16_t>(sign | 0x7E00);
  const double a = std::fabs(value);
  if (std::isinf(a)) return static_cast<uint16_t>(sign | 0x7C00);
  if (a < std::ldexp(1.0, -14)) {
    // Subnormal range: multiples of 2^-24. nearbyint rounds half to even.
    const double units = std::nearbyint(std::ldexp(a, 24));
    return static_cast<uint16_t>(sign |
                                 static_cast<uint16_t>(units));  // 1024 -> min normal
  }
  int e2;
  const double m = std::frexp(a, &e2);  // a = m * 2^e2, m in [0.5, 1)
  const int exponent = e2 - 1;          // a = (2m) * 2^exponent
  if (exponent > 15) return static_cast<uint16_t>(sign | 0x7C00);
  const double frac = std::nearbyint((2 * m - 1) * 1024);  // exact before rounding
  const uint32_t bits = (static_cast<uint32_t>(exponent + 15) << 10) +
                        static_cast<uint32_t>(frac);  // a carry bumps the exponent
  if (bits >= 0x7C00) return static_cast<uint16_t>(sign | 0x7C00);
  return static_cast<uint16_t>(sign | bits);
}

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

std::string FormatDate(int64_t days) {
  std::string out;
  AppendDate(days, &out);
  return out;
}

std::string FormatTimestamp(int64_t value, TimeUnit unit, const std::string& timezone) {
  const int64_t tps = TicksPerSecond(unit);
  const int64_t seconds = FloorDiv(value, tps);
  int64_t fraction = value % tps;  // seconds * tps may overflow; the remainder cannot
  if (fraction < 0) fraction += tps;
  std::string suffix;
  __int128 local = seconds;
  if (!timezone.empty()) {
    suffix = "Z";
    if (!IsUtcTimezone(timezone)) {
      if (auto offset = ParseFixedOffset(timezone)) {
        local += *offset;
        suffix = OffsetSuffix(*offset);
      }
    }
  }
  const int64_t days =
      static_cast<int64_t>(local >= 0 ? local / 86400 : -((-local + 86399) / 86400));
  const int64_t sod = static_cast<int64_t>(local - static_cast<__int128>(days) * 86400);
  std::string out;
  AppendDate(days, &out);
  out.push_back('T');
  AppendPadded(sod / 3600, 2, &out);
  out.push_back(':');
  AppendPadded((sod / 60) % 60, 2, &out);
  out.push_back(':');
  AppendPadded(sod % 60, 2, &out);
  const int digits = FractionDigits(unit);
  if (digits > 0) {
    out.push_back('.');
    AppendPadded(fraction, digits, &out);
  }
  out += suffix;
  return out;
}

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

// --- time zones ------------------------------------------------------------------------

bool IsUtcTimezone(std::string_view tz) {
  for (const char* name :
       {"UTC", "Z", "Etc/UTC", "GMT", "Etc/GMT", "Zulu", "Universal"}) {
    if (EqualsIgnoreCase(tz, name)) return true;
  }
  const auto offset = ParseFixedOffset(tz);
  return offset && *offset == 0;
}

std::optional<int32_t> ParseFixedOffset(std::string_view tz) {
  if (tz.empty() || (tz[0] != '+' && tz[0] != '-')) return std::nullopt;
  return ParseOffsetText(tz);
}

// --- calendar --------------------------------------------------------------------------

int64_t DaysFromCivil(int64_t year, unsigned month, unsigned day) {
  // Count from 0000-03-01 so that the leap day is the last day of a year; a 400-year era
  // has 146097 days.
  const int64_t y = month <= 2 ? year - 1 : year;
  const int64_t era = FloorDiv(y, 400);
  const int64_t year_of_era = y - era * 400;                            // [0, 399]
  const int64_t shifted_month = month > 2 ? month - 3 : month + 9;      // March = 0
  const int64_t day_of_year = (153 * shifted_month + 2) / 5 + day - 1;  // [0, 365]
  const int64_t day_of_era =
      year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + day_of_era - 719468;  // 719468: 0000-03-01 to 1970-01-01
}

void CivilFromDays(int64_t days, int64_t* year, unsigned* month, unsigned* day) {
  const int64_t z = days + 719468;
  const int64_t era = FloorDiv(z, 146097);
  const int64_t day_of_era = z - era * 146097;  // [0, 146096]
  const int64_t year_of_era =
      (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
  const int64_t day_of_year =
      day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  const int64_t shifted_month = (5 * day_of_year + 2) / 153;  // March = 0
  *day = static_cast<unsigned>(day_of_year - (153 * shifted_month + 2) / 5 + 1);
  *month =
      static_cast<unsigned>(shifted_month < 10 ? shifted_month + 3 : shifted_month - 9);
  *year = year_of_era + era * 400 + (*month <= 2 ? 1 : 0);
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
  if (EqualsIgnoreCase(body, "nan")) {
    *special = std::numeric_limits<double>::quiet_NaN();
    if (negative) *special = -*special;
    return true;
  }
  if (EqualsIgnoreCase(body, "inf") || EqualsIgnoreCase(body, "infinity")) {
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
  size_t pos = 0;
  int64_t days = 0;
  Status st = ParseDatePrefix(text, &pos, &days);
  if (!st.ok() || pos != text.size()) {
    return Status::Invalid(QuoteForMessage(text) + " is not a valid date (" +
                           (st.ok() ? std::string("expected YYYY-MM-DD") : st.message()) +
                           ")");
  }
  return days;
}

Result<int32_t> ParseDate32(std::string_view text) {
  auto days = ParseDate(text);
  if (!days.ok()) return days.status();
  if (*days < std::numeric_limits<int32_t>::min() ||
      *days > std::numeric_limits<int32_t>::max()) {
    return Status::Invalid(QuoteForMessage(text) + " is out of range for date32");
  }
  return static_cast<int32_t>(*days);
}

Result<int64_t> ParseTimestamp(std::string_view text, TimeUnit unit) {
  const auto invalid = [&](const std::string& why) {
    return Status::Invalid(QuoteForMessage(text) + " is not a valid timestamp (" + why +
                           ")");
  };
  size_t p = 0;
  int64_t days = 0;
  Status st = ParseDatePrefix(text, &p, &days);
  if (!st.ok()) return invalid(st.message());
  int64_t h = 0, m = 0, s = 0, frac_ticks = 0;
  const int unit_digits = FractionDigits(unit);
  if (p < text.size() && (text[p] == 'T' || text[p] == 't' || text[p] == ' ')) {
    ++p;
    if (!ReadDigits(text, &p, 2, &h)) return invalid("expected HH:MM");
    if (p >= text.size() || text[p] != ':') return invalid("expected HH:MM");
    ++p;
    if (!ReadDigits(text, &p, 2, &m)) return invalid("expected HH:MM");
    if (p < text.size() && text[p] == ':') {
      ++p;
      if (!ReadDigits(text, &p, 2, &s)) return invalid("expected HH:MM:SS");
      if (p < text.size() && (text[p] == '.' || text[p] == ',')) {
        ++p;
        int n = 0;
        while (p < text.size() && IsDigit(text[p])) {
          const int digit = text[p] - '0';
          if (n < unit_digits) {
            frac_ticks = frac_ticks * 10 + digit;
          } else if (digit != 0) {
            return invalid(std::string("more fractional digits than unit '") +
                           TimeUnitSuffix(unit) + "' holds");
          }
          ++n;
          ++p;
        }
        if (n == 0) return invalid("expected digits after the decimal point");
        for (int k = n; k < unit_digits; ++k) frac_ticks *= 10;
      }
    }
    if (h > 23 || m > 59 || s > 59) return invalid("time of day out of range");
  }
  int32_t offset = 0;
  if (p < text.size()) {
    auto parsed = ParseOffsetText(text.substr(p));
    if (!parsed) return invalid("unexpected text " + QuoteForMessage(text.substr(p)));
    offset = *parsed;
  }
  const __int128 seconds =
      static_cast<__int128>(days) * 86400 + h * 3600 + m * 60 + s - offset;
  const __int128 ticks = seconds * TicksPerSecond(unit) + frac_ticks;
  if (ticks < std::numeric_limits<int64_t>::min() ||
      ticks > std::numeric_limits<int64_t>::max()) {
    return Status::Invalid(QuoteForMessage(text) + " is out of range for timestamp[" +
                           TimeUnitSuffix(unit) + "]");
  }
  return static_cast<int64_t>(ticks);
}

std::string FormatTimeOfDay(int64_t value, TimeUnit unit) {
  const int64_t tps = TicksPerSecond(unit);
  if (value < 0 || value >= 86'400 * tps) return std::to_string(value);
  const int64_t sod = value / tps;
  std::string out;
  AppendPadded(sod / 3600, 2, &out);
  out.push_back(':');
  AppendPadded((sod / 60) % 60, 2, &out);
  out.push_back(':');
  AppendPadded(sod % 60, 2, &out);
  const int digits = FractionDigits(unit);
  if (digits > 0) {
    out.push_back('.');
    AppendPadded(value % tps, digits, &out);
  }
  return out;
}

Result<int64_t> ParseTimeOfDay(std::string_view text, TimeUnit unit) {
  const auto invalid = [&](const std::string& why) {
    return Status::Invalid(QuoteForMessage(text) + " is not a valid time of day (" + why +
                           ")");
  };
  size_t p = 0;
  int64_t h = 0, m = 0, s = 0, frac_ticks = 0;
  if (!ReadDigits(text, &p, 2, &h) || p >= text.size() || text[p] != ':') {
    return invalid("expected HH:MM[:SS[.fraction]]");
  }
  ++p;
  if (!ReadDigits(text, &p, 2, &m)) return invalid("expected HH:MM");
  if (p < text.size() && text[p] == ':') {
    ++p;
    if (!ReadDigits(text, &p, 2, &s)) return invalid("expected HH:MM:SS");
    if (p < text.size() && (text[p] == '.' || text[p] == ',')) {
      ++p;
      const int unit_digits = FractionDigits(unit);
      int n = 0;
      while (p < text.size() && IsDigit(text[p])) {
        const int digit = text[p] - '0';
        if (n < unit_digits) {
          frac_ticks = frac_ticks * 10 + digit;
        } else if (digit != 0) {
          return invalid(std::string("more fractional digits than unit '") +
                         TimeUnitSuffix(unit) + "' holds");
        }
        ++n;
        ++p;
      }
      if (n == 0) return invalid("expected digits after the decimal point");
      for (int k = n; k < unit_digits; ++k) frac_ticks *= 10;
    }
  }
  if (p != text.size())
    return invalid("unexpected text " + QuoteForMessage(text.substr(p)));
  if (h > 23 || m > 59 || s > 59) return invalid("out of range");
  return (h * 3600 + m * 60 + s) * TicksPerSecond(unit) + frac_ticks;
}

std::string FormatDate64(int64_t millis) {
  constexpr int64_t kMillisPerDay = 86'400'000;
  if (millis % kMillisPerDay == 0) return FormatDate(millis / kMillisPerDay);
  return FormatTimestamp(millis, TimeUnit::kMilli, "");
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
