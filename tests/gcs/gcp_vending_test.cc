// SPDX-License-Identifier: Apache-2.0
// GCP credential vending end to end: a DirectoryNamespace on a gs:// root of
// fake-gcs-server, behind the token-checking proxy (token_proxy.h), whose STS stand-in
// downscopes the namespace's own token with the Credential Access Boundary of the GCP
// vendor (credential_vendor_gcp.cc) and then enforces it on every request:
// - the tokens describe_table vends read their table and nothing else (another table, a
//   sibling prefix "t.lance2/", the bare prefix), per role (read cannot write, write
//   cannot delete nor overwrite, admin can);
// - names that could widen the CEL condition are refused before any exchange;
// - a service-account key in the root's options works as the namespace's own credentials;
// - the stand-in reads the vendor's boundary as Google would, and refuses what it cannot
//   read;
// - the refresh scenarios of tests/testing/vended_refresh_scenarios.h, with tokens that
//   really expire at the proxy.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "lance/io/gcs_object_store.h"
#include "lance/namespace/credential_vendor.h"
#include "lance/namespace/dataset_ops.h"
#include "lance/namespace/directory_namespace.h"
#include "tests/gcs/access_boundary.h"
#include "tests/gcs/gcs_env.h"
#include "tests/gcs/token_endpoint.h"
#include "tests/gcs/token_proxy.h"
#include "tests/testing/matchers.h"
#include "tests/testing/secret_ledger.h"
#include "tests/testing/vended_refresh_scenarios.h"

namespace lance::testing {
namespace {

using namespace ::lance::testing::prelude;  // NOLINT(build/namespaces)

constexpr char kToken[] = "google_storage_token";

void RecordVended(const io::StorageOptions& options) {
  auto it = options.find(kToken);
  if (it != options.end()) RecordSecret(it->second, "vended gcs token");
}

// One proxy for the refresh scenarios, alive for the whole binary.
GcsTokenProxy* ScenarioProxy(const GcsTestEnv& env) {
  static GcsTokenProxy* proxy = [&]() -> GcsTokenProxy* {
    auto started = GcsTokenProxy::Start({.target = env.endpoint});
    if (!started.ok()) return nullptr;
    return started->release();
  }();
  return proxy;
}

VendedCloud GcsCloud() {
  VendedCloud cloud;
  cloud.name = "FakeGcs";
  auto env = GcsTestEnv::Get();
  if (!env.ok()) {
    ADD_FAILURE() << env.status().ToString();
    return cloud;
  }
  GcsTokenProxy* proxy = ScenarioProxy(*env);
  if (proxy == nullptr) {
    ADD_FAILURE() << "cannot start the token proxy";
    return cloud;
  }
  const std::string owner = GcsTestEnv::Unique("ya29.namespace-owner");
  RecordSecret(owner, "gcs namespace token");
  proxy->AddToken(owner, std::chrono::hours(24));
  const std::string bucket = env->bucket;
  cloud.make_root = [bucket] {
    return "gs://" + bucket + "/" + GcsTestEnv::Unique("vr");
  };
  cloud.root_options = env->Options(proxy->endpoint());
  cloud.root_options[kToken] = owner;
  cloud.vendor_properties = {{"credential_vendor.permission", "write"}};
  const std::string sts = proxy->sts_url();
  cloud.lifetime_properties = [sts](std::chrono::milliseconds ttl) {
    return std::map<std::string, std::string>{
        {"credential_vendor.gcp_sts_endpoint",
         sts + "?max_lifetime_ms=" + std::to_string(ttl.count())}};
  };
  cloud.on_vended = RecordVended;
  return cloud;
}

LANCE_INSTANTIATE_VENDED_REFRESH(Gcs, GcsCloud());

class GcpVendingTest : public ::lance::testing::GcsEnvTest {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(GcsEnvTest::SetUp());
    ASSERT_OK_AND_ASSIGN(proxy_, GcsTokenProxy::Start({.target = env_.endpoint}));
    owner_token_ = GcsTestEnv::Unique("ya29.owner");
    RecordSecret(owner_token_, "gcs namespace token");
    proxy_->AddToken(owner_token_, std::chrono::hours(1));
    prefix_ = GcsTestEnv::Unique("gv");
    root_ = "gs://" + env_.bucket + "/" + prefix_;
    ASSERT_OK_AND_ASSIGN(
        direct_, io::GcsObjectStore::FromStorageOptions(env_.bucket, env_.Options()));
  }
  void TearDown() override {
    if (direct_ != nullptr) (void)direct_->DeletePrefix(prefix_ + "/");
  }

