// SPDX-License-Identifier: Apache-2.0
// Dataset::Restore (Lance's Restore) and checkout by timestamp.
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

TEST(RestoreTest, CommitsAnOldVersionAsTheNewest) {
  const std::string uri = UniqueMemoryUri();
  ASSERT_OK_AND_ASSIGN(auto ds, WriteRows(uri, 0, 10));
  ASSERT_OK(ds->Delete("id < 5"));
  WriteParams p;
  p.mode = WriteMode::kAppend;
  ASSERT_OK(WriteRows(uri, 10, 3, p).status());
  ASSERT_OK_AND_ASSIGN(auto v1, ds->CheckoutVersion(1));
  ASSERT_OK(v1->Restore());
  EXPECT_EQ(v1->version(), 4u);
  ASSERT_OK_AND_ASSIGN(auto latest, Dataset::Open(uri));
  EXPECT_EQ(latest->version(), 4u);
  ASSERT_OK_AND_ASSIGN(auto table, latest->ToTable());
  EXPECT_EQ(Int64Column(*table, "id"),
            (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  // The transaction is a Restore of version 1, planned against version 3.
  auto impl = DatasetImplAccess::Get(*latest);
  ASSERT_OK_AND_ASSIGN(auto txn, ti::LoadTransaction(impl->dir, impl->manifest));
  ASSERT_TRUE(txn.has_restore());
  EXPECT_EQ(txn.restore().version(), 1u);
  EXPECT_EQ(txn.read_version(), 3u);
  // Appends after a restore continue from it.
  ASSERT_OK_AND_ASSIGN(auto after, WriteRows(uri, 100, 1, p));
  EXPECT_EQ(*after->CountRows(), 11);
}

TEST(RestoreTest, RestoreWinsOverConcurrentCommits) {
  ti::pb::Transaction mine;
  mine.mutable_restore()->set_version(1);
  ti::pb::Transaction theirs;
  theirs.mutable_append();
  EXPECT_OK(ti::CheckConflict(mine, theirs, 3, "memory://x"));
  theirs.mutable_delete_();
  EXPECT_OK(ti::CheckConflict(mine, theirs, 3, "memory://x"));
  theirs.mutable_update_mem_wal_state();
  EXPECT_TRUE(ti::CheckConflict(mine, theirs, 3, "memory://x").IsConflict());
}

TEST(RestoreTest, CheckoutByTimestamp) {
  const std::string uri = UniqueMemoryUri();
  ASSERT_OK_AND_ASSIGN(auto ds, WriteRows(uri, 0, 10));
  ASSERT_OK(ds->Delete("id = 1"));
  ASSERT_OK_AND_ASSIGN(auto versions, ds->Versions());
  ASSERT_EQ(versions.size(), 2u);
  ASSERT_OK_AND_ASSIGN(auto at1, ds->CheckoutTimestamp(versions[0].timestamp_ms));
  EXPECT_EQ(at1->version(),
            versions[1].timestamp_ms == versions[0].timestamp_ms ? 2u : 1u);
  ASSERT_OK_AND_ASSIGN(auto at2, ds->CheckoutTimestamp(versions[1].timestamp_ms + 1000));
  EXPECT_EQ(at2->version(), 2u);
  EXPECT_THAT(ds->CheckoutTimestamp(versions[0].timestamp_ms - 1000).status(),
              testing::IsError(StatusCode::kNotFound));
}

}  // namespace
}  // namespace lance
