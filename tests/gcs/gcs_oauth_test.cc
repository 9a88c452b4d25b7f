// SPDX-License-Identifier: Apache-2.0
// Service-account keys exchanged for OAuth tokens (GoogleOAuthCredentialsSource) against
// a small local stand-in of Google's token endpoint that verifies the JWT with the key's
// public half, and the tokens used on fake-gcs-server through the token-checking proxy:
// fetched once and cached, refreshed shortly before expiry, one fetch for many waiting
// callers, fetched again when the server rejects an expired one, and refused keys failing
// clearly without the key in any message.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "lance/core/clock.h"
#include "lance/io/gcs_credentials.h"
#include "lance/io/gcs_object_store.h"
#include "tests/gcs/gcs_env.h"
#include "tests/gcs/token_endpoint.h"
#include "tests/gcs/token_proxy.h"
#include "tests/io/gcs/jwt_testing.h"
#include "tests/testing/matchers.h"
#include "tests/testing/secret_ledger.h"
#include "tests/testing/temp_dir.h"

namespace lance::io::gcs {
namespace {

using namespace ::lance::testing::prelude;  // NOLINT(build/namespaces)
using ::lance::testing::GcsTestEnv;
using ::lance::testing::GcsTokenProxy;
using ::lance::testing::MakeFreshGcsBucketStore;

using ::lance::testing::TokenEndpoint;

constexpr char kEmail[] = "lance-test@lance-test.iam.gserviceaccount.com";

class GcsOAuthTest : public ::lance::testing::GcsEnvTest {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(GcsEnvTest::SetUp());
    ASSERT_OK_AND_ASSIGN(proxy_, GcsTokenProxy::Start({env_.endpoint, false}));
    key_ = ::lance::testing::GenerateRsaKeyPair();
    ASSERT_FALSE(key_.private_pem.empty());
    // A line of the key's base64: enough for the secrets scan to find any leak.
    ::lance::testing::RecordSecret(key_.private_pem.substr(28, 64),
                                   "gcs-test-private-key");
    endpoint_ = std::make_unique<TokenEndpoint>(key_.public_pem, kEmail, proxy_.get());
    key_json_ = ::lance::testing::ServiceAccountJson(key_, kEmail, endpoint_->url());
  }
  void TearDown() override {
    endpoint_.reset();
    proxy_.reset();
  }

  StorageOptions KeyOptions() const {
    return {{"google_service_account_key", key_json_}};
  }
  Result<std::shared_ptr<GoogleOAuthCredentialsSource>> Source(
      std::shared_ptr<Clock> clock = nullptr) const {
    LANCE_ASSIGN_OR_RAISE(auto file, ParseGoogleCredentialsFile(key_json_));
    GoogleOAuthCredentialsSource::Options o;
    o.allow_http = true;
    o.clock = std::move(clock);
    return GoogleOAuthCredentialsSource::Make(std::move(file), std::move(o));
  }

