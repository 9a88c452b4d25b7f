// SPDX-License-Identifier: Apache-2.0

#include "io/refresh_stats_registry.h"

#include <algorithm>
#include <utility>

namespace lance::io::internal {

namespace {

// Adds the counters of `from` to `into` (sums; maxima for the max_* fields).
void AddCounters(RefreshStats& into, const RefreshStats& from) {
  into.fetches += from.fetches;
  into.background_refreshes += from.background_refreshes;
  into.blocking_refreshes += from.blocking_refreshes;
  into.forced_refreshes += from.forced_refreshes;
  into.inline_refreshes += from.inline_refreshes;
  into.failures += from.failures;
  into.failed_requests += from.failed_requests;
  into.deferred_refreshes += from.deferred_refreshes;
  into.waits += from.waits;
  into.total_wait += from.total_wait;
  into.max_wait = std::max(into.max_wait, from.max_wait);
  into.completed_fetches += from.completed_fetches;
  into.max_fetch_latency = std::max(into.max_fetch_latency, from.max_fetch_latency);
  into.total_fetch_latency += from.total_fetch_latency;
}

}  // namespace

void RefreshStatsRegistry::Register(const std::string& provider_id,
                                    std::weak_ptr<const RefreshCounters> counters) {
  std::lock_guard<std::mutex> guard(mu_);
  Entry& entry = entries_[provider_id];
  ++entry.sources;
  entry.live.push_back(std::move(counters));
}

void RefreshStatsRegistry::Retire(const std::string& provider_id,
                                  const RefreshStats& stats) {
  std::lock_guard<std::mutex> guard(mu_);
  Entry& entry = entries_[provider_id];
  AddCounters(entry.retired, stats);
  // The retiring source's own weak pointer has expired by now.
  std::erase_if(entry.live, [](const auto& weak) { return weak.expired(); });
}

std::vector<ProviderRefreshStats> RefreshStatsRegistry::Collect() const {
  struct Collected {
    ProviderRefreshStats out;
    std::vector<std::shared_ptr<const RefreshCounters>> live;
  };
  std::vector<Collected> collected;
  {
    std::lock_guard<std::mutex> guard(mu_);
    collected.reserve(entries_.size());
    for (const auto& [id, entry] : entries_) {
      Collected c;
      c.out.provider_id = id;
      c.out.sources = entry.sources;
      c.out.stats = entry.retired;
      for (const auto& weak : entry.live) {
        if (auto counters = weak.lock()) c.live.push_back(std::move(counters));
      }
      collected.push_back(std::move(c));
    }
  }
  // Outside the lock: dropping the last reference to a source's state below retires it,
  // which takes the lock.
  std::vector<ProviderRefreshStats> result;
  result.reserve(collected.size());
  for (Collected& c : collected) {
    for (const auto& counters : c.live) {
      bool source_alive = false;
      const RefreshStats snapshot = counters->CountersSnapshot(&source_alive);
      // A state outlives its source only while a refresh thread finishes: its counters
      // are not retired yet, so they are added here.
      AddCounters(c.out.stats, snapshot);
      if (!source_alive) continue;
      ++c.out.live_sources;
      // The newest live source (registered last) gives the current values.
      c.out.stats.last_fetch_latency = snapshot.last_fetch_latency;
      c.out.stats.expires_at_millis = snapshot.expires_at_millis;
      c.out.stats.refresh_offset = snapshot.refresh_offset;
    }
    c.live.clear();
    result.push_back(std::move(c.out));
  }
  return result;
}

}  // namespace lance::io::internal
