// SPDX-License-Identifier: Apache-2.0
// RefreshingCredentialsSource against a fake provider and a ManualClock: every rule of
// the refresh contract that does not need a server (the RGW scenarios live with the
// namespace tests). Deterministic: time only moves by ManualClock::Advance; threads are
// synchronised on the fake provider's gate and on ManualClock::num_waiters().

#include "lance/io/refreshing_credentials.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <future>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "lance/core/clock.h"
#include "lance/io/storage_access.h"
#include "tests/io/call_gate.h"
#include "tests/testing/eventually.h"
#include "tests/testing/matchers.h"

namespace lance::io {
namespace {

using namespace ::lance::testing::prelude;  // NOLINT(build/namespaces)
using namespace std::chrono_literals;

constexpr char kProviderId[] = "FakeProvider { table_id: [team, events] }";
constexpr char kInitialKey[] = "AKIAINITIAL0001";
constexpr char kInitialSecret[] = "initial-SECRET-value";
constexpr char kInitialToken[] = "initial-TOKEN-value";

using ::lance::testing::Eventually;

// A provider that vends "AKIAFETCH<n>" / "fetched-SECRET-<n>" / "fetched-TOKEN-<n>" on
// its n-th call, expiring `ttl` after the clock's now. It can hold calls at a gate, fail,
// or run a custom response.
class FakeProvider final : public StorageOptionsProvider {
 public:
  explicit FakeProvider(std::shared_ptr<ManualClock> clock) : clock_(std::move(clock)) {}

  Result<std::optional<StorageOptions>> FetchStorageOptions() override {
    const int n = gate_.Enter();
    std::function<Result<std::optional<StorageOptions>>(int)> respond;
    {
      std::lock_guard<std::mutex> guard(mu_);
      respond = respond_;
      if (!failure_.ok()) return failure_;
    }
    if (respond) return respond(n);
    return Options(n);
  }

  std::string provider_id() const override { return kProviderId; }

  // The default response of call n.
  StorageOptions Options(int n) const {
    std::lock_guard<std::mutex> guard(mu_);
    StorageOptions m{{"aws_access_key_id", "AKIAFETCH" + std::to_string(n)},
                     {"aws_secret_access_key", "fetched-SECRET-" + std::to_string(n)},
                     {"aws_session_token", "fetched-TOKEN-" + std::to_string(n)},
                     {"aws_region", "us-east-1"}};
    if (ttl_)
      m["expires_at_millis"] = std::to_string(clock_->NowMillis() + ttl_->count());
    if (offset_) m["refresh_offset_millis"] = std::to_string(offset_->count());
    return m;
  }

  void set_ttl(std::optional<std::chrono::milliseconds> ttl) {
    std::lock_guard<std::mutex> guard(mu_);
    ttl_ = ttl;
  }
  void set_offset(std::optional<std::chrono::milliseconds> offset) {
    std::lock_guard<std::mutex> guard(mu_);
    offset_ = offset;
  }
  void set_failure(Status failure) {
    std::lock_guard<std::mutex> guard(mu_);
    failure_ = std::move(failure);
  }
  void set_respond(std::function<Result<std::optional<StorageOptions>>(int)> respond) {
    std::lock_guard<std::mutex> guard(mu_);
    respond_ = std::move(respond);
  }
  void Close() { gate_.Close(); }
  void Open() { gate_.Open(); }
  int calls() const { return gate_.calls(); }
  // Waits (real time) until the provider has been called `n` times.
  bool WaitForCalls(int n, std::chrono::milliseconds timeout = 10s) {
    return gate_.WaitForCalls(n, timeout);
  }

 private:
  std::shared_ptr<ManualClock> clock_;
  ::lance::testing::CallGate gate_;
  mutable std::mutex mu_;
  std::optional<std::chrono::milliseconds> ttl_ = 10min;
  std::optional<std::chrono::milliseconds> offset_;
  Status failure_;
  std::function<Result<std::optional<StorageOptions>>(int)> respond_;
};

class RefreshingCredentialsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    clock_ = std::make_shared<ManualClock>();
    provider_ = std::make_shared<FakeProvider>(clock_);
    options_.jitter_seed = 42;
  }

  void TearDown() override {
    // Never leave a refresh thread parked at the gate.
    provider_->Open();
  }

  StorageOptions Initial(std::optional<std::chrono::milliseconds> ttl,
                         std::optional<std::chrono::milliseconds> offset = std::nullopt) {
    StorageOptions m{{"aws_access_key_id", kInitialKey},
                     {"aws_secret_access_key", kInitialSecret},
                     {"aws_session_token", kInitialToken},
                     {"aws_endpoint", "http://127.0.0.1:7480"},
                     {"allow_http", "true"}};
    if (ttl) m["expires_at_millis"] = std::to_string(clock_->NowMillis() + ttl->count());
    if (offset) m["refresh_offset_millis"] = std::to_string(offset->count());
    return m;
  }

  std::shared_ptr<RefreshingCredentialsSource> MakeSource(const StorageOptions& initial) {
    auto source = RefreshingCredentialsSource::Make(initial, provider_, clock_, options_);
    EXPECT_THAT(source, IsOk());
    return source.ok() ? *source : nullptr;
  }

