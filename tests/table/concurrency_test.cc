// SPDX-License-Identifier: Apache-2.0
// Concurrent writers: appends from many threads and from separate processes all land
// with distinct versions; races that cannot be rebased are reported as Conflict.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <set>
#include <thread>

#include "lance/table/dataset.h"
#include "table_test_util.h"
#include "tests/testing/matchers.h"
#include "tests/testing/temp_dir.h"

extern char** environ;

namespace lance {
namespace {

using ::lance::testing::IsError;
using ::lance::testing::IsErrorWith;
using ::lance::testing::TempDir;
using table_testing::Int64Column;
using table_testing::MakeBatch;
using table_testing::ReaderOf;
using table_testing::WriteRows;

std::vector<int64_t> SortedIds(const Dataset& ds) {
  ScanOptions options;
  options.columns = {"id"};
  auto table = ds.ToTable(options);
  EXPECT_TRUE(table.ok()) << table.status();
  auto ids = table.ok() ? Int64Column(**table, "id") : std::vector<int64_t>{};
  std::sort(ids.begin(), ids.end());
  return ids;
}

void ConcurrentAppends(const std::string& uri) {
  ASSERT_OK(WriteRows(uri, 0, 10).status());
  constexpr int kThreads = 8;
  constexpr int kAppends = 5;
  constexpr int kRows = 10;
  std::vector<std::thread> threads;
  std::mutex mu;
  std::vector<uint64_t> versions;
  std::vector<std::string> errors;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int k = 0; k < kAppends; ++k) {
        WriteParams params;
        params.mode = WriteMode::kAppend;
        params.commit_retries = 1000;
        const int64_t start = 1000 + (t * kAppends + k) * kRows;
        auto ds = WriteRows(uri, start, kRows, params);
        std::lock_guard<std::mutex> lock(mu);
        if (ds.ok()) {
          versions.push_back((*ds)->version());
        } else {
          errors.push_back(ds.status().ToString());
        }
      }
    });
  }
  for (auto& th : threads) th.join();
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
    pids.push_back(Spawn({LANCE_TABLE_APPEND_HELPER, uri, std::to_string(1000 + p * 1000),
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

TEST(ConcurrencyTest, OverwriteRacingAnAppendConflicts) {
  const std::string uri = table_testing::UniqueMemoryUri();
  ASSERT_OK(WriteRows(uri, 0, 10).status());
  WriteParams append;
  append.mode = WriteMode::kAppend;
  WriteParams overwrite;
  overwrite.mode = WriteMode::kOverwrite;
  const SchemaPtr s = MakeBatch(0, 1)->schema();

  // Both planned against version 1; the append commits first.
  auto reader = ReaderOf({MakeBatch(100, 5)});
  ASSERT_OK_AND_ASSIGN(auto append_frags, WriteFragments(*reader, uri, append));
  reader = ReaderOf({MakeBatch(500, 5)});
  ASSERT_OK_AND_ASSIGN(auto overwrite_frags, WriteFragments(*reader, uri, overwrite));
  ASSERT_OK(Dataset::Commit(uri, AppendOp{append_frags}, 1).status());
  EXPECT_THAT(
      Dataset::Commit(uri, OverwriteOp{s, overwrite_frags}, 1),
      IsErrorWith(StatusCode::kConflict, "Append committed concurrently as version 2"));

  // The other order: the overwrite lands, the append planned against 2 conflicts.
  ASSERT_OK(Dataset::Commit(uri, OverwriteOp{s, overwrite_frags}, 2).status());
  EXPECT_THAT(Dataset::Commit(uri, AppendOp{append_frags}, 2),
              IsErrorWith(StatusCode::kConflict,
                          "Overwrite committed concurrently as version 3"));
  ASSERT_OK_AND_ASSIGN(auto ds, Dataset::Open(uri));
  EXPECT_EQ(ds->version(), 3u);
  EXPECT_EQ(SortedIds(*ds), (std::vector<int64_t>{500, 501, 502, 503, 504}));

  // Real threads: whatever the interleaving, each either commits or gets Conflict, and
  // the final dataset is one of the serial outcomes.
  for (int round = 0; round < 10; ++round) {
    const std::string u = table_testing::UniqueMemoryUri();
    ASSERT_OK(WriteRows(u, 0, 10).status());
    Status a_status, o_status;
    std::thread a([&] {
      append.commit_retries = 100;
      a_status = WriteRows(u, 100, 5, append).status();
    });
    std::thread o([&] { o_status = WriteRows(u, 500, 5, overwrite).status(); });
    a.join();
    o.join();
    EXPECT_TRUE(a_status.ok() || a_status.IsConflict()) << a_status;
    EXPECT_TRUE(o_status.ok() || o_status.IsConflict()) << o_status;
    ASSERT_OK_AND_ASSIGN(auto d, Dataset::Open(u));
    const auto ids = SortedIds(*d);
    const int64_t n = static_cast<int64_t>(ids.size());
    // Serial outcomes: append then overwrite (5 rows), overwrite then append (10), or
    // only one of them (15 / 5).
    EXPECT_TRUE(n == 5 || n == 10 || n == 15) << n;
    EXPECT_EQ(*d->CountRows(), n);
  }
}

TEST(ConcurrencyTest, DeletesRebaseOverOtherFragmentsAndConflictOnTheSame) {
  const std::string uri = table_testing::UniqueMemoryUri();
  WriteParams params;
  params.max_rows_per_file = 10;
  ASSERT_OK(WriteRows(uri, 0, 30, params).status());  // fragments 0..2
  ASSERT_OK_AND_ASSIGN(auto a, Dataset::Open(uri));
  ASSERT_OK_AND_ASSIGN(auto b, Dataset::Open(uri));
  ASSERT_OK_AND_ASSIGN(auto c, Dataset::Open(uri));
  ASSERT_OK(a->Delete("id < 3"));                // fragment 0
  ASSERT_OK(b->Delete("id >= 10 AND id < 12"));  // fragment 1: rebased over a
  EXPECT_EQ(b->version(), 3u);
  EXPECT_EQ(*b->CountRows(), 25);
  EXPECT_THAT(c->Delete("id = 5"), IsErrorWith(StatusCode::kConflict, "fragment 0"));
  EXPECT_EQ(c->version(), 1u);  // unchanged after a failed delete

  // A delete rebases over a concurrent append (and vice versa).
  ASSERT_OK_AND_ASSIGN(auto d, Dataset::Open(uri));
  WriteParams append;
  append.mode = WriteMode::kAppend;
  ASSERT_OK(WriteRows(uri, 100, 5, append).status());
  ASSERT_OK(d->Delete("id >= 20 AND id < 25"));
  EXPECT_EQ(d->version(), 5u);
  EXPECT_EQ(*d->CountRows(), 25);  // 30 - 3 - 2 - 5 + 5
  // The appended fragment is untouched by the delete planned before it existed.
  ASSERT_OK_AND_ASSIGN(auto latest, Dataset::Open(uri));
  EXPECT_EQ(*latest->CountRows("id >= 100"), 5);
}

}  // namespace
}  // namespace lance
