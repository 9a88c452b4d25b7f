// SPDX-License-Identifier: Apache-2.0
// io::Session: the one owner of the live credentials source per provider id, the refresh
// statistics and the store cache. Two sessions share none of them; the default one is
// what the free functions (MakeCredentialsSource, CredentialRefreshStats) and
// ObjectStoreRegistry::Default() use.

#include "lance/io/session.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "lance/core/clock.h"
#include "lance/io/memory_object_store.h"
#include "lance/io/object_store_registry.h"
#include "lance/io/refreshing_credentials.h"
#include "lance/io/storage_access.h"
#include "tests/testing/matchers.h"

namespace lance::io {
namespace {

using ::lance::testing::IsOk;

// Vends "AKIAFETCH<n>" on its n-th call, valid for 10 minutes.
class FetchCountingProvider final : public StorageOptionsProvider {
 public:
  FetchCountingProvider(std::shared_ptr<ManualClock> clock, std::string id)
      : clock_(std::move(clock)), id_(std::move(id)) {}

  Result<std::optional<StorageOptions>> FetchStorageOptions() override {
    const int n = ++calls_;
    return StorageOptions{
        {"aws_access_key_id", "AKIAFETCH" + std::to_string(n)},
        {"aws_secret_access_key", "fetched-SECRET-" + std::to_string(n)},
        {"expires_at_millis", std::to_string(clock_->NowMillis() + 600'000)}};
  }
  std::string provider_id() const override { return id_; }

 private:
  std::shared_ptr<ManualClock> clock_;
  std::string id_;
  std::atomic<int> calls_{0};
};

class SessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    clock_ = std::make_shared<ManualClock>();
    // The default session keeps every provider id: a unique id per test.
    id_ = std::string("SessionTest.") +
          ::testing::UnitTest::GetInstance()->current_test_info()->name();
    provider_ = std::make_shared<FetchCountingProvider>(clock_, id_);
  }

  // No credentials: the first Current() fetches (and is counted).
  static StorageOptions NoCredentials() { return {{"aws_region", "us-east-1"}}; }

  static std::optional<ProviderRefreshStats> Find(
      const std::vector<ProviderRefreshStats>& all, const std::string& id) {
    for (const auto& entry : all) {
      if (entry.provider_id == id) return entry;
    }
    return std::nullopt;
  }

  std::shared_ptr<ManualClock> clock_;
  std::string id_;
  std::shared_ptr<FetchCountingProvider> provider_;
};

TEST_F(SessionTest, SeparateSessionsHaveTheirOwnSourcesAndStatistics) {
  Session a;
  Session b;
  ASSERT_OK_AND_ASSIGN(auto a1,
                       a.MakeCredentialsSource(NoCredentials(), provider_, clock_));
  ASSERT_OK_AND_ASSIGN(auto a2,
                       a.MakeCredentialsSource(NoCredentials(), provider_, clock_));
  ASSERT_OK_AND_ASSIGN(auto b1,
                       b.MakeCredentialsSource(NoCredentials(), provider_, clock_));
  // One live source per provider id within a session, none shared across sessions.
  EXPECT_EQ(a1, a2);
  EXPECT_NE(a1, b1);
  ASSERT_OK(a1->Current().status());

  auto in_a = Find(a.CredentialRefreshStats(), id_);
  ASSERT_TRUE(in_a.has_value());
  EXPECT_EQ(in_a->sources, 1);
  EXPECT_EQ(in_a->live_sources, 1);
  EXPECT_EQ(in_a->stats.fetches, 1);
  auto in_b = Find(b.CredentialRefreshStats(), id_);
  ASSERT_TRUE(in_b.has_value());
  EXPECT_EQ(in_b->stats.fetches, 0);
  // Neither is the default session's.
  EXPECT_FALSE(Find(CredentialRefreshStats(), id_).has_value());
  EXPECT_FALSE(Find(Session::Default()->CredentialRefreshStats(), id_).has_value());

  // A dead source's counters stay with its session.
  a1.reset();
  a2.reset();
  in_a = Find(a.CredentialRefreshStats(), id_);
  ASSERT_TRUE(in_a.has_value());
  EXPECT_EQ(in_a->live_sources, 0);
  EXPECT_EQ(in_a->stats.fetches, 1);
  // ...and a new handle then builds a new source.
  ASSERT_OK_AND_ASSIGN(auto a3,
                       a.MakeCredentialsSource(NoCredentials(), provider_, clock_));
  EXPECT_EQ(Find(a.CredentialRefreshStats(), id_)->sources, 2);
}

TEST_F(SessionTest, TheFreeFunctionsUseTheDefaultSession) {
  ASSERT_OK_AND_ASSIGN(auto source,
                       MakeCredentialsSource(NoCredentials(), provider_, clock_));
  ASSERT_OK_AND_ASSIGN(auto again, Session::Default()->MakeCredentialsSource(
                                       NoCredentials(), provider_, clock_));
  EXPECT_EQ(source, again);
  ASSERT_OK(source->Current().status());
  auto entry = Find(CredentialRefreshStats(), id_);
  ASSERT_TRUE(entry.has_value());
  EXPECT_EQ(entry->stats.fetches, 1);
  EXPECT_EQ(ObjectStoreRegistry::Default().session(), Session::Default());

  // A source built directly (RefreshingCredentialsSource::Make) counts there too; one
  // built for another session does not.
  ASSERT_OK_AND_ASSIGN(
      auto direct, RefreshingCredentialsSource::Make(NoCredentials(), provider_, clock_));
  Session other;
  ASSERT_OK_AND_ASSIGN(auto elsewhere, RefreshingCredentialsSource::MakeInSession(
                                           other, NoCredentials(), provider_, clock_));
  EXPECT_EQ(Find(CredentialRefreshStats(), id_)->sources, 2);
  EXPECT_EQ(Find(other.CredentialRefreshStats(), id_)->sources, 1);
}

TEST_F(SessionTest, RegistriesOverSeparateSessionsShareNoStores) {
  auto session = std::make_shared<Session>();
  ObjectStoreRegistry first(session);
  ObjectStoreRegistry same_session(session);
  ObjectStoreRegistry own;  // a new session of its own
  for (ObjectStoreRegistry* r : {&first, &same_session, &own}) {
    ASSERT_OK(r->Register("priv",
                          [](const Uri& root, const StorageOptions&,
                             const std::shared_ptr<CredentialsSource>&)
                              -> Result<std::shared_ptr<ObjectStore>> {
                            return std::shared_ptr<ObjectStore>(
                                std::make_shared<MemoryObjectStore>(root.authority));
                          }));
  }
  ASSERT_OK_AND_ASSIGN(auto a, first.Resolve("priv://bucket/t"));
  ASSERT_OK_AND_ASSIGN(auto b, same_session.Resolve("priv://bucket/t"));
  ASSERT_OK_AND_ASSIGN(auto c, own.Resolve("priv://bucket/t"));
  EXPECT_EQ(a.store, b.store);  // one cache: the session's
  EXPECT_NE(a.store, c.store);
  EXPECT_EQ(session->num_cached_stores(), 1u);
  EXPECT_EQ(own.num_cached_stores(), 1u);
  own.ClearCache();
  EXPECT_EQ(own.num_cached_stores(), 0u);
  EXPECT_EQ(first.num_cached_stores(), 1u);
}

TEST_F(SessionTest, StoreCacheRebuildsForOtherSecretsAndForgetsByPrefix) {
  Session session;
  int made = 0;
  auto make = [&]() -> Result<std::shared_ptr<ObjectStore>> {
    ++made;
    return std::shared_ptr<ObjectStore>(std::make_shared<MemoryObjectStore>());
  };
  ASSERT_OK_AND_ASSIGN(auto s1, session.GetOrMakeStore("k:1", 1, make));
  ASSERT_OK_AND_ASSIGN(auto s2, session.GetOrMakeStore("k:1", 1, make));
  EXPECT_EQ(s1, s2);
  ASSERT_OK_AND_ASSIGN(auto rotated, session.GetOrMakeStore("k:1", 2, make));
  EXPECT_NE(rotated, s1);
  EXPECT_EQ(session.num_cached_stores(), 1u);  // the new secrets replaced the entry
  ASSERT_OK_AND_ASSIGN(auto other, session.GetOrMakeStore("j:1", 1, make));
  EXPECT_EQ(made, 3);
  session.ForgetStores("k:");
  EXPECT_EQ(session.num_cached_stores(), 1u);
  EXPECT_THAT(session.GetOrMakeStore("x", 0,
                                     []() -> Result<std::shared_ptr<ObjectStore>> {
                                       return Status::Unavailable("down");
                                     }),
              ::lance::testing::IsError(StatusCode::kUnavailable));
  EXPECT_EQ(session.num_cached_stores(), 1u);
}

}  // namespace
}  // namespace lance::io
