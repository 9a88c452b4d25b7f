// SPDX-License-Identifier: Apache-2.0
/// \file clock.h
/// \brief Clock: an injectable source of time, so code that waits on expiry (credential
/// refresh, backoff) can be driven deterministically by tests.
///
/// Two notions of time, as in the standard library: the wall clock (Now(), epoch
/// milliseconds; compared with server-issued expiry times such as `expires_at_millis`)
/// and a monotonic clock (SteadyNow(); used for timeouts, rate limits and latencies,
/// which must not jump when the wall clock is set). Code that blocks goes through
/// SleepFor() / WaitUntil() so that a ManualClock can release it by advancing time.

#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <set>

namespace lance {

/// \brief Source of wall and monotonic time, and of timed waits.
///
/// Thread-safe: every method may be called concurrently. Implementations are shared
/// (std::shared_ptr) by the objects that use them.
class Clock {
 public:
  using SystemTimePoint = std::chrono::system_clock::time_point;
  using SteadyTimePoint = std::chrono::steady_clock::time_point;

  virtual ~Clock() = default;

  /// \brief Wall-clock time.
  virtual SystemTimePoint Now() const = 0;
  /// \brief Monotonic time, for deadlines and intervals.
  virtual SteadyTimePoint SteadyNow() const = 0;

  /// \brief Wall-clock time as milliseconds since the Unix epoch (the unit of
  /// `expires_at_millis`).
  int64_t NowMillis() const;

  /// \brief Blocks the calling thread for `duration` of this clock's monotonic time.
  virtual void SleepFor(std::chrono::nanoseconds duration) = 0;

  /// \brief Waits on `cv` until `done()` is true or this clock's monotonic time reaches
  /// `deadline`, like std::condition_variable::wait_until with a predicate.
  /// REQUIRES: `lock` is locked and is the mutex that guards the state `done` reads and
  /// that notifiers of `cv` change it under.
  /// \return done() at return: false means the deadline passed first.
  virtual bool WaitUntil(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                         SteadyTimePoint deadline, const std::function<bool()>& done) = 0;
};

/// \brief The real clocks (std::chrono::system_clock / steady_clock).
class RealClock final : public Clock {
 public:
  /// \brief The process-wide instance; never destroyed.
  static std::shared_ptr<Clock> Instance();

  SystemTimePoint Now() const override;
  SteadyTimePoint SteadyNow() const override;
  void SleepFor(std::chrono::nanoseconds duration) override;
  bool WaitUntil(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                 SteadyTimePoint deadline, const std::function<bool()>& done) override;
};

/// \brief A clock that only moves when told to (tests).
///
/// Both wall and monotonic time start where the constructor puts them and move
/// together by Advance(). Advance() wakes every thread blocked in SleepFor() or
/// WaitUntil() on this clock, which then re-checks its deadline against the new time.
/// Waiting threads also re-check every few real milliseconds, so a wake-up that races
/// with the start of a wait costs a little latency, never a hang; outcomes depend only
/// on the manual time.
class ManualClock final : public Clock {
 public:
  /// \brief Starts at wall time `start_epoch_millis` (default: 2026-01-01T00:00:00Z) and
  /// an arbitrary monotonic origin.
  explicit ManualClock(int64_t start_epoch_millis = 1'767'225'600'000);

  SystemTimePoint Now() const override;
  SteadyTimePoint SteadyNow() const override;
  /// \brief Returns once Advance() has moved time by `duration` (another thread must
  /// advance the clock, or this blocks forever).
  void SleepFor(std::chrono::nanoseconds duration) override;
  bool WaitUntil(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                 SteadyTimePoint deadline, const std::function<bool()>& done) override;

  /// \brief Moves wall and monotonic time forward by `duration` (>= 0) and wakes the
  /// waiters.
  void Advance(std::chrono::nanoseconds duration);
  /// \brief Sets the wall clock only (monotonic time is unchanged), e.g. to simulate a
  /// clock step. Wakes the waiters.
  void SetWallMillis(int64_t epoch_millis);

  /// \brief Number of threads currently blocked in SleepFor() / WaitUntil() (tests use
  /// it to know a thread has reached its wait).
  int num_waiters() const;

 private:
  void NotifyAll();

  mutable std::mutex mu_;
  std::condition_variable sleep_cv_;  // SleepFor() waits here, under mu_
  std::chrono::nanoseconds wall_since_epoch_;
  std::chrono::nanoseconds steady_elapsed_{0};
  // Condition variables of threads inside WaitUntil(); notified (without their mutex)
  // on Advance. Registration and notification both hold mu_, so a pointer is never used
  // after its waiter left.
  std::multiset<std::condition_variable*> waiting_cvs_;
  int sleepers_ = 0;
};

}  // namespace lance
