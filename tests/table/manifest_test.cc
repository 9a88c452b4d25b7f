// SPDX-License-Identifier: Apache-2.0
#include "table/manifest.h"

#include <gtest/gtest.h>

#include "lance/io/local_object_store.h"
#include "lance/io/memory_object_store.h"
#include "tests/dataset/table_test_util.h"
#include "tests/testing/matchers.h"

namespace lance::table_internal {
namespace {

using namespace table_testing;  // NOLINT(build/namespaces)

TEST(ManifestNamingTest, V1AndV2Names) {
  EXPECT_EQ(ManifestFileName(1, NamingScheme::kV1), "1.manifest");
  EXPECT_EQ(ManifestFileName(123, NamingScheme::kV1), "123.manifest");
  EXPECT_EQ(ManifestFileName(1, NamingScheme::kV2), "18446744073709551614.manifest");
  EXPECT_EQ(ManifestFileName(3, NamingScheme::kV2), "18446744073709551612.manifest");
  // Zero-padded to 20 digits for large versions.
  EXPECT_EQ(ManifestFileName(18446744073709551615ull - 5, NamingScheme::kV2),
            "00000000000000000005.manifest");
  for (uint64_t v : {1ull, 2ull, 99ull, 1000000ull}) {
    for (NamingScheme s : {NamingScheme::kV1, NamingScheme::kV2}) {
      auto parsed = ParseManifestFileName(ManifestFileName(v, s));
      ASSERT_TRUE(parsed.has_value());
      EXPECT_EQ(parsed->version, v);
      EXPECT_EQ(parsed->scheme, s);
    }
  }
}

TEST(ManifestNamingTest, IgnoresNonManifestNames) {
  for (const char* name :
       {"latest_version_hint.json", "7.manifest-6e2f", ".tmp_7.manifest_x",
        "d18446744073709551614.manifest", "0.manifest", "x.manifest", ".manifest",
        "1.manifest.tmp", "-1.manifest"}) {
    EXPECT_FALSE(ParseManifestFileName(name).has_value()) << name;
  }
}

TEST(ManifestFileTest, FramingRoundTripsWithSections) {
  pb::Manifest m;
  m.set_version(7);
  m.add_fragments()->set_id(3);
  pb::Transaction txn;
  txn.set_read_version(6);
  txn.set_uuid("u");
  txn.mutable_append();
  const std::string index("\x0a\x02\x08\x01", 4);
  const std::string bytes = SerializeManifestFile(m, index, &txn);
  // Footer: offset, 0, 2, "LANC".
  ASSERT_GE(bytes.size(), 16u);
  EXPECT_EQ(bytes.substr(bytes.size() - 4), "LANC");
  EXPECT_EQ(bytes[bytes.size() - 6], 2);
  auto parsed = ParseManifestFile(bytes, "m");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->manifest.version(), 7u);
  EXPECT_EQ(parsed->manifest.fragments(0).id(), 3u);
  EXPECT_EQ(parsed->index_section, index);
  EXPECT_EQ(parsed->manifest.index_section(), 0u);
  ASSERT_TRUE(parsed->transaction_section.has_value());
  pb::Transaction back;
  ASSERT_TRUE(back.ParseFromString(*parsed->transaction_section));
  EXPECT_EQ(back.read_version(), 6u);

  // Without sections neither offset is set.
  auto plain = ParseManifestFile(SerializeManifestFile(m, "", nullptr), "m");
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->manifest.has_index_section());
  EXPECT_FALSE(plain->transaction_section.has_value());
}

TEST(ManifestFileTest, ReadsLance8FixturesAndConfirmsFooterVersion) {
  auto store = *io::LocalObjectStore::Make(table_testing::FixtureDir());
  for (const char* name : {"basic_v20_v1names.lance", "basic_v20_v2names.lance"}) {
    DatasetDir dir(store, name);
    auto all = ListManifests(dir);
    ASSERT_TRUE(all.ok()) << all.status();
    ASSERT_EQ(all->size(), 3u);
    const NamingScheme expected = std::string(name).find("v1names") != std::string::npos
                                      ? NamingScheme::kV1
                                      : NamingScheme::kV2;
    for (size_t i = 0; i < 3; ++i) {
      EXPECT_EQ((*all)[i].version, i + 1);
      EXPECT_EQ((*all)[i].scheme, expected);
    }
    auto latest = ReadManifest(dir, all->back());
    ASSERT_TRUE(latest.ok()) << latest.status();
    EXPECT_EQ(latest->manifest.version(), 3u);
    EXPECT_EQ(latest->manifest.writer_version().version(), "8.0.0");
    EXPECT_TRUE(latest->transaction_section.has_value());
    // Lance 8 writes footer version 0.2.
    auto bytes = store->Read(all->back().key);
    ASSERT_TRUE(bytes.ok());
    const auto view = (*bytes)->ToStringView();
    EXPECT_EQ(view[view.size() - 8], 0);
    EXPECT_EQ(view[view.size() - 6], 2);
    // Loading by version finds the same file whatever the scheme.
    auto found = FindManifest(dir, 2);
    ASSERT_TRUE(found.ok()) << found.status();
    EXPECT_EQ(found->scheme, expected);
    EXPECT_THAT(FindManifest(dir, 4), IsError(StatusCode::kNotFound));
  }
}

TEST(ManifestListTest, MixedSchemesAreRefusedAndJunkIgnored) {
  auto store = std::make_shared<io::MemoryObjectStore>("mixed");
  DatasetDir dir(store, "ds");
  const std::string body = SerializeManifestFile(pb::Manifest(), "", nullptr);
  ASSERT_TRUE(store->Put(dir.ManifestKey(1, NamingScheme::kV2), body).ok());
  ASSERT_TRUE(store->Put(dir.Key("_versions/latest_version_hint.json"), "{}").ok());
  ASSERT_TRUE(store->Put(dir.Key("_versions/2.manifest-abc"), body).ok());
  ASSERT_TRUE(store->Put(dir.Key("_versions/d1.manifest"), body).ok());
  auto all = ListManifests(dir);
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->size(), 1u);
  EXPECT_EQ(all->front().version, 1u);
  ASSERT_TRUE(store->Put(dir.ManifestKey(2, NamingScheme::kV1), body).ok());
  EXPECT_THAT(ListManifests(dir), IsErrorWith(StatusCode::kCorrupt, "mixes V1 and V2"));
}

TEST(ManifestFileTest, ChecksVersionAgainstName) {
  auto store = std::make_shared<io::MemoryObjectStore>("vcheck");
  DatasetDir dir(store, "");
  pb::Manifest m;
  m.set_version(5);
  ASSERT_TRUE(store
                  ->Put(dir.ManifestKey(4, NamingScheme::kV1),
                        SerializeManifestFile(m, "", nullptr))
                  .ok());
  auto loc = FindManifest(dir, 4);
  ASSERT_TRUE(loc.ok());
  EXPECT_THAT(ReadManifest(dir, *loc), IsErrorWith(StatusCode::kCorrupt, "4.manifest"));
}

}  // namespace
}  // namespace lance::table_internal
