// SPDX-License-Identifier: Apache-2.0
// Dataset::Update: rows rewritten into new fragments, old copies deleted (Lance's Update
// operation), errors, and the conflict rules of Update against concurrent commits.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "dataset/dataset_internal.h"
#include "lance/core/compute.h"
#include "lance/dataset/dataset.h"
#include "table/manifest.h"
#include "table/transaction.h"
#include "table_test_util.h"
#include "tests/testing/matchers.h"

namespace lance {
namespace {

namespace ti = table_internal;
using namespace table_testing;  // NOLINT(build/namespaces)

ti::pb::Transaction LatestTransaction(const Dataset& ds) {
  const auto& impl = DatasetImplAccess::Get(ds);
  auto txn = ti::LoadTransaction(impl->dir, impl->manifest);
  EXPECT_TRUE(txn.ok()) << txn.status();
  return txn.ok() ? *txn : ti::pb::Transaction{};
}

MutationRetry NoRetry() {
  MutationRetry r;
  r.conflict_retries = 0;
  return r;
}

TEST(UpdateTest, RewritesOnlyAffectedFragments) {
  auto ds = ThreeFragments(UniqueMemoryUri());
  ASSERT_OK_AND_ASSIGN(UpdateResult r, ds->Update({{"score", "score * 10"}}, "id >= 25"));
  EXPECT_EQ(r.num_rows_updated, 5u);
  EXPECT_EQ(ds->version(), 2u);
  auto scores = Scores(*ds);
  ASSERT_EQ(scores.size(), 30u);
  for (int64_t id = 0; id < 30; ++id) {
    EXPECT_DOUBLE_EQ(scores[id], id >= 25 ? id * 5.0 : id / 2.0) << id;
  }
  // Fragment 2 got a deletion file, fragments 0 and 1 are untouched, one new fragment.
  ti::pb::Transaction txn = LatestTransaction(*ds);
  ASSERT_EQ(txn.operation_case(), ti::pb::Transaction::kUpdate);
  const auto& op = txn.update();
  ASSERT_EQ(op.updated_fragments_size(), 1);
  EXPECT_EQ(op.updated_fragments(0).id(), 2u);
  EXPECT_EQ(op.updated_fragments(0).deletion_file().num_deleted_rows(), 5u);
  EXPECT_EQ(op.removed_fragment_ids_size(), 0);
  ASSERT_EQ(op.new_fragments_size(), 1);
  EXPECT_EQ(op.new_fragments(0).physical_rows(), 5u);
  EXPECT_EQ(op.update_mode(), ti::pb::Transaction::REWRITE_ROWS);
  ASSERT_EQ(ds->fragments().size(), 4u);
  EXPECT_EQ(ds->fragments()[3].id, 3u);
}

TEST(UpdateTest, WholeFragmentIsRemovedAndNoMatchStillCommits) {
  auto ds = ThreeFragments(UniqueMemoryUri());
  ASSERT_OK_AND_ASSIGN(UpdateResult r, ds->Update({{"name", "'x'"}}, "id < 10"));
  EXPECT_EQ(r.num_rows_updated, 10u);
  ti::pb::Transaction txn = LatestTransaction(*ds);
  ASSERT_EQ(txn.update().removed_fragment_ids_size(), 1);
  EXPECT_EQ(txn.update().removed_fragment_ids(0), 0u);
  EXPECT_EQ(*ds->CountRows("name = 'x'"), 10);
  EXPECT_EQ(*ds->CountRows(), 30);
  // As Lance: no match still commits a version.
  ASSERT_OK_AND_ASSIGN(r, ds->Update({{"name", "'y'"}}, "id > 1000"));
  EXPECT_EQ(r.num_rows_updated, 0u);
  EXPECT_EQ(ds->version(), 3u);
  // Without a where clause every row is updated.
  ASSERT_OK_AND_ASSIGN(r, ds->Update({{"score", "0"}}));
  EXPECT_EQ(r.num_rows_updated, 30u);
  EXPECT_EQ(*ds->CountRows("score = 0"), 30);
}

TEST(UpdateTest, DeletedRowsStayDeleted) {
  auto ds = ThreeFragments(UniqueMemoryUri());
  ASSERT_OK(ds->Delete("id % 2 = 0"));
  ASSERT_OK_AND_ASSIGN(UpdateResult r, ds->Update({{"score", "-1"}}, "id < 10"));
  EXPECT_EQ(r.num_rows_updated, 5u);
  EXPECT_EQ(*ds->CountRows(), 15);
  EXPECT_EQ(*ds->CountRows("score = -1"), 5);
}

TEST(UpdateTest, ErrorsCommitNothing) {
  auto ds = ThreeFragments(UniqueMemoryUri());
  EXPECT_THAT(ds->Update({{"nope", "1"}}), IsErrorWith(StatusCode::kInvalid, "nope"));
  EXPECT_THAT(ds->Update({{"score", "nope + 1"}}),
              IsErrorWith(StatusCode::kInvalid, "nope"));
  EXPECT_THAT(ds->Update({{"score", "score +"}}), IsError(StatusCode::kInvalid));
  EXPECT_THAT(ds->Update({{"score", "1"}}, "nope > 1"),
              IsErrorWith(StatusCode::kInvalid, "nope"));
  EXPECT_THAT(ds->Update({{"id", "'abc'"}}), IsError(StatusCode::kInvalid));
  EXPECT_THAT(ds->Update({{"id", "NULL"}}),
              IsErrorWith(StatusCode::kInvalid, "not nullable"));
  EXPECT_THAT(ds->Update({}), IsError(StatusCode::kInvalid));
  EXPECT_EQ(*ds->LatestVersion(), 1u);
  EXPECT_EQ(ds->version(), 1u);
}

// ---- conflicts
// -------------------------------------------------------------------------

struct Pair {
  std::shared_ptr<Dataset> a;  // commits first
  std::shared_ptr<Dataset> b;  // stale: planned on the same version
};

Pair TwoHandles() {
  const std::string uri = UniqueMemoryUri();
  auto a = ThreeFragments(uri);
  auto b = Dataset::Open(uri);
  EXPECT_TRUE(b.ok());
  return {a, *b};
}

TEST(UpdateConflictTest, UpdateAfterAppendRebases) {
  Pair p = TwoHandles();
  ASSERT_OK(
      WriteRows(p.a->uri(), 100, 5, WriteParams{.mode = WriteMode::kAppend}).status());
  UpdateOptions options;
  options.retry = NoRetry();
  ASSERT_OK_AND_ASSIGN(UpdateResult r, p.b->Update({{"score", "99"}}, "id < 3", options));
  EXPECT_EQ(r.num_rows_updated, 3u);
  EXPECT_EQ(r.num_attempts, 1u);
  EXPECT_EQ(*p.b->CountRows(), 35);  // the appended rows survive
  EXPECT_EQ(*p.b->CountRows("score = 99"), 3);
}

TEST(UpdateConflictTest, AppendAfterUpdateRebases) {
  Pair p = TwoHandles();
  ASSERT_OK(p.a->Update({{"score", "99"}}, "id < 3").status());
  // An append planned before the update (Commit with the old read_version).
  ASSERT_OK_AND_ASSIGN(auto frags, [&] {
    auto reader = table_testing::ReaderOf({table_testing::MakeBatch(100, 5)});
    return WriteFragments(*reader, p.b->uri(), WriteParams{.mode = WriteMode::kAppend});
  }());
  ASSERT_OK_AND_ASSIGN(auto out, Dataset::Commit(p.b->uri(), AppendOp{frags}, 1));
  EXPECT_EQ(*out->CountRows(), 35);
  EXPECT_EQ(*out->CountRows("score = 99"), 3);
}

TEST(UpdateConflictTest, UpdatesOfDifferentFragmentsBothCommit) {
  Pair p = TwoHandles();
  ASSERT_OK(p.a->Update({{"score", "1"}}, "id < 5").status());
  UpdateOptions options;
  options.retry = NoRetry();
  ASSERT_OK(p.b->Update({{"score", "2"}}, "id >= 25", options).status());
  EXPECT_EQ(*p.b->CountRows("score = 1"), 5);
  EXPECT_EQ(*p.b->CountRows("score = 2"), 5);
  EXPECT_EQ(*p.b->CountRows(), 30);
}

TEST(UpdateConflictTest, UpdatesOfOneFragmentConflictRetryably) {
  Pair p = TwoHandles();
  ASSERT_OK(p.a->Update({{"score", "1"}}, "id < 5").status());
  UpdateOptions options;
  options.retry = NoRetry();
  auto r = p.b->Update({{"name", "'b'"}}, "id < 3", options);
  ASSERT_THAT(r, IsError(StatusCode::kConflict));
  EXPECT_TRUE(r.status().retryable()) << r.status();
  EXPECT_EQ(p.b->version(), 1u);
  // With retries (the default) it is planned again on the latest version: nothing lost.
  ASSERT_OK_AND_ASSIGN(UpdateResult again, p.b->Update({{"name", "'b'"}}, "id < 3"));
  EXPECT_EQ(again.num_attempts, 2u);
  EXPECT_EQ(*p.b->CountRows("score = 1"), 5);
  EXPECT_EQ(*p.b->CountRows("name = 'b' AND score = 1"), 3);
  EXPECT_EQ(*p.b->CountRows(), 30);
}

TEST(UpdateConflictTest, UpdateAgainstDeleteOfSameFragment) {
  {
    Pair p = TwoHandles();
    ASSERT_OK(p.a->Delete("id = 1"));
    UpdateOptions options;
    options.retry = NoRetry();
    auto r = p.b->Update({{"score", "700"}}, "id < 3", options);
    ASSERT_THAT(r, IsError(StatusCode::kConflict));
    EXPECT_TRUE(r.status().retryable());
    ASSERT_OK_AND_ASSIGN(UpdateResult again, p.b->Update({{"score", "700"}}, "id < 3"));
    EXPECT_EQ(again.num_rows_updated, 2u);  // id 1 is gone
    EXPECT_EQ(*p.b->CountRows(), 29);
  }
  {
    // Delete planned before an update of the same fragment: retryable too.
    Pair p = TwoHandles();
    ASSERT_OK(p.a->Update({{"score", "700"}}, "id < 3").status());
    Status st = p.b->Delete("id = 1");
    ASSERT_THAT(st, IsError(StatusCode::kConflict));
    EXPECT_TRUE(st.retryable());
  }
  {
    // Different fragments: both commit.
    Pair p = TwoHandles();
    ASSERT_OK(p.a->Delete("id = 25"));
    UpdateOptions options;
    options.retry = NoRetry();
    ASSERT_OK(p.b->Update({{"score", "700"}}, "id < 3", options).status());
    EXPECT_EQ(*p.b->CountRows(), 29);
    EXPECT_EQ(*p.b->CountRows("score = 700"), 3);
  }
}

TEST(UpdateConflictTest, UpdateAgainstOverwriteIsIncompatible) {
  Pair p = TwoHandles();
  ASSERT_OK(
      WriteRows(p.a->uri(), 0, 3, WriteParams{.mode = WriteMode::kOverwrite}).status());
  auto r = p.b->Update({{"score", "7"}}, "id < 3");
  ASSERT_THAT(r, IsError(StatusCode::kConflict));
  EXPECT_FALSE(r.status().retryable());
}

}  // namespace
}  // namespace lance
