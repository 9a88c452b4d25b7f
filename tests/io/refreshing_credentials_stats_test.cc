// SPDX-License-Identifier: Apache-2.0
// The observable side of RefreshingCredentialsSource: waits, fetch latency, forced
// refreshes, the process-wide per-provider registry (CredentialRefreshStats) and the
// inline refresh mode (RefreshMode::kInline, Lance's behaviour, kept for comparison).
// Deterministic: a ManualClock; the provider's "latency" is manual time it advances while
// it fetches, so every duration asserted is exact.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "lance/core/clock.h"
#include "lance/io/refreshing_credentials.h"
#include "tests/io/call_gate.h"
#include "tests/testing/eventually.h"
#include "tests/testing/matchers.h"

namespace lance::io {
namespace {

using ::lance::testing::IsOk;
using namespace std::chrono_literals;
using Creds = Result<std::shared_ptr<const Credentials>>;

using ::lance::testing::Eventually;

// Vends "AKIAFETCH<n>" on its n-th call (TTL 10 min); counts its calls; parks calls at a
// gate while closed; advances the manual clock by `latency` inside every call; may fail.
class CountingProvider final : public StorageOptionsProvider {
 public:
  CountingProvider(std::shared_ptr<ManualClock> clock, std::string id)
      : clock_(std::move(clock)), id_(std::move(id)) {}

