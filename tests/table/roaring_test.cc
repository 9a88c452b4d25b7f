// SPDX-License-Identifier: Apache-2.0
#include "table/roaring.h"

#include <gtest/gtest.h>

#include <random>

#include "tests/dataset/table_test_util.h"
#include "tests/testing/matchers.h"

namespace lance::table_internal {
namespace {

using namespace table_testing;  // NOLINT(build/namespaces)

std::vector<uint32_t> Range(uint32_t begin, uint32_t end) {
  std::vector<uint32_t> out;
  for (uint32_t v = begin; v < end; ++v) out.push_back(v);
  return out;
}

void ExpectRoundTrip(const std::vector<uint32_t>& values) {
  for (bool runs : {false, true}) {
    const std::string bytes = SerializeRoaring(values, runs);
    auto decoded = DeserializeRoaring(bytes, uint64_t{1} << 32, "test");
    ASSERT_TRUE(decoded.ok()) << decoded.status();
    EXPECT_EQ(*decoded, values) << "runs=" << runs;
  }
}

TEST(RoaringTest, RoundTripsArrayBitmapAndRunContainers) {
  ExpectRoundTrip({});
  ExpectRoundTrip({0});
  ExpectRoundTrip({7, 65535, 65536, 1u << 20, 0xFFFFFFFFu});
  ExpectRoundTrip(Range(0, 4096));     // largest array container
  ExpectRoundTrip(Range(0, 4097));     // smallest bitmap container
  ExpectRoundTrip(Range(10, 200000));  // several full containers (runs when allowed)
  std::mt19937 gen(42);
  std::vector<uint32_t> sparse;
  for (uint32_t v = 0; v < 1000000; v += 1 + gen() % 300) sparse.push_back(v);
  ExpectRoundTrip(sparse);
  std::vector<uint32_t> dense;
  for (uint32_t v = 0; v < 300000; ++v) {
    if (gen() % 4 != 0) dense.push_back(v);
  }
  ExpectRoundTrip(dense);
}

TEST(RoaringTest, WritesTheStandardLayout) {
  // {1, 2, 3} without runs: cookie 12346, one container (key 0, cardinality 3), one
  // offset (16), then three u16 values.
  const std::string bytes = SerializeRoaring({1, 2, 3});
  const std::string expected(
      "\x3a\x30\x00\x00\x01\x00\x00\x00\x00\x00\x02\x00"
      "\x10\x00\x00\x00\x01\x00\x02\x00\x03\x00",
      22);
  EXPECT_EQ(table_testing::Hex(bytes), table_testing::Hex(expected));

  // 0..99 with runs: cookie 12347 | (1 - 1) << 16, run flags 0x01, header (0, 99), no
  // offsets (fewer than 4 containers), then 1 run (start 0, length - 1 = 99).
  const std::string runs = SerializeRoaring(Range(0, 100), /*use_runs=*/true);
  const std::string expected_runs(
      "\x3b\x30\x00\x00\x01\x00\x00\x63\x00\x01\x00\x00\x00\x63\x00", 15);
  EXPECT_EQ(table_testing::Hex(runs), table_testing::Hex(expected_runs));
  // Without runs the same set is an array container (Lance's choice).
  EXPECT_EQ(SerializeRoaring(Range(0, 100)).substr(0, 4),
            std::string("\x3a\x30\x00\x00", 4));
}

TEST(RoaringTest, ReadsRunContainersWithOffsets) {
  // Four containers with runs: offsets present after the headers.
  std::vector<uint32_t> values;
  for (uint32_t key = 0; key < 4; ++key) {
    for (uint32_t v = 0; v < 1000; ++v) values.push_back((key << 16) + v);
  }
  const std::string bytes = SerializeRoaring(values, true);
  ASSERT_EQ(static_cast<uint8_t>(bytes[0]), 0x3b);
  auto decoded = DeserializeRoaring(bytes, uint64_t{1} << 32, "test");
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(*decoded, values);
}

TEST(RoaringTest, ReadsLanceBitmapDeletionFile) {
  // bitmap_del_v21: x = 0..5999 with x >= 500 deleted, stored by Lance 8 as .bin.
  const std::string dir =
      table_testing::FixtureDir() + "/bitmap_del_v21.lance/_deletions";
  std::string path;
  for (const auto& e : std::filesystem::directory_iterator(dir)) path = e.path();
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
  auto decoded = DeserializeRoaring(bytes, 6000, path);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(*decoded, Range(500, 6000));
  // Our writer produces the same bytes Lance wrote.
  EXPECT_EQ(SerializeRoaring(*decoded), bytes);
}

TEST(RoaringTest, RejectsMalformedInput) {
  const std::string good = SerializeRoaring({1, 5, 70000, 140000});
  for (size_t len = 0; len < good.size(); ++len) {
    EXPECT_THAT(DeserializeRoaring(good.substr(0, len), uint64_t{1} << 32, "t"),
                IsError(StatusCode::kCorrupt))
        << "truncated to " << len;
  }
  std::string bad_cookie = good;
  bad_cookie[0] = 0x11;
  EXPECT_THAT(DeserializeRoaring(bad_cookie, uint64_t{1} << 32, "t"),
              IsError(StatusCode::kCorrupt));
  // Values beyond the fragment are refused (and cannot make us allocate).
  EXPECT_THAT(DeserializeRoaring(good, 100000, "t"), IsError(StatusCode::kCorrupt));
  const std::string huge_runs = SerializeRoaring(Range(0, 1 << 20), true);
  EXPECT_THAT(DeserializeRoaring(huge_runs, 1000, "t"), IsError(StatusCode::kCorrupt));
  // Bit flips never crash.
  std::mt19937 gen(7);
  const std::string dense = SerializeRoaring(Range(0, 10000));
  for (int i = 0; i < 500; ++i) {
    std::string flipped = dense;
    flipped[gen() % flipped.size()] ^= static_cast<char>(1 << (gen() % 8));
    (void)DeserializeRoaring(flipped, uint64_t{1} << 32, "t");
  }
}

}  // namespace
}  // namespace lance::table_internal
