// SPDX-License-Identifier: Apache-2.0
#include "lance/core/enum_names.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "lance/core/logging.h"
#include "lance/status.h"

namespace lance {
namespace {

enum class Color { kRed, kGreen, kBlue };
constexpr auto kColorNames = MakeEnumNames<Color>("red", "green", "blue");
static_assert(kColorNames.size() == EnumCount(Color::kBlue));
static_assert(kColorNames.Name(Color::kGreen, "?") == "green");
static_assert(kColorNames.Find("blue") == Color::kBlue);

TEST(EnumNamesTest, NamesFindsAndFallsBack) {
  EXPECT_EQ(kColorNames.Name(Color::kRed, "?"), "red");
  EXPECT_EQ(kColorNames.Name(static_cast<Color>(7), "?"), "?");
  EXPECT_EQ(kColorNames.Find("green"), Color::kGreen);
  EXPECT_EQ(kColorNames.Find("Green"), std::nullopt);
  EXPECT_EQ(kColorNames.Find(""), std::nullopt);
}

// The tables that replaced the name switches keep every old name (each distinct, none
// the fallback) and the old fallbacks for values outside the enum.
TEST(EnumNamesTest, StatusCodeNamesAreDistinctAndComplete) {
  std::set<std::string> names;
  for (int i = 0; i <= static_cast<int>(StatusCode::kCommitStateUnknown); ++i) {
    names.emplace(StatusCodeName(static_cast<StatusCode>(i)));
  }
  EXPECT_EQ(names.size(), static_cast<size_t>(StatusCode::kCommitStateUnknown) + 1);
  EXPECT_EQ(StatusCodeName(StatusCode::kOk), "OK");
  EXPECT_EQ(StatusCodeName(StatusCode::kCommitStateUnknown), "CommitStateUnknown");
  EXPECT_EQ(StatusCodeName(static_cast<StatusCode>(99)), "Unknown");
}

TEST(EnumNamesTest, LogLevelNames) {
  EXPECT_EQ(LogLevelName(LogLevel::kTrace), "TRACE");
  EXPECT_EQ(LogLevelName(LogLevel::kOff), "OFF");
  EXPECT_EQ(LogLevelName(static_cast<LogLevel>(42)), "?");
}

}  // namespace
}  // namespace lance
