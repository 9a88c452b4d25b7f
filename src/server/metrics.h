// SPDX-License-Identifier: Apache-2.0
// The server's operation counters: how many requests each operation has routed since
// start (or the last reset), as RestAdapter::ops_metrics reports them.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace lance::server::internal {

/// \brief Thread-safe.
class OpsMetrics {
 public:
  /// \brief One more request routed to `op`.
  void Count(const std::string& op);
  /// \brief The counts by operation name.
  std::map<std::string, int64_t> Snapshot() const;
  void Reset();

 private:
  mutable std::mutex mu_;
  std::map<std::string, int64_t> counts_;
};

}  // namespace lance::server::internal
