// SPDX-License-Identifier: Apache-2.0
#include "lance/core/ascii.h"

#include <gtest/gtest.h>

namespace lance {
namespace {

TEST(AsciiTest, LowersOnlyAsciiLetters) {
  EXPECT_EQ(AsciiToLower("AWS_Region-1"), "aws_region-1");
  EXPECT_EQ(AsciiToLower("\xC3\x84X"), "\xC3\x84x");  // UTF-8 bytes untouched
  EXPECT_EQ(AsciiToLower(""), "");
}

TEST(AsciiTest, ComparesIgnoringCase) {
  EXPECT_TRUE(EqualsIgnoreAsciiCase("Content-Length", "content-length"));
  EXPECT_FALSE(EqualsIgnoreAsciiCase("ETag", "ETags"));
  EXPECT_FALSE(EqualsIgnoreAsciiCase("a[", "A{"));  // '[' and '{' differ by 0x20 but are not letters
}

TEST(AsciiTest, EncodesEveryUtf8Length) {
  std::string out;
  AppendUtf8(0x41, &out);
  AppendUtf8(0xE9, &out);
  AppendUtf8(0x20AC, &out);
  AppendUtf8(0x1F600, &out);
  EXPECT_EQ(out, "A\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");
}

}  // namespace
}  // namespace lance
