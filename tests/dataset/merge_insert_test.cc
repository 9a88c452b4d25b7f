// SPDX-License-Identifier: Apache-2.0
// MergeInsertBuilder: upsert semantics, keys, conditions, streaming source, errors and
// the conflict rules of a merge-insert (Lance's Update operation).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "dataset/dataset_internal.h"
#include "lance/core/builder.h"
#include "lance/dataset/dataset.h"
#include "table/transaction.h"
#include "table_test_util.h"
#include "tests/testing/matchers.h"
#include "tests/testing/temp_dir.h"

namespace lance {
namespace {

namespace ti = table_internal;
using namespace table_testing;  // NOLINT(build/namespaces)

// A source batch: ids with score = value, name = "s<id>".
RecordBatchPtr Source(const std::vector<int64_t>& ids, double score) {
  Int64Builder id_b;
  StringBuilder name_b;
  DoubleBuilder score_b;
  for (int64_t id : ids) {
    (void)id_b.Append(id);
    (void)name_b.Append("s" + std::to_string(id));
    (void)score_b.Append(score);
  }
  auto s = schema(
      {field("id", int64(), false), field("name", utf8()), field("score", float64())});
  return *RecordBatch::Make(s, static_cast<int64_t>(ids.size()),
                            {*id_b.Finish(), *name_b.Finish(), *score_b.Finish()});
}

TEST(MergeInsertTest, Upsert) {
  auto ds = ThreeFragments(UniqueMemoryUri());
  auto source = ReaderOf({Source({5, 29, 30, 31}, 100)});
  ASSERT_OK_AND_ASSIGN(
      MergeInsertResult r,
      ds->MergeInsert({"id"}).WhenMatchedUpdateAll().WhenNotMatchedInsertAll().Execute(
          *source));
  EXPECT_EQ(r.num_updated_rows, 2u);
  EXPECT_EQ(r.num_inserted_rows, 2u);
  EXPECT_EQ(r.num_deleted_rows, 0u);
  auto scores = Scores(*ds);
  ASSERT_EQ(scores.size(), 32u);
  EXPECT_EQ(scores[5], 100);
  EXPECT_EQ(scores[29], 100);
  EXPECT_EQ(scores[31], 100);
  EXPECT_EQ(scores[4], 2);
  const auto& impl = DatasetImplAccess::Get(*ds);
  auto txn = ti::LoadTransaction(impl->dir, impl->manifest);
  ASSERT_OK(txn.status());
  ASSERT_EQ(txn->operation_case(), ti::pb::Transaction::kUpdate);
  EXPECT_EQ(txn->update().updated_fragments_size(), 2);  // fragments 0 and 2
  EXPECT_EQ(txn->update().new_fragments_size(), 1);
}

TEST(MergeInsertTest, DefaultsDoNothingAndInsertOnly) {
  auto ds = ThreeFragments(UniqueMemoryUri());
  // As pylance's builder: by default nothing changes, which is refused.
  auto nothing = ReaderOf({Source({1, 40}, 100)});
  EXPECT_THAT(ds->MergeInsert({"id"}).Execute(*nothing),
              IsErrorWith(StatusCode::kInvalid, "not configured to change"));
  auto source = ReaderOf({Source({1, 40}, 100)});
  ASSERT_OK_AND_ASSIGN(
      MergeInsertResult r,
      ds->MergeInsert({"id"}).WhenNotMatchedInsertAll().Execute(*source));
  EXPECT_EQ(r.num_inserted_rows, 1u);
  EXPECT_EQ(r.num_updated_rows, 0u);
  EXPECT_EQ(Scores(*ds)[1], 0.5);
  EXPECT_EQ(*ds->CountRows(), 31);
}

TEST(MergeInsertTest, DeleteNotMatchedBySourceWithCondition) {
  auto ds = ThreeFragments(UniqueMemoryUri());
  auto source = ReaderOf({Source({0, 1, 2}, 7)});
  ASSERT_OK_AND_ASSIGN(MergeInsertResult r, ds->MergeInsert({"id"})
                                                .WhenMatchedUpdateAll()
                                                .WhenNotMatchedBySourceDelete("id < 15")
                                                .Execute(*source));
  EXPECT_EQ(r.num_updated_rows, 3u);
  EXPECT_EQ(r.num_deleted_rows, 12u);
  EXPECT_EQ(*ds->CountRows(), 18);
  EXPECT_EQ(*ds->CountRows("score = 7"), 3);
  // Without a condition every unmatched row goes: fragments left empty are removed.
  auto again = ReaderOf({Source({0}, 8)});
  ASSERT_OK_AND_ASSIGN(
      r, ds->MergeInsert({"id"}).WhenNotMatchedBySourceDelete().Execute(*again));
  EXPECT_EQ(r.num_deleted_rows, 17u);
  EXPECT_EQ(*ds->CountRows(), 1);
  EXPECT_EQ(ds->fragments().size(), 1u);
}

TEST(MergeInsertTest, MatchedDeleteAndConditionAndSeveralKeys) {
  auto ds = ThreeFragments(UniqueMemoryUri());
  auto source = ReaderOf({Source({3, 4}, 0)});
  ASSERT_OK_AND_ASSIGN(
      MergeInsertResult r,
      ds->MergeInsert({"id"}).WhenMatchedDelete().WhenNotMatchedDoNothing().Execute(
          *source));
  EXPECT_EQ(r.num_deleted_rows, 2u);
  EXPECT_EQ(*ds->CountRows(), 28);
  // Condition over source and target: only rows whose old score is above 5 change.
  auto cond = ReaderOf({Source({5, 20, 21}, 1000)});
  ASSERT_OK_AND_ASSIGN(r,
                       ds->MergeInsert({"id"})
                           .WhenMatchedUpdateAll("target.score > 5 AND source.score > 1")
                           .Execute(*cond));
  EXPECT_EQ(r.num_updated_rows, 2u);
  EXPECT_EQ(Scores(*ds)[5], 2.5);
  EXPECT_EQ(Scores(*ds)[20], 1000);
  // Two key columns: (id, name) must both match.
  auto keyed = ReaderOf({Source({6, 7}, 55)});  // names s6, s7 differ from n6, n7
  ASSERT_OK_AND_ASSIGN(r, ds->MergeInsert({"id", "name"})
                              .WhenMatchedUpdateAll()
                              .WhenNotMatchedInsertAll()
                              .Execute(*keyed));
  EXPECT_EQ(r.num_updated_rows, 0u);
  EXPECT_EQ(r.num_inserted_rows, 2u);
}

TEST(MergeInsertTest, StreamsManyBatchesAndSubsetOfColumns) {
  auto ds = ThreeFragments(UniqueMemoryUri());
  // 50 batches of 100 new rows each, plus matches, read one batch at a time.
  std::vector<RecordBatchPtr> batches;
  for (int b = 0; b < 50; ++b) {
    std::vector<int64_t> ids;
    for (int i = 0; i < 100; ++i) ids.push_back(1000 + b * 100 + i);
    batches.push_back(Source(ids, 1));
  }
  batches.push_back(Source({10, 11}, 3));
  auto reader = ReaderOf(batches);
  ASSERT_OK_AND_ASSIGN(MergeInsertResult r, ds->MergeInsert({"id"})
                                                .WhenMatchedUpdateAll()
                                                .WhenNotMatchedInsertAll()
                                                .WriteParams({.max_rows_per_file = 1000})
                                                .Execute(*reader));
  EXPECT_EQ(r.num_inserted_rows, 5000u);
  EXPECT_EQ(r.num_updated_rows, 2u);
  EXPECT_EQ(*ds->CountRows(), 5030);
  // A source with only some columns: the others keep the target's values.
  Int64Builder ids;
  (void)ids.Append(12);
  auto s = schema({field("id", int64(), false)});
  auto only_id = *RecordBatch::Make(s, 1, {*ids.Finish()});
  auto partial = ReaderOf({only_id});
  ASSERT_OK_AND_ASSIGN(r,
                       ds->MergeInsert({"id"}).WhenMatchedUpdateAll().Execute(*partial));
  EXPECT_EQ(r.num_updated_rows, 1u);
  EXPECT_EQ(Scores(*ds)[12], 6);
}

// A source that makes its batches on demand and, on each pull, checks that the rows of
// the batches already pulled are on disk: the merge streams, never holding the source.
class CheckingSource : public RecordBatchReader {
 public:
  CheckingSource(std::string data_dir, int batches)
      : data_dir_(std::move(data_dir)), batches_(batches), initial_(Files()) {}
  SchemaPtr schema() const override { return Source({0}, 0)->schema(); }
  Result<RecordBatchPtr> Next() override {
    // Each batch of 100 new rows fills one data file of 100 rows, closed as soon as
    // it is full: every batch handed out before this pull is a file on disk.
    if (Files() != initial_ + pulled_) {
      return Status::Invalid("after ", pulled_, " batches ", Files() - initial_,
                             " data files are on disk");
    }
    if (pulled_ == batches_) return nullptr;
    std::vector<int64_t> ids;
    for (int i = 0; i < 100; ++i) ids.push_back(10000 + pulled_ * 100 + i);
    ++pulled_;
    return Source(ids, 1);
  }
  int pulled() const { return pulled_; }