  // Runs Current() on another thread; fails the test if it has not returned within
  // `timeout` of real time (i.e. it blocked when it should not have).
  Result<std::shared_ptr<const Credentials>> CurrentWithin(
      RefreshingCredentialsSource& source, std::chrono::milliseconds timeout = 10s) {
    auto future = std::async(std::launch::async, [&] { return source.Current(); });
    if (future.wait_for(timeout) != std::future_status::ready) {
      ADD_FAILURE() << "Current() blocked";
      provider_->Open();
    }
    return future.get();
  }

  static std::string Key(const Result<std::shared_ptr<const Credentials>>& r) {
    return r.ok() ? (*r)->aws.access_key_id : "<error: " + r.status().ToString() + ">";
  }

  std::shared_ptr<ManualClock> clock_;
  std::shared_ptr<FakeProvider> provider_;
  RefreshingCredentialsOptions options_;
};

// ---- seeding and the quiet period
// --------------------------------------------------------

TEST_F(RefreshingCredentialsTest, InitialOptionsSeedTheCacheWithoutAFetch) {
  auto source = MakeSource(Initial(10min));
  ASSERT_NE(source, nullptr);
  EXPECT_EQ(provider_->calls(), 0);
  ASSERT_OK_AND_ASSIGN(auto creds, source->Current());
  EXPECT_EQ(creds->aws.access_key_id, kInitialKey);
  EXPECT_EQ(creds->aws.secret_access_key, kInitialSecret);
  EXPECT_EQ(creds->aws.session_token, kInitialToken);
  EXPECT_EQ(provider_->calls(), 0);
  EXPECT_EQ(source->stats().fetches, 0);
  EXPECT_EQ(source->id(), std::string("provider:") + kProviderId);
  EXPECT_EQ(source->latest_storage_options().at("aws_access_key_id"), kInitialKey);
}

TEST_F(RefreshingCredentialsTest, NoFetchBeforeTheRefreshWindow) {
  auto source = MakeSource(Initial(10min));  // default offset 60 s
  // Last millisecond before the window: now + offset == expires - 1.
  clock_->Advance(10min - 60s - 1ms);
  for (int i = 0; i < 100; ++i) {
    ASSERT_OK_AND_ASSIGN(auto creds, source->Current());
    EXPECT_EQ(creds->aws.access_key_id, kInitialKey);
  }
  EXPECT_EQ(provider_->calls(), 0);
  EXPECT_TRUE(source->WaitIdle(1s));
  EXPECT_EQ(provider_->calls(), 0);
}

TEST_F(RefreshingCredentialsTest, OptionsWithoutExpiryAreNeverRefetched) {
  auto source = MakeSource(Initial(std::nullopt));
  clock_->Advance(24h * 365 * 10);
  for (int i = 0; i < 10; ++i) ASSERT_OK(source->Current());
  EXPECT_TRUE(source->WaitIdle(1s));
  EXPECT_EQ(provider_->calls(), 0);
  EXPECT_EQ(source->stats().expires_at_millis, std::nullopt);
}

TEST_F(RefreshingCredentialsTest, NoInitialCredentialsFetchOnceOnFirstUse) {
  auto source = MakeSource(StorageOptions{{"aws_region", "us-east-1"}});
  EXPECT_EQ(provider_->calls(), 0);
  auto first = CurrentWithin(*source);
  EXPECT_EQ(Key(first), "AKIAFETCH1");
  for (int i = 0; i < 10; ++i) EXPECT_EQ(Key(source->Current()), "AKIAFETCH1");
  EXPECT_EQ(provider_->calls(), 1);
  EXPECT_EQ(source->stats().blocking_refreshes, 1);
}

// ---- the refresh window
// ------------------------------------------------------------------

TEST_F(RefreshingCredentialsTest,
       WindowServesOldCredentialsAndRefreshesOnceInTheBackground) {
  auto source = MakeSource(Initial(10min));
  provider_->Close();            // the background fetch parks at the gate
  clock_->Advance(10min - 60s);  // exactly at the window's start
  for (int i = 0; i < 50; ++i) {
    // Would hang (and fail) if a request waited for the parked fetch.
    EXPECT_EQ(Key(CurrentWithin(*source)), kInitialKey);
  }
  ASSERT_TRUE(provider_->WaitForCalls(1));
  RefreshStats stats = source->stats();
  EXPECT_EQ(stats.fetches, 1);
  EXPECT_EQ(stats.background_refreshes, 1);
  EXPECT_EQ(stats.blocking_refreshes, 0);

  provider_->Open();
  ASSERT_TRUE(source->WaitIdle(10s));
  EXPECT_EQ(Key(source->Current()), "AKIAFETCH1");
  EXPECT_EQ(provider_->calls(), 1);
  EXPECT_EQ(source->stats().expires_at_millis, clock_->NowMillis() + 600'000);
}

TEST_F(RefreshingCredentialsTest, ConcurrentCallersInTheWindowStartOneFetch) {
  auto source = MakeSource(Initial(10min));
  provider_->Close();
  clock_->Advance(9min + 30s);
  std::vector<std::thread> threads;
  std::atomic<int> old_served{0};
  for (int t = 0; t < 32; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 20; ++i) {
        auto r = source->Current();
        if (r.ok() && (*r)->aws.access_key_id == kInitialKey) ++old_served;
      }
    });
  }
  for (auto& t : threads) t.join();  // none waited: the fetch is still parked
  EXPECT_EQ(old_served.load(), 32 * 20);
  ASSERT_TRUE(provider_->WaitForCalls(1));
  provider_->Open();
  ASSERT_TRUE(source->WaitIdle(10s));
  EXPECT_EQ(provider_->calls(), 1);
  EXPECT_EQ(Key(source->Current()), "AKIAFETCH1");
}

