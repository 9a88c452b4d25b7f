// SPDX-License-Identifier: Apache-2.0
// Waiting for a condition another thread makes true, in tests.
#pragma once

#include <chrono>
#include <functional>
#include <thread>

namespace lance::testing {

/// \brief Polls `done` in real time (1 ms steps) for at most `timeout`; true once it
/// holds. The timeout is a hang guard for a loaded machine, never the thing a test
/// measures.
inline bool Eventually(const std::function<bool()>& done,
                       std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return done();
}

}  // namespace lance::testing
