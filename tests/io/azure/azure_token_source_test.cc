// SPDX-License-Identifier: Apache-2.0
// The client-credentials token source against a fake token endpoint: the request it
// sends, caching until shortly before expiry, one fetch for many concurrent callers, a
// refresh on rejection (and none when another caller already refreshed), and errors
// that never show the client secret.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <latch>
#include <thread>
#include <vector>

#include "io/azure/token_source.h"
#include "lance/io/azure_object_store.h"
#include "tests/io/azure/fake_token_server.h"
#include "tests/testing/matchers.h"

namespace lance::io::azure {
namespace {

using namespace ::lance::testing::prelude;  // NOLINT(build/namespaces)
using ::lance::testing::FakeTokenServer;

constexpr const char* kSecret = "s3cr3t+value/with=chars";

AzureOptions Options(const FakeTokenServer& server) {
  AzureOptions o;
  o.account = "acct";
  o.endpoint = "https://acct.blob.core.windows.net";
  o.client_id = "client-1";
  o.client_secret = kSecret;
  o.tenant_id = "tenant-1";
  o.authority_host = server.host();
  return o;
}

TEST(AzureTokenSourceTest, RequestCachingAndRefresh) {
  FakeTokenServer server;
  ASSERT_OK_AND_ASSIGN(auto source, MakeClientSecretTokenSource(Options(server)));
  ASSERT_OK_AND_ASSIGN(auto first, source->Current());
  EXPECT_FALSE(first->azure.bearer_token.empty());
  EXPECT_TRUE(first->azure.account_key.empty());
  ASSERT_EQ(server.requests(), 1);
  EXPECT_EQ(server.paths()[0], "/tenant-1/oauth2/v2.0/token");
  const std::string body = server.bodies()[0];
  EXPECT_THAT(body, HasSubstr("grant_type=client_credentials"));
  EXPECT_THAT(body, HasSubstr("client_id=client-1"));
  EXPECT_THAT(body, HasSubstr("client_secret=s3cr3t%2Bvalue%2Fwith%3Dchars"));
  EXPECT_THAT(body, HasSubstr("scope=https%3A%2F%2Fstorage.azure.com%2F.default"));
  // Cached.
  ASSERT_OK_AND_ASSIGN(auto again, source->Current());
  EXPECT_EQ(again, first);
  EXPECT_EQ(server.requests(), 1);
  // Rejected: a new token; rejecting the old one again does not fetch once more.
  ASSERT_OK_AND_ASSIGN(auto fresh, source->OnRejected(*first));
  EXPECT_NE(fresh->azure.bearer_token, first->azure.bearer_token);
  EXPECT_EQ(server.requests(), 2);
  ASSERT_OK_AND_ASSIGN(auto same, source->OnRejected(*first));
  EXPECT_EQ(same, fresh);
  EXPECT_EQ(server.requests(), 2);
  EXPECT_THAT(source->ToString(), Not(HasSubstr("s3cr3t")));
  EXPECT_THAT(source->id(), Not(HasSubstr("s3cr3t")));
}

TEST(AzureTokenSourceTest, ShortLivedTokensAreRefreshedBeforeTheyExpire) {
  FakeTokenServer server;
  server.expires_in = 1;  // refreshed after 0.8 s
  ASSERT_OK_AND_ASSIGN(auto source, MakeClientSecretTokenSource(Options(server)));
  ASSERT_OK_AND_ASSIGN(auto first, source->Current());
  ASSERT_OK_AND_ASSIGN(auto cached, source->Current());
  EXPECT_EQ(cached, first);
  std::this_thread::sleep_for(std::chrono::milliseconds(900));
  ASSERT_OK_AND_ASSIGN(auto later, source->Current());
  EXPECT_NE(later->azure.bearer_token, first->azure.bearer_token);
  EXPECT_EQ(server.requests(), 2);
}

TEST(AzureTokenSourceTest, ConcurrentCallersShareOneFetch) {
  FakeTokenServer server;
  server.delay_ms = 300;
  ASSERT_OK_AND_ASSIGN(auto source, MakeClientSecretTokenSource(Options(server)));
  constexpr int kThreads = 8;
  std::latch start(kThreads);
  std::vector<std::string> tokens(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      start.arrive_and_wait();
      auto c = source->Current();
      if (c.ok()) tokens[i] = (*c)->azure.bearer_token;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(server.requests(), 1);
  for (const auto& t : tokens) EXPECT_EQ(t, tokens[0]);
  EXPECT_FALSE(tokens[0].empty());
}

TEST(AzureTokenSourceTest, RefusalIsUnauthorizedWithoutTheSecret) {
  FakeTokenServer server;
  server.status = 401;
  ASSERT_OK_AND_ASSIGN(auto source, MakeClientSecretTokenSource(Options(server)));
  auto refused = source->Current();
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(refused.status().IsUnauthorized()) << refused.status().ToString();
  EXPECT_THAT(refused.status().message(), HasSubstr("invalid_client: AADSTS7000215"));
  EXPECT_THAT(refused.status().message(), Not(HasSubstr("s3cr3t")));
  EXPECT_THAT(refused.status().message(), Not(HasSubstr("Trace ID")));
  // Not retried: a refusal is final.
  EXPECT_EQ(server.requests(), 1);
}

TEST(AzureTokenSourceTest, StoresBuildItFromTheOptions) {
  FakeTokenServer server;
  ASSERT_OK_AND_ASSIGN(AzureOptions options,
                       ParseAzureOptions({{"azure_storage_account_name", "acct"},
                                          {"azure_client_id", "client-1"},
                                          {"azure_client_secret", kSecret},
                                          {"azure_tenant_id", "tenant-1"},
                                          {"azure_authority_host", server.host()},
                                          {"allow_http", "true"}}));
  ASSERT_OK_AND_ASSIGN(auto source, MakeAzureCredentialsSource(options));
  EXPECT_THAT(source->ToString(), HasSubstr("AzureClientSecretTokenSource"));
  ASSERT_OK_AND_ASSIGN(auto creds, source->Current());
  EXPECT_FALSE(creds->azure.bearer_token.empty());
  // Static credentials win over the service principal.
  options.credentials.sas_token = "sv=1&sig=x";
  ASSERT_OK_AND_ASSIGN(source, MakeAzureCredentialsSource(options));
  EXPECT_THAT(source->ToString(), Not(HasSubstr("AzureClientSecretTokenSource")));
  // An http authority host needs allow_http.
  EXPECT_FALSE(ParseAzureOptions({{"azure_storage_account_name", "acct"},
                                  {"azure_authority_host", server.host()}})
                   .ok());
}

}  // namespace
}  // namespace lance::io::azure