  io::StorageOptions RootOptions() const {
    io::StorageOptions options = env_.Options(proxy_->endpoint());
    options[kToken] = owner_token_;
    return options;
  }

  std::shared_ptr<ns::DirectoryNamespace> Namespace(const std::string& permission) {
    ns::Properties props{{"root", root_},
                         {"credential_vendor.enabled", "true"},
                         {"credential_vendor.permission", permission},
                         {"credential_vendor.gcp_sts_endpoint", proxy_->sts_url()}};
    for (const auto& [k, v] : RootOptions()) props["storage." + k] = v;
    auto dir = ns::DirectoryNamespace::FromProperties(props);
    EXPECT_THAT(dir, IsOk());
    return dir.ok() ? *dir : nullptr;
  }

  std::shared_ptr<ns::CredentialVendor> Vendor() {
    ns::GcpCredentialVendorOptions options;
    options.sts_endpoint = proxy_->sts_url();
    options.caller = std::make_shared<io::StaticCredentialsSource>(
        io::gcs::BearerCredentials(owner_token_));
    auto vendor = ns::MakeGcpCredentialVendor(options);
    EXPECT_THAT(vendor, IsOk());
    return vendor.ok() ? *vendor : nullptr;
  }

  // A store on the test bucket, through the proxy, with the vended token only.
  std::shared_ptr<io::GcsObjectStore> StoreWith(const ns::Properties& vended) {
    io::StorageOptions options = env_.Options(proxy_->endpoint());
    options[kToken] = vended.at(kToken);
    auto store = io::GcsObjectStore::FromStorageOptions(env_.bucket, options);
    EXPECT_THAT(store, IsOk());
    return store.ok() ? *store : nullptr;
  }

  Status WriteTable(const std::shared_ptr<ns::LanceNamespace>& dir,
                    const std::string& name, int64_t start) {
    auto batch = vended_refresh::Rows(start, 3);
    auto data = RecordBatchReader::FromBatches(batch->schema(), {batch});
    return ns::WriteDataset(*data, dir, {name}, {}).status();
  }