  std::unique_ptr<GcsTokenProxy> proxy_;
  ::lance::testing::RsaKeyPair key_;
  std::unique_ptr<TokenEndpoint> endpoint_;
  std::string key_json_;
};

TEST_F(GcsOAuthTest, AServiceAccountKeyInTheOptionsWorksThroughTheProxy) {
  ASSERT_OK_AND_ASSIGN(
      auto store, MakeFreshGcsBucketStore(KeyOptions(), nullptr, proxy_->endpoint()));
  for (int i = 0; i < 5; ++i) ASSERT_OK(store->Put("k/" + std::to_string(i), "v"));
  ASSERT_OK_AND_ASSIGN(ListResult all, store->ListAll("k/", true));
  EXPECT_EQ(all.objects.size(), 5u);
  EXPECT_EQ(endpoint_->requests(), 1) << "the token is fetched once and cached";
  EXPECT_EQ(proxy_->tokens_seen().size(), 1u);
  const std::string text = store->ToString();
  EXPECT_THAT(text, HasSubstr("GoogleOAuthCredentials(service_account client_email="));
  EXPECT_THAT(text, Not(HasSubstr("PRIVATE")));
  EXPECT_THAT(text, Not(HasSubstr(proxy_->tokens_seen()[0])));
}

TEST_F(GcsOAuthTest, KeyFilesByPathAndApplicationCredentials) {
  ::lance::testing::TempDir dir;
  const std::string path = dir.path() + "/sa.json";
  {
    std::ofstream out(path);
    out << key_json_;
  }
  for (const char* option :
       {"google_service_account", "google_application_credentials"}) {
    SCOPED_TRACE(option);
    ASSERT_OK_AND_ASSIGN(auto store, MakeFreshGcsBucketStore({{option, path}}, nullptr,
                                                             proxy_->endpoint()));
    ASSERT_OK(store->Put("a", "b"));
    ASSERT_OK_AND_ASSIGN(BufferPtr back, store->Read("a"));
    EXPECT_EQ(back->ToStringView(), "b");
  }
  EXPECT_EQ(endpoint_->requests(), 2);
}

TEST_F(GcsOAuthTest, TokenIsCachedUntilShortlyBeforeItExpires) {
  auto clock = std::make_shared<ManualClock>(
      std::chrono::duration_cast<std::chrono::milliseconds>(
          std::chrono::system_clock::now().time_since_epoch())
          .count());
  endpoint_->check_times = false;  // the JWT's iat/exp follow the manual clock
  ASSERT_OK_AND_ASSIGN(auto source, Source(clock));
  ASSERT_OK_AND_ASSIGN(auto first, source->Current());
  for (int i = 0; i < 10; ++i) {
    ASSERT_OK_AND_ASSIGN(auto again, source->Current());
    EXPECT_EQ(again, first);
  }
  EXPECT_EQ(endpoint_->requests(), 1);
  // 3600 s tokens are refreshed 60 s before they expire.
  clock->Advance(std::chrono::seconds(3600 - 61));
  ASSERT_OK_AND_ASSIGN(auto still, source->Current());
  EXPECT_EQ(still, first);
  clock->Advance(std::chrono::seconds(2));
  ASSERT_OK_AND_ASSIGN(auto fresh, source->Current());
  EXPECT_NE(BearerTokenOf(*fresh), BearerTokenOf(*first));
  EXPECT_EQ(endpoint_->requests(), 2);
  // A short-lived token is refreshed at half its life.
  endpoint_->expires_in_s = 10;
  clock->Advance(std::chrono::hours(2));
  ASSERT_OK_AND_ASSIGN(auto short_lived, source->Current());
  clock->Advance(std::chrono::seconds(4));
  ASSERT_OK_AND_ASSIGN(auto same, source->Current());
  EXPECT_EQ(same, short_lived);
  clock->Advance(std::chrono::seconds(2));
  ASSERT_OK_AND_ASSIGN(auto next, source->Current());
  EXPECT_NE(next, short_lived);
  EXPECT_EQ(source->fetches(), 4);
}

TEST_F(GcsOAuthTest, ManyCallersOfAStaleSourceShareOneFetch) {
  ASSERT_OK_AND_ASSIGN(auto source, Source());
  endpoint_->delay_ms = 300;
  std::vector<std::thread> threads;
  std::vector<std::string> tokens(16);
  std::atomic<int> failures{0};
  for (int i = 0; i < 16; ++i) {
    threads.emplace_back([&, i] {
      auto creds = source->Current();
      if (!creds.ok()) {
        failures.fetch_add(1);
        return;
      }
      tokens[static_cast<size_t>(i)] = BearerTokenOf(**creds);
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(endpoint_->requests(), 1);
  for (const auto& t : tokens) EXPECT_EQ(t, tokens[0]);
  // Rejections of one token by many requests: one new fetch too.
  const SeamCredentials rejected = BearerCredentials(tokens[0]);
  threads.clear();
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&] { (void)source->OnRejected(rejected); });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(endpoint_->requests(), 2);
  ASSERT_OK_AND_ASSIGN(auto now, source->Current());
  EXPECT_NE(BearerTokenOf(*now), tokens[0]);
}

TEST_F(GcsOAuthTest, ATokenTheServerRejectsIsFetchedAgainUnderALiveStore) {
  ASSERT_OK_AND_ASSIGN(
      auto store, MakeFreshGcsBucketStore(KeyOptions(), nullptr, proxy_->endpoint()));
  ASSERT_OK(store->Put("x", "1"));
  ASSERT_EQ(proxy_->tokens_seen().size(), 1u);
  // Revoked (or expired early): the proxy now refuses it; the source is asked again.
  proxy_->ExpireToken(proxy_->tokens_seen()[0]);
  ASSERT_OK(store->Put("y", "2"));
  ASSERT_OK_AND_ASSIGN(BufferPtr back, store->Read("x"));
  EXPECT_EQ(back->ToStringView(), "1");
  EXPECT_EQ(endpoint_->requests(), 2);
  EXPECT_EQ(proxy_->tokens_seen().size(), 2u);
  EXPECT_EQ(proxy_->counters().unauthorized, 1);
}

TEST_F(GcsOAuthTest, ARefusedKeyFailsClearlyWithoutTheKey) {
  // A key the endpoint does not know (another key pair under the same email).
  const auto other = ::lance::testing::GenerateRsaKeyPair();
  ::lance::testing::RecordSecret(other.private_pem.substr(28, 64),
                                 "gcs-other-private-key");
  StorageOptions options = env_.Options(proxy_->endpoint());
  options["google_service_account_key"] =
      ::lance::testing::ServiceAccountJson(other, kEmail, endpoint_->url());
  ASSERT_OK_AND_ASSIGN(auto store,
                       GcsObjectStore::FromStorageOptions(env_.bucket, options));
  Status st = store->Put("never", "x");
  EXPECT_THAT(st, IsErrorWith(StatusCode::kUnauthorized, "invalid_grant"));
  EXPECT_THAT(st.message(), HasSubstr(endpoint_->url()));
  EXPECT_THAT(st.message(), HasSubstr("gs://" + env_.bucket + "/never"));
  EXPECT_THAT(st.ToString(), Not(HasSubstr(other.private_pem.substr(28, 64))));
  EXPECT_THAT(st.ToString(), Not(HasSubstr("eyJ")));  // no JWT either
  EXPECT_EQ(proxy_->counters().forwarded, 0);
}

}  // namespace
}  // namespace lance::io::gcs
