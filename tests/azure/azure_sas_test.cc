// SPDX-License-Identifier: Apache-2.0
// Credentials on Azurite, for real: a SAS that expires a few seconds after it is minted
// (Azurite refuses it, the store asks its source for a fresh one and goes on), a
// read-only SAS refused on writes with a clear Forbidden error, a wrong account key, and
// no key, SAS signature or token in any log line (at trace level), error or ToString.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "io/azure/azure_client.h"
#include "io/azure/sas.h"
#include "io/azure/shared_key.h"
#include "lance/core/logging.h"
#include "lance/io/azure_object_store.h"
#include "lance/io/http_error.h"
#include "tests/azure/azure_fixture.h"
#include "tests/testing/matchers.h"

namespace lance::io {
namespace {

using namespace ::lance::testing::prelude;  // NOLINT(build/namespaces)
using ::lance::testing::AzureEnvTest;
using ::lance::testing::CountingSasSource;

// The `sig` value of a SAS query string.
std::string SigOf(const std::string& sas) { return sas.substr(sas.find("sig=") + 4); }

class AzureSasTest : public ::lance::testing::AzureContainerTest {
 protected:
  // A store on the container authorized only by what `source` hands out.
  Result<std::shared_ptr<AzureObjectStore>> StoreWith(
      std::shared_ptr<CredentialsSource> source) {
    return MakeAzureObjectStoreFromStorageOptions(
        "az", container_,
        {{"azure_storage_account_name", env_.account},
         {"azure_storage_endpoint", env_.endpoint},
         {"allow_http", "true"}},
        std::move(source));
  }

