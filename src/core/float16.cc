// SPDX-License-Identifier: Apache-2.0
#include "lance/core/float16.h"

#include <bit>
#include <cmath>

namespace lance {

float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1Fu;
  const uint32_t mant = h & 0x3FFu;
  if (exp == 0) {
    // Zero or subnormal: mant * 2^-24 is exact in float.
    const float magnitude = static_cast<float>(mant) * 0x1p-24f;
    return sign ? -magnitude : magnitude;
  }
  // Infinity / NaN keep their payload bits; normal numbers rebias the exponent (15 ->
  // 127).
  const uint32_t bits = exp == 0x1F ? (sign | 0x7F800000u | (mant << 13))
                                    : (sign | ((exp + 112) << 23) | (mant << 13));
  return std::bit_cast<float>(bits);
}

double HalfToDouble(uint16_t bits) { return static_cast<double>(HalfToFloat(bits)); }

uint16_t DoubleToHalf(double value) {
  const uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  if (std::isnan(value)) return static_cast<uint16_t>(sign | 0x7E00);
  const double a = std::fabs(value);
  if (std::isinf(a)) return static_cast<uint16_t>(sign | 0x7C00);
  if (a < 0x1p-14) {
    // Subnormal range: multiples of 2^-24; nearbyint rounds half to even, and 1024 units
    // land exactly on the smallest normal's bits.
    const double units = std::nearbyint(a * 0x1p24);
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(units));
  }
  int e2;
  const double m = std::frexp(a, &e2);  // a = m * 2^e2, m in [0.5, 1)
  const int exponent = e2 - 1;          // a = (2m) * 2^exponent
  if (exponent > 15) return static_cast<uint16_t>(sign | 0x7C00);
  // The leading bit is fixed, so rounding the 10 fraction bits to even rounds the whole
  // significand to even; a carry out of the fraction correctly bumps the exponent.
  const double frac = std::nearbyint((2 * m - 1) * 1024);
  const uint32_t bits =
      (static_cast<uint32_t>(exponent + 15) << 10) + static_cast<uint32_t>(frac);
  if (bits >= 0x7C00) return static_cast<uint16_t>(sign | 0x7C00);
  return static_cast<uint16_t>(sign | bits);
}

float RoundToHalf(double value) {
  if (std::isnan(value)) return static_cast<float>(value);
  return HalfToFloat(DoubleToHalf(value));
}

}  // namespace lance
