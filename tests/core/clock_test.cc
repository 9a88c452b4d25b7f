// SPDX-License-Identifier: Apache-2.0
#include "lance/core/clock.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <functional>
#include <future>
#include <mutex>
#include <thread>

#include "tests/testing/eventually.h"

namespace lance {
namespace {

using namespace std::chrono_literals;

using ::lance::testing::Eventually;

TEST(ManualClockTest, StartsAtTheGivenWallTimeAndMovesOnlyWhenAdvanced) {
  ManualClock clock(1'700'000'000'000);
  EXPECT_EQ(clock.NowMillis(), 1'700'000'000'000);
  const auto steady = clock.SteadyNow();
  std::this_thread::sleep_for(2ms);
  EXPECT_EQ(clock.NowMillis(), 1'700'000'000'000);
  EXPECT_EQ(clock.SteadyNow(), steady);
  clock.Advance(1500ms);
  EXPECT_EQ(clock.NowMillis(), 1'700'000'001'500);
  EXPECT_EQ(clock.SteadyNow() - steady, 1500ms);
}

TEST(ManualClockTest, SettingTheWallClockLeavesMonotonicTimeAlone) {
  ManualClock clock;
  const auto steady = clock.SteadyNow();
  clock.SetWallMillis(42);
  EXPECT_EQ(clock.NowMillis(), 42);
  EXPECT_EQ(clock.SteadyNow(), steady);
}

TEST(ManualClockTest, SleepForReturnsOnceAdvancedFarEnough) {
  ManualClock clock;
  auto sleeper = std::async(std::launch::async, [&] { clock.SleepFor(1s); });
  ASSERT_TRUE(Eventually([&] { return clock.num_waiters() == 1; }));
  clock.Advance(999ms);
  EXPECT_EQ(sleeper.wait_for(20ms), std::future_status::timeout);
  clock.Advance(1ms);
  EXPECT_EQ(sleeper.wait_for(10s), std::future_status::ready);
  EXPECT_EQ(clock.num_waiters(), 0);
}

TEST(ManualClockTest, WaitUntilEndsAtTheManualDeadline) {
  ManualClock clock;
  std::mutex mu;
  std::condition_variable cv;
  auto waiter = std::async(std::launch::async, [&] {
    std::unique_lock<std::mutex> lock(mu);
    return clock.WaitUntil(lock, cv, clock.SteadyNow() + 5s, [] { return false; });
  });
  ASSERT_TRUE(Eventually([&] { return clock.num_waiters() == 1; }));
  clock.Advance(4s);
  EXPECT_EQ(waiter.wait_for(20ms), std::future_status::timeout);
  clock.Advance(1s);
  EXPECT_FALSE(waiter.get());
  EXPECT_EQ(clock.num_waiters(), 0);
}

TEST(ManualClockTest, WaitUntilEndsWhenTheConditionHolds) {
  ManualClock clock;
  std::mutex mu;
  std::condition_variable cv;
  bool ready = false;
  auto waiter = std::async(std::launch::async, [&] {
    std::unique_lock<std::mutex> lock(mu);
    return clock.WaitUntil(lock, cv, clock.SteadyNow() + 1h, [&] { return ready; });
  });
  ASSERT_TRUE(Eventually([&] { return clock.num_waiters() == 1; }));
  {
    std::lock_guard<std::mutex> guard(mu);
    ready = true;
  }
  cv.notify_all();
  EXPECT_TRUE(waiter.get());  // no time passed on the manual clock
}

TEST(RealClockTest, FollowsTheSystemClocks) {
  auto clock = RealClock::Instance();
  EXPECT_EQ(clock, RealClock::Instance());
  const int64_t system_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                std::chrono::system_clock::now().time_since_epoch())
                                .count();
  EXPECT_LE(std::abs(clock->NowMillis() - system_ms), 1000);
  std::mutex mu;
  std::condition_variable cv;
  std::unique_lock<std::mutex> lock(mu);
  const auto start = clock->SteadyNow();
  EXPECT_FALSE(clock->WaitUntil(lock, cv, start + 5ms, [] { return false; }));
  EXPECT_GE(clock->SteadyNow() - start, 5ms);
}

}  // namespace
}  // namespace lance
