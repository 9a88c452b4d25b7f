// SPDX-License-Identifier: Apache-2.0
// OAuth on the HTTPS Azurite of the run (scripts/azurite.sh with AZURITE_OAUTH=1, which
// checks a bearer token's issuer, audience and lifetime): a store whose requests carry
// tokens the client-credentials source fetched from a fake token endpoint, a token that
// Azurite finds expired (the store asks OnRejected, the source fetches a new one), and
// Get User Delegation Key with a user-delegation SAS built from its key -- what the
// namespace's Azure vendor does.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "io/azure/azure_client.h"
#include "io/azure/sas.h"
#include "io/azure/shared_key.h"
#include "lance/io/azure_object_store.h"
#include "lance/namespace/credential_vendor.h"
#include "tests/azure/azure_fixture.h"
#include "tests/io/azure/fake_token_server.h"
#include "tests/testing/matchers.h"
#include "tests/testing/secret_ledger.h"

namespace lance::io {
namespace {

using namespace ::lance::testing::prelude;  // NOLINT(build/namespaces)
using ::lance::testing::FakeTokenServer;

constexpr const char* kClientSecret = "oauth-test-client-secret";

class AzureOAuthTest : public ::lance::testing::AzureContainerTest {
 protected:
  void SetUp() override {
    const char* endpoint = std::getenv("LANCE_AZURE_OAUTH_ENDPOINT");
    ASSERT_TRUE(endpoint != nullptr && *endpoint != '\0')
        << "LANCE_AZURE_OAUTH_ENDPOINT is not set: run through `make test`, or eval "
           "\"$(AZURITE_OAUTH=1 scripts/azurite.sh start DIR)\"";
    endpoint_ = endpoint;
    testing::RecordSecret(kClientSecret, "azure client secret");
    ASSERT_NO_FATAL_FAILURE(AzureContainerTest::SetUp());
  }

  // The container's administration goes through the HTTPS endpoint, with the key.
  StorageOptions AdminOptions() const override {
    StorageOptions with_key = Base();
    with_key["azure_storage_account_key"] = env_.key;
    return with_key;
  }

  // The HTTPS endpoint; the certificate is Azurite's self-signed one.
  StorageOptions Base() const {
    return {{"azure_storage_account_name", env_.account},
            {"azure_storage_endpoint", endpoint_},
            {"allow_invalid_certificates", "true"}};
  }
  StorageOptions ServicePrincipal() const {
    StorageOptions o = Base();
    o["azure_client_id"] = "client-1";
    o["azure_client_secret"] = kClientSecret;
    o["azure_tenant_id"] = "72f988bf-86f1-41af-91ab-2d7cd011db47";
    o["azure_authority_host"] = tokens_.host();
    o["allow_http"] = "true";  // the fake token endpoint is plain http
    return o;
  }

