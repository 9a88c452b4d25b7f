// SPDX-License-Identifier: Apache-2.0
// Tags in `_refs/tags/<name>.json` with Lance 8's keys, and checkout by tag.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "dataset/dataset_internal.h"
#include "lance/dataset/dataset.h"
#include "lance/io/object_store_registry.h"
#include "table_test_util.h"
#include "tests/testing/matchers.h"

namespace lance {
namespace {

using namespace table_testing;  // NOLINT(build/namespaces)

TEST(TagsTest, CreateListUpdateDeleteCheckout) {
  const std::string uri = UniqueMemoryUri();
  ASSERT_OK_AND_ASSIGN(auto ds, WriteRows(uri, 0, 10));
  ASSERT_OK(ds->Delete("id < 5"));
  ASSERT_OK(ds->CreateTag("v1", 1));
  ASSERT_OK(ds->CreateTag("v2.final", 2));
  // The file as Lance 8 writes it.
  auto impl = DatasetImplAccess::Get(*ds);
  ASSERT_OK_AND_ASSIGN(BufferPtr bytes,
                       impl->dir.store()->Read(impl->dir.Key("_refs/tags/v1.json")));
  auto j = nlohmann::json::parse(
      std::string(reinterpret_cast<const char*>(bytes->data()), bytes->size()));
  EXPECT_EQ(j["version"], 1);
  EXPECT_TRUE(j["branch"].is_null());
  EXPECT_TRUE(j["manifestSize"].is_number_integer());
  EXPECT_GT(j["manifestSize"].get<int64_t>(), 0);
  EXPECT_TRUE(j["createdAt"].is_string());
  EXPECT_TRUE(j["updatedAt"].is_string());
  EXPECT_TRUE(j["metadata"].is_object());

  ASSERT_OK_AND_ASSIGN(auto tags, ds->ListTags());
  ASSERT_EQ(tags.size(), 2u);
  EXPECT_EQ(tags["v1"].version, 1u);
  EXPECT_EQ(tags["v2.final"].version, 2u);
  ASSERT_OK_AND_ASSIGN(auto at, ds->CheckoutTag("v1"));
  EXPECT_EQ(*at->CountRows(), 10);
  ASSERT_OK(ds->UpdateTag("v1", 2));
  EXPECT_EQ(*ds->TagVersion("v1"), 2u);
  ASSERT_OK(ds->DeleteTag("v1"));
  EXPECT_THAT(ds->TagVersion("v1").status(), testing::IsError(StatusCode::kNotFound));
  EXPECT_THAT(ds->DeleteTag("v1"), testing::IsError(StatusCode::kNotFound));
  EXPECT_THAT(ds->CreateTag("v2.final", 1), testing::IsError(StatusCode::kAlreadyExists));
  EXPECT_THAT(ds->CreateTag("new", 9), testing::IsError(StatusCode::kNotFound));
  EXPECT_THAT(ds->UpdateTag("v2.final", 9), testing::IsError(StatusCode::kNotFound));
  for (const char* bad : {"", "a/b", "..x", "x.lock", "a b", ".hidden"}) {
    EXPECT_THAT(ds->CreateTag(bad, 1), testing::IsError(StatusCode::kInvalid)) << bad;
  }
}

TEST(TagsTest, DamagedTagFileIsCorrupt) {
  const std::string uri = UniqueMemoryUri();
  ASSERT_OK_AND_ASSIGN(auto ds, WriteRows(uri, 0, 3));
  auto impl = DatasetImplAccess::Get(*ds);
  ASSERT_OK(
      impl->dir.store()->Put(impl->dir.Key("_refs/tags/bad.json"), "{\"version\":"));
  EXPECT_THAT(ds->ListTags().status(), testing::IsError(StatusCode::kCorrupt));
  EXPECT_THAT(ds->TagVersion("bad").status(), testing::IsError(StatusCode::kCorrupt));
}

}  // namespace
}  // namespace lance
