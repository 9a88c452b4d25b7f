// SPDX-License-Identifier: Apache-2.0
// Decimal text conversion on raw little-endian two's complement bytes. Every value is
// widened to 256 bits (sign-extended), so one small fixed-width integer type serves
// both decimal widths.

#include "lance/core/decimal.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace lance {

namespace {

// A 256-bit two's complement integer in four little-endian 64-bit words.
struct Int256 {
  uint64_t w[4] = {0, 0, 0, 0};

  static Int256 Load(const uint8_t* bytes, int width) {
    Int256 v;
    const int words = width / 8;
    std::memcpy(v.w, bytes, static_cast<size_t>(width));
    const uint64_t fill = (v.w[words - 1] >> 63) != 0 ? ~uint64_t{0} : 0;
    for (int i = words; i < 4; ++i) v.w[i] = fill;
    return v;
  }

  void Store(uint8_t* bytes, int width) const {
    std::memcpy(bytes, w, static_cast<size_t>(width));
  }

  bool negative() const { return (w[3] >> 63) != 0; }
  bool is_zero() const { return (w[0] | w[1] | w[2] | w[3]) == 0; }

  void Negate() {
    uint64_t carry = 1;
    for (uint64_t& word : w) {
      word = ~word + carry;
      carry = (carry != 0 && word == 0) ? 1 : 0;
    }
  }

  // *this = *this * m + a, as unsigned; false if the result does not fit 256 bits.
  bool MulAdd(uint64_t m, uint64_t a) {
    unsigned __int128 carry = a;
    for (uint64_t& word : w) {
      const unsigned __int128 product = static_cast<unsigned __int128>(word) * m + carry;
      word = static_cast<uint64_t>(product);
      carry = product >> 64;
    }
    return carry == 0;
  }

  // *this /= d (unsigned), returning the remainder.
  uint32_t DivMod(uint32_t d) {
    unsigned __int128 rem = 0;
    for (int i = 3; i >= 0; --i) {
      const unsigned __int128 cur = (rem << 64) | w[i];
      w[i] = static_cast<uint64_t>(cur / d);
      rem = cur % d;
    }
    return static_cast<uint32_t>(rem);
  }

  // Unsigned comparison.
  bool LessThan(const Int256& other) const {
    for (int i = 3; i >= 0; --i) {
      if (w[i] != other.w[i]) return w[i] < other.w[i];
    }
    return false;
  }
};

// Scales beyond this (in absolute value) are printed with an exponent; a decimal256 has
// at most 77 digits, so plain notation up to here stays short.
constexpr int32_t kMaxPlainScale = 100;

// 10^n as an unsigned 256-bit value; n <= 77 fits.
Int256 PowerOfTen(int32_t n) {
  Int256 v;
  v.w[0] = 1;
  for (int32_t i = 0; i < n; ++i) v.MulAdd(10, 0);
  return v;
}

// Digits of the magnitude, most significant first ("0" for zero).
std::string MagnitudeDigits(Int256 magnitude) {
  std::string digits;
  do {
    digits.push_back(static_cast<char>('0' + magnitude.DivMod(10)));
  } while (!magnitude.is_zero());
  std::reverse(digits.begin(), digits.end());
  return digits;
}

}  // namespace

std::string FormatDecimal(const uint8_t* value, int byte_width, int32_t scale) {
  Int256 v = Int256::Load(value, byte_width);
  const bool negative = v.negative();
  // Negating the most negative 256-bit value wraps to itself; read as unsigned it is
  // still the right magnitude (2^255).
  if (negative) v.Negate();
  std::string digits = MagnitudeDigits(v);
  std::string out;
  if (negative) out.push_back('-');
  if (scale > kMaxPlainScale || scale < -kMaxPlainScale) {
    // Arrow allows any int32 scale; written out, one could take gigabytes.
    out += digits;
    out += scale > 0 ? "E-" : "E+";
    out += std::to_string(scale > 0 ? static_cast<int64_t>(scale)
                                    : -static_cast<int64_t>(scale));
    return out;
  }
  if (scale <= 0) {
    out += digits;
    if (digits != "0") out.append(static_cast<size_t>(-static_cast<int64_t>(scale)), '0');
    return out;
  }
  const auto frac = static_cast<size_t>(scale);
  if (digits.size() <= frac) digits.insert(0, frac + 1 - digits.size(), '0');
  out.append(digits, 0, digits.size() - frac);
  out.push_back('.');
  out.append(digits, digits.size() - frac, frac);
  return out;
}

