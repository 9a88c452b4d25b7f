// SPDX-License-Identifier: Apache-2.0
// Concurrent writers: appends from many threads and from separate processes all land
// with distinct versions; a late Overwrite wins; races that cannot be rebased are
// reported as Conflict of the kind Lance reports. Every expectation follows from which
// commits succeeded (and in which order), never a range of row counts.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <set>
#include <thread>

#include "lance/dataset/dataset.h"
#include "table_test_util.h"
#include "tests/testing/matchers.h"
#include "tests/testing/temp_dir.h"

extern char** environ;

namespace lance {
namespace {

using namespace table_testing;  // NOLINT(build/namespaces)

// `st` is a Conflict whose message names `what`, retryable or not.
void ExpectConflict(const Status& st, const std::string& what, bool retryable) {
  EXPECT_THAT(st, IsErrorWith(StatusCode::kConflict, what));
  EXPECT_EQ(st.retryable(), retryable) << st.ToString();
}

void ConcurrentAppends(const std::string& uri) {
  ASSERT_OK(WriteRows(uri, 0, 10).status());
  constexpr int kThreads = 8;
  constexpr int kAppends = 5;
  constexpr int kRows = 10;
  auto [versions, errors] = RacingAppends(uri, kThreads, kAppends, kRows);
  ASSERT_TRUE(errors.empty()) << errors.front();
  std::set<uint64_t> distinct(versions.begin(), versions.end());
  EXPECT_EQ(distinct.size(), static_cast<size_t>(kThreads * kAppends));
  EXPECT_EQ(*distinct.begin(), 2u);
  EXPECT_EQ(*distinct.rbegin(), 1u + kThreads * kAppends);

  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(uri));
  EXPECT_EQ(ds->version(), 1u + kThreads * kAppends);
  EXPECT_EQ(*ds->CountRows(), 10 + kThreads * kAppends * kRows);
  std::vector<int64_t> expected;
  for (int64_t i = 0; i < 10; ++i) expected.push_back(i);
  for (int64_t i = 1000; i < 1000 + kThreads * kAppends * kRows; ++i)
    expected.push_back(i);
  EXPECT_EQ(SortedIds(*ds), expected);
  // Fragment ids are unique and the high-water mark covers them.
  std::set<uint64_t> ids;
  for (const auto& f : ds->fragments()) ids.insert(f.id);
  EXPECT_EQ(ids.size(), ds->fragments().size());
  ASSERT_OK_AND_ASSIGN(auto all, ds->Versions());
  EXPECT_EQ(all.size(), 1u + kThreads * kAppends);
}

TEST(ConcurrencyTest, ThreadsAppendingToALocalDatasetAllLand) {
  TempDir tmp;
  ConcurrentAppends(tmp.Join("ds.lance"));
}

TEST(ConcurrencyTest, ThreadsAppendingToAMemoryDatasetAllLand) {
  ConcurrentAppends(table_testing::UniqueMemoryUri());
}

pid_t Spawn(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // The helper prints the versions it committed; keep the test output clean.
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  return rc == 0 ? pid : -1;
}

TEST(ConcurrencyTest, ProcessesAppendingConcurrentlyAllLand) {
  TempDir tmp;
  const std::string uri = tmp.Join("ds.lance");
  ASSERT_OK(WriteRows(uri, 0, 10).status());
  constexpr int kProcesses = 3;
  constexpr int kAppends = 8;
  constexpr int kRows = 5;
  std::vector<pid_t> pids;
  for (int p = 0; p < kProcesses; ++p) {
    pids.push_back(
        Spawn({LANCE_DATASET_APPEND_HELPER, uri, std::to_string(1000 + p * 1000),
               std::to_string(kAppends), std::to_string(kRows)}));
    ASSERT_GT(pids.back(), 0);
  }
  // This process appends at the same time.
  for (int k = 0; k < kAppends; ++k) {
    WriteParams params;
    params.mode = WriteMode::kAppend;
    params.commit_retries = 1000;
    ASSERT_OK(WriteRows(uri, 100 + k * kRows, kRows, params).status());
  }
  for (pid_t pid : pids) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << "helper status " << status;
  }
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(uri));
  EXPECT_EQ(ds->version(), 1u + (kProcesses + 1) * kAppends);
  EXPECT_EQ(*ds->CountRows(), 10 + (kProcesses + 1) * kAppends * kRows);
  std::vector<int64_t> expected;
  for (int64_t i = 0; i < 10; ++i) expected.push_back(i);
  for (int64_t i = 100; i < 100 + kAppends * kRows; ++i) expected.push_back(i);
  for (int p = 0; p < kProcesses; ++p) {
    for (int64_t i = 0; i < kAppends * kRows; ++i)
      expected.push_back(1000 + p * 1000 + i);
  }
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(SortedIds(*ds), expected);
}

