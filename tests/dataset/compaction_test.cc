// SPDX-License-Identifier: Apache-2.0
// Dataset::CompactFiles: Lance's planning (adjacent candidates, bins split for size),
// deletions materialised, the Rewrite transaction and its conflict rules.
#include <gtest/gtest.h>

#include <numeric>

#include "dataset/dataset_internal.h"
#include "lance/dataset/dataset.h"
#include "table/manifest.h"
#include "table/transaction.h"
#include "table_test_util.h"
#include "tests/testing/matchers.h"

namespace lance {
namespace {

namespace ti = table_internal;
using namespace table_testing;  // NOLINT(build/namespaces)

std::vector<uint64_t> RowCounts(const Dataset& ds) {
  std::vector<uint64_t> out;
  for (const auto& f : ds.fragments()) out.push_back(f.physical_rows);
  return out;
}

// CompactFiles with a target of `target_rows` rows a fragment, other options default.
Result<CompactionMetrics> CompactTo(Dataset& ds, int64_t target_rows) {
  CompactionOptions o;
  o.target_rows_per_fragment = target_rows;
  return ds.CompactFiles(o);
}

TEST(CompactionTest, MergesAdjacentSmallFragmentsIntoEvenBins) {
  const std::string uri = UniqueMemoryUri();
  ASSERT_OK_AND_ASSIGN(auto ds, WriteRowsInFiles(uri, 0, 200, 20));
  ASSERT_OK_AND_ASSIGN(CompactionMetrics m, CompactTo(*ds, 50));
  // As pylance 14 on the same layout: bins of 60, 60, 80 rows, one fragment each.
  EXPECT_EQ(m.fragments_removed, 10);
  EXPECT_EQ(m.fragments_added, 3);
  EXPECT_EQ(m.files_removed, 10);
  EXPECT_EQ(m.files_added, 3);
  EXPECT_EQ(RowCounts(*ds), (std::vector<uint64_t>{60, 60, 80}));
  // Version 2 reserves the new fragments' ids, version 3 is the Rewrite (as Lance).
  EXPECT_EQ(ds->version(), 3u);
  EXPECT_EQ(ScannedIds(*ds), Iota(0, 200));
  ASSERT_OK_AND_ASSIGN(auto reopened, Dataset::Open(uri));
  EXPECT_EQ(reopened->version(), 3u);
  EXPECT_EQ(reopened->fragments().front().id, 10u);  // ids above the high-water mark
  ASSERT_OK_AND_ASSIGN(auto reserved, Dataset::Open(uri, {.version = 2}));
  EXPECT_EQ(reserved->fragments().size(), 10u);  // the reservation changes no data
}

TEST(CompactionTest, LargeBinIsSpreadOverTargetSizedFiles) {
  // The layouts and results pylance 14 gives (checked against it): 11 fragments of 103
  // rows split into bins of 50 and 53 rows ...
  const std::string uri = UniqueMemoryUri();
  ASSERT_OK_AND_ASSIGN(auto ds, WriteRowsInFiles(uri, 0, 103, 10));
  ASSERT_OK_AND_ASSIGN(CompactionMetrics m, CompactTo(*ds, 50));
  EXPECT_EQ(m.fragments_removed, 11);
  EXPECT_EQ(RowCounts(*ds), (std::vector<uint64_t>{50, 53}));
  EXPECT_EQ(ScannedIds(*ds), Iota(0, 103));
  // ... and one fragment of 83 live rows, rewritten for its deletions with a target
  // of 40, becomes two fragments of 42 and 41 rows.
  const std::string uri2 = UniqueMemoryUri();
  ASSERT_OK_AND_ASSIGN(auto one, WriteRowsInFiles(uri2, 0, 103, 103));
  ASSERT_OK(one->Delete("id < 20"));
  ASSERT_OK_AND_ASSIGN(m, CompactTo(*one, 40));
  EXPECT_EQ(m.fragments_removed, 1);
  EXPECT_EQ(m.files_removed, 2);
  EXPECT_EQ(RowCounts(*one), (std::vector<uint64_t>{42, 41}));
  EXPECT_EQ(ScannedIds(*one), Iota(20, 103));
}

TEST(CompactionTest, MaterialisesDeletionsOfALargeFragmentAlone) {
  const std::string uri = UniqueMemoryUri();
  ASSERT_OK_AND_ASSIGN(auto ds, WriteRowsInFiles(uri, 0, 100, 50));
  ASSERT_OK(ds->Delete("id < 10"));  // 20% of fragment 0
  CompactionOptions o;
  o.target_rows_per_fragment = 50;  // no fragment is small
  ASSERT_OK_AND_ASSIGN(CompactionMetrics m, ds->CompactFiles(o));
  EXPECT_EQ(m.fragments_removed, 1);
  EXPECT_EQ(m.fragments_added, 1);
  EXPECT_EQ(m.files_removed, 2);  // data file + deletion file
  EXPECT_EQ(m.files_added, 1);
  for (const auto& f : ds->fragments()) EXPECT_FALSE(f.deletion_file.has_value());
  EXPECT_EQ(*ds->CountRows(), 90);

  // Below the threshold, or with materialisation off, nothing happens (no version).
  const std::string uri2 = UniqueMemoryUri();
  ASSERT_OK_AND_ASSIGN(auto ds2, WriteRowsInFiles(uri2, 0, 100, 50));
  ASSERT_OK(ds2->Delete("id < 3"));
  ASSERT_OK_AND_ASSIGN(CompactionMetrics none, ds2->CompactFiles(o));
  EXPECT_EQ(none.fragments_removed, 0);
  EXPECT_EQ(ds2->version(), 2u);
  o.materialize_deletions = false;
  ASSERT_OK(ds->Delete("id >= 90"));
  ASSERT_OK_AND_ASSIGN(none, ds->CompactFiles(o));
  EXPECT_EQ(none.fragments_removed, 0);
}

TEST(CompactionTest, LonelySmallFragmentIsLeftAlone) {
  const std::string uri = UniqueMemoryUri();
  WriteParams p;
  p.max_rows_per_file = 100;
  ASSERT_OK(WriteRows(uri, 0, 100, p).status());
  p.mode = WriteMode::kAppend;
  ASSERT_OK(WriteRows(uri, 100, 5, p).status());             // small
  ASSERT_OK(WriteRows(uri, 105, 100, p).status());           // large: separates
  ASSERT_OK_AND_ASSIGN(auto ds, WriteRows(uri, 205, 5, p));  // small, alone
  ASSERT_OK_AND_ASSIGN(CompactionMetrics m, CompactTo(*ds, 50));
  EXPECT_EQ(m.fragments_removed, 0);
  EXPECT_EQ(ds->version(), 4u);
}

TEST(CompactionTest, RefusesBadOptions) {
  const std::string uri = UniqueMemoryUri();
  ASSERT_OK_AND_ASSIGN(auto ds, WriteRowsInFiles(uri, 0, 10, 5));
  CompactionOptions o;
  o.target_rows_per_fragment = 0;
  EXPECT_THAT(ds->CompactFiles(o).status(),
              testing::IsErrorWith(StatusCode::kInvalid, "target_rows_per_fragment"));
  o = {};
  o.max_rows_per_group = -1;
  EXPECT_THAT(ds->CompactFiles(o).status(), testing::IsError(StatusCode::kInvalid));
}

TEST(CompactionTest, RebasesOverConcurrentAppendAndUnrelatedDelete) {
  const std::string uri = UniqueMemoryUri();
  WriteParams p;
  p.max_rows_per_file = 10;
  ASSERT_OK_AND_ASSIGN(auto stale, WriteRows(uri, 0, 30, p));  // fragments 0, 1, 2
  p.mode = WriteMode::kAppend;
  p.max_rows_per_file = 1000;
  ASSERT_OK(WriteRows(uri, 30, 100, p).status());  // fragment 3, not a candidate
  ASSERT_OK_AND_ASSIGN(auto other, Dataset::Open(uri));
  ASSERT_OK(other->Delete("id = 50"));  // touches fragment 3 only
  ASSERT_OK_AND_ASSIGN(CompactionMetrics m, CompactTo(*stale, 50));
  EXPECT_EQ(m.fragments_removed, 3);
  EXPECT_EQ(stale->version(), 5u);  // 4 reserves ids, 5 is the Rewrite
  auto ids = ScannedIds(*stale);
  EXPECT_EQ(ids.size(), 129u);
  EXPECT_EQ(std::count(ids.begin(), ids.end(), 50), 0);
}

TEST(CompactionTest, ConcurrentDeleteOfARewrittenFragmentIsRetryableConflict) {
  const std::string uri = UniqueMemoryUri();
  ASSERT_OK_AND_ASSIGN(auto stale, WriteRowsInFiles(uri, 0, 30, 10));
  ASSERT_OK_AND_ASSIGN(auto other, Dataset::Open(uri));
  ASSERT_OK(other->Delete("id = 5"));
  Status st = CompactTo(*stale, 100).status();
  ASSERT_TRUE(st.IsConflict()) << st;
  EXPECT_TRUE(st.retryable()) << st;
  EXPECT_EQ(stale->version(), 1u);
  // Planned again on the latest version it succeeds, without the deleted row.
  ASSERT_OK_AND_ASSIGN(auto latest, Dataset::Open(uri));
  ASSERT_OK(CompactTo(*latest, 100).status());
  EXPECT_EQ(*latest->CountRows(), 29);
}

TEST(CompactionTest, ConflictRulesOfRewrite) {
  ti::pb::Transaction mine;
  mine.set_read_version(3);
  auto* g = mine.mutable_rewrite()->add_groups();
  g->add_old_fragments()->set_id(1);
  g->add_old_fragments()->set_id(2);
  auto check = [&](const ti::pb::Transaction& theirs) {
    return ti::CheckConflict(mine, theirs, 4, "memory://x");
  };
  ti::pb::Transaction t;
  t.mutable_append();
  EXPECT_OK(check(t));
  t.Clear();
  t.mutable_delete_()->add_updated_fragments()->set_id(7);
  EXPECT_OK(check(t));
  t.Clear();
  t.mutable_delete_()->add_deleted_fragment_ids(2);
  EXPECT_TRUE(check(t).IsConflict() && check(t).retryable());
  t.Clear();
  t.mutable_rewrite()->add_groups()->add_old_fragments()->set_id(1);
  EXPECT_TRUE(check(t).IsConflict() && check(t).retryable());
  t.Clear();
  t.mutable_rewrite()->add_groups()->add_old_fragments()->set_id(9);
  EXPECT_OK(check(t));
  t.Clear();
  t.mutable_overwrite();
  EXPECT_TRUE(check(t).IsConflict() && !check(t).retryable());
  t.Clear();
  t.mutable_restore()->set_version(1);
  EXPECT_TRUE(check(t).IsConflict() && !check(t).retryable());
  t.Clear();
  t.mutable_update_config();
  EXPECT_OK(check(t));
}

}  // namespace
}  // namespace lance