  FakeTokenServer tokens_;
  std::string endpoint_;
};

TEST_F(AzureOAuthTest, BearerTokensFromTheClientCredentialsGrant) {
  ASSERT_OK_AND_ASSIGN(auto store, MakeAzureObjectStoreFromStorageOptions(
                                       "az", container_, ServicePrincipal()));
  EXPECT_THAT(store->ToString(), Not(HasSubstr(kClientSecret)));
  ASSERT_OK(store->Put("o/a", "bearer"));
  ASSERT_OK_AND_ASSIGN(BufferPtr read, store->Read("o/a"));
  EXPECT_EQ(read->ToStringView(), "bearer");
  ASSERT_OK_AND_ASSIGN(ListResult listed, store->ListAll("o/", true));
  EXPECT_EQ(listed.objects.size(), 1u);
  EXPECT_EQ(tokens_.requests(), 1);  // one token for all of them
  // Without any credential Azurite refuses (the container is private).
  ASSERT_OK_AND_ASSIGN(auto anonymous,
                       MakeAzureObjectStoreFromStorageOptions("az", container_, Base()));
  EXPECT_FALSE(anonymous->Read("o/a").ok());
}

TEST_F(AzureOAuthTest, TokenAzuriteFindsExpiredIsRefreshedOnRejection) {
  // The endpoint says an hour, the token itself lasts 2 s: only the server can tell.
  tokens_.jwt_lifetime = 2;
  ASSERT_OK_AND_ASSIGN(auto store, MakeAzureObjectStoreFromStorageOptions(
                                       "az", container_, ServicePrincipal()));
  ASSERT_OK(store->Put("e/a", "x"));
  EXPECT_EQ(tokens_.requests(), 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(3200));
  ASSERT_OK_AND_ASSIGN(BufferPtr read, store->Read("e/a"));
  EXPECT_EQ(read->ToStringView(), "x");
  EXPECT_EQ(tokens_.requests(), 2);
  EXPECT_EQ(store->client()->stats().credential_refreshes.load(), 1);
}

TEST_F(AzureOAuthTest, UserDelegationKeyAndSas) {
  ASSERT_OK(admin_->Put("ud/blob", "delegated"));
  ASSERT_OK_AND_ASSIGN(auto store, MakeAzureObjectStoreFromStorageOptions(
                                       "az", container_, ServicePrincipal()));
  const auto now = std::chrono::system_clock::now();
  ASSERT_OK_AND_ASSIGN(azure::UserDelegationKey key,
                       store->client()->GetUserDelegationKey(
                           now - std::chrono::minutes(1), now + std::chrono::hours(1)));
  EXPECT_FALSE(key.value.empty());
  EXPECT_EQ(key.signed_service, "b");
  testing::RecordSecret(key.value, "user delegation key");

  azure::SasOptions sas;
  sas.account = env_.account;
  sas.container = container_;
  sas.permissions = std::string(azure::kSasReadPermissions);
  sas.start = now - std::chrono::minutes(1);
  sas.expiry = now + std::chrono::minutes(30);
  ASSERT_OK_AND_ASSIGN(std::string token, azure::MakeUserDelegationSas(sas, key));
  testing::RecordSecret(token, "user delegation sas");
  StorageOptions options = Base();
  options["azure_storage_sas_token"] = token;
  ASSERT_OK_AND_ASSIGN(auto reader,
                       MakeAzureObjectStoreFromStorageOptions("az", container_, options));
  ASSERT_OK_AND_ASSIGN(BufferPtr read, reader->Read("ud/blob"));
  EXPECT_EQ(read->ToStringView(), "delegated");
  Status denied = reader->Put("ud/other", "x");
  EXPECT_TRUE(denied.IsForbidden()) << denied.ToString();

  // A SAS signed with another key is refused.
  azure::UserDelegationKey forged = key;
  forged.value = azure::Base64Encode(std::string(32, 'f'));
  ASSERT_OK_AND_ASSIGN(std::string bad, azure::MakeUserDelegationSas(sas, forged));
  options["azure_storage_sas_token"] = bad;
  ASSERT_OK_AND_ASSIGN(auto refused,
                       MakeAzureObjectStoreFromStorageOptions("az", container_, options));
  EXPECT_FALSE(refused->Read("ud/blob").ok());

  // Shared Key cannot get a user delegation key.
  EXPECT_FALSE(
      admin_->client()->GetUserDelegationKey(now, now + std::chrono::hours(1)).ok());
}

// The namespace's Azure vendor with OAuth credentials (no account key): it asks Get User
// Delegation Key once and signs user-delegation SAS tokens with it, as Lance's vendor
// does; the SAS reads on Azurite, and read permission cannot write.
TEST_F(AzureOAuthTest, VendorMintsUserDelegationSasWithOAuthCredentials) {
  ASSERT_OK(admin_->Put("tbl/t.lance/data/a", "vended"));
  ns::AzureCredentialVendorOptions options;
  options.caller_storage_options = ServicePrincipal();
  options.hierarchical_namespace = azure::HierarchicalNamespace::kNo;
  ASSERT_OK_AND_ASSIGN(auto vendor, ns::MakeAzureCredentialVendor(options));
  EXPECT_THAT(vendor->ToString(), Not(HasSubstr(kClientSecret)));
  const std::string location = "az://" + container_ + "/tbl/t.lance";
  ASSERT_OK_AND_ASSIGN(auto first, vendor->Vend(location, ns::VendPermission::kRead));
  ASSERT_OK_AND_ASSIGN(auto second, vendor->Vend(location, ns::VendPermission::kWrite));
  const std::string& sas = first.storage_options.at("azure_storage_sas_token");
  testing::RecordSecret(sas, "vended user delegation sas");
  testing::RecordSecret(second.storage_options.at("azure_storage_sas_token"),
                        "vended user delegation sas");
  // A user-delegation SAS names its key (skoid...): it is not a service SAS.
  EXPECT_THAT(sas, HasSubstr("skoid="));
  EXPECT_EQ(first.storage_options.at(std::string(ns::kVendedScopeKey)),
            "container:" + container_);
  EXPECT_EQ(tokens_.requests(), 1);  // one OAuth token for the key, reused

  StorageOptions read_options = Base();
  read_options["azure_storage_sas_token"] = sas;
  ASSERT_OK_AND_ASSIGN(auto reader, MakeAzureObjectStoreFromStorageOptions(
                                        "az", container_, read_options));
  ASSERT_OK_AND_ASSIGN(BufferPtr read, reader->Read("tbl/t.lance/data/a"));
  EXPECT_EQ(read->ToStringView(), "vended");
  Status denied = reader->Put("tbl/t.lance/data/b", "x");
  EXPECT_TRUE(denied.IsForbidden()) << denied.ToString();

  StorageOptions write_options = Base();
  write_options["azure_storage_sas_token"] =
      second.storage_options.at("azure_storage_sas_token");
  ASSERT_OK_AND_ASSIGN(auto writer, MakeAzureObjectStoreFromStorageOptions(
                                        "az", container_, write_options));
  ASSERT_OK(writer->Put("tbl/t.lance/data/b", "y"));
}

}  // namespace
}  // namespace lance::io
