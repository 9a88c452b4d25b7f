// SPDX-License-Identifier: Apache-2.0
// Azure credential vending on Azurite: a DirectoryNamespace on an az:// root with
// `credential_vendor.*` vends SAS tokens (io::azure::SasMinter, service SAS with the
// account key) that Azurite really checks (signature, expiry, permissions):
// - the refresh scenarios of tests/testing/vended_refresh_scenarios.h, with SAS tokens
//   that expire during the test;
// - what a vended SAS may do per permission (read cannot write, write cannot delete);
// - the scope said in the answer: Azurite's accounts are flat, so a SAS reaches the whole
//   container ("container:<name>"), and the vendor logs it.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "lance/io/azure_object_store.h"
#include "lance/namespace/credential_vendor.h"
#include "lance/namespace/directory_namespace.h"
#include "tests/azure/azure_fixture.h"
#include "tests/testing/matchers.h"
#include "tests/testing/secret_ledger.h"
#include "tests/testing/vended_refresh_scenarios.h"

namespace lance::testing {
namespace {

using namespace ::lance::testing::prelude;  // NOLINT(build/namespaces)

void RecordVended(const io::StorageOptions& options) {
  auto it = options.find("azure_storage_sas_token");
  if (it == options.end()) return;
  RecordSecret(it->second, "vended azure sas");
  const size_t sig = it->second.find("sig=");
  if (sig != std::string::npos)
    RecordSecret(it->second.substr(sig + 4), "vended sas sig");
}

VendedCloud AzureCloud() {
  auto env = AzureTestEnv::Get();
  VendedCloud cloud;
  cloud.name = "Azurite";
  if (!env.ok()) {
    ADD_FAILURE() << env.status().ToString();
    return cloud;
  }
  const std::string container = env->container;
  cloud.make_root = [container] {
    return "az://" + container + "/vend-" + UniqueAzureToken();
  };
  cloud.root_options = env->Options();
  cloud.vendor_properties = {{"credential_vendor.permission", "write"}};
  cloud.on_vended = RecordVended;
  return cloud;
}

LANCE_INSTANTIATE_VENDED_REFRESH(Azure, AzureCloud());

class AzureVendingTest : public AzureEnvTest {
 protected:
  std::shared_ptr<ns::CredentialVendor> Vendor() {
    ns::AzureCredentialVendorOptions options;
    options.caller_storage_options = env_.Options();
    options.reported_lifetime_millis = 120'000;
    auto vendor = ns::MakeAzureCredentialVendor(options);
    EXPECT_THAT(vendor, IsOk());
    return vendor.ok() ? *vendor : nullptr;
  }

  // A store on the test container that signs with the vended options only.
  std::shared_ptr<io::AzureObjectStore> StoreWith(const ns::Properties& vended) {
    io::StorageOptions options = {{"azure_storage_endpoint", env_.endpoint},
                                  {"allow_http", "true"}};
    for (const char* key : {"azure_storage_sas_token", "azure_storage_account_name"}) {
      options[key] = vended.at(key);
    }
    auto store =
        io::MakeAzureObjectStoreFromStorageOptions("az", env_.container, options);
    EXPECT_THAT(store, IsOk());
    return store.ok() ? *store : nullptr;
  }
};

TEST_F(AzureVendingTest, PermissionsAreEnforcedByTheService) {
  auto vendor = Vendor();
  ASSERT_NE(vendor, nullptr);
  const std::string table = "vperm-" + UniqueAzureToken() + "/t.lance";
  const std::string location = "az://" + env_.container + "/" + table;
  ASSERT_OK_AND_ASSIGN(auto admin, io::MakeAzureObjectStoreFromStorageOptions(
                                       "az", env_.container, env_.Options()));
  ASSERT_OK(admin->Put(table + "/data/a.bin", "payload"));

  ASSERT_OK_AND_ASSIGN(auto read, vendor->Vend(location, ns::VendPermission::kRead));
  RecordVended(read.storage_options);
  EXPECT_EQ(read.storage_options.at("azure_storage_account_name"), env_.account);
  EXPECT_EQ(read.storage_options.at("refresh_offset_millis"), "60000");
  // Azurite's accounts have no hierarchical namespace: the answer says the SAS reaches
  // the whole container.
  EXPECT_EQ(read.storage_options.at(std::string(ns::kVendedScopeKey)),
            "container:" + env_.container);
  // The scope is no secret: logs and the CLI show it as is.
  EXPECT_EQ(io::ClassifyOptionKey(ns::kVendedScopeKey), io::OptionSensitivity::kPlain);
  auto reader = StoreWith(read.storage_options);
  ASSERT_NE(reader, nullptr);
  ASSERT_OK_AND_ASSIGN(auto bytes, reader->Read(table + "/data/a.bin"));
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(bytes->data()), bytes->size()),
            "payload");
  ASSERT_OK_AND_ASSIGN(auto listed, reader->ListAll(table + "/", true));
  EXPECT_EQ(listed.objects.size(), 1u);
  Status write = reader->Put(table + "/data/b.bin", "x");
  EXPECT_THAT(write, IsError(StatusCode::kForbidden)) << write;
  EXPECT_THAT(write.ToString(), Not(HasSubstr("sig=")));