std::vector<int64_t> Range(int64_t first, int64_t n) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < n; ++i) out.push_back(first + i);
  return out;
}

std::vector<int64_t> Concat(std::vector<int64_t> a, const std::vector<int64_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  std::sort(a.begin(), a.end());
  return a;
}

TEST(ConcurrencyTest, ALateOverwriteWinsOverAnAppend) {
  const std::string uri = table_testing::UniqueMemoryUri();
  ASSERT_OK(WriteRows(uri, 0, 10).status());
  WriteParams append;
  append.mode = WriteMode::kAppend;
  WriteParams overwrite;
  overwrite.mode = WriteMode::kOverwrite;
  const SchemaPtr s = MakeBatch(0, 1)->schema();

  // Both planned against version 1; the append commits first, then the overwrite lands
  // on top of it and wins, as in Lance.
  auto reader = ReaderOf({MakeBatch(100, 5)});
  ASSERT_OK_AND_ASSIGN(auto append_frags, WriteFragments(*reader, uri, append));
  reader = ReaderOf({MakeBatch(500, 5)});
  ASSERT_OK_AND_ASSIGN(auto overwrite_frags, WriteFragments(*reader, uri, overwrite));
  ASSERT_OK_AND_ASSIGN(auto appended, Dataset::Commit(uri, AppendOp{append_frags}, 1));
  EXPECT_EQ(appended->version(), 2u);
  ASSERT_OK_AND_ASSIGN(auto won,
                       Dataset::Commit(uri, OverwriteOp{s, overwrite_frags}, 1));
  EXPECT_EQ(won->version(), 3u);
  EXPECT_EQ(SortedIds(*won), Range(500, 5));
  ASSERT_EQ(won->fragments().size(), 1u);
  EXPECT_EQ(won->fragments()[0].id, 2u);  // above the ids 0 and 1, as pylance 14

  // An append planned against version 2 cannot be rebased over that overwrite:
  // incompatible (no retry helps), and nothing is committed.
  ExpectConflict(Dataset::Commit(uri, AppendOp{append_frags}, 2).status(),
                 "Overwrite committed concurrently as version 3", /*retryable=*/false);
  // Two overwrites planned against the same version: the second gets a retryable
  // conflict (pylance 14 reports the same).
  ExpectConflict(Dataset::Commit(uri, OverwriteOp{s, overwrite_frags}, 2).status(),
                 "both replaced the whole dataset", /*retryable=*/true);
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(uri));
  EXPECT_EQ(ds->version(), 3u);
  EXPECT_EQ(SortedIds(*ds), Range(500, 5));

  // Real threads: the overwrite always commits; the append commits unless the overwrite
  // committed after it read, and then fails with an incompatible conflict. The final
  // table follows from the order of the successful commits.
  for (int round = 0; round < 10; ++round) {
    const std::string u = table_testing::UniqueMemoryUri();
    ASSERT_OK(WriteRows(u, 0, 10).status());
    Result<std::shared_ptr<Dataset>> a_result = Status::OK();
    Result<std::shared_ptr<Dataset>> o_result = Status::OK();
    std::thread a([&] {
      WriteParams params = append;
      params.commit_retries = 100;
      a_result = WriteRows(u, 100, 5, params);
    });
    std::thread o([&] { o_result = WriteRows(u, 500, 5, overwrite); });
    a.join();
    o.join();
    ASSERT_TRUE(o_result.ok()) << o_result.status();
    ASSERT_OK_AND_ASSIGN(auto d, Dataset::Open(u));
    std::vector<int64_t> expected = Range(500, 5);
    if (a_result.ok()) {
      EXPECT_EQ(d->version(), 3u);
      EXPECT_NE((*a_result)->version(), (*o_result)->version());
      // Append after the overwrite: both sets of rows; before it: only the overwrite's.
      if ((*a_result)->version() > (*o_result)->version()) {
        expected = Concat(expected, Range(100, 5));
      }
    } else {
      EXPECT_THAT(a_result, IsErrorWith(StatusCode::kConflict, "Overwrite"));
      EXPECT_FALSE(a_result.status().retryable());
      EXPECT_EQ(d->version(), 2u);
    }
    EXPECT_EQ(SortedIds(*d), expected) << "round " << round;
    EXPECT_EQ(*d->CountRows(), static_cast<int64_t>(expected.size()));
  }
}