// ---- expiry
// ------------------------------------------------------------------------------

TEST_F(RefreshingCredentialsTest, ExpiryMakesOneFetchFor32ConcurrentCallers) {
  auto source = MakeSource(Initial(10min));
  provider_->Close();
  clock_->Advance(10min);  // now == expires_at: expired
  std::vector<std::future<Result<std::shared_ptr<const Credentials>>>> futures;
  for (int t = 0; t < 32; ++t) {
    futures.push_back(std::async(std::launch::async, [&] { return source->Current(); }));
  }
  ASSERT_TRUE(provider_->WaitForCalls(1));
  // All 32 are blocked waiting on the one fetch.
  ASSERT_TRUE(Eventually([&] { return clock_->num_waiters() == 32; }))
      << clock_->num_waiters();
  EXPECT_EQ(provider_->calls(), 1);
  provider_->Open();
  for (auto& f : futures) EXPECT_EQ(Key(f.get()), "AKIAFETCH1");
  EXPECT_EQ(provider_->calls(), 1);
  RefreshStats stats = source->stats();
  EXPECT_EQ(stats.fetches, 1);
  EXPECT_EQ(stats.blocking_refreshes, 1);
  EXPECT_EQ(stats.failed_requests, 0);
}

TEST_F(RefreshingCredentialsTest,
       ExpiredAndFailedRefreshNamesExpiryCauseAndProviderButNoSecret) {
  auto source = MakeSource(Initial(10min));
  provider_->set_failure(Status::IOError("describe_table: namespace unreachable"));
  clock_->Advance(10min + 1s);
  auto r = CurrentWithin(*source);
  ASSERT_THAT(r, IsError(StatusCode::kTokenExpired));
  const std::string msg = r.status().message();
  EXPECT_THAT(msg, HasSubstr("expired at 2026-01-01T00:10:00.000Z"));
  EXPECT_THAT(msg, HasSubstr("refresh failed because"));
  EXPECT_THAT(msg, HasSubstr("namespace unreachable"));
  EXPECT_THAT(msg, HasSubstr(kProviderId));
  EXPECT_THAT(msg, HasSubstr("AKIA"));  // the redacted key id
  EXPECT_THAT(msg, Not(HasSubstr(kInitialKey)));
  EXPECT_THAT(msg, Not(HasSubstr("SECRET")));
  EXPECT_THAT(msg, Not(HasSubstr("TOKEN")));
  EXPECT_EQ(provider_->calls(), 1);

  // Within the backoff, requests fail at once without calling the provider again.
  for (int i = 0; i < 20; ++i) {
    EXPECT_THAT(source->Current(),
                IsErrorWith(StatusCode::kTokenExpired, "next attempt in"));
  }
  EXPECT_EQ(provider_->calls(), 1);

  // After the backoff (<= initial_retry_backoff for the first failure), one new attempt.
  provider_->set_failure(Status::OK());
  clock_->Advance(options_.initial_retry_backoff);
  EXPECT_EQ(Key(CurrentWithin(*source)), "AKIAFETCH2");
  EXPECT_EQ(provider_->calls(), 2);
  EXPECT_EQ(source->stats().failures, 1);
  EXPECT_EQ(source->stats().failed_requests, 21);
}

TEST_F(RefreshingCredentialsTest, FirstFetchFailureWithoutCredentialsIsUnauthorized) {
  auto source = MakeSource(StorageOptions{});
  provider_->set_failure(Status::NotFound("table [team, events] not found"));
  auto r = CurrentWithin(*source);
  EXPECT_THAT(r,
              IsErrorWith(StatusCode::kUnauthorized, "table [team, events] not found"));
  EXPECT_THAT(r.status().message(), HasSubstr(kProviderId));
}

TEST_F(RefreshingCredentialsTest, RefreshThatDoesNotCompleteTimesOutAfterMaxWait) {
  options_.max_wait = 5s;
  auto source = MakeSource(Initial(1min, 0ms));
  provider_->Close();
  clock_->Advance(1min);
  auto future = std::async(std::launch::async, [&] { return source->Current(); });
  ASSERT_TRUE(provider_->WaitForCalls(1));
  ASSERT_TRUE(Eventually([&] { return clock_->num_waiters() == 1; }));
  clock_->Advance(4999ms);
  EXPECT_EQ(future.wait_for(20ms), std::future_status::timeout);  // still within max_wait
  clock_->Advance(1ms);
  auto r = future.get();
  EXPECT_THAT(
      r, IsErrorWith(StatusCode::kTokenExpired, "no refresh completed within 5000 ms"));
  provider_->Open();
  ASSERT_TRUE(source->WaitIdle(10s));
  // The fetch that finished late is used by the next request.
  EXPECT_EQ(Key(source->Current()), "AKIAFETCH1");
  EXPECT_EQ(provider_->calls(), 1);
}

// ---- failures while still valid
// ----------------------------------------------------------

