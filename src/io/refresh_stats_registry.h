// SPDX-License-Identifier: Apache-2.0
// The refresh statistics of one io::Session, per provider id: what
// Session::CredentialRefreshStats() reports. Private to src/io: the session owns one,
// every RefreshingCredentialsSource built for the session registers its counters in it
// and retires them into it when it dies.

#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "lance/io/refreshing_credentials.h"

namespace lance::io::internal {

/// \brief What the registry reads from a registered source.
class RefreshCounters {
 public:
  virtual ~RefreshCounters() = default;
  /// \brief The source's counters with its current expiry and offset; `source_alive`
  /// false once the source object is gone (its state may outlive it while a refresh
  /// thread finishes).
  virtual RefreshStats CountersSnapshot(bool* source_alive) const = 0;
};

/// \brief Per-provider counters of live and retired sources. Thread-safe.
class RefreshStatsRegistry {
 public:
  /// \brief A new source of `provider_id` (held weakly).
  void Register(const std::string& provider_id,
                std::weak_ptr<const RefreshCounters> counters);
  /// \brief A source of `provider_id` died with `stats`: they stay in the sums.
  void Retire(const std::string& provider_id, const RefreshStats& stats);
  /// \brief Every provider id's entry, sorted by id (see ProviderRefreshStats).
  std::vector<ProviderRefreshStats> Collect() const;

 private:
  struct Entry {
    int64_t sources = 0;
    RefreshStats retired;  // counters of the sources that died
    std::vector<std::weak_ptr<const RefreshCounters>> live;
  };
  mutable std::mutex mu_;
  std::map<std::string, Entry> entries_;
};

}  // namespace lance::io::internal
