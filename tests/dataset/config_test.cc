// SPDX-License-Identifier: Apache-2.0
// Table config, schema and field metadata: Lance's UpdateConfig, in the form Lance 8
// writes, and its conflict rules.
#include <gtest/gtest.h>

#include "dataset/dataset_internal.h"
#include "lance/dataset/dataset.h"
#include "table/transaction.h"
#include "table_test_util.h"
#include "tests/testing/matchers.h"

namespace lance {
namespace {

namespace ti = table_internal;
using namespace table_testing;  // NOLINT(build/namespaces)

TEST(ConfigTest, UpdateDeleteAndMetadata) {
  const std::string uri = UniqueMemoryUri();
  ASSERT_OK_AND_ASSIGN(auto ds, WriteRows(uri, 0, 5));
  ASSERT_OK(ds->UpdateConfig({{"a", "1"}, {"b", "2"}}));
  EXPECT_EQ(ds->Config(), (std::map<std::string, std::string>{{"a", "1"}, {"b", "2"}}));
  ASSERT_OK(ds->DeleteConfigKeys({"a", "missing"}));
  EXPECT_EQ(ds->Config(), (std::map<std::string, std::string>{{"b", "2"}}));
  ASSERT_OK(ds->ReplaceSchemaMetadata({{"owner", "me"}}));
  ASSERT_OK(ds->ReplaceFieldMetadata("name", {{"unit", "none"}}));
  EXPECT_THAT(ds->ReplaceFieldMetadata("nope", {}),
              testing::IsErrorWith(StatusCode::kInvalid, "nope"));
  ASSERT_OK_AND_ASSIGN(auto reopened, Dataset::Open(uri));
  EXPECT_EQ(reopened->version(), 5u);
  EXPECT_EQ(reopened->Config(), (std::map<std::string, std::string>{{"b", "2"}}));
  auto impl = DatasetImplAccess::Get(*reopened);
  EXPECT_EQ(impl->proto().schema_metadata().at("owner"), "me");
  bool found = false;
  for (const auto& f : impl->proto().fields()) {
    if (f.name() == "name") {
      found = true;
      EXPECT_EQ(f.metadata().at("unit"), "none");
    }
  }
  EXPECT_TRUE(found);
  // The config flag is set while the config is not empty.
  EXPECT_NE(impl->proto().writer_feature_flags() & ti::kFlagTableConfig, 0u);
  ASSERT_OK_AND_ASSIGN(auto txn, ti::LoadTransaction(impl->dir, impl->manifest));
  ASSERT_TRUE(txn.has_update_config());
  EXPECT_EQ(txn.update_config().field_metadata_updates().size(), 1u);
  EXPECT_TRUE(txn.update_config().field_metadata_updates().begin()->second.replace());
}

TEST(ConfigTest, ConflictRules) {
  ti::pb::Transaction mine;
  auto* e = mine.mutable_update_config()->mutable_config_updates()->add_update_entries();
  e->set_key("k");
  e->set_value("v");
  ti::pb::Transaction theirs;
  theirs.mutable_append();
  EXPECT_OK(ti::CheckConflict(mine, theirs, 2, "memory://x"));
  auto* t =
      theirs.mutable_update_config()->mutable_config_updates()->add_update_entries();
  t->set_key("other");
  t->set_value("v");
  EXPECT_OK(ti::CheckConflict(mine, theirs, 2, "memory://x"));
  t->set_key("k");
  EXPECT_TRUE(ti::CheckConflict(mine, theirs, 2, "memory://x").IsConflict());
  theirs.mutable_restore();
  EXPECT_TRUE(ti::CheckConflict(mine, theirs, 2, "memory://x").IsConflict());
}

TEST(ConfigTest, ConcurrentUpdatesOfDifferentKeysBothLand) {
  const std::string uri = UniqueMemoryUri();
  ASSERT_OK_AND_ASSIGN(auto a, WriteRows(uri, 0, 5));
  ASSERT_OK_AND_ASSIGN(auto b, Dataset::Open(uri));
  ASSERT_OK(a->UpdateConfig({{"x", "1"}}));
  ASSERT_OK(b->UpdateConfig({{"y", "2"}}));
  EXPECT_EQ(b->Config(), (std::map<std::string, std::string>{{"x", "1"}, {"y", "2"}}));
  ASSERT_OK_AND_ASSIGN(auto c, Dataset::Open(uri, {.version = 1}));
  EXPECT_TRUE(c->UpdateConfig({{"x", "3"}}).IsConflict());
}

}  // namespace
}  // namespace lance
