// SPDX-License-Identifier: Apache-2.0

#include "lance/core/clock.h"

#include <thread>

namespace lance {

namespace {
// How often a ManualClock waiter re-checks on its own. Advance() notifies waiters, but a
// notification sent between a waiter's time check and its entry into the wait (it cannot
// hold the waiter's mutex) would be lost; this bounds the cost of such a race.
constexpr auto kManualRecheck = std::chrono::milliseconds(2);
}  // namespace

int64_t Clock::NowMillis() const {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Now().time_since_epoch())
      .count();
}

// ---------------------------------------------------------------------------------------
// RealClock

std::shared_ptr<Clock> RealClock::Instance() {
  // Leaked on purpose: objects destroyed during static destruction may still ask for time.
  static auto* instance = new std::shared_ptr<Clock>(std::make_shared<RealClock>());
  return *instance;
}

Clock::SystemTimePoint RealClock::Now() const { return std::chrono::system_clock::now(); }

Clock::SteadyTimePoint RealClock::SteadyNow() const {
  return std::chrono::steady_clock::now();
}

void RealClock::SleepFor(std::chrono::nanoseconds duration) {
  if (duration.count() > 0) std::this_thread::sleep_for(duration);
}

bool RealClock::WaitUntil(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                          SteadyTimePoint deadline, const std::function<bool()>& done) {
  return cv.wait_until(lock, deadline, done);
}

// ---------------------------------------------------------------------------------------
// ManualClock

ManualClock::ManualClock(int64_t start_epoch_millis)
    : wall_since_epoch_(std::chrono::milliseconds(start_epoch_millis)) {}

Clock::SystemTimePoint ManualClock::Now() const {
  std::lock_guard<std::mutex> guard(mu_);
  return SystemTimePoint(
      std::chrono::duration_cast<SystemTimePoint::duration>(wall_since_epoch_));
}

Clock::SteadyTimePoint ManualClock::SteadyNow() const {
  std::lock_guard<std::mutex> guard(mu_);
  // A fixed, non-zero origin so that default-constructed time points compare as "long ago".
  return SteadyTimePoint(std::chrono::hours(1)) +
         std::chrono::duration_cast<SteadyTimePoint::duration>(steady_elapsed_);
}

void ManualClock::SleepFor(std::chrono::nanoseconds duration) {
  std::unique_lock<std::mutex> lock(mu_);
  const auto target = steady_elapsed_ + duration;
  ++sleepers_;
  while (steady_elapsed_ < target) sleep_cv_.wait_for(lock, kManualRecheck);
  --sleepers_;
}

bool ManualClock::WaitUntil(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                            SteadyTimePoint deadline, const std::function<bool()>& done) {
  // Lock order: the caller's mutex, then mu_ (Advance never holds mu_ while taking a
  // caller's mutex).
  {
    std::lock_guard<std::mutex> guard(mu_);
    waiting_cvs_.insert(&cv);
  }
  bool result = false;
  while (true) {
    if (done()) {
      result = true;
      break;
    }
    if (SteadyNow() >= deadline) break;
    cv.wait_for(lock, kManualRecheck);
  }
  {
    std::lock_guard<std::mutex> guard(mu_);
    waiting_cvs_.erase(waiting_cvs_.find(&cv));
  }
  return result;
}

void ManualClock::Advance(std::chrono::nanoseconds duration) {
  {
    std::lock_guard<std::mutex> guard(mu_);
    if (duration.count() > 0) {
      steady_elapsed_ += duration;
      wall_since_epoch_ += duration;
    }
  }
  NotifyAll();
}

void ManualClock::SetWallMillis(int64_t epoch_millis) {
  {
    std::lock_guard<std::mutex> guard(mu_);
    wall_since_epoch_ = std::chrono::milliseconds(epoch_millis);
  }
  NotifyAll();
}

int ManualClock::num_waiters() const {
  std::lock_guard<std::mutex> guard(mu_);
  return sleepers_ + static_cast<int>(waiting_cvs_.size());
}

void ManualClock::NotifyAll() {
  std::lock_guard<std::mutex> guard(mu_);
  sleep_cv_.notify_all();
  for (std::condition_variable* cv : waiting_cvs_) cv->notify_all();
}

}  // namespace lance