Status ParseDecimal(std::string_view text, const DataType& type, uint8_t* out) {
  auto fail = [&](const std::string& why) {
    return Status::Invalid("'" + std::string(text.substr(0, 80)) + "' is not a valid " +
                           type.ToString() + " value: " + why);
  };
  if (!type.is_decimal()) return Status::Invalid("ParseDecimal: not a decimal type");
  size_t pos = 0;
  bool negative = false;
  if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    negative = text[pos] == '-';
    ++pos;
  }
  Int256 mantissa;
  int64_t significant = 0;  // digits accumulated after leading zeros
  int64_t fraction_digits = 0;
  int64_t digit_count = 0;
  bool seen_point = false;
  for (; pos < text.size(); ++pos) {
    const char c = text[pos];
    if (c == '.') {
      if (seen_point) return fail("two decimal points");
      seen_point = true;
      continue;
    }
    if (c < '0' || c > '9') break;
    ++digit_count;
    if (seen_point) ++fraction_digits;
    if (significant == 0 && c == '0') continue;
    // More than 77 significant digits cannot fit any decimal type; stop before the
    // 256-bit accumulator could overflow.
    if (++significant > 77) return fail("too many digits");
    mantissa.MulAdd(10, static_cast<uint64_t>(c - '0'));
  }
  if (digit_count == 0) return fail("no digits");
  int64_t exponent = 0;
  if (pos < text.size() && (text[pos] == 'e' || text[pos] == 'E')) {
    ++pos;
    bool exp_negative = false;
    if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
      exp_negative = text[pos] == '-';
      ++pos;
    }
    const size_t exp_start = pos;
    for (; pos < text.size() && text[pos] >= '0' && text[pos] <= '9'; ++pos) {
      if (exponent > 100000) return fail("exponent out of range");
      exponent = exponent * 10 + (text[pos] - '0');
    }
    if (pos == exp_start) return fail("no digits in the exponent");
    if (exp_negative) exponent = -exponent;
  }
  if (pos != text.size()) return fail("unexpected character");
  // unscaled = mantissa * 10^(exponent - fraction_digits + scale)
  int64_t shift = exponent - fraction_digits + type.scale();
  if (shift < 0) {
    // Dropping digits is only exact when they are zeros.
    while (shift < 0 && !mantissa.is_zero()) {
      Int256 quotient = mantissa;
      if (quotient.DivMod(10) != 0) {
        return fail("more than " + std::to_string(type.scale()) + " fraction digits");
      }
      mantissa = quotient;
      ++shift;
    }
    shift = 0;
  }
  if (!mantissa.is_zero()) {
    for (int64_t i = 0; i < shift; ++i) {
      if (!mantissa.MulAdd(10, 0) || (mantissa.w[3] >> 63) != 0) {
        return fail("too many digits for precision " + std::to_string(type.precision()));
      }
    }
  }
  const int32_t precision = std::clamp<int32_t>(type.precision(), 0, 77);
  if (!mantissa.LessThan(PowerOfTen(precision))) {
    return fail("more than " + std::to_string(type.precision()) + " digits");
  }
  if (negative) mantissa.Negate();
  mantissa.Store(out, type.byte_width());
  return Status::OK();
}

void DecimalFromInt64(int64_t unscaled, int byte_width, uint8_t* out) {
  Int256 v;
  v.w[0] = static_cast<uint64_t>(unscaled);
  const uint64_t fill = unscaled < 0 ? ~uint64_t{0} : 0;
  v.w[1] = v.w[2] = v.w[3] = fill;
  v.Store(out, byte_width);
}

bool DecimalFitsPrecision(const uint8_t* value, int byte_width, int32_t precision) {
  Int256 v = Int256::Load(value, byte_width);
  if (v.negative()) {
    v.Negate();
    if (v.negative()) return false;  // -2^255 has no positive counterpart
  }
  return v.LessThan(PowerOfTen(std::clamp<int32_t>(precision, 0, 77)));
}

}  // namespace lance