  std::unique_ptr<GcsTokenProxy> proxy_;
  std::string owner_token_;
  std::string prefix_;
  std::string root_;
  std::shared_ptr<io::GcsObjectStore> direct_;
};

// The object prefix of a gs:// table location ("<prefix>/t.lance").
std::string KeyOf(const std::string& location, const std::string& bucket) {
  std::string key = location.substr(("gs://" + bucket + "/").size());
  while (!key.empty() && key.back() == '/') key.pop_back();
  return key;
}

TEST_F(GcpVendingTest, DescribedTokenReachesItsTableOnly) {
  auto dir = Namespace("read");
  ASSERT_NE(dir, nullptr);
  ASSERT_OK(WriteTable(dir, "t", 0));
  ASSERT_OK(WriteTable(dir, "other", 100));
  ASSERT_OK_AND_ASSIGN(auto described, dir->DescribeTable({.id = {"t"}}));
  ASSERT_TRUE(described.storage_options.has_value());
  const ns::Properties& vended = *described.storage_options;
  RecordVended(vended);
  ASSERT_EQ(vended.count(kToken), 1u);
  EXPECT_NE(vended.at(kToken), owner_token_);
  EXPECT_EQ(vended.count("expires_at_millis"), 1u);
  const std::string table = KeyOf(*described.location, env_.bucket);
  EXPECT_EQ(table, prefix_ + "/t.lance");

  // What the stand-in registered: the vendor's boundary as Google reads it.
  const auto minted = proxy_->minted_boundaries();
  ASSERT_FALSE(minted.empty());
  EXPECT_EQ(minted.back().bucket, env_.bucket);
  EXPECT_EQ(minted.back().permissions, unsigned{kGcsGet | kGcsList});
  EXPECT_THAT(minted.back().object_prefixes, ElementsAre(table + "/"));
  EXPECT_THAT(minted.back().list_prefixes, ElementsAre(table + "/"));

  // Reads of the table through the namespace use the vended token.
  ASSERT_OK_AND_ASSIGN(auto opened, ns::OpenDataset(dir, {"t"}));
  ASSERT_OK_AND_ASSIGN(auto rows, opened->ToTable());
  EXPECT_EQ(rows->num_rows(), 3);
  auto seen = proxy_->tokens_seen();
  EXPECT_NE(std::find(seen.begin(), seen.end(), vended.at(kToken)), seen.end());

  auto store = StoreWith(vended);
  ASSERT_NE(store, nullptr);
  ASSERT_OK_AND_ASSIGN(auto listed, store->ListAll(table + "/", true));
  EXPECT_FALSE(listed.objects.empty());
  ASSERT_OK(store->Read(listed.objects.front().path).status());

  // Another table, a sibling whose name extends the table's, the bare prefix, the root.
  ASSERT_OK(direct_->Put(table + "2/x.bin", "sibling"));
  const std::string other = prefix_ + "/other.lance";
  ASSERT_OK_AND_ASSIGN(auto other_listed, direct_->ListAll(other + "/", true));
  ASSERT_FALSE(other_listed.objects.empty());
  const int64_t forbidden = proxy_->counters().forbidden;
  for (const std::string& key :
       std::vector<std::string>{other_listed.objects.front().path, table + "2/x.bin"}) {
    Status read = store->Read(key).status();
    EXPECT_THAT(read, IsError(StatusCode::kForbidden)) << key;
    EXPECT_THAT(read.ToString(), Not(HasSubstr(vended.at(kToken))));
  }
  for (const std::string& list_prefix :
       {other + "/", table + "2/", table, prefix_ + "/", std::string()}) {
    EXPECT_THAT(store->ListAll(list_prefix, true).status(),
                IsError(StatusCode::kForbidden))
        << "'" << list_prefix << "'";
  }
  // Read permission cannot write, not even inside the table.
  Status write = store->Put(table + "/data/new.bin", "x");
  EXPECT_THAT(write, IsError(StatusCode::kForbidden)) << write;
  EXPECT_THAT(write.ToString(), Not(HasSubstr(vended.at(kToken))));
  EXPECT_EQ(proxy_->counters().forbidden, forbidden + 8);
}

TEST_F(GcpVendingTest, RolesAreEnforcedPerPermission) {
  auto vendor = Vendor();
  ASSERT_NE(vendor, nullptr);
  const std::string table = prefix_ + "/perm.lance";
  const std::string location = "gs://" + env_.bucket + "/" + table;
  ASSERT_OK(direct_->Put(table + "/data/a.bin", "payload"));

  ASSERT_OK_AND_ASSIGN(auto wrote, vendor->Vend(location, ns::VendPermission::kWrite));
  RecordVended(wrote.storage_options);
  auto writer = StoreWith(wrote.storage_options);
  ASSERT_NE(writer, nullptr);
  ASSERT_OK_AND_ASSIGN(auto bytes, writer->Read(table + "/data/a.bin"));
  EXPECT_EQ(bytes->size(), 7);
  ASSERT_OK(writer->Put(table + "/data/b.bin", "x"));
  ASSERT_OK(writer->PutIfNotExists(table + "/data/c.bin", "x"));
  EXPECT_THAT(writer->PutIfNotExists(table + "/data/c.bin", "y"),
              IsError(StatusCode::kAlreadyExists));
  // objectCreator: no delete, and replacing an object needs delete too.
  EXPECT_THAT(writer->Delete(table + "/data/b.bin"), IsError(StatusCode::kForbidden));
  EXPECT_THAT(writer->Put(table + "/data/a.bin", "replaced"),
              IsError(StatusCode::kForbidden));
  EXPECT_THAT(writer->Put(prefix_ + "/elsewhere.bin", "x"),
              IsError(StatusCode::kForbidden));

  ASSERT_OK_AND_ASSIGN(auto owner, vendor->Vend(location, ns::VendPermission::kAdmin));
  RecordVended(owner.storage_options);
  auto admin = StoreWith(owner.storage_options);
  ASSERT_NE(admin, nullptr);
  ASSERT_OK(admin->Put(table + "/data/a.bin", "replaced"));
  ASSERT_OK(admin->Delete(table + "/data/b.bin"));
  ASSERT_OK(admin->Rename(table + "/data/c.bin", table + "/data/d.bin"));
  EXPECT_THAT(admin->Delete(prefix_ + "/elsewhere.bin"), IsError(StatusCode::kForbidden));
  EXPECT_NE(wrote.storage_options.at(kToken), owner.storage_options.at(kToken));
}

TEST_F(GcpVendingTest, QuotesAreRefusedBeforeAnyExchange) {
  auto dir = Namespace("read");
  ASSERT_NE(dir, nullptr);
  auto vendor = Vendor();
  ASSERT_NE(vendor, nullptr);
  for (const std::string& location :
       {"gs://" + env_.bucket + "/" + prefix_ + "/a'b.lance",
        "gs://" + env_.bucket + "/" + prefix_ + "/a\"b.lance",
        "gs://" + env_.bucket + "/" + prefix_ + "/a\\b.lance",
        "gs://" + env_.bucket + "/" + prefix_ + "/a*b.lance", "gs://" + env_.bucket,
        "s3://" + env_.bucket + "/t.lance"}) {
    auto vended = vendor->Vend(location, ns::VendPermission::kRead);
    ASSERT_FALSE(vended.ok()) << location;
    EXPECT_EQ(ns::NamespaceErrorCode(vended.status()), ns::ErrorCode::kInvalidInput)
        << location << ": " << vended.status();
  }
  auto declared = dir->DeclareTable({.id = {"x') || true || ('"}});
  EXPECT_FALSE(declared.ok());
  auto described = dir->DescribeTable({.id = {"a'b"}});
  EXPECT_FALSE(described.ok());
  EXPECT_EQ(proxy_->counters().sts_exchanges, 0);
  EXPECT_EQ(proxy_->counters().sts_refused, 0);
  EXPECT_THAT(vendor->ToString(), Not(HasSubstr(owner_token_)));
}

TEST_F(GcpVendingTest, RefusedExchangesFailClearlyWithoutTokens) {
  // An unknown namespace token: the stand-in answers invalid_grant.
  ns::GcpCredentialVendorOptions options;
  options.sts_endpoint = proxy_->sts_url();
  const std::string unknown = GcsTestEnv::Unique("ya29.unknown");
  options.caller =
      std::make_shared<io::StaticCredentialsSource>(io::gcs::BearerCredentials(unknown));
  ASSERT_OK_AND_ASSIGN(auto vendor, ns::MakeGcpCredentialVendor(options));
  auto vended = vendor->Vend("gs://" + env_.bucket + "/" + prefix_ + "/t.lance",
                             ns::VendPermission::kRead);
  ASSERT_FALSE(vended.ok());
  EXPECT_EQ(ns::NamespaceErrorCode(vended.status()), ns::ErrorCode::kPermissionDenied)
      << vended.status();
  EXPECT_THAT(vended.status().ToString(), HasSubstr("invalid_grant"));
  EXPECT_THAT(vended.status().ToString(), Not(HasSubstr(unknown)));
  EXPECT_EQ(proxy_->counters().sts_refused, 1);

  // The form's other fields, checked one by one.
  httplib::Client client("127.0.0.1", proxy_->port());
  auto post = [&](httplib::Params params) {
    auto result = client.Post("/v1/token", params);
    return result ? std::make_pair(result->status, result->body)
                  : std::make_pair(0, std::string());
  };
  const std::string boundary = ns::GcsCredentialAccessBoundary(
      env_.bucket, prefix_ + "/t.lance", ns::VendPermission::kRead);
  const httplib::Params good = {
      {"grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"},
      {"subject_token_type", "urn:ietf:params:oauth:token-type:access_token"},
      {"requested_token_type", "urn:ietf:params:oauth:token-type:access_token"},
      {"subject_token", owner_token_},
      {"options", boundary}};
  auto ok = post(good);
  ASSERT_EQ(ok.first, 200) << ok.second;
  auto answer = nlohmann::json::parse(ok.second);
  RecordSecret(answer.at("access_token").get<std::string>(), "vended gcs token");
  EXPECT_EQ(answer.at("token_type"), "Bearer");
  EXPECT_EQ(answer.at("issued_token_type"),
            "urn:ietf:params:oauth:token-type:access_token");
  EXPECT_LE(answer.at("expires_in").get<int64_t>(), 3600);
  EXPECT_GE(answer.at("expires_in").get<int64_t>(), 3590);
  auto with = [&](const std::string& key, const std::string& value) {
    httplib::Params p = good;
    p.erase(key);
    p.emplace(key, value);
    return post(p);
  };
  EXPECT_THAT(with("grant_type", "client_credentials").second,
              HasSubstr("unsupported_grant_type"));
  EXPECT_THAT(
      with("subject_token_type", "urn:ietf:params:oauth:token-type:id_token").second,
      HasSubstr("invalid_request"));
  EXPECT_THAT(with("requested_token_type", "urn:ietf:params:oauth:token-type:jwt").second,
              HasSubstr("invalid_request"));
  EXPECT_THAT(with("subject_token", answer.at("access_token")).second,
              HasSubstr("already downscoped"));
  std::string widened = boundary;
  widened.replace(widened.find(" || "), 4, " && true || ");
  EXPECT_THAT(with("options", widened).second, HasSubstr("invalid_request"));
  EXPECT_THAT(with("options", "{}").second, HasSubstr("invalid_request"));
  proxy_->ExpireToken(owner_token_);
  auto expired = post(good);
  EXPECT_EQ(expired.first, 400);
  EXPECT_THAT(expired.second, HasSubstr("invalid_grant"));
}

// The namespace's own credentials as a service-account key: its tokens are fetched from
// the key's token endpoint, downscoped, and fetched again when the STS refuses an expired
// one.
TEST_F(GcpVendingTest, AServiceAccountKeyIsTheNamespacesOwnCredentials) {
  const char kEmail[] = "lance-vendor@lance-test.iam.gserviceaccount.com";
  RsaKeyPair key = GenerateRsaKeyPair();
  RecordSecret(key.private_pem.substr(28, 64), "gcs-test-private-key");
  TokenEndpoint endpoint(key.public_pem, kEmail, proxy_.get());
  ns::Properties props{{"root", root_},
                       {"credential_vendor.enabled", "true"},
                       {"credential_vendor.gcp_sts_endpoint", proxy_->sts_url()}};
  for (const auto& [k, v] : env_.Options(proxy_->endpoint())) props["storage." + k] = v;
  props["storage.google_service_account_key"] =
      ServiceAccountJson(key, kEmail, endpoint.url());
  ASSERT_OK_AND_ASSIGN(auto dir, ns::DirectoryNamespace::FromProperties(props));
  ASSERT_OK(WriteTable(dir, "t", 0));
  const int fetched = endpoint.minted();
  EXPECT_GE(fetched, 1);
  EXPECT_EQ(proxy_->counters().sts_exchanges, 1);

  // Every token of the key expires at the server before the sources think so: the
  // exchange is refused (invalid_grant), the caller's token fetched again, and retried.
  for (const std::string& token : endpoint.tokens()) proxy_->ExpireToken(token);
  ASSERT_OK_AND_ASSIGN(auto described, dir->DescribeTable({.id = {"t"}}));
  ASSERT_TRUE(described.storage_options.has_value());
  RecordVended(*described.storage_options);
  EXPECT_GT(endpoint.minted(), fetched);
  EXPECT_EQ(proxy_->counters().sts_exchanges, 2);
  EXPECT_EQ(proxy_->counters().sts_refused, 1);
  ASSERT_OK_AND_ASSIGN(auto opened, ns::OpenDataset(dir, {"t"}));
  ASSERT_OK_AND_ASSIGN(auto rows, opened->ToTable());
  EXPECT_EQ(rows->num_rows(), 3);
  EXPECT_THAT(dir->namespace_id(), Not(HasSubstr("PRIVATE")));
}

TEST(GcsAccessBoundaryTest, ReadsTheClausesAsGoogleDoes) {
  for (auto [permission, bits] :
       {std::pair{ns::VendPermission::kRead, unsigned{kGcsGet | kGcsList}},
        std::pair{ns::VendPermission::kWrite, unsigned{kGcsGet | kGcsList | kGcsCreate}},
        std::pair{ns::VendPermission::kAdmin, unsigned{kGcsAll}}}) {
    ASSERT_OK_AND_ASSIGN(auto b, ParseGcsAccessBoundary(ns::GcsCredentialAccessBoundary(
                                     "bkt", "root/t.lance", permission)));
    EXPECT_EQ(b.bucket, "bkt");
    EXPECT_EQ(b.permissions, bits);
    EXPECT_THAT(b.object_prefixes, ElementsAre("root/t.lance/"));
    EXPECT_THAT(b.list_prefixes, ElementsAre("root/t.lance/"));
  }
  auto rule = [](const std::string& expression) {
    return R"({"accessBoundary":{"accessBoundaryRules":[{"availableResource":)"
           R"("//storage.googleapis.com/projects/_/buckets/bkt","availablePermissions":)"
           R"(["inRole:roles/storage.objectViewer"],"availabilityCondition":)"
           R"({"expression":")" +
           expression + R"("}}]}})";
  };
  // A condition naming another bucket reaches no object; an empty list prefix with the
  // default '' admits every object; a resource prefix of the bucket admits listings.
  ASSERT_OK_AND_ASSIGN(
      auto b,
      ParseGcsAccessBoundary(rule("resource.name.startsWith('projects/_/buckets/x/')")));
  EXPECT_TRUE(b.object_prefixes.empty());
  ASSERT_OK_AND_ASSIGN(
      b, ParseGcsAccessBoundary(
             rule("api.getAttribute('storage.googleapis.com/objectListPrefix', '')"
                  ".startsWith('')")));
  EXPECT_THAT(b.object_prefixes, ElementsAre(""));
  ASSERT_OK_AND_ASSIGN(
      b,
      ParseGcsAccessBoundary(rule("resource.name.startsWith('projects/_/buckets/bkt')")));
  EXPECT_THAT(b.object_prefixes, ElementsAre(""));
  EXPECT_THAT(b.list_prefixes, ElementsAre(""));
  for (const std::string& bad :
       {std::string("resource.name.startsWith('a') && true"),
        std::string("resource.name.endsWith('a')"),
        std::string("resource.name.startsWith('a\\\\'b')"),
        std::string("api.getAttribute('other', '').startsWith('a')"),
        std::string("resource.name.startsWith('a') ||")}) {
    EXPECT_FALSE(ParseGcsAccessBoundary(rule(bad)).ok()) << bad;
  }
  EXPECT_FALSE(
      ParseGcsAccessBoundary(R"({"accessBoundary":{"accessBoundaryRules":[]}})").ok());
}

}  // namespace
}  // namespace lance::testing