TEST(ConcurrencyTest, DeletesRebaseOverOtherFragmentsAndConflictOnTheSame) {
  const std::string uri = table_testing::UniqueMemoryUri();
  ASSERT_OK(WriteRowsInFiles(uri, 0, 30, 10).status());  // fragments 0..2
  ASSERT_OK_AND_ASSIGN(auto a, Dataset::Open(uri));
  ASSERT_OK_AND_ASSIGN(auto b, Dataset::Open(uri));
  ASSERT_OK_AND_ASSIGN(auto c, Dataset::Open(uri));
  ASSERT_OK(a->Delete("id < 3"));                // fragment 0
  ASSERT_OK(b->Delete("id >= 10 AND id < 12"));  // fragment 1: rebased over a
  EXPECT_EQ(b->version(), 3u);
  EXPECT_EQ(*b->CountRows(), 25);
  // c also changes fragment 0: a retryable conflict (the Python face retries it, as
  // pylance's delete(conflict_retries=10)); nothing committed, c stays at version 1.
  ExpectConflict(c->Delete("id = 5"), "fragment 0", /*retryable=*/true);
  EXPECT_EQ(c->version(), 1u);
  ASSERT_OK_AND_ASSIGN(auto latest3, Dataset::Open(uri));
  EXPECT_EQ(latest3->version(), 3u);
  // Planned again on the latest version, it commits.
  ASSERT_OK_AND_ASSIGN(c, Dataset::Open(uri));
  ASSERT_OK(c->Delete("id = 5"));
  EXPECT_EQ(c->version(), 4u);
  std::vector<int64_t> expected;
  for (int64_t i = 0; i < 30; ++i) {
    if (i >= 3 && i != 5 && (i < 10 || i >= 12)) expected.push_back(i);
  }
  EXPECT_EQ(SortedIds(*c), expected);

  // A delete rebases over a concurrent append (and vice versa).
  ASSERT_OK_AND_ASSIGN(auto d, Dataset::Open(uri));
  ASSERT_OK(WriteRows(uri, 100, 5, WriteMode::kAppend).status());
  ASSERT_OK(d->Delete("id >= 20 AND id < 25"));
  EXPECT_EQ(d->version(), 6u);
  EXPECT_EQ(*d->CountRows(), 24);  // 30 - 3 - 2 - 1 - 5 + 5
  // The appended fragment is untouched by the delete planned before it existed.
  ASSERT_OK_AND_ASSIGN(auto latest, Dataset::Open(uri));
  EXPECT_EQ(*latest->CountRows("id >= 100"), 5);

  // A delete planned before an overwrite is incompatible with it: not retried, nothing
  // committed, the object stays where it was.
  ASSERT_OK_AND_ASSIGN(auto e, Dataset::Open(uri));
  ASSERT_OK(WriteRows(uri, 700, 3, WriteMode::kOverwrite).status());
  ExpectConflict(e->Delete("id = 700"), "Overwrite", /*retryable=*/false);
  EXPECT_EQ(e->version(), 6u);
  ASSERT_OK_AND_ASSIGN(auto after, Dataset::Open(uri));
  EXPECT_EQ(after->version(), 7u);
  EXPECT_EQ(SortedIds(*after), Range(700, 3));
}

}  // namespace
}  // namespace lance
