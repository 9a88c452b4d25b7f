// SPDX-License-Identifier: Apache-2.0
#include "lance/core/time_zone.h"

#include <gtest/gtest.h>

namespace lance {
namespace {

TEST(TimeZone, FixedOffsets) {
  EXPECT_EQ(FixedZoneOffset(""), 0);
  for (const char* utc : {"UTC", "utc", "Z", "Etc/UTC", "GMT", "Etc/GMT", "Zulu", "GMT0",
                          "Etc/GMT+0", "Etc/GMT-0", "+00:00"}) {
    EXPECT_EQ(FixedZoneOffset(utc), 0) << utc;
    EXPECT_TRUE(IsUtcZone(utc)) << utc;
  }
  EXPECT_FALSE(IsUtcZone(""));
  EXPECT_EQ(FixedZoneOffset("+08:00"), 8 * 3600);
  EXPECT_EQ(FixedZoneOffset("-0530"), -(5 * 3600 + 30 * 60));
  EXPECT_EQ(FixedZoneOffset("+05"), 5 * 3600);
  // The POSIX sign: Etc/GMT+8 is eight hours west of Greenwich.
  EXPECT_EQ(FixedZoneOffset("Etc/GMT+8"), -8 * 3600);
  EXPECT_EQ(FixedZoneOffset("etc/gmt-14"), 14 * 3600);
  EXPECT_FALSE(FixedZoneOffset("Etc/GMT+15"));
  EXPECT_FALSE(FixedZoneOffset("GMT+5"));
  EXPECT_FALSE(FixedZoneOffset("America/New_York"));
  EXPECT_FALSE(IsUtcZone("Europe/London"));
}

TEST(TimeZone, NamedZonesAreRefusedClearly) {
  EXPECT_EQ(*ResolveZoneOffset("Etc/GMT+8"), -8 * 3600);
  auto st = ResolveZoneOffset("Europe/Paris").status();
  EXPECT_TRUE(st.IsNotImplemented());
  EXPECT_NE(st.message().find("'Europe/Paris'"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("Etc/GMT+N"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace lance
