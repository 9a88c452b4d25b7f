// SPDX-License-Identifier: Apache-2.0
#include "lance/core/text.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace lance {
namespace {

TEST(Text, TrimAscii) {
  EXPECT_EQ(TrimAscii("  a b \t\r\n"), "a b");
  EXPECT_EQ(TrimAscii(" \t "), "");
  EXPECT_EQ(TrimAscii(""), "");
  EXPECT_EQ(TrimAscii("\rx\r", " \t"), "\rx\r");
  EXPECT_EQ(TrimAscii("//a//", "/"), "a");
}

TEST(Text, ParseDecimalInteger) {
  EXPECT_EQ(ParseDecimalInteger<int64_t>("-9223372036854775808"), INT64_MIN);
  EXPECT_EQ(ParseDecimalInteger<uint64_t>("18446744073709551615"), UINT64_MAX);
  EXPECT_EQ(ParseDecimalInteger<int8_t>("127"), 127);
  EXPECT_FALSE(ParseDecimalInteger<int8_t>("128"));
  EXPECT_FALSE(ParseDecimalInteger<int32_t>("12x"));
  EXPECT_FALSE(ParseDecimalInteger<int32_t>(" 12"));
  EXPECT_FALSE(ParseDecimalInteger<int32_t>(""));
  EXPECT_FALSE(ParseDecimalInteger<uint32_t>("-1"));
}

}  // namespace
}  // namespace lance
