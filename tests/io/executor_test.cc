// SPDX-License-Identifier: Apache-2.0
#include "lance/io/executor.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>
#include <vector>

#include "lance/macros.h"

namespace lance::io {
namespace {

// A task that holds its worker until `release`, then returns `result`.
std::function<Status()> HoldUntil(const std::atomic<bool>& release,
                                  Status result = Status::OK()) {
  return [&release, result] {
    while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return result;
  };
}

// A task that counts its runs in `ran`.
std::function<Status()> CountRun(std::atomic<int>& ran) {
  return [&ran] {
    ++ran;
    return Status::OK();
  };
}

TEST(ExecutorTest, SpawnReturnsValuesAndErrors) {
  Executor executor(ExecutorOptions{2, 0});
  auto a = executor.Spawn([]() -> Result<int> { return 42; });
  auto b = executor.Spawn([]() -> Result<int> { return Status::IOError("disk gone"); });
  auto c = executor.Spawn([]() { return Status::OK(); });
  ASSERT_TRUE(a.Get().ok());
  auto rb = b.Get();
  ASSERT_FALSE(rb.ok());
  EXPECT_EQ(rb.status().message(), "disk gone");
  EXPECT_TRUE(c.Get().ok());
  EXPECT_EQ(executor.stats().tasks_submitted, 3);
}

// One worker, tasks that wait on sub-tasks: with a plain queue the worker would wait on
// work queued behind itself forever; the waiter runs unstarted sub-tasks itself.
TEST(ExecutorTest, NestedWaitsDoNotDeadlockOnAFullPool) {
  Executor executor(ExecutorOptions{1, 0});
  std::vector<Pending<int>> outer;
  for (int i = 0; i < 4; ++i) {
    outer.push_back(executor.Spawn([&executor, i]() -> Result<int> {
      TaskGroup group(executor);
      std::atomic<int> sum{0};
      for (int k = 0; k < 8; ++k) {
        EXPECT_TRUE(group
                        .Submit([&sum, k] {
                          sum += k;
                          return Status::OK();
                        })
                        .ok());
      }
      LANCE_RETURN_NOT_OK(group.Wait());
      return sum.load() + i;
    }));
  }
  for (int i = 0; i < 4; ++i) {
    auto r = outer[static_cast<size_t>(i)].Get();
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(*r, 28 + i);
  }
  EXPECT_GT(executor.stats().tasks_submitted, 32);
}

TEST(ExecutorTest, GroupReturnsTheFirstErrorAndDropsUnstartedTasks) {
  Executor executor(ExecutorOptions{1, 0});
  std::atomic<bool> release{false};
  std::atomic<int> ran{0};
  TaskGroup group(executor);
  // The only worker is held by the first task, so the others stay queued.
  ASSERT_TRUE(group.Submit(HoldUntil(release, Status::IOError("first failure"))).ok());
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(group.Submit(CountRun(ran)).ok());
  release = true;
  Status st = group.Wait();
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "first failure");
  EXPECT_EQ(ran.load(), 0) << "tasks queued behind a failure must not run";
}

TEST(ExecutorTest, MaxInFlightBoundsOutstandingTasks) {
  Executor executor(ExecutorOptions{4, 0});
  std::atomic<int> running{0};
  std::atomic<int> peak{0};
  TaskGroup group(executor, /*max_in_flight=*/2);
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(group
                    .Submit([&] {
                      const int now = ++running;
                      int seen = peak.load();
                      while (now > seen && !peak.compare_exchange_weak(seen, now)) {
                      }
                      std::this_thread::sleep_for(std::chrono::milliseconds(2));
                      --running;
                      return Status::OK();
                    })
                    .ok());
  }
  ASSERT_TRUE(group.Wait().ok());
  EXPECT_LE(peak.load(), 2);
  EXPECT_GE(peak.load(), 1);
}

TEST(ExecutorTest, CancelledGroupReportsCancelled) {
  Executor executor(ExecutorOptions{1, 0});
  std::atomic<bool> release{false};
  std::atomic<int> ran{0};
  TaskGroup group(executor);
  ASSERT_TRUE(group.Submit(HoldUntil(release)).ok());
  ASSERT_TRUE(group.Submit(CountRun(ran)).ok());
  group.Cancel();
  release = true;
  Status st = group.Wait();
  EXPECT_EQ(st.code(), StatusCode::kCancelled);
  EXPECT_EQ(ran.load(), 0);
}

TEST(ExecutorTest, DestroyingAPendingCancelsAnUnstartedTask) {
  Executor executor(ExecutorOptions{1, 0});
  std::atomic<bool> release{false};
  std::atomic<int> ran{0};
  auto blocker = executor.Spawn(HoldUntil(release));
  { auto dropped = executor.Spawn(CountRun(ran)); }
  release = true;
  ASSERT_TRUE(blocker.Get().ok());
  // Tasks after the dropped one still run: the worker skips the cancelled entry.
  auto after = executor.Spawn([]() -> Result<int> { return 7; });
  EXPECT_EQ(*after.Get(), 7);
  EXPECT_EQ(ran.load(), 0);
}

TEST(ExecutorTest, MemoryBudgetMakesReservationsWait) {
  Executor executor(ExecutorOptions{2, 100});
  auto first = executor.Reserve(80);
  ASSERT_TRUE(first.ok());
  // Larger than what is left: waits until the first is released.
  std::atomic<bool> got{false};
  std::thread t([&] {
    auto second = executor.Reserve(50);
    ASSERT_TRUE(second.ok());
    got = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_FALSE(got.load());
  EXPECT_EQ(executor.stats().bytes_reserved, 80);
  first->Release();
  t.join();
  EXPECT_TRUE(got.load());
  EXPECT_EQ(executor.stats().bytes_reserved, 0);
  EXPECT_EQ(executor.stats().memory_waits, 1);
  // One request larger than the whole budget proceeds when nothing else is held.
  auto huge = executor.Reserve(1000);
  ASSERT_TRUE(huge.ok());
  EXPECT_EQ(executor.stats().peak_bytes_reserved, 1000);
}

TEST(ExecutorTest, CancelledReservationStopsWaiting) {
  Executor executor(ExecutorOptions{1, 10});
  auto held = executor.Reserve(10);
  ASSERT_TRUE(held.ok());
  CancellationToken token;
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    token.Cancel();
  });
  auto r = executor.Reserve(5, &token);
  canceller.join();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCancelled);
}

}  // namespace
}  // namespace lance::io