  ASSERT_OK_AND_ASSIGN(auto wrote, vendor->Vend(location, ns::VendPermission::kWrite));
  RecordVended(wrote.storage_options);
  auto writer = StoreWith(wrote.storage_options);
  ASSERT_NE(writer, nullptr);
  ASSERT_OK(writer->Put(table + "/data/b.bin", "x"));
  // Delete needs admin ("d"): a missing permission is Forbidden, never a silent success.
  Status removed = writer->Delete(table + "/data/b.bin");
  EXPECT_THAT(removed, IsError(StatusCode::kForbidden)) << removed;

  ASSERT_OK_AND_ASSIGN(auto owner, vendor->Vend(location, ns::VendPermission::kAdmin));
  RecordVended(owner.storage_options);
  auto deleter = StoreWith(owner.storage_options);
  ASSERT_NE(deleter, nullptr);
  ASSERT_OK(deleter->Delete(table + "/data/b.bin"));
  ASSERT_OK(admin->DeletePrefix(table + "/"));
}

TEST_F(AzureVendingTest, RefusesWhatItCannotScope) {
  auto vendor = Vendor();
  ASSERT_NE(vendor, nullptr);
  for (const std::string& location : std::vector<std::string>{
           "az://" + env_.container, "s3://bucket/t.lance", "az://Bad_Container/t.lance",
           "az://" + env_.container + "/a'b.lance",
           "az://" + env_.container + "/a*b.lance",
           "abfss://" + env_.container + "@otheraccount.dfs.core.windows.net/t.lance"}) {
    auto vended = vendor->Vend(location, ns::VendPermission::kRead);
    ASSERT_FALSE(vended.ok()) << location;
    EXPECT_EQ(ns::NamespaceErrorCode(vended.status()), ns::ErrorCode::kInvalidInput)
        << location << ": " << vended.status();
  }
  EXPECT_THAT(vendor->ToString(), Not(HasSubstr(env_.key)));
}

TEST_F(AzureVendingTest, ASasAloneCannotMintAnother) {
  ASSERT_OK_AND_ASSIGN(std::string sas, env_.ContainerSas(env_.container, "rl",
                                                          std::chrono::seconds(300)));
  ns::AzureCredentialVendorOptions options;
  options.caller_storage_options = env_.SasOptions(sas);
  auto vendor = ns::MakeAzureCredentialVendor(options);
  ASSERT_FALSE(vendor.ok());
  EXPECT_THAT(vendor.status().message(), HasSubstr("account key"));
  EXPECT_THAT(vendor.status().ToString(), Not(HasSubstr("sig=")));
}

}  // namespace
}  // namespace lance::testing