 private:
  int Files() const {
    int n = 0;
    for (const auto& e : std::filesystem::directory_iterator(data_dir_))
      n += e.is_regular_file();
    return n;
  }
  std::string data_dir_;
  int batches_;
  int initial_;
  int pulled_ = 0;
};

TEST(MergeInsertTest, SourceIsStreamedNotMaterialized) {
  testing::TempDir dir;
  const std::string uri = dir.Join("ds");
  auto ds = ThreeFragments(uri);
  CheckingSource source(dir.Join("ds/data"), 20);
  ASSERT_OK_AND_ASSIGN(MergeInsertResult r, ds->MergeInsert({"id"})
                                                .WhenMatchedUpdateAll()
                                                .WhenNotMatchedInsertAll()
                                                .WriteParams({.max_rows_per_file = 100})
                                                .Execute(source));
  EXPECT_EQ(source.pulled(), 20);
  EXPECT_EQ(r.num_inserted_rows, 2000u);
  EXPECT_EQ(*ds->CountRows(), 2030);
}

TEST(MergeInsertTest, ErrorsCommitNothing) {
  auto ds = ThreeFragments(UniqueMemoryUri());
  auto run = [&](std::vector<std::string> on, RecordBatchPtr batch,
                 WhenMatched when = WhenMatched::kUpdateAll) {
    auto reader = ReaderOf({batch});
    MergeInsertBuilder b = ds->MergeInsert(std::move(on));
    if (when == WhenMatched::kUpdateAll) b.WhenMatchedUpdateAll();
    if (when == WhenMatched::kFail) b.WhenMatchedFail();
    b.WhenNotMatchedInsertAll();
    return b.Execute(*reader);
  };
  EXPECT_THAT(run({}, Source({1}, 1)), IsError(StatusCode::kInvalid));
  EXPECT_THAT(run({"nope"}, Source({1}, 1)), IsErrorWith(StatusCode::kInvalid, "nope"));
  // Key missing from the source.
  DoubleBuilder sb;
  (void)sb.Append(1);
  auto no_key =
      *RecordBatch::Make(schema({field("score", float64())}), 1, {*sb.Finish()});
  EXPECT_THAT(run({"id"}, no_key), IsErrorWith(StatusCode::kInvalid, "key column 'id'"));
  // A source column the dataset lacks.
  Int64Builder ib;
  (void)ib.Append(1);
  Int64Builder xb;
  (void)xb.Append(1);
  auto extra = *RecordBatch::Make(schema({field("id", int64()), field("zz", int64())}), 1,
                                  {*ib.Finish(), *xb.Finish()});
  EXPECT_THAT(run({"id"}, extra), IsErrorWith(StatusCode::kInvalid, "zz"));
  // Two source rows matching one target row (Lance: ambiguous).
  EXPECT_THAT(run({"id"}, Source({2, 2}, 1)),
              IsErrorWith(StatusCode::kInvalid, "ambiguous"));
  EXPECT_THAT(run({"id"}, Source({2}, 1), WhenMatched::kFail),
              IsError(StatusCode::kInvalid));
  auto bad_cond = ReaderOf({Source({2}, 1)});
  EXPECT_THAT(
      ds->MergeInsert({"id"}).WhenMatchedUpdateAll("source.nope > 1").Execute(*bad_cond),
      IsError(StatusCode::kInvalid));
  EXPECT_EQ(*ds->LatestVersion(), 1u);
  // Equal new keys in the source are all inserted (as Lance).
  ASSERT_OK_AND_ASSIGN(MergeInsertResult r, run({"id"}, Source({90, 90}, 1)));
  EXPECT_EQ(r.num_inserted_rows, 2u);
}

// ---- conflicts
// -------------------------------------------------------------------------

TEST(MergeInsertConflictTest, AgainstAppendDeleteAndUpdate) {
  {
    // A concurrent append: rebased over.
    const std::string uri = UniqueMemoryUri();
    auto a = ThreeFragments(uri);
    ASSERT_OK_AND_ASSIGN(auto b, Dataset::Open(uri));
    ASSERT_OK(WriteRows(uri, 100, 5, WriteParams{.mode = WriteMode::kAppend}).status());
    auto src = ReaderOf({Source({1, 50}, 900)});
    ASSERT_OK_AND_ASSIGN(
        auto r,
        b->MergeInsert({"id"}).WhenMatchedUpdateAll().WhenNotMatchedInsertAll().Execute(
            *src));
    EXPECT_EQ(r.num_attempts, 1u);
    EXPECT_EQ(*b->CountRows(), 36);
  }
  {
    // A concurrent delete of a fragment the merge rewrites: retryable; with a source
    // factory the merge is planned again and nothing is lost.
    const std::string uri = UniqueMemoryUri();
    auto a = ThreeFragments(uri);
    ASSERT_OK_AND_ASSIGN(auto b, Dataset::Open(uri));
    ASSERT_OK(a->Delete("id = 0"));
    auto src = ReaderOf({Source({1}, 900)});
    auto r = b->MergeInsert({"id"}).WhenMatchedUpdateAll().Execute(*src);
    ASSERT_THAT(r, IsError(StatusCode::kConflict));
    EXPECT_TRUE(r.status().retryable());
    MergeSourceFactory factory = []() -> Result<RecordBatchReaderPtr> {
      return ReaderOf({Source({1}, 900)});
    };
    ASSERT_OK_AND_ASSIGN(auto ok,
                         b->MergeInsert({"id"}).WhenMatchedUpdateAll().Execute(factory));
    EXPECT_EQ(ok.num_attempts, 2u);
    EXPECT_EQ(*b->CountRows(), 29);
    EXPECT_EQ(*b->CountRows("score = 900"), 1);
  }
  {
    // A concurrent update of another fragment: both commit.
    const std::string uri = UniqueMemoryUri();
    auto a = ThreeFragments(uri);
    ASSERT_OK_AND_ASSIGN(auto b, Dataset::Open(uri));
    ASSERT_OK(a->Update({{"score", "500"}}, "id = 25").status());
    auto src = ReaderOf({Source({1}, 900)});
    ASSERT_OK(b->MergeInsert({"id"}).WhenMatchedUpdateAll().Execute(*src).status());
    EXPECT_EQ(*b->CountRows("score = 500 OR score = 900"), 2);
  }
}

}  // namespace
}  // namespace lance