TEST_F(RefreshingCredentialsTest,
       FailedBackgroundRefreshFailsNoRequestAndRetriesWithBackoff) {
  options_.initial_retry_backoff = 1s;
  options_.max_retry_backoff = 8s;
  auto source = MakeSource(Initial(10min));
  provider_->set_failure(Status::Unavailable("namespace is throttling"));
  clock_->Advance(9min);  // window (offset 60 s), 60 s of validity left

  EXPECT_EQ(Key(source->Current()), kInitialKey);
  ASSERT_TRUE(source->WaitIdle(10s));
  EXPECT_EQ(provider_->calls(), 1);
  EXPECT_EQ(source->stats().failures, 1);

  // Backoff of the first failure: uniform in [0.5 s, 1 s].
  clock_->Advance(499ms);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(Key(source->Current()), kInitialKey);
  ASSERT_TRUE(source->WaitIdle(10s));
  EXPECT_EQ(provider_->calls(), 1);
  EXPECT_GT(source->stats().deferred_refreshes, 0);

  clock_->Advance(501ms);  // 1 s after the failure: retry allowed
  EXPECT_EQ(Key(source->Current()), kInitialKey);
  ASSERT_TRUE(source->WaitIdle(10s));
  EXPECT_EQ(provider_->calls(), 2);

  // Second consecutive failure: backoff in [1 s, 2 s].
  clock_->Advance(999ms);
  EXPECT_EQ(Key(source->Current()), kInitialKey);
  ASSERT_TRUE(source->WaitIdle(10s));
  EXPECT_EQ(provider_->calls(), 2);
  clock_->Advance(1001ms);
  EXPECT_EQ(Key(source->Current()), kInitialKey);
  ASSERT_TRUE(source->WaitIdle(10s));
  EXPECT_EQ(provider_->calls(), 3);

  // The provider recovers: the next allowed attempt swaps the credentials.
  provider_->set_failure(Status::OK());
  clock_->Advance(4s);
  EXPECT_EQ(Key(source->Current()), kInitialKey);  // served while the refresh runs
  ASSERT_TRUE(source->WaitIdle(10s));
  EXPECT_EQ(Key(source->Current()), "AKIAFETCH4");
  RefreshStats stats = source->stats();
  EXPECT_EQ(stats.failures, 3);
  EXPECT_EQ(stats.failed_requests, 0);
  EXPECT_EQ(stats.background_refreshes, 4);
}

TEST_F(RefreshingCredentialsTest, BackgroundFailuresDoNotDelayTheFirstAttemptOnExpiry) {
  options_.initial_retry_backoff = 30s;
  options_.max_retry_backoff = 30s;
  auto source = MakeSource(Initial(10min));
  provider_->set_failure(Status::Unavailable("namespace down"));
  clock_->Advance(9min + 50s);  // 10 s of validity left
  EXPECT_EQ(Key(source->Current()), kInitialKey);
  ASSERT_TRUE(source->WaitIdle(10s));
  EXPECT_EQ(provider_->calls(), 1);

  // Expired while the 15-30 s backoff still runs; the namespace is back.
  provider_->set_failure(Status::OK());
  clock_->Advance(10s);
  EXPECT_EQ(Key(CurrentWithin(*source)), "AKIAFETCH2");
  EXPECT_EQ(provider_->calls(), 2);
}

