// SPDX-License-Identifier: Apache-2.0
#include "lance/core/float16.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace lance {
namespace {

TEST(Float16, EveryHalfRoundTrips) {
  for (uint32_t b = 0; b <= 0xFFFF; ++b) {
    const auto bits = static_cast<uint16_t>(b);
    const float f = HalfToFloat(bits);
    if (std::isnan(f)) {
      ASSERT_TRUE(std::isnan(HalfToDouble(bits))) << b;
      ASSERT_EQ(std::signbit(f), (bits & 0x8000) != 0) << b;
      ASSERT_EQ(DoubleToHalf(f), (bits & 0x8000) | 0x7E00) << b;
    } else {
      ASSERT_EQ(static_cast<double>(f), HalfToDouble(bits)) << b;
      ASSERT_EQ(DoubleToHalf(f), bits) << b;
    }
  }
}

TEST(Float16, RoundsToNearestEven) {
  EXPECT_EQ(HalfToFloat(0x3C00), 1.0f);
  EXPECT_EQ(HalfToFloat(0x7BFF), 65504.0f);
  EXPECT_EQ(HalfToFloat(0x0001), 0x1p-24f);
  EXPECT_EQ(DoubleToHalf(1.0 + 0x1p-11), 0x3C00);      // tie -> even (down)
  EXPECT_EQ(DoubleToHalf(1.0 + 3 * 0x1p-11), 0x3C02);  // tie -> even (up)
  EXPECT_EQ(DoubleToHalf(65519.99), 0x7BFF);
  EXPECT_EQ(DoubleToHalf(65520.0), 0x7C00);  // overflow
  EXPECT_EQ(DoubleToHalf(-1e300), 0xFC00);
  EXPECT_EQ(DoubleToHalf(0x1p-25), 0x0000);  // tie -> zero
  EXPECT_EQ(DoubleToHalf(3 * 0x1p-25), 0x0002);
  EXPECT_EQ(DoubleToHalf(-0.0), 0x8000);
  EXPECT_EQ(DoubleToHalf(-std::numeric_limits<double>::quiet_NaN()), 0xFE00);
  EXPECT_EQ(RoundToHalf(0.1), HalfToFloat(DoubleToHalf(0.1)));
  EXPECT_TRUE(std::signbit(RoundToHalf(-std::numeric_limits<double>::quiet_NaN())));
}

}  // namespace
}  // namespace lance
