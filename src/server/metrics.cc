// SPDX-License-Identifier: Apache-2.0
// OpsMetrics (metrics.h).

#include "server/metrics.h"

namespace lance::server::internal {

void OpsMetrics::Count(const std::string& op) {
  std::lock_guard<std::mutex> lock(mu_);
  ++counts_[op];
}

std::map<std::string, int64_t> OpsMetrics::Snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  return counts_;
}

void OpsMetrics::Reset() {
  std::lock_guard<std::mutex> lock(mu_);
  counts_.clear();
}

}  // namespace lance::server::internal