  Result<std::optional<StorageOptions>> FetchStorageOptions() override {
    const int n = gate_.Enter();
    {
      std::lock_guard<std::mutex> guard(mu_);
      if (!failure_.ok()) return failure_;
    }
    clock_->Advance(latency_);
    return StorageOptions{
        {"aws_access_key_id", "AKIAFETCH" + std::to_string(n)},
        {"aws_secret_access_key", "fetched-SECRET-" + std::to_string(n)},
        {"expires_at_millis", std::to_string(clock_->NowMillis() + 600'000)}};
  }
  std::string provider_id() const override { return id_; }

  void Close() { gate_.Close(); }
  void Open() { gate_.Open(); }
  void set_failure(Status failure) {
    std::lock_guard<std::mutex> guard(mu_);
    failure_ = std::move(failure);
  }
  int calls() const { return gate_.calls(); }
  bool WaitForCalls(int n) { return gate_.WaitForCalls(n); }

  std::chrono::milliseconds latency_{250};

 private:
  std::shared_ptr<ManualClock> clock_;
  std::string id_;
  ::lance::testing::CallGate gate_;
  mutable std::mutex mu_;
  Status failure_;
};

class RefreshStatsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    clock_ = std::make_shared<ManualClock>();
    // The registry is process-wide and keeps every provider id: a unique id per test.
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    id_ = std::string("CountingProvider { test: ") + info->name() + " }";
    provider_ = std::make_shared<CountingProvider>(clock_, id_);
    options_.jitter_seed = 7;
  }
  void TearDown() override { provider_->Open(); }

  StorageOptions Initial(std::chrono::milliseconds ttl) const {
    return {{"aws_access_key_id", "AKIAINITIAL0001"},
            {"aws_secret_access_key", "initial-SECRET-value"},
            {"expires_at_millis", std::to_string(clock_->NowMillis() + ttl.count())}};
  }

  std::shared_ptr<RefreshingCredentialsSource> MakeSource(std::chrono::milliseconds ttl) {
    auto source =
        RefreshingCredentialsSource::Make(Initial(ttl), provider_, clock_, options_);
    EXPECT_THAT(source, IsOk());
    return source.ok() ? *source : nullptr;
  }

  std::optional<ProviderRefreshStats> Registered() const {
    for (auto& entry : CredentialRefreshStats()) {
      if (entry.provider_id == id_) return entry;
    }
    return std::nullopt;
  }

  // `n` threads calling source->Current() at once, until every one of them waits on the
  // one fetch the (closed) provider holds.
  void StartWaitingCallers(const std::shared_ptr<RefreshingCredentialsSource>& source,
                           int n, std::vector<std::future<Creds>>* callers) {
    for (int i = 0; i < n; ++i) {
      callers->push_back(
          std::async(std::launch::async, [source] { return source->Current(); }));
    }
    ASSERT_TRUE(provider_->WaitForCalls(1));
    ASSERT_TRUE(Eventually([&] { return clock_->num_waiters() == n; }));
  }

  static std::string Key(const Creds& r) {
    return r.ok() ? (*r)->aws.access_key_id : "<error: " + r.status().ToString() + ">";
  }

  std::shared_ptr<ManualClock> clock_;
  std::string id_;
  std::shared_ptr<CountingProvider> provider_;
  RefreshingCredentialsOptions options_;
};

TEST_F(RefreshStatsTest, RequestsWaitingOnAnExpiryAreCountedWithTheirWaitTime) {
  auto source = MakeSource(10min);
  ASSERT_NE(source, nullptr);
  // Fresh credentials: no wait, no fetch.
  EXPECT_EQ(Key(source->Current()), "AKIAINITIAL0001");
  EXPECT_EQ(source->stats().waits, 0);

  provider_->Close();
  clock_->Advance(10min);  // expired
  std::vector<std::future<Creds>> callers;
  ASSERT_NO_FATAL_FAILURE(StartWaitingCallers(source, 4, &callers));
  provider_->Open();  // the fetch takes 250 ms of manual time
  for (auto& c : callers) EXPECT_EQ(Key(c.get()), "AKIAFETCH1");

  const RefreshStats stats = source->stats();
  EXPECT_EQ(stats.fetches, 1);
  EXPECT_EQ(stats.blocking_refreshes, 1);
  EXPECT_EQ(stats.completed_fetches, 1);
  EXPECT_EQ(stats.waits, 4);
  EXPECT_EQ(stats.total_wait, 1000ms);
  EXPECT_EQ(stats.max_wait, 250ms);
  EXPECT_EQ(stats.last_fetch_latency, 250ms);
  EXPECT_EQ(stats.max_fetch_latency, 250ms);
  EXPECT_EQ(stats.total_fetch_latency, 250ms);
  EXPECT_EQ(stats.failed_requests, 0);
  // Fresh again: further calls neither wait nor fetch.
  EXPECT_EQ(Key(source->Current()), "AKIAFETCH1");
  EXPECT_EQ(source->stats().waits, 4);
}

TEST_F(RefreshStatsTest, BackgroundRefreshInTheWindowMakesNoRequestWait) {
  auto source = MakeSource(10min);
  provider_->Close();
  clock_->Advance(9min + 30s);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(Key(source->Current()), "AKIAINITIAL0001");
  ASSERT_TRUE(provider_->WaitForCalls(1));
  provider_->Open();
  ASSERT_TRUE(source->WaitIdle(10s));
  const RefreshStats stats = source->stats();
  EXPECT_EQ(stats.background_refreshes, 1);
  EXPECT_EQ(stats.inline_refreshes, 0);
  EXPECT_EQ(stats.waits, 0);
  EXPECT_EQ(stats.total_wait, 0ms);
  EXPECT_EQ(stats.max_fetch_latency, 250ms);
}

TEST_F(RefreshStatsTest, InlineModeMakesWindowRequestsWaitForOneFetch) {
  options_.mode = RefreshMode::kInline;
  auto source = MakeSource(10min);
  provider_->Close();
  clock_->Advance(9min + 30s);  // inside the window, credentials still valid
  // All three wait on the one fetch, although the old credentials are still valid.
  std::vector<std::future<Creds>> callers;
  ASSERT_NO_FATAL_FAILURE(StartWaitingCallers(source, 3, &callers));
  EXPECT_EQ(provider_->calls(), 1);
  provider_->Open();
  for (auto& c : callers) EXPECT_EQ(Key(c.get()), "AKIAFETCH1");
  const RefreshStats stats = source->stats();
  EXPECT_EQ(stats.fetches, 1);
  EXPECT_EQ(stats.inline_refreshes, 1);
  EXPECT_EQ(stats.background_refreshes, 0);
  EXPECT_EQ(stats.blocking_refreshes, 0);
  EXPECT_EQ(stats.waits, 3);
  EXPECT_EQ(stats.total_wait, 750ms);
  EXPECT_EQ(stats.max_wait, 250ms);
  EXPECT_EQ(provider_->calls(), 1);
}

TEST_F(RefreshStatsTest, InlineModeFailureInsideTheWindowStillServesValidCredentials) {
  options_.mode = RefreshMode::kInline;
  auto source = MakeSource(10min);
  provider_->set_failure(Status::IOError("describe_table: namespace unreachable"));
  clock_->Advance(9min + 30s);
  EXPECT_EQ(Key(source->Current()), "AKIAINITIAL0001");
  // The backoff defers the next attempt: served at once, no second fetch.
  EXPECT_EQ(Key(source->Current()), "AKIAINITIAL0001");
  const RefreshStats stats = source->stats();
  EXPECT_EQ(stats.fetches, 1);
  EXPECT_EQ(stats.failures, 1);
  EXPECT_EQ(stats.failed_requests, 0);
  EXPECT_EQ(stats.waits, 1);
  EXPECT_GE(stats.deferred_refreshes, 1);
}

TEST_F(RefreshStatsTest, ForcedRefreshesAreCounted) {
  auto source = MakeSource(10min);
  ASSERT_OK_AND_ASSIGN(auto initial, source->Current());
  ASSERT_OK_AND_ASSIGN(auto fresh, source->OnRejected(*initial));
  EXPECT_EQ(fresh->aws.access_key_id, "AKIAFETCH1");
  const RefreshStats stats = source->stats();
  EXPECT_EQ(stats.fetches, 1);
  EXPECT_EQ(stats.forced_refreshes, 1);
  EXPECT_EQ(stats.completed_fetches, 1);
  ASSERT_TRUE(Registered().has_value());
  EXPECT_EQ(Registered()->stats.forced_refreshes, 1);
}

TEST_F(RefreshStatsTest, RegistrySumsSourcesOfOneProviderIdAndKeepsTheDeadOnes) {
  EXPECT_FALSE(Registered().has_value());
  auto a = MakeSource(10min);
  auto b = MakeSource(20min);
  ASSERT_TRUE(Registered().has_value());
  EXPECT_EQ(Registered()->sources, 2);
  EXPECT_EQ(Registered()->live_sources, 2);
  EXPECT_EQ(Registered()->stats.fetches, 0);

  clock_->Advance(10min);  // a expired: one blocking fetch; b is fresh
  EXPECT_EQ(Key(a->Current()), "AKIAFETCH1");
  EXPECT_EQ(Key(b->Current()), "AKIAINITIAL0001");
  ASSERT_OK_AND_ASSIGN(auto b_creds, b->Current());
  ASSERT_THAT(b->OnRejected(*b_creds), IsOk());  // b: one forced fetch

  auto entry = Registered();
  ASSERT_TRUE(entry.has_value());
  EXPECT_EQ(entry->stats.fetches, 2);
  EXPECT_EQ(entry->stats.blocking_refreshes, 1);
  EXPECT_EQ(entry->stats.forced_refreshes, 1);
  EXPECT_EQ(entry->stats.waits, 1);
  EXPECT_EQ(entry->stats.total_fetch_latency, 500ms);
  EXPECT_EQ(entry->stats.max_fetch_latency, 250ms);
  // The newest live source (b) gives the expiry.
  EXPECT_EQ(entry->stats.expires_at_millis, b->stats().expires_at_millis);

  a.reset();  // a's counters stay in the registry
  entry = Registered();
  EXPECT_EQ(entry->sources, 2);
  EXPECT_EQ(entry->live_sources, 1);
  EXPECT_EQ(entry->stats.fetches, 2);
  EXPECT_EQ(entry->stats.blocking_refreshes, 1);
  EXPECT_EQ(entry->stats.waits, 1);

  b.reset();
  entry = Registered();
  EXPECT_EQ(entry->live_sources, 0);
  EXPECT_EQ(entry->stats.fetches, 2);
  EXPECT_EQ(entry->stats.forced_refreshes, 1);
  EXPECT_EQ(entry->stats.expires_at_millis, std::nullopt);

  // ToProviderRefreshStats: one source alone.
  auto c = MakeSource(10min);
  const ProviderRefreshStats single = ToProviderRefreshStats(*c);
  EXPECT_EQ(single.provider_id, id_);
  EXPECT_EQ(single.sources, 1);
  EXPECT_EQ(single.stats.fetches, 0);
  EXPECT_EQ(Registered()->sources, 3);
}

TEST_F(RefreshStatsTest, RegistryEntriesAreSortedAndCarryNoSecret) {
  auto source = MakeSource(10min);
  clock_->Advance(10min);
  ASSERT_THAT(source->Current(), IsOk());
  const auto all = CredentialRefreshStats();
  EXPECT_TRUE(std::is_sorted(all.begin(), all.end(), [](const auto& x, const auto& y) {
    return x.provider_id < y.provider_id;
  }));
  for (const auto& entry : all) {
    EXPECT_EQ(entry.provider_id.find("SECRET"), std::string::npos);
  }
  auto entry = Registered();
  ASSERT_TRUE(entry.has_value());
  const auto fields = RefreshStatsFields(*entry);
  ASSERT_EQ(fields.size(), 20u);
  EXPECT_EQ(fields[0], (std::pair<std::string, int64_t>{"sources", 1}));
  EXPECT_EQ(fields[2], (std::pair<std::string, int64_t>{"fetches", 1}));
  auto value = [&](const std::string& name) {
    for (const auto& [k, v] : fields) {
      if (k == name) return v;
    }
    ADD_FAILURE() << "no field " << name;
    return int64_t{-1};
  };
  EXPECT_EQ(value("waits"), 1);
  EXPECT_EQ(value("total_wait_ms"), 250);
  EXPECT_EQ(value("avg_fetch_latency_ms"), 250);
  EXPECT_EQ(value("expires_at_millis"), clock_->NowMillis() + 600'000);
  EXPECT_EQ(RefreshModeName(RefreshMode::kBackground), "background");
  EXPECT_EQ(RefreshModeName(RefreshMode::kInline), "inline");
}

}  // namespace
}  // namespace lance::io