  static std::shared_ptr<CredentialsSource> StaticSas(const std::string& sas) {
    Credentials c;
    c.azure.sas_token = sas;
    return std::make_shared<StaticCredentialsSource>(std::move(c));
  }
};

TEST_F(AzureSasTest, ExpiredSasIsRefusedAndRefreshedThroughTheSource) {
  constexpr auto kLifetime = std::chrono::seconds(3);
  std::vector<std::string> minted;
  auto source = std::make_shared<CountingSasSource>([&]() -> Result<std::string> {
    LANCE_ASSIGN_OR_RAISE(std::string sas,
                          env_.ContainerSas(container_, "racwdl", kLifetime));
    minted.push_back(sas);
    return sas;
  });
  ASSERT_OK_AND_ASSIGN(auto store, StoreWith(source));
  ASSERT_OK(store->Put("data/a.bin", "payload"));
  ASSERT_OK_AND_ASSIGN(BufferPtr read, store->Read("data/a.bin"));
  EXPECT_EQ(read->ToStringView(), "payload");
  EXPECT_EQ(source->rejected_calls.load(), 0);
  ASSERT_EQ(minted.size(), 1u);

  // Past the SAS's expiry (Azurite compares whole seconds).
  std::this_thread::sleep_for(kLifetime + std::chrono::milliseconds(1500));

  // Azurite really refuses it: a store that cannot refresh fails.
  ASSERT_OK_AND_ASSIGN(auto stale, StoreWith(StaticSas(minted[0])));
  auto refused = stale->Read("data/a.bin");
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(refused.status().IsForbidden() || refused.status().IsUnauthorized())
      << refused.status().ToString();
  EXPECT_THAT(refused.status().message(),
              HasSubstr("az://" + container_ + "/data/a.bin"));
  EXPECT_THAT(refused.status().message(), Not(HasSubstr(SigOf(minted[0]))));

  // The refreshing store asks its source once and goes on with the fresh SAS.
  const int64_t refreshes = store->client()->stats().credential_refreshes.load();
  ASSERT_OK_AND_ASSIGN(read, store->Read("data/a.bin"));
  EXPECT_EQ(read->ToStringView(), "payload");
  EXPECT_EQ(source->rejected_calls.load(), 1);
  EXPECT_EQ(store->client()->stats().credential_refreshes.load(), refreshes + 1);
  ASSERT_EQ(minted.size(), 2u);
  EXPECT_NE(minted[0], minted[1]);
  // Writes go on with it too.
  ASSERT_OK(store->Put("data/b.bin", "more"));
  EXPECT_EQ(source->rejected_calls.load(), 1);
}

TEST_F(AzureSasTest, ReadOnlySasIsRefusedOnWriteWithForbidden) {
  ASSERT_OK(admin_->Put("t/existing", "there"));
  ASSERT_OK_AND_ASSIGN(
      std::string sas,
      env_.ContainerSas(container_, std::string(azure::kSasReadPermissions),
                        std::chrono::hours(1)));
  ASSERT_OK_AND_ASSIGN(auto store, StoreWith(StaticSas(sas)));
  ASSERT_OK_AND_ASSIGN(BufferPtr read, store->Read("t/existing"));
  EXPECT_EQ(read->ToStringView(), "there");
  ASSERT_OK_AND_ASSIGN(ListResult listed, store->ListAll("t/", true));
  EXPECT_EQ(listed.objects.size(), 1u);
  for (Status st : {store->Put("t/new", "x"), store->PutIfNotExists("t/new2", "x"),
                    store->Delete("t/existing")}) {
    ASSERT_TRUE(st.IsForbidden()) << st.ToString();
    EXPECT_THAT(st.message(), HasSubstr("AuthorizationPermissionMismatch"));
    EXPECT_THAT(st.message(), HasSubstr("az://" + container_ + "/t/"));
    EXPECT_THAT(st.message(), Not(HasSubstr(SigOf(sas))));
    const auto* http = st.detail_as<HttpErrorDetail>();
    ASSERT_NE(http, nullptr);
    EXPECT_EQ(http->http_status(), 403);
  }
  ASSERT_OK_AND_ASSIGN(auto writer, store->OpenWriter("t/stream"));
  ASSERT_OK(writer->Write("abc"));
  EXPECT_TRUE(writer->Close().IsForbidden());
  // Nothing was written.
  ASSERT_OK_AND_ASSIGN(listed, admin_->ListAll("t/", true));
  EXPECT_EQ(listed.objects.size(), 1u);
}

TEST_F(AzureSasTest, WrongAccountKeyIsUnauthorized) {
  StorageOptions options = env_.Options();
  options["azure_storage_account_key"] = azure::Base64Encode(std::string(64, 'k'));
  ASSERT_OK_AND_ASSIGN(auto store,
                       MakeAzureObjectStoreFromStorageOptions("az", container_, options));
  auto st = store->Put("x", "y");
  ASSERT_FALSE(st.ok());
  EXPECT_TRUE(st.IsUnauthorized() || st.IsForbidden()) << st.ToString();
  EXPECT_THAT(st.message(), HasSubstr("PutBlob of az://" + container_ + "/x"));
}

TEST_F(AzureSasTest, NoSecretInLogsErrorsOrToString) {
  ASSERT_OK_AND_ASSIGN(std::string good,
                       env_.ContainerSas(container_, "racwdl", std::chrono::hours(1)));
  ASSERT_OK_AND_ASSIGN(std::string read_only,
                       env_.ContainerSas(container_, "rl", std::chrono::hours(1)));
  std::vector<std::string> messages;
  std::string logs;
  {
    ScopedLogCapture capture(LogLevel::kTrace);
    ASSERT_OK_AND_ASSIGN(auto store, StoreWith(StaticSas(good)));
    messages.push_back(store->ToString());
    ASSERT_OK(store->Put("s/a", "1"));
    ASSERT_OK(store->Copy("s/a", "s/b"));  // the copy source carries the SAS too
    ASSERT_OK(store->RenameIfNotExists("s/b", "s/c"));
    ASSERT_OK_AND_ASSIGN(ListResult listed, store->ListAll("s/", false));
    messages.push_back(store->Read("s/missing").status().ToString());
    ASSERT_OK_AND_ASSIGN(auto ro, StoreWith(StaticSas(read_only)));
    messages.push_back(ro->Put("s/denied", "x").ToString());
    messages.push_back(ro->Copy("s/a", "s/d").ToString());
    // Through the options and the registry's path too.
    ASSERT_OK_AND_ASSIGN(auto from_options, MakeAzureObjectStoreFromStorageOptions(
                                                "az", container_, env_.SasOptions(good)));
    messages.push_back(from_options->ToString());
    ASSERT_OK(from_options->Delete("s/a"));
    logs = capture.Joined();
  }
  // Something was logged (each request at debug, each attempt at trace).
  EXPECT_THAT(logs, HasSubstr("PutBlob"));
  EXPECT_THAT(logs, HasSubstr("sig=<redacted>"));
  for (const std::string& secret : {SigOf(good), SigOf(read_only), env_.key}) {
    EXPECT_THAT(logs, Not(HasSubstr(secret)));
    for (const std::string& m : messages) EXPECT_THAT(m, Not(HasSubstr(secret))) << m;
  }
  // Encoded forms as they appear in URLs.
  EXPECT_THAT(logs,
              Not(HasSubstr(azure::UrlEncode(azure::UrlDecode(SigOf(good)), true))));
}

}  // namespace
}  // namespace lance::io