TEST_F(RefreshingCredentialsTest, BadResponsesAreFailedRefreshes) {
  struct Case {
    std::string name;
    std::function<Result<std::optional<StorageOptions>>(int)> respond;
    std::string expected;
  };
  std::vector<Case> cases = {
      {"nullopt", [](int) { return std::optional<StorageOptions>(); },
       "returned no storage options"},
      {"no credentials",
       [](int) {
         return std::optional<StorageOptions>(StorageOptions{{"aws_region", "x"}});
       },
       "without credentials"},
      {"key without secret",
       [](int) {
         return std::optional<StorageOptions>(
             StorageOptions{{"aws_access_key_id", "AKIAX"}});
       },
       "aws_access_key_id"},
      {"bad expiry",
       [](int) {
         return std::optional<StorageOptions>(
             StorageOptions{{"aws_access_key_id", "AKIAX"},
                            {"aws_secret_access_key", "s"},
                            {"expires_at_millis", "soon"}});
       },
       "expires_at_millis"},
      {"already expired",
       [this](int) {
         return std::optional<StorageOptions>(StorageOptions{
             {"aws_access_key_id", "AKIAX"},
             {"aws_secret_access_key", "s"},
             {"expires_at_millis", std::to_string(clock_->NowMillis() - 1)}});
       },
       "before they arrived"},
      {"throws",
       [](int) -> Result<std::optional<StorageOptions>> {
         throw std::runtime_error("boom in user code");
       },
       "boom in user code"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    SetUp();
    auto source = MakeSource(StorageOptions{});
    provider_->set_respond(c.respond);
    auto r = CurrentWithin(*source);
    EXPECT_THAT(r, IsErrorWith(StatusCode::kUnauthorized, c.expected));
    EXPECT_EQ(source->stats().failures, 1);
  }
}

// ---- refresh offset and rate limiting
// ----------------------------------------------------

TEST_F(RefreshingCredentialsTest, RefreshOffsetOfTheInitialOptionsSetsTheWindow) {
  auto source = MakeSource(Initial(10s, 1000ms));
  EXPECT_EQ(source->stats().refresh_offset, 1000ms);
  clock_->Advance(9s - 1ms);
  ASSERT_OK(source->Current());
  ASSERT_TRUE(source->WaitIdle(10s));
  EXPECT_EQ(provider_->calls(), 0);
  clock_->Advance(1ms);  // now + 1000 ms == expires_at
  ASSERT_OK(source->Current());
  ASSERT_TRUE(source->WaitIdle(10s));
  EXPECT_EQ(provider_->calls(), 1);
  // The fetched map carried no refresh_offset_millis: the default applies from now on.
  EXPECT_EQ(source->stats().refresh_offset, 60000ms);
}

TEST_F(RefreshingCredentialsTest, RefreshOffsetFromFetchedMapsIsHonoured) {
  provider_->set_ttl(20s);
  provider_->set_offset(5s);
  auto source = MakeSource(Initial(10s, 1000ms));
  clock_->Advance(9s);  // window of the initial options
  ASSERT_OK(source->Current());
  ASSERT_TRUE(source->WaitIdle(10s));
  ASSERT_EQ(provider_->calls(), 1);
  EXPECT_EQ(source->stats().refresh_offset, 5000ms);
  // Fetched at t = 9 s with expiry 29 s and offset 5 s: the window opens at 24 s.
  clock_->Advance(15s - 1ms);
  ASSERT_OK(source->Current());
  ASSERT_TRUE(source->WaitIdle(10s));
  EXPECT_EQ(provider_->calls(), 1);
  // The second map carries no offset: it falls back to the default (60 s, longer than
  // its 20 s life, so the window is open at once and only the rate limit spaces fetches).
  provider_->set_offset(std::nullopt);
  clock_->Advance(1ms);
  ASSERT_OK(source->Current());
  ASSERT_TRUE(source->WaitIdle(10s));
  EXPECT_EQ(provider_->calls(), 2);
  EXPECT_EQ(source->stats().refresh_offset, 60000ms);
  clock_->Advance(1s);
  ASSERT_OK(source->Current());
  ASSERT_TRUE(source->WaitIdle(10s));
  EXPECT_EQ(provider_->calls(), 3);
}

TEST_F(RefreshingCredentialsTest, ShortLivedCredentialsAreFetchedAtMostOncePerInterval) {
  // The provider vends 30 s credentials while the offset is 60 s: every call is inside
  // the window. Lance refetches on every call; we fetch at most once per second.
  options_.min_fetch_interval = 1s;
  provider_->set_ttl(30s);
  auto source = MakeSource(Initial(30s));
  for (int i = 0; i < 50; ++i) {
    ASSERT_OK(source->Current());
    ASSERT_TRUE(source->WaitIdle(10s));
    clock_->Advance(100ms);
  }
  // Calls at 0, 0.1, ..., 4.9 s: fetches at 0, 1, 2, 3, 4 s.
  EXPECT_EQ(provider_->calls(), 5);
  EXPECT_EQ(source->stats().deferred_refreshes, 45);
  EXPECT_EQ(source->stats().failed_requests, 0);
}

TEST_F(RefreshingCredentialsTest, CredentialsLivingShorterThanTheIntervalWaitForIt) {
  options_.min_fetch_interval = 1s;
  provider_->set_ttl(500ms);
  provider_->set_offset(0ms);
  auto source = MakeSource(Initial(500ms, 0ms));
  clock_->Advance(600ms);
  // First fetch on expiry: immediate.
  EXPECT_EQ(Key(CurrentWithin(*source)), "AKIAFETCH1");
  clock_->Advance(600ms);  // AKIAFETCH1 expired 100 ms ago; fetched 600 ms ago
  auto future = std::async(std::launch::async, [&] { return source->Current(); });
  ASSERT_TRUE(Eventually([&] { return clock_->num_waiters() == 1; }));
  EXPECT_EQ(provider_->calls(), 1);  // held back by the interval
  clock_->Advance(400ms);            // 1 s since the last fetch
  EXPECT_EQ(Key(future.get()), "AKIAFETCH2");
  EXPECT_EQ(provider_->calls(), 2);
}

// ---- OnRejected
// --------------------------------------------------------------------------

TEST_F(RefreshingCredentialsTest,
       OnRejectedForcesExactlyOneRefreshForConcurrentRejecters) {
  auto source = MakeSource(Initial(10min));
  ASSERT_OK_AND_ASSIGN(auto rejected, source->Current());
  provider_->Close();
  std::vector<std::future<Result<std::shared_ptr<const Credentials>>>> futures;
  for (int t = 0; t < 16; ++t) {
    futures.push_back(
        std::async(std::launch::async, [&] { return source->OnRejected(*rejected); }));
  }
  ASSERT_TRUE(provider_->WaitForCalls(1));
  ASSERT_TRUE(Eventually([&] { return clock_->num_waiters() == 16; }));
  provider_->Open();
  for (auto& f : futures) EXPECT_EQ(Key(f.get()), "AKIAFETCH1");
  EXPECT_EQ(provider_->calls(), 1);
  EXPECT_EQ(source->stats().forced_refreshes, 1);

  // A late rejection of the old credentials: someone already refreshed, no fetch.
  EXPECT_EQ(Key(source->OnRejected(*rejected)), "AKIAFETCH1");
  EXPECT_EQ(Key(source->Current()), "AKIAFETCH1");
  EXPECT_EQ(provider_->calls(), 1);
}

TEST_F(RefreshingCredentialsTest,
       OnRejectedFailsWhenTheProviderHandsBackTheSameCredentials) {
  auto source = MakeSource(Initial(10min));
  provider_->set_respond(
      [this](int) { return std::optional<StorageOptions>(Initial(10min)); });
  ASSERT_OK_AND_ASSIGN(auto rejected, source->Current());
  auto r = source->OnRejected(*rejected);
  EXPECT_THAT(r, IsErrorWith(StatusCode::kUnauthorized, "same credentials again"));
  EXPECT_THAT(r.status().message(), Not(HasSubstr("SECRET")));
  EXPECT_EQ(provider_->calls(), 1);
}

TEST_F(RefreshingCredentialsTest, OnRejectedIsRateLimited) {
  options_.min_fetch_interval = 1s;
  auto source = MakeSource(Initial(10min));
  ASSERT_OK_AND_ASSIGN(auto first, source->Current());
  ASSERT_OK_AND_ASSIGN(auto second, source->OnRejected(*first));
  EXPECT_EQ(second->aws.access_key_id, "AKIAFETCH1");
  // The new key is rejected at once too: the next forced fetch waits out the interval.
  auto future =
      std::async(std::launch::async, [&] { return source->OnRejected(*second); });
  ASSERT_TRUE(Eventually([&] { return clock_->num_waiters() == 1; }));
  EXPECT_EQ(provider_->calls(), 1);
  clock_->Advance(1s);
  EXPECT_EQ(Key(future.get()), "AKIAFETCH2");
  EXPECT_EQ(provider_->calls(), 2);
}

TEST_F(RefreshingCredentialsTest, OnRejectedReportsAFailedRefresh) {
  auto source = MakeSource(Initial(10min));
  ASSERT_OK_AND_ASSIGN(auto rejected, source->Current());
  provider_->set_failure(Status::IOError("describe_table failed"));
  auto r = source->OnRejected(*rejected);
  EXPECT_THAT(r, IsErrorWith(StatusCode::kUnauthorized, "describe_table failed"));
  EXPECT_THAT(r.status().message(), HasSubstr(kProviderId));
  EXPECT_THAT(r.status().message(), Not(HasSubstr(kInitialSecret)));
  // The old credentials are still served (they have not expired).
  EXPECT_EQ(Key(source->Current()), kInitialKey);
}

// ---- lifetime
// ----------------------------------------------------------------------------

TEST_F(RefreshingCredentialsTest, DestructionWaitsForAnInFlightRefresh) {
  auto source = MakeSource(Initial(10min));
  provider_->Close();
  clock_->Advance(9min + 30s);
  ASSERT_OK(source->Current());  // starts the background fetch
  ASSERT_TRUE(provider_->WaitForCalls(1));
  auto destroyed =
      std::async(std::launch::async, [s = std::move(source)]() mutable { s.reset(); });
  // The destructor waits for the parked fetch (a few ms of real time to show it).
  EXPECT_EQ(destroyed.wait_for(20ms), std::future_status::timeout);
  provider_->Open();
  destroyed.get();
  // Nothing of the source holds the provider any more.
  EXPECT_TRUE(Eventually([&] { return provider_.use_count() == 1; }));
}

TEST_F(RefreshingCredentialsTest, LastReferenceDroppedOnTheRefreshThreadIsSafe) {
  // on_event drops the last reference: the destructor runs on the refresh thread itself.
  std::shared_ptr<RefreshingCredentialsSource> holder;
  std::mutex mu;
  std::atomic<bool> event_seen{false};
  options_.on_event = [&](const RefreshEvent&) {
    std::shared_ptr<RefreshingCredentialsSource> last;
    {
      std::lock_guard<std::mutex> guard(mu);
      last = std::move(holder);
    }
    last.reset();  // ~RefreshingCredentialsSource on this thread
    event_seen = true;
  };
  auto source = MakeSource(Initial(10min));
  clock_->Advance(9min + 30s);
  ASSERT_OK(source->Current());
  {
    std::lock_guard<std::mutex> guard(mu);
    holder = std::move(source);
  }
  ASSERT_TRUE(Eventually([&] { return event_seen.load(); }));
  EXPECT_TRUE(Eventually([&] { return provider_.use_count() == 1; }));
}

TEST_F(RefreshingCredentialsTest, EventsReportRefreshesWithoutSecrets) {
  std::mutex mu;
  std::vector<std::string> lines;
  options_.on_event = [&](const RefreshEvent& e) {
    std::lock_guard<std::mutex> guard(mu);
    lines.push_back(e.ToString());
  };
  auto source = MakeSource(Initial(10min));
  clock_->Advance(9min + 30s);
  ASSERT_OK(source->Current());
  ASSERT_TRUE(source->WaitIdle(10s));
  provider_->set_failure(Status::IOError("namespace unreachable"));
  clock_->Advance(11min);
  EXPECT_THAT(CurrentWithin(*source), IsError(StatusCode::kTokenExpired));
  ASSERT_TRUE(source->WaitIdle(10s));
  std::lock_guard<std::mutex> guard(mu);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_THAT(lines[0], HasSubstr("(background)"));
  EXPECT_THAT(lines[0], HasSubstr("succeeded"));
  EXPECT_THAT(lines[0], HasSubstr("access_key_id=AKIA"));
  EXPECT_THAT(lines[0], HasSubstr("expires at 2026-01-01T00:19:30.000Z"));
  EXPECT_THAT(lines[1], HasSubstr("(expired)"));
  EXPECT_THAT(lines[1], HasSubstr("namespace unreachable"));
  for (const auto& line : lines) {
    EXPECT_THAT(line, Not(HasSubstr("SECRET")));
    EXPECT_THAT(line, Not(HasSubstr("TOKEN")));
    EXPECT_THAT(line, Not(HasSubstr("AKIAFETCH")));
  }
}

TEST_F(RefreshingCredentialsTest, ToStringRedactsSecrets) {
  auto source = MakeSource(Initial(10min));
  const std::string text = source->ToString();
  EXPECT_THAT(text, HasSubstr(kProviderId));
  EXPECT_THAT(text, HasSubstr("access_key_id=AKIA"));
  EXPECT_THAT(text, HasSubstr("expires_at=2026-01-01T00:10:00.000Z"));
  EXPECT_THAT(text, HasSubstr("refresh_offset=60000 ms"));
  EXPECT_THAT(text, Not(HasSubstr(kInitialKey)));
  EXPECT_THAT(text, Not(HasSubstr(kInitialSecret)));
  EXPECT_THAT(text, Not(HasSubstr(kInitialToken)));
}

TEST_F(RefreshingCredentialsTest, MalformedInitialOptionsAreInvalid) {
  auto bad_expiry = Initial(std::nullopt);
  bad_expiry["expires_at_millis"] = "tomorrow";
  EXPECT_THAT(RefreshingCredentialsSource::Make(bad_expiry, provider_, clock_),
              IsErrorWith(StatusCode::kInvalid, "expires_at_millis"));
  auto bad_offset = Initial(10min);
  bad_offset["refresh_offset_millis"] = "-5";
  EXPECT_THAT(RefreshingCredentialsSource::Make(bad_offset, provider_, clock_),
              IsErrorWith(StatusCode::kInvalid, "refresh_offset_millis"));
  StorageOptions secret_only{{"aws_secret_access_key", kInitialSecret}};
  auto r = RefreshingCredentialsSource::Make(secret_only, provider_, clock_);
  EXPECT_THAT(r, IsError(StatusCode::kInvalid));
  EXPECT_THAT(r.status().message(), Not(HasSubstr(kInitialSecret)));
  EXPECT_THAT(RefreshingCredentialsSource::Make(Initial(10min), nullptr, clock_),
              IsError(StatusCode::kInvalid));
  EXPECT_EQ(provider_->calls(), 0);
}

TEST_F(RefreshingCredentialsTest, CredentialAliasesAreAccepted) {
  ASSERT_OK_AND_ASSIGN(auto creds,
                       CredentialsFromStorageOptions(
                           {{"access_key_id", "AKIAALIAS"},
                            {"secret_access_key", "alias-secret"},
                            {"token", "alias-token"},
                            {"aws_endpoint", "http://not-allowed-without-flag"}}));
  EXPECT_EQ(creds.aws.access_key_id, "AKIAALIAS");
  EXPECT_EQ(creds.aws.secret_access_key, "alias-secret");
  EXPECT_EQ(creds.aws.session_token, "alias-token");
}

TEST_F(RefreshingCredentialsTest, AzureAndGoogleCredentialsAreRead) {
  ASSERT_OK_AND_ASSIGN(
      auto creds,
      CredentialsFromStorageOptions({{"azure_storage_account_name", "acct"},
                                     {"azure_storage_sas_token", "?sv=2024&sig=SASSIG"},
                                     {"azure_storage_account_key", "QUNDT1VOVEtFWQ=="},
                                     {"bearer_token", "azure-oauth-TOKEN"},
                                     {"google_storage_token", "ya29.GOOGLE-TOKEN"}}));
  EXPECT_TRUE(creds.aws.empty());
  EXPECT_EQ(creds.azure.sas_token, "sv=2024&sig=SASSIG");  // the '?' dropped
  EXPECT_EQ(creds.azure.account_key, "QUNDT1VOVEtFWQ==");
  EXPECT_EQ(creds.azure.bearer_token, "azure-oauth-TOKEN");
  EXPECT_EQ(creds.google.bearer_token, "ya29.GOOGLE-TOKEN");
  const std::string text = creds.ToString();
  EXPECT_THAT(text, HasSubstr("AzureCredentials{account_key=<redacted>, "
                              "sas_token=<redacted>, bearer_token=<redacted>}"));
  EXPECT_THAT(text, HasSubstr("GoogleCredentials{bearer_token=<redacted>}"));
  for (const char* secret :
       {"SASSIG", "QUNDT1VOVEtFWQ", "azure-oauth-TOKEN", "GOOGLE-TOKEN"}) {
    EXPECT_THAT(text, Not(HasSubstr(secret)));
  }
  EXPECT_EQ(Credentials{}.ToString(), "Credentials{anonymous}");
  // Two aliases of the SAS with different values are ambiguous.
  EXPECT_THAT(CredentialsFromStorageOptions(
                  {{"azure_storage_sas_token", "sig=A"}, {"sas_key", "sig=B"}}),
              IsErrorWith(StatusCode::kInvalid, "azure_storage_sas_token"));
}

// A namespace that vends Azure SAS tokens (or Google OAuth tokens) refreshes exactly as
// one that vends AWS keys: a SAS alone is credentials, and the fetched one replaces it.
TEST_F(RefreshingCredentialsTest, SasTokensRefreshLikeAwsKeys) {
  provider_->set_respond([this](int n) -> Result<std::optional<StorageOptions>> {
    return StorageOptions{
        {"azure_storage_account_name", "acct"},
        {"azure_storage_sas_token", "sig=FETCHED" + std::to_string(n)},
        {"expires_at_millis", std::to_string(clock_->NowMillis() + 600'000)}};
  });
  StorageOptions initial{
      {"azure_storage_account_name", "acct"},
      {"azure_storage_sas_token", "sig=INITIAL"},
      {"expires_at_millis", std::to_string(clock_->NowMillis() + 600'000)}};
  auto source = MakeSource(initial);
  ASSERT_NE(source, nullptr);
  ASSERT_OK_AND_ASSIGN(auto first, source->Current());
  EXPECT_EQ(first->azure.sas_token, "sig=INITIAL");
  EXPECT_EQ(provider_->calls(), 0);
  clock_->Advance(std::chrono::milliseconds(600'000));  // expired: one blocking fetch
  ASSERT_OK_AND_ASSIGN(auto second, CurrentWithin(*source));
  EXPECT_EQ(second->azure.sas_token, "sig=FETCHED1");
  EXPECT_EQ(provider_->calls(), 1);
  clock_->Advance(2s);  // past the rate limit (min_fetch_interval)
  // A rejected SAS forces one more fetch.
  ASSERT_OK_AND_ASSIGN(auto third, source->OnRejected(*second));
  EXPECT_EQ(third->azure.sas_token, "sig=FETCHED2");
}

TEST(FormatEpochMillisTest, FormatsUtc) {
  EXPECT_EQ(FormatEpochMillis(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(FormatEpochMillis(1'767'225'600'123), "2026-01-01T00:00:00.123Z");
}

TEST(StorageOptionKeysTest, ParsesExpiryAndOffset) {
  ASSERT_OK_AND_ASSIGN(auto none, ExpiresAtMillis({}));
  EXPECT_EQ(none, std::nullopt);
  ASSERT_OK_AND_ASSIGN(auto at,
                       ExpiresAtMillis({{"expires_at_millis", " 1700000000000 "}}));
  EXPECT_EQ(at, 1'700'000'000'000);
  EXPECT_THAT(ExpiresAtMillis({{"expires_at_millis", "1.5"}}),
              IsError(StatusCode::kInvalid));
  ASSERT_OK_AND_ASSIGN(auto def, RefreshOffset({}));
  EXPECT_EQ(def, 60000ms);
  ASSERT_OK_AND_ASSIGN(auto off, RefreshOffset({{"refresh_offset_millis", "1000"}}));
  EXPECT_EQ(off, 1000ms);
}

// A second handle on a table (another open through the namespace while the first is
// alive) must join the first handle's source and hand it its fresh describe_table answer:
// otherwise the shared store's source would later fetch what that answer already carried.
TEST(MakeCredentialsSourceTest, OneLiveSourcePerProviderReseededWithFresherOptions) {
  auto clock = std::make_shared<ManualClock>();
  auto provider = std::make_shared<FakeProvider>(clock);
  provider->set_ttl(10s);
  auto seed = [&](const std::string& key, int64_t ttl_ms) {
    return StorageOptions{
        {"aws_access_key_id", key},
        {"aws_secret_access_key", "seed-SECRET"},
        {"expires_at_millis", std::to_string(clock->NowMillis() + ttl_ms)},
        {"refresh_offset_millis", "1000"}};
  };
  ASSERT_OK_AND_ASSIGN(auto first,
                       MakeCredentialsSource(seed("AKIASEED1", 6000), provider, clock));
  clock->Advance(4s);
  // The second open's answer expires 4 s later than the first one's.
  ASSERT_OK_AND_ASSIGN(auto second,
                       MakeCredentialsSource(seed("AKIASEED2", 6000), provider, clock));
  EXPECT_EQ(first, second);
  clock->Advance(3s);  // past the first seed's expiry, inside the second's lifetime
  ASSERT_OK_AND_ASSIGN(auto creds, first->Current());
  EXPECT_EQ(creds->aws.access_key_id, "AKIASEED2");
  EXPECT_EQ(provider->calls(), 0);
  // An older answer does not replace a fresher one.
  ASSERT_OK_AND_ASSIGN(auto third,
                       MakeCredentialsSource(seed("AKIASEED3", 100), provider, clock));
  ASSERT_OK_AND_ASSIGN(creds, third->Current());
  EXPECT_EQ(creds->aws.access_key_id, "AKIASEED2");
  // Once every handle is gone, a new open starts a new source.
  std::weak_ptr<CredentialsSource> weak = first;
  first.reset();
  second.reset();
  third.reset();
  EXPECT_TRUE(weak.expired());
  ASSERT_OK_AND_ASSIGN(auto fresh,
                       MakeCredentialsSource(seed("AKIASEED4", 6000), provider, clock));
  ASSERT_OK_AND_ASSIGN(creds, fresh->Current());
  EXPECT_EQ(creds->aws.access_key_id, "AKIASEED4");
}

}  // namespace
}  // namespace lance::io
