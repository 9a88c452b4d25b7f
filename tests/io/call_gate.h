// SPDX-License-Identifier: Apache-2.0
// What the fake credential providers of the refreshing-credentials tests share: a count
// of their calls that a test can wait for, and a gate that parks calls while closed.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace lance::testing {

class CallGate {
 public:
  /// Counts a call and waits while the gate is closed; the call's number (1, 2, ...).
  int Enter() {
    std::unique_lock<std::mutex> lock(mu_);
    const int n = ++calls_;
    cv_.notify_all();
    cv_.wait(lock, [&] { return !closed_; });
    return n;
  }

  void Close() {
    std::lock_guard<std::mutex> guard(mu_);
    closed_ = true;
  }
  void Open() {
    std::lock_guard<std::mutex> guard(mu_);
    closed_ = false;
    cv_.notify_all();
  }
  int calls() const {
    std::lock_guard<std::mutex> guard(mu_);
    return calls_;
  }
  /// Waits (real time) until there have been `n` calls.
  bool WaitForCalls(int n, std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return calls_ >= n; });
  }

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  int calls_ = 0;
  bool closed_ = false;
};

}  // namespace lance::testing
