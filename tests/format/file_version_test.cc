// SPDX-License-Identifier: Apache-2.0
#include "lance/format/file_version.h"

#include <gtest/gtest.h>

#include "tests/testing/matchers.h"

namespace lance::format {
namespace {

using ::lance::testing::IsError;
using ::lance::testing::IsErrorWith;

TEST(FileVersionTest, ParsesLanceSpellings) {
  EXPECT_EQ(*ParseFileVersion("2.0"), LanceFileVersion::kV2_0);
  EXPECT_EQ(*ParseFileVersion("0.3"), LanceFileVersion::kV2_0);
  EXPECT_EQ(*ParseFileVersion("2.1"), LanceFileVersion::kV2_1);
  EXPECT_EQ(*ParseFileVersion("2.2"), LanceFileVersion::kV2_2);
  // pylance 14: "stable" is 2.2.
  EXPECT_EQ(*ParseFileVersion("stable"), LanceFileVersion::kV2_2);
  EXPECT_EQ(*ParseFileVersion("legacy"), LanceFileVersion::kLegacy);
  EXPECT_EQ(*ParseFileVersion("0.1"), LanceFileVersion::kLegacy);
  EXPECT_THAT(ParseFileVersion("next"), IsErrorWith(StatusCode::kNotImplemented, "2.3"));
  EXPECT_THAT(ParseFileVersion("2.3"), IsError(StatusCode::kNotImplemented));
  EXPECT_THAT(ParseFileVersion("banana"), IsErrorWith(StatusCode::kInvalid, "banana"));
}

TEST(FileVersionTest, WritableVersionsExcludeLegacy) {
  EXPECT_EQ(*ParseWritableFileVersion("stable"), LanceFileVersion::kV2_2);
  EXPECT_EQ(*ParseWritableFileVersion("2.0"), LanceFileVersion::kV2_0);
  EXPECT_THAT(ParseWritableFileVersion("legacy"),
              IsErrorWith(StatusCode::kNotImplemented, "legacy"));
  EXPECT_THAT(ParseWritableFileVersion("next"), IsError(StatusCode::kNotImplemented));
}

TEST(FileVersionTest, Spellings) {
  EXPECT_EQ(FileVersionString(LanceFileVersion::kLegacy), "0.1");
  EXPECT_EQ(FileVersionString(LanceFileVersion::kV2_0), "2.0");
  EXPECT_EQ(FileVersionString(LanceFileVersion::kV2_1), "2.1");
  EXPECT_EQ(FileVersionString(LanceFileVersion::kV2_2), "2.2");
}

}  // namespace
}  // namespace lance::format
